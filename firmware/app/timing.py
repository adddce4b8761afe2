"""Saving the board's clock (``clock.json`` in the state directory), for every timed game.

The game's one clock is the session's (:attr:`GameSession.clock
<firmware.tracking.session.GameSession.clock>`, a :class:`~crownhead.firmware.tracking.timer.GameTimer`:
the follower runs it the same way in a two-player, a computer and a refereed game). The
application keeps it on disk with a :class:`ClockSaver`, one way for every mode: with
every change of the clock (a move, a pause, the end) and every 5 s while it runs, so
that after a power cut the game resumes with its clock, paused until the side to move
lifts a piece.

>>> import tempfile, pathlib
>>> from crownhead.rules import WCDF, Game
>>> from crownhead.firmware.gameclock import TimeControl
>>> from crownhead.firmware.tracking.timer import GameTimer
>>> timer = GameTimer(TimeControl.parse("60"))
>>> _ = timer.begin(Game(None, WCDF), 0)
>>> _ = timer.lifted(Game(None, WCDF), 500)          # Black lifts a man: its time runs
>>> path = pathlib.Path(tempfile.mkdtemp()) / "clock.json"
>>> saver = ClockSaver(path)
>>> saver.keep(timer, "g1", 0, 2500)
>>> saver.close()                         # the last state written
>>> again = GameTimer(TimeControl.parse("60"))
>>> ClockSaver(path).load(again, "g1", Game(None, WCDF)), again.state(0)
(True, ClockState(black_ms=58000, white_ms=60000, side='black', paused=True, flag=None))
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from crownhead.firmware.events import Side
from crownhead.firmware.files import FileRefused, atomic_write, parse_json, read_bytes
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.rules import Game

__all__ = ["ClockSaver", "SAVE_MS"]

log = logging.getLogger(__name__)

#: How often a running clock is saved.
SAVE_MS = 5000

#: The most a saved clock's file may hold.
_LIMIT = 4096


class ClockSaver:
    """Keeps the game's clock in ``path`` (None: nowhere), written in a thread of its own."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._writer: _Writer | None = None
        #: What was last saved: (which clock, its version, the game's id, the ply).
        self._kept: tuple[int, int, str, int] | None = None
        self._saved_at = 0

    def keep(self, timer: GameTimer | None, game_id: str, ply: int, now: int) -> None:
        """Save ``timer``, the clock of game ``game_id`` at ``ply``, if it changed since it
        was last saved, or every :data:`SAVE_MS` while it runs (cheap otherwise)."""
        if timer is None or self.path is None or not game_id:
            return
        key = (id(timer), timer.version, game_id, ply)
        running = timer.clock.running is not None and not timer.clock.paused and not timer.clock.stopped
        if key == self._kept and not (running and now - self._saved_at >= SAVE_MS):
            return
        self._kept = key
        self._saved_at = now
        left = timer.clock.snapshot(now)
        moves = timer.clock.saved()[1]
        data = {
            "game": game_id,
            "ply": ply,
            "control": str(timer.control),
            "left": {Side.of(c): ms for c, ms in left.items()},
            "moves": {Side.of(c): n for c, n in moves.items()},
            "flag": timer.flag or "",
            # (the side to move's thinking so far: its move's time used counts it after a power cut)
            "spent": timer.clock.spent(now),
        }
        if self._writer is None:
            self._writer = _Writer(self.path)
        self._writer.put(data)

    def load(self, timer: GameTimer, game_id: str, game: Game) -> bool:
        """Go on with the clock saved for game ``game_id`` (``game``, at its ply) in
        ``timer``, paused until the side to move lifts a piece: True when it was there
        (another game's clock, or another time control's, is not taken)."""
        if self.path is None:
            return False
        try:
            raw = read_bytes(self.path, _LIMIT)
        except FileNotFoundError:
            return False
        except FileRefused as exc:
            log.error("%s; the clock starts afresh", exc)
            return False
        try:
            data: Any = parse_json(raw)
            if data["game"] != game_id or data["ply"] != game.ply or data["control"] != str(timer.control):
                return False  # another game's, or another time control's
            left = {side.color: int(data["left"][side]) for side in Side}
            moves = {side.color: int(data["moves"][side]) for side in Side}
            flag = Side.read(data["flag"]) if data.get("flag") else None
            spent = int(data.get("spent", 0))  # (a clock saved by an older version has none)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.error("%s cannot be used (%s); the clock starts afresh", self.path, exc)
            return False
        timer.resume(left, moves, game, flag, spent)
        return True

    def flush(self) -> None:
        """Wait until the last state handed to the writer is on disk."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Write the last state and stop the writer thread."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


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
