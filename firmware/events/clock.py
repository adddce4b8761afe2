"""The game clock's events: every timed game's, a referee's or the board clock's.

>>> from firmware.events import event_from_json
>>> event_from_json({"t": 0, "event": "flag", "side": "white"})
Flag(t=0, side='white')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from firmware.events.base import Event

__all__ = ["Flag", "ClockReport"]


@dataclass(frozen=True, slots=True)
class Flag(Event):
    """``side``'s time ran out (a ``game-over`` with reason ``time`` follows)."""

    kind: ClassVar[str] = "flag"
    side: str


@dataclass(frozen=True, slots=True)
class ClockReport(Event):
    """Both sides' time left in milliseconds; ``running`` is the side whose clock runs ("" if none)."""

    kind: ClassVar[str] = "clock"
    black: int
    white: int
    running: str
