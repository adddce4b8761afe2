"""Keeping games: the game in progress survives power loss, finished games become PDN files.

The state directory holds::

    current.json        the unfinished game, rewritten atomically after every move
    games/*.pdn         one file per finished (or abandoned) game
    lock                held while a board application runs on this directory

Every write is atomic: the new content goes to a temporary file in the same directory,
is flushed and fsynced, renamed over the old name, and the directory is fsynced, so a
power cut leaves either the old file or the new one, never a torn mix.

>>> import tempfile
>>> from crownhead.rules import WCDF, Game
>>> store = GameStore(tempfile.mkdtemp())
>>> game = Game(None, WCDF); _ = game.play_text("11-15")
>>> record = GameRecord.new(black="Ann", white="Bob", rules=WCDF).with_game(game)
>>> store.save_current(record)
>>> store.load_current().moves
('11-15',)
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import re
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from crownhead.firmware.gameclock import ClockSpecError, TimeControl, pdn_move_clock
from crownhead.firmware.files import (
    RECORD_LIMIT,
    FileRefused,
    atomic_write,
    check_json_depth,
    fsync_dir,
    move_aside,
    printable,
    read_text,
)
from crownhead.rules import Game, Move, Position, Rules
from crownhead.rules.game import UNFINISHED, Huff, JumpForced
from crownhead.rules.pdn import CONDONED_NOTE, PdnExporter, fen_text, move_text
from crownhead.rules.settings import OPTION_TYPES
from crownhead.rules.position import parse_move_squares
from crownhead.rules.variants import VARIANTS, gametype_tag, variant_tag
from crownhead.rules.variants import describe as describe_rules

__all__ = [
    "StoreError",
    "StoreLockedError",
    "GameRecord",
    "GameFile",
    "GameStore",
    "pdn_text",
]

FORMAT_VERSION = 1
CURRENT = "current.json"
GAMES = "games"


class StoreError(RuntimeError):
    """A state file that cannot be read or written; the message names the file."""


class StoreLockedError(StoreError):
    """Another board application is already using the state directory."""


def _entry_text(entry: Move | Huff | JumpForced) -> str:
    """One entry of a game's history as a record keeps it: ``15x24x31``, ``huff 9``, ``force``."""
    if isinstance(entry, Huff):
        return f"huff {entry.square}"
    if isinstance(entry, JumpForced):
        return "force"
    return entry.pdn(full=True)


def _enter(game: Game, text: str, captures: tuple[int, ...] | None) -> Move:
    """Play the move ``text``; with ``captures``, condone it: an illegal move that stood,
    its path from ``text``, the pieces it took off on ``captures``."""
    if captures is None:
        return game.play_text(text)
    move = Move(tuple(parse_move_squares(text)), captures)
    game.condone(move)
    return move


def _final_plies(texts: tuple[str, ...]) -> dict[int, int]:
    """For each move entry of a history that is still a move of the game at its end (not
    taken back by a later ``force``), its index in ``texts`` -> its ply."""
    kept: list[int] = []
    for i, text in enumerate(texts):
        if text == "force":
            if kept:
                kept.pop()
        elif not text.startswith("huff "):
            kept.append(i)
    return {i: ply for ply, i in enumerate(kept, 1)}


def _replay_history(game: Game, texts: tuple[str, ...], game_id: str, condoned: dict[int, tuple[int, ...]]) -> None:
    plies = _final_plies(texts)
    for number, text in enumerate(texts, 1):
        try:
            if text == "force":
                game.force_jump()
            elif text.startswith("huff "):
                game.huff(int(text[5:]))
            else:
                ply = plies.get(number - 1)
                _enter(game, text, condoned.get(ply) if ply is not None else None)
        except (ValueError, RuntimeError) as exc:
            raise StoreError(f"game {game_id}: history entry {number} ({text}) does not replay: {exc}") from exc


