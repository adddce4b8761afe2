"""The self-test: walk every square and every LED colour, report what is broken.

1. Electrical self-checks of the sensor backend (a shorted matrix column, a broken
   shift-register chain, a serial board not answering).
2. Clear the board: squares still reading occupied have a switch stuck closed.
3. Walk the squares: each in turn is lit and a piece is placed on it and lifted. A
   square whose switch never closes, that answers as another square, or that stays
   closed after the lift is reported.
4. Every LED colour in turn (red, green, blue, white) on all squares; the person
   watching names the squares that stay dark.
5. The display, when one is configured: a test pattern (a frame, a checkerboard and
   the words SELF TEST) is drawn and the person confirms it; a display that cannot be
   reached is a fault.
6. The buzzer, when one is configured: every pattern is played and the person
   confirms hearing them.
7. The buttons: each is listed as it is pressed (with short or long for the timed
   ones), until every button has been pressed or the time is up; the ones never
   pressed are listed (not faults: a board wires any subset).

An :class:`Operator` does what the prompts ask: a person at the console
(:class:`ConsoleOperator`) or, on the simulator, a simulated hand (:class:`SimHand`)
that puts the piece on the square it sees lit and reports the LEDs it sees dark
(``crownhead selftest``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from crownhead.firmware.app.hardware import Hardware
from crownhead.hal.clock import Clock
from crownhead.hal.errors import HardwareError
from crownhead.hal.lights import RGB, FrameKey, NullLights
from crownhead.hal.sensors import SensorEvent, squares_of
from crownhead.squares import SQUARES, cell_to_square, square_name
from crownhead.sim.board import SimBoard

__all__ = [
    "COLOURS",
    "Operator",
    "ConsoleOperator",
    "SimHand",
    "Selftest",
    "SelftestResult",
    "parse_squares",
    "report",
]

WALK_COLOUR: RGB = (255, 255, 255)
COLOURS: tuple[tuple[str, RGB], ...] = (
    ("red", (255, 0, 0)),
    ("green", (0, 255, 0)),
    ("blue", (0, 0, 255)),
    ("white", (255, 255, 255)),
)
# Every square, so 64-LED boards light their light squares too (32-LED boards ignore them).
ALL_KEYS: tuple[FrameKey, ...] = tuple(cell_to_square(r, c) or (r, c) for r in range(8) for c in range(8))


def _name(square: int) -> str:
    return f"{square} ({square_name(square)})"


class Operator(Protocol):
    """Whoever handles the pieces during the test: a person, or the simulated hand."""

    def say(self, text: str) -> None: ...

    def request_clear(self) -> None: ...

    def request_place(self, square: int) -> None: ...

    def request_lift(self, square: int) -> None: ...

    def dark_squares(self, colour: str, rgb: RGB, squares: Iterable[int]) -> set[int] | None:
        """Squares not showing ``colour`` while all should; None if nobody can tell."""
        ...

    def confirm(self, question: str, check: Callable[[], bool]) -> bool | None:
        """A yes/no answer about what the board shows or sounds; None if nobody can tell.
        ``check`` is what a simulated operator looks at."""
        ...

    def request_buttons(self, names: list[str]) -> None:
        """Ask for every button in ``names`` to be pressed, one after another."""
        ...


class ConsoleOperator:
    """A person at the board, prompted on the terminal."""

    def __init__(
        self,
        out: TextIO,
        *,
        interactive: bool,
        ask: Callable[[str], str] = input,
        idle: Callable[[int], object] = lambda ms: time.sleep(ms / 1000),
        hold_ms: int = 1500,
        lit: bool = True,
    ) -> None:
        self.out = out
        self.interactive = interactive
        self.lit = lit  # False on a board without LEDs: squares are named, not lit
        self.ask = ask
        self.idle = idle
        self.hold_ms = hold_ms

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def request_clear(self) -> None:
        self.say("Remove every piece from the board.")

    def request_place(self, square: int) -> None:
        if self.lit:
            self.say(f"Square {_name(square)} is lit: place a piece on it.")
        else:
            self.say(f"Place a piece on square {_name(square)}.")

    def request_lift(self, square: int) -> None:
        self.say("  ...and lift it again.")

    def dark_squares(self, colour: str, rgb: RGB, squares: Iterable[int]) -> set[int] | None:
        wanted = set(squares)
        if not self.interactive:
            self.say(f"All LEDs {colour}.")
            self.idle(self.hold_ms)
            return None
        while True:
            try:
                answer = self.ask(f"All LEDs should be {colour}. Numbers of squares that are not (Enter if all are): ")
            except EOFError:
                return None
            try:
                named = parse_squares(answer) if answer.strip() else set()
            except ValueError as exc:
                self.say(f"  {exc}; try again.")
                continue
            return named & wanted

    def confirm(self, question: str, check: Callable[[], bool]) -> bool | None:
        if not self.interactive:
            self.say(question.split("?")[0] + ": shown, not checked (nobody to ask).")
            self.idle(self.hold_ms)
            return None
        while True:
            try:
                answer = self.ask(f"{question} [y/n]: ").strip().lower()
            except EOFError:
                return None
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            self.say("  Answer y or n.")

    def request_buttons(self, names: list[str]) -> None:
        self.say(
            "Press every button in turn (" + ", ".join(names) + "); each is listed as it is "
            "pressed. Hold resign and the side buttons to try a long press."
        )


class SimHand:
    """The simulated person: does what it is asked on a :class:`SimBoard`.

    It puts the piece where it *sees* light (so the test of the lighting is real), on
    the announced square when nothing or several squares are lit, and it lets the
    switch chatter a little as a hand would.
    """

    def __init__(self, board: SimBoard, *, bounces: int = 2, token: str = "w", out: TextIO | None = None) -> None:
        self.board = board
        self.bounces = bounces
        self.token = token
        self.out = out
        self._placed: dict[int, int] = {}

    def say(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out)

    def _chatter(self, square: int) -> None:
        if self.bounces:
            self.board.bounce(square, self.bounces, 3)

    def request_clear(self) -> None:
        self.say("(hand) clearing the board")
        for sq in sorted(self.board.pieces):
            self.board.lift(sq)
            self._chatter(sq)
        self.board.hand.clear()

    def request_place(self, square: int) -> None:
        lit = [k for k in self.board.lights.current if isinstance(k, int)]
        target = lit[0] if len(lit) == 1 else square
        self.say(f"(hand) asked for square {square}, placing on {target}")
        if target in self.board.pieces:
            return  # already a piece there (left behind); nothing to put down
        self.board.place(target, self.token)
        self._placed[square] = target
        self._chatter(target)

    def request_lift(self, square: int) -> None:
        target = self._placed.pop(square, square)
        if target in self.board.pieces:
            self.board.lift(target)
            self._chatter(target)

    def dark_squares(self, colour: str, rgb: RGB, squares: Iterable[int]) -> set[int]:
        current = self.board.lights.current
        return {sq for sq in squares if current.get(sq) != rgb}

    def confirm(self, question: str, check: Callable[[], bool]) -> bool:
        return check()

    def request_buttons(self, names: list[str]) -> None:
        for name in names:
            self.board.press(name)


def parse_squares(text: str) -> set[int]:
    """``"1-4, 12"`` -> {1, 2, 3, 4, 12}. Raises ValueError with a readable message."""
    out: set[int] = set()
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(f"not a square or range: {part!r}")
        lo = int(m.group(1))
        hi = int(m.group(2) or lo)
        if not (1 <= lo <= 32 and 1 <= hi <= 32) or lo > hi:
            raise ValueError(f"squares must be 1-32: {part!r}")
        out.update(range(lo, hi + 1))
    return out


@dataclass
class SelftestResult:
    faults: list[str] = field(default_factory=list)
    walked: list[int] = field(default_factory=list)
    leds_verified: bool = False
    #: True when the board has no LEDs configured (``lights.backend = "none"``): there
    #: was nothing to light, so the colour check did not run.
    leds_skipped: bool = False
    stray: list[SensorEvent] = field(default_factory=list)
    #: The display and the buzzer: "checked", "shown (not checked)", "absent" (none configured).
    display: str = "absent"
    sound: str = "absent"
    #: Every button press seen, in order: (name, long).
    pressed: list[tuple[str, bool]] = field(default_factory=list)
    #: The buttons the board has that were never pressed (None: not asked).
    unpressed: list[str] | None = None


class Selftest:
    """The test procedure, independent of who handles the pieces and of real time."""

    def __init__(
        self,
        hw: Hardware,
        operator: Operator,
        *,
        idle: Callable[[int], object],
        timeout_ms: int = 20000,
        squares: Iterable[int] = SQUARES,
        leds: bool = True,
        buttons: bool = True,
        step_ms: int = 5,
    ) -> None:
        self.hw = hw
        self.buttons = buttons
        self.operator = operator
        self.idle = idle
        self.timeout_ms = timeout_ms
        self.squares = sorted(set(squares))
        self.leds = leds
        self.step_ms = step_ms
        self.result = SelftestResult()

    @property
    def clock(self) -> Clock:
        return self.hw.clock

    def run(self) -> SelftestResult:
        faults = self.result.faults
        faults.extend(self.hw.diagnose())
        self.deb = self.hw.debounced()
        self._show({})
        self.operator.request_clear()
        self._wait_until(lambda: self.deb.state == 0)
        stuck = squares_of(self.deb.state)
        for sq in stuck:
            faults.append(
                f"square {_name(sq)}: reads occupied with the board cleared - "
                "switch stuck closed or shorted (or a piece left on it); not walked"
            )
        for sq in self.squares:
            if sq in stuck:
                continue
            faults.extend(self._walk(sq))
            self.result.walked.append(sq)
        if self.leds and isinstance(self.hw.lights.inner, NullLights):
            # Asking someone which LEDs stay dark on a board without LEDs would only
            # produce 32 false faults.
            self.result.leds_skipped = True
        elif self.leds:
            faults.extend(self._check_leds())
        self._show({})
        if self.hw.display is not None:
            faults.extend(self._check_display())
        if self.hw.buzzer is not None:
            faults.extend(self._check_sound())
        if self.buttons:
            self._check_buttons()
        return self.result

    def _check_display(self) -> list[str]:
        from crownhead.firmware.display.render import selftest_pattern

        display = self.hw.display
        assert display is not None
        image = selftest_pattern(display.width, display.height)
        try:
            display.show(image)
        except (HardwareError, OSError) as exc:
            self.result.display = "unreachable"
            return [f"display: cannot be reached ({exc}); check the wiring, I2C on and display.address"]

        def drawn() -> bool:
            shown = getattr(display, "image", None)
            # The same pixels: the same mode and size, then the same bytes.
            return shown is not None and (shown.mode, shown.size, shown.tobytes()) == (
                image.mode,
                image.size,
                image.tobytes(),
            )

        answer = self.operator.confirm("Does the display show a frame, a checkerboard and the words SELF TEST?", drawn)
        self.result.display = "checked" if answer is not None else "shown (not checked)"
        from PIL import Image

        try:
            display.show(Image.new("1", (display.width, display.height)))
        except (HardwareError, OSError):
            pass
        return [] if answer is not False else ["display: the test pattern was not seen (wiring, driver, rotate)"]

    def _check_sound(self) -> list[str]:
        from crownhead.firmware.sound.player import PATTERNS, SoundPlayer

        buzzer = self.hw.buzzer
        assert buzzer is not None
        player = SoundPlayer(buzzer, self.clock)
        for name in PATTERNS:
            self.operator.say(f"Buzzer: {name}")
            player.play(name)
            while (due := player.next_change()) is not None:
                self.idle(max(1, due - self.clock.now_ms()))
                player.update()
            self.idle(300)
        tones = getattr(buzzer, "tones", None)
        answer = self.operator.confirm(
            f"Did the buzzer sound {len(PATTERNS)} different patterns?",
            lambda: tones is not None and sum(1 for _t, hz in tones if hz) >= len(PATTERNS),
        )
        self.result.sound = "checked" if answer is not None else "played (not checked)"
        return [] if answer is not False else ["buzzer: the patterns were not heard (wiring, buzzer.kind, volume)"]

    def _check_buttons(self) -> None:
        names = _button_names(self.hw)
        if not names:
            return
        self.hw.buttons.poll()  # presses before now are not the test's
        self.operator.request_buttons(names)
        left = list(names)
        deadline = self.clock.now_ms() + self.timeout_ms
        while left and self.clock.now_ms() < deadline:
            for press in self.hw.buttons.poll():
                self.result.pressed.append((press.name, press.long))
                self.operator.say(f"  button {press.name}" + (" (long)" if press.long else ""))
                if press.name in left:
                    left.remove(press.name)
            if left:
                self.idle(self.step_ms)
        self.result.unpressed = left

    # -- steps ---------------------------------------------------------------------
    def _walk(self, sq: int) -> list[str]:
        self._show({sq: WALK_COLOUR})
        self.operator.request_place(sq)
        closed = self._wait_event(lambda e: e.occupied)
        if closed is None:
            self._show({})
            return [
                f"square {_name(sq)}: switch never closed when a piece was placed "
                "(open switch, weak magnet or broken wire)"
            ]
        found = []
        if closed.square != sq:
            found.append(f"square {_name(sq)}: answered as square {_name(closed.square)} (wires swapped or miswired)")
        self.operator.request_lift(sq)
        opened = self._wait_event(lambda e: not e.occupied and e.square == closed.square)
        if opened is None:
            found.append(
                f"square {_name(closed.square)}: switch stayed closed after the piece was lifted (stuck closed)"
            )
        self._show({})
        return found

    def _check_leds(self) -> list[str]:
        dark_in: dict[int, list[str]] = {}
        verified = True
        for name, rgb in COLOURS:
            self._show({key: rgb for key in ALL_KEYS})
            dark = self.operator.dark_squares(name, rgb, SQUARES)
            if dark is None:
                verified = False
                continue
            for sq in dark:
                dark_in.setdefault(sq, []).append(name)
        self.result.leds_verified = verified
        return [f"square {_name(sq)}: LED does not light {', '.join(cols)}" for sq, cols in sorted(dark_in.items())]

    # -- waiting -------------------------------------------------------------------
    def _show(self, frame: dict[FrameKey, RGB]) -> None:
        """Show a frame and wait until the rate limiter has really sent it."""
        self.hw.lights.show(frame)
        give_up = self.clock.now_ms() + 1000
        while self.hw.lights.next_deadline() is not None and self.clock.now_ms() < give_up:
            self.idle(self.step_ms)
            self.hw.lights.flush()

    def _poll(self) -> list[SensorEvent]:
        now = self.clock.now_ms()
        self.hw.lights.flush(now)
        return self.deb.poll(now)

    def _wait_event(self, wanted: Callable[[SensorEvent], bool]) -> SensorEvent | None:
        deadline = self.clock.now_ms() + self.timeout_ms
        while True:
            for event in self._poll():
                if wanted(event):
                    return event
                self.result.stray.append(event)
            if self.clock.now_ms() >= deadline:
                return None
            self.idle(self.step_ms)

    def _wait_until(self, done: Callable[[], bool]) -> bool:
        deadline = self.clock.now_ms() + self.timeout_ms
        while True:
            self._poll()
            if done():
                return True
            if self.clock.now_ms() >= deadline:
                return False
            self.idle(self.step_ms)


def _button_names(hw: Hardware) -> list[str]:
    """The buttons the board has, as far as its backend can say."""
    names = getattr(hw.buttons, "names", None)
    if names is None and hw.sim is not None:
        names = hw.sim.button_names
    return list(names or [])


def report(result: SelftestResult, out: TextIO, leds: bool) -> None:
    """Print what was walked, what the display, buzzer and buttons did, and the faults found."""
    print(f"\nWalked {len(result.walked)} square(s).", file=out)
    if result.display != "absent":
        print(f"Display: {result.display}", file=out)
    if result.sound != "absent":
        print(f"Buzzer: {result.sound}", file=out)
    if result.unpressed is not None:
        seen = list(dict.fromkeys(name + (" (long)" if long else "") for name, long in result.pressed))
        print("Buttons pressed: " + (", ".join(seen) if seen else "none"), file=out)
        if result.unpressed:
            print("Buttons never pressed: " + ", ".join(result.unpressed), file=out)
    if result.leds_skipped:
        print('LED colours: skipped (no LEDs configured: lights.backend = "none")', file=out)
    elif leds:
        print(
            "LED colours: " + ("checked" if result.leds_verified else "shown (not checked: nobody to ask)"),
            file=out,
        )
    if result.faults:
        print(f"FAULTS ({len(result.faults)}):", file=out)
        for fault in result.faults:
            print(f"  - {fault}", file=out)
    else:
        print("No faults found.", file=out)
