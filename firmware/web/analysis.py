"""The engine's live analysis on the board's pages (see :mod:`crownhead.firmware.app.analysis`).

:class:`AnalysisFeed` is one more output of the board: it hears each step's snapshot and,
when the analysis in it changed (a deeper depth, a new position, on or off), sends every
page one ``analysis`` line over the pages' hub, beside the link's lines; a page just
opened asks ``GET /api/analysis`` for the last one. It is a source of the main loop too:
the page's switch (``POST /api/analysis``, for a page that may command the board) is
applied there, through the application's command (:meth:`App.set_analysis`), which turns
it down in referee mode.

A line, as a page reads it::

    {"t": 5120, "event": "analysis", "on": true, "why": null,
     "analysis": {"ply": 3, "fen": "W:W...", "turn": "white", "depth": 12, "score": -35,
                  "black_score": 35, "black_expects": 0.587,
                  "words": "Black is better by 0.35 of a man",
                  "line": ["23-19", "16x23", ...], "tables": null, ...}}

``analysis`` is null while the analysis is off or has nothing yet for the position
standing; ``why`` says why it is off when it was asked for (a referee in charge).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Protocol, TypeGuard

from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import Event
from crownhead.firmware.link.protocol import encode_message
from crownhead.firmware.web.bridge import PageHub

__all__ = ["AnalysingBoard", "AnalysisFeed", "MAX_ASKED", "analysing_board"]

log = logging.getLogger(__name__)

#: Switch requests from the pages waiting for the main loop at most (more are refused).
MAX_ASKED = 8


class AnalysingBoard(Protocol):
    """What the feed needs of the application (``App`` is one): to add it as an output
    and a source, its clock, and the analysis switch with the reason it stays off."""

    analysis_wanted: bool

    @property
    def clock(self) -> Any: ...
    @property
    def analysis_refused(self) -> str | None: ...
    @property
    def review_refused(self) -> str | None: ...

    def add_output(self, output: Any) -> Any: ...
    def set_analysis(self, on: bool) -> str | None: ...


def analysing_board(board: object) -> TypeGuard[AnalysingBoard]:
    """Whether ``board`` has the live analysis (a board of a test's own may not)."""
    return all(hasattr(board, name) for name in ("analysis_wanted", "set_analysis", "analysis_refused", "add_output"))


class AnalysisFeed:
    """The analysis for the pages of ``hub`` (see the module): an output and a source of
    the application it is attached to (:meth:`attach`)."""

    def __init__(self, hub: PageHub) -> None:
        self.hub = hub
        self.app: AnalysingBoard | None = None
        #: The last state sent to the pages (replaced whole: the server's thread reads it
        #: for ``GET /api/analysis`` without a lock).
        self.latest: dict[str, Any] = {"on": False, "why": None, "analysis": None}
        self._lock = threading.Lock()
        self._asked: deque[tuple[bool, Future[dict[str, Any]]]] = deque()
        self._why: str | None = None
        self._snapshot: Snapshot | None = None

    def attach(self, app: AnalysingBoard) -> None:
        """Hear ``app``'s snapshots and act on it in its main loop."""
        self.app = app
        app.add_output(self)  # it polls, and wakes the loop itself when a page asks (wakes)

    # -- the server's thread ---------------------------------------------------------------

    def ask(self, on: bool) -> Future[dict[str, Any]] | None:
        """A page's switch: the analysis on or off, answered by the main loop's next step
        with the new state; None when too many are waiting."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if len(self._asked) >= MAX_ASKED:
                return None
            self._asked.append((on, future))
        self.hub.wake_board()
        return future

    # -- the main loop ---------------------------------------------------------------------

    #: Its poll needs no step but those it asks for (the hub's wake_board).
    wakes = True

    def poll(self, now: int) -> list[Event]:
        if not self._asked:
            return []  # the usual case, without taking the lock
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        app = self.app
        assert app is not None
        for on, future in asked:
            if not future.set_running_or_notify_cancel():
                continue
            self._why = app.set_analysis(on)
            self._send(now)
            future.set_result(self.latest)
        return []

    def events(self, events: Sequence[Event]) -> None:
        pass

    def snapshot(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        app = self.app
        self._send(app.clock.now_ms() if app is not None else 0)

    def deadline(self) -> int | None:
        return None

    def close(self) -> None:
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        for _on, future in asked:
            future.cancel()

    def _state(self) -> dict[str, Any]:
        app = self.app
        found = self._snapshot.analysis if self._snapshot is not None else None
        on = app is not None and app.analysis_wanted
        why = self._why if not on else app.analysis_refused if app is not None else None
        return {"on": on, "why": why, "analysis": found.to_json() if found is not None else None}

    def _send(self, now: int) -> None:
        state = self._state()
        if state == self.latest:
            return
        self.latest = state
        try:
            line = encode_message({"t": now, "event": "analysis", **state})
        except ValueError:
            log.error("web: the analysis does not fit one line")
            return
        # To every page (never as the reply to the page whose line is being answered), and
        # the game's answers the hub keeps stand: the analysis changes none of them.
        current, self.hub.current = self.hub.current, None
        try:
            self.hub.send(line, display_only=True)
        finally:
            self.hub.current = current
