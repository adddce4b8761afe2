"""The game clock: time per side, moves-in-time controls, increments, flags.

Every timed game has one: a referee's (:mod:`crownhead.firmware.referee.arbiter`) and the board
clock of a two-player or computer game (:mod:`crownhead.firmware.app.timing`); their events are
:mod:`crownhead.firmware.events.clock`'s.

A time control is written as a spec, the way PGN writes ``TimeControl``: periods joined
by ``:``, each ``[MOVES/]SECONDS[+INCREMENT]``:

======================  ===================================================================
``300+5``               5 minutes for the game, 5 seconds added after each move (Fischer)
``600``                 10 minutes for the game (sudden death)
``40/5400:1800``        40 moves in 90 minutes, then 30 minutes for the rest of the game
``40/5400+30:1800+30``  the same with 30 seconds added after every move
``30/3600``             30 moves an hour, repeating (the last period with a move count
                        comes round again: 60 more minutes at moves 30, 60, 90...)
======================  ===================================================================

Every period but the last needs a move count (a period for the rest of the game cannot
be followed by another). The time of the next period is added the moment a side makes
the last move of a period; an increment is added after every move of the period it has.

The clock is pure: time comes in as arguments (milliseconds on the injected clock), so
a virtual clock drives it exactly in tests.

>>> control = TimeControl.parse("40/5400:1800")
>>> str(control), control.describe()
('40/5400:1800', '40 moves in 1:30:00, then 0:30:00 for the rest of the game')
>>> clock = GameClock(control)
>>> clock.start(BLACK, 0)
>>> clock.move_made(BLACK, 61_000)     # Black took 61 seconds: its time left after the move
5339000
>>> clock.running, clock.remaining(WHITE, 71_000)
(<Color.WHITE: 1>, 5390000)
>>> clock.flag_due()                    # when White's time runs out if it does not move
5461000
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crownhead.rules import BLACK, WHITE, Color

__all__ = [
    "ClockSpecError",
    "Period",
    "TimeControl",
    "GameClock",
    "clock_text",
    "pdn_clock",
    "pdn_used",
    "pdn_move_clock",
]


class ClockSpecError(ValueError):
    """A time control spec that cannot be read; the message names the bad part."""


@dataclass(frozen=True, slots=True)
class Period:
    """``moves`` to make in ``seconds`` (None: the rest of the game), ``increment`` per move."""

    seconds: int
    moves: int | None = None
    increment: int = 0

    def __str__(self) -> str:
        text = f"{self.moves}/{self.seconds}" if self.moves is not None else str(self.seconds)
        return f"{text}+{self.increment}" if self.increment else text


# ASCII digits, at most 7 (int() takes other scripts' digits, and raises on thousands).
_PERIOD = re.compile(r"^(?:([0-9]{1,7})/)?([0-9]{1,7})(?:\+([0-9]{1,7}))?$")


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The periods of a time control (see the module docstring for the spec)."""

    periods: tuple[Period, ...]

    def __post_init__(self) -> None:
        if not self.periods:
            raise ClockSpecError("a time control needs at least one period")
        for i, p in enumerate(self.periods):
            if p.seconds <= 0 and not p.increment:
                raise ClockSpecError(f"period {i + 1} ({p}) gives no time at all")
            if p.moves is not None and p.moves <= 0:
                raise ClockSpecError(f"period {i + 1} ({p}): the number of moves must be at least 1")
            if p.moves is None and i < len(self.periods) - 1:
                raise ClockSpecError(
                    f"period {i + 1} ({p}) is for the rest of the game, so no period can follow it;"
                    " give it a number of moves (MOVES/SECONDS)"
                )

    @classmethod
    def parse(cls, spec: str) -> TimeControl:
        """A time control from a spec such as ``300+5`` or ``40/5400:1800``.

        >>> TimeControl.parse("300+5").periods
        (Period(seconds=300, moves=None, increment=5),)
        >>> try:
        ...     TimeControl.parse("40/5400:x")
        ... except ClockSpecError as exc:
        ...     print(exc)
        clock spec '40/5400:x': 'x' is not a period ([MOVES/]SECONDS[+INCREMENT], whole numbers)
        """
        text = spec.strip()
        if not text:
            raise ClockSpecError("empty clock spec (try 300+5 or 40/5400:1800)")
        periods = []
        for part in text.split(":"):
            m = _PERIOD.match(part.strip())
            if m is None:
                raise ClockSpecError(
                    f"clock spec {spec!r}: {part!r} is not a period ([MOVES/]SECONDS[+INCREMENT], whole numbers)"
                )
            moves, seconds, increment = m.groups()
            periods.append(Period(int(seconds), int(moves) if moves else None, int(increment or 0)))
        try:
            return cls(tuple(periods))
        except ClockSpecError as exc:
            raise ClockSpecError(f"clock spec {spec!r}: {exc}") from None

    def __str__(self) -> str:
        return ":".join(str(p) for p in self.periods)

    def describe(self) -> str:
        """The control in words."""
        parts = []
        for i, p in enumerate(self.periods):
            last = i == len(self.periods) - 1
            if p.moves is None:
                words = f"{clock_text(p.seconds * 1000)} for the {'rest of the ' if i else ''}game"
            else:
                words = f"{p.moves} moves in {clock_text(p.seconds * 1000)}"
                if last:
                    words += ", repeating"
            if p.increment:
                words += f" plus {p.increment} s a move"
            parts.append(words)
        return ", then ".join(parts)

    @property
    def initial_ms(self) -> int:
        return self.periods[0].seconds * 1000

    def period_index(self, move_number: int) -> int:
        """The period (index) that move ``move_number`` (1 = a side's first move) belongs to."""
        done = 0
        for i, p in enumerate(self.periods):
            if p.moves is None:
                return i
            if move_number <= done + p.moves:
                return i
            done += p.moves
        return len(self.periods) - 1  # the last period repeats

    def added_after(self, move_number: int) -> int:
        """Milliseconds added once a side has made ``move_number`` moves (a new period)."""
        done = 0
        for i, p in enumerate(self.periods):
            if p.moves is None:
                return 0
            done += p.moves
            if move_number == done:
                nxt = self.periods[i + 1] if i + 1 < len(self.periods) else p
                return nxt.seconds * 1000
            if move_number < done:
                return 0
        last = self.periods[-1]
        assert last.moves is not None  # otherwise the loop returned
        # Beyond the listed periods the last one repeats every ``last.moves`` moves.
        return last.seconds * 1000 if (move_number - done) % last.moves == 0 else 0


