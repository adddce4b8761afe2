"""SIGKILL at random moments: every move the board announced is still there after a restart.

The application runs as a real process (``crownhead run --script``) playing scripted games
made by messy human hands (:func:`crownhead.firmware.simulator.hands.game_actions`) on the simulated board. The
test kills it with SIGKILL at random moments (during start-up or resume, in the middle of
a move, while a save is being written, just after a game ended...), restarts it on the
same state directory, and checks that

* the restarted application resumes exactly the saved game, which holds every move any
  killed run announced (a move is announced only after it is saved) and only moves of
  the scripted game;
* no run ever sees a torn or unreadable state file;
* each game ends up as one PDN file with exactly its moves, and no temporary file is left.

The simulated board keeps the pieces where they stood (``--sim-keep-game``), as a real
board does through a power cut, and each new script carries on from the saved position.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.simulator.hands import game_actions, script_text
from crownhead.firmware.storage.store import GameStore
from crownhead.rules import WCDF, Game, Move

from helpers.games import random_game

REPO = Path(__file__).resolve().parents[1]


def scripted_game(seed: int, max_plies: int = 100) -> tuple[list[Move], bool]:
    """A random game's moves, and whether it must be ended by resigning (not over by then)."""
    game = random_game(seed, max_plies)
    return list(game.moves), not game.is_over


def script_from(moves: list[Move], ply: int, rng: random.Random, resign: bool) -> str:
    """Hand actions for ``moves[ply:]`` (the first ``ply`` moves already stand on the board)."""
    game = Game(None, WCDF)
    for move in moves[:ply]:
        game.play(move)
    flagged = []
    for move in moves[ply:]:
        flagged.append((move, game.position.crowns(move, WCDF)))
        game.play(move)
    text = script_text(game_actions(flagged, rng))
    if resign:
        text += "\nwait 800\nhold resign"
    return text + "\nwait 800\n"


def route(moves: list[Move]) -> list[tuple[int, int, frozenset[int]]]:
    """Moves as the board sees them: a king's circular capture taken in the other direction
    leaves the same board, and a person who does not touch down on the landing squares
    does not say which way round it went."""
    return [(m.start, m.end, frozenset(m.captures)) for m in moves]


