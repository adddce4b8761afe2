"""``crownhead perft``: count the leaf nodes of the move tree, as in the published tables."""

from __future__ import annotations

import argparse
import sys
import time

from crownhead.firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from crownhead.firmware.files import int_argument
from crownhead.rules.perft import divide, perft


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "perft",
        help="count leaf nodes of the move tree (every capture route counts)",
        description="Count leaf nodes DEPTH plies below a position. The node count is the last line.",
    )
    p.add_argument("--fen", help="start from this position (PDN FEN); default: the start position")
    p.add_argument("--depth", type=int_argument, required=True, help="plies to search")
    p.add_argument(
        "--divide",
        action="store_true",
        help="first print the count below each legal move (MOVE: COUNT, in square order)",
    )
    p.add_argument(
        "--unique",
        action="store_true",
        help="merge capture routes with equal start, end and captured set",
    )
    p.add_argument("--time", action="store_true", help="print elapsed time and leaves/s to stderr")
    add_rules_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 0:
        print("crownhead perft: --depth must be 0 or more", file=sys.stderr)
        return 2
    position = position_from_args(args)
    if position is None:
        return 2
    rules = rules_from_args(args)
    started = time.perf_counter()
    if args.divide:
        total = 0
        rows = divide(position, args.depth, rules, unique=args.unique)
        # In square order, as `crownhead moves` lists them, so two runs diff line by line.
        for move, count in sorted(rows, key=lambda row: (row[0].path, row[0].captures)):
            print(f"{move.pdn(full=True)}: {count}")
            total += count
    else:
        total = perft(position, args.depth, rules, unique=args.unique)
    elapsed = time.perf_counter() - started
    print(total)
    if args.time:
        rate = total / elapsed if elapsed > 0 else float("inf")
        print(f"{elapsed:.3f} s, {rate:,.0f} leaves/s", file=sys.stderr)
    return 0
