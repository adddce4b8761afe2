"""What the referee reports, besides the tracker's moves and warnings (see ``docs/referee.md``).

Each kind is one more :class:`~crownhead.firmware.events.Event` subclass, so ``crownhead replay``,
the host link and the arbiter log print them like every other event (the game clock's,
:class:`~crownhead.firmware.events.clock.Flag` and :class:`~crownhead.firmware.events.clock.ClockReport`,
are every timed game's):

>>> Caution(1330, "black", 1, "touch-move", "the man on 9 was touched first").to_json()
{'t': 1330, 'event': 'caution', 'side': 'black', 'count': 1, 'code': 'touch-move', 'message': 'the man on 9 was touched first'}
>>> from crownhead.firmware.events import event_from_json
>>> event_from_json({"t": 0, "event": "condoned", "side": "white", "move": "27-31", "code": "wrong-move", "message": "", "fen": "B:W31:B5"}).move
'27-31'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from crownhead.firmware.events.base import Event
from crownhead.firmware.events.side import Side

__all__ = [
    "OFFENCE_CODES",
    "Caution",
    "Forfeit",
    "DrawClaimable",
    "BallotDrawn",
    "Condoned",
]

#: The kinds of illegal move the referee tells apart (WCDF 1.23, 1.25), in ``code`` fields.
OFFENCE_CODES: tuple[str, ...] = (
    "touch-move",  #: a move with another piece than the one touched first
    "unplayable-piece",  #: a piece with no legal move was lifted
    "forced-capture",  #: a plain move, or a lifted piece that cannot jump, while a jump is on
    "unfinished-capture",  #: a chain of jumps left unfinished
    "continued-after-crown",  #: a man crowned by a jump jumped on
    "backward-man",  #: a man moved backward
    "out-of-turn",  #: a piece of the side not to move was moved
    "wrong-move",  #: any other move no rule allows
)


@dataclass(frozen=True, slots=True)
class Caution(Event):
    """A first illegal move in the game (WCDF 1.25): ``side`` is cautioned; the move is taken back."""

    kind: ClassVar[str] = "caution"
    side: Side
    count: int
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Forfeit(Event):
    """A second illegal move in the game: ``side`` forfeits it (a ``game-over`` follows)."""

    kind: ClassVar[str] = "forfeit"
    side: Side
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class DrawClaimable(Event):
    """From this ply on ``side`` (to move) may claim a draw for ``reason`` (WCDF 1.32)."""

    kind: ClassVar[str] = "draw-claimable"
    reason: str
    side: Side


@dataclass(frozen=True, slots=True)
class BallotDrawn(Event):
    """The opening ballot of this game: ACF ``number``, its three ``moves`` (to be made first)."""

    kind: ClassVar[str] = "ballot"
    number: int
    moves: tuple[str, ...]
    name: str


@dataclass(frozen=True, slots=True)
class Condoned(Event):
    """Record style: ``side``'s illegal ``move`` stands, the opponent answered it (WCDF 1.26).

    The game goes on from the position on the board; ``fen`` is that position.
    """

    kind: ClassVar[str] = "condoned"
    side: Side
    move: str
    code: str
    message: str
    fen: str
