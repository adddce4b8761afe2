"""A conformance check for boards that speak serial protocol version 1.

The same checks run against the board firmware (on CPython, through its stand-ins),
against the emulator in :mod:`crownhead.sim.serial_board`, and against whatever is plugged into a
port (``crownhead mcu check --port /dev/ttyACM0``). They are the specification in
docs/hardware.md ("Serial line protocol") turned into exchanges: what is sent, which
answer must come back, and that nothing else (no ``ERR``) does.

A :class:`Target` is a way to reach a board: it writes bytes and collects the lines the
board sends within some milliseconds (of real time for a port, of virtual time for the
simulated boards). Targets that can move pieces, press buttons or see the LEDs offer
that too, and the checks that need it are skipped for the others.

On a port, a check that expects an answer stops listening as soon as the answer is in:
``answer_ms`` only bounds how long a board that does not answer is waited for, so a slow
link or a busy computer costs time, not a failed check. What must *not* come (an ``ERR``
for a good line) is listened for ``quiet_ms``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crownhead.hal.clock import VirtualClock
from crownhead.sim.serial_board import PtyEndpoint
from crownhead.hal.serial_protocol import (
    MAX_LINE,
    BoardError,
    ButtonPress,
    Hello,
    LineBuffer,
    Occupancy,
    ProtocolError,
    checksum,
    encode_led,
    encode_line,
    parse_board_line,
)

__all__ = [
    "Target",
    "PortTarget",
    "EmulatorTarget",
    "FirmwareTarget",
    "CheckResult",
    "Report",
    "run_checks",
    "CHECKS",
]

RGB = tuple[int, int, int]


class Target:
    """How the checks reach a board. Subclasses implement :meth:`write` and :meth:`collect`."""

    name = "board"

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    def collect(self, ms: int, until: Callable[[list[bytes]], bool] | None = None) -> list[bytes]:
        """Every line (without ``\\n``) the board sends in the next ``ms`` milliseconds.

        A target may return sooner, once ``until(lines)`` holds (a port does: its
        milliseconds are real ones; the simulated boards run the whole window on their
        virtual clocks, which costs next to nothing).
        """
        raise NotImplementedError

    # Optional abilities; None means "this target cannot".
    def set_occupancy(self, mask: int) -> bool:
        return False

    def press(self, name: str) -> bool:
        return False

    def leds(self) -> list[RGB] | None:
        return None

    def close(self) -> None:
        pass


class _LineTarget(Target):
    """A target read through a pyserial-like port, lines reassembled by :class:`LineBuffer`."""

    def __init__(self) -> None:
        self._lines = LineBuffer()
        self.overlong = 0

    def _feed(self, data: bytes, out: list[bytes]) -> None:
        for line in self._lines.feed(data):
            if line is None:
                self.overlong += 1
                out.append(b"<line longer than %d bytes>" % MAX_LINE)
            else:
                out.append(line)


class PortTarget(_LineTarget):
    """A real board on a serial port (``/dev/ttyACM0``, or any pyserial URL)."""

    def __init__(self, port: str, *, opener: Callable[[str], Any] | None = None) -> None:
        super().__init__()
        self.name = port
        if opener is None:
            from crownhead.hal.serial_board import open_serial_port

            opener = open_serial_port
        self.port = opener(port)
        # A Pico that has just been plugged in may greet before we listen: drain it.
        self.collect(200)

    def write(self, data: bytes) -> None:
        self.port.write(data)
        self.port.flush()

    def collect(self, ms: int, until: Callable[[list[bytes]], bool] | None = None) -> list[bytes]:
        out: list[bytes] = []
        end = time.monotonic() + ms / 1000
        while True:
            waiting = self.port.in_waiting
            data = self.port.read(waiting if waiting > 0 else 1)
            if data:
                self._feed(data, out)
                if until is not None and until(out):
                    # Whatever came with the answer belongs to this exchange too.
                    waiting = self.port.in_waiting
                    if waiting > 0:
                        self._feed(self.port.read(waiting), out)
                    return out
            if time.monotonic() >= end:
                return out

    def close(self) -> None:
        self.port.close()


class _CountingEndpoint(PtyEndpoint):
    """The board's end of a pty, counting the bytes it delivered to the board and the
    bytes the board wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.delivered = self.emitted = 0

    def read(self) -> bytes:
        data = super().read()
        self.delivered += len(data)
        return data

    def write(self, data: bytes) -> None:
        self.emitted += len(data)
        super().write(data)


