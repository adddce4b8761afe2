"""The judge seam: a referee policy the follower consults, declared here, below the referee.

A :class:`Judge` rules on a game it does not own. The :class:`~crownhead.firmware.tracking.follower.Follower`
passes it what happened (the tracker's warnings, each move the session took in, the end
of a game, a game beginning, a claim, an offer, the clock pressed or run out) with the
:class:`Bench` it rules from: the session (the game, read), the board as the tracker
reads it (:class:`BoardReading`, read), and the three rulings it may hand down: ask for a
move (a balloted opening), declare a result (a forfeit) and let an illegal move stand
(WCDF 1.26). The judge answers with events (cautions, forfeits, a draw that may be
claimed) and keeps its own record; it holds no reference to the game, the session or the
tracker between calls, so the session stays the one owner of the game.
:class:`crownhead.firmware.referee.arbiter.Referee` is the one judge so far: the board without a
referee has none (the follower then passes every event through as it is).
"""

from __future__ import annotations

from typing import Protocol

from crownhead.firmware.events import BoardWarning, Event, GameOver, MoveMade
from crownhead.firmware.tracking.policy import TrackerSettings
from crownhead.firmware.tracking.reading import Reading
from crownhead.firmware.tracking.session import GameSession
from crownhead.rules import Color, Move, Position

__all__ = ["BoardReading", "Bench", "Judge"]


class BoardReading(Protocol):
    """What a judge may read of the board: the tracker's readings, nothing it can change."""

    @property
    def settings(self) -> TrackerSettings: ...
    @property
    def board(self) -> int: ...
    @property
    def tidy_board(self) -> int: ...
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
    def warnings(self) -> tuple[BoardWarning, ...]: ...


class Bench(Protocol):
    """Where a judge rules from (the follower): what it reads and the rulings it may give."""

    @property
    def session(self) -> GameSession:
        """The game and what is decided about it: to read (only the follower changes it)."""

    @property
    def reader(self) -> BoardReading:
        """The board as the tracker reads it."""

    @property
    def over(self) -> bool:
        """Whether the game is over (the session's, asked often: kept until it changes)."""

    def expect(self, move: Move | None) -> None:
        """Ask for ``move`` on the board (a balloted opening), None: no longer."""

    def declare(self, score: str, reason: str, now: int) -> list[Event]:
        """End the game with ``score`` for ``reason`` (a forfeit): the events it causes."""

    def condone(self, move: Move, now: int, *, code: str, message: str, clock_at: int) -> list[Event]:
        """``move`` stands although illegal (WCDF 1.26; ``code`` and ``message`` say which
        rule it broke): the session takes it in, the clock switches as of ``clock_at``, the
        board is read on from the game's new position. The events it causes."""


class Judge(Protocol):
    """A referee policy (see the module): consulted, never in charge of the game.

    The follower calls each hook at one place; every hook gets the :class:`Bench` and
    returns the events the judge adds (or, for :meth:`warned`, the warning as the judge
    words it first).
    """

    def begin(self, now: int, bench: Bench) -> list[Event]:
        """A game begins on the board (a ``new-game``, or the judge's first game)."""

    def warned(self, warning: BoardWarning, bench: Bench) -> list[Event]:
        """The tracker raised ``warning``: it as the judge words it, then any offence's events."""

    def moved(self, event: MoveMade, bench: Bench) -> list[Event]:
        """The session took in the move ``event`` reports (the clock has switched)."""

    def ended(self, event: GameOver, bench: Bench) -> list[Event]:
        """The game ended as ``event`` says (the clock has stopped)."""

    def check(self, now: int, bench: Bench, *, read: bool) -> list[Event]:
        """After each input (``read``: a new board was read): episodes ending, chains left
        overdue, illegal moves that stood."""

    def rejudge(self, now: int, bench: Bench) -> list[Event]:
        """A board that changed under a standing warning, judged once it has settled."""

    def next_deadline(self, bench: Bench) -> int | None:
        """When :meth:`rejudge` has something to do, or None."""

    def objection(self, now: int, bench: Bench) -> list[Event] | None:
        """A ``claim`` press that objects to an illegal move (its events), or None when it
        is a claim of a draw (the session rules on that)."""

    def objectable(self, bench: Bench) -> bool:
        """Whether a ``claim`` or ``draw`` press now speaks of an illegal move just made
        (so the move standing on the board is not accepted first)."""

    def ruled(self, events: list[Event], ply: int, bench: Bench) -> None:
        """The session ruled on a claim, an offer (or its lapse) or a resignation at
        ``ply``: ``events``."""

    def clock_pressed(self, how: str, bench: Bench) -> None:
        """The arbiter's ``clock`` press ``started``, ``paused`` or ``resumed`` the clock."""

    def flag_fell(self, side: Color, bench: Bench) -> None:
        """``side``'s flag fell (the game then ends on time)."""

    def roles(self, roles: dict[int, str], bench: Bench) -> dict[int, str]:
        """The tracker's ``roles`` as the judge shows them (hints left out)."""

    def word(self, warning: BoardWarning, bench: Bench) -> BoardWarning:
        """A standing warning as the judge words it."""

    def heard(self, events: list[Event]) -> None:
        """Every event the follower hands out (the arbiter's log)."""
