"""CPU cost of the board application's main loop, on the simulated board.

Prints the CPU time of one main-loop step (``App.step``) in three situations — idle, a
piece in hand, a warning blinking — beside its peer measured in the same run, the bare
controller step (switches → debouncer → tracker, no LEDs, no UI, no store), a step while a
position is set up a rank at a time (beside the idle step), and the CPU
cost of a whole move: the simulator's hands, every 10 ms step until the move is
accepted, and the save with its fsyncs.

    .venv/bin/python bench/app.py            # about 15 s
    .venv/bin/python bench/app.py --steps 50000

The real loop steps about every 10 ms, so an idle step of S microseconds costs S/100 per
cent of one core. A Raspberry Pi 4 runs pure Python roughly 5-10x slower.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.firmware.app.application import App  # noqa: E402
from crownhead.firmware.app.settings import AppSettings  # noqa: E402
from crownhead.firmware.config import default_config  # noqa: E402
from crownhead.firmware.app.hardware import open_hardware  # noqa: E402
from crownhead.firmware.app.players import Thinker  # noqa: E402
from crownhead.firmware.storage.store import GameStore  # noqa: E402
from crownhead.firmware.simulator.hands import Hands  # noqa: E402
from crownhead.hal.clock import VirtualClock  # noqa: E402
from crownhead.rules import Position  # noqa: E402

STEP_MS = 10


def make_app(state: Path, start: Position | None = None) -> tuple[App, VirtualClock]:
    clock = VirtualClock()
    hardware = open_hardware(default_config(), clock)
    if start is not None:
        assert hardware.sim is not None
        hardware.sim.set_position({s: p.symbol for s, p in start.pieces().items()})
    app = App(
        hardware,
        clock=clock,
        settings=AppSettings(start=start),
        store=GameStore(state),
        thinker=Thinker(background=False),
    )
    app.start()
    return app, clock


def cpu_per_call(step, clock: VirtualClock, steps: int, repeat: int = 5) -> float:
    """Median over ``repeat`` runs of the CPU microseconds per call of ``step``."""
    runs = []
    for _ in range(repeat):
        started = time.process_time()
        for _ in range(steps):
            clock.advance(STEP_MS)
            step()
        runs.append((time.process_time() - started) / steps * 1e6)
    return statistics.median(runs)


def cost_per_move(state: Path, moves: int, seed: int) -> tuple[float, int]:
    app, _ = make_app(state)
    rng = random.Random(seed)
    made = 0
    started = time.process_time()
    while made < moves:
        game = app.tracker.game
        if game.is_over:
            break
        move = rng.choice(game.legal_moves())
        Hands(app).act_text(move.pdn(full=True))
        app.run_for(600)
        made += 1
    elapsed = time.process_time() - started
    if app.tracker.game.ply != made:
        raise SystemExit(f"the board read {app.tracker.game.ply} moves of the {made} made")
    return elapsed / made * 1e3, made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20000, help="steps per timing run")
    parser.add_argument("--moves", type=int, default=80, help="random moves for the per-move cost")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        app, clock = make_app(root / "idle")
        idle = cpu_per_call(app.step, clock, args.steps)
        controller = cpu_per_call(app.controller.step, clock, args.steps)
        Hands(app).act_text("11")
        app.run_for(100)
        lifted = cpu_per_call(app.step, clock, args.steps)

        # Black lifts a man that cannot capture while a capture is compulsory: a warning blinks.
        forced = Position.from_fen("B:W14,15,22,23,30:B5,10,11")
        app2, clock2 = make_app(root / "warning", forced)
        Hands(app2).act_text("5")
        app2.run_for(100)
        if app2.tracker.warning is None:
            raise SystemExit("expected a forced-capture warning; the benchmark set-up is wrong")
        blinking = cpu_per_call(app2.step, clock2, args.steps)

        # A new game from a position that differs on most squares: a rank of it lit, said.
        app3, clock3 = make_app(root / "setup")
        app3.new_game(Position.from_fen("W:W18,K26,30:B1,K6,9,10,14"), clock3.now_ms())
        app3.run_for(100)
        if app3.guide.step is None:
            raise SystemExit("expected a set-up a rank at a time; the benchmark set-up is wrong")
        setting_up = cpu_per_call(app3.step, clock3, args.steps)

        per_move, made = cost_per_move(root / "moves", args.moves, args.seed)

    print(f"python {sys.version.split()[0]}, one step every {STEP_MS} ms of virtual time")
    print(f"controller step alone (peer):  {controller:7.1f} us CPU")
    print(f"app step, idle:                {idle:7.1f} us CPU  ({idle / controller:.1f}x the controller)")
    print(f"app step, piece in hand:       {lifted:7.1f} us CPU  ({lifted / controller:.1f}x)")
    print(f"app step, warning blinking:    {blinking:7.1f} us CPU  ({blinking / controller:.1f}x)")
    print(f"app step, setting up a rank:   {setting_up:7.1f} us CPU  ({setting_up / idle:.2f}x the idle step)")
    print(
        f"one whole move (hands, steps until accepted, fsynced save): {per_move:.2f} ms CPU"
        f" (mean of {made} random moves)"
    )
    print(f"idle loop at {1000 // STEP_MS} steps/s: {idle * (1000 / STEP_MS) / 1e4:.2f} % of one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
