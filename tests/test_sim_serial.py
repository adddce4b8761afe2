"""The microcontroller emulator and its pseudo-terminal cable, seen from a plain serial port."""

from __future__ import annotations

import os
import time

import pytest
import serial

from crownhead.hal.clock import VirtualClock
from crownhead.hal.sensors import mask_of
from crownhead.hal.serial_protocol import encode_line, parse_board_line
from crownhead.sim.board import SimBoard
from crownhead.sim.serial_board import BoardEmulator, PtyEndpoint


def read_lines(port: serial.Serial, emulator: BoardEmulator, count: int) -> list[bytes]:
    lines: list[bytes] = []
    buf = b""
    end = time.monotonic() + 60  # a bound on a failure only
    while len(lines) < count and time.monotonic() < end:
        emulator.service()
        buf += port.read(port.in_waiting or 1)
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            lines.append(line)
    return lines


@pytest.fixture
def parts():
    clock = VirtualClock()
    board = SimBoard(clock, pieces={1: "b"})
    endpoint = PtyEndpoint()
    emulator = BoardEmulator(board, endpoint, heartbeat_ms=1000)
    port = serial.serial_for_url(endpoint.path, timeout=0)
    yield clock, board, endpoint, emulator, port
    port.close()
    endpoint.close()


def test_symlink_points_at_a_new_pty_after_replug(parts) -> None:
    _clock, board, endpoint, emulator, _port = parts
    first = endpoint.device
    assert os.path.realpath(endpoint.path) == first
    board.unplug()
    emulator.service()
    assert not endpoint.connected and not os.path.lexists(endpoint.path)
    endpoint.write(b"lost\n")  # like a UART with nobody listening: silently gone
    board.replug()
    emulator.service()
    assert endpoint.connected and os.path.realpath(endpoint.path) == endpoint.device


def test_answers_hello_and_occ_query_and_reports_changes(parts) -> None:
    clock, board, _endpoint, emulator, port = parts
    port.write(encode_line("HELLO 1") + encode_line("OCC?"))
    lines = [parse_board_line(x) for x in read_lines(port, emulator, 2)]
    assert lines[0].firmware == "crownhead-sim 1.0"
    assert lines[1].mask == mask_of([1])
    board.place(2, "w")
    assert parse_board_line(read_lines(port, emulator, 1)[0]).mask == mask_of([1, 2])
    clock.advance(1000)  # heartbeat, unchanged occupancy
    assert parse_board_line(read_lines(port, emulator, 1)[0]).mask == mask_of([1, 2])


def test_bad_lines_get_err_answers(parts) -> None:
    _clock, _board, _endpoint, emulator, port = parts
    port.write(b"JUMP 1\n" + b"OCC?*00\n" + b"z" * 300 + b"\n")
    replies = [parse_board_line(x) for x in read_lines(port, emulator, 3)]
    assert [r.code for r in replies] == ["bad-line", "bad-checksum", "too-long"]
    assert emulator.errors_sent == ["bad-line", "bad-checksum", "too-long"]
