"""The serial-scanned board: line protocol, Pi side over loop:// and over a real pty pair
against the microcontroller emulator, with garbage, half lines, unplugging and reconnects."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import serial

from crownhead.firmware.config import default_config
from crownhead.firmware.app.hardware import open_hardware
from crownhead.hal.clock import MonotonicClock, VirtualClock
from crownhead.hal.sensors import SensorEvent, mask_of
from crownhead.hal.serial_board import SerialBoard, open_serial_port
from crownhead.hal.serial_protocol import (
    MAX_LINE,
    BoardError,
    ButtonPress,
    Hello,
    LedFrame,
    LineBuffer,
    Occupancy,
    OccupancyQuery,
    ProtocolError,
    checksum,
    encode_led,
    encode_line,
    encode_occupancy,
    parse_board_line,
    parse_host_line,
)
from crownhead.sim.board import SimBoard
from crownhead.sim.serial_board import BoardEmulator, PtyEndpoint

# -- the protocol -----------------------------------------------------------------------


def test_checksum_is_nmea_style_xor() -> None:
    # O ^ C ^ C ^ ' ' ^ '0' (seven times: once) ^ '1' = 0x4F ^ 0x20 ^ 0x30 ^ 0x31
    assert checksum("OCC 00000001") == "6E"
    assert encode_occupancy(0x80000001) == b"OCC 80000001*" + checksum("OCC 80000001").encode() + b"\n"


def test_board_messages_parse() -> None:
    assert parse_board_line(b"OCC 0000000F") == Occupancy(15)
    assert parse_board_line(encode_occupancy(5)[:-1]) == Occupancy(5)
    assert parse_board_line(b"OCC 0000000f\r") == Occupancy(15)
    assert parse_board_line(b"HELLO 1 board-fw 2.3") == Hello(1, "board-fw 2.3")
    assert parse_board_line(b"BTN hint") == ButtonPress("hint")
    assert parse_board_line(b"ERR bad-line what was that") == BoardError("bad-line", "what was that")


def test_host_messages_parse() -> None:
    colours = [(i, 255 - i, 7) for i in range(32)]
    msg = parse_host_line(encode_led(colours)[:-1])
    assert isinstance(msg, LedFrame) and list(msg.colours) == colours
    assert parse_host_line(b"OCC?") == OccupancyQuery()
    assert parse_host_line(encode_line("HELLO 1")[:-1]) == Hello(1, "")


@pytest.mark.parametrize(
    "line, code",
    [
        (b"", "bad-line"),
        (b"   ", "bad-line"),
        (b"OCC 1234", "bad-arg"),
        (b"OCC 0000000G", "bad-arg"),
        (b"OCC 00000001 7", "bad-line"),
        (b"OCC 00000001*00", "bad-checksum"),
        (b"OCC 00000001*Z", "bad-checksum"),
        (b"\xff\xfe\x00", "bad-line"),
        (b"OCC\x0700000001", "bad-line"),
        (b"WHAT 1", "bad-line"),
        (b"HELLO x", "bad-arg"),
        (b"BTN Bad!", "bad-arg"),
        (b"ERR", "bad-line"),
    ],
)
def test_garbled_board_lines(line: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_board_line(line)
    assert info.value.code == code


def test_line_buffer_splits_and_bounds() -> None:
    buf = LineBuffer()
    assert buf.feed(b"OCC 0") == []
    assert buf.feed(b"0000001\nOCC") == [b"OCC 00000001"]
    assert buf.partial == b"OCC"
    assert buf.reset() == b"OCC"
    assert buf.feed(b"x" * (MAX_LINE + 10)) == []
    assert buf.feed(b"yy\nOK\n") == [None, b"OK"]  # the overlong line is reported, not kept


# -- Pi side over loop:// ------------------------------------------------------------------


class LoopRig:
    """SerialBoard on pyserial's loop:// (what is written is read back), virtual time."""

    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.ports: list[Any] = []
        self.fail_open = False
        self.board = SerialBoard("loop://", self.clock, opener=self.open, reconnect_ms=1000, silence_ms=3000)

    def open(self) -> Any:
        if self.fail_open:
            raise serial.SerialException("could not open port: no such device")
        port = serial.serial_for_url("loop://", timeout=0)
        self.ports.append(port)
        return port

    def feed(self, data: bytes) -> None:
        self.ports[-1].write(data)
        self.board.service()

    def settle(self) -> None:
        for _ in range(5):
            self.board.service()