class _PtyRigTarget(_LineTarget):
    """A simulated board behind a pseudo-terminal, stepped on a virtual clock."""

    step_ms = 5

    def __init__(self) -> None:
        from crownhead.hal.serial_board import open_serial_port

        super().__init__()
        self.clock = VirtualClock()
        self.endpoint = _CountingEndpoint()
        self.port = open_serial_port(self.endpoint.path, timeout=0)
        # Bytes in flight, counted at both ends: the pseudo-terminal hands them over
        # asynchronously (the kernel queues them), so on a busy machine a line may still
        # be on its way when the virtual time is up. collect() waits for them.
        self.sent = self.received = 0

    def step(self) -> None:
        """One round of the board."""
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        self.port.write(data)
        self.port.flush()
        self.sent += len(data)

    def collect(self, ms: int, until: Callable[[list[bytes]], bool] | None = None) -> list[bytes]:
        out: list[bytes] = []
        end = self.clock.now_ms() + ms
        while True:
            self._round(out)
            if self.clock.now_ms() >= end:
                break
            self.clock.advance(min(self.step_ms, end - self.clock.now_ms()))
        # Keep the board running, clock stopped, until every byte sent either way has
        # arrived (60 s at most: a board that lost bytes is not waited for forever).
        give_up = time.monotonic() + 60.0
        while (self.endpoint.delivered < self.sent or self.received < self.endpoint.emitted) and (
            time.monotonic() < give_up
        ):
            self._round(out)
        return out

    def _round(self, out: list[bytes]) -> None:
        time.sleep(0.0002)
        self.step()
        waiting = self.port.in_waiting
        if waiting:
            data = self.port.read(waiting)
            self.received += len(data)
            self._feed(data, out)

    def close(self) -> None:
        self.port.close()
        self.endpoint.close()


class EmulatorTarget(_PtyRigTarget):
    """The reference emulator, :class:`crownhead.sim.serial_board.BoardEmulator`."""

    name = "emulator (sim.serial_board.BoardEmulator)"

    def __init__(self) -> None:
        from crownhead.sim.board import SimBoard
        from crownhead.sim.serial_board import BoardEmulator

        super().__init__()
        self.sim = SimBoard(self.clock)
        self.emulator = BoardEmulator(self.sim, self.endpoint)

    def step(self) -> None:
        self.emulator.service()

    def set_occupancy(self, mask: int) -> bool:
        self.sim.set_position({s: "w" for s in range(1, 33) if mask >> (s - 1) & 1})
        return True

    def press(self, name: str) -> bool:
        self.sim.press(name)
        return True

    def leds(self) -> list[RGB] | None:
        current = self.sim.lights.current
        return [current.get(s, (0, 0, 0)) for s in range(1, 33)]


