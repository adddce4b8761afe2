"""Arguments shared by the commands that play: the position and the rule options."""

from __future__ import annotations

import argparse
import sys

from rules import FenError, Position, Rules


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--men-capture-backward",
        action="store_true",
        help="men may jump backward (a house rule; WCDF: off)",
    )
    parser.add_argument(
        "--captures-optional",
        action="store_true",
        help="captures are not compulsory (a house rule; WCDF: compulsory)",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    return Rules(
        men_capture_backward=getattr(args, "men_capture_backward", False),
        captures_compulsory=not getattr(args, "captures_optional", False),
    )


def position_from_args(args: argparse.Namespace) -> Position | None:
    """The ``--fen`` position, or the start position; None (after a message) if bad."""
    fen = getattr(args, "fen", None)
    if not fen:
        return Position.start()
    try:
        return Position.from_fen(fen)
    except FenError as exc:
        print(f"crownhead: {exc}", file=sys.stderr)
        return None
