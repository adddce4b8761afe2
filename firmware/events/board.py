"""What the board tells the world: moves, warnings, crownings, takebacks, lights.

>>> MoveMade(1000, ply=1, side="black", move="11-15", path=(11, 15), captures=()).to_json()
{'t': 1000, 'event': 'move', 'ply': 1, 'side': 'black', 'move': '11-15', 'path': [11, 15], 'captures': []}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from crownhead.firmware.events.base import Event
from crownhead.firmware.events.side import Side

__all__ = [
    "MoveMade",
    "BoardWarning",
    "Crowned",
    "TakenBack",
    "GameOver",
    "NewGame",
    "SetUp",
    "SetUpRank",
    "MissedJump",
    "Huffed",
    "HuffTakenBack",
    "ForcedJump",
    "DrawOffer",
    "DrawLapsed",
    "DrawDeclined",
    "Claim",
    "ResignAsked",
    "Reopened",
    "Lights",
    "Final",
    "Notice",
    "Alert",
    "WARNING_CODES",
    "ALERT_CODES",
]

#: Every warning code, most urgent first (see ``docs/replay.md`` for what each means).
WARNING_CODES: tuple[str, ...] = (
    "illegal-move",
    "out-of-sync",
    "touch-move",
    "forced-capture",
    "unplayable-piece",
    "continue-capture",
    "remove-captured",
)

#: Every alert code: what an :class:`Alert` is about, for a screen that says it in a few
#: words (``pin-guessing``: someone on the network is guessing the page's PIN; ``chat``: a
#: line from the opponent of a game online; ``challenge``: one sent to the board's
#: account online, docs/online.md).
ALERT_CODES: tuple[str, ...] = ("pin-guessing", "chat", "challenge")


@dataclass(frozen=True, slots=True)
class MoveMade(Event):
    """A move accepted from the board. ``path`` is the start and every landing square."""

    kind: ClassVar[str] = "move"
    ply: int
    side: Side
    move: str
    path: tuple[int, ...]
    captures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoardWarning(Event):
    """Something on the board needs a person's attention; ``code`` is in :data:`WARNING_CODES`."""

    kind: ClassVar[str] = "warning"
    code: str
    squares: tuple[int, ...]
    message: str


@dataclass(frozen=True, slots=True)
class Crowned(Event):
    """A man reached the king row: crown it (the switches cannot see a crown)."""

    kind: ClassVar[str] = "crown"
    square: int


