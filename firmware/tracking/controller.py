"""The controller: pumps the hardware into the follower, the same way for the sim and a Pi.

Raw switch events go through the debouncer; the accepted changes and the button presses
reach the follower (:mod:`crownhead.firmware.tracking.follower`: the tracker reads the board, the
session keeps the game) one by one in time order, each with the occupancy it produced,
and the timers (settle, patience, the clock's flag) run in between, so every event carries the time it
really happened. ``crownhead replay`` and the application's main loop both use it; the
application adds the LEDs and the UI on top.

>>> from crownhead.hal.clock import VirtualClock
>>> from crownhead.hal.debounce import Debouncer
>>> from crownhead.sim.board import SimBoard
>>> from crownhead.rules import WCDF, Game, Position
>>> clock = VirtualClock(0)
>>> board = SimBoard(clock, pieces={s: "b" for s in range(1, 13)} | {s: "w" for s in range(21, 33)})
>>> follower = Follower(Tracker(Game(None, WCDF)))
>>> ctl = Controller(board.sensors, board.buttons, follower, Debouncer(30, board.sensors.snapshot()), clock)
>>> _ = board.lift(11); clock.advance(500); _ = board.place(15)
500
>>> ctl.run_until(2000)
[MoveMade(t=830, ply=1, side='black', move='11-15', path=(11, 15), captures=())]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from crownhead.firmware.events import Event, Lights
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.picture import picture
from crownhead.firmware.tracking.tracker import Tracker, visible_roles  # noqa: F401 - Tracker: the doctest
from crownhead.hal.buttons import ButtonEvent
from crownhead.hal.clock import Clock
from crownhead.hal.debounce import Debouncer
from crownhead.hal.sensors import SensorEvent

__all__ = ["Controller"]


class _Polled(Protocol):
    def poll(self) -> list[Any]: ...


class Controller:
    """Hardware-agnostic pump: sensors -> debouncer -> follower, buttons -> follower.

    ``lights=True`` adds a :class:`~crownhead.firmware.events.Lights` event each time the LED
    picture changes (:func:`~crownhead.firmware.tracking.picture.picture`, the board's own; hint
    roles left out when the mode shows no hints).
    """

    def __init__(
        self,
        sensors: _Polled,
        buttons: _Polled | None,
        follower: Follower,
        debouncer: Debouncer,
        clock: Clock,
        *,
        lights: bool = False,
    ) -> None:
        self.sensors = sensors
        self.buttons = buttons
        self.follower = follower
        self.debouncer = debouncer
        self.clock = clock
        self.lights = lights
        self._occupancy = debouncer.state
        self._shown: dict[int, str] = {}
        self._started = False

    @property
    def occupancy(self) -> int:
        """The debounced occupancy last given to the follower."""
        return self._occupancy

    def step(self, now_ms: int | None = None) -> list[Event]:
        """Take in everything that happened up to ``now_ms`` (default: the clock's now)."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        events: list[Event] = []
        if not self._started:
            self._started = True
            if self.debouncer.state != self.follower.tracker.board:
                # The board as it stands when we start may differ from the game: it is
                # guided back to the game's position before anything is read as a move.
                self._occupancy = self.debouncer.state
                events += self._after(self.follower.restore(self._occupancy, now), now)
            else:
                events += self._after([], now)
        self._drain()
        changes = self.debouncer.update(now)
        presses: list[ButtonEvent] = self.buttons.poll() if self.buttons is not None else []
        inputs: list[tuple[int, int, int, SensorEvent | ButtonEvent]] = []
        # The debouncer gives same-instant changes in arrival order (a slide's "arrive,
        # then leave"); the index keeps that order, and a press at the same instant
        # comes after the switches.
        for i, change in enumerate(changes):
            inputs.append((change.t_ms, 0, i, change))
        for i, press in enumerate(presses):
            inputs.append((press.t_ms, 1, i, press))
        inputs.sort(key=lambda item: item[:3])
        follower = self.follower
        for t, _kind, _order, item in inputs:
            events += self._after(follower.tick(t), t)
            if isinstance(item, SensorEvent):
                b = 1 << (item.square - 1)
                self._occupancy = self._occupancy | b if item.occupied else self._occupancy & ~b
                events += self._after(follower.update(self._occupancy, t), t)
            else:
                # A long press says so; a plain one keeps the two-argument call.
                pressed = follower.press(item.name, t, True) if item.long else follower.press(item.name, t)
                events += self._after(pressed, t)
        events += self._after(follower.tick(now), now)
        return events

    def _drain(self) -> None:
        """Move the raw switch events waiting in the backend into the debouncer."""
        for raw in self.sensors.poll():
            self.debouncer.feed(raw)

    def next_deadline(self) -> int | None:
        """When :meth:`step` should run next for a pending change or timer; None if idle.

        Raw events waiting in the sensor backend are taken into the debouncer first, so a
        change made just now counts.
        """
        self._drain()
        times = [t for t in (self.debouncer.next_deadline(), self.follower.next_deadline()) if t is not None]
        return min(times) if times else None

    def run_until(self, until_ms: int) -> list[Event]:
        """Step through every deadline up to ``until_ms`` and then to it (a virtual clock)."""
        events: list[Event] = []
        set_time = getattr(self.clock, "set")
        while True:
            due = self.next_deadline()
            if due is None or due > until_ms:
                break
            set_time(max(due, self.clock.now_ms()))
            events += self.step()
        set_time(max(until_ms, self.clock.now_ms()))
        events += self.step()
        return events

    def _after(self, events: list[Event], t: int) -> list[Event]:
        """Append a Lights event when the picture changed (events keep their own times)."""
        if not self.lights:
            return events
        follower = self.follower
        shown = visible_roles(picture(follower.tracker, roles=follower.roles), follower.tracker.policy.hints)
        if shown != self._shown:
            self._shown = shown
            # The picture changed with the latest event (a move accepted at its settle
            # time), or with the input at ``t`` when there was no event.
            stamp = max(e.t for e in events) if events else t
            return events + [Lights.of(stamp, shown)]
        return events

    @property
    def shown(self) -> Mapping[int, str]:
        """The last LED picture reported (with ``lights=True``)."""
        return dict(self._shown)
