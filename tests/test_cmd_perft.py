"""``crownhead perft``: the last line is the count; errors are one line and exit code 2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crownhead.firmware.cli import main

LOOP = "B:WK6,K7,K14,15,K28:BK9"  # a Black king can go round four pieces either way


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["perft", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


@pytest.mark.parametrize(("depth", "count"), [(0, 1), (1, 7), (4, 1469), (6, 36768)])
def test_last_line_is_the_count(capsys: pytest.CaptureFixture[str], depth: int, count: int) -> None:
    code, lines, err = run(capsys, "--depth", str(depth))
    assert code == 0
    assert lines[-1] == str(count)
    assert err == ""


def test_divide_lists_every_move_and_sums_to_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "--depth", "5", "--divide")
    assert code == 0
    rows = [line.split(": ") for line in lines[:-1]]
    # In square order, the order of `crownhead moves`.
    assert [move for move, _ in rows] == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert sum(int(n) for _, n in rows) == int(lines[-1]) == 7361


def test_divide_writes_captures_by_their_full_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "--fen", LOOP, "--depth", "2", "--divide")
    assert code == 0
    assert sorted(lines[:-1]) == ["9x18x11x2x9: 2", "9x2x11x18x9: 2"]
    assert lines[-1] == "4"


def test_unique_merges_the_two_loop_routes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--fen", LOOP, "--depth", "3")[1][-1] == "16"
    assert run(capsys, "--fen", LOOP, "--depth", "3", "--unique")[1][-1] == "8"
    code, lines, _ = run(capsys, "--fen", LOOP, "--depth", "3", "--unique", "--divide")
    assert code == 0
    assert len(lines) == 2 and lines[-1] == "8"


def test_rule_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--depth", "4", "--captures-optional")[1][-1] == "2872"
    man_loop = "B:W6,7,14,15,K28:B9"
    assert run(capsys, "--fen", man_loop, "--depth", "1")[1][-1] == "1"
    assert run(capsys, "--fen", man_loop, "--depth", "1", "--men-capture-backward")[1][-1] == "2"


def test_time_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "--depth", "3", "--time")
    assert code == 0 and lines == ["302"]
    assert "leaves/s" in err


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--fen", "X:W21:B1", "--depth", "2"], "X:W21:B1"),
        (["--fen", "B:W21,33:B1", "--depth", "2"], "33"),
        (["--fen", "B:W5,5:B1", "--depth", "1"], "5"),
        (["--depth", "-1"], "--depth"),
        (["--fen", "", "--depth", "1"], "FEN ''"),  # not silently the start position
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], named: str) -> None:
    code, lines, err = run(capsys, *args)
    assert code == 2
    assert lines == []
    assert len(err.strip().splitlines()) == 1, err
    assert named in err
    assert err.startswith("crownhead perft: --")  # the command and the option at fault
    assert "Traceback" not in err


def test_depth_that_is_not_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["perft", "--depth", "deep"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--depth" in err and "deep" in err and "Traceback" not in err


def test_installed_command() -> None:
    exe = shutil.which("crownhead", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("the crownhead script is not installed beside this Python")
    done = subprocess.run([exe, "perft", "--depth", "5"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "7361"
    bad = subprocess.run(
        [exe, "perft", "--fen", "nonsense", "--depth", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