class FirmwareTarget(_PtyRigTarget):
    """The Pico firmware itself (``firmware/mcu/pico/crownhead_board.py``) on CPython.

    Its matrix pins are wired by the electrical model of the switch matrix; its LEDs
    are what the stand-in ``machine.bitstream`` received; its USB stream is the board's
    end of the pseudo-terminal.
    """

    name = "Pico firmware (firmware/mcu/pico, on CPython stand-ins)"
    step_ms = 5

    def __init__(self, *, chip: str = "RP2040") -> None:
        from crownhead.firmware.mcu import load_firmware
        from crownhead.firmware.mcu.standins import Bench, PtyStream
        from crownhead.sim.gpio_models import MatrixWiring

        super().__init__()
        self.fw = load_firmware()
        self.wiring = MatrixWiring(self.fw.ROW_PINS, self.fw.COL_PINS)
        self.bench = Bench(self.wiring, self.clock, chip=chip)
        self.usb = PtyStream(self.endpoint)
        self.wdt = self.bench.machine.WDT(timeout=self.fw.WATCHDOG_MS)
        self.board = self.fw.Board(
            self.bench.machine.Pin,
            self.bench.neopixel.NeoPixel,
            self.usb,
            self.clock.now_ms,
            wdt=self.wdt,
        )
        self.board.boot()
        self._buttons = {name: pin for name, pin in self.fw.BUTTON_PINS}
        self._release_at: dict[int, int] = {}

    def step(self) -> None:
        now = self.clock.now_ms()
        for pin, at in list(self._release_at.items()):
            if now >= at:
                self.bench.release(pin)
                del self._release_at[pin]
        self.board.step()

    def set_occupancy(self, mask: int) -> bool:
        self.wiring.set_occupancy(mask)
        return True

    def press(self, name: str) -> bool:
        pin = self._buttons.get(name)
        if pin is None:
            return False
        self.bench.set_level(pin, 0)
        self._release_at[pin] = self.clock.now_ms() + 100  # a 100 ms press
        return True

    def leds(self) -> list[RGB] | None:
        from crownhead.firmware.mcu.standins import decode_grb

        frames = self.bench.frames(self.fw.LED_PIN)
        if not frames:
            return None
        pixels = decode_grb(frames[-1], self.fw.LED_COUNT)
        pixel_of = self.fw.pixel_map(self.fw.LED_MAP, self.fw.LED_ORIGIN)
        return [pixels[pixel_of[sq]] for sq in range(self.fw.LED_COUNT)]


# -- the checks ------------------------------------------------------------------------------


class CheckFailed(Exception):
    pass


class CheckSkipped(Exception):
    pass


@dataclass
class CheckResult:
    name: str
    status: str  # "pass", "fail", "skip"
    detail: str = ""


@dataclass
class Report:
    target: str
    results: list[CheckResult] = field(default_factory=list)
    firmware: str | None = None

    @property
    def ok(self) -> bool:
        return all(r.status != "fail" for r in self.results)

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.status == "fail"]

    def text(self) -> str:
        lines = [f"Protocol v1 conformance: {self.target}"]
        if self.firmware:
            lines.append(f"firmware: {self.firmware}")
        for r in self.results:
            lines.append(f"  {r.status.upper():4}  {r.name}" + (f": {r.detail}" if r.detail else ""))
        passed = sum(r.status == "pass" for r in self.results)
        failed = len(self.failures())
        skipped = sum(r.status == "skip" for r in self.results)
        lines.append(f"{passed} passed, {failed} failed, {skipped} skipped")
        return "\n".join(lines)


class _Session:
    """One target, the lines it sent, and helpers to wait for answers."""

    def __init__(self, target: Target, answer_ms: int, quiet_ms: int) -> None:
        self.target = target
        self.answer_ms = answer_ms
        self.quiet_ms = quiet_ms
        self.firmware: str | None = None

    def exchange(
        self, data: bytes, ms: int | None = None, until: Callable[[list[Any]], bool] | None = None
    ) -> list[Any]:
        """Send ``data``, collect answers, parse every line (each must be valid).

        With ``until`` (a test on the messages so far) the answer is waited for, up to
        ``ms`` (``answer_ms``); without it, whatever comes in ``ms`` (``quiet_ms``) is taken.
        """
        if data:
            self.target.write(data)
        if until is None:
            lines = self.target.collect(self.quiet_ms if ms is None else ms)
        else:
            test = until
            lines = self.target.collect(self.answer_ms if ms is None else ms, lambda raws: test(_lenient(raws)))
        out = []
        for raw in lines:
            if len(raw) > MAX_LINE:
                raise CheckFailed(f"board sent a line longer than {MAX_LINE} bytes")
            try:
                msg = parse_board_line(raw)
            except ProtocolError as exc:
                raise CheckFailed(f"board sent an invalid line {raw[:60]!r}: {exc}") from None
            if b"*" not in raw:
                raise CheckFailed(f"board sent a line without checksum: {raw[:60]!r}")
            out.append(msg)
        return out

    def quiet(self) -> None:
        """Let the board finish whatever it was saying."""
        self.target.collect(self.quiet_ms)


