"""Zobrist keys: a 64-bit fingerprint of a position, updated move by move in the search.

Every (colour, man or king, square) has a fixed random 64-bit number and the side to move
has one more; a position's key is the XOR of the numbers of its pieces, with the side key
added when White is to move. A move changes the key by XOR-ing out the pieces that left
and in the ones that arrived, so the search never recomputes a key from scratch.

The numbers come from a seeded generator, so keys are the same in every run (handy for
reproducible searches and for comparing logs).

>>> from crownhead.rules.position import Position
>>> from crownhead.rules.settings import WCDF
>>> start = Position.start()
>>> key_of(start) == key_of(Position.start())
True
>>> after = start.apply(start.parse_move("11-15", WCDF), WCDF)
>>> key_of(after) == key_of(start) ^ MAN[0][bit(11)] ^ MAN[0][bit(15)] ^ SIDE
True
"""

from __future__ import annotations

import random

from crownhead.rules.position import Color, Position
from crownhead.squares import bit

_rng = random.Random(0x5A0B_2157)  # fixed: keys must not change from run to run


def _keys() -> tuple[int, ...]:
    # Index 0 stands for "no square" so that tables can be indexed by square number.
    return (0,) + tuple(_rng.getrandbits(64) for _ in range(32))


#: Per-square keys, indexed by colour (0 = Black, 1 = White) and then square 1-32.
MAN_SQUARE: tuple[tuple[int, ...], tuple[int, ...]] = (_keys(), _keys())
KING_SQUARE: tuple[tuple[int, ...], tuple[int, ...]] = (_keys(), _keys())
#: XOR-ed in when White is to move.
SIDE: int = _rng.getrandbits(64)


def _by_bit(table: tuple[int, ...]) -> dict[int, int]:
    return {bit(s): table[s] for s in range(1, 33)}


#: The same keys indexed by the single-bit bitboard of the square (what the search holds).
MAN: tuple[dict[int, int], dict[int, int]] = (_by_bit(MAN_SQUARE[0]), _by_bit(MAN_SQUARE[1]))
KING: tuple[dict[int, int], dict[int, int]] = (_by_bit(KING_SQUARE[0]), _by_bit(KING_SQUARE[1]))


def _byte_tables(table: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each byte of a bitboard, the XOR of the keys of every square set in it."""
    out = []
    for shift in range(4):
        # Each byte's key is the key of the byte without its lowest bit, and that bit's:
        # 256 steps a table, not 2,048 (this runs at every start of the command).
        row = [0] * 256
        for value in range(1, 256):
            low = value & -value
            row[value] = row[value ^ low] ^ table[shift * 8 + low.bit_length()]
        out.append(tuple(row))
    return tuple(out)


_BYTES = tuple(_byte_tables(t) for t in (MAN_SQUARE[0], MAN_SQUARE[1], KING_SQUARE[0], KING_SQUARE[1]))


def _board_key(tables: tuple[tuple[int, ...], ...], board: int) -> int:
    t0, t1, t2, t3 = tables
    return t0[board & 255] ^ t1[board >> 8 & 255] ^ t2[board >> 16 & 255] ^ t3[board >> 24]


def key_from_boards(black: int, white: int, kings: int, black_to_move: bool) -> int:
    """The key of the position given by raw bitboards."""
    key = (
        _board_key(_BYTES[0], black & ~kings)
        ^ _board_key(_BYTES[1], white & ~kings)
        ^ _board_key(_BYTES[2], black & kings)
        ^ _board_key(_BYTES[3], white & kings)
    )
    return key if black_to_move else key ^ SIDE


def key_of(position: Position) -> int:
    """The Zobrist key of ``position``."""
    return key_from_boards(position.black, position.white, position.kings, position.turn == Color.BLACK)


__all__ = ["KING", "KING_SQUARE", "MAN", "MAN_SQUARE", "SIDE", "key_from_boards", "key_of"]
