"""Occupancy sensing: the :class:`Sensors` interface every switch backend implements.

Occupancy is a 32-bit int: bit ``s - 1`` set means square ``s`` reads occupied. Backends
report *raw* switch changes; the :class:`~crownhead.hal.debounce.Debouncer` decides which are real,
the same way for every backend including the simulator.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from crownhead.hal.device import Closeable
from crownhead.squares import FULL, iter_squares

__all__ = [
    "SensorEvent",
    "Sensors",
    "squares_of",
    "mask_of",
    "diff_events",
    "EventQueue",
]


@dataclass(frozen=True)
class SensorEvent:
    """One square's switch changed to ``occupied`` at ``t_ms`` (on the injected clock)."""

    square: int
    occupied: bool
    t_ms: int


@runtime_checkable
class Sensors(Closeable, Protocol):
    """Raw occupancy of the 32 dark squares."""

    def snapshot(self) -> int:
        """The raw occupancy now (bit s-1 = square s)."""
        ...

    def poll(self) -> list[SensorEvent]:
        """Raw changes since the last poll, oldest first."""
        ...

    def close(self) -> None:
        """Stop scanning and release pins/ports. Idempotent."""
        ...


def squares_of(mask: int) -> list[int]:
    """The squares set in an occupancy mask, ascending."""
    if mask < 0 or mask > FULL:
        raise ValueError(f"occupancy must fit in 32 bits, got {mask:#x}")
    return list(iter_squares(mask))


def mask_of(squares: Iterable[int]) -> int:
    """The occupancy mask with exactly these squares set."""
    mask = 0
    for s in squares:
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 32:
            raise ValueError(f"square must be an int 1-32, got {s!r}")
        mask |= 1 << (s - 1)
    return mask


def diff_events(old: int, new: int, t_ms: int) -> list[SensorEvent]:
    """Events turning occupancy ``old`` into ``new``, all at ``t_ms``, by square."""
    changed = old ^ new
    return [SensorEvent(s, bool(new >> (s - 1) & 1), t_ms) for s in iter_squares(changed)]


class EventQueue:
    """A thread-safe FIFO a backend thread fills and ``poll()`` drains.

    Bounded so a consumer that stops polling cannot exhaust memory; when full, the
    oldest events are dropped and counted (the snapshot still tells the truth).
    """

    def __init__(self, maxlen: int = 4096) -> None:
        self._items: collections.deque[SensorEvent] = collections.deque()
        self._maxlen = maxlen
        self._lock = threading.Lock()
        self.dropped = 0

    def extend(self, events: Iterable[SensorEvent]) -> None:
        with self._lock:
            for e in events:
                if len(self._items) >= self._maxlen:
                    self._items.popleft()
                    self.dropped += 1
                self._items.append(e)

    def drain(self) -> list[SensorEvent]:
        with self._lock:
            out = list(self._items)
            self._items.clear()
            return out

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
