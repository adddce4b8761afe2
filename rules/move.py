"""Moves: the full path a piece takes and the pieces it jumps, with PDN notation.

>>> m = Move((11, 15))
>>> str(m), m.is_capture
('11-15', False)
>>> jump = Move((15, 24, 31), (19, 28))
>>> str(jump), jump.pdn(full=True)
('15x31', '15x24x31')
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.squares import BOTTOM_ROW, TOP_ROW, Square, mask_of

#: Black's men crown on 29-32 (the bottom row), White's on 1-4 (the top row).
BLACK_CROWN_ROW = BOTTOM_ROW
WHITE_CROWN_ROW = TOP_ROW


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the position it was played in."""


class AmbiguousMoveError(ValueError):
    """A short capture such as ``10x26`` that fits more than one capture route."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move as it is played on the board.

    ``path`` is the start square and every square the piece lands on; ``captures`` are the
    squares jumped, in the order they were jumped. Two capture routes with the same start
    and end but different captured pieces are different moves.
    """

    path: tuple[Square, ...]
    captures: tuple[Square, ...] = ()

    @property
    def start(self) -> Square:
        return self.path[0]

    @property
    def end(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    @property
    def captured_mask(self) -> int:
        return mask_of(self.captures)

    def pdn(self, full: bool = False) -> str:
        """PDN text: ``11-15``, ``15x31`` or, with ``full``, every landing: ``15x24x31``."""
        if not self.captures:
            return f"{self.start}-{self.end}"
        if full:
            return "x".join(str(s) for s in self.path)
        return f"{self.start}x{self.end}"

    def __str__(self) -> str:
        return self.pdn()

    def same_route(self, other: Move) -> bool:
        """Equal start, end and captured set: the ``--unique`` notion of sameness."""
        return self.start == other.start and self.end == other.end and set(self.captures) == set(other.captures)
