"""Arguments shared by the commands that play: the position and the rule options."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rules import FenError, Position, Rules
from rules.settings import Crowning
from rules.variants import SUMMARIES, names, numeric_fen, rules_for


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    listing = "; ".join(f"{name}: {SUMMARIES[name]}" for name in names())
    parser.add_argument(
        "--variant",
        type=str.lower,
        choices=names(),
        default=None,  # english; None tells a variant given from none (crownhead run resuming)
        metavar="NAME",
        help=f"the game played on the board ({listing}). The house-rule options below change it further",
    )
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
    parser.add_argument(
        "--keep-jumping-after-crowning",
        action="store_true",
        help="a man crowned in the middle of a chain of jumps goes on jumping as a king "
        "(a house rule; WCDF: the move ends on crowning)",
    )
    parser.add_argument(
        "--kings-capture-first",
        action="store_true",
        help="when a king and a man can both capture, a king must (a house rule)",
    )
    parser.add_argument(
        "--huffing",
        action="store_true",
        help="a skipped jump is legal but the opponent may huff the piece that should have "
        "jumped or make the player take the jump (the old Standard Laws)",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The ``--variant`` rules with the house-rule options applied on top."""
    rules = rules_for(getattr(args, "variant", None) or "english")
    changes: dict[str, Any] = {}
    if getattr(args, "men_capture_backward", False):
        changes["men_capture_backward"] = True
    if getattr(args, "captures_optional", False):
        changes["captures_compulsory"] = False
    if getattr(args, "keep_jumping_after_crowning", False):
        changes["crowning"] = Crowning.CONTINUES_AS_KING
    if getattr(args, "kings_capture_first", False):
        changes["kings_capture_first"] = True
    if getattr(args, "huffing", False):
        changes["huffing"] = True
    return rules.with_options(**changes) if changes else rules


def position_from_args(args: argparse.Namespace) -> Position | None:
    """The ``--fen`` position, or the start position; None (after a message) if bad.

    The start position has the variant's first mover to move (White in Russian
    draughts). A FEN may name squares by number or, as Russian PDN files do, a1-h8.
    """
    fen = getattr(args, "fen", None)
    if fen is None:
        return Position.start(rules_from_args(args))
    # An empty --fen (say, an unset shell variable) is an error, not the start position.
    try:
        return Position.from_fen(numeric_fen(fen))
    except (FenError, ValueError) as exc:
        command = getattr(args, "command", None)
        prog = f"crownhead {command}" if command else "crownhead"
        print(f"{prog}: --fen: {exc}", file=sys.stderr)
        return None


#: The optional libraries, by the extra that installs them (``pip install 'crownhead[web]'``).
EXTRAS = {
    "starlette": "web",
    "uvicorn": "web",
    "wsproto": "web",
    "h11": "web",
    "segno": "web",
    "paho": "hall",
    "amqtt": "hall",
}
_NEEDED_BY = {"web": "the web page", "hall": "the tournament hall (MQTT)"}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """What to install for a library of an optional extra that is missing; None for any
    other module.

    >>> missing_extra(ModuleNotFoundError("No module named 'paho'", name="paho"))
    "the tournament hall (MQTT) needs paho, which is not installed: pip install 'crownhead[hall]' (in a checkout: pip install -e '.[hall]')"
    """
    name = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(name)
    if extra is None:
        return None
    return (
        f"{_NEEDED_BY[extra]} needs {name}, which is not installed: pip install 'crownhead[{extra}]'"
        f" (in a checkout: pip install -e '.[{extra}]')"
    )