def test_loop_reports_and_echo_tolerance() -> None:
    rig = LoopRig()
    rig.settle()  # connect; our own HELLO/OCC? come back (loop) and must do no harm
    assert rig.board.connected and rig.board.connects == 1
    # The echoed "OCC?" is not a board message: garbled, answered with one OCC? whose
    # echo is garbled again, and then the resync rate limit stops the ping-pong.
    assert rig.board.garbled == 2
    rig.settle()
    assert rig.board.garbled == 2
    rig.clock.advance(10)
    rig.feed(encode_occupancy(mask_of([1, 3])))
    assert rig.board.sensors.poll() == [SensorEvent(1, True, 10), SensorEvent(3, True, 10)]
    assert rig.board.sensors.snapshot() == mask_of([1, 3])
    rig.feed(encode_occupancy(mask_of([1, 3])))  # heartbeat: no change, no events
    assert rig.board.sensors.poll() == []
    rig.feed(b"BTN new\n")
    assert [e.name for e in rig.board.buttons.poll()] == ["new"]
    rig.feed(b"BTN force\n")
    assert [e.name for e in rig.board.buttons.poll()] == ["force"]


def test_loop_unknown_button_is_logged_not_passed_on(caplog: pytest.LogCaptureFixture) -> None:
    rig = LoopRig()
    rig.settle()
    rig.feed(b"BTN hnit\n")  # well formed, but no such button
    assert rig.board.buttons.poll() == []
    assert rig.board.unknown_buttons == 1 and rig.board.connected
    assert "unknown button 'hnit'" in caplog.text


def test_loop_garbage_is_logged_never_crashes(caplog: pytest.LogCaptureFixture) -> None:
    rig = LoopRig()
    rig.settle()
    before = rig.board.garbled
    rig.clock.advance(1000)  # past the resync rate limit
    for junk in (b"\x00\xff\xfe\n", b"OCC zzzz\n", b"OCC 00000001*00\n", b"x" * 400 + b"\n", b"\n"):
        rig.feed(junk)
    rig.settle()
    assert rig.board.garbled >= before + 4
    assert rig.board.sensors.snapshot() == 0  # nothing garbled was believed
    assert "garbled line from the board" in caplog.text
    rig.feed(encode_occupancy(4))
    assert rig.board.sensors.snapshot() == 4


def test_loop_half_line_at_disconnect_is_dropped_and_reconnect_follows() -> None:
    rig = LoopRig()
    rig.settle()
    rig.feed(encode_occupancy(mask_of([2])))
    rig.feed(b"OCC 000000")  # half a line, then the cable goes
    rig.ports[-1].close()
    rig.board.service()
    assert not rig.board.connected and "read failed" in (rig.board.last_error or "")
    rig.fail_open = True
    rig.clock.advance(999)
    rig.board.service()
    assert rig.board.connects == 1  # not retried before reconnect_ms
    rig.clock.advance(1)
    rig.board.service()
    assert "no such device" in (rig.board.last_error or "")
    rig.fail_open = False
    rig.clock.advance(1000)
    rig.settle()
    assert rig.board.connected and rig.board.connects == 2
    rig.feed(b"FF\n")  # the rest of the old half line must not complete it
    assert rig.board.sensors.snapshot() == mask_of([2])
    rig.feed(encode_occupancy(mask_of([2, 9])))
    assert rig.board.sensors.snapshot() == mask_of([2, 9])


def test_loop_silence_means_disconnected() -> None:
    rig = LoopRig()
    rig.settle()
    rig.clock.advance(3001)
    rig.board.service()
    assert not rig.board.connected and "no data" in (rig.board.last_error or "")


def test_led_frames_are_scaled_and_resent_after_reconnect() -> None:
    rig = LoopRig()
    rig.board.brightness = 0.5
    rig.settle()
    rig.ports[-1].reset_input_buffer()
    rig.board.lights.show({1: (255, 0, 100), (7, 0): (2, 4, 6)})  # (7, 0) = square 29
    written = rig.ports[-1].read(1000)
    expected = [(0, 0, 0)] * 32
    expected[0] = (127, 0, 50)
    expected[28] = (1, 2, 3)
    assert written == encode_led(expected)
    rig.ports[-1].close()
    rig.board.service()
    rig.board.lights.show({2: (10, 10, 10)})  # while unplugged: kept for later
    rig.clock.advance(1000)
    rig.board.service()
    resent = rig.ports[-1].read(2000)
    expected = [(0, 0, 0)] * 32
    expected[1] = (5, 5, 5)
    assert resent.endswith(encode_led(expected))


# -- Pi side against the microcontroller emulator over a real pty --------------------------


class CountingEndpoint(PtyEndpoint):
    """The emulator's end of the cable, counting the lines it has written towards the Pi."""

    def __init__(self) -> None:
        self.lines_out = 0
        super().__init__()

    def write(self, data: bytes) -> None:
        super().write(data)
        self.lines_out += data.count(b"\n")


