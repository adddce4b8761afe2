"""The board's hardware sections: which switches, LEDs, buttons, display and buzzer it
has and on which pins, and the simulated board; the backends in effect and every GPIO
claimed, checked across sections so that no pin is used twice.

They describe parts of :mod:`crownhead.hal` and :mod:`crownhead.sim` by pin and square number only, so they
sit in the configuration's own tier; :mod:`crownhead.firmware.app.hardware` opens what they name.

>>> from crownhead.firmware.config import parse_config
>>> config = parse_config({"board": {"backend": "gpio"}})
>>> lights_backend(config), buttons_backend(config), used_pins(config)[0]
('neopixel', 'gpio', ('matrix.rows[0]', 4))
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from crownhead.firmware.config import PIN_MAX, PIN_MIN, Config, FieldError, config_section, register_check
from crownhead.hal.buttons import BUTTON_NAMES
from crownhead.hal.debounce import DEFAULT_DEBOUNCE_MS
from crownhead.hal.lights import DEFAULT_BRIGHTNESS
from crownhead.hal.neopixel_lights import PIXEL_ORDERS
from crownhead.hal.pixelmap import build_pixel_map

__all__ = [
    "BoardConfig",
    "SensorsConfig",
    "MatrixConfig",
    "ShiftConfig",
    "SerialConfig",
    "LightsConfig",
    "ButtonsConfig",
    "SimConfig",
    "DisplayConfig",
    "BuzzerConfig",
    "DISPLAY_DRIVERS",
    "I2C_PINS",
    "BACKENDS",
    "CONSOLE_PINS",
    "lights_backend",
    "buttons_backend",
    "used_pins",
    "check_pins",
]

BACKENDS = ("sim", "gpio", "shift", "serial")
#: The UART's pins on the 40-pin header, where the serial console runs when it is on.
CONSOLE_PINS = {14: "TX", 15: "RX"}


def _check_pin(key: str, pin: int) -> None:
    if not PIN_MIN <= pin <= PIN_MAX:
        raise FieldError(
            key,
            f"GPIO{pin} is not on the Raspberry Pi 40-pin header (use BCM numbers {PIN_MIN}-{PIN_MAX})",
        )


def _check_range(key: str, value: float, lo: float, hi: float) -> None:
    if not lo <= value <= hi:
        raise FieldError(key, f"must be between {lo} and {hi}, got {value}")


@config_section("board")
@dataclass(frozen=True)
class BoardConfig:
    """Which switch hardware the board has."""

    backend: Literal["sim", "gpio", "shift", "serial"] = "sim"
    #: Is the Linux serial console on the UART's pins, GPIO14 (TX) and GPIO15 (RX)?
    #: "auto": the running Pi says, when the hardware is opened (:func:`crownhead.hal.pi.header_console`);
    #: "on" or "off" to say so instead. Buttons may use those pins only while it is off.
    serial_console: Literal["auto", "on", "off"] = "auto"


@config_section("sensors")
@dataclass(frozen=True)
class SensorsConfig:
    """Settings shared by every switch backend."""

    debounce_ms: int = DEFAULT_DEBOUNCE_MS

    def validate(self) -> None:
        _check_range("debounce_ms", self.debounce_ms, 0, 1000)


@config_section("matrix")
@dataclass(frozen=True)
class MatrixConfig:
    """8 x 4 diode matrix on GPIO (``board.backend = "gpio"``)."""

    rows: tuple[int, ...] = (4, 17, 27, 22, 5, 6, 13, 19)
    cols: tuple[int, ...] = (23, 24, 25, 12)
    scan_hz: float = 250.0
    settle_us: int = 10

    def validate(self) -> None:
        if len(self.rows) != 8:
            raise FieldError("rows", f"needs 8 pins (one per rank), got {len(self.rows)}")
        if len(self.cols) != 4:
            raise FieldError("cols", f"needs 4 pins (one per dark square of a rank), got {len(self.cols)}")
        for key, pins in (("rows", self.rows), ("cols", self.cols)):
            for i, pin in enumerate(pins):
                _check_pin(f"{key}[{i}]", pin)
        _no_duplicates("matrix", {"rows": self.rows, "cols": self.cols})
        _check_range("scan_hz", self.scan_hz, 0, 5000)
        _check_range("settle_us", self.settle_us, 0, 1000)


@config_section("shift")
@dataclass(frozen=True)
class ShiftConfig:
    """Four chained 74HC165 (``board.backend = "shift"``)."""

    load_pin: int = 4
    clock_pin: int = 17
    data_pin: int = 27
    squares: tuple[int, ...] = ()  # chain order; empty = bit n is square n + 1
    active_low: bool = True
    check_bits: int = 8
    scan_hz: float = 250.0
    settle_us: int = 1

    def validate(self) -> None:
        pins = {"load_pin": self.load_pin, "clock_pin": self.clock_pin, "data_pin": self.data_pin}
        for key, pin in pins.items():
            _check_pin(key, pin)
        _no_duplicates("shift", pins)
        if self.squares:
            if len(self.squares) != 32:
                raise FieldError("squares", f"needs 32 entries (one per register input), got {len(self.squares)}")
            if sorted(self.squares) != list(range(1, 33)):
                raise FieldError("squares", "must list every square 1-32 exactly once")
        _check_range("check_bits", self.check_bits, 0, 64)
        _check_range("scan_hz", self.scan_hz, 0, 5000)
        _check_range("settle_us", self.settle_us, 0, 1000)


@config_section("serial")
@dataclass(frozen=True)
class SerialConfig:
    """A board with its own microcontroller on USB serial (``board.backend = "serial"``)."""

    port: str = "/dev/ttyACM0"
    baudrate: int = 115200
    reconnect_ms: int = 1000
    silence_ms: int = 3000

    def validate(self) -> None:
        if not self.port.strip():
            raise FieldError("port", "must name a serial device, e.g. /dev/ttyACM0")
        if self.baudrate not in (
            9600,
            19200,
            38400,
            57600,
            115200,
            230400,
            460800,
            921600,
            1000000,
            2000000,
        ):
            raise FieldError("baudrate", f"{self.baudrate} is not a standard rate (e.g. 115200)")
        _check_range("reconnect_ms", self.reconnect_ms, 50, 60000)
        _check_range("silence_ms", self.silence_ms, 1500, 60000)


@config_section("lights")
@dataclass(frozen=True)
class LightsConfig:
    """The LEDs under the squares."""

    backend: Literal["auto", "neopixel", "serial", "none"] = "auto"
    data_pin: int = 10  # SPI MOSI: no root needed on a Pi 1-4, any pin works on a Pi 5
    pixels: int = 32
    map: str | tuple[int | str, ...] = "row-major"
    origin: Literal["a8", "h8", "a1", "h1"] = "a8"
    pixel_order: str = "GRB"
    brightness: float = DEFAULT_BRIGHTNESS
    max_fps: float = 30.0

    def validate(self) -> None:
        _check_pin("data_pin", self.data_pin)
        if self.pixels not in (32, 64):
            raise FieldError("pixels", f"must be 32 (dark squares) or 64 (every square), got {self.pixels}")
        if isinstance(self.map, str) and self.map not in ("row-major", "serpentine"):
            raise FieldError("map", f'must be "row-major", "serpentine" or a list of squares, got "{self.map}"')
        try:
            build_pixel_map(self.pixels, self.map, self.origin)
        except ValueError as exc:
            raise FieldError("map", str(exc)) from None
        if self.pixel_order not in PIXEL_ORDERS:
            raise FieldError("pixel_order", f'must be one of {", ".join(PIXEL_ORDERS)}, got "{self.pixel_order}"')
        if not 0.0 < self.brightness <= 1.0:
            raise FieldError("brightness", f"must be greater than 0 and at most 1.0, got {self.brightness}")
        _check_range("max_fps", self.max_fps, 1, 120)


@config_section("buttons")
@dataclass(frozen=True)
class ButtonsConfig:
    """Push buttons: name -> GPIO (each button between its pin and ground)."""

    backend: Literal["auto", "gpio", "serial", "none"] = "auto"
    pins: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType(
            {"new": 16, "hint": 20, "takeback": 21, "claim": 26, "black": 14, "white": 15}
        )
    )
    bounce_ms: int = 50
    #: A press of resign or of a side's own button held this long is a long press.
    hold_ms: int = 1500

    def validate(self) -> None:
        for name, pin in self.pins.items():
            if name not in BUTTON_NAMES:
                close = difflib.get_close_matches(name, BUTTON_NAMES, n=1)
                hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(BUTTON_NAMES)}"
                raise FieldError(f"pins.{name}", f"unknown button ({hint})")
            _check_pin(f"pins.{name}", pin)
        _no_duplicates("buttons", {f"pins.{n}": p for n, p in self.pins.items()})
        _check_range("bounce_ms", self.bounce_ms, 0, 1000)
        _check_range("hold_ms", self.hold_ms, 300, 10000)


#: The display drivers: luma.oled device classes for 128x64 I2C OLEDs.
DISPLAY_DRIVERS = ("none", "ssd1306", "sh1106")
#: The addresses these controllers answer on (set by a jumper or solder bridge).
DISPLAY_ADDRESSES = (0x3C, 0x3D)
#: I2C bus -> its (SDA, SCL) GPIO pins on the 40-pin header.
I2C_PINS = {1: (2, 3)}


@config_section("display")
@dataclass(frozen=True)
class DisplayConfig:
    """A small OLED beside the board (I2C): clocks, whose move, messages, the result."""

    driver: str = "none"
    port: int = 1
    address: int = 0x3C
    width: int = 128
    height: int = 64
    rotate: int = 0
    #: Frames per second at most (redrawn only on change).
    max_fps: float = 4.0
    #: How often an absent display is looked for again.
    retry_ms: int = 5000

    def validate(self) -> None:
        if self.driver not in DISPLAY_DRIVERS:
            close = difflib.get_close_matches(self.driver, DISPLAY_DRIVERS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise FieldError(
                "driver", f'unknown display driver "{self.driver}"{hint}: one of {", ".join(DISPLAY_DRIVERS)}'
            )
        if self.port not in I2C_PINS:
            raise FieldError("port", f"I2C bus {self.port} is not on the header pins; use 1 (GPIO2/3)")
        if self.address not in DISPLAY_ADDRESSES:
            raise FieldError(
                "address",
                f"0x{self.address:02X} is not an address an SSD1306 or SH1106 answers on "
                "(0x3C, or 0x3D with its address jumper moved; `i2cdetect -y 1` shows it)",
            )
        if (self.width, self.height) != (128, 64):
            raise FieldError("width", f"only 128x64 displays are supported, got {self.width}x{self.height}")
        if self.rotate not in (0, 1, 2, 3):
            raise FieldError("rotate", f"must be 0-3 (quarter turns), got {self.rotate}")
        _check_range("max_fps", self.max_fps, 0.5, 30)
        _check_range("retry_ms", self.retry_ms, 100, 600000)


@config_section("buzzer")
@dataclass(frozen=True)
class BuzzerConfig:
    """An optional buzzer: "passive" (a piezo driven with tones) or "active" (on/off)."""

    kind: str = "none"
    pin: int = 18
    #: 0 (silent) - 1; an active buzzer is only on or off (any volume above 0 is on).
    volume: float = 0.5

    def validate(self) -> None:
        if self.kind not in ("none", "passive", "active"):
            raise FieldError("kind", f'must be "none", "passive" or "active", got "{self.kind}"')
        _check_pin("pin", self.pin)
        _check_range("volume", self.volume, 0.0, 1.0)


@config_section("sim")
@dataclass(frozen=True)
class SimConfig:
    """The simulated board (``board.backend = "sim"``), including injected faults."""

    position: Literal["start", "empty"] = "start"
    stuck_closed: tuple[int, ...] = ()
    stuck_open: tuple[int, ...] = ()
    swap: tuple[tuple[int, ...], ...] = ()
    dead_leds: tuple[int, ...] = ()
    hand_bounces: int = 2
    #: The simulated buzzer rings the terminal's bell (it is silent unless asked).
    sound: bool = False

    def validate(self) -> None:
        for key in ("stuck_closed", "stuck_open", "dead_leds"):
            for sq in getattr(self, key):
                if not 1 <= sq <= 32:
                    raise FieldError(key, f"square must be 1-32, got {sq}")
        both = set(self.stuck_closed) & set(self.stuck_open)
        if both:
            raise FieldError("stuck_open", f"square {min(both)} cannot be stuck both closed and open")
        seen: set[int] = set()
        for pair in self.swap:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise FieldError(
                    "swap",
                    f"each entry is a pair of two different squares, like [5, 6]; got {list(pair)}",
                )
            for sq in pair:
                if not 1 <= sq <= 32:
                    raise FieldError("swap", f"square must be 1-32, got {sq}")
                if sq in seen:
                    raise FieldError("swap", f"square {sq} appears in two swaps")
                seen.add(sq)
        _check_range("hand_bounces", self.hand_bounces, 0, 10)


def _no_duplicates(section: str, groups: Mapping[str, int | tuple[int, ...]]) -> None:
    """Refuse a GPIO claimed twice within ``[section]``; a list's entries by index."""
    owner: dict[int, str] = {}
    for key, value in groups.items():
        entries = [(f"{key}[{i}]", pin) for i, pin in enumerate(value)] if isinstance(value, tuple) else [(key, value)]
        for name, pin in entries:
            if pin in owner:
                if owner[pin].split("[")[0] == key:
                    raise FieldError(name, f"GPIO{pin} is listed twice (also {section}.{owner[pin]})")
                raise FieldError(name, f"GPIO{pin} is also used by {section}.{owner[pin]}")
            owner[pin] = name


