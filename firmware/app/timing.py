"""The game clock of two-player and computer games (``crownhead run --clock SPEC``).

Referee games keep their clock in the referee (:mod:`firmware.referee.arbiter`); any
other game given a time control keeps it here. Both are a
:class:`~firmware.tracking.timer.GameTimer`, so the rules are one class's: the side to move's
time starts with its first lift (or a ``clock`` press), the clock switches when the
board accepts a move, the ``clock`` button pauses and resumes it, a flag falling ends
the game on time, and the clock is saved (``clock.json`` in the state directory) with
every move and every 5 s while it runs, so that after a power cut the game resumes with
its clock, paused until the side to move lifts a piece.

>>> from rules import WCDF, Game
>>> from firmware.gameclock import TimeControl
>>> clock = BoardClock(TimeControl.parse("60"))
>>> _ = clock.begin(Game(None, WCDF), 0, game_id="g1")
>>> clock.state(0)
ClockState(black_ms=60000, white_ms=60000, side='black', paused=True, flag=None)
>>> _ = clock.lifted(Game(None, WCDF), 500)          # Black lifts a man: its time runs
>>> clock.state(2500)
ClockState(black_ms=58000, white_ms=60000, side='black', paused=False, flag=None)
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from firmware.events import Event, Flag, GameOver, MoveMade, Reopened, TakenBack, Side
from firmware.files import atomic_write
from firmware.gameclock import TimeControl
from firmware.tracking.timer import GameTimer
from rules import Color, Game

__all__ = ["BoardClock", "SAVE_MS", "clock_for"]

log = logging.getLogger(__name__)

#: How often a running clock is saved.
SAVE_MS = 5000
#: Moves measured by another board kept until they are made here (see BoardClock.tell).
_TOLD_KEPT = 8


class BoardClock(GameTimer):
    """The :class:`~firmware.tracking.timer.GameTimer` of the application's game, saved.

    ``path``: where the clock is saved (None: not saved).
    """

    def __init__(self, control: TimeControl, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(control, on_change=self._save)
        self.path = Path(path) if path is not None else None
        self.game_id = ""
        self._saved_at = 0
        self._ply = 0
        self._writer: _Writer | None = None
        #: Each move's clock since the game began or resumed here, by ply: the mover's time
        #: left after it and the time it took (the record keeps them: ``GameRecord.times``).
        self.times: dict[int, tuple[int, int]] = {}
        # What another board measured for its side's moves, by ply (see tell).
        self._told: dict[int, tuple[Color, int, int]] = {}

    # -- a game begins -----------------------------------------------------------------

    def begin(self, game: Game, now: int, *, game_id: str = "", resumed: bool = False) -> list[Event]:
        """A new game (or, ``resumed``, a saved one goes on: its clock as saved, paused)."""
        self.game_id = game_id
        self._ply = game.ply
        self.times.clear()  # the record keeps a resumed game's earlier moves
        if not resumed:
            self._told.clear()  # (a resumed game's next move may have come already)
        events = super().begin(game, now)
        if resumed and self._load(game):
            return [self.report(now)]
        return events

    def follow(self, event: Event, game: Game, now: int) -> list[Event]:
        """Follow the game's ``event``: moves switch the clock, the end stops it, a takeback
        or a reopened game gives the time back as the rules say."""
        self._ply = game.ply
        if isinstance(event, MoveMade):
            return self._moved(event, game)
        if isinstance(event, GameOver):
            return self.over(event.t)
        if isinstance(event, TakenBack):
            for ply in [p for p in self.times if p >= event.ply]:
                del self.times[ply]
            return self.taken_back(game, now)
        if isinstance(event, Reopened):
            return self.reopened(game, now)
        return []

    def tell(self, side: Color, ply: int, left: int, used: int) -> None:
        """``side``'s move at ``ply`` as its own board measured it (a game far apart: the
        other board's line carries it before the move is made here): when the move is
        made here its time left and time used are these, not this board's, so that both
        boards keep one record. Only the last few are kept (a board far behind)."""
        self._told[ply] = (side, left, used)
        for old in sorted(self._told)[:-_TOLD_KEPT]:
            del self._told[old]

    def _moved(self, event: MoveMade, game: Game) -> list[Event]:
        side = event.side.color
        events = self.moved(side, game, event.t)
        told = self._told.pop(event.ply, None)
        if told is not None and told[0] is side and not self.clock.stopped and self.clock.running is not side:
            self.clock.agree(side, told[1])
            self.last_left = told[1]
            self.times[event.ply] = (told[1], told[2])
            self._changed(event.t)
            return [self.report(event.t)] if events else []
        self.times[event.ply] = (self.clock.saved()[0][side], self.clock.last_used)
        return events

    #: The sides whose flag another board calls (a game far apart: each side's time is its
    #: own board's, docs/remote.md): this one lets their time run out without ending the game.
    called_elsewhere: frozenset[Color] = frozenset()

    def check(self, now: int) -> tuple[int, Color] | None:
        """``(when, side)`` if the running side's flag fell by ``now``, else None (and the
        running clock is saved every :data:`SAVE_MS`)."""
        due = self.clock.flag_due()
        if due is not None and due <= now and not self.flag and self.clock.running not in self.called_elsewhere:
            side = self.clock.running
            assert side is not None
            self.fall(side)
            return due, side
        if self.clock.running is not None and not self.clock.paused and now - self._saved_at >= SAVE_MS:
            self._save(now)
        return None

    def fell(self, t: int, side: Color) -> list[Event]:
        """The events of ``side``'s flag falling at ``t`` (the game ends on time separately)."""
        return [Flag(t, Side.of(side))]

    def next_deadline(self) -> int | None:
        if self.clock.running in self.called_elsewhere:
            return None  # nothing falls here: no step is due for it
        return self.clock.flag_due()

    # -- surviving a power cut -------------------------------------------------------------

    def _save(self, now: int) -> None:
        self._saved_at = now
        if self.path is None or not self.game_id:
            return
        left = self.clock.snapshot(now)
        moves = self.clock.saved()[1]
        data = {
            "game": self.game_id,
            "ply": self._ply,
            "control": str(self.control),
            "left": {Side.of(c): ms for c, ms in left.items()},
            "moves": {Side.of(c): n for c, n in moves.items()},
            "flag": self.flag or "",
        }
        if self._writer is None:
            self._writer = _Writer(self.path)
        self._writer.put(data)

    def flush(self) -> None:
        """Wait until the last state handed to the writer is on disk."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Write the last state and stop the writer thread."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _load(self, game: Game) -> bool:
        """The clock as saved for this game, if it is there: True when it was."""
        if self.path is None:
            return False
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.error("cannot read %s: %s", self.path, exc)
            return False
        if len(raw) > 4096:
            log.error("%s is not a saved clock (too long); the clock starts afresh", self.path)
            return False
        try:
            data = json.loads(raw)
            if data["game"] != self.game_id or data["ply"] != game.ply or data["control"] != str(self.control):
                return False  # another game's, or another time control's
            left = {side.color: int(data["left"][side]) for side in Side}
            moves = {side.color: int(data["moves"][side]) for side in Side}
            flag = Side.read(data["flag"]) if data.get("flag") else None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.error("%s cannot be used (%s); the clock starts afresh", self.path, exc)
            return False
        self.resume(left, moves, game, flag)
        return True


class _Writer:
    """Writes the clock's state in a thread of its own (an fsync can take tens of
    milliseconds on an SD card; the main loop only hands over the latest state)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cond = threading.Condition()
        self._data: dict[str, Any] | None = None  # a queue of one: the latest state
        self._busy = False
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="crownhead-clock-save", daemon=True)
        self._thread.start()

    def put(self, data: dict[str, Any]) -> None:
        with self._cond:
            self._data = data
            self._cond.notify_all()

    def flush(self, timeout_s: float = 5.0) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._data is None and not self._busy, timeout=timeout_s)

    def close(self) -> None:
        self.flush()
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._data is not None or self._stop)
                if self._data is None:
                    return
                data, self._data = self._data, None
                self._busy = True
            self._write(data)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _write(self, data: dict[str, Any]) -> None:
        try:
            atomic_write(self.path, json.dumps(data))
        except OSError as exc:  # a full card must not stop the game: the clock goes on
            log.error("cannot save the clock to %s: %s", self.path, exc)


def clock_for(current: BoardClock | None, control: TimeControl | None, path: Path | None) -> BoardClock | None:
    """The board clock for ``control`` (None: no clock): ``current`` while it keeps that
    control, else a new one saved at ``path`` (``current`` closed, its last state written)."""
    if current is not None and control is not None and current.control == control:
        return current
    if current is not None:
        current.close()
    return BoardClock(control, path) if control is not None else None
