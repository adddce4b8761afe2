"""WS2812/NeoPixel LEDs driven through adafruit-circuitpython-neopixel (Blinka).

``board`` and ``neopixel`` are imported only when this backend is opened, so machines
without Blinka's platform support (a development laptop, CI) never import them.

Which low-level driver Blinka uses depends on the Pi:

* Raspberry Pi 5: ``Adafruit-Blinka-Raspberry-Pi5-Neopixel`` (the RP1's PIO; any GPIO,
  no root needed beyond access to /dev/pio0). Install extra ``pi5``.
* Raspberry Pi 1-4: ``rpi_ws281x``. On GPIO10 (the default) it uses the SPI
  peripheral (/dev/spidev0.0), which works for a user in the ``spi`` group; on GPIO18
  it uses PWM + DMA and needs root. Install extra ``pi4``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any

from crownhead.extras import install_command
from crownhead.hal.device import Device
from crownhead.hal.errors import HardwareError
from crownhead.hal.lgpio_import import import_lgpio
from crownhead.hal.lights import DEFAULT_BRIGHTNESS, RGB, FrameKey, normalize_frame
from crownhead.hal.pi import pi_model
from crownhead.hal.pixelmap import PixelMap

__all__ = [
    "PIXEL_ORDERS",
    "PI4_DATA_PINS",
    "NeoPixelLights",
    "check_data_pin",
    "open_neopixel",
    "pi_model",
]

# Three-byte orders only: the frames are RGB, and RGBW strips would need a policy for
# the white channel that this board has no use for.
PIXEL_ORDERS = ("RGB", "GRB", "BGR", "RBG", "GBR", "BRG")

_INSTALL_HINT = (
    f"install the NeoPixel driver for this Pi: `{install_command('pi5')}` on a Raspberry Pi 5, "
    f"`{install_command('pi4')}` on a Raspberry Pi 1-4 (see docs/hardware.md)"
)


# rpi_ws281x (Pi 1-4) can only drive these: SPI MOSI, PWM0 (two pins), PCM DOUT.
PI4_DATA_PINS = (10, 12, 18, 21)


SPI_DEVICE = "/dev/spidev0.0"


def check_data_pin(
    data_pin: int,
    model: str | None,
    *,
    euid: int | None = None,
    spi_device: str = SPI_DEVICE,
) -> None:
    """Refuse a data pin this Pi's NeoPixel driver cannot use, before trying it.

    rpi_ws281x (Pi 1-4) fails on these with bare error codes (``ws2811_init failed
    with code -5``) at the first frame; this says what to change instead. ``euid``
    defaults to the process's effective user id.
    """
    if model is None or model.startswith("Raspberry Pi 5"):
        return
    if data_pin not in PI4_DATA_PINS:
        raise HardwareError(
            f"on a {model} NeoPixels can only be driven from GPIO10 (SPI, no root needed), "
            f"GPIO12 or GPIO18 (PWM, root) or GPIO21 (PCM, root); lights.data_pin is {data_pin}"
        )
    if data_pin == 10:
        if not os.path.exists(spi_device):
            raise HardwareError(
                f"the LEDs on GPIO10 are driven by SPI, which is off ({spi_device} is missing): "
                "add dtparam=spi=on to /boot/firmware/config.txt (or use raspi-config) and "
                "reboot; see docs/hardware.md"
            )
        return
    if (os.geteuid() if euid is None else euid) != 0:
        raise HardwareError(
            f"on a {model} the LEDs on GPIO{data_pin} need root (the driver maps /dev/mem "
            "for DMA); wire the data line to GPIO10 and set lights.data_pin = 10 "
            "(SPI, no root needed; see docs/hardware.md)"
        )


def open_neopixel(data_pin: int, pixels: int, pixel_order: str, brightness: float) -> Any:
    """Create the real ``neopixel.NeoPixel`` on BCM pin ``data_pin`` (lazy imports)."""
    check_data_pin(data_pin, pi_model())
    # Blinka 10 offers to pip-install missing platform packages when it is imported from
    # a terminal. A board's controller must not install software at run time; missing
    # drivers are reported below with the extra to install instead.
    os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
    import_lgpio()  # Blinka drives a Pi 5's pins through lgpio too
    try:
        import board
        import neopixel
    except Exception as exc:  # Blinka raises NotImplementedError, RuntimeError, ImportError...
        raise HardwareError(f"cannot load the NeoPixel driver ({type(exc).__name__}: {exc}); {_INSTALL_HINT}") from exc
    pin = getattr(board, f"D{data_pin}", None)
    if pin is None:
        raise HardwareError(f"this board has no pin D{data_pin} for the LED data line")
    try:
        return neopixel.NeoPixel(pin, pixels, brightness=brightness, auto_write=False, pixel_order=pixel_order)
    except Exception as exc:
        raise HardwareError(f"cannot open the LED strip on GPIO{data_pin}: {exc}") from exc


class NeoPixelLights(Device):
    """:class:`~crownhead.hal.lights.Lights` on a strip of 32 or 64 NeoPixels.

    ``brightness`` is the global cap, applied by the NeoPixel buffer itself (each
    channel is scaled and truncated on the way out). ``pixels`` injects an existing
    NeoPixel-like object instead of opening one (tests, or a strip shared with
    something else).
    """

    def __init__(
        self,
        pixel_map: PixelMap,
        *,
        data_pin: int = 10,
        pixel_order: str = "GRB",
        brightness: float = DEFAULT_BRIGHTNESS,
        pixels: Any = None,
    ) -> None:
        if pixel_order not in PIXEL_ORDERS:
            raise ValueError(f"pixel_order must be one of {', '.join(PIXEL_ORDERS)}, got {pixel_order!r}")
        if not 0.0 <= brightness <= 1.0:
            raise ValueError(f"brightness must be 0.0-1.0, got {brightness}")
        self.map = pixel_map
        self.data_pin = data_pin
        self.brightness = brightness
        self._pixels = (
            pixels if pixels is not None else open_neopixel(data_pin, pixel_map.pixels, pixel_order, brightness)
        )
        try:
            # The first transmit is where the low-level driver really starts (and fails).
            self.off()
        except Exception as exc:
            # No strip is handed out, so nothing will close it: let go of the driver here.
            deinit = getattr(self._pixels, "deinit", None)
            if deinit is not None:
                # The strip is unusable either way; the error below reports the cause.
                with contextlib.suppress(Exception):
                    deinit()
            raise HardwareError(f"cannot drive the LED strip on GPIO{data_pin}: {type(exc).__name__}: {exc}") from exc

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        norm = normalize_frame(frame)
        buf: list[RGB] = [(0, 0, 0)] * self.map.pixels
        for key, rgb in norm.items():
            pixel = self.map.pixel_of(key)
            if pixel is not None:  # light squares on a 32-LED board have no LED
                buf[pixel] = rgb
        # One slice assignment and one transmit per frame (auto_write is off).
        self._pixels[:] = buf
        self._pixels.show()

    def off(self) -> None:
        self._pixels.fill((0, 0, 0))
        self._pixels.show()

    def _release(self) -> None:
        try:
            self.off()
        finally:
            deinit = getattr(self._pixels, "deinit", None)
            if deinit is not None:
                deinit()
