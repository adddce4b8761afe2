"""The referee's state of a game in progress, as it is saved to go on after a restart.

The referee saves it in its record directory (``referee.json``) and the board keeps it
in the game record (``current.json``, see :mod:`crownhead.firmware.app.resume`): the game's number
in the session, the players, the ballot, each side's cautions, the notes of the record.
The clock is not in it (the board's, ``clock.json``), nor each move's clock (the game
record's ``times``); an earlier version's ``clock`` and ``clocks`` are checked and ignored. Whatever reads one checks it with :func:`check_snapshot` first:
every key, its type and its range, so that a damaged or hostile file is refused with
one message naming the key, and nothing in it can make the referee loop or allocate
without bound.

>>> check_snapshot({"number": 1})
Traceback (most recent call last):
...
crownhead.firmware.referee.snapshot.SnapshotError: 'name' is missing
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crownhead.firmware.files import printable
from crownhead.rules.ballots import ballot as acf_ballot

__all__ = ["SnapshotError", "check_snapshot", "SNAPSHOT_KEYS", "OLD_KEYS"]

#: The keys of a snapshot, all of them required.
SNAPSHOT_KEYS = (
    "number",
    "name",
    "black",
    "white",
    "date",
    "round",
    "moves",
    "ballot",
    "drawn",
    "cautions",
    "clock",
    "notes",
    "extra",
    "over",
)
#: Keys an earlier version wrote, read (and checked) when there, never written: each
#: move's time left (``clocks``, by ply), now the game record's ``times``.
OLD_KEYS = ("clocks",)
#: Far beyond any real game or session; a bound on what a file can make the referee do.
_MAX_PLIES = 10_000
_MAX_TAG = 200
_MAX_NOTE = 2_000
#: A clock's time left, in ms: 100 days.
_MAX_MS = 100 * 24 * 3600 * 1000


class SnapshotError(ValueError):
    """A saved referee state that cannot be used; the message names the key."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _int(value: object, key: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise SnapshotError(f"{key!r} must be a whole number {low}-{high}, got {_shown(value)}")
    return value


def _text(value: object, key: str, longest: int = _MAX_TAG, *, empty: bool = True) -> str:
    if not isinstance(value, str) or len(value) > longest or not printable(value) or (not empty and not value):
        raise SnapshotError(f"{key!r} must be a string of at most {longest} printable characters, got {_shown(value)}")
    return value


def _sides(value: object, key: str, high: int) -> dict[str, int]:
    if not isinstance(value, dict) or set(value) != {"black", "white"}:
        raise SnapshotError(f"{key!r} must be an object with black and white, got {_shown(value)}")
    return {side: _int(value[side], f"{key}.{side}", 0, high) for side in ("black", "white")}


def _by_ply(value: object, key: str) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) > _MAX_PLIES:
        raise SnapshotError(f"{key!r} must be an object of at most {_MAX_PLIES} plies")
    for ply in value:
        if not (ply.isascii() and ply.isdigit() and len(ply) <= 5):
            raise SnapshotError(f"{key!r}: {_shown(ply)} is not a ply")
    return value


def check_snapshot(data: object) -> dict[str, Any]:
    """``data`` if it is a referee snapshot, else :class:`SnapshotError` naming the key.

    >>> snapshot = {"number": 1, "name": "20260101-120000-1", "black": "Ann", "white": "Bob",
    ...     "date": "2026.01.01", "round": "?", "moves": ["11-15"], "ballot": None, "drawn": [],
    ...     "cautions": {"black": 1, "white": 0}, "clock": None, "notes": {}, "extra": {},
    ...     "over": False}
    >>> check_snapshot(snapshot) is snapshot
    True
    >>> check_snapshot({**snapshot, "cautions": {"black": "1", "white": 0}})
    Traceback (most recent call last):
    ...
    crownhead.firmware.referee.snapshot.SnapshotError: 'cautions.black' must be a whole number 0-2, got '1'
    """
    if not isinstance(data, dict):
        raise SnapshotError(f"a referee state must be a JSON object, got {_shown(data)}")
    missing = [key for key in SNAPSHOT_KEYS if key not in data]
    if missing:
        raise SnapshotError(f"{missing[0]!r} is missing")
    unknown = sorted(set(data) - set(SNAPSHOT_KEYS) - set(OLD_KEYS))
    if unknown:
        raise SnapshotError(f"unknown key {_shown(unknown[0])}")
    _int(data["number"], "number", 1, 1_000_000)
    _text(data["name"], "name", 80, empty=False)
    for key in ("black", "white", "round"):
        _text(data[key], key)
    _text(data["date"], "date", 32)
    moves = data["moves"]
    if not isinstance(moves, list) or len(moves) > _MAX_PLIES:
        raise SnapshotError(f"'moves' must be a list of at most {_MAX_PLIES} moves")
    for i, move in enumerate(moves):
        _text(move, f"moves[{i}]", 64, empty=False)
    if data["ballot"] is not None:
        number = _int(data["ballot"], "ballot", 1, 999)
        try:
            acf_ballot(number)
        except ValueError as exc:
            raise SnapshotError(f"'ballot': {exc}") from None
    drawn = data["drawn"]
    if not isinstance(drawn, list) or len(drawn) > _MAX_PLIES:
        raise SnapshotError(f"'drawn' must be a list of at most {_MAX_PLIES} ballot numbers")
    for i, number in enumerate(drawn):
        _int(number, f"drawn[{i}]", 1, 999)
    _sides(data["cautions"], "cautions", 2)
    clock = data["clock"]
    if clock is not None:
        if not isinstance(clock, dict) or set(clock) != {"left", "moves"}:
            raise SnapshotError(f"'clock' must be null or an object with left and moves, got {_shown(clock)}")
        _sides(clock["left"], "clock.left", _MAX_MS)
        _sides(clock["moves"], "clock.moves", _MAX_PLIES)
    notes = _by_ply(data["notes"], "notes")
    count = 0
    for ply, texts in notes.items():
        if not isinstance(texts, list):
            raise SnapshotError(f"'notes.{ply}' must be a list of notes")
        count += len(texts)
        if count > _MAX_PLIES:
            raise SnapshotError(f"'notes' holds more than {_MAX_PLIES} notes")
        for i, text in enumerate(texts):
            _text(text, f"notes.{ply}[{i}]", _MAX_NOTE)
    for ply, ms in _by_ply(data.get("clocks", {}), "clocks").items():
        _int(ms, f"clocks.{ply}", 0, _MAX_MS)
    extra = data["extra"]
    if not isinstance(extra, dict) or len(extra) > 32:
        raise SnapshotError("'extra' must be an object of at most 32 PDN tags")
    for name, value in extra.items():
        _text(name, "extra", 32, empty=False)
        _text(value, f"extra.{name}")
    if type(data["over"]) is not bool:
        raise SnapshotError(f"'over' must be true or false, got {_shown(data['over'])}")
    return data


def same_game(data: Mapping[str, Any], moves: list[str]) -> bool:
    """Whether the checked snapshot ``data`` is of a game in progress with ``moves``."""
    return not data["over"] and data["moves"] == moves
