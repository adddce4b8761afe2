"""Opening the board's hardware as configured: the one place backends are chosen.

``open_hardware(config, clock)`` returns a :class:`Hardware` bundle whose sensors,
lights, buttons, display and buzzer implement the interfaces in :mod:`crownhead.hal`, whatever the
board is made of. ``--hal`` on the command line overrides ``board.backend`` for one run.
Each backend is an entry of a table of openers (:data:`SENSORS`, :data:`LIGHTS`,
:data:`BUTTONS`, :data:`DISPLAYS`, :data:`BUZZERS`), as gpiozero chooses pin factories,
and everything opened is closed by one :class:`~contextlib.ExitStack`, in reverse.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crownhead.firmware.config import Config, ConfigError, FieldError, load_config
from crownhead.firmware.events import MoveMade, NewGame
from crownhead.firmware.config.hardware import BACKENDS, SimConfig, buttons_backend, check_pins, lights_backend
from crownhead.hal.buttons import ButtonEvent, Buttons, NullButtons
from crownhead.hal.buzzer import Buzzer
from crownhead.hal.clock import Clock
from crownhead.hal.debounce import DebouncedSensors
from crownhead.hal.display import Display
from crownhead.hal.errors import HardwareError
from crownhead.hal.lights import FrameLimiter, Lights, NullLights
from crownhead.hal.pi import header_console
from crownhead.hal.pixelmap import build_pixel_map
from crownhead.hal.sensors import Sensors
from crownhead.rules import Game
from crownhead.sim.board import SimBoard

if TYPE_CHECKING:
    from crownhead.hal.serial_board import SerialBoard

__all__ = [
    "Hardware",
    "TappedButtons",
    "tidy_hand",
    "open_hardware",
    "Opening",
    "SENSORS",
    "LIGHTS",
    "BUTTONS",
    "DISPLAYS",
    "BUZZERS",
    "make_sim",
    "START_POSITION",
    "add_hardware_arguments",
    "add_sim_arguments",
    "config_from_args",
    "open_from_args",
    "effective_backend",
]

log = logging.getLogger(__name__)

# Tokens for the simulator's "start" position. Opaque to the simulator: they are only
# labels a display can show; squares 1-12 and 21-32 are where the men stand.
START_POSITION: dict[int, str] = {
    **{sq: "b" for sq in range(1, 13)},
    **{sq: "w" for sq in range(21, 33)},
}


@dataclass
class Hardware:
    """The opened board. ``lights`` is rate-limited: call ``lights.flush()`` from the
    main loop (at the latest at ``lights.next_deadline()``) so a merged frame goes out."""

    sensors: Sensors
    lights: FrameLimiter
    buttons: Buttons
    clock: Clock
    backend: str
    debounce_ms: int
    sim: SimBoard | None = None
    #: A board with its own microcontroller: its serial link, for connection status.
    link: SerialBoard | None = None
    #: The display beside the board, None without one.
    display: Display | None = None
    #: The buzzer, None without one.
    buzzer: Buzzer | None = None
    #: Optional parts configured but not working, said once when the board starts.
    faults: list[str] = field(default_factory=list)
    #: Closes every part opened, the last first.
    _closers: ExitStack = field(default_factory=ExitStack, repr=False)

    def debounced(self) -> DebouncedSensors:
        """The sensors through a debouncer with the configured ``debounce_ms``."""
        return DebouncedSensors(self.sensors, self.clock, self.debounce_ms)

    def diagnose(self) -> list[str]:
        """Faults the sensor backend can detect electrically by itself."""
        diagnose = getattr(self.sensors, "diagnose", None)
        return list(diagnose()) if diagnose is not None else []

    def close(self) -> None:
        """LEDs off, threads stopped, pins and ports released. Idempotent."""
        self._closers.close()

    def __enter__(self) -> Hardware:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TappedButtons:
    """The board's buttons as the controller sees them, with the app listening in.

    The tracker handles the game's buttons; the app needs ``hint`` (and to know of the
    rest), without a second poll racing the controller's.
    """

    def __init__(self, buttons: Buttons, on_press: Callable[[ButtonEvent], bool | None]) -> None:
        self.buttons = buttons
        self.on_press = on_press
        self.injected: list[ButtonEvent] = []

    def poll(self) -> list[ButtonEvent]:
        presses = self.buttons.poll()
        if self.injected:
            presses, self.injected = list(presses) + self.injected, []
        # A press the app answers itself (returns False) does not reach the tracker.
        return [press for press in presses if self.on_press(press) is not False]


def tidy_hand(sim: SimBoard, event: MoveMade | NewGame, game: Game) -> None:
    """The simulator's hands put taken pieces beside the board, not in the hand: the
    pieces a move captured leave it, and a new game begins with the hand empty."""
    if isinstance(event, NewGame):
        sim.hand.clear()
        return
    positions = game.positions
    before = positions[-2] if len(positions) > 1 else None
    for square in event.captures:
        piece = before.piece_at(square) if before is not None else None
        if piece is not None and square not in sim.pieces and piece.symbol in sim.hand:
            sim.hand.remove(piece.symbol)  # the first such: the jumper, if held, is the last


def make_sim(settings: SimConfig, clock: Clock) -> SimBoard:
    """A simulated board set up as ``[sim]`` says, faults included."""
    board = SimBoard(clock)
    if settings.position == "start":
        board.set_position(START_POSITION)
    for sq in settings.stuck_closed:
        board.stick(sq, True)
    for sq in settings.stuck_open:
        board.stick(sq, False)
    for a, b in settings.swap:
        board.swap_wires(a, b)
    for sq in settings.dead_leds:
        board.kill_led(sq)
    return board


@dataclass
class Opening:
    """What the openers of :func:`open_hardware` are given: the configuration, the clock,
    the injected parts, and the parts opened before theirs (the simulated board, a
    serial board's link, whose lights and buttons come with it)."""

    config: Config
    clock: Clock
    backend: str
    start: bool = True
    pin_factory: Any = None
    serial_opener: Callable[[], Any] | None = None
    neopixel: Any = None
    sim: SimBoard | None = None
    link: SerialBoard | None = None


def _sim_sensors(o: Opening) -> Sensors:
    o.sim = make_sim(o.config.sim, o.clock)
    return o.sim.sensors


def _matrix_sensors(o: Opening) -> Sensors:
    from crownhead.hal.matrix import MatrixSensors

    m = o.config.matrix
    return MatrixSensors(m.rows, m.cols, o.clock, scan_hz=m.scan_hz, settle_us=m.settle_us, pin_factory=o.pin_factory)


def _shift_sensors(o: Opening) -> Sensors:
    from crownhead.hal.shift import ShiftRegisterSensors

    s = o.config.shift
    return ShiftRegisterSensors(
        s.load_pin,
        s.clock_pin,
        s.data_pin,
        o.clock,
        squares=s.squares or None,
        active_low=s.active_low,
        check_bits=s.check_bits,
        scan_hz=s.scan_hz,
        settle_us=s.settle_us,
        pin_factory=o.pin_factory,
    )


def _serial_sensors(o: Opening) -> Sensors:
    from crownhead.hal.serial_board import SerialBoard

    c = o.config.serial
    o.link = SerialBoard(
        c.port,
        o.clock,
        baudrate=c.baudrate,
        reconnect_ms=c.reconnect_ms,
        silence_ms=c.silence_ms,
        brightness=o.config.lights.brightness,
        button_lockout_ms=o.config.buttons.bounce_ms,
        opener=o.serial_opener,
    )
    return o.link.sensors


def _neopixel_lights(o: Opening) -> Lights:
    from crownhead.hal.neopixel_lights import NeoPixelLights

    lc = o.config.lights
    return NeoPixelLights(
        build_pixel_map(lc.pixels, lc.map, lc.origin),
        data_pin=lc.data_pin,
        pixel_order=lc.pixel_order,
        brightness=lc.brightness,
        pixels=o.neopixel,
    )


def _gpio_buttons(o: Opening) -> Buttons:
    from crownhead.hal.gpio_buttons import GpioButtons

    b = o.config.buttons
    return GpioButtons(b.pins, o.clock, bounce_ms=b.bounce_ms, hold_ms=b.hold_ms, pin_factory=o.pin_factory)


def _sim_display(o: Opening) -> Display:
    from crownhead.sim.display import SimDisplay

    return SimDisplay(o.config.display.width, o.config.display.height)


def _luma_display(o: Opening) -> Display:
    from crownhead.hal.luma_display import LumaDisplay

    dc = o.config.display
    # Opened at the first frame: a display absent now is reported by the painter, and
    # used as soon as it answers.
    return LumaDisplay(dc.driver, port=dc.port, address=dc.address, width=dc.width, height=dc.height, rotate=dc.rotate)


def _sim_buzzer(o: Opening) -> Buzzer:
    from crownhead.sim.buzzer import SimBuzzer

    return SimBuzzer(o.clock)  # silent: the terminal rings only with [sim] sound


def _gpio_buzzer(o: Opening) -> Buzzer:
    from crownhead.hal.buzzer import GpioBuzzer

    b = o.config.buzzer
    return GpioBuzzer(b.pin, b.kind, volume=b.volume, pin_factory=o.pin_factory)


def _link(o: Opening) -> SerialBoard:
    assert o.link is not None, "a serial board's parts come with its link"
    return o.link


def _sim(o: Opening) -> SimBoard:
    assert o.sim is not None, "the simulator's parts come with the simulated board"
    return o.sim


#: The openers, as gpiozero's pin factories: the backend's name -> a function of the
#: :class:`Opening` returning the part (heavy libraries are imported by the opener, so
#: that a board loads only its own). A new backend is one more entry.
SENSORS: dict[str, Callable[[Opening], Sensors]] = {
    "sim": _sim_sensors,
    "gpio": _matrix_sensors,
    "shift": _shift_sensors,
    "serial": _serial_sensors,
}
LIGHTS: dict[str, Callable[[Opening], Lights]] = {
    "sim": lambda o: _sim(o).lights,
    "neopixel": _neopixel_lights,
    "serial": lambda o: _link(o).lights,
    "none": lambda o: NullLights(),
}
BUTTONS: dict[str, Callable[[Opening], Buttons]] = {
    "sim": lambda o: _sim(o).buttons,
    "gpio": _gpio_buttons,
    "serial": lambda o: _link(o).buttons,
    "none": lambda o: NullButtons(),
}
#: The display by where it is: on the simulated board, or a driver on the Pi's I2C.
DISPLAYS: dict[str, Callable[[Opening], Display]] = {"sim": _sim_display, "i2c": _luma_display}
BUZZERS: dict[str, Callable[[Opening], Buzzer]] = {"sim": _sim_buzzer, "gpio": _gpio_buzzer}


def _closing(stack: ExitStack, part: Sensors | Lights | Buttons | Display | Buzzer) -> None:
    """Close ``part`` with the rest, its failure logged: closing the rest matters more."""

    def close() -> None:
        try:
            part.close()
        except Exception:
            log.exception("error while closing %s", type(part).__name__)

    stack.callback(close)


def open_hardware(
    config: Config,
    clock: Clock,
    *,
    hal: str | None = None,
    start: bool = True,
    pin_factory: Any = None,
    serial_opener: Callable[[], Any] | None = None,
    neopixel: Any = None,
    system: str | os.PathLike[str] = "/",
) -> Hardware:
    """Open the backends ``config`` selects (``hal`` overrides ``board.backend``), each by
    its opener in :data:`SENSORS`, :data:`LIGHTS`, :data:`BUTTONS`, :data:`DISPLAYS` and
    :data:`BUZZERS`; what was opened before a failure is closed again.

    ``start=False`` leaves scanning threads stopped (tests drive them by hand).
    ``pin_factory``, ``serial_opener`` and ``neopixel`` inject a gpiozero pin factory,
    a serial port opener and a NeoPixel object instead of the real ones; ``system`` is
    where the running Pi's /proc and /sys are read (``board.serial_console = "auto"``).
    Raises :class:`ConfigError` for a configuration that does not fit the chosen
    backend, :class:`HardwareError` when a device cannot be opened.
    """
    backend = hal or config.board.backend
    if backend not in BACKENDS:
        raise ConfigError(f"unknown hardware backend {backend!r} (choose from {', '.join(BACKENDS)})")
    try:
        console = header_console(system) if config.board.serial_console == "auto" and backend != "sim" else None
        check_pins(config, backend, console=console)
        lights_kind = lights_backend(config, backend)
        buttons_kind = buttons_backend(config, backend)
    except FieldError as exc:
        raise ConfigError(exc.message, path=config.path, key=exc.key) from None
    o = Opening(config, clock, backend, start, pin_factory, serial_opener, neopixel)
    faults: list[str] = []
    with ExitStack() as stack:
        try:
            sensors = SENSORS[backend](o)
            _closing(stack, sensors)
            if start and hasattr(sensors, "start"):
                sensors.start()
            if start and o.link is not None:
                o.link.start()
            lights = LIGHTS[lights_kind](o)
            _closing(stack, lights)
            buttons = BUTTONS[buttons_kind](o)
            _closing(stack, buttons)
            display: Display | None = None
            if config.display.driver != "none":
                display = DISPLAYS["sim" if backend == "sim" else "i2c"](o)
                _closing(stack, display)
            buzzer: Buzzer | None = None
            if backend == "sim" or config.buzzer.kind != "none":
                try:
                    buzzer = BUZZERS["sim" if backend == "sim" else "gpio"](o)
                    _closing(stack, buzzer)
                except HardwareError as exc:
                    # Optional: reported once, and the board goes on without sound.
                    faults.append(f"{exc}; the board goes on without sound")
                    log.error("%s", faults[-1])
        except HardwareError:
            raise
        except Exception as exc:  # a driver's own exception: keep its text, add context
            raise HardwareError(f"cannot open the {backend} hardware: {type(exc).__name__}: {exc}") from exc
        return Hardware(
            sensors=sensors,
            lights=FrameLimiter(lights, clock, max_fps=config.lights.max_fps),
            buttons=buttons,
            clock=clock,
            backend=backend,
            debounce_ms=config.sensors.debounce_ms,
            sim=o.sim,
            link=o.link,
            display=display,
            buzzer=buzzer,
            faults=faults,
            _closers=stack.pop_all(),
        )


# -- command-line plumbing ----------------------------------------------------------------


def add_hardware_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config PATH`` and ``--hal BACKEND``, shared by every command that opens the board."""
    group = parser.add_argument_group("hardware")
    group.add_argument(
        "--config",
        metavar="PATH",
        default=None,
        help="configuration file (default: $CROWNHEAD_CONFIG or /etc/crownhead/config.toml; "
        "without one, the simulator)",
    )
    group.add_argument(
        "--hal",
        choices=BACKENDS,
        default=None,
        help="switch hardware to use, overriding board.backend in the configuration",
    )


def _square(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 2):
        raise argparse.ArgumentTypeError(f"not a square number: {text[:24]!r}")
    sq = int(text)
    if not 1 <= sq <= 32:
        raise argparse.ArgumentTypeError(f"square must be 1-32, got {sq}")
    return sq


def _squares(text: str) -> list[int]:
    return [_square(part) for part in text.split(",") if part.strip()]


def _pair(text: str) -> tuple[int, int]:
    parts = _squares(text)
    if len(parts) != 2 or parts[0] == parts[1]:
        raise argparse.ArgumentTypeError(f"expected two different squares like 5,6; got {text!r}")
    return parts[0], parts[1]


def add_sim_arguments(parser: argparse.ArgumentParser) -> None:
    """Options that set up the simulated board and inject faults (``[sim]`` on the fly)."""
    group = parser.add_argument_group("simulator (with --hal sim)")
    group.add_argument(
        "--sim-stuck",
        metavar="SQ[,SQ]",
        type=_squares,
        action="append",
        default=[],
        help="switch of square SQ stuck closed (reads occupied whatever stands there)",
    )
    group.add_argument(
        "--sim-stuck-open",
        metavar="SQ[,SQ]",
        type=_squares,
        action="append",
        default=[],
        help="switch of square SQ never closes",
    )
    group.add_argument(
        "--sim-swap",
        metavar="A,B",
        type=_pair,
        action="append",
        default=[],
        help="switches of squares A and B wired to each other's input",
    )
    group.add_argument(
        "--sim-dead-led",
        metavar="SQ[,SQ]",
        type=_squares,
        action="append",
        default=[],
        help="LED under square SQ is dead",
    )
    group.add_argument("--sim-empty", action="store_true", help="start with an empty board")


def _flat(lists: list[list[int]]) -> tuple[int, ...]:
    return tuple(sq for part in lists for sq in part)


def config_from_args(args: argparse.Namespace) -> Config:
    """Load ``--config`` and apply the ``--sim-*`` options. Raises :class:`ConfigError`."""
    config = load_config(args.config)
    changes: dict[str, Any] = {}
    if getattr(args, "sim_stuck", None):
        changes["stuck_closed"] = tuple(config.sim.stuck_closed) + _flat(args.sim_stuck)
    if getattr(args, "sim_stuck_open", None):
        changes["stuck_open"] = tuple(config.sim.stuck_open) + _flat(args.sim_stuck_open)
    if getattr(args, "sim_swap", None):
        changes["swap"] = tuple(config.sim.swap) + tuple(args.sim_swap)
    if getattr(args, "sim_dead_led", None):
        changes["dead_leds"] = tuple(config.sim.dead_leds) + _flat(args.sim_dead_led)
    if getattr(args, "sim_empty", False):
        changes["position"] = "empty"
    if changes:
        backend = getattr(args, "hal", None) or config.board.backend
        if backend != "sim":
            raise ConfigError(f"the --sim-* options need the simulator (--hal sim); the backend is {backend!r}")
        config = config.replace("sim", **changes)
    return config


def open_from_args(args: argparse.Namespace, clock: Clock, **kwargs: Any) -> Hardware:
    """:func:`config_from_args` then :func:`open_hardware` with ``--hal``."""
    config = config_from_args(args)
    return open_hardware(config, clock, hal=getattr(args, "hal", None), **kwargs)


def effective_backend(args: argparse.Namespace) -> str:
    """The backend a command will use, without opening anything (loads the config)."""
    return getattr(args, "hal", None) or load_config(args.config).board.backend
