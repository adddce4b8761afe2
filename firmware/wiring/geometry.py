"""The board's dimensions, in millimetres, that the build files are drawn from.

One square size decides everything else: the dark squares' centres (the reed switch
stands upright at each, the LED beside it), the length of every bus and cable, the
size of the drill template. The board is seen from above, Black's side (rank 8) at the
top and file a on the left, as in every diagram of the game.

>>> g = BoardGeometry()
>>> g.centre(1), g.centre(5)
((95.0, 45.0), (45.0, 95.0))
>>> g.led_centre(1)
(95.0, 59.0)
>>> g.size_mm
440.0
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.squares import square_to_cell

__all__ = ["BoardGeometry", "DEFAULT_SQUARE_MM", "SQUARE_MM_RANGE"]

DEFAULT_SQUARE_MM = 50.0
#: Squares from a travel set to a big club board.
SQUARE_MM_RANGE = (30.0, 80.0)


@dataclass(frozen=True)
class BoardGeometry:
    """Where things go on a board with ``square_mm`` squares (all lengths in mm)."""

    square_mm: float = DEFAULT_SQUARE_MM
    #: The frame around the 8 x 8 squares.
    border_mm: float = 20.0
    #: The reed switch stands upright in this hole at the square's centre, its upper lead
    #: bent back down beside the glass to the stripboard strip next to it (one strip,
    #: 2.54 mm, away): the hole takes the glass and that lead side by side.
    reed_hole_mm: float = 5.0
    #: The widest reed glass the hole is made for (Comus MKA-14103: 2.2 mm; most 10-15 mm
    #: reeds are 1.8-2.5 mm across) and its leads (0.5-0.6 mm).
    reed_glass_mm: float = 2.5
    reed_lead_mm: float = 0.6
    #: The LED beside it: a hole for its light through the sheet it sits under.
    led_hole_mm: float = 5.0
    #: The LED's centre from the square's centre, towards White (down the board).
    led_offset_mm: float = 14.0
    #: The controller bay beside the board, at the a-file edge: the Pi or the Pico, the
    #: level shifter, the buttons' cable ends.
    bay_mm: float = 80.0

    def __post_init__(self) -> None:
        lo, hi = SQUARE_MM_RANGE
        if not lo <= self.square_mm <= hi:
            raise ValueError(f"square size must be {lo:g}-{hi:g} mm, got {self.square_mm:g}")
        reach = self.led_offset_mm + self.led_hole_mm / 2
        if reach > self.square_mm / 2 - 2 or self.led_offset_mm - self.led_hole_mm / 2 < self.reed_hole_mm / 2 + 2:
            raise ValueError(
                f"the LED ({self.led_hole_mm:g} mm hole, {self.led_offset_mm:g} mm from the centre) "
                f"does not fit beside the reed in a {self.square_mm:g} mm square"
            )

    @classmethod
    def for_square(cls, square_mm: float) -> BoardGeometry:
        """The geometry of a board with ``square_mm`` squares: the LED keeps its place
        within the square, 28 % of the square from the centre.

        >>> BoardGeometry.for_square(57).led_offset_mm
        15.96
        """
        return cls(square_mm=square_mm, led_offset_mm=round(square_mm * 0.28, 2))

    @property
    def size_mm(self) -> float:
        """The board's outer size, frame included (it is square)."""
        return 8 * self.square_mm + 2 * self.border_mm

    def cell_centre(self, row: int, col: int) -> tuple[float, float]:
        """Centre of the square in ``row`` (0 = rank 8) and ``col`` (0 = file a)."""
        return (
            self.border_mm + (col + 0.5) * self.square_mm,
            self.border_mm + (row + 0.5) * self.square_mm,
        )

    def centre(self, square: int) -> tuple[float, float]:
        """Centre of dark square ``square`` (1-32): where its reed switch stands."""
        return self.cell_centre(*square_to_cell(square))

    def led_centre(self, square: int) -> tuple[float, float]:
        x, y = self.centre(square)
        return x, y + self.led_offset_mm
