"""Stand-ins for what MicroPython's rp2 port gives the board firmware, for CPython.

Only three things are replaced: ``machine`` (``Pin``, ``WDT``, ``bitstream``, ``mem32``),
``neopixel`` and the USB serial stream. Everything else the firmware runs is its own
code, unchanged. The stand-ins are strict about what MicroPython 1.29 really offers:
``Pin`` takes the rp2 port's arguments and constants and nothing else, ``WDT`` refuses a
timeout the RP2040 cannot count (over 8388 ms), ``bitstream`` takes the rp2 signature.
:class:`NeoPixel` is micropython-lib's ``neopixel`` driver (MIT, Damien P. George and Jim
Mussared), rewritten here without change of behaviour, so that only the byte transmit
(``machine.bitstream``) is replaced.

The matrix pins are gpiozero mock pins wired by :class:`crownhead.sim.gpio_models.MatrixWiring`,
the electrical model of the switch matrix: a row the firmware drives low pulls a
column low only through a closed switch and its diode. Other pins (buttons, the LED
line) are plain levels a test can set.

>>> bench = Bench()
>>> pin = bench.machine.Pin(18, bench.machine.Pin.IN, bench.machine.Pin.PULL_UP)
>>> pin.value()
1
>>> bench.set_level(18, 0)
>>> pin.value()
0
>>> bench.machine.Pin(30)
Traceback (most recent call last):
...
ValueError: invalid pin 30: the RP2040 has GPIO0-29
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "Bench",
    "NeoPixel",
    "PtyStream",
    "BytesStream",
    "WDT_MAX_MS",
    "WATCHDOG_CTRL",
    "WATCHDOG_ENABLE",
    "decode_grb",
]

#: The rp2 port's longest watchdog timeout: 0x7FFFFF microseconds (RP2040 datasheet).
WDT_MAX_MS = 8388
#: The watchdog's CTRL register and its ENABLE bit (RP2040 and RP2350 datasheets).
WATCHDOG_CTRL = {"RP2040": 0x40058000, "RP2350": 0x400D8000}
WATCHDOG_ENABLE = 1 << 30


class _Pin:
    """``machine.Pin`` as the rp2 port defines it (bound to a :class:`Bench`)."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_RISING = 4
    IRQ_FALLING = 8

    bench: Bench

    def __init__(self, id: int, mode: int = -1, pull: int = -1, *, value: int | None = None, alt: int = -1) -> None:
        if not isinstance(id, int) or isinstance(id, bool):
            raise TypeError("Pin id must be an int on rp2 (got %r)" % (id,))
        if not 0 <= id < self.bench.gpio_count:
            raise ValueError("invalid pin %d: the %s has GPIO0-%d" % (id, self.bench.chip, self.bench.gpio_count - 1))
        self.id = id
        self.mode: int | None = None
        self.pull: int | None = None
        self.bench.claim(self)
        self.init(mode, pull, value=value, alt=alt)

    def init(self, mode: int = -1, pull: int = -1, *, value: int | None = None, alt: int = -1) -> None:
        if mode not in (-1, self.IN, self.OUT, self.OPEN_DRAIN, self.ALT):
            raise ValueError("invalid pin mode %r" % (mode,))
        if pull not in (-1, self.PULL_UP, self.PULL_DOWN) and pull is not None:
            raise ValueError("invalid pull %r" % (pull,))
        if value is not None:
            self.bench.drive(self.id, 1 if value else 0)
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        self.bench.configure(self)

    def value(self, x: Any = None) -> int | None:
        if x is None:
            return self.bench.read(self.id)
        self.bench.drive(self.id, 1 if x else 0)
        return None

    __call__ = value

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    high = on
    low = off

    def toggle(self) -> None:
        self.value(0 if self.value() else 1)

    def __repr__(self) -> str:
        return "Pin(GPIO%d)" % self.id


class _WDT:
    """``machine.WDT`` (rp2): started on creation, fed with :meth:`feed`; only clearing
    the ENABLE bit of the chip's watchdog CTRL register (in ``machine.mem32``) stops it."""

    bench: Bench

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if id != 0:
            raise ValueError("WDT(%r) doesn't exist" % (id,))
        if not 1 <= timeout <= WDT_MAX_MS:
            raise ValueError("timeout %r ms is outside 1-%d" % (timeout, WDT_MAX_MS))
        self.timeout = timeout
        self.bench.watchdog = self
        self.bench.mem32[WATCHDOG_CTRL[self.bench.chip]] |= WATCHDOG_ENABLE
        self.fed_at = self.bench.now_ms()
        self.feeds = 0
        self.longest_gap = 0

    def feed(self) -> None:
        now = self.bench.now_ms()
        self.longest_gap = max(self.longest_gap, now - self.fed_at)
        self.fed_at = now
        self.feeds += 1

    @property
    def running(self) -> bool:
        """Is the watchdog counting (its ENABLE bit set)?"""
        return bool(self.bench.mem32[WATCHDOG_CTRL[self.bench.chip]] & WATCHDOG_ENABLE)

    @property
    def starved(self) -> bool:
        """Would the chip have reset: a gap between feeds longer than the timeout."""
        return max(self.longest_gap, self.bench.now_ms() - self.fed_at) > self.timeout


