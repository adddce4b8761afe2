"""The display, buzzer and per-side button settings: one clear error naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.config import ConfigError, load_config


def load(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (
            '[display]\ndriver = "ssd1307"\n',
            "display.driver",
            'unknown display driver "ssd1307" (did you mean ssd1306?)',
        ),
        ('[display]\ndriver = "sh1106"\naddress = 0x50\n', "display.address", "0x50 is not an address"),
        ("[display]\nport = 0\n", "display.port", "I2C bus 0"),
        ('[buzzer]\nkind = "passive"\nvolume = 2\n', "buzzer.volume", "between 0.0 and 1.0"),
        ('[buzzer]\nkind = "loud"\n', "buzzer.kind", '"none", "passive" or "active"'),
        ("[buttons]\nhold_ms = 100\n", "buttons.hold_ms", "between 300 and 10000"),
        # Pins used twice across parts: the buzzer on a button's pin, a button on I2C.
        (
            '[board]\nbackend = "gpio"\n[buzzer]\nkind = "active"\npin = 14\n',
            "buzzer.pin",
            "GPIO14 is also used by buttons.pins.black",
        ),
        (
            '[board]\nbackend = "gpio"\n[display]\ndriver = "ssd1306"\n[buttons.pins]\nnew = 2\n',
            "display.port",
            "GPIO2 is also used by buttons.pins.new",
        ),
        (
            "[buttons.pins]\nblack_draw = 7\nblack_resign = 7\n",
            "buttons.pins.black_resign",
            "GPIO7 is also used by buttons.pins.black_draw",
        ),
        ("[buttons.pins]\nblack_drwa = 7\n", "buttons.pins.black_drwa", "did you mean black_draw?"),
    ],
)
def test_one_error_naming_the_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    assert info.value.key == key and words in info.value.message, str(info.value)
    assert str(info.value).count("\n") == 0


def test_the_default_pins_do_not_conflict_with_every_part_on(tmp_path: Path) -> None:
    config = load(tmp_path, '[board]\nbackend = "gpio"\n[display]\ndriver = "sh1106"\n[buzzer]\nkind = "passive"\n')
    assert config.display.address == 0x3C and config.buzzer.pin == 18
    assert dict(config.buttons.pins)["black"] == 14 and dict(config.buttons.pins)["white"] == 15
