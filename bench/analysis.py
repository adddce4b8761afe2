"""The main loop's step with the live analysis on, against the same step with it off, in
one run: what the engine's analysis (firmware.app.analysis) costs the board.

    .venv/bin/python bench/analysis.py                  # about 25 s
    CROWNHEAD_ENGINE=python .venv/bin/python bench/analysis.py   # the pure-Python search

The board runs on the simulated board and a virtual clock, one step every 10 ms of
virtual time, as fast as it goes; with the analysis on, its worker searches the whole
time beside it (a budget no position here reaches), in the background as on a board.
Printed for each: the wall time of a step and the main thread's own CPU time of a step
(the search's thread is not counted in it), idle with the position standing, and then a
whole move (the simulator's hands, the steps until it is accepted, the save; with the
analysis on, the search of the old position cancelled and the new one begun), each as a
ratio of on to off. The ratio is the figure: the wall times depend on the machine and on
what else it runs.
"""

from __future__ import annotations

from crownhead.rules import WCDF

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.firmware.app.analysis import Analyst  # noqa: E402
from crownhead.firmware.app.application import App  # noqa: E402
from crownhead.firmware.app.hardware import open_hardware  # noqa: E402
from crownhead.firmware.app.players import Thinker  # noqa: E402
from crownhead.firmware.app.settings import AppSettings  # noqa: E402
from crownhead.firmware.config import default_config  # noqa: E402
from crownhead.firmware.simulator.hands import Hands  # noqa: E402
from crownhead.firmware.storage.store import GameStore  # noqa: E402
from crownhead.hal.clock import MonotonicClock, VirtualClock  # noqa: E402
from crownhead.rules.engine import native  # noqa: E402

STEP_MS = 10
#: More positions than any search here reaches: the worker searches all along.
ENDLESS = 10**9


def make_app(state: Path, analysis: bool) -> tuple[App, VirtualClock]:
    clock = VirtualClock()
    app = App(
        open_hardware(default_config(), clock),
        clock=clock,
        settings=AppSettings(analysis=analysis),
        store=GameStore(state),
        thinker=Thinker(background=False),
        analyst=Analyst(background=True, nodes=ENDLESS),
    )
    app.start()
    return app, clock


def per_step(app: App, clock: VirtualClock, steps: int, repeat: int) -> tuple[float, float]:
    """Medians over ``repeat`` runs of a step's wall and main-thread CPU microseconds."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.thread_time()
        for _ in range(steps):
            clock.advance(STEP_MS)
            app.step()
        walls.append((time.perf_counter() - wall) / steps * 1e6)
        cpus.append((time.thread_time() - cpu) / steps * 1e6)
    return statistics.median(walls), statistics.median(cpus)


def per_move(app: App, moves: int, seed: int) -> tuple[float, float]:
    """A whole move's wall and main-thread CPU milliseconds, the mean of ``moves``."""
    rng = random.Random(seed)
    wall, cpu = time.perf_counter(), time.thread_time()
    made = 0
    while made < moves and not app.tracker.game.is_over:
        move = rng.choice(app.tracker.game.legal_moves())
        Hands(app).act_text(move.pdn(full=True))
        app.run_for(600)
        made += 1
    if app.tracker.game.ply != made:
        raise SystemExit(f"the board read {app.tracker.game.ply} moves of the {made} made")
    return (time.perf_counter() - wall) / made * 1e3, (time.thread_time() - cpu) / made * 1e3


def wake_latency(analysis: bool, wakes: int, seed: int) -> list[float]:
    """The real-time loop (App.run on the real clock): how long after a wake-up from
    another thread (what a page's command or a scanner's change does) its next step
    starts, in milliseconds, for ``wakes`` wake-ups at random moments."""
    clock = MonotonicClock()
    app = App(
        open_hardware(default_config(), clock),
        clock=clock,
        settings=AppSettings(analysis=analysis),
        thinker=Thinker(background=True),
        analyst=Analyst(background=True, nodes=ENDLESS),
    )
    app.start()
    starts: list[float] = []
    stepped = threading.Condition()
    take_step = app.step

    def step(now: int | None = None) -> list:
        with stepped:
            starts.append(time.perf_counter())
            stepped.notify_all()
        return take_step(now)

    app.step = step  # type: ignore[method-assign]
    stop = threading.Event()
    loop = threading.Thread(target=app.run, args=(stop,), daemon=True)
    loop.start()
    rng = random.Random(seed)
    out: list[float] = []
    try:
        time.sleep(0.3)  # the analysis under way
        if analysis and not app.analyst.busy:
            raise SystemExit("the analysis is not searching: the benchmark set-up is wrong")
        for _ in range(wakes):
            time.sleep(rng.uniform(0.003, 0.03))
            woken = time.perf_counter()
            app.wake()
            with stepped:
                stepped.wait_for(lambda: bool(starts) and starts[-1] >= woken, timeout=5)
                after = [s for s in starts[-4:] if s >= woken]
            if after:
                out.append((after[0] - woken) * 1000)
    finally:
        stop.set()
        app.wake()
        loop.join(5)
        app.close()
    return out


