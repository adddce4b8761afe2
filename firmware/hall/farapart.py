"""Games far apart watched in the hall: two boards' game through the broker, for spectators.

Two boards in two homes play under ``crownhead/remote/CODE/BOARD/`` (docs/remote.md); a
hall on the same broker (its account reads the public games, ``crownhead/remote/#``)
hears their ``lines`` and ``invite`` topics, and :class:`FarGames` follows each game from them: its names and
rules (the invitation), each board's side (its ``hello``), the moves, takebacks and the
result. A board's own side's moves are taken from that board's stream only (each stream
comes in order; the other board's echo of them may come earlier or later), so the moves
shown are the ones their players made. Nothing here answers or writes anything.

>>> import json
>>> far = FarGames()
>>> far.receive("k7qm2x", "home-a", "invite", b'{"v": 1, "code": "k7qm2x", "host": "home-a", "host_plays": "black", "black": "Ann"}')
>>> line = '{"t": 5, "event": "move", "ply": 1, "side": "black", "move": "11-15"}'
>>> far.receive("k7qm2x", "home-a", "lines", json.dumps({"s": "a", "n": 1, "line": line}).encode())
>>> [(g["code"], g["black"], g["moves"], g["fen"][:2]) for g in far.games()]
[('k7qm2x', 'Ann', ['11-15'], 'W:')]
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from crownhead.firmware.files import parse_json
from crownhead.firmware.hall.topics import check_name
from crownhead.rules import Game, Position, Rules

__all__ = ["FarGames", "MAX_GAMES", "REMOTE"]

#: The topics' level after ``crownhead/`` of the games far apart (docs/remote.md).
REMOTE = "remote"
#: Games followed at once (the least recently heard goes first).
MAX_GAMES = 32
#: Plies kept of one game.
MAX_PLIES = 1000
#: The largest message read (a line and its numbers, an invitation).
MAX_MESSAGE = 8192
_CODE = re.compile(r"[23456789a-hjkmnp-z]{6}")
_MOVE = re.compile(r"[0-9]{1,2}([-x][0-9]{1,2}){1,12}")
_NAME_CHARS = 40


def _name(value: object) -> str | None:
    return value[:_NAME_CHARS] if isinstance(value, str) and value.isprintable() else None


@dataclass
class FarGame:
    """What the hall knows of one game far apart."""

    code: str
    black: str | None = None
    white: str | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    plays: dict[str, str] = field(default_factory=dict)  # board -> its side
    start: str | None = None
    moves: dict[int, str] = field(default_factory=dict)
    result: str | None = None
    reason: str | None = None

    _fen_cache: tuple[Any, str | None] | None = None

    def view(self) -> dict[str, Any]:
        moves: list[str] = []
        while len(moves) + 1 in self.moves:
            moves.append(self.moves[len(moves) + 1])
        return {
            "code": self.code,
            "black": self.black,
            "white": self.white,
            "boards": dict(sorted(self.plays.items())),
            "moves": moves,
            "fen": self._fen(moves),
            "result": self.result,
            "reason": self.reason,
        }

    def side_of(self, ply: int) -> str:
        """The side that made move ``ply`` (Black begins unless the start says White)."""
        first = "white" if (self.start or "B").startswith("W") else "black"
        return first if ply % 2 == 1 else ("black" if first == "white" else "white")

    def _fen(self, moves: list[str]) -> str | None:
        """The position after ``moves`` (None when they do not follow from the start);
        worked out once for each new move."""
        key = (self.start, tuple(moves), tuple(sorted(self.rules.items())) if self.rules else ())
        if self._fen_cache is not None and self._fen_cache[0] == key:
            return self._fen_cache[1]
        fen: str | None = None
        try:
            rules = Rules.from_options(self.rules) if self.rules else Rules()
            game = Game(Position.from_fen(self.start) if self.start else Position.start(rules), rules)
            for text in moves:
                game.play_text(text)
            fen = game.position.fen()
        except (ValueError, TypeError):
            fen = None
        self._fen_cache = (key, fen)
        return fen


class FarGames:
    """The games far apart a hall hears (thread-safe: the MQTT thread writes, pages read)."""

    def __init__(self) -> None:
        self._games: OrderedDict[str, FarGame] = OrderedDict()
        self._lock = threading.Lock()
        #: Messages that were not a game's (counted, ignored).
        self.rejected = 0

    def receive(self, code: str, board: str, kind: str, payload: bytes) -> None:
        """One message of ``board`` on game ``code``'s ``kind`` topic; the malformed is ignored."""
        try:
            if not _CODE.fullmatch(code) or kind not in ("lines", "invite") or len(payload) > MAX_MESSAGE:
                raise ValueError(kind)
            check_name(board, "board")
            data = parse_json(payload)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            with self._lock:
                game = self._games.pop(code, None) or FarGame(code)
                self._games[code] = game
                while len(self._games) > MAX_GAMES:
                    self._games.popitem(last=False)
                if kind == "invite":
                    self._invite(game, board, data)
                else:
                    line = data.get("line")
                    event = parse_json(line) if isinstance(line, str) else None
                    if isinstance(event, dict):
                        self._line(game, board, event)
        except ValueError:
            self.rejected += 1

    def _invite(self, game: FarGame, board: str, data: dict[str, Any]) -> None:
        if data.get("host") == board and data.get("host_plays") in ("black", "white"):
            game.black, game.white = _name(data.get("black")), _name(data.get("white"))
            rules = data.get("rules")
            if isinstance(rules, dict):
                game.rules = rules
            game.plays.setdefault(board, data["host_plays"])
        elif data.get("accept") == game.code and data.get("board") == board and len(game.plays) < 2:
            host = next(iter(game.plays.values()), None)
            if host is not None:
                game.plays.setdefault(board, "white" if host == "black" else "black")

    def _line(self, game: FarGame, board: str, event: dict[str, Any]) -> None:
        kind = event.get("event")
        state = event.get("state") if kind == "hello" else event if kind == "state" else None
        if (
            kind == "hello"
            and event.get("plays") in ("black", "white")
            and (board in game.plays or len(game.plays) < 2)
        ):
            game.plays[board] = event["plays"]
        if isinstance(state, dict):
            start = state.get("start")
            if isinstance(start, str) and len(start) <= 200 and (state.get("ply") == 0 or game.start is None):
                if game.start != start or state.get("cause") == "new-game":
                    game.moves.clear()
                    game.result = game.reason = None
                game.start = start
            return
        if kind == "new-game":
            game.moves.clear()
            game.result = game.reason = None
            fen = event.get("fen")
            game.start = fen if isinstance(fen, str) and len(fen) <= 200 else game.start
            return
        mine = game.plays.get(board)
        if kind == "move":
            ply, text, side = event.get("ply"), event.get("move"), event.get("side")
            if type(ply) is int and 1 <= ply <= MAX_PLIES and isinstance(text, str) and _MOVE.fullmatch(text):
                if mine is None or side == mine:
                    game.moves[ply] = text
        elif kind == "takeback":
            ply = event.get("ply")
            # Both boards take a move back; the mover's board says so in order with its moves.
            if type(ply) is int and 1 <= ply <= MAX_PLIES and (mine is None or game.side_of(ply) == mine):
                for p in [p for p in game.moves if p >= ply]:
                    del game.moves[p]
                game.result = game.reason = None
        elif kind == "game-over":
            result, reason = event.get("result"), event.get("reason")
            if result in ("1-0", "0-1", "1/2-1/2") and isinstance(reason, str) and len(reason) <= 32:
                game.result, game.reason = result, reason

    def games(self) -> list[dict[str, Any]]:
        """Every game followed, the most recently heard first, as the page shows it."""
        with self._lock:
            games = list(reversed(self._games.values()))
            return [g.view() for g in games]
