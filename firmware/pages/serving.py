"""Serving a page with uvicorn within bounds that no network client can push.

Every TCP connection a server holds is a file descriptor, and the board needs
descriptors of its own: to save the game after every move, for its log, its serial
ports and its broker. uvicorn alone accepts every connection it is offered and waits
for ever for a client that never speaks, so a thousand idle connections exhaust the
process's descriptors ("Too many open files") and the board stops keeping games. Here
the server accepts connections itself, within :class:`Limits`:

- at most ``total`` connections at once, and never more than the descriptors left
  after keeping ``reserve_fds`` free (see :func:`connection_budget`); when all are taken,
  a connection that has waited ``evict_after_s`` for a request is closed to make room
  for a new one: the longest-waiting of the client with the most waiting, so that an
  attacker's crowd goes before a browser's connection (a page's WebSocket and a request
  being answered are never closed for this); when none may be closed, no connection is
  accepted until one may or one ends (the kernel holds the rest, costing the process
  nothing);
- at most ``per_client`` connections from one address (an IPv6 client by its /64
  network, what one home or one attacker gets); a newcomer from an address that holds
  them all takes the place of that address's connection that has waited longest for a
  request (a slowloris crowd from the owner's own address cannot keep the owner's
  login out: a browser sends its request as it connects, so its connection is the last
  of the address's to go), and is closed at once only when none of them waits;
- a connection that has not sent a whole request (headers and body) within
  ``request_s`` seconds of opening, or of its last answer, is closed (slowloris);
- a WebSocket costs what a page's clicks cost before any of its frames is parsed
  (:class:`WebSocketBudget`): at most ``ws_bytes_s`` bytes and ``ws_frames_s`` frames a
  second (bursts of four seconds' worth), read and parsed ``ws_chunk`` bytes at a time,
  one chunk a turn of the loop; past that its socket is not read (TCP holds the flooder
  back at no cost: it is not cut, so it does not come back to be greeted again), and one
  that has more than ``ws_backlog`` bytes read and not parsed is cut.
  A flood of frames from spectators' pages so holds back the flooders only.

It also wakes once a second, not ten times, when idle (what a board left alone pays for
its page). The hall's page can be served the same way (:func:`bounded_server`).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import os
import resource
import socket
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Limits",
    "Bucket",
    "WebSocketBudget",
    "Connections",
    "client_key",
    "connection_budget",
    "bounded_server",
    "listening_socket",
    "stop_server",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """How many connections a server holds (in all and from one client), how long a
    connection may take to send a request, and how many descriptors stay free for the
    rest of the board."""

    total: int = 256
    per_client: int = 32
    request_s: float = 5.0
    reserve_fds: int = 128
    #: How long a connection has waited for a request at least before it is closed to
    #: make room for a new one (see :class:`Connections`).
    evict_after_s: float = 1.0
    #: What one WebSocket may send (see :class:`WebSocketBudget`): bytes and frames a
    #: second, the bytes parsed at a time, the bytes read and not parsed at most.
    ws_bytes_s: int = 16 * 1024
    ws_frames_s: int = 32
    ws_chunk: int = 4096
    ws_backlog: int = 64 * 1024


class Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` saved; spending may take it
    below empty, and then nothing more may be spent until it has filled again.

    >>> t = [0.0]
    >>> frames = Bucket(rate=10, burst=20, now=lambda: t[0])
    >>> frames.wait_s(), frames.spend(50), frames.wait_s()  # 30 owed: 3 s at 10 a second
    (0.0, None, 3.0)
    >>> t[0] = 3.0; frames.wait_s()
    0.0
    """

    def __init__(self, rate: float, burst: float, now: Callable[[], float]) -> None:
        self.rate, self.burst, self.now = rate, burst, now
        self.level = float(burst)
        self._at = now()

    def _fill(self) -> None:
        at = self.now()
        self.level = min(float(self.burst), self.level + (at - self._at) * self.rate)
        self._at = at

    def spend(self, amount: float) -> None:
        self._fill()
        self.level -= amount

    def wait_s(self) -> float:
        """Seconds until something may be spent again (0: now)."""
        self._fill()
        return 0.0 if self.level >= 0 else -self.level / self.rate


