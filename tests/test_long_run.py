"""The long run: random games for hours of virtual time, with link traffic, takebacks and
power cuts; memory stays flat and every accepted move is in the store.

The board is wired as ``crownhead run --hal sim --headless`` wires it (simulated board,
headless event log, state directory, a link on a real pty), on a virtual clock. A power
cut drops the application where it stands, no ``close()``, no last save (the kernel
drops the lock of a dead process: the store's lock is released, nothing else), and a new
application starts on the same state directory with the pieces still standing
(``--sim-keep-game``). After each cut the resumed game must hold every move the board
had accepted; every finished game's PDN file must hold all of its moves.

``-m slow`` runs 8 hours of virtual time (``CROWNHEAD_LONG_RUN_HOURS`` to change it) and
prints its figures; the regular run plays a few virtual minutes of the same.
"""

from __future__ import annotations

import gc
import io
import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.app.application import App
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.sinks import text_sink
from crownhead.firmware.events import Event, MoveMade, TakenBack
from crownhead.firmware.link.host import Link
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.transport import LineTransport
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.clock import VirtualClock
from crownhead.rules import Move
from crownhead.rules.pdn import read_game
from helpers.cable import Host, NullModem
from helpers.rig import Rig

SEED = 20261201
QUERIES = ("hello", "fen", "moves", "pdn", "pdn 200", "hint on", "names Ann;Bo", "help")


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


