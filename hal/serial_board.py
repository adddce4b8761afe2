"""A board whose own microcontroller scans the switches and drives the LEDs, on USB serial.

The Pi side of the line protocol in :mod:`crownhead.hal.serial_protocol`. One
:class:`SerialBoard` owns the port and offers three facets, ``.sensors``,
``.lights`` and ``.buttons``, implementing the usual interfaces.

The link survives the cable being pulled: a read or write error, or a silence longer
than ``silence_ms`` (the board reports its occupancy at least once a second), closes
the port; it is reopened every ``reconnect_ms`` until it works. On every (re)connect
the Pi says HELLO, asks for the occupancy and resends the last LED frame, so the
board's state is rebuilt without help from the application. A partial line left over
from before a disconnect is discarded, never glued to the next one.

Garbled input is logged and counted, and answered with ``OCC?``: the garbled line may
have been an occupancy report, so the Pi asks for a fresh one.

A board running MicroPython (the Pico firmware) that has been interrupted (a Ctrl-C
byte on the line, a person at its REPL who left) shows the REPL's prompt, ``>>> `` (or
``>`` in the raw REPL), instead of protocol lines: the Pi recognises it and restarts
the firmware with Ctrl-C, Ctrl-B, Ctrl-D (clear the line, leave the raw REPL, soft
reset, which runs ``main.py`` again), at most once every ``restart_ms``; when the
firmware greets again, the last LED frame is sent again.

The port is opened exclusively (``exclusive=True``): a second program on the same
port (``mpremote``, a terminal, ``crownhead mcu check``) is refused with an error
instead of stealing half of the board's lines.

Nothing the main loop calls waits on the wire. Lines to send are queued and written by a
writer thread (started with :meth:`SerialBoard.start`; without it, by the caller at
once, as tests driving :meth:`SerialBoard.service` by hand want). An LED frame replaces
one not yet written, so a board that reads slowly gets the newest frame, never a
backlog; a write the board has not taken for ``silence_ms`` counts as a dead link. Writes
are not timed by pyserial: a timed write is reported as timed out when its thread merely
got no processor for the timeout, even though every byte went out.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from crownhead.hal.buttons import BUTTON_NAMES, ButtonEvent, ButtonQueue
from crownhead.hal.clock import Clock
from crownhead.hal.device import Device
from crownhead.hal.lights import DEFAULT_BRIGHTNESS, RGB, FrameKey, normalize_frame, scale_rgb
from crownhead.hal.sensors import EventQueue, SensorEvent, diff_events
from crownhead.hal.serial_protocol import (
    PROTOCOL_VERSION,
    BoardError,
    BoardFault,
    ButtonPress,
    Hello,
    LineBuffer,
    Occupancy,
    ProtocolError,
    encode_led,
    encode_line,
    parse_board_line,
)

__all__ = ["SerialBoard", "open_serial_port"]

log = logging.getLogger(__name__)

Opener = Callable[[], Any]


#: What a MicroPython board shows when its program has stopped: the REPL's prompt (the
#: bytes after the last newline), friendly or raw.
REPL_PROMPTS = (b">>> ", b">")
#: Ctrl-C (clear the line), Ctrl-B (leave the raw REPL), Ctrl-D (soft reset: main.py runs).
RESTART_FIRMWARE = b"\x03\x02\x04"


def open_serial_port(url: str, baudrate: int = 115200, timeout: float = 0.05) -> Any:
    """Open a port or pyserial URL (``/dev/ttyACM0``, ``loop://``, ``socket://...``),
    exclusively: a port another program holds open is refused (``SerialException``)."""
    import serial

    return serial.serial_for_url(url, baudrate=baudrate, timeout=timeout, write_timeout=None, exclusive=True)


def port_in_use(exc: BaseException) -> bool:
    """Did opening a port fail because another program holds it (the exclusive lock)?"""
    return "exclusively lock" in str(exc) or "Resource temporarily unavailable" in str(exc)


def _serial_errors() -> tuple[type[BaseException], ...]:
    import serial

    return (serial.SerialException, OSError, ValueError)


class SerialBoard(Device):
    """The Pi's end of the link to a serial-scanned board.

    ``opener`` returns an open pyserial-like object (``read``, ``write``,
    ``in_waiting``, ``close``); by default it opens ``port`` with
    :func:`open_serial_port`. Call :meth:`service` repeatedly (the thread started by
    :meth:`start` does) to read, reconnect and detect silence; tests call it by hand
    with a non-blocking port and a virtual clock.
    """

    def __init__(
        self,
        port: str,
        clock: Clock,
        *,
        baudrate: int = 115200,
        reconnect_ms: int = 1000,
        silence_ms: int = 3000,
        restart_ms: int = 3000,
        brightness: float = DEFAULT_BRIGHTNESS,
        button_lockout_ms: int = 0,
        opener: Opener | None = None,
    ) -> None:
        self.port_name = port
        self.clock = clock
        self.reconnect_ms = reconnect_ms
        self.silence_ms = silence_ms
        self.restart_ms = restart_ms
        self._restarted_at: int | None = None
        self._resend_after_hello = False
        # At most one resync request (OCC?) per this many ms: a board that echoes our
        # own lines back must not turn every garbled line into another request.
        self.resync_ms = 500
        self._last_resync: int | None = None
        self.brightness = brightness
        self._opener = opener or (lambda: open_serial_port(port, baudrate))
        self._errors = _serial_errors()
        self._port: Any = None
        self._port_lock = threading.RLock()
        self._lines = LineBuffer()
        self._retry_at = clock.now_ms()
        self._last_rx = 0
        self._occupancy = 0
        self._events = EventQueue()
        self._buttons = ButtonQueue(clock, lockout_ms=button_lockout_ms)
        self._last_led: bytes | None = None
        # Output: control lines in order, then the newest LED frame not yet written.
        self.outbox_bytes = 4096
        self._out = threading.Condition()
        self._outbox: deque[bytes] = deque()
        self._out_size = 0
        self._frame: bytes | None = None
        self._write_lock = threading.Lock()  # one writer at a time: thread or caller
        self._writing_since: int | None = None  # clock ms when the write under way began
        self._writer: threading.Thread | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        #: Real time that output still queued at :meth:`close` gets to reach the board.
        self.close_flush_s = 0.5
        self._open_facets = {"sensors", "lights", "buttons"}
        # Status, for the application and for `crownhead sensors`.
        self.firmware: str | None = None
        self.board_version: int | None = None
        #: The wiring fault the board reports (its FAULT line), until it says it cleared.
        self.board_fault: str | None = None
        self.connects = 0
        self.garbled = 0
        self.board_errors = 0
        self.unknown_buttons = 0
        self.restarts = 0  # times the board's firmware was found stopped and restarted
        self.last_error: str | None = None
        self.sensors = _SerialSensors(self)
        self.lights = _SerialLights(self)
        self.buttons = _SerialButtons(self)

    # -- status ------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._port is not None

    # -- the link ------------------------------------------------------------------
    def service(self) -> int:
        """One round: (re)connect if due, read what has arrived, handle whole lines.

        Returns the number of lines handled. Never raises for link problems.
        """
        if self.closed:
            return 0
        now = self.clock.now_ms()
        with self._port_lock:
            port = self._port
        if port is None:
            if now >= self._retry_at:
                self._connect(now)
            return 0
        since = self._writing_since
        if since is not None and now - since > self.silence_ms:
            self._drop(f"the board took no output for {now - since} ms", now)
            return 0
        try:
            waiting = port.in_waiting
            data = port.read(waiting if waiting > 0 else 1)
        except self._errors as exc:
            self._drop(f"read failed: {exc}", now)
            return 0
        handled = 0
        if data:
            self._last_rx = now
            for line in self._lines.feed(data):
                handled += 1
                self._handle(line)
            if self._lines.partial.endswith(REPL_PROMPTS[0]) or self._lines.partial == REPL_PROMPTS[1]:
                self._restart_firmware(now)
        elif now - self._last_rx > self.silence_ms:
            self._drop(f"no data from the board for {now - self._last_rx} ms", now)
        return handled

    def _connect(self, now: int) -> None:
        try:
            port = self._opener()
        except self._errors as exc:
            self._retry_at = now + self.reconnect_ms
            message = f"cannot open {self.port_name}: {exc}"
            if message != self.last_error:
                log.warning("%s; retrying every %d ms", message, self.reconnect_ms)
            self.last_error = message
            return
        self._forget_output()
        with self._port_lock:
            self._port = port
        self._lines.reset()
        self._last_rx = now
        self.connects += 1
        self.firmware = None
        self.board_version = None
        self.board_fault = None  # a board that still has it says so within a heartbeat
        log.info("serial board connected on %s", self.port_name)
        self._write(encode_line(f"HELLO {PROTOCOL_VERSION}"))
        self._write(encode_line("OCC?"))
        if self._last_led is not None:
            self._write(self._last_led)

    def _restart_firmware(self, now: int) -> None:
        """The board sits at MicroPython's prompt: its firmware has stopped. Restart it."""
        if self._restarted_at is not None and now - self._restarted_at < self.restart_ms:
            return
        self._restarted_at = now
        self.restarts += 1
        self.last_error = "the board's firmware had stopped (MicroPython's prompt on the line): restarting it (Ctrl-D)"
        log.warning("%s", self.last_error)
        self._lines.reset()
        self._resend_after_hello = True
        self._write(RESTART_FIRMWARE)

    def _drop(self, reason: str, now: int) -> None:
        with self._port_lock:
            port = self._port
            if port is None:
                return
            # The reason first: whoever sees the link down must be able to read why.
            self.last_error = reason
            self._port = None
        self._forget_output()
        partial = self._lines.reset()
        if partial:
            log.info("discarding half a line at disconnect: %r", partial[:60])
        with contextlib.suppress(*self._errors):
            # A write waiting for the board ends now, not with the port it was given.
            cancel = getattr(port, "cancel_write", None)
            if callable(cancel):
                cancel()
            port.close()
        self._retry_at = now + self.reconnect_ms
        log.warning("serial board disconnected (%s); reconnecting every %d ms", reason, self.reconnect_ms)

    def _write(self, line: bytes, *, frame: bool = False) -> bool:
        """Queue ``line`` for the board (an LED ``frame`` replaces one not yet written).

        False when there is no link, or the board has stopped taking control lines (the
        link is then dropped and rebuilt). Written at once when no writer thread runs.
        """
        if self._port is None:
            return False
        with self._out:
            if frame:
                self._frame = line
            elif self._out_size + len(line) > self.outbox_bytes:
                overrun = True
            else:
                overrun = False
                self._outbox.append(line)
                self._out_size += len(line)
            if frame or not overrun:
                self._out.notify_all()
        if not frame and overrun:
            self._drop("the board stopped reading (output queue full)", self.clock.now_ms())
            return False
        if self._writer is None:
            self._flush()
        return True

    def _next_out(self) -> bytes | None:
        with self._out:
            if self._outbox:
                line = self._outbox.popleft()
                self._out_size -= len(line)
                return line
            frame, self._frame = self._frame, None
            return frame

    def _forget_output(self) -> None:
        with self._out:
            self._outbox.clear()
            self._out_size = 0
            self._frame = None
            self._out.notify_all()

    @property
    def pending_output(self) -> bool:
        """True while lines or a frame wait to be written, or a write is under way."""
        with self._out:
            return bool(self._outbox) or self._frame is not None or self._writing_since is not None

    def _flush(self) -> None:
        """Write everything queued, oldest first; a write error drops the link."""
        with self._write_lock:
            while not self._stop.is_set():
                port = self._port
                if port is None:
                    return
                line = self._next_out()
                if line is None:
                    return
                self._writing_since = self.clock.now_ms()
                try:
                    port.write(line)
                except self._errors as exc:
                    self._writing_since = None
                    if self._port is port:
                        self._drop(f"write failed: {exc}", self.clock.now_ms())
                    return
                self._writing_since = None

    def _handle(self, line: bytes | None) -> None:
        if line is None:
            self._garbled("line longer than the protocol allows")
            return
        if not line.strip():
            return  # a bare newline (e.g. a board flushing its output) is not an error
        try:
            msg = parse_board_line(line)
        except ProtocolError as exc:
            self._garbled(f"{exc} (line {line[:60]!r})")
            return
        if isinstance(msg, Occupancy):
            self._set_occupancy(msg.mask)
        elif isinstance(msg, ButtonPress):
            if msg.name in BUTTON_NAMES:
                self._buttons.press(msg.name)
            else:
                # Passing it on would hand the application a button it has no meaning
                # for; a typo in the board's firmware is worth a line in the log.
                self.unknown_buttons += 1
                self.last_error = (
                    f"board pressed unknown button {msg.name!r} (known: {', '.join(BUTTON_NAMES)}); ignored"
                )
                log.warning("%s", self.last_error)
        elif isinstance(msg, Hello):
            self.firmware = msg.firmware or "?"
            self.board_version = msg.version
            if self._resend_after_hello:
                # A restarted firmware starts dark: show it what the Pi shows.
                self._resend_after_hello = False
                if self._last_led is not None:
                    self._write(self._last_led, frame=True)
            if msg.version != PROTOCOL_VERSION:
                self.last_error = f"board speaks protocol {msg.version}, this Pi speaks {PROTOCOL_VERSION}"
                log.error("%s", self.last_error)
            else:
                log.info("board firmware: %s", self.firmware)
        elif isinstance(msg, BoardError):
            self.board_errors += 1
            self.last_error = f"board reported {msg.code}: {msg.text}"
            log.warning("%s", self.last_error)
        elif isinstance(msg, BoardFault):
            fault = None if msg.code == "none" else (msg.text or msg.code)
            if fault != self.board_fault:
                if fault is None:
                    log.info("board: wiring fault cleared")
                else:
                    log.error("board: %s", fault)
            self.board_fault = fault

    def _garbled(self, what: str) -> None:
        self.garbled += 1
        self.last_error = f"garbled line from the board: {what}"
        log.warning("%s", self.last_error)
        now = self.clock.now_ms()
        if self._last_resync is None or now - self._last_resync >= self.resync_ms:
            self._last_resync = now
            self._write(encode_line("OCC?"))

    def _set_occupancy(self, mask: int) -> None:
        if mask != self._occupancy:
            self._events.extend(diff_events(self._occupancy, mask, self.clock.now_ms()))
            self._occupancy = mask

    def send_frame(self, colours: list[RGB]) -> None:
        line = encode_led(colours)
        self._last_led = line
        self._write(line, frame=True)

    # -- thread ------------------------------------------------------------------
    def start(self) -> None:
        """Connect now if possible and keep servicing the link in daemon threads: one
        reads and reconnects, one writes, so output never waits for a read to end."""
        if self._thread is not None or self.closed:
            return
        self.service()
        self._writer = threading.Thread(target=self._run_writer, name="crownhead-serial-out", daemon=True)
        self._writer.start()
        self._flush()  # what the first connect queued before the writer ran
        self._thread = threading.Thread(target=self._run, name="crownhead-serial", daemon=True)
        self._thread.start()

    def _run_writer(self) -> None:
        while not self._stop.is_set():
            try:
                with self._out:
                    if not self._outbox and self._frame is None:
                        self._out.wait(0.1)
                self._flush()
            except Exception:  # keep the link alive whatever one write did
                log.exception("serial board write failed")
                self._stop.wait(0.1)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._port is None:
                    self.service()
                    self._stop.wait(0.05)
                else:
                    self.service()  # blocks up to the port's read timeout
            except Exception:  # keep the link alive whatever one round did
                log.exception("serial board service failed")
                self._stop.wait(0.1)

    def _release(self) -> None:
        """Stop the threads and close the port.

        Output still queued (the lights turned off as their facet closes) gets up to
        :attr:`close_flush_s` seconds of real time to reach the board first.
        """
        if self._writer is not None:
            deadline = time.monotonic() + self.close_flush_s
            while self.pending_output and self._port is not None and time.monotonic() < deadline:
                self._stop.wait(0.002)
        self._stop.set()
        port = self._port
        if port is not None:
            cancel = getattr(port, "cancel_write", None)
            if callable(cancel):
                with contextlib.suppress(*self._errors):
                    cancel()
        with self._out:
            self._out.notify_all()
        for thread in (self._thread, self._writer):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=2.0)
        with self._port_lock:
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(*self._errors):
                port.close()

    def _facet_released(self, name: str) -> None:
        self._open_facets.discard(name)
        if not self._open_facets:
            self.close()


