"""Playing strengths for beginners: a shallow search plus deliberate, legal mistakes.

Level 1 is a beginner who looks one move ahead and often plays a worse move on purpose;
level 10 is the full engine within its time limit. A mistake is always a legal move and
never a gross one at the higher levels: the engine picks among the moves whose score is
within ``mistake_margin`` of its best. Which mistakes it makes comes from the engine's
seeded random generator, so a game against a level is reproducible.

>>> strength(1).depth, strength(1).mistake_rate
(1, 0.45)
>>> strength(10).depth is None
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Strength:
    """One playing level."""

    level: int
    #: Search depth in plies (forced captures are always searched through); None: no limit.
    depth: int | None
    #: Chance of a deliberate mistake on any one move.
    mistake_rate: float
    #: A mistake is chosen among moves at most this much (centi-men) worse than the best.
    mistake_margin: int
    #: Time cap per move even when the depth is not reached, in milliseconds.
    movetime_ms: int
    #: Whether to play openings from the ACF ballot deck for variety.
    book: bool = True


LEVELS: tuple[Strength, ...] = (
    Strength(1, depth=1, mistake_rate=0.45, mistake_margin=400, movetime_ms=200),
    Strength(2, depth=2, mistake_rate=0.35, mistake_margin=300, movetime_ms=200),
    Strength(3, depth=2, mistake_rate=0.25, mistake_margin=200, movetime_ms=300),
    Strength(4, depth=3, mistake_rate=0.20, mistake_margin=150, movetime_ms=300),
    Strength(5, depth=4, mistake_rate=0.15, mistake_margin=100, movetime_ms=500),
    Strength(6, depth=5, mistake_rate=0.10, mistake_margin=70, movetime_ms=500),
    Strength(7, depth=6, mistake_rate=0.06, mistake_margin=50, movetime_ms=1000),
    Strength(8, depth=8, mistake_rate=0.03, mistake_margin=30, movetime_ms=1000),
    Strength(9, depth=12, mistake_rate=0.0, mistake_margin=0, movetime_ms=2000),
    Strength(10, depth=None, mistake_rate=0.0, mistake_margin=0, movetime_ms=3000),
)

MIN_LEVEL = LEVELS[0].level
MAX_LEVEL = LEVELS[-1].level


def strength(level: int | Strength) -> Strength:
    """The :class:`Strength` for ``level`` 1-10 (a Strength is passed through)."""
    if isinstance(level, Strength):
        return level
    if isinstance(level, bool) or not isinstance(level, int) or not (MIN_LEVEL <= level <= MAX_LEVEL):
        raise ValueError(f"strength {level!r} is not a level ({MIN_LEVEL}-{MAX_LEVEL})")
    return LEVELS[level - MIN_LEVEL]


__all__ = ["LEVELS", "MAX_LEVEL", "MIN_LEVEL", "Strength", "strength"]
