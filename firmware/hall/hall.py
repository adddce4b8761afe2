"""The hall's side: follow every board of a hall through the broker, serve the hall page.

:class:`Hall` keeps what each board last said (its retained state, its status, the moves
of its game in order, its alerts) and, in its :class:`~firmware.hall.standings.Standings`,
every finished game across rounds; it is fed by :class:`HallListener` (an MQTT client in
its own thread) and read by :class:`HallServer`, a small HTTP server for the page,
``/api/boards`` (JSON), ``/api/standings`` (JSON), ``/round.pdn`` (every board's game,
one PDN file), ``/results.csv`` and ``/standings.csv``, served by Starlette on uvicorn as
the board's own page is. Names and comments from boards
are data: the page sets them as text, never as markup, and the CSV quotes them.

The page's full view of one board is drawn by the board's own web page component
(``firmware/web/static/board.js``, served here as it is) over the board drawn by
:mod:`firmware.diagram`, so the hall and the board's page draw a board one way.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import secrets
import socket
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import paho.mqtt.client as mqtt

from firmware.pages import SECURITY_HEADERS, fill_shell
from firmware.pages.serving import Limits
from firmware.hall.standings import Standings, spreadsheet_cell, standings_file
from firmware.hall.topics import ROOT, BrokerUrl, check_name

__all__ = ["Hall", "BoardRecord", "HallListener", "HallServer"]

log = logging.getLogger(__name__)

MAX_PAYLOAD = 256 * 1024  # a state carries the game's PDN: generous, but bounded
MAX_BOARDS = 1000
_ALERTS = frozenset({"caution", "forfeit", "claim", "flag"})


@dataclass
class BoardRecord:
    """One board as the hall knows it."""

    name: str
    online: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    events: int = 0
    alerts: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=20))

    def summary(self) -> dict[str, Any]:
        s = self.state
        return {
            "name": self.name,
            "online": self.online,
            "event": s.get("event"),
            "round": s.get("round"),
            "fen": s.get("fen"),
            "ply": s.get("ply", len(self.moves)),
            "black": s.get("black"),
            "white": s.get("white"),
            "clocks": s.get("clocks"),
            "result": s.get("result"),
            "reason": s.get("reason"),
            "status": s.get("status"),
            "match": s.get("match"),
            "moves": list(self.moves),
            "alerts": list(self.alerts),
        }


class Hall:
    """What every board of one hall last said. Thread-safe: fed by the listener, read by the page."""

    def __init__(self, name: str, state_dir: str | None = None) -> None:
        """``state_dir``: where the standings are kept (None: in memory only)."""
        self.name = check_name(name, "hall")
        self.standings = Standings(self.name, standings_file(state_dir, self.name) if state_dir is not None else None)
        self._boards: dict[str, BoardRecord] = {}
        self._lock = threading.Lock()
        self.version = 0
        self.rejected = 0

    def receive(self, topic_name: str, payload: bytes) -> None:
        """One MQTT message; anything malformed is counted and ignored."""
        parts = topic_name.split("/")
        if len(parts) != 4 or parts[0] != ROOT or parts[1] != self.name or len(payload) > MAX_PAYLOAD:
            self.rejected += 1
            return
        _, _, board, kind = parts
        try:
            check_name(board, "board")
        except ValueError:
            self.rejected += 1
            return
        state = self._receive(board, kind, payload)
        if state is not None:
            # Outside the hall's lock: the standings have their own.
            self.standings.record(board, state)

    def _receive(self, board: str, kind: str, payload: bytes) -> dict[str, Any] | None:
        """Take one message of ``board``; the state it carried, if it was one."""
        state = None
        with self._lock:
            record = self._boards.get(board)
            if record is None:
                if len(self._boards) >= MAX_BOARDS:
                    self.rejected += 1
                    return None
                record = self._boards[board] = BoardRecord(board)
            if kind == "status":
                record.online = payload == b"online"
            elif kind in ("state", "event"):
                try:
                    body = json.loads(payload)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    self.rejected += 1
                    return None
                if not isinstance(body, dict):
                    self.rejected += 1
                    return None
                if kind == "state":
                    record.state = state = body
                    moves = body.get("moves")
                    # The retained state carries the game's moves: a hall that missed events
                    # (it was away while the board sent them) catches up from it.
                    if isinstance(moves, list) and len(moves) <= 2000 and all(isinstance(m, str) for m in moves):
                        if len(moves) >= len(record.moves) or record.moves[: len(moves)] != moves:
                            record.moves = list(moves)
                else:
                    self._event(record, body)
            else:
                return None
            self.version += 1
        return state

    @staticmethod
    def _event(record: BoardRecord, event: Mapping[str, Any]) -> None:
        record.events += 1
        kind = event.get("event")
        if kind == "move":
            ply = event.get("ply")
            if isinstance(ply, int) and 1 <= ply <= len(record.moves) + 1:
                del record.moves[ply - 1:]
                record.moves.append(str(event.get("move")))
        elif kind == "takeback":
            ply = event.get("ply")
            if isinstance(ply, int) and ply >= 1:
                del record.moves[ply - 1:]
        elif kind == "new-game":
            record.moves.clear()
        if kind in _ALERTS:
            record.alerts.append(dict(event))

    def close(self) -> None:
        """Write the standings' last games to the state directory."""
        self.standings.close()

    def boards(self) -> list[dict[str, Any]]:
        with self._lock:
            return [self._boards[name].summary() for name in sorted(self._boards)]

    def pdn(self) -> str:
        """Every board's game as one PDN file (each board's own PDN, as its state carries it)."""
        with self._lock:
            texts = [r.state.get("pdn") for _, r in sorted(self._boards.items())]
        return "\n".join(t.rstrip("\n") + "\n" for t in texts if isinstance(t, str) and t.strip())

    def results_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["board", "round", "black", "white", "result", "reason", "plies"])
        for b in self.boards():
            # Every cell as the standings' CSV writes it: no text a spreadsheet runs as a formula.
            writer.writerow([spreadsheet_cell(b[key] if b[key] is not None else "")
                             for key in ("name", "round", "black", "white", "result", "reason", "ply")])
        return out.getvalue()


