"""The simulated display: keeps the frames it is shown, and can be unplugged.

The terminal simulator prints the text that was drawn on it (:attr:`SimDisplay.lines`,
given by the drawing code beside each frame); tests read :attr:`SimDisplay.image`.

>>> from PIL import Image
>>> screen = SimDisplay()
>>> screen.show(Image.new("1", (128, 64)))
>>> screen.frames
1
>>> screen.unplug()
>>> try:
...     screen.show(Image.new("1", (128, 64)))
... except Exception as exc:
...     print(exc)
simulated display: unplugged
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from crownhead.hal.device import Device
from crownhead.hal.errors import HardwareError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["SimDisplay"]


class SimDisplay(Device):
    """A :class:`~crownhead.hal.display.Display` in memory."""

    def __init__(self, width: int = 128, height: int = 64) -> None:
        self.width = width
        self.height = height
        self.image: Image | None = None
        #: The text drawn in the last frame, one entry per line (set by the drawing code).
        self.lines: tuple[str, ...] = ()
        self.frames = 0
        self.plugged = True
        self._lock = threading.Lock()

    def show(self, image: Image, lines: tuple[str, ...] = ()) -> None:
        with self._lock:
            if not self.plugged:
                raise HardwareError("simulated display: unplugged")
            if image.size != (self.width, self.height):
                raise ValueError(f"frame of {image.size}, the display is {(self.width, self.height)}")
            self.image = image.copy()
            self.lines = tuple(lines)
            self.frames += 1

    def unplug(self) -> None:
        """The cable comes out: every frame fails until :meth:`plug`."""
        with self._lock:
            self.plugged = False

    def plug(self) -> None:
        with self._lock:
            self.plugged = True

    def _release(self) -> None:
        with self._lock:
            self.image = None
            self.lines = ()
