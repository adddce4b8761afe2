"""Opening books: the ACF 3-move ballot deck, for variety in the first moves of the
levels, and the master games' first moves, for the engine at full strength.

Every position on the way through a deck ballot (the start, after one move, after two)
maps to the moves the deck continues with, each weighted by how many ballots go that
way, so drawing a book move at random draws a ballot of the deck at random. Ballots that
are not legal under the chosen rule options are left out.

>>> import random
>>> from crownhead.rules.position import Position
>>> book = OpeningBook()
>>> len(book.moves(Position.start()))
7
>>> move = book.choose(Position.start(), random.Random(1))
>>> move in Position.start().legal_moves(WCDF)
True
>>> masters = MasterBook()
>>> sorted(m.pdn() for m in masters.moves(Position.start()))[:3]
['10-14', '10-15', '11-15']
>>> masters.choose(Position.start(), random.Random(1)) in Position.start().legal_moves(WCDF)
True
"""

from __future__ import annotations

import random
from collections import Counter

from crownhead.rules.ballots import Ballot, deck
from crownhead.rules.move import IllegalMoveError, Move
from crownhead.rules.position import Position
from crownhead.rules.settings import WCDF, Rules


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


class MasterBook:
    """The moves the master games played in their first plies (``rules/engine/masters.py``,
    written by ``bench/book.py``), each weighted by the points its player scored with it:
    a move that won often is drawn often, one that only lost never entered the book.

    Moves that are not legal under the chosen rules (the games were played under the
    standard ones) are left out. Read at the first look-up.
    """

    def __init__(self, rules: Rules = WCDF, entries: tuple[tuple[str, str, int, float], ...] | None = None) -> None:
        self.rules = rules
        self._entries = entries
        self._moves: dict[Position, dict[Move, float]] | None = None

    def _book(self) -> dict[Position, dict[Move, float]]:
        if self._moves is None:
            # Imported here: 1,587 entries take 15-20 ms to import (a Pi: 5-10 times
            # that), which crownhead analyse would pay at every start otherwise.
            from crownhead.rules.engine.masters import MASTER_MOVES

            book: dict[Position, dict[Move, float]] = {}
            for fen, text, _games, points in self._entries if self._entries is not None else MASTER_MOVES:
                try:
                    position = Position.from_fen(fen)
                    move = position.parse_move(text, self.rules)
                except (IllegalMoveError, ValueError):
                    continue
                if points > 0:
                    book.setdefault(position, {})[move] = points
            self._moves = book
        return self._moves

    def moves(self, position: Position) -> dict[Move, float]:
        """The book moves in ``position`` with their points (empty when out of book)."""
        return dict(self._book().get(position, {}))

    def choose(self, position: Position, rng: random.Random) -> Move | None:
        """A book move drawn by its points, or None when ``position`` is not in the book."""
        found = self._book().get(position)
        if not found:
            return None
        moves = sorted(found, key=lambda m: (m.path, m.captures))
        return rng.choices(moves, weights=[found[m] for m in moves])[0]

    def __len__(self) -> int:
        return len(self._book())


__all__ = ["MasterBook", "OpeningBook"]
