"""``crownhead egdb``: build and list the endgame databases the engine probes."""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TextIO

from firmware.egdb import (
    MAX_PIECES,
    EgdbError,
    build,
    default_dir,
    file_name,
    load_probe,
    load_table,
)
from rules.engine.egdb import Material, boards_of, check, materials, size_of
from rules.position import Color, Position


#: What a plain ``crownhead egdb build`` makes: five pieces fit a Raspberry Pi with 2 GB.
DEFAULT_PIECES = 5


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "egdb",
        help="build or list the endgame databases (every position of few pieces solved)",
        description="Endgame databases by retrograde analysis, kept in the state directory "
        "(egdb/). `build` is resumable: an interrupted build goes on where it stopped.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = actions.add_parser("build", help="compute the tables (five pieces: minutes on a "
                           "desktop, under an hour on a Raspberry Pi 4)")
    b.add_argument("--pieces", type=int, default=DEFAULT_PIECES,
                   help=f"largest number of pieces on the board, 2-{MAX_PIECES} (default "
                   f"{DEFAULT_PIECES}; six pieces take hours and gigabytes of memory, see "
                   "docs/engine.md)")
    b.add_argument("--dir", type=Path, help="where the tables go (default: egdb/ in the "
                   "state directory)")
    b.add_argument("--jobs", type=int, default=1,
                   help="processes building side by side (default 1; each needs the memory "
                   "of the largest table being built, see docs/engine.md)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run_build)
    v = actions.add_parser("verify", help="check random positions of every table against "
                           "the positions their moves lead to")
    v.add_argument("--dir", type=Path, help="where the tables are (default: egdb/ in the "
                   "state directory)")
    v.add_argument("--sample", type=int, default=400,
                   help="positions checked in each table (default 400)")
    v.add_argument("--seed", type=int, default=1, help="which random positions (default 1)")
    v.set_defaults(func=run_verify)
    i = actions.add_parser("info", help="list the tables there are, with their sizes")
    i.add_argument("--dir", type=Path, help="where the tables are (default: egdb/ in the "
                   "state directory)")
    i.set_defaults(func=run_info)


class Bar:
    """A one-line progress bar on a terminal (plain lines now and then elsewhere)."""

    def __init__(self, out: TextIO, width: int = 30) -> None:
        self.out = out
        self.width = width
        self.started = time.monotonic()
        self.tty = out.isatty()
        self.last = -1

    def __call__(self, done: int, total: int, material: Material) -> None:
        share = done / total if total else 1.0
        percent = int(share * 100)
        if not self.tty and percent == self.last:
            return
        self.last = percent
        filled = int(share * self.width)
        elapsed = time.monotonic() - self.started
        line = (f"[{'#' * filled}{'.' * (self.width - filled)}] {percent:3d}%  "
                f"material {''.join(map(str, material))}  {elapsed:5.0f} s")
        self.out.write(("\r" + line) if self.tty else line + "\n")
        self.out.flush()

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")


def run_build(args: argparse.Namespace) -> int:
    if not 2 <= args.pieces <= MAX_PIECES:
        print(f"crownhead egdb build: --pieces must be 2-{MAX_PIECES}, not {args.pieces}",
              file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"crownhead egdb build: --jobs must be 1 or more, not {args.jobs}",
              file=sys.stderr)
        return 2
    folder = args.dir if args.dir is not None else default_dir()
    bar = None if args.quiet else Bar(sys.stderr)
    started = time.monotonic()
    try:
        tables = build(folder, args.pieces, bar, jobs=args.jobs)
    except EgdbError as error:
        print(f"crownhead egdb build: {error}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    # ru_maxrss is in kB on Linux; the children are the build processes of --jobs.
    peak = max(resource.getrusage(who).ru_maxrss
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) // 1024
    print(f"{len(tables)} tables of up to {args.pieces} pieces in {folder} "
          f"({time.monotonic() - started:.0f} s, at most {peak} MB of memory a process)")
    return 0


def run_verify(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Each table's values must follow from its positions' moves: one ply more than the
    fastest win among them, else a draw, else one more than the longest loss. A check
    independent of the builder (it plays the moves with the rules' own move generator),
    so a table built wrong, or damaged on disk, is named."""
    out = out or sys.stdout
    folder = args.dir if args.dir is not None else default_dir()
    if args.sample < 1:
        print(f"crownhead egdb verify: --sample must be 1 or more, not {args.sample}",
              file=sys.stderr)
        return 2
    try:
        probe = load_probe(folder)
    except EgdbError as error:
        print(f"crownhead egdb verify: {error}", file=sys.stderr)
        return 1
    if probe is None:
        print(f"no endgame tables in {folder} (crownhead egdb build makes them)", file=out)
        return 1
    rng = random.Random(args.seed)
    started = time.monotonic()
    checked = 0
    bad = 0
    opened = set(probe.tables)  # the probe leaves out a table with a damaged block
    for material in materials(probe.pieces):
        if material not in probe.tables:
            print(f"  {''.join(map(str, material))}  "
                  f"{'damaged: a block does not read' if material in opened else 'missing'}",
                  file=out)
            bad += 1
            continue
        sample = [rng.randrange(size_of(material)) for _ in range(args.sample)]
        try:
            wrong = check(material, probe, sample)
        except (LookupError, ValueError) as error:  # a damaged block, here or in a table
            # its moves lead to (which the probe then leaves out)
            print(f"  {''.join(map(str, material))}  cannot be checked: {error}", file=out)
            bad += 1
            continue
        checked += len(sample)
        if wrong:
            bad += 1
            own, opp, kings = boards_of(wrong[0], material) or (0, 0, 0)
            print(f"  {''.join(map(str, material))}  {len(wrong)} of {len(sample)} wrong, the "
                  f"first index {wrong[0]} ({_fen(own, opp, kings)})", file=out)
    print(f"{len(probe.tables)} tables of up to {probe.pieces} pieces in {folder}: "
          f"{checked:,} positions checked, "
          f"{'no table wrong' if not bad else f'{bad} wrong or missing'} "
          f"({time.monotonic() - started:.0f} s)", file=out)
    return 1 if bad else 0


def _fen(own: int, opp: int, kings: int) -> str:
    """A table's position (own to move as Black) as FEN."""
    return Position(black=own, white=opp, kings=kings, turn=Color.BLACK).fen()


def run_info(args: argparse.Namespace) -> int:
    folder = args.dir if args.dir is not None else default_dir()
    names = {file_name(m): m for m in materials(MAX_PIECES)}
    present = [m for name, m in names.items() if (folder / name).is_file()]
    if not present:
        print(f"no endgame tables in {folder} (crownhead egdb build makes them)")
        return 0
    print(f"{folder}:")
    for material in materials(max(sum(m) for m in present)):
        name = "".join(map(str, material))
        if material not in present:
            print(f"  {name}  missing")
            continue
        try:  # one table at a time: the five-piece ones are large
            _, table = load_table(folder / file_name(material))
        except EgdbError as error:
            print(f"crownhead egdb info: {error}", file=sys.stderr)
            return 1
        counts = Counter(table)
        wins = sum(n for v, n in counts.items() if v and (v - 1) & 1)
        losses = sum(n for v, n in counts.items() if v and not (v - 1) & 1)
        print(f"  {name}  {len(table):>9,} indices  {wins:>9,} won  {losses:>9,} lost  "
              f"longest {max(counts) - 1} plies")
    return 0