def _lenient(raws: Sequence[bytes]) -> list[Any]:
    """The lines that parse (a bad one ends the wait too: the check reports it)."""
    out: list[Any] = []
    for raw in raws:
        try:
            out.append(parse_board_line(raw))
        except ProtocolError:
            out.append(None)
    return out


def _has(*kinds: type) -> Callable[[list[Any]], bool]:
    """An answer of one of ``kinds``, an ``ERR``, or a line that is not valid has come."""
    return lambda messages: any(m is None or isinstance(m, (*kinds, BoardError)) for m in messages)


def _of(messages: Sequence[Any], kind: type) -> list[Any]:
    return [m for m in messages if isinstance(m, kind)]


def _errors(messages: Sequence[Any]) -> list[str]:
    return [m.code for m in _of(messages, BoardError)]


def check_hello(s: _Session) -> str:
    got = s.exchange(encode_line("HELLO 1"), until=_has(Hello))
    hellos = _of(got, Hello)
    if len(hellos) != 1:
        raise CheckFailed(f"expected one HELLO answer to HELLO 1, got {len(hellos)}")
    if hellos[0].version != 1:
        raise CheckFailed(f"board speaks protocol {hellos[0].version}, expected 1")
    if _errors(got):
        raise CheckFailed(f"unexpected ERR {_errors(got)}")
    s.firmware = hellos[0].firmware
    return f"HELLO 1 {hellos[0].firmware}"


def check_hello_typed(s: _Session) -> str:
    got = s.exchange(b"HELLO 1\r\n", until=_has(Hello))
    if len(_of(got, Hello)) != 1 or _errors(got):
        raise CheckFailed("a HELLO typed without checksum, ended by CR LF, was not answered")
    return ""


def check_occ_query(s: _Session) -> str:
    got = s.exchange(encode_line("OCC?"), until=_has(Occupancy))
    occ = _of(got, Occupancy)
    if not occ:
        raise CheckFailed("no OCC answer to OCC?")
    if _errors(got):
        raise CheckFailed(f"unexpected ERR {_errors(got)}")
    return f"OCC {occ[-1].mask:08X}"


def check_heartbeat(s: _Session) -> str:
    s.quiet()
    # 2.6 s: two heartbeats, whatever their phase; longer when answers may be slow.
    window = max(2600, s.answer_ms)
    got = s.exchange(b"", window, until=lambda messages: len(_of(messages, Occupancy)) >= 2)
    count = len(_of(got, Occupancy))
    if count < 2:
        raise CheckFailed(f"{count} OCC line(s) in {window / 1000:g} s of silence; at least 2 expected (one a second)")
    return f"{count} OCC lines in {window / 1000:g} s"


def check_occupancy_changes(s: _Session) -> str:
    masks = [0x00000001, 0x80000000, 0x00000FFF | 0xFFF00000, 0x12345678, 0]
    s.target.collect(10)
    if not s.target.set_occupancy(0):
        raise CheckSkipped("cannot move pieces on this target (use crownhead sensors)")
    s.quiet()
    for mask in masks:
        s.target.set_occupancy(mask)
        got = _of(s.exchange(b"", 50, until=lambda m: any(o.mask == mask for o in _of(m, Occupancy))), Occupancy)
        if not got or got[-1].mask != mask:
            seen = " ".join(f"{m.mask:08X}" for m in got) or "nothing"
            raise CheckFailed(f"set {mask:08X}, board reported {seen} within 50 ms")
    return f"{len(masks)} changes reported within 50 ms"


