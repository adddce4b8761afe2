"""The board's display, kept up to date off the main loop's path.

:class:`Painter` owns the display: the main loop hands it a :class:`Screen` (cheap: a
frozen value, compared with the last), a thread of its own lays it out, draws it and
sends it, at most ``max_fps`` times a second and only when the picture changed (a
running clock's second, a scroll step, a new message). The hand-over is a queue of
one: a newer screen replaces one not yet drawn, so nothing piles up behind a slow bus.

A display that cannot be reached is reported once (:meth:`Painter.poll` hands the
message to the main loop, which says it like any notice); the game goes on, the
display is tried again every ``retry_ms``, and when it answers it is drawn again and
that is said too.

:class:`BoardPanel` reads the snapshots it is given (whose move, the board's message
in short, the result, the match's score) and the game clock through the board's port, and
gives the painter a new screen when something changed. ``BoardPanel.score`` may give
another score line (a function; "" for the snapshot's match line).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from crownhead.firmware.display.render import Screen, draw, layout, next_change
from crownhead.firmware.events import Alert, Caution, Claim
from crownhead.hal.clock import Clock
from crownhead.hal.errors import HardwareError

if TYPE_CHECKING:
    from crownhead.firmware.app.application import App
    from crownhead.firmware.app.outputs import BoardPort
    from crownhead.firmware.app.snapshot import Snapshot
    from crownhead.firmware.events import ClockState, Event
    from crownhead.hal.display import Display

__all__ = ["Painter", "BoardPanel", "short_message", "attach_board_parts"]

log = logging.getLogger(__name__)


class Painter:
    """Draws :class:`Screen` values on a :class:`~crownhead.hal.display.Display` (see the module doc).

    ``background=False`` draws in the caller's thread when :meth:`pump` is called
    (tests, on a virtual clock); otherwise a daemon thread does it.
    """

    def __init__(
        self,
        display: Display,
        clock: Clock,
        *,
        max_fps: float = 4.0,
        retry_ms: int = 5000,
        background: bool = True,
    ) -> None:
        self.display = display
        self.clock = clock
        self.min_interval = max(1, int(1000 / max_fps))
        self.retry_ms = retry_ms
        self.background = background
        self._cond = threading.Condition()
        self._wanted: Screen | None = None  # the queue of one
        self._screen: Screen | None = None
        self._shown: tuple[object, ...] | None = None
        self._last_frame: int | None = None
        self._fault: str | None = None
        self._retry_at = 0
        self._messages: list[str] = []
        self._stop = False
        self.frames = 0
        self.faults = 0
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._run, name="crownhead-display", daemon=True)
            self._thread.start()

    # -- the main loop's side ----------------------------------------------------------

    def set(self, screen: Screen) -> None:
        """Show ``screen`` from now on (replacing one not yet drawn)."""
        with self._cond:
            self._wanted = screen
            self._cond.notify()

    def poll(self) -> list[str]:
        """What to tell people about the display since the last poll (lost, back)."""
        with self._cond:
            out, self._messages = self._messages, []
        return out

    @property
    def has_news(self) -> bool:
        """Whether :meth:`poll` has something (read without the lock: a message found
        one step late is no harm, and every step asks)."""
        return bool(self._messages)

    @property
    def working(self) -> bool:
        return self._fault is None

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=2)
        try:
            self.display.close()
        except Exception:  # noqa: BLE001 - closing the rest matters more
            log.exception("could not close the display")

    # -- drawing -------------------------------------------------------------------------

    def pump(self, now: int | None = None) -> int | None:
        """Draw what is due at ``now``; returns when to come back (None: on the next screen)."""
        now = self.clock.now_ms() if now is None else now
        with self._cond:
            if self._wanted is not None:
                self._screen, self._wanted = self._wanted, None
            screen = self._screen
        if screen is None:
            return None
        if self._fault is not None and now < self._retry_at:
            return self._retry_at
        if self._last_frame is not None and now - self._last_frame < self.min_interval:
            return self._last_frame + self.min_interval
        items = layout(screen, now)
        key = tuple(items)
        if key != self._shown or self._fault is not None:
            image = draw(items, (self.display.width, self.display.height))
            try:
                show: Callable[..., None] = self.display.show
                if hasattr(self.display, "lines"):
                    show(image, tuple(item.text for item in items))
                else:
                    show(image)
            except (HardwareError, OSError) as exc:
                self._lost(str(exc), now)
                return self._retry_at
            self._shown = key
            self._last_frame = now
            self.frames += 1
            if self._fault is not None:
                self._fault = None
                self._say("the display answers again and shows the game")
        return next_change(screen, now)

    def _lost(self, reason: str, now: int) -> None:
        self.faults += 1
        self._retry_at = now + self.retry_ms
        if self._fault is None:
            self._fault = reason
            self._shown = None
            self._say(f"the display cannot be reached ({reason}); the game goes on without it")
            log.error("display: %s", reason)

    def _say(self, message: str) -> None:
        with self._cond:
            self._messages.append(message)

    def _run(self) -> None:
        due: int | None = None
        while True:
            with self._cond:
                if self._stop:
                    return
                if self._wanted is None:
                    timeout = None if due is None else max(0.0, (due - self.clock.now_ms()) / 1000)
                    self._cond.wait(timeout)
                if self._stop:
                    return
            try:
                due = self.pump()
            except Exception:  # a drawing bug must not take the board down
                log.exception("display thread")
                due = self.clock.now_ms() + self.retry_ms


def short_message(snap: Snapshot) -> str:
    """The board's message in a few words ("crown 1", "put back 22", "caution: forced capture"),
    from a snapshot: the squares come from its typed conditions."""
    if snap.resuming:
        return "set up the saved game"
    if snap.setup is not None and snap.setup.cause == "new-game":
        return "set up the pieces"
    if snap.resign_asked is not None:
        return f"{snap.resign_asked} resigns? again"
    condition = snap.condition
    if condition is not None:
        if condition.code == "forced-capture":
            return "caution: forced capture" if snap.shown.referee_mode else "a capture is compulsory"
        if condition.code == "continue-capture":
            return "jump on"
        if condition.code == "remove-captured" and condition.take_off:
            return "take off " + " ".join(map(str, condition.take_off))
        if condition.put_back:
            return "put back " + " ".join(map(str, condition.put_back))
        if condition.take_off:
            return "take off " + " ".join(map(str, condition.take_off))
        return condition.code.replace("-", " ")
    if snap.crown is not None:
        return f"crown {snap.crown}"
    if snap.touched is not None:
        return f"touched: play {snap.touched}"
    offer = snap.offer
    if offer is not None:
        return f"{offer.side} offers a draw" if offer.side is not None else "draw offered (by ?)"
    if snap.expected is not None and snap.result is None:
        return f"play {snap.expected.pdn()}"
    urls = snap.shown.page_urls
    if urls and snap.ply == 0 and snap.result is None:
        # Before the first move, nothing else to say: how to reach the board's page.
        address = urls[0].removeprefix("http://").rstrip("/")
        pin = snap.shown.page_pin
        return f"{address} PIN {pin}" if pin and " " not in pin else address
    if snap.analysis is not None and snap.result is None:
        return snap.analysis.brief  # the live analysis, when on and nothing else is to say
    return ""


#: An alert in a few words, by its code (:data:`crownhead.firmware.events.ALERT_CODES`).
ALERT_WORDS = {
    "pin-guessing": "someone is guessing the page's PIN",
    "chat": "a chat line: see the page",
    "challenge": "challenged: draw accepts",
}

_REASONS = {
    "no-moves": "no moves",
    "resign": "resigned",
    "agreement": "agreed",
    "time": "on time",
    "forty-moves": "40 moves",
    "repetition": "repetition",
}


class BoardPanel:
    """The board's state on a :class:`Painter`: an output that hears every event and
    snapshot and polls every step (it looks at most every ``check_ms``, and at once after
    an event or a new snapshot), handing over a new screen on change. It reads the game
    from the snapshots it is given, and asks the board (its
    :class:`~crownhead.firmware.app.outputs.BoardPort`) only for the game clock at an instant.

    ``clock_times`` returns the game clock's :class:`~crownhead.firmware.events.clock.ClockState`
    at an instant, or None without one (default: the port's, the referee's or the board clock).
    """

    def __init__(
        self,
        painter: Painter,
        *,
        check_ms: int = 250,
        clock_times: Callable[[BoardPort, int], ClockState | None] | None = None,
    ) -> None:
        self.painter = painter
        self.check_ms = check_ms
        self.clock_times = clock_times or referee_clock
        #: Another score line than the snapshot's match line ("" for that one).
        self.score: Callable[[], str] = lambda: ""
        self.app: BoardPort | None = None
        #: The last snapshot heard (None before the first).
        self.seen: Snapshot | None = None
        self._next = 0
        self._screen: Screen | None = None
        self._note = ""
        self._note_ply = -1
        self._due: int | None = None

    def attach(self, app: BoardPort) -> BoardPanel:
        """Become one of ``app``'s outputs (it closes the panel) and a source (the
        painter's news)."""
        self.app = app
        app.add_output(self)  # it polls (the painter's news)
        return self

    # -- the output protocol (firmware.app.outputs) ----------------------------------------

    def events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.sink(event)

    def snapshot(self, snapshot: Snapshot) -> None:
        self.seen = snapshot
        self._next = 0  # the game changed: look at the next step

    def deadline(self) -> int | None:
        return None if self.painter.background else self._due

    def stepped(self, now: int, snapshot: Snapshot) -> None:
        """The step is over: a new snapshot is drawn in the step that made it."""
        if now >= self._next:
            self.refresh(now)

    def sink(self, event: Event) -> None:
        # A caution, a claim refused, an alert: said until the game moves on.
        if isinstance(event, Caution):
            self._note = f"caution: {event.code.replace('-', ' ')}"
            self._note_ply = self.seen.ply if self.seen is not None else -1
        elif isinstance(event, Claim) and not event.valid:
            self._note = "no draw to claim"
            self._note_ply = self.seen.ply if self.seen is not None else -1
        elif isinstance(event, Alert):
            # What it is, in a few words, by its code: the sentence is for people.
            self._note = ALERT_WORDS.get(event.code, event.code.replace("-", " "))
            self._note_ply = self.seen.ply if self.seen is not None else -1
        self._next = 0  # something happened: look now
        self.refresh(event.t)

    def poll(self, now: int) -> list[Event]:
        if now >= self._next:
            self.refresh(now)
        if not self.painter.background and self._due is not None and now >= self._due:
            self._due = self.painter.pump(now)  # drawn in this thread: a second, a retry
        if not self.painter.has_news:
            return []
        from crownhead.firmware.events import Notice

        return [Notice(now, message) for message in self.painter.poll()]

    def refresh(self, now: int) -> None:
        snap = self.seen
        if snap is None:
            return
        self._next = now + self.check_ms
        times = self.clock_times(self.app, now) if self.app is not None else snap.clock
        screen = self.screen(snap, times, now)
        previous = self._screen
        if previous is not None and _same(previous, screen):
            return
        if previous is not None and previous.message == screen.message:
            screen = _with_since(screen, previous.since)
        self._screen = screen
        self.painter.set(screen)
        if not self.painter.background:
            self._due = self.painter.pump(now)

    def screen(self, snap: Snapshot, times: ClockState | None, now: int) -> Screen:
        """What the display shows of ``snap``, with the game clock ``times`` at ``now``."""
        result = snap.result if not snap.resuming else None
        turn = "" if result is not None else f"{snap.turn.name.title()} to move"
        result_text = ""
        if result is not None:
            words = {"1-0": "Black wins", "0-1": "White wins"}.get(result.score, "Draw")
            result_text = f"{words}, {_REASONS.get(result.reason, result.reason)}"
        message = short_message(snap)
        score = self.score() or snap.shown.match
        if self._note and snap.ply == self._note_ply:
            message = message or self._note  # what the board asks of the hands comes first
        elif snap.ply != self._note_ply:
            self._note = ""
        if times is None:
            return Screen(turn=turn, message=message, result=result_text, score=score, since=now)
        black, white, running, paused, flag = times
        return Screen(
            turn=turn,
            message=message,
            result=result_text,
            score=score,
            black_ms=black,
            white_ms=white,
            running=running,
            clock_at=now,
            paused=paused,
            flag=flag,
            since=now,
        )

    def close(self) -> None:
        self.painter.close()


