"""Driving a board application through time: the real-time loop and virtual time.

:class:`Loop` is the base of :class:`~crownhead.firmware.app.application.App` (through its
:class:`~crownhead.firmware.app.table.Table`): given the application's :meth:`Loop.step` and
:meth:`Loop.next_deadline`, :meth:`Loop.run` is the real-time main loop of the Pi, and
:meth:`Loop.run_for` and :meth:`Loop.run_until` step through every deadline of a
:class:`~crownhead.hal.clock.VirtualClock`, so that tests play whole games without sleeping.
"""

from __future__ import annotations

import threading

from crownhead.firmware.events import Event
from crownhead.hal.clock import Clock

__all__ = ["Loop", "IDLE_MS"]

#: The longest the real-time loop sleeps when it sleeps until the next deadline (see
#: Loop.run): a bound on a wake-up missed, and on an unwoken stop.
IDLE_MS = 100


class Loop:
    """The main loop of a board application, stepping by ``clock`` (see the module)."""

    def __init__(self, clock: Clock) -> None:
        #: The time the loop steps by (a :class:`~crownhead.hal.clock.VirtualClock` in tests).
        self.clock = clock
        self._woken = threading.Event()

    def step(self, now: int | None = None) -> list[Event]:
        """One iteration of the application (:meth:`App.step <firmware.app.application.App.step>`)."""
        raise NotImplementedError

    def next_deadline(self) -> int | None:
        """When :meth:`step` must run next; None if idle."""
        raise NotImplementedError

    def sleeps_until_due(self) -> bool:
        """Whether :meth:`run` may sleep until the next deadline (nothing else can change
        the board meanwhile)."""
        return False

    def wake(self) -> None:
        """Ask the real-time loop (:meth:`run`) for a step now; from any thread."""
        self._woken.set()

    def run(self, stop: threading.Event, poll_ms: int = 10, idle_ms: int = IDLE_MS) -> None:
        """The real-time main loop: step, then sleep until the next deadline or ``poll_ms``.

        ``poll_ms`` bounds how long a switch change waits in the backend's queue before the
        debouncer sees it (the scanners run in their own threads). When nothing else can
        change the board meanwhile (:meth:`sleeps_until_due`) it sleeps until the next
        deadline, at most ``idle_ms``, or until woken (:meth:`wake`): the same steps at the
        same deadlines, without a hundred wake-ups a second of an idle board. It sees
        ``stop`` within ``idle_ms`` (at once if whoever sets it wakes the loop too; a
        signal handler must not: the loop may hold the wake-up's lock when it runs).
        """
        while not stop.is_set():
            self._woken.clear()  # a wake-up during the step makes the next one at once
            self.step()
            now = self.clock.now_ms()
            due = self.next_deadline()
            limit = idle_ms if self.sleeps_until_due() else poll_ms
            wait = limit if due is None else max(0, min(limit, due - now))
            if wait:
                self._woken.wait(wait / 1000)

    def run_for(self, ms: int) -> list[Event]:
        """Virtual time only: step through every deadline for the next ``ms`` milliseconds."""
        return self.run_until(self.clock.now_ms() + ms)

    def run_until(self, until: int) -> list[Event]:
        """Virtual time only: step through every deadline up to ``until``, then to it."""
        set_time = getattr(self.clock, "set", None)
        if set_time is None:
            raise TypeError("run_until needs a VirtualClock")
        events: list[Event] = []
        for _ in range(100_000):
            due = self.next_deadline()
            if due is None or due > until:
                break
            set_time(max(due, self.clock.now_ms()))
            events += self.step()
        set_time(max(until, self.clock.now_ms()))
        events += self.step()
        return events
