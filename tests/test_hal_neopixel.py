"""NeoPixel lights through the real ``neopixel.NeoPixel`` and ``adafruit_pixelbuf`` code.

Blinka runs as its OS-agnostic generic board (``BLINKA_OS_AGNOSTIC``), so ``board``,
``digitalio``, ``neopixel`` and ``neopixel_write`` are the real modules; only the
generic board's final byte transmit is replaced by a recorder (the ``neopixel_wire``
fixture of ``conftest.py``, which also sets the Blinka environment). The assertions are on
the exact bytes that would go down the data line.
"""

from __future__ import annotations

import sys

import pytest

from crownhead.hal.errors import HardwareError
from crownhead.hal.neopixel_lights import NeoPixelLights, check_data_pin, open_neopixel, pi_model
from crownhead.hal.pixelmap import build_pixel_map


def px(sent: list[bytes], i: int) -> bytes:
    return sent[-1][3 * i : 3 * i + 3]


def test_really_uses_the_neopixel_library(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32), data_pin=18, brightness=1.0)
    import neopixel

    assert isinstance(lights._pixels, neopixel.NeoPixel)
    assert neopixel_wire == [bytes(96)]  # opening blanks the strip


def test_grb_order_full_brightness(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32), data_pin=18, pixel_order="GRB", brightness=1.0)
    lights.show({1: (255, 128, 10), 32: (1, 2, 3)})
    assert len(neopixel_wire[-1]) == 96
    assert px(neopixel_wire, 0) == bytes([128, 255, 10])
    assert px(neopixel_wire, 31) == bytes([2, 1, 3])
    assert neopixel_wire[-1][3:93] == bytes(90)


def test_rgb_and_bgr_orders(neopixel_wire: list[bytes]) -> None:
    NeoPixelLights(build_pixel_map(32), data_pin=18, pixel_order="RGB", brightness=1.0).show({2: (10, 20, 30)})
    assert px(neopixel_wire, 1) == bytes([10, 20, 30])
    NeoPixelLights(build_pixel_map(32), data_pin=18, pixel_order="BGR", brightness=1.0).show({2: (10, 20, 30)})
    assert px(neopixel_wire, 1) == bytes([30, 20, 10])


def test_brightness_cap_scales_every_channel(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32), data_pin=18, pixel_order="GRB", brightness=0.1)
    lights.show({5: (255, 128, 10)})
    # int(128 * 0.1) = 12, int(255 * 0.1) = 25, int(10 * 0.1) = 1
    assert px(neopixel_wire, 4) == bytes([12, 25, 1])
    lights.show({5: (255, 255, 255)})
    assert px(neopixel_wire, 4) == bytes([25, 25, 25])


def test_serpentine_map_32(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32, "serpentine", "a8"), data_pin=18, pixel_order="RGB", brightness=1.0)
    lights.show({5: (1, 1, 1), 8: (2, 2, 2)})
    # Rank 7 runs right to left: square 8 (g7) is pixel 4, square 5 (a7) pixel 7.
    assert px(neopixel_wire, 4) == bytes([2, 2, 2])
    assert px(neopixel_wire, 7) == bytes([1, 1, 1])


def test_explicit_map(neopixel_wire: list[bytes]) -> None:
    order = list(range(32, 0, -1))
    lights = NeoPixelLights(build_pixel_map(32, order), data_pin=18, pixel_order="RGB", brightness=1.0)
    lights.show({32: (7, 8, 9), 1: (4, 5, 6)})
    assert px(neopixel_wire, 0) == bytes([7, 8, 9])
    assert px(neopixel_wire, 31) == bytes([4, 5, 6])


def test_64_pixels_light_squares_and_dark(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(64, "serpentine", "a1"), data_pin=10, pixel_order="RGB", brightness=1.0)
    lights.show({29: (1, 0, 0), (7, 1): (0, 2, 0), (6, 0): (0, 0, 3), 4: (9, 9, 9)})
    assert len(neopixel_wire[-1]) == 192
    assert px(neopixel_wire, 0) == bytes([1, 0, 0])  # a1
    assert px(neopixel_wire, 1) == bytes([0, 2, 0])  # b1
    assert px(neopixel_wire, 15) == bytes([0, 0, 3])  # a2 ends the second (reversed) rank
    assert px(neopixel_wire, 56) == bytes([9, 9, 9])  # h8 starts the last, reversed, rank


