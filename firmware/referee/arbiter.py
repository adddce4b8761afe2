"""Referee mode: the board as a WCDF arbiter for tournament games (``docs/referee.md``).

A :class:`Referee` is a policy the board consults (a :class:`~crownhead.firmware.tracking.judge.Judge`):
the :class:`~crownhead.firmware.tracking.follower.Follower` passes it what the tracker reads and what
the session decides, and it rules, keeping its own record and nothing of the game:

* illegal moves (WCDF 1.23, 1.25): a first offence in a game is a ``caution`` and the
  move is taken back (the lights show what to put back), a second one forfeits the
  game; one episode, from the first wrong action until the board shows the position
  again, is one offence;
* two styles: ``strict`` stops every illegal move as it happens; ``record`` only
  records, for a human arbiter: the opponent's ``claim`` objects to an illegal move
  (then 1.25 applies), and an illegal move the opponent answers without objection
  stands (1.26): the game goes on from the position on the board, marked in the record;
* draws (1.32): ``draw`` offers, a second press before the next move agrees; ``claim``
  by the player to move: threefold repetition or the forty-move rule, exact to the ply
  (the session rules on both; the referee records what it ruled);
* the clock's notes (the board's one clock is the session's, and each move's clock in the
  record is read from it, never copied), balloted openings (the ACF deck, a pair of games
  with colours reversed on the same ballot), the tournament record (live PDN, arbiter log).

No hint is ever lit: the referee shows a violation, what must be put back, a required
action (crowning, a balloted move) and the result, nothing else.

>>> from crownhead.rules import WCDF, Game
>>> from crownhead.firmware.tracking.follower import Follower
>>> from crownhead.firmware.tracking.tracker import Tracker
>>> board = Follower(Tracker(Game(None, WCDF), mode="referee"), Referee(RefereeSettings(ballot=5)))
>>> [e.to_json()["event"] for e in board.begin(0)]
['ballot']
>>> str(board.tracker.expected)            # the board asks for the ballot's first move
'9-13'
"""

from __future__ import annotations

import datetime as _dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from crownhead.firmware.events import (
    BallotDrawn,
    BoardWarning,
    Caution,
    Claim,
    DrawClaimable,
    DrawLapsed,
    DrawOffer,
    Event,
    Forfeit,
    GameOver,
    MoveMade,
    Side,
)
from crownhead.firmware.referee.offences import (
    Offence,
    classify,
    jump_shaped,
    piece_name,
    read_move,
    read_out_of_turn,
)
from crownhead.firmware.referee.record import RecordError, RecordFiles, TournamentRecord
from crownhead.firmware.referee.snapshot import SnapshotError, check_snapshot, same_game
from crownhead.firmware.referee.settings import (
    STYLES,
    BallotBox,
    RefereeConfig,
    RefereeSettings,
    add_referee_arguments,
    parse_ballot,
    referee_from_args,
)
from crownhead.firmware.tracking.judge import Bench
from crownhead.firmware.tracking.roles import HINT_ROLES, Role
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.tracker import Kind
from crownhead.firmware.tracking.table import TurnTable
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.rules import BLACK, WHITE, Color, Game, Move, Position
from crownhead.rules.ballots import Ballot, ballot as acf_ballot
from crownhead.rules.game import win_for

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
    """What the referee keeps about the game it referees: its own record, never the game."""

    number: int
    black: str
    white: str
    record: TournamentRecord
    name: str
    #: Which of the session's games this is (:attr:`GameSession.number
    #: <firmware.tracking.session.GameSession.number>`), None while a saved game is set up.
    serial: int | None = None
    ballot: Ballot | None = None
    ballot_moves: tuple[Move, ...] = ()
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


def _times(clock: GameTimer | None) -> Mapping[int, tuple[int, int]] | None:
    """Each move's clock on ``clock`` (ply -> time left, time used), None without one."""
    return clock.times if clock is not None else None


