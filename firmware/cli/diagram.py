"""``crownhead diagram``: a position as an SVG picture of the board (the web page's drawing)."""

from __future__ import annotations

import argparse
import sys

from crownhead.firmware.cli._common import position_from_args
from crownhead.firmware.diagram import board_svg
from crownhead.firmware.files import int_argument


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diagram",
        help="print a position as an SVG picture of the board",
        description=(
            "Print the SVG drawing of a position, the same drawing the web page shows: "
            "Black at the top (--flip: White), kings crowned, square numbers in the dark "
            "squares. Example: crownhead diagram --fen 'W:WK10,22:B5,6' > board.svg"
        ),
    )
    p.add_argument("--fen", help="the position (PDN FEN); default: the start position")
    p.add_argument("--flip", action="store_true", help="White's side at the top")
    p.add_argument(
        "--size",
        type=int_argument,
        default=400,
        metavar="PX",
        help="width and height in pixels (16-10000, default 400)",
    )
    p.add_argument("--no-numbers", action="store_true", help="leave the square numbers out")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 16 <= args.size <= 10_000:
        print(f"crownhead diagram: --size must be 16-10000 pixels, got {args.size}", file=sys.stderr)
        return 2
    position = position_from_args(args)
    if position is None:
        return 2
    sys.stdout.write(board_svg(position, flipped=args.flip, size=args.size, numbers=not args.no_numbers) + "\n")
    return 0