def test_light_squares_are_ignored_on_32_pixels(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32), data_pin=18, brightness=1.0)
    lights.show({(0, 0): (255, 255, 255)})
    assert neopixel_wire[-1] == bytes(96)


def test_one_transmit_per_frame_and_off_on_close(neopixel_wire: list[bytes]) -> None:
    lights = NeoPixelLights(build_pixel_map(32), data_pin=18, brightness=1.0)
    before = len(neopixel_wire)
    lights.show({n: (255, 0, 0) for n in range(1, 33)})
    assert len(neopixel_wire) == before + 1
    lights.close()
    assert neopixel_wire[-1] == bytes(96)
    lights.close()  # idempotent


def test_missing_pin_is_a_clear_error(neopixel_wire: list[bytes]) -> None:
    with pytest.raises(HardwareError, match="no pin D5"):
        open_neopixel(5, 32, "GRB", 0.1)


def test_missing_driver_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "neopixel", None)  # as if not installed
    # The command that installs the extra into this environment (the package is on no index).
    with pytest.raises(HardwareError, match=r"-m pip install -e '[^']*\[pi5\]'"):
        open_neopixel(18, 32, "GRB", 0.1)


def test_bad_settings_are_refused(neopixel_wire: list[bytes]) -> None:
    # Refused before the strip is opened: nothing goes down the data line.
    with pytest.raises(ValueError):
        NeoPixelLights(build_pixel_map(32), data_pin=18, pixel_order="RGBW")
    with pytest.raises(ValueError):
        NeoPixelLights(build_pixel_map(32), data_pin=18, brightness=1.5)
    assert neopixel_wire == []


PI4 = "Raspberry Pi 4 Model B Rev 1.4"


def test_data_pin_is_checked_against_the_pi_model(tmp_path) -> None:
    model = tmp_path / "model"
    model.write_bytes(PI4.encode() + b"\0")
    assert pi_model(str(model)) == PI4
    assert pi_model(str(tmp_path / "absent")) is None
    spidev = tmp_path / "spidev0.0"
    spidev.touch()
    check_data_pin(10, PI4, euid=1000, spi_device=str(spidev))  # SPI: no root needed
    check_data_pin(18, "Raspberry Pi 3 Model B Plus Rev 1.3", euid=0)  # PWM as root
    check_data_pin(5, "Raspberry Pi 5 Model B Rev 1.0")  # the Pi 5's PIO drives any pin
    check_data_pin(5, None)  # not a Pi: nothing to say
    with pytest.raises(HardwareError, match=r"GPIO10 .SPI, no root needed.*data_pin is 5"):
        check_data_pin(5, PI4)


def test_spi_switched_off_is_named_before_the_driver_fails(tmp_path) -> None:
    with pytest.raises(HardwareError, match=r"SPI, which is off .*dtparam=spi=on"):
        check_data_pin(10, PI4, euid=1000, spi_device=str(tmp_path / "spidev0.0"))


def test_pwm_pin_without_root_is_refused_with_the_way_out() -> None:
    with pytest.raises(HardwareError, match=r"GPIO18 need root.*lights\.data_pin = 10"):
        check_data_pin(18, PI4, euid=1000)


def test_default_data_pin_needs_no_root() -> None:
    from crownhead.firmware.config import default_config

    assert default_config().lights.data_pin == 10
    assert NeoPixelLights.__init__.__kwdefaults__["data_pin"] == 10


def test_a_driver_failing_at_the_first_frame_is_a_hardware_error() -> None:
    class Failing:
        deinited = False

        def fill(self, colour) -> None:
            pass

        def show(self) -> None:
            raise RuntimeError("ws2811_init failed with code -13 (Unable to initialize SPI)")

        def deinit(self) -> None:
            Failing.deinited = True

    with pytest.raises(HardwareError, match=r"cannot drive the LED strip on GPIO10: RuntimeError"):
        NeoPixelLights(build_pixel_map(32), data_pin=10, pixels=Failing())
    assert Failing.deinited