def resident_mb() -> float:
    """This process's resident memory (Linux), in MB."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def analyst_memory(positions: int = 5) -> float:
    """What an analyst adds to the board's memory (MB resident) once it has analysed
    ``positions`` positions of a game at the default budget, with the endgame tables."""
    from crownhead.firmware.egdb import load_probe
    from crownhead.rules import Game

    before = resident_mb()
    analyst = Analyst(background=False, tables=load_probe)
    game = Game(None, WCDF)
    analyst.follow(game)
    for text in ("11-15", "23-19", "8-11", "22-17")[: positions - 1]:
        game.play_text(text)
        analyst.follow(game)
    grown = resident_mb() - before
    analyst.close()
    return grown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=5000, help="steps per timing run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--moves", type=int, default=40, help="random moves for the per-move figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wakes", type=int, default=300, help="wake-ups of the real-time loop timed")
    args = parser.parse_args()
    native.choose(os.environ.get(native.ENV))

    rows = {}
    searched = 0
    with tempfile.TemporaryDirectory() as tmp:
        for analysis in (False, True):
            app, clock = make_app(Path(tmp) / str(analysis), analysis)
            try:
                app.run_for(100)
                if analysis and not app.analyst.busy:
                    raise SystemExit("the analysis is not searching: the benchmark set-up is wrong")
                idle = per_step(app, clock, args.steps, args.repeat)
                move = per_move(app, args.moves, args.seed)
                if analysis:
                    searched = app.analyst.searched
                    followed = time.monotonic() + 10
                    while (found := app.snapshot.analysis) is None or found.ply != app.tracker.game.ply:
                        if time.monotonic() > followed:
                            raise SystemExit("the analysis did not follow the moves")
                        time.sleep(0.01)
                        app.step()
                rows[analysis] = (idle, move)
            finally:
                app.close()

    memory = analyst_memory() if os.path.exists("/proc/self/statm") else None
    latency = {analysis: sorted(wake_latency(analysis, args.wakes, args.seed)) for analysis in (False, True)}

    def quantile(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    (off_idle, off_move), (on_idle, on_move) = rows[False], rows[True]
    print(f"python {sys.version.split()[0]}, {native.describe()}; one step every {STEP_MS} ms of virtual time")
    print(f"app step, idle, analysis off:  {off_idle[0]:7.1f} us wall, {off_idle[1]:7.1f} us CPU of the main thread")
    print(
        f"app step, idle, analysis on:   {on_idle[0]:7.1f} us wall ({on_idle[0] / off_idle[0]:.2f}x),"
        f" {on_idle[1]:7.1f} us CPU ({on_idle[1] / off_idle[1]:.2f}x)"
    )
    print(f"one whole move, analysis off:  {off_move[0]:7.2f} ms wall, {off_move[1]:7.2f} ms CPU of the main thread")
    print(
        f"one whole move, analysis on:   {on_move[0]:7.2f} ms wall ({on_move[0] / off_move[0]:.2f}x),"
        f" {on_move[1]:7.2f} ms CPU ({on_move[1] / off_move[1]:.2f}x)"
    )
    print(f"the analysis searched {searched:,} positions meanwhile, beside the main loop")
    for analysis in (False, True):
        values = latency[analysis]
        print(
            f"real-time loop, wake-up to step, analysis {'on ' if analysis else 'off'}: median"
            f" {statistics.median(values):.3f} ms, p99 {quantile(values, 0.99):.3f} ms, max {values[-1]:.3f} ms"
            f" ({len(values)} wake-ups)"
        )
    print(
        f"  on/off: median {statistics.median(latency[True]) / statistics.median(latency[False]):.2f}x,"
        f" p99 {quantile(latency[True], 0.99) / quantile(latency[False], 0.99):.2f}x"
    )
    if memory is not None:
        print(
            f"memory: the analyst, after 5 positions at the default budget with the tables: +{memory:.1f} MB resident"
        )
    period = STEP_MS * 1000
    print(
        f"an idle step's share of its {STEP_MS} ms period (the loop's budget): {off_idle[0] / period:.2%} off,"
        f" {on_idle[0] / period:.2%} on"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
