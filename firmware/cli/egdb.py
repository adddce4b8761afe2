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

from crownhead.firmware.egdb import (
    MAX_PIECES,
    SHIPPED,
    EgdbError,
    build,
    default_dir,
    describe,
    file_name,
    load_probe,
    load_table,
    wdl_name,
)
from crownhead.rules.engine.egdb import Material, boards_of, check, materials, size_of
from crownhead.rules.position import Color, Position


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
    b = actions.add_parser(
        "build", help="compute the tables (five pieces: minutes on a desktop, under an hour on a Raspberry Pi 4)"
    )
    b.add_argument(
        "--pieces",
        type=int,
        default=DEFAULT_PIECES,
        help=f"largest number of pieces on the board, 2-{MAX_PIECES} (default "
        f"{DEFAULT_PIECES}; six pieces take hours and gigabytes of memory, see "
        "docs/engine.md)",
    )
    b.add_argument("--dir", type=Path, help="where the tables go (default: egdb/ in the state directory)")
    b.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes building side by side (default 1; each needs the memory "
        "of the largest table being built, see docs/engine.md)",
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run_build)
    v = actions.add_parser(
        "verify", help="check random positions of every table against the positions their moves lead to"
    )
    v.add_argument("--dir", type=Path, help="where the tables are (default: egdb/ in the state directory)")
    v.add_argument("--sample", type=int, default=400, help="positions checked in each table (default 400)")
    v.add_argument("--seed", type=int, default=1, help="which random positions (default 1)")
    v.set_defaults(func=run_verify)
    k = actions.add_parser(
        "pack",
        help="write win/draw/loss tables (2 bits a position, "
        "what ships with the package) from tables built with distances",
    )
    k.add_argument("--dir", type=Path, help="the built tables (default: egdb/ in the state directory)")
    k.add_argument("--to", type=Path, required=True, help="where the .wdl files go")
    k.add_argument("--pieces", default="5-6", help="which tables: a number of pieces or a range (default 5-6)")
    k.add_argument("--quiet", action="store_true", help="no progress bar")
    k.set_defaults(func=run_pack)
    i = actions.add_parser("info", help="list the tables there are, with their sizes")
    i.add_argument("--dir", type=Path, help="where the tables are (default: egdb/ in the state directory)")
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
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {percent:3d}%  "
            f"material {''.join(map(str, material))}  {elapsed:5.0f} s"
        )
        self.out.write(("\r" + line) if self.tty else line + "\n")
        self.out.flush()

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")


def run_build(args: argparse.Namespace) -> int:
    if not 2 <= args.pieces <= MAX_PIECES:
        print(f"crownhead egdb build: --pieces must be 2-{MAX_PIECES}, not {args.pieces}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"crownhead egdb build: --jobs must be 1 or more, not {args.jobs}", file=sys.stderr)
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
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) // 1024
    print(
        f"{len(tables)} tables of up to {args.pieces} pieces in {folder} "
        f"({time.monotonic() - started:.0f} s, at most {peak} MB of memory a process)"
    )
    return 0


