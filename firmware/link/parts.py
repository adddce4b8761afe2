"""The link as its parts and its policy see it: the declared seams between them.

A :class:`~crownhead.firmware.link.host.Link` is a session with the other end of a line, made of
parts: the command table (:mod:`crownhead.firmware.link.commands`), the view
(:mod:`crownhead.firmware.link.view`), the other board's game (:mod:`crownhead.firmware.link.peer`) and the
moves asked of the board (:mod:`crownhead.firmware.link.requests`), with a policy
(:mod:`crownhead.firmware.link.policy`) saying what the other end may do and adding what a kind of
link needs. Each of them knows the link by :class:`LinkSide` and the other parts by the
protocols here, never by their classes or their private state, so a policy built
elsewhere (a game far apart's, :mod:`crownhead.firmware.remote.link`) uses exactly what any part
may use.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection, Mapping
from contextlib import AbstractContextManager
from typing import Any, NamedTuple, Protocol

from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import Event
from crownhead.firmware.link.board import LinkedBoard, SimHands
from crownhead.firmware.link.transport import Transport
from crownhead.rules import Color, Game, Move

__all__ = ["GameId", "LinkSide", "Peer", "PolicySide", "Presenter", "Requests"]


class GameId(NamedTuple):
    """Which game two linked boards play: a serial number, then a random tag.

    The greater id wins when the boards disagree; a new game takes the serial after the
    greatest seen, so the last ``new`` pressed is the game both follow.

    >>> GameId.parse("3-a1b2c3") > GameId(2, "ffffff")
    True
    >>> str(GameId(3, "a1b2c3"))
    '3-a1b2c3'
    """

    serial: int
    tag: str

    def __str__(self) -> str:
        return f"{self.serial}-{self.tag}"

    @classmethod
    def parse(cls, text: object) -> GameId:
        match = _GAME_ID.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"bad game id {text!r}")
        return cls(int(match[1]), match[2])

    @classmethod
    def new(cls, serial: int) -> GameId:
        return cls(serial, secrets.token_hex(3))


_GAME_ID = re.compile(r"(\d{1,9})-([0-9a-f]{1,16})")


class Peer(Protocol):
    """The other board's game (:class:`~crownhead.firmware.link.peer.PeerSync`), as the other parts use it."""

    moves: dict[int, Move]
    ply: int
    result: tuple[str, str, int] | None

    @property
    def game_id(self) -> GameId: ...
    @property
    def same_game(self) -> bool: ...
    @property
    def pending(self) -> bool: ...
    def forget_from(self, ply: int) -> None: ...
    def stop_following(self) -> None: ...
    def begin_as(self, game_id: GameId, start: str) -> None: ...
    def resume_as(self, game_id: GameId) -> None: ...


class Requests(Protocol):
    """The moves asked of the board (:class:`~crownhead.firmware.link.requests.MoveRequests`)."""

    host: dict[int, Move]
    ballot: tuple[int, tuple[Move, ...]] | None
    expect: tuple[int, Move, str] | None

    @property
    def pending(self) -> bool: ...
    def clear(self) -> None: ...
    def sync(self, now: int) -> None: ...
    def ballot_move(self, game: Game) -> Move | None: ...
    def declare(self, now: int, score: str, reason: str) -> list[Event]: ...


class Presenter(Protocol):
    """The view (:class:`~crownhead.firmware.link.view.ViewPresenter`)."""

    def view(self, now: int) -> dict[str, Any]: ...
    def resend(self) -> None: ...


class PolicySide(Protocol):
    """What the parts ask of the link's policy (:class:`~crownhead.firmware.link.policy.LinkPolicy`)."""

    @property
    def may_stop_watching(self) -> bool: ...
    def accepts_result(self, score: str, reason: str, now: int) -> bool: ...
    def view_resent(self) -> bool: ...
    def viewing(self) -> AbstractContextManager[None]: ...
    def send_view(self, transport: Transport, now: int, body: dict[str, Any], line: bytes) -> None: ...


class LinkSide(Protocol):
    """The link (:class:`~crownhead.firmware.link.host.Link`) as its parts and its policy use it."""

    app: LinkedBoard | None
    plays: str
    control: bool
    hands: SimHands | None
    watching: bool
    seen_game: Game | None
    #: The last snapshot the board gave the link (None before the first): what the
    #: view is drawn from.
    snapshot_seen: Snapshot | None

    @property
    def transport(self) -> Transport: ...
    @property
    def policy(self) -> PolicySide: ...
    @property
    def peer(self) -> Peer: ...
    @property
    def requests(self) -> Requests: ...
    @property
    def presenter(self) -> Presenter: ...
    @property
    def remote(self) -> Color | None:
        """The side played over the link, or None when the people here play both."""

    @property
    def linked(self) -> bool: ...
    @property
    def game_id(self) -> GameId: ...
    @property
    def changes(self) -> int:
        """A count of the events and commands that may have changed what the board shows."""

    def send(self, obj: Mapping[str, Any]) -> None:
        """Send a message of the link's own (a reply, a state, a request)."""

    def notice(self, now: int, key: str, message: str) -> None:
        """Tell the people (and the host) once per situation ``key``."""

    def emit(self, events: Collection[Event]) -> None:
        """Hand ``events`` to the board at the end of this poll."""

    def state(self) -> dict[str, Any]: ...
    def identity(self) -> dict[str, Any]: ...
    def hello(self, now: int, cause: str) -> dict[str, Any]: ...
    def pdn_text(self) -> str: ...
