"""Square numbering and board geometry, the only board knowledge the hardware layer has.

Dark squares carry the standard checkers numbers 1-32 (PDN): rows of four from the top,
square 1 = b8, 4 = h8, 5 = a7, 8 = g7, ..., 29 = a1, 32 = g1. A *cell* is any of the
64 squares as ``(row, col)``: row 0 is rank 8 (the top), col 0 is file a. Light squares
exist only as cells; they matter only to 64-LED boards.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "SQUARES",
    "ALL_SQUARES_MASK",
    "Cell",
    "square_to_cell",
    "cell_to_square",
    "is_dark",
    "square_name",
    "cell_name",
    "parse_cell",
    "neighbours",
]

Cell = tuple[int, int]

SQUARES: tuple[int, ...] = tuple(range(1, 33))
ALL_SQUARES_MASK = (1 << 32) - 1
FILES = "abcdefgh"


def _check_square(square: int) -> None:
    if not isinstance(square, int) or isinstance(square, bool) or not 1 <= square <= 32:
        raise ValueError(f"square must be an int 1-32, got {square!r}")


def is_dark(row: int, col: int) -> bool:
    """True for the 32 playing squares (a1 is dark)."""
    return (row + col) % 2 == 1


def square_to_cell(square: int) -> Cell:
    """The ``(row, col)`` of a dark square: 1 -> (0, 1) (b8), 5 -> (1, 0) (a7)."""
    _check_square(square)
    row, k = divmod(square - 1, 4)
    # Even rows (8th, 6th, ... ranks) hold files b, d, f, h; odd rows a, c, e, g.
    col = 2 * k + (1 if row % 2 == 0 else 0)
    return row, col


def cell_to_square(row: int, col: int) -> int | None:
    """The square number of a cell, or None for a light square."""
    if not (0 <= row < 8 and 0 <= col < 8):
        raise ValueError(f"cell out of the board: {(row, col)!r}")
    if not is_dark(row, col):
        return None
    return row * 4 + col // 2 + 1


def cell_name(row: int, col: int) -> str:
    """Algebraic name of a cell: (0, 0) -> 'a8'."""
    if not (0 <= row < 8 and 0 <= col < 8):
        raise ValueError(f"cell out of the board: {(row, col)!r}")
    return f"{FILES[col]}{8 - row}"


def square_name(square: int) -> str:
    """Algebraic name of a dark square: 1 -> 'b8', 32 -> 'g1'."""
    return cell_name(*square_to_cell(square))


def parse_cell(name: str) -> Cell:
    """``'a8'`` -> (0, 0). Raises ValueError for anything else."""
    text = name.strip().lower()
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise ValueError(f"not a square name like 'a8': {name!r}")
    return 8 - int(text[1]), FILES.index(text[0])


def neighbours(square: int) -> list[int]:
    """The dark squares diagonally adjacent to ``square`` (where a knocked piece lands)."""
    row, col = square_to_cell(square)
    out = []
    for dr in (-1, 1):
        for dc in (-1, 1):
            r, c = row + dr, col + dc
            if 0 <= r < 8 and 0 <= c < 8:
                sq = cell_to_square(r, c)
                assert sq is not None
                out.append(sq)
    return sorted(out)


def squares_in(mask: int) -> Iterable[int]:
    """Squares whose bit is set, ascending (bit s-1 is square s)."""
    s = 1
    while mask:
        if mask & 1:
            yield s
        mask >>= 1
        s += 1