class WebSocketBudget:
    """What one WebSocket may cost the server before its frames are parsed: its bytes
    and its frames, each a :class:`Bucket` (``limits.ws_bytes_s`` and
    ``limits.ws_frames_s`` a second, bursts of four seconds' worth). The connection
    keeps what it read in a backlog, parses ``limits.ws_chunk`` bytes of it a turn
    while both allow (:meth:`take`), and holds its socket unread while they do not
    (:meth:`wait_s`); a backlog over ``limits.ws_backlog`` means the peer sends far
    past what it may (:meth:`over`): it is cut.

    >>> t = [0.0]
    >>> budget = WebSocketBudget(Limits(ws_bytes_s=100, ws_frames_s=10, ws_chunk=50), lambda: t[0])
    >>> budget.read(b"x" * 120); budget.take(), len(budget.backlog)  # a chunk at a time
    (b'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 70)
    >>> budget.parsed(50)  # that chunk was 50 frames: 10 over the 40 saved, 1 s at 10 a second
    >>> budget.wait_s(), budget.take()
    (1.0, None)
    >>> t[0] = 1.0; len(budget.take())
    50
    """

    def __init__(self, limits: Limits, now: Callable[[], float]) -> None:
        self.limits = limits
        self.bytes = Bucket(limits.ws_bytes_s, 4 * limits.ws_bytes_s, now)
        self.frames = Bucket(limits.ws_frames_s, 4 * limits.ws_frames_s, now)
        self.backlog = bytearray()
        #: Frames parsed in all.
        self.frames_parsed = 0

    def read(self, data: bytes) -> None:
        self.backlog += data

    def over(self) -> bool:
        return len(self.backlog) > self.limits.ws_backlog

    def wait_s(self) -> float:
        return max(self.bytes.wait_s(), self.frames.wait_s())

    def take(self) -> bytes | None:
        """The next chunk to parse, if the budget allows one now (None: not now, or none)."""
        if not self.backlog or self.wait_s() > 0:
            return None
        chunk = bytes(self.backlog[: self.limits.ws_chunk])
        del self.backlog[: self.limits.ws_chunk]
        self.bytes.spend(len(chunk))
        return chunk

    def parsed(self, frames: int) -> None:
        """The last chunk held ``frames`` frames (messages, fragments, pings, pongs)."""
        self.frames.spend(frames)
        self.frames_parsed += frames


