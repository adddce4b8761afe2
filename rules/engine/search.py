"""The search: iterative deepening negamax with principal variation search.

Each iteration searches one ply deeper than the last, so a legal move (the best of the
last finished iteration) is always ready when time runs out; the first iteration, one
ply deep, finishes almost at once. Within an iteration:

* **Forced captures are searched through**: at the horizon, a side that must capture
  keeps capturing before the position is evaluated (with optional captures, a
  quiescence search looks at the captures but may also stand pat). A move that is the
  only legal one does not use up depth. A side at the horizon with a piece under
  attack gets one more ply of every move (``Engine.threats``): whether it can save
  the piece decides the score more than anything the evaluation sees.
* **The table's move first, before generating**: it is this position's move, so it is
  played at once; when it cuts off, as it usually does, the other moves are never
  generated. Whether a capture is on, and how many moves there are, are read from
  whole-board shifts first.
* **Transposition table** keyed by Zobrist keys, updated incrementally move by move;
  its best move is tried first.
* **Move ordering**: the table's move, then captures (more pieces first), then the two
  killer moves of the ply, then quiet moves by their history score.
* **Late move reductions**: with good ordering the best move is nearly always among
  the first few, so the later quiet moves are first searched a ply shallower (with a
  null window) and searched in full only when that suggests they are better. Captures,
  killers and the first moves are never reduced.
* **Repetition**: a position that would stand on the board for the third time
  (twice in the game's ``history``), or that comes back on the line being searched,
  scores as a draw. A position that stood once in the game scores as a draw when the
  searching side goes back to it (a side ahead makes progress rather than mark time),
  but not when its opponent does: that is no draw yet, and counting it as one made
  every winning plan that lets the defender revisit a square look drawn.
* **Mate distance**: a win in ``n`` plies bounds what any longer line can be worth, so
  once a win is found the rest of the tree is cut down to shorter ones: the winning
  side takes the shortest win, and the losing side the longest loss.
* **The 40-move rule**: the plies since a man moved or a piece was taken are counted
  from the game's history on down the tree; a line reaching 80 of them is a draw, so a
  winning side makes progress in time.
* **Endgame databases** (``Engine(egdb=...)``, see :mod:`crownhead.rules.engine.egdb`): a position
  with few enough pieces gets its exact value, won or lost in so many plies or drawn,
  without searching below it (English rules with compulsory captures only). When
  every root move leads to such a value (or to a repetition, or the 40-move rule),
  one iteration gives the exact scores and the search answers at once.
* **Tables without distances** (win/draw/loss tables, what ships for five and six
  pieces): a won position scores :data:`TABLE_WIN` plus the evaluation (within
  :data:`PROGRESS_CAP`), below any win in a known number of plies and above any
  evaluation, so a winning side goes for the wins it can count and otherwise for the
  won position the evaluation likes best: more material against less, fewer pieces,
  men crowned, the defending kings driven. When the root itself is in the tables, only
  the moves that keep its result are searched, and a won (or lost) position below it is
  searched on to the horizon instead of being scored at once: one that does no more
  than stay won would mark time until a repetition or the 40-move rule drew it.
* **Time**: the clock is read every 128 nodes; when the deadline passes the search stops
  at once and the best move so far is returned (the best of the moves the unfinished
  iteration got through, the previous best among them, searched first). A new
  iteration starts while the time left is at least a third of what it is expected to
  take (the last one's time, times how much iterations grew over the last two), so the
  budget is used; with a hard limit beyond it (``max_movetime_ms``) a move whose best
  changes between iterations, or whose score falls, gets up to twice the budget
  (:class:`~crownhead.rules.engine.result.TimeManager`; ``Engine.time_policy =
  "classic"``: the policy before, which wanted half an iteration's time left). A node
  budget (``nodes=``) stops the search the same way, for runs that must not depend on
  the machine. A search leaves no reference cycle behind: Python's cycle collector,
  coming round to one inside a later search, spent up to 90 ms there freeing what it
  held, past any deadline.

Scores are from the side to move's view in centi-men; a won position scores
``WIN - plies`` (a loss ``-WIN + plies``), counting plies to the end of the game.

>>> from crownhead.rules.position import Position
>>> engine = Engine()
>>> result = engine.search(Position.start(), depth=4)
>>> result.move in Position.start().legal_moves(WCDF), result.depth
(True, 4)
>>> engine.search(Position.from_fen("W:W:B1")).move is None  # White has no pieces
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TypedDict, Unpack

from crownhead.rules import movegen
from crownhead.rules.engine import general, native, zobrist
from crownhead.rules.engine.book import MasterBook, OpeningBook
from crownhead.rules.engine.evaluation import evaluate_boards
from crownhead.rules.engine.egdb import WON, EndgameProbe, outcome
from crownhead.rules.engine.levels import Strength, strength as strength_of
from crownhead.rules.engine.result import (
    TIME_POLICIES,
    Clock,
    SearchResult,
    SearchTimeout,
    TimeManager,
    monotonic_ms,
    worth_another,
)
from crownhead.rules.engine.tt import (
    EXACT,
    LOWER,
    UPPER,
    WIN,
    WIN_THRESHOLD,
    SearchTable,
    TranspositionTable,
)
from crownhead.rules.game import FORTY_MOVES_PLIES, Game
from crownhead.rules.move import Move
from crownhead.rules.position import Color, Position
from crownhead.rules.settings import WCDF, Rules
from crownhead.rules.movegen import EVEN_NOT_H, ODD_NOT_A
from crownhead.squares import EVEN_ROWS, FULL, ODD_ROWS, bit, mask_of
from crownhead.rules.move import BLACK_CROWN_ROW, WHITE_CROWN_ROW

#: Used when neither a time, a depth nor a strength is given.
DEFAULT_MOVETIME_MS = 1000
#: Iterations never go deeper than this (small endgames would otherwise go on for ever).
MAX_DEPTH = 64
#: Deepest ply from the root the search reaches (depth plus extensions).
MAX_PLY = 256
#: Read the clock whenever the node count is a multiple of this plus one.
CHECK_EVERY = 128
#: Quiet moves after this many in a node are searched a ply shallower first.
LATE_MOVES = 3
INFINITY = WIN + 1
#: The table values an engine keeps (see Engine.table_values); about 5 MB when full.
TABLE_VALUES = 1 << 16
_UNPROBED = -1
#: A position a win/draw/loss table calls won scores this plus its evaluation: below
#: any win counted in plies (``WIN_THRESHOLD`` and up), above any evaluation.
TABLE_WIN = 8_000
#: The evaluation added to :data:`TABLE_WIN` is kept within this.
PROGRESS_CAP = 900
#: Scores from here up are wins of the tables or counted in plies: no aspiration there.
NEAR_TABLES = TABLE_WIN - PROGRESS_CAP
#: The aspiration window either side of the last iteration's score (Engine.aspiration):
#: 0, none. Measured on 26 ballots to depth 13 (native): 25,240,167 nodes without,
#: 24,724,066 (-2%) with 25, 25,306,862 with 15, 27,314,643 with 50: no gain beyond
#: what a change of move order does, so it stays off (docs/engine.md).
ASPIRATION = 0


class GameLimits(TypedDict, total=False):
    """The limits of :meth:`Engine.search` for a search whose history is the game's."""

    movetime_ms: float | None
    max_movetime_ms: float | None
    depth: int | None
    strength: int | Strength | None
    book: bool | None
    deadline_ms: float | None
    quiet_plies: int | None


