"""The main loop's step while the board speaks, against the same loop silent.

    .venv/bin/python bench/voice.py               # about a minute
    .venv/bin/python bench/voice.py --seconds 5 --rounds 2

Each round plays the same game twice on the simulated board, a move a second, stepping
the application every 10 ms of real time (the board's loop pace) on a virtual clock
that advances with it: once with no voice (the baseline), once with the voice attached
(``BoardVoice``: the adapter, the catalogue and the queue in the loop; eSpeak NG and
``aplay`` on ALSA's null device in the speaker's thread) and the ``speak`` button held
every 3 s, so that speech never stops: every move, the whole position read out again
and again. It prints, per round, the mean and 99th percentile of the wall time and of
the CPU time (this thread's) of a step, and their ratios to the baseline: the CPU ratio
is what the voice costs the loop itself, the wall ratio adds the time the loop waits
for a core while eSpeak NG runs (on a busy two-core machine, noisy). Budget: a step
while speaking within 1.2x of the silent step (the loop's own budget is 10 ms a step;
the Pi is 5-10x slower than a laptop).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crownhead.firmware.app.application import App  # noqa: E402
from crownhead.firmware.app.hardware import open_hardware  # noqa: E402
from crownhead.firmware.app.players import Thinker  # noqa: E402
from crownhead.firmware.app.settings import AppSettings  # noqa: E402
from crownhead.firmware.config import default_config  # noqa: E402
from crownhead.firmware.simulator.hands import Hands  # noqa: E402
from crownhead.firmware.voice.adapter import BoardVoice  # noqa: E402
from crownhead.firmware.voice.engine import Espeak  # noqa: E402
from crownhead.firmware.voice.phrases import Phrasebook  # noqa: E402
from crownhead.firmware.voice.speaker import Aplay, Speaker  # noqa: E402
from crownhead.hal.clock import VirtualClock  # noqa: E402
from crownhead.rules import WCDF, Game  # noqa: E402


def a_game(plies: int, seed: int = 1) -> list[str]:
    """A random legal game of at least ``plies`` moves, as typed moves."""
    for attempt in range(1000):
        rng = random.Random(seed + attempt)
        game = Game(None, WCDF)
        typed = []
        while len(typed) < plies and not game.is_over:
            move = rng.choice(game.legal_moves())
            typed.append("x".join(map(str, move.path)) if move.captures else f"{move.start}-{move.end}")
            game.play(move)
        if len(typed) == plies:
            return typed
    raise RuntimeError("no long enough game")


def run_round(seconds: float, moves: list[str], speaking: bool) -> tuple[list[float], list[float], int]:
    """(wall us per step, CPU us per step, sentences said) for one game."""
    clock = VirtualClock()
    app = App(
        open_hardware(default_config(), clock), clock=clock, settings=AppSettings(), thinker=Thinker(background=False)
    )
    speaker = Speaker(Espeak(), Aplay("null")) if speaking else None
    voice = BoardVoice(speaker, Phrasebook("en")).attach(app) if speaking else None
    app.start()
    hands = Hands(app)
    walls: list[float] = []
    cpus: list[float] = []
    steps = int(seconds * 100)
    try:
        for n in range(steps):
            if n % 100 == 50 and n // 100 < len(moves):
                hands.act_text(moves[n // 100])
            if speaking and n % 300 == 120:
                hands.act_text("hold speak")
            clock.advance(10)
            wall, cpu = time.perf_counter_ns(), time.thread_time_ns()
            app.step()
            cpus.append((time.thread_time_ns() - cpu) / 1000)
            walls.append((time.perf_counter_ns() - wall) / 1000)
            time.sleep(0.01)
        said = voice.said_count if voice is not None else 0
        spoken = len(speaker.spoken) if speaker is not None else 0
        if speaking and spoken == 0:
            raise RuntimeError("the voice spoke nothing: the figure would be the silent loop's")
        return walls, cpus, said
    finally:
        app.close()
        if voice is not None:
            voice.close()


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=12.0, help="seconds of play each way per round (default 12)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each silent then speaking (default 3)")
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None or shutil.which("aplay") is None:
        sys.exit("bench/voice.py needs espeak-ng and aplay (sudo apt-get install espeak-ng alsa-utils)")
    moves = a_game(int(args.seconds) + 2)
    ratios = []
    cpu_ratios = []
    for n in range(args.rounds):
        base_wall, base_cpu, _ = run_round(args.seconds, moves, speaking=False)
        wall, cpu, said = run_round(args.seconds, moves, speaking=True)
        ratio = statistics.mean(wall) / statistics.mean(base_wall)
        ratios.append(ratio)
        cpu_ratios.append(statistics.mean(cpu) / statistics.mean(base_cpu))
        print(
            f"round {n + 1}: step wall {statistics.mean(base_wall):.0f} us silent, {statistics.mean(wall):.0f} us "
            f"speaking -> {ratio:.2f}x (p99 {p99(base_wall):.0f} -> {p99(wall):.0f} us); CPU "
            f"{statistics.mean(base_cpu):.0f} -> {statistics.mean(cpu):.0f} us; {said} sentences said"
        )
    print(
        f"voice: the main loop's step while speaking is {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}x the silent "
        f"step's CPU (median {statistics.median(cpu_ratios):.2f}x), {min(ratios):.2f}-{max(ratios):.2f}x its wall "
        f"time (median {statistics.median(ratios):.2f}x; eSpeak NG competes for the cores), over {args.rounds} "
        f"rounds of {args.seconds:.0f} s (budget 1.2x)"
    )


if __name__ == "__main__":
    main()
