"""The last self-test's result, kept in the state directory (``selftest.json``).

``crownhead selftest`` writes it when it has run (atomically: a temporary file, fsync,
rename); the web page's status shows it. One small JSON object, versioned and bounded:

.. code-block:: json

    {"format": "crownhead-selftest", "version": 1, "time": "2026-12-01T02:55:00Z",
     "passed": false, "backend": "gpio",
     "lines": ["Walked 32 square(s).", "LED colours: checked", "FAULTS (1):",
               "  - square 12 (c5): ..."],
     "faults": ["square 12 (c5): ..."]}

``lines`` are what the test printed at its end (one per check), ``faults`` the faults
alone; ``passed`` is true when there were none. At most :data:`MAX_LINES` lines of at
most :data:`MAX_TEXT` characters each are kept (a note says how many more there were),
and a file larger than :data:`MAX_BYTES` is not read. A file that cannot be read (bad
JSON, another format, a newer version, a missing or wrong key) is reported with its
name and the problem, never half-read.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as state:
...     print(load_selftest(Path(state)))
...     record = SelftestRecord("2026-12-01T02:55:00Z", False, "sim", ("Walked 32 square(s).",), ("square 12: stuck",))
...     _ = save_selftest(Path(state), record)
...     load_selftest(Path(state)) == record
None
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from crownhead.firmware.files import atomic_write

__all__ = [
    "SELFTEST_FILE",
    "FORMAT",
    "VERSION",
    "MAX_LINES",
    "MAX_TEXT",
    "MAX_BYTES",
    "SelftestRecord",
    "SelftestFileError",
    "save_selftest",
    "load_selftest",
]

SELFTEST_FILE = "selftest.json"
FORMAT = "crownhead-selftest"
VERSION = 1
MAX_LINES = 200
MAX_TEXT = 300
MAX_BYTES = 128 * 1024


class SelftestFileError(ValueError):
    """The kept result cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class SelftestRecord:
    """One self-test's result: when (ISO 8601, UTC), whether it passed (no faults), the
    backend it ran on, its report's lines and its faults."""

    time: str
    passed: bool
    backend: str
    lines: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()

    @classmethod
    def of(cls, time: datetime, backend: str, lines: list[str], faults: list[str]) -> SelftestRecord:
        """A record of a run at ``time`` (an aware datetime), cut to the bounds.

        >>> from datetime import timezone
        >>> r = SelftestRecord.of(datetime(2026, 12, 1, 2, 55, tzinfo=timezone.utc), "sim", ["x" * 400], [])
        >>> r.time, r.passed, len(r.lines[0])
        ('2026-12-01T02:55:00Z', True, 300)
        """
        if time.tzinfo is None:
            raise ValueError("the time of a self-test must say its time zone")
        stamp = time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return cls(stamp, not faults, _text(backend), _bounded(lines), _bounded(faults))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "time": self.time,
            "passed": self.passed,
            "backend": self.backend,
            "lines": list(self.lines),
            "faults": list(self.faults),
        }


def save_selftest(state_dir: Path, record: SelftestRecord) -> Path:
    """Write ``record`` as the last self-test (replacing the one before, atomically);
    OSError if the state directory cannot be written."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / SELFTEST_FILE
    atomic_write(path, json.dumps(record.to_json(), ensure_ascii=False, indent=1) + "\n")
    return path


def load_selftest(state_dir: Path) -> SelftestRecord | None:
    """The last self-test, or None when none was ever kept here; :class:`SelftestFileError`
    naming the file and the problem when it cannot be read."""
    path = state_dir / SELFTEST_FILE
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SelftestFileError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise SelftestFileError(f"{path}: larger than {MAX_BYTES} bytes: not a self-test result")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SelftestFileError(f"{path}: not JSON: {exc}") from None
    return _record(obj, path)


def _record(obj: Any, path: Path) -> SelftestRecord:
    if not isinstance(obj, dict):
        raise SelftestFileError(f"{path}: not a JSON object")
    if obj.get("format") != FORMAT:
        raise SelftestFileError(f'{path}: format: not "{FORMAT}"')
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SelftestFileError(f"{path}: version: expected a number")
    if version > VERSION:
        raise SelftestFileError(f"{path}: version {version}: written by a newer crownhead (this one reads {VERSION})")
    if version < 1:
        raise SelftestFileError(f"{path}: version {version}: no such version")
    time = obj.get("time")
    if not isinstance(time, str) or len(time) > 40:
        raise SelftestFileError(f"{path}: time: expected a date and time")
    try:
        datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        raise SelftestFileError(f"{path}: time: {time!r} is not an ISO 8601 date and time") from None
    passed = obj.get("passed")
    if not isinstance(passed, bool):
        raise SelftestFileError(f"{path}: passed: expected true or false")
    backend = obj.get("backend")
    if not isinstance(backend, str) or len(backend) > MAX_TEXT:
        raise SelftestFileError(f"{path}: backend: expected a name")
    out: dict[str, tuple[str, ...]] = {}
    for key in ("lines", "faults"):
        value = obj.get(key)
        if not isinstance(value, list) or len(value) > MAX_LINES + 1:
            raise SelftestFileError(f"{path}: {key}: expected a list of at most {MAX_LINES} lines")
        for i, line in enumerate(value):
            if not isinstance(line, str) or len(line) > MAX_TEXT:
                raise SelftestFileError(f"{path}: {key}[{i}]: expected a line of at most {MAX_TEXT} characters")
        out[key] = tuple(value)
    if passed != (not out["faults"]):
        raise SelftestFileError(f"{path}: passed: {str(passed).lower()} but {len(out['faults'])} faults listed")
    return SelftestRecord(time, passed, backend, out["lines"], out["faults"])


def _text(line: str) -> str:
    line = "".join(ch if ch.isprintable() else " " for ch in str(line))
    return line if len(line) <= MAX_TEXT else line[: MAX_TEXT - 1] + "\u2026"


def _bounded(lines: list[str]) -> tuple[str, ...]:
    kept = [_text(line) for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        kept.append(f"... and {len(lines) - MAX_LINES} more")
    return tuple(kept)
