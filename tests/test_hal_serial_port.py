"""The serial board's port over a pty: held exclusively (a second program is told the
port is in use, and what to do), and a MicroPython board found at its REPL prompt is
restarted."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
import serial

from crownhead.firmware.cli import main
from crownhead.hal.clock import VirtualClock
from crownhead.hal.serial_board import RESTART_FIRMWARE, SerialBoard, open_serial_port
from crownhead.hal.serial_protocol import encode_line
from crownhead.sim.serial_board import PtyEndpoint

WAIT_S = 60.0  # real seconds a pty exchange may take: a bound on a failure only

#: What MicroPython prints when main.py is interrupted and the REPL takes over.
REPL_AFTER_CTRL_C = (
    b"\r\nMicroPython v1.29.0 on 2026-04-01; Raspberry Pi Pico with RP2040\r\n"
    b'Type "help()" for more information.\r\n>>> '
)


def received(endpoint: PtyEndpoint, pi: SerialBoard, until: Callable[[bytes], bool]) -> bytes:
    """What the Pi wrote to the board, read until ``until(data)`` holds."""
    data = b""
    end = time.monotonic() + WAIT_S
    while not until(data):
        if time.monotonic() > end:
            raise AssertionError(f"not reached; the board got {data!r}")
        pi.service()
        data += endpoint.read()
        time.sleep(0.001)
    return data


@pytest.fixture
def rig() -> tuple[PtyEndpoint, SerialBoard, VirtualClock]:
    clock = VirtualClock()
    endpoint = PtyEndpoint()
    pi = SerialBoard(endpoint.path, clock, opener=lambda: open_serial_port(endpoint.path, timeout=0))
    pi.service()
    assert pi.connected
    yield endpoint, pi, clock
    pi.close()
    endpoint.close()


def test_the_port_is_held_exclusively(rig: tuple[PtyEndpoint, SerialBoard, VirtualClock]) -> None:
    endpoint, _pi, _ = rig
    with pytest.raises(serial.SerialException, match="exclusively lock"):
        open_serial_port(endpoint.path)


def test_mcu_check_and_install_say_to_stop_the_service(
    rig: tuple[PtyEndpoint, SerialBoard, VirtualClock], capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint, _pi, _ = rig  # the service's SerialBoard holds the port
    assert main(["mcu", "check", "--port", endpoint.path]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"crownhead mcu check: {endpoint.path} is in use by another program: stop the board's "
        "service first (sudo systemctl stop crownhead; sudo systemctl start crownhead afterwards)"
    )
    pytest.importorskip("mpremote", reason="mpremote is not installed")
    assert main(["mcu", "install", "--port", endpoint.path]) == 2
    captured = capsys.readouterr()
    assert "sudo systemctl stop crownhead" in captured.out  # said before it starts
    assert "is in use by another program" in captured.err and len(captured.err.strip().splitlines()) == 1


def test_a_board_at_the_micropython_prompt_is_restarted(rig: tuple[PtyEndpoint, SerialBoard, VirtualClock]) -> None:
    endpoint, pi, clock = rig
    greeting = received(endpoint, pi, lambda d: d.count(b"\n") >= 2)  # HELLO 1, OCC?
    assert greeting.startswith(b"HELLO 1*")
    endpoint.write(encode_line("HELLO 1 crownhead-pico 1.0 scan_hz=0") + encode_line("OCC 00000001"))
    end = time.monotonic() + WAIT_S
    while pi.firmware is None and time.monotonic() < end:
        pi.service()
    pi.lights.show({1: (255, 0, 0)})
    received(endpoint, pi, lambda d: b"LED " in d)
    # Ctrl-C on the line: the firmware stops and MicroPython's REPL answers instead.
    endpoint.write(b"Traceback (most recent call last):\r\nKeyboardInterrupt: \r\n" + REPL_AFTER_CTRL_C)
    got = received(endpoint, pi, lambda d: RESTART_FIRMWARE in d)
    assert got.endswith(RESTART_FIRMWARE)
    assert pi.restarts == 1 and "restarting it" in (pi.last_error or "")
    # The same prompt again at once (the REPL echoing a Ctrl-B banner): no second restart.
    endpoint.write(REPL_AFTER_CTRL_C)
    clock.advance(100)
    time.sleep(0.05)
    pi.service()
    assert pi.restarts == 1
    # The soft reset runs main.py: the firmware greets, starts dark, and gets the frame back.
    endpoint.write(b"MPY: soft reboot\n" + encode_line("HELLO 1 crownhead-pico 1.0 scan_hz=0"))
    again = received(endpoint, pi, lambda d: b"LED " in d)
    assert again.startswith(b"LED 190000")  # red at the default brightness cap
    assert pi.connected and pi.firmware == "crownhead-pico 1.0 scan_hz=0"


def test_the_raw_repl_prompt_is_recognised_too(rig: tuple[PtyEndpoint, SerialBoard, VirtualClock]) -> None:
    endpoint, pi, clock = rig
    received(endpoint, pi, lambda d: d.count(b"\n") >= 2)
    # mpremote killed half way leaves the board in the raw REPL.
    endpoint.write(b"raw REPL; CTRL-B to exit\r\n>")
    assert received(endpoint, pi, lambda d: RESTART_FIRMWARE in d).endswith(RESTART_FIRMWARE)
    clock.advance(pi.restart_ms)
    endpoint.write(REPL_AFTER_CTRL_C)  # still at the prompt a restart period later: again
    received(endpoint, pi, lambda d: RESTART_FIRMWARE in d)
    assert pi.restarts == 2


def test_protocol_lines_are_never_taken_for_a_prompt(tmp_path: Path) -> None:
    """Half a protocol line (the board still writing it) is not a prompt."""
    from crownhead.hal.serial_protocol import LineBuffer

    buffer = LineBuffer()
    for piece in (b"OCC 0000", b"HELLO 1 crownhead", b"ERR bad-line x", b"BTN hi"):
        buffer.reset()
        buffer.feed(piece)
        assert not buffer.partial.endswith(b">>> ") and buffer.partial != b">"