@dataclass(frozen=True, slots=True)
class TakenBack(Event):
    """Ply ``ply`` (the last move played) was taken back; the game is one ply shorter."""

    kind: ClassVar[str] = "takeback"
    ply: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: ``result`` is ``1-0`` (Black won), ``0-1`` or ``1/2-1/2``."""

    kind: ClassVar[str] = "game-over"
    result: str
    reason: str


@dataclass(frozen=True, slots=True)
class NewGame(Event):
    """A new game began: its starting position (``fen``) stands on the board."""

    kind: ClassVar[str] = "new-game"
    fen: str


@dataclass(frozen=True, slots=True)
class SetUp(Event):
    """The board must be set up as ``fen``: which colour and which kings go where.

    ``cause``: ``new-game`` (a game from a position), ``resume`` (a saved game),
    ``restore`` (a move taken back, or pieces to put right). The squares of each side's
    men and kings are listed too, since the switches cannot tell them apart; ``wrong``
    are the squares whose occupancy is not yet right.
    """

    kind: ClassVar[str] = "setup"
    cause: str
    fen: str
    black: tuple[int, ...]
    black_kings: tuple[int, ...]
    white: tuple[int, ...]
    white_kings: tuple[int, ...]
    wrong: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SetUpRank(Event):
    """The rank of the set-up the lights show now (``crownhead.firmware.app.guidance``): ``rank``
    1-8 (1 is White's back rank, 29-32), ``first`` and ``last`` its squares; what it must
    hold when done (each side's men and kings on it); the squares to take a piece off
    (``empty``) and those whose piece is the wrong one (``change``: lift it and put the
    one named); ``left`` the ranks still to set up, this one included.
    """

    kind: ClassVar[str] = "setup-rank"
    cause: str
    rank: int
    first: int
    last: int
    black: tuple[int, ...]
    black_kings: tuple[int, ...]
    white: tuple[int, ...]
    white_kings: tuple[int, ...]
    empty: tuple[int, ...]
    change: tuple[int, ...]
    left: int


@dataclass(frozen=True, slots=True)
class MissedJump(Event):
    """Under huffing: the move of ply ``ply`` by ``side`` skipped a jump.

    Before moving, the opponent may huff (take off one of the pieces on ``squares``, which
    could have jumped), make ``side`` take the move back and jump (the ``force`` button,
    or ``takeback``), or simply move, and the move stands.
    """

    kind: ClassVar[str] = "missed-jump"
    ply: int
    side: Side
    squares: tuple[int, ...]
    message: str


@dataclass(frozen=True, slots=True)
class Huffed(Event):
    """``side`` huffed: the piece on ``square`` that missed a jump was taken off.

    A huff is no move: ``side`` is still to move; ``ply`` is the number of moves played.
    """

    kind: ClassVar[str] = "huff"
    ply: int
    side: Side
    square: int


@dataclass(frozen=True, slots=True)
class HuffTakenBack(Event):
    """The huff of the piece on ``square`` was taken back: the piece stands there again."""

    kind: ClassVar[str] = "huff-takeback"
    square: int


@dataclass(frozen=True, slots=True)
class ForcedJump(Event):
    """The move of ply ``ply`` (``move``, which skipped a jump) is taken back, and ``side``
    must jump instead: only a capture is accepted now.
    """

    kind: ClassVar[str] = "force-jump"
    ply: int
    side: Side
    move: str


@dataclass(frozen=True, slots=True)
class DrawOffer(Event):
    """``side`` offered a draw at ply ``ply`` (None, ``""`` in JSON, when a shared button
    cannot tell who).

    The offer stands until the next move; the other side's own offer agrees to it (a
    ``game-over`` with reason ``agreement`` follows instead of a second offer).
    """

    kind: ClassVar[str] = "draw-offer"
    ply: int
    side: Side | None = None


@dataclass(frozen=True, slots=True)
class DrawLapsed(Event):
    """The draw offer ``side`` made at ply ``ply`` (None, ``""`` in JSON: a shared
    button's) lapsed unanswered: a move was made (the offerer's own, or the other side's,
    which declines it), or taken back. ``message`` says which, in words for the players:
    the other side's draw button now makes an offer of its own.
    """

    kind: ClassVar[str] = "draw-lapsed"
    ply: int
    side: Side | None
    message: str


@dataclass(frozen=True, slots=True)
class TakebackAsked(Event):
    """``side``, playing at another board (a game far apart), asks to take back its move
    ``move``, the last one (ply ``ply``): put to the people here, whose takeback button
    agrees and whose next move refuses. ``message`` says so in words for the players.
    """

    kind: ClassVar[str] = "takeback-asked"
    ply: int
    side: Side
    move: str
    message: str


@dataclass(frozen=True, slots=True)
class DrawDeclined(Event):
    """``side`` (a computer, or the board for a side it cannot hear) declined a draw offer."""

    kind: ClassVar[str] = "draw-declined"
    side: Side
    message: str


@dataclass(frozen=True, slots=True)
class Claim(Event):
    """``side`` claimed a draw. A valid claim ends the game (a ``game-over`` follows);
    an invalid one is reported, saying why, and play goes on. ``reason`` is
    ``repetition`` or ``forty-moves`` for a valid claim, ``none`` for an invalid one.
    """

    kind: ClassVar[str] = "claim"
    valid: bool
    reason: str
    side: Side
    message: str


@dataclass(frozen=True, slots=True)
class ResignAsked(Event):
    """``side`` pressed resign once: a second press before ``until`` (or a long press) resigns."""

    kind: ClassVar[str] = "resign-confirm"
    side: Side
    until: int


@dataclass(frozen=True, slots=True)
class Reopened(Event):
    """A result the players decided was taken back: the game goes on from the same
    position. ``reason`` is the result's: ``resign``, or ``agreement`` (a draw agreed)."""

    kind: ClassVar[str] = "reopened"
    ply: int
    reason: str = "resign"


@dataclass(frozen=True, slots=True)
class Lights(Event):
    """The LED picture changed: the role of every lit square (pairs sorted by square)."""

    kind: ClassVar[str] = "lights"
    roles: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, t: int, roles: Mapping[int, str]) -> Lights:
        return cls(t, tuple(sorted(roles.items())))

    def as_dict(self) -> dict[int, str]:
        return dict(self.roles)

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "event": self.kind, "roles": {str(s): r for s, r in self.roles}}


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something a person should know that is not a board warning (a file put aside...)."""

    kind: ClassVar[str] = "notice"
    message: str


@dataclass(frozen=True, slots=True)
class Alert(Event):
    """Something the people at the board must see now that is not about the game (someone
    on the network is guessing the page's PIN): said like a notice, and on the board's
    message line and its display until the game moves on. ``code`` (one of
    :data:`ALERT_CODES`) says what it is about, so a small screen can say it in a few
    words without reading ``message``."""

    kind: ClassVar[str] = "alert"
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Final(Event):
    """The last line of a replay: the position reached and the plies played."""

    kind: ClassVar[str] = "final"
    fen: str
    plies: int
