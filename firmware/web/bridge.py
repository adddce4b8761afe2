"""The main loop's side of the web server: many pages, one link.

A page is one more end of the host link (:class:`~crownhead.firmware.link.host.Link`): it sends
the link's text commands and gets the link's JSON lines, over a WebSocket instead of a
serial line. :class:`WebLink` *is* a link (the same dispatcher, the same replies and
errors, the same events), with a :class:`PageHub` for a transport that carries many
pages at once:

* what needs no game is answered in the server's thread, never reaching the main loop:
  lines that do not parse, commands a page may not send, ``help``, ``watch``, and a
  question (``fen``, ``moves``, ``hello``, ``view``, ``history``, ``pdn``) the main loop
  has answered since the board last changed, and a command it refused since then (a
  refused command changes nothing, so the same line is refused alike): the answers are
  kept until the board changes (:data:`KEEP_MS` at most; a change of its lights alone
  forgets only the ``view``), so a flood of questions or of refused commands costs the
  board one answer per change, not one per line;
* a display command (``brightness``) is answered in the server's thread too, and the
  last value asked is left for the main loop, which applies it at most every
  :data:`DISPLAY_MS` (a slider dragged, or a flood of them, costs the board a few new
  frames of lights a second, and the last value is always the one shown);
* the rest waits in one bounded inbox, parsed (the main loop never parses a page's
  line); the main loop takes a few lines per step and at most :attr:`PageHub.rate` a
  second (bursts of :attr:`PageHub.burst`); while the inbox is full the server stops
  reading the page that sends (its socket waits: a flood holds back the flooder only,
  and nothing is dropped);
* a reply goes to the page that asked; every other line to every page;
* lines out wait in one bounded outbox; the main loop wakes the server thread once per
  batch (not per line, never by polling); a page that does not read is disconnected by
  the server (it reconnects and is greeted afresh), the board never waits for one.

A page's lines are answered in the order it sent them: while one of its lines waits
for the main loop, its next lines wait in the server (its socket unread meanwhile), and
are then answered there from what is kept when they can be (a page that sends a
command and questions after it costs the main loop the command alone).

Nothing here blocks: the main loop only takes and puts under a lock held for
microseconds.
"""

from __future__ import annotations

import itertools
import math
import json  # noqa: F401 - the doctests read answers with it
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import Alert
from crownhead.firmware.link.board import LinkedBoard, SimHands
from crownhead.firmware.link.host import CONTROL_COMMANDS, DISPLAY_COMMANDS, Link, display_reply, help_page
from crownhead.firmware.link.policy import LinkPolicy
from crownhead.firmware.link.transport import Transport
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.protocol import (
    MAX_LINE,
    Command,
    LineReader,
    LinkError,
    PeerMessage,
    encode_message,
    parse_line,
)
from crownhead.hal.clock import Clock

__all__ = [
    "PageHub",
    "PageBoard",
    "WebLink",
    "Page",
    "QUERIES",
    "KEPT",
    "KEEP_MS",
    "DISPLAY_COMMANDS",
    "DISPLAY_MS",
    "VIEW_GAME_FIELDS",
]

log = logging.getLogger(__name__)

#: Commands a page may send without having logged in (they change nothing).
QUERIES = frozenset({"hello", "fen", "pdn", "moves", "help", "view", "watch", "history", "problems"})
#: Questions whose answers the hub keeps until the board changes (see :meth:`PageHub.keep`).
KEPT = frozenset({"hello", "fen", "pdn", "moves", "view", "history"})
#: The fields of a ``view`` that tell of the game or of who plays it: a view in which
#: none of them changed forgets only the kept ``view`` (the game's changes come as their
#: own events, which forget everything).
VIEW_GAME_FIELDS = ("ply", "status", "target", "mode", "names", "hints", "cautions", "match", "sim")
#: How long an answer is kept at most, even if the board seems not to have changed: a
#: change no event and no view tells of (a serial link's command that only the other
#: link hears of, say) is seen by the pages' questions within this time.
KEEP_MS = 5000
#: How often (the board's ms) the main loop applies the pages' display commands at most:
#: the first at once, then the last one asked every quarter of a second while more come.
#: A new brightness is a new frame of lights and a view to every page; four a second is
#: as quick as a hand on a slider follows the board's LEDs.
DISPLAY_MS = 250
VIEW = Command("view")
#: Why a page's event line is refused (pages are not boards).
NOT_A_BOARD = "a page sends commands, not event lines (those are for a second board on the serial link)"


