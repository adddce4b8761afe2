"""An opening book from the ACF 3-move ballot deck, for variety in the first moves.

Every position on the way through a deck ballot (the start, after one move, after two)
maps to the moves the deck continues with, each weighted by how many ballots go that
way, so drawing a book move at random draws a ballot of the deck at random. Ballots that
are not legal under the chosen rule options are left out.

>>> import random
>>> from rules.position import Position
>>> book = OpeningBook()
>>> len(book.moves(Position.start()))
7
>>> move = book.choose(Position.start(), random.Random(1))
>>> move in Position.start().legal_moves()
True
"""

from __future__ import annotations

import random
from collections import Counter

from rules.ballots import Ballot, deck
from rules.move import IllegalMoveError, Move
from rules.position import Position
from rules.settings import WCDF, Rules


class OpeningBook:
    """Book moves by position, from a set of ballots (by default the 156-card deck)."""

    def __init__(self, rules: Rules = WCDF, ballots: tuple[Ballot, ...] | None = None) -> None:
        self.rules = rules
        self._moves: dict[Position, Counter[Move]] = {}
        for b in deck() if ballots is None else ballots:
            try:
                moves = b.play_moves(rules)
            except (IllegalMoveError, ValueError):
                continue
            position = Position.start()
            for move in moves:
                self._moves.setdefault(position, Counter())[move] += 1
                position = position.apply(move, rules)

    def moves(self, position: Position) -> dict[Move, int]:
        """The book moves in ``position`` with their weights (empty when out of book)."""
        return dict(self._moves.get(position, {}))

    def choose(self, position: Position, rng: random.Random) -> Move | None:
        """A book move drawn by weight, or None when ``position`` is not in the book."""
        counter = self._moves.get(position)
        if not counter:
            return None
        moves = sorted(counter, key=lambda m: (m.path, m.captures))
        return rng.choices(moves, weights=[counter[m] for m in moves])[0]

    def __contains__(self, position: object) -> bool:
        return position in self._moves

    def __len__(self) -> int:
        return len(self._moves)


__all__ = ["OpeningBook"]
