"""A small screen beside the board: whole frames (Pillow images), like the LEDs.

A :class:`Display` knows nothing of checkers: it shows a 1-bit image of its size.
What goes on it is drawn above the hardware layer (:mod:`crownhead.firmware.display`).
Backends: :class:`crownhead.hal.luma_display.LumaDisplay` (SSD1306 / SH1106 OLEDs on I2C through
luma.oled) and the simulator's :class:`crownhead.sim.display.SimDisplay`.

A backend raises :class:`~crownhead.hal.errors.HardwareError` when the display cannot be reached
(unplugged, wrong address); the next :meth:`Display.show` tries again, so a display
plugged back in is used again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from crownhead.hal.device import Closeable, Device

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["Display", "NullDisplay"]


@runtime_checkable
class Display(Closeable, Protocol):
    width: int
    height: int

    def show(self, image: Image) -> None:
        """Put ``image`` (mode ``"1"``, the display's size) on the screen.

        Raises :class:`~crownhead.hal.errors.HardwareError` when the display cannot be reached.
        """
        ...

    def close(self) -> None:
        """Blank the screen and release the bus. Idempotent."""
        ...


class NullDisplay(Device):
    """A board without a display."""

    width = 128
    height = 64

    def show(self, image: Image) -> None:
        pass
