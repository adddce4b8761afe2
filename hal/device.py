"""The one lifecycle every hardware part shares, as every gpiozero device does.

A part is open from construction until :meth:`Device.close`, which is idempotent and
releases what the part holds exactly once; :attr:`Device.closed` says which, and a part
is its own context manager::

    with open_neopixel(...) as lights:
        lights.show(frame)

A backend releases its pins, ports or threads in the named hook :meth:`Device._release`
(never by overriding ``close``), so the once-only rule lives here alone.

>>> class Lamp(Device):
...     def _release(self) -> None:
...         print("released")
>>> with Lamp() as lamp:
...     lamp.closed
False
released
>>> lamp.close()  # a second close does nothing
>>> lamp.closed
True
"""

from __future__ import annotations

from typing import Protocol, Self, runtime_checkable

__all__ = ["Closeable", "Device"]


@runtime_checkable
class Closeable(Protocol):
    """What every hal interface (sensors, lights, buttons, display, buzzer) promises about
    its lifecycle."""

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        ...

    def close(self) -> None:
        """Release the hardware. Idempotent."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


class Device:
    """The base of every hal backend and simulated twin: ``close`` once, ``closed``, and
    ``with``."""

    _closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called (the part may no longer be used)."""
        return self._closed

    def close(self) -> None:
        """Release the part. Calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        self._release()

    def _release(self) -> None:
        """The hook a backend overrides to let go of its pins, ports and threads; called
        once, by the first :meth:`close`."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
