"""What the other end of a link may do, and where what the link says goes.

A :class:`~crownhead.firmware.link.host.Link` speaks the same protocol to every other end: a host
on a serial port, the board's web pages, the hall over MQTT. What differs is a policy,
given to the link instead of a subclass overriding its private methods: whether another
board's event lines are followed (a peer board) or refused (pages and the hall send
commands), whether a command may change the game (a page must log in first), what is
kept of the answers, whether the other end may stop watching the view, and how the view
is sent, and how an event is (the hall's publisher is told its kind, never reading it
back from the line). A policy may also add to what the link does, through declared hooks
only: when the link joins its board and lets it go, before and after each poll, on
every board event, on another board's lines (lines of its own kinds, a result it
refuses), on the state the link tells (what it adds to it), with the link's public parts (``send``, ``notice``, ``emit``, ``peer``, ``requests``); a game far
apart's offers and times are such a policy (:class:`crownhead.firmware.remote.link.FarPolicy`).
The serial host's policy is this module's :class:`LinkPolicy`, which allows everything
and adds nothing (``link.control`` still makes a link read-only).

>>> from crownhead.firmware.link.protocol import Command
>>> policy = LinkPolicy()
>>> policy.peer_refusal is None, policy.refuse(Command("new", ())), policy.may_stop_watching
(True, None, True)
>>> policy.peer_line({"event": "move"}, 0), policy.accepts_result("1-0", "resign", 0)
(False, True)
>>> policy.stated({"ply": 0})
{'ply': 0}
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from crownhead.firmware.events import Event
from crownhead.firmware.link.protocol import Command, LinkError
from crownhead.firmware.link.transport import Transport

if TYPE_CHECKING:
    from crownhead.firmware.link.board import LinkedBoard
    from crownhead.firmware.link.parts import LinkSide

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
        """Send ``line``, the board's ``event`` (:func:`~crownhead.firmware.link.protocol.encode_event`)."""
        transport.send(line)

    # -- hooks: what a policy adds to the link (each does nothing here) ------------------

    def join(self, link: LinkSide) -> None:
        """The policy is given to ``link`` (once, as the link is made)."""

    def attached(self, board: LinkedBoard) -> None:
        """The link joined ``board`` (:meth:`Link.attach <firmware.link.host.Link.attach>`)."""

    def detached(self, board: LinkedBoard) -> None:
        """The link lets ``board`` go (:meth:`Link.detach <firmware.link.host.Link.detach>`)."""

    def polling(self, now: int) -> None:
        """A poll of the link begins."""

    def polled(self, now: int) -> list[Event]:
        """A poll of the link ends: events to hand the board besides the link's."""
        return []

    def heard(self, event: Event) -> None:
        """The board's ``event``, before the link follows and sends it."""

    def peer_line(self, data: dict[str, Any], now: int) -> bool:
        """Another board's event line, before the link follows it: True when the policy
        took it (a kind of its own), and the link leaves it."""
        return False

    def peer_followed(self, data: dict[str, Any], now: int) -> None:
        """Another board's event line, after the link followed it."""

    def stated(self, state: dict[str, Any]) -> dict[str, Any]:
        """The link's ``state`` (a ``hello``'s, a ``state`` event's) before it is told:
        what the other end is told (``state``, or what the policy added to it)."""
        return state

    def accepts_result(self, score: str, reason: str, now: int) -> bool:
        """Whether the other board's result (``score``, ``reason``) is applied here once
        this board reaches it (a policy may keep some results to this board)."""
        return True
