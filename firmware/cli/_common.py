"""Arguments shared by the commands that play: the position and the rule options."""

from __future__ import annotations

import argparse
import sys
from crownhead.extras import install_command
from crownhead.rules import FenError, Position, Rules
from crownhead.rules.settings import HOUSE_RULES, with_house_rules
from crownhead.rules.variants import SUMMARIES, names, numeric_fen, rules_for


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
    for rule in HOUSE_RULES:
        parser.add_argument(f"--{rule.name}", action="store_true", help=rule.help)


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The ``--variant`` rules with the house-rule options applied on top."""
    rules = rules_for(getattr(args, "variant", None) or "english")
    return with_house_rules(rules, [r.name for r in HOUSE_RULES if getattr(args, r.name.replace("-", "_"), False)])


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


#: The optional libraries, by the extra that installs them (:func:`crownhead.extras.install_command`).
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

    >>> message = missing_extra(ModuleNotFoundError("No module named 'paho'", name="paho"))
    >>> message.startswith("the tournament hall (MQTT) needs paho, which is not installed: install it with ")
    True
    """
    name = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(name)
    if extra is None:
        return None
    return f"{_NEEDED_BY[extra]} needs {name}, which is not installed: install it with {install_command(extra)}"
