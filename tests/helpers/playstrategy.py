"""A local stand-in for PlayStrategy's Board API, for the online-play tests: a threaded
HTTP server on 127.0.0.1 that speaks the same contract as the public source
(Mind-Sports-Games/lila: ``app/controllers/PlayApi.scala``, ``modules/bot``'s
``BotJsonView``, ``BotPlayer`` and game-state stream; strategygames for the moves) as far
as the board uses it:

* paths: ``/api/account``, ``/api/stream/event``, ``/api/board/seek``,
  ``/api/board/game/stream/{id}``, ``/api/board/game/{id}/move/{uci}``,
  ``/api/board/game/{id}/{abort|resign|draw/yes|draw/no|chat}``, ``/api/challenge/...``;
* a bearer token with the scope ``board:play`` (else 401 / 403 ``Missing scope``);
* NDJSON streams: ``gameFull`` first (``id``, ``variant``, ``clock``, ``speed``,
  ``rated``, ``p1``/``p2`` with ``id``, ``name``, ``rating``, ``initialFen``, ``state``),
  then ``gameState`` (``moves``, ``wtime``/``btime`` = p1's/p2's ms, ``winc``/``binc``,
  ``wdraw``/``bdraw``, ``status``, ``winner``) and ``chatLine``; empty keep-alive lines;
* moves in the library's numbering, two digits a square, one jump a request; refusals
  as 400 ``{"error": ...}`` (``Not your turn, or game already over``, ``Invalid UCI``,
  the library's ``Piece on .. cannot move to ..``); 429 with no body when told to.

The far side's person is the test: :meth:`Server.play` and its neighbours act as the
opponent's own requests would. Nothing here sleeps to pass time: streams wait on a
condition, woken by every change.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from crownhead.firmware.online.notation import NotationError, moves_from_server, parse_uci, to_server
from crownhead.rules import WCDF, Game

__all__ = ["Server", "ServerGame"]

PLAYING = ("created", "started")


@dataclass
class ServerGame:
    id: str
    p1: str
    p2: str
    initial_ms: int = 10 * 60_000
    increment_ms: int = 5_000
    ucis: list[str] = field(default_factory=list)
    status: str = "started"
    winner: str | None = None
    draw: dict[str, bool] = field(default_factory=lambda: {"p1": False, "p2": False})
    times: dict[str, int] = field(default_factory=dict)
    chat: list[dict[str, Any]] = field(default_factory=list)
    #: Every object its streams sent after ``gameFull``, in order.
    log: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.times = {"p1": self.initial_ms, "p2": self.initial_ms}

    def player(self, user: str) -> str | None:
        return "p1" if user == self.p1 else "p2" if user == self.p2 else None

    def turn(self) -> str:
        """Whose turn it is on the server (a capture half sent stays its player's)."""
        game = Game(None, WCDF)
        done, pending = _replay(self.ucis)
        for m in done:
            game.play(m)
        if pending:
            return "p1" if game.turn.name == "BLACK" else "p2"
        return "p1" if game.turn.name == "BLACK" else "p2"

    def state(self) -> dict[str, Any]:
        s: dict[str, Any] = {
            "type": "gameState",
            "moves": " ".join(self.ucis),
            "wtime": self.times["p1"],
            "btime": self.times["p2"],
            "winc": self.increment_ms,
            "binc": self.increment_ms,
            "wdraw": self.draw["p1"],
            "bdraw": self.draw["p2"],
            "status": self.status,
        }
        if self.winner is not None:
            s["winner"] = self.winner
        return s

    def full(self, users: dict[str, tuple[str, int]]) -> dict[str, Any]:
        def player(uid: str) -> dict[str, Any]:
            name, rating = users[uid]
            return {"id": uid, "name": name, "rating": rating, "provisional": False}

        return {
            "type": "gameFull",
            "id": self.id,
            "variant": {"key": "english", "name": "English", "short": "English"},
            "clock": {"initial": self.initial_ms, "increment": self.increment_ms},
            "speed": "rapid",
            "perf": {"name": "English"},
            "rated": False,
            "createdAt": 1_700_000_000_000,
            "p1": player(self.p1),
            "p2": player(self.p2),
            "initialFen": "startpos",
            "state": self.state(),
        }


def _replay(ucis: list[str]) -> tuple[list[Any], bool]:
    """The whole moves of ``ucis`` and whether a capture is half sent."""
    try:
        return moves_from_server(ucis, WCDF), False
    except NotationError as exc:
        if "not finished" in str(exc):
            return moves_from_server(_whole_prefix(ucis), WCDF), True
        raise


def _whole_prefix(ucis: list[str]) -> list[str]:
    for n in range(len(ucis) - 1, -1, -1):
        try:
            moves_from_server(ucis[:n], WCDF)
            return ucis[:n]
        except NotationError:
            continue
    return []


class Server:
    """The stand-in server (see the module); ``url`` once started. ``users``: id to
    (name, rating); ``tokens``: token to (user id, scopes)."""

    def __init__(self) -> None:
        self.users: dict[str, tuple[str, int]] = {"alice": ("Alice", 1500), "bob": ("Bob", 1620)}
        self.tokens: dict[str, tuple[str, str]] = {
            "lip_alicetoken123": ("alice", "board:play"),
            "lip_bobtoken12345": ("bob", "board:play"),
            "lip_readonly12345": ("alice", "preference:read"),
        }
        self.games: dict[str, ServerGame] = {}
        self.cond = threading.Condition()
        self.events: dict[str, list[dict[str, Any]]] = {u: [] for u in self.users}
        self.requests: list[tuple[str, str, str]] = []  # (method, path, user)
        self.limit = 0  # the next requests answered 429
        self.refuse_next: str | None = None  # the next move refused with these words
        #: Moves refused with these words, by their UCI, once each (a jump of a capture
        #: refused after the server took the jumps before it).
        self.refuse_uci: dict[str, str] = {}
        self.keepalive_s = 0.2
        self._streams: list[socket.socket] = []
        self._ids = itertools.count(1)
        #: Who waits in the seek pool (another person's seek the board's pairs with).
        self.seeking: str | None = "bob"
        self.next_p1: str | None = None  # who gets p1 in the next game (None: the seeker)
        self.challenges: dict[str, dict[str, Any]] = {}
        #: Seeks given up by the client (the connection closed while waiting).
        self.seeks_cancelled = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                server._handle(self, "GET")

            def do_POST(self) -> None:
                server._handle(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.drop_streams()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- the test's hands on the server (the opponent, the operator) -------------------

    def new_game(self, p1: str, p2: str, **options: Any) -> ServerGame:
        with self.cond:
            gid = f"g{next(self._ids):07d}"
            game = self.games[gid] = ServerGame(gid, p1, p2, **options)
            for user in (p1, p2):
                self.events.setdefault(user, []).append(
                    {"type": "gameStart", "game": {"id": gid, "gameId": gid, "color": "p1" if user == p1 else "p2"}}
                )
            self.cond.notify_all()
            return game

    def play(self, gid: str, user: str, pdn: str) -> None:
        """``user`` plays the PDN move ``pdn`` (a multi-jump jump by jump), as its board
        or browser would."""
        game = self.games[gid]
        played = Game(None, WCDF)
        for m in _replay(game.ucis)[0]:
            played.play(m)
        for uci in to_server(next(m for m in played.legal_moves() if m.pdn(full=True) == pdn or str(m) == pdn)):
            error = self._move(game, user, uci)
            assert error is None, error

    def offer_draw(self, gid: str, user: str) -> None:
        self._command(self.games[gid], user, ["draw", "yes"])

    def resign(self, gid: str, user: str) -> None:
        self._command(self.games[gid], user, ["resign"])

    def say(self, gid: str, user: str, text: str) -> None:
        self._chat(self.games[gid], user, text)

    def flag(self, gid: str, player: str) -> None:
        """``player``'s time runs out on the server."""
        with self.cond:
            game = self.games[gid]
            game.times[player] = 0
            game.status, game.winner = "outoftime", "p2" if player == "p1" else "p1"
            self._changed(game, game.state())

    def drop_streams(self) -> None:
        """Every open stream cut, as a lost connection does."""
        with self.cond:
            streams, self._streams = self._streams, []
        for s in streams:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- the contract -------------------------------------------------------------------

    def _changed(self, game: ServerGame, obj: dict[str, Any]) -> None:
        game.log.append(obj)
        self.cond.notify_all()

    def _move(self, game: ServerGame, user: str, uci: str) -> str | None:
        with self.cond:
            player = game.player(user)
            if player is None:
                return "Not your game"
            if not uci.isdigit() or len(uci) < 4 or len(uci) % 2:
                return f"Invalid UCI: {uci}"
            if game.status not in PLAYING or game.turn() != player:
                return "Not your turn, or game already over"
            if self.refuse_next is not None:
                words, self.refuse_next = self.refuse_next, None
                return words
            if uci in self.refuse_uci:
                return self.refuse_uci.pop(uci)
            try:
                parse_uci(uci)
                before = len(_replay(game.ucis)[0])
                _replay(game.ucis + [uci])
            except (NotationError, ValueError):
                return f"Piece on {uci[:2]} cannot move to {uci[-2:]}"
            game.ucis.append(uci)
            game.draw = {"p1": False, "p2": False} if len(_replay(game.ucis)[0]) > before else game.draw
            moves, pending = _replay(game.ucis)
            if not pending:
                played = Game(None, WCDF)
                for m in moves:
                    played.play(m)
                if not played.legal_moves():
                    game.status, game.winner = "mate", player
            self._changed(game, game.state())
            return None

    def _command(self, game: ServerGame, user: str, parts: list[str]) -> str | None:
        with self.cond:
            player = game.player(user)
            if player is None:
                return "Not your game"
            if game.status not in PLAYING:
                return "This game cannot be resigned"
            if parts == ["resign"]:
                game.status, game.winner = "resign", "p2" if player == "p1" else "p1"
            elif parts == ["abort"]:
                if len(game.ucis) > 1:
                    return "This game can no longer be aborted"
                game.status = "aborted"
            elif parts[0] == "draw":
                yes = parts[1] in ("yes", "true", "1")
                other = "p2" if player == "p1" else "p1"
                if yes and game.draw[other]:
                    game.status, game.draw = "draw", {"p1": False, "p2": False}
                elif yes:
                    game.draw[player] = True
                else:
                    game.draw[other] = False
            else:
                return "No such command"
            self._changed(game, game.state())
            return None

    def _chat(self, game: ServerGame, user: str, text: str) -> None:
        with self.cond:
            line = {"type": "chatLine", "room": "player", "username": self.users[user][0], "text": text}
            game.chat.append(line)
            self._changed(game, line)

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        url = urllib.parse.urlsplit(h.path)
        parts = [p for p in url.path.split("/") if p]
        auth = h.headers.get("Authorization", "")
        user_scopes = self.tokens.get(auth.removeprefix("Bearer ")) if auth.startswith("Bearer ") else None
        self.requests.append((method, url.path, user_scopes[0] if user_scopes else ""))
        length = int(h.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(h.rfile.read(length).decode())) if length else {}
        if self.limit > 0:
            self.limit -= 1
            return self._reply(h, 429, None)
        if user_scopes is None:
            return self._reply(h, 401, {"error": "No such token"})
        user, scopes = user_scopes
        if parts == ["api", "account"] and method == "GET":
            name, rating = self.users[user]
            return self._reply(h, 200, {"id": user, "username": name, "perfs": {"english": {"rating": rating}}})
        if parts == ["api", "account", "playing"] and method == "GET":
            with self.cond:
                now = [
                    {"gameId": g.id, "fullId": g.id + "xxxx", "color": g.player(user)}
                    for g in self.games.values()
                    if g.player(user) is not None and g.status in PLAYING
                ]
            return self._reply(h, 200, {"nowPlaying": now})
        if "board:play" not in scopes.split(","):
            return self._reply(h, 403, {"error": "Missing scope"})
        if parts == ["api", "stream", "event"] and method == "GET":
            return self._events(h, user)
        if parts == ["api", "board", "seek"] and method == "POST":
            return self._seek(h, user, form)
        if len(parts) == 3 and parts[:2] == ["api", "challenge"] and method == "POST":
            dest = parts[2].lower()
            if dest not in self.users:
                return self._reply(h, 404, {"error": "No such user"})
            return self._reply(h, 200, {"challenge": self.challenge(user, dest, form)})
        if len(parts) == 4 and parts[:2] == ["api", "challenge"] and parts[3] in ("accept", "decline"):
            error = self._answer(user, parts[2], parts[3])
            if error is not None:
                return self._reply(h, 404, {"error": error})
            return self._reply(h, 200, {"ok": True})
        if len(parts) == 5 and parts[:4] == ["api", "board", "game", "stream"] and method == "GET":
            return self._game_stream(h, user, parts[4])
        return self._board_command(h, method, parts, user, form)

    def challenge(self, user: str, dest: str, form: dict[str, str]) -> dict[str, Any]:
        """``user`` challenges ``dest`` (the challenge's form fields): on ``dest``'s event
        stream; the challenge."""
        name, rating = self.users[user]
        limit, inc = int(form.get("clock.limit", "600")), int(form.get("clock.increment", "0"))
        challenge = {
            "id": f"c{next(self._ids):07d}",
            "status": "created",
            "challenger": {"id": user, "name": name, "rating": rating},
            "destUser": {"id": dest, "name": self.users[dest][0], "rating": self.users[dest][1]},
            "variant": {"key": form.get("variant", "english")},
            "rated": form.get("rated") == "true",
            "timeControl": {"type": "clock", "limit": limit, "increment": inc, "show": f"{limit // 60}+{inc}"},
        }
        with self.cond:
            self.challenges[challenge["id"]] = challenge
            self.events[dest].append({"type": "challenge", "challenge": challenge})
            self.cond.notify_all()
        return challenge

    def _answer(self, user: str, cid: str, answer: str) -> str | None:
        """``user`` accepts or declines challenge ``cid``: a game starts (the challenger
        p1), or the challenger hears it declined."""
        with self.cond:
            challenge = self.challenges.get(cid)
            if challenge is None or challenge["destUser"]["id"] != user or challenge["status"] != "created":
                return "No such challenge"
            challenge["status"] = "accepted" if answer == "accept" else "declined"
            challenger = challenge["challenger"]["id"]
            if answer == "decline":
                self.events[challenger].append({"type": "challengeDeclined", "challenge": challenge})
                self.cond.notify_all()
                return None
        tc = challenge["timeControl"]
        self.new_game(challenger, user, initial_ms=tc["limit"] * 1000, increment_ms=tc["increment"] * 1000)
        return None

    def _board_command(
        self, h: BaseHTTPRequestHandler, method: str, parts: list[str], user: str, form: dict[str, str]
    ) -> None:
        if len(parts) >= 5 and parts[:3] == ["api", "board", "game"] and method == "POST":
            game = self.games.get(parts[3])
            if game is None:
                return self._reply(h, 404, {"error": "No such game"})
            if game.player(user) is None:
                return self._reply(h, 404, {"error": "Not your game"})
            if parts[4] == "move" and len(parts) == 6:
                error = self._move(game, user, parts[5])
            elif parts[4] == "chat":
                self._chat(game, user, form.get("text", ""))
                error = None
            else:
                error = self._command(game, user, parts[4:])
            if error is not None:
                return self._reply(h, 400, {"error": error})
            return self._reply(h, 200, {"ok": True})
        return self._reply(h, 404, {"error": "Not found"})

    def _reply(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any] | None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _stream_head(self, h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/x-ndjson")
        h.end_headers()
        with self.cond:
            self._streams.append(h.connection)

    def _send(self, h: BaseHTTPRequestHandler, obj: dict[str, Any] | None) -> bool:
        try:
            h.wfile.write((json.dumps(obj) if obj is not None else "").encode() + b"\n")
            h.wfile.flush()
            return True
        except OSError:
            return False

    def _events(self, h: BaseHTTPRequestHandler, user: str) -> None:
        self._stream_head(h)
        seen = 0
        while True:
            with self.cond:
                self.cond.wait_for(lambda: len(self.events[user]) > seen, timeout=self.keepalive_s)
                new = self.events[user][seen:]
                seen += len(new)
            for obj in new or [None]:
                if not self._send(h, obj):
                    return

    def _seek(self, h: BaseHTTPRequestHandler, user: str, form: dict[str, str]) -> None:
        try:
            minutes, inc = int(form.get("time", "")), int(form.get("increment", ""))
        except ValueError:
            return self._reply(h, 400, {"error": {"time": ["This field is required"]}})
        if form.get("variant", "standard") not in ("english", "pool", "russian", "brazilian", "portuguese"):
            return self._reply(h, 400, {"error": "This variant cannot be played here"})
        if minutes * 60 + 40 * inc < 8 * 60:
            return self._reply(h, 400, {"error": "Invalid time control: the Board API plays rapid or slower"})
        self._stream_head(h)
        while True:
            # Nobody else seeks yet: the seek waits, kept alive, until someone does or the
            # client gives it up (closes the connection).
            with self.cond:
                self.cond.wait_for(lambda: self.seeking is not None, timeout=self.keepalive_s)
                other = self.seeking
            if other is not None:
                break
            if not self._send(h, None):
                with self.cond:
                    self.seeks_cancelled += 1
                return None
        p1 = self.next_p1 or user
        self.new_game(p1, other if p1 == user else user, initial_ms=minutes * 60_000, increment_ms=inc * 1000)

    def _game_stream(self, h: BaseHTTPRequestHandler, user: str, gid: str) -> None:
        game = self.games.get(gid)
        if game is None:
            return self._reply(h, 404, {"error": "No such game"})
        if game.player(user) is None:
            return self._reply(h, 404, {"error": "Not your game"})
        self._stream_head(h)
        with self.cond:
            full = game.full(self.users)
            seen = len(game.log)
        if not self._send(h, full):
            return
        while game.status in PLAYING or seen < len(game.log):
            with self.cond:
                self.cond.wait_for(lambda: len(game.log) > seen, timeout=self.keepalive_s)
                new = game.log[seen:]
                seen += len(new)
            for obj in new or [None]:
                if not self._send(h, obj):
                    return
