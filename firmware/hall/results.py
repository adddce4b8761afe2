"""A board's record of its finished games for the hall: on disk, numbered, kept until acknowledged.

Every game that ends on a board reporting to a hall is written here (the board's state
at its end, numbered 1, 2, 3... in the record's own ``journal``, a random name made
with the file) before anything is sent, and it stays until the hall acknowledges it on
the board's ``ack`` topic with ``{"journal": J, "seq": N}`` (retained: a board that comes
back reads it at once). The board sends every result not acknowledged each time it
connects and again while none comes, so a result finished while the broker was away,
or the hall was, or before the board's power was cut, reaches the hall; the hall counts
a game once however often it hears it (docs/hall.md, *Nothing lost*).

>>> record = ResultRecord(None)
>>> first = record.add({"game_id": "g1", "result": "1-0"})
>>> second = record.add({"game_id": "g2", "result": "0-1"})
>>> [r.seq for r in record.unacknowledged()], first.message()["journal"] == record.journal
([1, 2], True)
>>> record.acknowledge({"journal": record.journal, "seq": 1}), [r.seq for r in record.unacknowledged()]
(True, [2])
>>> record.acknowledge({"journal": "another board's", "seq": 2})  # not this record's: nothing changes
False
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crownhead.firmware.files import FileRefused, atomic_write, move_aside, parse_json, printable, read_bytes

__all__ = ["ResultRecord", "Result", "results_file", "parse_ack", "parse_result", "MAX_RESULTS", "FORMAT_VERSION"]

log = logging.getLogger(__name__)

#: Results kept waiting for the hall at most (a season of a board's games); past that
#: the oldest go, with one logged error.
MAX_RESULTS = 200
#: The file's cap when it is read back (a result is a state of a few KiB).
MAX_BYTES = 16 * 1024 * 1024
FORMAT_VERSION = 1
#: A journal's name: what the hall's acknowledgement names.
_JOURNAL_CHARS = 32


def results_file(state_dir: str | os.PathLike[str], hall: str, board: str) -> Path:
    """Where ``board`` keeps its results for ``hall`` in ``state_dir``."""
    return Path(state_dir) / f"mqtt-{hall}-{board}-results.json"


@dataclass(frozen=True, slots=True)
class Result:
    """One finished game as the board sends it: its number and its state at the end."""

    journal: str
    seq: int
    state: Mapping[str, Any]

    def message(self) -> dict[str, Any]:
        return {"journal": self.journal, "seq": self.seq, "state": dict(self.state)}


def _journal_name(value: object) -> str | None:
    if isinstance(value, str) and 0 < len(value) <= _JOURNAL_CHARS and value.isascii() and value.isalnum():
        return value
    return None


def _seq(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10**12 else None


def parse_ack(body: object) -> tuple[str, int] | None:
    """The journal and number a hall's acknowledgement names (None: it is none).

    >>> parse_ack({"journal": "ab12", "seq": 3}), parse_ack({"journal": "a/b", "seq": 3}), parse_ack([1])
    (('ab12', 3), None, None)
    """
    if not isinstance(body, dict):
        return None
    journal, seq = _journal_name(body.get("journal")), _seq(body.get("seq"))
    return (journal, seq) if journal is not None and seq is not None else None


def parse_result(body: object) -> Result | None:
    """A board's ``result`` message as the hall reads it (None: not one); the state is
    still the board's, to be cleaned by the hall.

    >>> parse_result({"journal": "ab12", "seq": 1, "state": {"result": "1-0"}}).seq
    1
    >>> parse_result({"journal": "ab12", "seq": 0, "state": {}}) is None
    True
    """
    if not isinstance(body, dict) or not isinstance(body.get("state"), dict):
        return None
    named = parse_ack(body)
    return Result(named[0], named[1], body["state"]) if named is not None else None


class ResultRecord:
    """The board's finished games not yet acknowledged by the hall, kept in ``path``
    (None: in memory only, as ``crownhead replay --mqtt`` does). Thread-safe: added to
    on the main loop, acknowledged from the MQTT client's thread.

    A file that cannot be read is set aside (``*.bad``) with one logged error and a new
    journal begins (the hall, idempotent, counts nothing twice)."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = Path(path) if path is not None else None
        self.journal = secrets.token_hex(8)
        self._next = 1
        self._waiting: list[Result] = []
        self._lock = threading.Lock()
        self._save_error: str | None = None
        if self.path is not None:
            self._load(self.path)

    def add(self, state: Mapping[str, Any]) -> Result:
        """Keep the finished game ``state`` (written to the file before this returns)."""
        with self._lock:
            result = Result(self.journal, self._next, dict(state))
            self._next += 1
            self._waiting.append(result)
            if len(self._waiting) > MAX_RESULTS:
                lost = self._waiting.pop(0)
                log.error(
                    "mqtt: %d results wait for the hall's acknowledgement; result %d (%s) is no longer kept",
                    MAX_RESULTS,
                    lost.seq,
                    lost.state.get("game_id"),
                )
            self._save()
        return result

    def acknowledge(self, body: object) -> bool:
        """Take the hall's acknowledgement (its ``ack`` message, parsed JSON): every result
        up to the number it names is done with. True when that let any go."""
        named = parse_ack(body)
        if named is None or named[0] != self.journal:
            return False
        with self._lock:
            kept = [r for r in self._waiting if r.seq > named[1]]
            if len(kept) == len(self._waiting):
                return False
            self._waiting = kept
            self._save()
        return True

    def unacknowledged(self) -> list[Result]:
        """The results the hall has not acknowledged, oldest first."""
        with self._lock:
            return list(self._waiting)

    def _save(self) -> None:
        if self.path is None:
            return
        text = json.dumps(
            {
                "format": FORMAT_VERSION,
                "journal": self.journal,
                "next": self._next,
                "results": [{"seq": r.seq, "state": dict(r.state)} for r in self._waiting],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, text + "\n")
        except OSError as exc:
            problem = f"cannot keep the results for the hall in {self.path}: {exc.strerror or exc}"
            if problem != self._save_error:
                log.error("mqtt: %s (they are kept in memory until the board stops)", problem)
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
            self.journal, self._next, self._waiting = self._parse(data)
        except ValueError as exc:
            self._set_aside(path, str(exc))

    @staticmethod
    def _parse(data: bytes) -> tuple[str, int, list[Result]]:
        obj = parse_json(data)
        if not isinstance(obj, dict) or obj.get("format") != FORMAT_VERSION:
            raise ValueError(f"not a results file of format {FORMAT_VERSION}")
        journal, following = _journal_name(obj.get("journal")), _seq(obj.get("next"))
        items = obj.get("results")
        if journal is None or following is None or not isinstance(items, list) or len(items) > MAX_RESULTS:
            raise ValueError(f'expected "journal", "next" and a "results" list of at most {MAX_RESULTS}')
        waiting: list[Result] = []
        for n, item in enumerate(items, 1):
            seq = _seq(item.get("seq")) if isinstance(item, dict) else None
            if seq is None or seq >= following or not isinstance(item.get("state"), dict):
                raise ValueError(f"result {n}: expected a seq below {following} and a state")
            if waiting and seq <= waiting[-1].seq:
                raise ValueError(f"result {n}: seq {seq} is not after {waiting[-1].seq}")
            waiting.append(Result(journal, seq, item["state"]))
        return journal, following, waiting

    def _set_aside(self, path: Path, problem: str) -> None:
        shown = problem if printable(problem) else repr(problem)
        try:
            target = move_aside(path)
        except OSError as exc:
            log.error("mqtt: %s: %s; it cannot be moved aside (%s): results are not kept", path, shown, exc)
            self.path = None  # never overwrite what could not be read nor moved
            return
        log.error("mqtt: %s: %s; set aside as %s, a new record of results begins", path, shown, target.name)
