"""The test suite under load: a test selection run again and again beside a CPU hog.

    .venv/bin/python bench/stress.py --runs 50 tests/test_link_host.py tests/test_cmd_mcu.py
    .venv/bin/python bench/stress.py --runs 3 --make            # the whole `make test`
    .venv/bin/python bench/stress.py --runs 10 --hogs 0 tests/  # no hog: the machine as it is
    .venv/bin/python bench/stress.py --runs 5 -- tests/ --deselect tests/test_x.py::test_y  # pytest options after --

While it runs, ``--hogs`` child processes (one per core by default) each spin a pure-Python
busy loop, so every test competes for the CPU with at least as many busy processes as
there are cores. The selection (pytest arguments, or ``make test`` with ``--make``) runs
``--runs`` times in a row; the first failing run stops it, its output is printed, and the
exit status is 1. The last lines say how many runs passed in a row, how many failed, and
the shortest, median and longest run in seconds.

A test that passes here many times in a row decides on outcomes, not on speed. Every
figure depends on the machine and its other load; the hog only makes sure there is some.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: A pure-Python busy loop: integer arithmetic that never blocks and never allocates much.
#: It ends by itself once its parent is gone, however the parent ended (even SIGKILL).
HOG = (
    "import os\n"
    "parent, x = os.getppid(), 1\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(100_000):\n"
    "        x = (x * 1103515245 + 12345) % 2147483648\n"
)


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen([sys.executable, "-c", HOG], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for _ in range(count)
    ]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            hog.send_signal(signal.SIGTERM)
    for hog in hogs:
        try:
            hog.wait(timeout=10)
        except subprocess.TimeoutExpired:
            hog.kill()
            hog.wait()


def run_once(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in its own process group, so that an interruption stops all of it
    (``make test`` runs pytest, which runs the board and browsers)."""
    with subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def command(args: argparse.Namespace) -> list[str]:
    if args.make:
        return ["make", "test", *args.pytest]
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="runs in a row (default 50)")
    parser.add_argument(
        "--hogs",
        type=int,
        default=os.cpu_count() or 1,
        help="busy child processes beside the tests (default: one per core)",
    )
    parser.add_argument("--make", action="store_true", help="run `make test` (mypy and the whole suite)")
    parser.add_argument("pytest", nargs="*", help="pytest arguments: the files or tests to run")
    args = parser.parse_args()
    if not args.make and not args.pytest:
        parser.error("name the tests to run (pytest arguments), or --make for the whole `make test`")
    cmd = command(args)
    print(
        f"{' '.join(cmd)}: {args.runs} runs, {args.hogs} busy processes beside it "
        f"({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    # SIGTERM (a `kill`, a CI timeout) ends the runs like Ctrl-C: the hogs are stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    hogs = start_hogs(args.hogs)
    times: list[float] = []
    failed = 0
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            done = run_once(cmd)
            took = time.monotonic() - started
            times.append(took)
            last = (done.stdout.strip().splitlines() or [""])[-1]
            print(
                f"run {run:3d}: {'pass' if done.returncode == 0 else 'FAIL'} in {took:6.1f} s "
                f"(load {os.getloadavg()[0]:.1f}) {last}",
                flush=True,
            )
            if done.returncode != 0:
                failed = 1
                print(done.stdout[-20000:], done.stderr[-5000:], sep="\n", flush=True)
                break
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        stop_hogs(hogs)
    passed = len(times) - failed
    if times:
        print(
            f"{passed} passed in a row, {failed} failed, of {args.runs} asked; seconds per run: "
            f"min {min(times):.1f}, median {statistics.median(times):.1f}, max {max(times):.1f}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
