"""``crownhead selftest``: walk every square and every LED colour, report what is broken.

1. Electrical self-checks of the sensor backend (a shorted matrix column, a broken
   shift-register chain, a serial board not answering).
2. Clear the board: squares still reading occupied have a switch stuck closed.
3. Walk the squares: each in turn is lit and a piece is placed on it and lifted. A
   square whose switch never closes, that answers as another square, or that stays
   closed after the lift is reported.
4. Every LED colour in turn (red, green, blue, white) on all squares; the person
   watching names the squares that stay dark.

With the simulator (``--hal sim``) the test runs unattended on a virtual clock: a
simulated hand follows the prompts (it puts the piece on the square it sees lit) and
reports the LEDs it sees dark. ``--sim-stuck 12``, ``--sim-swap 5,6``,
``--sim-dead-led 7`` etc. inject faults for it to find. The exit code is 1 when faults
were found, 0 when none, 2 when the board could not be opened.

The result (its time, pass or fail, the report's lines) is kept in the state directory
(``selftest.json``, :mod:`crownhead.firmware.storage.selftest`) for the web page's status; a
board that could not be opened is kept as a failed test too.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from crownhead.firmware.app.hardware import add_hardware_arguments, add_sim_arguments, config_from_args, open_hardware
from crownhead.firmware.config import ConfigError
from crownhead.firmware.diagnostics.selftest import ConsoleOperator, Operator, Selftest, SimHand, parse_squares, report
from crownhead.firmware.storage.selftest import SelftestRecord, save_selftest
from crownhead.firmware.app.settings import StoreConfig
from crownhead.firmware.files import default_state_dir
from crownhead.hal.clock import Clock, MonotonicClock, VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.hal.lights import NullLights

__all__ = ["register", "run"]


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        config = config_from_args(args)
        backend = args.hal or config.board.backend
        squares = parse_squares(args.squares)
    except ConfigError as exc:
        print(f"crownhead selftest: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"crownhead selftest: --squares: {exc}", file=sys.stderr)
        return 2
    simulated = backend == "sim"
    clock: Clock
    idle: Callable[[int], object]
    if simulated:
        # Unattended on virtual time: waiting is advancing the clock, so the whole
        # test takes a fraction of a second however long its timeouts are.
        vclock = VirtualClock()
        clock, idle = vclock, vclock.advance
    else:
        clock = MonotonicClock()
        idle = _sleep_ms

    timeout_s = args.timeout if args.timeout is not None else (2.0 if simulated else 20.0)
    state_dir = Path(args.state_dir or config.get(StoreConfig).state_dir or default_state_dir())
    try:
        hw = open_hardware(config, clock, hal=args.hal)
    except (ConfigError, HardwareError) as exc:
        print(f"crownhead selftest: {exc}", file=sys.stderr)
        if isinstance(exc, HardwareError):
            _keep(
                state_dir, backend, [f"the board could not be opened: {exc}"], [f"the board could not be opened: {exc}"]
            )
        return 2
    try:
        operator: Operator
        if simulated:
            assert hw.sim is not None
            operator = SimHand(hw.sim, bounces=config.sim.hand_bounces, out=out if args.verbose else None)
            print("Self-test on the simulated board (unattended).", file=out)
        else:
            operator = ConsoleOperator(
                out,
                interactive=sys.stdin.isatty(),
                idle=idle,
                lit=not isinstance(hw.lights.inner, NullLights),
            )
            print(
                f"Self-test on the {backend} board. Follow the prompts; each step waits {timeout_s:g} s.",
                file=out,
            )
        test = Selftest(
            hw,
            operator,
            idle=idle,
            timeout_ms=int(timeout_s * 1000),
            squares=squares,
            leds=not args.no_leds,
            buttons=not args.no_buttons and (simulated or sys.stdin.isatty()),
        )
        result = test.run()
    except KeyboardInterrupt:
        print("\nSelf-test interrupted.", file=out)
        return 130
    finally:
        hw.close()
    report(result, out, not args.no_leds)
    lines = io.StringIO()
    report(result, lines, not args.no_leds)
    _keep(state_dir, backend, [line for line in lines.getvalue().splitlines() if line.strip()], result.faults)
    return 1 if result.faults else 0


def _keep(state_dir: Path, backend: str, lines: list[str], faults: list[str]) -> None:
    """Keep the result for the status page; a state directory that cannot be written costs
    a line on stderr, not the test's verdict."""
    record = SelftestRecord.of(datetime.now(timezone.utc), backend, lines, faults)
    try:
        save_selftest(state_dir, record)
    except OSError as exc:
        print(f"crownhead selftest: the result was not kept in {state_dir}: {exc.strerror or exc}", file=sys.stderr)


def _sleep_ms(ms: int) -> None:
    time.sleep(ms / 1000)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "selftest",
        help="walk every square and LED colour and report faults",
        description="Light each square in turn and ask for a piece to be placed and lifted "
        "there, then show every LED colour; report switches that never change, answer for "
        "the wrong square or stay closed, and LEDs that stay dark. Exit code 1 when faults "
        "are found.",
    )
    parser.add_argument(
        "--squares",
        default="1-32",
        metavar="LIST",
        help='squares to walk, e.g. "1-8,12" (default: all)',
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds to wait at each step (default 20; 2 with the simulator)",
    )
    parser.add_argument("--no-leds", action="store_true", help="skip the LED colour check")
    parser.add_argument("--no-buttons", action="store_true", help="skip listing the buttons as they are pressed")
    parser.add_argument("--verbose", action="store_true", help="with the simulator: show what the hand does")
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        default=None,
        help="where the result is kept for the web page's status (default: store.state_dir, "
        "else /var/lib/crownhead or ~/.local/state/crownhead)",
    )
    add_hardware_arguments(parser)
    add_sim_arguments(parser)
    parser.set_defaults(func=run)
