"""``crownhead selftest`` with the simulator: unattended, and finding injected faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.diagnostics.selftest import COLOURS, ConsoleOperator, Selftest, SimHand, parse_squares
from crownhead.firmware.config import default_config
from crownhead.firmware.app.hardware import open_hardware
from crownhead.hal.clock import VirtualClock


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``crownhead selftest`` keeps its result by default: this test's own directory,
    never the user's or the system's."""
    import crownhead.firmware.files as store

    monkeypatch.setattr(store, "SYSTEM_STATE_DIR", tmp_path / "no-system-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["selftest", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_simulated_board_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--hal", "sim")
    assert code == 0, out + err
    assert "Walked 32 square(s)." in out and "LED colours: checked" in out and "No faults found." in out


def test_stuck_switch_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--hal", "sim", "--sim-stuck", "12")
    assert code == 1
    assert "FAULTS (1):" in out
    assert "square 12 (h6): reads occupied with the board cleared - switch stuck closed" in out


def test_several_faults_are_each_reported_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--hal",
        "sim",
        "--sim-swap",
        "5,6",
        "--sim-stuck-open",
        "30",
        "--sim-dead-led",
        "7,9",
        "--sim-stuck",
        "1",
    )
    assert code == 1
    faults = [line for line in out.splitlines() if line.startswith("  - ")]
    assert faults == [
        "  - square 1 (b8): reads occupied with the board cleared - switch stuck closed or shorted "
        "(or a piece left on it); not walked",
        "  - square 5 (a7): answered as square 6 (c7) (wires swapped or miswired)",
        "  - square 6 (c7): answered as square 5 (a7) (wires swapped or miswired)",
        "  - square 30 (c1): switch never closed when a piece was placed (open switch, weak magnet or broken wire)",
        "  - square 7 (e7): LED does not light red, green, blue, white",
        "  - square 9 (b6): LED does not light red, green, blue, white",
    ]


def test_faults_from_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[sim]\nstuck_closed = [20]\nposition = 'empty'\n")
    code, out, _ = run(capsys, "--config", str(path), "--squares", "17-24", "--no-leds")
    assert code == 1
    assert "square 20 (h4)" in out and "Walked 7 square(s)." in out and "LED colours" not in out


def test_verbose_shows_the_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--hal", "sim", "--squares", "3", "--no-leds", "--verbose")
    assert code == 0 and "(hand) asked for square 3, placing on 3" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--hal", "sim", "--squares", "0-40"], "--squares"),
        (["--config", "/nonexistent/crownhead.toml"], "no such file"),
        (["--hal", "gpio", "--sim-stuck", "3"], "need the simulator"),
    ],
)
def test_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["--sim-stuck", "33"], ["--sim-swap", "5"], ["--timeout", "-1"], ["--hal", "wires"]])
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["selftest", *argv])
    assert info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_the_hand_follows_the_light_so_a_wrong_led_is_caught() -> None:
    """If the selftest lit the wrong square, the hand would put the piece there and the
    walk would report it: the check of the lighting is real."""
    clock = VirtualClock()
    config = default_config().replace("sim", position="empty", hand_bounces=0)
    hw = open_hardware(config, clock)

    class Miswired(SimHand):
        def request_place(self, square: int) -> None:
            self.board.lights.show({square % 32 + 1: (255, 255, 255)})  # the LED map is off by one
            super().request_place(square)

    result = Selftest(hw, Miswired(hw.sim), idle=clock.advance, timeout_ms=500, squares=[4], leds=False).run()
    assert result.faults == ["square 4 (h8): answered as square 5 (a7) (wires swapped or miswired)"]


def test_led_phase_lights_every_colour_on_every_square() -> None:
    clock = VirtualClock()
    hw = open_hardware(default_config(), clock)
    Selftest(hw, SimHand(hw.sim), idle=clock.advance, timeout_ms=500, squares=[], leds=True).run()
    frames = [f.frame for f in hw.sim.lights.frames]
    for _name, rgb in COLOURS:
        full = [f for f in frames if len(f) == 64 and set(f.values()) == {rgb}]
        assert full, f"no frame with every square {rgb}"
    assert frames[-1] == {}  # and the board is dark at the end


def test_console_operator_asks_about_dark_squares() -> None:
    import io

    answers = iter(["x", "3, 5-6", ""])
    out = io.StringIO()
    op = ConsoleOperator(out, interactive=True, ask=lambda prompt: next(answers))
    assert op.dark_squares("red", (255, 0, 0), range(1, 33)) == {3, 5, 6}
    assert "try again" in out.getvalue()
    assert op.dark_squares("red", (255, 0, 0), range(1, 33)) == set()
    quiet = ConsoleOperator(out, interactive=False, idle=lambda ms: None)
    assert quiet.dark_squares("red", (255, 0, 0), range(1, 33)) is None