class _Mem32:
    """``machine.mem32``: 32-bit words at addresses; the test reads what was written."""

    def __init__(self) -> None:
        self.words: dict[int, int] = {}

    def __getitem__(self, address: int) -> int:
        self._check(address)
        return self.words.get(address, 0)

    def __setitem__(self, address: int, value: int) -> None:
        self._check(address)
        self.words[address] = value & 0xFFFFFFFF

    @staticmethod
    def _check(address: int) -> None:
        if address % 4:
            raise ValueError("address %#x is not aligned to 4 bytes" % address)


class NeoPixel:
    """micropython-lib's ``neopixel.NeoPixel`` (the driver MicroPython freezes into rp2).

    The pixels live in :attr:`buf` in wire order (``ORDER`` maps R, G, B to GRB);
    :meth:`write` hands the buffer to ``machine.bitstream`` with the 800 kHz timing.
    """

    ORDER = (1, 0, 2, 3)
    _bitstream: Callable[[Any, int, Any, Any], None]

    def __init__(self, pin: Any, n: int, bpp: int = 3, timing: Any = 1) -> None:
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.pin.init(pin.OUT)
        self.timing = (
            ((400, 850, 800, 450) if timing else (800, 1700, 1600, 900)) if isinstance(timing, int) else timing
        )

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, v: Sequence[int]) -> None:
        offset = i * self.bpp
        for k in range(self.bpp):
            self.buf[offset + self.ORDER[k]] = v[k]

    def __getitem__(self, i: int) -> tuple[int, ...]:
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v: Sequence[int]) -> None:
        b = self.buf
        length = len(self.buf)
        bpp = self.bpp
        for k in range(bpp):
            c = v[k]
            j = self.ORDER[k]
            while j < length:
                b[j] = c
                j += bpp

    def write(self) -> None:
        # 0 = BITSTREAM_TYPE_HIGH_LOW, the only encoding the rp2 port has.
        type(self)._bitstream(self.pin, 0, self.timing, self.buf)


def decode_grb(data: bytes, count: int = 32) -> list[tuple[int, int, int]]:
    """(R, G, B) per pixel from the bytes a WS2812B chain receives (GRB order).

    >>> decode_grb(bytes([2, 1, 3, 0, 0, 9]), 2)
    [(1, 2, 3), (0, 0, 9)]
    """
    return [(data[3 * i + 1], data[3 * i], data[3 * i + 2]) for i in range(count)]


class _MachineModule(types.ModuleType):
    """The ``machine`` module a :class:`Bench` gives the firmware."""

    Pin: type[_Pin]
    WDT: type[_WDT]
    bitstream: Callable[[Any, int, Any, Any], None]
    mem32: _Mem32


class _NeoPixelModule(types.ModuleType):
    """The ``neopixel`` module a :class:`Bench` gives the firmware."""

    NeoPixel: type[NeoPixel]


