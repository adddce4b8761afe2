"""Which LED of the strip sits under which square.

Strips are chained square to square, so a board is described by where pixel 0 sits
(``origin``: the corner square a8, h8, a1 or h1) and how the chain runs along the
ranks: ``row-major`` (every rank in the same direction, the data line jumping back at
each end) or ``serpentine`` (alternating direction, the usual way to lay one strip).
With 32 pixels the chain visits only the dark squares, in that same order. Anything
else is an explicit list: entry ``i`` names the square under pixel ``i``, as a square
number (dark squares) or an algebraic name such as ``"b7"`` (any square).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crownhead.hal.lights import FrameKey
from crownhead.squares import Cell, cell_to_square, parse_cell, square_name

__all__ = ["LAYOUTS", "ORIGINS", "PixelMap", "cell_order", "build_pixel_map"]

LAYOUTS = ("row-major", "serpentine")
ORIGINS = ("a8", "h8", "a1", "h1")


def cell_order(layout: str, origin: str) -> list[Cell]:
    """All 64 cells in the order the strip visits them."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)} or a list, got {layout!r}")
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {', '.join(ORIGINS)}, got {origin!r}")
    rows = range(8) if origin[1] == "8" else range(7, -1, -1)
    left_to_right = origin[0] == "a"
    order: list[Cell] = []
    for i, row in enumerate(rows):
        ltr = left_to_right if (layout == "row-major" or i % 2 == 0) else not left_to_right
        cols = range(8) if ltr else range(7, -1, -1)
        order.extend((row, col) for col in cols)
    return order


def _key_of_cell(cell: Cell) -> FrameKey:
    sq = cell_to_square(*cell)
    return sq if sq is not None else cell


@dataclass(frozen=True)
class PixelMap:
    """Square -> pixel index for a strip of ``pixels`` LEDs (32 or 64)."""

    pixels: int
    index: dict[FrameKey, int]

    def pixel_of(self, key: FrameKey) -> int | None:
        """The pixel under a (normalized) frame key; None where there is no LED."""
        return self.index.get(key)

    def describe(self) -> list[str]:
        """Square names in strip order, for documentation and wiring checks."""
        names = [""] * self.pixels
        for key, pixel in self.index.items():
            names[pixel] = square_name(key) if isinstance(key, int) else _cell_name(key)
        return names


def _cell_name(cell: Cell) -> str:
    return "abcdefgh"[cell[1]] + str(8 - cell[0])


def _parse_entry(i: int, entry: int | str, pixels: int) -> FrameKey:
    if isinstance(entry, bool):
        raise ValueError(f"entry {i}: expected a square number or name, got {entry!r}")
    if isinstance(entry, int):
        if not 1 <= entry <= 32:
            raise ValueError(f"entry {i}: square number must be 1-32, got {entry}")
        return entry
    if isinstance(entry, str):
        try:
            cell = parse_cell(entry)
        except ValueError:
            raise ValueError(f"entry {i}: {entry!r} is not a square number or name like 'b8'") from None
        key = _key_of_cell(cell)
        if pixels == 32 and not isinstance(key, int):
            raise ValueError(
                f"entry {i}: {entry!r} is a light square; a 32-LED board has LEDs under the dark squares only"
            )
        return key
    raise ValueError(f"entry {i}: expected a square number or name, got {entry!r}")


def build_pixel_map(pixels: int, layout: str | Sequence[int | str] = "row-major", origin: str = "a8") -> PixelMap:
    """Build the map for a 32- or 64-pixel strip. Raises ValueError with the reason."""
    if pixels not in (32, 64):
        raise ValueError(f"pixel count must be 32 or 64, got {pixels!r}")
    if isinstance(layout, str):
        cells = cell_order(layout, origin)
        keys = [_key_of_cell(c) for c in cells]
        if pixels == 32:
            keys = [k for k in keys if isinstance(k, int)]
        return PixelMap(pixels, {k: i for i, k in enumerate(keys)})
    entries = list(layout)
    if len(entries) != pixels:
        raise ValueError(f"an explicit map needs exactly {pixels} entries (one per pixel), got {len(entries)}")
    index: dict[FrameKey, int] = {}
    for i, entry in enumerate(entries):
        key = _parse_entry(i, entry, pixels)
        if key in index:
            name = square_name(key) if isinstance(key, int) else _cell_name(key)
            raise ValueError(f"entry {i}: square {name} already has pixel {index[key]}")
        index[key] = i
    return PixelMap(pixels, index)