@dataclass
class Page:
    """One connected page: ``control`` if it may change the game (logged in, or loopback)."""

    id: int
    control: bool
    greeted: bool = False
    reader: LineReader = field(default_factory=lambda: LineReader(MAX_LINE))
    #: Its lines received but not yet answered or queued for the main loop, in order.
    unsorted: deque[bytes | LinkError] = field(default_factory=deque)
    #: Its lines the main loop has taken or will take and not yet finished with (while
    #: there are any, its next lines wait in ``unsorted``).
    waiting: int = 0


class PageHub:
    """The link transport for many pages (duck-typed like :class:`~crownhead.firmware.link.transport.LineTransport`).

    The server thread calls :meth:`join`, :meth:`leave`, :meth:`put`, :meth:`ask`,
    :meth:`take` and :meth:`woken`; the main loop (through the link) :meth:`take_fresh`,
    :meth:`resume`, :meth:`send`, :meth:`receive`, :meth:`done`, :meth:`keep`,
    :meth:`changed`, :meth:`asks` and :meth:`take_display`. ``wake`` is called from
    the main loop when the first line of a batch is queued (the server thread then takes
    all that came meanwhile); ``make_room`` when lines were taken while a page waited for room.
    ``now`` is the board's clock (``t`` of the answers given in the server's thread).

    >>> hub = PageHub()
    >>> page = hub.join(control=True)
    >>> hub.take_fresh()
    'connect'
    >>> hub.resume(b'{"event":"hello"}\\n')
    >>> hub.put(page, b"fen"), hub.receive(8), hub.current == page.id
    ((True, []), [Command(name='fen', args=())], True)
    >>> hub.send(b'{"event":"reply"}\\n')
    True
    >>> hub.done()
    >>> [(targets, line) for targets, line in hub.take()]
    [((1,), b'{"event":"hello"}\\n'), ((1,), b'{"event":"reply"}\\n'), ((1,), b'')]

    The page's next lines wait meanwhile (``False``: not all dealt with yet). The server
    hands the reply to the page and, at the empty line, calls :meth:`settle`; then they
    are answered, here when they need no board (in order):

    >>> hub.put(page, b"castle\\nwatch off")
    (False, [])
    >>> hub.settle(page.id)
    >>> done, answers = hub.put(page)
    >>> done, [json.loads(answer)["event"] for answer in answers]
    (True, ['error', 'reply'])
    >>> answers[1]
    '{"t":0,"event":"reply","cmd":"watch","ok":true,"watching":true}'
    """

    def __init__(
        self,
        *,
        inbox_lines: int = 64,
        outbox_bytes: int = 256 * 1024,
        max_pages: int = 64,
        rate: float = 20.0,
        burst: int = 20,
        keep_ms: int = KEEP_MS,
        display_ms: int = DISPLAY_MS,
    ) -> None:
        self.inbox_lines = inbox_lines
        #: How often (the board's ms) display commands are applied at most (see :data:`DISPLAY_MS`).
        self.display_ms = display_ms
        #: Whether display commands are answered here and applied by :meth:`take_display`
        #: (set by a :class:`WebLink` that may change the board); else they go to the main
        #: loop as other commands do.
        self.answers_display = False
        # The last display command of each kind a page sent since the main loop last took
        # them, and when (the board's ms) it last did.
        self._display: dict[str, Command] = {}
        # What the server must tell the people at the board (a PIN lockout), a few at most.
        self._alerts: deque[tuple[str, str]] = deque(maxlen=4)
        self._display_at: int | None = None
        #: How long (the board's ms) an answer is kept at most (see :data:`KEEP_MS`).
        self.keep_ms = keep_ms
        self.outbox_bytes = outbox_bytes
        self.max_pages = max_pages
        #: Lines a second the main loop takes from all pages together (and at once).
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._refilled: int | None = None
        self._lock = threading.Lock()
        self._pages: dict[int, Page] = {}
        self._ids = itertools.count(1)
        self._inbox: deque[tuple[int, Command]] = deque()
        # Each line with the pages it goes to (fixed when queued: a page greeted later
        # does not get lines from before its greeting). An empty line to one page says
        # the main loop is done with one of its lines.
        self._outbox: deque[tuple[tuple[int, ...], bytes]] = deque()
        # Questions from the server thread for the main loop: (what, future).
        self._asks: deque[tuple[str, Future[Any]]] = deque()
        self.max_asks = 32
        # The main loop's answers to questions since the board last changed, by
        # (command, arguments): (the reply without "t", the board's time it was given).
        self._kept: dict[tuple[str, tuple[Any, ...]], tuple[dict[str, Any] | LinkError, int]] = {}
        #: Set when pages were greeted: the link resends the view for them.
        self.greeted_new = False
        # A page joined and is not greeted yet (looked at by the main loop every step).
        self._fresh = False
        self._out_size = 0
        # A wake-up is on its way to the server thread (it will take every queued line).
        self._signalled = False
        # The main loop's: the link is handling lines (a wake-up waits for the end, see
        # hold_wake), and one is due then.
        self._holding = False
        self._wake_due = False
        #: A page waits for room in the inbox (the server wants to hear when there is).
        self.wants_room = False
        #: The page whose command the link is handling (its reply goes to it alone).
        self.current: int | None = None
        self.wake: Callable[[], None] = lambda: None
        self.make_room: Callable[[], None] = lambda: None
        #: Called (in the server's thread) with a page dropped to make room for one that
        #: may change the game: the server disconnects it.
        self.drop: Callable[[int], None] = lambda page_id: None
        #: Called from the server thread when something waits for the main loop (a page
        #: to greet, a line, a question): the loop may be asleep until its next deadline.
        self.wake_board: Callable[[], None] = lambda: None
        self.now: Callable[[], int] = lambda: 0
        self.overruns = 0
        self.lines_in = 0
        self.bytes_out = 0
        #: Lines answered in the server's thread: commands, and errors among them.
        self.answered = 0
        self.refused = 0

    # -- the server thread's side ------------------------------------------------------

    def join(self, control: bool) -> Page | None:
        """A new page, to be greeted by the link's next step; None when there are too many.

        Pages that may change the game always have room: when all are taken, the viewer
        that came first of those that may not is dropped for one (``drop``: the server
        disconnects it). A viewer finds no room then, and waits to come back.

        >>> hub = PageHub(max_pages=2)
        >>> dropped = []
        >>> hub.drop = dropped.append
        >>> first, second = hub.join(control=False), hub.join(control=False)
        >>> hub.join(control=False) is None
        True
        >>> player = hub.join(control=True)
        >>> dropped == [first.id], hub.pages
        (True, 2)
        """
        dropped: Page | None = None
        with self._lock:
            if len(self._pages) >= self.max_pages:
                viewers = [p for p in self._pages.values() if not p.control]
                if not control or not viewers:
                    return None
                dropped = min(viewers, key=lambda p: p.id)
                del self._pages[dropped.id]
            page = Page(next(self._ids), control)
            self._pages[page.id] = page
            self._fresh = True
        if dropped is not None:
            self.drop(dropped.id)
        self.wake_board()
        return page

    def leave(self, page: Page) -> None:
        with self._lock:
            self._pages.pop(page.id, None)

    def revoke(self, page_id: int) -> None:
        """``page_id`` may no longer change the game (its session ended)."""
        page = self._pages.get(page_id)
        if page is not None:
            page.control = False

    def room(self) -> bool:
        """Whether the inbox takes another line now (else the page's socket waits)."""
        return len(self._inbox) < self.inbox_lines

    def held(self, page: Page) -> bool:
        """Whether ``page``'s next line must wait: for its line with the main loop
        (:meth:`settle` ends that) or for room in the inbox (``make_room``)."""
        return bool(page.unsorted) and (page.waiting > 0 or not self.room())

    def put(self, page: Page, data: bytes | None = None) -> tuple[bool, list[str]]:
        """A WebSocket message from ``page`` (None: only go on with what waits): whether
        all of it was dealt with (False: some waits, for the page's line with the main
        loop or for room in the inbox: call again once :meth:`held` is False), and the
        answers given here, to send to the page now.

        A message is a line; one with newlines is several. Each line is cut at
        :data:`MAX_LINE` bytes exactly as on the serial link (``too-long``).
        """
        # A page's own state (its reader, its unsorted lines, what it has waiting) is the
        # server thread's alone; the lock guards only what the main loop shares: the
        # inbox and the kept answers (so the main loop never waits while a line is parsed
        # or an answer encoded here).
        answers: list[str] = []
        if data is not None:
            page.unsorted.extend(page.reader.feed(data + b"\n"))
        while page.unsorted:
            if page.waiting:
                # Its line with the main loop is answered first; what follows may then be
                # answered from what is kept (the server calls again after settle).
                return False, answers
            answer, command = self._answer(page, page.unsorted[0])
            if command is None:
                page.unsorted.popleft()
                if answer:
                    answers.append(answer)
                continue
            with self._lock:
                if len(self._inbox) >= self.inbox_lines:
                    self.wants_room = True
                    return False, answers
                page.unsorted.popleft()
                page.waiting += 1
                self._inbox.append((page.id, command))
                self.lines_in += 1
            self.wake_board()
        return True, answers

    def _answer(self, page: Page, item: bytes | LinkError) -> tuple[str, Command | None]:
        """The answer to ``item`` given without the board ("": none is due), or the
        command (parsed) the main loop must answer. Exactly the link's answer (see WebLink)."""
        now = self.now()
        try:
            if isinstance(item, LinkError):
                raise item
            message = parse_line(item)
            if message is None:
                return "", None  # a blank line: no command, no reply
            if isinstance(message, PeerMessage):
                raise LinkError("unknown-command", NOT_A_BOARD)
        except LinkError as exc:
            self.refused += 1
            return encode_message(exc.reply(now)).decode("utf-8").rstrip("\n"), None
        name = message.name
        body: dict[str, Any] | None = None
        try:
            if name not in QUERIES and not page.control:
                self.answered += 1
                raise LinkError("forbidden", f"{name} changes the game: log in with the board's PIN first", name)
            if name == "watch":
                body = {"watching": True}
            elif name == "help":
                body = help_page(*message.args)
            elif name in DISPLAY_COMMANDS and self.answers_display:
                # It cannot fail once parsed: answered now, applied by the main loop soon
                # (the last one of a burst; see take_display).
                body = display_reply(name, message.args)
                with self._lock:
                    self._display[name] = message
                self.wake_board()
            else:
                with self._lock:
                    kept = self._kept.get((name, message.args))
                    pending = list(self._display.values()) if name == "view" else []
                if kept is None or not 0 <= now - kept[1] <= self.keep_ms:
                    return "", message
                reply, at = kept
                if isinstance(reply, LinkError):
                    self.answered += 1
                    raise reply
                if name == "view":
                    # What the page was told it set, though the main loop may not have
                    # applied it yet: a page's view follows its own commands.
                    body = _aged(reply, now - at)
                    for command in pending:
                        body = {**body, **display_reply(command.name, command.args)}
                else:
                    body = reply
        except LinkError as exc:
            self.refused += 1
            return encode_message(exc.reply(now)).decode("utf-8").rstrip("\n"), None
        try:
            line = encode_message({"t": now, "event": "reply", "cmd": name, "ok": True, **body})
        except ValueError:
            return "", message  # the main loop shortens what does not fit (it never should here)
        self.answered += 1
        return line.decode("utf-8").rstrip("\n"), None

    def ask(self, what: str) -> Future[Any] | None:
        """A question for the main loop (``state``, ``status``), answered in its next step;
        None when too many are waiting."""
        future: Future[Any] = Future()
        with self._lock:
            if len(self._asks) >= self.max_asks:
                return None
            self._asks.append((what, future))
        self.wake_board()
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

    def woken(self) -> None:
        """The server thread is about to :meth:`take`: lines queued after this wake it again."""
        with self._lock:
            self._signalled = False

    def take(self) -> list[tuple[tuple[int, ...], bytes]]:
        """The lines to send, each with the ids of the pages it goes to (an empty line:
        the main loop is done with one line of that page, see :meth:`settle`)."""
        with self._lock:
            out = list(self._outbox)
            self._outbox.clear()
            self._out_size = 0
            return out

    def settle(self, page_id: int) -> None:
        """The main loop's answer to one of ``page_id``'s lines has been handed to the page."""
        with self._lock:
            page = self._pages.get(page_id)
            if page is not None and page.waiting:
                page.waiting -= 1

    @property
    def pages(self) -> int:
        return len(self._pages)

    # -- the link's side (the main loop) -----------------------------------------------

    @property
    def connected(self) -> bool:
        return bool(self._pages)

    def take_fresh(self) -> str | None:
        if not self._fresh:
            return None
        with self._lock:
            return "connect" if any(not p.greeted for p in self._pages.values()) else None

    def alert(self, code: str, message: str) -> None:
        """(The server's thread) Tell the people at the board ``message`` (the link says it
        in its next step, as an ``alert`` event with ``code``, one of
        :data:`~crownhead.firmware.events.ALERT_CODES`: terminal, pages, display)."""
        with self._lock:
            self._alerts.append((code, message))
        self.wake_board()

    def take_alerts(self) -> list[tuple[str, str]]:
        if not self._alerts:
            return []  # the usual case, without taking the lock
        with self._lock:
            out = list(self._alerts)
            self._alerts.clear()
        return out

    def take_display(self, now: int) -> list[Command]:
        """The display commands to apply now (the last of each kind the pages sent), when
        the last were taken :attr:`display_ms` ago or more; else none (they wait)."""
        if not self._display:
            return []  # the usual case, without taking the lock
        if self._display_at is not None and 0 <= now - self._display_at < self.display_ms:
            return []
        with self._lock:
            out = list(self._display.values())
            self._display.clear()
            # Until the view they change is sent, a page's `view` is the main loop's.
            self._kept.pop(("view", ()), None)
        self._display_at = now
        return out

    @property
    def quiet(self) -> bool:
        """Nothing for the main loop: no page to greet, no line, no question (read without
        the lock, every step: a line put meanwhile is seen in the next step)."""
        return not (self._fresh or self._inbox or self._asks or self._alerts)

    def next_deadline(self, now: int) -> int | None:
        """When the main loop must step for the pages (read without the lock, like
        :attr:`quiet`): now while a page waits to be greeted, a question, an alert, or a
        line the rate lets in; when the rate lets the next line in; None with nothing waiting."""
        if self._fresh or self._asks or self._alerts:
            return now
        display: int | None = None
        if self._display:
            at = self._display_at
            display = now if at is None or not 0 <= now - at < self.display_ms else at + self.display_ms
        if not self._inbox:
            return display
        if self._refilled is None or self._tokens >= 1:
            return now
        line = self._refilled + math.ceil((1 - self._tokens) * 1000 / self.rate)
        return line if display is None else min(line, display)

    def resume(self, *first: bytes) -> None:
        """Greet the pages not yet greeted with ``first``; from now on they get every line."""
        with self._lock:
            fresh = [page for page in self._pages.values() if not page.greeted]
            for page in fresh:
                page.greeted = True
            self._fresh = False
            if fresh:
                self.greeted_new = True
                for line in first:
                    self._queue_locked(tuple(page.id for page in fresh), line)
            wake = self._signal_locked()
        if wake:
            self._wake()

    def send(
        self, line: bytes, *, display_only: bool = False, keep: tuple[Command, dict[str, Any], int] | None = None
    ) -> bool:
        """Queue a line: to the page being answered (a reply), else to every page (an
        event: the board changed, so the answers kept are forgotten; ``display_only``: a
        view in which only what the board shows changed, not the game nor who plays it,
        so only the kept ``view`` is). ``keep``: an answer to keep from now on (see
        :meth:`keep`), kept before the server can be woken by the line (a page that has
        it may ask at once)."""
        with self._lock:
            if self.current is None:
                if display_only:
                    self._kept.pop(("view", ()), None)
                else:
                    self._kept.clear()
            if keep is not None:
                self._keep_locked(*keep)
            if not self._pages:
                return False
            if self.current is not None:
                target: tuple[int, ...] = (self.current,)
            else:
                target = tuple(page.id for page in self._pages.values() if page.greeted)
            ok = self._queue_locked(target, line) if target else False
            # A reply waits for :meth:`done`, which follows it in the same step: woken
            # between the two, the server would hand the page its answer while still
            # counting the line as the main loop's, and send the page's next question
            # there instead of answering it from what is kept.
            wake = self._signal_locked() if self.current is None else False
        if wake:
            self._wake()
        return ok

    def done(self) -> None:
        """The link is done with the current page's line (its answer, if any, is queued)."""
        if self.current is None:
            return
        with self._lock:
            if self.current in self._pages:
                self._outbox.append(((self.current,), b""))
            wake = self._signal_locked()
        if wake:
            self._wake()

    def keep(self, command: Command, reply: dict[str, Any] | LinkError, now: int) -> None:
        """Keep the main loop's answer to ``command`` until the board changes: a question's
        reply (without ``t``), or the error that refused a command (a refused command
        changes nothing, so the same line is refused alike until then). The same line is
        then answered in the server's thread."""
        if isinstance(reply, dict) and command.name not in KEPT:
            return
        with self._lock:
            self._keep_locked(command, reply, now)

    def _keep_locked(self, command: Command, reply: dict[str, Any] | LinkError, now: int) -> None:
        if len(self._kept) >= 64:
            self._kept.clear()  # bounded whatever the pages send (history 0, 1, 2...)
        self._kept[(command.name, command.args)] = (reply, now)

    def changed(self, *, display_only: bool = False) -> None:
        """The board may have changed (a command was handled): forget the answers kept
        (``display_only``: only what it shows changed, so only the kept ``view``)."""
        if self._kept:
            with self._lock:
                if display_only:
                    self._kept.pop(("view", ()), None)
                else:
                    self._kept.clear()

    def _signal_locked(self) -> bool:
        if self._signalled or not self._outbox:
            return False
        self._signalled = True
        return True

    def _queue_locked(self, target: tuple[int, ...], line: bytes) -> bool:
        if self._out_size + len(line) > self.outbox_bytes:
            # The server thread is not keeping up: every page starts afresh.
            self.overruns += 1
            self._outbox.clear()
            self._out_size = 0
            for page in self._pages.values():
                page.greeted = False
                page.waiting = 0  # the "done" marks went with the lines
            self._fresh = bool(self._pages)
            log.warning("web: output overrun; every page is greeted afresh")
            return False
        self._outbox.append((target, line))
        self._out_size += len(line)
        self.bytes_out += len(line)
        return True

    def hold_wake(self) -> None:
        """Until :meth:`release_wake`, the server thread is not woken (the link handles
        the pages' lines of a step, then sends the view they changed)."""
        self._holding = True

    def release_wake(self) -> None:
        """Wake the server thread if lines were queued since :meth:`hold_wake`: once for
        the step's replies and the view after them, so that a page's next question finds
        that view kept (woken at a reply, the server would ask the main loop again)."""
        self._holding = False
        if self._wake_due:
            self._wake_due = False
            self._wake()

    def _wake(self) -> None:
        if self._holding:
            self._wake_due = True
            return
        try:
            self.wake()
        except Exception:  # noqa: BLE001 - the server's loop is gone: nothing to tell
            pass

    def receive(self, limit: int) -> list[Command]:
        """Up to ``limit`` received lines (parsed in the server's thread), within the rate;
        the page of the last one becomes :attr:`current` (the link takes and handles one
        line at a time)."""
        out: list[Command] = []
        if not self._inbox:
            return out  # the usual case, without taking the lock
        now = self.now()
        if self._refilled is not None:
            self._tokens = min(float(self.burst), self._tokens + (now - self._refilled) * self.rate / 1000)
        self._refilled = now
        room = False
        with self._lock:
            while self._inbox and len(out) < limit and self._tokens >= 1:
                page_id, item = self._inbox.popleft()
                if page_id not in self._pages:
                    continue  # the page left: nobody to answer
                self._tokens -= 1
                self.current = page_id
                out.append(item)
            if self.wants_room and len(self._inbox) < self.inbox_lines:
                self.wants_room = False
                room = True
        if room:
            try:
                self.make_room()
            except Exception:  # noqa: BLE001 - the server's loop is gone
                pass
        return out

    def may_control(self, page_id: int | None) -> bool:
        page = self._pages.get(page_id) if page_id is not None else None
        return page is not None and page.control

    def close(self) -> None:
        with self._lock:
            self._inbox.clear()
            self._outbox.clear()
            self._kept.clear()
            self._display.clear()
            self._out_size = 0


