"""The transposition table: what the search already knows about positions, by Zobrist key.

A fixed number of slots (a power of two); a key lands in slot ``key & (size - 1)``. Each
slot holds one entry ``(key, depth, bound, score, move_id)``: the full key guards against
two positions sharing a slot, ``bound`` says whether ``score`` is exact or only a lower or
upper bound, and ``move_id`` is the best move found, tried first next time.

A slot is overwritten when the new result is searched at least as deep or the slot holds
another position from an older search, so deep results survive the shallow ones that
crowd in late in an iteration.

Scores of won and lost positions count plies from the root; the table stores them
counting from the position itself (:func:`to_table` / :func:`from_table`), so an entry
stays right when the same position turns up at another distance from the root.

>>> tt = TranspositionTable(1024)
>>> tt.store(0xBEEF, depth=3, bound=EXACT, score=25, move_id=7)
>>> tt.probe(0xBEEF)
(48879, 3, 0, 25, 7, 0)
>>> tt.probe(0xBEEF + 1024) is None
True
"""

from __future__ import annotations

from typing import Protocol

#: The score is exact, at least ``score`` (a cut-off), or at most ``score`` (all moves failed low).
EXACT, LOWER, UPPER = 0, 1, 2

#: A win found ``n`` plies from the root scores ``WIN - n``.
WIN = 10_000
#: Scores beyond this are wins or losses, not evaluations.
WIN_THRESHOLD = WIN - 1_000

Entry = tuple[int, int, int, int, int, int]


def to_table(score: int, ply: int) -> int:
    if score > WIN_THRESHOLD:
        return score + ply
    if score < -WIN_THRESHOLD:
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    if score > WIN_THRESHOLD:
        return score - ply
    if score < -WIN_THRESHOLD:
        return score + ply
    return score


class SearchTable(Protocol):
    """What the root of a search asks of a table: this one, or the native core's
    (``crownhead.rules.engine._native.Table``, the same slots and rule in C)."""

    @property
    def size(self) -> int: ...

    def clear(self) -> None: ...

    def new_search(self) -> None: ...

    def probe(self, key: int) -> Entry | None: ...

    def store(self, key: int, depth: int, bound: int, score: int, move_id: int) -> None: ...

    def fill(self) -> float: ...

    def __len__(self) -> int: ...


class TranspositionTable:
    """A fixed-size table of search results (``size`` slots, rounded up to a power of two)."""

    def __init__(self, size: int = 1 << 18) -> None:
        if size < 1:
            raise ValueError(f"a transposition table needs at least one slot, not {size}")
        self.size = 1 << (size - 1).bit_length()
        self.mask = self.size - 1
        self.slots: list[Entry | None] = [None] * self.size
        #: Bumped once per search, so entries of earlier searches give way first.
        self.generation = 0

    def clear(self) -> None:
        self.slots = [None] * self.size
        self.generation = 0

    def new_search(self) -> None:
        self.generation += 1

    def probe(self, key: int) -> Entry | None:
        """The entry for ``key``, or None."""
        entry = self.slots[key & self.mask]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, depth: int, bound: int, score: int, move_id: int) -> None:
        index = key & self.mask
        old = self.slots[index]
        if old is None or old[1] <= depth or old[5] != self.generation or old[0] == key:
            self.slots[index] = (key, depth, bound, score, move_id, self.generation)

    def fill(self) -> float:
        """The share of slots in use (0-1), from a sample of the first slots."""
        sample = self.slots[: min(self.size, 4096)]
        return sum(1 for e in sample if e is not None) / len(sample)

    def __len__(self) -> int:
        return self.size


__all__ = ["EXACT", "LOWER", "UPPER", "WIN", "WIN_THRESHOLD", "SearchTable", "TranspositionTable"]
