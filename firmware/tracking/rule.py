"""Turn rules: the hooks where the tracker asks the game's rules how to read a turn.

The tracker (:mod:`crownhead.firmware.tracking.tracker`) reads English draughts. Rules that add
something to a turn plug in here, the way python-chess lets ``AtomicBoard`` override
``_push_capture``: a :class:`TurnRule` subclass overrides the hooks where its rules
differ, and changes the tracker's state only through the :class:`RuleHost` interface
the tracker offers it. :class:`TurnRule` itself is English draughts: no hook adds
anything. :mod:`crownhead.firmware.tracking.huffing` is the one variant so far.
"""

from __future__ import annotations

from typing import Protocol

from crownhead.firmware.events import Event
from crownhead.firmware.tracking.policy import ModePolicy, TrackerSettings
from crownhead.firmware.tracking.reading import Reading
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.table import TurnTable
from crownhead.rules import Game, Move

__all__ = ["RuleHost", "TurnRule"]


class RuleHost(Protocol):
    """What a turn rule may see and do of the tracker it is plugged into."""

    settings: TrackerSettings
    policy: ModePolicy

    @property
    def session(self) -> GameSession:
        """The game's session: a rule changes the record only through it (a huff, a forced
        jump), then calls :meth:`restart_turn`."""

    @property
    def game(self) -> Game:
        """The game (the session's record), to read."""

    @property
    def board(self) -> int: ...
    @property
    def reading(self) -> Reading: ...
    @property
    def expected(self) -> Move | None: ...
    @property
    def crowned(self) -> int | None: ...
    @property
    def table(self) -> TurnTable: ...

    def correction_table(self) -> TurnTable | None: ...

    def restart_turn(self, now: int) -> None:
        """The session changed the game other than by a move (a huff, a forced jump):
        begin the turn afresh from the game's position and read the board again."""

    def guide_back(self, shown: int) -> None:
        """The board still shows ``shown``, which was just taken back: the lights guide
        it to the game's position instead of reading it as a move."""


class TurnRule:
    """English draughts: every hook is the tracker's plain behaviour (nothing added).

    The tracker calls each hook at one marked place; a subclass overrides those where
    its rules read a turn differently.
    """

    def __init__(self, host: RuleHost) -> None:
        self.host = host

    def turn_moves(self, game: Game) -> list[Move] | None:
        """The moves the board accepts this turn when fewer than the legal moves, else None."""
        return None

    def takeback_board(self, game: Game) -> int | None:
        """The occupancy that takes back the last entry of the game's history, if any."""
        if not game.history or len(game.positions) < 2:
            return None
        return game.positions[-2].occupied

    def read(self, board: int) -> Reading | None:
        """A reading of ``board`` this rule makes before the tracker's own, or None."""
        return None

    def commit(self, board: int, now: int) -> list[Event]:
        """Accept a reading of this rule's own kind (see :meth:`read`)."""
        return []

    def ahead(self, board: int, now: int) -> list[Event]:
        """For a board that fits no move: what this rule accepts first to make sense of it."""
        return []

    def after_update(self, old: Reading, new: Reading, now: int) -> list[Event]:
        """After each board change (only for rules that ask: see :attr:`watches_updates`)."""
        return []

    #: Whether :meth:`after_update` is to be called.
    watches_updates = False

    def offer(self, now: int) -> list[Event]:
        """After a move is accepted: the events this rule adds (a choice opened)."""
        return []

    def force(self, now: int) -> list[Event]:
        """The ``force`` button (after a pending move has been accepted)."""
        return []

    def undo(self, now: int) -> list[Event] | None:
        """Taking back the last history entry when it is this rule's, else None (a plain move)."""
        return None

    def take_back(self, now: int) -> list[Event] | None:
        """The ``takeback`` button when the last history entry is this rule's, else None."""
        return None

    def roles(self, out: dict[int, str]) -> None:
        """Add this rule's roles to ``out`` (the tracker's roles for the board)."""
