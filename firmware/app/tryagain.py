"""Trying a kept game again from one of its positions: the review's losing move, replayed.

A review (``crownhead review``, the page's Review button) says which move gave the game
away. :func:`retry_from` finds the position of a kept game after any number of its
plies; :func:`begin` sets it up on the board as a new game, against the engine (the
machine takes the other side, the person the side to move) or a friend (two players),
as any position is set up: the lights ask for one rank at a time
(:mod:`crownhead.firmware.app.guidance`). The new game is kept like any other, its record naming
the game and the ply it came from in two PDN tags, ``FromGame`` (the kept game's file
name, without ``.pdn``) and ``FromPly`` (the plies played before the position).

:class:`TryAgain` does it at the start of ``crownhead run --from-game GAME --ply N``;
the link's ``again GAME PLY`` (the page's "Try again" buttons) calls :func:`begin`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from crownhead.firmware.app.outputs import O, Poller
from crownhead.firmware.events import Event
from crownhead.firmware.files import RECORD_LIMIT, FileRefused, read_text
from crownhead.firmware.storage.store import GameStore
from crownhead.rules import Color, Game, Position, Rules
from crownhead.rules.pdn import read_game

if TYPE_CHECKING:
    from crownhead.firmware.app.modes import ModeSeats
    from crownhead.firmware.app.matchplay import MatchPlay
    from crownhead.firmware.app.players import Player


class Board(Protocol):
    """What a retry needs of the application (:class:`~crownhead.firmware.app.application.App`'s
    commands), named here so that the commands may call :func:`begin` without a cycle."""

    matches: MatchPlay

    @property
    def started(self) -> bool: ...
    @property
    def resuming(self) -> bool: ...
    @property
    def game(self) -> Game: ...
    def add_output(self, output: O, *, first: bool = False) -> O: ...
    def give_up_resume(self) -> None: ...
    def new_game(self, position: Position, now: int, *, tags: Mapping[str, str] | None = None) -> list[Event]: ...
    def set_rules(self, rules: Rules, now: int | None = None) -> list[Event]: ...
    def set_mode(self, name: str, now: int | None = None, computer: tuple[Color, Player] | None = None) -> None: ...
    def computer_player(self, level: int | None = None) -> Player: ...
    def mode_to_return_to(self) -> ModeSeats: ...
    def return_to(self, before: ModeSeats) -> None: ...
    def say(self, message: str, *, until: int | None = None) -> None: ...


__all__ = ["Board", "FROM_GAME", "FROM_PLY", "OPPONENTS", "Retry", "TryAgain", "begin", "retry_from"]

#: The PDN tags of a game tried again: the kept game's name, and the plies before its start.
FROM_GAME = "FromGame"
FROM_PLY = "FromPly"
#: Who plays the other side: the engine (``computer`` mode) or a friend at the board.
OPPONENTS = ("computer", "play")


@dataclass(frozen=True, slots=True)
class Retry:
    """A position of a kept game to play again: ``game`` the kept game's name, ``ply``
    the plies played before it, ``moves`` the game's plies in all."""

    game: str
    ply: int
    position: Position
    rules: Rules
    moves: int

    @property
    def tags(self) -> dict[str, str]:
        return {FROM_GAME: self.game, FROM_PLY: str(self.ply)}

    @property
    def mover(self) -> Color:
        return self.position.turn

    def describe(self) -> str:
        """``game 20261204-101500-1a2b after 4 of its 10 plies``, as the board says it."""
        if self.ply == 0:
            return f"the start of game {self.game}"
        return f"game {self.game} after {self.ply} of its {self.moves} plies"