def client_key(host: str) -> str:
    """Whose connection this is, for the cap per client: an IPv4 address, or an IPv6
    address's /64 network (one subscriber's, who may use any address in it).

    >>> client_key("192.0.2.7"), client_key("::ffff:192.0.2.7")
    ('192.0.2.7', '192.0.2.7')
    >>> client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::9")
    True
    """
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def connection_budget(limits: Limits) -> int:
    """The connections this process may hold: ``limits.total``, fewer when the open-files
    limit leaves less than that beside the descriptors open now and ``reserve_fds``."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.total
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:
        open_now = 64  # no /proc: a generous guess
    return max(1, min(limits.total, soft - open_now - limits.reserve_fds))


class Connections:
    """The connections a server holds: how many in all and from each client, and which
    wait for a request. When room is needed, the one closed is the longest-waiting of
    the client with the most connections waiting: a crowd of idle connections from a few
    addresses goes before a browser's one. A connection is closed for room only once it
    has waited ``min_wait_s``: an attacker who opens again each connection closed cannot
    turn the server into a loop of accepting and closing (it is held to ``total``
    closed every ``min_wait_s`` at most; the rest wait in the kernel's queue).

    ``now`` gives the time in seconds (the server's loop's clock). Transports are any
    hashable objects with ``close()`` (tests use plain ones):

    >>> class T:
    ...     def __init__(self, name): self.name = name
    ...     def close(self): print("closed", self.name)
    >>> t = [0.0]
    >>> conns = Connections(total=3, per_client=2, min_wait_s=1.0, now=lambda: t[0])
    >>> a1, a2, b1 = T("a1"), T("a2"), T("b1")
    >>> conns.made(b1, "b"); conns.made(a1, "a"); conns.admits("a")
    True
    >>> conns.made(a2, "a"); conns.admits("a"), conns.full, conns.room()
    (False, True, False)
    >>> conns.wait_s()  # until one of them has waited long enough to go
    1.0
    >>> t[0] = 1.5; conns.room()
    True
    >>> conns.make_room()  # "a" has two waiting: its older goes, not b's older one
    closed a1
    >>> len(conns), conns.room()
    (2, True)
    >>> c1 = T("c1"); conns.made(c1, "c"); conns.busy(a2); conns.busy(b1); conns.busy(c1); conns.room(), conns.wait_s()
    (False, None)
    """

    def __init__(
        self, total: int, per_client: int, min_wait_s: float = 1.0, now: Callable[[], float] = lambda: 0.0
    ) -> None:
        self.total = total
        self.per_client = per_client
        self.min_wait_s = min_wait_s
        self.now = now
        self._client: dict[Any, str] = {}
        self._per_client: Counter[str] = Counter()
        # Each client's connections waiting for a request (with when they began to),
        # the longest-waiting first.
        self._waiting: dict[str, OrderedDict[Any, float]] = {}
        self._waiting_count = 0
        #: Connections closed at once because their client had too many, closed to make
        #: room, and closed for taking too long to send a request.
        self.refused = 0
        self.evicted = 0
        self.timed_out = 0
        #: WebSockets: times one was held unread for its budget, ones cut for sending far
        #: past it, and the frames parsed (see :class:`WebSocketBudget`).
        self.throttled = 0
        self.cut = 0
        self.frames = 0
        #: Called when a connection ends or starts waiting for a request (room may come).
        self.on_room: Callable[[], None] = lambda: None

    def __len__(self) -> int:
        return len(self._client)

    @property
    def full(self) -> bool:
        return len(self._client) >= self.total

    def room(self) -> bool:
        """Whether a new connection may be accepted now (closing a waiting one if full)."""
        return not self.full or self._victim() is not None

    def wait_s(self) -> float | None:
        """When all are taken and none may be closed yet: the seconds until one may (None:
        none waits for a request, room comes only when one ends)."""
        if not self._waiting_count:
            return None
        oldest = min(next(iter(waiting.values())) for waiting in self._waiting.values())
        return max(0.0, oldest + self.min_wait_s - self.now())

    def admits(self, key: str) -> bool:
        return self._per_client[key] < self.per_client

    def made(self, transport: Any, key: str) -> None:
        """A new connection; it waits for its request."""
        if transport in self._client:
            return
        self._client[transport] = key
        self._per_client[key] += 1
        self.waiting(transport)

    def waiting(self, transport: Any) -> None:
        """``transport`` waits for its (next) request."""
        key = self._client.get(transport)
        if key is None:
            return
        self._unwait(transport, key)
        self._waiting.setdefault(key, OrderedDict())[transport] = self.now()
        self._waiting_count += 1
        self.on_room()  # one may be closed for room in min_wait_s

    def is_waiting(self, transport: Any) -> bool:
        key = self._client.get(transport)
        return key is not None and transport in self._waiting.get(key, ())

    def busy(self, transport: Any) -> None:
        """``transport`` sent a whole request (or became a WebSocket): not to be closed
        for room while it is answered."""
        key = self._client.get(transport)
        if key is not None:
            self._unwait(transport, key)

    def lost(self, transport: Any) -> None:
        key = self._client.pop(transport, None)
        if key is None:
            return
        self._unwait(transport, key)
        self._per_client[key] -= 1
        if self._per_client[key] <= 0:
            del self._per_client[key]
        self.on_room()

    def _unwait(self, transport: Any, key: str) -> None:
        waiting = self._waiting.get(key)
        if waiting is not None and transport in waiting:
            del waiting[transport]
            self._waiting_count -= 1
            if not waiting:
                del self._waiting[key]

    def _victim(self) -> Any:
        """The connection to close for room: the longest-waiting of the client with the
        most waiting, of those that have waited ``min_wait_s``; None if none has."""
        if not self._waiting_count:
            return None
        ripe = self.now() - self.min_wait_s
        best = None
        most = 0
        for waiting in self._waiting.values():
            first, since = next(iter(waiting.items()))
            if since <= ripe and len(waiting) > most:
                best, most = first, len(waiting)
        return best

    def make_room_for(self, key: str) -> bool:
        """When ``key``'s connections are all taken, close the one of them that has waited
        longest for a request (however briefly) for a newcomer from ``key``: True when one
        was closed, False when none of them waits (all are being answered, or WebSockets).

        >>> class T:
        ...     def __init__(self, name): self.name = name
        ...     def close(self): print("closed", self.name)
        >>> conns = Connections(total=10, per_client=2)
        >>> slow, page = T("slow"), T("page")
        >>> conns.made(slow, "a"); conns.made(page, "a"); conns.busy(page)
        >>> conns.admits("a"), conns.make_room_for("a"), conns.admits("a")
        closed slow
        (False, True, True)
        >>> conns.made(T("next"), "a"); conns.busy(page); conns.make_room_for("b")  # b holds none
        False
        """
        waiting = self._waiting.get(key)
        if not waiting:
            return False
        transport = next(iter(waiting))
        self.lost(transport)
        self.evicted += 1
        transport.close()
        return True

    def make_room(self) -> None:
        """When all are taken, close a connection that waits for a request (see above)."""
        while self.full:
            transport = self._victim()
            if transport is None:
                return
            self.lost(transport)
            self.evicted += 1
            transport.close()


def listening_socket(host: str, port: int) -> socket.socket:
    """A non-blocking TCP socket listening on ``host:port`` for :func:`bounded_server` (an
    address with a colon is IPv6; port 0 takes a free one). Bound here, before a server
    starts, so that an address in use is an error its caller can name. Raises
    :class:`OSError` when it cannot be bound (the socket is closed again)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def stop_server(server: Any, loop: asyncio.AbstractEventLoop | None) -> None:
    """Ask a :func:`bounded_server` serving on ``loop`` (in another thread) to end at once."""
    server.should_exit = True
    if loop is not None and not loop.is_closed():
        try:
            loop.call_soon_threadsafe(server.stop)
        except RuntimeError:  # the loop closed meanwhile: the server has ended
            pass


def bounded_server(app: Any, sock: socket.socket, limits: Limits, *, tick_s: float = 1.0, **options: Any) -> Any:
    """A uvicorn server for ``app`` on the listening socket ``sock`` (non-blocking),
    holding connections within ``limits``; ``options`` go to :class:`uvicorn.Config`
    (``ws`` is this module's). Serve with ``await server.serve(sockets=[])`` (this server
    accepts on ``sock`` itself); :meth:`stop` ends it at once from its loop.
    ``server.connections`` is the :class:`Connections`."""
    import h11
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.websockets.wsproto_impl import WSProtocol

    conns = Connections(
        connection_budget(limits), limits.per_client, limits.evict_after_s, lambda: asyncio.get_running_loop().time()
    )

    class WebSocketConnection(WSProtocol):
        """uvicorn's WebSocket, its bytes parsed within a :class:`WebSocketBudget`."""

        _budget: WebSocketBudget | None = None
        _later: asyncio.Handle | None = None
        _unread = False  # its socket is held unread for its budget
        _frames = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._budget = WebSocketBudget(limits, asyncio.get_running_loop().time)
            # asyncio's socket transport reads up to max_size bytes a turn (256 KiB): a
            # WebSocket reads a chunk, what it may parse at a time, so that a flooder's
            # backlog stays a chunk or two while its socket is held unread.
            if isinstance(getattr(transport, "max_size", None), int):
                transport.max_size = limits.ws_chunk  # type: ignore[attr-defined]

        def connection_lost(self, exc: Exception | None) -> None:
            if self._later is not None:
                self._later.cancel()
                self._later = None
            conns.lost(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            budget = self._budget
            assert budget is not None
            budget.read(data)
            if budget.over():
                conns.cut += 1
                log.info("web: a WebSocket from %s sent far more than it may: closed", self.client)
                budget.backlog.clear()
                self.transport.abort()
                return
            if self._later is None:
                self._parse()

        def _parse(self) -> None:
            """Parse one chunk of the backlog if the budget allows, and come back next turn
            (or when it allows again) while some is left; the socket unread meanwhile."""
            self._later = None
            budget = self._budget
            if budget is None or self.transport.is_closing():
                return
            chunk = budget.take()
            if chunk is not None:
                self._frames = 0
                super().data_received(chunk)
                budget.parsed(self._frames)
                conns.frames += self._frames
            wait = budget.wait_s()
            if not budget.backlog and wait == 0:
                if self._unread:
                    self._unread = False
                    if not self.read_paused and not self.transport.is_closing():
                        self.transport.resume_reading()
                return
            if not self._unread:
                self._unread = True
                self.transport.pause_reading()
            loop = asyncio.get_running_loop()
            if wait > 0:
                conns.throttled += 1
                self._later = loop.call_later(wait, self._parse)
            else:
                self._later = loop.call_soon(self._parse)  # one chunk a turn: the others' turn first

        async def receive(self) -> Any:
            # uvicorn's own, except that a socket held unread for its budget stays so
            # when the application has taken every message.
            message = await self.queue.get()
            if self.read_paused and self.queue.empty():
                self.read_paused = False
                if not self._unread:
                    self.transport.resume_reading()
            return message

        def handle_message(self, event: Any) -> None:
            self._frames += 1
            super().handle_message(event)

        def handle_ping(self, event: Any) -> None:
            self._frames += 1
            super().handle_ping(event)

        def handle_pong(self, event: Any) -> None:
            self._frames += 1
            super().handle_pong(event)

    class HttpConnection(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        client_key = ""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            conns.made(transport, self.client_key)
            self._expect_request()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_deadline()
            conns.lost(self.transport)
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.transport.get_protocol() is not self:  # now a WebSocket's
                self._cancel_deadline()
                conns.busy(self.transport)
            elif self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                # The whole request is in: it is answered however long that takes.
                self._cancel_deadline()
                conns.busy(self.transport)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.transport.get_protocol() is self:
                if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                    self._expect_request()

        def _expect_request(self) -> None:
            self._cancel_deadline()
            conns.waiting(self.transport)
            self._deadline = self.loop.call_later(limits.request_s, self._too_slow)

        def _cancel_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if conns.is_waiting(self.transport) and not self.transport.is_closing():
                conns.timed_out += 1
                conns.lost(self.transport)
                self.transport.close()

    config = uvicorn.Config(app, ws=WebSocketConnection, **options)

    class BoundedServer(uvicorn.Server):
        _stopping: asyncio.Event | None = None

        async def main_loop(self) -> None:
            self._stopping = asyncio.Event()
            accepting = asyncio.create_task(self._accept())
            counter = 0
            try:
                # on_tick renews the Date header when the counter is a multiple of 10 (one
                # of uvicorn's ticks is 0.1 s) and says whether to stop.
                while not await self.on_tick(counter):
                    counter = (counter + 10) % 864000
                    try:
                        await asyncio.wait_for(self._stopping.wait(), tick_s)
                    except TimeoutError:
                        pass
            finally:
                accepting.cancel()
                try:
                    await accepting
                except asyncio.CancelledError:
                    pass

        def stop(self) -> None:
            """Stop serving (in the server's loop)."""
            self.should_exit = True
            if self._stopping is not None:
                self._stopping.set()

        async def _accept(self) -> None:
            loop = asyncio.get_running_loop()
            room = asyncio.Event()
            conns.on_room = room.set
            app_state = self.lifespan.state
            starved_logged = False

            def protocol_for(key: str) -> Callable[[], asyncio.Protocol]:
                def protocol() -> asyncio.Protocol:
                    made = HttpConnection(
                        config=config, server_state=self.server_state, app_state=app_state, _loop=loop
                    )
                    made.client_key = key
                    return made

                return protocol

            while True:
                if not conns.room():
                    # All taken: wait for one to end, or for one that waits for a request
                    # to have waited long enough to be closed for room.
                    room.clear()
                    try:
                        await asyncio.wait_for(room.wait(), conns.wait_s())
                    except TimeoutError:
                        pass
                    continue
                try:
                    client, address = await loop.sock_accept(sock)
                except OSError as exc:
                    if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                        # Out of descriptors (something else took them): wait, do not spin.
                        if not starved_logged:
                            log.warning("web: no connection accepted for now: %s", exc.strerror or exc)
                            starved_logged = True
                        await asyncio.sleep(0.5)
                        continue
                    if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                        continue
                    raise
                starved_logged = False
                key = client_key(str(address[0]))
                if not conns.admits(key) and not conns.make_room_for(key):
                    conns.refused += 1
                    client.close()
                    continue
                conns.make_room()
                client.setblocking(False)
                try:
                    await loop.connect_accepted_socket(protocol_for(key), client)
                except OSError:
                    client.close()

    server = BoundedServer(config)
    server.connections = conns  # type: ignore[attr-defined]
    return server