def test_parse_squares() -> None:
    assert parse_squares("1-3,12 20") == {1, 2, 3, 12, 20}
    for bad in ("0", "5-2", "a", "1-33"):
        with pytest.raises(ValueError):
            parse_squares(bad)


@pytest.mark.parametrize("lights", ["none", "neopixel"])
def test_hal_sim_on_a_pi_configuration_uses_the_simulators_leds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lights: str
) -> None:
    # A Pi's file: real switches, LEDs off or on a strip. `--hal sim` must simulate the
    # whole board, not pair simulated switches with no LEDs (every LED "dead") or with
    # a strip this machine does not have.
    path = tmp_path / "pi.toml"
    path.write_text(f"[board]\nbackend = 'gpio'\nserial_console = 'off'\n[lights]\nbackend = '{lights}'\n")
    code, out, err = run(capsys, "--hal", "sim", "--config", str(path))
    assert code == 0, out + err
    assert "LED colours: checked" in out and "No faults found." in out


def test_a_board_without_leds_skips_the_colour_check() -> None:
    """Real hardware with ``lights.backend = "none"``: nobody is asked about LEDs that
    do not exist (a person would name every square, 32 false faults)."""
    from gpiozero.pins.mock import MockFactory

    from crownhead.sim.gpio_models import MatrixWiring

    clock = VirtualClock()
    config = default_config().replace("lights", backend="none").replace("buttons", backend="none")
    wiring = MatrixWiring(config.matrix.rows, config.matrix.cols)
    factory = MockFactory(pin_class=wiring.pin_class())
    hw = open_hardware(config, clock, hal="gpio", start=False, pin_factory=factory)
    sensors = hw.sensors

    class Person:
        asked = False

        def say(self, text: str) -> None: ...
        def request_clear(self) -> None: ...
        def request_place(self, square: int) -> None: ...
        def request_lift(self, square: int) -> None: ...

        def dark_squares(self, colour, rgb, squares):
            Person.asked = True
            return set(squares)

    def idle(ms: int) -> None:
        clock.advance(ms)
        sensors.scan_once()

    sensors.scan_once()
    result = Selftest(hw, Person(), idle=idle, timeout_ms=100, squares=[], leds=True).run()
    hw.close()
    assert result.leds_skipped and not Person.asked and result.faults == []


def test_console_operator_names_the_square_when_nothing_is_lit() -> None:
    import io

    out = io.StringIO()
    ConsoleOperator(out, interactive=False, lit=False).request_place(5)
    ConsoleOperator(out, interactive=False).request_place(5)
    assert out.getvalue().splitlines() == [
        "Place a piece on square 5 (a7).",
        "Square 5 (a7) is lit: place a piece on it.",
    ]


def test_display_buzzer_and_every_button_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[display]\ndriver = "ssd1306"\n')
    code, out, err = run(capsys, "--hal", "sim", "--config", str(config))
    assert code == 0, out + err
    assert "Display: checked" in out and "Buzzer: checked" in out
    from crownhead.hal.buttons import BUTTON_NAMES

    pressed = out.split("Buttons pressed: ")[1].splitlines()[0].split(", ")
    assert pressed == list(BUTTON_NAMES)  # listed in the order they were pressed
    assert "Buttons never pressed" not in out


def test_an_unplugged_display_is_a_fault() -> None:
    clock = VirtualClock()
    hw = open_hardware(default_config().replace("display", driver="sh1106"), clock)
    assert hw.sim is not None and hw.display is not None
    hw.display.unplug()
    result = Selftest(hw, SimHand(hw.sim), idle=clock.advance, timeout_ms=2000).run()
    hw.close()
    assert result.faults == [
        "display: cannot be reached (simulated display: unplugged); check the wiring, I2C on and display.address"
    ]


def test_console_operator_lists_buttons_and_asks_about_the_display() -> None:
    import io

    out = io.StringIO()
    answers = iter(["maybe", "n"])
    operator = ConsoleOperator(out, interactive=True, ask=lambda _q: next(answers), idle=lambda ms: None)
    assert operator.confirm("Does the display show SELF TEST?", lambda: True) is False
    operator.request_buttons(["new", "black"])
    assert "Answer y or n." in out.getvalue() and "Press every button in turn (new, black)" in out.getvalue()
