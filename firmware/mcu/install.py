"""Copy the board firmware onto a Pico with mpremote, MicroPython's own remote tool.

The Pico must already run MicroPython (1.29; drag the ``.uf2`` for RPI_PICO or
RPI_PICO2 from micropython.org onto the drive that appears while BOOTSEL is held).
mpremote interrupts whatever runs (the firmware stops its watchdog when interrupted),
copies ``crownhead_board.py`` and then ``main.py`` to the Pico's filesystem, and resets
it so that the firmware starts.

Nothing else may hold the port meanwhile: the board's service opens it exclusively, and
mpremote cannot connect while it runs. :func:`check_port_free` finds that out first and
says to stop the service (``sudo systemctl stop crownhead``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Sequence

from crownhead.extras import install_command
from crownhead.firmware.mcu import FIRMWARE_DIR, FIRMWARE_FILES

__all__ = ["InstallError", "mpremote_command", "install", "check_port_free", "STOP_SERVICE"]

#: What to do when the board's service holds the port.
STOP_SERVICE = (
    "stop the board's service first (sudo systemctl stop crownhead; sudo systemctl start crownhead afterwards)"
)


class InstallError(Exception):
    """The firmware could not be copied; the message says why and what to do."""


def check_port_free(port: str) -> None:
    """Raise :class:`InstallError` if another program (the service) holds ``port``.

    A port that does not exist or cannot be opened for another reason is left for the
    tool that opens it next to report.
    """
    from crownhead.hal.serial_board import open_serial_port, port_in_use

    try:
        open_serial_port(port, timeout=0).close()
    except (OSError, ValueError) as exc:  # pyserial's SerialException is an OSError
        if port_in_use(exc):
            raise InstallError(f"{port} is in use by another program: {STOP_SERVICE}") from None


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
        raise InstallError(f"mpremote is not installed: install it with {install_command('mcu')}")
    for name in FIRMWARE_FILES:
        if not (FIRMWARE_DIR / name).is_file():
            raise InstallError(f"firmware file missing from this installation: {name}")
    command = mpremote_command(port)
    if run:
        if port is not None:
            check_port_free(port)
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            reason = _last_line(proc.stderr) or _last_line(proc.stdout) or f"exit code {proc.returncode}"
            if "in use" in reason or "failed to access" in reason:
                reason += f"; {STOP_SERVICE}"
            raise InstallError(
                f"mpremote could not install the firmware on {port or 'the first USB serial device'}: {reason}"
            )
    return command


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def describe(command: Sequence[str]) -> str:
    return " ".join(command)
