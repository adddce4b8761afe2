"""The follower seam: what the controller and the application drive, tracker or referee.

A :class:`Follower` follows the game on the board: settled readings, button presses and
the clock go in, events, LED roles and warnings come out. The
:class:`~firmware.tracking.tracker.Tracker` is one; a follower that stands over a
tracker and rules on what it reports (the referee, :mod:`firmware.referee.arbiter`) is
another. It derives from :class:`Overseer`, which passes everything through to the
tracker underneath, and overrides only what it judges, the way python-chess's
``AtomicBoard`` overrides only the hooks where its rules differ. The interface is the
protocol's and the tracker's: an overseer delegates the rest, it does not copy it.

>>> from rules import Game
>>> from firmware.tracking.tracker import Tracker
>>> follower: Follower = Tracker(Game())
>>> follower.tracker is follower          # a tracker follows the game itself
True
>>> class Quiet(Overseer):
...     '''Shows no lights at all.'''
...     @property
...     def roles(self) -> dict[int, str]:
...         return {}
>>> quiet = Quiet(Tracker(Game()))
>>> quiet.position == quiet.tracker.position, quiet.roles
(True, {})
"""

from __future__ import annotations

from typing import Any, Protocol

from firmware.events import BoardWarning, Event
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
    whatever it does not define is the tracker's own (:meth:`__getattr__`), so the
    :class:`Follower` interface is written once, by the tracker, and never copied here.
    ``tracker`` may be given later (:attr:`tracker` raises until it is).
    """

    def __init__(self, tracker: Tracker | None = None) -> None:
        self._tracker = tracker

    @property
    def tracker(self) -> Tracker:
        if self._tracker is None:
            raise RuntimeError(f"{type(self).__name__}.attach(tracker) first")
        return self._tracker

    def __getattr__(self, name: str) -> Any:
        """The tracker's attribute ``name`` (called only for what this class has not)."""
        if name.startswith("_"):  # never the tracker's privates (nor before __init__ ran)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.tracker, name)

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

    def offer_draw(self, side: Color | None, now_ms: int) -> list[Event]:
        """Through :meth:`press`, so that an overseer rules on it as on the button."""
        return self.press("draw" if side is None else f"{side}_draw", now_ms)

    def resign(self, side: Color | None, now_ms: int, *, confirmed: bool = False) -> list[Event]:
        """Through :meth:`press` (``confirmed``: a long press), as the button does."""
        return self.press("resign" if side is None else f"{side}_resign", now_ms, confirmed)
