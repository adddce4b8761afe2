"""The relay: two boards' links joined, line for line, on a PC (``crownhead relay``).

Two boards play one game when each one's link reaches the other; with both on one PC
(``/dev/ttyACM0``, ``/dev/ttyACM1``), or one of them across the network
(``socket://host:7000``), the relay is the cable. It copies whole lines from each port
to the other, never half a line, and logs each one (the traffic of a whole game, as in
``docs/protocol.md``).

Whenever a side (re)connects, or missed lines because it did not read, the relay sends
the command ``hello`` to both boards: each answers with its state, which reaches the
other, and they catch up. Lines too long for the protocol are dropped and reported;
nothing else is interpreted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any, TextIO

from crownhead.firmware.link.protocol import LinkError
from crownhead.firmware.link.transport import LineTransport
from crownhead.hal.clock import Clock

__all__ = ["HELLO", "Relay", "json_log", "text_log"]

HELLO = b"hello\n"


class Relay:
    """Copies lines between two :class:`~crownhead.firmware.link.transport.LineTransport` ports.

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
            # A side that connected after its fresh mark was taken above still holds its
            # output: it is not ready, and is greeted with the other at the next step
            # (counted ready now, the other side would be greeted twice).
            both = all(
                port.connected and (fresh[name] is not None or not port.holding) for name, port in self.sides.items()
            )
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
