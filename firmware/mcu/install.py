"""Copy the board firmware onto a Pico with mpremote, MicroPython's own remote tool.

The Pico must already run MicroPython (1.29; drag the ``.uf2`` for RPI_PICO or
RPI_PICO2 from micropython.org onto the drive that appears while BOOTSEL is held).
mpremote interrupts whatever runs (the firmware stops its watchdog when interrupted),
copies ``crownhead_board.py`` and then ``main.py`` to the Pico's filesystem, and resets
it so that the firmware starts.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Sequence

from firmware.mcu import FIRMWARE_DIR, FIRMWARE_FILES

__all__ = ["InstallError", "mpremote_command", "install"]


class InstallError(Exception):
    """The firmware could not be copied; the message says why and what to do."""


def mpremote_command(port: str | None = None, python: str | None = None) -> list[str]:
    """The mpremote command line that installs the firmware (``port`` None: the first
    USB serial device mpremote finds).

    >>> cmd = mpremote_command("/dev/ttyACM0", python="python3")
    >>> cmd[:5]
    ['python3', '-m', 'mpremote', 'connect', '/dev/ttyACM0']
    >>> cmd[5], [c.rsplit("/", 1)[-1] for c in cmd[6:8]], cmd[8:]
    ('cp', ['crownhead_board.py', 'main.py'], [':', '+', 'reset'])
    """
    files = [str(FIRMWARE_DIR / name) for name in FIRMWARE_FILES]
    return [
        python or sys.executable,
        "-m",
        "mpremote",
        "connect",
        port or "auto",
        "cp",
        *files,
        ":",
        "+",
        "reset",
    ]


def install(port: str | None = None, *, run: bool = True) -> list[str]:
    """Install the firmware; returns the command it ran. Raises :class:`InstallError`."""
    if importlib.util.find_spec("mpremote") is None:
        raise InstallError(
            "mpremote is not installed: pip install 'crownhead[mcu]' (or pip install mpremote)"
        )
    for name in FIRMWARE_FILES:
        if not (FIRMWARE_DIR / name).is_file():
            raise InstallError(f"firmware file missing from this installation: {name}")
    command = mpremote_command(port)
    if run:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            reason = _last_line(proc.stderr) or _last_line(proc.stdout) or f"exit code {proc.returncode}"
            raise InstallError(f"mpremote could not install the firmware on {port or 'the first USB serial device'}: {reason}")
    return command


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def describe(command: Sequence[str]) -> str:
    return " ".join(command)
