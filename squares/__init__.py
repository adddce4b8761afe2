"""The 32 squares of the board: PDN numbers 1-32, teaching names a1-h8, the 64 cells,
bitboard sets and the diagonals. The one squares module, below both the rules core and
the hardware layer (it imports nothing): numbering and geometry, no rule of any game.

The dark squares are numbered as in every checkers book and PDN file, four a row from
the top (Black's side): square 1 is b8, 4 is h8, 5 is a7, ..., 29 is a1 and 32 is g1. A
*cell* is any of the 64 squares as ``(row, col)``: row 0 is rank 8 (the top), col 0 is
file a; light squares exist only as cells (they matter only to 64-LED boards).

A set of squares is an ``int`` bitboard: bit ``s - 1`` stands for square ``s``.

>>> square_name(1), square_name(29), square_name(32)
('b8', 'a1', 'g1')
>>> parse_square("d4")
18
>>> squares_of(bit(11) | bit(15))
[11, 15]
>>> square_to_cell(5), cell_to_square(0, 0)
((1, 0), None)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = [
    "Square",
    "Cell",
    "SQUARES",
    "FULL",
    "EVEN_ROWS",
    "ODD_ROWS",
    "FILE_A",
    "FILE_H",
    "TOP_ROW",
    "BOTTOM_ROW",
    "bit",
    "mask_of",
    "iter_squares",
    "squares_of",
    "row_of",
    "file_of",
    "rank_of",
    "square_at",
    "square_name",
    "parse_square",
    "check_square",
    "is_dark",
    "square_to_cell",
    "cell_to_square",
    "cell_name",
    "parse_cell",
    "neighbours",
    "SOUTH_WEST",
    "SOUTH_EAST",
    "NORTH_WEST",
    "NORTH_EAST",
    "DIRECTIONS",
    "RAYS",
]

Square = int
Cell = tuple[int, int]

SQUARES: tuple[Square, ...] = tuple(range(1, 33))
#: Every square.
FULL = 0xFFFFFFFF
FILES = "abcdefgh"

#: Rows 0, 2, 4, 6 counted from the top (ranks 8, 6, 4, 2) hold files b, d, f, h.
EVEN_ROWS = 0x0F0F0F0F
ODD_ROWS = 0xF0F0F0F0
FILE_A = 0x10101010  # squares 5, 13, 21, 29
FILE_H = 0x08080808  # squares 4, 12, 20, 28
#: Squares 1-4 (rank 8, Black's side) and 29-32 (rank 1, White's side).
TOP_ROW = 0x0000000F
BOTTOM_ROW = 0xF0000000


def bit(square: Square) -> int:
    """The bitboard holding only ``square``."""
    return 1 << (square - 1)


def mask_of(squares: Iterable[Square]) -> int:
    """The bitboard of a collection of squares."""
    mask = 0
    for square in squares:
        mask |= 1 << (square - 1)
    return mask


def iter_squares(mask: int) -> Iterator[Square]:
    """The squares of a bitboard, in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length()
        mask ^= low


def squares_of(mask: int) -> list[Square]:
    """The squares of a bitboard as a sorted list."""
    return list(iter_squares(mask))


def row_of(square: Square) -> int:
    """Row 0-7 counted from the top (row 0 is rank 8)."""
    return (square - 1) >> 2


def file_of(square: Square) -> int:
    """File 0-7, a to h."""
    index = (square - 1) & 3
    return 2 * index + 1 if row_of(square) % 2 == 0 else 2 * index


def rank_of(square: Square) -> int:
    """Rank 1-8 as on a chess board, rank 1 being the bottom row (White's side)."""
    return 8 - row_of(square)


def square_at(file: int, rank: int) -> Square | None:
    """The dark square at ``file`` 0-7 and ``rank`` 1-8, or None for a light or off-board one."""
    if not (0 <= file < 8 and 1 <= rank <= 8):
        return None
    row = 8 - rank
    if (file + row) % 2 == 0:
        return None
    return row * 4 + file // 2 + 1


