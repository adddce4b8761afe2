"""What a game far apart needs of the board application, declared here so that every use
of it is checked (nothing is read by a name given at run time).

The link of a game far apart knows the board as any link does
(:class:`~crownhead.firmware.link.board.LinkedBoard`); a game between homes also keeps each side's
time as its own board measured it (the game's clock and the record's times), shows who
is away, wants a step at the grace period's next second, and switches the board into the
agreed game: :class:`FarBoard`. The application (:class:`crownhead.firmware.app.application.App`)
is one, which mypy checks here (:func:`_the_application_is_one`) and wherever it is
handed over as one (``crownhead run``'s page desk and ``--remote``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.snapshot import Away
from crownhead.firmware.events import Event
from crownhead.firmware.link.board import LinkedBoard
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.hal.clock import Clock

if TYPE_CHECKING:
    from crownhead.firmware.app.modes import ModeSeats
    from crownhead.firmware.app.application import App

__all__ = ["FarBoard", "TimedRecord", "far_board"]


class TimedRecord(Protocol):
    """The game's record, as far as its moves' times go."""

    @property
    def times(self) -> tuple[tuple[int, int, int], ...]:
        """Each timed move's ``(ply, time left, time used)`` in ms."""


class FarBoard(LinkedBoard, Protocol):
    """The board application as a game far apart uses it (see the module)."""

    #: Who is away and the grace left, as every screen and page shows it.
    away: Away | None
    #: The settings the board plays under (a game far apart's, once agreed).
    settings: AppSettings

    @property
    def clock(self) -> Clock: ...
    @property
    def board_clock(self) -> GameTimer | None:
        """The game's clock (None without a time control)."""

    @property
    def session(self) -> GameSession:
        """The game in play and what stands in it (a draw offer)."""

    @property
    def record(self) -> TimedRecord | None:
        """The game's record on disk (None before a game)."""

    def wake(self) -> None:
        """Ask the loop for a step now; from any thread."""

    def say(self, message: str, *, until: int | None = None) -> None:
        """Show ``message`` on the board's screen and pages."""

    def new_game_with(self, settings: AppSettings, now: int | None = None) -> list[Event]:
        """A new game under ``settings`` (the agreed one); ValueError while it may not begin."""

    def mode_to_return_to(self) -> ModeSeats:
        """The mode and seats a game far apart gives back when it is left."""

    def return_to(self, before: ModeSeats) -> None:
        """Come back to ``before`` at the next new game (the game far apart stays on the board)."""


def far_board(board: LinkedBoard) -> FarBoard:
    """``board``, a link's board, as a game far apart uses it. A game far apart's link is
    attached to the application, which is a :class:`FarBoard` (checked statically below
    and where the application is handed over as one): the link's hooks give it as the
    narrower :class:`~crownhead.firmware.link.board.LinkedBoard` only."""
    return cast(FarBoard, board)


if TYPE_CHECKING:

    def _the_application_is_one(app: App) -> FarBoard:
        return app  # mypy: the application has everything a game far apart uses
