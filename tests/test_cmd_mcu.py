"""`crownhead mcu install` and `crownhead mcu check`, run as a person would."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.mcu import FIRMWARE_DIR, FIRMWARE_FILES, load_firmware
from crownhead.firmware.mcu.install import mpremote_command
from crownhead.firmware.mcu.standins import Bench, PtyStream
from crownhead.hal.clock import MonotonicClock
from crownhead.sim.board import SimBoard
from crownhead.sim.gpio_models import MatrixWiring
from crownhead.sim.serial_board import BoardEmulator, PtyEndpoint


def test_install_dry_run_names_mpremote_and_both_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcu", "install", "--dry-run", "--port", "/dev/ttyACM3"]) == 0
    line = capsys.readouterr().out.strip()
    assert " -m mpremote connect /dev/ttyACM3 cp " in line and line.endswith(": + reset")
    for name in FIRMWARE_FILES:
        assert str(FIRMWARE_DIR / name) in line
    assert mpremote_command()[4] == "auto"


def test_install_on_a_missing_port_is_one_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("mpremote", reason="mpremote is not installed")
    assert main(["mcu", "install", "--port", str(tmp_path / "ttyACM9")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("crownhead mcu install: mpremote could not install the firmware on ")
    assert "ttyACM9" in err and len(err.strip().splitlines()) == 1


def test_check_on_a_missing_port(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["mcu", "check", "--port", str(tmp_path / "nothing")]) == 2
    assert "cannot open the board" in capsys.readouterr().err


def test_check_against_the_emulator_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcu", "check", "--against", "emulator", "--only", "bad", "--only", "led"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and "led frame: shown exactly" in out
    assert out.strip().endswith("0 failed, 0 skipped")


class _Running:
    """A board on a pty in real time: a thread steps it, as a microcontroller would."""

    def __init__(self, kind: str) -> None:
        self.endpoint = PtyEndpoint()
        self.stop = threading.Event()
        clock = MonotonicClock()
        if kind == "emulator":
            self.sim = SimBoard(clock, pieces={5: "b"})
            emulator = BoardEmulator(self.sim, self.endpoint)
            step = emulator.service
        else:
            fw = load_firmware()
            wiring = MatrixWiring(fw.ROW_PINS, fw.COL_PINS)
            wiring.set_occupancy(1 << 4)
            bench = Bench(wiring, clock)
            board = fw.Board(
                bench.machine.Pin,
                bench.neopixel.NeoPixel,
                PtyStream(self.endpoint),
                clock.now_ms,
                wdt=bench.machine.WDT(timeout=fw.WATCHDOG_MS),
            )
            board.boot()
            step = board.step
        self.thread = threading.Thread(target=self._run, args=(step,), daemon=True)
        self.thread.start()

    def _run(self, step) -> None:  # type: ignore[no-untyped-def]
        while not self.stop.wait(0.001):
            step()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(60)
        self.endpoint.close()


@pytest.mark.parametrize("kind", ["emulator", "firmware"])
def test_check_on_a_port_in_real_time(kind: str) -> None:
    board = _Running(kind)
    out = io.StringIO()
    try:
        from crownhead.firmware.cli.mcu import run_check
        import argparse

        args = argparse.Namespace(
            port=board.endpoint.path,
            config=None,
            against="port",
            # Real time, on a machine that may be busy: an answer ends each wait as soon as
            # it comes, so the long bound costs nothing unless the board never answers. What
            # must not come (an ERR for a good line) is listened for a short while only.
            answer_ms=30_000,
            quiet_ms=300,
            # A few seconds of real time: the whole suite runs on virtual time elsewhere.
            only=["hello", "occ", "heartbeat", "led frame", "button", "unknown", "256"],
        )
        code = run_check(args, out)
    finally:
        board.close()
    text = out.getvalue()
    assert code == 0, text
    assert "OCC 00000010" in text  # square 5, as the board reads it
    # A port cannot move pieces or press buttons: those checks are skipped, not faked.
    assert "SKIP  occupancy changes" in text and "SKIP  button" in text
    assert "7 passed, 0 failed, 2 skipped" in text