class Run:
    """One board through its power cycles, and what it has accepted."""

    def __init__(self, tmp_path: Path, rng: random.Random) -> None:
        self.tmp = tmp_path
        # The state directory on a RAM disk when there is one: fsync there costs nothing,
        # so the hours of play are spent in the board's code, not waiting for a disk.
        shm = Path("/dev/shm")
        ram = shm.is_dir() and os.access(shm, os.W_OK)
        self.state = Path(tempfile.mkdtemp(prefix="crownhead-long-", dir=shm)) if ram else tmp_path / "state"
        self.rng = rng
        self.clock = VirtualClock()
        self.cable = NullModem(tmp_path)
        self.host = Host(self.cable.b)
        self.host.port.timeout = 0  # read what has arrived, never wait
        self.log = io.StringIO()
        # Every game's accepted moves by id, as the board said them (move and takeback).
        self.accepted: dict[str, list[str]] = {}
        self.finished = 0  # PDN files written, each checked against the accepted moves
        self.game_id = ""
        self.cap = 400
        self.problems: list[str] = []
        self.games = self.moves = self.takebacks = self.cuts = self.resumes = self.link_lines = 0
        self.app: App
        self.link: Link
        self.power_on()

    def power_on(self) -> None:
        # The rig keeps no event log here: hours of play must not grow the test's memory.
        rig = Rig(
            self.state,
            settings=AppSettings(sim_keep_game=True, auto_crown=False),
            clock=self.clock,
            sinks=[self._event, text_sink(self._write)],
            record=False,
            start=False,
        )
        transport = LineTransport(self.cable.a, self.clock, reconnect_ms=500, name="long-run link")
        self.app, self.link = rig.app, rig.connect(transport, LinkConfig(port=self.cable.a))
        transport.start()
        self.app.start()

    def _write(self, text: str) -> None:
        # The headless log, kept small: what matters is that every line could be written.
        self.log.seek(0)
        self.log.truncate()
        self.log.write(text)

    def _event(self, event: Event) -> None:
        kind = event.kind
        if kind == "game-start":
            data = event.to_json()
            self.game_id = data["id"]
            if data["resumed"]:
                self.resumes += 1
                # The resumed game holds every move the board had accepted before the cut.
                # (A sink's exception is only logged by the app: the problem is kept.)
                resumed = [m.pdn(full=True) for m in self.app.game.moves]
                if resumed != self.accepted.get(self.game_id):
                    self.problems.append(
                        f"game {self.game_id} resumed with {resumed}, accepted {self.accepted.get(self.game_id)}"
                    )
            else:
                self.games += 1
                # Only the game in progress is remembered (a finished one is checked and dropped).
                self.accepted = {k: v for k, v in self.accepted.items() if k == self.game_id}
                self.accepted[self.game_id] = []
                # Some games are played out, more are given up midway with new (kept as *).
                self.cap = self.rng.choice((400, self.rng.randint(8, 60), self.rng.randint(8, 60)))
        elif isinstance(event, MoveMade):
            moves = self.accepted[self.game_id]
            del moves[event.ply - 1 :]
            moves.append(Move(tuple(event.path), tuple(event.captures)).pdn(full=True))
            self.moves += 1
        elif isinstance(event, TakenBack):
            del self.accepted[self.game_id][event.ply - 1 :]
            self.takebacks += 1
        elif kind == "game-saved":
            # Checked at once and forgotten: the test's own memory stays flat too.
            path = event.to_json()["path"]
            game_id = Path(path).stem
            game = read_game(Path(path).read_text(encoding="utf-8"), path)
            written = [m.pdn(full=True) for m in game.moves] if game is not None else None
            if written != self.accepted.get(game_id):
                self.problems.append(f"game {game_id}: the PDN holds {written}, accepted {self.accepted.get(game_id)}")
            self.finished += 1
            if game_id != self.game_id:
                self.accepted.pop(game_id, None)

    def cut(self) -> None:
        """The power goes: nothing more is saved; the kernel drops the lock."""
        self.cuts += 1
        assert self.app.store is not None
        self.app.store.release()
        self.link.close()
        self.app.thinker.cancel()
        self.power_on()

    def play(self, until_ms: int, cut_every_ms: int) -> Iterator[int]:
        """Play until ``until_ms``; yields each virtual hour reached."""
        rng = self.rng
        next_cut = self.clock.now_ms() + rng.randint(cut_every_ms // 2, cut_every_ms)
        next_hour = 3_600_000
        while self.clock.now_ms() < until_ms:
            app = self.app
            tracker = app.tracker
            pieces = app.sim.pieces if app.sim is not None else {}
            # A crowning prompt stays lit until the reply starts: only an uncrowned man asks.
            asks = any(
                role in ("missing", "extra", "remove") or (role == "crown" and pieces.get(s, "").islower())
                for s, role in tracker.roles.items()
            )
            if app.resuming or tracker.setting_up is not None or asks:
                Hands(app).follow()  # the hands do what the lights ask: set up, put back, remove
                app.settle(2_000)
                app.run_for(rng.randint(0, 150))
            elif app.game.is_over or app.game.ply >= self.cap:
                Hands(app).act_text("new")
                app.settle(2_000)
            elif app.game.ply and rng.random() < 0.06:
                Hands(app).act_text("takeback")
                app.settle(2_000)
            else:
                move = rng.choice(app.game.legal_moves())
                Hands(app).act_text(move.pdn(full=True))
                app.settle(2_000)  # the move is read (debounce, settle) before the next hand
                app.run_for(rng.randint(0, 150))
            if rng.random() < 0.05:
                self.host.send(rng.choice(QUERIES))
            self.link_lines += len(self.host.pump(step=False))
            del self.host.lines[:], self.host.raw[:]  # counted; a host keeps no transcript of hours
            self.host._seen = 0
            now = self.clock.now_ms()
            if now >= next_cut:
                self.cut()
                next_cut = now + rng.randint(cut_every_ms // 2, cut_every_ms)
            if now >= next_hour:
                yield now // 3_600_000
                next_hour += 3_600_000

    def close(self) -> None:
        self.app.close()
        self.link.close()
        self.host.close()
        self.cable.close()
        if self.state.parent == Path("/dev/shm"):
            shutil.rmtree(self.state, ignore_errors=True)


def _run(tmp_path: Path, hours: float, cut_every_ms: int) -> dict[str, float]:
    run = Run(tmp_path, random.Random(SEED))
    started = time.perf_counter()
    rss: dict[int, int] = {}
    try:
        for hour in run.play(int(hours * 3_600_000), cut_every_ms):
            gc.collect()
            rss[hour] = _rss_kb()
            print(f"hour {hour}: {run.games} games, {run.moves} moves, {run.cuts} cuts, RSS {rss[hour]} kB", flush=True)
        assert not run.problems, run.problems[:3]
    finally:
        run.close()
    assert run.resumes > 0 or run.cuts == 0
    return {
        "games": run.games,
        "moves": run.moves,
        "takebacks": run.takebacks,
        "cuts": run.cuts,
        "resumes": run.resumes,
        "finished files": run.finished,
        "link lines": run.link_lines,
        "real seconds": round(time.perf_counter() - started, 1),
        "rss first hour kB": rss.get(1, 0),
        "rss last hour kB": rss.get(max(rss) if rss else 0, 0),
        "frames kept": len(run.app.sim.lights.frames) if run.app.sim else 0,
    }


def test_a_few_virtual_minutes_of_the_long_run(tmp_path: Path) -> None:
    figures = _run(tmp_path, hours=0.05, cut_every_ms=60_000)
    assert figures["moves"] > 100 and figures["cuts"] >= 1 and figures["takebacks"] >= 1


@pytest.mark.slow
def test_eight_hours_of_virtual_play(tmp_path: Path) -> None:
    hours = float(os.environ.get("CROWNHEAD_LONG_RUN_HOURS", "8"))
    figures = _run(tmp_path, hours=hours, cut_every_ms=20 * 60_000)
    print("long run:", figures)
    assert figures["games"] >= 100 * hours and figures["takebacks"] > 0 and figures["cuts"] > 0
    # Memory flat: measured +1.9 MB from the first hour to the fourth, +0.02 MB from the
    # fourth to the eighth (1,400 games); a leak
    # of a frame, a record or a line per move would be tens of megabytes.
    assert figures["rss last hour kB"] - figures["rss first hour kB"] < 4 * 1024, figures