def _aged(view: dict[str, Any], ms: int) -> dict[str, Any]:
    """A ``view`` answer ``ms`` later: only the running clock has moved."""
    clock = view.get("clock")
    if not clock or not clock.get("running") or ms <= 0:
        return view
    side = clock["running"]
    left = clock[side]
    return {**view, "clock": {**clock, side: min(left, max(0, left - ms))}}


class PagePolicy(LinkPolicy):
    """What the pages may do over their link: pages are not boards (another board's event
    lines are refused), a page that has not logged in gets ``forbidden`` for anything that
    changes the game, every page watches the view, and the questions the link answers are
    kept in the hub until the board changes (:meth:`PageHub.keep`), so that the server
    answers them again itself."""

    peer_refusal = NOT_A_BOARD
    may_stop_watching = False  # one page's `watch off` must not blind the others

    def __init__(self, hub: PageHub) -> None:
        self.hub = hub
        # The game's fields of the last view sent (see VIEW_GAME_FIELDS).
        self._view_marks: tuple[Any, ...] | None = None

    def refuse(self, command: Command) -> LinkError | None:
        if command.name not in QUERIES and not self.hub.may_control(self.hub.current):
            return LinkError(
                "forbidden", f"{command.name} changes the game: log in with the board's PIN first", command.name
            )
        return None

    def answered(self, command: Command, outcome: Mapping[str, Any] | LinkError | None, now: int) -> None:
        if isinstance(outcome, LinkError):
            # Refused, so it changed nothing (the link's rule): what is kept stands, and the
            # same line gets the same refusal until the board changes.
            self.hub.keep(command, outcome, now)
        elif outcome is None:
            self.hub.changed()  # failed half-way: nothing kept is trusted any more
        elif command.name in KEPT:
            self.hub.keep(command, {k: v for k, v in outcome.items() if k != "t"}, now)
        elif command.name not in QUERIES:
            self.hub.changed(display_only=command.name in DISPLAY_COMMANDS)

    def line_done(self) -> None:
        self.hub.done()
        self.hub.current = None

    def view_resent(self) -> bool:
        greeted, self.hub.greeted_new = self.hub.greeted_new, False
        return greeted

    @contextmanager
    def viewing(self) -> Iterator[None]:
        # The view goes to every page, not to the page whose line is being answered.
        current, self.hub.current = self.hub.current, None
        try:
            yield
        finally:
            self.hub.current = current

    def send_view(self, transport: Transport, now: int, body: dict[str, Any], line: bytes) -> None:
        marks = tuple(body.get(key) for key in VIEW_GAME_FIELDS)
        # The view every page is sent is the answer to `view` until it changes: kept as the
        # line is queued, before the server is woken with it (a page may ask at once).
        self.hub.send(
            line,
            display_only=marks == self._view_marks,
            keep=(VIEW, {"event": "reply", "cmd": "view", "ok": True, **body}, now),
        )
        self._view_marks = marks