def run_pack(args: argparse.Namespace) -> int:
    low, _, high = args.pieces.partition("-")
    try:
        pieces = int(low), int(high or low)
    except ValueError:
        pieces = (0, 0)
    if not 2 <= pieces[0] <= pieces[1] <= MAX_PIECES:
        print(
            f"crownhead egdb pack: --pieces must be a number of pieces or a range within "
            f"2-{MAX_PIECES}, not {args.pieces!r}",
            file=sys.stderr,
        )
        return 2
    from crownhead.firmware.egdb import wdl

    folder = args.dir if args.dir is not None else default_dir()
    bar = None if args.quiet else Bar(sys.stderr)
    started = time.monotonic()
    try:
        packed = wdl.pack_folder(folder, args.to, pieces, bar)
    except EgdbError as error:
        print(f"crownhead egdb pack: {error}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    size = sum((args.to / wdl_name(m)).stat().st_size for m in packed)
    print(f"{len(packed)} win/draw/loss tables in {args.to}: {size / 1e6:.1f} MB ({time.monotonic() - started:.0f} s)")
    return 0


def run_verify(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Each table's values must follow from its positions' moves: one ply more than the
    fastest win among them, else a draw, else one more than the longest loss. A check
    independent of the builder (it plays the moves with the rules' own move generator),
    so a table built wrong, or damaged on disk, is named."""
    out = out or sys.stdout
    folder = args.dir if args.dir is not None else default_dir()
    if args.sample < 1:
        print(f"crownhead egdb verify: --sample must be 1 or more, not {args.sample}", file=sys.stderr)
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
            print(
                f"  {''.join(map(str, material))}  "
                f"{'damaged: a block does not read' if material in opened else 'missing'}",
                file=out,
            )
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
            print(
                f"  {''.join(map(str, material))}  {len(wrong)} of {len(sample)} wrong, the "
                f"first index {wrong[0]} ({_fen(own, opp, kings)})",
                file=out,
            )
    print(
        f"{len(probe.tables)} tables of up to {probe.pieces} pieces in {folder}: "
        f"{checked:,} positions checked, "
        f"{'no table wrong' if not bad else f'{bad} wrong or missing'} "
        f"({time.monotonic() - started:.0f} s)",
        file=out,
    )
    return 1 if bad else 0


def _fen(own: int, opp: int, kings: int) -> str:
    """A table's position (own to move as Black) as FEN."""
    return Position(black=own, white=opp, kings=kings, turn=Color.BLACK).fen()


def run_info(args: argparse.Namespace) -> int:
    if args.dir is not None:
        return _list(args.dir)
    # What the engine probes (a build in the state directory, the shipped tables for
    # whatever it lacks), then each folder.
    try:
        probe = load_probe(skip_damaged=True)
    except EgdbError as error:  # pragma: no cover - skip_damaged logs instead
        print(f"crownhead egdb info: {error}", file=sys.stderr)
        return 1
    print(f"The engine probes {describe(probe)}.")
    folder = default_dir()
    if not any(folder.glob("egdb-*")):
        print(
            f"{folder}: none built (the shipped tables serve; `crownhead egdb build` "
            "adds distances to five pieces, `--pieces 6` on a desktop to six: "
            "docs/engine.md)"
        )
    elif (code := _list(folder)) != 0:
        return code
    shipped = sorted(SHIPPED.glob("egdb-*"))
    for suffix, words in ((".xz", "with distances"), (".wdl", "won, drawn or lost only")):
        files = [f for f in shipped if f.suffix == suffix]
        if files:
            counts = sorted({sum(int(c) for c in f.stem[5:9]) for f in files})
            print(
                f"{SHIPPED} (shipped): {len(files)} tables of {counts[0]}-{counts[-1]} "
                f"pieces {words}, {sum(f.stat().st_size for f in files) / 1e6:.1f} MB"
            )
    return 0


def _list(folder: Path) -> int:
    names = {file_name(m): m for m in materials(MAX_PIECES)}
    packed = {wdl_name(m): m for m in materials(MAX_PIECES)}
    present = [m for name, m in names.items() if (folder / name).is_file()]
    present_wdl = [m for name, m in packed.items() if (folder / name).is_file()]
    if not present and not present_wdl:
        print(f"no endgame tables in {folder} (crownhead egdb build makes them)")
        return 0
    print(f"{folder}:")
    for material in materials(max(sum(m) for m in present + present_wdl)):
        name = "".join(map(str, material))
        if material not in present:
            if material in present_wdl:
                size = (folder / wdl_name(material)).stat().st_size
                print(f"  {name}  {size_of(material):>9,} indices  won, drawn or lost only ({size:,} bytes)")
            else:
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
        print(f"  {name}  {len(table):>9,} indices  {wins:>9,} won  {losses:>9,} lost  longest {max(counts) - 1} plies")
    return 0
