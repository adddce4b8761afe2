"""The arbiter's pairings: who plays whom on which board, round by round.

A CSV file (``crownhead hall --pairings FILE``) with the columns ``round``, ``board``,
``black`` and ``white`` (a header line names them, in any order; other columns are
ignored), one line a pairing::

    round,board,black,white
    1,table-1,Ann,Bob
    1,table-2,Cid,Dee

The hall counts a result only for a game of a pairing listed here (either colour: the
return game of a ballot's pair swaps them), begun while its round was the current one:
the last round of the file, in playing order (``2`` before ``10``). The arbiter adds
each round's lines when it starts; the hall reads the file again when it changes. Names
are compared as the standings count players (runs of spaces made one, the ends
trimmed, case counts).

>>> p = read_pairings("round,board,black,white\\n1,t1,Ann,Bob\\n2,t1,Bob,Cid\\n")
>>> p.current_round, p.of("2", "t1"), sorted(p.boards())
('2', Pairing(round='2', board='t1', black='Bob', white='Cid'), ['t1'])
>>> read_pairings("round,board,black,white\\n1,t1,Ann,Ann\\n")
Traceback (most recent call last):
...
ValueError: pairings:2: Ann cannot play Ann
"""

from __future__ import annotations

import csv
import io
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from crownhead.firmware.files import FileRefused, read_bytes
from crownhead.firmware.hall.accounts import RESERVED
from crownhead.firmware.hall.standings import player_name, round_order
from crownhead.firmware.hall.topics import check_name

__all__ = ["Pairing", "Pairings", "PairingsFile", "read_pairings", "MAX_PAIRINGS"]

log = logging.getLogger(__name__)

#: Lines a pairings file may hold (200 boards, 50 rounds).
MAX_PAIRINGS = 10_000
MAX_BYTES = 1024 * 1024
_COLUMNS = ("round", "board", "black", "white")


@dataclass(frozen=True, slots=True)
class Pairing:
    round: str
    board: str
    black: str
    white: str

    def players(self) -> frozenset[str]:
        return frozenset((self.black, self.white))


@dataclass
class Pairings:
    """Every pairing, by round and board."""

    by_round: dict[str, dict[str, Pairing]] = field(default_factory=dict)

    @property
    def current_round(self) -> str | None:
        """The round being played: the last of the file in playing order (None: none)."""
        return max(self.by_round, key=round_order) if self.by_round else None

    def of(self, round_: str | None, board: str) -> Pairing | None:
        return self.by_round.get(round_, {}).get(board) if round_ is not None else None

    def boards(self) -> set[str]:
        return {board for boards in self.by_round.values() for board in boards}


def read_pairings(text: str, source: str = "pairings") -> Pairings:
    """The pairings of a CSV text; ValueError naming ``source``, the line and the problem."""
    rows = csv.reader(io.StringIO(text))
    try:
        header = next(rows)
    except StopIteration:
        raise ValueError(f"{source}: empty; the first line names the columns {', '.join(_COLUMNS)}") from None
    except csv.Error as exc:
        raise ValueError(f"{source}:1: {exc}") from None
    names = [h.strip().lower() for h in header]
    missing = [c for c in _COLUMNS if c not in names]
    if missing:
        raise ValueError(
            f"{source}:1: no column {', '.join(missing)} (the first line names the columns {', '.join(_COLUMNS)})"
        )
    where = {c: names.index(c) for c in _COLUMNS}
    pairings = Pairings()
    playing: dict[tuple[str, str], int] = {}
    count = 0
    try:
        for row in rows:
            line = rows.line_num
            if not any(cell.strip() for cell in row):
                continue
            count += 1
            if count > MAX_PAIRINGS:
                raise ValueError(f"{source}:{line}: more than {MAX_PAIRINGS} pairings")
            if len(row) < len(header):
                raise ValueError(f"{source}:{line}: expected {len(header)} cells, got {len(row)}")
            round_ = " ".join(row[where["round"]].split())
            if not round_ or len(round_) > 20 or not round_.isprintable():
                raise ValueError(f"{source}:{line}: round {row[where['round']]!r}: give a round of up to 20 characters")
            board = row[where["board"]].strip()
            try:
                check_name(board, "board")
            except ValueError as exc:
                raise ValueError(f"{source}:{line}: {exc}") from None
            if board in RESERVED:
                raise ValueError(f"{source}:{line}: {board!r} is an account of its own, not a board's name")
            black, white = player_name(row[where["black"]]), player_name(row[where["white"]])
            for colour, name in (("black", black), ("white", white)):
                if name is None:
                    raise ValueError(
                        f"{source}:{line}: {colour} {row[where[colour]]!r} is no player's name "
                        "(empty, ?, -, control characters or over 40 characters)"
                    )
            assert black is not None and white is not None
            if black == white:
                raise ValueError(f"{source}:{line}: {black} cannot play {white}")
            if board in pairings.by_round.get(round_, {}):
                raise ValueError(f"{source}:{line}: {board} is paired twice in round {round_}")
            for name in (black, white):
                if (round_, name) in playing:
                    raise ValueError(
                        f"{source}:{line}: {name} is paired twice in round {round_} (line {playing[round_, name]} too)"
                    )
                playing[round_, name] = line
            pairings.by_round.setdefault(round_, {})[board] = Pairing(round_, board, black, white)
    except csv.Error as exc:
        raise ValueError(f"{source}:{rows.line_num}: {exc}") from None
    return pairings


class PairingsFile:
    """The pairings of a file, read again when it changes (looked at once a second at
    most). A file that cannot be read keeps the pairings last read, with one logged error
    naming the file, the line and the problem."""

    def __init__(self, path: str | os.PathLike[str], clock: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(path)
        self._clock = clock
        self._seen: tuple[int, int] | None = None
        self._looked = -1e9
        self.problem: str | None = None
        self.pairings = Pairings()
        self.load()

    def load(self) -> None:
        """Read the file now; ValueError naming it and the problem when it cannot be read."""
        try:
            stat = self.path.stat()
            data = read_bytes(self.path, MAX_BYTES)
        except FileRefused as exc:
            raise ValueError(str(exc)) from None
        except OSError as exc:
            raise ValueError(f"{self.path}: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError(f"{self.path}: not UTF-8 text") from None
        self.pairings = read_pairings(text, str(self.path))
        self._seen = (stat.st_mtime_ns, stat.st_size)
        self.problem = None

    def current(self) -> Pairings:
        """The pairings, read again first if the file changed (once a second at most)."""
        now = self._clock()
        if now - self._looked >= 1.0:
            self._looked = now
            try:
                stat = self.path.stat()
                changed = (stat.st_mtime_ns, stat.st_size) != self._seen
            except OSError as exc:
                changed, problem = False, f"{self.path}: {exc.strerror or exc}"
                self._report(problem)
            if changed:
                try:
                    self.load()
                    log.info(
                        "hall: pairings read again from %s: round %s is the current round",
                        self.path,
                        self.pairings.current_round,
                    )
                except ValueError as exc:
                    self._report(str(exc))
        return self.pairings

    def _report(self, problem: str) -> None:
        if problem != self.problem:
            log.error("hall: %s; the pairings read before stand", problem)
        self.problem = problem
