"""The last self-test's result in the state directory: written by ``crownhead selftest``,
read back strictly (versioned, bounded), never half-read."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.storage import selftest as record_file
from crownhead.firmware.storage.selftest import (
    MAX_BYTES,
    MAX_LINES,
    MAX_TEXT,
    SELFTEST_FILE,
    SelftestFileError,
    SelftestRecord,
    load_selftest,
    save_selftest,
)

WHEN = datetime(2026, 12, 1, 2, 55, 7, tzinfo=timezone.utc)


def test_never_run_then_kept_and_read_back(tmp_path: Path) -> None:
    assert load_selftest(tmp_path) is None
    record = SelftestRecord.of(WHEN, "gpio", ["Walked 32 square(s).", "FAULTS (1):", "  - square 5"], ["square 5"])
    path = save_selftest(tmp_path / "new" / "dir", record)
    assert path.name == SELFTEST_FILE
    again = load_selftest(path.parent)
    assert again == record and again.passed is False and again.time == "2026-12-01T02:55:07Z"
    assert [p.name for p in path.parent.iterdir()] == [SELFTEST_FILE]  # no temporary file left


def test_the_time_is_kept_in_utc_and_must_say_its_zone() -> None:
    plus_one = datetime(2026, 12, 1, 3, 55, 7, tzinfo=timezone(timedelta(hours=1)))
    assert SelftestRecord.of(plus_one, "sim", [], []).time == "2026-12-01T02:55:07Z"
    with pytest.raises(ValueError, match="time zone"):
        SelftestRecord.of(datetime(2026, 12, 1), "sim", [], [])


def test_what_is_kept_is_bounded(tmp_path: Path) -> None:
    lines = [f"line {i} " + "x" * 1000 for i in range(MAX_LINES + 50)]
    record = SelftestRecord.of(WHEN, "sim\n\x1b[31m", lines, lines)
    assert len(record.lines) == MAX_LINES + 1 and record.lines[-1] == "... and 50 more"
    assert all(len(line) <= MAX_TEXT for line in record.lines) and record.backend.isprintable()
    save_selftest(tmp_path, record)
    assert (tmp_path / SELFTEST_FILE).stat().st_size < MAX_BYTES
    assert load_selftest(tmp_path) == record


def _write(tmp_path: Path, obj: object) -> None:
    (tmp_path / SELFTEST_FILE).write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")


GOOD = {
    "format": "crownhead-selftest",
    "version": 1,
    "time": "2026-12-01T02:55:07Z",
    "passed": True,
    "backend": "sim",
    "lines": ["No faults found."],
    "faults": [],
}


@pytest.mark.parametrize(
    "obj, problem",
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ({**GOOD, "format": "something-else"}, 'format: not "crownhead-selftest"'),
        ({**GOOD, "version": 2}, "version 2: written by a newer crownhead"),
        ({**GOOD, "version": "1"}, "version: expected a number"),
        ({**GOOD, "time": "yesterday"}, "time: 'yesterday' is not an ISO 8601"),
        ({**GOOD, "passed": "yes"}, "passed: expected true or false"),
        ({**GOOD, "lines": "No faults found."}, "lines: expected a list"),
        ({**GOOD, "lines": [3]}, "lines[0]: expected a line"),
        ({**GOOD, "faults": ["x" * (MAX_TEXT + 1)]}, "faults[0]: expected a line"),
        ({**GOOD, "faults": ["square 5"]}, "passed: true but 1 faults listed"),
        ({k: v for k, v in GOOD.items() if k != "backend"}, "backend: expected a name"),
    ],
)
def test_a_bad_file_is_named_with_its_problem(tmp_path: Path, obj: object, problem: str) -> None:
    _write(tmp_path, obj)
    with pytest.raises(SelftestFileError) as info:
        load_selftest(tmp_path)
    assert str(info.value).startswith(str(tmp_path / SELFTEST_FILE) + ": ") and problem in str(info.value)


def test_a_huge_file_is_not_read(tmp_path: Path) -> None:
    _write(tmp_path, " " * (MAX_BYTES + 1))
    with pytest.raises(SelftestFileError, match="larger than"):
        load_selftest(tmp_path)


def test_crownhead_selftest_keeps_its_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    assert main(["selftest", "--hal", "sim", "--state-dir", str(state)]) == 0
    out = capsys.readouterr().out
    passed = load_selftest(state)
    assert passed is not None and passed.passed and passed.backend == "sim" and passed.faults == ()
    assert passed.lines[0] == "Walked 32 square(s)." and passed.lines[-1] == "No faults found."
    assert all(line in out for line in passed.lines)
    started = datetime.now(timezone.utc) - timedelta(minutes=5)
    assert datetime.fromisoformat(passed.time.replace("Z", "+00:00")) >= started

    assert main(["selftest", "--hal", "sim", "--sim-stuck", "12", "--state-dir", str(state)]) == 1
    failed = load_selftest(state)
    assert failed is not None and not failed.passed and len(failed.faults) == 1 and "square 12" in failed.faults[0]
    assert "FAULTS (1):" in failed.lines


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere: an unwritable directory needs another user")
def test_a_state_dir_that_cannot_be_written_costs_a_line_not_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert main(["selftest", "--hal", "sim", "--squares", "1", "--no-leds", "--state-dir", str(locked)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"crownhead selftest: the result was not kept in {locked}: ") and err.count("\n") == 1


def test_a_state_dir_that_is_a_file_costs_a_line_not_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert (
        main(
            ["selftest", "--hal", "sim", "--squares", "1", "--no-leds", "--sim-stuck", "1", "--state-dir", str(blocked)]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert err.startswith(f"crownhead selftest: the result was not kept in {blocked}: ") and err.count("\n") == 1
    assert blocked.read_text() == "not a directory"


def test_the_module_names_its_file() -> None:
    assert record_file.SELFTEST_FILE == "selftest.json" and record_file.VERSION == 1