def retry_from(store: GameStore | None, game: str, ply: int) -> Retry:
    """The position of the kept game ``game`` (its number in ``crownhead games`` or its
    file name) after ``ply`` plies. ``ValueError`` naming the problem: no games kept, no
    such game, a ply the game does not have, a position with no move left."""
    if store is None:
        raise ValueError("this board keeps no games (no state directory)")
    path = store.find(game)
    if path is None:
        raise ValueError(f"no kept game {game!r} (see crownhead games)")
    try:
        text = read_text(Path(path), RECORD_LIMIT)
    except (FileRefused, OSError) as exc:
        raise ValueError(f"cannot read {path.name}: {exc}") from None
    pdn = read_game(text, path.name)
    if pdn is None:
        raise ValueError(f"{path.name} holds no game")
    positions = pdn.positions
    played = len(positions) - 1
    if not 0 <= ply <= played:
        raise ValueError(f"game {path.stem} has {played} plies: the ply is 0 (its start) to {played}, not {ply}")
    position = positions[ply]
    if not position.legal_moves(pdn.rules):
        raise ValueError(f"game {path.stem} is over after {ply} plies: {position.turn} has no move to try")
    return Retry(path.stem, ply, position, pdn.rules, played)


def begin(
    app: Board,
    retry: Retry,
    opponent: str,
    now: int,
    machine: Player | None = None,
    machine_side: Color | None = None,
) -> list[Event]:
    """Set ``retry`` up on the board as a new game against ``opponent`` (``computer``: the
    machine, ``machine`` or the engine at full strength, plays ``machine_side``, by
    default the side not to move; ``play``: two players). A saved game waiting to resume,
    or a game under way, is put away as the board's ``new`` button puts it away.
    ``ValueError`` naming the problem."""
    if opponent not in OPPONENTS:
        raise ValueError(f"the opponent is computer or play, got {opponent!r}")
    if app.matches.active is not None:
        # Every game begun during a match is one of its games.
        raise ValueError("a match is under way: a game tried again would count in it (crownhead match end first)")
    # Computer or play mode, never the referee's: a game tried again is no tournament game.
    player = machine if machine is not None or opponent != "computer" else app.computer_player()
    # The mode it is tried in is entered for this game only: the next game is the mode left.
    before = app.mode_to_return_to()
    if app.resuming:
        app.give_up_resume()
    events: list[Event] = []
    if retry.rules != app.game.rules:
        events += app.new_game(retry.position, now)  # set up first: the rules change only then
        events += app.set_rules(retry.rules, now)
    events += app.new_game(retry.position, now, tags=retry.tags)
    if opponent == "computer":
        assert player is not None
        app.set_mode("computer", now, computer=(machine_side or retry.mover.opponent, player))
    else:
        app.set_mode("play", now)
    app.return_to(before)  # at the next new game: the game tried again stays on the board
    side = "Black" if retry.mover is Color.BLACK else "White"
    against = "the computer" if opponent == "computer" else "a friend"
    app.say(f"Try again from {retry.describe()}: set up the pieces; {side} to move, against {against}.")
    return events


class TryAgain:
    """``crownhead run --from-game GAME --ply N``: the retry set up at the first step."""

    def __init__(
        self, retry: Retry, opponent: str, machine: Player | None = None, machine_side: Color | None = None
    ) -> None:
        self.retry = retry
        self.opponent = opponent
        self.machine = machine
        self.machine_side = machine_side
        self._app: Board | None = None
        self._done = False

    def attach(self, app: Board) -> TryAgain:
        self._app = app
        app.add_output(Poller(self.source))  # polled every step: set up at the first
        return self

    def source(self, now: int) -> list[Event]:
        app = self._app
        if self._done or app is None or not app.started:
            return []
        self._done = True
        return begin(app, self.retry, self.opponent, now, self.machine, self.machine_side)


def tags_of(tags: Mapping[str, str]) -> tuple[str, int] | None:
    """The game and ply a kept game was tried again from (its tags), or None.

    >>> tags_of({"FromGame": "20261204-101500-1234", "FromPly": "7"})
    ('20261204-101500-1234', 7)
    """
    game, ply = tags.get(FROM_GAME), tags.get(FROM_PLY, "")
    if game is None or not (ply.isascii() and ply.isdigit() and len(ply) <= 5):
        return None
    return game, int(ply)
