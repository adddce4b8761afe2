"""Import lgpio from a directory it can write to.

lgpio, gpiozero's pin library on current Raspberry Pi OS (and Blinka's on a Pi 5),
creates a notification FIFO named ``.lgd-nfy0`` in the *current directory* when it is
imported. Where that directory is not writable - ``/`` under systemd, a person's home
when the service user runs ``crownhead sensors`` through ``sudo -u`` - the import fails,
gpiozero silently falls back to another pin library, and on a Pi 5 that one cannot
drive the pins at all. lgpio's own ``LG_WD`` setting would move the FIFO, but lgpio then
changes the whole program's current directory to it.

So, before the first GPIO device is made, :func:`import_lgpio` imports lgpio once from a
writable directory (systemd's ``StateDirectory``/``RuntimeDirectory`` when set, else the
temporary directory) and puts the current directory back. lgpio keeps its FIFO open from
then on. Nothing happens when lgpio is not installed (a development machine), already
imported, or the current directory is writable anyway.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Mapping

__all__ = ["import_lgpio", "writable_directory"]

log = logging.getLogger(__name__)


def _writable(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def writable_directory(
    environ: Mapping[str, str] | None = None,
    writable: Callable[[str], bool] = _writable,
) -> str | None:
    """Where lgpio may put its FIFO: the service's state or runtime directory, else /tmp."""
    env = os.environ if environ is None else environ
    candidates: list[str] = []
    for name in ("STATE_DIRECTORY", "RUNTIME_DIRECTORY"):
        # systemd sets these (colon-separated when the unit lists several directories).
        value = env.get(name, "")
        if value:
            candidates.append(value.split(":")[0])
    candidates.append(tempfile.gettempdir())
    for path in candidates:
        if writable(path):
            return path
    return None


def import_lgpio(
    *,
    module: str = "lgpio",
    writable: Callable[[str], bool] = _writable,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Import lgpio from a writable directory if the current one is not.

    Returns the directory the import ran in when it had to move there, else None.
    Never raises: if lgpio still cannot be imported, gpiozero's own attempt reports it.
    """
    if module in sys.modules or importlib.util.find_spec(module) is None:
        return None
    try:
        here: str | None = os.getcwd()
    except OSError:  # the current directory was deleted
        here = None
    if here is not None and writable(here):
        return None
    target = writable_directory(environ, writable)
    if target is None:
        return None
    os.chdir(target)
    try:
        importlib.import_module(module)
    except Exception as exc:  # gpiozero will try again and explain the failure
        log.debug("importing %s from %s failed: %s", module, target, exc)
    finally:
        if here is not None:
            with contextlib.suppress(OSError):
                os.chdir(here)
    log.debug("imported %s from %s (the current directory is not writable)", module, target)
    return target
