"""The board's outputs: one protocol, added to the application one way, closed by one stack.

Every output (the terminal's log lines, the display, the buzzer, a host link, the pages'
link, the hall's reporter) hears the same things the same way: each step's events, in
order, after the game was saved, and the step's :class:`~crownhead.firmware.app.snapshot.Snapshot`
when it changed (its revision). It says when it next wants a step (a tone to change, a
second to draw), may poll every step, hear the button presses first and hear that a
step is over (with its snapshot: what it shows of the step goes out in it), asks the
board only through its port (:class:`BoardPort`) and is closed with the application, in reverse order of adding, by one
:class:`~contextlib.ExitStack`: one lifecycle, as every gpiozero device has. An output
reads the game from the snapshot, never from the tracker (``tests/test_architecture.py``).

>>> from crownhead.firmware.events import Notice
>>> heard = []
>>> outputs = Outputs()
>>> _ = outputs.add(SinkOutput(heard.append))
>>> outputs.events([Notice(5, "hello")])
>>> heard
[Notice(t=5, message='hello')]
>>> outputs.close(); outputs.close()  # once is enough
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import Protocol, TypeVar

from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import ClockState, Event
from crownhead.hal.buttons import ButtonEvent
from crownhead.hal.clock import Clock

__all__ = ["BoardPort", "Output", "Outputs", "Poller", "SinkOutput", "SteppedOutput"]

log = logging.getLogger(__name__)


class Output(Protocol):
    """What every output of the board is (see the module)."""

    def events(self, events: Sequence[Event]) -> None:
        """A step's events, in order (the game already saved)."""

    def snapshot(self, snapshot: Snapshot) -> None:
        """The game as the step left it, when its revision changed."""

    def deadline(self) -> int | None:
        """When this output next wants a step (the board's ms), or None."""

    def close(self) -> None:
        """Stop: the application is closing."""


O = TypeVar("O", bound=Output)


class BoardPort(Protocol):
    """What an output may ask of the board, and all it may (no output reads the
    application otherwise: ``tests/test_architecture.py``): the time, the game clock at an
    instant (a screen's clock runs between snapshots), a step soon (from another thread),
    a word on the message line, and joining or leaving the board's outputs. The application (``App``) is one.

    An output joins one way: its ``attach(port)`` adds it (:meth:`add_output`). Besides
    the :class:`Output` protocol it may have ``poll(now)`` (called every step after the
    board was read, before the game is kept: it may act and returns the events its
    actions caused), ``on_press(press)`` (told of every button press first: False keeps
    it from the board) and ``wakes = True`` (its poll needs no step but those it asks for
    by :meth:`wake` and its deadline: the simulated board's loop may sleep until then)."""

    @property
    def clock(self) -> Clock: ...

    def clock_state(self, now: int) -> ClockState | None:
        """The game clock as shown at ``now``, or None without one."""

    def wake(self) -> None:
        """Ask for a step now (from any thread)."""

    def say(self, message: str, *, until: int | None = None) -> None:
        """Show ``message`` on the board's message line (the terminal's, every page's)."""

    def add_output(self, output: O, *, first: bool = False) -> O:
        """Join the board's outputs."""

    def remove_output(self, output: Output) -> None:
        """Leave them (it is not closed)."""


class SteppedOutput(Output, Protocol):
    """An output that also hears that a step is over (:meth:`stepped`): its snapshot and
    its events were given out and the LEDs lit, so that whatever it shows of that step
    (a page's view) goes out in that same step, never one late."""

    def stepped(self, now: int, snapshot: Snapshot) -> None:
        """The step at ``now`` is over (called every step), leaving ``snapshot``: the
        step's, even when its revision is the last one's (a new brightness, a blink)."""


class SinkOutput:
    """An output that gives every event to ``sink`` (a log, a test's list); closing it
    calls ``on_close`` if given."""

    def __init__(self, sink: Callable[[Event], None], on_close: Callable[[], None] | None = None) -> None:
        self.sink = sink
        self._on_close = on_close

    def events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.sink(event)

    def snapshot(self, snapshot: Snapshot) -> None:
        pass

    def deadline(self) -> int | None:
        return None

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()


class Poller:
    """A part of the board that hears nothing but acts (a link's lines, a page's requests,
    a game far apart's watch, the phone's hands), joined as every output is: ``poll(now)``
    every step (the events its actions caused), ``deadline()`` when it wants a step,
    ``on_press(press)`` told of every button press first (False keeps it from the board),
    ``wakes``: its poll needs no step but those it asks for (by the port's ``wake`` and
    its deadline), so the simulated board's loop may sleep. Closing the board does not
    close the part: whoever made it closes it (and takes it off with ``remove_output``).

    >>> from crownhead.firmware.events import Notice
    >>> outputs = Outputs()
    >>> joined = outputs.add(Poller(lambda now: [Notice(now, "a line came")], wakes=True))
    >>> outputs.poll(5), outputs.all_wake, outputs.deadline()
    ([Notice(t=5, message='a line came')], True, None)
    """

    def __init__(
        self,
        poll: Callable[[int], list[Event]] | None = None,
        *,
        deadline: Callable[[], int | None] | None = None,
        on_press: Callable[[ButtonEvent], bool | None] | None = None,
        wakes: bool = False,
    ) -> None:
        self._poll = poll
        self._deadline = deadline
        self._on_press = on_press
        # A part that does not poll never keeps the loop awake.
        self.wakes = wakes or poll is None

    def poll(self, now: int) -> list[Event]:
        return self._poll(now) if self._poll is not None else []

    def on_press(self, press: ButtonEvent) -> bool | None:
        return self._on_press(press) if self._on_press is not None else None

    def events(self, events: Sequence[Event]) -> None:
        pass

    def snapshot(self, snapshot: Snapshot) -> None:
        pass

    def deadline(self) -> int | None:
        return self._deadline() if self._deadline is not None else None

    def close(self) -> None:
        pass


