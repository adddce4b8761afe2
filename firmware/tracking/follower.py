"""The follower seam: what the controller and the application drive, tracker or referee.

A :class:`Follower` follows the game on the board: settled readings, button presses and
the clock go in, events, LED roles and warnings come out. The
:class:`~firmware.tracking.tracker.Tracker` is one; a follower that stands over a
tracker and rules on what it reports (the referee, :mod:`firmware.referee.arbiter`) is
another. It derives from :class:`Overseer`, which passes the interface through to the
tracker underneath, one typed member each, and overrides only what it judges, the way
python-chess's ``AtomicBoard`` overrides only the hooks where its rules differ.

>>> from rules import WCDF, Game
>>> from firmware.tracking.tracker import Tracker
>>> follower: Follower = Tracker(Game(None, WCDF))
>>> follower.tracker is follower          # a tracker follows the game itself
True
>>> class Quiet(Overseer):
...     '''Shows no lights at all.'''
...     @property
...     def roles(self) -> dict[int, str]:
...         return {}
>>> quiet = Quiet(Tracker(Game(None, WCDF)))
>>> quiet.position == quiet.tracker.position, quiet.roles
(True, {})
"""

from __future__ import annotations

from typing import Protocol

from firmware.events import BoardWarning, Event
from firmware.tracking.session import GameSession
from firmware.tracking.tracker import ModePolicy, Reading, Tracker, TrackerSettings
from rules import Color, Game, Move, Position

__all__ = ["Follower", "Overseer"]


class Follower(Protocol):
    """The interface of :class:`~firmware.tracking.tracker.Tracker` that drives a board.

    The controller pumps a follower (:meth:`update`, :meth:`press`, :meth:`tick`,
    :meth:`restore`, :meth:`next_deadline`, :attr:`roles`); the application and the link
    also read the game's state and ask for moves (:meth:`expect`, :meth:`hold`,
    :meth:`new_game`, :meth:`declare`...). :attr:`tracker` is the tracker underneath
    (the follower itself for a tracker).
    """

    policy: ModePolicy

    @property
    def tracker(self) -> Tracker: ...
    @property
    def session(self) -> GameSession: ...
    @property
    def game(self) -> Game: ...
    @property
    def position(self) -> Position: ...
    @property
    def board(self) -> int: ...
    @property
    def board_matches(self) -> bool: ...
    @property
    def reading(self) -> Reading: ...
    @property
    def setting_up(self) -> Position | None: ...
    @property
    def expected(self) -> Move | None: ...
    @property
    def touched(self) -> int | None: ...
    @property
    def overdue(self) -> bool: ...
    @property
    def mode(self) -> str: ...
    @property
    def held(self) -> dict[Color, str]: ...
    @property
    def roles(self) -> dict[int, str]: ...
    @property
    def warning(self) -> BoardWarning | None: ...
    @property
    def warnings(self) -> tuple[BoardWarning, ...]: ...
    @property
    def draw_offer(self) -> tuple[Color | None, int] | None: ...
    @property
    def resign_asked(self) -> tuple[Color, int] | None: ...

    def next_deadline(self) -> int | None: ...
    def update(self, occupancy: int, now_ms: int) -> list[Event]: ...
    def press(self, button: str, now_ms: int, long: bool = False) -> list[Event]: ...
    def tick(self, now_ms: int) -> list[Event]: ...
    def restore(self, occupancy: int, now_ms: int) -> list[Event]: ...
    def new_game(self, position: Position | None = None, now_ms: int | None = None) -> list[Event]: ...
    def expect(self, move: Move | None) -> None: ...
    def take_back(self, now_ms: int) -> list[Event]: ...
    def hold(self, side: Color, by: str = "elsewhere") -> None: ...
    def release(self, side: Color) -> None: ...
    def declare(self, score: str, reason: str, now_ms: int) -> list[Event]: ...
    def accept_pending(self, now_ms: int) -> list[Event]: ...
    def offer_draw(self, side: Color | None, now_ms: int) -> list[Event]: ...
    def resign(self, side: Color | None, now_ms: int, *, confirmed: bool = False) -> list[Event]: ...


