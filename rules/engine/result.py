"""What both searches share: the result they return, the clock, and the engine's state.

:mod:`crownhead.rules.engine.search` (English checkers on the fast generator) and
:mod:`crownhead.rules.engine.general` (every other rule set) both return a :class:`SearchResult`
and read the same :class:`EngineState`: the rules, the transposition table, the clock,
the random generator of the strength levels and the history scores of quiet moves, and
when to start another iteration (:func:`worth_another`). The
types live here, below both, so that neither search module imports the other's types
(the English one hands other rules to the general one; nothing points back).

>>> SearchResult(None, -WIN, 0, 0, 0).is_loss
True
>>> SearchResult(None, WIN - 7, 5, 100, 3).plies_to_end
7
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from crownhead.rules.engine.tt import WIN, WIN_THRESHOLD, SearchTable
from crownhead.rules.move import Move
from crownhead.rules.settings import Rules

#: A clock in milliseconds (``MonotonicClock().now_ms`` or a test's ``VirtualClock().now_ms``).
Clock = Callable[[], float]


def monotonic_ms() -> float:
    """Milliseconds from :func:`time.monotonic_ns`: the default clock."""
    return time.monotonic_ns() / 1_000_000


#: How much longer each iteration is expected to take than the one before, when the
#: earlier ones do not say, and the bounds put on what they say.
GROWTH, MIN_GROWTH, MAX_GROWTH = 2.0, 1.0, 4.0


def worth_another(marks: list[float] | list[int], budget: float) -> bool:
    """Whether a new iteration should start, given when each finished one ended
    (``marks``, time or nodes since the start) and the whole ``budget``.

    It starts when what is left is at least half of the next iteration's expected cost:
    the last one's, times how much iterations grew over the last two (odd and even
    depths grow by different factors in checkers, so one step alone misleads).
    Searching the previous best move first takes most of an iteration, so that part
    then usually finishes.

    >>> worth_another([10, 20, 40, 80], 100)    # the next would take 80: 20 left
    False
    >>> worth_another([10, 20, 40, 60], 100)    # the next would take about 28: 40 left
    True
    """
    durations = [b - a for a, b in zip([0, *marks[:-1]], marks)]
    last = durations[-1]
    if len(durations) >= 3 and durations[-3] > 0:
        growth = min(max((last / durations[-3]) ** 0.5, MIN_GROWTH), MAX_GROWTH)
    else:
        growth = GROWTH
    return budget - marks[-1] >= last * growth / 2


#: The time policies (``Engine.time_policy``): ``budget`` (:class:`TimeManager`) uses the
#: whole budget and more on unstable moves; ``classic`` is the policy before it (a new
#: iteration while half of its expected time is left, the budget a hard stop), kept
#: selectable for comparing the two (``bench/timeuse.py``).
TIME_POLICIES = ("budget", "classic")
#: A new iteration starts while the time left is at least this share of its expected
#: time (the previous best, searched first, is most of it; what else gets searched may
#: change the move, and stays in the table for the next move).
START_SHARE = 0.3
#: A fall of the score between iterations (centi-men) that earns more time; twice it,
#: twice as much.
DROP = 30
#: The most the nominal budget is stretched by (when the hard limit leaves room).
EXTEND_CAP = 2.0
#: The stretch a changed best move or a fall of :data:`DROP` adds (a fall of twice it,
#: twice this).
EXTEND_STEP = 0.5
#: Iterations shallower than this say too little to earn more time.
MIN_EXTEND_DEPTH = 4
#: Scores from here up (either way) are won or lost positions: no extension on them.
_DECIDED = 7_000


class TimeManager:
    """When an iterative-deepening search stops: the ``budget`` policy.

    ``started``: when the search started on its clock; ``nominal``: when the budget runs
    out; ``hard``: the time never passed (the caller's hard limit: ``max_movetime_ms``
    or ``deadline_ms``; without one, the nominal end). :attr:`stop_at` is the deadline
    the tree checks now; it starts at ``nominal`` and is moved later, up to
    :data:`EXTEND_CAP` times the budget and never past ``hard``, when the best move
    changes between iterations or the score falls (:meth:`finished`), or when the
    previous best move, searched first, falls in the new iteration (:meth:`first_done`).
    A new iteration starts while the time left before :attr:`stop_at` is at least
    :data:`START_SHARE` of what it is expected to take (:func:`worth_another`'s estimate).

    >>> tm = TimeManager(0, 300, 600)
    >>> tm.finished(4, 40, "a", 10), tm.stop_at     # stable: the nominal end
    (True, 300)
    >>> tm.finished(5, 100, "b", 12), tm.stop_at    # the best move changed: 1.5x
    (True, 450.0)
    >>> tm.finished(6, 200, "b", -60), tm.stop_at   # the score fell by 72: 2x, the cap
    (True, 600)
    >>> tm.finished(7, 560, "b", -60)               # the next would take ~450: 40 left
    False
    >>> TimeManager(0, 300, 300).finished(5, 100, "x", -500)   # no room past the budget
    True
    """

    def __init__(self, started: float, nominal: float, hard: float) -> None:
        self.started = started
        self.nominal = min(nominal, hard)
        self.hard = hard
        self.stop_at = self.nominal
        self.stretch = 1.0
        self.marks: list[float] = []
        self.best: object = None
        self.score: int | None = None
        self._first_depth = 0

    def _stretch(self, by: float) -> None:
        self.stretch = min(EXTEND_CAP, self.stretch + by)
        budget = self.nominal - self.started
        self.stop_at = min(self.hard, max(self.stop_at, self.started + budget * self.stretch))

    def _fall(self, score: int) -> float:
        """The stretch a fall from the last iteration's score to ``score`` earns."""
        if self.score is None or abs(self.score) >= _DECIDED or abs(score) >= _DECIDED:
            return 0.0
        fall = self.score - score
        return 2 * EXTEND_STEP if fall >= 2 * DROP else EXTEND_STEP if fall >= DROP else 0.0

    def finished(self, depth: int, now: float, best: object, score: int) -> bool:
        """Iteration ``depth`` finished at ``now`` with ``best`` scoring ``score``:
        whether to start the next one (:attr:`stop_at` may have moved)."""
        if depth >= MIN_EXTEND_DEPTH:
            by = self._fall(score) + (EXTEND_STEP if self.best is not None and best != self.best else 0.0)
            if by:
                self._stretch(by)
        self.best, self.score = best, score
        self.marks.append(now - self.started)
        durations = [b - a for a, b in zip([0.0, *self.marks[:-1]], self.marks)]
        last = durations[-1]
        if len(durations) >= 3 and durations[-3] > 0:
            growth = min(max((last / durations[-3]) ** 0.5, MIN_GROWTH), MAX_GROWTH)
        else:
            growth = GROWTH
        return self.stop_at - now >= last * growth * START_SHARE

    def first_done(self, depth: int, score: int) -> bool:
        """The previous best move, searched first in iteration ``depth``, scored
        ``score``: whether :attr:`stop_at` moved (a fall earns time to find better)."""
        if depth < MIN_EXTEND_DEPTH or depth == self._first_depth:
            return False  # once an iteration (an aspiration window's re-search repeats it)
        self._first_depth = depth
        by = self._fall(score)
        before = self.stop_at
        if by:
            self._stretch(by)
        return self.stop_at != before


class SearchTimeout(Exception):
    """The deadline passed inside the tree: the search unwinds to its root at once."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found.

    ``move`` is None only when the side to move has no legal move (it has lost).
    ``score`` is from the side to move's view in centi-men, or ``WIN - n`` / ``-WIN + n``
    for a game won or lost ``n`` plies from now. ``depth`` is the last iteration that
    finished (0 for a book move or a position without moves), ``ms`` the time used and
    ``pv`` the expected line, starting with ``move``.
    """

    move: Move | None
    score: int
    depth: int
    nodes: int
    ms: int
    pv: tuple[Move, ...] = ()

    @property
    def is_win(self) -> bool:
        return self.score > WIN_THRESHOLD

    @property
    def is_loss(self) -> bool:
        return self.score < -WIN_THRESHOLD

    @property
    def plies_to_end(self) -> int | None:
        """Plies until the game is decided with best play, when the search saw the end."""
        if self.is_win:
            return WIN - self.score
        if self.is_loss:
            return WIN + self.score
        return None


class EngineState(Protocol):
    """What a search reads from the engine that runs it (see :class:`~crownhead.rules.engine.Engine`)."""

    rules: Rules
    tt: SearchTable
    clock: Clock
    rng: random.Random
    #: Quiet move id -> how often it caused a cut-off (move ordering), kept between searches.
    history_scores: dict[int, int]


__all__ = [
    "TIME_POLICIES",
    "Clock",
    "EngineState",
    "SearchResult",
    "SearchTimeout",
    "TimeManager",
    "monotonic_ms",
    "worth_another",
]