class Bench:
    """The Pico's surroundings on a test bench: pins, the LED chain, the watchdog.

    ``wiring`` is a :class:`crownhead.sim.gpio_models.MatrixWiring` whose rows and columns use
    the same GP numbers as the firmware; its pins are gpiozero mock pins. ``clock``
    is anything with ``now_ms()`` (a :class:`crownhead.hal.clock.VirtualClock`).
    """

    def __init__(self, wiring: Any = None, clock: Any = None, *, chip: str = "RP2040") -> None:
        if chip not in ("RP2040", "RP2350"):
            raise ValueError("chip must be RP2040 or RP2350")
        self.chip = chip
        # The Pico 2's RP2350A also has 30 GPIOs; the 80-pin RP2350B has 48.
        self.gpio_count = 30
        self.clock = clock
        self.wiring = wiring
        self._mock: dict[int, Any] = {}
        if wiring is not None:
            from gpiozero.pins.mock import MockFactory

            factory = MockFactory()
            pin_class = wiring.pin_class()
            for number in list(wiring.rows) + list(wiring.cols):
                # Made directly, not through factory.pin(): gpiozero's local factories
                # share one class-wide table of pins, and a pin left there by another
                # bench would still be wired to that bench's model.
                ((_, info),) = factory.board_info.find_pin(f"GPIO{number}")
                self._mock[number] = pin_class(factory, info)
        self.levels: dict[int, int] = {}  # driven or externally set levels, other pins
        self.pins: dict[int, _Pin] = {}
        self.watchdog: _WDT | None = None
        self.transmitted: dict[int, list[bytes]] = {}
        self.mem32 = _Mem32()
        bench = self

        class Pin(_Pin):
            pass

        class WDT(_WDT):
            pass

        Pin.bench = WDT.bench = bench

        def bitstream(pin: Any, encoding: int, timing: Any, buf: Any) -> None:
            if encoding != 0:
                raise ValueError("bitstream encoding %r: rp2 has only 0 (high-low)" % (encoding,))
            if len(timing) != 4:
                raise ValueError("bitstream timing needs 4 values (ns)")
            if not isinstance(pin, _Pin) or pin.mode != _Pin.OUT:
                raise ValueError("bitstream needs an output Pin")
            bench.transmitted.setdefault(pin.id, []).append(bytes(buf))

        class BenchNeoPixel(NeoPixel):
            _bitstream = staticmethod(bitstream)

        self.machine = _MachineModule("machine")
        self.machine.Pin, self.machine.WDT = Pin, WDT
        self.machine.bitstream, self.machine.mem32 = bitstream, self.mem32
        self.neopixel = _NeoPixelModule("neopixel")
        self.neopixel.NeoPixel = BenchNeoPixel

    def now_ms(self) -> int:
        return self.clock.now_ms() if self.clock is not None else 0

    # -- what the Pin stand-in calls ------------------------------------------------------

    def claim(self, pin: _Pin) -> None:
        self.pins[pin.id] = pin

    def configure(self, pin: _Pin) -> None:
        mock = self._mock.get(pin.id)
        if mock is None:
            return
        with self.wiring.lock:
            level = self.levels.get(pin.id, 0)
            # Open-drain (rp2 emulates it): 0 drives the pin low, 1 lets it go (an input).
            if pin.mode == _Pin.OUT or (pin.mode == _Pin.OPEN_DRAIN and not level):
                mock.function = "output"
                mock.state = bool(level)
            elif pin.mode in (_Pin.IN, _Pin.OPEN_DRAIN):
                mock.function = "input"
                mock.pull = {_Pin.PULL_UP: "up", _Pin.PULL_DOWN: "down"}.get(pin.pull or -1, "floating")

    def drive(self, number: int, level: int) -> None:
        self.levels[number] = level
        pin = self.pins.get(number)
        mock = self._mock.get(number)
        if mock is None or pin is None:
            return
        if pin.mode == _Pin.OUT:
            mock.state = bool(level)
        elif pin.mode == _Pin.OPEN_DRAIN:
            self.configure(pin)

    def read(self, number: int) -> int:
        mock = self._mock.get(number)
        if mock is not None:
            return 1 if mock.state else 0
        pin = self.pins.get(number)
        if number in self.levels:
            return self.levels[number]
        if pin is not None and pin.pull == _Pin.PULL_UP:
            return 1
        return 0

    # -- what a test does ------------------------------------------------------------------

    def set_level(self, number: int, level: int) -> None:
        """A level from outside the chip on a pin (a button closing to ground is 0)."""
        self.levels[number] = level

    def release(self, number: int) -> None:
        """Nothing drives the pin from outside any more (its pull decides)."""
        self.levels.pop(number, None)

    def frames(self, pin: int) -> list[bytes]:
        """Every buffer sent down the LED chain on ``pin``, oldest first."""
        return self.transmitted.get(pin, [])


class BytesStream:
    """A USB stream stand-in made of two byte queues (for tests without a pty)."""

    def __init__(self) -> None:
        self.incoming = bytearray()  # from the Pi, not yet read by the firmware
        self.outgoing = bytearray()  # from the firmware, not yet read by the test

    def readinto(self, buf: bytearray) -> int:
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        del self.incoming[:n]
        return n

    def write(self, data: bytes | bytearray) -> int:
        self.outgoing += data
        return len(data)

    def take(self) -> bytes:
        out = bytes(self.outgoing)
        self.outgoing.clear()
        return out


class PtyStream:
    """The USB serial stream as the board's end of a :class:`crownhead.sim.serial_board.PtyEndpoint`.

    The Pi opens ``endpoint.path`` as it would ``/dev/ttyACM0``; the firmware reads and
    writes here. Unplugging the endpoint loses bytes in both directions, like a cable.
    """

    def __init__(self, endpoint: Any) -> None:
        self.endpoint = endpoint
        self._pending = bytearray()
        self.received = 0  # bytes from the Pi so far
        self.written = 0  # bytes to the Pi so far

    def readinto(self, buf: bytearray) -> int:
        if len(self._pending) < len(buf):
            data = self.endpoint.read()
            self.received += len(data)
            self._pending += data
        n = min(len(buf), len(self._pending))
        buf[:n] = self._pending[:n]
        del self._pending[:n]
        return n

    def write(self, data: bytes | bytearray) -> int:
        self.endpoint.write(bytes(data))
        self.written += len(data)
        return len(data)
