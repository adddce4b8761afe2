"""Configuration: the example loads, defaults mean the simulator, and every broken file
gives one clear error naming the file, the line and the key."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Literal

import pytest

import crownhead.firmware.config as cfg
from crownhead.firmware.config import (
    ConfigError,
    FieldError,
    config_section,
    default_config,
    load_config,
    parse_config,
)
from crownhead.firmware.config.hardware import LightsConfig, check_pins, used_pins

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_example_loads_and_matches_the_defaults() -> None:
    from crownhead.firmware.cli import build_parser

    build_parser()  # every section the example documents is registered, run alone too
    config = load_config(EXAMPLE)
    assert config.path == str(EXAMPLE)
    # The example documents the defaults: loading it changes nothing.
    assert config == default_config()


def test_the_defaults_made_at_once_pass_every_check() -> None:
    """default_config() makes each section when first read: made together, with every
    cross-section check run, they are the same."""
    config = parse_config({})
    assert config == default_config()
    assert config.sections.keys() == default_config().sections.keys() == cfg.sections().keys()


HARDWARE_SECTIONS = ("board", "sensors", "matrix", "shift", "serial", "lights", "buttons", "display", "buzzer", "sim")


def test_example_documents_every_key_of_every_section() -> None:
    from crownhead.firmware.cli import build_parser

    build_parser()  # every command module imported: every section registered
    text = EXAMPLE.read_text()
    assert set(HARDWARE_SECTIONS) <= set(cfg.sections())
    for name in sorted(cfg.sections()):
        cls = cfg.sections()[name]
        assert f"[{name}]" in text
        for f in dataclasses.fields(cls):
            assert f"\n{f.name} =" in text or f"[{name}.{f.name}]" in text or f"# {f.name} =" in text, (
                f"{name}.{f.name} undocumented"
            )


def test_defaults_are_the_simulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cfg.CONFIG_ENV, raising=False)
    config = load_config(default_path=str(tmp_path / "absent.toml"))
    assert config.board.backend == "sim" and config.path is None
    assert config.get(LightsConfig).brightness == 0.1


def test_default_path_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, '[board]\nbackend = "gpio"\n')
    monkeypatch.delenv(cfg.CONFIG_ENV, raising=False)
    assert load_config(default_path=str(path)).board.backend == "gpio"
    monkeypatch.setenv(cfg.CONFIG_ENV, str(path))
    assert load_config().board.backend == "gpio"
    assert cfg.DEFAULT_CONFIG_PATH == "/etc/crownhead/config.toml"


def test_a_full_hardware_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[board]
backend = "gpio"
[lights]
data_pin = 10
pixels = 64
map = "serpentine"
origin = "a1"
brightness = 0.2
[buttons]
pins = { new = 2, resign = 3, draw = 14, force = 15 }
""",
    )
    config = load_config(path)
    assert config.lights.pixels == 64 and config.lights.data_pin == 10
    assert dict(config.buttons.pins) == {"new": 2, "resign": 3, "draw": 14, "force": 15}
    assert ("lights.data_pin", 10) in used_pins(config)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.lights.brightness = 1.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        config.board = None  # type: ignore[misc]


