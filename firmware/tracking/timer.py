"""The game clock as a board runs it: one set of rules for every timed game.

A :class:`~crownhead.firmware.gameclock.GameClock` counts the time; :class:`GameTimer` adds what
a board does with it, the same in a refereed game (:mod:`crownhead.firmware.referee.arbiter`) and
in a two-player or computer game (:mod:`crownhead.firmware.app.timing`, which also saves it): the
side to move's time starts with its first lift or a ``clock`` press, the clock switches
when the board accepts a move, the ``clock`` press pauses and resumes it, a takeback gives
the move's increment back, a reopened game waits for the side to move, the end of the
game stops it, and a flag falls once. Its state is one
:class:`~crownhead.firmware.events.clock.ClockState`, its events ``clock`` reports. It keeps each
move's clock (:attr:`GameTimer.times`: the one place the game's record and the referee's
read them from; a resumed game's earlier moves are recalled from its record,
:meth:`GameTimer.recall`), and in a game far apart takes the other board's measure of
that board's side's moves (:meth:`GameTimer.tell`).

>>> from crownhead.rules import WCDF, Game
>>> from crownhead.firmware.gameclock import TimeControl
>>> timer = GameTimer(TimeControl.parse("60"))
>>> timer.begin(Game(None, WCDF), 0)[0].to_json()
{'t': 0, 'event': 'clock', 'black': 60000, 'white': 60000, 'running': ''}
>>> _ = timer.lifted(Game(None, WCDF), 500)          # Black lifts a man: its time runs
>>> timer.state(2500)
ClockState(black_ms=58000, white_ms=60000, side='black', paused=False, flag=None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from crownhead.firmware.events import ClockReport, ClockState, Event, Side
from crownhead.firmware.gameclock import GameClock, TimeControl
from crownhead.rules import BLACK, WHITE, Color, Game

__all__ = ["GameTimer"]

#: Moves measured by another board kept until they are made here (see GameTimer.tell).
_TOLD_KEPT = 8


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
        #: Each move's clock, by ply: the mover's time left after it and the time it took
        #: (the saved record keeps them, ``GameRecord.times``, and gives them back to a
        #: resumed game's clock: :meth:`recall`). A move taken back keeps none.
        self.times: dict[int, tuple[int, int]] = {}
        # What another board measured for its side's moves, by ply (see tell).
        self._told: dict[int, tuple[Color, int, int]] = {}
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
        self.times.clear()
        self._told.clear()
        self._turn = game.turn
        if game.is_over:
            self.clock.stop(now)
        return [self.report(now)]

    def resume(
        self,
        left: Mapping[Color, int],
        moves: Mapping[Color, int],
        game: Game,
        flag: Side | None = None,
        spent: int = 0,
    ) -> None:
        """Go on with a saved clock (each side's time left and moves made), paused until
        the side to move lifts a piece (the time of a power cut is nobody's); ``spent``:
        what the side to move had spent on its move before, which its move's time used
        counts (:meth:`GameClock.spent <crownhead.firmware.gameclock.GameClock.spent>`)."""
        self.clock = GameClock.resume(self.control, dict(left), dict(moves), spent)
        self.version += 1
        self.waiting = True
        self.flag = flag
        self.times.clear()  # the record's are recalled (recall)
        # (what another board told is kept: a resumed game's next move may have come already)
        self._turn = game.turn
        if game.is_over:
            self.clock.stop(0)

    def recall(self, times: Mapping[int, tuple[int, int]], game: Game) -> None:
        """Each earlier move's clock as the saved record kept it (ply -> time left, time
        used), for ``game``'s moves: a game resumed after a power cut, after
        :meth:`resume` (which goes on with the time left). The clock's own win.

        >>> from crownhead.rules import WCDF, Game
        >>> from crownhead.firmware.gameclock import TimeControl
        >>> game = Game(None, WCDF); _ = game.play_text("11-15")
        >>> timer = GameTimer(TimeControl.parse("10"))
        >>> timer.recall({1: (598_000, 2_000), 2: (597_000, 3_000)}, game)
        >>> timer.times                          # ply 2 is no move of the game
        {1: (598000, 2000)}
        """
        for ply in sorted(times):
            if 1 <= ply <= game.ply:
                self.times.setdefault(ply, times[ply])

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

    def moved(self, side: Color, game: Game, now: int, at: int | None = None, *, ply: int | None = None) -> list[Event]:
        """The board accepted ``side``'s move at ``now`` (its time counted to ``at``, by
        default ``now``), the move of ``ply`` (default: ``game``'s last): the opponent's
        clock runs. The move's clock is kept in :attr:`times`, as another board measured
        it if it told one (:meth:`tell`). Reported unless the game is over."""
        self.waiting = False
        self.last_left = self.clock.move_made(side, now if at is None else at)
        self._turn = game.turn
        ply = game.ply if ply is None else ply
        told = self._told.pop(ply, None)
        if told is not None and told[0] is side and not self.clock.stopped and self.clock.running is not side:
            self.clock.agree(side, told[1])
            self.last_left = told[1]
            self.times[ply] = (told[1], told[2])
        else:
            self.times[ply] = (self.clock.saved()[0][side], self.clock.last_used)
        if game.is_over:
            return []
        self._changed(now)
        return [self.report(now)]

    #: The time the last mover had left after its move (with the increment).
    last_left = 0

    def taken_back(self, game: Game, now: int) -> list[Event]:
        """A move taken back: the clock as it was before the move (the increment and the
        move's count go), but time spent stays spent; the side now to move runs again."""
        for ply in [p for p in self.times if p > game.ply]:
            del self.times[ply]  # (a move taken back keeps no clock)
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

    def tell(self, side: Color, ply: int, left: int, used: int) -> None:
        """``side``'s move at ``ply`` as its own board measured it (a game far apart: the
        other board's line carries it before the move is made here): when the move is
        made here its time left and time used are these, not this board's, so that both
        boards keep one record. Only the last few are kept (a board far behind).

        >>> from crownhead.rules import WCDF, Game
        >>> from crownhead.firmware.gameclock import TimeControl
        >>> timer, game = GameTimer(TimeControl.parse("10")), Game(None, WCDF)
        >>> _ = timer.begin(game, 0); _ = timer.lifted(game, 0)
        >>> timer.tell(BLACK, 1, 598_000, 2_000)    # Black's board: 2 s
        >>> _ = game.play_text("11-15")
        >>> _ = timer.moved(BLACK, game, 9_000)     # made here 9 s in
        >>> timer.times, timer.clock.remaining(BLACK, 9_000)
        ({1: (598000, 2000)}, 598000)
        """
        self._told[ply] = (side, left, used)
        for old in sorted(self._told)[:-_TOLD_KEPT]:
            del self._told[old]

    def settle(self, side: Color, left: int, now: int) -> None:
        """``side``'s time left at the end of the game as its own board's clock stopped
        it (a game far apart: docs/remote.md), taken once the clock stopped here too.

        >>> from crownhead.rules import WCDF, Game
        >>> from crownhead.firmware.gameclock import TimeControl
        >>> timer, game = GameTimer(TimeControl.parse("600")), Game(None, WCDF)
        >>> _ = timer.begin(game, 0); _ = timer.lifted(game, 0); _ = timer.over(9_000)
        >>> timer.settle(BLACK, 596_000, 9_500)   # Black's board stopped it 4 s in, not 9
        >>> timer.state(9_500).black_ms
        596000
        """
        if not self.clock.stopped or self.clock.snapshot(now)[side] == left:
            return
        self.clock.agree(side, left)
        self._changed(now)

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
        """The clock as shown now (see :class:`~crownhead.firmware.events.clock.ClockState`)."""
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
