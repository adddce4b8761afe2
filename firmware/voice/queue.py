"""The sentences waiting to be spoken: a warning first, no move dropped, chatter bounded.

Three priorities, by the sentence's kind: ``URGENT`` (warnings, rulings, the clock)
goes before everything waiting and interrupts chatter being spoken; ``MOVE`` (moves,
results, guidance, offers) waits its turn and is never dropped for room; ``CHATTER``
(a game begun, a notice, a request's answer such as the whole position) is dropped
first when the queue is full, and cut short by a warning. A newer warning replaces
the ones still waiting (the board's state moved on: the older ones are stale).

The queue is bounded (``limit``; moves alone may fill :data:`MOVE_LIMIT`, more than
a game has), and ``put`` never blocks, so the main loop hands a sentence over and goes
on; a worker thread takes them with :meth:`SpeechQueue.get`.

>>> q = SpeechQueue(limit=4)
>>> for text, kind in [("New game.", "info"), ("Black, 11 15.", "move"), ("Touch move.", "warning")]:
...     q.put(text, kind)
>>> [q.get(0) for _ in range(3)]
['Touch move.', 'Black, 11 15.', 'New game.']
"""

from __future__ import annotations

import enum
import threading
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Priority", "SpeechQueue", "priority_of", "MOVE_LIMIT"]

T = TypeVar("T")

#: Moves waiting at most: no game is this long, so no move is ever dropped in play.
MOVE_LIMIT = 256


class Priority(enum.IntEnum):
    URGENT = 0
    MOVE = 1
    CHATTER = 2


_PRIORITY = {
    "warning": Priority.URGENT,
    "ruling": Priority.URGENT,
    "clock": Priority.URGENT,
    "move": Priority.MOVE,
    "result": Priority.MOVE,
    "guidance": Priority.MOVE,
    "offer": Priority.MOVE,
    "info": Priority.CHATTER,
    "answer": Priority.CHATTER,
}


def priority_of(kind: str) -> Priority:
    """How urgent a sentence of ``kind`` is (an unknown kind is chatter).

    >>> priority_of("warning"), priority_of("move"), priority_of("answer")
    (<Priority.URGENT: 0>, <Priority.MOVE: 1>, <Priority.CHATTER: 2>)
    """
    return _PRIORITY.get(kind, Priority.CHATTER)


class SpeechQueue(Generic[T]):
    """Items by priority (see the module docstring); thread-safe, ``put`` never blocks."""

    def __init__(self, limit: int = 32) -> None:
        if limit < 3:
            raise ValueError(f"a speech queue holds 3 sentences at least, not {limit}")
        self.limit = limit
        self._lanes: dict[Priority, deque[T]] = {p: deque() for p in Priority}
        self._cond = threading.Condition()
        self._speaking: Priority | None = None
        self._interrupt = threading.Event()
        self._closed = False
        #: Sentences dropped for room or made stale, by priority (a move only past MOVE_LIMIT).
        self.dropped: dict[Priority, int] = {p: 0 for p in Priority}

    def __len__(self) -> int:
        with self._cond:
            return sum(len(lane) for lane in self._lanes.values())

    def put(self, item: T, kind: str) -> None:
        """Queue ``item``, a sentence of ``kind``; it may drop chatter, never block."""
        priority = priority_of(kind)
        with self._cond:
            if self._closed:
                return
            lanes = self._lanes
            if priority is Priority.URGENT:
                self.dropped[priority] += len(lanes[priority])
                lanes[priority].clear()
                if self._speaking is Priority.CHATTER:
                    self._interrupt.set()
            total = sum(len(lane) for lane in lanes.values())
            if total >= self.limit:
                if lanes[Priority.CHATTER]:
                    lanes[Priority.CHATTER].popleft()
                    self.dropped[Priority.CHATTER] += 1
                elif priority is Priority.CHATTER:
                    self.dropped[priority] += 1
                    return
            if priority is Priority.MOVE and len(lanes[priority]) >= MOVE_LIMIT:
                lanes[priority].popleft()
                self.dropped[priority] += 1
            lanes[priority].append(item)
            self._cond.notify()

    def get(self, timeout: float | None = None) -> T | None:
        """The most urgent item, waiting up to ``timeout`` seconds (None: until one comes
        or the queue is closed); None if none came, and always once the queue is closed
        (the board is switching off: what was waiting is not spoken). Marks what is being
        spoken."""
        with self._cond:
            while True:
                if self._closed:
                    self._speaking = None
                    return None
                for priority in Priority:
                    lane = self._lanes[priority]
                    if lane:
                        self._speaking = priority
                        self._interrupt.clear()
                        return lane.popleft()
                self._speaking = None
                if timeout == 0:
                    return None
                if not self._cond.wait(timeout):
                    return None

    def done(self) -> None:
        """The item last taken has been spoken (or cut short)."""
        with self._cond:
            self._speaking = None

    @property
    def interrupt(self) -> threading.Event:
        """Set when what is being spoken should stop for something more urgent."""
        return self._interrupt

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._interrupt.set()
            self._cond.notify_all()