class Outputs:
    """The application's outputs, in the order added; closed in reverse, once."""

    def __init__(self) -> None:
        self._outputs: list[Output] = []
        self._added: list[Output] = []  # in the order added: the order they close in, reversed
        self._stack = ExitStack()
        self._revision: int | None = None
        self._last: Snapshot | None = None

    def __iter__(self) -> Iterator[Output]:
        return iter(tuple(self._outputs))

    def add(self, output: O, *, first: bool = False) -> O:
        """Add ``output`` (``first``: before the others, to hear events before them). One
        added while the board runs hears the last snapshot at once: the game as it stands."""
        if first:
            self._outputs.insert(0, output)
        else:
            self._outputs.append(output)
        self._added.append(output)
        self._stack.callback(_closing, output)
        if self._last is not None:
            try:
                output.snapshot(self._last)
            except Exception:  # noqa: BLE001 - as for events
                log.exception("output %s failed", type(output).__name__)
        return output

    def remove(self, output: Output) -> None:
        """Take ``output`` off (a link let go of the board): it hears nothing more, and is
        not closed with the others (whoever removes it closes it if need be). Nothing of
        it is kept, however many come and go.

        >>> from crownhead.firmware.events import Notice
        >>> outputs, heard = Outputs(), []
        >>> sink = outputs.add(SinkOutput(heard.append))
        >>> outputs.remove(sink); outputs.events([Notice(5, "gone")]); heard, list(outputs)
        ([], [])
        """
        self._outputs = [o for o in self._outputs if o is not output]
        self._added = [o for o in self._added if o is not output]
        stack, self._stack = self._stack, ExitStack()
        stack.pop_all()  # its callbacks dropped, never called
        for kept in self._added:
            self._stack.callback(_closing, kept)

    def events(self, events: Sequence[Event]) -> None:
        """Give ``events`` to every output; one that fails does not stop the others or the board."""
        if not events:
            return
        for output in tuple(self._outputs):
            try:
                output.events(events)
            except BrokenPipeError:
                raise
            except Exception:  # a broken log or link must not stop the board
                log.exception("output %s failed", type(output).__name__)

    def snapshot(self, snapshot: Snapshot) -> None:
        """Give ``snapshot`` to every output, if its revision is new."""
        if snapshot.revision == self._revision:
            return
        self._revision = snapshot.revision
        self._last = snapshot
        for output in tuple(self._outputs):
            try:
                output.snapshot(snapshot)
            except Exception:  # noqa: BLE001 - as for events
                log.exception("output %s failed", type(output).__name__)

    def poll(self, now: int) -> list[Event]:
        """Poll every output that has a ``poll`` (see :class:`BoardPort`), one joined
        meanwhile too; the events their actions caused, in order. One that fails does not
        stop the others."""
        events: list[Event] = []
        polled: list[Output] = []
        # One joined by another's poll (the problem mode, made at a link's command) is
        # polled in the same step, after the others.
        while fresh := [o for o in self._outputs if not any(o is p for p in polled)]:
            for output in fresh:
                polled.append(output)
                poll = getattr(output, "poll", None)
                if poll is None:
                    continue
                try:
                    events += poll(now)
                except Exception:  # a broken link must not stop the board
                    log.exception("output %s failed", type(output).__name__)
        return events

    def on_press(self, press: ButtonEvent) -> bool:
        """Tell the outputs that listen (``on_press``) of ``press``; False when one kept it
        from the board (the others after it do not hear it)."""
        for output in tuple(self._outputs):
            listener = getattr(output, "on_press", None)
            if listener is not None and listener(press) is False:
                return False
        return True

    @property
    def all_wake(self) -> bool:
        """Whether every output that polls wakes the loop itself (``wakes``)."""
        return all(getattr(o, "wakes", False) for o in self._outputs if getattr(o, "poll", None) is not None)

    def stepped(self, now: int, snapshot: Snapshot) -> None:
        """Tell every output that has a ``stepped`` (a :class:`SteppedOutput`) that the step is over."""
        for output in tuple(self._outputs):
            stepped = getattr(output, "stepped", None)
            if stepped is None:
                continue
            try:
                stepped(now, snapshot)
            except Exception:  # noqa: BLE001 - as for events
                log.exception("output %s failed", type(output).__name__)

    def deadline(self) -> int | None:
        """The soonest step any output wants, or None."""
        due = [t for t in (output.deadline() for output in tuple(self._outputs)) if t is not None]
        return min(due) if due else None

    def close(self) -> None:
        """Close every output, the last added first (each once, whatever the others do)."""
        self._outputs = self._added = []
        self._stack.close()


def _closing(output: Output) -> None:
    try:
        output.close()
    except Exception:  # noqa: BLE001 - the rest of the shutdown matters more
        log.exception("could not close output %s", type(output).__name__)
