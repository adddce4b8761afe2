"""The game clock's events: every timed game's, a referee's or the board clock's.

>>> from crownhead.firmware.events import event_from_json
>>> event_from_json({"t": 0, "event": "flag", "side": "white"})
Flag(t=0, side='white')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from crownhead.firmware.events.base import Event
from crownhead.firmware.events.side import Side

__all__ = ["Flag", "ClockReport", "ClockState"]


@dataclass(frozen=True, slots=True)
class Flag(Event):
    """``side``'s time ran out (a ``game-over`` with reason ``time`` follows)."""

    kind: ClassVar[str] = "flag"
    side: Side


@dataclass(frozen=True, slots=True)
class ClockReport(Event):
    """Both sides' time left in milliseconds; ``running`` is the side whose clock runs
    (None, ``""`` in JSON, while none does)."""

    kind: ClassVar[str] = "clock"
    black: int
    white: int
    running: Side | None


class ClockState(NamedTuple):
    """A game clock as shown: the one state of the referee's clock and the board clock.

    ``side`` is the side whose time is counted or about to be (None when the game is
    over or none), ``paused`` whether it stands still (waiting for that side's first lift
    or paused by the arbiter), ``flag`` the side whose flag fell (None if none).

    >>> state = ClockState(59_000, 60_000, Side.WHITE, True, None)
    >>> state.running, state.report(5).to_json()
    (None, {'t': 5, 'event': 'clock', 'black': 59000, 'white': 60000, 'running': ''})
    >>> ClockState(59_000, 60_000, Side.WHITE, False, None).report(5).running
    'white'
    """

    black_ms: int
    white_ms: int
    side: Side | None
    paused: bool
    flag: Side | None

    @property
    def running(self) -> Side | None:
        """The side whose time runs now, None while the clock stands still."""
        return None if self.paused else self.side

    def report(self, t: int) -> ClockReport:
        """The ``clock`` event of this state at ``t``: ``running`` empty while paused."""
        return ClockReport(t, self.black_ms, self.white_ms, self.running)
