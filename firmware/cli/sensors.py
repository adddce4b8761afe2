"""``crownhead sensors``: the live occupancy as an 8x8 diagram, for checking the wiring.

Shows the *raw* switches (no debouncing) so a chattering or miswired switch is visible
as it is. ``--once`` prints one snapshot and exits; otherwise the diagram refreshes on
every change until Ctrl-C (or ``--seconds``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from firmware.config import ConfigError
from firmware.app.hardware import Hardware, add_hardware_arguments, add_sim_arguments, open_from_args
from hal.clock import MonotonicClock
from hal.errors import HardwareError
from hal.sensors import SensorEvent, squares_of
from hal.squares import cell_to_square, square_name

__all__ = ["register", "render_occupancy", "run"]

OCCUPIED, EMPTY, LIGHT = "O", ".", " "
LIT = (0, 255, 0)


def render_occupancy(mask: int) -> str:
    """The board with occupied squares marked, beside a key of square numbers."""
    files = "a b c d e f g h"
    lines = [f"    {files}        a  b  c  d  e  f  g  h"]
    for row in range(8):
        rank = 8 - row
        marks, numbers = [], []
        for col in range(8):
            sq = cell_to_square(row, col)
            if sq is None:
                marks.append(LIGHT)
                numbers.append("  ")
            else:
                marks.append(OCCUPIED if mask >> (sq - 1) & 1 else EMPTY)
                numbers.append(f"{sq:2d}")
        lines.append(f" {rank}  {' '.join(marks)}     {rank} {' '.join(numbers)}".rstrip())
    occupied = squares_of(mask)
    lines.append(f"occupied ({len(occupied)}): {' '.join(map(str, occupied)) or '-'}")
    return "\n".join(lines)


def _status(hw: Hardware) -> str:
    parts = [f"backend: {hw.backend}"]
    rate = getattr(hw.sensors, "scan_rate", None)
    if rate is not None:
        parts.append(f"scans/s: {rate:.0f}")
    if hw.link is not None:
        parts.append(
            "link: " + ("connected" if hw.link.connected else f"DOWN ({hw.link.last_error})")
        )
        if hw.link.firmware:
            parts.append(f"firmware: {hw.link.firmware}")
    return "   ".join(parts)


def _describe(event: SensorEvent) -> str:
    what = "closed (occupied)" if event.occupied else "opened (empty)"
    return (
        f"{event.t_ms / 1000:9.3f}s  square {event.square:2d} ({square_name(event.square)}) {what}"
    )


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
            # A scanning backend has taken its first scan when it started; a serial
            # board answers OCC? within a moment after connecting.
            if hw.link is not None:
                _wait_for_link(hw, args.wait)
            print(render_occupancy(hw.sensors.snapshot()), file=out)
            print(_status(hw), file=out)
            for fault in faults:
                print(f"FAULT: {fault}", file=out)
            return 1 if faults else 0
        return _live(hw, args, out, faults)
    except KeyboardInterrupt:
        return 0
    finally:
        hw.close()


def _wait_for_link(hw: Hardware, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (hw.link.connected and hw.link.firmware):
        time.sleep(0.02)
    time.sleep(0.05)  # let the OCC answer that follows HELLO arrive


def _live(hw: Hardware, args: argparse.Namespace, out: TextIO, faults: list[str]) -> int:
    tty = out.isatty()
    recent: list[str] = []
    shown: int | None = None
    shown_status = ""
    end = None if args.seconds is None else time.monotonic() + args.seconds
    last_status_at = 0.0
    hw.sensors.poll()  # changes from before the first drawing are in it already
    while end is None or time.monotonic() < end:
        for event in hw.sensors.poll():
            recent.append(_describe(event))
            if not tty:
                print(recent[-1], file=out)
        del recent[:-8]
        occ = hw.sensors.snapshot()
        if args.light:
            hw.lights.show({sq: LIT for sq in squares_of(occ)})
        hw.lights.flush()
        now = time.monotonic()
        status = _status(hw)
        if occ != shown or (tty and status != shown_status and now - last_status_at >= 1.0):
            if tty:
                out.write("\x1b[H\x1b[2J")
            print(render_occupancy(occ), file=out)
            print(status, file=out)
            for fault in faults:
                print(f"FAULT: {fault}", file=out)
            if tty:
                print("\n".join(recent), file=out)
                print("Ctrl-C to stop", file=out)
            out.flush()
            shown, shown_status, last_status_at = occ, status, now
        time.sleep(args.interval / 1000)
    return 1 if faults else 0


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
    parser.add_argument(
        "--seconds", type=_positive(float), default=None, metavar="S", help="stop after S seconds"
    )
    parser.add_argument(
        "--interval",
        type=_positive(int),
        default=20,
        metavar="MS",
        help="refresh period (default 20 ms)",
    )
    parser.add_argument(
        "--light", action="store_true", help="light the LED under every occupied square"
    )
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
