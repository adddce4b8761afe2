"""The ``[web]`` configuration section and where the server listens.

>>> parse_listen("8080"), parse_listen("0.0.0.0:80"), parse_listen("[::1]:8080")
(('127.0.0.1', 8080), ('0.0.0.0', 80), ('::1', 8080))
>>> parse_listen("example:99999")
Traceback (most recent call last):
...
ValueError: the port must be 0-65535, got 99999
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from firmware.config import FieldError, config_section

__all__ = ["WebConfig", "parse_listen", "is_loopback", "DEFAULT_HOST"]

DEFAULT_HOST = "127.0.0.1"
_HOST = re.compile(r"[A-Za-z0-9.\-]{1,253}")


def parse_listen(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``[v6]:PORT`` for an IPv6 address) -> (host, port); ValueError if bad."""
    text = text.strip()
    host = DEFAULT_HOST
    port_text = text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1 : end + 2] != ":":
            raise ValueError(f"{text!r} is not [ADDRESS]:PORT")
        host, port_text = text[1:end], text[end + 2 :]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"{host!r} is not an IPv6 address") from None
    elif ":" in text:
        host, port_text = text.rsplit(":", 1)
        if not _HOST.fullmatch(host):
            raise ValueError(f"{host!r} is not a host name or address")
    if not (port_text.isascii() and port_text.isdigit()) or len(port_text) > 5:
        raise ValueError(f"{text!r} is not [HOST:]PORT (e.g. 8080 or 0.0.0.0:8080)")
    port = int(port_text)
    if not 0 <= port <= 65535:
        raise ValueError(f"the port must be 0-65535, got {port}")
    return host, port


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@config_section("web")
@dataclass(frozen=True)
class WebConfig:
    """The board's web page (``crownhead run --web [HOST:]PORT``); off unless ``listen`` is set.

    ``listen``: ``[HOST:]PORT``; the host defaults to 127.0.0.1 (this machine only).
    ``pin``: the PIN or password that commands need (on a network address a random
    one is made on first start, kept in the state directory and written to the log,
    when none is set; on 127.0.0.1 none is asked unless one is set).
    ``public_view``: on a network, anyone may watch without the PIN.
    ``max_pages``: pages connected at once.
    """

    listen: str = ""
    pin: str = ""
    public_view: bool = False
    max_pages: int = 32

    def validate(self) -> None:
        if self.listen:
            try:
                parse_listen(self.listen)
            except ValueError as exc:
                raise FieldError("listen", str(exc)) from None
        if self.pin and not 4 <= len(self.pin) <= 64:
            raise FieldError("pin", "must be 4-64 characters")
        if any(ord(ch) < 32 for ch in self.pin):
            raise FieldError("pin", "must be printable")
        if not 1 <= self.max_pages <= 256:
            raise FieldError("max_pages", f"must be within 1-256, got {self.max_pages}")
