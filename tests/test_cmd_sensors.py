"""``crownhead sensors``: the occupancy diagram, once and live, on the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.diagnostics.sensors import render_occupancy
from crownhead.hal.sensors import mask_of


def test_diagram_marks_dark_squares_only() -> None:
    text = render_occupancy(mask_of([1, 5, 32]))
    lines = text.splitlines()
    assert lines[0].split()[:8] == list("abcdefgh")
    assert lines[1].startswith(" 8    O   .   .   .")  # b8 = square 1
    assert lines[2].startswith(" 7  O   .   .   .")  # a7 = square 5
    assert lines[8].startswith(" 1  .   .   .   O")  # g1 = square 32
    assert lines[1].endswith("8     1     2     3     4")
    assert lines[-1] == "occupied (3): 1 5 32"


def test_once_on_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "--once", "--hal", "sim"]) == 0
    out = capsys.readouterr().out
    assert "occupied (24): 1 2 3 4 5 6 7 8 9 10 11 12 21 22" in out
    assert "backend: sim" in out


def test_once_shows_injected_faults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "--once", "--hal", "sim", "--sim-empty", "--sim-stuck", "14"]) == 0
    assert "occupied (1): 14" in capsys.readouterr().out


def test_live_until_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "--hal", "sim", "--seconds", "0.05", "--interval", "5", "--light"]) == 0
    out = capsys.readouterr().out
    assert out.count("occupied (24)") == 1  # drawn once: nothing changed


def test_errors_are_messages_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text("[lights]\nbrightnes = 1\n")
    assert main(["sensors", "--once", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "lights.brightnes: unknown key" in err and "Traceback" not in err
    assert main(["sensors", "--once", "--hal", "serial", "--config", str(tmp_path / "none.toml")]) == 2
    assert "none.toml: no such file" in capsys.readouterr().err


def test_gpio_that_cannot_be_opened_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A pin library that does not exist: what a machine without GPIO looks like.
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-pin-library")
    monkeypatch.delenv("CROWNHEAD_CONFIG", raising=False)
    config = tmp_path / "config.toml"
    config.write_text('[board]\nserial_console = "off"\n')  # not this machine's console: nothing to look at
    assert main(["sensors", "--once", "--hal", "gpio", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("crownhead sensors: cannot set up the switch matrix pins:")
    assert "Traceback" not in err and err.count("\n") == 1


def test_live_redraws_on_change_and_logs_events(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import io
    import threading

    from crownhead.firmware.cli import sensors
    from crownhead.firmware.config import default_config
    from crownhead.firmware.app.hardware import open_hardware
    from crownhead.hal.clock import MonotonicClock

    hw = open_hardware(default_config(), MonotonicClock())
    monkeypatch.setattr(sensors, "open_from_args", lambda args, clock: hw)
    mover = threading.Timer(0.05, lambda: hw.sim.lift(1))
    mover.start()
    out = io.StringIO()
    args = argparse.Namespace(once=False, seconds=0.3, interval=5, light=False, wait=1.0)
    try:
        assert sensors.run(args, out) == 0
    finally:
        mover.cancel()
    text = out.getvalue()
    assert text.count("occupied (24)") == 1 and text.count("occupied (23)") == 1
    assert "square  1 (b8) opened (empty)" in text
    assert hw.sim.lights.closed  # the command closed the hardware
