"""SSD1306 and SH1106 OLEDs (128x64, I2C) through luma.oled.

luma draws and sends the frame; this class opens the device lazily and turns every way
a bus can fail (no ``/dev/i2c-1``, nothing answering at the address, a cable pulled
mid-frame) into one :class:`~crownhead.hal.errors.HardwareError`, then opens it afresh on the
next :meth:`LumaDisplay.show`: a display plugged back in comes back by itself.

``bus`` (an smbus2-compatible object) or ``device_factory`` (any luma device, such as
``luma.core.device.dummy``) replace the real bus in tests; everything else is luma's own
code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crownhead.hal.device import Device
from crownhead.hal.errors import HardwareError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["LumaDisplay", "DRIVERS"]

log = logging.getLogger(__name__)

#: Driver name -> luma.oled device class name.
DRIVERS = {"ssd1306": "ssd1306", "sh1106": "sh1106"}


class LumaDisplay(Device):
    """A luma.oled device as a :class:`~crownhead.hal.display.Display`."""

    def __init__(
        self,
        driver: str = "ssd1306",
        *,
        port: int = 1,
        address: int = 0x3C,
        width: int = 128,
        height: int = 64,
        rotate: int = 0,
        bus: Any = None,
        device_factory: Callable[[], Any] | None = None,
    ) -> None:
        if driver not in DRIVERS:
            raise HardwareError(f"unknown display driver {driver!r} (known: {', '.join(DRIVERS)})")
        self.driver = driver
        self.port = port
        self.address = address
        self.width = width
        self.height = height
        self.rotate = rotate
        self._bus = bus
        self._factory = device_factory
        self._device: Any = None
        self.frames = 0

    def _open(self) -> Any:
        if self._factory is not None:
            return self._factory()
        import luma.oled.device as devices
        from luma.core.interface.serial import i2c

        serial = i2c(bus=self._bus, port=self.port, address=self.address)
        cls = getattr(devices, DRIVERS[self.driver])
        return cls(serial, width=self.width, height=self.height, rotate=self.rotate)

    @property
    def where(self) -> str:
        return f"{self.driver} display at 0x{self.address:02X} on I2C bus {self.port}"

    def show(self, image: Image) -> None:
        if self.closed:
            return
        try:
            if self._device is None:
                self._device = self._open()
            self._device.display(image.convert(self._device.mode))
            self.frames += 1
        except HardwareError:
            raise
        except Exception as exc:  # luma's errors, OSError from the bus, a missing library
            self._forget()
            raise HardwareError(f"{self.where}: {type(exc).__name__}: {exc}") from exc

    def _forget(self) -> None:
        """Drop the device: the next frame opens it afresh (it may come back)."""
        device, self._device = self._device, None
        if device is not None:
            try:
                device.cleanup()
            except Exception:  # noqa: BLE001 - it is gone anyway
                log.debug("display cleanup failed", exc_info=True)

    @property
    def device(self) -> Any:
        """The luma device while open (a test reads its ``image``), else None."""
        return self._device

    def _release(self) -> None:
        self._forget()
