"""The tournament record of referee mode: PDN with the arbiter's notes, and the arbiter log.

A :class:`TournamentRecord` is one game's header (Event, Site, Date, Round, Black, White,
the ballot, the time control) and the notes the referee makes as it goes (cautions,
claims, offers, an illegal move that stood, the time left after each move), kept by
ply; :meth:`TournamentRecord.pdn` writes it with the game's moves as PDN.

A :class:`RecordFiles` directory holds::

    live.pdn          the game in progress, rewritten atomically after every move and
                      every note (tournament software relays it while the game goes on)
    game-*.pdn        each game once it has a move, rewritten the same way until it ends
    arbiter.jsonl     every event, one JSON object a line, with the wall-clock time
    referee.json      the referee's own state of the game in progress (cautions, clock,
                      ballot, notes), so that a game resumed after a power cut goes on

Writes are atomic (temporary file, fsync, rename, fsync of the directory), so a power
cut leaves the old file or the new one, never half of one.

>>> from rules import WCDF, Game
>>> game = Game(None, WCDF)
>>> _ = game.play_text("9-13")
>>> record = TournamentRecord(event="Club final", black="Ann", white="Bob", date="2026.11.29")
>>> record.note(1, "draw offered")
>>> print(record.pdn(game))                            # doctest: +ELLIPSIS
[Event "Club final"]
[Site "?"]
[Date "2026.11.29"]
[Round "?"]
[Black "Ann"]
[White "Bob"]
[Result "*"]
[GameType "21"]
<BLANKLINE>
1. 9-13 {draw offered} *
<BLANKLINE>
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.gameclock import TimeControl, pdn_clock
from firmware.events import Event, event_line
from firmware.files import RECORD_LIMIT, FileRefused, parse_json, read_text
from firmware.files import atomic_write
from rules import Game
from rules.ballots import Ballot
from rules.pdn import write_game

__all__ = ["TournamentRecord", "RecordFiles", "RecordError", "LIVE_NAME", "LOG_NAME", "STATE_NAME"]

log = logging.getLogger(__name__)

LIVE_NAME = "live.pdn"
LOG_NAME = "arbiter.jsonl"
STATE_NAME = "referee.json"


class RecordError(OSError):
    """A record file that cannot be written; the message names it."""


@dataclass
class TournamentRecord:
    """One game's tags and the referee's notes (see the module docstring)."""

    event: str = "?"
    site: str = "?"
    date: str = "????.??.??"
    round: str = "?"
    black: str = "?"
    white: str = "?"
    ballot: Ballot | None = None
    time_control: TimeControl | None = None
    style: str = ""
    #: Notes by ply: 0 is before the first move, n after move n.
    notes: dict[int, list[str]] = field(default_factory=dict)
    #: The mover's time left after each ply, in milliseconds.
    clocks: dict[int, int] = field(default_factory=dict)
    reason: str | None = None
    #: More tags, after the others (the match the game belongs to: ``Match``, ``MatchGame``).
    extra: dict[str, str] = field(default_factory=dict)

    def note(self, ply: int, text: str) -> None:
        """Add a comment after ply ``ply`` (0: before the first move)."""
        self.notes.setdefault(ply, []).append(text)

    def tags(self) -> dict[str, str]:
        tags = {
            "Event": self.event,
            "Site": self.site,
            "Date": self.date,
            "Round": self.round,
            "Black": self.black,
            "White": self.white,
            "GameType": "21",
        }
        if self.ballot is not None:
            tags["Ballot"] = str(self.ballot.number)
            tags["BallotMoves"] = " ".join(self.ballot.moves)
            if self.ballot.name:
                tags["Opening"] = self.ballot.name
        if self.time_control is not None:
            tags["TimeControl"] = str(self.time_control)
        if self.style:
            tags["Refereeing"] = self.style
        if self.reason:
            tags["Termination"] = self.reason
        for name, value in self.extra.items():
            tags.setdefault(name, value)
        return tags

    def comments(self) -> dict[int, list[str]]:
        """The PDN comments by ply: the clock first, then the notes."""
        out: dict[int, list[str]] = {}
        for ply in sorted(set(self.notes) | set(self.clocks)):
            texts = []
            if ply in self.clocks:
                texts.append(pdn_clock(self.clocks[ply]))
            texts += self.notes.get(ply, [])
            out[ply] = texts
        return out

    def pdn(self, game: Game) -> str:
        """The game as PDN with these tags and notes (result ``*`` while it goes on)."""
        result = game.result.score if game.result is not None else "*"
        return write_game(game, tags=self.tags(), comments=self.comments(), result=result)


_SLUG = re.compile(r"[^A-Za-z0-9]+")


def slug(text: str) -> str:
    """``text`` as a piece of a file name: letters and digits, ``-`` between words."""
    return _SLUG.sub("-", text).strip("-")[:40] or "x"


class RecordFiles:
    """The record directory (created on first write). Failures raise :class:`RecordError`."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    @property
    def live_path(self) -> Path:
        return self.directory / LIVE_NAME

    @property
    def log_path(self) -> Path:
        return self.directory / LOG_NAME

    @property
    def state_path(self) -> Path:
        return self.directory / STATE_NAME

    def save_state(self, data: Mapping[str, Any]) -> None:
        self._ensure()
        try:
            atomic_write(self.state_path, json.dumps(data, indent=1) + "\n")
        except OSError as exc:
            raise RecordError(f"cannot write {self.state_path}: {exc.strerror or exc}") from exc

    def load_state(self) -> dict[str, Any] | None:
        """The saved referee state, None if there is none; RecordError if unreadable."""
        try:
            text = read_text(self.state_path, RECORD_LIMIT)
        except FileNotFoundError:
            return None
        except FileRefused as exc:
            raise RecordError(f"cannot read {exc}") from exc
        try:
            data = parse_json(text)
        except ValueError as exc:
            raise RecordError(f"{self.state_path}: not a referee state: {exc}") from exc
        if not isinstance(data, dict):
            raise RecordError(f"{self.state_path}: expected a JSON object")
        return data

    def game_path(self, name: str) -> Path:
        return self.directory / f"game-{slug(name)}.pdn"

    def _ensure(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecordError(f"cannot create the record directory {self.directory}: {exc.strerror}") from exc

    def write(self, name: str | None, text: str) -> None:
        """Rewrite ``live.pdn`` and, with ``name``, that game's own file."""
        self._ensure()
        paths = [self.live_path] + ([self.game_path(name)] if name is not None else [])
        for path in paths:
            try:
                atomic_write(path, text)
            except OSError as exc:
                raise RecordError(f"cannot write {path}: {exc.strerror or exc}") from exc

    def log(self, event: Event, extra: Mapping[str, Any]) -> None:
        """Append ``event`` to the arbiter log, ``extra`` (time, game) first; flushed and synced."""
        self._ensure()
        line = event_line(event, before=extra) + "\n"
        try:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise RecordError(f"cannot append to {self.log_path}: {exc.strerror or exc}") from exc
