"""Perft speed: our leaves per second against pydraughts and py-draughts, in one run.

    .venv/bin/python bench/perft.py              # about half a minute
    .venv/bin/python bench/perft.py --repeat 9   # steadier medians

Every program counts the same tree from the start position, and every program counts
the leaves in bulk at the last ply (the length of the move list), so a leaf costs each
of them the same kind of work; each count is checked against ours before its time is
used. Times are medians of ``--repeat`` runs.

* crownhead: ``crownhead.rules.perft`` (WCDF rules), at ``--depth`` (9 by default).
* py-draughts, "the fastest Python draughts library": installed on first use in its own
  virtual environment, ``bench/.venv-pydraughts-fast`` (it shares the import name
  ``draughts`` with pydraughts), and timed there in a subprocess by
  ``bench/_py_draughts_worker.py``. Its American board makes captures optional, unlike
  WCDF; the WCDF row asks its move-generation core for compulsory captures, and a second
  table compares both programs on py-draughts's own rules.
* pydraughts (the test oracle, installed with the dev extra) is slow: it is timed at a
  small depth, and leaves per second are compared.

Exit code 0 when every count agreed (targets missed are reported, not failed), 1 when a
count disagreed or a peer could not be run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from crownhead.rules import Position, Rules
from crownhead.rules.perft import perft

HERE = Path(__file__).resolve().parent
FAST_VENV = HERE / ".venv-pydraughts-fast"
FAST_SPEC = "py-draughts==1.10.1"
WORKER = HERE / "_py_draughts_worker.py"

# Targets on the development machine (issue 2).
TARGET_RATE = 1_500_000
TARGET_VS_FAST = 5.0
TARGET_VS_SLOW = 2000.0


@dataclass
class Timing:
    program: str
    version: str
    rules: str
    depth: int
    leaves: int
    seconds: float  # median
    note: str = ""

    @property
    def rate(self) -> float:
        return self.leaves / self.seconds


def median_time(run: Callable[[], int], repeat: int) -> tuple[int, float]:
    counts, times = set(), []
    for _ in range(repeat):
        started = time.perf_counter()
        counts.add(run())
        times.append(time.perf_counter() - started)
    if len(counts) != 1:
        raise SystemExit(f"perft gave different counts on repeated runs: {sorted(counts)}")
    return counts.pop(), statistics.median(times)


def ours(depth: int, rules: Rules, label: str, repeat: int) -> Timing:
    leaves, seconds = median_time(lambda: perft(Position.start(), depth, rules), repeat)
    return Timing("crownhead", _version("crownhead"), label, depth, leaves, seconds)


def pydraughts(depth: int, repeat: int) -> Timing:
    import draughts  # pydraughts, the dev extra

    def run() -> int:
        def count(board: draughts.Board, d: int) -> int:
            found = board.legal_moves()
            if d == 1:
                return len(found)
            total = 0
            for move in found:
                board.push(move)
                total += count(board, d - 1)
                board.pop()
            return total

        return count(draughts.Board("english"), depth)

    leaves, seconds = median_time(run, repeat)
    return Timing(
        "pydraughts",
        _version("pydraughts"),
        "WCDF (variant english)",
        depth,
        leaves,
        seconds,
        note=f"very slow: timed at depth {depth}",
    )


def fast_python() -> Path | None:
    """py-draughts's virtual environment, created and filled on first use."""
    python = FAST_VENV / "bin" / "python"
    probe = [str(python), "-c", "import importlib.metadata as m; print(m.version('py-draughts'))"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"setting up {FAST_VENV.relative_to(HERE.parent)} with {FAST_SPEC} ...", file=sys.stderr)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(FAST_VENV)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", FAST_SPEC], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"bench: could not install {FAST_SPEC} in {FAST_VENV}: {exc}", file=sys.stderr)
        return None
    return python


