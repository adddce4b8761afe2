"""The main loop's side of the web server: many pages, one link.

A page is one more end of the host link (:class:`~firmware.link.host.Link`): it sends
the link's text commands and gets the link's JSON lines, over a WebSocket instead of a
serial line. :class:`WebLink` *is* a link (the same dispatcher, the same replies and
errors, the same events), with a :class:`PageHub` for a transport that carries many
pages at once:

* commands from all pages wait in one bounded inbox (the server thread stops reading a
  page's socket while it is full, so a flood holds back the flooder only); the link
  takes a few per loop iteration, like the serial link's lines;
* a reply goes to the page that asked; every other line to every page;
* lines out wait in one bounded outbox for the server thread; a page that does not read
  is disconnected by the server (it reconnects and is greeted afresh), the board never
  waits for one.

Nothing here blocks: the main loop only takes and puts under a lock held for
microseconds.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from firmware.app.application import App
from firmware.link.board import LinkedBoard
from firmware.link.host import CONTROL_COMMANDS, Link, LinkConfig
from firmware.link.protocol import MAX_LINE, Command, LineReader, LinkError, PeerMessage, parse_line
from firmware.simulator.hands import Hands

__all__ = ["PageHub", "WebLink", "Page"]

log = logging.getLogger(__name__)

#: Commands a page may send without having logged in (they change nothing).
QUERIES = frozenset({"hello", "fen", "pdn", "moves", "help", "view", "watch"})


@dataclass
class Page:
    """One connected page: ``control`` if it may change the game (logged in, or loopback)."""

    id: int
    control: bool
    greeted: bool = False
    reader: LineReader = field(default_factory=lambda: LineReader(MAX_LINE))


class PageHub:
    """The link transport for many pages (duck-typed like :class:`~firmware.link.transport.LineTransport`).

    The server thread calls :meth:`join`, :meth:`leave`, :meth:`put`, :meth:`ask`,
    :meth:`take` and :meth:`doze`; the main loop (through the link) :meth:`take_fresh`,
    :meth:`resume`, :meth:`send`, :meth:`receive` and :meth:`asks`. ``wake`` is called
    from the main loop only when output is queued while the server sleeps (it said so
    with :meth:`doze`), so once per quiet spell at most.

    >>> hub = PageHub()
    >>> page = hub.join(control=True)
    >>> hub.take_fresh()
    'connect'
    >>> hub.resume(b'{"event":"hello"}\\n')
    >>> hub.put(page, b"fen"), hub.receive(8), hub.current == page.id
    (True, [b'fen'], True)
    >>> hub.send(b'{"event":"reply"}\\n')
    True
    >>> [(targets, line) for targets, line in hub.take()]
    [((1,), b'{"event":"hello"}\\n'), ((1,), b'{"event":"reply"}\\n')]
    """

    def __init__(self, *, inbox_lines: int = 64, outbox_bytes: int = 256 * 1024, max_pages: int = 64) -> None:
        self.inbox_lines = inbox_lines
        self.outbox_bytes = outbox_bytes
        self.max_pages = max_pages
        self._lock = threading.Lock()
        self._pages: dict[int, Page] = {}
        self._ids = itertools.count(1)
        self._inbox: deque[tuple[int, bytes | LinkError]] = deque()
        # Each line with the pages it goes to (fixed when queued: a page greeted later
        # does not get lines from before its greeting).
        self._outbox: deque[tuple[tuple[int, ...], bytes]] = deque()
        # Questions from the server thread for the main loop: (what, future).
        self._asks: deque[tuple[str, Future[Any]]] = deque()
        self.max_asks = 32
        #: Set when pages were greeted: the link resends the view for them.
        self.greeted_new = False
        self._out_size = 0
        #: The server waits to be woken (nothing was sent for a while); see :meth:`doze`.
        self.sleeping = False
        #: The page whose command the link is handling (its reply goes to it alone).
        self.current: int | None = None
        self.wake: Callable[[], None] = lambda: None
        self.overruns = 0
        self.lines_in = 0
        self.bytes_out = 0

    # -- the server thread's side ------------------------------------------------------

    def join(self, control: bool) -> Page | None:
        """A new page, to be greeted by the link's next step; None when there are too many."""
        with self._lock:
            if len(self._pages) >= self.max_pages:
                return None
            page = Page(next(self._ids), control)
            self._pages[page.id] = page
            return page

    def leave(self, page: Page) -> None:
        with self._lock:
            self._pages.pop(page.id, None)

    def room(self) -> bool:
        """Whether the inbox takes another line now (else the page's socket waits)."""
        return len(self._inbox) < self.inbox_lines

    def put(self, page: Page, data: bytes) -> bool:
        """A WebSocket message from ``page``, as one or more lines; False when full.

        A message is a line; one with newlines is several. Each line is cut at
        :data:`MAX_LINE` bytes exactly as on the serial link (``too-long``).
        """
        with self._lock:
            if len(self._inbox) >= self.inbox_lines:
                return False
            for item in page.reader.feed(data + b"\n"):
                self._inbox.append((page.id, item))
                self.lines_in += 1
            return True

    def ask(self, what: str) -> Future[Any] | None:
        """A question for the main loop (``state``, ``status``), answered in its next step;
        None when too many are waiting."""
        future: Future[Any] = Future()
        with self._lock:
            if len(self._asks) >= self.max_asks:
                return None
            self._asks.append((what, future))
        return future

    def asks(self, limit: int = 4) -> list[tuple[str, Future[Any]]]:
        """Up to ``limit`` questions, oldest first (the rest wait for the next step)."""
        if not self._asks:
            return []
        with self._lock:
            out: list[tuple[str, Future[Any]]] = []
            while self._asks and len(out) < limit:
                out.append(self._asks.popleft())
            return out

    def take(self) -> list[tuple[tuple[int, ...], bytes]]:
        """The lines to send, each with the ids of the pages it goes to."""
        with self._lock:
            out = list(self._outbox)
            self._outbox.clear()
            self._out_size = 0
            return out

    def doze(self) -> bool:
        """The server is going to wait to be woken: True unless lines are already waiting."""
        with self._lock:
            self.sleeping = not self._outbox
            return self.sleeping

    @property
    def pages(self) -> int:
        return len(self._pages)

    # -- the link's side (the main loop) -----------------------------------------------

    @property
    def connected(self) -> bool:
        return bool(self._pages)

    def take_fresh(self) -> str | None:
        if not self._pages:
            return None
        with self._lock:
            return "connect" if any(not p.greeted for p in self._pages.values()) else None

    def resume(self, *first: bytes) -> None:
        """Greet the pages not yet greeted with ``first``; from now on they get every line."""
        with self._lock:
            fresh = [page for page in self._pages.values() if not page.greeted]
            for page in fresh:
                page.greeted = True
            if fresh:
                self.greeted_new = True
                for line in first:
                    self._queue_locked(tuple(page.id for page in fresh), line)
        self._wake()

    def send(self, line: bytes) -> bool:
        """Queue a line: to the page being answered (a reply), else to every page."""
        with self._lock:
            if not self._pages:
                return False
            if self.current is not None:
                target: tuple[int, ...] = (self.current,)
            else:
                target = tuple(page.id for page in self._pages.values() if page.greeted)
            ok = self._queue_locked(target, line) if target else False
        self._wake()
        return ok

    def _queue_locked(self, target: tuple[int, ...], line: bytes) -> bool:
        if self._out_size + len(line) > self.outbox_bytes:
            # The server thread is not keeping up: every page starts afresh.
            self.overruns += 1
            self._outbox.clear()
            self._out_size = 0
            for page in self._pages.values():
                page.greeted = False
            log.warning("web: output overrun; every page is greeted afresh")
            return False
        self._outbox.append((target, line))
        self._out_size += len(line)
        self.bytes_out += len(line)
        return True

    def _wake(self) -> None:
        # Only a server asleep is woken: a busy one looks for lines by itself (a wake-up
        # from here costs the main loop a hand-over of the interpreter to the server).
        with self._lock:
            if not self.sleeping or not self._outbox:
                return
            self.sleeping = False
        try:
            self.wake()
        except Exception:  # noqa: BLE001 - the server's loop is gone: nothing to tell
            pass

    def receive(self, limit: int) -> list[bytes | LinkError]:
        """Up to ``limit`` received lines; the page of the last one becomes :attr:`current`
        (the link takes and handles one line at a time)."""
        out: list[bytes | LinkError] = []
        if not self._inbox:
            return out  # the usual case, without taking the lock
        with self._lock:
            while self._inbox and len(out) < limit:
                page_id, item = self._inbox.popleft()
                if page_id not in self._pages:
                    continue  # the page left: nobody to answer
                self.current = page_id
                out.append(item)
        return out

    def may_control(self, page_id: int | None) -> bool:
        page = self._pages.get(page_id) if page_id is not None else None
        return page is not None and page.control

    def close(self) -> None:
        with self._lock:
            self._inbox.clear()
            self._outbox.clear()
            self._out_size = 0


