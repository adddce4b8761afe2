"""``crownhead relay PORT_A PORT_B``: join two boards' links on a PC, and show what they say.

Two boards play one game when each one's link reaches the other; with both on USB to one
PC (``/dev/ttyACM0``, ``/dev/ttyACM1``), or one of them across the network
(``socket://host:7000``), this command is the cable. It copies whole lines from each
port to the other, never half a line, and prints each one (the traffic of a whole game,
as in ``docs/protocol.md``).

Each port is kept open as the board keeps its own (reopened every ``--reconnect-ms``
after an error). Whenever a side (re)connects, or missed lines because it did not read,
the relay sends the command ``hello`` to both boards: each answers with its state,
which reaches the other, and they catch up. Lines too long for the protocol are dropped
and reported; nothing else is interpreted.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from crownhead.firmware.config import FieldError
from crownhead.firmware.files import int_argument
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.relay import Relay, json_log, text_log
from crownhead.firmware.link.transport import LineTransport
from crownhead.hal.clock import MonotonicClock

__all__ = ["register", "run"]

PROG = "crownhead relay"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "relay",
        help="join two boards' links (two serial ports) so they play one game",
        description=(
            "Copy lines between PORT_A and PORT_B (serial devices or pyserial URLs such as "
            "socket://host:7000), so that the two boards on them play one game, and print "
            "every line. Each port is reopened after an error; when one (re)connects, "
            "both boards are asked for their state."
        ),
    )
    p.add_argument("port_a", metavar="PORT_A", help="the first board's port")
    p.add_argument("port_b", metavar="PORT_B", help="the second board's port")
    p.add_argument("--baudrate", type=int_argument, default=115200, help="for serial devices (default: 115200)")
    p.add_argument(
        "--reconnect-ms", type=int_argument, default=1000, help="how often to retry a port that is gone (default: 1000)"
    )
    p.add_argument("--log", choices=("text", "json", "none"), default="text", help="what to print (default: text)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ports = []
    for port in (args.port_a, args.port_b):
        try:
            LinkConfig(port=port, baudrate=args.baudrate, reconnect_ms=args.reconnect_ms).validate()
        except FieldError as exc:
            what = port if exc.key == "port" else f"--{exc.key.replace('_', '-')}"
            print(f"{PROG}: {what}: {exc.message}", file=sys.stderr)
            return 2
        ports.append(port)
    if ports[0] == ports[1]:
        print(f"{PROG}: PORT_A and PORT_B are the same port ({ports[0]})", file=sys.stderr)
        return 2
    clock = MonotonicClock()
    a, b = (
        LineTransport(p, clock, baudrate=args.baudrate, reconnect_ms=args.reconnect_ms, name=f"relay {n}")
        for p, n in zip(ports, "AB")
    )
    log = {"text": text_log, "json": json_log}.get(args.log)
    relay = Relay(a, b, clock, log(sys.stdout) if log else None)
    stop = threading.Event()
    previous = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            previous[sig] = signal.signal(sig, handler)
    try:
        a.start()
        b.start()
        relay.run(stop)
    except BrokenPipeError:
        pass
    finally:
        a.close()
        b.close()
        for sig, old in previous.items():
            signal.signal(sig, old)
    return 0
