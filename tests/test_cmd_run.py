"""``crownhead run``: headless scripts, options, errors as one line, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.storage.store import GameStore

REPO = Path(__file__).resolve().parents[1]
OPENING = "lift 11\nwait 300\nplace 15\nwait 800\nlift 22\nwait 200\nplace 18\nwait 800\n"


def script(tmp_path: Path, text: str = OPENING) -> str:
    path = tmp_path / "script.txt"
    path.write_text(text)
    return str(path)


def json_events(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_headless_script_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    code = main(["run", "--headless", "--script", script(tmp_path), "--state-dir", str(state), "--log", "json"])
    assert code == 0
    events = json_events(capsys.readouterr().out)
    kinds = [e["event"] for e in events]
    assert kinds == ["new-game", "game-start", "move", "move", "notice"]
    assert [e["move"] for e in events if e["event"] == "move"] == ["11-15", "22-18"]
    assert events[-1]["message"].startswith("stopped")
    assert GameStore(state).load_current().moves == ("11-15", "22-18")


def test_a_pure_python_search_is_said_once_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from crownhead.rules.engine import native

    args = ["run", "--headless", "--script", script(tmp_path), "--state-dir", str(tmp_path / "s"), "--log", "json"]
    was = native.wanted()
    try:
        monkeypatch.setenv(native.ENV, "python")  # read by the command, as on the board
        assert main(args) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "engine: pure-Python search" in line]
        assert len(said) == 1 and "CROWNHEAD_ENGINE=python" in said[0]
        monkeypatch.setenv(native.ENV, "native")
        assert main(args) == 0
        assert ("engine: pure-Python search" in capsys.readouterr().err) != native.built()
    finally:
        native.choose("native" if was else "python")  # as the suite was run


def test_headless_script_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--script", script(tmp_path), "--state-dir", str(tmp_path / "s")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.endswith("move 1: black 11-15") for line in lines)
    assert any(line.endswith("move 2: white 22-18") for line in lines)
    assert lines[0].split()[0] == "0.000"


def test_script_resumes_with_sim_keep_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path / "state")
    assert main(["run", "--script", script(tmp_path), "--state-dir", state, "--log", "json"]) == 0
    capsys.readouterr()
    more = script(tmp_path, "lift 15\nplace 22\nlift 18\nwait 800\n")
    assert main(["run", "--script", more, "--state-dir", state, "--log", "json", "--sim-keep-game"]) == 0
    events = json_events(capsys.readouterr().out)
    assert events[0] == {**events[0], "event": "game-start", "resumed": True, "ply": 2}
    assert [e["move"] for e in events if e["event"] == "move"] == ["15x22"]
    assert GameStore(state).load_current().moves == ("11-15", "22-18", "15x22")


def test_computer_mode_with_the_random_test_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "run",
        "--script",
        script(tmp_path, "lift 11\nplace 15\nwait 800\n"),
        "--state-dir",
        str(tmp_path / "s"),
        "--log",
        "json",
        "--mode",
        "computer",
        "--opponent",
        "random",
        "--seed",
        "5",
    ]
    assert main(args) == 0
    events = json_events(capsys.readouterr().out)
    chosen = [e for e in events if e["event"] == "computer-move"]
    assert len(chosen) == 1 and chosen[0]["player"] == "Random mover (test player)"


def test_computer_mode_with_the_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "run",
        "--script",
        script(tmp_path, "lift 11\nplace 15\nwait 800\n"),
        "--state-dir",
        str(tmp_path / "s"),
        "--log",
        "json",
        "--mode",
        "computer",
        "--level",
        "1",
        "--seed",
        "2",
    ]
    assert main(args) == 0
    chosen = [e for e in json_events(capsys.readouterr().out) if e["event"] == "computer-move"]
    assert len(chosen) == 1 and chosen[0]["player"] == "Crownhead engine (level 1)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--script", "{script}", "--hal", "gpio"], "--script needs the simulated board"),
        (["--script", "{missing}"], "cannot read"),
        (["--script", "{bad}"], "line 2: unknown action 'jump'"),
        (["--headless", "--config", "{config}"], "play.mode"),
        (["--headless", "--config", "{palette}"], "palette.target"),
        (["--headless", "--fen", "X:nonsense"], "FEN"),
        (["--sim-keep-game", "--hal", "serial", "--headless"], "--sim-keep-game needs the simulated board"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    (tmp_path / "bad.txt").write_text("lift 11\njump 15\n")
    (tmp_path / "c.toml").write_text('[play]\nmode = "chess"\n')
    (tmp_path / "p.toml").write_text('[palette]\ntarget = "blue"\n')
    values = {
        "script": script(tmp_path),
        "missing": str(tmp_path / "nope.txt"),
        "bad": str(tmp_path / "bad.txt"),
        "config": str(tmp_path / "c.toml"),
        "palette": str(tmp_path / "p.toml"),
    }
    argv = ["run", "--state-dir", str(tmp_path / "s")] + [a.format(**values) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_config_sections_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    state = tmp_path / "from-config"
    config.write_text(
        f'[play]\nblack_name = "Ann"\nwhite_name = "Bob"\nsite = "Club"\n'
        f'[store]\nstate_dir = "{state}"\n[palette]\ntarget = "#102030"\nbrightness = 0.5\n'
    )
    assert main(["run", "--script", script(tmp_path), "--config", str(config)]) == 0
    record = GameStore(state).load_current()
    assert (record.black, record.white, record.site) == ("Ann", "Bob", "Club")


def test_state_dir_in_use_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "s"
    holder = GameStore(state)
    holder.acquire()
    try:
        assert main(["run", "--script", script(tmp_path), "--state-dir", str(state)]) == 2
        assert "another crownhead" in capsys.readouterr().err
    finally:
        holder.release()


def _start(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "run",
            "--headless",
            "--log",
            "json",
            "--state-dir",
            str(tmp_path / "s"),
            *extra,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_stop_cleanly(tmp_path: Path, sig: int) -> None:
    proc = _start(tmp_path)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "new-game"
        assert json.loads(proc.stdout.readline())["event"] == "game-start"
        time.sleep(0.1)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    last = json.loads(out.splitlines()[-1])
    assert last["event"] == "notice" and last["message"].startswith("stopped")
    # Nothing on stderr but the start-up note of a pure-Python search (CROWNHEAD_ENGINE=python).
    assert [line for line in err.splitlines() if "engine: pure-Python search" not in line] == []
    assert GameStore(tmp_path / "s").load_current() is not None
    # The lock went with the process.
    GameStore(tmp_path / "s").acquire()


def test_main_loop_is_idle_when_nothing_happens(tmp_path: Path) -> None:
    """Headless on the simulator: with nothing happening, the loop barely uses the CPU."""
    proc = _start(tmp_path)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        proc.stdout.readline()
        with open(f"/proc/{proc.pid}/stat") as f:
            before = f.read().split()
        time.sleep(1.0)
        with open(f"/proc/{proc.pid}/stat") as f:
            after = f.read().split()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    ticks = (int(after[13]) + int(after[14])) - (int(before[13]) + int(before[14]))
    hz = os.sysconf("SC_CLK_TCK")
    # Not a timing assertion on speed: an idle loop must not spin (a busy loop takes ~100%).
    assert ticks / hz < 0.5


def test_the_commands_load_no_library_they_do_not_use() -> None:
    # Every command's module is imported to build the parser, `crownhead run` too: the
    # score sheets' fpdf2 (with the NumPy and fontTools it loads) and the endgame
    # builder's NumPy are loaded by the commands that draw or build, not by the board
    # (its memory: see bench/web.py's idle figure).
    code = (
        "import sys\n"
        "from crownhead.firmware.cli import build_parser\n"
        "build_parser()\n"
        "import crownhead.firmware.cli.run, crownhead.firmware.web.server\n"
        "print(sorted(m for m in ('numpy', 'fpdf', 'fontTools') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
