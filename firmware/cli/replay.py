"""``crownhead replay``: run a script of hand actions on the simulated board, print events.

The script (:mod:`firmware.simulator.script`) drives the simulated board through the
same debouncer, controller and tracker as the hardware, on a virtual clock, starting with
the position already standing on the board. Output is JSON Lines, one event per line;
the last line is the ``final`` event. The format is documented in ``docs/replay.md``.
"""

from __future__ import annotations

import argparse
import json
import sys

from firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from firmware.cli._hall import add_hall_arguments, hall_from_args, publish_replay
from firmware.events import Event
from firmware.referee.arbiter import add_referee_arguments, referee_from_args
from firmware.files import FileRefused
from firmware.simulator.script import ScriptError, iter_replay, parse_script, read_script
from firmware.tracking.policy import TRACKER_MODES

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="run a script of lift/place/wait/press lines on the simulated board",
        description=(
            "Run SCRIPT (lift S, place S, wait MS, press NAME, hold NAME (a long press); # comments) against the "
            "simulated board through the same debouncer and tracker as the hardware, on a "
            "virtual clock, and print the events as JSON Lines; the last line is "
            '{"event":"final",...}. SCRIPT may be - for standard input.'
        ),
    )
    p.add_argument("script", metavar="SCRIPT", help="the script file, or - for standard input")
    p.add_argument("--fen", help="the position standing on the board at the start (default: the start position)")
    p.add_argument("--mode", choices=sorted(TRACKER_MODES), default="play", help="play (default) or referee")
    p.add_argument("--lights", action="store_true", help="also print the LED picture each time it changes")
    add_hall_arguments(p)
    add_referee_arguments(p)
    add_rules_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = args.script
    try:
        text = read_script(name)
    except FileRefused as exc:
        print(f"crownhead replay: cannot read {exc}", file=sys.stderr)
        return 2
    where = "<stdin>" if name == "-" else name
    try:
        actions = parse_script(text)
    except ScriptError as exc:
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    position = position_from_args(args)
    if position is None:
        return 2
    try:
        referee = referee_from_args(args, args.mode, position, rules_from_args(args))
    except ValueError as exc:
        print(f"crownhead replay: {exc}", file=sys.stderr)
        return 2
    try:
        hall = hall_from_args(args)
    except ValueError as exc:
        print(f"crownhead replay: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    played: list[Event] = []
    try:
        for event in iter_replay(
            actions, position, rules_from_args(args), args.mode, lights=args.lights, referee=referee
        ):
            out.write(json.dumps(event.to_json(), separators=(",", ":")) + "\n")
            if hall is not None and event.kind not in ("lights", "final"):
                played.append(event)
    except ScriptError as exc:
        out.flush()
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        out.flush()
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    out.flush()
    if hall is not None:
        return publish_replay(hall, played, args.fen, rules_from_args(args), referee=referee)
    return 0