class HallListener:
    """Subscribes ``hall`` to its boards on the broker at ``url`` (in a background thread)."""

    def __init__(self, hall: Hall, url: str, cafile: str | None = None) -> None:
        self.hall = hall
        self.url = BrokerUrl.parse(url)
        # A persistent session: what boards publish while the hall is reconnecting (a
        # broker restarted, the hall's network away) waits for it at the broker.
        # Its id is its account where there is one (the brokers of docs/hall.md bind ids
        # to accounts, so no board can take the hall's session by naming its id).
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.url.username or f"crownhead-hall-{hall.name}",
            clean_session=False,
        )
        if self.url.username is not None:
            client.username_pw_set(self.url.username, self.url.password)
        if self.url.tls:
            import ssl

            client.tls_set_context(ssl.create_default_context(cafile=cafile))
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = lambda c, u, m: hall.receive(m.topic, bytes(m.payload))
        #: Times the broker's connection went (the broker restarted, or put the hall off).
        self.disconnects = 0
        self._closing = False
        #: Set when the broker has confirmed the subscription: from then on every
        #: board's message reaches the hall.
        self.subscribed = threading.Event()
        client.on_subscribe = lambda c, u, mid, codes, props: self.subscribed.set()
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        self._client = client
        self.connected = threading.Event()

    def start(self) -> None:
        self._client.connect_async(self.url.host, self.url.port, keepalive=30)
        self._client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("hall: %s refused: %s", self.url, reason)
            return
        client.subscribe(f"{ROOT}/{self.hall.name}/+/+", qos=1)
        self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        if not self._closing:
            self.disconnects += 1
            log.warning("hall: lost %s (%s); trying again", self.url, reason)

    def close(self) -> None:
        self._closing = True
        self._client.disconnect()
        self._client.loop_stop()


def _asset(*path: str) -> bytes:
    return resources.files("firmware").joinpath(*path).read_bytes()


def page_html() -> str:
    """The hall page: its shell with the board drawn for the full view and the pieces and
    role marks the board component draws with (the same shell filling as the board's own
    page: :func:`firmware.pages.fill_shell`)."""
    return fill_shell(_asset("hall", "hall.html").decode("utf-8"))


#: What the page loads besides itself: its script and the board's page component.
_SCRIPTS = {
    "/static/hall.js": ("hall", "hall.js"),
    "/static/board.js": ("web", "static", "board.js"),
}


