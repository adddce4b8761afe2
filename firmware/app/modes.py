"""The board's mode and who plays: people, the machine, the referee of referee mode.

:class:`Seats` says who plays each side: a person (by name) or the machine. A side whose
moves the board only shows (the machine's, or one played at the other end of a link) is
*held*: the game's session keeps that (:mod:`crownhead.firmware.tracking.session`), the seats tell
it which sides the machine plays whenever they change. :class:`Modes`
is the mode the board is in (``play``, ``computer``, ``referee``: the table is
:data:`crownhead.firmware.tracking.policy.MODES`) and what goes with it: the seats, the LED
policy's referee setting, and the referee of referee mode, kept while another mode is on
so that its session (games, ballot deck, record files) goes on when referee mode is back.
The application switches modes through it (:meth:`crownhead.firmware.app.application.App.set_mode`)
and gives the mode's referee to its follower as the judge; nothing here touches the board.

>>> from crownhead.firmware.app.leds import LedPolicy
>>> from crownhead.firmware.app.players import RandomMover
>>> from crownhead.firmware.app.settings import AppSettings
>>> from crownhead.rules import WHITE
>>> modes = Modes(AppSettings(black_name="Ann"), LedPolicy())
>>> modes.enter("computer", (WHITE, RandomMover(seed=1)))
>>> modes.mode.name, [p.name for p in modes.seats.players.values()]
('computer', ['Ann', 'Random mover (test player)'])
>>> modes.enter("play")
>>> [p.name for p in modes.seats.players.values()], modes.referee
(['Ann', '?'], None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from crownhead.firmware.app.leds import LedPolicy
from crownhead.firmware.app.players import Computer, Human, MachineSpec, Player, PlayerError, machine_player
from crownhead.firmware.app.resume import Comeback, mode_settings
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.referee.arbiter import BallotBox, Referee, RefereeSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.tracking.policy import MODES
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.tracker import Tracker
from crownhead.rules import BLACK, WHITE, Color, Game, Position

__all__ = ["Seats", "Modes", "ModeSeats"]


class _Players(dict[Color, Player]):
    """The seats' live mapping: whoever changes it (a seat taken, a machine given up),
    the seats hear of it, so that the session's held sides follow at once."""

    def __init__(self, players: Mapping[Color, Player], changed: Callable[[], None]) -> None:
        super().__init__(players)
        self._changed = changed

    def __setitem__(self, color: Color, player: Player) -> None:
        super().__setitem__(color, player)
        self._changed()

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._changed()


def _person_name(player: Player, name: str) -> str:
    """The name a person on ``player``'s side has: the settings name each side's player,
    the machine's side under the machine's own name, which is never a person's."""
    if player.is_human:
        return player.name
    return "?" if name == player.name else name


