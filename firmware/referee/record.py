"""The tournament record of referee mode: PDN with the arbiter's notes, and the arbiter log.

A :class:`TournamentRecord` is one game's header (Event, Site, Date, Round, Black, White,
the ballot, the time control) and the notes the referee makes as it goes (cautions,
claims, offers, an illegal move that stood), kept by ply; :meth:`TournamentRecord.pdn`
writes it with the game's moves as PDN, each move with its clock when given the moves'
times (the game's clock keeps them, :attr:`GameTimer.times
<firmware.tracking.timer.GameTimer.times>`: the record holds no copy of its own, so its
``[%clk]`` are those of the saved game's PDN).

A :class:`RecordFiles` directory holds::

    live.pdn          the game in progress, rewritten atomically after every move and
                      every note (tournament software relays it while the game goes on)
    game-*.pdn        each game once it has a move, rewritten the same way until it ends
    arbiter.jsonl     every event, one JSON object a line, with the wall-clock time
    referee.json      the referee's own state of the game in progress (cautions, ballot,
                      notes), so that a game resumed after a power cut goes on

Writes are atomic (temporary file, fsync, rename, fsync of the directory), so a power
cut leaves the old file or the new one, never half of one.

>>> from crownhead.rules import WCDF, Game
>>> game = Game(None, WCDF)
>>> _ = game.play_text("9-13")
>>> record = TournamentRecord(event="Club final", black="Ann", white="Bob", date="2026.11.29")
>>> record.note(1, "draw offered")
>>> print(record.pdn(game, {1: (299_000, 1_000)}))   # the move's clock: time left, time used
[Event "Club final"]
[Site "?"]
[Date "2026.11.29"]
[Round "?"]
[Black "Ann"]
[White "Bob"]
[Result "*"]
[GameType "21"]
<BLANKLINE>
1. 9-13 {[%clk 0:04:59] [%emt 0:00:01]} {draw offered} *
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

from crownhead.firmware.gameclock import TimeControl, pdn_move_clock
from crownhead.firmware.events import Event, event_line
from crownhead.firmware.files import RECORD_LIMIT, FileRefused, parse_json, read_text
from crownhead.firmware.files import atomic_write
from crownhead.rules import Game
from crownhead.rules.ballots import Ballot
from crownhead.rules.pdn import write_game

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

    def comments(
        self, times: Mapping[int, tuple[int, int]] | None = None, plies: int | None = None
    ) -> dict[int, list[str]]:
        """The PDN comments by ply: the move's clock first (from ``times``, ply -> time
        left, time used, for plies 1 to ``plies`` only: a move taken back keeps no clock),
        then the notes."""
        clocks = {ply: t for ply, t in (times or {}).items() if 1 <= ply and (plies is None or ply <= plies)}
        out: dict[int, list[str]] = {}
        for ply in sorted(set(self.notes) | set(clocks)):
            texts = []
            if ply in clocks:
                texts.append(pdn_move_clock(*clocks[ply]))
            texts += self.notes.get(ply, [])
            out[ply] = texts
        return out

    def pdn(self, game: Game, times: Mapping[int, tuple[int, int]] | None = None) -> str:
        """The game as PDN with these tags and notes (result ``*`` while it goes on),
        each move with its clock in ``times`` (see :meth:`comments`)."""
        result = game.result.score if game.result is not None else "*"
        return write_game(game, tags=self.tags(), comments=self.comments(times, game.ply), result=result)


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
