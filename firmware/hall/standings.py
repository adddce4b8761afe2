"""Standings and crosstable across rounds: every finished game the hall has seen, kept.

The hall records a game when a board's retained state reports it finished (a result of
``1-0``, ``0-1`` or ``1/2-1/2`` with both players named). A game is identified on its
board by the ``game_id`` the board reports (the referee's name of the game), else by
what it is: event, round, names and moves, so that a state sent again (a reconnect, a
retained message) never counts twice and a result the arbiter corrects replaces the old
one. Players are identified by their names as the boards report them, with runs of
spaces made one and the ends trimmed; the case counts (``Ann`` and ``ann`` are two
players); ``?`` and empty names are no player, and such games are not counted.

The score is the project's counted match score (:mod:`crownhead.rules.match` with draws counted,
the 1923 Standard Laws): a win 1 point, a draw ½, a loss 0, kept in half-points (a win
2, a draw 1) so that they stay whole numbers. Ties are broken by the Sonneborn-Berger
score (the points of every opponent beaten, and half the points of every opponent drawn
with), then by more wins; players equal on all three share the rank and are listed by
name.

>>> s = Standings("club")
>>> for board, rnd, black, white, result in [("t1", "1", "Ann", "Bob", "1-0"), ("t2", "1", "Cid", "Dee", "1/2-1/2"),
...                                          ("t1", "2", "Cid", "Ann", "0-1"), ("t2", "2", "Bob", "Dee", "0-1")]:
...     _ = s.record(board, {"round": rnd, "black": black, "white": white, "result": result, "moves": [rnd]})
>>> [(p["rank"], p["name"], p["points_text"], p["wdl"]) for p in s.table()["players"]]
[(1, 'Ann', '2', '2-0-0'), (2, 'Dee', '1½', '1-1-0'), (3, 'Cid', '½', '0-1-1'), (4, 'Bob', '0', '0-0-2')]
>>> row = s.table()["crosstable"][0]  # Ann's: each opponent met, by place (Cid 2, Bob 3)
>>> [(met["opponent"], [(g["round"], g["colour"], g["score"]) for g in met["games"]]) for met in row]
[(2, [('2', 'white', '1')]), (3, [('1', 'black', '1')])]
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from crownhead.firmware.files import FileRefused, parse_json, printable, read_bytes
from crownhead.firmware.files import atomic_write, move_aside
from crownhead.rules.game import BLACK_WINS, DRAW, WHITE_WINS
from crownhead.rules.match import MAX_NAME, points_text

__all__ = ["HallGame", "Standings", "MAX_GAMES", "FORMAT_VERSION", "standings_file", "spreadsheet_cell"]

log = logging.getLogger(__name__)

#: The most games one hall keeps (200 boards, 25 rounds, a pair of games a round): a
#: bound on memory and on the file; more are refused with a logged error.
MAX_GAMES = 10_000
#: The file's cap when it is read back (a game is about 200 bytes).
MAX_BYTES = 16 * 1024 * 1024
#: Results not counted that the hall shows at most (the oldest go first).
MAX_DISPUTED = 200
FORMAT_VERSION = 1
_RESULTS = (BLACK_WINS, WHITE_WINS, DRAW)
_UNNAMED = frozenset({"", "?", "-"})
_NUMBERED = re.compile(r"\d{1,9}(?:\.\d{1,9}){0,3}")


def standings_file(state_dir: str | os.PathLike[str], hall: str) -> Path:
    """Where the hall called ``hall`` keeps its games in ``state_dir``."""
    return Path(state_dir) / f"hall-{hall}-standings.json"


@dataclass(frozen=True, slots=True)
class HallGame:
    """One finished game as the hall counts it."""

    board: str
    key: str
    event: str
    round: str
    black: str
    white: str
    result: str
    reason: str = ""
    plies: int = 0

    def score_of(self, name: str) -> int:
        """Half-points ``name`` took from this game (2 a win, 1 a draw, 0 a loss)."""
        if self.result == DRAW:
            return 1
        winner = self.black if self.result == BLACK_WINS else self.white
        return 2 if name == winner else 0


def player_name(value: object) -> str | None:
    """The name as the hall counts a player, or None (no name, a placeholder, too long).

    >>> player_name("  Ann   Lee "), player_name("?"), player_name(""), player_name(7)
    ('Ann Lee', None, None, None)
    """
    if not isinstance(value, str):
        return None
    name = " ".join(value.split())
    if name in _UNNAMED or len(name) > MAX_NAME or not printable(name):
        return None
    return name


def _label(value: object, limit: int) -> str:
    """An event or round as reported, ``?`` when there is none."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return "?"
    text = " ".join(str(value).split())
    if not text or len(text) > limit or not printable(text):
        return "?"
    return text