class BoardParts(Protocol):
    """The board's hardware as the status page tells of it (the application's ``Hardware``)."""

    @property
    def backend(self) -> str: ...
    @property
    def debounce_ms(self) -> int: ...
    @property
    def sensors(self) -> object: ...

    def diagnose(self) -> list[str]: ...


class SimPieces(Protocol):
    """The simulated board's pieces and hand, as far as a page's view may change with them."""

    @property
    def pieces(self) -> Mapping[int, str]: ...
    @property
    def hand(self) -> Sequence[str]: ...


class PageBoard(Protocol):
    """What the pages' link needs of the application besides the link's own side of it
    (:class:`~crownhead.firmware.link.board.LinkedBoard`): its clock, the step's snapshot, being
    woken and asked for a step (an idle board need not look every 10 ms), its steps and
    hardware for the status page. The application (``App``) is one; the link reads the
    game from the snapshot and the link's interface, never from the application's parts."""

    steps: int

    @property
    def clock(self) -> Clock: ...
    @property
    def snapshot(self) -> Snapshot: ...
    @property
    def hardware(self) -> BoardParts: ...
    @property
    def sim(self) -> SimPieces | None: ...

    def wake(self) -> None: ...


def _pages_board(app: object) -> TypeGuard[PageBoard]:
    """Whether ``app`` is a :class:`PageBoard` (the snapshot is read only once it started)."""
    return all(hasattr(app, name) for name in ("steps", "clock", "hardware", "wake"))


