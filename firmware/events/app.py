"""The application's events: a game begun or saved, the machine's move, a match's score,
a problem of the problem mode.

>>> GameStarted(0, False, 0, "B:W21,22:B1,2", "20240101-1").to_json()["event"]
'game-start'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from crownhead.firmware.events.base import Event
from crownhead.firmware.events.side import Side

__all__ = ["GameStarted", "ComputerMove", "GameSaved", "MatchScore", "ProblemReport", "Spoken"]


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """A game is on: ``resumed`` from the state directory, or new. ``ply`` moves so far."""

    kind: ClassVar[str] = "game-start"
    resumed: bool
    ply: int
    fen: str
    id: str


@dataclass(frozen=True, slots=True)
class ComputerMove(Event):
    """The machine's move, shown on the LEDs; the board now waits for a person to make it."""

    kind: ClassVar[str] = "computer-move"
    side: Side
    player: str
    move: str
    path: tuple[int, ...]
    captures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameSaved(Event):
    """A finished (or abandoned) game was written as a PDN file."""

    kind: ClassVar[str] = "game-saved"
    result: str
    path: str


@dataclass(frozen=True, slots=True)
class MatchScore(Event):
    """A game of a match begins (``cause`` ``game-start``: game ``number``, whose Black is
    ``black``) or has ended (``result``: the game just played), and the score after the
    ``played`` games counted so far: ``marks`` are ``first``'s and ``second``'s (wins, or
    points with ``count_draws``). ``games`` 0 is an open-ended match; ``winner`` is empty
    until a player has taken the match (``over`` and level: a drawn match).

    Names appear once each but for ``black`` and ``winner``, so the event fits one line
    of the host link (names are at most 40 characters).
    """

    kind: ClassVar[str] = "match"
    cause: str
    id: str
    first: str
    second: str
    games: int
    played: int
    number: int
    black: str
    marks: tuple[str, str]
    over: bool
    winner: str
    count_draws: bool


@dataclass(frozen=True, slots=True)
class Spoken(Event):
    """The board's voice said ``text`` (in ``lang``; ``about``: ``move``, ``warning``...,
    see docs/voice.md): what a page's live region reads out, whether or not a speaker is
    heard."""

    kind: ClassVar[str] = "spoken"
    text: str
    lang: str
    about: str


@dataclass(frozen=True, slots=True)
class ProblemReport(Event):
    """The problem mode (docs/coach.md): a problem set up (``cause`` ``begin``), a hint
    shown for it (``hint``: the move, ``hints`` so far), its verdict (``verdict``:
    ``status`` ``solved`` or ``failed`` and the ``reason``), or the mode left
    (``stopped``). The problem: ``id`` (``gem-12``; empty before the first), the
    ``collection``'s name, its ``title``, the ``task`` its stated result sets (``White to
    play and win``), its ``difficulty`` (1-5) and the ``side`` the player takes; the
    player's record after it: ``level``, ``streak``, ``best_streak``, and for each
    difficulty 1-5 the problems ``solved`` and ``tried``."""

    kind: ClassVar[str] = "problem"
    cause: str
    id: str
    collection: str
    title: str
    task: str
    difficulty: int
    side: Side | None
    status: str
    reason: str
    hint: str
    hints: int
    level: int
    streak: int
    best_streak: int
    solved: tuple[int, ...]
    tried: tuple[int, ...]
