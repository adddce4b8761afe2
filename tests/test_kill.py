"""SIGKILL at random moments: every move the board announced is still there after a restart.

The application runs as a real process (``crownhead run --script``) playing scripted games
made by messy human hands (:func:`firmware.hands.game_actions`) on the simulated board. The
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
import multiprocessing
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

from firmware.hands import game_actions, script_text
from firmware.store import GameStore
from rules import Game, Move

REPO = Path(__file__).resolve().parents[1]


def scripted_game(seed: int, max_plies: int = 100) -> tuple[list[Move], bool]:
    """A random game's moves, and whether it must be ended by resigning (not over by then)."""
    rng = random.Random(seed)
    game = Game()
    while not game.is_over and game.ply < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return list(game.moves), not game.is_over


def script_from(moves: list[Move], ply: int, rng: random.Random, resign: bool) -> str:
    """Hand actions for ``moves[ply:]`` (the first ``ply`` moves already stand on the board)."""
    game = Game()
    for move in moves[:ply]:
        game.play(move)
    flagged = []
    for move in moves[ply:]:
        flagged.append((move, game.position.crowns(move)))
        game.play(move)
    text = script_text(game_actions(flagged, rng))
    if resign:
        text += "\nwait 800\npress resign"
    return text + "\nwait 800\n"


def read_events(raw: bytes) -> list[dict[str, object]]:
    events = []
    for line in raw.decode(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break  # the last line, cut short by the kill
    return events


class Launcher:
    """Starts the application as a new process: ``exec`` runs ``python -m firmware.cli``;
    ``fork`` forks it from a server process that has imported everything once
    (multiprocessing's forkserver), which saves ~0.2 s of start-up per run. Either way
    the application is a process of its own that SIGKILL takes down."""

    def __init__(self, how: str, tmp_path: Path) -> None:
        self.how = how
        self.out = tmp_path / "out.jsonl"
        self.err = tmp_path / "err.txt"
        if how == "fork":
            self.ctx = multiprocessing.get_context("forkserver")
            self.ctx.set_forkserver_preload(["firmware.cli", "firmware.commands.run", "firmware.commands.replay"])

    def start(self, argv: list[str]) -> object:
        if self.how == "exec":
            out = open(self.out, "wb")
            err = open(self.err, "wb")
            try:
                return subprocess.Popen(
                    [sys.executable, "-m", "firmware.cli", *argv],
                    cwd=REPO, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                )
            finally:
                out.close()
                err.close()
        proc = self.ctx.Process(target=_forked_main, args=(argv, str(self.out), str(self.err)))
        proc.start()
        return proc

    @staticmethod
    def pid(proc: object) -> int:
        return proc.pid  # type: ignore[attr-defined]

    @staticmethod
    def alive(proc: object) -> bool:
        if isinstance(proc, subprocess.Popen):
            return proc.poll() is None
        return proc.is_alive()  # type: ignore[attr-defined]

    @staticmethod
    def wait(proc: object) -> int:
        if isinstance(proc, subprocess.Popen):
            return proc.wait(timeout=60)
        proc.join(60)  # type: ignore[attr-defined]
        return proc.exitcode  # type: ignore[attr-defined,no-any-return]


def _forked_main(argv: list[str], out: str, err: str) -> None:
    from firmware.cli import main

    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_once(
    launcher: Launcher, state: Path, script: Path, rng: random.Random, kill: bool
) -> tuple[list[dict[str, object]], bool]:
    """Run the application on ``script``; with ``kill``, SIGKILL it at a random moment."""
    argv = ["run", "--log", "json", "--sim-keep-game", "--script", str(script), "--state-dir", str(state)]
    launcher.out.write_bytes(b"")
    proc = launcher.start(argv)
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
                while launcher.alive(proc) and time.monotonic() < deadline:
                    if launcher.out.read_bytes().count(b'"event":"move"') >= target:
                        break
                    time.sleep(0.0005)
                time.sleep(rng.uniform(0, 0.003))
            if launcher.alive(proc):
                os.kill(launcher.pid(proc), signal.SIGKILL)
        code = launcher.wait(proc)
    finally:
        if launcher.alive(proc):
            os.kill(launcher.pid(proc), signal.SIGKILL)
            launcher.wait(proc)
    err = launcher.err.read_text(errors="replace") if launcher.err.exists() else ""
    # A process that ended by itself just before the signal reached it exits with 0.
    killed = code == -signal.SIGKILL
    assert killed or code == 0, err
    assert "Traceback" not in err, err
    return read_events(launcher.out.read_bytes()), killed


def replay_pdn(text: str) -> list[Move]:
    game = Game()
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
                assert list(saved.to_game().moves) in (moves, games[-1] if games else None)
                script.write_text("")
                events, killed = run_once(launcher, state, script, rng, kill=kills_done < kills)
                kills_done += killed
                continue
            ply = len(saved.moves) if saved is not None else 0
            if saved is not None:
                assert list(saved.to_game().moves) == moves[:ply], "the saved game is not the one played"
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
    kept = sorted(" ".join(m.pdn(full=True) for m in replay_pdn(p.read_text())) for p in GameStore(state).game_files())
    assert kept == sorted(" ".join(m.pdn(full=True) for m in moves) for moves in games)
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
    """200 kills of ``python -m firmware.cli run`` started afresh each time, on disk."""
    play_with_kills(tmp_path, tmp_path / "state", kills=200, seed=2, how="exec")
