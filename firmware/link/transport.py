"""One end of a line-based serial link, kept open through unplugging and floods.

:class:`LineTransport` owns a pyserial port (a device path or a pyserial URL such as
``socket://host:7000`` or ``loop://``) and a thread that does all the waiting on it, so
the board's main loop never blocks on the wire:

* received bytes are cut into lines (:class:`~crownhead.firmware.link.protocol.LineReader`) and
  queued in a bounded *inbox*; when the inbox is full the thread stops reading, the
  operating system's buffer fills and the sender is held back (flow control), so a
  flood costs the board nothing but the few lines it takes per loop iteration;
* lines to send are queued in a bounded *outbox* and written by the thread; a host that
  stops reading makes the outbox overflow: it is then emptied and the owner is told
  (:meth:`take_fresh` returns ``"overrun"``), who resends the state as a whole rather
  than a stream with holes in it;
* a read or write error (the cable pulled, the USB device gone) closes the port; it is
  reopened every ``reconnect_ms`` on the injected clock until that works. A partial
  line from before a disconnect is dropped, never glued to the next one. After every
  (re)connect output is held until the owner has queued its greeting
  (:meth:`take_fresh` returns ``"connect"``, :meth:`resume`), so the other end hears
  the greeting first and nothing stale.

Tests drive the same code: ``start()`` runs the threads; :meth:`service` is one round
of their work, callable by hand on a port that does not block (``loop://``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from crownhead.firmware.link.protocol import MAX_LINE, Command, LineReader, LinkError
from crownhead.hal.clock import Clock

__all__ = ["LineTransport", "Transport", "open_port", "Opener"]

log = logging.getLogger(__name__)

Opener = Callable[[], Any]

#: How long the thread waits for input in one round, in seconds: the latency of output
#: queued while it waits, and of noticing ``close()``.
READ_WAIT_S = 0.01


class Transport(Protocol):
    """What the board's end of a link (:class:`~crownhead.firmware.link.host.Link`) needs of a line
    transport: :class:`LineTransport` over serial, or the web page hub. Nothing here may
    block: lines wait in bounded queues on both sides."""

    @property
    def connected(self) -> bool: ...

    def take_fresh(self) -> str | None:
        """``"connect"`` or ``"overrun"`` once after a (re)connect or lost output, else None."""

    def resume(self, *first: bytes) -> None:
        """Send ``first`` (the greeting) ahead of everything else after :meth:`take_fresh`."""

    def send(self, line: bytes) -> bool:
        """Queue one line (with its newline); False when it was not queued."""

    def receive(self, limit: int) -> Sequence[bytes | LinkError | Command]:
        """Up to ``limit`` received lines (without newline), or the errors in their place;
        a transport that parses its lines in its own thread hands over the commands."""

    def close(self) -> None: ...


def open_port(url: str, baudrate: int = 115200) -> Any:
    """Open a serial device or pyserial URL for the link (short read timeout).

    Writes wait as long as the other end takes: they happen in the writer thread, and an
    other end that stops reading fills the bounded outbox, which is the overrun. (A timed
    write is no better: pyserial reports a write as timed out when its thread merely got
    no processor for the timeout, even though every byte went out.)
    """
    import serial

    return serial.serial_for_url(url, baudrate=baudrate, timeout=READ_WAIT_S, write_timeout=None)


def _port_errors() -> tuple[type[BaseException], ...]:
    import serial

    return (serial.SerialException, OSError, ValueError)


def _timeout_error() -> type[BaseException]:
    import serial

    return serial.SerialTimeoutException


class LineTransport:
    """A serial port carrying lines, with reconnect, a bounded inbox and a bounded outbox.

    ``inbox_lines`` bounds the received lines waiting for :meth:`receive`;
    ``outbox_bytes`` bounds the bytes waiting to be written. ``opener`` returns an open
    pyserial-like port (default: :func:`open_port` on ``url``).
    """

    def __init__(
        self,
        url: str,
        clock: Clock,
        *,
        baudrate: int = 115200,
        reconnect_ms: int = 1000,
        inbox_lines: int = 64,
        outbox_bytes: int = 64 * 1024,
        max_line: int = MAX_LINE,
        opener: Opener | None = None,
        name: str = "link",
    ) -> None:
        self.url = url
        self.clock = clock
        self.reconnect_ms = reconnect_ms
        self.inbox_lines = inbox_lines
        self.outbox_bytes = outbox_bytes
        self.name = name
        self._opener = opener or (lambda: open_port(url, baudrate))
        self._errors = _port_errors()
        self._timeout = _timeout_error()
        self._reader = LineReader(max_line)
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)  # output queued, or the link changed
        self._port: Any = None
        self._retry_at = clock.now_ms()
        self._inbox: deque[bytes | LinkError] = deque()
        self._outbox: deque[bytes] = deque()
        self._out_size = 0
        self._hold = True  # nothing goes out before the first greeting
        self._fresh: str | None = None
        self._broken_line = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._closed = False
        #: Counters for status and tests.
        self.connects = 0
        self.drops = 0
        self.overruns = 0
        self.lines_in = 0
        self.bytes_in = 0
        self.bytes_out = 0
        self._bytes_taken = 0  # taken from the outbox by the writer (written, or being written)
        self.last_error: str | None = None

    # -- the owner's side (the board's main loop) -----------------------------------------

    @property
    def connected(self) -> bool:
        return self._port is not None

    def take_fresh(self) -> str | None:
        """``"connect"`` or ``"overrun"`` once after the link (re)started, else None.

        Output stays held until :meth:`resume` gives the first lines to send.
        """
        with self._lock:
            fresh, self._fresh = self._fresh, None
            return fresh

    def resume(self, *first: bytes) -> None:
        """Send ``first`` (the greeting) before anything else, and stop holding output."""
        with self._lock:
            self._outbox.clear()
            self._out_size = 0
            for line in first:
                self._outbox.append(line)
                self._out_size += len(line)
            self._hold = False
            self._ready.notify_all()

    def send(self, line: bytes) -> bool:
        """Queue one encoded line; False if it was not queued (no link, or an overrun)."""
        with self._lock:
            if self._port is None or self._hold:
                return False
            if self._out_size + len(line) > self.outbox_bytes:
                self._overrun_locked("the other end is not reading")
                return False
            self._outbox.append(line)
            self._out_size += len(line)
            self._ready.notify_all()
            return True

    def receive(self, limit: int) -> list[bytes | LinkError]:
        """Up to ``limit`` received lines (or ``too-long`` errors), oldest first."""
        out: list[bytes | LinkError] = []
        with self._lock:
            while self._inbox and len(out) < limit:
                out.append(self._inbox.popleft())
        return out

    @property
    def holding(self) -> bool:
        """True while output is held: before the greeting after a (re)connect or overrun."""
        return self._hold

    @property
    def waiting(self) -> int:
        """Received lines not yet taken."""
        return len(self._inbox)

    @property
    def pending_bytes(self) -> int:
        """Bytes queued for sending."""
        return self._out_size

    def flow(self) -> tuple[int, int, int, int, bool]:
        """Where the bytes are, all read at one instant: queued, taken by the writer,
        read from the port, lines received but not yet taken, and whether output is held.

        Two boards on one cable have nothing on its way when each board's queue is empty,
        the other has read every byte its writer took, and no line waits to be taken.
        """
        with self._lock:
            return self._out_size, self._bytes_taken, self.bytes_in, len(self._inbox), self._hold

    def _overrun_locked(self, why: str) -> None:
        self.overruns += 1
        self._outbox.clear()
        self._out_size = 0
        self._hold = True
        self._fresh = self._fresh or "overrun"
        self.last_error = f"output overrun: {why}"
        log.warning("%s: output dropped (%s); the state will be resent", self.name, why)

    # -- the thread's side ---------------------------------------------------------------

    def service(self) -> None:
        """One round: (re)connect if due, write what is queued, read what has arrived."""
        if self._closed:
            return
        port = self._port
        if port is None:
            if self.clock.now_ms() >= self._retry_at:
                self._connect()
            return
        if not self._write_pending(port):
            return
        if len(self._inbox) >= self.inbox_lines:
            return  # hold the sender back: the board takes a few lines per loop
        self._read(port)

    def _read(self, port: Any) -> None:
        try:
            waiting = port.in_waiting
            data = port.read(min(max(waiting, 1), 4096))
        except self._errors as exc:
            if self._port is port:
                self._drop(f"read failed: {exc}")
            return
        if data and self._port is port:
            items = self._reader.feed(data)
            with self._lock:
                self._inbox.extend(items)
                self.lines_in += len(items)
                self.bytes_in += len(data)

    def _write_pending(self, port: Any) -> bool:
        """Write the queued lines; False if the port was dropped."""
        while True:
            with self._lock:
                if self._hold or not self._outbox:
                    return True
                line = self._outbox.popleft()
                self._out_size -= len(line)
                if self._broken_line:
                    # A timed-out write may have left half a line: end it, so the
                    # other end sees one bad line, not a good one spoiled.
                    line = b"\n" + line
                    self._broken_line = False
                self._bytes_taken += len(line)
            try:
                port.write(line)
                self.bytes_out += len(line)
            except self._errors as exc:
                if isinstance(exc, self._timeout):
                    with self._lock:
                        self._broken_line = True
                        self._overrun_locked("a write timed out")
                    return True
                if self._port is port:
                    self._drop(f"write failed: {exc}")
                return False

    def _connect(self) -> None:
        now = self.clock.now_ms()
        try:
            port = self._opener()
        except self._errors as exc:
            self._retry_at = now + self.reconnect_ms
            message = f"cannot open {self.url}: {exc}"
            if message != self.last_error:
                log.warning("%s: %s; retrying every %d ms", self.name, message, self.reconnect_ms)
            self.last_error = message
            return
        self._reader.reset()
        with self._lock:
            self._port = port
            self._outbox.clear()
            self._out_size = 0
            self._hold = True
            self._broken_line = False
            self._fresh = "connect"
            self.connects += 1
        self.last_error = None
        log.info("%s: connected on %s", self.name, self.url)

    def _drop(self, reason: str) -> None:
        with self._lock:
            port, self._port = self._port, None
            self._hold = True
            self._outbox.clear()
            self._out_size = 0
        if port is None:
            return
        self.drops += 1
        partial = self._reader.reset()
        if partial:
            log.info("%s: dropping half a line at disconnect: %r", self.name, partial[:60])
        # A write waiting for the other end ends now, not with the port it was given.
        cancel = getattr(port, "cancel_write", None)
        with contextlib.suppress(*self._errors):
            if callable(cancel):
                cancel()
            port.close()
        self.last_error = reason
        self._retry_at = self.clock.now_ms() + self.reconnect_ms
        log.warning("%s: disconnected (%s); reconnecting every %d ms", self.name, reason, self.reconnect_ms)

    def connect_now(self) -> bool:
        """Try to open the port at once (instead of in the reader thread); True if open."""
        if self._port is None and not self._closed:
            self._connect()
        return self._port is not None

    def drop(self, reason: str = "closed by the board") -> None:
        """Close the port now; it is reopened after ``reconnect_ms`` like after an error."""
        self._drop(reason)

    # -- threads -----------------------------------------------------------------------

    def start(self) -> None:
        """Service the link in two daemon threads until :meth:`close`.

        The reader (re)connects and waits for input; the writer waits for output, so a
        reply goes out as soon as it is queued, not when the reader's wait ends.
        """
        if self._threads or self._closed:
            return
        self._threads = [
            threading.Thread(target=self._run_reader, name=f"crownhead-{self.name}-in", daemon=True),
            threading.Thread(target=self._run_writer, name=f"crownhead-{self.name}-out", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _run_reader(self) -> None:
        while not self._stop.is_set():
            try:
                port = self._port
                if port is None:
                    if self.clock.now_ms() >= self._retry_at:
                        self._connect()
                    if self._port is None:
                        self._stop.wait(READ_WAIT_S)
                elif len(self._inbox) >= self.inbox_lines:
                    self._stop.wait(READ_WAIT_S / 4)
                else:
                    self._read(port)
            except Exception:  # keep the link alive whatever one round did
                log.exception("%s: reading failed", self.name)
                self._stop.wait(0.1)

    def _run_writer(self) -> None:
        while not self._stop.is_set():
            try:
                with self._lock:
                    if self._port is None or self._hold or not self._outbox:
                        self._ready.wait(0.05)
                    port = self._port
                if port is not None:
                    self._write_pending(port)
            except Exception:  # keep the link alive whatever one round did
                log.exception("%s: writing failed", self.name)
                self._stop.wait(0.1)

    def close(self, flush_s: float = 0.5) -> None:
        """Stop the threads and close the port (idempotent).

        Output still queued gets up to ``flush_s`` seconds to go out first: the last
        events before a shutdown (the game saved, the lights off) reach the host.
        """
        if self._closed:
            return
        deadline = time.monotonic() + flush_s
        while self._threads and self._out_size and self._port is not None and not self._hold:
            if time.monotonic() >= deadline:
                break
            self._stop.wait(0.002)
        self._closed = True
        self._stop.set()
        port = self._port
        if port is not None:
            for name in ("cancel_read", "cancel_write"):
                cancel = getattr(port, name, None)
                if callable(cancel):
                    with contextlib.suppress(*self._errors):
                        cancel()
        with self._lock:
            self._ready.notify_all()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=2.0)
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(*self._errors):
                port.close()

    def __repr__(self) -> str:
        state = "connected" if self.connected else "disconnected"
        return f"LineTransport({self.url!r}, {state}, connects={self.connects})"
