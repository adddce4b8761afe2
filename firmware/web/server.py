"""The HTTP and WebSocket server, in a thread of its own beside the board's main loop.

Starlette on uvicorn (pure Python: nothing to compile on a Pi), one asyncio loop in one
daemon thread. It talks to the main loop only through the :class:`~crownhead.firmware.web.bridge.PageHub`
(bounded queues) and never touches the game: the page's commands are the host link's,
answered by the main loop, or here when they need no board (garbage, ``help``, and the
main loop's own answers kept until the board changes: see the hub); ``/api/state`` and
``/api/status`` are questions the main loop answers in its next step. Nothing here
polls: the thread sleeps until a page sends something or the main loop has lines. A
page that does not read its socket is disconnected (it reconnects and is greeted
afresh); nothing it does makes the board wait.

Who may do what (see ``docs/web.md``): on a loopback address with no PIN configured,
anyone on this machine may watch and command; otherwise commands need a session got
with the PIN (``POST /api/login``), and watching does too unless ``public_view``. Every
request must name this server as its ``Host`` (its address, its names, ``web.hosts``:
no DNS rebinding), a WebSocket must come from a page of this server (``Origin``), and
wrong PINs are limited per address and in all (:class:`~crownhead.firmware.web.auth.Gate`). The
connections held are bounded (:mod:`crownhead.firmware.pages.serving`): no client can take the
descriptors the board needs to save its games.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import re
import socket
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import fields, is_dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from crownhead.firmware.diagram import board_svg
from crownhead.firmware.files import parse_json
from crownhead.firmware.pages import SECURITY_HEADERS, fill_shell
from crownhead.firmware.pages.serving import (
    Connections,
    Limits,
    bounded_server,
    client_key,
    listening_socket,
    stop_server,
)
from crownhead.firmware.redact import redacted
from crownhead.firmware.web.analysis import AnalysisFeed, analysing_board
from crownhead.firmware.web.auth import COOKIE, SESSION_MS, Gate
from crownhead.firmware.web.far import ANSWER_S, MAX_BODY, FarFeed, FarRequests, as_reached, qr_svg, request_of
from crownhead.firmware.web.online import ONLINE_REQUESTS, OnlineRequests, online_request_of
from crownhead.firmware.web.bridge import PageHub, WebLink
from crownhead.firmware.web.settings import host_name, is_loopback, same_address

if TYPE_CHECKING:
    from crownhead.rules import Move, Position, Rules

__all__ = ["WebServer", "ServerError", "page_html", "phone_html"]

log = logging.getLogger(__name__)

#: Messages a page may have waiting for it before it is disconnected as too slow.
PAGE_QUEUE = 256
#: How often the idle server wakes by itself (uvicorn's own loop: 10 times a second) to
#: renew the Date header and look whether it must stop (close() wakes it at once).
TICK_S = 1.0
#: Messages a page may send a second, and in a burst (more wait: see _socket_session).
PAGE_RATE = 8.0
PAGE_BURST = 20
#: The largest WebSocket message a page may send (a command is a line of at most 1 KiB).
WS_MAX_SIZE = 16 * 1024
_GAME_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,80}")


def _own_names() -> frozenset[str]:
    """The names this machine is known by without asking a name server: its host name
    (and its first label), and the mDNS name ``NAME.local``."""
    name = socket.gethostname().lower().rstrip(".")
    if not name:
        return frozenset()
    first = name.split(".", 1)[0]
    return frozenset({name, first, f"{first}.local"})


class ServerError(RuntimeError):
    """The server cannot start (the address is taken, not this machine's...)."""


def _static(name: str) -> bytes:
    return resources.files("crownhead.firmware.web").joinpath("static", name).read_bytes()


def page_html(colours: dict[str, tuple[int, int, int]] | None = None, *, shell: str = "index.html") -> str:
    """The page: the HTML shell with the board drawn by :func:`~crownhead.firmware.diagram.board_svg`
    and, in ``<template>`` elements, every piece and role mark the script draws with."""
    return fill_shell(_static(shell).decode("utf-8"), colours)


def phone_html(plays: str, colours: dict[str, tuple[int, int, int]] | None = None) -> str:
    """The phone's page (a game far apart played without a board, docs/remote.md) for the
    player of side ``plays``."""
    if plays not in ("black", "white"):
        raise ValueError(f"the phone's player plays black or white, not {plays!r}")
    return page_html(colours, shell="phone.html").replace("<!--PLAYS-->", plays)


class WebServer:
    """The page's server for ``link`` (a :class:`WebLink` attached to the app).

    ``host``/``port``: where to listen (port 0: any free port; see :attr:`url`).
    ``pin``: what commands need ("" : nothing, allowed only on loopback).
    ``public_view``: watching needs no PIN. ``store``: the game store (games list).
    ``config``: the configuration in force, shown read-only on the status page.
    ``clock``: for sessions and the rate limit. ``page_rate``/``page_burst``: the
    messages a page may send a second, and at once. ``state_dir``: where the last
    self-test's result is kept (shown by the status page). ``limits``: the connections
    held at once, in all and from one client, and how long one may take to send a
    request (:class:`~crownhead.firmware.pages.serving.Limits`). The engine's live analysis goes to
    the pages by an :class:`~crownhead.firmware.web.analysis.AnalysisFeed` attached to the link's
    application here.
    """

    def __init__(
        self,
        link: WebLink,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        pin: str = "",
        public_view: bool = False,
        store: Any = None,
        config: Any = None,
        clock: Any = None,
        colours: dict[str, tuple[int, int, int]] | None = None,
        page_rate: float = PAGE_RATE,
        page_burst: int = PAGE_BURST,
        state_dir: Path | None = None,
        limits: Limits = Limits(),
        hosts: tuple[str, ...] = (),
        phone: str | None = None,
        far: FarRequests | None = None,
        online: OnlineRequests | None = None,
    ) -> None:
        from crownhead.hal.clock import MonotonicClock

        self.link = link
        self.hub: PageHub = link.hub
        self.host = host
        self.port = port
        self.loopback = is_loopback(host)
        if not pin and not self.loopback:
            raise ServerError("a PIN is needed on a network address (web.pin)")
        self.pin = pin
        self.open = self.loopback and not pin
        self.public_view = public_view or self.loopback
        self.store = store
        self.config = config
        self.gate = Gate(pin, clock or MonotonicClock(), on_lockout=self.hub.alert) if pin else None
        self.page_rate = page_rate
        self.page_burst = page_burst
        self.state_dir = state_dir
        self.limits = limits
        #: The names this server answers to besides its addresses (see :meth:`_host_ok`).
        self.names = _own_names() | {
            n for n in (host_name(f"[{h.strip('[]')}]" if ":" in h else h) for h in hosts) if n
        }
        #: The connections held (set by :meth:`start`).
        self.connections: Connections | None = None
        self._selftest_problem: str | None = None
        self._page = page_html(colours).encode("utf-8")
        #: The phone's page (``/phone``) for the side its player plays; None: not served.
        self._phone_page = phone_html(phone, colours).encode("utf-8") if phone is not None else None
        self._queues: dict[int, asyncio.Queue[str | None]] = {}
        # The session each page that may command got that from (page id -> token).
        self._page_sessions: dict[int, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._room: asyncio.Event | None = None
        #: Times the main loop woke the server with lines (for tests and the bench).
        self.rounds = 0
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._socket: socket.socket | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        #: Reviews made (game id -> the review's JSON), the newest last, at most REVIEWS_KEPT.
        self.reviews: dict[str, dict[str, Any]] = {}
        self._reviewing = False
        #: The live analysis for the pages (None: the link has no application).
        self.analysis: AnalysisFeed | None = None
        if analysing_board(link.board):
            self.analysis = AnalysisFeed(self.hub)
            self.analysis.attach(link.board)
        #: The board's games far apart (invite, join, leave: :mod:`crownhead.firmware.web.far`), or None.
        self.far = far
        if far is not None and link.board is not None:
            FarFeed(self.hub, far).attach(link.board)
        #: The board's games on PlayStrategy (:mod:`crownhead.firmware.web.online`), or None.
        self.online = online
        if online is not None and link.board is not None:
            FarFeed(self.hub, online, event="online").attach(link.board)

    # -- life cycle ------------------------------------------------------------------

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Bind the address now (an error is raised here) and serve in a daemon thread."""
        try:
            sock = listening_socket(self.host, self.port)
        except OSError as exc:
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
        self.port = sock.getsockname()[1]
        self._socket = sock
        self._server = bounded_server(
            self.asgi(),
            sock,
            self.limits,
            tick_s=TICK_S,
            ws_max_size=WS_MAX_SIZE,
            ws_per_message_deflate=False,
            lifespan="off",
            log_level="warning",
            access_log=False,
            server_header=False,
            proxy_headers=False,
        )
        self.connections = self._server.connections
        self._thread = threading.Thread(target=self._run, name="crownhead-web", daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise ServerError("the web server did not start in 10 s")
        if self._error is not None:
            raise ServerError(f"the web server failed: {self._error}")

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # noqa: BLE001 - reported to start() or logged
            self._error = exc
            self._started.set()
            log.exception("web: the server stopped")

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        loop, wake, room = self._loop, self._wake, self._room

        def wake_up() -> None:
            loop.call_soon_threadsafe(wake.set)

        def make_room() -> None:
            loop.call_soon_threadsafe(room.set)

        self.hub.wake = wake_up
        self.hub.make_room = make_room
        self.hub.drop = self._disconnect
        pump = asyncio.create_task(self._pump())
        self._started.set()
        try:
            assert self._socket is not None
            await self._server.serve(sockets=[])  # it accepts on self._socket itself
        finally:
            pump.cancel()
            self.hub.wake = lambda: None
            self.hub.make_room = lambda: None
            self.hub.drop = lambda page_id: None

    def close(self) -> None:
        """Stop serving: every page is disconnected (idempotent)."""
        if self._server is not None:
            stop_server(self._server, self._loop)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self.hub.close()

    # -- lines to the pages ----------------------------------------------------------

    async def _pump(self) -> None:
        """Hand the main loop's lines to the pages whenever it says there are some (it
        wakes the server once per batch: no polling, so an idle board costs nothing here)."""
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            self.rounds += 1
            try:
                self._deliver()
            except Exception:  # keep serving whatever one round did
                log.exception("web: delivering lines failed")

    def _deliver(self) -> bool:
        """Hand the main loop's lines to the pages' queues; a page whose queue is full is
        disconnected (it reconnects and is greeted afresh). False if there were none.

        Each line is decoded once, whatever the number of pages it goes to."""
        self.hub.woken()
        lines = self.hub.take()
        for targets, line in lines:
            if not line:
                self.hub.settle(targets[0])  # the main loop is done with one of its lines
                continue
            text = line.decode("utf-8").rstrip("\n")
            for page_id in targets:
                self._to_page(page_id, text)
        if lines and self._room is not None:
            # A page whose lines waited for one of them (settled now), or for a greeting
            # after an overrun, goes on.
            self._room.set()
        return bool(lines)

    def _to_page(self, page_id: int, text: str) -> None:
        queue = self._queues.get(page_id)
        if queue is None:
            return
        try:
            queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("web: page %d does not keep up: disconnected", page_id)
            self._disconnect(page_id)

    def _disconnect(self, page_id: int) -> None:
        queue = self._queues.pop(page_id, None)
        if queue is None:
            return
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(None)  # the sender closes the socket

    # -- who may do what ------------------------------------------------------------

    def _host_ok(self, headers: Any, local: str | None) -> bool:
        """A request must name this server as its ``Host`` (no DNS rebinding): a name it is
        known by (``web.hosts``, its host name, that name with ``.local``), the address
        the client connected to (``local``), or on loopback a loopback name. Listening
        on loopback, a client can only connect to a loopback address."""
        name = host_name(headers.get("host", ""))
        if name is None:
            return False
        if name in self.names:
            return True
        if is_loopback(name):
            return self.loopback or (local is not None and is_loopback(local))
        return local is not None and same_address(name, local)

    def _origin_ok(self, headers: Any) -> bool:
        """A browser's request from another site's page names that site: refused."""
        origin = headers.get("origin")
        if origin is None:
            return True  # not a browser's page (a script or a command-line tool)
        host = headers.get("host", "")
        return origin in (f"http://{host}", f"https://{host}")

    def _session(self, request: Any) -> bool:
        return self.gate is not None and self.gate.session(request.cookies.get(COOKIE))

    def may_view(self, request: Any) -> bool:
        return self.open or self.public_view or self._session(request)

    def may_control(self, request: Any) -> bool:
        return self.open or self._session(request)

    # -- the application -------------------------------------------------------------

    def asgi(self) -> Starlette:
        """The ASGI application: the routes below, behind :class:`_Guard`; every handler
        finds this server as ``request.app.state.server``."""
        app = Starlette(routes=_ROUTES, middleware=[Middleware(_Guard, server=self)])
        app.state.server = self
        return app

    async def _socket_session(self, websocket: Any, disconnected: type[Exception]) -> None:
        headers = websocket.headers
        if not self._origin_ok(headers):
            log.warning("web: WebSocket from another site's page refused (Origin %r)", headers.get("origin"))
            await websocket.close(code=1008)
            return
        if not self.may_view(websocket):
            await websocket.close(code=1008)
            return
        control = self.may_control(websocket)
        page = self.hub.join(control)
        if page is None:
            await websocket.close(code=1013)
            return
        # A page that may command by its session loses that when the session ends.
        token = websocket.cookies.get(COOKIE) if control and not self.open else None
        if token:
            self._page_sessions[page.id] = token
        queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=PAGE_QUEUE)
        self._queues[page.id] = queue
        await websocket.accept()
        # The link greets the page in its next step.

        async def sender() -> None:
            while True:
                text = await queue.get()
                if text is None:
                    await websocket.close(code=1013)
                    return
                await websocket.send_text(text)

        task = asyncio.create_task(sender())
        # A token bucket: a page sends at most `page_rate` messages a second (bursts of
        # `page_burst`); beyond that its socket is left unread, so a flooding page costs
        # the main loop no more than a person clicking fast.
        tokens, refilled = float(self.page_burst), self._loop_time()
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if token and page.control and not (self.gate is not None and self.gate.session(token)):
                    self.hub.revoke(page.id)  # the session expired meanwhile
                now = self._loop_time()
                tokens = min(float(self.page_burst), tokens + (now - refilled) * self.page_rate)
                refilled = now
                if tokens < 1:
                    await asyncio.sleep((1 - tokens) / self.page_rate)
                    tokens, refilled = 1.0, self._loop_time()
                tokens -= 1
                data = message.get("bytes")
                if data is None:
                    data = (message.get("text") or "").encode("utf-8")
                done, answers = self.hub.put(page, data)
                # Hold this page back while one of its lines is with the main loop, or the
                # board's inbox is full (nothing is dropped: its socket is not read
                # meanwhile); the main loop's answer, or its taking lines, ends the wait.
                while True:
                    for answer in answers:
                        self._to_page(page.id, answer)
                    if done or task.done():
                        break
                    assert self._room is not None
                    self._room.clear()
                    if self.hub.held(page):
                        await self._room.wait()
                    done, answers = self.hub.put(page)
                if task.done():
                    break
        except disconnected:
            pass
        except RuntimeError:
            pass  # the socket closed under us
        finally:
            self.hub.leave(page)
            self._queues.pop(page.id, None)
            self._page_sessions.pop(page.id, None)
            task.cancel()

    def end_session(self, token: str | None) -> None:
        """Log ``token``'s session out: the pages it opened may no longer change the game
        (at once) and are disconnected (they come back as what they are now: viewers, or
        asked to log in)."""
        if self.gate is None or not token:
            return
        self.gate.logout(token)
        for page_id, held in list(self._page_sessions.items()):
            if hmac.compare_digest(held.encode("utf-8", "replace"), token.encode("utf-8", "replace")):
                self.hub.revoke(page_id)
                del self._page_sessions[page_id]
                self._disconnect(page_id)

    def _loop_time(self) -> float:
        assert self._loop is not None
        return self._loop.time()

    # -- games and configuration (read in the server's thread: files, not the game) ---

    def games_list(self) -> list[dict[str, Any]]:
        if self.store is None:
            return []
        out = []
        for entry in self.store.list_games():
            out.append({"id": entry.path.stem, "tags": entry.tags, "plies": entry.plies, "result": entry.result})
        return out

    def game_file(self, game_id: str) -> Path | None:
        if self.store is None or not _GAME_ID.fullmatch(game_id):
            return None
        for path in self.store.game_files():
            if path.stem == game_id:
                return Path(path)
        return None

    def game_json(self, path: Path) -> dict[str, Any]:
        """A game for the page's replay: its tags, its moves in PDN and the position
        after each (the page draws those, it does not play checkers)."""
        from crownhead.rules.pdn import read_game

        game = read_game(path.read_bytes(), path.name)
        if game is None:
            return {"id": path.stem, "tags": {}, "moves": [], "fens": [], "result": "*"}
        moves, fens = _positions(game.start, game.moves, game.rules)
        return {
            "id": path.stem,
            "tags": game.tags,
            "moves": moves,
            "fens": fens,
            "result": game.result,
            "error": str(game.error) if game.error else None,
        }

    def current_json(self) -> dict[str, Any] | None:
        """The game in progress as the board last saved it (``current.json``, written at
        every move before anyone hears of it), in :meth:`game_json`'s shape, for the
        page's move list; None without one."""
        from crownhead.firmware.storage.store import StoreError

        if self.store is None:
            return None
        try:
            record = self.store.load_current()
            game = record.to_game() if record is not None else None
        except StoreError:
            return None  # the main loop says what is wrong with it
        if record is None or game is None:
            return None
        moves, fens = _positions(game.start, game.moves, game.rules)
        return {"id": record.id, "tags": record.tags(), "moves": moves, "fens": fens, "result": record.result or "*"}

    def selftest_view(self) -> dict[str, Any]:
        """The last self-test for the status page: ``state`` "passed" or "failed" (with its
        time, backend, lines and faults), "never run", or "unreadable" (the problem is
        logged, once per problem: the page goes on)."""
        from crownhead.firmware.storage.selftest import SelftestFileError, load_selftest

        if self.state_dir is None:
            return {"state": "never run"}
        try:
            record = load_selftest(self.state_dir)
        except SelftestFileError as exc:
            if str(exc) != self._selftest_problem:
                self._selftest_problem = str(exc)
                log.warning("web: the last self-test's result is unreadable: %s", exc)
            return {"state": "unreadable"}
        self._selftest_problem = None
        if record is None:
            return {"state": "never run"}
        return {
            "state": "passed" if record.passed else "failed",
            "time": record.time,
            "backend": record.backend,
            "lines": list(record.lines),
            "faults": list(record.faults),
        }

    def config_file(self) -> str | None:
        """The configuration file the settings in force were read from, as an absolute
        path; None for the built-in defaults (no file was read)."""
        path = getattr(self.config, "path", None)
        return os.path.abspath(path) if path else None

    def config_view(self) -> dict[str, Any]:
        """The configuration in force, for reading: no secret shown (the PIN, passwords,
        a URL's password: :func:`crownhead.firmware.redact.redacted`)."""
        if self.config is None:
            return {}
        out: dict[str, Any] = {}
        for name, section in self.config.sections.items():
            if is_dataclass(section):
                out[name] = redacted(_plain(section))
        return out


def _positions(start: Position, moves: Iterable[Move], rules: Rules) -> tuple[list[str], list[str]]:
    """The moves in PDN (numbered as the board writes them) and the FEN before the first
    and after each."""
    from crownhead.rules.pdn import move_text

    position = start
    fens = [position.fen()]
    texts = []
    for move in moves:
        texts.append(move_text(position, move, rules, numbers=True))
        position = position.play(move, rules)
        fens.append(position.fen())
    return texts, fens


# -- the application: every route's handler (the server is ``request.app.state.server``) --


def _server(request: HTTPConnection) -> WebServer:
    server: WebServer = request.app.state.server
    return server


class _Guard:
    """Host check and security headers on every HTTP answer."""

    def __init__(self, app: ASGIApp, server: WebServer) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        local = scope.get("server")
        if not self.server._host_ok(headers, str(local[0]) if local else None):
            if scope["type"] == "http":
                await PlainTextResponse("unknown host", status_code=421)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


#: Reviews kept in memory: each took many seconds of a core, and a page may ask again.
REVIEWS_KEPT = 16
#: A review's limit: one that is not done by then is stopped (a long game on a slow Pi).
REVIEW_TIMEOUT_S = 1800
#: The most a review's answer may be (600 plies of JSON are about 250 KB).
REVIEW_BYTES = 4 << 20


async def _game_review(request: Request) -> Response:
    """A kept game reviewed by ``crownhead review`` (see docs/coach.md): its JSON.

    The review runs in a process of its own, at a lower priority, so that it never
    takes the main loop's core or its interpreter; one at a time, and only for a page
    that may command the board, since it costs seconds to minutes of a processor.
    """
    server = _server(request)
    if not server.may_control(request):
        return JSONResponse(
            {"error": "forbidden", "message": "log in with the board's PIN to review a game"}, status_code=403
        )
    if not server._origin_ok(request.headers):
        return JSONResponse({"error": "forbidden", "message": "a review asked by another site's page"}, status_code=403)
    board = server.analysis.app if server.analysis is not None else None
    refused = board.review_refused if board is not None else None
    if refused is not None:
        # No engine help of any kind between people apart (docs/remote.md).
        return JSONResponse({"error": "refused", "message": refused}, status_code=409)
    game_id = request.path_params["id"]
    found = server.game_file(game_id)
    if found is None:
        return JSONResponse({"error": "not-found", "message": "no such game"}, status_code=404)
    kept = server.reviews.get(game_id)
    if kept is not None:
        return JSONResponse(kept)
    if server._reviewing:
        return JSONResponse(
            {"error": "busy", "message": "another game is being reviewed: try again when it is done"},
            status_code=503,
            headers={"Retry-After": "30"},
        )
    server._reviewing = True
    try:
        review, problem = await _run_review(found, server.state_dir)
    finally:
        server._reviewing = False
    if review is None:
        return JSONResponse({"error": "review-failed", "message": problem}, status_code=500)
    server.reviews[game_id] = review
    while len(server.reviews) > REVIEWS_KEPT:
        del server.reviews[next(iter(server.reviews))]
    return JSONResponse(review)


async def _run_review(path: Path, state_dir: Path | None) -> tuple[dict[str, Any] | None, str]:
    """``crownhead review PATH --json`` in a process at a lower priority: the review, or
    None and why not."""
    import shutil
    import sys

    command = [sys.executable, "-m", "crownhead.firmware.cli", "review", str(path), "--json"]
    if state_dir is not None:
        command += ["--state-dir", str(state_dir)]
    nice = shutil.which("nice")
    if nice is not None:
        command = [nice, "-n", "10", *command]
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), REVIEW_TIMEOUT_S)
    except (TimeoutError, asyncio.CancelledError):
        process.kill()
        await process.wait()
        return None, f"the review took longer than {REVIEW_TIMEOUT_S} s and was stopped"
    if process.returncode != 0 or len(out) > REVIEW_BYTES:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return None, lines[-1] if lines else f"the review stopped (exit code {process.returncode})"
    try:
        return json.loads(out), ""
    except ValueError:
        return None, "the review's answer could not be read"


