"""How a settled board reads against the game: a :class:`Kind` and the moves it fits.

The tracker reads every settled board into a :class:`Reading`; a turn rule
(:mod:`crownhead.firmware.tracking.rule`) may read a board its own way (a huff).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crownhead.firmware.tracking.table import Plan

__all__ = ["COMMITTABLE", "Kind", "Reading"]


class Kind(enum.Enum):
    """How a settled board reads against the game."""

    IDLE = "idle"  #: the position itself
    COMPLETE = "complete"  #: the result of a legal move (pending settle)
    PROGRESS = "progress"  #: part-way through legal moves
    CROWNING = "crowning"  #: the man just crowned is off its square (being swapped for a king)
    TAKEBACK = "takeback"  #: the position before the last move (pending settle)
    CORRECT_COMPLETE = "correct-complete"  #: the last move redone differently (pending settle)
    CORRECT_PROGRESS = "correct-progress"  #: the last move being redone
    RESTORE = "restore"  #: to be put back: a move taken back by button, or a game resumed
    HUFF = "huff"  #: under huffing: a piece that missed a jump taken off (pending settle)
    NONE = "none"  #: no legal reading: an illegal move or a board out of sync


#: Readings that are accepted once they have settled (or when the board moves on).
COMMITTABLE = (Kind.COMPLETE, Kind.TAKEBACK, Kind.CORRECT_COMPLETE, Kind.HUFF)


@dataclass(frozen=True, slots=True)
class Reading:
    """A board read against the game: its :class:`Kind` and the moves it fits."""

    kind: Kind
    board: int
    plans: tuple[Plan, ...] = ()
    #: A COMPLETE board that is also part-way through another move: wait patience_ms.
    also_progress: bool = False
    #: Squares read as they should be although they are not: pieces of the side not to
    #: move that left their squares (or were put on others) before the side to move lifted
    #: anything. The board was read without them; they are out-of-sync guidance only.
    disorder: int = 0
