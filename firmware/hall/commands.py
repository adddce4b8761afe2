"""Commands from the hall to one board: the host link's commands over MQTT.

With ``[mqtt] commands = true`` (and broker authentication: a board's user name and
password, so that only the arbiter, as the broker's ACL allows, can send), the board
subscribes to ``crownhead/<hall>/<board>/cmd``. Each message there is one line of the
host link (docs/protocol.md: ``new``, ``names``, ``ballot``, ``result``, ``clock``...),
handled by the link's own dispatcher, answered by exactly one reply on the board's
``event`` topic, and subject to the same rules (``[link] control = false`` makes it
read-only). Event lines of another board are refused: the hall sends commands only.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from crownhead.firmware.events import Event
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.link.host import Link
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.policy import LinkPolicy
from crownhead.firmware.link.protocol import MAX_LINE, LinkError
from crownhead.firmware.link.transport import Transport

__all__ = ["CommandChannel", "HallLink"]

#: Command lines waiting for the main loop at most; more are answered ``overrun``.
INBOX = 64


class CommandChannel:
    """The line transport a :class:`HallLink` speaks through: commands in, lines out.

    Lines out go through the board's publisher (its queue, its thread); lines in come
    from the publisher's client thread into a bounded inbox the main loop drains.
    """

    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher
        self._inbox: deque[bytes | LinkError] = deque()
        self._lock = threading.Lock()
        self._fresh: str | None = "connect"
        self.dropped = 0
        publisher.on_command = self._receive_line

    def _receive_line(self, payload: bytes) -> None:
        line = payload.rstrip(b"\r\n")
        item: bytes | LinkError = line
        if len(line) > MAX_LINE:
            item = LinkError("too-long", f"a line is at most {MAX_LINE} bytes")
        with self._lock:
            if len(self._inbox) >= INBOX:
                self.dropped += 1
                return
            self._inbox.append(item)

    # -- what a Link asks of its transport ---------------------------------------------

    @property
    def connected(self) -> bool:
        return self.publisher.connected

    def take_fresh(self) -> str | None:
        fresh, self._fresh = self._fresh, None
        return fresh

    def resume(self, *first: bytes) -> None:
        for line in first:
            self.send(line)

    def send(self, line: bytes) -> bool:
        self.publisher.send_line(line.rstrip(b"\n"))
        return True

    def receive(self, limit: int) -> list[bytes | LinkError]:
        with self._lock:
            out: list[bytes | LinkError] = []
            while self._inbox and len(out) < limit:
                out.append(self._inbox.popleft())
            return out

    def close(self, flush_s: float = 0.5) -> None:
        self.publisher.on_command = None


class HallPolicy(LinkPolicy):
    """The hall's: it sends commands, never a board's event lines; the board's events go
    to the publisher with their kind (a game's end is kept as a result)."""

    peer_refusal = "the hall sends commands, not event lines"

    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher

    def send_event(self, transport: Transport, event: Event, line: bytes) -> None:
        self.publisher.send_event(event, line.rstrip(b"\n"))


class HallLink(Link):
    """The host link spoken with the hall over MQTT (see the module's description), with
    the hall's policy (:class:`HallPolicy`)."""

    def __init__(self, channel: CommandChannel, settings: LinkConfig = LinkConfig()) -> None:
        super().__init__(channel, settings, HallPolicy(channel.publisher))
        self.channel = channel


def attach_commands(publisher: BoardPublisher, app: Any, settings: LinkConfig) -> HallLink:
    """Give ``app`` a :class:`HallLink` over ``publisher`` (which must not be attached itself:
    the link sends every event, so each is published once)."""
    link = HallLink(CommandChannel(publisher), settings)
    link.attach(app)
    return link