async def _analysis(request: Request) -> Response:
    """The live analysis (see :mod:`crownhead.firmware.web.analysis`): ``GET`` its last state;
    ``POST {"on": true|false}`` turns it on or off, for a page that may command the board,
    and answers the new state (``why`` says why it stays off)."""
    server = _server(request)
    feed = server.analysis
    if request.method == "GET":
        if not server.may_view(request):
            return _forbidden()
        if feed is None:
            return JSONResponse({"error": "not-found", "message": "no analysis on this board"}, status_code=404)
        return JSONResponse(feed.latest)
    if not server.may_control(request):
        return JSONResponse(
            {"error": "forbidden", "message": "log in with the board's PIN to switch the analysis"}, status_code=403
        )
    if not server._origin_ok(request.headers):
        return JSONResponse({"error": "forbidden", "message": "asked by another site's page"}, status_code=403)
    data = await _bounded_json(request, 1024)
    if isinstance(data, Response):
        return data
    if not isinstance(data, dict) or not isinstance(data.get("on"), bool):
        return JSONResponse({"error": "bad-request", "message": 'send {"on": true} or {"on": false}'}, status_code=400)
    if feed is None:
        return JSONResponse({"error": "not-found", "message": "no analysis on this board"}, status_code=404)
    answer = await _answer_of(feed.ask(data["on"]), 3)
    if isinstance(answer, Response):
        return answer
    return JSONResponse(answer)


