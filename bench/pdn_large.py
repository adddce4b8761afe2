"""Large PDN files and scripts within the documented bounds (issue 54): time and peak memory.

    .venv/bin/python bench/pdn_large.py                 # the 60 MB file of short games
    .venv/bin/python bench/pdn_large.py --mb 6          # a smaller one, same shape
    .venv/bin/python bench/pdn_large.py --all           # and the outside testers' other inputs

Writes the inputs into a temporary folder and runs each command as its own process
(``crownhead pdn check -q``, ``review``, ``sheet``, ``replay``), printing its wall time,
the MB it read a second and its peak resident memory (the child's ``ru_maxrss``). It
prints figures and asserts nothing: the tests check the bounds with small injected
limits (tests/test_pdn_stream.py). Before issue 54, ``pdn check`` of the 60 MB file read
it whole (some 250 MB of memory) and ran for minutes; a 20 MB tag took ``sheet`` past
538 MB in 90 s.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROWNHEAD = [sys.executable, "-m", "crownhead"]
#: Short games as a club's database holds them: tags, a few moves, a result.
OPENINGS = [
    "1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17-14 4. 10x17 21x14 *",
    "1. 9-14 22-18 2. 5-9 24-19 *",
    "1. 11-16 24-20 2. 16-19 23x16 3. 12x19 *",
    "1. 10-15 21-17 2. 9-13 17-14 *",
    "1. 12-16 24-19 2. 16-20 22-18 *",
]


def short_games(path: Path, mb: float) -> None:
    rng = random.Random(54)
    with path.open("w") as out:
        n = 0
        while out.tell() < mb * 1_000_000:
            n += 1
            out.write(
                f'[Event "Club night {n}"]\n[Date "2026.12.07"]\n[Black "Player {rng.randrange(400)}"]\n'
                f'[White "Player {rng.randrange(400)}"]\n[Result "*"]\n\n{rng.choice(OPENINGS)}\n\n'
            )


def one_line(path: Path, mb: float) -> None:
    game = '[Event "x"] 1. 11-15 23-19 2. 8-11 22-17 1-0 '
    path.write_text(game * int(mb * 1_000_000 / len(game)))


def long_game(path: Path, plies: int) -> None:
    shuffle = " ".join(f"{n}. 1-5 32-27 {n + 1}. 5-1 27-32" for n in range(1, plies // 2, 2))
    path.write_text(f'[FEN "B:WK32:BK1"]\n\n{shuffle} *\n')


def big_tag(path: Path, mb: float) -> None:
    path.write_text('[Event "' + "E" * int(mb * 1_000_000) + '"]\n\n1. 11-15 *\n')


def shuffle_script(path: Path, mb: float) -> None:
    moves = "lift 1\nplace 5\nwait 300\nlift 32\nplace 27\nwait 300\nlift 5\nplace 1\nwait 300\nlift 27\nplace 32\nwait 300\n"
    path.write_text(moves * int(mb * 1_000_000 / len(moves)))


def run(label: str, argv: list[str], size: int) -> None:
    """Run one command in its own process; print its time, pace and peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB; the largest child so far
    last = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or [""])[-1][:110]
    pace = size / 1e6 / seconds if seconds else 0.0
    shown = f"{peak / 1024:.0f} MB" if peak > before else f"<= {before / 1024:.0f} MB"
    print(
        f"{label}: {size / 1e6:.1f} MB in {seconds:.1f} s ({pace:.2f} MB/s), peak memory {shown}, exit {done.returncode}"
    )
    print(f"    {last}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=60.0, help="size of the file of short games (default 60)")
    parser.add_argument("--all", action="store_true", help="also the other inputs of issue 54")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        games = where / "short.pdn"
        short_games(games, args.mb)
        run("pdn check, short games", [*CROWNHEAD, "pdn", "check", "-q", str(games)], games.stat().st_size)
        if not args.all:
            return 0
        line = where / "line.pdn"
        one_line(line, 27)
        run("pdn check, one line", [*CROWNHEAD, "pdn", "check", "-q", str(line)], line.stat().st_size)
        longest = where / "long.pdn"
        long_game(longest, 400_000)
        run("pdn check, 400,000 plies", [*CROWNHEAD, "pdn", "check", str(longest)], longest.stat().st_size)
        state = where / "state"
        run(
            "review, 400,000 plies",
            [*CROWNHEAD, "review", str(longest), "--state-dir", str(state)],
            longest.stat().st_size,
        )
        tag = where / "tag.pdn"
        big_tag(tag, 20)
        run("sheet, a 20 MB tag", [*CROWNHEAD, "sheet", str(tag), "-o", os.devnull], tag.stat().st_size)
        noise = where / "noise.pdn"
        noise.write_bytes(random.Random(2).randbytes(2_000_000))
        run("sheet, 2 MB of random bytes", [*CROWNHEAD, "sheet", str(noise), "-o", os.devnull], 2_000_000)
        script = where / "script.txt"
        shuffle_script(script, 3.4)
        argv = [*CROWNHEAD, "replay", "--fen", "B:WK32:BK1", str(script)]
        run("replay, 3.4 MB script", argv, script.stat().st_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