def _condoned_from_json(value: object, where: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``condoned`` as kept in JSON: ``[{"ply": 3, "captures": [15]}, ...]``."""
    problem = f'{where}: \'condoned\' must be a list of {{"ply": N, "captures": [squares]}}'
    if not isinstance(value, list):
        raise StoreError(problem)
    out: list[tuple[int, tuple[int, ...]]] = []
    for item in value:
        if not isinstance(item, dict) or set(item) != {"ply", "captures"}:
            raise StoreError(problem)
        ply, captures = item["ply"], item["captures"]
        if type(ply) is not int or not 1 <= ply <= MAX_PLIES or not isinstance(captures, list):
            raise StoreError(problem)
        if len(out) >= MAX_PLIES or len(captures) > 12 or not all(type(s) is int and 1 <= s <= 32 for s in captures):
            raise StoreError(f"{where}: 'condoned' ply {ply}: captures must be squares 1-32")
        out.append((ply, tuple(captures)))
    return tuple(out)


def _times_from_json(value: object, where: str) -> tuple[tuple[int, int, int], ...]:
    """``times`` as kept in JSON: ``[[ply, left ms, used ms], ...]``, plies rising."""
    problem = f"{where}: 'times' must be a list of [ply, time left ms, time used ms], plies rising"
    if not isinstance(value, list) or len(value) > MAX_PLIES:
        raise StoreError(problem)
    out: list[tuple[int, int, int]] = []
    for item in value:
        if not isinstance(item, list) or len(item) != 3 or not all(type(n) is int for n in item):
            raise StoreError(problem)
        ply, left, used = item
        if (
            not 1 <= ply <= MAX_PLIES
            or (out and ply <= out[-1][0])
            or not (-MAX_MS <= left <= MAX_MS and 0 <= used <= MAX_MS)
        ):
            raise StoreError(problem)
        out.append((ply, left, used))
    return tuple(out)


#: The largest time a record keeps for a move, ms: ten days.
MAX_MS = 10 * 86_400_000
#: The most moves (or history entries) a record may hold: far beyond any real game.
MAX_PLIES = 10_000
#: The longest name, event, site or reason a record keeps, in characters.
MAX_TAG = 200
_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,63}")
_MODE = re.compile(r"[a-z][a-z0-9-]{0,31}")
_HUFF = re.compile(r"huff ([1-9]|[12][0-9]|3[0-2])")
_EXTRA_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_RECORD_RESULTS = ("1-0", "0-1", "1/2-1/2", UNFINISHED)
#: What a record's ``offer`` may be: a side, ``""`` (a shared button's), or None.
_OFFERS = (None, "", "black", "white")
#: The tags a record writes itself; ``extra`` may not replace them.
_OWN_TAGS = frozenset(
    t.lower()
    for t in (
        "Event",
        "Site",
        "Date",
        "Black",
        "White",
        "Result",
        "GameType",
        "Variant",
        "SetUp",
        "FEN",
        "Termination",
        "Rules",
    )
)


def _tag_value(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TAG and printable(value)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _today() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True)
class GameRecord:
    """One game as it is kept: who played, from where, the moves, and how it ended.

    ``moves`` are PDN texts with every landing square (``15x24x31``), which name a
    capture route exactly; ``start_fen`` is None for the standard start position.
    ``rules`` are the game's; the JSON keeps every rule option as a key of its own
    (``variant``, ``flying_kings``, ``crowning``...: :meth:`crownhead.rules.settings.Rules.options`,
    so a new field of :class:`~crownhead.rules.settings.Rules` is kept with nothing listed here). Under huffing ``history`` lists every entry of
    :attr:`crownhead.rules.game.Game.history` in order: moves, ``huff S`` (the piece on S taken
    off) and ``force`` (the missed jump taken back); it is empty when it would only
    repeat ``moves``. ``condoned`` lists the illegal moves that stood (WCDF 1.26, see
    :meth:`crownhead.rules.game.Game.condone`) as ``(ply, captured squares)``: the move text gives
    the path, and the game replays them as they were played.

    ``mode`` (``play``, ``computer``, ``referee``) and ``settings`` say how the game was
    being played, so that a restart resumes it the same way: the machine's side and
    level, the referee's settings with its clock and cautions, hints on or off (written
    and read by :mod:`crownhead.firmware.app.resume`; a JSON object to this module). A record
    without them (an older one) is a two-player game. A ``mode`` or ``settings`` that is
    not one does not lose the game: it is read as a two-player game and ``damaged``
    says why, naming the file and the key, for the application to log.

    ``offer``: the draw offer standing when the game was saved (see the field).

    ``times``: a timed game's clock after each move, ``(ply, left, used)`` in ms: the
    mover's time left after the move and the time the move took (in a game far apart,
    each as the mover's own board measured it); the PDN writes them as the move's
    ``[%clk]`` and ``[%emt]`` comment. ``time_control``: a timed game's control as PDN
    writes it (its ``TimeControl`` tag: ``600+5``), None for a game without a clock.
    """

    id: str
    started: str
    moves: tuple[str, ...] = ()
    start_fen: str | None = None
    #: The game's rules: always given (an old file without them is read as WCDF, as it was played).
    rules: Rules = field(kw_only=True)
    history: tuple[str, ...] = ()
    condoned: tuple[tuple[int, tuple[int, ...]], ...] = ()
    black: str = "?"
    white: str = "?"
    event: str = "Casual game"
    site: str = "?"
    mode: str = "play"
    settings: dict[str, Any] = field(default_factory=dict)
    result: str | None = None
    reason: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    times: tuple[tuple[int, int, int], ...] = ()
    #: The draw offer standing after the last move: the side that made it (``black``,
    #: ``white``; ``""`` for a shared button, which cannot tell who), None without one. An
    #: offer stands until answered or a move is made, a power cut included.
    offer: str | None = None
    #: Why the record's ``mode`` or ``settings`` were not used (set by :meth:`from_json`).
    damaged: str | None = field(default=None, compare=False)
    time_control: str | None = None

    @classmethod
    def new(
        cls,
        *,
        black: str = "?",
        white: str = "?",
        event: str = "Casual game",
        site: str = "?",
        mode: str = "play",
        start: Position | None = None,
        rules: Rules,
        now: str | None = None,
    ) -> GameRecord:
        """A record for a game starting now (``now`` as an ISO timestamp, for tests)."""
        started = now or _today()
        stamp = re.sub(r"[^0-9]", "", started[:19])
        # Milliseconds keep games started within one second in order (file names sort
        # by start time); the random part keeps two boards' files apart.
        millis = time.time_ns() // 1_000_000 % 1000
        return cls(
            id=f"{stamp[:8]}-{stamp[8:14]}-{millis:03d}{secrets.token_hex(2)}",
            started=started,
            start_fen=None if start is None or start == Position.start(rules) else start.fen(),
            rules=rules,
            black=black,
            white=white,
            event=event,
            site=site,
            mode=mode,
        )

    @property
    def start(self) -> Position:
        if self.start_fen is None:
            return Position.start(self.rules)
        return Position.from_fen(self.start_fen)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def date(self) -> str:
        """The PDN date of the start, ``YYYY.MM.DD``."""
        return self.started[:10].replace("-", ".")

    def with_game(self, game: Game) -> GameRecord:
        """This record with the moves (and the result, if any) of ``game``."""
        moves = tuple(m.pdn(full=True) for m in game.moves)
        result = game.result
        history: tuple[str, ...] = ()
        if any(not isinstance(entry, Move) for entry in game.history):
            history = tuple(_entry_text(entry) for entry in game.history)
        condoned = tuple((ply, tuple(game.moves[ply - 1].captures)) for ply in sorted(game.condoned))
        return replace(
            self,
            moves=moves,
            history=history,
            condoned=condoned,
            result=result.score if result else None,
            reason=result.reason if result else None,
            times=tuple(t for t in self.times if t[0] <= len(moves)),  # none of a move taken back
            # An offer never outlives a move (nor the game): the game's session says anew.
            offer=self.offer if history == self.history and moves == self.moves and result is None else None,
        )

    def with_times(self, times: Mapping[int, tuple[int, int]], control: TimeControl | None = None) -> GameRecord:
        """This record with each move's clock in ``times`` (ply -> time left, time used,
        ms) besides those it keeps (a resumed game's earlier moves), for its moves only,
        and the game's time ``control`` (its PDN's ``TimeControl`` tag) when given.

        >>> from crownhead.rules import WCDF
        >>> record = GameRecord.new(now="2024-01-01T10:00:00", rules=WCDF).with_game(Game(None, WCDF))
        >>> record = replace(record, moves=("11-15", "23-19")).with_times({1: (598_000, 2_000)})
        >>> record.with_times({2: (595_500, 4_500)}).times
        ((1, 598000, 2000), (2, 595500, 4500))
        """
        kept = {ply: (left, used) for ply, left, used in self.times}
        kept.update(times)
        plies = len(self.moves)
        timed = tuple((p, *kept[p]) for p in sorted(kept) if 1 <= p <= plies)
        return replace(self, times=timed, time_control=str(control) if control is not None else self.time_control)

    def abandoned(self) -> GameRecord:
        """This record as an unfinished game that is put away (result ``*``)."""
        return replace(self, result=UNFINISHED, reason="abandoned")

    def to_game(self) -> Game:
        """Replay the moves; :class:`StoreError` names the first move that does not fit."""
        rules = self.rules
        try:
            game = Game(self.start, rules)
        except ValueError as exc:
            raise StoreError(f"game {self.id}: bad start position: {exc}") from exc
        condoned = dict(self.condoned)
        if self.history:
            _replay_history(game, self.history, self.id, condoned)
            played = tuple(m.pdn(full=True) for m in game.moves)
            if played != self.moves:
                raise StoreError(f"game {self.id}: 'history' does not give the moves in 'moves'")
        for ply, text in enumerate(() if self.history else self.moves, 1):
            try:
                _enter(game, text, condoned.get(ply))
            except (ValueError, RuntimeError) as exc:
                raise StoreError(f"game {self.id}: move {ply} ({text}) does not replay: {exc}") from exc
        beyond = sorted(set(condoned) - game.condoned)
        if beyond:
            raise StoreError(f"game {self.id}: 'condoned' names ply {beyond[0]}, but the game has {game.ply} moves")
        if self.result in ("1-0", "0-1", "1/2-1/2") and game.result is None:
            game.declare(self.result, self.reason or "declared")
        return game

    # -- JSON -------------------------------------------------------------------------

    def to_json(self) -> str:
        data: dict[str, Any] = {"format": FORMAT_VERSION}
        for key, value in self.__dict__.items():
            if key == "rules":
                data.update(self.rules.options())  # each option a key, as the format has always kept them
            elif key != "damaged":
                data[key] = value
        data["moves"] = list(self.moves)
        data["history"] = list(self.history)
        data["condoned"] = [{"ply": ply, "captures": list(captures)} for ply, captures in self.condoned]
        data["times"] = [list(t) for t in self.times]
        return json.dumps(data, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "game record") -> GameRecord:
        """A record from its JSON; :class:`StoreError` naming ``where`` and the key if not one.

        Every field is checked for its type and its shape before anything uses it: an id
        that could name a file outside ``games/``, a name that would break the PDN
        written later, a result that is no result are all refused here.
        """
        try:
            check_json_depth(text, 8)
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StoreError(f"{where}: not valid JSON ({exc})") from exc
        except (ValueError, RecursionError) as exc:
            raise StoreError(f"{where}: not a game record: {exc}") from exc
        if not isinstance(data, dict):
            raise StoreError(f"{where}: expected a JSON object")
        version = data.pop("format", None)
        if version != FORMAT_VERSION or type(version) is not int:
            raise StoreError(f"{where}: unknown format {_shown(version)} (expected {FORMAT_VERSION})")
        known = (set(cls.__dataclass_fields__) - {"damaged", "rules"}) | set(OPTION_TYPES)
        unknown = set(data) - known
        if unknown:
            raise StoreError(f"{where}: unknown key {_shown(sorted(unknown)[0])}")
        if not isinstance(data.get("id"), str) or not _ID.fullmatch(data["id"]):
            raise StoreError(
                f"{where}: 'id' must be a string of letters, digits, - and _ (at most 64), got {_shown(data.get('id'))}"
            )
        started = data.get("started")
        if not isinstance(started, str) or not 0 < len(started) <= 64 or not printable(started):
            raise StoreError(f"{where}: 'started' must be a date and time (ISO 8601), got {_shown(started)}")
        for key, what in (("moves", "move texts"), ("history", "move, huff and force texts")):
            texts = data.get(key, [])
            if (
                not isinstance(texts, list)
                or len(texts) > MAX_PLIES
                or not all(isinstance(m, str) and 0 < len(m) <= 64 and printable(m) for m in texts)
            ):
                raise StoreError(f"{where}: {key!r} must be a list of at most {MAX_PLIES} {what}")
            data[key] = tuple(texts)
        for entry in data["history"]:
            if entry.startswith("huff ") and not _HUFF.fullmatch(entry):
                raise StoreError(f"{where}: 'history' entry {_shown(entry)} must be 'huff S' with a square 1-32")
        data["condoned"] = _condoned_from_json(data.get("condoned", []), where)
        data["times"] = _times_from_json(data.get("times", []), where)
        try:
            data["rules"] = Rules.from_options({key: data.pop(key) for key in OPTION_TYPES if key in data})
        except ValueError as exc:
            raise StoreError(f"{where}: bad rules: {exc}") from exc
        fen = data.get("start_fen")
        if fen is not None and (not isinstance(fen, str) or len(fen) > 400 or not printable(fen)):
            raise StoreError(f"{where}: 'start_fen' must be a FEN string or null")
        for key in ("black", "white", "event", "site"):
            if key in data and not _tag_value(data[key]):
                raise StoreError(
                    f"{where}: {key!r} must be a string of at most {MAX_TAG} printable characters, got {_shown(data[key])}"
                )
        damaged = None
        if "mode" in data and not (isinstance(data["mode"], str) and _MODE.fullmatch(data["mode"])):
            damaged = f"{where}: 'mode' must be a word like play or referee, got {_shown(data['mode'])}"
        elif not isinstance(data.get("settings", {}), dict):
            damaged = f"{where}: 'settings' must be a JSON object, got {_shown(data['settings'])}"
        if damaged is not None:
            # How the game was played is lost, never the game: it resumes as a two-player game.
            data["mode"], data["settings"] = "play", {}
            data["damaged"] = f"{damaged}; the game resumes as a two-player game"
        if data.get("result") is not None and data["result"] not in _RECORD_RESULTS:
            raise StoreError(
                f"{where}: 'result' must be one of {', '.join(_RECORD_RESULTS)} or null, got {_shown(data['result'])}"
            )
        if data.get("offer") not in _OFFERS:
            raise StoreError(f"{where}: 'offer' must be black, white, \"\" or null, got {_shown(data['offer'])}")
        control = data.get("time_control")
        if control is not None:
            try:
                data["time_control"] = str(TimeControl.parse(control if isinstance(control, str) else "?"))
            except ClockSpecError:
                raise StoreError(
                    f"{where}: 'time_control' must be a time control such as 600+5 or null, got {_shown(control)}"
                ) from None
        if data.get("reason") is not None and not _tag_value(data["reason"]):
            raise StoreError(f"{where}: 'reason' must be a string of at most {MAX_TAG} printable characters or null")
        extra = data.get("extra", {})
        if not isinstance(extra, dict) or len(extra) > 32:
            raise StoreError(f"{where}: 'extra' must be an object of at most 32 PDN tags")
        for name, value in extra.items():
            if not _EXTRA_TAG.fullmatch(name) or name.lower() in _OWN_TAGS:
                raise StoreError(f"{where}: 'extra' tag {_shown(name)} is not a PDN tag name the record may add")
            if not _tag_value(value):
                raise StoreError(
                    f"{where}: 'extra' tag {name!r} must be a string of at most {MAX_TAG} printable characters"
                )
        try:
            return cls(**data)
        except TypeError as exc:
            raise StoreError(f"{where}: {exc}") from exc

    # -- PDN --------------------------------------------------------------------------

    def tags(self) -> dict[str, str]:
        """The PDN tags: Event, Site, Date, Black, White, Result first, then extras."""
        tags = {
            "Event": self.event,
            "Site": self.site,
            "Date": self.date,
            "Black": self.black,
            "White": self.white,
            "Result": self.result or UNFINISHED,
            "GameType": "21",
        }
        rules = self.rules
        if rules.variant != "english":
            tags["GameType"] = gametype_tag(rules)
            tag = variant_tag(rules)
            if tag is not None:
                tags["Variant"] = tag
        if self.start_fen is not None:
            tags["SetUp"] = "1"
            tags["FEN"] = fen_text(self.start, rules)
        if self.reason:
            tags["Termination"] = self.reason
        if self.time_control is not None:
            tags["TimeControl"] = self.time_control
        if rules.variant == "english" and not rules.is_standard:
            tags["Rules"] = rules.describe()
        elif rules != VARIANTS.get(rules.variant, rules):
            tags["Rules"] = describe_rules(rules)
        tags.update(self.extra)
        return tags


def pdn_text(record: GameRecord, width: int = 79) -> str:
    """The game as PDN (through :class:`crownhead.rules.pdn.PdnExporter`, the one writer): tag
    pairs, then numbered moves wrapped at ``width`` columns.

    Each number starts with the first mover's move (White's in Russian draughts, whose
    moves are written a1-h8 as its books do). Huffs and forced jumps are no moves: they
    are written as comments where they happened (``{huff 9}``, ``{11-15 taken back: a
    jump is required}``), so a huffed game replays only up to its first huff elsewhere.
    An illegal move that stood (``condoned``) is written as played and marked with a
    comment (:data:`crownhead.rules.pdn.CONDONED_NOTE`). A timed game's moves have their clock
    (``times``): ``11-15 {[%clk 0:09:58] [%emt 0:00:02]}``, the time left after the move
    and the time it took.
    """
    rules = record.rules
    game = Game(record.start, rules)
    # ("move", position, move), ("written", text) and ("comment", text) in order; a
    # forced jump removes its move.
    items: list[tuple[str, Position | None, Move | str]] = []
    condoned = dict(record.condoned)
    texts = record.history or record.moves
    plies = _final_plies(texts)
    for index, text in enumerate(texts):
        stood = False
        try:
            if text == "force":
                missed = game.force_jump().missed
                while items and items[-1][0] == "comment":
                    items.pop()
                if items:
                    items.pop()
                note = f"{move_text(game.position, missed, rules)} taken back: a jump is required"
                items.append(("comment", None, note))
                continue
            if text.startswith("huff "):
                square = int(text[5:])
                game.huff(square)
                items.append(("comment", None, f"huff {square}"))
                continue
            position = game.position
            captures = condoned.get(plies.get(index, 0))
            stood = captures is not None
            items.append(("move", position, _enter(game, text, captures)))
        except (ValueError, RuntimeError):
            # A record that does not replay is still written move by move, never dropped.
            items.append(("written", None, text))
        if stood:
            items.append(("comment", None, CONDONED_NOTE))
    result = record.result or UNFINISHED
    out = PdnExporter(record.start, rules, width=width)
    out.visit_tags(record.tags(), result)
    times = {ply: (left, used) for ply, left, used in record.times}
    ply = 0
    for kind, before, item in items:
        if kind == "move":
            assert before is not None and isinstance(item, Move)
            out.visit_move(before, item)
        elif kind == "written":
            out.visit_move_as_written(str(item))
        else:
            out.visit_comment(str(item))
            continue
        ply += 1
        if ply in times:
            out.visit_comment(pdn_move_clock(*times[ply]))
    out.visit_result(result)
    return out.text()


# Possessive loops: a tag value of megabytes is matched in constant memory.
_TAG = re.compile(r'^\[([A-Za-z0-9_]+)\s+"([^"\\]*+(?:\\.[^"\\]*+)*+)"\]\s*$')
_MOVE_TOKEN = re.compile(r"^(?:[0-9]{1,2}(?:[-x:][0-9]{1,2})+|[a-h][1-8](?:[-x:][a-h][1-8])+)$")
#: A PDN comment: ``{...}`` (over lines, possessive: megabytes in constant memory), or
#: ``;`` to the end of the line.
_COMMENT = re.compile(r"\{[^}]*+\}?|;[^\n]*+")
_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0"})


@dataclass(frozen=True)
class GameFile:
    """A finished game file as listed by ``crownhead games``."""

    path: Path
    tags: dict[str, str]
    plies: int

    @property
    def result(self) -> str:
        return self.tags.get("Result", UNFINISHED)

    @classmethod
    def read(cls, path: Path) -> GameFile:
        tags: dict[str, str] = {}
        plies = 0
        try:
            text = read_text(path, RECORD_LIMIT)
        except FileRefused as exc:
            raise StoreError(str(exc)) from exc
        except OSError as exc:
            raise StoreError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        movetext: list[str] = []
        for line in text.splitlines():
            m = _TAG.match(line.strip())
            if m:
                tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
            else:
                movetext.append(line)
        # Comments are no plies, whatever they quote: a referee's record names the
        # ballot's moves in one ({ACF ballot 5 ...: 9-13 22-18 6-9}).
        moves = _COMMENT.sub(" ", "\n".join(movetext))
        plies = sum(1 for token in moves.split() if _MOVE_TOKEN.match(token) and token not in _RESULTS)
        return cls(path, tags, plies)


class GameStore:
    """The games kept in one state directory (created on first use)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._lock_fd: int | None = None

    @property
    def current_path(self) -> Path:
        return self.directory / CURRENT

    @property
    def games_dir(self) -> Path:
        return self.directory / GAMES

    def _ensure(self) -> None:
        # Each folder's own error: a file named ``games`` in a good state directory is the
        # games folder's problem, not the directory's.
        for folder, what in ((self.directory, "the state directory"), (self.games_dir, "the games folder")):
            if folder.exists() and not folder.is_dir():
                raise StoreError(f"{folder} is not a folder ({what} belongs there): move it away")
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create {what} {folder}: {exc.strerror or exc}") from exc

    # -- the lock ---------------------------------------------------------------------

    def acquire(self) -> None:
        """Claim the directory for this process (released by :meth:`release` or at exit).

        An advisory ``flock``: the kernel drops it when the process dies, even by
        SIGKILL, so a crash never leaves a stale lock behind.
        """
        if self._lock_fd is not None:
            return
        self._ensure()
        path = self.directory / "lock"
        try:
            # O_NONBLOCK: a FIFO put where the lock belongs must not hang the start.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            # A read-only filesystem, a directory the service may not write: the board
            # plays on without keeping games (the caller says so), never refuses to start.
            raise StoreError(f"cannot lock {path}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            try:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            except OSError:
                holder = "?"
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise StoreLockedError(
                    f"another crownhead (pid {holder}) is using the state directory {self.directory}"
                ) from exc
            raise StoreError(f"cannot lock {path}: {exc.strerror}") from exc
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass  # the pid is for people reading the file; the flock is the lock
        self._lock_fd = fd
        self._remove_stale_temporaries()

    @property
    def locked(self) -> bool:
        """Whether this store holds the directory's lock."""
        return self._lock_fd is not None

    def _remove_stale_temporaries(self) -> None:
        # A write cut short by a crash leaves its temporary file; the real file is intact.
        # Only the lock holder may do this: another writer's temporary could be live.
        for directory in (self.directory, self.games_dir):
            for tmp in directory.glob(".*.tmp"):
                with contextlib.suppress(OSError):
                    tmp.unlink()

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- the game in progress ---------------------------------------------------------

    def save_current(self, record: GameRecord) -> None:
        """Save the unfinished game atomically (called after every committed move)."""
        self._ensure()
        try:
            atomic_write(self.current_path, record.to_json())
        except OSError as exc:
            raise StoreError(f"cannot save the game to {self.current_path}: {exc.strerror}") from exc

    def load_current(self) -> GameRecord | None:
        """The saved unfinished game, None if there is none.

        Raises :class:`StoreError` naming the file when it cannot be used; see
        :meth:`set_aside` to keep such a file out of the way without deleting it.
        """
        path = self.current_path
        try:
            text = read_text(path, RECORD_LIMIT)
        except FileNotFoundError:
            return None
        except FileRefused as exc:
            raise StoreError(str(exc)) from exc
        record = GameRecord.from_json(text, str(path))
        record.to_game()  # a record that does not replay is refused here, with its ply
        return record

    def set_aside(self, path: Path | None = None) -> Path | None:
        """Rename an unusable file (default ``current.json``) to ``<name>-<time>.bad``.

        The file is kept, never deleted: a person may want what it holds. Returns the new
        path, None if there was no file; :class:`StoreError` if it cannot be renamed
        (a read-only filesystem).
        """
        path = self.current_path if path is None else path
        if not os.path.lexists(path):
            return None
        try:
            return move_aside(path)
        except OSError as exc:
            raise StoreError(f"cannot move {path} aside: {exc.strerror or exc}") from exc

    def clear_current(self) -> None:
        try:
            os.unlink(self.current_path)
            fsync_dir(self.directory)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot remove {self.current_path}: {exc.strerror or exc}") from exc

    # -- finished games ---------------------------------------------------------------

    def game_path(self, record: GameRecord) -> Path:
        # The id is checked when a record is read; a record built in code is checked
        # here, so that no id can name a file outside games/.
        if not _ID.fullmatch(record.id):
            raise StoreError(f"game id {_shown(record.id)} cannot name a file")
        return self.games_dir / f"{record.id}.pdn"

    def finish(self, record: GameRecord, text: str | None = None) -> Path:
        """Write the game as PDN and forget it as the game in progress.

        ``text``: the game's PDN as a fuller record has it (a refereed game's, with its
        ballot, clock times, cautions and claims), written instead of the plain one.

        Three atomic steps: the finished record replaces ``current.json``, the PDN file is
        written, ``current.json`` is removed. A crash anywhere leaves either the game in
        progress as it was, or the finished record, which the next start finishes again
        (rewriting the same file): a finished game is never resumed, never lost.
        """
        if not record.finished:
            raise ValueError("finish() needs a record with a result (see GameRecord.abandoned)")
        self._ensure()
        path = self.game_path(record)
        self.save_current(record)
        try:
            atomic_write(path, text if text is not None else pdn_text(record))
        except OSError as exc:
            raise StoreError(f"cannot write {path}: {exc.strerror}") from exc
        self.clear_current()
        return path

    def withdraw(self, record: GameRecord) -> bool:
        """Forget the finished game of ``record`` (its PDN file): its result was taken back
        and the game goes on. Call it once the game is saved in progress again
        (:meth:`save_current`), so that a crash between the two keeps the game. Whether
        there was a file."""
        path = self.game_path(record)
        if not os.path.lexists(path):
            return False  # (nothing to write on a read-only disk either)
        try:
            os.unlink(path)
            fsync_dir(self.games_dir)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StoreError(f"cannot remove {path}: {exc.strerror or exc}") from exc
        return True

    def game_files(self) -> list[Path]:
        if not self.games_dir.is_dir():
            return []
        return sorted(self.games_dir.glob("*.pdn"))

    def find(self, game_id: str) -> Path | None:
        """A kept game's file from its number in the listing (1 the oldest) or its file
        name (with or without ``.pdn``), or None."""
        files = self.game_files()
        if game_id.isascii() and game_id.isdigit() and len(game_id) <= 6 and 1 <= int(game_id) <= len(files):
            return files[int(game_id) - 1]
        name = game_id.removesuffix(".pdn")
        for path in files:
            if path.stem == name:
                return path
        return None

    def list_games(self, skipped: list[StoreError] | None = None) -> list[GameFile]:
        """The finished games, oldest first (file names start with the start time).

        A file that cannot be read (not a regular file, too large, not UTF-8) is left
        out, never the others: its :class:`StoreError` goes to ``skipped`` when given.
        """
        games = []
        for path in self.game_files():
            try:
                games.append(GameFile.read(path))
            except StoreError as exc:
                if skipped is not None:
                    skipped.append(exc)
        return games

    def export(self, skipped: list[StoreError] | None = None) -> str:
        """Every finished game as one PDN text, oldest first, a blank line between games.

        Files that cannot be read are left out as by :meth:`list_games`.
        """
        texts = []
        for path in self.game_files():
            try:
                texts.append(read_text(path, RECORD_LIMIT).strip() + "\n")
            except (FileRefused, OSError) as exc:
                if skipped is not None:
                    skipped.append(
                        StoreError(str(exc) if isinstance(exc, FileRefused) else f"{path}: cannot read ({exc})")
                    )
        return "\n".join(texts)

    def __iter__(self) -> Iterator[GameFile]:
        return iter(self.list_games())

    def __repr__(self) -> str:
        return f"GameStore({str(self.directory)!r})"