class HallServer:
    """The hall page and its API on ``host:port`` (loopback unless told otherwise).

    Served as the board's own page is: Starlette on uvicorn, in a thread of its own with
    its own event loop, every answer with the pages' headers (:mod:`firmware.pages`), the
    connections held within ``limits`` (:mod:`firmware.pages.serving`: 256 at once, 32 from
    one address, 5 s to send a request).
    Answers that take a lock or build text (the boards, the CSV and PDN downloads) run in
    the server's worker threads, so a slow one never holds up the others.
    """

    def __init__(self, hall: Hall, host: str = "127.0.0.1", port: int = 8080, limits: Limits | None = None) -> None:
        self.hall = hall
        self.host, self.port = host, port
        self.limits = limits if limits is not None else Limits()
        self.page = page_html().encode("utf-8")
        self.scripts = {path: _asset(*where) for path, where in _SCRIPTS.items()}
        self.token = secrets.token_hex(4)  # a hall started again is another hall to a page's cache
        self._socket: socket.socket | None = None
        self._server: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._bind()

    def _bind(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise RuntimeError(f"cannot serve the hall page on {self.host}:{self.port}: {exc.strerror or exc}") from None
        sock.listen(128)
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        self._socket = sock

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def asgi(self) -> Any:
        """The ASGI application: the routes of :data:`_ROUTES`, the pages' headers on every
        answer; each handler finds this server as ``request.app.state.server``."""
        from starlette.applications import Starlette
        from starlette.middleware import Middleware

        app = Starlette(routes=_routes(), middleware=[Middleware(_Headers)])
        app.state.server = self
        return app

    def start(self) -> None:
        """Serve in a daemon thread (the address is bound already: see the constructor)."""
        from firmware.pages.serving import bounded_server

        assert self._socket is not None
        self._server = bounded_server(
            self.asgi(),
            self._socket,
            self.limits,
            lifespan="off",
            log_level="warning",
            access_log=False,
            server_header=False,
            proxy_headers=False,
        )
        self._thread = threading.Thread(target=self._run, name="hall-http", daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the hall page's server did not start in 10 s")
        if self._error is not None:
            raise RuntimeError(f"the hall page's server failed: {self._error}")

    def _run(self) -> None:
        async def serve() -> None:
            self._loop = asyncio.get_running_loop()
            self._started.set()
            await self._server.serve(sockets=[])  # it accepts on the bound socket itself

        try:
            asyncio.run(serve())
        except BaseException as exc:  # noqa: BLE001 - reported to start() or logged
            self._error = exc
            self._started.set()
            log.exception("hall: the page's server stopped")

    def close(self) -> None:
        """Stop serving (idempotent)."""
        if self._server is not None:
            self._server.should_exit = True
            loop = self._loop
            if loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(self._server.stop)
                except RuntimeError:
                    pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None


class _Headers:
    """The pages' headers (:data:`firmware.pages.SECURITY_HEADERS`) on every answer; an
    answer's own ``Cache-Control`` stands."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()
                            if k.lower().encode() not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _server(request: Any) -> HallServer:
    server: HallServer = request.app.state.server
    return server


def _attachment(body: str, kind: str, name: str) -> Any:
    from starlette.responses import Response

    return Response(body.encode("utf-8"), media_type=kind,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def _index(request: Any) -> Any:
    from starlette.responses import Response

    return Response(_server(request).page, media_type="text/html; charset=utf-8")


async def _script(request: Any) -> Any:
    from starlette.responses import Response

    return Response(_server(request).scripts[request.url.path], media_type="text/javascript; charset=utf-8")


def _boards(request: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(_server(request).hall.boards()).encode(), media_type="application/json")


def _standings(request: Any) -> Any:
    from starlette.responses import Response

    # The standings change a game at a time: a page asks whether they did.
    server = _server(request)
    version, body = server.hall.standings.json_snapshot()
    tag = f'"{server.token}-{version}"'
    cache = {"ETag": tag, "Cache-Control": "no-cache"}
    if tag in (request.headers.get("if-none-match") or ""):
        return Response(status_code=304, headers=cache)
    return Response(body, media_type="application/json; charset=utf-8", headers=cache)


def _standings_csv(request: Any) -> Any:
    hall = _server(request).hall
    return _attachment(hall.standings.csv(), "text/csv; charset=utf-8", f"{hall.name}-standings.csv")


def _round_pdn(request: Any) -> Any:
    hall = _server(request).hall
    return _attachment(hall.pdn(), "application/x-chess-pdn; charset=utf-8", f"{hall.name}-round.pdn")


def _results_csv(request: Any) -> Any:
    hall = _server(request).hall
    return _attachment(hall.results_csv(), "text/csv; charset=utf-8", f"{hall.name}-results.csv")


def _routes() -> list[Any]:
    from starlette.routing import Route

    return [
        Route("/", _index),
        Route("/index.html", _index),
        *(Route(path, _script) for path in _SCRIPTS),
        Route("/api/boards", _boards),
        Route("/api/standings", _standings),
        Route("/standings.csv", _standings_csv),
        Route("/round.pdn", _round_pdn),
        Route("/results.csv", _results_csv),
    ]