#: Real seconds a pty exchange may take before a test fails: a bound on a failure only.
WAIT_S = 60.0


class PtyRig:
    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock or VirtualClock()
        self.sim = SimBoard(self.clock)
        self.endpoint = CountingEndpoint()
        self.pi = SerialBoard(
            self.endpoint.path,
            self.clock,
            opener=lambda: open_serial_port(self.endpoint.path, timeout=0),
            reconnect_ms=500,
        )
        # The Pi's port opens before the board boots: pyserial flushes a port's input as
        # it opens it, so a greeting sent earlier might or might not be lost, and
        # ``endpoint.lines_out`` would no longer count what reaches the Pi.
        assert self.pi.service() == 0 and self.pi.connected
        self.mcu = BoardEmulator(self.sim, self.endpoint)
        self.lines_in = 0  # lines the Pi has handled in pump() and drain()

    def pump(self, until: Callable[[], bool], seconds: float = WAIT_S) -> None:
        """Service both ends until ``until()``; ``seconds`` of real time only bound a failure."""
        end = time.monotonic() + seconds
        while True:
            self.mcu.service()
            self.lines_in += self.pi.service()
            if until():
                return
            if time.monotonic() > end:
                raise AssertionError("condition not reached")
            time.sleep(0.0005)

    def drain(self) -> None:
        """Service the Pi alone until it has handled every line the emulator wrote.

        A pty hands bytes over in the kernel's own time: a line written is not yet a line
        readable. Before virtual time jumps, nothing may still be on its way, or it would
        reach the Pi stamped with the later time.
        """
        end = time.monotonic() + WAIT_S
        while self.lines_in < self.endpoint.lines_out:
            if time.monotonic() > end:
                raise AssertionError(f"the Pi handled {self.lines_in} of {self.endpoint.lines_out} lines")
            self.lines_in += self.pi.service()
            time.sleep(0.0005)

    def close(self) -> None:
        self.pi.close()
        self.endpoint.close()


@pytest.fixture
def rig() -> Any:
    r = PtyRig()
    yield r
    r.close()


def test_pty_hello_and_occupancy(rig: PtyRig) -> None:
    rig.sim.set_position({1: "b", 32: "w"})
    rig.pump(lambda: rig.pi.firmware is not None and rig.pi.sensors.snapshot() == mask_of([1, 32]))
    assert rig.pi.firmware == "crownhead-sim 1.0" and rig.pi.board_version == 1
    rig.pi.sensors.poll()
    rig.clock.advance(7)
    rig.sim.lift(1)
    rig.pump(lambda: rig.pi.sensors.snapshot() == mask_of([32]))
    assert rig.pi.sensors.poll() == [SensorEvent(1, False, 7)]


def test_pty_leds_buttons_and_errors_both_ways(rig: PtyRig) -> None:
    rig.pump(lambda: rig.pi.firmware is not None)
    rig.pi.brightness = 1.0
    rig.pi.lights.show({5: (1, 2, 3)})
    rig.pump(lambda: rig.sim.lights.current == {5: (1, 2, 3)})
    rig.sim.press("takeback")
    rig.pump(lambda: bool(rig.pi._buttons._events))
    assert [e.name for e in rig.pi.buttons.poll()] == ["takeback"]
    # Garbage from the board: counted, answered with OCC?, link stays up.
    rig.mcu.send(b"\xffNOISE\x00\n")
    rig.pump(lambda: rig.pi.garbled == 1)
    rig.pump(lambda: any(line.startswith(b"OCC?") for line in rig.mcu.received[2:]))
    # Garbage from the Pi: the board answers ERR, the Pi logs it.
    rig.pi._port.write(b"LED nonsense\n")
    rig.pump(lambda: rig.pi.board_errors == 1)
    assert rig.mcu.errors_sent == ["bad-arg"] and rig.pi.connected


def test_pty_unplug_with_half_line_then_replug(rig: PtyRig) -> None:
    rig.sim.set_position({9: "b"})
    rig.pump(lambda: rig.pi.sensors.snapshot() == mask_of([9]))
    rig.pi.sensors.poll()
    rig.mcu.send(b"OCC 000")  # half a line on the wire as the cable is pulled
    rig.sim.unplug()
    rig.pump(lambda: not rig.pi.connected)
    assert rig.pi.last_error and "read failed" in rig.pi.last_error
    # While unplugged, the pieces move; the Pi keeps trying every reconnect_ms.
    rig.sim.lift(9)
    rig.sim.place(14, "b")
    for _ in range(3):
        rig.clock.advance(500)
        rig.pump(lambda: True)
    assert not rig.pi.connected and "cannot open" in (rig.pi.last_error or "")
    rig.sim.replug()
    rig.clock.advance(500)
    rig.pump(lambda: rig.pi.connected and rig.pi.sensors.snapshot() == mask_of([14]))
    assert rig.pi.connects == 2
    assert sorted((e.square, e.occupied) for e in rig.pi.sensors.poll()) == [(9, False), (14, True)]


