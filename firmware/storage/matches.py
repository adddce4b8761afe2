"""Keeping the match: the match under way survives a power cut, finished matches are kept.

The state directory holds, beside the games (see :mod:`crownhead.firmware.storage.store`)::

    match.json          the match under way (or just over), rewritten atomically
    matches/*.json      each match once it is ended or replaced, named by its id

Each game of a match carries its match in its PDN tags (``[Match "ID"]``, and its game
number in ``[Round "N"]``), so the games say which match they belong to even without
these files, and a game finished just before a power cut, whose result the match file
had not taken yet, is found again by :meth:`MatchStore.reconcile`.

>>> import tempfile
>>> from crownhead.rules.match import Match
>>> store = MatchStore(tempfile.mkdtemp())
>>> store.save(new_match("Ana", "Ben", games=4, now="2026-11-30T20:15:00+00:00"))
>>> store.load().id, store.load().colours()
('20261130-201500-Ana-Ben', ('Ana', 'Ben'))
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from crownhead.firmware.files import FileRefused, atomic_write, check_json_depth, fsync_dir, move_aside, read_bytes
from crownhead.firmware.storage.store import GameFile, StoreError
from crownhead.rules.match import Match

__all__ = ["MATCH_FILE", "MATCHES", "MATCH_TAG", "ROUND_TAG", "MatchStore", "new_match", "match_tags"]

MATCH_FILE = "match.json"
MATCHES = "matches"
#: The PDN tag naming a game's match, and the one giving its game number in it.
MATCH_TAG = "Match"
ROUND_TAG = "Round"
FORMAT_VERSION = 1
#: Largest match file read (a 1000-game match is about 150 kB).
MAX_BYTES = 1024 * 1024
_SLUG = re.compile(r"[^A-Za-z0-9]+")


def _slug(name: str) -> str:
    return _SLUG.sub("-", name).strip("-")[:20] or "x"


def new_match(
    black: str, white: str, *, games: int | None = None, count_draws: bool = False, now: str | None = None
) -> Match:
    """A match starting now (``now`` as an ISO timestamp, for tests): its id is the start
    time and the players' names, ``20261130-201500-Ana-Ben``."""
    started = now or _dt.datetime.now().astimezone().isoformat(timespec="seconds")
    stamp = re.sub(r"[^0-9]", "", started[:19])
    match = Match.new(black, white, games=games, count_draws=count_draws, started=started)
    return Match.new(
        match.first,
        match.second,
        games=games,
        count_draws=count_draws,
        id=f"{stamp[:8]}-{stamp[8:14]}-{_slug(match.first)}-{_slug(match.second)}",
        started=started,
    )


def match_tags(match: Match, number: int | None = None) -> dict[str, str]:
    """The PDN tags of game ``number`` (default: the next) of ``match``."""
    return {MATCH_TAG: match.id, ROUND_TAG: str(match.number if number is None else number)}


class MatchStore:
    """The match files of one state directory (created on first write)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        # The match file's name, made once: stamp() is asked whenever a screen is drawn.
        self._file = os.fspath(self.directory / MATCH_FILE)

    @property
    def path(self) -> Path:
        return self.directory / MATCH_FILE

    @property
    def archive_dir(self) -> Path:
        return self.directory / MATCHES

    def stamp(self) -> int | None:
        """The match file's modification time (ns), None without one: a cheap "has it changed"."""
        try:
            return os.stat(self._file).st_mtime_ns
        except OSError:
            return None

    def load(self) -> Match | None:
        """The match under way (or just over), None without one; StoreError names the file and key."""
        return self._read(self.path)

    def _read(self, path: Path) -> Match | None:
        try:
            # A regular file within the cap: a FIFO or /dev/zero in its place never ends.
            data = read_bytes(path, MAX_BYTES)
        except FileNotFoundError:
            return None
        except FileRefused as exc:
            raise StoreError(str(exc)) from exc
        try:
            text = data.decode("utf-8")
            check_json_depth(text)
            obj = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreError(f"{path}: not valid JSON ({exc})") from exc
        except (ValueError, RecursionError) as exc:
            raise StoreError(f"{path}: not a match file: {exc}") from exc
        if not isinstance(obj, dict):
            raise StoreError(f"{path}: expected a JSON object")
        version = obj.pop("format", None)
        if version != FORMAT_VERSION:
            raise StoreError(f"{path}: unknown format {version!r} (expected {FORMAT_VERSION})")
        try:
            return Match.from_dict(obj, str(path))
        except ValueError as exc:
            raise StoreError(str(exc)) from exc

    def save(self, match: Match) -> None:
        """Write the match atomically (after every game, and when it is made or ended)."""
        self._ensure(self.directory)
        text = json.dumps({"format": FORMAT_VERSION, **match.as_dict()}, indent=1, ensure_ascii=False) + "\n"
        try:
            atomic_write(self.path, text)
        except OSError as exc:
            raise StoreError(f"cannot save the match to {self.path}: {exc.strerror or exc}") from exc

    def put_away(self) -> Path | None:
        """Move the match file to ``matches/ID.json`` (the match is ended or replaced)."""
        match = self.load()
        if match is None:
            return None
        self._ensure(self.archive_dir)
        target = self.archive_dir / f"{_slug(match.id) if match.id else 'match'}.json"
        n = 1
        while target.exists():
            n += 1
            target = self.archive_dir / f"{_slug(match.id)}-{n}.json"
        os.replace(self.path, target)
        fsync_dir(self.directory)
        return target

    def set_aside(self) -> Path | None:
        """Rename an unusable ``match.json`` to ``match-<time>.bad`` (nothing is deleted)."""
        if not os.path.lexists(self.path):
            return None
        try:
            return move_aside(self.path)
        except OSError as exc:  # a read-only filesystem: the file stays, the board plays
            raise StoreError(f"cannot move {self.path} aside: {exc.strerror or exc}") from exc

    def archived(self) -> list[Match]:
        """The matches put away, oldest first (unreadable files are left out)."""
        if not self.archive_dir.is_dir():
            return []
        out = []
        for path in sorted(self.archive_dir.glob("*.json")):
            with contextlib.suppress(StoreError):
                match = self._read(path)
                if match is not None:
                    out.append(match)
        return out

    def _ensure(self, directory: Path) -> None:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {directory}: {exc.strerror}") from exc

    @staticmethod
    def reconcile(match: Match, games: Iterable[GameFile]) -> Match:
        """``match`` with the finished games tagged with it that it has not taken yet
        (a power cut between writing a game's PDN and the match file), in file order."""
        known = {g.id for g in match.played}
        for game in games:
            if game.tags.get(MATCH_TAG) != match.id or game.path.stem in known or match.over:
                continue
            black, white = game.tags.get("Black", "?"), game.tags.get("White", "?")
            if {black, white} != {match.first, match.second} or game.result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            match = match.with_result(game.result, id=game.path.stem, black=black, white=white)
        return match

    @staticmethod
    def games_of(match: Match, games: Iterable[GameFile]) -> list[GameFile]:
        """The kept games tagged with ``match``, in the order they were played."""
        return [g for g in games if g.tags.get(MATCH_TAG) == match.id]