# Each case: the file, then what the single error message must contain.
BROKEN = [
    (
        "[lights]\nbrightnes = 0.2\n",
        ["lights.brightnes", "unknown key", "did you mean brightness", ":2:"],
    ),
    ("[lihgts]\nbrightness = 0.2\n", ["unknown section [lihgts]", "did you mean [lights]", ":1:"]),
    ("backend = 'gpio'\n", ["top-level key 'backend'", "[board]", ":1:"]),
    (
        "[board]\nbackend = 'wires'\n",
        ["board.backend", 'one of "sim", "gpio", "shift", "serial"', '"wires"'],
    ),
    ("[board]\nbackend = 3\n", ["board.backend", "got 3"]),
    ("[sensors]\ndebounce_ms = '30'\n", ["sensors.debounce_ms", "expected an integer", '"30"']),
    ("[sensors]\ndebounce_ms = 30.5\n", ["sensors.debounce_ms", "expected an integer"]),
    ("[sensors]\ndebounce_ms = -1\n", ["sensors.debounce_ms", "between 0 and 1000"]),
    ("[sensors]\ndebounce_ms = true\n", ["sensors.debounce_ms", "got true"]),
    (
        "[matrix]\nrows = [4, 17, 27, 22, 5, 6, 13]\n",
        ["matrix.rows", "needs 8 pins", "got 7", ":2:"],
    ),
    (
        "[matrix]\nrows = [4, 17, 27, 22, 5, 6, 13, 13]\n",
        ["matrix.rows[7]: GPIO13 is listed twice (also matrix.rows[6])", ":2:"],
    ),
    (
        "[matrix]\ncols = [23, 24, 25, 4]\n",
        ["matrix.cols[3]: GPIO4 is also used by matrix.rows[0]"],
    ),
    (
        "[matrix]\ncols = [23, 24, 25, 40]\n",
        ["matrix.cols[3]", "GPIO40 is not on the Raspberry Pi 40-pin header", ":2:"],
    ),
    ("[matrix]\ncols = [23, 24, 25, 1]\n", ["matrix.cols", "GPIO1", "BCM numbers 2-27"]),
    ("[matrix]\nrows = 'all'\n", ["matrix.rows", "expected a list of integers"]),
    (
        "[matrix]\nrows = [4, 17, 27, 22, 5, 6, 13, 'x']\n",
        ["matrix.rows[7]", "expected an integer"],
    ),
    (
        "[shift]\nload_pin = 4\nclock_pin = 4\n",
        ["shift.clock_pin", "GPIO4 is also used by shift.load_pin", ":3:"],
    ),
    ("[shift]\nsquares = [1, 2, 3]\n", ["shift.squares", "needs 32 entries"]),
    ("[serial]\nport = ''\n", ["serial.port", "must name a serial device"]),
    ("[serial]\nbaudrate = 12345\n", ["serial.baudrate", "not a standard rate"]),
    ("[lights]\npixels = 48\n", ["lights.pixels", "32 (dark squares) or 64"]),
    ("[lights]\nmap = [1, 2, 3]\n", ["lights.map", "exactly 32 entries", "got 3", ":2:"]),
    ("[lights]\npixels = 64\nmap = [1, 2]\n", ["lights.map", "exactly 64 entries"]),
    ("[lights]\nmap = 'zigzag'\n", ["lights.map", '"row-major", "serpentine" or a list']),
    ("[lights]\nmap = ['a8'] \n", ["lights.map", "exactly 32"]),
    ("[lights]\npixel_order = 'RGBW'\n", ["lights.pixel_order", "GRB"]),
    ("[lights]\nbrightness = 1.5\n", ["lights.brightness", "at most 1.0"]),
    ("[lights]\nbrightness = 0\n", ["lights.brightness", "greater than 0"]),
    ("[lights]\norigin = 'e4'\n", ["lights.origin", '"a8", "h8", "a1", "h1"']),
    ("[lights]\ndata_pin = 28\n", ["lights.data_pin", "GPIO28"]),
    (
        "[buttons]\npins = { nwe = 16 }\n",
        ["buttons.pins.nwe", "unknown button", "did you mean new"],
    ),
    (
        "[buttons]\npins = { new = 16, hint = 16 }\n",
        ["buttons.pins.hint", "GPIO16 is also used by buttons.pins.new"],
    ),
    ("[buttons]\npins = [16]\n", ["buttons.pins", "expected a table of integers"]),
    ("[buttons.pins]\nnew = 'x'\n", ["buttons.pins.new", "expected an integer", ":2:"]),
    # Pins that clash between sections, for the backend in use:
    (
        "[board]\nbackend = 'gpio'\n[lights]\ndata_pin = 4\n",
        ["lights.data_pin", "GPIO4 is also used by matrix.rows[0]", ":4:"],
    ),
    (
        "[board]\nbackend = 'gpio'\n[buttons.pins]\nnew = 23\n",
        ["buttons.pins.new", "GPIO23 is also used by matrix.cols[0]", ":4:"],
    ),
    (
        "[board]\nbackend = 'shift'\n[lights]\ndata_pin = 27\n",
        ["lights.data_pin", "GPIO27 is also used by shift.data_pin"],
    ),
    (
        "[board]\nbackend = 'gpio'\n[lights]\nbackend = 'serial'\n",
        ["lights.backend", 'needs board.backend = "serial"'],
    ),
    ("[sim]\nstuck_closed = [0]\n", ["sim.stuck_closed", "1-32"]),
    ("[sim]\nswap = [[5, 5]]\n", ["sim.swap", "two different squares"]),
    ("[sim]\nswap = [[5, 6], [6, 7]]\n", ["sim.swap", "square 6 appears in two swaps"]),
    ("[sim]\nstuck_closed = [3]\nstuck_open = [3]\n", ["sim.stuck_open", "both closed and open"]),
    ("[board\nbackend = 'sim'\n", ["not valid TOML", ":1:"]),
    ("[board]\nbackend = 'sim'\nbackend = 'gpio'\n", ["not valid TOML", ":3:"]),
    ("[board]\nbackend = sim\n", ["not valid TOML"]),
    ("board = 3\n", ["board: must be a table (a [board] section)", ":1:"]),
]