class WebLink(Link):
    """The host link, spoken by every connected page (see the module's description).

    The differences from a serial link: replies go to the asking page; a page that has
    not logged in gets ``forbidden`` for anything that changes the game; pages are not
    boards, so another board's event lines are refused; a page watches the view
    (``watch on``) from the start.
    """

    def __init__(self, hub: PageHub, settings: LinkConfig = LinkConfig()) -> None:
        super().__init__(hub, settings)
        self.hub = hub
        self.watching = True
        self._rate_at: tuple[int, int] | None = None
        #: Main-loop steps per second, measured over the last second.
        self.steps_per_s: float | None = None
        #: The application itself (the link sees only its LinkedBoard side).
        self.board: App | None = None

    def attach(self, app: LinkedBoard) -> None:
        """Join the application; on a simulated board the pages get the simulator's hands."""
        super().attach(app)
        if isinstance(app, App):
            self.board = app
            if app.sim is not None:
                self.hands = Hands(app)

    def _line(self, item: bytes | LinkError, now: int) -> None:
        try:
            if not isinstance(item, LinkError):
                message = parse_line(item)
                if isinstance(message, PeerMessage):
                    raise LinkError("unknown-command", "a page sends commands, not event lines (those are for a second board on the serial link)")
        except LinkError as exc:
            self.errors += 1
            self._send(exc.reply(now))
            self.hub.current = None
            return
        try:
            super()._line(item, now)
        finally:
            self.hub.current = None

    def _cmd_watch(self, now: int, state: str) -> dict[str, Any]:
        # One page's `watch off` must not blind the others: pages always watch.
        return {"watching": True}

    def _command(self, command: Command, now: int) -> dict[str, Any]:
        if command.name not in QUERIES and not self.hub.may_control(self.hub.current):
            raise LinkError("forbidden", f"{command.name} changes the game: log in with the board's PIN first", command.name)
        return super()._command(command, now)

    def poll(self, now: int) -> list[Any]:
        events = super().poll(now)
        if self.board is not None:
            if self._rate_at is None or now - self._rate_at[0] >= 1000:
                if self._rate_at is not None:
                    self.steps_per_s = (self.board.steps - self._rate_at[1]) * 1000 / (now - self._rate_at[0])
                self._rate_at = (now, self.board.steps)
        for what, future in self.hub.asks():
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(self.answer(what, now))
                except Exception as exc:  # noqa: BLE001 - the asker gets the failure
                    log.exception("web: cannot answer %s", what)
                    future.set_exception(exc)
        return events

    def answer(self, what: str, now: int) -> dict[str, Any]:
        """What the server asked the main loop: ``state`` (``GET /api/state``: the link's
        ``state`` with the names, mode and clocks) or ``status`` (the status page)."""
        assert self.app is not None
        app = self.app
        if what == "state":
            view = self.view(now)
            return {**self._identity(), "state": self._state(), "clock": view["clock"],
                    "cautions": view["cautions"], "status": view["status"]}
        if what == "status":
            return self.status(now)
        raise ValueError(f"unknown question {what!r}")

    def status(self, now: int) -> dict[str, Any]:
        assert self.board is not None
        hardware = self.board.hardware
        sensors = hardware.sensors
        scan_hz = getattr(sensors, "scan_hz", None)
        steps_s = self.steps_per_s
        return {
            "version": self._identity()["version"],
            "backend": hardware.backend,
            "scan_hz": scan_hz,
            "steps_per_s": round(steps_s, 1) if steps_s is not None else None,
            "debounce_ms": hardware.debounce_ms,
            "faults": hardware.diagnose() if hasattr(hardware, "diagnose") else [],
            "pages": self.hub.pages,
            "commands": self.commands,
            "errors": self.errors,
        }

    def _send_view(self, now: int) -> None:
        if self.hub.greeted_new:
            self.hub.greeted_new = False
            self._view_sent = None
        current, self.hub.current = self.hub.current, None
        try:
            super()._send_view(now)
        finally:
            self.hub.current = current


assert QUERIES.isdisjoint(CONTROL_COMMANDS)