def check_square(square: object) -> Square:
    """``square`` if it is a square number 1-32; ValueError otherwise."""
    if not isinstance(square, int) or isinstance(square, bool) or not 1 <= square <= 32:
        raise ValueError(f"square {square!r} is not on the board (1-32)")
    return square


def square_name(square: Square) -> str:
    """The teaching name (``a1``-``h8``) of a square."""
    check_square(square)
    return FILES[file_of(square)] + str(rank_of(square))


def parse_square(text: str) -> Square:
    """A square from its number (``"22"``) or its teaching name (``"d4"``)."""
    token = text.strip().lower()
    if token.isdigit():
        # ASCII digits only, and few: int() takes other scripts' digits and raises on
        # thousands of them.
        if not token.isascii() or len(token) > 4:
            raise ValueError(f"{text[:24]!r} is not a square (1-32 or a dark square a1-h8)")
        square = int(token)
        check_square(square)
        return square
    if len(token) == 2 and token[0] in FILES and token[1] in "12345678":
        dark = square_at(FILES.index(token[0]), int(token[1]))
        if dark is None:
            raise ValueError(f"{text!r} is a light square; pieces stand on dark squares only")
        return dark
    raise ValueError(f"{text!r} is not a square (1-32 or a dark square a1-h8)")


# -- cells: the 64 squares ----------------------------------------------------------------


def is_dark(row: int, col: int) -> bool:
    """True for the 32 playing squares (a1 is dark)."""
    return (row + col) % 2 == 1


def square_to_cell(square: Square) -> Cell:
    """The ``(row, col)`` of a dark square: 1 -> (0, 1) (b8), 5 -> (1, 0) (a7)."""
    check_square(square)
    return row_of(square), file_of(square)


def cell_to_square(row: int, col: int) -> Square | None:
    """The square number of a cell, or None for a light square."""
    if not (0 <= row < 8 and 0 <= col < 8):
        raise ValueError(f"cell out of the board: {(row, col)!r}")
    return square_at(col, 8 - row)


def cell_name(row: int, col: int) -> str:
    """Algebraic name of a cell: (0, 0) -> 'a8'."""
    if not (0 <= row < 8 and 0 <= col < 8):
        raise ValueError(f"cell out of the board: {(row, col)!r}")
    return f"{FILES[col]}{8 - row}"


def parse_cell(name: str) -> Cell:
    """``'a8'`` -> (0, 0). Raises ValueError for anything else."""
    text = name.strip().lower()
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise ValueError(f"not a square name like 'a8': {name!r}")
    return 8 - int(text[1]), FILES.index(text[0])


# -- diagonals ----------------------------------------------------------------------------

# Directions as (file step, rank step): towards rank 1 (down the board) first.
SOUTH_WEST, SOUTH_EAST, NORTH_WEST, NORTH_EAST = 0, 1, 2, 3
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, -1), (1, -1), (-1, 1), (1, 1))


def _ray(square: Square, direction: int) -> tuple[Square, ...]:
    df, dr = DIRECTIONS[direction]
    f, r = file_of(square), rank_of(square)
    out: list[Square] = []
    while True:
        f, r = f + df, r + dr
        target = square_at(f, r)
        if target is None:
            return tuple(out)
        out.append(target)


#: RAYS[direction][square] lists the squares along a diagonal, nearest first.
RAYS: tuple[tuple[tuple[Square, ...], ...], ...] = tuple(
    tuple(() if s == 0 else _ray(s, d) for s in range(33)) for d in range(4)
)


def neighbours(square: Square) -> list[Square]:
    """The dark squares diagonally next to ``square`` (where a knocked piece lands), sorted."""
    check_square(square)
    return sorted(RAYS[d][square][0] for d in range(4) if RAYS[d][square])
