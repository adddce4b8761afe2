"""The debouncer shared by every sensor backend, the simulator included.

Why 30 ms by default: a reed switch's own contact bounce is short (datasheets give
well under 1 ms), but a checkers piece is not a clean actuator. A magnet set down by
hand wobbles, skids across the edge of the switch's pull-in zone, and a piece slid
between squares passes through the zone boundary slowly; on hand-built reed boards
this chatter lasts a few ms to ~20 ms. 30 ms covers it with margin while keeping the
added latency far below what a player notices (~100 ms). It is configurable
(``[sensors] debounce_ms``) for boards with stronger or weaker magnets.

The debouncer is pure: it never reads a clock itself. Raw events go in with
:meth:`Debouncer.feed`; :meth:`Debouncer.update` is told the time and returns the
changes that have been stable for ``debounce_ms``, stamped with the instant they
became stable (raw change time + ``debounce_ms``). :meth:`Debouncer.next_deadline`
says when the next pending change will be decided, so a virtual clock can jump there.
"""

from __future__ import annotations

from collections.abc import Iterable

from crownhead.hal.clock import Clock
from crownhead.hal.sensors import SensorEvent, Sensors

__all__ = ["DEFAULT_DEBOUNCE_MS", "Debouncer", "DebouncedSensors"]

DEFAULT_DEBOUNCE_MS = 30


class Debouncer:
    """Per-square debouncing of raw occupancy changes.

    A square's new state is accepted only once its raw state has stayed the same for
    ``debounce_ms``; chatter shorter than that never shows. Feed events in time order.

    >>> d = Debouncer(30)
    >>> for t, occupied in ((0, True), (4, False), (9, True)):  # a piece set down, wobbling
    ...     d.feed(SensorEvent(15, occupied, t))
    >>> d.update(38), d.next_deadline()
    ([], 39)
    >>> d.update(39)
    [SensorEvent(square=15, occupied=True, t_ms=39)]
    """

    def __init__(self, debounce_ms: int = DEFAULT_DEBOUNCE_MS, initial: int = 0) -> None:
        if isinstance(debounce_ms, bool) or not isinstance(debounce_ms, int) or debounce_ms < 0:
            raise ValueError(f"debounce_ms must be an int >= 0, got {debounce_ms!r}")
        self.debounce_ms = debounce_ms
        self._state = initial
        self._raw = initial
        # square -> (time its raw state last changed, feed number of that change), only
        # for squares whose raw state differs from the stable one (a pending change).
        # The feed number breaks ties between changes that became stable at the same
        # instant: they come out in the order they arrived, not by square number.
        self._since: dict[int, tuple[int, int]] = {}
        self._fed = 0
        # Changes already decided by feed() (see there) but not yet returned by update(),
        # with the feed number of the raw change each began with.
        self._decided: list[tuple[SensorEvent, int]] = []

    @property
    def state(self) -> int:
        """The stable (debounced) occupancy."""
        return self._state

    @property
    def raw(self) -> int:
        """The latest raw occupancy fed in."""
        return self._raw

    @property
    def pending(self) -> int:
        """Squares whose raw state differs from the stable state, as a mask."""
        return self._raw ^ self._state

    def reset(self, state: int) -> None:
        """Forget everything pending and take ``state`` as stable (after a resync)."""
        self._state = self._raw = state
        self._since.clear()
        self._decided.clear()

    def feed(self, event: SensorEvent) -> None:
        """Take one raw change into account."""
        self._fed += 1
        bit = 1 << (event.square - 1)
        pending = self._since.get(event.square)
        if pending is not None and pending[0] + self.debounce_ms <= event.t_ms:
            # The pending change had lasted debounce_ms when this raw change came: it
            # is accepted, whether or not update() was called in between. This keeps
            # the outcome independent of how often the consumer calls update().
            since, order = self._since.pop(event.square)
            self._state ^= bit
            self._decided.append(
                (
                    SensorEvent(event.square, bool(self._state & bit), since + self.debounce_ms),
                    order,
                )
            )
        if bool(self._raw & bit) == event.occupied:
            # A repeated report of the current raw state does not restart the timer.
            return
        self._raw ^= bit
        if bool(self._state & bit) == event.occupied:
            self._since.pop(event.square, None)  # chattered back: nothing pending
        else:
            self._since[event.square] = (event.t_ms, self._fed)

    def feed_all(self, events: Iterable[SensorEvent]) -> None:
        for event in events:
            self.feed(event)

    def update(self, now_ms: int) -> list[SensorEvent]:
        """Accept the changes stable for ``debounce_ms`` by ``now_ms``.

        They come in time order; changes that became stable at the same instant come
        in the order their raw changes were fed (arrival order), so a slide whose two
        switches changed in the same millisecond keeps its "arrive, then leave" order.
        """
        due = [(square, t, order) for square, (t, order) in self._since.items() if t + self.debounce_ms <= now_ms]
        accepted, self._decided = self._decided, []
        for square, t, order in due:
            del self._since[square]
            bit = 1 << (square - 1)
            self._state ^= bit
            accepted.append((SensorEvent(square, bool(self._state & bit), t + self.debounce_ms), order))
        accepted.sort(key=lambda item: (item[0].t_ms, item[1]))
        return [event for event, _order in accepted]

    def next_deadline(self) -> int | None:
        """When :meth:`update` should next run to decide a pending change; None if idle."""
        if self._decided:
            return min(e.t_ms for e, _order in self._decided)
        if not self._since:
            return None
        return min(t for t, _order in self._since.values()) + self.debounce_ms


class DebouncedSensors:
    """A :class:`~crownhead.hal.sensors.Sensors` backend seen through a :class:`Debouncer`.

    The usual consumer-side plumbing in one place: drain the raw events, feed them,
    return the accepted changes. The stable state starts from the backend's snapshot.
    """

    def __init__(self, sensors: Sensors, clock: Clock, debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> None:
        self.sensors = sensors
        self.clock = clock
        # Drain first so events from before we started are not replayed on top of the
        # snapshot that already contains them.
        sensors.poll()
        self.debouncer = Debouncer(debounce_ms, initial=sensors.snapshot())

    @property
    def state(self) -> int:
        return self.debouncer.state

    def poll(self, now_ms: int | None = None) -> list[SensorEvent]:
        """Stable changes up to ``now_ms`` (default: the clock's now)."""
        self.debouncer.feed_all(self.sensors.poll())
        return self.debouncer.update(self.clock.now_ms() if now_ms is None else now_ms)

    def next_deadline(self) -> int | None:
        return self.debouncer.next_deadline()
