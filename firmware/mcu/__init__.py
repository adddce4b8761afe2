"""The board's own microcontroller: MicroPython firmware for a Raspberry Pi Pico, and the
Pi-side tools around it.

``pico/`` holds the files copied onto the Pico (``main.py`` and ``crownhead_board.py``,
MicroPython 1.29; not a package, not imported by the rest of Crownhead).
:mod:`crownhead.firmware.mcu.standins` replaces MicroPython's ``machine``, ``neopixel`` and the USB
stream so that the same firmware file runs on CPython in tests;
:mod:`crownhead.firmware.mcu.conformance` checks any board (the firmware, the emulator in
``sim/``, a real Pico on a port) against serial protocol version 1;
:mod:`crownhead.firmware.mcu.install` copies the firmware with mpremote. The ``crownhead mcu``
command wires them up. A library beside the application: it imports ``hal`` and
``sim`` only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

__all__ = [
    "FIRMWARE_DIR",
    "FIRMWARE_FILES",
    "MICROPYTHON_VERSION",
    "PICO_HEADER",
    "PICO_GROUND_PINS",
    "load_firmware",
]

#: Where the files for the Pico live (inside the installed package too).
FIRMWARE_DIR = Path(__file__).resolve().parent / "pico"
#: Copied to the Pico's filesystem root, in this order (main.py last: a board reset
#: half way through never starts a main.py whose module is missing).
FIRMWARE_FILES = ("crownhead_board.py", "main.py")
#: The MicroPython release the firmware is written and checked against.
MICROPYTHON_VERSION = "1.29"


#: Raspberry Pi Pico / Pico 2 header: GP number -> physical pin (1-40). GP23-25 and 29
#: are used on the module itself and are not on the header.
PICO_HEADER: dict[int, int] = {
    **{gp: pin for gp, pin in zip(range(0, 2), (1, 2))},
    **{gp: pin for gp, pin in zip(range(2, 6), (4, 5, 6, 7))},
    **{gp: pin for gp, pin in zip(range(6, 10), (9, 10, 11, 12))},
    **{gp: pin for gp, pin in zip(range(10, 14), (14, 15, 16, 17))},
    **{gp: pin for gp, pin in zip(range(14, 18), (19, 20, 21, 22))},
    **{gp: pin for gp, pin in zip(range(18, 22), (24, 25, 26, 27))},
    22: 29,
    26: 31,
    27: 32,
    28: 34,
}
PICO_GROUND_PINS = (3, 8, 13, 18, 23, 28, 33, 38)


def load_firmware() -> ModuleType:
    """A fresh copy of the firmware module (``crownhead_board.py``) for CPython.

    >>> fw = load_firmware()
    >>> fw.PROTOCOL_VERSION, len(fw.ROW_PINS), len(fw.COL_PINS)
    (1, 8, 4)
    """
    path = FIRMWARE_DIR / "crownhead_board.py"
    spec = importlib.util.spec_from_file_location("crownhead_board", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
