"""The application's games on disk: the state directory, whatever the disk does.

:class:`GameKeeper` saves the unfinished game (``current.json``) at every move, writes
each finished game as PDN, and finds the game to resume at a start. It never raises
over the disk: when the state directory fails (full, read-only, gone) it says so once
(a :class:`~crownhead.firmware.events.Notice`), the board plays on, and every later save tries
again; finished games wait in memory, oldest first, and are written before the game in
progress is saved again, so that nothing is overwritten unwritten. What the record keeps
of how a game is played, so that it resumes that way, is :mod:`crownhead.firmware.app.resume`.

>>> import tempfile
>>> from crownhead.firmware.storage.store import GameRecord, GameStore
>>> from crownhead.rules import WCDF
>>> said = []
>>> with tempfile.TemporaryDirectory() as folder:
...     keeper = GameKeeper(GameStore(folder), said.append)
...     keeper.acquire(0)
...     keeper.save(GameRecord.new(black="Ann", white="Bob", rules=WCDF), 0), keeper.load(0).black
...     keeper.release()
([], 'Ann')
>>> keeper.stopped_text(), said
('stopped: the game is saved and the LEDs are off', [])
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from crownhead.firmware.events import Event, GameSaved, Notice
from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError, StoreLockedError

__all__ = ["GameKeeper"]

log = logging.getLogger(__name__)


class GameKeeper:
    """The games of ``store`` (None: nothing is kept); ``notify`` receives what it has to say."""

    #: Finished games kept in memory at most while the disk fails (the oldest go first).
    UNWRITTEN_LIMIT = 64

    def __init__(self, store: GameStore | None, notify: Callable[[Event], None]) -> None:
        self.store = store
        self.notify = notify
        #: Why games are not being kept (the state directory failed), None while they are.
        self.not_kept: str | None = None
        #: The finished game last queued to be written (a game ends once).
        self.written: GameRecord | None = None
        # Finished games whose PDN is not written yet, oldest first: written before the
        # game in progress is saved again, so that nothing is overwritten unwritten.
        self.unwritten: list[GameRecord] = []
        #: Finished games' full PDN (a refereed game's record), by record id, until written.
        self.full_pdn: dict[str, str] = {}
        # An unreadable current.json that could not be moved aside: nothing overwrites it.
        self.aside_pending = False

    @property
    def kept(self) -> bool:
        """Whether everything is on disk (the game in progress and every finished one)."""
        return self.not_kept is None and not self.unwritten

    def acquire(self, now: int) -> None:
        """Claim the state directory; another board application on it is an error."""
        if self.store is None:
            return
        try:
            self.store.acquire()
        except StoreLockedError:
            raise  # another board application runs on this directory: never two
        except StoreError as exc:
            # Read-only, full, missing, not ours: the board plays all the same.
            self.failed(now, exc)

    def release(self) -> None:
        if self.store is not None:
            self.store.release()

    def load(self, now: int) -> GameRecord | None:
        """The unfinished game in the state directory, if there is one to resume."""
        if self.store is None:
            return None
        try:
            record = self.store.load_current()
        except StoreLockedError:
            raise
        except StoreError as exc:
            try:
                aside = self.store.set_aside()
            except StoreError as why:
                self.aside_pending = True
                self.notify(
                    Notice(
                        now, f"{exc}; a new game begins ({why}: it is kept as it is, and moved aside when it can be)"
                    )
                )
            else:
                self.notify(Notice(now, f"{exc}; the file was kept as {aside} and a new game begins"))
            return None
        if record is not None and record.finished:
            # A crash between writing the PDN and forgetting the game: finish again (or
            # as soon as the disk takes it).
            self.unwritten.append(record)
            for event in self.flush(now):
                self.notify(event)
            return None
        if record is not None:
            self._forget_result(record, now)
        return record

    def _forget_result(self, record: GameRecord, now: int) -> None:
        """An unfinished game with a finished file: its result was taken back and the power
        went before the file was removed (see :meth:`reopen`). The file goes now."""
        assert self.store is not None
        try:
            self.store.withdraw(record)
        except StoreError as exc:
            self.failed(now, exc)

    def save(self, record: GameRecord, now: int) -> list[GameSaved]:
        """Save the game in progress (after the finished games waiting for the disk)."""
        if self.store is None:
            return []
        saved = self.flush(now)
        if self.unwritten or self.aside_pending or not self.store.locked:
            return saved  # the disk failed just now: what is older goes first
        try:
            self.store.save_current(record)
        except StoreError as exc:
            self.failed(now, exc)
        else:
            self.ok(now)
        return saved

    def finish(self, record: GameRecord, now: int, full_pdn: Callable[[], str] | None = None) -> list[GameSaved]:
        """Write a finished game as PDN (``full_pdn``: the referee's record of it), once."""
        if self.store is None:
            return []
        if record == self.written:
            return self.flush(now)  # already queued (closing after the game ended)
        self.written = record
        self.unwritten.append(record)
        if full_pdn is not None:
            # One game, one record: the store keeps the referee's, with everything.
            self.full_pdn[record.id] = full_pdn()
        return self.flush(now)

    def reopen(self, record: GameRecord, now: int) -> list[GameSaved]:
        """The result of ``record``'s game was taken back and the game goes on (``record``
        is the game in progress again): saved as such, then its finished file is removed,
        so that no listing, export or PDN keeps a result the game no longer has. A finished
        record still waiting for the disk is never written."""
        if self.store is None:
            return []
        self.written = None
        kept = [r for r in self.unwritten if r.id != record.id]
        for lost in self.unwritten:
            if lost.id == record.id:
                self.full_pdn.pop(lost.id, None)
        self.unwritten = kept
        saved = self.save(record, now)
        if self.not_kept is None and not self.unwritten:
            # Only once the game in progress is on disk: a crash in between keeps it (and
            # the next start removes the file, :meth:`load`).
            self._forget_result(record, now)
        return saved

    def put_away(self, record: GameRecord, now: int) -> list[GameSaved]:
        """The game before a new one: kept as PDN if it had moves and had not ended."""
        if self.store is None:
            return []
        if record.finished:
            return self.flush(now)  # already queued when it ended
        if not record.moves:
            if not self.unwritten and not self.aside_pending and self.store.locked:
                try:
                    self.store.clear_current()
                except StoreError as exc:
                    self.failed(now, exc)
            return []
        self.unwritten.append(record.abandoned())
        return self.flush(now)

    def flush(self, now: int) -> list[GameSaved]:
        """Claim the directory, move a bad file aside, write the finished games waiting."""
        store = self.store
        if store is None:
            return []
        saved: list[GameSaved] = []
        try:
            if not store.locked:
                store.acquire()
            if self.aside_pending:
                aside = store.set_aside()
                self.aside_pending = False
                if aside is not None:
                    self.notify(Notice(now, f"the unreadable game file was kept as {aside}"))
            while self.unwritten:
                record = self.unwritten[0]
                path = store.finish(record, self.full_pdn.get(record.id))
                self.unwritten.pop(0)
                self.full_pdn.pop(record.id, None)
                saved.append(GameSaved(now, record.result or "*", str(path)))
        except StoreError as exc:
            self.failed(now, exc)
            if len(self.unwritten) > self.UNWRITTEN_LIMIT:
                # Not the oldest: it may be the one current.json still holds from before
                # the disk failed, which nothing may lose. The others were never on disk.
                lost = self.unwritten.pop(1)
                log.error("game %s dropped: %d finished games wait for the disk", lost.id, len(self.unwritten))
            return saved
        if saved:
            self.ok(now)  # something was written: the disk takes games again
        return saved

    def failed(self, now: int, exc: StoreError) -> None:
        """Say once that games are not being kept, and why."""
        if self.not_kept is not None:
            return
        self.not_kept = str(exc)
        message = (
            f"games are not being kept: {exc}; the board plays on and tries again at every move (see docs/install.md)"
        )
        log.error("%s", message)
        self.notify(Notice(now, message))

    def ok(self, now: int) -> None:
        if self.not_kept is None:
            return
        self.not_kept = None
        assert self.store is not None
        self.notify(Notice(now, f"games are kept again in {self.store.directory}"))

    def stopped_text(self) -> str:
        """The last line: whether the game really is on disk."""
        if self.store is None:
            return "stopped: the LEDs are off (this board keeps no games)"
        if self.not_kept is None and not self.unwritten and not self.aside_pending:
            return "stopped: the game is saved and the LEDs are off"
        unwritten = len(self.unwritten)
        also = f"; {unwritten} finished game{'s' if unwritten != 1 else ''} not written" if unwritten else ""
        return f"stopped: the LEDs are off, but the game is NOT saved ({self.not_kept or 'the state directory failed'}{also})"
