"""Push buttons beside the board, reported as named press events."""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from crownhead.hal.clock import Clock
from crownhead.hal.device import Closeable, Device

__all__ = [
    "BUTTON_NAMES",
    "ButtonEvent",
    "Buttons",
    "ButtonQueue",
    "DEFAULT_HOLD_MS",
    "TIMED_BUTTONS",
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
    # Per side: a pair each, or one button each (short = draw, long = resign).
    "black_draw",
    "black_resign",
    "white_draw",
    "white_resign",
    "black",
    "white",
    # The arbiter's clock button: start, pause and resume the game clock.
    "clock",
    # The voice: short, the last move, whose turn and the clocks; twice, the last moves;
    # long, the whole position (docs/voice.md).
    "speak",
)

#: Buttons whose press is told apart by its length: reported when released (short) or
#: once held for ``hold_ms`` (long, reported while still held; its release says nothing).
TIMED_BUTTONS: frozenset[str] = frozenset({"resign", "black_resign", "white_resign", "black", "white", "speak"})

#: How long a press must last to count as long.
DEFAULT_HOLD_MS = 1500


def check_button_name(name: str) -> str:
    if name not in BUTTON_NAMES:
        raise ValueError(f"unknown button {name!r} (known: {', '.join(BUTTON_NAMES)})")
    return name


@dataclass(frozen=True)
class ButtonEvent:
    """Button ``name`` was pressed at ``t_ms`` (on the injected clock); ``long``: held down
    for at least the hold time (only :data:`TIMED_BUTTONS` report it)."""

    name: str
    t_ms: int
    long: bool = False


@runtime_checkable
class Buttons(Closeable, Protocol):
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

    A backend that sees releases reports a timed button with :meth:`down` and :meth:`up`
    instead of :meth:`press`: the press is reported at the release (short) or, once it
    has lasted ``hold_ms`` on the injected clock, at :meth:`poll` (long).

    >>> from crownhead.hal.clock import VirtualClock
    >>> clock = VirtualClock()
    >>> queue = ButtonQueue(clock, hold_ms=1500)
    >>> queue.down("black")
    True
    >>> _ = clock.advance(200); queue.up("black")
    >>> queue.poll()
    [ButtonEvent(name='black', t_ms=0, long=False)]
    >>> queue.down("black")
    True
    >>> _ = clock.advance(1500)
    >>> queue.poll()
    [ButtonEvent(name='black', t_ms=1700, long=True)]
    """

    def __init__(self, clock: Clock, lockout_ms: int = 0, maxlen: int = 256, hold_ms: int = DEFAULT_HOLD_MS) -> None:
        self.clock = clock
        self.lockout_ms = lockout_ms
        self.hold_ms = hold_ms
        self._events: collections.deque[ButtonEvent] = collections.deque(maxlen=maxlen)
        self._last: dict[str, int] = {}
        #: Timed buttons held down now: name -> when pressed (None once reported long).
        self._down: dict[str, int | None] = {}
        self._lock = threading.Lock()

    def press(self, name: str, t_ms: int | None = None, long: bool = False) -> bool:
        """Record a press; False if it fell inside the lockout."""
        t = self.clock.now_ms() if t_ms is None else t_ms
        with self._lock:
            last = self._last.get(name)
            if last is not None and t - last < self.lockout_ms:
                return False
            self._last[name] = t
            self._events.append(ButtonEvent(name, t, long))
            return True

    def down(self, name: str, t_ms: int | None = None) -> bool:
        """A timed button went down; False if it fell inside the lockout."""
        t = self.clock.now_ms() if t_ms is None else t_ms
        with self._lock:
            last = self._last.get(name)
            if last is not None and t - last < self.lockout_ms or name in self._down:
                return False
            self._last[name] = t
            self._down[name] = t
            return True

    def up(self, name: str, t_ms: int | None = None) -> None:
        """A timed button came up: a short press, unless it was already reported long."""
        t = self.clock.now_ms() if t_ms is None else t_ms
        with self._lock:
            if name not in self._down:
                return
            since = self._down.pop(name)
            if since is None:
                return
            if t - since >= self.hold_ms:
                self._events.append(ButtonEvent(name, since + self.hold_ms, True))
            else:
                self._events.append(ButtonEvent(name, since, False))

    def next_deadline(self) -> int | None:
        """When a button held down now becomes a long press, or None."""
        with self._lock:
            times = [t + self.hold_ms for t in self._down.values() if t is not None]
        return min(times) if times else None

    def poll(self) -> list[ButtonEvent]:
        if not self._events and not self._down:
            return []  # the usual case, every step: no lock, no clock (a press racing this is seen next poll)
        now = self.clock.now_ms()
        with self._lock:
            for name, since in self._down.items():
                if since is not None and now - since >= self.hold_ms:
                    self._events.append(ButtonEvent(name, since + self.hold_ms, True))
                    self._down[name] = None
            out = sorted(self._events, key=lambda e: e.t_ms)
            self._events.clear()
            return out


class NullButtons(Device):
    """A board without buttons."""

    def poll(self) -> list[ButtonEvent]:
        return []
