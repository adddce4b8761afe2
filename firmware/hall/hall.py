"""The hall's side: follow every board of a hall through the broker, serve the hall page.

:class:`Hall` keeps what each board last said (its retained state, its status, the moves
of its game in order, its alerts) and, in its :class:`~crownhead.firmware.hall.standings.Standings`,
every finished game across rounds; it is fed by :class:`HallListener` (an MQTT client in
its own thread) and read by :class:`HallServer`, a small HTTP server for the page,
``/api/boards`` (JSON), ``/api/standings`` (JSON), ``/round.pdn`` (every board's game,
one PDN file), ``/results.csv`` and ``/standings.csv``, served by Starlette on uvicorn as
the board's own page is. Names and comments from boards
are data: the page sets them as text, never as markup, and the CSV quotes them.

The page's full view of one board is drawn by the board's own web page component
(``firmware/web/static/board.js``, served here as it is) over the board drawn by
:mod:`crownhead.firmware.diagram`, so the hall and the board's page draw a board one way.
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
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from typing import Any

import paho.mqtt.client as mqtt

from crownhead.firmware.pages import SECURITY_HEADERS, fill_shell
from crownhead.firmware.pages.serving import Limits, listening_socket, stop_server
from crownhead.firmware.hall.farapart import REMOTE, FarGames
from crownhead.firmware.hall.judge import MAX_PLIES, replay
from crownhead.firmware.hall.pairings import Pairings, PairingsFile
from crownhead.firmware.hall.record import PENDING, BoardRecord, Witness, alert, checked_move, clean_state
from crownhead.firmware.hall.results import parse_result
from crownhead.firmware.hall.standings import HallGame, Standings, spreadsheet_cell, standings_file
from crownhead.firmware.hall.topics import ROOT, BrokerUrl, check_name, topic

__all__ = ["Hall", "BoardRecord", "HallListener", "HallServer"]

log = logging.getLogger(__name__)

#: The largest message the hall reads: the brokers' packet bound (a board's largest
#: message, its state, is a few KiB).
MAX_PAYLOAD = 64 * 1024
#: Boards not known to the hall that it lists apart at most (the most recent).
MAX_OTHERS = 100
#: Seconds the listener waits for the standings to be written before acknowledging a result.
ACK_FLUSH_S = 5.0
_ALERTS = frozenset({"caution", "forfeit", "claim", "flag"})


class Hall:
    """What every board of one hall last said, and the games it counts. Thread-safe: fed
    by the listener, read by the page.

    ``boards``: the boards the hall knows (the arbiter's list); with the boards of the
    ``pairings`` they are the hall's, every one shown and followed. A message from any
    other board is not followed: the board is listed apart (:meth:`others`, the most
    recent :data:`MAX_OTHERS`) and nothing it says is counted, so made-up boards can
    neither fill the hall nor hide a real one.

    A result is counted only for a game the hall saw begin on that board (its first
    move, a new game, or the board's state at ply 0) while a round of the ``pairings``
    was the current one, between the players that round pairs on that board, and when it
    follows from the moves the board reported (:func:`crownhead.firmware.hall.judge.replay`). Any
    other result is shown to the arbiter as disputed (:meth:`Standings.disputed
    <firmware.hall.standings.Standings.disputed>`, the page's *Disputed* table) and not
    counted.
    """

    def __init__(
        self,
        name: str,
        state_dir: str | None = None,
        *,
        boards: Iterable[str] = (),
        pairings: PairingsFile | Pairings | None = None,
    ) -> None:
        """``state_dir``: where the standings are kept (None: in memory only)."""
        self.name = check_name(name, "hall")
        self.standings = Standings(self.name, standings_file(state_dir, self.name) if state_dir is not None else None)
        self._known = frozenset(check_name(b, "board") for b in boards)
        self._pairings = pairings
        self._boards: dict[str, BoardRecord] = {}
        self._others: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self.version = 0
        self.rejected = 0
        #: The games far apart the hall hears on its broker (docs/remote.md), for spectators.
        self.far = FarGames()
        #: Called with a board and the acknowledgement of a result the hall has judged
        #: (the listener publishes it on the board's retained ``ack`` topic); None: nobody.
        self.on_ack: Callable[[str, bytes], None] | None = None

    # -- who is who ------------------------------------------------------------------

    def pairings(self) -> Pairings:
        """The arbiter's pairings now (the file read again if it changed)."""
        if isinstance(self._pairings, PairingsFile):
            return self._pairings.current()
        return self._pairings if self._pairings is not None else Pairings()

    def known(self) -> frozenset[str]:
        """The hall's boards: the arbiter's list and every board of the pairings."""
        return self._known | self.pairings().boards()

    def others(self) -> list[dict[str, Any]]:
        """Boards not known to the hall that sent messages (the most recent first): shown
        apart, never counted."""
        with self._lock:
            return [{"name": n, "messages": c} for n, c in reversed(self._others.items())]

    # -- messages --------------------------------------------------------------------

    def receive(self, topic_name: str, payload: bytes) -> None:
        """One MQTT message; anything malformed is counted and ignored."""
        parts = topic_name.split("/")
        if len(parts) == 5 and parts[0] == ROOT and parts[1] == REMOTE:
            self.far.receive(parts[2], parts[3], parts[4], payload)  # a game far apart, watched
            return
        if len(parts) != 4 or parts[0] != ROOT or parts[1] != self.name or len(payload) > MAX_PAYLOAD:
            self.rejected += 1
            return
        _, _, board, kind = parts
        try:
            check_name(board, "board")
        except ValueError:
            self.rejected += 1
            return
        pairings = self.pairings()
        if board not in self._known and board not in pairings.boards():
            with self._lock:
                self._others[board] = self._others.pop(board, 0) + 1
                while len(self._others) > MAX_OTHERS:
                    self._others.popitem(last=False)
                self.version += 1
            return
        if kind == "result":
            self._result(board, payload, pairings)
            return
        taken = self._receive(board, kind, payload, pairings.current_round)
        if taken is not None:
            # Outside the hall's lock: judging replays the game, and the standings have their own.
            self._judge(board, *taken, pairings)

    def _result(self, board: str, payload: bytes, pairings: Pairings) -> None:
        """A finished game from ``board``'s record of results: judged as its state would
        be (once: a game counted already is known), then acknowledged."""
        try:
            result = parse_result(json.loads(payload))
        except (ValueError, UnicodeDecodeError, RecursionError):
            result = None
        if result is None:
            self.rejected += 1
            return
        state = clean_state(dict(result.state))
        if state["result"] is None:
            self.rejected += 1
            return
        with self._lock:
            record = self._boards.get(board)
            if record is None:
                record = self._boards[board] = BoardRecord(board)
            witness = self._witness_of(record, state["game_id"])
            self.version += 1
        self._judge(board, state, witness, pairings)
        if self.on_ack is not None:
            self.on_ack(board, json.dumps({"journal": result.journal, "seq": result.seq}).encode())

    def _witness_of(self, record: BoardRecord, game_id: str | None) -> Witness:
        """What the hall saw of ``record``'s game ``game_id``: the game now, one before
        it, or one a hall started again kept (called with the lock held)."""
        if record.witness.game_id == game_id:  # a game without an id too (a replay's)
            return Witness(**vars(record.witness))
        if (
            record.witness.started
            and record.witness.game_id == PENDING
            and (game_id is None or game_id not in record.seen)
        ):
            # The game the hall saw begin (its first move) whose id the board has not told
            # yet: a replay sends its moves, then its result, then its state.
            return Witness(**{**vars(record.witness), "game_id": game_id})
        if game_id is not None:
            seen = record.seen.get(game_id)
            if seen is not None:
                return Witness(**vars(seen))
            kept = self.standings.started(record.name)
            if kept is not None and kept["game_id"] == game_id:
                return Witness(True, game_id, kept["round"], kept["start"])
        return Witness(False, game_id)

    def _receive(
        self, board: str, kind: str, payload: bytes, round_now: str | None
    ) -> tuple[dict[str, Any], Witness] | None:
        """Take one message of ``board``; a finished game's state and what the hall saw of
        the game, when it was one."""
        with self._lock:
            record = self._boards.get(board)
            if record is None:
                record = self._boards[board] = BoardRecord(board)
            if kind == "status":
                record.online = payload == b"online"
                self.version += 1
                return None
            if kind not in ("state", "event"):
                return None
            try:
                body = json.loads(payload)
            except (ValueError, UnicodeDecodeError, RecursionError):
                self.rejected += 1
                return None
            if not isinstance(body, dict):
                self.rejected += 1
                return None
            self.version += 1
            if kind == "event":
                self._event(record, body, round_now)
                return None
            state = clean_state(body)
            record.keep_finished(state)
            record.state = state
            moves = state["moves"]
            # The retained state carries the game's moves: a hall that missed events
            # (it was away while the board sent them) catches up from it.
            if moves is not None and (len(moves) >= len(record.moves) or record.moves[: len(moves)] != moves):
                record.moves = list(moves)
            self._witness_state(record, state, round_now)
            if state["result"] is None:
                record.verdict = record.why = None
                return None
            return state, Witness(**vars(record.witness))

    def _event(self, record: BoardRecord, event: Mapping[str, Any], round_now: str | None) -> None:
        record.events += 1
        kind = event.get("event")
        witness = record.witness
        if kind == "move":
            ply, move = event.get("ply"), checked_move(event.get("move"))
            if isinstance(ply, int) and move is not None and 1 <= ply <= min(len(record.moves) + 1, MAX_PLIES):
                del record.moves[ply - 1 :]
                record.moves.append(move)
                if ply == 1 and not (witness.started and witness.ply == 0):
                    # A game's first move: the hall sees it begin.
                    record.witness = witness = Witness(True, PENDING, round_now)
                witness.ply = ply
        elif kind == "takeback":
            ply = event.get("ply")
            if isinstance(ply, int) and ply >= 1:
                del record.moves[ply - 1 :]
                witness.ply = min(witness.ply, ply - 1)
        elif kind == "new-game":
            record.moves.clear()
            record.witness = Witness(True, PENDING, round_now)
        if kind in _ALERTS:
            record.alerts.append(alert(dict(event)))

    def _witness_state(self, record: BoardRecord, state: dict[str, Any], round_now: str | None) -> None:
        """What the hall saw of the game ``state`` tells, kept in ``record.witness``."""
        witness = record.witness
        game_id, ply = state["game_id"], state["ply"] or 0
        if (
            ply == 0
            and state["result"] is None
            and not (witness.started and witness.game_id == game_id and witness.ply == 0)
        ):
            record.witness = witness = Witness(True, game_id, round_now, state["start"] or state["fen"])
        elif witness.started and witness.game_id == PENDING:
            witness.game_id = game_id
        elif witness.game_id != game_id or not witness.started:
            # Not the game the hall saw begin; unless the hall, started again, kept it.
            kept = self.standings.started(record.name) if game_id is not None else None
            if kept is not None and kept["game_id"] == game_id:
                witness = Witness(True, game_id, kept["round"], kept["start"])
            else:
                witness = Witness(False, game_id)
            record.witness = witness
        witness.ply = ply
        if witness.started and witness.game_id is not None and witness.game_id != PENDING:
            record.remember(witness)
            self.standings.note_start(record.name, witness.game_id, witness.round, witness.start)

    def _judge(self, board: str, state: dict[str, Any], witness: Witness, pairings: Pairings) -> None:
        """Count ``board``'s finished game, or show it to the arbiter as disputed."""
        game = self.standings.game_of(board, {**state, "round": witness.round or state["round"]})
        # A game counted already, as it is, was judged when it was counted (its state sent
        # again, or seen again by a hall started again that never saw it begin).
        known = game is not None and self.standings.counted(game)
        why = None if known else self._dispute(board, state, witness, pairings, game)
        if why is None:
            if not known:
                self.standings.record(board, {**state, "round": witness.round})
            verdict = "counted"
        else:
            key = game.key if game is not None else f"state:{state['game_id'] or ''}:{state['black']}:{state['white']}"
            entry = {
                "board": board,
                "round": witness.round or state["round"],
                "black": state["black"],
                "white": state["white"],
                "result": state["result"],
                "reason": state["reason"],
                "plies": state["ply"],
                "why": why,
            }
            if self.standings.dispute(board, key, entry):
                log.warning("hall %s: %s's result %s not counted: %s", self.name, board, state["result"], why)
            verdict = "disputed"
        with self._lock:
            record = self._boards[board]
            if record.state is state or record.state == state:
                record.verdict, record.why = verdict, why
                self.version += 1

    def _dispute(
        self, board: str, state: dict[str, Any], witness: Witness, pairings: Pairings, game: HallGame | None
    ) -> str | None:
        """Why ``board``'s finished game is not counted (None: it is)."""
        if not witness.started:
            return f"the hall did not see this game begin on {board}"
        if witness.round is None:
            return "no round was paired when it began (the arbiter's pairings list none)"
        pairing = pairings.of(witness.round, board)
        if pairing is None:
            return f"{board} is not paired in round {witness.round}"
        if game is None or frozenset((game.black, game.white)) != pairing.players():
            names = f"{state['black'] or '?'} - {state['white'] or '?'}"
            return f"{names} is not the pairing of {board} in round {witness.round}: {pairing.black} - {pairing.white}"
        if state["round"] is not None and state["round"] != witness.round:
            return f"the board says round {state['round']}; the game began in round {witness.round}"
        why = replay(state, witness.start)
        if why is not None:
            return why
        counted = self.standings.same_pairing(game)
        if counted is not None:
            return f"{game.black} (Black) - {game.white} played on {board} in round {game.round} already"
        return None

    def close(self) -> None:
        """Write the standings' last games to the state directory."""
        self.standings.close()

    def boards(self) -> list[dict[str, Any]]:
        """Every board of the hall, by name (one not heard from yet: offline, nothing)."""
        pairings = self.pairings()
        known = sorted(self._known | pairings.boards())
        with self._lock:
            boards = [(self._boards.get(name) or BoardRecord(name)).summary() for name in known]
        for board in boards:
            _name_from_pairing(board, pairings)
        return boards

    def pdn(self) -> str:
        """Every board's game as one PDN file (each board's own PDN, as its state carries it)."""
        known = self.known()
        with self._lock:
            texts = [
                text
                for name, r in sorted(self._boards.items())
                if name in known
                for text in [*r.earlier_pdn(), r.state.get("pdn")]
            ]
        return "\n".join(t.rstrip("\n") + "\n" for t in texts if isinstance(t, str) and t.strip())

    def results_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["board", "round", "black", "white", "result", "reason", "plies", "counted"])
        for board in self.boards():
            # A board's earlier games of the round first (a pair's first game), then its game now.
            for b in [*board["earlier"], board]:
                # Every cell as the standings' CSV writes it: no text a spreadsheet runs as a formula.
                writer.writerow(
                    [
                        spreadsheet_cell(b[key] if b[key] is not None else "")
                        for key in ("name", "round", "black", "white", "result", "reason", "ply", "verdict")
                    ]
                )
        return out.getvalue()


def _name_from_pairing(board: dict[str, Any], pairings: Pairings) -> None:
    """A board that has not named its players (not reported yet) shows its pairing's in
    the current round, rather than nobody."""
    if board["black"] is not None or board["white"] is not None:
        return
    round_ = board["round"] or pairings.current_round
    pairing = pairings.of(round_, board["name"])
    if pairing is not None:
        board["black"], board["white"], board["round"] = pairing.black, pairing.white, round_


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
        hall.on_ack = self._acknowledge

    def _acknowledge(self, board: str, payload: bytes) -> None:
        """Tell ``board`` its result is judged, once the standings hold it on disk (a hall
        stopped right after cannot lose what it acknowledged); retained, so a board that
        comes back reads it at once."""
        self.hall.standings.flush(ACK_FLUSH_S)
        self._client.publish(topic(self.hall.name, board, "ack"), payload, qos=1, retain=True)

    def start(self) -> None:
        self._client.connect_async(self.url.host, self.url.port, keepalive=30)
        self._client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("hall: %s refused: %s", self.url, reason)
            return
        # Its boards, and the games far apart on the same broker (watched, never counted).
        client.subscribe(
            [(f"{ROOT}/{self.hall.name}/+/+", 1), (f"{ROOT}/{REMOTE}/+/+/lines", 1), (f"{ROOT}/{REMOTE}/+/+/invite", 1)]
        )
        self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        self.subscribed.clear()
        if not self._closing:
            self.disconnects += 1
            log.warning("hall: lost %s (%s); trying again", self.url, reason)

    def close(self) -> None:
        self._closing = True
        self._client.disconnect()
        self._client.loop_stop()


def _asset(*path: str) -> bytes:
    return resources.files("crownhead.firmware").joinpath(*path).read_bytes()


def page_html() -> str:
    """The hall page: its shell with the board drawn for the full view and the pieces and
    role marks the board component draws with (the same shell filling as the board's own
    page: :func:`crownhead.firmware.pages.fill_shell`)."""
    return fill_shell(_asset("hall", "hall.html").decode("utf-8"))


#: What the page loads besides itself: its script and the board's page component.
_SCRIPTS = {
    "/static/hall.js": ("hall", "hall.js"),
    "/static/board.js": ("web", "static", "board.js"),
}


class HallServer:
    """The hall page and its API on ``host:port`` (loopback unless told otherwise).

    Served as the board's own page is: Starlette on uvicorn, in a thread of its own with
    its own event loop, every answer with the pages' headers (:mod:`crownhead.firmware.pages`), the
    connections held within ``limits`` (:mod:`crownhead.firmware.pages.serving`: 256 at once, 32 from
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
        try:
            sock = listening_socket(self.host, self.port)
        except OSError as exc:
            raise RuntimeError(
                f"cannot serve the hall page on {self.host}:{self.port}: {exc.strerror or exc}"
            ) from None
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

        site = Starlette(routes=_routes(), middleware=[Middleware(_Headers)])
        site.state.server = self
        return site

    def start(self) -> None:
        """Serve in a daemon thread (the address is bound already: see the constructor)."""
        from crownhead.firmware.pages.serving import bounded_server

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
            stop_server(self._server, self._loop)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None


class _Headers:
    """The pages' headers (:data:`crownhead.firmware.pages.SECURITY_HEADERS`) on every answer; an
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
                headers += [
                    (k.lower().encode(), v.encode())
                    for k, v in SECURITY_HEADERS.items()
                    if k.lower().encode() not in present
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _server(request: Any) -> HallServer:
    server: HallServer = request.app.state.server
    return server


def _attachment(body: str, kind: str, name: str) -> Any:
    from starlette.responses import Response

    return Response(
        body.encode("utf-8"), media_type=kind, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


async def _index(request: Any) -> Any:
    from starlette.responses import Response

    return Response(_server(request).page, media_type="text/html; charset=utf-8")


async def _script(request: Any) -> Any:
    from starlette.responses import Response

    return Response(_server(request).scripts[request.url.path], media_type="text/javascript; charset=utf-8")


def _boards(request: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(_server(request).hall.boards()).encode(), media_type="application/json")


def _others(request: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(_server(request).hall.others()).encode(), media_type="application/json")


def _far(request: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(_server(request).hall.far.games()).encode(), media_type="application/json")


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
        Route("/api/others", _others),
        Route("/api/far", _far),
        Route("/api/standings", _standings),
        Route("/standings.csv", _standings_csv),
        Route("/round.pdn", _round_pdn),
        Route("/results.csv", _results_csv),
    ]
