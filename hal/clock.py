"""Clocks: the one source of time for everything in the hardware layer.

Every time-dependent part (debouncer, scanners, frame limiter, simulator) takes a
:class:`Clock` instead of calling :mod:`time` itself, so tests drive time with a
:class:`VirtualClock` and never sleep.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "MonotonicClock", "VirtualClock"]


@runtime_checkable
class Clock(Protocol):
    """A source of monotonic time in whole milliseconds."""

    def now_ms(self) -> int:
        """Milliseconds since an arbitrary epoch; never goes backwards."""
        ...


class MonotonicClock:
    """Real time from :func:`time.monotonic_ns` (unaffected by NTP or manual clock changes)."""

    def __init__(self) -> None:
        # Start near zero so timestamps in logs stay short and readable.
        self._epoch_ns = time.monotonic_ns()

    def now_ms(self) -> int:
        return (time.monotonic_ns() - self._epoch_ns) // 1_000_000

    def __repr__(self) -> str:
        return f"MonotonicClock(now_ms={self.now_ms()})"


class VirtualClock:
    """Deterministic time that moves only when told to.

    Thread safe, because a test may advance it while a backend thread reads it.
    """

    def __init__(self, start_ms: int = 0) -> None:
        if start_ms < 0:
            raise ValueError(f"start_ms must be >= 0, got {start_ms}")
        self._now = int(start_ms)
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        with self._lock:
            return self._now

    def advance(self, ms: int) -> int:
        """Move time forward by ``ms`` (>= 0) and return the new time."""
        if ms < 0:
            raise ValueError(f"cannot advance a clock backwards ({ms} ms)")
        with self._lock:
            self._now += int(ms)
            return self._now

    def set(self, ms: int) -> None:
        """Jump to ``ms``, which must not be in the past."""
        with self._lock:
            if ms < self._now:
                raise ValueError(f"cannot set the clock back from {self._now} to {ms} ms")
            self._now = int(ms)

    def __repr__(self) -> str:
        return f"VirtualClock(now_ms={self.now_ms()})"
