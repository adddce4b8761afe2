"""Buzzer patterns, played on the injected clock without blocking the main loop.

A pattern is a tuple of ``(hz, ms)`` steps (``hz`` 0: silence). :class:`SoundPlayer`
starts a pattern and, each time :meth:`SoundPlayer.update` is called (every main-loop
step), sets the tone the pattern has reached; :meth:`SoundPlayer.next_change` says when
that is next. A new pattern replaces one still playing.

>>> from crownhead.hal.clock import VirtualClock
>>> from crownhead.sim.buzzer import SimBuzzer
>>> clock = VirtualClock()
>>> buzzer = SimBuzzer(clock)
>>> player = SoundPlayer(buzzer, clock)
>>> player.play("machine")
>>> for t in (0, 80, 140, 260):
...     clock.set(t); player.update()
>>> buzzer.tones
[(0, 880), (80, None), (140, 1175), (260, None)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from crownhead.hal.buzzer import Buzzer
from crownhead.hal.clock import Clock

if TYPE_CHECKING:
    from crownhead.firmware.app.outputs import BoardPort
    from crownhead.firmware.app.snapshot import Snapshot
    from crownhead.firmware.events import Event

__all__ = ["PATTERNS", "SoundPlayer", "BoardSound", "FLAG_WARNING_MS"]

#: name -> ((hz, ms), ...); told apart by pitch and rhythm.
PATTERNS: dict[str, tuple[tuple[int, int], ...]] = {
    # Low and doubled: something is wrong on the board.
    "illegal": ((220, 150), (0, 80), (220, 150)),
    # Rising: the machine has chosen, its move is on the LEDs.
    "machine": ((880, 80), (0, 60), (1175, 120)),
    # One high tick a second while the running side has less than 10 s.
    "flag-near": ((1760, 40),),
    # Falling, long: a flag fell.
    "flag": ((440, 200), (0, 80), (330, 200), (0, 80), (220, 400)),
    # A short rising arpeggio: the game is over.
    "game-over": ((523, 150), (659, 150), (784, 300)),
}

#: The running side's last seconds, when the flag warning ticks.
FLAG_WARNING_MS = 10_000


class SoundPlayer:
    """Plays :data:`PATTERNS` on a buzzer (see the module docstring)."""

    def __init__(self, buzzer: Buzzer, clock: Clock) -> None:
        self.buzzer = buzzer
        self.clock = clock
        self._steps: tuple[tuple[int, int], ...] = ()
        self._start = 0
        self._index = -1
        self.played: list[str] = []

    def play(self, name: str) -> None:
        self._steps = PATTERNS[name]
        self._start = self.clock.now_ms()
        self._index = -1
        self.played.append(name)
        del self.played[:-100]
        self.update()

    def update(self, now: int | None = None) -> None:
        now = self.clock.now_ms() if now is None else now
        if not self._steps:
            return
        t = self._start
        for i, (hz, ms) in enumerate(self._steps):
            if now < t + ms:
                if i != self._index:
                    self._index = i
                    self.buzzer.tone(hz or None)
                return
            t += ms
        self._steps = ()
        self._index = -1
        self.buzzer.tone(None)

    def next_change(self) -> int | None:
        if not self._steps:
            return None
        t = self._start
        for _hz, ms in self._steps[: self._index + 1]:
            t += ms
        return t

    def close(self) -> None:
        self._steps = ()
        self.buzzer.close()


_ILLEGAL_WARNINGS = frozenset({"illegal-move", "touch-move", "forced-capture", "unplayable-piece"})


class BoardSound:
    """The board's events and game clock as buzzer patterns: an output that polls (the
    ticks of a flag about to fall) and asks the board (its port) only for the time and clock."""

    def __init__(self, player: SoundPlayer) -> None:
        self.player = player
        self.app: BoardPort | None = None
        self._tick: int | None = None

    def attach(self, app: BoardPort) -> BoardSound:
        """Become one of ``app``'s outputs (it closes the buzzer) and a source (the ticks
        of a flag about to fall)."""
        self.app = app
        app.add_output(self)
        return self

    #: Driven by this loop's events and its own deadlines alone: nothing from another
    #: thread, so the loop may sleep until the next thing due (App.run).
    wakes = True

    def next_deadline(self) -> int | None:
        """The next tone change, or the next second of a flag about to fall."""
        times = [self.player.next_change()]
        app = self.app
        if app is not None:
            now = app.clock.now_ms()
            state = app.clock_state(now)
            if state is not None:
                black, white, running, paused, flag = state
                left = black if running == "black" else white if running == "white" else None
                if left is not None and not paused and not flag and left > 0:
                    # The next whole second down, within the warning's last 10 s.
                    times.append(
                        now + max(1, left - FLAG_WARNING_MS) if left > FLAG_WARNING_MS else now + (left - 1) % 1000 + 1
                    )
        due = [t for t in times if t is not None]
        return min(due) if due else None

    # -- the output protocol (firmware.app.outputs) ----------------------------------------

    def events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.sink(event)

    def snapshot(self, snapshot: Snapshot) -> None:
        pass  # the sounds are the events' and the clock's

    def deadline(self) -> int | None:
        return self.next_deadline()

    def sink(self, event: Event) -> None:
        kind = event.kind
        if kind in ("caution", "forfeit") or (kind == "warning" and getattr(event, "code", "") in _ILLEGAL_WARNINGS):
            self.player.play("illegal")
        elif kind == "computer-move":
            self.player.play("machine")
        elif kind == "flag":
            self.player.play("flag")
        elif kind == "game-over" and getattr(event, "reason", "") != "time":
            self.player.play("game-over")

    def poll(self, now: int) -> list[Event]:
        """Every step: a tick each second of a flag about to fall, the tone as it stands."""
        times = self.app.clock_state(now) if self.app is not None else None
        if times is not None:
            black, white, running, paused, flag = times
            left = black if running == "black" else white if running == "white" else None
            if left is not None and not paused and not flag and 0 < left <= FLAG_WARNING_MS:
                second = (left - 1) // 1000
                if second != self._tick:
                    self._tick = second
                    self.player.play("flag-near")
            else:
                self._tick = None
        self.player.update(now)
        return []

    def close(self) -> None:
        self.player.close()
