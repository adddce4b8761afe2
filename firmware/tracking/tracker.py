"""The move tracker: settled switch readings in, exact moves, warnings and LED roles out.

The board senses only *whether* a square is occupied. The tracker knows *what* stands
where because it has followed every move from a known position: identity comes from
history, never from the sensors. For the position to move it precomputes the occupancy
patterns of every legal move (:mod:`crownhead.firmware.tracking.table`) and reads each settled
board against them:

* the board of the position itself: nothing happened, or a piece was put back;
* the result of exactly one legal move: accepted once stable for ``settle_ms``, or at
  once when the opponent starts the reply (a fast reply is never lost or merged);
* part-way through one or more legal moves (piece lifted, jumper touching down on
  landing squares, captured pieces taken off in any order): a move in progress, with
  guidance at once and the ``continue-capture``/``remove-captured`` warnings only after
  ``patience_ms`` or when the opponent starts to move;
* in casual play, the position before the last move (a takeback) or the last move
  redone differently by the same piece (a correction, until the opponent touches a piece);
* anything else: an illegal move or a board out of sync. Nothing is committed; the
  roles ``missing``/``extra`` say what to put back where, for as long as it takes.

It is pure and deterministic: time comes in as arguments, nothing reads a clock.

>>> from crownhead.rules import WCDF, Game
>>> from crownhead.squares import bit
>>> tracker = Tracker(Game(None, WCDF))
>>> board = tracker.position.occupied
>>> tracker.update(board & ~bit(11), 1000)          # Black lifts the man on 11
[]
>>> sorted(s for s, r in tracker.roles.items() if r in ("touched", "target"))
[11, 15, 16]
>>> tracker.update(board & ~bit(11) | bit(15), 1400)  # ...and puts it on 15
[]
>>> [e.to_json() for e in tracker.tick(1700)]       # settled for settle_ms: accepted
[{'t': 1700, 'event': 'move', 'ply': 1, 'side': 'black', 'move': '11-15', 'path': [11, 15], 'captures': []}]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from crownhead.firmware.events import (
    BoardWarning,
    Crowned,
    Event,
    GameOver,
    MoveMade,
    NewGame,
    TakenBack,
    WARNING_CODES,
    Side,
)
from crownhead.firmware.tracking.huffing import HuffingRule
from crownhead.firmware.tracking.policy import MODES, ModePolicy, TrackerSettings
from crownhead.firmware.tracking.reading import COMMITTABLE, Kind, Reading
from crownhead.firmware.tracking.roles import HINT_ROLES, ROLES, Role
from crownhead.firmware.tracking.rule import TurnRule
from crownhead.firmware.tracking.session import GameSession, claim_text
from crownhead.firmware.tracking.table import Plan, ProgressView, TurnTable, lowest_square, view_progress
from crownhead.rules import Color, Game, Move, Position
from crownhead.squares import FULL, bit, iter_squares, squares_of

__all__ = [
    "Tracker",
    "TrackerSettings",
    "ModePolicy",
    "MODES",
    "ROLES",
    "HINT_ROLES",
    "visible_roles",
    "Reading",
    "Kind",
    "GameSession",
    "claim_text",
]


def visible_roles(roles: Mapping[int, str], hints: bool) -> dict[int, str]:
    """``roles`` without the hint roles when ``hints`` is off."""
    if hints:
        return dict(roles)
    return {s: r for s, r in roles.items() if r not in HINT_ROLES}


#: Readings about the move of the side to move, and about redoing the move before.
_THIS_MOVE = frozenset({Kind.IDLE, Kind.COMPLETE, Kind.PROGRESS, Kind.CROWNING})
_LAST_MOVE = frozenset({Kind.TAKEBACK, Kind.CORRECT_COMPLETE, Kind.CORRECT_PROGRESS})


def _continues(pending: Kind, new: Kind) -> bool:
    """Whether a board reading ``new`` still belongs to the unfinished business ``pending``.

    A finished move followed by a board about anything else (the reply starting, even a
    reply slid in that happens to look like the position before) is accepted first.
    """
    if pending is Kind.COMPLETE:
        return new in _THIS_MOVE
    if pending is Kind.HUFF:  # a capture of that piece, or the mover's correction, goes on
        return new in (Kind.IDLE, Kind.PROGRESS, Kind.CORRECT_PROGRESS, Kind.CORRECT_COMPLETE)
    return new in _LAST_MOVE or new is Kind.IDLE


_PRIORITY = {code: i for i, code in enumerate(WARNING_CODES)}


@dataclass(frozen=True, slots=True)
class _Fault:
    """A piece lifted wrongly (touch-move, forced capture, unplayable): lasts while it is off."""

    code: str
    square: int
    squares: tuple[int, ...]
    message: str
    t: int
    roles: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class _Condition:
    code: str
    squares: tuple[int, ...]
    message: str
    due: int


def _piece_name(position: Position, square: int) -> str:
    piece = position.piece_at(square)
    if piece is None:
        return "piece"
    return "king" if piece.king else "man"


def _board_span(boards: Iterable[int]) -> tuple[int, int]:
    """The squares occupied on any of ``boards``, and those occupied on all of them.

    >>> _board_span([0b0110, 0b0011])
    (7, 2)
    """
    anywhere, everywhere = 0, FULL
    for board in boards:
        anywhere |= board
        everywhere &= board
    return anywhere, everywhere


def sum_captured(plans: Iterable[Plan]) -> int:
    """The squares any of ``plans`` captures."""
    mask = 0
    for p in plans:
        mask |= p.captured
    return mask


def _pieces_on(squares: list[int]) -> str:
    """``the piece on 6`` / ``the pieces on 6 and 7``."""
    return f"the {'piece' if len(squares) == 1 else 'pieces'} on {_list(squares)}"


def _wrong_move_message(start: int, end: int, name: str, same: list[Plan], taken: int) -> str:
    """What to put back when the piece on ``start`` went to ``end`` and ``taken`` went off.

    ``same`` are the legal moves from ``start`` to ``end`` (none, a plain move, one or
    several capture routes); ``taken`` the opponent's pieces no longer on the board. The
    message names the legal move that explains most of ``taken`` and the pieces it does
    not take.

    >>> from crownhead.firmware.tracking.table import TurnTable
    >>> from crownhead.rules import WCDF, Position
    >>> table = TurnTable(Position.from_fen("B:W6,7,14,15,16,30:BK2"), rules=WCDF)
    >>> same = [p for p in table.plans if p.move.end == 20]   # 2x11x20 and 2x9x18x11x20
    >>> _wrong_move_message(2, 20, "king", same, bit(7) | bit(30))
    '2x11x20 takes the pieces on 7 and 16, not the one on 30; put it back'
    >>> _wrong_move_message(2, 20, "king", [], bit(6))
    '2-20 is not a legal move; put the king back on 2 and the piece on 6 back'
    """
    gone = squares_of(taken)
    if not same:
        back = f" and {_pieces_on(gone)} back" if gone else ""
        return f"{start}-{end} is not a legal move; put the {name} back on {start}{back}"
    # The route taking most of what is gone, then the one leaving fewest pieces to remove.
    best = max(same, key=lambda p: ((p.captured & taken).bit_count(), -(p.captured & ~taken).bit_count()))
    wrong = squares_of(taken & ~best.captured)
    if not best.captured:
        if wrong:
            return f"{start}-{end} takes no piece; put {_pieces_on(wrong)} back"
        return f"{start}-{end} is not made this way; put the {name} back on {start}"
    routes = sum(1 for p in same if p.captured)
    text = best.move.pdn(full=routes > 1)  # several routes: say which one is meant
    takes = f"{text} takes {_pieces_on(squares_of(best.captured))}"
    if wrong:
        one = len(wrong) == 1
        return f"{takes}, not {'the one' if one else 'those'} on {_list(wrong)}; put {'it' if one else 'them'} back"
    return f"{takes}; put the {name} back on {start} and make it again"


def _sync_parts(fill: list[int], empty: list[int]) -> str:
    """``put a piece on 22; take the piece off 17``: what makes the board match."""
    parts = []
    if fill:
        parts.append(f"put {'a piece' if len(fill) == 1 else 'pieces'} on {_list(fill)}")
    if empty:
        parts.append(f"take the {'piece' if len(empty) == 1 else 'pieces'} off {_list(empty)}")
    return "; ".join(parts)


def _out_of_turn(position: Position, fill: list[int], empty: list[int]) -> str | None:
    """``it is White's turn: put the man back on 9`` when the board differs from
    ``position`` by one piece of the side not to move gone from ``fill`` to ``empty``
    (a move out of turn), else None.

    >>> from crownhead.rules import WCDF
    >>> _out_of_turn(Position.start().apply(Position.start().moves_matching("11-15", WCDF)[0], WCDF), [9], [14])
    "it is White's turn: put the man back on 9"
    """
    if len(fill) != 1 or len(empty) != 1:
        return None
    piece = position.piece_at(fill[0])
    if piece is None or piece.color is position.turn:
        return None
    name = "king" if piece.king else "man"
    return f"it is {position.turn.name.title()}'s turn: put the {name} back on {fill[0]}"


def _list(squares: Iterable[int]) -> str:
    items = [str(s) for s in squares]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


class Tracker:
    """Reads the game on the board from settled occupancy readings: a board reader.

    ``game`` is the game the board shows now (its position is taken to stand on the
    board unless ``board`` gives the occupancy actually read), or the
    :class:`~crownhead.firmware.tracking.session.GameSession` that owns it: the tracker reads the
    board against the session's game and asks the session to commit what it reads (a
    move, a takeback, a new game set up); the session keeps the game, the offers, the
    result and the held sides (a tracker made from a bare game makes a session of its
    own). ``mode`` is ``"play"``, ``"referee"`` or a :class:`ModePolicy`. Feed it with
    :meth:`update` after every accepted sensor change and :meth:`tick` when
    :meth:`next_deadline` comes; each returns the events that happened (moves, warnings
    with their squares). The buttons reach it through the follower
    (:mod:`crownhead.firmware.tracking.follower`), which passes it the board's own.
    """

    def __init__(
        self,
        game: Game | GameSession,
        settings: TrackerSettings = TrackerSettings(),
        mode: str | ModePolicy = "play",
        *,
        board: int | None = None,
    ) -> None:
        if isinstance(mode, str):
            if mode not in MODES:
                raise ValueError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
            mode = MODES[mode]
        self.settings = settings
        self.policy: ModePolicy = mode
        #: The game and everything decided about it (see :mod:`crownhead.firmware.tracking.session`).
        self.session = game if isinstance(game, GameSession) else GameSession(game)
        game = self.session.game
        # The session's revision this tracker's reading is up to date with (see _sync).
        self._synced = self.session.revision
        self._game_key: tuple[int, int] = (0, 0)
        self._version = 0
        # What the last board read gave, valid while _version stays the same.
        self._roles_cache: tuple[int, dict[int, str]] | None = None
        self._conditions_cache: tuple[int, list[_Condition]] | None = None
        self._view_cache: tuple[tuple[int, int], ProgressView] | None = None
        self._now = 0
        self._begin(game.position.occupied if board is None else board)

    def _begin(self, board: int) -> None:
        """Start reading ``board`` against the session's game, knowing nothing else."""
        game = self.session.game
        self._synced = self.session.revision
        self._active: dict[str, BoardWarning] = {}
        self._board = board
        self._changed_at = 0
        #: When the current reading began: a board change, or a move, takeback or press.
        self._since = 0
        self._setup: Position | None = None
        self._blocked: int | None = None
        #: The boards of the positions taken back with the button since the board last
        #: showed the game: they, the game's position and every board part-way between
        #: (pieces put back in any order) are read as boards to put right, never as those
        #: moves made again (see _on_way_back).
        self._undone: set[int] = set()
        # A board that does not show the game when the tracker starts (a game resumed)
        # is first guided back to the game's position; nothing is read as a move before.
        self._restoring = board != game.position.occupied
        self._expected: Move | None = None
        self._crown: int | None = None
        # The game's own turn rules (huffing), plugged in at the hooks marked below.
        self._rule: TurnRule = HuffingRule(self) if game.rules.huffing else TurnRule(self)
        self._touch_state()
        self._new_turn()
        self._reading = self._read(self._board)
        if self._reading.kind is not Kind.NONE:
            self._ref = self._reading

    def read_afresh(self, now_ms: int) -> list[Event]:
        """The session's record changed in a way no reading of the board explains (an
        illegal move stood, WCDF 1.26): forget what was read of the turn and read the board
        as it stands at ``now_ms``, from the game's position, as a tracker just started
        on it would (the answer standing complete on the board is read as the next move).
        """
        board = self._board
        self._begin(self.game.position.occupied)
        return self.update(board, now_ms)

    # -- public state -----------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game the board follows (the session's)."""
        return self.session.game

    @property
    def mode(self) -> str:
        return self.policy.tracker_mode

    @property
    def position(self) -> Position:
        """The position of the game (what should stand on the board)."""
        return self.game.position

    @property
    def board(self) -> int:
        """The last settled occupancy fed in."""
        return self._board

    @property
    def tidy_board(self) -> int:
        """The board as the side to move left it: :attr:`board` with what the side not to
        move upset before that side began (pieces held, knocked or moved) put right."""
        reading = self._reading
        if not reading.disorder:
            return self._board
        return (self._board | reading.disorder) & ~(reading.disorder & self._board)

    @property
    def board_matches(self) -> bool:
        """Whether the board shows exactly the position (and no setup is under way)."""
        return self._setup is None and self._board == self.game.position.occupied

    @property
    def reading(self) -> Reading:
        self._sync()
        return self._reading

    @property
    def version(self) -> int:
        """Changes whenever what this tracker reads or shows may have: the board, its
        reading, the warnings, the roles (the game's own changes are the session's
        :attr:`~crownhead.firmware.tracking.session.GameSession.revision`)."""
        self._sync()
        return self._version

    @property
    def setting_up(self) -> Position | None:
        """The position being set up for a new game, or None."""
        return self._setup

    @property
    def expected(self) -> Move | None:
        """The move the board wants made (see :meth:`expect`), or None."""
        return self._expected

    @property
    def touched(self) -> int | None:
        """The square of the piece touched this turn (touch-move), or None."""
        return self._touched

    @property
    def held(self) -> dict[Color, str]:
        """The sides whose moves are made elsewhere, each with who makes them (the
        session's holds: while such a side is to move, only a move asked for with
        :meth:`expect` is read as its move)."""
        return self.session.held

    @property
    def warning(self) -> BoardWarning | None:
        """The most urgent warning whose condition still holds, or None."""
        self._sync()
        if not self._active:
            return None
        return min(self._active.values(), key=lambda w: _PRIORITY.get(w.code, 99))

    @property
    def warnings(self) -> tuple[BoardWarning, ...]:
        """Every warning whose condition still holds, most urgent first."""
        self._sync()
        return tuple(sorted(self._active.values(), key=lambda w: _PRIORITY.get(w.code, 99)))

    @property
    def overdue(self) -> bool:
        """Whether the opponent has begun to move while the move in progress is unfinished."""
        return self._escalated

    @property
    def roles(self) -> dict[int, str]:
        """What each lit square shows now (see ``ROLES``); unlit squares are absent."""
        self._sync()
        cached = self._roles_cache
        if cached is not None and cached[0] == self._version:
            return dict(cached[1])
        roles = self._compute_roles()
        self._roles_cache = (self._version, roles)
        return dict(roles)

    def next_deadline(self) -> int | None:
        """When :meth:`tick` has something to do (a move to accept, a warning due), or None."""
        self._sync()
        times = []
        commit = self._commit_due()
        if commit is not None:
            times.append(commit)
        for cond in self._conditions():
            if cond.code not in self._active:
                times.append(cond.due)
        return min(times) if times else None

    # -- inputs -----------------------------------------------------------------------

    def update(self, occupancy: int, now_ms: int) -> list[Event]:
        """A new settled occupancy (bit ``s - 1`` for square ``s``) at ``now_ms``."""
        self._sync()
        events = self._run_timers(now_ms)
        if occupancy == self._board:
            return events
        before = self._board
        self._board = occupancy
        self._changed_at = self._since = now_ms
        self._touch_state()
        if self._setup is not None:
            events += self._setup_check(now_ms)
            return events + self._refresh(now_ms)
        if self._blocked is not None and occupancy != self._blocked:
            self._blocked = None
        if (self._restoring or self._undone) and occupancy == self.game.position.occupied:
            self._restoring = False
            self._undone.clear()
            # Pieces put back were no lift of the side to move: its turn begins now.
            self._mover_began = False
            self._own_lifted = 0
        lifted = before & ~occupancy
        placed = occupancy & ~before
        self._note_disorder(lifted, placed, occupancy)
        old = self._reading
        reading = self._read(occupancy)
        if old.kind in COMMITTABLE and not _continues(old.kind, reading.kind):
            # The board left a finished move for something that is no part of it: the
            # move was made (released), and what comes now belongs to the next one.
            events += self._accept(old, now_ms)
            reading = self._read(occupancy)
        elif reading.kind is Kind.NONE:
            moved_on = False
            # A huff, then a move begun (not by a held side: it makes no choice here).
            huffed = [] if self._is_held(self.game.turn) else self._rule.ahead(occupancy, now_ms)
            if huffed:
                events += huffed
                moved_on = True
            elif self.policy.skip_ahead:
                ahead = self._skip_ahead(occupancy)
                if ahead is not None:
                    events += self._accept(ahead, now_ms)
                    moved_on = True
                    # The pieces the replying side has already picked up are its touches.
                    lifted = self.game.position.pieces_of(self.game.turn) & ~occupancy
            if moved_on:
                reading = self._read(occupancy)
            elif old.kind is Kind.PROGRESS and self._opponent_started(lifted, old):
                self._escalated = True
        if self._rule.watches_updates and not self._is_held(self.game.turn):
            # A huff and then a whole move, read as a capture of the huffed piece under way.
            huffed = self._rule.after_update(old, reading, now_ms)
            if huffed:
                events += huffed
                reading = self._read(occupancy)
        if old.kind is Kind.CROWNING and reading.kind is Kind.IDLE:
            self._crown = None  # the man was lifted and a king put in its place: crowned
        self._reading = reading
        if lifted & self._table.own:
            # A piece lifted from where it stands in the position starts its move afresh.
            # (Not cleared when the board is back to the position: a king's ring of jumps
            # may end on its own start square, and its route is told by the landings.)
            self._seen.clear()
            self._note_lifts(lifted, now_ms)
            reading = self._reading = self._read(occupancy)
        self._placed |= placed
        if placed and reading.kind in (Kind.PROGRESS, Kind.CORRECT_PROGRESS):
            if any(p.landings & placed for p in reading.plans):
                self._seen.append(lowest_square(placed))
        if reading.kind is Kind.IDLE:
            self._escalated = False
            self._adjusting = False
        if reading.kind is not Kind.NONE:
            self._ref = reading
        self._touch_state()
        return events + self._refresh(now_ms)

    def attend(self, now_ms: int) -> list[Event]:
        """A hand pressed a button at ``now_ms``: the timers due run, and what stands on the
        board is read as of now (a warning about it waits its time again).

        The buttons themselves are the follower's to route (:mod:`crownhead.firmware.tracking.follower`):
        the game's (a draw, a resignation, a claim) go to the session; the board's own call
        :meth:`new_game`, :meth:`take_back`, :meth:`adjust` and :meth:`force`.
        """
        self._sync()
        events = self._run_timers(now_ms)
        self._since = now_ms
        self._touch_state()
        return events + self._refresh(now_ms)

    def adjust(self, now_ms: int) -> list[Event]:
        """The ``adjust`` button: the pieces the side to move touches now are straightened,
        not played (no touch-move) until its turn's board stands again."""
        self._sync()
        if self._setup is not None:
            return []
        self._adjusting = True
        self._touch_state()
        return self._refresh(now_ms)

    def force(self, now_ms: int) -> list[Event]:
        """The ``force`` button: under huffing, the move that skipped a jump is taken back
        and the jump is to be made (a move standing complete on the board comes first)."""
        self._sync()
        if self._setup is not None:
            return []
        events: list[Event] = []
        if self._reading.kind in COMMITTABLE:
            events += self._accept(self._reading, now_ms)
        events += self._rule.force(now_ms)
        return events + self._refresh(now_ms)

    def _is_held(self, side: Color) -> bool:
        """Whether ``side``'s moves are made elsewhere (the session's holds)."""
        return self.session.held_by(side) is not None

    def tick(self, now_ms: int) -> list[Event]:
        """Run the timers due by ``now_ms`` (accept settled moves, raise overdue warnings)."""
        self._sync()
        return self._run_timers(now_ms)

    def expect(self, move: Move | None) -> None:
        """Ask for ``move`` to be made on the board (a computer's move, a balloted opening).

        Its squares get the roles ``move-from``, ``move-path``, ``move-to`` (and
        ``capture``); until it is made, no other move is accepted for the side to move.
        ``None`` withdraws the request. Raises ``ValueError`` for a move that is not legal.
        """
        self._sync()
        if move is not None and self._table.plan(move) is None:
            raise ValueError(f"{move.pdn(full=True)} is not a legal move in {self.position.fen()}")
        self._expected = move
        self._since = max(self._since, self._now)
        self._reread()

    def new_game(self, position: Position | None = None, now_ms: int | None = None) -> list[Event]:
        """Set up a new game from ``position`` (default: the session's start of new games).

        The game begins as soon as that position stands on the board; until then the
        roles ``missing`` and ``extra`` say which squares to fill and to empty.
        """
        self._sync()
        now = self._now if now_ms is None else now_ms
        self._touch_state()
        if position is None:
            position = self.session.start_position()
        self._setup = position
        self._expected = None
        self._crown = None
        self._blocked = None
        self._undone.clear()
        self._restoring = False
        events = self._setup_check(now)
        return events + self._refresh(now)

    def restore(self, occupancy: int, now_ms: int) -> list[Event]:
        """The board shows ``occupancy`` for reasons outside the game: guide it back.

        For a board read when the controller starts, after a game is resumed or after the
        sensor link came back. Until the board shows the game's position again the roles
        ``missing`` and ``extra`` say what to change; nothing is read as a move meanwhile.
        """
        self._sync()
        events = self._run_timers(now_ms)
        self._touch_state()
        self._board = occupancy
        self._changed_at = self._since = now_ms
        if self._setup is not None:
            return events + self._setup_check(now_ms) + self._refresh(now_ms)
        self._restoring = occupancy != self.game.position.occupied
        self._reread()
        return events + self._refresh(now_ms)

    def take_back(self, now_ms: int) -> list[Event]:
        """Take back the last move (the ``takeback`` button, when the mode allows it); the
        board is then guided back. The session takes it off the record. (What a takeback
        means for the record is decided before: a resignation is taken back by the
        session, :meth:`Follower.take_back <firmware.tracking.follower.Follower.take_back>`,
        and this tracker reads the board again when it sees the session's revision move.)"""
        self._sync()
        if self._setup is not None:
            return []
        if not self.policy.takeback:
            return self._refresh(now_ms)
        events = self._take_back(now_ms)
        return events + self._refresh(now_ms)

    def _take_back(self, now_ms: int) -> list[Event]:
        events: list[Event] = []
        if self._reading.kind in COMMITTABLE:
            events += self._accept(self._reading, now_ms)
        if not self.game.moves:
            return events
        special = self._rule.take_back(now_ms)  # a huff, or a missed jump to force
        if special is not None:
            return events + special
        undone = self.game.moves[-1]
        result_board = self._table_for(self.game.positions[-2]).plan(undone)
        events += self._undo(now_ms)
        self._blocked = result_board.result if result_board is not None else None
        if result_board is not None and self._board != self.game.position.occupied:
            # Until the board shows the game again, the board of a move taken back is only
            # guided back: restored part-way (the later of two moves first, a jump half
            # undone) it never makes that move again.
            self._undone.add(result_board.result)
        self._reread()
        return events

    def accept_pending(self, now_ms: int) -> list[Event]:
        """Accept at once a move standing complete on the board but not yet settled.

        For a button that speaks about the position after the move just made (``draw``,
        ``claim`` or ``resign``, pressed right after the move): the move comes first. Returns its events (none if nothing is pending).
        """
        self._sync()
        events = self._run_timers(now_ms)
        if self._setup is None and not self.game.is_over and self._reading.kind in COMMITTABLE:
            events += self._accept(self._reading, now_ms)
            events += self._refresh(now_ms)
        return events

    # -- for the turn rules (firmware.tracking.rule.RuleHost) ----------------------------

    @property
    def crowned(self) -> int | None:
        """The square of the man just crowned while the crowning prompt is up, or None."""
        return self._crown

    @property
    def table(self) -> TurnTable:
        """The moves of the turn in progress, as occupancy patterns."""
        return self._table

    def restart_turn(self, now: int) -> None:
        """The session changed the game other than by a move (a huff, a forced jump):
        begin the turn afresh and read again."""
        self._synced = self.session.revision
        self._since = max(self._since, now)
        self._new_turn()
        self._crown = None
        self._blocked = None
        self._reread()

    def guide_back(self, shown: int) -> None:
        """The board still shows ``shown``, just taken back: guide it, do not read it."""
        self._blocked = shown
        self._reread()

    # -- timers -----------------------------------------------------------------------

    def _commit_due(self) -> int | None:
        if self._reading.kind not in COMMITTABLE or self._setup is not None:
            return None
        wait = self.settings.patience_ms if self._reading.also_progress else self.settings.settle_ms
        return self._changed_at + wait

    def _run_timers(self, now: int) -> list[Event]:
        events: list[Event] = []
        # Each round accepts a move or raises a warning, so few rounds are ever needed;
        # the bound only keeps a controller responsive should that ever not hold.
        for _ in range(256):
            due = self.next_deadline()
            if due is None or due > now:
                break
            due = max(due, self._now)
            commit = self._commit_due()
            if commit is not None and commit <= due:
                events += self._accept(self._reading, max(commit, self._now))
                self._ref = self._reading
            events += self._refresh(due)
        self._now = max(self._now, now)
        return events

    # -- reading the board ------------------------------------------------------------

    def _new_turn(self) -> None:
        """Forget everything about the turn in progress (after a move, takeback or new game)."""
        game = self.game
        self._game_key = (id(game), len(game.history))
        self._table = TurnTable(self.game.position, self.game.rules, self._rule.turn_moves(self.game))
        self._correction: TurnTable | None = None
        self._touched: int | None = None
        self._fault: _Fault | None = None
        self._adjusting = False
        self._escalated = False
        self._seen: list[int] = []
        # Every square a piece was put down on this turn: a move's evidence (_skip_ahead).
        self._placed: int = 0
        self._correction_open = False
        self._expected = None
        self._ref = Reading(Kind.IDLE, self.game.position.occupied)
        # Whether a piece of the side to move has left its square this turn, which of them
        # did, and the disorder the side not to move made before (see _note_disorder).
        # (Pieces of the side to move already off the board were lifted by it: a reply
        # begun before the move was accepted.)
        self._own_lifted = self.game.position.pieces_of(self.game.turn) & ~self._board
        self._mover_began = bool(self._own_lifted)
        self._disorder_gone = 0
        self._disorder_added = 0
        # Asked on every board read; the game's answer only changes with the position
        # or a declared result (resign, claim), after which this is set again.
        self._over = self.game.is_over

    def _note_disorder(self, lifted: int, placed: int, occupancy: int) -> None:
        """Keep apart what the side not to move did before the side to move began.

        A piece of the side not to move lifted (held, knocked, moved out of turn), and
        where it is put, while no piece of the side to move has left its square this turn,
        is no part of the mover's move, whatever comes after. Squares put right again
        stop counting.
        """
        table = self._table
        own = lifted & table.own
        if not self._mover_began and not own:
            gone = lifted & table.opponent
            if gone and self.game.rules.huffing:
                # Under huffing the side to move may take a piece that missed a jump off
                # before moving: that is its choice, never disorder.
                for square in self.game.huffable():
                    gone &= ~bit(square)
            self._disorder_gone |= gone
            # A piece put on an empty square is theirs only while one of theirs is in
            # hand: otherwise it is the mover sliding a piece, touching down first, and a
            # touch-down on one of the mover's landing squares is the mover beginning.
            if self._disorder_gone & ~occupancy:
                self._disorder_added |= placed & ~table.occupied
            elif placed & self._landings():
                self._mover_began = True
        if own:
            self._mover_began = True
            self._own_lifted |= own
        self._disorder_gone &= ~occupancy
        self._disorder_added &= occupancy

    def _landings(self) -> int:
        """Every square a legal move of the side to move lands on."""
        mask = 0
        for plan in self._table.plans:
            mask |= plan.landings
        return mask

    def _waiting(self) -> str | None:
        """What to wait for, when the side to move is held and no move of it is shown."""
        by = self.session.held_by(self.game.turn)
        if by is None or self._expected is not None:
            return None
        return f"{self.game.turn}'s moves come from {by}: wait until the board shows one"

    def _table_for(self, position: Position) -> TurnTable:
        return TurnTable(position, self.game.rules)

    def _candidates(self) -> tuple[Plan, ...] | None:
        """The moves the side to move may make now (None: every legal move)."""
        if self._expected is not None:
            plan = self._table.plan(self._expected)
            return (plan,) if plan is not None else ()
        if self._is_held(self.game.turn):
            return ()  # its moves come from elsewhere, through expect()
        if self.policy.strict_touch_move and self._touched is not None and self._table.movable & bit(self._touched):
            return tuple(p for p in self._table.plans if p.move.start == self._touched)
        return None

    def correction_table(self) -> TurnTable | None:
        """The last move's piece redoing it (casual play, until the opponent touches a piece), or None."""
        if not (self.policy.correction and self._correction_open and self.game.moves):
            return None
        if self._is_held(self.game.positions[-2].turn):
            return None  # that move came from elsewhere: it is not the hands' to redo
        if self._correction is None:
            before = self.game.positions[-2]
            start = self.game.moves[-1].start
            moves = [m for m in before.legal_moves(self.game.rules) if m.start == start]
            self._correction = TurnTable(before, self.game.rules, moves)
        return self._correction

    def _read(self, board: int) -> Reading:
        reading = self._read_board(board)
        gone, added = self._disorder(board)
        disorder = gone | added
        if reading.kind is not Kind.NONE or not disorder or self._restoring:
            return reading
        # Read the board as if the side not to move had left everything alone.
        tidy = (board | gone) & ~added
        fair = self._read_board(tidy)
        if fair.kind not in (Kind.IDLE, Kind.COMPLETE, Kind.PROGRESS):
            return reading
        return Reading(fair.kind, tidy, fair.plans, fair.also_progress, disorder)

    def _disorder(self, board: int) -> tuple[int, int]:
        """The disorder standing on ``board``: squares to fill, squares to empty."""
        # Pieces the lifted pieces could jump may have been taken off first (any order):
        # those are part of the move, never disorder.
        movers = self._own_lifted
        jumpable = sum_captured(p for p in self._table.plans if bit(p.move.start) & movers) if movers else 0
        return self._disorder_gone & ~jumpable & ~board, self._disorder_added & board

    def _read_board(self, board: int) -> Reading:
        game = self.game
        occupied = game.position.occupied
        if board == occupied:
            return Reading(Kind.IDLE, board)
        if self._restoring or board == self._blocked or self._on_way_back(board):
            return Reading(Kind.RESTORE, board)
        over = self._over
        if not over:
            # Under huffing: a piece that missed a jump off (the side to move's choice).
            huff = None if self._is_held(game.turn) else self._rule.read(board)
            if huff is not None:
                return huff
            if self._crown is not None and board == occupied & ~bit(self._crown):
                return Reading(Kind.CROWNING, board)
            table = self._table
            only = self._candidates()
            # A capture ending on its own start square is not made until its piece has
            # been lifted: the captured pieces off first already give its result.
            done = tuple(
                p
                for p in table.complete(board, only)
                if p.move.start != p.move.end or self._own_lifted & bit(p.move.start)
            )
            if done:
                others = [p for p in table.in_progress(board, only) if p not in done]
                return Reading(Kind.COMPLETE, board, done, also_progress=bool(others))
            going = table.in_progress(board, only)
            if going:
                return Reading(Kind.PROGRESS, board, tuple(going))
        if self.policy.takeback and board == self._rule.takeback_board(game):
            return Reading(Kind.TAKEBACK, board)
        correction = None if over else self.correction_table()
        if correction is not None:
            last = game.moves[-1]
            done = tuple(p for p in correction.complete(board) if p.move != last)
            if done:
                return Reading(Kind.CORRECT_COMPLETE, board, done)
            going = correction.in_progress(board, extra_removable=last.captured_mask)
            if going:
                return Reading(Kind.CORRECT_PROGRESS, board, tuple(going))
        return Reading(Kind.NONE, board)

    def _on_way_back(self, board: int) -> bool:
        """Whether ``board`` is on the way back after the takeback button: every square
        shows what it shows in one of the positions on the way (the game's, the ones taken
        back). Pieces put back in any order, one still in the hand, give such boards; read
        as moves from the game's position they would be wrong moves, or a move taken back
        made again (issue 50)."""
        if not self._undone:
            return False
        anywhere, everywhere = _board_span((self.game.position.occupied, *self._undone))
        return not board & ~anywhere and not everywhere & ~board

    def _reread(self) -> None:
        self._touch_state()
        if self._setup is None:
            self._reading = self._read(self._board)
            if self._reading.kind is not Kind.NONE:
                self._ref = self._reading

    def _sync(self) -> None:
        """Catch up with the session when it changed other than through this tracker (a
        hold, a result declared, another reader's move): cheap when nothing did."""
        session = self.session
        if session.revision == self._synced:
            return
        self._synced = session.revision
        game = session.game
        if (id(game), len(game.history)) != self._game_key:
            # The record moved under the board: its turn begins afresh from the game.
            self._new_turn()
            self._crown = None
            self._blocked = None
            self._undone.clear()
        self._over = game.is_over
        self._reread()
        if self._active:
            # A warning whose condition that change ended goes at once (a result declared
            # ends every one); one it gives rise to is raised by the timers, with its event.
            holding = {c.code for c in self._conditions()}
            if not self._active.keys() <= holding:
                self._active = {code: w for code, w in self._active.items() if code in holding}
                self._touch_state()

    def _skip_ahead(self, board: int) -> Reading | None:
        """A move finished on the board but for the opponent's reply already begun."""
        ref = self._ref
        if ref.kind is not Kind.PROGRESS or self._over:
            return None
        groups: dict[int, list[Plan]] = {}
        for p in ref.plans:
            groups.setdefault(p.result, []).append(p)
        found: list[tuple[Plan, ...]] = []
        for result, plans in groups.items():
            after = self.game.position.apply(plans[0].move, self.game.rules)
            replier = after.pieces_of(after.turn)
            gone = result & ~board
            fits = not board & ~result and gone and not gone & ~replier
            # A reply under way may already have taken the moved piece off again, but only
            # a piece that was put down there: a piece still in the mover's hand made no move.
            landed = bool((board | self._placed) & plans[0].end)
            if not fits and landed:
                table = self._table_for(after)
                fits = bool(table.complete(board) or table.in_progress(board))
            if fits:
                found.append(tuple(plans))
        if len(found) != 1:
            return None
        return Reading(Kind.COMPLETE, board, found[0])

    def _opponent_started(self, lifted: int, ref: Reading) -> bool:
        """A piece of the side not to move was lifted, and it is not one being captured."""
        return bool(lifted & self._table.opponent & ~sum_captured(ref.plans))

    # -- touching pieces --------------------------------------------------------------

    def _note_lifts(self, lifted: int, now: int) -> None:
        """Touch-move bookkeeping for pieces of the side to move just lifted."""
        own = lifted & self._table.own
        if not own or self._over or self._expected is not None or self._is_held(self.game.turn):
            return
        if self._reading.kind in (Kind.TAKEBACK, Kind.CORRECT_PROGRESS, Kind.CORRECT_COMPLETE, Kind.RESTORE):
            return
        position = self.game.position
        table = self._table
        for square in iter_squares(own):
            if self._adjusting:
                continue
            # The side to move has touched a piece: the last move is no longer open to
            # correction, and the crowning prompt has been seen.
            self._correction_open = False
            self._crown = None
            b = bit(square)
            touched = self._touched
            fault: _Fault | None = None
            if touched is None or not table.movable & bit(touched):
                self._touched = square
                if not table.movable & b:
                    name = _piece_name(position, square)
                    if table.jumpers:
                        jumpers = tuple(squares_of(table.jumpers))
                        fault = _Fault(
                            "forced-capture",
                            square,
                            jumpers,
                            f"a capture is compulsory: the {name} on {square} cannot capture;"
                            f" capture with the piece on {_list(jumpers)}",
                            now,
                            tuple((s, Role.MUST_CAPTURE) for s in jumpers) + ((square, Role.ERROR),),
                        )
                    else:
                        fault = _Fault(
                            "unplayable-piece",
                            square,
                            (square,),
                            f"the {name} on {square} has no legal move; put it back",
                            now,
                            ((square, Role.ERROR),),
                        )
            elif square != touched:
                name = _piece_name(position, touched)
                roles: tuple[tuple[int, str], ...] = ((touched, Role.TOUCHED),)
                if self.policy.strict_touch_move:
                    roles += ((square, Role.ERROR),)
                fault = _Fault(
                    "touch-move",
                    square,
                    (touched,),
                    f"touch-move: the {name} on {touched} was touched first and must be played",
                    now,
                    roles,
                )
            if fault is not None:
                self._fault = fault

    def _fault_active(self) -> _Fault | None:
        fault = self._fault
        if fault is None or self._board & bit(fault.square):
            return None
        return fault

    # -- accepting --------------------------------------------------------------------

    def _accept(self, reading: Reading, now: int) -> list[Event]:
        if reading.kind is Kind.COMPLETE:
            events = self._commit(reading.plans, now)
            if reading.disorder and self._board != self.game.position.occupied:
                # What the side not to move upset stays to be put right before its move
                # can be read: its pieces are guided back first, nothing is guessed.
                self._restoring = True
                self._reread()
            return events
        if reading.kind is Kind.TAKEBACK:
            return self._undo(now)
        if reading.kind is Kind.HUFF:
            return self._rule.commit(reading.board, now)
        if reading.kind is Kind.CORRECT_COMPLETE:
            seen = list(self._seen)
            events = self._undo(now)
            self._seen = seen  # the landings of the corrected move tell its route
            table = self._table
            plans = tuple(p for m in reading.plans if (p := table.plan(m.move)) is not None)
            return events + self._commit(plans, now)
        return []

    def _choose(self, plans: tuple[Plan, ...]) -> Plan:
        """Of routes with the same result, the one whose landings were seen."""
        if len(plans) == 1 or not self._seen:
            return plans[0]
        seen = self._seen

        def fits(p: Plan) -> int:
            path = p.move.path[1:]
            i = 0
            for sq in path:
                if i < len(seen) and seen[i] == sq:
                    i += 1
            return i

        return max(plans, key=fits)

    def _commit(self, plans: tuple[Plan, ...], now: int) -> list[Event]:
        if not plans or self.game.is_over:
            return []
        plan = self._choose(plans)
        table = self._table
        move = plan.move
        text = move.pdn(full=True) if table.ambiguous_ends(plan) else move.pdn()
        side = Side.of(self.game.turn)
        self._since = max(self._since, now)
        self.session.play(move)
        self._synced = self.session.revision  # this tracker's own change, read below
        events: list[Event] = [MoveMade(now, self.game.ply, side, text, tuple(move.path), tuple(move.captures))]
        self._new_turn()
        self._correction_open = self.policy.correction
        self._crown = None
        if plan.crowns:
            self._crown = move.end
            events.append(Crowned(now, move.end))
        events += self._rule.offer(now)
        self._blocked = None
        self._undone.clear()
        result = self.game.result
        if result is not None:
            events.append(GameOver(now, result.score, result.reason))
        self._reread()
        return events

    def _undo(self, now: int) -> list[Event]:
        if not self.game.moves:
            return []
        special = self._rule.undo(now)  # a huff, or a missed jump to force
        if special is not None:
            return special
        ply = self.game.ply
        self._since = max(self._since, now)
        self.session.undo()
        self._synced = self.session.revision
        self._new_turn()
        self._crown = None
        self._blocked = None
        self._reread()
        return [TakenBack(now, ply)]

    # -- setting up -------------------------------------------------------------------

    def _setup_check(self, now: int) -> list[Event]:
        target = self._setup
        if target is None or self._board != target.occupied:
            return []
        self._setup = None
        self._since = max(self._since, now)
        self.session.begin(target)
        self._synced = self.session.revision
        self._new_turn()
        self._crown = None
        self._blocked = None
        self._undone.clear()
        self._reread()
        self._ref = self._reading
        return [NewGame(now, target.fen())]

    # -- warnings ---------------------------------------------------------------------

    def _touch_state(self) -> None:
        self._version += 1

    def _conditions(self) -> list[_Condition]:
        cached = self._conditions_cache
        if cached is not None and cached[0] == self._version:
            return cached[1]
        conds = self._compute_conditions()
        self._conditions_cache = (self._version, conds)
        return conds

    def _compute_conditions(self) -> list[_Condition]:
        if self._setup is not None or self._over:
            return []
        out: list[_Condition] = []
        reading = self._reading
        fault = self._fault_active()
        if fault is not None:
            out.append(_Condition(fault.code, fault.squares, fault.message, fault.t))
        if reading.kind is Kind.NONE:
            cond = self._none_condition(reading.board, fault)
            if cond is not None:
                out.append(cond)
        elif reading.disorder:
            board = self._board
            fill = squares_of(reading.disorder & ~board)
            empty = squares_of(reading.disorder & board)
            message = _out_of_turn(self.game.position, fill, empty) or (
                "the board does not match the game: " + _sync_parts(fill, empty)
            )
            due = self._since + self.settings.settle_ms
            out.append(_Condition("out-of-sync", tuple(squares_of(reading.disorder)), message, due))
        progress_ref = reading if reading.kind is Kind.PROGRESS else None
        if reading.kind is Kind.NONE and self._escalated and self._ref.kind is Kind.PROGRESS:
            progress_ref = self._ref
        if progress_ref is not None and progress_ref.board & ~self._table.occupied:
            # Only a jumper standing on a landing square can be overdue.
            view = self._view(progress_ref)
            if view.stopped is not None:
                due = self._since if self._escalated else self._since + self.settings.patience_ms
                if view.stopped == "continue-capture":
                    message = f"the capture is not finished: jump on to {_list(view.stopped_squares)}"
                else:
                    pieces = "piece" if len(view.stopped_squares) == 1 else "pieces"
                    message = f"take the captured {pieces} off {_list(view.stopped_squares)}"
                out.append(_Condition(view.stopped, view.stopped_squares, message, due))
        return out

    def _none_condition(self, board: int, fault: _Fault | None) -> _Condition | None:
        ref = self._ref
        if fault is not None and board == ref.board & ~bit(fault.square):
            return None  # the lifted piece is the whole story, already told
        position = self.game.position
        occupied = position.occupied
        if self._adjusting and not board & ~occupied:
            return None
        if self._escalated and ref.kind is Kind.PROGRESS:
            extra = ref.board & ~board
            if not board & ~ref.board and not extra & ~self._table.opponent:
                return None  # the opponent holds a piece early; the progress warning says why
        due = self._since + self.settings.settle_ms
        waiting = self._waiting()
        own = self._table.own
        removed = occupied & ~board
        added = board & ~occupied
        mover = removed & own
        if mover and not mover & (mover - 1) and added and not added & (added - 1):
            start, end = lowest_square(mover), lowest_square(added)
            name = _piece_name(position, start)
            squares = (start, end)
            if self._expected is not None:
                message = f"the board wants {self._expected.pdn()} played; put the {name} back on {start}"
            elif waiting is not None:
                message = f"{waiting}; put the {name} back on {start}"
            elif (
                self.policy.strict_touch_move
                and self._touched is not None
                and self._touched != start
                and self._table.movable & bit(self._touched)
            ):
                message = (
                    f"touch-move: the piece on {self._touched} was touched and must be played;"
                    f" put the {name} back on {start}"
                )
            elif (
                self._table.plans and all(p.captured for p in self._table.plans) and not removed & self._table.opponent
            ):
                message = f"a capture is compulsory: {start}-{end} is not allowed; put the {name} back on {start}"
            else:
                same = [p for p in self._table.plans if p.move.start == start and p.move.end == end]
                # A piece the side not to move lifted before this move began is not taken by it.
                taken = removed & self._table.opponent & ~self._disorder(board)[0]
                message = _wrong_move_message(start, end, name, same, taken)
            return _Condition("illegal-move", squares, message, due)
        diff = ref.board ^ board
        fill = squares_of(ref.board & ~board)
        empty = squares_of(board & ~ref.board)
        head = f"{waiting}; " if waiting is not None else "the board does not match the game: "
        out_of_turn = _out_of_turn(position, fill, empty) if waiting is None else None
        message = out_of_turn or head + _sync_parts(fill, empty)
        return _Condition("out-of-sync", tuple(squares_of(diff)), message, due)

    def _refresh(self, now: int) -> list[Event]:
        """Raise the warnings whose condition has arisen and is due; drop the ended ones."""
        # A warning already raised stays up, without repeating, while its condition holds.
        conds = [c for c in self._conditions() if c.due <= now or c.code in self._active]
        events: list[Event] = []
        active: dict[str, BoardWarning] = {}
        for cond in sorted(conds, key=lambda c: _PRIORITY.get(c.code, 99)):
            old = self._active.get(cond.code)
            if old is None:
                warning = BoardWarning(max(cond.due, 0), cond.code, cond.squares, cond.message)
                events.append(warning)
            else:
                warning = BoardWarning(old.t, cond.code, cond.squares, cond.message)
            active[cond.code] = warning
        if active.keys() != self._active.keys() or events:
            self._touch_state()
        self._active = active
        events.sort(key=lambda e: e.t)
        return events

    # -- roles ------------------------------------------------------------------------

    def _view(self, reading: Reading) -> ProgressView:
        cached = self._view_cache
        token = (self._version, id(reading))
        if cached is not None and cached[0] == token:
            return cached[1]
        if reading.kind is Kind.CORRECT_PROGRESS and self._correction is not None:
            occupied = self._correction.occupied
        else:
            occupied = self._table.occupied
        view = view_progress(reading.plans, reading.board, occupied, self._seen)
        self._view_cache = (token, view)
        return view

    def _compute_roles(self) -> dict[int, str]:
        roles: dict[int, str] = {}
        board = self._board
        if self._setup is not None:
            target = self._setup.occupied
            for s in iter_squares(target & ~board):
                roles[s] = Role.MISSING
            for s in iter_squares(board & ~target):
                roles[s] = Role.EXTRA
            return roles
        game = self.game
        position = game.position
        reading = self._reading
        if game.moves and reading.kind in (Kind.IDLE, Kind.CROWNING):
            last = game.moves[-1]
            roles[last.start] = Role.LAST_FROM
            roles[last.end] = Role.LAST_TO
        for s in iter_squares(position.kings & board):
            roles[s] = Role.KING
        if self._expected is not None:
            self._expected_roles(roles, self._expected, board)
        if self._crown is not None:
            roles[self._crown] = Role.CROWN
        kind = reading.kind
        if kind in (Kind.PROGRESS, Kind.CORRECT_PROGRESS):
            self._progress_roles(roles, self._view(reading))
            if kind is Kind.CORRECT_PROGRESS and game.moves:
                # Pieces the last move took off that the corrected move leaves standing.
                jumped = sum_captured(reading.plans)
                for s in iter_squares(game.moves[-1].captured_mask & ~board & ~jumped):
                    roles[s] = Role.MISSING
        elif kind is Kind.RESTORE:
            occupied = position.occupied
            for s in iter_squares(occupied & ~board):
                roles[s] = Role.MISSING
            for s in iter_squares(board & ~occupied):
                roles[s] = Role.EXTRA
        elif kind is Kind.NONE and not self._over:
            ref = self._ref
            if ref.kind in (Kind.PROGRESS, Kind.CORRECT_PROGRESS):
                self._progress_roles(roles, self._view(ref))
            for s in iter_squares(ref.board & ~board):
                roles[s] = Role.MISSING
            for s in iter_squares(board & ~ref.board):
                roles[s] = Role.EXTRA
        elif kind is Kind.IDLE and self.policy.strict_touch_move and self._touched is not None:
            if self._table.movable & bit(self._touched):
                roles[self._touched] = Role.TOUCHED
        if reading.disorder:
            for s in iter_squares(reading.disorder & ~board):
                roles[s] = Role.MISSING
            for s in iter_squares(reading.disorder & board):
                roles[s] = Role.EXTRA
        if not self._is_held(game.turn):
            self._rule.roles(roles)
        fault = self._fault_active()
        if fault is not None:
            for s, role in fault.roles:
                roles[s] = role
        return roles

    @staticmethod
    def _progress_roles(roles: dict[int, str], view: ProgressView) -> None:
        if view.lifted is not None:
            roles[view.lifted] = Role.TOUCHED
        for s in view.first:
            roles[s] = Role.TARGET
        for s in view.next_jumps:
            roles[s] = Role.NEXT_JUMP
        for s in view.ahead:
            roles[s] = Role.CAPTURE
        for s in view.to_remove:
            roles[s] = Role.REMOVE

    @staticmethod
    def _expected_roles(roles: dict[int, str], move: Move, board: int) -> None:
        for s in move.path[1:-1]:
            roles[s] = Role.MOVE_PATH
        roles[move.end] = Role.MOVE_TO
        roles[move.start] = Role.MOVE_FROM
        for s in move.captures:
            if board & bit(s):
                roles[s] = Role.CAPTURE
