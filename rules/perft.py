"""Perft: counting the leaves of the move tree, to check move generation against
published numbers.

Every capture route counts as its own move, as in the published tables; ``unique``
merges routes with equal start, end and captured set (and, where a man crowned
mid-capture jumps on, equal crowning). Rules the English generator of
:mod:`crownhead.rules.movegen` does not play (flying kings, ...) are counted by
:func:`crownhead.rules.variants.perft`.

>>> from crownhead.rules import WCDF
>>> perft(Position.start(), 4, WCDF)
1469
"""

from __future__ import annotations

from crownhead.rules import movegen, variants
from crownhead.rules.move import Move
from crownhead.rules.position import Color, Position
from crownhead.rules.settings import Rules


def _unique_moves(position: Position, rules: Rules) -> list[Move]:
    seen: set[tuple[int, int, frozenset[int], bool]] = set()
    out = []
    for move in position.legal_moves(rules):
        key = (move.start, move.end, frozenset(move.captures), position.crowns(move, rules))
        if key not in seen:
            seen.add(key)
            out.append(move)
    return out


def _perft_unique(position: Position, depth: int, rules: Rules) -> int:
    """Unique perft one :class:`Move` at a time: slow, kept as a check on the fast count."""
    if depth == 0:
        return 1
    moves = _unique_moves(position, rules)
    if depth == 1:
        return len(moves)
    return sum(_perft_unique(position.apply(m, rules), depth - 1, rules) for m in moves)


def perft(position: Position, depth: int, rules: Rules, unique: bool = False) -> int:
    """Leaf nodes ``depth`` plies below ``position``."""
    if not rules.fast_path:
        own, opp, black = _sides(position)
        return variants.perft(own, opp, position.kings, black, depth, rules, unique)
    own, opp, black = _sides(position)
    return movegen.perft(
        own,
        opp,
        position.kings,
        black,
        depth,
        rules.men_capture_backward,
        rules.must_capture,
        unique=unique,
    )


def _sides(position: Position) -> tuple[int, int, bool]:
    if position.turn == Color.BLACK:
        return position.black, position.white, True
    return position.white, position.black, False


def divide(position: Position, depth: int, rules: Rules, unique: bool = False) -> list[tuple[Move, int]]:
    """The perft count below each legal move (for finding where two generators differ)."""
    if depth < 1:
        return []
    moves = _unique_moves(position, rules) if unique else position.legal_moves(rules)
    return [(m, perft(position.apply(m, rules), depth - 1, rules, unique)) for m in moves]