async def _bounded_json(request: Request, limit: int = MAX_BODY) -> Any:
    """The request's body as JSON (None when empty or not JSON), or the 413 that refuses
    it: never more than ``limit`` bytes are read, whatever the sender claims or sends."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return JSONResponse({"error": "bad-request", "message": "too long"}, status_code=413)
    try:
        return parse_json(body) if body else None
    except ValueError:
        return None


async def _answer_of(future: Future[Any] | None, timeout: float = ANSWER_S) -> Any:
    """The main loop's answer to a request it was given as ``future`` (None: its queue was
    full), or the 503 that says why there is none: the page is never kept waiting longer
    than ``timeout`` seconds."""
    if future is None:
        return JSONResponse({"error": "busy", "message": "too many requests waiting"}, status_code=503)
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), timeout=timeout)
    except (TimeoutError, asyncio.CancelledError):
        return JSONResponse({"error": "busy", "message": "the board did not answer in time"}, status_code=503)


async def _far(request: Request) -> Response:
    """The board's games far apart (see :mod:`crownhead.firmware.web.far`): ``GET`` their state;
    ``POST`` a request (invite, look, join, cancel, leave), answered by the main loop with the
    new state, or refused (409) in words. Both for a page that may command the board:
    an invitation's code lets another board in."""
    server = _server(request)
    if not server.may_control(request):
        return JSONResponse(
            {"error": "forbidden", "message": "log in with the board's PIN to play a board far away"}, status_code=403
        )
    games = server.far
    if games is None:
        return JSONResponse({"error": "not-found", "message": "no games far apart on this board"}, status_code=404)
    if request.method == "GET":
        return JSONResponse(_reached(games.status(), request))
    if not server._origin_ok(request.headers):
        return JSONResponse({"error": "forbidden", "message": "asked by another site's page"}, status_code=403)
    data = await _bounded_json(request)
    if isinstance(data, Response):
        return data
    asked = request_of(data)
    if asked is None:
        return JSONResponse(
            {
                "error": "bad-request",
                "message": 'send {"invite": {...}}, {"look": "CODE"}, {"join": "CODE"}, {"cancel": true} or {"leave": true}',
            },
            status_code=400,
        )
    answer = await _answer_of(games.ask(*asked))
    if isinstance(answer, Response):
        return answer
    if "error" in answer:
        status = answer.get("status")
        shown = {**answer, "status": _reached(status, request)} if isinstance(status, dict) else answer
        return JSONResponse(shown, status_code=409)
    return JSONResponse(_reached(answer, request))