# -- backend resolution and whole-board pin checks ---------------------------------------


def lights_backend(config: Config, backend: str | None = None) -> str:
    """The LED backend in effect: "sim", "neopixel", "serial" or "none".

    The simulator is a whole board: with it (``board.backend = "sim"`` or ``--hal
    sim``) the LEDs are always the simulator's, whatever ``lights.backend`` says for
    the real board. Otherwise ``--hal sim`` on a Pi's configuration would drive the
    real strip, or no LEDs at all, behind simulated switches.
    """
    board = backend or config.board.backend
    chosen = config.lights.backend
    if board == "sim":
        return "sim"
    if chosen == "auto":
        return {"gpio": "neopixel", "shift": "neopixel", "serial": "serial"}[board]
    if chosen == "serial" and board != "serial":
        raise FieldError("lights.backend", f'"serial" needs board.backend = "serial" (it is "{board}")')
    return chosen


def buttons_backend(config: Config, backend: str | None = None) -> str:
    """The button backend in effect: "sim", "gpio", "serial" or "none".

    As for the LEDs, the simulator always brings its own buttons.
    """
    board = backend or config.board.backend
    chosen = config.buttons.backend
    if board == "sim":
        return "sim"
    if chosen == "auto":
        if board == "serial":
            return "serial"
        return "gpio" if config.buttons.pins else "none"
    if chosen == "serial" and board != "serial":
        raise FieldError("buttons.backend", f'"serial" needs board.backend = "serial" (it is "{board}")')
    return chosen


