"""Push buttons beside the board, reported as named press events."""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from hal.clock import Clock

__all__ = [
    "BUTTON_NAMES",
    "ButtonEvent",
    "Buttons",
    "ButtonQueue",
    "NullButtons",
    "check_button_name",
]

# The names the application understands. A board wires any subset of them; a name
# outside this set is refused at configuration time, which catches typos early.
# ``force`` is the huffing house rule's "make the player take the jump he skipped".
BUTTON_NAMES: tuple[str, ...] = (
    "new",
    "hint",
    "takeback",
    "claim",
    "resign",
    "adjust",
    "draw",
    "force",
)


def check_button_name(name: str) -> str:
    if name not in BUTTON_NAMES:
        raise ValueError(f"unknown button {name!r} (known: {', '.join(BUTTON_NAMES)})")
    return name


@dataclass(frozen=True)
class ButtonEvent:
    """Button ``name`` was pressed at ``t_ms`` (on the injected clock)."""

    name: str
    t_ms: int


@runtime_checkable
class Buttons(Protocol):
    def poll(self) -> list[ButtonEvent]:
        """Presses since the last poll, oldest first."""
        ...

    def close(self) -> None:
        """Release the pins. Idempotent."""
        ...


class ButtonQueue:
    """Thread-safe collection of presses with a per-button lockout.

    A press of the same button within ``lockout_ms`` of the previous accepted one is
    contact bounce (or an impatient double press) and is dropped. Done here, on the
    injected clock, rather than trusting each GPIO driver's own bounce filter, so every
    backend behaves the same and tests can check it.
    """

    def __init__(self, clock: Clock, lockout_ms: int = 0, maxlen: int = 256) -> None:
        self.clock = clock
        self.lockout_ms = lockout_ms
        self._events: collections.deque[ButtonEvent] = collections.deque(maxlen=maxlen)
        self._last: dict[str, int] = {}
        self._lock = threading.Lock()

    def press(self, name: str, t_ms: int | None = None) -> bool:
        """Record a press; False if it fell inside the lockout."""
        t = self.clock.now_ms() if t_ms is None else t_ms
        with self._lock:
            last = self._last.get(name)
            if last is not None and t - last < self.lockout_ms:
                return False
            self._last[name] = t
            self._events.append(ButtonEvent(name, t))
            return True

    def poll(self) -> list[ButtonEvent]:
        with self._lock:
            out = list(self._events)
            self._events.clear()
            return out


class NullButtons:
    """A board without buttons."""

    def poll(self) -> list[ButtonEvent]:
        return []

    def close(self) -> None:
        pass
