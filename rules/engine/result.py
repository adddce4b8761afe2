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


__all__ = ["Clock", "EngineState", "SearchResult", "SearchTimeout", "monotonic_ms", "worth_another"]