class Overseer:
    """A follower standing over a tracker: everything passes through unless overridden.

    A subclass overrides the inputs it rules on and the outputs it words differently;
    the rest of the :class:`Follower` interface passes to the tracker, one typed member
    each (no ``__getattr__``: what is not in the interface is not reached through an
    overseer, and mypy checks every use). ``tracker`` may be given later (:attr:`tracker`
    raises until it is).
    """

    def __init__(self, tracker: Tracker | None = None) -> None:
        self._tracker = tracker

    @property
    def tracker(self) -> Tracker:
        if self._tracker is None:
            raise RuntimeError(f"{type(self).__name__}.attach(tracker) first")
        return self._tracker

    @property
    def policy(self) -> ModePolicy:
        return self.tracker.policy

    @policy.setter
    def policy(self, policy: ModePolicy) -> None:
        self.tracker.policy = policy

    @property
    def tracker_settings(self) -> TrackerSettings:
        """The tracker's settings (a subclass may have ``settings`` of its own)."""
        return self.tracker.settings

    # -- the rest of the interface, passed to the tracker ---------------------------------

    @property
    def session(self) -> GameSession:
        """The game's session (the tracker's: see :mod:`firmware.tracking.session`)."""
        return self.tracker.session

    @property
    def game(self) -> Game:
        return self.tracker.game

    @property
    def position(self) -> Position:
        return self.tracker.position

    @property
    def board(self) -> int:
        return self.tracker.board

    @property
    def board_matches(self) -> bool:
        return self.tracker.board_matches

    @property
    def reading(self) -> Reading:
        return self.tracker.reading

    @property
    def setting_up(self) -> Position | None:
        return self.tracker.setting_up

    @property
    def expected(self) -> Move | None:
        return self.tracker.expected

    @property
    def touched(self) -> int | None:
        return self.tracker.touched

    @property
    def overdue(self) -> bool:
        return self.tracker.overdue

    @property
    def mode(self) -> str:
        return self.tracker.mode

    @property
    def held(self) -> dict[Color, str]:
        return self.tracker.held

    @property
    def roles(self) -> dict[int, str]:
        return self.tracker.roles

    @property
    def warning(self) -> BoardWarning | None:
        return self.tracker.warning

    @property
    def warnings(self) -> tuple[BoardWarning, ...]:
        return self.tracker.warnings

    @property
    def draw_offer(self) -> tuple[Color | None, int] | None:
        return self.tracker.draw_offer

    @property
    def resign_asked(self) -> tuple[Color, int] | None:
        return self.tracker.resign_asked

    def next_deadline(self) -> int | None:
        return self.tracker.next_deadline()

    def update(self, occupancy: int, now_ms: int) -> list[Event]:
        return self.tracker.update(occupancy, now_ms)

    def press(self, button: str, now_ms: int, long: bool = False) -> list[Event]:
        return self.tracker.press(button, now_ms, long)

    def tick(self, now_ms: int) -> list[Event]:
        return self.tracker.tick(now_ms)

    def restore(self, occupancy: int, now_ms: int) -> list[Event]:
        return self.tracker.restore(occupancy, now_ms)

    def new_game(self, position: Position | None = None, now_ms: int | None = None) -> list[Event]:
        return self.tracker.new_game(position, now_ms)

    def expect(self, move: Move | None) -> None:
        self.tracker.expect(move)

    def take_back(self, now_ms: int) -> list[Event]:
        return self.tracker.take_back(now_ms)

    def hold(self, side: Color, by: str = "elsewhere") -> None:
        self.tracker.hold(side, by)

    def release(self, side: Color) -> None:
        self.tracker.release(side)

    def declare(self, score: str, reason: str, now_ms: int) -> list[Event]:
        return self.tracker.declare(score, reason, now_ms)

    def accept_pending(self, now_ms: int) -> list[Event]:
        return self.tracker.accept_pending(now_ms)

    def offer_draw(self, side: Color | None, now_ms: int) -> list[Event]:
        """Through :meth:`press`, so that an overseer rules on it as on the button."""
        return self.press("draw" if side is None else f"{side}_draw", now_ms)

    def resign(self, side: Color | None, now_ms: int, *, confirmed: bool = False) -> list[Event]:
        """Through :meth:`press` (``confirmed``: a long press), as the button does."""
        return self.press("resign" if side is None else f"{side}_resign", now_ms, confirmed)