class Seats:
    """Who plays each side. ``players`` is the live mapping (default: people named
    ``black_name`` and ``white_name``); a person's name is kept for a side the machine
    takes over, for when it is given back. ``changed`` hears of every change of a seat
    (a player seated, renamed)."""

    def __init__(
        self,
        players: Mapping[Color, Player] | None,
        black_name: str = "?",
        white_name: str = "?",
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self._changed = changed
        self.players: dict[Color, Player] = _Players(
            players or {BLACK: Human(black_name), WHITE: Human(white_name)}, changed
        )
        # A person's name on a side the machine took over, for when it is given back.
        self.human_names: dict[Color, str] = {
            color: _person_name(self.players[color], name) for color, name in ((BLACK, black_name), (WHITE, white_name))
        }

    def person(self) -> tuple[Color, str] | None:
        """The one person playing the machine (their colour and name), or None when
        people or machines play both sides."""
        people = [(color, player.name) for color, player in self.players.items() if player.is_human]
        return people[0] if len(people) == 1 else None

    def move_person(self, to: Color) -> None:
        """The person who played ``to``'s opponent plays ``to`` now, under their name: the
        names kept for each colour change places with them (who sits where moves along)."""
        names = self.human_names
        names[to], names[to.opponent] = names[to.opponent], names[to]
        self.players[to] = Human(names[to])

    def people_back(self, keep: Color | None = None) -> None:
        """People on both sides again (but ``keep``'s), under the names they had."""
        for color, player in list(self.players.items()):
            if not player.is_human and color is not keep:
                self.players[color] = Human(self.human_names.get(color, "?"))

    def seat_machine(self, side: Color, player: Player) -> None:
        """The machine plays ``side``; the person's name there is kept for later."""
        if self.players[side].is_human:
            self.human_names[side] = self.players[side].name
        self.players[side] = player

    def name(self, color: Color, name: str) -> None:
        """Name ``color``'s player: a person's seat takes the name, a machine is renamed."""
        player = self.players[color]
        if isinstance(player, Computer):
            player.name = name
            self._changed()  # the machine's side is held under its name
        else:
            self.players[color] = Human(name)

    def name_people(self, names: Iterable[str]) -> None:
        """The people's seats (Black's, then White's) take ``names``; a machine keeps its own."""
        for color, name in zip((BLACK, WHITE), names):
            if isinstance(self.players[color], Human):
                self.players[color] = Human(name)

    def machine(self) -> dict[Color, str]:
        """The sides the machine plays, with its name there."""
        return {
            color: player.name
            for color, player in self.players.items()
            if isinstance(player, Computer) and not player.is_human
        }


@dataclass(frozen=True)
class ModeSeats:
    """A mode and its seats as they were, to come back to: the mode's name, who played
    each side, and the names kept for the people's sides (see :meth:`Modes.seats_now`)."""

    mode: str
    players: tuple[tuple[Color, Player], ...]
    human_names: tuple[tuple[Color, str], ...]

    @property
    def machine(self) -> tuple[Color, Player] | None:
        """The machine's side and player in computer mode, else None."""
        if self.mode != "computer":
            return None
        return next(((color, player) for color, player in self.players if not player.is_human), None)


class Modes:
    """The mode the board is in, its seats and its referee (see the module).

    ``referee`` judges the games in referee mode (default: one with ``referee_settings``,
    the configured ``[referee]`` section, which also serves a later :meth:`enter`).
    """

    def __init__(
        self,
        settings: AppSettings,
        policy: LedPolicy,
        players: Mapping[Color, Player] | None = None,
        referee: Referee | None = None,
        referee_settings: RefereeSettings | None = None,
        make_machine: Callable[[MachineSpec], Player] = machine_player,
        session: GameSession | None = None,
    ) -> None:
        self.mode = settings.policy
        self.policy = policy
        #: The game's session: the sides the machine plays are held there.
        self.session = (
            session if session is not None else GameSession(Game(settings.start, settings.rules), start=settings.start)
        )
        self.seats = Seats(players, settings.black_name, settings.white_name, self._seats_changed)
        self.referee_settings = referee.settings if referee is not None else referee_settings or RefereeSettings()
        if referee is None and self.mode.tracker_mode == "referee":
            referee = Referee(self.referee_settings)
        #: Referee mode's arbiter, the follower's judge. None in other modes.
        self.referee = referee
        #: Referee mode's arbiter, kept while another mode is on.
        self.arbiter = referee
        #: The referee's state of the game being resumed, as its record kept it.
        self.referee_game: dict[str, Any] | None = None
        #: Makes the machine a resumed computer game was played against (default: the
        #: engine at the record's level, or the random test player).
        self.make_machine = make_machine
        #: The mode and seats to come back to when the next new game is set up (a mode
        #: left while its game stays on the board: the problems), or None.
        self.returning: ModeSeats | None = None
        #: The position being set up when the mode was left (the game left's own set-up,
        #: which is not the next game's), or None.
        self.left_during: Position | None = None
        self._seats_changed()

    def _seats_changed(self) -> None:
        """The machine's sides are held in computer mode (its moves are shown, then
        expected); in the other modes a machine seated plays no move of its own."""
        self.session.seat_machine(self.seats.machine() if self.mode.computer else {})

    def enter(self, name: str, machine: tuple[Color, Player] | None = None) -> None:
        """Be in mode ``name``: the lights, the referee, and in computer mode the machine's
        side (``machine``); a machine on another side gives it back to a person. The
        person playing the machine goes on playing it: when the machine takes their
        colour (it changes sides, a problem or a game tried again gives it the other),
        they take the other, under their name."""
        person = self.seats.person() if self.mode.computer else None
        self.mode = MODES[name]
        self.policy.referee = self.mode.referee_lights
        if self.mode.tracker_mode == "referee":
            self.referee = self.referee or self.arbiter or Referee(self.referee_settings)
            self.arbiter = self.referee
        else:
            self.referee = None
        self.seats.people_back(keep=machine[0] if machine is not None else None)
        if machine is not None:
            side = machine[0]
            self.seats.seat_machine(*machine)
            if person is not None and person[0] is side:
                self.seats.move_person(side.opponent)
        self._seats_changed()

    def seats_now(self) -> ModeSeats:
        """The mode and its seats now, for :meth:`put_back` when a mode entered is left."""
        seats = self.seats
        return ModeSeats(self.mode.name, tuple(seats.players.items()), tuple(seats.human_names.items()))

    def put_back(self, before: ModeSeats) -> None:
        """The people's names of ``before`` on their sides again (its mode and machine
        were entered again: :meth:`crownhead.firmware.app.commands.Commands.return_to`)."""
        seats = self.seats
        seats.human_names.update(before.human_names)
        for color, player in before.players:
            if player.is_human and seats.players[color].is_human:
                seats.players[color] = Human(player.name)

    def switch(self, name: str, tracker: Tracker, machine: tuple[Color, Player] | None = None) -> None:
        """Enter mode ``name`` with a game on ``tracker`` (its rules follow the mode); the
        application then follows it, judged by :attr:`referee` in referee mode."""
        was = self.referee
        self.enter(name, machine)
        tracker.policy = self.mode
        if self.referee is None and was is not None and tracker.expected is not None:
            if tracker.expected == was.ballot_move(tracker.game):
                tracker.expect(None)  # the referee's ballot is no longer asked for

    def expect_resume(self, game: Game) -> None:
        """The saved ``game`` is being set up to resume: in referee mode the referee takes
        its saved state now (names, clock, cautions), before the game goes on."""
        if self.referee is not None:
            self.referee.expect_resume(game, self.referee_game)

    def resume(self, plan: Comeback) -> list[str]:
        """Be in the mode of a game resumed as ``plan`` says, before its first tracker is
        made: the hints, the referee's settings (its state of the game goes to the referee
        when the game resumes), the machine. Returns what is said of settings not taken."""
        said = []
        if plan.hints is not None:
            self.policy.set_hints(plan.hints)
        if plan.referee is not None:
            try:
                self.change_referee(**plan.referee)
            except ValueError as exc:
                said.append(f"the referee's saved settings are not used: {exc}")
            arbiter = self.arbiter
            if arbiter is not None:
                s = arbiter.settings
                arbiter.box = BallotBox(s.ballot, s.deck, s.seed)
            self.referee_game = plan.referee_game
        mode, machine = plan.mode, self.resumed_machine(*plan.machine) if plan.machine is not None else None
        if isinstance(machine, str):
            said.append(machine)
            mode, machine = "play", None
        self.enter(mode, machine)
        return said

    def resumed_machine(self, side: Color, spec: MachineSpec, name: str | None) -> tuple[Color, Player] | str:
        """The machine of a resumed computer game (:func:`crownhead.firmware.app.resume.comeback`),
        the one seated when it is that machine; else what stops it (said, and the game goes
        on with two people)."""
        elsewhere = self.session.held_from_outside(side)
        if elsewhere is not None:
            return (
                f"the machine played {side} in the saved game, but {side}'s moves come from"
                f" {elsewhere}: the game resumes without the machine"
            )
        player = self.seats.players[side]
        if not (isinstance(player, Computer) and (player.spec is None or player.spec == spec)):
            try:
                player = self.make_machine(spec)
            except (PlayerError, ValueError) as exc:
                return f"{exc}; the game resumes with two people at the board"
        if name is not None and isinstance(player, Computer):
            player.name = name
        return side, player

    def kept(self, game: Game, hints: bool, clock: TimeControl | None) -> dict[str, Any]:
        """What the record keeps of how ``game`` is played (see :mod:`crownhead.firmware.app.resume`)."""
        machine = None
        if self.mode.computer:
            for color, player in self.seats.players.items():
                if isinstance(player, Computer) and not player.is_human:
                    machine = (color, player.spec or MachineSpec(), player.name)
                    break
        referee = self.referee
        return mode_settings(
            self.mode.name,
            hints=hints,
            machine=machine,
            referee=referee.settings if referee is not None else None,
            referee_game=referee.snapshot(self.session) if referee is not None and game is self.session.game else None,
            clock=clock,
        )

    def change_referee(self, **changes: Any) -> RefereeSettings:
        """Change the referee's settings (style, clock, event, site, round) for the games
        to come: the configured ones and the arbiter's, in referee mode or kept for it.
        Raises ``ValueError`` for a value the referee does not take."""
        settings = replace(self.referee_settings, **changes)
        self.referee_settings = settings
        arbiter = self.referee or self.arbiter
        if arbiter is not None:
            arbiter.settings = replace(arbiter.settings, **changes)
            arbiter.style = arbiter.settings.style
        return settings