def test_pty_silent_board_is_dropped_and_found_again(rig: PtyRig) -> None:
    # The greeting both ways: the board's HELLO and OCC, the Pi's HELLO and OCC? answered.
    rig.pump(lambda: rig.pi.firmware is not None and len(rig.mcu.received) == 2)
    rig.drain()  # every answer taken in: from here on the board says nothing
    rig.clock.advance(3001)  # the microcontroller hangs: no heartbeat
    assert rig.pi.service() == 0
    assert not rig.pi.connected and "no data from the board for 3001 ms" in (rig.pi.last_error or "")
    rig.clock.advance(500)
    rig.pump(lambda: rig.pi.connected and rig.pi.firmware is not None)
    assert rig.pi.connects == 2


def test_open_hardware_serial_backend_over_pty() -> None:
    clock = VirtualClock()
    sim = SimBoard(clock, pieces={3: "w"})
    endpoint = PtyEndpoint()
    mcu = BoardEmulator(sim, endpoint)
    config = default_config().replace("serial", port=endpoint.path).replace("lights", brightness=1.0)
    hw = open_hardware(
        config,
        clock,
        hal="serial",
        start=False,
        serial_opener=lambda: open_serial_port(endpoint.path, timeout=0),
    )
    try:
        end = time.monotonic() + WAIT_S
        while hw.sensors.snapshot() != mask_of([3]) and time.monotonic() < end:
            mcu.service()
            hw.link.service()
        assert hw.sensors.snapshot() == mask_of([3])
        hw.lights.show({3: (0, 0, 255)})
        while sim.lights.current != {3: (0, 0, 255)} and time.monotonic() < end:
            mcu.service()
        assert sim.lights.current == {3: (0, 0, 255)}
        assert hw.diagnose() == []
    finally:
        hw.close()
        endpoint.close()
    assert not hw.link.connected


def test_threads_smoke_real_time() -> None:
    clock = MonotonicClock()
    sim = SimBoard(clock, pieces={20: "b"})
    endpoint = PtyEndpoint()
    mcu = BoardEmulator(sim, endpoint)
    pi = SerialBoard(endpoint.path, clock)  # the real default opener, blocking reads
    mcu.start()
    pi.start()
    try:
        end = time.monotonic() + WAIT_S
        while pi.sensors.snapshot() != mask_of([20]) and time.monotonic() < end:
            time.sleep(0.005)
        assert pi.sensors.snapshot() == mask_of([20])
    finally:
        pi.close()
        mcu.stop()
        endpoint.close()


def test_a_board_that_stops_reading_never_holds_up_the_main_loop() -> None:
    """The main loop's LED frames are queued, the newest replacing one not yet written;
    a write the board does not take for ``silence_ms`` drops the link, which is rebuilt."""
    clock = VirtualClock()
    endpoint = PtyEndpoint()  # the board's end: it talks, but never reads
    pi = SerialBoard(endpoint.path, clock, silence_ms=3000, reconnect_ms=500)  # real threads
    seen: list[str] = []

    def main_loop() -> None:
        # Each round: a frame of some 200 bytes (the pseudo-terminal holds a few dozen),
        # a report from the board, taken in by the Pi before virtual time moves on, so
        # the board is never silent; only the Pi's output stops.
        for n in range(10_000):
            pi.lights.show({1 + n % 32: (n % 256, 0, 0)})
            mask = n % 2
            endpoint.write(encode_line(f"OCC {mask:08X}"))
            end = time.monotonic() + WAIT_S
            while pi.connected and pi.sensors.snapshot() != mask and time.monotonic() < end:
                time.sleep(0.0005)
            if not pi.connected:
                seen.append(pi.last_error or "")
                return
            clock.advance(500)

    try:
        pi.start()
        assert pi.connected
        loop = threading.Thread(target=main_loop, daemon=True)
        loop.start()
        loop.join(WAIT_S)
        assert not loop.is_alive(), "showing a frame waited for the board"
        assert seen and "took no output" in seen[0]
        clock.advance(500)
        end = time.monotonic() + WAIT_S
        while pi.connects < 2 and time.monotonic() < end:
            time.sleep(0.001)
        assert pi.connects == 2
    finally:
        pi.close()
        endpoint.close()