@pytest.mark.parametrize("text, expected", BROKEN, ids=[f"case{i}" for i in range(len(BROKEN))])
def test_broken_files_give_one_clear_error(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert "\n" not in message and "Traceback" not in message
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"[board]\n# caf\xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(bad)


def test_pin_clash_depends_on_the_backend_in_use() -> None:
    # A [matrix] left in the file does not matter for a shift-register board.
    config = parse_config({"board": {"backend": "shift"}, "lights": {"data_pin": 4}, "shift": {"load_pin": 5}})
    assert config.lights.data_pin == 4
    with pytest.raises(FieldError):
        check_pins(config, "gpio")


def test_replace_validates() -> None:
    config = default_config()
    assert config.replace("sim", stuck_closed=(12,)).sim.stuck_closed == (12,)
    with pytest.raises(ConfigError, match=r"sim\.stuck_closed"):
        config.replace("sim", stuck_closed=(40,))
    with pytest.raises(ConfigError, match="unknown key"):
        config.replace("sim", stuck=(1,))
    with pytest.raises(ConfigError, match="expected"):
        config.replace("lights", brightness="high")


def test_a_new_section_is_one_dataclass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cfg, "_SECTIONS", dict(cfg._SECTIONS))

    @config_section("tracker")
    @dataclasses.dataclass(frozen=True)
    class TrackerConfig:
        settle_ms: int = 400
        mode: Literal["strict", "relaxed"] = "strict"

        def validate(self) -> None:
            if self.settle_ms > 5000:
                raise FieldError("settle_ms", "must be at most 5000")

    config = load_config(write(tmp_path, "[tracker]\nmode = 'relaxed'\n"))
    assert config.tracker == TrackerConfig(400, "relaxed")
    assert config.get(TrackerConfig).mode == "relaxed"
    with pytest.raises(ConfigError, match=r"config\.toml:2: tracker\.settle_ms: must be at most 5000"):
        load_config(write(tmp_path, "[tracker]\nsettle_ms = 9000\n"))
    with pytest.raises(TypeError):
        config_section("bad")(type("NotADataclass", (), {}))


def test_field_types_other_sections_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cfg, "_SECTIONS", dict(cfg._SECTIONS))

    @config_section("extra")
    @dataclasses.dataclass(frozen=True)
    class Extra:
        names: list[str] = dataclasses.field(default_factory=list)
        pair: tuple[int, int] = (1, 2)
        limit: int | None = None
        ratio: float = 0.5

    config = parse_config({"extra": {"names": ["a"], "pair": [3, 4], "limit": 7, "ratio": 1}})
    assert config.extra == Extra(["a"], (3, 4), 7, 1.0)
    for table, message in (
        ({"pair": [1]}, "extra.pair: expected a list of 2 values, got 1"),
        ({"limit": "x"}, 'extra.limit: expected an integer or nothing, got "x"'),
        ({"names": [1]}, "extra.names[0]: expected a string, got 1"),
        ({"ratio": True}, "extra.ratio: expected a number, got true"),
    ):
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_config({"extra": table})


HARDWARE_MISTAKES = [
    ("[lights]\nbrightnes = 0.2\n", ":2: lights.brightnes: unknown key"),
    ("[board]\nbackend = 'gpio'\n[buttons.pins]\nnew = 23\n", ":4: buttons.pins.new: GPIO23"),
    ("[matrix]\ncols = [23, 24, 25, 40]\n", ":2: matrix.cols[3]: GPIO40 is not on the"),
    ("[lights]\nmap = [1, 2, 3]\n", ":2: lights.map: an explicit map needs exactly 32"),
    ("[sensors]\ndebounce_ms = '30'\n", ":2: sensors.debounce_ms: expected an integer"),
]


@pytest.mark.parametrize("text, expected", HARDWARE_MISTAKES)
@pytest.mark.parametrize("command", [["run", "--headless"], ["sensors", "--once"], ["selftest"]])
def test_commands_refuse_to_start_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    text: str,
    expected: str,
) -> None:
    from crownhead.firmware.cli import main

    path = write(tmp_path, text)
    state = tmp_path / "state"
    extra = ["--state-dir", str(state)] if command[0] == "run" else []
    assert main([*command, *extra, "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"crownhead {command[0]}: {path}{expected}"), err
    assert err.count("\n") == 1 and "Traceback" not in err and out == ""
    assert not state.exists()  # nothing started: not even the game store was created
