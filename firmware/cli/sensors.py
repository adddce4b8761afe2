"""``crownhead sensors``: the live occupancy as an 8x8 diagram, for checking the wiring.

Shows the *raw* switches (no debouncing) so a chattering or miswired switch is visible
as it is. ``--once`` prints one snapshot and exits; otherwise the diagram refreshes on
every change until Ctrl-C (or ``--seconds``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from crownhead.firmware.app.hardware import add_hardware_arguments, add_sim_arguments, open_from_args
from crownhead.firmware.config import ConfigError
from crownhead.firmware.diagnostics.sensors import live, show_once
from crownhead.hal.clock import MonotonicClock
from crownhead.hal.errors import HardwareError

__all__ = ["register", "run"]


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    clock = MonotonicClock()
    try:
        hw = open_from_args(args, clock)
    except (ConfigError, HardwareError) as exc:
        print(f"crownhead sensors: {exc}", file=sys.stderr)
        return 2
    try:
        faults = hw.diagnose()
        if args.once:
            return show_once(hw, out, faults, args.wait)
        return live(hw, out, faults, seconds=args.seconds, interval_ms=args.interval, light=args.light)
    except KeyboardInterrupt:
        return 0
    finally:
        hw.close()


def _positive(kind: type) -> object:
    def parse(text: str) -> object:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sensors",
        help="show the live occupancy of the switches (wiring check)",
        description="Print the raw occupancy of the 32 switches as an 8x8 diagram, beside "
        "the square numbers, and refresh it on every change until Ctrl-C. Exit code 1 when "
        "the backend detects an electrical fault (a shorted matrix column, a broken "
        "shift-register chain, a serial board that does not answer).",
    )
    parser.add_argument("--once", action="store_true", help="print one snapshot and exit")
    parser.add_argument("--seconds", type=_positive(float), default=None, metavar="S", help="stop after S seconds")
    parser.add_argument(
        "--interval",
        type=_positive(int),
        default=20,
        metavar="MS",
        help="refresh period (default 20 ms)",
    )
    parser.add_argument("--light", action="store_true", help="light the LED under every occupied square")
    parser.add_argument(
        "--wait",
        type=_positive(float),
        default=3.0,
        metavar="S",
        help="with --once on a serial board: how long to wait for it to answer (default 3 s)",
    )
    add_hardware_arguments(parser)
    add_sim_arguments(parser)
    parser.set_defaults(func=run)