def check_led_frame(s: _Session) -> str:
    # No brighter than the Pi's default cap (0.1) makes a frame: a board that powers
    # its LEDs from USB may dim brighter ones to stay within its budget.
    colours: list[RGB] = [((7 * i) % 26, (25 - 3 * i) % 26, (i * i) % 26) for i in range(32)]
    got = s.exchange(encode_led(colours))
    if _errors(got):
        raise CheckFailed(f"a valid LED frame was answered with ERR {_errors(got)}")
    shown = s.target.leds()
    if shown is None:
        return "accepted (the colours are not visible to this check)"
    if list(shown) != colours:
        wrong = [i + 1 for i in range(32) if tuple(shown[i]) != colours[i]]
        raise CheckFailed(f"frame shown wrong on squares {wrong[:8]}")
    dark = [(0, 0, 0)] * 32
    s.exchange(encode_led(dark))
    if list(s.target.leds() or []) != dark:
        raise CheckFailed("an all-dark frame did not turn the LEDs off")
    return "shown exactly, then all dark"


def check_button(s: _Session) -> str:
    if not s.target.press("hint"):
        raise CheckSkipped("cannot press buttons on this target (press one and watch crownhead sensors)")
    got = s.exchange(b"", 300, until=_has(ButtonPress))
    presses = [m.name for m in _of(got, ButtonPress)]
    if presses != ["hint"]:
        raise CheckFailed(f"pressed hint, board sent {presses}")
    return "BTN hint"


_BAD_LINES: tuple[tuple[str, bytes, str], ...] = (
    ("unknown command", b"JUMP 1\n", "bad-line"),
    ("wrong checksum", b"OCC?*00\n", "bad-checksum"),
    ("one-digit checksum", b"OCC?*4\n", "bad-checksum"),
    ("non-hex checksum", b"OCC?*ZZ\n", "bad-checksum"),
    ("OCC? with a field", b"OCC? 1\n", "bad-line"),
    ("HELLO without version", b"HELLO\n", "bad-line"),
    ("HELLO with letters", b"HELLO x\n", "bad-arg"),
    ("HELLO with two fields", b"HELLO 1 2\n", "bad-line"),
    ("LED without frame", b"LED\n", "bad-line"),
    ("LED too short", b"LED " + b"0" * 191 + b"\n", "bad-arg"),
    ("LED not hex", b"LED " + b"G" * 192 + b"\n", "bad-arg"),
    ("LED two frames", b"LED " + b"0" * 192 + b" " + b"0" * 192 + b"\n", "too-long"),
    ("not ASCII", b"\xffOCC?\n", "bad-line"),
    ("control character", b"OCC?\x07\n", "bad-line"),
    ("only a checksum", b" *20\n", "bad-line"),
    ("257 bytes", b"X" * 257 + b"\n", "too-long"),
    ("1000 bytes", b"OCC? " * 200 + b"\n", "too-long"),
    ("lower-case command", b"occ?\n", "bad-line"),
)


def _bad_line_check(label: str, data: bytes, code: str) -> Callable[[_Session], str]:
    def check(s: _Session) -> str:
        got = s.exchange(data, until=_has())
        errors = _errors(got)
        if errors != [code]:
            raise CheckFailed(f"expected ERR {code}, got {errors or 'no ERR'}")
        return f"ERR {code}"

    check.__name__ = "bad: " + label
    return check


def _ok(value: int) -> str:
    return f"{value:02X}"


