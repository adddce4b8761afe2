"""The simulated buzzer: remembers every tone it was asked for, with its time.

It makes no sound; the terminal simulator rings the terminal's bell on each pattern
only when asked (``[sim] sound = true``).

>>> from crownhead.hal.clock import VirtualClock
>>> clock = VirtualClock()
>>> buzzer = SimBuzzer(clock)
>>> buzzer.tone(880); _ = clock.advance(80); buzzer.tone(None)
>>> buzzer.tones
[(0, 880), (80, None)]
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from crownhead.hal.clock import Clock
from crownhead.hal.device import Device

__all__ = ["SimBuzzer"]


class SimBuzzer(Device):
    def __init__(self, clock: Clock, maxlen: int = 10_000) -> None:
        self.clock = clock
        self.tones: list[tuple[int, float | None]] = []
        self.maxlen = maxlen
        self.hz: float | None = None
        #: Called as a sound starts after silence (``[sim] sound``: the terminal's bell).
        self.ring: Callable[[], object] | None = None
        self._lock = threading.Lock()

    def tone(self, hz: float | None) -> None:
        with self._lock:
            if hz == self.hz:
                return
            starts = hz is not None and self.hz is None
            self.hz = hz
            self.tones.append((self.clock.now_ms(), hz))
            del self.tones[: -self.maxlen]
        if starts and self.ring is not None:
            self.ring()

    def _release(self) -> None:
        self.tone(None)