def _reached(status: dict[str, Any], request: Request) -> dict[str, Any]:
    """The games' status with the invitation's link as this page is reached (see
    :func:`~crownhead.firmware.web.far.as_reached`)."""
    return as_reached(status, request.headers.get("host", ""), request.url.scheme)


async def _online(request: Request) -> Response:
    """The board's games on PlayStrategy (see :mod:`crownhead.firmware.web.online`): ``GET``
    their state; ``POST`` a request (seek, cancel, challenge, accept, decline, chat),
    answered by the main loop with the new state, or refused (409) in words. Both for a
    page that may command the board: it plays people in the board's name."""
    server = _server(request)
    if not server.may_control(request):
        return JSONResponse(
            {"error": "forbidden", "message": "log in with the board's PIN to play online"}, status_code=403
        )
    desk = server.online
    if desk is None:
        return JSONResponse(
            {"error": "not-found", "message": "no online play on this board (crownhead run --online)"},
            status_code=404,
        )
    if request.method == "GET":
        return JSONResponse(desk.status())
    if not server._origin_ok(request.headers):
        return JSONResponse({"error": "forbidden", "message": "asked by another site's page"}, status_code=403)
    data = await _bounded_json(request)
    if isinstance(data, Response):
        return data
    asked = online_request_of(data)
    if asked is None:
        words = ", ".join(f'{{"{name}": ...}}' for name in ONLINE_REQUESTS)
        return JSONResponse({"error": "bad-request", "message": f"send one of {words}"}, status_code=400)
    answer = await _answer_of(desk.ask(*asked))
    if isinstance(answer, Response):
        return answer
    return JSONResponse(answer, status_code=409 if "error" in answer else 200)