def used_pins(config: Config, backend: str | None = None) -> list[tuple[str, int]]:
    """(key, GPIO) for every pin the chosen backends will claim."""
    board = backend or config.board.backend
    pins: list[tuple[str, int]] = []
    if board == "gpio":
        pins += [(f"matrix.rows[{i}]", p) for i, p in enumerate(config.matrix.rows)]
        pins += [(f"matrix.cols[{i}]", p) for i, p in enumerate(config.matrix.cols)]
    elif board == "shift":
        s = config.shift
        pins += [
            ("shift.load_pin", s.load_pin),
            ("shift.clock_pin", s.clock_pin),
            ("shift.data_pin", s.data_pin),
        ]
    if lights_backend(config, board) == "neopixel":
        pins.append(("lights.data_pin", config.lights.data_pin))
    if buttons_backend(config, board) == "gpio":
        pins += [(f"buttons.pins.{n}", p) for n, p in config.buttons.pins.items()]
    if board != "sim":
        if config.display.driver != "none":
            sda, scl = I2C_PINS[config.display.port]
            pins += [("display.port", sda), ("display.port", scl)]
        if config.buzzer.kind != "none":
            pins.append(("buzzer.pin", config.buzzer.pin))
    return pins


def check_pins(config: Config, backend: str | None = None, *, console: str | None = None) -> None:
    """Raise :class:`FieldError` if two parts of the board would claim one GPIO, or a
    button would sit on the serial console's pins while the console is on.

    The console is on when ``board.serial_console`` says "on", or says "auto" and
    ``console`` names the UART it was found on (:func:`crownhead.hal.pi.header_console`, read when
    the hardware is opened: a file checked elsewhere cannot tell).
    """
    declared = config.board.serial_console
    console_on = declared == "on" or (declared == "auto" and console is not None)
    owner: dict[int, str] = {}
    for key, pin in used_pins(config, backend):
        if pin in owner:
            raise FieldError(key.split("[")[0], f"GPIO{pin} is also used by {owner[pin]}")
        owner[pin] = key
        if console_on and key.startswith("buttons.pins.") and pin in CONSOLE_PINS:
            # The console's TX is a driven output from power-on, and what is pressed on
            # RX is typed into its login prompt.
            found = (
                f"this Pi's serial console runs on it ({console})"
                if declared == "auto"
                else ('the configuration says the serial console is on it (board.serial_console = "on")')
            )
            undo = "" if declared == "auto" else ', then set board.serial_console = "auto"'
            raise FieldError(
                key,
                f"GPIO{pin} is the UART's {CONSOLE_PINS[pin]} pin and {found}: a press would pull "
                "the console's line to ground. Turn the console off: "
                f"sudo raspi-config nonint do_serial_cons 1 and reboot{undo}; or move the button to a free pin",
            )


@register_check
def _check_board(config: Config) -> None:
    check_pins(config)
    lights = config.lights
    if (
        config.board.backend != "sim"
        and lights_backend(config) == "serial"
        and (lights.map != "row-major" or lights.origin != "a8")
    ):
        # The Pi sends a serial board its frames square by square; the board maps them.
        raise FieldError(
            "lights.map",
            "a serial board lays out its own LED chain: set LED_MAP and LED_ORIGIN beside "
            "the pin table in crownhead_board.py (crownhead mcu install copies it), not "
            "lights.map and lights.origin",
        )
