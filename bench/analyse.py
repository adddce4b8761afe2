"""Wall time of ``crownhead analyse --movetime MS`` from a new process, and the search it gets.

``--movetime`` is the search's own time (issue 53): it counts from when the search can
start, once Python has started and the tables are open, so the run takes the start-up
on top. ``--from-start`` counts it from the start of the process (the behaviour before),
so the search gets what the start-up leaves. This prints, for each movetime and both
ways, the median wall time of a whole run (start to exit), the search's ms and depth
(from the line) and the start-up (``--startup``), beside the same process at ``--depth
1`` (start-up and exit with almost no search), all measured in the same run.

    .venv/bin/python bench/analyse.py                  # about a minute
    .venv/bin/python bench/analyse.py --movetime 300 1000 --repeat 9

The start-up is also given in the process's CPU time (what a busy machine leaves as
it is). The test suite checks the budgets given to the search with the process's age
injected (``tests/test_engine_analyse.py``), which a busy machine cannot make fail;
wall times need a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def timed(*argv: str) -> tuple[float, dict]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", "analyse", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=REPO,
    )
    return (time.monotonic() - started) * 1000, json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, nargs="+", default=[100, 400, 1000], metavar="MS")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args(argv)
    walls, cpus = [], []
    for _ in range(args.repeat):
        cpu = child_cpu_ms()
        walls.append(timed("--depth", "1")[0])
        cpus.append(child_cpu_ms() - cpu)
    baseline = statistics.median(walls)
    print(
        f"start-up and exit (--depth 1): {baseline:.0f} ms wall, {statistics.median(cpus):.0f} ms of CPU "
        f"(medians of {args.repeat}; the CPU time is what a loaded machine does not change)"
    )
    print(
        f"{'movetime':>9} {'counted':>8} {'wall ms':>8} {'start-up':>8} {'search ms':>9} {'depth':>5} "
        f"{'search/budget':>13}"
    )
    for movetime in args.movetime:
        for how, extra in (("search", ()), ("process", ("--from-start",))):
            # The start position is in the opening book: searched all the same.
            runs = [timed("--movetime", str(movetime), "--startup", "--no-book", *extra) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            startup = statistics.median(r[1]["startup_ms"] for r in runs)
            search = statistics.median(r[1]["ms"] for r in runs)
            depth = statistics.median(r[1]["depth"] for r in runs)
            print(
                f"{movetime:>9} {how:>8} {wall:>8.0f} {startup:>8.0f} {search:>9.0f} {depth:>5.0f} "
                f"{search / movetime:>13.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
