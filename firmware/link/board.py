"""What the link needs of the board application, declared here so the link imports none of it.

The application (:class:`crownhead.firmware.app.application.App`) satisfies :class:`LinkedBoard`;
the command that opens a link (``crownhead run --link``) hands it over with
:meth:`crownhead.firmware.link.host.Link.attach`. The link only polls and sinks events through
it, reads the game and asks for what a host may ask (a mode, the hints, names).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol

from crownhead.firmware.app.outputs import O, Output
from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import ClockState, Event
from crownhead.firmware.referee.settings import RefereeSettings
from crownhead.rules import Color, Game, Move, Position, Rules
from crownhead.rules.ballots import Ballot

__all__ = ["HintLights", "LinkedBoard", "MatchState", "Mode", "Named", "Seat", "Shown", "SimHands"]


class Named(Protocol):
    @property
    def name(self) -> str: ...


class Mode(Protocol):
    """The mode a game is played in, as far as the link tells it."""

    @property
    def name(self) -> str: ...
    @property
    def referee_lights(self) -> bool: ...
    @property
    def takeback(self) -> bool: ...
    @property
    def tracker_mode(self) -> str: ...


class Seat(Protocol):
    """Who plays a side: a person at the board, or a machine."""

    @property
    def name(self) -> str: ...
    @property
    def is_human(self) -> bool: ...


class _HintSetting(Protocol):
    @property
    def hints(self) -> bool: ...
    @property
    def brightness(self) -> float: ...


class Shown(Protocol):
    """What the board shows (the application's ``BoardView``), as far as the link tells it."""

    @property
    def pieces(self) -> Mapping[int, str]: ...
    @property
    def blinking(self) -> Collection[int]: ...
    @property
    def hand(self) -> Sequence[str]: ...
    @property
    def status(self) -> str: ...
    @property
    def prompt(self) -> str: ...
    @property
    def warning(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def mode_text(self) -> str: ...
    @property
    def match(self) -> str: ...
    @property
    def away(self) -> str: ...


class SimHands(Protocol):
    """The simulator's hands (:class:`crownhead.firmware.simulator.hands.Hands`), given to the link
    by whoever opens it on a simulated board."""

    def toggle(self, square: int) -> None: ...
    def hand_move(self, text: str) -> None: ...
    def follow(self) -> None: ...


class HintLights(Protocol):
    """The hint switch of the LED policy."""

    @property
    def settings(self) -> _HintSetting: ...
    @property
    def hints_shown(self) -> bool: ...
    @property
    def hints_on(self) -> bool: ...

    def set_hints(self, on: bool) -> None: ...


class MatchState(Protocol):
    def link_state(self) -> dict[str, Any] | None:
        """The match under way as the host link's state gives it, or None."""

    def line(self) -> str:
        """The match and its score in one line for a screen (empty without a match)."""


class LinkedBoard(Protocol):
    """The board application as the link sees it: the game's state to read and the
    application's commands (:class:`crownhead.firmware.app.commands.Commands`), never its tracker,
    referee, simulated board, record or thinkers."""

    def add_sink(self, sink: Callable[[Event], None], *, first: bool = False) -> None:
        """Hear every event, as one of the application's outputs."""

    def add_output(self, output: O, *, first: bool = False) -> O:
        """Hear every event, snapshot and end of a step (an :class:`~crownhead.firmware.app.outputs.Output`)."""

    def remove_output(self, output: Output) -> None:
        """Hear nothing more (the end of :meth:`add_output`)."""

    def remove_sink(self, sink: Callable[[Event], None]) -> None:
        """Hear the events no more (the end of :meth:`add_sink`)."""

    @property
    def started(self) -> bool: ...
    @property
    def snapshot(self) -> Snapshot:
        """The game as the last step left it (what the view is drawn from)."""

    @property
    def game(self) -> Game: ...
    @property
    def resuming(self) -> bool: ...
    @property
    def setting_up(self) -> Position | None: ...
    @property
    def expected(self) -> Move | None: ...
    @property
    def warning(self) -> object: ...
    @property
    def thinking(self) -> bool: ...
    @property
    def players(self) -> Mapping[Color, Seat]: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def referee_mode(self) -> bool: ...
    @property
    def ballot(self) -> Ballot | None: ...
    @property
    def ballot_move(self) -> Move | None: ...
    @property
    def policy(self) -> HintLights: ...
    @property
    def matches(self) -> MatchState: ...
    @property
    def first_number(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def referee_settings(self) -> RefereeSettings: ...

    def view(self) -> Shown: ...
    def simulated(self) -> tuple[Mapping[int, str], Sequence[str]] | None:
        """The simulated board's pieces and hand; None on real hardware."""

    def record_tags(self) -> Mapping[str, str]:
        """The game's PDN tags (the players' names without a record)."""

    def cautions(self) -> dict[str, int] | None: ...
    def clock_state(self, now: int) -> ClockState | None:
        """The game clock as shown (a :class:`~crownhead.firmware.events.clock.ClockState`), or None without one."""

    def press(self, name: str, now: int | None = None, *, long: bool = False) -> None: ...
    def give_up_resume(self) -> None:
        """The saved game being resumed is given up for a new game (kept as unfinished)."""

    def new_game(self, position: Position, now: int) -> list[Event]: ...
    def try_again(self, game: str, ply: int, opponent: str, now: int) -> list[Event]:
        """A kept game set up again from the position after ``ply`` plies; ``ValueError``."""

    def start_problem(self, problem_id: str | None, now: int) -> list[Event]:
        """The problem mode with problem ``problem_id`` (None: the next at the player's
        level) set up; ``KeyError`` for no such problem, ``ValueError`` why not now."""

    def leave_problems(self, now: int) -> list[Event]:
        """The problem mode off."""

    def problem_state(self) -> dict[str, Any]:
        """The problem mode: ``active``, the problem, its status, the player's record."""

    def show_move(self, move: Move | None) -> None:
        """Ask for ``move`` on the board (None: no longer); ``ValueError`` when not legal."""

    def take_back(self, now: int) -> list[Event]: ...
    def declare(self, score: str, reason: str, now: int) -> list[Event]: ...
    def set_ballot(self, number: int | None, now: int) -> list[Event]:
        """Referee mode: play ACF ballot ``number``; ``ValueError`` when it cannot be."""

    def computer_player(self, level: int | None = None) -> Seat:
        """The engine as a player; ``ValueError`` when it is not installed."""

    def set_brightness(self, fraction: float) -> None: ...
    def offer_draw(self, side: Color | None, now: int | None = None) -> list[Event]: ...
    def resign(self, side: Color | None, now: int | None = None, *, confirmed: bool = False) -> list[Event]: ...

    def set_rules(self, rules: Rules, now: int | None = None) -> list[Event]:
        """Play the next games under ``rules``; ``ValueError`` while a game is under way."""

    def change_referee(self, **changes: Any) -> RefereeSettings:
        """The referee's settings for the games to come; ``ValueError`` for a bad value."""

    def hold(self, side: Color, by: str) -> None: ...
    def release(self, side: Color) -> None:
        """``side``'s moves are made at the board again (undoes :meth:`hold`)."""

    def set_mode(self, name: str, now: int | None = None, computer: tuple[Color, Seat] | None = None) -> None: ...

    def set_player_names(self, black: str, white: str, now: int) -> bool:
        """Name the players (the record, the referee's games); True when the unfinished
        game is on disk with them."""
