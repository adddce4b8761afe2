"""The hardware layer: small interfaces over the board's switches, LEDs and buttons.

Data flows one way: sensors -> debouncer -> (move tracker) -> (game) -> (LED policy) ->
lights. This package knows nothing of checkers beyond the square numbers 1-32.

Interfaces (each a :class:`typing.Protocol`, implemented by several backends):

* :class:`~crownhead.hal.sensors.Sensors` - raw occupancy as a 32-bit int and timestamped change
  events; :class:`~crownhead.hal.debounce.Debouncer` decides which changes are real, the same way
  for every backend.
* :class:`~crownhead.hal.lights.Lights` - whole frames ``{square: (r, g, b)}``;
  :class:`~crownhead.hal.lights.FrameLimiter` merges bursts and caps the frame rate.
* :class:`~crownhead.hal.buttons.Buttons` - named presses.
* :class:`~crownhead.hal.clock.Clock` - milliseconds; injected everywhere time matters.

Backends: :mod:`crownhead.hal.matrix` (8 x 4 diode matrix on GPIO), :mod:`crownhead.hal.shift` (74HC165
chain), :mod:`crownhead.hal.serial_board` (a microcontroller on USB serial, protocol in
:mod:`crownhead.hal.serial_protocol`), :mod:`crownhead.hal.neopixel_lights`, :mod:`crownhead.hal.gpio_buttons`; the
simulator in :mod:`crownhead.sim` implements the same interfaces. Hardware libraries (gpiozero,
Blinka, pyserial) are imported only by the backend modules that need them, and
:mod:`crownhead.hal.lgpio_import` makes sure the Pi's pin library loads even where the current
directory is read-only (a systemd service).
:mod:`crownhead.firmware.app.hardware` picks the backends from the configuration.
"""

from crownhead.hal.buttons import BUTTON_NAMES, ButtonEvent, Buttons
from crownhead.hal.clock import Clock, MonotonicClock, VirtualClock
from crownhead.hal.debounce import DEFAULT_DEBOUNCE_MS, DebouncedSensors, Debouncer
from crownhead.hal.errors import HardwareError
from crownhead.hal.lights import RGB, FrameLimiter, Lights
from crownhead.hal.sensors import SensorEvent, Sensors, mask_of, squares_of

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