def read_events(raw: bytes) -> list[dict[str, object]]:
    events = []
    for line in raw.decode(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break  # the last line, cut short by the kill
    return events


class Launcher:
    """Starts the application as a new process.

    ``exec`` runs ``python -m crownhead.firmware.cli`` afresh; ``fork`` forks this (test) process,
    whose modules are already imported, and runs the same ``main`` in the child, which
    saves ~0.2 s of interpreter start-up per run. Either way the application is a process
    of its own, with its own signal handlers, that SIGKILL takes down.
    """

    def __init__(self, how: str, tmp_path: Path) -> None:
        self.how = how
        self.out = tmp_path / "out.jsonl"
        self.err = tmp_path / "err.txt"
        self._status: dict[int, int] = {}
        if how == "fork":
            from crownhead.firmware.cli import build_parser

            build_parser()  # imports every command module once, before any fork

    def start(self, argv: list[str]) -> int:
        if self.how == "exec":
            with open(self.out, "wb") as out, open(self.err, "wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "crownhead.firmware.cli", *argv],
                    cwd=REPO,
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                )
            return proc.pid
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: the application, nothing of pytest's business after this
            code = 70
            try:
                code = _child_main(argv, self.out, self.err)
            finally:
                os._exit(code)
        return pid

    def _reap(self, pid: int, flags: int) -> bool:
        if pid in self._status:
            return True
        done, status = os.waitpid(pid, flags)
        if done == 0:
            return False
        self._status[pid] = os.waitstatus_to_exitcode(status)
        return True

    def alive(self, pid: int) -> bool:
        return not self._reap(pid, os.WNOHANG)

    def wait(self, pid: int) -> int:
        self._reap(pid, 0)
        return self._status[pid]


def _child_main(argv: list[str], out: Path, err: Path) -> int:
    import traceback

    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    try:
        from crownhead.firmware.cli import main

        code = main(argv)
    except BaseException:
        traceback.print_exc()
        code = 70
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def run_once(
    launcher: Launcher, state: Path, script: Path, rng: random.Random, kill: bool
) -> tuple[list[dict[str, object]], bool]:
    """Run the application on ``script``; with ``kill``, SIGKILL it at a random moment."""
    argv = ["run", "--log", "json", "--sim-keep-game", "--script", str(script), "--state-dir", str(state)]
    launcher.out.write_bytes(b"")
    pid = launcher.start(argv)
    try:
        if kill:
            if rng.random() < 0.25:
                # Anywhere from start-up on: loading, resuming, the first saves.
                time.sleep(rng.uniform(0, 0.1 if launcher.how == "fork" else 0.3))
            else:
                # Mid-game: after a random number of announced moves, plus a little, so the
                # kill also lands inside saves and tracker work.
                target = rng.randint(0, 30)
                deadline = time.monotonic() + 30
                while launcher.alive(pid) and time.monotonic() < deadline:
                    if launcher.out.read_bytes().count(b'"event":"move"') >= target:
                        break
                    time.sleep(0.0005)
                time.sleep(rng.uniform(0, 0.003))
            if launcher.alive(pid):
                os.kill(pid, signal.SIGKILL)
        code = launcher.wait(pid)
    finally:
        if launcher.alive(pid):
            os.kill(pid, signal.SIGKILL)
            launcher.wait(pid)
    err = launcher.err.read_text(errors="replace") if launcher.err.exists() else ""
    # A process that ended by itself just before the signal reached it exits with 0.
    killed = code == -signal.SIGKILL
    assert killed or code == 0, err
    assert "Traceback" not in err, err
    return read_events(launcher.out.read_bytes()), killed


def replay_pdn(text: str) -> list[Move]:
    game = Game(None, WCDF)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    for token in body.split():
        if token[0].isdigit() and ("-" in token or "x" in token) and token not in ("1-0", "0-1", "1/2-1/2", "*"):
            game.play_text(token)
    return list(game.moves)


def play_with_kills(tmp_path: Path, state: Path, kills: int, seed: int, how: str) -> None:
    launcher = Launcher(how, tmp_path)
    rng = random.Random(seed)
    script = tmp_path / "script.txt"
    kills_done = 0
    games: list[list[Move]] = []
    while kills_done < kills:
        moves, resign = scripted_game(rng.randrange(1 << 30))
        announced = 0  # the highest ply any run of this game announced
        while len(GameStore(state).game_files()) == len(games):
            saved = GameStore(state).load_current()  # raises on a torn file
            if saved is not None and saved.finished:
                # Killed while a finished game was being written (this one, or the one
                # before): the next start writes it again and begins a new game.
                assert route(list(saved.to_game().moves)) in (route(moves), route(games[-1]) if games else None)
                script.write_text("")
                events, killed = run_once(launcher, state, script, rng, kill=kills_done < kills)
                kills_done += killed
                continue
            ply = len(saved.moves) if saved is not None else 0
            if saved is not None:
                assert route(list(saved.to_game().moves)) == route(moves[:ply]), "the saved game is not the one played"
                moves[:ply] = saved.to_game().moves  # the route the board recorded
            assert ply >= announced, f"{announced} moves were announced, only {ply} are saved"
            script.write_text(script_from(moves, ply, rng, resign))
            events, killed = run_once(launcher, state, script, rng, kill=kills_done < kills)
            kills_done += killed
            starts = [e for e in events if e["event"] == "game-start"]
            if starts:
                assert starts[0]["ply"] == ply and starts[0]["resumed"] is (saved is not None)
            for e in events:
                assert e["event"] not in ("takeback", "warning"), e
                if e["event"] == "move":
                    announced = max(announced, int(e["ply"]))  # type: ignore[call-overload]
            if not killed:
                assert any(e["event"] == "game-saved" for e in events), events[-3:]
        games.append(moves)
    kept = sorted(str(route(replay_pdn(p.read_text()))) for p in GameStore(state).game_files())
    assert kept == sorted(str(route(moves)) for moves in games)
    assert not list(state.rglob(".*.tmp"))


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """The state directory, in memory (tmpfs) when the machine has one.

    SIGKILL tests what a crash of the process leaves behind; the kernel still holds every
    write, so the fsyncs (which guard against power loss, and cost milliseconds each on a
    disk) protect nothing here and only slow the test down.
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        directory = Path(tempfile.mkdtemp(prefix="crownhead-kill-", dir=shm))
        try:
            yield directory / "state"
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    else:
        yield tmp_path / "state"


def test_sigkill_at_random_moments_loses_no_committed_move(tmp_path: Path, state: Path) -> None:
    """60 kills of processes forked from a preloaded server (fast enough for every run)."""
    play_with_kills(tmp_path, state, kills=int(os.environ.get("CROWNHEAD_KILLS", "60")), seed=1, how="fork")


@pytest.mark.slow
def test_sigkill_the_real_command_many_times(tmp_path: Path) -> None:
    """200 kills of ``python -m crownhead.firmware.cli run`` started afresh each time, on disk."""
    play_with_kills(tmp_path, tmp_path / "state", kills=200, seed=2, how="exec")
