"""``crownhead sheet``: printable score sheets (PDF) of the games of a PDN file, or a blank one."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from firmware.cli._common import add_rules_arguments, rules_from_args
from firmware.sheets.files import SheetError, sheets_from_pdn
from firmware.sheets.pdf import PAPERS, blank_sheet
from rules.pdn import decode

#: Largest PDN file read (a sheet is for people: the biggest real collections are a few MB).
MAX_PDN_BYTES = 64 * 1024 * 1024


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sheet",
        help="print score sheets (PDF) of the games of a PDN file, or a blank sheet",
        description=(
            "Write score sheets as a PDF: a game sheet for every game of PDN_FILE (or game "
            "N), the match sheet of its games between the same two players (--match), or a "
            "blank sheet to fill in by hand (--blank). A game that does not replay gets a "
            "sheet of the moves read before the problem, and a message naming the game and "
            "ply (exit code 1). A file that cannot be read: exit code 2."
        ),
    )
    p.add_argument("pdn_file", nargs="?", metavar="PDN_FILE", help="the games (PDN)")
    p.add_argument("--game", type=int, metavar="N", help="only game N of the file (from 1)")
    p.add_argument(
        "--match", action="store_true",
        help="a match sheet: the file's games between the players of the first game (or of game N)",
    )
    p.add_argument(
        "--count-draws", action="store_true",
        help="score the match with wins, draws and losses (a draw is half a point; the 1923 "
        "Standard Laws) instead of wins alone (a drawn game gives no mark)",
    )
    p.add_argument("--blank", action="store_true", help="a blank game sheet, for a game played without the board")
    add_paper_argument(p)
    p.add_argument("-o", "--output", metavar="OUT.pdf", required=True, help="the PDF to write ('-': standard output)")
    add_rules_arguments(p)
    p.set_defaults(func=run)


def add_paper_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paper", type=str.lower, choices=sorted(PAPERS), default="letter",
        help="paper size (default: letter)",
    )


def write_pdf(prog: str, output: str, data: bytes) -> int:
    """Write ``data`` to ``output`` atomically (``-``: standard output); 0, or 2 after one line."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    path = Path(output)
    if path.is_dir():
        print(f"{prog}: {path} is a directory; give a file name", file=sys.stderr)
        return 2
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        print(f"{prog}: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        # mkstemp makes the file private; a sheet is as readable as any file the user writes.
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        print(f"{prog}: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def read_pdn(prog: str, name: str) -> str | None:
    """The text of a PDN file, or None after a one-line message."""
    try:
        if os.path.isdir(name):
            print(f"{prog}: cannot read {name}: it is a directory", file=sys.stderr)
            return None
        with open(name, "rb") as handle:
            data = handle.read(MAX_PDN_BYTES + 1)
    except OSError as exc:
        print(f"{prog}: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return None
    if len(data) > MAX_PDN_BYTES:
        print(f"{prog}: {name} is larger than {MAX_PDN_BYTES // (1024 * 1024)} MB; split it", file=sys.stderr)
        return None
    return decode(data)


def run(args: argparse.Namespace) -> int:
    prog = "crownhead sheet"
    if args.blank:
        if args.pdn_file or args.game is not None or args.match:
            print(f"{prog}: --blank takes no PDN file, --game or --match", file=sys.stderr)
            return 2
        return write_pdf(prog, args.output, blank_sheet(args.paper))
    if not args.pdn_file:
        print(f"{prog}: give a PDN file (or --blank for a blank sheet)", file=sys.stderr)
        return 2
    text = read_pdn(prog, args.pdn_file)
    if text is None:
        return 2
    try:
        pdf, problems = sheets_from_pdn(
            text,
            args.pdn_file,
            game=args.game,
            match=args.match,
            count_draws=args.count_draws,
            paper=args.paper,
            rules=rules_from_args(args),
        )
    except SheetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    code = write_pdf(prog, args.output, pdf)
    if code:
        return code
    for problem in problems:
        print(f"{prog}: {problem}", file=sys.stderr)
    return 1 if problems else 0
