"""The game clock as a board runs it: one set of rules for every timed game.

A :class:`~firmware.gameclock.GameClock` counts the time; :class:`GameTimer` adds what
a board does with it, the same in a refereed game (:mod:`firmware.referee.arbiter`) and
in a two-player or computer game (:mod:`firmware.app.timing`, which also saves it): the
side to move's time starts with its first lift or a ``clock`` press, the clock switches
when the board accepts a move, the ``clock`` press pauses and resumes it, a takeback gives
the move's increment back, a reopened game waits for the side to move, the end of the
game stops it, and a flag falls once. Its state is one
:class:`~firmware.events.clock.ClockState`, its events ``clock`` reports.

>>> from rules import Game
>>> from firmware.gameclock import TimeControl
>>> timer = GameTimer(TimeControl.parse("60"))
>>> timer.begin(Game(), 0)[0].to_json()
{'t': 0, 'event': 'clock', 'black': 60000, 'white': 60000, 'running': ''}
>>> _ = timer.lifted(Game(), 500)          # Black lifts a man: its time runs
>>> timer.state(2500)
ClockState(black_ms=58000, white_ms=60000, side='black', paused=False, flag=None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from firmware.events import ClockReport, ClockState, Event, Side
from firmware.gameclock import GameClock, TimeControl
from rules import BLACK, WHITE, Color, Game

__all__ = ["GameTimer"]


class GameTimer:
    """The clock of one game after another under ``control`` (see the module).

    ``on_change(now)`` is called whenever the clock's state changes (started, paused,
    switched, stopped, given back), for whoever saves it.
    """

    def __init__(self, control: TimeControl, on_change: Callable[[int], None] | None = None) -> None:
        self.control = control
        self.clock = GameClock(control)
        #: The clock waits for the side to move's first lift (or a press): at the start
        #: of a game, after a power cut, after a resignation taken back.
        self.waiting = True
        #: The side whose flag fell (None if none).
        self.flag: Side | None = None
        self.on_change = on_change
        #: Changes whenever the clock's state does (for whoever saves it).
        self.version = 0
        self._turn: Color = BLACK

    #: The sides whose flag another board calls (a game far apart: each side's time is its
    #: own board's, docs/remote.md): their time may run out here without a flag falling.
    called_elsewhere: frozenset[Color] = frozenset()

    # -- a game begins -----------------------------------------------------------------

    def begin(self, game: Game, now: int) -> list[Event]:
        """A new game on ``game``: both sides' full time, waiting for the first lift."""
        self.clock = GameClock(self.control)
        self.version += 1
        self.waiting = True
        self.flag = None
        self._turn = game.turn
        if game.is_over:
            self.clock.stop(now)
        return [self.report(now)]

    def resume(
        self, left: Mapping[Color, int], moves: Mapping[Color, int], game: Game, flag: Side | None = None
    ) -> None:
        """Go on with a saved clock (each side's time left and moves made), paused until
        the side to move lifts a piece (the time of a power cut is nobody's)."""
        self.clock = GameClock.resume(self.control, dict(left), dict(moves))
        self.version += 1
        self.waiting = True
        self.flag = flag
        self._turn = game.turn
        if game.is_over:
            self.clock.stop(0)

    # -- inputs --------------------------------------------------------------------------

    def lifted(self, game: Game, now: int) -> list[Event]:
        """The side to move lifted one of its pieces: a waiting clock starts."""
        if not self.waiting or game.is_over or self.clock.stopped:
            return []
        return self._go(game, now)

    def watch(self, game: Game, board: int, now: int) -> list[Event]:
        """A waiting clock starts when the side to move lifts one of its pieces (``board``:
        the occupancy read)."""
        if not self.waiting:
            return []
        own = game.position.pieces_of(game.turn)
        if board & own == own:
            return []
        return self.lifted(game, now)

    def press(self, game: Game, now: int) -> list[Event]:
        """The ``clock`` press: start a waiting clock, pause a running one, resume it."""
        if game.is_over or self.clock.stopped:
            return []
        if self.waiting or self.clock.paused:
            return self._go(game, now)
        self.clock.pause(now)
        self._changed(now)
        return [self.report(now)]

    def moved(self, side: Color, game: Game, now: int, at: int | None = None) -> list[Event]:
        """The board accepted ``side``'s move at ``now`` (its time counted to ``at``, by
        default ``now``): the opponent's clock runs. Reported unless the game is over."""
        self.waiting = False
        self.last_left = self.clock.move_made(side, now if at is None else at)
        self._turn = game.turn
        if game.is_over:
            return []
        self._changed(now)
        return [self.report(now)]

    #: The time the last mover had left after its move (with the increment).
    last_left = 0

    def taken_back(self, game: Game, now: int) -> list[Event]:
        """A move taken back: the clock as it was before the move (the increment and the
        move's count go), but time spent stays spent; the side now to move runs again."""
        if self.clock.stopped:
            return []
        self.clock.move_taken_back(game.turn, now)
        self._turn = game.turn
        self._changed(now)
        return [self.report(now)]

    def reopened(self, game: Game, now: int) -> list[Event]:
        """A resignation taken back: the clock as it stood, waiting for the side to move."""
        left, moves = self.clock.saved()
        self.clock = GameClock.resume(self.control, left, moves)
        self.waiting = True
        self._turn = game.turn
        self._changed(now)
        return [self.report(now)]

    def agree(self, side: Color, left_ms: int, now: int) -> list[Event]:
        """``side``'s time left after its last move as its own board measured it (a game far
        apart): taken as the record here, reported. ValueError while ``side``'s clock runs."""
        if self.clock.stopped:
            return []
        self.clock.agree(side, left_ms)
        self._changed(now)
        return [self.report(now)]

    def over(self, now: int) -> list[Event]:
        """The game ended: the clock stops for good."""
        if self.clock.stopped:
            return []
        self.clock.stop(now)
        self._changed(now)
        return [self.report(now)]

    def fall(self, side: Color) -> None:
        """``side``'s flag fell (the game ends on time, as the caller says)."""
        self.flag = Side.of(side)
        self.version += 1

    # -- what is shown -------------------------------------------------------------------

    def flag_due(self) -> int | None:
        """When the running side's flag falls, or None (paused, waiting, stopped, fallen,
        or its flag is called elsewhere)."""
        if self.flag is not None or self.clock.running in self.called_elsewhere:
            return None
        return self.clock.flag_due()

    def state(self, now: int) -> ClockState:
        """The clock as shown now (see :class:`~firmware.events.clock.ClockState`)."""
        times = self.clock.snapshot(now)
        waiting = self.waiting and not self.clock.stopped
        running = self._turn if waiting else self.clock.running
        side = Side.of(running) if running is not None else None
        return ClockState(times[BLACK], times[WHITE], side, self.clock.paused or waiting, self.flag)

    def report(self, now: int) -> ClockReport:
        """The ``clock`` event now (``running`` empty while the clock stands still)."""
        return self.state(now).report(now)

    def _go(self, game: Game, now: int) -> list[Event]:
        self.waiting = False
        if self.clock.running is None:
            self.clock.start(game.turn, now)
        else:
            self.clock.unpause(now)
        self._changed(now)
        return [self.report(now)]

    def _changed(self, now: int) -> None:
        self.version += 1
        if self.on_change is not None:
            self.on_change(now)
