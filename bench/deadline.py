"""How late a timed search answers: the CPU time of each search against its budget, and
the passes of Python's cycle collector that ran inside searches.

    .venv/bin/python bench/deadline.py                        # 40 problems, 300 ms, ~1 min
    .venv/bin/python bench/deadline.py --egdb DIR --movetime 300 --problems 40 --moves 4
    .venv/bin/python bench/deadline.py --egdb firmware/egdb/tables --pieces 6-7   # probes

The positions are the published problems of eight pieces or more (an even sample; or
``--pieces``: six and seven, where the tables are probed at every other node), each
played on for ``--moves`` moves by a new engine, as in a game. A search reads its clock
every 128 nodes, so it passes its deadline only by what those nodes take, unless the
collector runs in between: a pass that has a dropped engine's transposition table to
free (a reference cycle the search used to leave behind) took up to 90 ms here.
Printed: the median and the longest search, the longest as a multiple of the budget,
how many passed the budget by more than 5 ms, and the collector's passes inside
searches by generation, with the longest. Times are CPU times, so other work on the
machine does not change them.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.problems import PROBLEMS, cpu_ms, load, pieces_of, pieces_range, sample  # noqa: E402
from crownhead.rules import WCDF, Position  # noqa: E402
from crownhead.rules.engine import Engine, native  # noqa: E402
from crownhead.rules.engine.egdb import EndgameProbe  # noqa: E402

LATE_MS = 5


class CollectorLog:
    """The collector's passes and their CPU time, noted through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, float]] = []
        self._started = 0.0
        self.watching = False

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if not self.watching:
            return
        if phase == "start":
            self._started = time.process_time()
        else:
            self.passes.append((info["generation"], (time.process_time() - self._started) * 1000))


def play(fen: str, moves: int, movetime: int, probe: EndgameProbe | None, log: CollectorLog) -> list[float]:
    """The CPU ms of each search of ``moves`` moves played on from ``fen``."""
    engine = Engine(seed=0, egdb=probe, clock=cpu_ms)
    position = Position.from_fen(fen)
    spent = []
    for _ in range(moves):
        if not position.legal_moves(WCDF):
            break
        started = time.process_time()
        log.watching = True
        result = engine.search(position, movetime_ms=movetime)
        log.watching = False
        spent.append((time.process_time() - started) * 1000)
        assert result.move is not None
        position = position.apply(result.move, WCDF)
    return spent


def main(argv: list[str] | None = None) -> int:
    # CROWNHEAD_ENGINE=python: the pure-Python search, as the crownhead command reads it.
    native.choose(os.environ.get(native.ENV))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, default=300, help="ms of CPU a move (300)")
    parser.add_argument("--problems", type=int, default=40, help="problems played (40)")
    parser.add_argument("--moves", type=int, default=4, help="moves played from each (4)")
    parser.add_argument("--egdb", type=Path, help="a folder of endgame tables to probe")
    parser.add_argument(
        "--folder", type=Path, default=PROBLEMS, help="the folder of problem files (../shared/data/problems)"
    )
    parser.add_argument(
        "--pieces",
        type=pieces_range,
        default=(8, 24),
        metavar="N or LO-HI",
        help="the problems of this many pieces (default 8 or more)",
    )
    args = parser.parse_args(argv)
    probe = None
    if args.egdb is not None:
        from crownhead.firmware.egdb import load_probe

        probe = load_probe(args.egdb)
    low, high = args.pieces
    chosen = sample([p for p in load(args.folder) if low <= pieces_of(p) <= high], args.problems)
    log = CollectorLog()
    gc.callbacks.append(log)
    spent: list[float] = []
    for problem in chosen:
        spent += play(problem.fen, args.moves, args.movetime, probe, log)
    late = sum(ms > args.movetime + LATE_MS for ms in spent)
    print(
        f"python {sys.version.split()[0]}, {len(chosen)} problems of {low}-{high} pieces, "
        f"{args.moves} moves each at {args.movetime} ms of CPU, tables: {args.egdb or 'none'}, {native.describe()}"
    )
    print(
        f"{len(spent)} searches: median {statistics.median(spent):.1f} ms, longest "
        f"{max(spent):.1f} ms = {max(spent) / args.movetime:.3f}x the budget; "
        f"{late} more than {LATE_MS} ms late"
    )
    for generation in range(3):
        passes = [ms for g, ms in log.passes if g == generation]
        longest = f", longest {max(passes):.1f} ms" if passes else ""
        print(f"collector passes inside searches, generation {generation}: {len(passes)}{longest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
