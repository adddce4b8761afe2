"""``crownhead moves``: the legal moves of a position in PDN, one per line."""

from __future__ import annotations

import argparse

from crownhead.firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from crownhead.rules.pdn import move_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "moves",
        help="print the legal moves of a position in PDN, one per line",
        description=(
            "Print the legal moves in PDN, one per line, in square order: the short form "
            "(11-15, 15x24) unless two capture routes share their ends, then the full path "
            "(15x24x31). Nothing is printed when the side to move has no legal move."
        ),
    )
    p.add_argument("--fen", help="the position (PDN FEN); default: the start position")
    p.add_argument("--full", action="store_true", help="write every capture with its full path")
    add_rules_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    position = position_from_args(args)
    if position is None:
        return 2
    rules = rules_from_args(args)
    for move in sorted(position.legal_moves(rules), key=lambda m: (m.path, m.captures)):
        print(move.pdn(full=True) if args.full else move_text(position, move, rules, numbers=True))
    return 0