class Referee:
    """The arbiter of one board, game after game (see the module docstring).

    A :class:`~crownhead.firmware.tracking.judge.Judge`: the follower consults it (each hook gets
    the :class:`~crownhead.firmware.tracking.judge.Bench`, the follower, to read the session and
    the board from and to hand its rulings to) and it keeps only its own: the record of
    each game (names, notes, cautions, the ballot), the ballot deck and the record files.
    A game begins with each ``new-game`` (or :meth:`Follower.begin
    <firmware.tracking.follower.Follower.begin>` on a board already set up). A side held
    in the session is judged at the other end of the link: nothing done here with its
    pieces while it is to move counts as its offence.

    The host (``crownhead.firmware.link.host``) and the application call :meth:`set_ballot`,
    :meth:`set_names`, :meth:`tag` and :meth:`set_style`; they read :attr:`names`,
    :meth:`cautions`, :attr:`ballot` and :meth:`snapshot`.
    """

    def __init__(
        self,
        settings: RefereeSettings = RefereeSettings(),
        *,
        wall: Callable[[], _dt.datetime] | None = None,
    ) -> None:
        self.settings = settings
        self.style = settings.style
        self.box = BallotBox(settings.ballot, settings.deck, settings.seed)
        #: The ballot of the pair of games in progress (the second game plays it again).
        self._pair_ballot: Ballot | None = None
        self.files = RecordFiles(settings.record_dir) if settings.record_dir else None
        self.wall = wall or (lambda: _dt.datetime.now().astimezone())
        self.games = 0
        self.state: _GameState | None = None
        self._record_trouble: str | None = None
        #: The board last judged, and (board, when) a board that changed under a warning
        #: already up is to be judged: a ruling never depends on how long a hand held a piece.
        self._judged_board: int | None = None
        self._rejudge: tuple[int, int] | None = None
        self._pair_after_restart()

    def _pair_after_restart(self) -> None:
        """A board restarted between the two games of a pair goes on with the pair: the
        record directory's last state is a finished first game of a pair between the
        players configured, so the next game is its second (colours reversed, the same
        ballot, the cards dealt stay dealt). Other players, or a pair done, begin anew."""
        if self.files is None:
            return
        try:
            data = self.files.load_state()
            if data is None:
                return
            check_snapshot(data)
        except (RecordError, SnapshotError):
            return  # said when a game resumes from it; nothing to go on with here
        number, black, white = int(data["number"]), str(data["black"]), str(data["white"])
        if data["over"] is not True or number % 2 == 0:
            return
        if sorted((black, white)) != sorted((self.settings.black, self.settings.white)):
            return
        try:
            chosen = acf_ballot(int(data["ballot"])) if data["ballot"] is not None else None
        except ValueError as exc:
            self._trouble(f"{self.files.state_path}: the pair's ballot cannot be played again ({exc})")
            return
        box = BallotBox(self.settings.ballot, self.settings.deck, self.settings.seed)
        for _ in data["drawn"]:
            box.draw()
        self.box, self._pair_ballot, self.games = box, chosen, number
        self._pair_names(number, black, white)

    # -- which game it referees ------------------------------------------------------------

    def _refereeing(self, bench: Bench) -> _GameState | None:
        """The state of the game under way on ``bench``, when it is the one refereed."""
        state = self.state
        if state is None or state.serial != bench.session.number:
            return None
        return state

    def judges(self, session: GameSession) -> bool:
        """Whether the referee's record is of the game under way in ``session``."""
        state = self.state
        return state is not None and state.serial == session.number

    # -- the judge's hooks (see firmware.tracking.judge) -----------------------------------

    def roles(self, roles: dict[int, str], bench: Bench) -> dict[int, str]:
        """The tracker's roles without hints: a referee never shows where a piece may go.

        ``next-jump`` (where a chain of jumps goes on) is shown only once the chain is
        overdue, as what must be done to put it right.
        """
        overdue_chain = any(w.code == "continue-capture" for w in bench.reader.warnings)
        return {s: r for s, r in roles.items() if r not in HINT_ROLES and (r != Role.NEXT_JUMP or overdue_chain)}

    def word(self, warning: BoardWarning, bench: Bench) -> BoardWarning:
        """A standing warning as the referee words it (no hint in it)."""
        return self._judge(self._sanitize(warning, bench), bench)[0]

    def next_deadline(self, bench: Bench) -> int | None:
        return self._rejudge[1] if self._rejudge else None

    def warned(self, warning: BoardWarning, bench: Bench) -> list[Event]:
        warning = self._sanitize(warning, bench)
        if warning.code in ("illegal-move", "out-of-sync"):
            self._judged_board = bench.reader.board
        warning, offence = self._judge(warning, bench)
        if offence is None:
            return [warning]
        return [warning] + self._offence(offence, warning.t, bench)

    def check(self, now: int, bench: Bench, *, read: bool) -> list[Event]:
        """What the board's state says after an input: episodes ending, chains overdue,
        and in record style illegal moves standing or answered."""
        out = self._check(now, bench)
        if read:
            self._schedule_rejudge(now, bench)
        return out

    def _schedule_rejudge(self, now: int, bench: Bench) -> None:
        """A board changed under a standing warning is judged once it has settled.

        The tracker raises a warning once, when its condition has stood for
        ``settle_ms``; what the board shows later under the same warning (a piece lifted
        first, then put on another square) is judged here just the same, so a ruling is
        the same whether the hand held the piece 100 ms or 10 s.
        """
        reader = bench.reader
        board = reader.board
        standing = any(w.code in ("illegal-move", "out-of-sync") for w in reader.warnings)
        if standing and board != self._judged_board and self._judging(bench):
            self._rejudge = (board, now + reader.settings.settle_ms)
        else:
            self._rejudge = None

    def rejudge(self, now: int, bench: Bench) -> list[Event]:
        pending = self._rejudge
        if pending is None or pending[1] > now:
            return []
        self._rejudge = None
        board, due = pending
        reader = bench.reader
        if reader.board != board or board == self._judged_board:
            return []
        for warning in reader.warnings:
            if warning.code in ("illegal-move", "out-of-sync"):
                judged, offence = self._judge(replace(self._sanitize(warning, bench), t=due), bench)
                self._judged_board = board
                if offence is None:
                    return []
                return [judged] + self._offence(offence, due, bench)
        return []

    def moved(self, event: MoveMade, bench: Bench) -> list[Event]:
        state = self._refereeing(bench)
        if state is None:
            return []
        out: list[Event] = []
        game = bench.session.game
        state.episode = None
        state.candidates.clear()
        state.objected = False
        if not game.is_over:
            self._expect_ballot(bench)
            reason = game.draw_claim()
            if reason is not None and reason != state.claimable:
                out.append(DrawClaimable(event.t, reason, _side(game.turn)))
            state.claimable = reason
        self._save(bench.session)
        return out

    def ended(self, event: GameOver, bench: Bench) -> list[Event]:
        state = self._refereeing(bench)
        if state is None or state.over:
            return []
        state.over = True
        state.record.reason = event.reason
        game = bench.session.game
        if event.reason == "resign":
            loser = WHITE if event.result == "1-0" else BLACK
            state.record.note(game.ply, f"{loser.name.title()} resigns")
        elif event.reason == "no-moves":
            state.record.note(game.ply, f"{game.turn.name.title()} has no legal move")
        self._save(bench.session)
        return []

    def objectable(self, bench: Bench) -> bool:
        state = self._refereeing(bench)
        if self.style != "record" or state is None or not state.candidates or not self._judging(bench):
            return False
        reader = bench.reader
        return reader.reading.kind is Kind.NONE or any(w.code == "continue-capture" for w in reader.warnings)

    def objection(self, now: int, bench: Bench) -> list[Event] | None:
        """``claim`` in record style, right after an illegal move: the opponent objects."""
        state = self._refereeing(bench)
        if state is None or not self.objectable(bench):
            return None
        cand = state.candidates[-1]
        game = bench.session.game
        offence = classify(game.position, cand.move, game.rules, cand.touched)
        state.candidates.clear()
        state.objected = True
        return self._offence(offence, now, bench, objection=True)

    def ruled(self, events: list[Event], ply: int, bench: Bench) -> None:
        """The session's ruling on a claim or an offer, recorded in its own words."""
        state = self._refereeing(bench)
        if state is None:
            return
        for event in events:
            if isinstance(event, Claim):
                state.record.note(ply, event.message)
            elif isinstance(event, GameOver) and event.reason == "agreement":
                state.record.note(ply, "draw agreed (WCDF 1.32)")
            elif isinstance(event, DrawOffer):
                who = f" by {event.side}" if event.side else " (shared button: the board cannot tell by whom)"
                state.record.note(ply, f"draw offered{who}")
            elif isinstance(event, DrawLapsed):
                state.record.note(ply, event.message)  # the record says the offer no longer stands
        self._save(bench.session)

    def clock_pressed(self, how: str, bench: Bench) -> None:
        state = self._refereeing(bench)
        if state is None:
            return
        state.record.note(bench.session.game.ply, f"clock {how} by the arbiter")
        self._save(bench.session)

    def flag_fell(self, side: Color, bench: Bench) -> None:
        state = self._refereeing(bench)
        if state is not None:
            state.record.note(bench.session.game.ply, f"{_side(side)}'s flag fell: {_side(side.opponent)} wins on time")

    def heard(self, events: list[Event]) -> None:
        """Every event the board hands out goes to the arbiter log."""
        if self.files is None or not events:
            return
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

    # -- the host's and the application's calls ---------------------------------------------

    def set_ballot(self, number: int | None, now_ms: int, bench: Bench) -> list[Event]:
        """Play ACF ballot ``number`` (None: no ballot) in the game on ``bench``, and if it
        is the first of a pair in the second too (the host's choice over the configured
        draw).

        Only before the first move of a game from the start position; raises
        ``ValueError`` naming the problem otherwise.
        """
        if number is not None:
            parse_ballot(number)
        game = bench.session.game
        if game.ply != 0 or game.start != Position.start(game.rules) or bench.reader.setting_up is not None:
            raise ValueError("a ballot is played from the start position before the first move")
        chosen = acf_ballot(number) if number is not None else None
        self._pair_ballot = chosen
        state = self._refereeing(bench)
        if state is None:
            return []
        if state.ballot is not None:
            notes = state.record.notes.get(0, [])
            state.record.notes[0] = [n for n in notes if not n.startswith(f"ACF ballot {state.ballot.number}")]
        state.ballot, state.ballot_moves = None, ()
        state.record.ballot = None
        bench.expect(None)
        out = self._start_ballot(chosen, now_ms, bench)
        self._save(bench.session)
        self.heard(out)
        return out

    def set_names(self, black: str, white: str, bench: Bench | None = None) -> None:
        """The players of the game in progress on ``bench`` (the host's ``names``), or of
        the next game when none is in progress: the record says so from now on, and the
        games after it swap colours from these names.
        """
        state = self._refereeing(bench) if bench is not None else None
        if (
            bench is not None
            and state is not None
            and not state.over
            and not bench.session.game.is_over
            and bench.reader.setting_up is None
        ):
            state.black, state.white = black, white
            state.record.black, state.record.white = black, white
            self._pair_names(state.number, black, white)
            self._save(bench.session)
        else:
            self._pair_names(self.games + 1, black, white)

    def tag(self, tags: Mapping[str, str], bench: Bench) -> None:
        """More PDN tags for the record of the game in progress on ``bench``, kept through a restart."""
        state = self.state
        if state is not None and not state.over:
            state.record.extra.update(tags)
            self._save(bench.session)

    def _pair_names(self, k: int, black: str, white: str) -> None:
        """Settings whose names give game ``k`` of the session ``black`` and ``white``."""
        first, second = (black, white) if k % 2 else (white, black)
        self.settings = replace(self.settings, black=first, white=second)

    @property
    def ballot(self) -> Ballot | None:
        """The ACF ballot of the game in progress, or None."""
        return self.state.ballot if self.state is not None else None

    def ballot_move(self, game: Game) -> Move | None:
        """The balloted move the board asks for next in ``game``, or None (no ballot, or
        it is made)."""
        state = self.state
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

    @property
    def next_names(self) -> tuple[str, str]:
        """Black's and White's names in the next game to begin (the colours reversed
        every game, as :meth:`begin` gives them): what a board being set up for it shows."""
        first, second = self.settings.black, self.settings.white
        return (first, second) if (self.games + 1) % 2 else (second, first)

    def cautions(self, color: Color) -> int:
        return self.state.cautions[color] if self.state is not None else 0

    def snapshot(self, session: GameSession) -> dict[str, Any] | None:
        """What the referee needs to go on with the game under way in ``session`` after a
        restart (its number, names, ballot, cautions, notes), None when it does not
        referee that game."""
        state = self.state
        if state is None or not self.judges(session):
            return None
        return self._snapshot(state, session.game)

    def pdn(self, session: GameSession) -> str:
        """The game under way in ``session``, the game refereed, as PDN with the referee's
        notes and each move's clock (the session's clock keeps them, as the game's record
        does); "" when the referee does not referee that game."""
        state = self.state
        if state is None or not self.judges(session):
            return ""
        return state.record.pdn(session.game, _times(session.clock))

    # -- the offences ------------------------------------------------------------------------

    def _sanitize(self, warning: BoardWarning, bench: Bench) -> BoardWarning:
        """A forced-capture warning names only the piece lifted, not the ones that can jump."""
        if warning.code != "forced-capture":
            return warning
        square = bench.reader.touched
        return replace(
            warning,
            squares=() if square is None else (square,),
            message=self._lifted(warning, bench).caution,
        )

    def _lifted(self, warning: BoardWarning, bench: Bench) -> Offence:
        """The offence of lifting a piece that cannot move (an ``unplayable-piece`` or a
        ``forced-capture`` warning), worded from the position, with the remedy apart."""
        position = bench.session.game.position
        square = bench.reader.touched
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

    def _judging(self, bench: Bench) -> bool:
        """Whether offences count now: a game under way, not a balloted move to make."""
        state = self._refereeing(bench)
        reader = bench.reader
        return (
            state is not None
            and not state.over
            and not bench.over
            and reader.setting_up is None
            and reader.expected is None
        )

    def _judge(self, warning: BoardWarning, bench: Bench) -> tuple[BoardWarning, Offence | None]:
        """The offence a warning shows, if any, and the warning as the board tells it."""
        if not self._judging(bench):
            return warning, None
        reader = bench.reader
        game = bench.session.game
        position = game.position
        rules = game.rules
        if warning.code in ("unplayable-piece", "forced-capture"):
            return warning, self._lifted(warning, bench)
        if warning.code not in ("illegal-move", "out-of-sync"):
            return warning, None
        board = reader.board
        # The mover's move is read without what the other side upset before it began.
        mine = read_move(position, reader.tidy_board, rules)
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
            return warning, classify(position, move, rules, reader.touched)
        return warning, None

    def _offence(self, offence: Offence, t: int, bench: Bench, *, objection: bool = False) -> list[Event]:
        """An illegal move: cautioned, or the game forfeited (strict style, or an objection)."""
        state = self._refereeing(bench)
        if state is None:
            return []
        if offence.side in bench.session.held:
            return []  # its player plays at the other end of the link and is judged there
        if self.style == "record" and not objection:
            return []  # recorded by the warning; the opponent may object or answer
        if state.episode is not None:
            return []  # one episode, one offence
        state.episode = offence.side
        state.cautions[offence.side] += 1
        count = state.cautions[offence.side]
        game = bench.session.game
        ply = game.ply
        side = _side(offence.side)
        how = f"on {_side(offence.side.opponent)}'s objection, " if objection else ""
        if count >= 2:
            state.record.note(
                ply,
                f"{how}second illegal move by {side} ({offence.code}): {offence.message}; {side} forfeits (WCDF 1.25)",
            )
            return [Forfeit(t, side, offence.code, offence.message)] + bench.declare(
                win_for(offence.side.opponent), "forfeit", t
            )
        state.record.note(
            ply,
            f"{how}caution to {side}, illegal move ({offence.code}): {offence.caution};"
            " the move is taken back (WCDF 1.25)",
        )
        self._save(bench.session)
        return [Caution(t, side, count, offence.code, offence.caution)]

    def _check(self, now: int, bench: Bench) -> list[Event]:
        state = self._refereeing(bench)
        if state is None or not self._judging(bench):
            return []
        reader = bench.reader
        if reader.board_matches and reader.reading.kind is Kind.IDLE:
            self._judged_board = None
            state.episode = None
            state.candidates.clear()
            state.objected = False
            return []
        out: list[Event] = []
        if self.style == "strict" and reader.overdue and any(w.code == "continue-capture" for w in reader.warnings):
            out += self._offence(self._unfinished(bench), now, bench)
        # With a side played at the other end of the link, an illegal move made here is
        # never answered here (the other board does not see it): nothing stands by itself.
        if self.style == "record" and not state.objected and not bench.session.held:
            out += self._follow_record(now, bench)
        return out

    def _unfinished(self, bench: Bench) -> Offence:
        game = bench.session.game
        position = game.position
        move = read_move(position, bench.reader.board, game.rules)
        if move is not None:
            offence = classify(position, move, game.rules)
            if offence.code == "unfinished-capture":
                return offence
        return Offence(position.turn, "unfinished-capture", "the chain of jumps was left unfinished")

    # -- record style: objections and illegal moves that stand -------------------------------

    def _follow_record(self, now: int, bench: Bench) -> list[Event]:
        state = self._refereeing(bench)
        assert state is not None
        reader = bench.reader
        board = reader.board
        game = bench.session.game
        position = game.position
        rules = game.rules
        # The opponent's answer, complete on the board, to one of the boards the mover
        # left: that move stands. (Only a complete answer tells the mover's last board
        # from the opponent's first lift: both take an opponent's piece off the board.
        # It is looked for first: the mover's piece jumped by the answer also looks like
        # that piece gone somewhere else.)
        for cand in reversed(state.candidates):
            after = position.apply(cand.move, rules)
            if TurnTable(after, rules).complete(board):
                return self._condone(cand, now, bench)
        move = read_move(position, board, rules)
        if move is not None and reader.reading.kind is not Kind.COMPLETE:
            if not state.candidates or state.candidates[-1].board != board:
                state.candidates.append(_Candidate(board, move, now, reader.touched))
        return []

    def _condone(self, cand: _Candidate, now: int, bench: Bench) -> list[Event]:
        """The opponent answered an illegal move without objection: it stands (WCDF 1.26).
        The ruling is the referee's; the session takes the move in (through the bench)."""
        state = self._refereeing(bench)
        assert state is not None
        game = bench.session.game
        side = game.turn
        offence = classify(game.position, cand.move, game.rules, cand.touched)
        state.record.note(
            game.ply + 1,
            f"illegal move by {_side(side)} ({offence.code}): {offence.message};"
            f" it stands, {_side(side.opponent)} answered without objection (WCDF 1.26)",
        )
        # The clock switched when the board first showed the move settled, not now.
        settle = bench.reader.settings.settle_ms
        return bench.condone(
            cand.move, now, code=offence.code, message=offence.message, clock_at=min(now, cand.t + settle)
        )

    # -- the record --------------------------------------------------------------------------

    def _save(self, session: GameSession) -> None:
        """Write the record of the game refereed, the game under way in ``session``."""
        if self.state is not None:
            self._write(self.state, session.game, session.clock)

    def _write(self, state: _GameState, game: Game, clock: GameTimer | None) -> None:
        """Write ``state``'s record with ``game``'s moves, each with its clock on ``clock``
        (the session's: the referee keeps no clock of its own)."""
        if self.files is None:
            return
        try:
            text = state.record.pdn(game, _times(clock))
            self.files.write(state.name if game.moves or state.over else None, text)
            # A game without a move has nothing to go on with (and the set-up of a game
            # being resumed must not overwrite the state it is about to read).
            if state is self.state and game.moves and state.serial is not None:
                self.files.save_state(self._snapshot(state, game))
        except (RecordError, ValueError) as exc:
            self._trouble(str(exc))

    # -- surviving a power cut -----------------------------------------------------------------

    def _snapshot(self, state: _GameState, game: Game) -> dict[str, Any]:
        """What :meth:`_restore` needs to go on with this game after a restart (the clock
        is the board's, saved with it, and each move's clock is the game record's: none
        here)."""
        r = state.record
        return {
            "number": state.number,
            "name": state.name,
            "black": state.black,
            "white": state.white,
            "date": r.date,
            "round": r.round,
            "moves": [m.pdn(full=True) for m in game.moves],
            "ballot": state.ballot.number if state.ballot is not None else None,
            "drawn": [b.number for b in self.box.drawn],
            "cautions": {_side(c): n for c, n in state.cautions.items()},
            "clock": None,
            "notes": {str(k): v for k, v in r.notes.items()},
            "extra": dict(r.extra),
            "over": state.over,
        }

    def _restore(self, state: _GameState, game: Game, saved: Mapping[str, Any] | None = None) -> None:
        """Go on with the saved referee state of ``state``'s game (``game``), if it is that
        game: the record directory's, else ``saved``."""
        moves = [m.pdn(full=True) for m in game.moves]
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
        try:
            state.number = self.games = int(data["number"])
            state.name, state.black, state.white = str(data["name"]), str(data["black"]), str(data["white"])
            self._pair_names(state.number, state.black, state.white)  # a host may have named them
            r = state.record
            r.date, r.round, r.black, r.white = str(data["date"]), str(data["round"]), state.black, state.white
            r.notes = {int(k): list(v) for k, v in data["notes"].items()}
            # (An earlier version's "clocks", each move's time left, is ignored: the game
            # record keeps each move's clock, and the game's clock recalls it on resuming.)
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
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            # Checked, but a ballot that does not fit these rules: the game goes on.
            where = (
                self.files.state_path
                if data is not saved and self.files is not None
                else "the game record's referee state"
            )
            self._trouble(f"{where}: cannot be used ({exc}); the game goes on without it")

    def _trouble(self, message: str) -> None:
        # The game goes on whatever happens to the files; say it once per problem.
        if message != self._record_trouble:
            self._record_trouble = message
            log.error("referee record: %s", message)

    # -- a game begins ---------------------------------------------------------------------

    def begin(self, now: int, bench: Bench) -> list[Event]:
        """A game begins on the board: names (colours reversed every game), ballot, record."""
        previous = self.state
        session = bench.session
        if previous is not None and not previous.over and previous.serial is not None:
            # The game it refereed was put away for this one, with moves: abandoned.
            old = session.previous if previous.serial == session.number - 1 else None
            if old is not None and old.moves:
                previous.record.note(old.ply, "game abandoned: a new game was set up")
                previous.over = True
                self._write(previous, old, session.previous_clock)
        self.games += 1
        k = self.games
        game = session.game
        self.state = self._new_state(k)
        self.state.serial = session.number
        record = self.state.record
        out: list[Event] = []
        # The first game of a pair draws the ballot; the second plays it again with the
        # colours reversed.
        if k % 2:
            self._pair_ballot = self.box.draw()
        chosen = self._pair_ballot
        if chosen is not None and (game.ply != 0 or game.start != Position.start(game.rules)):
            record.note(0, "no ballot: the game does not begin from the start position")
        elif chosen is not None:
            out += self._start_ballot(chosen, now, bench)
        self._save(bench.session)
        return out

    def _new_state(self, k: int) -> _GameState:
        """Game ``k`` of the session: its names (colours reversed every game) and record."""
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
        return _GameState(k, black, white, record, f"{started:%Y%m%d-%H%M%S}-{k}")

    def expect_resume(self, game: Game, saved: Mapping[str, Any] | None = None) -> None:
        """The saved ``game`` is being set up to resume: its state as saved (names,
        cautions, ballot; see :meth:`resume`) is the referee's from now on, so that the
        screens show its players while the pieces are put back."""
        self.games += 1
        state = self._new_state(self.games)
        self._restore(state, game, saved)
        self.state = state

    def resume(self, bench: Bench, saved: Mapping[str, Any] | None = None) -> list[Event]:
        """The saved game under way on ``bench`` goes on (its position has just been set
        up): the referee goes on with it, with its state as saved in the record directory
        or, failing that, ``saved`` (a :meth:`snapshot` the game record kept, checked by
        :func:`~crownhead.firmware.referee.snapshot.check_snapshot`)."""
        game = bench.session.game
        state = self.state
        if state is None or state.over:
            self.games += 1
            state = self.state = self._new_state(self.games)
        self._restore(state, game, saved)
        state.serial = bench.session.number
        state.record.note(game.ply, "game resumed")
        self._expect_ballot(bench)
        self._save(bench.session)
        return []

    def _start_ballot(self, chosen: Ballot | None, now: int, bench: Bench) -> list[Event]:
        state = self.state
        if chosen is None or state is None:
            return []
        game = bench.session.game
        try:
            moves = tuple(chosen.play_moves(game.rules))
        except ValueError as exc:
            state.record.note(0, f"ballot {chosen.number} cannot be played under these rules: {exc}")
            return []
        state.ballot, state.ballot_moves = chosen, moves
        state.record.ballot = chosen
        label = f"ACF ballot {chosen.number}" + (f" ({chosen.name})" if chosen.name else "")
        state.record.note(0, f"{label}: {' '.join(chosen.moves)}")
        self._expect_ballot(bench)
        self._save(bench.session)
        return [BallotDrawn(now, chosen.number, tuple(chosen.moves), chosen.name)]

    def _expect_ballot(self, bench: Bench) -> None:
        move = self.ballot_move(bench.session.game)
        if move is not None:
            bench.expect(move)
