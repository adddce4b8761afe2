"""A microcontroller emulator speaking the serial line protocol, backed by a SimBoard.

It stands where the real board's microcontroller would: the Pi side
(:class:`crownhead.hal.serial_board.SerialBoard`) talks to it through a pseudo-terminal exactly as
it would through a USB serial device, so the whole serial stack is exercised and the
simulator can run behind the serial backend.

:class:`PtyEndpoint` is the cable. The Pi opens :attr:`PtyEndpoint.path`, a symlink
like the ``/dev/serial/by-id/...`` links udev makes. Pulling the cable closes the
pseudo-terminal (the Pi's reads fail with EIO, as with a vanished ttyACM); plugging it
back creates a new one and repoints the symlink, as a re-enumerated USB device would.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import tempfile
import threading
import time
import tty

from crownhead.hal.clock import Clock
from crownhead.hal.serial_protocol import (
    PROTOCOL_VERSION,
    Hello,
    LedFrame,
    LineBuffer,
    OccupancyQuery,
    ProtocolError,
    encode_line,
    encode_occupancy,
    parse_host_line,
)
from crownhead.sim.board import SimBoard

__all__ = ["PtyEndpoint", "BoardEmulator"]

log = logging.getLogger(__name__)


class PtyEndpoint:
    """The board's end of a pseudo-terminal pair, reachable by the Pi at :attr:`path`."""

    def __init__(self, directory: str | None = None, name: str = "crownhead-board") -> None:
        self._own_dir = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="crownhead-pty-")
        self.path = os.path.join(self.directory, name)
        self._master: int | None = None
        self._slave: int | None = None
        self.plug()

    @property
    def connected(self) -> bool:
        return self._master is not None

    @property
    def device(self) -> str | None:
        """The pseudo-terminal the symlink points at (changes on every plug)."""
        return os.ttyname(self._slave) if self._slave is not None else None

    def plug(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        # Raw mode from the start: the line discipline must not echo what the board
        # writes back to it, nor cook it, before the Pi has opened (and configured) it.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)  # atomic: the Pi never sees a missing link mid-swap

    def unplug(self) -> None:
        """Pull the cable: the Pi's next read fails; unread data is lost."""
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if os.path.lexists(self.path):
            os.unlink(self.path)

    def read(self) -> bytes:
        """Whatever the Pi has written (non-blocking; b'' when none or unplugged)."""
        if self._master is None:
            return b""
        chunks = []
        while True:
            try:
                data = os.read(self._master, 4096)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EIO:  # Pi side not open (yet)
                    break
                raise
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)

    def write(self, data: bytes) -> None:
        """Send bytes to the Pi; silently lost when unplugged, like a real cable."""
        if self._master is None:
            return
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view:
            try:
                n = os.write(self._master, view)
                view = view[n:]
            except BlockingIOError:
                if time.monotonic() > deadline:  # Pi not reading: drop, as a UART would
                    return
                time.sleep(0.001)

    def close(self) -> None:
        self.unplug()
        if self._own_dir:
            with contextlib.suppress(OSError):
                os.rmdir(self.directory)


class BoardEmulator:
    """The board's microcontroller: scans ``board``'s switches, drives its LEDs, talks.

    Call :meth:`service` to let it run one round (read commands, report changes and the
    heartbeat); :meth:`start` runs rounds in a thread for real-time use.
    """

    def __init__(
        self,
        board: SimBoard,
        endpoint: PtyEndpoint,
        *,
        clock: Clock | None = None,
        firmware: str = "crownhead-sim 1.0",
        heartbeat_ms: int = 1000,
    ) -> None:
        self.board = board
        self.endpoint = endpoint
        self.clock = clock or board.clock
        self.firmware = firmware
        self.heartbeat_ms = heartbeat_ms
        self._lines = LineBuffer()
        self._reported: int | None = None
        self._reported_at = 0
        self.received: list[bytes] = []  # every well-formed line from the Pi
        self.errors_sent: list[str] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        if endpoint.connected:
            self._boot()

    def _boot(self) -> None:
        """What the microcontroller does on reset (USB connect): greet and report."""
        self._lines.reset()
        self.send(encode_line(f"HELLO {PROTOCOL_VERSION} {self.firmware}"))
        self._report()

    def send(self, data: bytes) -> None:
        """Raw bytes to the Pi (tests use it to inject garbage)."""
        self.endpoint.write(data)

    def _report(self) -> None:
        occ = self.board.raw_occupancy()
        self.send(encode_occupancy(occ))
        self._reported = occ
        self._reported_at = self.clock.now_ms()

    def _error(self, code: str, text: str) -> None:
        self.errors_sent.append(code)
        self.send(encode_line(f"ERR {code} {text}"))

    def service(self) -> None:
        with self._lock:
            self._service()

    def _service(self) -> None:
        if self.board.link_up != self.endpoint.connected:
            if self.board.link_up:
                self.endpoint.plug()
                self._boot()
            else:
                self.endpoint.unplug()
                self._lines.reset()
            return
        if not self.endpoint.connected:
            return
        for line in self._lines.feed(self.endpoint.read()):
            self._handle(line)
        for press in self.board.buttons.poll():
            self.send(encode_line(f"BTN {press.name}"))
        occ = self.board.raw_occupancy()
        if occ != self._reported or self.clock.now_ms() - self._reported_at >= self.heartbeat_ms:
            self._report()

    def _handle(self, line: bytes | None) -> None:
        if line is None:
            self._error("too-long", "line too long")
            return
        if not line.strip():
            return
        try:
            msg = parse_host_line(line)
        except ProtocolError as exc:
            # Keep the text short and free of '*' so the reply is itself a valid line.
            self._error(exc.code, " ".join(str(exc).replace("*", ".").split())[:80])
            return
        self.received.append(line)
        if isinstance(msg, Hello):
            self.send(encode_line(f"HELLO {PROTOCOL_VERSION} {self.firmware}"))
        elif isinstance(msg, OccupancyQuery):
            self._report()
        elif isinstance(msg, LedFrame):
            self.board.lights.show({sq: rgb for sq, rgb in enumerate(msg.colours, start=1) if rgb != (0, 0, 0)})

    def start(self, interval_s: float = 0.002) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, args=(interval_s,), name="crownhead-emulator", daemon=True)
        self._thread.start()

    def _run(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                self.service()
            except Exception:
                log.exception("board emulator round failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
