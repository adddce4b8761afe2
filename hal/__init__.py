"""The hardware layer: small interfaces over the board's switches, LEDs and buttons.

Data flows one way: sensors -> debouncer -> (move tracker) -> (game) -> (LED policy) ->
lights. This package knows nothing of checkers beyond the square numbers 1-32.

Interfaces (each a :class:`typing.Protocol`, implemented by several backends):

* :class:`~hal.sensors.Sensors` - raw occupancy as a 32-bit int and timestamped change
  events; :class:`~hal.debounce.Debouncer` decides which changes are real, the same way
  for every backend.
* :class:`~hal.lights.Lights` - whole frames ``{square: (r, g, b)}``;
  :class:`~hal.lights.FrameLimiter` merges bursts and caps the frame rate.
* :class:`~hal.buttons.Buttons` - named presses.
* :class:`~hal.clock.Clock` - milliseconds; injected everywhere time matters.

Backends: :mod:`hal.matrix` (8 x 4 diode matrix on GPIO), :mod:`hal.shift` (74HC165
chain), :mod:`hal.serial_board` (a microcontroller on USB serial, protocol in
:mod:`hal.serial_protocol`), :mod:`hal.neopixel_lights`, :mod:`hal.gpio_buttons`; the
simulator in :mod:`sim` implements the same interfaces. Hardware libraries (gpiozero,
Blinka, pyserial) are imported only by the backend modules that need them, and
:mod:`hal.lgpio_import` makes sure the Pi's pin library loads even where the current
directory is read-only (a systemd service).
:mod:`firmware.app.hardware` picks the backends from the configuration.
"""

from hal.buttons import BUTTON_NAMES, ButtonEvent, Buttons
from hal.clock import Clock, MonotonicClock, VirtualClock
from hal.debounce import DEFAULT_DEBOUNCE_MS, DebouncedSensors, Debouncer
from hal.errors import HardwareError
from hal.lights import RGB, FrameLimiter, Lights
from hal.sensors import SensorEvent, Sensors, mask_of, squares_of

__all__ = [
    "BUTTON_NAMES",
    "DEFAULT_DEBOUNCE_MS",
    "RGB",
    "ButtonEvent",
    "Buttons",
    "Clock",
    "DebouncedSensors",
    "Debouncer",
    "FrameLimiter",
    "HardwareError",
    "Lights",
    "MonotonicClock",
    "SensorEvent",
    "Sensors",
    "VirtualClock",
    "mask_of",
    "squares_of",
]
