"""The pin plan's checks that keep a first build from damaging a pin: buttons on the
serial console's pins only once the console is declared off, and a serial board's LED
chain laid out where it is driven."""

from __future__ import annotations

import pytest

from firmware.config import ConfigError, parse_config


@pytest.mark.parametrize("backend", ["gpio", "shift"])
def test_buttons_on_the_console_pins_need_the_console_declared_off(backend: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config({"board": {"backend": backend}})  # the default black/white: GPIO14/15
    message = str(refused.value)
    assert message.startswith("buttons.pins.black: GPIO14 is the serial console's TX pin")
    assert "sudo raspi-config nonint do_serial_cons 1" in message and 'board.serial_console = "off"' in message
    config = parse_config({"board": {"backend": backend, "serial_console": "off"}})
    assert dict(config.buttons.pins)["black"] == 14


def test_other_pins_and_other_backends_do_not_care_about_the_console() -> None:
    pins = {"new": 16, "hint": 20, "black": 2, "white": 3}  # a board without a display
    assert parse_config({"board": {"backend": "gpio"}, "buttons": {"pins": pins}}).board.serial_console == "on"
    assert parse_config({"board": {"backend": "serial"}}).board.backend == "serial"  # a Pico's buttons
    assert parse_config({}).board.backend == "sim"
    with pytest.raises(ConfigError, match=r"buttons\.pins\.white: GPIO15 is the serial console's RX pin"):
        parse_config({"board": {"backend": "gpio"}, "buttons": {"pins": {"white": 15}}})


def test_serial_console_takes_on_or_off() -> None:
    with pytest.raises(ConfigError, match="serial_console"):
        parse_config({"board": {"serial_console": "disabled"}})


def test_a_serial_boards_chain_is_laid_out_on_the_board() -> None:
    with pytest.raises(ConfigError, match="LED_MAP and LED_ORIGIN"):
        parse_config({"board": {"backend": "serial"}, "lights": {"map": "serpentine"}})
    # For LEDs the Pi drives, the same keys are what lays the chain out.
    config = parse_config({"board": {"backend": "gpio", "serial_console": "off"}, "lights": {"map": "serpentine"}})
    assert config.lights.map == "serpentine"
