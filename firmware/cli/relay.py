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
import json
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, TextIO

from firmware.config import FieldError
from firmware.link.host import LinkConfig
from firmware.link.protocol import LinkError
from firmware.link.transport import LineTransport
from hal.clock import Clock, MonotonicClock

__all__ = ["Relay", "register", "run"]

PROG = "crownhead relay"
HELLO = b"hello\n"


class Relay:
    """Copies lines between two :class:`~firmware.link.transport.LineTransport` ports.

    ``log`` is called with (time ms, from, to, line text or a note) for everything seen.
    Call :meth:`step` repeatedly (:meth:`run` does) after starting both transports.
    """

    def __init__(
        self,
        a: LineTransport,
        b: LineTransport,
        clock: Clock,
        log: Callable[[int, str, str, str], None] | None = None,
        lines_per_step: int = 64,
    ) -> None:
        self.sides = {"A": a, "B": b}
        self.clock = clock
        self.log = log or (lambda t, src, dst, text: None)
        self.lines_per_step = lines_per_step
        self.forwarded = {"A": 0, "B": 0}
        self.dropped = 0

    def step(self) -> int:
        """Greet fresh links, then forward what has arrived; returns the lines handled."""
        now = self.clock.now_ms()
        fresh = {name: port.take_fresh() for name, port in self.sides.items()}
        for name, why in fresh.items():
            if why == "connect":
                self.log(now, name, "-", f"connected ({self.sides[name].url})")
            elif why == "overrun":
                self.log(now, name, "-", "missed lines (it did not read in time); asking both boards for their state")
        if any(fresh.values()):
            # Each board's answer goes to the other: ask both, once, when both can hear.
            both = all(port.connected for port in self.sides.values())
            for name, port in self.sides.items():
                if fresh[name]:
                    port.resume(*([HELLO] if both else []))
                elif both:
                    port.send(HELLO)
        handled = 0
        for name, port in self.sides.items():
            other_name = "B" if name == "A" else "A"
            for item in port.receive(self.lines_per_step):
                handled += 1
                if isinstance(item, LinkError):
                    self.dropped += 1
                    self.log(now, name, other_name, f"(dropped: {item.message})")
                    continue
                line = item[:-1] if item.endswith(b"\r") else item
                if self.sides[other_name].send(line + b"\n"):
                    self.forwarded[name] += 1
                self.log(now, name, other_name, line.decode("utf-8", "backslashreplace"))
        return handled

    def run(self, stop: threading.Event, idle_s: float = 0.005) -> None:
        """Relay until ``stop`` is set."""
        while not stop.is_set():
            if not self.step():
                stop.wait(idle_s)


def text_log(out: TextIO) -> Callable[[int, str, str, str], None]:
    def log(t: int, src: str, dst: str, text: str) -> None:
        arrow = f"{src}>{dst}" if dst != "-" else f"{src}  "
        out.write(f"{t / 1000:9.3f} {arrow} {text}\n")
        out.flush()

    return log


def json_log(out: TextIO) -> Callable[[int, str, str, str], None]:
    def log(t: int, src: str, dst: str, text: str) -> None:
        record: dict[str, Any] = {"t": t, "from": src, "to": dst if dst != "-" else None, "line": text}
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()

    return log


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
    p.add_argument("--baudrate", type=int, default=115200, help="for serial devices (default: 115200)")
    p.add_argument("--reconnect-ms", type=int, default=1000, help="how often to retry a port that is gone (default: 1000)")
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
    a, b = (LineTransport(p, clock, baudrate=args.baudrate, reconnect_ms=args.reconnect_ms, name=f"relay {n}")
            for p, n in zip(ports, "AB"))
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
