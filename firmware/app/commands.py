"""What a host, a page or the hall may ask of the board, and what it reads of the game.

:class:`Commands` builds on the board's :class:`~crownhead.firmware.app.table.Table` (the
parts and the state they share, declared there once), and
:class:`~crownhead.firmware.app.application.App` on it: the application's public methods that
act on the game from outside the board (a draw offer, a resignation, a button pressed, the
players' names, a side held by a link, the rules, the mode, the referee's settings, the
brightness), and what they read. The parts that act on the table are made here when first
used: the recorder, the machine's seat and the snapshot maker. A command is run in the main
loop's thread: a part joined as an output calls it from its ``poll`` and returns its events,
so that the step handles and sends them like a press's. The link
(:class:`crownhead.firmware.link.board.LinkedBoard`), the web page and the hall use these and
nothing else of the application.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from crownhead.firmware.app.machine import MachineSeat
from crownhead.firmware.app.modes import ModeSeats
from crownhead.firmware.app.players import EngineUnavailable, Player, engine_player
from crownhead.firmware.app.recorder import Recorder
from crownhead.firmware.app.scene import Scene
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.table import NO_ANALYSIS, NO_ANALYSIS_FAR, NO_ANALYSIS_PROBLEM, NO_HINT_FAR, Table
from crownhead.firmware.events import BoardWarning, Event
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.hal.buttons import ButtonEvent
from crownhead.rules import BLACK, WHITE, Color, Game, Move, Position, Rules
from crownhead.rules.ballots import Ballot

if TYPE_CHECKING:  # the problem mode brings the collections: made when first asked for
    from crownhead.firmware.app.problems import ProblemCoach

__all__ = ["Commands", "NO_ANALYSIS", "NO_ANALYSIS_FAR", "NO_ANALYSIS_PROBLEM", "NO_HINT_FAR", "NO_REVIEW_FAR"]

#: A review asked on the page while a game far apart is under way.
NO_REVIEW_FAR = "no review in a game far apart under way: neither side gets the engine's help"


class Commands(Table):
    """The board's commands on its :class:`~crownhead.firmware.app.table.Table` (see the module)."""

    # -- the parts that act on the table ------------------------------------------------

    @cached_property
    def recorder(self) -> Recorder:
        """The games on disk: saved, put away, begun, taken up and counted in a match."""
        return Recorder(self)

    @cached_property
    def machine(self) -> MachineSeat:
        """The machine's seat: its moves, its answer to a draw offer, the hint's use."""
        return MachineSeat(self)

    @cached_property
    def scene(self) -> Scene:
        """The snapshot maker: the step's snapshot, the LEDs lit for it, the moves taken back."""
        return Scene(self)

    # -- the game as a host, a page or the hall sees it --------------------------------

    @property
    def referee_mode(self) -> bool:
        """Whether a referee is in charge of the games (referee mode)."""
        return self.referee is not None

    @property
    def setting_up(self) -> Position | None:
        """The position a new game is being set up in, or None (a saved game being set up
        to resume is :attr:`resuming`)."""
        return None if self.resuming else self.tracker.setting_up

    @property
    def expected(self) -> Move | None:
        """The move the board shows and waits for (the machine's, a ballot's, a host's)."""
        return self.tracker.expected

    @property
    def warning(self) -> BoardWarning | None:
        """The board's warning now (the most urgent, as the referee words it), or None."""
        return self.follower.warning

    def set_analysis(self, on: bool) -> str | None:
        """Turn the live analysis on or off; the reason it stays off (:attr:`analysis_refused`), or None."""
        if on and self.analysis_refused is not None:
            return self.analysis_refused
        self.analysis_wanted = on
        return None

    @property
    def review_refused(self) -> str | None:
        """Why the engine may not review a game now (a game far apart under way: the other
        side could not see the help), or None."""
        if self.settings.far_apart and not self.tracker.game.is_over:
            return NO_REVIEW_FAR
        return None

    @property
    def thinking(self) -> bool:
        """Whether the machine is choosing its move, or the hint's search runs."""
        return self.thinker.busy or self.hints.thinker.busy

    def simulated(self) -> tuple[dict[int, str], tuple[str, ...]] | None:
        """The simulated board's pieces (square -> token) and what its hands hold; None on
        real hardware."""
        sim = self.hardware.sim
        return (dict(sim.pieces), tuple(sim.hand)) if sim is not None else None

    def record_tags(self) -> dict[str, str]:
        """The game's PDN tags as its record keeps them (the players' names without one)."""
        if self.record is not None:
            return self.record.tags()
        return {"Black": self.players[BLACK].name, "White": self.players[WHITE].name}

    def cautions(self) -> dict[str, int] | None:
        """Each side's cautions in referee mode, else None."""
        referee = self.referee
        if referee is None:
            return None
        return {"black": referee.cautions(BLACK), "white": referee.cautions(WHITE)}

    @property
    def ballot(self) -> Ballot | None:
        """Referee mode's ACF ballot of the game in progress, or None."""
        return self.referee.ballot if self.referee is not None else None

    @property
    def ballot_move(self) -> Move | None:
        """The referee's balloted move the board asks for next, or None."""
        return self.referee.ballot_move(self.tracker.game) if self.referee is not None else None

    # -- what a host or the other board asks of the game --------------------------------

    def show_move(self, move: Move | None) -> None:
        """Ask for ``move`` (None: no longer): the lights show it and the board accepts no
        other for that side. ``ValueError`` when it is not legal now."""
        self.tracker.expect(move)

    def new_game(self, position: Position, now: int, *, tags: Mapping[str, str] | None = None) -> list[Event]:
        """A new game from ``position``: the board is set up for it; the events. ``tags``:
        PDN tags its record keeps, once it begins (from ``position``); a set-up asked
        for without them forgets those of an earlier one."""
        self.recorder.start_tags = (position, dict(tags)) if tags is not None else None
        return self.follower.new_game(position, now)

    def try_again(self, game: str, ply: int, opponent: str, now: int) -> list[Event]:
        """The kept game ``game`` after ``ply`` plies, set up as a new game against
        ``opponent`` (``computer`` or ``play``), its record naming where it came from
        (:mod:`crownhead.firmware.app.tryagain`); ``ValueError`` naming the problem."""
        from crownhead.firmware.app.tryagain import begin, retry_from

        return begin(self, retry_from(self.store, game, ply), opponent, now)

    def problem_coach(self) -> ProblemCoach:
        """The board's problem mode, made (and its record read) when first asked for."""
        if self.problems is None:
            from crownhead.firmware.app.problems import ProblemCoach, endgame_tables

            state_dir = self.store.directory if self.store is not None else None
            # Polled from this step on: an output added while the outputs are polled is polled too.
            ProblemCoach(state_dir, tables=lambda: endgame_tables(state_dir), active=False).attach(self)  # type: ignore[arg-type]  # App is Coached
        assert self.problems is not None
        return self.problems

    def start_problem(self, problem_id: str | None, now: int) -> list[Event]:
        """The problem mode on, with problem ``problem_id`` (None: the next at the player's
        level) set up now as a new game against the engine; the events. ``KeyError`` for
        no such problem, ``ValueError`` naming why not now."""
        return self.problem_coach().start(problem_id, now)

    def leave_problems(self, now: int) -> list[Event]:
        """The problem mode off (the game on the board stays); the events."""
        return self.problem_coach().stop(now)

    def problem_state(self) -> dict[str, Any]:
        """The problem mode now: ``active``, the problem, its status, the player's record."""
        return self.problem_coach().state()

    def take_back(self, now: int) -> list[Event]:
        """Take the last move back (the board is guided back to the position before it)."""
        return self.follower.take_back(now)

    def declare(self, score: str, reason: str, now: int) -> list[Event]:
        """End the game with a result from outside (an arbiter, the other board); the
        referee records it in referee mode."""
        return self.follower.declare(score, reason, now)

    def set_ballot(self, number: int | None, now: int) -> list[Event]:
        """Referee mode: play ACF ballot ``number`` (see the referee's own); ``ValueError``
        when it cannot be played now or no referee is in charge."""
        if self.referee is None:
            raise ValueError("a ballot is the referee's to play (referee mode)")
        return self.referee.set_ballot(number, now, self.follower)

    def offer_draw(self, side: Color | None, now: int | None = None) -> list[Event]:
        """``side`` offers or accepts a draw (None: the shared button), as its button does.

        For the host link and the web page (an output's ``poll``, which returns the events).
        """
        return self._command(lambda t: self.follower.offer_draw(side, t), now)

    def resign(self, side: Color | None, now: int | None = None, *, confirmed: bool = False) -> list[Event]:
        """``side`` resigns (None: the side played at the board); unless ``confirmed``, the
        first request asks for a second one within 3 s, as the button does."""
        return self._command(lambda t: self.follower.resign(side, t, confirmed=confirmed), now)

    def _command(self, act: Callable[[int], list[Event]], now: int | None) -> list[Event]:
        """Run a command on the game now and return its events: an output's ``poll``
        returns them, so that this step handles and sends them like a press's."""
        return act(self.clock.now_ms() if now is None else now)

    def press(self, name: str, now: int | None = None, *, long: bool = False) -> None:
        """Press button ``name`` as if on the board (a web page or a host link's ``press``).

        The press reaches the tracker with the board's own buttons in the next step, on
        every backend, whether or not the board has that button wired.
        """
        t = self.clock.now_ms() if now is None else now
        fields = {"long": True} if long and "long" in getattr(ButtonEvent, "__dataclass_fields__", {}) else {}
        self.buttons.injected.append(ButtonEvent(name, t, **fields))

    def give_up_resume(self) -> None:
        """The saved game being set up to resume is given up for a new game (the board's
        ``new`` button then, or a page's New game): it is kept as an unfinished game's PDN
        when the new game begins, and until then the board sets up the new one."""
        self.session.resume_when_set_up(None)

    def set_player_names(self, black: str, white: str, now: int) -> bool:
        """Name the players: the people's seats take the names, a machine is renamed, the
        referee's games (the record, the games after) and the unfinished game's record
        follow. True when the game is on disk with the new names (a failure to save is
        said once, as every save's, and never overwrites a finished game waiting for the
        disk)."""
        for color, name in ((BLACK, black), (WHITE, white)):
            self.modes.seats.name(color, name)
        if self.referee is not None:
            self.referee.set_names(black, white, self.follower)  # the tournament record, and the games after
        game = self.tracker.game
        if (
            self.record is None
            or (self.record.black, self.record.white) == (black, white)
            or self.resuming
            or game is not self.kept_game
            or self.tracker.setting_up is not None
            or game.is_over
        ):
            # No game under way is the record's: a saved game waiting to be set up, one
            # put away for a new game being set up, one over. The names are the next game's.
            return False
        self.record = replace(self.record, black=black, white=white)
        if self.store is None:
            return False
        return self.save_now(now)

    def hold(self, side: Color, by: str) -> None:
        """``side``'s moves are made elsewhere (``by`` names where: ``the other end of the
        link``): the board accepts none but the one its lights show, in every game from
        now on (see :meth:`crownhead.firmware.tracking.tracker.Tracker.hold`). It is the session's
        (:attr:`session`), which every tracker reads: the board sees it at once. A
        computer's side is held the same way while it plays (the seats tell the session).
        """
        self.session.hold(side, by)

    def release(self, side: Color) -> None:
        """Moves for ``side`` are made at the board again (undoes :meth:`hold`)."""
        self.session.release(side)

    def set_rules(self, rules: Rules, now: int | None = None) -> list[Event]:
        """Play the next games under ``rules`` (a variant, house rules): before a game's
        first move, after the game, or while one is set up. The board is then set up for
        a new game from that variant's start position (a host: ``rules``, then ``new``).

        Returns the events of the new game's set-up; raises ``ValueError`` when a game
        is under way.
        """
        game = self.tracker.game
        if self.resuming or (game.ply and not game.is_over and self.tracker.setting_up is None):
            raise ValueError("the rules change only before the first move or after the game")
        if rules == game.rules:
            return []
        now = self.clock.now_ms() if now is None else now
        self.thinker.cancel()
        self.hints.forget()
        self.settings = replace(self.settings, rules=rules, start=None)
        self.session.adopt(Game(Position.start(rules), rules))
        self.follow()
        return self.follower.new_game(Position.start(rules), now)

    def new_game_with(
        self, settings: AppSettings, now: int | None = None, *, tags: Mapping[str, str] | None = None
    ) -> list[Event]:
        """A new game under ``settings`` in their mode (``play`` or ``referee``): the names,
        the rules, the start position, the board clock of their time control, a game far
        apart (a game two boards agreed: :mod:`crownhead.firmware.remote`); the board is then set up
        for it (``tags``: its record's, as :meth:`new_game`'s). Before a game's first move,
        after the game, or while one is set up; the events of the set-up, ``ValueError``
        naming the problem otherwise."""
        game = self.tracker.game
        if self.resuming:
            raise ValueError("a saved game waits to be set up: start a new game first (New game), then this one")
        if game.ply and not game.is_over and self.tracker.setting_up is None:
            raise ValueError("a game is under way: finish it (or start a new game) first")
        now = self.clock.now_ms() if now is None else now
        if settings.mode != self.mode.name:
            self.set_mode(settings.mode, now)
        self.thinker.cancel()
        self.hints.forget()
        self.settings = settings
        self.modes.seats.name(BLACK, settings.black_name)
        self.modes.seats.name(WHITE, settings.white_name)
        start = settings.start or Position.start(settings.rules)
        self.session.adopt(Game(start, settings.rules))
        self.follow()  # the clock of their time control for the games to come
        return self.new_game(start, now, tags=tags)

    def computer_player(self, level: int | None = None) -> Player:
        """The engine as a player at ``level`` (None: full strength), for ``computer`` mode.
        Raises ``ValueError`` when the engine is not installed in this checkout."""
        try:
            return engine_player(level=level)
        except EngineUnavailable as exc:
            raise ValueError(str(exc)) from None

    def set_brightness(self, fraction: float) -> None:
        """The LEDs' brightness from now on, 0-1 of the configured maximum."""
        self.policy.settings = replace(self.policy.settings, brightness=fraction)

    def change_referee(self, **changes: Any) -> RefereeSettings:
        """Change the referee's settings for the games to come (see :meth:`Modes.change_referee
        <firmware.app.modes.Modes.change_referee>`); ``ValueError`` for a value it does not take."""
        settings = self.modes.change_referee(**changes)
        self.set_time_control()
        return settings

    def set_mode(self, name: str, now: int | None = None, computer: tuple[Color, Player] | None = None) -> None:
        """Switch between ``play`` (two players) and ``referee`` before a game's first move,
        after the game, or while one is set up: the tracker's rules, the lights, the arbiter
        (a host does this over the link: ``mode play|referee``).

        The referee is the configured one (:attr:`referee_settings`: style, clock, ballot,
        record files), the same one each time referee mode comes back. It takes the
        players' names the board knows (``?`` ones from its settings).

        ``computer``: for ``computer`` mode, the machine's side and player (the engine at
        some level); the other side is a person's. Leaving computer mode gives the
        machine's side back to a person.

        Raises ``ValueError`` naming the problem (another mode, a game under way).
        """

        if name not in ("play", "referee", "computer"):
            raise ValueError(f"the mode is play, referee or computer, got {name!r}")
        if name == "computer" and computer is None:
            raise ValueError("computer mode needs the machine's side and player")
        game = self.tracker.game
        if self.resuming or (game.ply and not game.is_over and self.tracker.setting_up is None):
            raise ValueError("the mode changes only before the first move or after the game")
        # A mode chosen now wins over one a mode left meant to come back to.
        self.modes.returning = None
        if name == self.mode.name and name != "computer":
            return
        now = self.clock.now_ms() if now is None else now
        self.thinker.cancel()
        if self.mode.computer and self.tracker.expected is not None:
            self.tracker.expect(None)  # the machine's move is no longer asked for
        plain = self.tracker
        # A game not yet begun is refereed from now; otherwise from the next new game.
        begins = not game.is_over and plain.setting_up is None
        self.modes.switch(name, plain, computer if name == "computer" else None)
        self.follow(plain, now=now)
        self.hints.forget()
        if self.referee is not None:
            self._name_players(now if begins else None)
        elif begins:
            self._name_record(now)
        self.tracker.expect(self.tracker.expected)  # the board read again under the new rules

    def mode_seats(self) -> ModeSeats:
        """The mode and its seats now (see :meth:`return_to`)."""
        return self.modes.seats_now()

    def mode_to_return_to(self) -> ModeSeats:
        """The mode a mode entered for a while (a game tried again, a game far apart) gives
        back when it is left: one already waiting to come back (a mode left before it, whose
        next game has not been set up yet), else the mode and seats now."""
        return self.modes.returning or self.modes.seats_now()

    def return_to(self, before: ModeSeats) -> None:
        """Come back to ``before`` (a mode and who sat where, from :meth:`mode_seats`) when
        the next new game is set up: the game on the board stays as it is played. A mode
        chosen meanwhile (:meth:`set_mode`) wins."""
        self.modes.returning = before
        self.modes.left_during = self.tracker.setting_up

    def _return_to_mode(self, now: int) -> None:
        """A new game is set up after a mode was left: its mode and seats come back
        (:meth:`return_to`), as one transition."""
        before = self.modes.returning
        setting_up = self.tracker.setting_up
        if setting_up is None:
            self.modes.left_during = None  # the set-up of the game left is over
        if before is None or self.resuming or setting_up is None or setting_up == self.modes.left_during:
            return
        self.modes.returning = None  # tried once: a mode that cannot come back is said once
        try:
            self.set_mode(before.mode, now, before.machine)
        except ValueError as exc:  # said, and the board stays in the mode it is in
            self.say(f"The {before.mode} mode is not back: {exc}")
            return
        self.modes.put_back(before)

    def _name_players(self, now: int | None) -> None:
        """Referee mode has begun: the referee and the board agree on the players' names.

        A name the board knows wins over the referee's configured one (``?`` is none).
        ``now``: the game begins now, so its record takes the names too.
        """
        referee = self.referee
        assert referee is not None
        known = (self.players[BLACK].name, self.players[WHITE].name)
        names = tuple(mine if mine != "?" else theirs for mine, theirs in zip(known, referee.names))
        referee.set_names(names[0], names[1], self.follower)
        self.modes.seats.name_people(names)
        if now is not None and self.record is not None and self.kept_game is self.tracker.game:
            self.record = replace(self.record, black=names[0], white=names[1])
            self.pending += self.recorder.save(now)

    def _name_record(self, now: int) -> None:
        """A mode was entered before the game's first move: its record (and so its PDN)
        names the players who sit at it now (the machine on its new colour, the person on
        theirs). A match's game keeps the names its seating gave it."""
        record = self.record
        names = (self.players[BLACK].name, self.players[WHITE].name)
        if record is None or self.kept_game is not self.tracker.game or (record.black, record.white) == names:
            return
        if self.matches.active is not None:
            return
        self.record = replace(record, black=names[0], white=names[1])
        self.pending += self.recorder.save(now)

    def save_now(self, now: int) -> bool:
        """Save the game in progress at once (say, after its names changed); whether it is on disk."""
        return self.recorder.save_now(now)