def round_order(label: str) -> tuple[int, tuple[int, ...], str]:
    """Rounds in playing order: numbered ones by number (``2`` before ``10``), then the others.

    >>> sorted(["10", "2", "?", "1.2", "final"], key=round_order)
    ['1.2', '2', '10', '?', 'final']
    """
    if _NUMBERED.fullmatch(label):
        return (0, tuple(int(p) for p in label.split(".")), label)
    return (1, (), label)


def _score_text(halves: int) -> str:
    return {2: "1", 1: "½", 0: "0"}[halves]


#: A game's score as the CSV writes it: a number, not the page's ``½``.
_CSV_SCORES = {"1": "1", "½": "0.5", "0": "0"}


class Standings:
    """The finished games of one hall, their standings and crosstable; kept in ``path``.

    Thread-safe: fed by the hall's listener, read by its page. ``path`` None keeps them in
    memory only. The file is written by a thread of its own (atomically, the newest games
    each time), so the listener never waits for the disk; :meth:`flush` waits for it and
    :meth:`close` writes what is left. A file that cannot be read is set aside (renamed
    ``*.bad``) with one logged error, and the hall starts with no games.
    """

    def __init__(self, hall: str, path: str | os.PathLike[str] | None = None) -> None:
        self.hall = hall
        self.path = Path(path) if path is not None else None
        self._games: dict[tuple[str, str], HallGame] = {}
        #: The games the hall saw begin, by board: their id, round and start (kept in the
        #: file, so that a hall started again knows the games in progress it saw begin).
        self._started: dict[str, dict[str, str | None]] = {}
        #: Results the hall did not count, for the arbiter: by (board, game), the newest last.
        self._disputed: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.version = 0
        self.refused = 0
        self._cache: tuple[int, dict[str, Any], bytes] | None = None
        self._full_logged = False
        self._save_error: str | None = None
        self._written = threading.Condition()
        #: Changes to what the file holds (the games and the starts seen; a dispute moves
        #: the table's version but is not kept in the file), and how many are written.
        self._saved = 0
        self._written_saved = 0
        self._writer: threading.Thread | None = None
        self._closed = False
        if self.path is not None:
            self._load(self.path)

    # -- recording -------------------------------------------------------------------------

    def record(self, board: str, state: Mapping[str, Any]) -> bool:
        """Count the game of ``board``'s ``state`` if it is finished; True when that changed
        the standings (a new game, or a result corrected). The writer saves it next."""
        game = self._game_of(board, state)
        if game is None:
            return False
        with self._lock:
            where = (board, game.key)
            if self._games.get(where) == game:
                return False
            if where not in self._games and len(self._games) >= MAX_GAMES:
                self.refused += 1
                if not self._full_logged:
                    self._full_logged = True
                    log.error(
                        "hall %s: %d games kept already; later games are not counted in the standings",
                        self.hall,
                        MAX_GAMES,
                    )
                return False
            self._games[where] = game
            self._disputed.pop(where, None)
            self.version += 1
            self._saved += 1
        self._wake()
        return True

    def game_of(self, board: str, state: Mapping[str, Any]) -> HallGame | None:
        """The game ``state`` reports finished on ``board``, as it would be counted (None:
        unfinished, or a player without a name)."""
        return self._game_of(board, state)

    def counted(self, game: HallGame) -> bool:
        """Whether ``game`` is counted already, as it is (a state sent again, a hall started again)."""
        with self._lock:
            return self._games.get((game.board, game.key)) == game

    def same_pairing(self, game: HallGame) -> HallGame | None:
        """Another game counted on ``game``'s board in its round with the same players in
        the same colours (a pairing plays each colour once a round)."""
        with self._lock:
            for other in self._games.values():
                if (other.board, other.round, other.black, other.white) == (
                    game.board,
                    game.round,
                    game.black,
                    game.white,
                ) and other.key != game.key:
                    return other
        return None

    def dispute(self, board: str, key: str, entry: Mapping[str, Any]) -> bool:
        """Show a result not counted (``entry``: what the board reported and why it is not
        counted); a game counted before under that key is taken out. True when that
        changed anything."""
        where = (board, key)
        entry = dict(entry)
        with self._lock:
            withdrawn = self._games.pop(where, None) is not None
            if self._disputed.get(where) == entry and not withdrawn:
                return False
            self._disputed.pop(where, None)
            self._disputed[where] = entry
            while len(self._disputed) > MAX_DISPUTED:
                del self._disputed[next(iter(self._disputed))]
            self.version += 1
            if withdrawn:
                self._saved += 1
        if withdrawn:
            self._wake()
        return True

    def disputed(self) -> list[dict[str, Any]]:
        """The results not counted, the oldest first (at most :data:`MAX_DISPUTED`)."""
        with self._lock:
            return [dict(e) for e in self._disputed.values()]

    def note_start(self, board: str, game_id: str, round_: str | None, start: str | None) -> None:
        """Keep that the hall saw ``board``'s game ``game_id`` begin in ``round_`` (from
        ``start``, a FEN), so that a hall started again still knows it."""
        mark = {"game_id": game_id, "round": round_, "start": start}
        with self._lock:
            if self._started.get(board) == mark:
                return
            self._started[board] = mark
            self.version += 1
            self._saved += 1
        self._wake()

    def started(self, board: str) -> dict[str, str | None] | None:
        """What :meth:`note_start` kept for ``board`` (None: nothing)."""
        with self._lock:
            mark = self._started.get(board)
            return dict(mark) if mark is not None else None

    @staticmethod
    def _game_of(board: str, state: Mapping[str, Any]) -> HallGame | None:
        result = state.get("result")
        if result not in _RESULTS:
            return None
        black, white = player_name(state.get("black")), player_name(state.get("white"))
        if black is None or white is None or black == white:
            return None
        event = _label(state.get("event"), 80)
        rnd = _label(state.get("round"), 20)
        moves = state.get("moves")
        moves = [m for m in moves if isinstance(m, str)] if isinstance(moves, list) else []
        ply = state.get("ply")
        plies = ply if isinstance(ply, int) and not isinstance(ply, bool) and 0 <= ply <= 10_000 else len(moves)
        game_id = state.get("game_id")
        if isinstance(game_id, str) and 0 < len(game_id) <= 100 and printable(game_id):
            key = "id:" + game_id
        else:
            # No name for the game: what it is names it (a state sent again is the same game).
            what = json.dumps([event, rnd, black, white, moves[:2000]], ensure_ascii=False)
            key = "sha1:" + hashlib.sha1(what.encode()).hexdigest()
        reason = state.get("reason")
        reason = reason[:80] if isinstance(reason, str) and printable(reason) else ""
        return HallGame(board, key, event, rnd, black, white, str(result), reason, plies)

    def games(self) -> list[HallGame]:
        """Every game counted, in the order first seen."""
        with self._lock:
            return list(self._games.values())

    # -- the table -------------------------------------------------------------------------

    def table(self) -> dict[str, Any]:
        """The standings and the crosstable (what ``/api/standings`` returns)."""
        return self._cached()[0]

    def json_snapshot(self) -> tuple[int, bytes]:
        """The version of the standings and :meth:`table` of that version as JSON, made once
        for each change however many pages ask."""
        table, encoded = self._cached()
        return int(table["version"]), encoded

    def _cached(self) -> tuple[dict[str, Any], bytes]:
        with self._lock:
            if self._cache is not None and self._cache[0] == self.version:
                return self._cache[1], self._cache[2]
            version, games = self.version, list(self._games.values())
            disputed = [dict(e) for e in self._disputed.values()]
        table = self._table(games, version)
        table["disputed"] = disputed
        encoded = json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode()
        with self._lock:
            if self._cache is None or self._cache[0] < version:
                self._cache = (version, table, encoded)
        return table, encoded

    def _table(self, games: list[HallGame], version: int) -> dict[str, Any]:
        halves: dict[str, int] = {}
        wdl: dict[str, list[int]] = {}
        for g in games:
            for name in (g.black, g.white):
                got = g.score_of(name)
                halves[name] = halves.get(name, 0) + got
                counts = wdl.setdefault(name, [0, 0, 0])
                counts[{2: 0, 1: 1, 0: 2}[got]] += 1
        # Sonneborn-Berger in quarter points: a win adds the opponent's half-points
        # twice, a draw once.
        sb: dict[str, int] = {name: 0 for name in halves}
        for g in games:
            for name, other in ((g.black, g.white), (g.white, g.black)):
                sb[name] += g.score_of(name) * halves[other]
        order = sorted(halves, key=lambda n: (-halves[n], -sb[n], -wdl[n][0], n.casefold(), n))
        index = {name: i for i, name in enumerate(order)}
        players = []
        rank = 0
        previous: tuple[int, int, int] | None = None
        for i, name in enumerate(order):
            standing = (halves[name], sb[name], wdl[name][0])
            if standing != previous:
                rank, previous = i + 1, standing
            w, d, l = wdl[name]
            players.append(
                {
                    "rank": rank,
                    "name": name,
                    "points": halves[name] / 2,
                    "points_text": points_text(halves[name]),
                    "games": w + d + l,
                    "wins": w,
                    "draws": d,
                    "losses": l,
                    "wdl": f"{w}-{d}-{l}",
                    "sonneborn_berger": sb[name] / 4,
                }
            )
        rounds = sorted({g.round for g in games}, key=round_order)
        place = {r: i for i, r in enumerate(rounds)}
        # Sparse: a row lists only the opponents met (a Swiss event of 400 players would
        # otherwise send 160,000 cells, almost all empty).
        cells: list[dict[int, list[dict[str, str]]]] = [{} for _ in order]
        for seen, g in sorted(enumerate(games), key=lambda ig: (place[ig[1].round], ig[0])):
            for name, other, colour in ((g.black, g.white, "black"), (g.white, g.black, "white")):
                cells[index[name]].setdefault(index[other], []).append(
                    {
                        "round": g.round,
                        "board": g.board,
                        "colour": colour,
                        "score": _score_text(g.score_of(name)),
                        "result": g.result,
                    }
                )
        return {
            "hall": self.hall,
            "version": version,
            "scoring": {"win": 1, "draw": 0.5, "loss": 0},
            "tie_break": ["points", "sonneborn_berger", "wins", "name"],
            "rounds": rounds,
            "players": players,
            "crosstable": [[{"opponent": j, "games": row[j]} for j in sorted(row)] for row in cells],
            "games": [
                {
                    "board": g.board,
                    "event": g.event,
                    "round": g.round,
                    "black": g.black,
                    "white": g.white,
                    "result": g.result,
                    "reason": g.reason,
                    "plies": g.plies,
                }
                for g in sorted(games, key=lambda g: round_order(g.round))
            ],
        }

    def csv(self) -> str:
        """The standings with the crosstable: one row a player, one column an opponent (by their
        place in the standings), each game ``R<round> <B|W> <score>``. Points and scores are
        numbers a spreadsheet adds up: ``2.5``, ``0.5`` (the page writes ``2½``, ``½``)."""
        table = self.table()
        out = io.StringIO()
        writer = csv.writer(out)
        players = table["players"]
        writer.writerow(
            ["rank", "player", "points", "games", "wins", "draws", "losses", "sonneborn_berger"]
            + [str(i + 1) for i in range(len(players))]
        )
        for p, row in zip(players, table["crosstable"]):
            games = [""] * len(players)
            for met in row:
                games[met["opponent"]] = " ".join(
                    f"R{c['round']} {c['colour'][0].upper()} {_CSV_SCORES[c['score']]}" for c in met["games"]
                )
            writer.writerow(
                [
                    p["rank"],
                    _cell(p["name"]),
                    f"{p['points']:g}",
                    p["games"],
                    p["wins"],
                    p["draws"],
                    p["losses"],
                    f"{p['sonneborn_berger']:g}",
                ]
                + [_cell(g) for g in games]
            )
        return out.getvalue()

    # -- the file --------------------------------------------------------------------------

    def _wake(self) -> None:
        if self.path is None:
            return
        with self._written:
            if self._writer is None and not self._closed:
                self._writer = threading.Thread(target=self._write_loop, name="hall-standings", daemon=True)
                self._writer.start()
            self._written.notify_all()

    def _write_loop(self) -> None:
        while True:
            with self._written:
                while not self._closed and self._written_saved == self._saved:
                    self._written.wait()
                if self._written_saved == self._saved:
                    return  # closed, and everything written
            with self._lock:
                saved, games = self._saved, list(self._games.values())
                started = {board: dict(mark) for board, mark in self._started.items()}
            # Only the newest games are written: changes that came meanwhile go in together.
            self._save(games, started)
            with self._written:
                self._written_saved = saved
                self._written.notify_all()

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every game counted so far is in the file (True), at most ``timeout_s``."""
        if self.path is None:
            return True
        with self._written:
            return self._written.wait_for(lambda: self._written_saved == self._saved, timeout_s)

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is not written yet and stop the writer."""
        with self._written:
            self._closed = True
            self._written.notify_all()
            writer = self._writer
        if writer is not None:
            writer.join(timeout_s)

    def _save(self, games: Iterable[HallGame], started: Mapping[str, Mapping[str, str | None]] | None = None) -> None:
        if self.path is None:
            return
        text = json.dumps(
            {
                "format": FORMAT_VERSION,
                "hall": self.hall,
                "games": [asdict(g) for g in games],
                "started": dict(started or {}),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, text + "\n")
        except OSError as exc:
            problem = f"cannot save the standings to {self.path}: {exc.strerror or exc}"
            if problem != self._save_error:
                log.error("hall %s: %s (they are kept in memory; the next game tries again)", self.hall, problem)
            self._save_error = problem
        else:
            self._save_error = None

    def _load(self, path: Path) -> None:
        try:
            data = read_bytes(path, MAX_BYTES)
        except FileNotFoundError:
            return
        except (FileRefused, OSError) as exc:
            self._set_aside(path, str(exc).removeprefix(f"{path}: "))
            return
        try:
            games, started = self._parse(data)
        except ValueError as exc:
            self._set_aside(path, str(exc))
            return
        self._games = {(g.board, g.key): g for g in games}
        self._started = started
        self.version = 1 if games or started else 0

    def _parse(self, data: bytes) -> tuple[list[HallGame], dict[str, dict[str, str | None]]]:
        obj = parse_json(data)
        if not isinstance(obj, dict) or obj.get("format") != FORMAT_VERSION:
            raise ValueError(f"not a standings file of format {FORMAT_VERSION}")
        items = obj.get("games")
        if not isinstance(items, list):
            raise ValueError('no "games" list')
        if len(items) > MAX_GAMES:
            raise ValueError(f"{len(items)} games, more than {MAX_GAMES}")
        games = []
        fields = HallGame.__dataclass_fields__
        for n, item in enumerate(items, 1):
            if not isinstance(item, dict) or set(item) != set(fields):
                raise ValueError(f"game {n}: expected the keys {', '.join(fields)}")
            for key, value in item.items():
                want = int if key == "plies" else str
                if not isinstance(value, want) or isinstance(value, bool):
                    raise ValueError(f"game {n}: {key} must be a {want.__name__}")
            game = HallGame(**item)
            if game.result not in _RESULTS:
                raise ValueError(f"game {n}: result {game.result!r} is not 1-0, 0-1 or 1/2-1/2")
            if (
                player_name(game.black) != game.black
                or player_name(game.white) != game.white
                or game.black == game.white
            ):
                raise ValueError(f"game {n}: the players' names {game.black!r} and {game.white!r} are not two names")
            games.append(game)
        marks = obj.get("started", {})
        if not isinstance(marks, dict) or len(marks) > MAX_GAMES:
            raise ValueError('"started" is not a table of at most 10000 boards')
        started: dict[str, dict[str, str | None]] = {}
        for board, mark in marks.items():
            if not (
                isinstance(mark, dict)
                and set(mark) == {"game_id", "round", "start"}
                and isinstance(mark["game_id"], str)
                and all(v is None or (isinstance(v, str) and len(v) <= 200) for v in mark.values())
            ):
                raise ValueError(f"started game of {board!r}: expected game_id, round and start")
            started[str(board)] = dict(mark)
        return games, started

    def _set_aside(self, path: Path, problem: str) -> None:
        try:
            target = move_aside(path)
        except OSError as exc:
            log.error(
                "hall %s: %s: %s; it cannot be moved aside (%s): the standings start empty and are not saved",
                self.hall,
                path,
                problem,
                exc.strerror or exc,
            )
            self.path = None  # never overwrite what could not be read nor moved
            return
        log.error("hall %s: %s: %s; set aside as %s, the standings start empty", self.hall, path, problem, target.name)


#: What a spreadsheet takes for the start of a formula (or of a cell to split).
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: one starting as a formula would (``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return) gets a ``'`` before it. Every cell of
    the hall's CSV files goes through this.

    >>> [spreadsheet_cell(v) for v in ("Ann", "=HYPERLINK(1)", "@SUM(A1)", 41, None)]
    ['Ann', "'=HYPERLINK(1)", "'@SUM(A1)", '41', '']
    """
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA) else text


_cell = spreadsheet_cell