def referee_clock(port: BoardPort, now: int) -> ClockState | None:
    """The game clock of the board (referee mode or ``--clock``) at ``now``, or None."""
    return port.clock_state(now)


def _same(a: Screen, b: Screen) -> bool:
    """Whether two screens show the same (clocks compared as they run, not when read)."""
    if (a.turn, a.message, a.result, a.score, a.running, a.paused, a.flag) != (
        b.turn,
        b.message,
        b.result,
        b.score,
        b.running,
        b.paused,
        b.flag,
    ):
        return False
    if not a.has_clock or not b.has_clock:
        return a.has_clock == b.has_clock
    return a.times(b.clock_at) == b.times(b.clock_at)


def _with_since(screen: Screen, since: int) -> Screen:
    from dataclasses import replace

    return replace(screen, since=since)


def attach_board_parts(app: App, config: Any, *, background: bool = True) -> list[Any]:
    """The display and the buzzer of ``app``'s hardware, attached to it as configured
    (as its outputs, which the application closes); returns them. ``background=False``
    draws in the main loop (a script run in virtual time)."""
    from crownhead.firmware.sound.player import BoardSound, SoundPlayer

    parts: list[Any] = []
    hardware = app.hardware
    if hardware.display is not None:
        dc = config.display
        painter = Painter(hardware.display, app.clock, max_fps=dc.max_fps, retry_ms=dc.retry_ms, background=background)
        panel = BoardPanel(painter)
        parts.append(panel.attach(app))
    buzzer = hardware.buzzer
    if buzzer is not None and (hardware.sim is None or config.sim.sound or config.buzzer.kind != "none"):
        if hardware.sim is not None and config.sim.sound and hasattr(buzzer, "ring"):
            buzzer.ring = _terminal_bell
        parts.append(BoardSound(SoundPlayer(buzzer, app.clock)).attach(app))
    return parts


def _terminal_bell() -> None:
    """The simulator's sound: the terminal's bell (what curses.beep sends)."""
    import sys

    sys.stdout.write("\a")
    sys.stdout.flush()
