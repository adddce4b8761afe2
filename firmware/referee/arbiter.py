"""Referee mode: the board as a WCDF arbiter for tournament games (``docs/referee.md``).

A :class:`Referee` stands between the controller and the move tracker. It takes the
sensor readings and button presses the tracker takes (the same methods, so the
controller, ``crownhead replay`` and the application drive it unchanged), passes them
on, and judges what the tracker reports:

* illegal moves (WCDF 1.23, 1.25): a first offence in a game is a ``caution`` and the
  move is taken back (the lights show what to put back), a second one forfeits the
  game; one episode, from the first wrong action until the board shows the position
  again, is one offence;
* two styles: ``strict`` stops every illegal move as it happens; ``record`` only
  records, for a human arbiter: the opponent's ``claim`` objects to an illegal move
  (then 1.25 applies), and an illegal move the opponent answers without objection
  stands (1.26): the game goes on from the position on the board, marked in the record;
* draws (1.32): ``draw`` offers, a second press before the next move agrees; ``claim``
  by the player to move: threefold repetition or the forty-move rule, exact to the ply;
* a clock (optional), balloted openings (the ACF deck, a pair of games with colours
  reversed on the same ballot), the tournament record (live PDN, arbiter log).

No hint is ever lit: the referee shows a violation, what must be put back, a required
action (crowning, a balloted move) and the result, nothing else.

>>> from rules import Game
>>> from firmware.tracking.tracker import Tracker
>>> referee = Referee(RefereeSettings(ballot=5)).attach(Tracker(Game(), mode="referee"), 0)
>>> [e.to_json()["event"] for e in referee.tick(0)]
['ballot']
>>> str(referee.expected)                  # the board asks for the ballot's first move
'9-13'
"""

from __future__ import annotations

import datetime as _dt
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from firmware.gameclock import clock_text
from firmware.events import (
    BallotDrawn,
    BoardWarning,
    Caution,
    Claim,
    ClockState,
    Condoned,
    Crowned,
    DrawClaimable,
    DrawOffer,
    Event,
    Flag,
    Forfeit,
    GameOver,
    MoveMade,
    NewGame,
    Side,
)
from firmware.referee.offences import (
    Offence,
    classify,
    jump_shaped,
    piece_name,
    read_move,
    read_out_of_turn,
)
from firmware.referee.record import RecordError, RecordFiles, TournamentRecord
from firmware.referee.snapshot import SnapshotError, check_snapshot, same_game
from firmware.referee.settings import (
    STYLES,
    BallotBox,
    RefereeConfig,
    RefereeSettings,
    add_referee_arguments,
    parse_ballot,
    referee_from_args,
)
from firmware.tracking.follower import Overseer
from firmware.tracking.roles import HINT_ROLES, Role
from firmware.tracking.sides import side_request
from firmware.tracking.timer import GameTimer
from firmware.tracking.tracker import Kind, Tracker
from firmware.tracking.table import TurnTable
from rules import BLACK, DRAW, WHITE, Color, Game, Move, Position
from rules.ballots import Ballot, ballot as acf_ballot
from rules.game import win_for

__all__ = [
    "STYLES",
    "RefereeSettings",
    "RefereeConfig",
    "Referee",
    "BallotBox",
    "parse_ballot",
    "add_referee_arguments",
    "referee_from_args",
]

log = logging.getLogger(__name__)

#: How often a running clock is saved (a power cut loses at most this much of its time).
CLOCK_SAVE_MS = 5000


@dataclass
class _Candidate:
    """Record style: a board showing a finished-looking move that no rule allows."""

    board: int
    move: Move
    t: int
    #: The piece the mover had touched first when the move was read (touch-move). Taken
    #: then: later lifts are the opponent's answer, never the mover's touches.
    touched: int | None = None


@dataclass
class _GameState:
    """What the referee keeps about the game in progress."""

    number: int
    game: Game
    black: str
    white: str
    record: TournamentRecord
    name: str
    ballot: Ballot | None = None
    ballot_moves: tuple[Move, ...] = ()
    #: The game's clock (the rules every timed game has), or None without a time control.
    timer: GameTimer | None = None
    cautions: dict[Color, int] = field(default_factory=lambda: {BLACK: 0, WHITE: 0})
    #: The side whose offence episode is open (one episode, one offence), or None.
    episode: Color | None = None
    candidates: list[_Candidate] = field(default_factory=list)
    objected: bool = False
    claimable: str | None = None
    over: bool = False


def _side(color: Color) -> Side:
    return Side.of(color)


def _color(side: str) -> Color:
    return BLACK if side == "black" else WHITE


