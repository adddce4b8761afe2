"""``crownhead mcu``: the Pico board firmware: ``install`` it, ``check`` a board's protocol.

``crownhead mcu install [--port PORT]`` copies the MicroPython firmware onto a Pico with
mpremote. ``crownhead mcu check [--port PORT]`` runs the protocol conformance check
against whatever board is on the port; ``--against emulator`` or ``--against firmware``
runs it against the reference emulator or the firmware on this computer instead, to see
what a passing board looks like. Exit code 1 when a check fails, 2 when nothing could
be reached.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from crownhead.extras import install_command
from crownhead.firmware.config import ConfigError, load_config
from crownhead.firmware.mcu import FIRMWARE_DIR, FIRMWARE_FILES, MICROPYTHON_VERSION

__all__ = ["register", "run_install", "run_check"]


def run_install(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from crownhead.firmware.mcu.install import STOP_SERVICE, InstallError, describe, install, mpremote_command

    out = out or sys.stdout
    if args.dry_run:
        print(describe(mpremote_command(args.port)), file=out)
        return 0
    print(f"Nothing else may use the port meanwhile: {STOP_SERVICE}.", file=out)
    print(
        f"Installing {', '.join(FIRMWARE_FILES)} (MicroPython {MICROPYTHON_VERSION}) "
        f"from {FIRMWARE_DIR} on {args.port or 'the first USB serial device'}...",
        file=out,
        flush=True,
    )
    try:
        install(args.port)
    except InstallError as exc:
        print(f"crownhead mcu install: {exc}", file=sys.stderr)
        return 2
    print("Installed; the Pico has been reset and runs the firmware.", file=out)
    print("Check it with: crownhead mcu check" + (f" --port {args.port}" if args.port else ""), file=out)
    return 0


def run_check(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from crownhead.firmware.mcu.conformance import EmulatorTarget, FirmwareTarget, PortTarget, Target, run_checks

    out = out or sys.stdout
    target: Target
    port = args.port
    try:
        if args.against == "emulator":
            target = EmulatorTarget()
        elif args.against == "firmware":
            target = FirmwareTarget()
        else:
            if port is None:
                port = load_config(args.config).serial.port
            target = PortTarget(port)
    except ConfigError as exc:
        print(f"crownhead mcu check: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # pyserial's SerialException is an OSError
        from crownhead.firmware.mcu.install import STOP_SERVICE
        from crownhead.hal.serial_board import port_in_use

        if port_in_use(exc):
            print(f"crownhead mcu check: {port} is in use by another program: {STOP_SERVICE}", file=sys.stderr)
        else:
            print(f"crownhead mcu check: cannot open the board: {exc}", file=sys.stderr)
        return 2
    try:
        report = run_checks(target, answer_ms=args.answer_ms, quiet_ms=args.quiet_ms, only=args.only or None)
    finally:
        target.close()
    print(report.text(), file=out)
    return 0 if report.ok else 1


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcu",
        help="the Pico board firmware: install it, check a board's serial protocol",
        description="The MicroPython firmware for a board with its own Raspberry Pi Pico "
        "(the serial backend): copy it onto the Pico, or check that a board speaks serial "
        "protocol version 1 as docs/hardware.md specifies.",
    )
    sub = parser.add_subparsers(dest="mcu_command", metavar="ACTION", required=True)
    inst = sub.add_parser(
        "install",
        help="copy the firmware onto a Pico with mpremote",
        description="Copy crownhead_board.py and main.py onto a Pico that runs MicroPython "
        f"{MICROPYTHON_VERSION}, then reset it. Needs mpremote (the 'mcu' extra: "
        f"{install_command('mcu')}). "
        "Stop the board's service first (sudo systemctl stop crownhead): it holds the port.",
    )
    inst.add_argument("--port", default=None, help="serial port of the Pico (default: the first USB serial device)")
    inst.add_argument("--dry-run", action="store_true", help="print the mpremote command instead of running it")
    inst.set_defaults(func=run_install)
    check = sub.add_parser(
        "check",
        help="run the protocol conformance check against a board",
        description="Send the board every kind of line the protocol has (and many it must "
        "refuse) and check each answer. Exit code 1 when a check fails. Stop the board's "
        "service first (sudo systemctl stop crownhead): it holds the port.",
    )
    check.add_argument("--port", default=None, help="serial port (default: serial.port from the configuration)")
    check.add_argument("--config", default=None, metavar="PATH", help="configuration file (for serial.port)")
    check.add_argument(
        "--against",
        choices=("port", "emulator", "firmware"),
        default="port",
        help="check the board on the port (default), the reference emulator, or the Pico "
        "firmware running on this computer",
    )
    check.add_argument(
        "--answer-ms",
        type=_positive_int,
        default=300,
        metavar="MS",
        help="how long to wait for each answer at most (default 300); an answer that comes sooner ends the wait",
    )
    check.add_argument(
        "--quiet-ms",
        type=_positive_int,
        default=None,
        metavar="MS",
        help="how long to listen for lines that must not come, such as an ERR for a good line (default: --answer-ms)",
    )
    check.add_argument("--only", action="append", metavar="WORD", help="run only the checks whose name contains WORD")
    check.set_defaults(func=run_check)