async def _far_qr(request: Request) -> Response:
    """The invitation's link as a QR code (SVG), for a page that may command the board."""
    server = _server(request)
    if not server.may_control(request):
        return _forbidden()
    link = _reached(server.far.status(), request).get("link") if server.far is not None else None
    if not link:
        return PlainTextResponse("no invitation with a link on this board now", status_code=404)
    try:
        svg = qr_svg(str(link))
    except ModuleNotFoundError:
        return PlainTextResponse(
            "the QR code needs segno, which this board has not: install the board's 'web' extra (docs/install.md)",
            status_code=501,
        )
    except ValueError as exc:
        return PlainTextResponse(f"no QR code: {exc}", status_code=422)
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


def _forbidden() -> Response:
    return JSONResponse({"error": "forbidden", "message": "log in with the board's PIN first"}, status_code=403)


async def _index(request: Request) -> Response:
    return Response(_server(request)._page, media_type="text/html; charset=utf-8")


async def _phone(request: Request) -> Response:
    page = _server(request)._phone_page
    if page is None:
        return PlainTextResponse(
            "not found: no game for a phone here (crownhead run --remote CODE --phone)", status_code=404
        )
    return Response(page, media_type="text/html; charset=utf-8")


_STATIC_TYPES = {
    "app.js": "text/javascript; charset=utf-8",
    "phone.js": "text/javascript; charset=utf-8",
    "phone.css": "text/css; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "board.js": "text/javascript; charset=utf-8",
    "speech.js": "text/javascript; charset=utf-8",
    "review.js": "text/javascript; charset=utf-8",
    "problems.js": "text/javascript; charset=utf-8",
    "far.js": "text/javascript; charset=utf-8",
    "online.js": "text/javascript; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}


async def _static_file(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC_TYPES:
        return PlainTextResponse("not found", status_code=404)
    return Response(_static(name), media_type=_STATIC_TYPES[name])


async def _favicon(request: Request) -> Response:
    # Browsers ask for /favicon.ico whatever the page says: an SVG under that name spares
    # every page load a 404 (which a newcomer reads as a fault).
    return Response(_static("favicon.svg"), media_type=_STATIC_TYPES["favicon.svg"])


async def _me(request: Request) -> Response:
    server = _server(request)
    return JSONResponse(
        {"view": server.may_view(request), "control": server.may_control(request), "login": server.gate is not None}
    )


async def _login(request: Request) -> Response:
    server = _server(request)
    if server.gate is None:
        return JSONResponse({"ok": True, "message": "no PIN is needed here"})
    if not server._origin_ok(request.headers):
        return JSONResponse({"error": "forbidden", "message": "a login from another site's page"}, status_code=403)
    # Read at most a little more than a PIN needs, whatever the sender claims or sends.
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > 1024:
            return JSONResponse({"error": "bad-request", "message": "too long"}, status_code=413)
    pin = ""
    try:
        data = parse_json(body) if body else {}
        if isinstance(data, dict) and isinstance(data.get("pin"), str):
            pin = data["pin"]
    except ValueError:
        return JSONResponse({"error": "bad-request", "message": 'send {"pin": "..."}'}, status_code=400)
    client = client_key(request.client.host) if request.client else "?"  # an IPv6 client by its /64
    verdict, value = server.gate.login(client, pin)
    if verdict == "wait":
        return JSONResponse(
            {"error": "too-many-tries", "message": f"too many wrong PINs: try again in {value} s"},
            status_code=429,
            headers={"Retry-After": str(value)},
        )
    if verdict == "locked":
        return JSONResponse(
            {
                "error": "locked-out",
                "message": f"too many wrong PINs on this board: logins are refused for {value} s more",
            },
            status_code=429,
            headers={"Retry-After": str(value)},
        )
    if verdict == "wrong":
        return JSONResponse({"error": "wrong-pin", "message": "wrong PIN"}, status_code=403)
    response = JSONResponse({"ok": True})
    response.set_cookie(COOKIE, str(value), max_age=SESSION_MS // 1000, httponly=True, samesite="strict", path="/")
    return response


async def _logout(request: Request) -> Response:
    server = _server(request)
    if server.gate is not None and server._origin_ok(request.headers):
        server.end_session(request.cookies.get(COOKIE))
    response = JSONResponse({"ok": True})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


async def _ask(server: WebServer, what: str) -> Response:
    """The main loop's answer to ``what`` (in its next step: 3 s at most, else 503)."""
    future = server.hub.ask(what)
    if future is None:
        return JSONResponse({"error": "busy", "message": "too many questions waiting"}, status_code=503)
    try:
        answer = await asyncio.wait_for(asyncio.wrap_future(future), timeout=3)
    except TimeoutError:
        return JSONResponse({"error": "busy", "message": "the board did not answer in time"}, status_code=503)
    except Exception:  # noqa: BLE001 - logged by the link
        return JSONResponse({"error": "internal", "message": "the board could not answer"}, status_code=500)
    return JSONResponse(answer)


async def _state(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    return await _ask(server, "state")


async def _status(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    response = await _ask(server, "status")
    if response.status_code != 200:
        return response
    data = json.loads(bytes(response.body))
    data["config"] = server.config_view()
    # Which file the settings came from (None: the built-in defaults, no file read).
    data["config_file"] = server.config_file()
    data["selftest"] = server.selftest_view()
    data["web"] = {
        "listen": f"{server.host}:{server.port}",
        "public_view": server.public_view,
        "pin": "set" if server.pin else "none",
        "pages": server.hub.pages,
    }
    return JSONResponse(data)


def _games(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    return JSONResponse({"games": server.games_list()})


def _game(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    found = server.game_file(request.path_params["id"])
    if found is None:
        return JSONResponse({"error": "not-found", "message": "no such game"}, status_code=404)
    return JSONResponse(server.game_json(found))


def _current(request: Request) -> Response:
    """The game in progress, its moves and positions (the page's move list steps through it)."""
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    found = server.current_json()
    if found is None:
        return JSONResponse({"error": "not-found", "message": "no game in progress is saved"}, status_code=404)
    return JSONResponse(found)


def _game_pdn(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    found = server.game_file(request.path_params["id"])
    if found is None:
        return PlainTextResponse("no such game", status_code=404)
    return Response(
        found.read_bytes(),
        media_type="application/x-chess-pdn",
        headers={"Content-Disposition": f'attachment; filename="{found.name}"'},
    )


def _game_sheet(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    found = server.game_file(request.path_params["id"])
    if found is None:
        return PlainTextResponse("no such game", status_code=404)
    paper = request.query_params.get("paper", "letter")
    if paper not in ("letter", "a4"):
        return PlainTextResponse("paper is letter or a4", status_code=400)
    from crownhead.firmware.sheets.files import SheetError, sheets_from_pdn
    from crownhead.rules.pdn import UNTAGGED

    try:
        # A kept game names its game type but for English checkers (the standard's default).
        pdf, _problems = sheets_from_pdn(
            found.read_text(encoding="utf-8"), found.name, game=1, paper=paper, rules=UNTAGGED
        )
    except (SheetError, OSError, UnicodeDecodeError) as exc:
        return PlainTextResponse(f"no sheet: {exc}", status_code=422)
    return Response(
        pdf, media_type="application/pdf", headers={"Content-Disposition": f'attachment; filename="{found.stem}.pdf"'}
    )


def _all_pdn(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    text = server.store.export() if server.store is not None else ""
    return Response(
        text.encode("utf-8"),
        media_type="application/x-chess-pdn",
        headers={"Content-Disposition": 'attachment; filename="crownhead-games.pdn"'},
    )


def _diagram(request: Request) -> Response:
    server = _server(request)
    if not server.may_view(request):
        return _forbidden()
    from crownhead.rules import WCDF, Position
    from crownhead.rules.variants import numeric_fen

    fen = request.query_params.get("fen", "")
    if len(fen) > 400:
        return PlainTextResponse("bad FEN: too long", status_code=400)
    flip = request.query_params.get("flip", "") in ("1", "true")
    try:
        position = Position.from_fen(numeric_fen(fen)) if fen else Position.start(WCDF)  # a picture of the start
    except ValueError as exc:
        return PlainTextResponse(f"bad FEN: {exc}", status_code=400)
    return Response(board_svg(position, flipped=flip), media_type="image/svg+xml")


async def _ws(websocket: WebSocket) -> None:
    await _server(websocket)._socket_session(websocket, WebSocketDisconnect)


_ROUTES = [
    Route("/", _index),
    Route("/phone", _phone),
    Route("/static/{name}", _static_file),
    Route("/favicon.ico", _favicon),
    Route("/api/me", _me),
    Route("/api/login", _login, methods=["POST"]),
    Route("/api/logout", _logout, methods=["POST"]),
    Route("/api/state", _state),
    Route("/api/status", _status),
    Route("/api/analysis", _analysis, methods=["GET", "POST"]),
    Route("/api/far", _far, methods=["GET", "POST"]),
    Route("/api/far/qr.svg", _far_qr),
    Route("/api/online", _online, methods=["GET", "POST"]),
    Route("/api/games", _games),
    Route("/api/current", _current),
    Route("/api/games.pdn", _all_pdn),
    Route("/api/games/{id}.pdn", _game_pdn),
    Route("/api/games/{id}.pdf", _game_sheet),
    Route("/api/games/{id}/review", _game_review, methods=["POST"]),
    Route("/api/games/{id}", _game),
    Route("/api/diagram.svg", _diagram),
    WebSocketRoute("/ws", _ws),
]


def _plain(value: Any) -> Any:
    """``value`` as JSON values (dataclasses and mappings as objects, others as text)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
