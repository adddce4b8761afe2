"""The ``[link]`` configuration section: the serial link to a host or another board.

Light on purpose: the configuration loader names this module (see
:data:`crownhead.firmware.config.BUILTIN_SECTIONS`), so it imports nothing of the link itself.

>>> LinkConfig(port="socket://localhost:7000", plays="white").control
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crownhead.firmware.config import FieldError, config_section

__all__ = ["LinkConfig", "PLAYS"]

#: Who plays at this board: ``both`` sides (the host only watches, or sends ``play``
#: for either side), or one colour (the other is played over the link).
PLAYS = ("both", "black", "white")
_BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 2000000)


@config_section("link")
@dataclass(frozen=True)
class LinkConfig:
    """The serial link to a host computer or another board (``crownhead run --link``).

    ``port``: a serial device (``/dev/ttyGS0``, ``/dev/ttyAMA0``) or a pyserial URL
    (``socket://host:7000``); empty: no link. ``plays``: the side(s) the people at this
    board play; the other side comes over the link. ``control = false`` makes the link
    read-only (events and the queries ``hello``, ``fen``, ``pdn``, ``moves``).
    ``lines_per_step``: received lines handled per loop iteration at most.
    """

    port: str = ""
    baudrate: int = 115200
    reconnect_ms: int = 1000
    plays: str = "both"
    control: bool = True
    lines_per_step: int = 8

    def validate(self) -> None:
        if self.plays not in PLAYS:
            raise FieldError("plays", f'must be one of {", ".join(PLAYS)}, got "{self.plays}"')
        if self.baudrate not in _BAUDRATES:
            raise FieldError("baudrate", f"{self.baudrate} is not a standard rate (e.g. 115200)")
        if not 50 <= self.reconnect_ms <= 60_000:
            raise FieldError("reconnect_ms", f"must be within 50-60000, got {self.reconnect_ms}")
        if not 1 <= self.lines_per_step <= 256:
            raise FieldError("lines_per_step", f"must be within 1-256, got {self.lines_per_step}")
        if any(ch in self.port for ch in "\n\r\0"):
            raise FieldError("port", "must be one line")
        if "://" in self.port and not _known_url(self.port):
            scheme = self.port.split("://", 1)[0]
            raise FieldError(
                "port", f"pyserial knows no {scheme}:// ports (e.g. socket://host:7000, rfc2217://host:7000)"
            )


def _known_url(url: str) -> bool:
    """Whether pyserial has a handler for ``url``'s scheme (``socket://``, ``loop://``...)."""
    import importlib.util

    scheme = url.split("://", 1)[0].lower()
    if not re.fullmatch(r"[a-z][a-z0-9]{0,15}", scheme):
        return False
    try:
        return importlib.util.find_spec(f"serial.urlhandler.protocol_{scheme}") is not None
    except ImportError:
        return False
