"""What the link needs of the board application, declared here so the link imports none of it.

The application (:class:`firmware.app.application.App`) satisfies :class:`LinkedBoard`;
the command that opens a link (``crownhead run --link``) hands it over with
:meth:`firmware.link.host.Link.attach`. The link only polls and sinks events through
it, reads the game and asks for what a host may ask (a mode, the hints, names).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from firmware.events import Event
from firmware.referee.arbiter import Referee
from firmware.storage.store import GameRecord
from firmware.tracking.follower import Follower
from rules import Color, Game

__all__ = ["HintLights", "LinkedBoard", "MatchState", "Named", "Seat"]


class Named(Protocol):
    @property
    def name(self) -> str: ...


class Seat(Protocol):
    """Who plays a side: a person at the board, or a machine."""

    @property
    def name(self) -> str: ...
    @property
    def is_human(self) -> bool: ...


class _HintSetting(Protocol):
    @property
    def hints(self) -> bool: ...


class HintLights(Protocol):
    """The hint switch of the LED policy."""

    @property
    def settings(self) -> _HintSetting: ...
    @property
    def hints_shown(self) -> bool: ...

    def set_hints(self, on: bool) -> None: ...


class MatchState(Protocol):
    def link_state(self) -> dict[str, Any] | None:
        """The match under way as the host link's state gives it, or None."""


class LinkedBoard(Protocol):
    """The board application as the link sees it."""

    sources: list[Callable[[int], list[Event]]]
    sinks: list[Callable[[Event], None]]

    @property
    def tracker(self) -> Follower: ...
    @property
    def game(self) -> Game: ...
    @property
    def resuming(self) -> bool: ...
    @property
    def players(self) -> Mapping[Color, Seat]: ...
    @property
    def referee(self) -> Referee | None: ...
    @property
    def record(self) -> GameRecord | None: ...
    @property
    def mode(self) -> Named: ...
    @property
    def policy(self) -> HintLights: ...
    @property
    def matches(self) -> MatchState: ...

    def hold(self, side: Color, by: str) -> None: ...
    def set_mode(self, name: str, now: int | None = None) -> None: ...

    def set_player_names(self, black: str, white: str, now: int) -> bool:
        """Name the players (the record, the referee's games); True when the unfinished
        game is on disk with them."""