class _SerialSensors(Device):
    def __init__(self, board: SerialBoard) -> None:
        self._board = board

    def snapshot(self) -> int:
        return self._board._occupancy

    def poll(self) -> list[SensorEvent]:
        return self._board._events.drain()

    @property
    def connected(self) -> bool:
        return self._board.connected

    def diagnose(self) -> list[str]:
        b = self._board
        faults = []
        if not b.connected:
            faults.append(f"serial board not connected on {b.port_name}: {b.last_error or 'no answer'}")
        elif b.board_version is not None and b.board_version != PROTOCOL_VERSION:
            faults.append(f"serial board speaks protocol {b.board_version}, expected {PROTOCOL_VERSION}")
        elif b.board_fault is not None:
            faults.append(f"serial board: {b.board_fault}")
        return faults

    def _release(self) -> None:
        self._board._facet_released("sensors")


class _SerialLights(Device):
    def __init__(self, board: SerialBoard) -> None:
        self._board = board

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        norm = normalize_frame(frame)
        b = self._board.brightness
        colours = [scale_rgb(norm.get(sq, (0, 0, 0)), b) for sq in range(1, 33)]
        self._board.send_frame(colours)

    def off(self) -> None:
        self.show({})

    def _release(self) -> None:
        self.off()
        self._board._facet_released("lights")


class _SerialButtons(Device):
    def __init__(self, board: SerialBoard) -> None:
        self._board = board

    def poll(self) -> list[ButtonEvent]:
        return self._board._buttons.poll()

    def _release(self) -> None:
        self._board._facet_released("buttons")
