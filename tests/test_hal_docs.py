"""docs/hardware.md and config.example.toml agree with the code they describe: the pin
plan with the defaults and the Pi header, the power table with the current estimate,
the button names with the ones the software accepts, and the topics a maker needs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from crownhead.firmware.config import default_config
from crownhead.firmware.config.hardware import I2C_PINS
from crownhead.hal.buttons import BUTTON_NAMES
from crownhead.hal.lights import estimate_current_ma

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "hardware.md").read_text()
EXAMPLE = (REPO / "config.example.toml").read_text()
WHITE = (255, 255, 255)


def section(title: str) -> str:
    """The text of the ``##``/``###`` section called ``title`` (up to the next heading)."""
    m = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", DOC, re.M | re.S)
    assert m, f"docs/hardware.md has no section {title!r}"
    return m.group(1)


def pin_plan() -> dict[str, tuple[int, int]]:
    """function -> (GPIO, header pin) from the default pin plan table (both halves)."""
    plan: dict[str, tuple[int, int]] = {}
    for line in section("Default pin plan").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for name, gpio, header in (cells[0:3], cells[4:7]) if len(cells) >= 7 else ():
            if gpio.isdigit() and header.isdigit():
                plan[name] = (int(gpio), int(header))
    return plan


def test_pin_plan_is_the_default_configuration() -> None:
    config = default_config()
    plan = pin_plan()
    expected = {
        **{f"matrix row {i} (rank {8 - i})": p for i, p in enumerate(config.matrix.rows)},
        **{f"matrix col {i}": p for i, p in enumerate(config.matrix.cols)},
        **{f"button `{n}`": p for n, p in config.buttons.pins.items()},
        "shift SH/LD (load)": config.shift.load_pin,
        "shift CLK": config.shift.clock_pin,
        "shift QH (data)": config.shift.data_pin,
        "LED data (SPI MOSI)": config.lights.data_pin,
        "display SDA (I2C)": I2C_PINS[config.display.port][0],
        "display SCL (I2C)": I2C_PINS[config.display.port][1],
        "buzzer": config.buzzer.pin,
    }
    assert {name: gpio for name, (gpio, _header) in plan.items()} == expected


def test_pin_plan_header_pins_match_the_pi_header() -> None:
    board = MockFactory().board_info
    for name, (gpio, header) in pin_plan().items():
        ((_hdr, info),) = board.find_pin(f"GPIO{gpio}")
        assert info.number == header, f"{name}: GPIO{gpio} is header pin {info.number}"


def test_power_table_is_what_the_estimate_gives() -> None:
    rows = re.findall(
        r"^\| \**([0-9.]+)[^|]*\|"
        r"\s*\**(\d+) mA\**\s*\|\s*\**(\d+) mA\**\s*\|\s*\**(\d+) mA\**\s*\|\s*\**(\d+) mA",
        section("Power budget"),
        re.M,
    )
    assert len(rows) >= 4
    all32 = {sq: WHITE for sq in range(1, 33)}
    all64 = {**all32, **{(r, c): WHITE for r in range(8) for c in range(8) if (r + c) % 2 == 0}}
    four = {sq: WHITE for sq in range(1, 5)}
    for cap, *figures in rows:
        b = float(cap)
        assert [int(f) for f in figures] == [
            round(estimate_current_ma(all32, b, 32)),
            round(estimate_current_ma(four, b, 32)),
            round(estimate_current_ma(all64, b, 64)),
            round(estimate_current_ma(four, b, 64)),
        ], f"power table row for brightness {cap}"
    assert str(default_config().lights.brightness) in [cap for cap, *_ in rows]


@pytest.mark.parametrize("name", BUTTON_NAMES)
def test_every_button_is_documented(name: str) -> None:
    assert re.search(rf"^\| `{name}`\s+\|", section("Push buttons"), re.M), name
    assert f"`{name}`" in section("Serial line protocol (version 1)")
    names_comment = re.search(r"# .*Names: (.*?);", EXAMPLE, re.S)
    assert names_comment and re.search(rf"\b{name}\b", names_comment.group(1)), name


@pytest.mark.parametrize(
    "topic, pattern",
    [
        ("diode orientation", r"band \(cathode\) towards the row"),
        ("level shifter on the LED data line", r"74AHCT125"),
        ("power budget for 32 and 64 LEDs", r"32 LEDs, all white .* 64 LEDs, all white"),
        ("running without root", r"## Running without root"),
        ("service user groups", r"usermod -aG gpio,spi,i2c,dialout"),
        ("systemd unit", r"deploy/crownhead\.service"),
        ("Pi 5 LED route", r"crownhead\[pi5\]"),
        ("Pi 1-4 LED route", r"crownhead\[pi4\].*rpi_ws281x"),
        ("how the scan rate was estimated", r"200 scans per second on\s+a Raspberry Pi 4"),
        ("serial protocol", r"### Serial line protocol"),
    ],
)
def test_the_wiring_document_covers(topic: str, pattern: str) -> None:
    assert re.search(pattern, DOC, re.S), f"docs/hardware.md says nothing about {topic}"
