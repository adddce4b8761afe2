"""The game clock's events: every timed game's, a referee's or the board clock's.

>>> from firmware.events import event_from_json
>>> event_from_json({"t": 0, "event": "flag", "side": "white"})
Flag(t=0, side='white')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from firmware.events.base import Event
from firmware.events.side import Side

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

    ``side`` is the side whose time is counted or about to be ("" when the game is
    over or none), ``paused`` whether it stands still (waiting for that side's first lift
    or paused by the arbiter), ``flag`` the side whose flag fell ("" if none).

    >>> state = ClockState(59_000, 60_000, "white", True, "")
    >>> state.running, state.report(5).to_json()
    ('', {'t': 5, 'event': 'clock', 'black': 59000, 'white': 60000, 'running': ''})
    >>> ClockState(59_000, 60_000, "white", False, "").report(5).running
    'white'
    """

    black_ms: int
    white_ms: int
    side: str
    paused: bool
    flag: str

    @property
    def running(self) -> str:
        """The side whose time runs now, "" while the clock stands still."""
        return "" if self.paused else self.side

    def report(self, t: int) -> ClockReport:
        """The ``clock`` event of this state at ``t``: ``running`` empty while paused."""
        running = self.running
        return ClockReport(t, self.black_ms, self.white_ms, Side.read(running) if running else None)