def clock_text(ms: int) -> str:
    """``H:MM:SS`` for a time in milliseconds (whole seconds, rounded down; never negative).

    >>> clock_text(5_339_000), clock_text(59_999), clock_text(-5)
    ('1:28:59', '0:00:59', '0:00:00')
    """
    seconds = max(0, ms) // 1000
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def pdn_clock(ms: int) -> str:
    """The PDN comment command for a side's time left: ``[%clk 1:28:59]``."""
    return f"[%clk {clock_text(ms)}]"


def pdn_used(ms: int) -> str:
    """The PDN comment command for the time a move took (elapsed move time, as PGN's
    clocks write it): ``[%emt 0:00:12]``."""
    return f"[%emt {clock_text(ms)}]"


def pdn_move_clock(left: int, used: int) -> str:
    """A move's clock as every PDN of the board writes it (the saved game's and the
    referee's alike): the mover's time left after it and the time it took.

    >>> pdn_move_clock(598_000, 2_000)
    '[%clk 0:09:58] [%emt 0:00:02]'
    """
    return f"{pdn_clock(left)} {pdn_used(used)}"


class GameClock:
    """Two clocks, at most one running: the side to move's.

    :meth:`start` starts the first side's clock; :meth:`move_made` stops the mover's
    (adding its increment and, at the end of a period, the next period's time) and
    starts the opponent's; :meth:`flag_due` says when the running side's time runs out.
    A move made at :meth:`flag_due` or later is too late: the flag fell first.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self._left = {BLACK: control.initial_ms, WHITE: control.initial_ms}
        self._moves = {BLACK: 0, WHITE: 0}
        self.running: Color | None = None
        self._since = 0
        self.stopped = False
        #: Held by the arbiter (:meth:`pause`): ``running`` keeps the side whose clock
        #: goes on at :meth:`unpause`, and no time passes.
        self.paused = False
        # The time the side to move spent on its move before ``_since``: before an
        # arbiter's pause, an outage or a power cut. A move's time used is all of its
        # thinking time, not only what came after the last of those.
        self._spent = 0

    @classmethod
    def resume(cls, control: TimeControl, left: dict[Color, int], moves: dict[Color, int], spent: int = 0) -> GameClock:
        """A clock with each side's time left and moves made as saved (not running);
        ``spent``: the time the side to move had spent on its move when it was saved
        (charged in ``left`` already; it counts in the move's time used)."""
        clock = cls(control)
        clock._left = dict(left)
        clock._moves = dict(moves)
        clock._spent = max(0, spent)
        return clock

    def saved(self) -> tuple[dict[Color, int], dict[Color, int]]:
        """Each side's time left as of the last switch, and moves made: what :meth:`resume` takes."""
        return dict(self._left), dict(self._moves)

    @property
    def since(self) -> int:
        """When the running side's clock was started."""
        return self._since

    def start(self, side: Color, now_ms: int) -> None:
        """Start ``side``'s clock at ``now_ms`` (the game begins, or a clock restarts)."""
        if self.stopped:
            return
        self.running = side
        self._since = now_ms

    def pause(self, now_ms: int) -> None:
        """Hold the clock (an arbiter's pause): the running side is charged up to ``now_ms``
        and no time passes until :meth:`unpause`.

        >>> clock = GameClock(TimeControl.parse("300"))
        >>> clock.start(BLACK, 0); clock.pause(10_000)
        >>> clock.remaining(BLACK, 50_000), clock.flag_due()
        (290000, None)
        >>> clock.unpause(60_000); clock.remaining(BLACK, 61_000)
        289000
        """
        if self.paused or self.stopped:
            return
        if self.running is not None:
            self._left[self.running] -= max(0, now_ms - self._since)
            self._spent += max(0, now_ms - self._since)
            self._since = now_ms
        self.paused = True

    def unpause(self, now_ms: int) -> None:
        """Go on after :meth:`pause`: the side that was running runs from ``now_ms``."""
        if not self.paused:
            return
        self.paused = False
        self._since = now_ms

    def remaining(self, side: Color, now_ms: int) -> int:
        """``side``'s time left at ``now_ms`` in milliseconds (negative once its flag fell)."""
        left = self._left[side]
        if self.running is side and not self.paused:
            left -= max(0, now_ms - self._since)
        return left

    def moves(self, side: Color) -> int:
        """Moves ``side`` has made on this clock."""
        return self._moves[side]

    def spent(self, now_ms: int) -> int:
        """The time the side to move has spent on its move by ``now_ms``, pauses left out
        (what a saved clock keeps for the move's time used: :meth:`resume`).

        >>> clock = GameClock(TimeControl.parse("300"))
        >>> clock.start(BLACK, 0); clock.pause(20_000); clock.unpause(80_000)
        >>> clock.spent(90_000), clock.move_made(BLACK, 90_000), clock.last_used
        (30000, 270000, 30000)
        """
        if self.running is None or self.paused or self.stopped:
            return self._spent
        return self._spent + max(0, now_ms - self._since)

    def flag_due(self) -> int | None:
        """When the running side's time runs out, or None when no clock runs."""
        if self.running is None or self.paused:
            return None
        return self._since + self._left[self.running]

    def move_made(self, side: Color, now_ms: int) -> int:
        """``side`` completed a move at ``now_ms``: its time left after the move, then the
        opponent's clock runs. A move of a side whose clock is not running (the clock was
        stopped, or the board accepted a move for the other side) only counts the move.
        """
        charged = max(0, now_ms - self._since) if self.running is side and not self.paused else 0
        self._left[side] -= charged
        # (the time spent before a pause, an outage or a power cut is the move's too)
        self.last_used = self._spent + charged if self.running is side else 0
        self._spent = 0
        self._moves[side] += 1
        n = self._moves[side]
        period = self.control.periods[self.control.period_index(n)]
        self._left[side] += period.increment * 1000 + self.control.added_after(n)
        if not self.stopped:
            self.running = side.opponent
            self._since = now_ms
        return self._left[side]

    #: The time the last move took on this clock (0: its side's clock was not running).
    last_used = 0

    def move_taken_back(self, side: Color, now_ms: int) -> None:
        """``side``'s last move was taken back at ``now_ms``: the time that move added (its
        increment, a new period's time) and its count go, the time spent stays spent (the
        running side is charged up to ``now_ms``), and ``side``'s clock runs again.

        >>> clock = GameClock(TimeControl.parse("10+2"))
        >>> clock.start(BLACK, 0); _ = clock.move_made(BLACK, 500)
        >>> clock.move_taken_back(BLACK, 1200)
        >>> clock.snapshot(1200)[BLACK], clock.snapshot(1200)[WHITE], clock.moves(BLACK), str(clock.running)
        (9500, 9300, 0, 'black')
        """
        running = self.running
        if running is not None and not self.paused and not self.stopped:
            self._left[running] -= max(0, now_ms - self._since)
        self._spent = 0  # (the move taken back is thought about afresh)
        n = self._moves[side]
        if n > 0:
            period = self.control.periods[self.control.period_index(n)]
            self._left[side] -= period.increment * 1000 + self.control.added_after(n)
            self._moves[side] = n - 1
        if running is not None and not self.stopped:  # a clock not yet started stays so
            self.running = side
            self._since = now_ms

    def agree(self, side: Color, left_ms: int) -> None:
        """Take ``left_ms`` as ``side``'s time left: the time its own board measured, in a
        game far apart (docs/remote.md). Only for a side whose clock does not run (the
        mover, once its move is made): the running side's time is this board's own.

        >>> clock = GameClock(TimeControl.parse("60+5"))
        >>> clock.start(BLACK, 0); _ = clock.move_made(BLACK, 9_000)  # here: 9 s, the move shown late
        >>> clock.agree(BLACK, 62_000)  # Black's own board: 3 s
        >>> clock.remaining(BLACK, 20_000), str(clock.running)
        (62000, 'white')
        """
        if self.running is side and not self.paused and not self.stopped:
            raise ValueError(f"{side}'s clock runs here: its time is this board's own")
        self._left[side] = left_ms

    def stop(self, now_ms: int) -> None:
        """Stop for good (the game is over): the running side's time is charged up to ``now_ms``."""
        if self.running is not None and not self.paused:
            self._left[self.running] -= max(0, now_ms - self._since)
        self.running = None
        self.paused = False
        self.stopped = True

    def snapshot(self, now_ms: int) -> dict[Color, int]:
        """Both sides' time left at ``now_ms``."""
        return {BLACK: self.remaining(BLACK, now_ms), WHITE: self.remaining(WHITE, now_ms)}