class SearchLimits(GameLimits, total=False):
    """The limits of :meth:`Engine.search`, for the functions that pass them on."""

    history: Iterable[Position] | None


def _jump_lists(directions: tuple[int, ...]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """Per square (1-32; 0 unused), the jumps along ``directions``: (jumped bit,
    landing bit, landing square)."""
    out: list[tuple[tuple[int, int, int], ...]] = [()]
    for square in range(1, 33):
        jumps = []
        for d in directions:
            jump = movegen.JUMPS[d][square]
            if jump is not None:
                jumps.append((jump[0], jump[1], jump[3]))
        out.append(tuple(jumps))
    return tuple(out)


_KING_JUMPS = _jump_lists(movegen.ALL_DIRECTIONS)
_BLACK_MAN_JUMPS = _jump_lists(movegen.BLACK_MAN_DIRECTIONS)
_WHITE_MAN_JUMPS = _jump_lists(movegen.WHITE_MAN_DIRECTIONS)


def capture_moves(
    own: int, opp: int, kings: int, black: bool, men_backward: bool = False
) -> list[tuple[int, int, int]]:
    """Every capture of the side to move as (from bit, to bit, jumped bits), one per
    route (:func:`crownhead.rules.movegen.capture_routes` without the squares in between, which
    the search does not need).

    >>> from crownhead.squares import squares_of
    >>> [(f.bit_length(), t.bit_length(), squares_of(c)) for f, t, c in capture_moves(
    ...     bit(14), bit(18) | bit(27), 0, True)]  # 14x23x32: crowned, the move ends
    [(14, 32, [18, 27])]
    """
    out: list[tuple[int, int, int]] = []
    empty = ~(own | opp) & FULL
    # movegen.jumpers inlined: the pieces moving towards the higher squares and the
    # lower that have an opponent next to them with an empty square behind.
    if men_backward:
        south = north = own
    elif black:
        south, north = own, own & kings
    else:
        south, north = own & kings, own
    pieces = 0
    if south:
        t = opp & ((empty & EVEN_NOT_H) >> 3 | (empty & ODD_ROWS) >> 4)
        pieces = south & ((t & EVEN_NOT_H) >> 3 | (t & ODD_ROWS) >> 4)
        t = opp & ((empty & EVEN_ROWS) >> 4 | (empty & ODD_NOT_A) >> 5)
        pieces |= south & ((t & EVEN_ROWS) >> 4 | (t & ODD_NOT_A) >> 5)
    if north:
        t = opp & ((empty & EVEN_NOT_H) << 5 | (empty & ODD_ROWS) << 4)
        pieces |= north & ((t & EVEN_NOT_H) << 5 | (t & ODD_ROWS) << 4)
        t = opp & ((empty & EVEN_ROWS) << 4 | (empty & ODD_NOT_A) << 3)
        pieces |= north & ((t & EVEN_ROWS) << 4 | (t & ODD_NOT_A) << 3)
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    man_jumps = _KING_JUMPS if men_backward else (_BLACK_MAN_JUMPS if black else _WHITE_MAN_JUMPS)
    append = out.append
    while pieces:
        start = pieces & -pieces
        pieces ^= start
        if start & kings:
            table = _KING_JUMPS
            crown = 0
        else:
            table = man_jumps
            crown = crown_row
        # The jumper's square is empty while it jumps (a king may come back to it);
        # the pieces it jumps stay on the board until the move ends (WCDF 1.19).
        free = empty | start
        stack = [(start.bit_length(), 0)]
        while stack:
            square, taken = stack.pop()
            extended = False
            for over, land, land_square in table[square]:
                if over & opp and not over & taken and land & free:
                    extended = True
                    if land & crown:
                        append((start, land, taken | over))  # crowned: the move ends
                    else:
                        stack.append((land_square, taken | over))
            if not extended and taken:
                append((start, 1 << (square - 1), taken))
    return out


#: Bytes of a slot of the native core's table (rules/engine/_native.c, ``Entry``).
NATIVE_SLOT_BYTES = 24


def table_slots(mb: float) -> int:
    """The slots of a transposition table of at most ``mb`` MB (of the native core's
    24-byte slots; the Python table takes the same number of slots, and several times
    the memory): the default 1 << 18 is 6 MB, room for a Pi Zero 2's 512 MB.

    >>> table_slots(6), table_slots(100) * NATIVE_SLOT_BYTES / 2**20
    (262144, 96.0)
    """
    if not mb > 0:
        raise ValueError(f"a transposition table needs some memory, not {mb} MB")
    slots = int(mb * 2**20) // NATIVE_SLOT_BYTES
    return 1 << max(0, slots.bit_length() - 1)


def _no_table(own: int, opp: int, kings: int, black: bool) -> int | None:
    """No endgame table: nothing is known."""
    return None


def move_id(move: Move) -> int:
    """The integer the search uses for a move: from, to and captured squares as bits."""
    return bit(move.start) | bit(move.end) << 32 | mask_of(move.captures) << 64


class Engine:
    """A checkers engine for one set of rules; keep one per game to reuse what it learnt.

    ``clock`` returns milliseconds (``MonotonicClock().now_ms`` or a test's
    ``VirtualClock().now_ms`` fit); ``seed`` fixes the choices of the strength levels and
    of the opening book, so games are reproducible. ``tt_size`` (slots) or ``tt_mb``
    (memory) sizes the transposition table; ``native_core`` chooses the search's walker
    (see :mod:`crownhead.rules.engine.native`: the same tree either way).
    """

    def __init__(
        self,
        rules: Rules = WCDF,
        *,
        tt_size: int = 1 << 18,
        tt_mb: float | None = None,
        clock: Clock | None = None,
        seed: int | None = 0,
        egdb: EndgameProbe | None = None,
        native_core: bool | None = None,
    ) -> None:
        self.rules = rules
        #: Endgame databases to probe (see :mod:`crownhead.rules.engine.egdb`); None: search only.
        #: Probed only under rules they were built for (compulsory captures, men
        #: capturing forward only).
        self.egdb = egdb
        #: The native search core (``crownhead.rules.engine.native``) when it was built, is wanted
        #: (``native_core``: None follows ``native.choose``, which the crownhead command
        #: and the tests call with ``CROWNHEAD_ENGINE``; True insists, whatever was
        #: chosen, and is an error where the core was not built) and plays these rules;
        #: None: the tree is searched in Python.
        core = native.core() if native_core is None else (native.module() if native_core else None)
        if native_core and core is None:
            raise ValueError(native.describe())
        self.native = core if core is not None and general.plays_fast(rules) else None
        if tt_mb is not None:
            tt_size = table_slots(tt_mb)
        self.tt: SearchTable = self.native.Table(tt_size) if self.native is not None else TranspositionTable(tt_size)
        self.clock: Clock = clock if clock is not None else monotonic_ms
        self.rng = random.Random(seed)
        self.history_scores: dict[int, int] = {}
        self._table_values: dict[int, int | None] = {}
        self._table_values_of: EndgameProbe | None = None
        self._book: OpeningBook | None = None
        self._masters: MasterBook | None = None
        self._verify_keys = False
        #: Late move reductions (see the search's docstring).
        self.reductions = True
        #: One more ply at the horizon when a piece of the side to move is attacked.
        self.threats = True
        #: The root's aspiration window either side of the last score (0: none).
        self.aspiration = ASPIRATION
        #: When a timed search stops (:data:`~crownhead.rules.engine.result.TIME_POLICIES`):
        #: ``budget`` (:class:`~crownhead.rules.engine.result.TimeManager`) or ``classic``,
        #: the policy before it, kept for comparisons (bench/timeuse.py).
        self.time_policy = "budget"

    @property
    def verify_keys(self) -> bool:
        """Tests set this to recompute every key in the tree from scratch and compare,
        and to check the search's inlined capture and mobility tests against movegen.
        It checks the Python search: an engine on the native core turns to it (with a
        table of its own; the native core is held to the Python search's trees by
        tests/test_native.py instead)."""
        return self._verify_keys

    @verify_keys.setter
    def verify_keys(self, on: bool) -> None:
        self._verify_keys = on
        if on and self.native is not None:
            self.native = None
            self.tt = TranspositionTable(len(self.tt))

    def new_game(self) -> None:
        """Forget everything learnt in earlier searches (table, history scores)."""
        self.tt.clear()
        self.history_scores.clear()
        if self.native is not None and isinstance(self.tt, self.native.Table):
            self.tt.clear_history()  # the native core keeps its own history scores
        self._table_values.clear()

    def table_values(self, probe: EndgameProbe | None) -> dict[int, int | None]:
        """The values ``probe`` gave for positions met so far, by Zobrist key (kept
        across searches; forgotten when the probe changes)."""
        if probe is not self._table_values_of:
            self._table_values = {}
            self._table_values_of = probe
        return self._table_values

    def reseed(self, seed: int | None) -> None:
        self.rng.seed(seed)

    @property
    def book(self) -> OpeningBook:
        if self._book is None:
            self._book = OpeningBook(self.rules)
        return self._book

    @property
    def masters(self) -> MasterBook:
        """The master games' opening moves (``book=True`` at full strength)."""
        if self._masters is None:
            self._masters = MasterBook(self.rules)
        return self._masters

    # -- the public calls -------------------------------------------------------------

    def search(
        self,
        position: Position,
        *,
        movetime_ms: float | None = None,
        depth: int | None = None,
        strength: int | Strength | None = None,
        history: Iterable[Position] | None = None,
        book: bool | None = None,
        deadline_ms: float | None = None,
        quiet_plies: int | None = None,
        nodes: int | None = None,
        exclude: Iterable[Move] = (),
        max_movetime_ms: float | None = None,
    ) -> SearchResult:
        """Search ``position`` and return the best move found.

        Limits combine: the search stops at whichever of ``movetime_ms``, ``deadline_ms``
        (a time on this engine's clock) and ``depth`` comes first. With a ``strength``
        (1-10, see :mod:`crownhead.rules.engine.levels`) the level's depth and time cap apply as
        well and the move may be a deliberate mistake. With none of these the search
        runs for :data:`DEFAULT_MOVETIME_MS`. ``history`` holds the positions that came
        before in the game, oldest first, for telling repetitions and counting towards
        the 40-move rule (``quiet_plies``, the plies since a man moved or a piece was
        taken, overrides that count). ``book`` plays a book move when there is one
        (default: only with a strength): a ballot-deck move at a strength, for
        variety, else the master games' (weighted by their results), then the deck's. ``nodes`` caps the positions
        searched: a limit that does not depend on the machine or its load, for
        comparing versions of the engine move for move. ``exclude``: root moves left out
        (the second best move is the best of the others: ``crownhead analyse --lines``);
        with every move left out the result has no move, and no book move is played.

        Time (``Engine.time_policy`` ``budget``, see
        :class:`~crownhead.rules.engine.result.TimeManager`): the search uses its whole
        ``movetime_ms``, starting another iteration while a good part of it is expected
        to fit. ``max_movetime_ms`` (at least ``movetime_ms``) is a hard limit further
        on: a move whose best changes between iterations, or whose score falls, may
        take up to twice ``movetime_ms`` within it. Without it ``movetime_ms`` is never
        passed (by more than the nodes between two reads of the clock), nor is
        ``deadline_ms`` ever.
        """
        started = self.clock()
        level = strength_of(strength) if strength is not None else None
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be 1 or more, not {depth}")
        if movetime_ms is not None and movetime_ms <= 0:
            raise ValueError(f"movetime_ms must be positive, not {movetime_ms}")
        if nodes is not None and nodes < 1:
            raise ValueError(f"nodes must be 1 or more, not {nodes}")
        if max_movetime_ms is not None and max_movetime_ms <= 0:
            raise ValueError(f"max_movetime_ms must be positive, not {max_movetime_ms}")
        if self.time_policy not in TIME_POLICIES:
            raise ValueError(f"time_policy is one of {TIME_POLICIES}, not {self.time_policy!r}")
        max_depth = depth if depth is not None else MAX_DEPTH
        budget = movetime_ms
        if level is not None:
            if level.depth is not None:
                max_depth = min(max_depth, level.depth)
            budget = level.movetime_ms if budget is None else min(budget, level.movetime_ms)
        if budget is None and depth is None and deadline_ms is None and nodes is None:
            budget = DEFAULT_MOVETIME_MS
        deadline = deadline_ms
        hard = deadline
        if budget is not None:
            end = started + budget
            deadline = end if deadline is None else min(deadline, end)
            # The hard limit: max_movetime_ms when given (never below the budget), and
            # deadline_ms always.
            hard = started + max(budget, max_movetime_ms) if max_movetime_ms is not None else deadline
            if deadline_ms is not None:
                hard = min(hard, deadline_ms)
            if level is not None:
                hard = min(hard, started + level.movetime_ms)  # a level's time is its cap

        if not general.plays_fast(self.rules):
            # Flying kings, giveaway, huffing...: the general search (no English book).
            return general.search(
                self,
                position,
                max_depth=max_depth,
                deadline=deadline,
                history=history,
                level=level,
                started=started,
                max_nodes=nodes,
                exclude=exclude,
            )
        legal = position.legal_moves(self.rules)
        if not legal:
            return SearchResult(None, -WIN, 0, 0, self._since(started), ())
        left_out = set(exclude)
        if left_out:
            legal = [m for m in legal if m not in left_out]
            if not legal:
                return SearchResult(None, -WIN, 0, 0, self._since(started), ())
            book = False
        use_book = book if book is not None else (level is not None and level.book)
        if use_book:
            # The levels draw ballots, for variety; full strength plays the masters'
            # moves (then the ballots, where the masters' games did not go).
            choice = self.masters.choose(position, self.rng) if level is None else None
            if choice is None:
                choice = self.book.choose(position, self.rng)
            if choice is not None:
                return SearchResult(choice, 0, 0, 0, self._since(started), (choice,))

        if quiet_plies is None:
            quiet_plies = quiet_plies_of(history, position)
        run = _Run(self, position, legal, history, deadline, started, quiet_plies, nodes, hard)
        want_scores = level is not None and level.mistake_rate > 0
        best, score, done = run.iterate(max_depth, all_scores=want_scores)
        chosen = best
        if want_scores and level is not None and run.root_scores and self.rng.random() < (level.mistake_rate):
            chosen = self._mistake(run, best, score, level)
        pv = (chosen,) if chosen != best else run.principal_variation(best)
        chosen_score = score if chosen == best else run.root_scores.get(chosen, score)
        return SearchResult(chosen, chosen_score, done, run.nodes, self._since(started), pv)

    def best_move(self, position: Position, **limits: Unpack[SearchLimits]) -> Move | None:
        """Just the move of :meth:`search` (None when there is no legal move)."""
        return self.search(position, **limits).move

    def hint(self, game: Game, **limits: Unpack[GameLimits]) -> Move | None:
        """The best move for the side to move in ``game``, repetitions taken into account.

        Without limits a hint searches for :data:`DEFAULT_MOVETIME_MS`.
        """
        if game.rules != self.rules:
            raise ValueError(f"this engine plays {self.rules.describe()}, the game {game.rules.describe()}")
        return self.search(game.position, history=game.positions[:-1], **limits).move

    # -- helpers -------------------------------------------------------------------------

    def _since(self, started: float) -> int:
        return max(0, round(self.clock() - started))

    def _mistake(self, run: _Run, best: Move, best_score: int, level: Strength) -> Move:
        floor = best_score - level.mistake_margin
        others = [
            m
            for m, s in sorted(run.root_scores.items(), key=lambda kv: -kv[1])
            if m != best and s >= floor and s > -WIN_THRESHOLD
        ]
        if not others:
            return best
        return self.rng.choice(others)


def quiet_plies_of(history: Iterable[Position] | None, position: Position) -> int:
    """Plies in a row, up to ``position``, in which no man moved and nothing was taken.

    >>> a, b, c = (Position.from_fen(f) for f in ("B:WK30:BK5,9", "W:WK30:BK1,9", "B:WK26:BK1,9"))
    >>> quiet_plies_of([a, b], c)
    2
    >>> quiet_plies_of([Position.from_fen("W:WK30:BK1,5"), b], c)  # the man moved 5-9
    1
    """
    positions = [*(history or ()), position]
    count = 0
    for before, after in zip(reversed(positions[:-1]), reversed(positions[1:])):
        same_men = (
            before.black & ~before.kings == after.black & ~after.kings
            and before.white & ~before.kings == after.white & ~after.kings
        )
        taken = (before.black | before.white).bit_count() != (after.black | after.white).bit_count()
        if not same_men or taken:
            break
        count += 1
    return count


class _Run:
    """One search: the root moves, the counters and the recursive tree walk."""

    def __init__(
        self,
        engine: Engine,
        position: Position,
        legal: list[Move],
        history: Iterable[Position] | None,
        deadline: float | None,
        started: float,
        quiet: int = 0,
        max_nodes: int | None = None,
        hard: float | None = None,
    ) -> None:
        self.engine = engine
        self.position = position
        #: When the budget runs out, and the limit never passed (see TimeManager).
        self.deadline = deadline
        self.hard = hard if hard is not None else deadline
        self.started = started
        self.max_nodes = max_nodes
        self.nodes = 0
        self._count: Callable[[], int] = lambda: 0
        self._release: Callable[[], None] = lambda: None
        self._set_deadline: Callable[[float | None], None] = lambda _at: None
        self.root_scores: dict[Move, int] = {}
        self.root_key = zobrist.key_of(position)
        # A position that stood twice before in the game would stand a third time: a draw
        # (WCDF 1.32.1), and so is a return within the line searched. One that stood only
        # once before counts as a draw only when the side searching goes back to it: a
        # side that is ahead then makes progress instead of marking time, but it does not
        # take every way its opponent has back to an earlier position for a draw (it is
        # not one yet, and would make every winning plan look drawn).
        seen: dict[int, int] = {}
        for p in history or ():
            k = zobrist.key_of(p)
            seen[k] = seen.get(k, 0) + 1
        self.path: set[int] = {k for k, n in seen.items() if n >= 2}
        self.once: set[int] = {k for k, n in seen.items() if n == 1}
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.quiet = quiet
        engine.tt.new_search()
        # Old history scores still help ordering, but the new search should soon dominate.
        hist = engine.history_scores
        for k in list(hist):
            hist[k] >>= 2
            if not hist[k]:
                del hist[k]
        if engine.native is not None and isinstance(engine.tt, engine.native.Table):
            engine.tt.decay_history()  # the native core keeps its own, the same way
        black = position.turn == Color.BLACK
        self.black = black
        self.own, self.opp = (position.black, position.white) if black else (position.white, position.black)
        self.root = [self._child(m) for m in legal]
        # The root is in the endgame tables (English rules): what is won is searched on
        # below it, not scored at once (see the module's "tables without distances").
        egdb = engine.egdb
        rules = engine.rules
        self.inside_tables = (
            egdb is not None
            and rules.captures_compulsory
            and not rules.men_capture_backward
            and (self.own | self.opp).bit_count() <= egdb.pieces
        )
        self._keep_the_result()
        if self.inside_tables:
            # Scores kept from searches outside the tables, or from lines with other
            # repetitions, cut off won lines as drawn (bench/convert.py measures it).
            engine.tt.clear()
        entry = engine.tt.probe(self.root_key)
        if entry is not None:
            self._bring_first(entry[4])

    def _child(self, move: Move) -> tuple[Move, int, int, int, int, int, int]:
        after = self.position.apply(move, self.engine.rules)
        black = after.turn == Color.BLACK
        own, opp = (after.black, after.white) if black else (after.white, after.black)
        # The 40-move count after the move: a king's plain move adds one.
        quiet = self.quiet + 1 if bit(move.start) & self.position.kings and not move.captures else 0
        return (move, move_id(move), own, opp, after.kings, zobrist.key_of(after), quiet)

    def _decided_at_once(self) -> bool:
        """Whether every root move leads to a position the search scores before looking
        at its moves: a repetition, the 40-move rule, or a value in the endgame tables
        (the order of the tests at the top of the search)."""
        engine = self.engine
        rules = engine.rules
        egdb = engine.egdb if rules.captures_compulsory and not rules.men_capture_backward else None
        if egdb is None:
            return False
        black = not self.black
        known = engine.table_values(egdb)  # the search keeps what it looks up here
        for _move, _mid, own, opp, kings, key, quiet in self.root:
            if key in self.path or key in self.once or quiet >= FORTY_MOVES_PLIES:
                continue
            if (own | opp).bit_count() > egdb.pieces:
                return False
            value = known.get(key, _UNPROBED)
            if value == _UNPROBED:
                value = known[key] = egdb.value(own, opp, kings, black)
            if value is None or (value >= WON and self.inside_tables):
                return False  # a won position without a distance is searched on
        return True

    def _keep_the_result(self) -> None:
        """In a position the tables cover, drop the root moves that would give away its
        result (a win for a draw, a draw for a loss): whatever the search below then
        makes of the rest, the result stands."""
        if not self.inside_tables or len(self.root) < 2:
            return
        egdb = self.engine.egdb
        assert egdb is not None
        known = self.engine.table_values(egdb)
        results = []
        for _move, _mid, own, opp, kings, key, _quiet in self.root:
            value = known.get(key, _UNPROBED)
            if value == _UNPROBED:
                value = known[key] = egdb.value(own, opp, kings, not self.black)
            if value is None:
                return  # a man set on its crowning row: outside the tables
            results.append(-outcome(value))
        best = max(results)
        self.root = [entry for entry, r in zip(self.root, results) if r == best]

    def _bring_first(self, mid: int) -> None:
        for i, entry in enumerate(self.root):
            if entry[1] == mid:
                self.root.insert(0, self.root.pop(i))
                return

    # -- iterative deepening ------------------------------------------------------------

    def iterate(self, max_depth: int, all_scores: bool = False) -> tuple[Move, int, int]:
        """Deepen until a limit; (best move, its score, last finished depth)."""
        engine = self.engine
        clock = engine.clock
        best_move = self.root[0][0]
        best_score = -INFINITY
        done = 0
        # A forced move needs no thought beyond a score; nor do moves that all lead to
        # positions scored before any search below them, which every iteration would
        # score the same.
        limit = 1 if len(self.root) == 1 or self._decided_at_once() else max_depth
        black_child = not self.black
        path = self.path
        root_banned = self.root_key in path
        path.add(self.root_key)
        negamax = self._make_negamax()
        spent: list[float] = []  # time (or nodes) used when each iteration finished
        used: list[int] = []
        manager: TimeManager | None = None
        if self.deadline is not None and engine.time_policy == "budget":
            assert self.hard is not None
            manager = TimeManager(self.started, self.deadline, self.hard)
        for depth in range(1, limit + 1):
            # Aspiration: the score is searched for near the last iteration's, within
            # Engine.aspiration either way; the tree of a narrow window is smaller. When
            # the score falls outside, the iteration is searched again with the whole.
            window = engine.aspiration if depth >= 3 and not all_scores and abs(best_score) < NEAR_TABLES else 0
            low, high = (best_score - window, best_score + window) if window else (-INFINITY, INFINITY)
            failed_high: Move | None = None
            while True:
                alpha = low
                iteration_best: Move | None = None
                iteration_score = -INFINITY
                scores: dict[Move, int] = {}
                outside = False
                try:
                    for i, (move, mid, own, opp, kings, key, quiet) in enumerate(self.root):
                        if i == 0 or all_scores:
                            score = -negamax(
                                own,
                                opp,
                                kings,
                                black_child,
                                key,
                                depth - 1,
                                -high,
                                INFINITY if all_scores else -alpha,
                                1,
                                quiet,
                            )
                        else:
                            score = -negamax(own, opp, kings, black_child, key, depth - 1, -alpha - 1, -alpha, 1, quiet)
                            if score > alpha:
                                score = -negamax(own, opp, kings, black_child, key, depth - 1, -high, -alpha, 1, quiet)
                        scores[move] = score
                        if i == 0 and manager is not None and manager.first_done(depth, score):
                            self._set_deadline(manager.stop_at)  # it fell: time to find better
                        if score >= high or (i == 0 and score <= low):
                            outside = True  # beyond the window: search again with the whole
                            if score >= high:
                                failed_high = move
                                self._bring_first(mid)
                            break
                        if score > iteration_score:
                            iteration_score = score
                            iteration_best = move
                            if score > alpha:
                                alpha = score
                except SearchTimeout:
                    # The previous best is searched first: once it is done, the best of the
                    # moves done in the unfinished iteration is the better informed choice;
                    # one that failed high is better than the previous best.
                    if iteration_best is not None:
                        best_move, best_score = iteration_best, iteration_score
                    elif failed_high is not None:
                        best_move = failed_high
                    timed_out = True
                    break
                if not outside:
                    timed_out = False
                    break
                low, high = -INFINITY, INFINITY
            if timed_out:
                break
            assert iteration_best is not None  # the root has moves, and each got a score
            best_move, best_score, done = iteration_best, iteration_score, depth
            self.root_scores = scores
            # Next iteration: best first, the others in the order of this one's scores.
            self.root.sort(key=lambda entry: -scores[entry[0]])
            self._bring_first(move_id(best_move))
            engine.tt.store(self.root_key, depth, EXACT, best_score, move_id(best_move))
            if abs(best_score) > WIN_THRESHOLD and WIN - abs(best_score) <= depth:
                break  # the end of the game is in sight: deeper search cannot change it
            # Another iteration only when the time (or node budget) left is at least half
            # of what it is expected to take: the previous best, searched first, takes
            # most of an iteration, so it then usually finishes, and whatever is searched
            # stays in the table for the next move.
            if manager is not None:
                if not manager.finished(depth, clock(), best_move, best_score):
                    break
                self._set_deadline(manager.stop_at)
            elif self.deadline is not None:
                now = clock()
                spent.append(now - self.started)
                if not worth_another(spent, self.deadline - self.started):
                    break
            if self.max_nodes is not None:
                used.append(self._count())
                if not worth_another(used, self.max_nodes):
                    break
        if not root_banned:
            path.discard(self.root_key)
        self.nodes = self._count()
        self._release()
        if best_score == -INFINITY:
            # Not even one move finished: score the ready move statically.
            best_score = 0
        return best_move, best_score, done

    def principal_variation(self, first: Move, length: int = 24) -> tuple[Move, ...]:
        """The expected line: ``first`` and then the table's best moves."""
        pv = [first]
        rules = self.engine.rules
        position = self.position.apply(first, rules)
        seen = {self.root_key, zobrist.key_of(position)}
        while len(pv) < length:
            entry = self.engine.tt.probe(zobrist.key_of(position))
            if entry is None or not entry[4]:
                break
            move = next((m for m in position.legal_moves(rules) if move_id(m) == entry[4]), None)
            if move is None:
                break
            pv.append(move)
            position = position.apply(move, rules)
            key = zobrist.key_of(position)
            if key in seen:
                break
            seen.add(key)
        return tuple(pv)

    # -- the tree -------------------------------------------------------------------------

    def _native_negamax(self, core: ModuleType) -> Callable[..., int]:
        """The native core's tree walk for this run, with what the closure below reads."""
        engine = self.engine
        rules = engine.rules
        egdb = engine.egdb if rules.captures_compulsory and not rules.men_capture_backward else None
        searcher = core.Searcher(
            table=engine.tt,
            clock=engine.clock,
            timeout=SearchTimeout,
            path=tuple(self.path),
            # Inside a won ending a position that stood once is no draw (the closure's note).
            once=() if self.inside_tables else tuple(self.once),
            deadline=self.deadline,
            max_nodes=self.max_nodes,
            egdb_value=egdb.value if egdb is not None else None,
            egdb_pieces=egdb.pieces if egdb is not None else 0,
            known=engine.table_values(egdb),
            won=WON,
            table_values=TABLE_VALUES,
            compulsory=rules.captures_compulsory,
            men_backward=rules.men_capture_backward,
            reductions=engine.reductions,
            threats=engine.threats,
            search_won=self.inside_tables,
            # The tables' probe in C where it can read them (else egdb_value is called).
            probe=native.probe_of(egdb) if egdb is not None else None,
        )
        self._count = lambda: searcher.nodes

        def set_deadline(at: float | None) -> None:
            searcher.deadline = at

        self._set_deadline = set_deadline
        negamax: Callable[..., int] = searcher
        return negamax

    def _make_negamax(self) -> Callable[..., int]:
        """The recursive search: the native core's when it was built (the same tree),
        else a Python closure, so the hot loop reads only local names."""
        engine = self.engine
        if engine.native is not None:
            return self._native_negamax(engine.native)
        nodes = 0
        rules = engine.rules
        men_backward = rules.men_capture_backward
        compulsory = rules.captures_compulsory
        tt = engine.tt
        assert isinstance(tt, TranspositionTable), "the Python search keeps its own table"
        slots = tt.slots
        tt_mask = tt.mask
        generation = tt.generation
        history = engine.history_scores
        killers = self.killers
        path = self.path
        once = self.once
        clock = engine.clock
        deadline = self.deadline
        max_nodes = self.max_nodes
        count_quiet = movegen.count_quiet
        evaluate = evaluate_boards
        man_keys = zobrist.MAN
        king_keys = zobrist.KING
        side_key = zobrist.SIDE
        check_mask = CHECK_EVERY - 1
        verify_keys = engine.verify_keys
        reductions = engine.reductions
        threats = engine.threats
        killer_order = 1 << 29
        key_from_boards = zobrist.key_from_boards
        egdb = engine.egdb if compulsory and not men_backward else None
        egdb_pieces = egdb.pieces if egdb is not None else 0
        egdb_value = egdb.value if egdb is not None else _no_table
        known_values = engine.table_values(egdb)
        search_won = self.inside_tables
        if search_won:
            # Inside a won ending a position that stood once before is no draw yet, and
            # the winner may need to pass it again on the way; the search's own path and
            # positions that stood twice still catch marking time.
            once = set()
        cap = PROGRESS_CAP

        def negamax(
            own: int,
            opp: int,
            kings: int,
            black: bool,
            key: int,
            depth: int,
            alpha: int,
            beta: int,
            ply: int,
            quiet: int = 0,
        ) -> int:
            nonlocal nodes
            nodes += 1
            if not nodes & check_mask and (
                (deadline is not None and clock() >= deadline) or (max_nodes is not None and nodes >= max_nodes)
            ):
                raise SearchTimeout
            if verify_keys:
                expected = key_from_boards(own, opp, kings, True) if black else key_from_boards(opp, own, kings, False)
                if key != expected:
                    raise AssertionError(f"key {key:#x} should be {expected:#x}")
            if key in path or (ply & 1 and key in once):
                return 0
            if quiet >= FORTY_MOVES_PLIES:
                return 0  # the 40-move rule: a draw whatever the material
            band = False  # a won (or lost) position of the tables, searched on
            if egdb_pieces and (own | opp).bit_count() <= egdb_pieces:
                # The same positions come back in every iteration: a dictionary look-up
                # instead of an index computed and a block read each time.
                known = known_values.get(key, _UNPROBED)
                if known == _UNPROBED:
                    known = egdb_value(own, opp, kings, black)
                    if len(known_values) >= TABLE_VALUES:
                        known_values.clear()
                    known_values[key] = known
                elif verify_keys and known != egdb_value(own, opp, kings, black):
                    raise AssertionError(f"kept table value wrong: {own:#x} {opp:#x} {kings:#x}")
                if known is not None:
                    # Exact: drawn, or decided ``known - 1`` plies from here (odd: won).
                    if not known:
                        return 0
                    if known < WON:
                        return ply + known - 1 - WIN if known & 1 else WIN - ply - known + 1
                    # Won or lost, in how many plies unknown: scored by how far the
                    # winning side has got, at the horizon, at a repetition, or without
                    # the root in the tables; searched on otherwise.
                    if depth <= 0 or not search_won:
                        score = evaluate(own, opp, kings, black, count_quiet(own, opp, kings, black))
                        score = -cap if score < -cap else cap if score > cap else score
                        return score + TABLE_WIN if known == WON else score - TABLE_WIN
                    band = True
            # Whether any piece can jump, from whole-board shifts (movegen.jumpers inlined:
            # most nodes have no capture, and this is the hottest test of the search).
            empty = ~(own | opp) & FULL
            # The pieces that move (and jump) towards the higher squares and the lower.
            if black:
                south = own
                north = own & kings
            else:
                south = own & kings
                north = own
            if men_backward:
                south = north = own
            can_jump = 0
            if south:
                t = opp & ((empty & EVEN_NOT_H) >> 3 | (empty & ODD_ROWS) >> 4)
                can_jump = south & ((t & EVEN_NOT_H) >> 3 | (t & ODD_ROWS) >> 4)
                t = opp & ((empty & EVEN_ROWS) >> 4 | (empty & ODD_NOT_A) >> 5)
                can_jump |= south & ((t & EVEN_ROWS) >> 4 | (t & ODD_NOT_A) >> 5)
            if north and not can_jump:
                t = opp & ((empty & EVEN_NOT_H) << 5 | (empty & ODD_ROWS) << 4)
                can_jump = north & ((t & EVEN_NOT_H) << 5 | (t & ODD_ROWS) << 4)
                t = opp & ((empty & EVEN_ROWS) << 4 | (empty & ODD_NOT_A) << 3)
                can_jump |= north & ((t & EVEN_ROWS) << 4 | (t & ODD_NOT_A) << 3)
            routes = capture_moves(own, opp, kings, black, men_backward) if can_jump else ()
            if verify_keys:
                if bool(can_jump) != bool(movegen.jumpers(own, opp, kings, black, men_backward)):
                    raise AssertionError(f"capture test wrong: {own:#x} {opp:#x} {kings:#x} {black}")
                expected_routes = sorted(
                    (bit(r[0][0]), bit(r[0][-1]), mask_of(r[1]))
                    for r in movegen.capture_routes(own, opp, kings, black, men_backward)
                )
                if sorted(routes) != expected_routes:
                    raise AssertionError(f"captures wrong: {own:#x} {opp:#x} {kings:#x} {black}")
            stand_pat = False
            static = 0
            if depth <= 0:
                if not routes:
                    # movegen.count_quiet inlined.
                    if men_backward:  # men still step forward only
                        south, north = (own, own & kings) if black else (own & kings, own)
                    mobility = 0
                    if south:
                        mobility = (((south & EVEN_ROWS) << 4 | (south & ODD_NOT_A) << 3) & empty).bit_count() + (
                            ((south & EVEN_NOT_H) << 5 | (south & ODD_ROWS) << 4) & empty
                        ).bit_count()
                    if north:
                        mobility += (((north & EVEN_ROWS) >> 4 | (north & ODD_NOT_A) >> 5) & empty).bit_count() + (
                            ((north & EVEN_NOT_H) >> 3 | (north & ODD_ROWS) >> 4) & empty
                        ).bit_count()
                    if verify_keys and mobility != count_quiet(own, opp, kings, black):
                        raise AssertionError(f"mobility wrong: {own:#x} {opp:#x} {kings:#x}")
                    if not mobility:
                        return ply - WIN
                    if depth < 0 or not compulsory or not threats:
                        return evaluate(own, opp, kings, black, mobility)
                    # At the horizon, but is a piece of ours under attack? Then the
                    # static score is a guess: one more ply of every move settles it.
                    if black:
                        o_south = opp if men_backward else opp & kings
                        o_north = opp
                    else:
                        o_south = opp
                        o_north = opp if men_backward else opp & kings
                    threat = 0
                    if o_south:
                        t = own & ((empty & EVEN_NOT_H) >> 3 | (empty & ODD_ROWS) >> 4)
                        threat = o_south & ((t & EVEN_NOT_H) >> 3 | (t & ODD_ROWS) >> 4)
                        t = own & ((empty & EVEN_ROWS) >> 4 | (empty & ODD_NOT_A) >> 5)
                        threat |= o_south & ((t & EVEN_ROWS) >> 4 | (t & ODD_NOT_A) >> 5)
                    if o_north and not threat:
                        t = own & ((empty & EVEN_NOT_H) << 5 | (empty & ODD_ROWS) << 4)
                        threat = o_north & ((t & EVEN_NOT_H) << 5 | (t & ODD_ROWS) << 4)
                        t = own & ((empty & EVEN_ROWS) << 4 | (empty & ODD_NOT_A) << 3)
                        threat |= o_north & ((t & EVEN_ROWS) << 4 | (t & ODD_NOT_A) << 3)
                    if not threat:
                        return evaluate(own, opp, kings, black, mobility)
                elif not compulsory:
                    mobility = count_quiet(own, opp, kings, black)
                    if mobility:
                        # Captures are optional and the side has other moves: it may
                        # decline every capture, so the static score is a floor.
                        static = evaluate(own, opp, kings, black, mobility)
                        if static >= beta:
                            return static
                        stand_pat = True
                        if static > alpha:
                            alpha = static
            if ply >= MAX_PLY:
                mobility = count_quiet(own, opp, kings, black)
                return evaluate(own, opp, kings, black, mobility)
            # Mate distance: no line from here can end sooner than a loss at this ply or
            # a win at the next, so a shorter win found elsewhere already settles it.
            if alpha < ply - WIN:
                alpha = ply - WIN
                if alpha >= beta:
                    return alpha
            if beta > WIN - ply - 1:
                beta = WIN - ply - 1
                if alpha >= beta:
                    return beta

            alpha_orig = alpha
            hash_mid = 0
            entry = slots[key & tt_mask]
            if entry is not None and entry[0] == key:
                hash_mid = entry[4]
                if entry[1] >= depth:
                    score = entry[3]
                    if score > WIN_THRESHOLD:
                        score -= ply
                    elif score < -WIN_THRESHOLD:
                        score += ply
                    bound = entry[2]
                    if bound == EXACT:
                        return score
                    if bound == LOWER:
                        if score >= beta:
                            return score
                    elif score <= alpha:
                        return score

            side = 0 if black else 1
            own_men = man_keys[side]
            own_kings = king_keys[side]
            opp_men = man_keys[1 - side]
            opp_kings = king_keys[1 - side]
            crown = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW

            # How many moves there are, before generating them: a forced move costs no
            # depth, and a side without a move has lost.
            only_captures = bool(routes) and compulsory or stand_pat
            if only_captures:
                n_moves = len(routes)
            else:
                if men_backward:  # men still step forward only
                    south, north = (own, own & kings) if black else (own & kings, own)
                n_moves = len(routes)
                if south:
                    n_moves += (((south & EVEN_ROWS) << 4 | (south & ODD_NOT_A) << 3) & empty).bit_count() + (
                        ((south & EVEN_NOT_H) << 5 | (south & ODD_ROWS) << 4) & empty
                    ).bit_count()
                if north:
                    n_moves += (((north & EVEN_ROWS) >> 4 | (north & ODD_NOT_A) >> 5) & empty).bit_count() + (
                        ((north & EVEN_NOT_H) >> 3 | (north & ODD_ROWS) >> 4) & empty
                    ).bit_count()
            if not n_moves:
                return ply - WIN if not stand_pat else alpha
            child_depth = depth - 1 if n_moves > 1 else depth

            # The table's move is played before any other move is generated: when it
            # cuts off (the usual case), generating the rest is saved. It is this
            # position's move (the whole key matched), so it is legal here.
            moves: list[tuple[int, int, int, int, int]] = []
            if hash_mid and (not only_captures or hash_mid >> 64):
                moves.append((1 << 40, hash_mid, hash_mid & FULL, hash_mid >> 32 & FULL, hash_mid >> 64))
            generated = False

            path.add(key)
            best = static if stand_pat else -INFINITY
            best_mid = 0
            first = True
            child_black = not black
            late = reductions and child_depth >= 2
            index = 0
            while True:
                if index == len(moves):
                    if generated:
                        break
                    generated = True
                    rest: list[tuple[int, int, int, int, int]] = []
                    append = rest.append
                    for frm, to, taken in routes:
                        mid = frm | to << 32 | taken << 64
                        if mid != hash_mid:
                            append(
                                (
                                    (1 << 30) + (taken.bit_count() << 8) + (taken & kings).bit_count(),
                                    mid,
                                    frm,
                                    to,
                                    taken,
                                )
                            )
                    if not only_captures:
                        k1, k2 = killers[ply]
                        hget = history.get
                        # movegen.quiet_moves inlined: (from, to) of every step, by
                        # direction, each target square's origin found by shifting back.
                        if black:
                            south, north = own, own & kings
                        else:
                            south, north = own & kings, own
                        for targets, back_odd, back_even in (
                            ((((south & EVEN_ROWS) << 4 | (south & ODD_NOT_A) << 3) & empty), 4, 3),
                            ((((south & EVEN_NOT_H) << 5 | (south & ODD_ROWS) << 4) & empty), 5, 4),
                            ((((north & EVEN_ROWS) >> 4 | (north & ODD_NOT_A) >> 5) & empty), -4, -5),
                            ((((north & EVEN_NOT_H) >> 3 | (north & ODD_ROWS) >> 4) & empty), -3, -4),
                        ):
                            while targets:
                                to = targets & -targets
                                targets ^= to
                                shift = back_odd if to & ODD_ROWS else back_even
                                frm = to >> shift if shift > 0 else to << -shift
                                mid = frm | to << 32
                                if mid == hash_mid:
                                    continue
                                if mid == k1:
                                    order = 1 << 29
                                elif mid == k2:
                                    order = (1 << 29) - 1
                                else:
                                    order = hget(mid, 0)
                                append((order, mid, frm, to, 0))
                    if not rest:
                        break
                    rest.sort(reverse=True)
                    moves += rest
                order, mid, frm, to, taken = moves[index]
                if taken:
                    new_own = (own & ~frm) | to
                    new_opp = opp & ~taken
                    if frm & kings:
                        new_kings = (kings & ~(frm | taken)) | to
                        child_key = key ^ own_kings[frm] ^ own_kings[to]
                    elif to & crown:
                        new_kings = (kings & ~taken) | to
                        child_key = key ^ own_men[frm] ^ own_kings[to]
                    else:
                        new_kings = kings & ~taken
                        child_key = key ^ own_men[frm] ^ own_men[to]
                    t = taken
                    while t:
                        cb = t & -t
                        t ^= cb
                        child_key ^= opp_kings[cb] if cb & kings else opp_men[cb]
                    child_quiet = 0
                else:
                    moved = frm | to
                    new_own = own ^ moved
                    new_opp = opp
                    child_quiet = 0
                    if frm & kings:
                        new_kings = kings ^ moved
                        child_key = key ^ own_kings[frm] ^ own_kings[to]
                        child_quiet = quiet + 1
                    elif to & crown:
                        new_kings = kings | to
                        child_key = key ^ own_men[frm] ^ own_kings[to]
                    else:
                        new_kings = kings
                        child_key = key ^ own_men[frm] ^ own_men[to]
                child_key ^= side_key
                if first:
                    score = -negamax(
                        new_opp,
                        new_own,
                        new_kings,
                        child_black,
                        child_key,
                        child_depth,
                        -beta,
                        -alpha,
                        ply + 1,
                        child_quiet,
                    )
                    first = False
                else:
                    if late and index >= LATE_MOVES and order < killer_order and not taken:
                        # A late quiet move is first searched a ply shallower; only if it
                        # then looks better than the best so far is it searched in full.
                        score = -negamax(
                            new_opp,
                            new_own,
                            new_kings,
                            child_black,
                            child_key,
                            child_depth - 1,
                            -alpha - 1,
                            -alpha,
                            ply + 1,
                            child_quiet,
                        )
                        if score > alpha:
                            score = -negamax(
                                new_opp,
                                new_own,
                                new_kings,
                                child_black,
                                child_key,
                                child_depth,
                                -alpha - 1,
                                -alpha,
                                ply + 1,
                                child_quiet,
                            )
                    else:
                        score = -negamax(
                            new_opp,
                            new_own,
                            new_kings,
                            child_black,
                            child_key,
                            child_depth,
                            -alpha - 1,
                            -alpha,
                            ply + 1,
                            child_quiet,
                        )
                    if alpha < score < beta:
                        score = -negamax(
                            new_opp,
                            new_own,
                            new_kings,
                            child_black,
                            child_key,
                            child_depth,
                            -beta,
                            -alpha,
                            ply + 1,
                            child_quiet,
                        )
                index += 1
                if score > best:
                    best = score
                    best_mid = mid
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not taken:
                                slot = killers[ply]
                                if slot[0] != mid:
                                    slot[1] = slot[0]
                                    slot[0] = mid
                                history[mid] = history.get(mid, 0) + depth * depth + 1
                            break
            path.discard(key)

            if best >= beta:
                bound = LOWER
            elif best > alpha_orig:
                bound = EXACT
            else:
                bound = UPPER
            stored = best + ply if best > WIN_THRESHOLD else (best - ply if best < -WIN_THRESHOLD else best)
            if band and not best:
                # Won or lost, yet a draw: a repetition or the 40-move rule below, which
                # depends on the line that led here. Kept, it made later searches, from
                # other lines, see won positions as drawn and mark time.
                return best
            index = key & tt_mask
            old = slots[index]
            if old is None or old[1] <= depth or old[5] != generation or old[0] == key:
                slots[index] = (key, depth, bound, stored, best_mid, generation)
            return best

        def count() -> int:
            return nodes

        def set_deadline(at: float | None) -> None:
            nonlocal deadline
            deadline = at

        def release() -> None:
            # negamax calls itself through this scope: a reference cycle, which kept all
            # the closure holds (a dropped engine's transposition table among it) until
            # Python's cycle collector came round, and freeing it then took up to 90 ms
            # here, inside whatever search was running: a late move (bench/deadline.py).
            nonlocal negamax
            del negamax

        self._count = count
        self._release = release
        self._set_deadline = set_deadline
        return negamax


def score_meaning(score: int, side: Color | None = None, *, tables: bool = False) -> str:
    """What a search's score says, in words: the one place a score becomes words.

    Without ``side``, from the side to move's view (what ``crownhead analyse`` prints):

    >>> score_meaning(-9968), score_meaning(WIN - 1), score_meaning(TABLE_WIN + 35)
    ('loses in 32 plies', 'wins in 1 ply', 'won by the endgame tables (plies not known)')
    >>> score_meaning(135), score_meaning(-40), score_meaning(3)
    ('ahead by 1.35 men', 'behind by 0.40 of a man', 'even')

    With ``side`` (the side to move), naming the side that stands better, as a person
    watching says it (the board's page and display); ``tables``: the score is the endgame
    tables' verdict (``WIN - n``, ``TABLE_WIN`` without a distance, 0 a draw):

    >>> from crownhead.rules import BLACK, WHITE
    >>> score_meaning(-104, WHITE), score_meaning(210, BLACK), score_meaning(-45, BLACK)
    ('Black is a man up', 'Black is two men up', 'White is better by 0.45 of a man')
    >>> score_meaning(-9968, BLACK), score_meaning(160, WHITE), score_meaning(4, WHITE)
    ('White wins in 32 plies', 'White is ahead by 1.60 men', 'Even')
    >>> score_meaning(-TABLE_WIN, BLACK, tables=True), score_meaning(0, WHITE, tables=True)
    ('White wins: the tables say so', 'A draw: the tables say so')
    >>> score_meaning(WIN - 15, WHITE, tables=True)
    'White wins in 15 plies: the tables say so'
    """
    decided = score > WIN_THRESHOLD or score < -WIN_THRESHOLD
    by_tables = not decided and abs(score) >= TABLE_WIN - PROGRESS_CAP
    if side is None:
        if decided:
            plies = WIN - abs(score)
            return f"{'wins' if score > 0 else 'loses'} in {plies} {'ply' if plies == 1 else 'plies'}"
        if by_tables:
            return f"{'won' if score > 0 else 'lost'} by the endgame tables (plies not known)"
        # Within a tenth of a man: even ("level" read as a difficulty, as the problems'
        # levels are).
        if abs(score) < 10:
            return "even"
        men = abs(score) / 100
        return f"{'ahead' if score > 0 else 'behind'} by {men:.2f} {'men' if men > 1 else 'of a man'}"
    better = (side if score > 0 else side.opponent).name.title()
    said = " the tables say so" if tables else ""
    if decided:
        plies = WIN - abs(score)
        return f"{better} wins in {plies} {'ply' if plies == 1 else 'plies'}" + (":" + said if said else "")
    if by_tables or (tables and score != 0):
        return f"{better} wins:" + (said or " the endgame tables say so")
    if tables:
        return "A draw:" + said
    if abs(score) < 10:
        return "Even"
    men = abs(score) / 100
    whole = round(men)
    if 1 <= whole <= 5 and abs(men - whole) <= 0.15:
        count = ("a man", "two men", "three men", "four men", "five men")[whole - 1]
        return f"{better} is {count} up"
    if men < 1:
        return f"{better} is better by {men:.2f} of a man"
    return f"{better} is ahead by {men:.2f} men"


_default_engines: dict[tuple[Rules, bool], Engine] = {}


def _engine_for(rules: Rules) -> Engine:
    which = (rules, native.wanted())  # the environment may turn the native core off
    engine = _default_engines.get(which)
    if engine is None:
        engine = _default_engines[which] = Engine(rules)
    return engine


def best_move(position: Position, rules: Rules = WCDF, **limits: Unpack[SearchLimits]) -> Move | None:
    """The engine's move in ``position`` (None when the side to move has none).

    >>> str(best_move(Position.from_fen("B:W18:B14"), depth=2))
    '14x23'
    """
    return _engine_for(rules).best_move(position, **limits)


def hint(game: Game, **limits: Unpack[GameLimits]) -> Move | None:
    """The side to move's best move in ``game``, for the hint LEDs (None: no legal move).

    Limits as for :meth:`Engine.search`; by default one second of search.
    """
    return _engine_for(game.rules).hint(game, **limits)


__all__ = [
    "DEFAULT_MOVETIME_MS",
    "Engine",
    "SearchResult",
    "best_move",
    "hint",
    "monotonic_ms",
    "move_id",
    "quiet_plies_of",
    "score_meaning",
    "table_slots",
]
