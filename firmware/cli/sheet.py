"""``crownhead sheet``: printable score sheets (PDF) of the games of a PDN file, or a blank one."""

from __future__ import annotations

import argparse
import os
import sys

from crownhead.firmware.cli._common import add_rules_arguments, rules_from_args
from crownhead.firmware.files import int_argument
from crownhead.firmware.files import FileRefused, open_bytes
from crownhead.firmware.sheets.files import MAX_PDN_BYTES, SheetError, read_pdn_file, sheets_from_pdn, write_pdf_file
from crownhead.firmware.sheets.model import PAPERS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sheet",
        help="print score sheets (PDF) of the games of a PDN file, or a blank sheet",
        description=(
            "Write score sheets as a PDF: a game sheet for every game of PDN_FILE (or game "
            "N), the match sheet of its games between the same two players (--match), or a "
            "blank sheet to fill in by hand (--blank; --blank --match: a blank match sheet). A game that does not replay gets a "
            "sheet of the moves read before the problem, and a message naming the game and "
            "ply (exit code 1). A file that cannot be read: exit code 2."
        ),
    )
    p.add_argument("pdn_file", nargs="?", metavar="PDN_FILE", help="the games (PDN)")
    p.add_argument("--game", type=int_argument, metavar="N", help="only game N of the file (from 1)")
    p.add_argument(
        "--match",
        action="store_true",
        help="a match sheet: the file's games between the players of the first game (or of game N)",
    )
    p.add_argument(
        "--count-draws",
        action="store_true",
        help="score the match with wins, draws and losses (a draw is half a point; the 1923 "
        "Standard Laws) instead of wins alone (a drawn game gives no mark)",
    )
    p.add_argument(
        "--blank",
        action="store_true",
        help="a blank game sheet, for a game played without the board (with --match: a blank match sheet)",
    )
    add_paper_argument(p)
    p.add_argument("-o", "--output", metavar="OUT.pdf", required=True, help="the PDF to write ('-': standard output)")
    add_rules_arguments(p)
    p.set_defaults(func=run)


def add_paper_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paper",
        type=str.lower,
        choices=sorted(PAPERS),
        default="letter",
        help="paper size (default: letter)",
    )


def write_pdf(prog: str, output: str, data: bytes) -> int:
    """Write the PDF to ``output`` (``-``: standard output); 0, or 2 after one line."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        write_pdf_file(output, data)
    except SheetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    return 0


def read_pdn(prog: str, name: str) -> str | None:
    """The text of a PDN file, or None after a one-line message."""
    try:
        return read_pdn_file(name)
    except SheetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    from crownhead.firmware.sheets.pdf import blank_sheet, match_sheet  # fpdf2 only for a sheet

    prog = "crownhead sheet"
    if args.blank:
        if args.pdn_file or args.game is not None:
            print(f"{prog}: --blank takes no PDN file or --game", file=sys.stderr)
            return 2
        if args.match:
            return write_pdf(prog, args.output, match_sheet(None, (), args.paper))
        return write_pdf(prog, args.output, blank_sheet(args.paper))
    if not args.pdn_file:
        print(f"{prog}: give a PDN file (or --blank for a blank sheet)", file=sys.stderr)
        return 2
    if os.path.isdir(args.pdn_file):
        print(f"{prog}: cannot read {args.pdn_file}: it is a directory", file=sys.stderr)
        return 2
    try:
        # Read a part at a time: only the games printed are held.
        with open_bytes(args.pdn_file, MAX_PDN_BYTES) as handle:
            pdf, problems = sheets_from_pdn(
                handle,
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
    except FileNotFoundError as exc:
        print(f"{prog}: cannot read {args.pdn_file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except FileRefused as exc:
        print(f"{prog}: cannot read {exc}", file=sys.stderr)
        return 2
    code = write_pdf(prog, args.output, pdf)
    if code:
        return code
    for problem in problems:
        print(f"{prog}: {problem}", file=sys.stderr)
    return 1 if problems else 0