def py_draughts(python: Path, rules: str, depth: int, repeat: int, label: str) -> Timing:
    done = subprocess.run(
        [str(python), str(WORKER), "--rules", rules, "--depth", str(depth), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: py-draughts worker failed:\n{done.stderr.strip()}")
    report = json.loads(done.stdout)
    counts = {run["leaves"] for run in report["runs"]}
    if len(counts) != 1:
        raise SystemExit(f"py-draughts gave different counts on repeated runs: {sorted(counts)}")
    seconds = statistics.median(run["seconds"] for run in report["runs"])
    return Timing("py-draughts", report["version"], label, depth, counts.pop(), seconds)


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def table(rows: list[Timing], reference: Timing) -> str:
    lines = [
        f"{'program':<12} {'version':<8} {'rules':<38} {'depth':>5} {'leaves':>10} "
        f"{'seconds':>8} {'leaves/s':>11}  crownhead is"
    ]
    for row in rows:
        times = reference.rate / row.rate
        ratio = "" if row is reference else (f"{times:,.0f}x faster" if times >= 100 else f"{times:.1f}x faster")
        lines.append(
            f"{row.program:<12} {row.version:<8} {row.rules:<38} {row.depth:>5} "
            f"{row.leaves:>10,} {row.seconds:>8.3f} {row.rate:>11,.0f}  {ratio}"
            + (f" ({row.note})" if row.note else "")
        )
    return "\n".join(lines)


def check_same(a: Timing, b: Timing) -> bool:
    if a.leaves == b.leaves:
        return True
    print(
        f"bench: {b.program} counts {b.leaves:,} leaves at depth {b.depth} where "
        f"{a.program} counts {a.leaves:,}: not the same work",
        file=sys.stderr,
    )
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description="Perft leaves per second against peers.")
    parser.add_argument("--depth", type=int, default=9, help="our perft depth (default 9)")
    parser.add_argument("--fast-depth", type=int, default=8, help="py-draughts's WCDF perft depth (default 8)")
    parser.add_argument(
        "--fast-rules-depth", type=int, default=7, help="depth of the same-tree run on py-draughts's rules (default 7)"
    )
    parser.add_argument("--slow-depth", type=int, default=4, help="pydraughts's perft depth (default 4; it is slow)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing (median)")
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    peer_repeat = max(1, min(repeat, 3))
    wcdf, optional = Rules(), Rules(captures_compulsory=False)
    ok = True

    print(
        f"Perft from the start position on {sys.implementation.name} "
        f"{sys.version.split()[0]}; medians of {repeat} runs (peers: {peer_repeat})."
    )
    print("Leaves are counted in bulk at the last ply by every program.\n")

    head = ours(args.depth, wcdf, "WCDF", repeat)
    rows = [head]
    checks: list[tuple[Timing, Timing]] = []

    python = fast_python()
    fast: Timing | None = None
    if python is None:
        ok = False
    else:
        fast = py_draughts(python, "wcdf", args.fast_depth, peer_repeat, "WCDF (its core, captures compulsory)")
        rows.append(fast)
        checks.append((ours(args.fast_depth, wcdf, "WCDF", 1), fast))

    slow = pydraughts(args.slow_depth, peer_repeat)
    rows.append(slow)
    checks.append((ours(args.slow_depth, wcdf, "WCDF", 1), slow))

    print("WCDF rules (captures compulsory), as in the published perft tables:")
    print(table(rows, head))

    if python is not None:
        same_ours = ours(args.fast_rules_depth, optional, "captures optional", repeat)
        same_fast = py_draughts(
            python, "american", args.fast_rules_depth, peer_repeat, "its AmericanBoard (captures optional)"
        )
        checks.append((same_ours, same_fast))
        print("\nThe same tree on py-draughts's own American rules (captures optional):")
        print(table([same_ours, same_fast], same_ours))

    for reference, peer in checks:
        ok = check_same(reference, peer) and ok

    print(
        f"\nTargets: crownhead perft {args.depth} at {head.rate:,.0f} leaves/s "
        f"(target {TARGET_RATE:,}): {'met' if head.rate >= TARGET_RATE else 'MISSED'}"
    )
    if fast is not None:
        ratio = head.rate / fast.rate
        print(
            f"  {ratio:,.1f}x py-draughts (target {TARGET_VS_FAST:g}x): "
            f"{'met' if ratio >= TARGET_VS_FAST else 'MISSED'}"
        )
    ratio = head.rate / slow.rate
    print(
        f"  {ratio:,.0f}x pydraughts (target {TARGET_VS_SLOW:,.0f}x; pydraughts timed at "
        f"depth {slow.depth} because it is very slow): "
        f"{'met' if ratio >= TARGET_VS_SLOW else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
