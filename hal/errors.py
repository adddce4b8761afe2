"""Errors raised by the hardware layer."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["HardwareError", "gpio_setup"]

log = logging.getLogger(__name__)


class HardwareError(RuntimeError):
    """A backend could not be opened or used (missing library, wrong pin, no port...).

    The message is meant for the person at the board: it says what failed and, where
    possible, what to do about it.
    """


@contextmanager
def gpio_setup(what: str) -> Iterator[None]:
    """Create gpiozero devices, turning failures into one readable :class:`HardwareError`.

    gpiozero tries several pin libraries in turn and warns at each fallback. Those
    warnings are noise when one library works, and the explanation when none does: they
    are collected and put into the error instead of being printed.
    """
    from gpiozero.exc import GPIOZeroError, PinFactoryFallback

    from crownhead.hal.lgpio_import import import_lgpio

    # Before gpiozero picks its pin library: lgpio must be imported from a writable
    # directory or gpiozero quietly falls back to one that cannot work (see there).
    import_lgpio()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            yield
        except GPIOZeroError as exc:
            reasons = [str(w.message) for w in caught if issubclass(w.category, PinFactoryFallback)]
            message = f"cannot set up {what}: {exc}"
            if reasons:
                message += (
                    " (" + "; ".join(reasons) + "). Is this a Raspberry Pi with the 'pi' extra installed (lgpio)?"
                )
            raise HardwareError(message) from exc
    for w in caught:
        if issubclass(w.category, PinFactoryFallback):
            log.debug("%s", w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