_GOOD_LINES: tuple[tuple[str, bytes, type | None], ...] = (
    ("lower-case checksum", b"HELLO 1*" + checksum("HELLO 1").lower().encode() + b"\n", Hello),
    ("CR LF", b"OCC?\r\n", Occupancy),
    ("runs of spaces", b"  OCC?   \n", Occupancy),
    ("exactly 256 bytes", b"OCC?" + b" " * 252 + b"\n", Occupancy),
    ("empty line", b"\n", None),
    ("blank line", b" \r\n", None),
)


def _good_line_check(label: str, data: bytes, kind: type | None) -> Callable[[_Session], str]:
    def check(s: _Session) -> str:
        got = s.exchange(data, until=None if kind is None else _has(kind))
        if _errors(got):
            raise CheckFailed(f"answered ERR {_errors(got)}")
        if kind is not None and not _of(got, kind):
            raise CheckFailed(f"no {kind.__name__.upper()} answer")
        return "answered" if kind is not None else "ignored"

    check.__name__ = "good: " + label
    return check


def check_split_line(s: _Session) -> str:
    s.target.write(b"OC")
    s.target.collect(100)
    got = s.exchange(b"C?\n", until=_has(Occupancy))
    if _errors(got) or not _of(got, Occupancy):
        raise CheckFailed("a line arriving in two pieces was not read as one")
    return ""


def check_recovers_after_overflow(s: _Session) -> str:
    got = s.exchange(
        b"Z" * 600 + b"\n" + encode_line("OCC?"),
        until=lambda m: any(x is None or isinstance(x, Occupancy) for x in m),
    )
    if _errors(got) != ["too-long"] or not _of(got, Occupancy):
        raise CheckFailed(f"after an overlong line: ERR {_errors(got)}, OCC answers {len(_of(got, Occupancy))}")
    return ""


def check_many_lines_at_once(s: _Session) -> str:
    frame = encode_led([(1, 2, 3)] * 32)
    burst = (frame + encode_line("OCC?")) * 10
    got = s.exchange(
        burst,
        max(s.answer_ms, 500),
        until=lambda m: None in m or bool(_errors(m)) or len(_of(m, Occupancy)) >= 10,
    )
    if _errors(got) or len(_of(got, Occupancy)) < 10:
        raise CheckFailed(f"10 frames and 10 OCC? in one burst: {len(_of(got, Occupancy))} OCC, ERR {_errors(got)}")
    s.exchange(encode_led([(0, 0, 0)] * 32))
    return ""


CHECKS: tuple[Callable[[_Session], str], ...] = (
    check_hello,
    check_hello_typed,
    check_occ_query,
    check_heartbeat,
    check_occupancy_changes,
    check_led_frame,
    check_button,
    check_split_line,
    check_recovers_after_overflow,
    check_many_lines_at_once,
    *(_good_line_check(*case) for case in _GOOD_LINES),
    *(_bad_line_check(*case) for case in _BAD_LINES),
)


def _check_name(check: Callable[..., object]) -> str:
    return check.__name__.removeprefix("check_").replace("_", " ")


def run_checks(
    target: Target,
    *,
    answer_ms: int = 300,
    quiet_ms: int | None = None,
    only: Sequence[str] | None = None,
) -> Report:
    """Run every check (or those whose names contain one of ``only``) against ``target``.

    ``answer_ms``: how long an answer is waited for at most; ``quiet_ms`` (default
    ``answer_ms``): how long the checks listen for lines that must not come.
    """
    session = _Session(target, answer_ms, answer_ms if quiet_ms is None else quiet_ms)
    report = Report(target.name)
    session.quiet()  # what the board said on its own before the checks began
    for check in CHECKS:
        name = _check_name(check)
        if only and not any(word in name for word in only):
            continue
        try:
            detail = check(session)
            report.results.append(CheckResult(name, "pass", detail))
        except CheckSkipped as exc:
            report.results.append(CheckResult(name, "skip", str(exc)))
        except CheckFailed as exc:
            report.results.append(CheckResult(name, "fail", str(exc)))
            session.quiet()
    report.firmware = session.firmware
    return report