class WebLink(Link):
    """The host link, spoken by every connected page (see the module's description): a
    link on the pages' hub with the pages' policy (:class:`PagePolicy`), which watches
    the view from the start and answers the server's questions. It reads the board
    through the link's interface and :class:`PageBoard`."""

    def __init__(self, hub: PageHub, settings: LinkConfig = LinkConfig()) -> None:
        super().__init__(hub, settings, PagePolicy(hub))
        self.hub = hub
        hub.answers_display = self.control
        self.watching = True
        self._rate_at: tuple[int, int] | None = None
        #: Main-loop steps per second, measured over the last second.
        self.steps_per_s: float | None = None
        #: The application as the pages' link sees it besides the link's side (None: a
        #: board that is none, in tests of the link alone).
        self.board: PageBoard | None = None
        self._gate: tuple[Any, ...] | None = None
        # Nothing was left for the link by its last poll (no greeting, event or game to
        # keep in step): see poll.
        self._settled = False

    def attach(self, app: LinkedBoard, *, hands: SimHands | None = None) -> None:
        """Join the application; ``hands``: the simulator's hands on a simulated board
        (the pages may then move its pieces), given by whoever opens the pages."""
        super().attach(app)
        if hands is not None:
            self.hands = hands
        if _pages_board(app):
            self.board = app
            self.hub.now = app.clock.now_ms
            # The server wakes the main loop for what the pages send, and the link says
            # when it wants a step: an idle board need not look every 10 ms.
            self.hub.wake_board = app.wake
            self.wakes = True

    def poll(self, now: int) -> list[Any]:
        alerts: list[Any] = [Alert(now, code, message) for code, message in self.hub.take_alerts()]
        display = self.hub.take_display(now)
        for command in display:
            self.carry_out(command, now)  # answered already (the server's thread)
        # Most steps nothing at all is asked of the pages' link: say so at the least cost
        # (this runs every 10 ms; see bench/web.py): nothing from the pages, nothing left
        # for the link (as its last poll left it: what changes that meanwhile is an event,
        # which stirs the gate), and the same gate.
        if self._settled and self.hub.quiet and not display and not alerts:
            gate = self._gate_now(now)
            if gate is not None and gate == self._gate:
                return []
        self.hub.hold_wake()
        try:
            events = super().poll(now)
        finally:
            self.hub.release_wake()
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
        # What this poll saw and sent: the next one looks again only when it differs.
        self._gate = self._gate_now(now)
        self._settled = self.idle
        return alerts + events

    def next_deadline(self) -> int | None:
        """When the main loop must step for the pages' link (see :meth:`App.run`): now
        when its last poll left it a greeting or events, or what it saw then has changed
        (an event, other roles lit, a new second...); else when the hub wants a step."""
        if self.board is None:
            return None  # no board's pages: the link alone, polled every step
        now = self.board.clock.now_ms()
        if self.greeting_due or self._gate_now(now) != self._gate:
            return now
        return self.hub.next_deadline(now)

    def _gate_now(self, now: int) -> tuple[Any, ...] | None:
        """What tells whether the view may have changed since the last poll: the snapshot's
        revision (pieces, conditions, clock paused or not, offers, seats, the roles lit,
        the message, the simulated board and hand, the machine thinking...), an event or a
        command that may change the board, a new second.
        Cheaper than the link's own test, which follows when this differs; None (never
        the same) without the application itself."""
        board, app = self.board, self.app
        if board is None or app is None or not app.started:
            return None  # no snapshot yet
        return (board.snapshot.revision, now // 1000, self.changes)

    def answer(self, what: str, now: int) -> dict[str, Any]:
        """What the server asked the main loop: ``state`` (``GET /api/state``: the link's
        ``state`` with the names, mode and clocks) or ``status`` (the status page)."""
        assert self.app is not None
        if what == "state":
            view = self.view(now)
            return {
                **self.identity(),
                "state": self.state(),
                "clock": view["clock"],
                "cautions": view["cautions"],
                "status": view["status"],
            }
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
            "version": self.identity()["version"],
            "backend": hardware.backend,
            "scan_hz": scan_hz,
            "steps_per_s": round(steps_s, 1) if steps_s is not None else None,
            "debounce_ms": hardware.debounce_ms,
            "faults": hardware.diagnose() if hasattr(hardware, "diagnose") else [],
            "pages": self.hub.pages,
            "commands": self.commands + self.hub.answered,
            "errors": self.errors + self.hub.refused,
        }


assert QUERIES.isdisjoint(CONTROL_COMMANDS)
assert KEPT <= QUERIES