class Referee(Overseer):
    """The arbiter of one board, game after game (see the module docstring).

    :meth:`attach` gives it the tracker to judge (the application attaches a new one
    when it resumes a game); :meth:`begin` starts refereeing the game on that tracker
    when no ``new-game`` will announce it (a board already set up, as in a replay).
    Otherwise a game begins with each ``new-game`` the tracker reports.

    It is a :class:`~firmware.tracking.follower.Follower`, so it goes wherever a
    :class:`~firmware.tracking.tracker.Tracker` goes: what it does not rule on passes
    through to the tracker (:class:`~firmware.tracking.follower.Overseer`); it overrides
    ``update``, ``press``, ``tick``, ``restore``, ``new_game``, ``take_back``,
    ``declare``, ``next_deadline`` (the flag), ``roles`` (hints taken out) and the
    warnings (as the referee words them). A side held with ``hold`` is judged at the
    other end of the link: nothing done here with its pieces while it is to move counts
    as its offence.

    The host (``firmware.link.host``) calls :meth:`declare`, :meth:`agree_draw`,
    :meth:`offer_draw`, :meth:`claim`, :meth:`set_ballot` and :meth:`set_style`.
    """

    def __init__(
        self,
        settings: RefereeSettings = RefereeSettings(),
        *,
        wall: Callable[[], _dt.datetime] | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.style = settings.style
        self.box = BallotBox(settings.ballot, settings.deck, settings.seed)
        #: The ballot of the pair of games in progress (the second game plays it again).
        self._pair_ballot: Ballot | None = None
        self.files = RecordFiles(settings.record_dir) if settings.record_dir else None
        self.wall = wall or (lambda: _dt.datetime.now().astimezone())
        #: Report the flag's time as a deadline (a replay turns this off once its script
        #: has ended, so that it does not run on until a flag falls; flags still fall).
        self.clock_deadline = True
        self.games = 0
        self.state: _GameState | None = None
        self._pending: list[Event] = []
        self._record_trouble: str | None = None
        self._over_key: tuple[object, ...] | None = None
        self._over = False
        #: The board last judged, and (board, when) a board that changed under a warning
        #: already up is to be judged: a ruling never depends on how long a hand held a piece.
        self._judged_board: int | None = None
        self._rejudge: tuple[int, int] | None = None
        self._now = 0
        self._clock_saved = 0
        #: A saved game is being set up to resume (:meth:`expect_resume`).
        self._resuming = False

    # -- the tracker ---------------------------------------------------------------------

    def attach(
        self,
        tracker: Tracker,
        now_ms: int | None = None,
        *,
        resumed: bool = False,
        saved: Mapping[str, Any] | None = None,
    ) -> Referee:
        """Judge ``tracker`` from now on and return the referee, which stands in for it.

        With ``now_ms`` a game begins on it at once (:meth:`begin`); otherwise the next
        ``new-game`` begins one. ``resumed``: the tracker follows the game now under way
        (a saved game, whose position has just been set up): the referee goes on with it,
        with its state as saved in the record directory or, failing that, ``saved`` (a
        :meth:`snapshot` the game record kept, checked by
        :func:`~firmware.referee.snapshot.check_snapshot`).
        """
        self._tracker = tracker
        state = self.state
        if resumed and state is not None and not state.over:
            self._resuming = False
            state.game = tracker.game
            self._restore(state, saved)
            state.record.note(tracker.game.ply, "game resumed")
            self._save()
            if state.timer is not None:
                self._pending.append(state.timer.report(self._now))  # the times as saved
        elif now_ms is not None:
            self._pending += self._begin(now_ms, resumed=resumed)  # logged when handed out
        return self

    def begin(self, now_ms: int, *, resumed: bool = False) -> list[Event]:
        """A game begins on the attached tracker now: names, ballot, clock, record."""
        return self._log(self._begin(now_ms, resumed=resumed))

    # -- what the referee rules on (the rest passes through: Overseer) -------------------

    @property
    def roles(self) -> dict[int, str]:
        """The tracker's roles without hints: a referee never shows where a piece may go.

        ``next-jump`` (where a chain of jumps goes on) is shown only once the chain is
        overdue, as what must be done to put it right.
        """
        overdue_chain = any(w.code == "continue-capture" for w in self.tracker.warnings)
        return {
            s: r
            for s, r in self.tracker.roles.items()
            if r not in HINT_ROLES and (r != Role.NEXT_JUMP or overdue_chain)
        }

    @property
    def warning(self) -> BoardWarning | None:
        """The most urgent warning, as the referee words it (no hint in it)."""
        w = self.tracker.warning
        return self._judge(self._sanitize(w))[0] if w is not None else None

    @property
    def warnings(self) -> tuple[BoardWarning, ...]:
        return tuple(self._judge(self._sanitize(w))[0] for w in self.tracker.warnings)

    def next_deadline(self) -> int | None:
        times = [self.tracker.next_deadline(), self._rejudge[1] if self._rejudge else None]
        if self.clock_deadline:
            times.append(self._flag_due())
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def update(self, occupancy: int, now_ms: int) -> list[Event]:
        out = self._advance(now_ms)
        state = self.state
        if state is not None and state.timer is not None and state.timer.waiting and self._playing():
            lifted = self.tracker.board & ~occupancy
            if lifted & self.game.position.pieces_of(self.game.turn):
                out += self._clock_go(now_ms)  # the side to move's first lift starts its time
        out += self._process(self.tracker.update(occupancy, now_ms), now_ms)
        out += self._check(now_ms)
        self._schedule_rejudge(now_ms)
        return self._log(out)

    def _schedule_rejudge(self, now: int) -> None:
        """A board changed under a standing warning is judged once it has settled.

        The tracker raises a warning once, when its condition has stood for
        ``settle_ms``; what the board shows later under the same warning (a piece lifted
        first, then put on another square) is judged here just the same, so a ruling is
        the same whether the hand held the piece 100 ms or 10 s.
        """
        tracker = self.tracker
        board = tracker.board
        standing = any(w.code in ("illegal-move", "out-of-sync") for w in tracker.warnings)
        if standing and board != self._judged_board and self._judging():
            self._rejudge = (board, now + tracker.settings.settle_ms)
        else:
            self._rejudge = None

    def _run_rejudge(self, now: int) -> list[Event]:
        pending = self._rejudge
        if pending is None or pending[1] > now:
            return []
        self._rejudge = None
        board, due = pending
        tracker = self.tracker
        if tracker.board != board or board == self._judged_board:
            return []
        for warning in tracker.warnings:
            if warning.code in ("illegal-move", "out-of-sync"):
                judged, offence = self._judge(replace(warning, t=due))
                self._judged_board = board
                if offence is None:
                    return []
                return [judged] + self._offence(offence, due)
        return []

    def press(self, button: str, now_ms: int, long: bool = False) -> list[Event]:
        out = self._advance(now_ms)
        request = side_request(button, long)
        drawing = request is not None and request.action == "draw"
        if (button == "claim" or drawing) and not self._objectable():
            # Pressed right after a move, before it settled: the move comes first, so an
            # offer made after one's move is not declined by that very move, and a claim
            # is the claim of the player now to move (as ``resign`` does).
            out += self._process(self.tracker.accept_pending(now_ms), now_ms)
        if button == "claim":
            out += self._on_claim(now_ms)
        elif button == "clock":
            out += self._on_clock(now_ms)
        elif request is not None and request.action == "draw":
            out += self._on_draw(now_ms, request.side)
        else:
            out += self._process(self.tracker.press(button, now_ms, long), now_ms)
        out += self._check(now_ms)
        return self._log(out)

    def tick(self, now_ms: int) -> list[Event]:
        out = self._advance(now_ms)
        out += self._check(now_ms)
        return self._log(out)

    def restore(self, occupancy: int, now_ms: int) -> list[Event]:
        out = self._advance(now_ms)
        out += self._process(self.tracker.restore(occupancy, now_ms), now_ms)
        return self._log(out)

    def new_game(self, position: Position | None = None, now_ms: int | None = None) -> list[Event]:
        now = now_ms if now_ms is not None else 0
        return self._log(self._process(self.tracker.new_game(position, now_ms), now))

    def take_back(self, now_ms: int) -> list[Event]:
        return self._log(self._process(self.tracker.take_back(now_ms), now_ms))

    # -- the host's and the application's calls ---------------------------------------------

    def declare(self, score: str, reason: str, now_ms: int) -> list[Event]:
        """End the game with ``score`` for ``reason`` (an arbiter's decision from the host)."""
        out = self._advance(now_ms)
        out += self._declare(score, reason, now_ms)
        return self._log(out)

    def agree_draw(self, now_ms: int) -> list[Event]:
        """Both players agree to a draw (from the host)."""
        return self.declare(DRAW, "agreement", now_ms)

    def claim(self, now_ms: int) -> list[Event]:
        """The same as a press of ``claim`` by the player to move."""
        return self.press("claim", now_ms)

    def set_ballot(self, number: int | None, now_ms: int) -> list[Event]:
        """Play ACF ballot ``number`` (None: no ballot) in this game, and if it is the first
        of a pair in the second too (the host's choice over the configured draw).

        Only before the first move of a game from the start position; raises
        ``ValueError`` naming the problem otherwise.
        """
        if number is not None:
            parse_ballot(number)
        game = self.game
        if game.ply != 0 or game.start != Position.start(game.rules) or self.tracker.setting_up is not None:
            raise ValueError("a ballot is played from the start position before the first move")
        chosen = acf_ballot(number) if number is not None else None
        self._pair_ballot = chosen
        state = self.state
        if state is None:
            return []
        if state.ballot is not None:
            notes = state.record.notes.get(0, [])
            state.record.notes[0] = [n for n in notes if not n.startswith(f"ACF ballot {state.ballot.number}")]
        state.ballot, state.ballot_moves = None, ()
        state.record.ballot = None
        self.tracker.expect(None)
        out = self._start_ballot(chosen, now_ms)
        self._save()
        return self._log(out)

    def set_names(self, black: str, white: str) -> None:
        """The players of the game in progress (the host's ``names``), or of the next game
        when none is in progress: the record says so from now on, and the games after it
        swap colours from these names.
        """
        state = self.state
        tracker = self._tracker
        if (
            state is not None
            and tracker is not None
            and not state.over
            and state.game is tracker.game
            and not tracker.game.is_over
            and tracker.setting_up is None
        ):
            state.black, state.white = black, white
            state.record.black, state.record.white = black, white
            self._pair_names(state.number, black, white)
            self._save()
        else:
            self._pair_names(self.games + 1, black, white)

    def tag(self, tags: Mapping[str, str]) -> None:
        """More PDN tags for the game in progress's record (its match), kept through a restart."""
        state = self.state
        if state is not None and not state.over:
            state.record.extra.update(tags)
            self._save()

    def _pair_names(self, k: int, black: str, white: str) -> None:
        """Settings whose names give game ``k`` of the session ``black`` and ``white``."""
        first, second = (black, white) if k % 2 else (white, black)
        self.settings = replace(self.settings, black=first, white=second)

    @property
    def ballot(self) -> Ballot | None:
        """The ACF ballot of the game in progress, or None."""
        return self.state.ballot if self.state is not None else None

    @property
    def ballot_move(self) -> Move | None:
        """The balloted move the board asks for next, or None (no ballot, or it is made)."""
        state = self.state
        game = self.game
        if state is None or not state.ballot_moves or game.is_over:
            return None
        ply = game.ply
        if ply < len(state.ballot_moves) and tuple(game.moves) == state.ballot_moves[:ply]:
            return state.ballot_moves[ply]
        return None

    def set_style(self, style: str) -> None:
        if style not in STYLES:
            raise ValueError(f"referee style must be strict or record, got {style!r}")
        self.style = style
        if self.state is not None:
            self.state.record.style = style
            self.state.candidates.clear()

    # -- what the board shows a person -----------------------------------------------------

    @property
    def names(self) -> tuple[str, str]:
        """Black's and White's names in the game in progress."""
        if self.state is None:
            return self.settings.black, self.settings.white
        return self.state.black, self.state.white

    def cautions(self, color: Color) -> int:
        return self.state.cautions[color] if self.state is not None else 0

    def clock_times(self, now_ms: int) -> dict[Color, int] | None:
        """Each side's time left now, or None without a clock."""
        if self.state is None or self.state.timer is None:
            return None
        return self.state.timer.clock.snapshot(now_ms)

    def side_text(self, color: Color, now_ms: int) -> str:
        """``Ann  1:29:55  1 caution``: a player as the simulator's screen shows them."""
        name = self.names[0 if color is BLACK else 1]
        parts = [name]
        times = self.clock_times(now_ms)
        if times is not None:
            parts.append(clock_text(times[color]))
        n = self.cautions(color)
        if n:
            parts.append(f"{n} caution{'s' if n > 1 else ''}")
        return "  ".join(parts)

    def snapshot(self, game: Game) -> dict[str, Any] | None:
        """What the referee needs to go on with ``game`` after a restart (its number, names,
        ballot, cautions, clock, notes), None when it is not refereeing that game."""
        state = self.state
        if state is None or state.game is not game:
            return None
        return self._snapshot(state)

    def pdn(self) -> str:
        """The game in progress as PDN, with the referee's notes."""
        if self.state is None:
            return ""
        return self.state.record.pdn(self.state.game)

    # -- the flag --------------------------------------------------------------------------

    def _game_over(self) -> bool:
        """``game.is_over``, asked on every input, computed again only when the game changed
        (the session's revision moved, or a result was written on the game itself)."""
        session = self.session
        key = (session, session.revision, session.game.declared)
        if key != self._over_key:
            self._over_key = key
            self._over = session.game.is_over
        return self._over

    def _flag_due(self) -> int | None:
        state = self.state
        if state is None or state.timer is None or state.over or self._game_over():
            return None
        if self.tracker.setting_up is not None:
            return None  # a new game is being set up: the old one's clock no longer counts
        return state.timer.flag_due()

    def _advance(self, now: int) -> list[Event]:
        """The tracker's timers up to ``now``, the flag falling in its place in time."""
        out, self._pending = self._pending, []
        self._now = max(self._now, now)
        state = self.state
        if (
            state is not None
            and state.timer is not None
            and state.timer.clock.running is not None
            and not state.timer.clock.paused
            and not state.over
            and now - self._clock_saved >= CLOCK_SAVE_MS
        ):
            # The running clock is saved every few seconds: a power cut loses at most that.
            self._clock_saved = now
            self._save_state()
        for _ in range(4):
            flag = self._flag_due()
            if flag is None or flag > now:
                break
            # Moves accepted before the flag fell count; one accepted at it is too late.
            out += self._process(self.tracker.tick(flag - 1), flag - 1)
            if self._flag_due() == flag:
                out += self._flag(flag)
                break
        out += self._process(self.tracker.tick(now), now)
        out += self._run_rejudge(now)
        state = self.state
        game = self.game
        if state is not None and not state.over and game is state.game and self._game_over():
            assert game.result is not None
            # Ended from outside (the host declared a result on the game itself): the
            # game-over was reported there; the clock stops and the record says how it ended.
            out += self._on_over(GameOver(now, game.result.score, game.result.reason))
        return out

    def _flag(self, t: int) -> list[Event]:
        state = self.state
        assert state is not None and state.timer is not None
        side = state.timer.clock.running
        assert side is not None
        state.record.note(self.game.ply, f"{_side(side)}'s flag fell: {_side(side.opponent)} wins on time")
        state.timer.fall(side)
        return [Flag(t, _side(side))] + self._declare(win_for(side.opponent), "time", t)

    # -- events from the tracker -----------------------------------------------------------

    def _process(self, events: Iterable[Event], now: int) -> list[Event]:
        out: list[Event] = []
        for event in events:
            if isinstance(event, BoardWarning):
                event, judged = self._on_warning(self._sanitize(event))
                out.append(event)
                out += judged
            elif isinstance(event, MoveMade):
                out.append(event)
                out += self._on_move(event)
            elif isinstance(event, GameOver):
                out.append(event)
                out += self._on_over(event)
            elif isinstance(event, NewGame):
                out.append(event)
                if not self._resuming:  # a saved game's set-up begins none (expect_resume)
                    out += self._begin(event.t)
            else:
                out.append(event)
        return out

    def _sanitize(self, warning: BoardWarning) -> BoardWarning:
        """A forced-capture warning names only the piece lifted, not the ones that can jump."""
        if warning.code != "forced-capture":
            return warning
        square = self.tracker.touched
        return replace(
            warning,
            squares=() if square is None else (square,),
            message=self._lifted(warning).caution,
        )

    def _lifted(self, warning: BoardWarning) -> Offence:
        """The offence of lifting a piece that cannot move (an ``unplayable-piece`` or a
        ``forced-capture`` warning), worded from the position, with the remedy apart."""
        position = self.game.position
        square = self.tracker.touched
        if warning.code == "unplayable-piece" and warning.squares:
            square = warning.squares[0]
        if square is None:
            return Offence(position.turn, warning.code, "a capture is compulsory", "put the piece back")
        name = piece_name(position, square)
        if warning.code == "unplayable-piece":
            return Offence(position.turn, warning.code, f"the {name} on {square} has no legal move", "put it back")
        return Offence(
            position.turn,
            warning.code,
            f"a capture is compulsory: the {name} on {square} cannot capture",
            "put it back",
        )

    def _judging(self) -> bool:
        """Whether offences count now: a game under way, not a balloted move to make."""
        tracker = self.tracker
        return (
            self.state is not None
            and not self.state.over
            and not self._game_over()
            and tracker.setting_up is None
            and tracker.expected is None
        )

    def _judge(self, warning: BoardWarning) -> tuple[BoardWarning, Offence | None]:
        """The offence a warning shows, if any, and the warning as the board tells it."""
        if not self._judging():
            return warning, None
        tracker = self.tracker
        game = self.game
        position = game.position
        rules = game.rules
        if warning.code in ("unplayable-piece", "forced-capture"):
            return warning, self._lifted(warning)
        if warning.code not in ("illegal-move", "out-of-sync"):
            return warning, None
        board = tracker.board
        # The mover's move is read without what the other side upset before it began.
        mine = read_move(position, tracker.tidy_board, rules)
        theirs = read_out_of_turn(position, board)
        if theirs is not None and (mine is None or (jump_shaped(theirs) and not jump_shaped(mine))):
            # A piece of the side that has just moved moved on: never a move of the game.
            offender = position.turn.opponent
            last = game.moves[-1] if game.moves else None
            before = game.positions[-2] if len(game.positions) > 1 else None
            if last is not None and before is not None and theirs.start == last.end and before.crowns(last, rules):
                offence = Offence(
                    offender,
                    "continued-after-crown",
                    f"the man crowned on {last.end} moved on to {theirs.end}; crowning ended the move",
                )
            else:
                name = piece_name(position, theirs.start)
                offence = Offence(
                    offender,
                    "out-of-turn",
                    f"{_side(offender)} moved the {name} on {theirs.start} to {theirs.end},"
                    f" but {_side(position.turn)} is to move",
                )
            message = f"{offence.message}; put the {piece_name(position, theirs.start)} back on {theirs.start}"
            if theirs.captures:
                message += f" and the pieces taken back on {', '.join(map(str, theirs.captures))}"
            return replace(warning, code="illegal-move", squares=(theirs.start, theirs.end), message=message), offence
        if warning.code == "illegal-move":
            move = mine
            if move is None or (move.start, move.end) != tuple(warning.squares[:2]):
                move = Move(tuple(warning.squares[:2]))
            return warning, classify(position, move, rules, tracker.touched)
        return warning, None

    def _on_warning(self, warning: BoardWarning) -> tuple[BoardWarning, list[Event]]:
        if warning.code in ("illegal-move", "out-of-sync"):
            self._judged_board = self.tracker.board
        warning, offence = self._judge(warning)
        if offence is None:
            return warning, []
        return warning, self._offence(offence, warning.t)

    def _on_move(self, event: MoveMade, clock_at: int | None = None) -> list[Event]:
        state = self.state
        if state is None:
            return []
        out: list[Event] = []
        game = self.game
        side = _color(event.side)
        state.episode = None
        state.candidates.clear()
        state.objected = False
        if state.timer is not None:
            # A move made: the opponent's time runs (reported unless the game is over).
            out += state.timer.moved(side, game, event.t, clock_at)
            state.record.clocks[event.ply] = state.timer.last_left
        if not game.is_over:
            self._expect_ballot()
            reason = game.draw_claim()
            if reason is not None and reason != state.claimable:
                out.append(DrawClaimable(event.t, reason, _side(game.turn)))
            state.claimable = reason
        self._save()
        return out

    def _on_over(self, event: GameOver) -> list[Event]:
        state = self.state
        if state is None or state.over:
            return []
        state.over = True
        state.record.reason = event.reason
        out: list[Event] = []
        if state.timer is not None:
            out += state.timer.over(event.t) or [state.timer.report(event.t)]
        if event.reason == "resign":
            loser = WHITE if event.result == "1-0" else BLACK
            state.record.note(self.game.ply, f"{loser.name.title()} resigns")
        elif event.reason == "no-moves":
            state.record.note(self.game.ply, f"{self.game.turn.name.title()} has no legal move")
        self._save()
        return out

    # -- a game begins ---------------------------------------------------------------------

    def _begin(self, now: int, *, resumed: bool = False) -> list[Event]:
        previous = self.state
        if previous is not None and not previous.over and previous.game.moves and not resumed:
            previous.record.note(previous.game.ply, "game abandoned: a new game was set up")
            previous.over = True
            self._save(previous)
        self.games += 1
        k = self.games
        game = self.game
        self.state = self._new_state(k, game)
        record = self.state.record
        out: list[Event] = []
        if self.state.timer is not None:
            out += self.state.timer.begin(game, now)
        if resumed:
            record.note(game.ply, "game resumed")
        else:
            # The first game of a pair draws the ballot; the second plays it again with
            # the colours reversed.
            if k % 2:
                self._pair_ballot = self.box.draw()
            chosen = self._pair_ballot
            if chosen is not None and (game.ply != 0 or game.start != Position.start(game.rules)):
                record.note(0, "no ballot: the game does not begin from the start position")
            elif chosen is not None:
                out += self._start_ballot(chosen, now)
        self._save()
        return out

    def _new_state(self, k: int, game: Game) -> _GameState:
        """Game ``k`` of the session on ``game``: its names (colours reversed every game),
        record and clock (Black's time starts with Black's first lift, or the arbiter's
        clock press)."""
        first, second = self.settings.black, self.settings.white
        black, white = (first, second) if k % 2 else (second, first)
        started = self.wall()
        s = self.settings
        round_tag = f"{s.round}.{k}" if s.round not in ("", "?") else "?"
        record = TournamentRecord(
            event=s.event,
            site=s.site,
            date=started.strftime("%Y.%m.%d"),
            round=round_tag,
            black=black,
            white=white,
            time_control=s.clock,
            style=self.style,
        )
        state = _GameState(k, game, black, white, record, f"{started:%Y%m%d-%H%M%S}-{k}")
        if s.clock is not None:
            state.timer = GameTimer(s.clock)
            state.timer.begin(game, self._now)  # waiting for the side to move (reported by _begin)
        return state

    def expect_resume(self, game: Game, saved: Mapping[str, Any] | None = None) -> None:
        """The saved ``game`` is being set up to resume: its state as saved (names,
        cautions, clock, ballot; see :meth:`attach`) is the referee's from now on, so that
        the screens show its players and times while the pieces are put back, and the
        set-up's ``new-game`` begins no game. :meth:`resume_given_up` says otherwise."""
        self.games += 1
        state = self._new_state(self.games, game)
        self._restore(state, saved)
        self.state = state
        self._resuming = True

    def resume_given_up(self) -> None:
        """The saved game being set up is given up: the next ``new-game`` begins a game."""
        self._resuming = False

    def _start_ballot(self, chosen: Ballot | None, now: int) -> list[Event]:
        state = self.state
        if chosen is None or state is None:
            return []
        try:
            moves = tuple(chosen.play_moves(self.game.rules))
        except ValueError as exc:
            state.record.note(0, f"ballot {chosen.number} cannot be played under these rules: {exc}")
            return []
        state.ballot, state.ballot_moves = chosen, moves
        state.record.ballot = chosen
        label = f"ACF ballot {chosen.number}" + (f" ({chosen.name})" if chosen.name else "")
        state.record.note(0, f"{label}: {' '.join(chosen.moves)}")
        self._expect_ballot()
        self._save()
        return [BallotDrawn(now, chosen.number, tuple(chosen.moves), chosen.name)]

    def _expect_ballot(self) -> None:
        move = self.ballot_move
        if move is not None:
            self.tracker.expect(move)

    # -- offences --------------------------------------------------------------------------

    def _offence(self, offence: Offence, t: int, *, objection: bool = False) -> list[Event]:
        """An illegal move: cautioned, or the game forfeited (strict style, or an objection)."""
        state = self.state
        if state is None:
            return []
        if offence.side in self.tracker.held:
            return []  # its player plays at the other end of the link and is judged there
        if self.style == "record" and not objection:
            return []  # recorded by the warning; the opponent may object or answer
        if state.episode is not None:
            return []  # one episode, one offence
        state.episode = offence.side
        state.cautions[offence.side] += 1
        count = state.cautions[offence.side]
        ply = self.game.ply
        side = _side(offence.side)
        how = f"on {_side(offence.side.opponent)}'s objection, " if objection else ""
        if count >= 2:
            state.record.note(
                ply,
                f"{how}second illegal move by {side} ({offence.code}): {offence.message}; {side} forfeits (WCDF 1.25)",
            )
            return [Forfeit(t, side, offence.code, offence.message)] + self._declare(
                win_for(offence.side.opponent), "forfeit", t
            )
        state.record.note(
            ply,
            f"{how}caution to {side}, illegal move ({offence.code}): {offence.caution};"
            " the move is taken back (WCDF 1.25)",
        )
        self._save()
        return [Caution(t, side, count, offence.code, offence.caution)]

    def _declare(self, score: str, reason: str, t: int) -> list[Event]:
        if self.tracker.expected is not None:
            self.tracker.expect(None)  # a balloted move is no longer wanted
        return self._process(self.tracker.declare(score, reason, t), t)

    def _check(self, now: int) -> list[Event]:
        """What the board's state says after an input: episodes ending, chains overdue,
        and in record style illegal moves standing or answered."""
        state = self.state
        if state is None or not self._judging():
            return []
        tracker = self.tracker
        if tracker.board_matches and tracker.reading.kind is Kind.IDLE:
            self._judged_board = None
            state.episode = None
            state.candidates.clear()
            state.objected = False
            return []
        out: list[Event] = []
        if self.style == "strict" and tracker.overdue and any(w.code == "continue-capture" for w in tracker.warnings):
            out += self._offence(self._unfinished(), now)
        # With a side played at the other end of the link, an illegal move made here is
        # never answered here (the other board does not see it): nothing stands by itself.
        if self.style == "record" and not state.objected and not tracker.held:
            out += self._follow_record(now)
        return out

    def _unfinished(self) -> Offence:
        position = self.game.position
        move = read_move(position, self.tracker.board, self.game.rules)
        if move is not None:
            offence = classify(position, move, self.game.rules)
            if offence.code == "unfinished-capture":
                return offence
        return Offence(position.turn, "unfinished-capture", "the chain of jumps was left unfinished")

    # -- record style: objections and illegal moves that stand -------------------------------

    def _follow_record(self, now: int) -> list[Event]:
        state = self.state
        assert state is not None
        tracker = self.tracker
        board = tracker.board
        position = self.game.position
        rules = self.game.rules
        # The opponent's answer, complete on the board, to one of the boards the mover
        # left: that move stands. (Only a complete answer tells the mover's last board
        # from the opponent's first lift: both take an opponent's piece off the board.
        # It is looked for first: the mover's piece jumped by the answer also looks like
        # that piece gone somewhere else.)
        for cand in reversed(state.candidates):
            after = position.apply(cand.move, rules)
            if TurnTable(after, rules).complete(board):
                return self._condone(cand, now)
        move = read_move(position, board, rules)
        if move is not None and tracker.reading.kind is not Kind.COMPLETE:
            if not state.candidates or state.candidates[-1].board != board:
                state.candidates.append(_Candidate(board, move, now, tracker.touched))
        return []

    def _objectable(self) -> bool:
        state = self.state
        if self.style != "record" or state is None or not state.candidates or not self._judging():
            return False
        tracker = self.tracker
        return tracker.reading.kind is Kind.NONE or any(w.code == "continue-capture" for w in tracker.warnings)

    def _condone(self, cand: _Candidate, now: int) -> list[Event]:
        state = self.state
        assert state is not None
        game = self.game
        position = game.position
        rules = game.rules
        side = position.turn
        offence = classify(position, cand.move, rules, cand.touched)
        session = self.tracker.session
        if cand.move in position.legal_moves(rules):
            session.play(cand.move)  # legal, but with another piece than the one touched
        else:
            session.condone(cand.move)
        text = cand.move.pdn()
        ply = game.ply
        state.record.note(
            ply,
            f"illegal move by {_side(side)} ({offence.code}): {offence.message};"
            f" it stands, {_side(side.opponent)} answered without objection (WCDF 1.26)",
        )
        moved = MoveMade(now, ply, _side(side), text, tuple(cand.move.path), tuple(cand.move.captures))
        condoned = Condoned(now, _side(side), text, offence.code, offence.message, game.position.fen())
        out: list[Event] = [moved, condoned]
        if position.crowns(cand.move, rules):
            out.append(Crowned(now, cand.move.end))
        # The clock switched when the board first showed the move settled, not now.
        settle = self.tracker.settings.settle_ms
        out += self._on_move(moved, clock_at=min(now, cand.t + settle))
        # The tracker reads the board afresh from the position the game now has: the
        # answer standing on the board is read as the next move.
        out += self._process(self.tracker.read_afresh(now), now)
        return out

    # -- buttons ---------------------------------------------------------------------------

    def _on_claim(self, now: int) -> list[Event]:
        """``claim``: the player to move claims a draw, or (record style) objects."""
        state = self.state
        if state is None or not self._playing():
            return []
        if self._objectable():
            cand = state.candidates[-1]
            position = self.game.position
            offence = classify(position, cand.move, self.game.rules, cand.touched)
            state.candidates.clear()
            state.objected = True
            return self._offence(offence, now, objection=True)
        # The session rules on the claim (one handler, one wording); the referee records it.
        ply = self.game.ply
        events = self.session.claim(now)
        for event in events:
            if isinstance(event, Claim):
                state.record.note(ply, event.message)
            elif isinstance(event, GameOver) and self.tracker.expected is not None:
                self.tracker.expect(None)  # a balloted move is no longer wanted
        out = self._process(events, now)
        self._save()
        return out

    def _on_draw(self, now: int, side: Color | None) -> list[Event]:
        """A draw button: an offer, or the other side's acceptance (the session tells
        which: the one keeper of offers; the referee records them).

        A shared ``draw`` (``side`` None) cannot say who pressed it: it offers, and never
        accepts.
        """
        state = self.state
        if state is None or not self._playing():
            return []
        ply = self.game.ply
        events = self.session.offer_draw(side, now)
        for event in events:
            if isinstance(event, GameOver) and event.reason == "agreement":
                state.record.note(ply, "draw agreed (WCDF 1.32)")
            elif isinstance(event, DrawOffer):
                who = f" by {event.side}" if event.side else " (shared button: the board cannot tell by whom)"
                state.record.note(ply, f"draw offered{who}")
        out = self._process(events, now)
        self._save()
        return out

    def _on_clock(self, now: int) -> list[Event]:
        """The arbiter's ``clock`` press: start a waiting clock, pause a running one, resume."""
        state = self.state
        if state is None or state.timer is None or not self._playing():
            return []
        timer = state.timer
        if timer.waiting or timer.clock.paused:
            note = "clock started" if timer.clock.running is None else "clock resumed"
            out = self._clock_go(now, press=True)
            state.record.note(self.game.ply, f"{note} by the arbiter")
            return out
        out = timer.press(self.game, now)
        state.record.note(self.game.ply, "clock paused by the arbiter")
        self._save()
        return out

    def _clock_go(self, now: int, *, press: bool = False) -> list[Event]:
        """The clock runs from ``now`` for the side to move (started, or resumed)."""
        state = self.state
        assert state is not None and state.timer is not None
        self._clock_saved = now
        if press:
            return state.timer.press(self.game, now)
        return state.timer.lifted(self.game, now)

    def clock_state(self, now: int) -> ClockState | None:
        """The clock as shown now (see :class:`~firmware.events.clock.ClockState`), or
        None without one."""
        state = self.state
        if state is None or state.timer is None:
            return None
        return state.timer.state(now)

    def _playing(self) -> bool:
        return not self._game_over() and self.tracker.setting_up is None

    # -- the record --------------------------------------------------------------------------

    def _save(self, state: _GameState | None = None) -> None:
        state = state or self.state
        if state is None or self.files is None:
            return
        try:
            text = state.record.pdn(state.game)
            self.files.write(state.name if state.game.moves or state.over else None, text)
            # A game without a move has nothing to go on with (and the set-up of a game
            # being resumed must not overwrite the state it is about to read).
            if state is self.state and state.game.moves:
                self.files.save_state(self._snapshot(state))
        except (RecordError, ValueError) as exc:
            self._trouble(str(exc))

    def _save_state(self) -> None:
        """Only the state file (the clock): the record is written on every move."""
        state = self.state
        if state is None or self.files is None or not state.game.moves:
            return
        try:
            self.files.save_state(self._snapshot(state))
        except (RecordError, ValueError) as exc:
            self._trouble(str(exc))

    # -- surviving a power cut -----------------------------------------------------------------

    def _snapshot(self, state: _GameState) -> dict[str, Any]:
        """What :meth:`_restore` needs to go on with this game after a restart."""
        clock = state.timer.clock if state.timer is not None else None
        r = state.record
        return {
            "number": state.number,
            "name": state.name,
            "black": state.black,
            "white": state.white,
            "date": r.date,
            "round": r.round,
            "moves": [m.pdn(full=True) for m in state.game.moves],
            "ballot": state.ballot.number if state.ballot is not None else None,
            "drawn": [b.number for b in self.box.drawn],
            "cautions": {_side(c): n for c, n in state.cautions.items()},
            "clock": None
            if clock is None
            else {
                "left": {_side(c): ms for c, ms in clock.snapshot(self._now).items()},
                "moves": {_side(c): n for c, n in clock.saved()[1].items()},
            },
            "notes": {str(k): v for k, v in r.notes.items()},
            "clocks": {str(k): v for k, v in r.clocks.items()},
            "extra": dict(r.extra),
            "over": state.over,
        }

    def _restore(self, state: _GameState, saved: Mapping[str, Any] | None = None) -> None:
        """Go on with the saved referee state of ``state``'s game, if it is that game: the
        record directory's (saved every few seconds while the clock runs), else ``saved``."""
        moves = [m.pdn(full=True) for m in state.game.moves]
        if saved is not None:
            try:
                check_snapshot(saved)
            except SnapshotError as exc:
                self._trouble(f"the game record's referee state cannot be used ({exc}); the game goes on without it")
                saved = None
        data: Mapping[str, Any] | None = None
        if self.files is not None:
            try:
                found = self.files.load_state()
                if found is not None:
                    check_snapshot(found)
                    if same_game(found, moves) and (saved is None or found["name"] == saved["name"]):
                        data = found
            except RecordError as exc:
                self._trouble(str(exc))
            except SnapshotError as exc:
                self._trouble(f"{self.files.state_path}: cannot be used ({exc}); the game goes on without it")
        if data is None and saved is not None and same_game(saved, moves):
            data = saved
        if data is None:
            return
        game = state.game
        try:
            state.number = self.games = int(data["number"])
            state.name, state.black, state.white = str(data["name"]), str(data["black"]), str(data["white"])
            self._pair_names(state.number, state.black, state.white)  # a host may have named them
            r = state.record
            r.date, r.round, r.black, r.white = str(data["date"]), str(data["round"]), state.black, state.white
            r.notes = {int(k): list(v) for k, v in data["notes"].items()}
            r.clocks = {int(k): int(v) for k, v in data["clocks"].items()}
            r.extra = {str(k): str(v) for k, v in data.get("extra", {}).items()}
            state.cautions = {_color(k): int(v) for k, v in data["cautions"].items()}
            box = BallotBox(self.settings.ballot, self.settings.deck, self.settings.seed)
            for _ in data["drawn"]:
                box.draw()  # the cards already dealt stay dealt
            self.box = box
            if data["ballot"] is not None:
                chosen = acf_ballot(int(data["ballot"]))
                self._pair_ballot = chosen
                state.ballot, state.ballot_moves = chosen, tuple(chosen.play_moves(game.rules))
                r.ballot = chosen
                self._expect_ballot()
            clock = data["clock"]
            if clock is not None and self.settings.clock is not None and state.timer is not None:
                # It resumes paused: the side to move's first lift, or the arbiter's
                # press, starts it again (the time of the power cut is nobody's).
                state.timer.resume(
                    {_color(k): int(v) for k, v in clock["left"].items()},
                    {_color(k): int(v) for k, v in clock["moves"].items()},
                    game,
                )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            # Checked, but a ballot that does not fit these rules: the game goes on.
            where = (
                self.files.state_path
                if data is not saved and self.files is not None
                else "the game record's referee state"
            )
            self._trouble(f"{where}: cannot be used ({exc}); the game goes on without it")

    def _log(self, events: list[Event]) -> list[Event]:
        if self.files is not None and events:
            extra = {
                "time": self.wall().isoformat(timespec="milliseconds"),
                "game": self.state.number if self.state else 0,
            }
            for event in events:
                try:
                    self.files.log(event, extra)
                except RecordError as exc:
                    self._trouble(str(exc))
                    break
        return events

    def _trouble(self, message: str) -> None:
        # The game goes on whatever happens to the files; say it once per problem.
        if message != self._record_trouble:
            self._record_trouble = message
            log.error("referee record: %s", message)
