"""``crownhead replay``: the command line as outside checks use it (subprocess, JSON Lines)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.simulator.script import ScriptError, parse_script

START_AFTER_11_15 = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"


def crownhead(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_script_from_a_file(tmp_path: Path):
    script = tmp_path / "game.txt"
    script.write_text("# Black opens\nlift 11\nwait 400\n\nplace 15   # lands\nwait 1000\n")
    done = crownhead("replay", str(script))
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout) == [
        {"t": 730, "event": "move", "ply": 1, "side": "black", "move": "11-15", "path": [11, 15], "captures": []},
        {"t": 1400, "event": "final", "fen": START_AFTER_11_15, "plies": 1},
    ]
    assert done.stderr == ""


def test_script_from_stdin_with_fen_and_lights():
    done = crownhead(
        "replay", "-", "--fen", "B:W18,30:B15,1", "--lights", stdin="lift 15\nwait 300\nplace 22\nlift 18\n"
    )
    assert done.returncode == 0, done.stderr
    out = lines(done.stdout)
    assert out[0] == {"t": 0, "event": "lights", "roles": {"15": "must-capture"}}  # as the board lights it
    assert out[1] == {"t": 30, "event": "lights", "roles": {"15": "touched", "18": "capture", "22": "target"}}
    assert out[-1] == {"t": 630, "event": "final", "fen": "W:W30:B1,22", "plies": 1}
    assert {
        "t": 630,
        "event": "move",
        "ply": 1,
        "side": "black",
        "move": "15x22",
        "path": [15, 22],
        "captures": [18],
    } in out
    assert all(list(o)[:2] == ["t", "event"] for o in out)


def test_rule_options():
    # Men capturing backward: 15x8 over 11.
    done = crownhead(
        "replay", "-", "--fen", "B:W11,30:B15,1", "--men-capture-backward", stdin="lift 15\nplace 8\nlift 11\n"
    )
    assert lines(done.stdout)[0]["move"] == "15x8"
    # Captures optional: the quiet 15-19 is accepted although 15x22 is on.
    done = crownhead("replay", "-", "--fen", "B:W18,30:B15,1", "--captures-optional", stdin="lift 15\nplace 19\n")
    assert lines(done.stdout)[0]["move"] == "15-19"
    done = crownhead("replay", "-", "--fen", "B:W18,30:B15,1", stdin="lift 15\nplace 19\n")
    assert lines(done.stdout)[0]["event"] == "warning"


def test_referee_mode_lights_show_no_hints():
    done = crownhead("replay", "-", "--mode", "referee", "--lights", stdin="lift 11\nwait 300\nplace 15\n")
    assert [o["roles"] for o in lines(done.stdout) if o["event"] == "lights"] == [
        {"11": "touched"},
        {},
        {"11": "last-from", "15": "last-to"},
    ]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            "lift 11\nwait 100\njump 15\n",
            "line 3: unknown action 'jump' (lift S, place S, wait MS, press NAME, hold NAME)",
        ),
        ("lift 11\nplace 33\n", "line 2: place needs a square 1-32, got '33'"),
        ("wait -5\n", "line 1: wait needs whole milliseconds >= 0, got '-5'"),
        ("lift\n", "line 1: lift takes exactly one argument, got 0"),
        ("# fine\nlift 11 15\n", "line 2: lift takes exactly one argument, got 2"),
    ],
)
def test_malformed_line_stops_with_its_number_and_exit_code_2(script, message):
    done = crownhead("replay", "-", stdin=script)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"crownhead replay: <stdin>: {message}\n"


def test_impossible_action_stops_with_its_line_after_the_events_before():
    done = crownhead("replay", "-", stdin="lift 11\nwait 400\nplace 15\nwait 1000\nlift 14\n")
    assert done.returncode == 2
    assert [o["event"] for o in lines(done.stdout)] == ["move"]
    assert done.stderr.startswith("crownhead replay: <stdin>: line 5: lift 14: no piece on square 14")
    assert done.stderr.count("\n") == 1


def test_bad_fen_and_missing_file(tmp_path: Path):
    done = crownhead("replay", "-", "--fen", "X:W1:B2", stdin="")
    assert done.returncode == 2 and "FEN" in done.stderr and "Traceback" not in done.stderr
    done = crownhead("replay", str(tmp_path / "nope.txt"))
    assert done.returncode == 2
    assert done.stderr.startswith("crownhead replay: cannot read ")
    assert "Traceback" not in done.stderr


def test_empty_script_prints_the_final_position(capsys):
    assert main(["replay", "/dev/null"]) == 0
    out = lines(capsys.readouterr().out)
    assert out == [
        {
            "t": 0,
            "event": "final",
            "fen": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
            "plies": 0,
        }
    ]


def test_press_any_button_name_and_clock_runs_on_after_the_script():
    # The move is settled 300 ms after the last line: the clock runs on to accept it.
    done = crownhead("replay", "-", stdin="press hint\nlift 11\nplace 15\n")
    assert lines(done.stdout) == [
        {"t": 330, "event": "move", "ply": 1, "side": "black", "move": "11-15", "path": [11, 15], "captures": []},
        {"t": 330, "event": "final", "fen": START_AFTER_11_15, "plies": 1},
    ]


def test_parse_script_reports_the_first_bad_line():
    with pytest.raises(ScriptError) as info:
        parse_script(["lift 11", "", "# ok", "press !"])
    assert info.value.line == 4
    assert [str(a) for a in parse_script("LIFT 11\nPress New\n")] == ["lift 11", "press new"]


def test_a_script_whose_game_passes_the_plies_of_any_real_game_stops_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 54: a 3.4 MB script (kings shuffling) ran for minutes; the bound is injected small.
    import crownhead.firmware.simulator.script as script_module

    monkeypatch.setattr(script_module, "MAX_PLIES", 6)
    shuffle = "".join(f"lift {a}\nplace {b}\nwait 300\n" for a, b in [(1, 5), (32, 27), (5, 1), (27, 32)] * 3)
    path = tmp_path / "long.txt"
    path.write_text(shuffle)
    assert main(["replay", "--fen", "B:WK32:BK1", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"crownhead replay: {path}: line 24: the game passes 6 plies: no real game has as many\n"


def test_a_long_script_is_never_held_as_a_list_of_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 54: a 3.4 MB script grew the replay to 141 MB; its actions are now read as it goes.
    import tracemalloc

    path = tmp_path / "waits.txt"
    # 20,000 lines: held as a list they peak at 4.2 MB, read as they go at 0.6 MB.
    path.write_text("lift 11\nplace 15\n" + "wait 1\n" * 20_000)  # 140 KB
    small = tmp_path / "small.txt"
    small.write_text("lift 11\nplace 15\nwait 400\n")
    assert main(["replay", str(small)]) == 0  # the command's modules imported
    capsys.readouterr()
    tracemalloc.start()
    try:
        assert main(["replay", str(path)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert capsys.readouterr().out.splitlines()[-1].startswith('{"t":20')
    # The script's text (0.14 MB) and the board: no list of 20,000 lines nor actions.
    assert peak < 1_500_000, f"peak {peak / 1e6:.1f} MB for a 0.14 MB script"


def test_scripts_split_lines_as_splitlines_does() -> None:
    from crownhead.firmware.simulator.script import _lines

    for text in ["", "a", "a\n", "a\r\nb\rc\x0bd\x1ce\u2028f\n\ng", "\n\n", "x\r"]:
        assert list(_lines(text)) == text.splitlines()
