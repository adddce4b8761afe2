"""open_hardware: backends chosen by configuration and --hal, and nothing left half-open."""

from __future__ import annotations

import pytest
from gpiozero import OutputDevice
from gpiozero.pins.mock import MockFactory

from crownhead.firmware.config import ConfigError, default_config, parse_config
from crownhead.firmware.app.hardware import START_POSITION, open_hardware
from crownhead.hal.buttons import ButtonEvent
from crownhead.hal.clock import VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.hal.lights import FrameLimiter, NullLights
from crownhead.hal.matrix import MatrixSensors
from crownhead.hal.sensors import mask_of
from crownhead.hal.shift import ShiftRegisterSensors
from crownhead.sim.gpio_models import MatrixWiring, ShiftChainWiring


def test_default_is_the_simulator_in_the_start_position() -> None:
    clock = VirtualClock()
    with open_hardware(default_config(), clock) as hw:
        assert hw.backend == "sim" and hw.sim is not None
        assert hw.sensors.snapshot() == mask_of(START_POSITION)
        assert isinstance(hw.lights, FrameLimiter) and hw.lights.inner is hw.sim.lights
        hw.sim.press("new")
        assert hw.buttons.poll() == [ButtonEvent("new", 0)]
        assert hw.debounced().state == mask_of(START_POSITION)
    assert hw.sim.lights.closed


def test_gpio_board_with_neopixels_and_buttons(neopixel_wire: list[bytes]) -> None:
    config = parse_config({"board": {"backend": "gpio", "serial_console": "off"}, "lights": {"brightness": 1.0}})
    m = config.matrix
    wiring = MatrixWiring(m.rows, m.cols)
    factory = MockFactory(pin_class=wiring.pin_class())
    clock = VirtualClock()
    # The real neopixel.NeoPixel on the configured data pin; only the transmit is recorded.
    hw = open_hardware(config, clock, start=False, pin_factory=factory)
    assert neopixel_wire == [bytes(96)]  # opening blanks the strip
    assert isinstance(hw.sensors, MatrixSensors)
    wiring.set_occupancy(mask_of([7]))
    assert hw.sensors.scan_once() == mask_of([7])
    hw.lights.show({7: (1, 2, 3)})
    # Square 7 is pixel 6 on the row-major map from a8; GRB order on the wire.
    assert neopixel_wire[-1] == bytes(18) + bytes([2, 1, 3]) + bytes(96 - 21)
    pin = factory.pin(config.buttons.pins["hint"])
    pin.drive_low()
    pin.drive_high()
    assert [e.name for e in hw.buttons.poll()] == ["hint"]
    pixels = hw.lights.inner._pixels  # type: ignore[attr-defined]
    hw.close()
    assert neopixel_wire[-1] == bytes(96) and pixels.pin._pin is None  # blanked, pin released
    sent = len(neopixel_wire)
    hw.close()  # idempotent
    assert len(neopixel_wire) == sent


def test_shift_board_started_scans_in_its_thread() -> None:
    config = parse_config({"board": {"backend": "shift", "serial_console": "off"}, "lights": {"backend": "none"}})
    s = config.shift
    wiring = ShiftChainWiring(s.load_pin, s.clock_pin, s.data_pin)
    wiring.set_occupancy(mask_of([1, 2]))
    hw = open_hardware(config, VirtualClock(), pin_factory=MockFactory(pin_class=wiring.pin_class()))
    try:
        assert isinstance(hw.sensors, ShiftRegisterSensors) and hw.sensors.running
        assert hw.sensors.snapshot() == mask_of([1, 2])  # the first scan happened on start
        assert isinstance(hw.lights.inner, NullLights)
    finally:
        hw.close()
    assert not hw.sensors.running


def test_hal_override_is_checked_like_the_file() -> None:
    config = parse_config({"lights": {"data_pin": 4}})  # fine for the simulator...
    with pytest.raises(ConfigError, match=r"lights\.data_pin: GPIO4 is also used by matrix\.rows"):
        open_hardware(config, VirtualClock(), hal="gpio", pin_factory=MockFactory())
    with pytest.raises(ConfigError, match="unknown hardware backend"):
        open_hardware(config, VirtualClock(), hal="usb")


def test_a_failure_releases_what_was_opened() -> None:
    config = parse_config({"board": {"backend": "gpio", "serial_console": "off"}, "lights": {"backend": "none"}})
    factory = MockFactory()
    # Something else holds a button pin: opening the buttons fails after the matrix
    # was set up.
    squatter = OutputDevice(config.buttons.pins["claim"], pin_factory=factory)
    with pytest.raises(HardwareError, match="button pins"):
        open_hardware(config, VirtualClock(), start=False, pin_factory=factory)
    squatter.close()
    # The matrix pins were released: the board opens now.
    hw = open_hardware(config, VirtualClock(), start=False, pin_factory=factory)
    assert sorted(hw.buttons.names) == ["black", "claim", "hint", "new", "takeback", "white"]
    hw.close()
