"""What the running Raspberry Pi is: its model, and whether its Linux serial console is
on the header's UART pins, GPIO14 (TX) and GPIO15 (RX).

Both are read from files the kernel provides, under ``root`` (``/`` on a board; a test
lays out a made-up Pi in a directory):

* ``proc/device-tree/model``: the model, e.g. ``Raspberry Pi 4 Model B Rev 1.4``.
* ``proc/cmdline``: the kernel's command line as it was started. The Pi's firmware turns
  ``console=serial0`` from ``cmdline.txt`` into the UART it stands for (``ttyS0``,
  ``ttyAMA0``, ``ttyAMA10``), and leaves it there even when ``enable_uart=0`` switched
  that UART off; so a console counts only when its device exists as well:
* ``sys/class/tty/NAME``: the UART is there.

>>> import tempfile
>>> from pathlib import Path
>>> pi = Path(tempfile.mkdtemp())
>>> for name, text in {"proc/device-tree/model": "Raspberry Pi Zero W Rev 1.1\\0",
...                    "proc/cmdline": "console=ttyAMA0,115200 console=tty1 root=/dev/mmcblk0p2"}.items():
...     _ = (pi / name).parent.mkdir(parents=True, exist_ok=True), (pi / name).write_text(text)
>>> header_console(pi) is None          # the PL011 is not there: enable_uart=0
True
>>> (pi / "sys/class/tty/ttyAMA0").mkdir(parents=True)
>>> header_console(pi)
'ttyAMA0'
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["HEADER_UARTS", "pi_model", "header_console"]

#: The UARTs that can sit on GPIO14/15: the PL011 (``ttyAMA0``: the console's UART on a
#: Pi 1, 2 and Zero, on a Pi 3, 4 or Zero W only with Bluetooth moved off it, on a Pi 5
#: with ``dtparam=uart0_console``) and the mini UART (``ttyS0``, a Pi 3, 4 and Zero W's
#: console). A Pi 5's own console, ``ttyAMA10``, is on its debug connector, not the header.
HEADER_UARTS = ("ttyAMA0", "ttyS0")


def pi_model(path: str | os.PathLike[str] = "/proc/device-tree/model") -> str | None:
    """The Raspberry Pi model string, or None when not on a Pi."""
    try:
        with open(path, "rb") as f:
            model = f.read().rstrip(b"\0").decode("ascii", "replace").strip()
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def header_console(root: str | os.PathLike[str] = "/") -> str | None:
    """The UART (``ttyS0`` or ``ttyAMA0``) the serial console runs on at GPIO14/15 of
    this Raspberry Pi, or None: the console is elsewhere or off, or this is no Pi (a
    ``ttyS0`` console of a PC is a port of its own, not these pins)."""
    base = Path(root)
    if pi_model(base / "proc/device-tree/model") is None:
        return None
    try:
        cmdline = (base / "proc/cmdline").read_text(errors="replace")
    except OSError:
        return None
    for arg in cmdline.split():
        if not arg.startswith("console="):
            continue
        name = arg.removeprefix("console=").split(",", 1)[0]
        if name.startswith("serial"):
            # An alias the firmware left as it was (another boot loader): udev's
            # /dev/serial0 link names the UART, and is missing while it is off.
            name = os.path.basename(os.path.realpath(base / "dev" / name))
        if name in HEADER_UARTS and (base / "sys/class/tty" / name).exists():
            return name
    return None
