"""Squares of the board: PDN numbers 1-32, teaching names a1-h8 and bitboard masks.

The 32 dark squares are numbered as in every checkers book and PDN file, four a row
from Black's side: square 1 is b8, 4 is h8, 5 is a7, ..., 29 is a1 and 32 is g1.
Black starts on 1-12 and moves towards 29-32; White starts on 21-32.

A set of squares is an ``int`` bitboard: bit ``s - 1`` stands for square ``s``.

>>> square_name(1), square_name(29), square_name(32)
('b8', 'a1', 'g1')
>>> parse_square("d4")
18
>>> squares_of(bit(11) | bit(15))
[11, 15]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

Square = int

SQUARES: tuple[Square, ...] = tuple(range(1, 33))
FULL = 0xFFFFFFFF

#: Rows 0, 2, 4, 6 counted from Black's side (ranks 8, 6, 4, 2) hold files b, d, f, h.
EVEN_ROWS = 0x0F0F0F0F
ODD_ROWS = 0xF0F0F0F0
FILE_A = 0x10101010  # squares 5, 13, 21, 29
FILE_H = 0x08080808  # squares 4, 12, 20, 28
#: Black's men crown on 29-32, White's on 1-4.
BLACK_CROWN_ROW = 0xF0000000
WHITE_CROWN_ROW = 0x0000000F


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
    """Row 0-7 counted from Black's side (row 0 is rank 8)."""
    return (square - 1) >> 2


def file_of(square: Square) -> int:
    """File 0-7, a to h."""
    index = (square - 1) & 3
    return 2 * index + 1 if row_of(square) % 2 == 0 else 2 * index


def rank_of(square: Square) -> int:
    """Rank 1-8 as on a chess board, rank 1 being White's home row."""
    return 8 - row_of(square)


def square_at(file: int, rank: int) -> Square | None:
    """The dark square at ``file`` 0-7 and ``rank`` 1-8, or None for a light or off-board one."""
    if not (0 <= file < 8 and 1 <= rank <= 8):
        return None
    row = 8 - rank
    if (file + row) % 2 == 0:
        return None
    return row * 4 + file // 2 + 1


def square_name(square: Square) -> str:
    """The teaching name (``a1``-``h8``) of a square."""
    check_square(square)
    return "abcdefgh"[file_of(square)] + str(rank_of(square))


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
    if len(token) == 2 and token[0] in "abcdefgh" and token[1] in "12345678":
        dark = square_at("abcdefgh".index(token[0]), int(token[1]))
        if dark is None:
            raise ValueError(f"{text!r} is a light square; pieces stand on dark squares only")
        return dark
    raise ValueError(f"{text!r} is not a square (1-32 or a dark square a1-h8)")


def check_square(square: object) -> Square:
    if not isinstance(square, int) or isinstance(square, bool) or not 1 <= square <= 32:
        raise ValueError(f"square {square!r} is not on the board (1-32)")
    return square


# Directions as (file step, rank step). Black moves down the board (towards rank 1).
SOUTH_WEST, SOUTH_EAST, NORTH_WEST, NORTH_EAST = 0, 1, 2, 3
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, -1), (1, -1), (-1, 1), (1, 1))
BLACK_FORWARD: tuple[int, ...] = (SOUTH_WEST, SOUTH_EAST)
WHITE_FORWARD: tuple[int, ...] = (NORTH_WEST, NORTH_EAST)


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
