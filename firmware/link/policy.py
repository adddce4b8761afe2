"""What the other end of a link may do, and where what the link says goes.

A :class:`~firmware.link.host.Link` speaks the same protocol to every other end: a host
on a serial port, the board's web pages, the hall over MQTT. What differs is a policy,
given to the link instead of a subclass overriding its private methods: whether another
board's event lines are followed (a peer board) or refused (pages and the hall send
commands), whether a command may change the game (a page must log in first), what is
kept of the answers, whether the other end may stop watching the view, and how the view
is sent, and how an event is (the hall's publisher is told its kind, never reading it
back from the line). The serial host's policy is this module's :class:`LinkPolicy`, which allows
everything (``link.control`` still makes a link read-only).

>>> from firmware.link.protocol import Command
>>> policy = LinkPolicy()
>>> policy.peer_refusal is None, policy.refuse(Command("new", ())), policy.may_stop_watching
(True, None, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from firmware.events import Event
from firmware.link.protocol import Command, LinkError
from firmware.link.transport import Transport

__all__ = ["LinkPolicy"]


class LinkPolicy:
    """A serial host's: it may do everything the protocol allows (see the module)."""

    #: Why another board's event lines are refused (None: they are followed, a peer).
    peer_refusal: str | None = None
    #: Whether ``watch off`` is honoured (pages always watch: one must not blind the others).
    may_stop_watching: bool = True

    def refuse(self, command: Command) -> LinkError | None:
        """The refusal of ``command`` before anything is done (None: it is carried out)."""
        return None

    def answered(self, command: Command, outcome: Mapping[str, Any] | LinkError | None, now: int) -> None:
        """``command`` was answered: its reply, its refusal, or None when it failed half-way."""

    def line_done(self) -> None:
        """A line from the other end was handled (answered or refused)."""

    def view_resent(self) -> bool:
        """Whether the view must be sent again though it has not changed (a page greeted)."""
        return False

    def viewing(self) -> AbstractContextManager[None]:
        """Around the sending of a view (the pages send it to every page, not the asker)."""
        return nullcontext()

    def send_view(self, transport: Transport, now: int, body: dict[str, Any], line: bytes) -> None:
        """Send the ``view`` event ``line`` (``body`` is what it says, without ``t``)."""
        transport.send(line)

    def send_event(self, transport: Transport, event: Event, line: bytes) -> None:
        """Send ``line``, the board's ``event`` (:func:`~firmware.link.protocol.encode_event`)."""
        transport.send(line)
