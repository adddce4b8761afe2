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
import socket
from dataclasses import dataclass

from crownhead.firmware.config import FieldError, config_section

__all__ = ["WebConfig", "parse_listen", "is_loopback", "host_name", "same_address", "page_urls", "DEFAULT_HOST"]

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


def host_name(header: str) -> str | None:
    """The name or address a ``Host`` header names, lower case, without its port (an IPv6
    address without its brackets, a name without a final dot); None if it is no host.

    >>> host_name("Board.local:8080"), host_name("[::1]:80"), host_name("192.0.2.7")
    ('board.local', '::1', '192.0.2.7')
    >>> host_name(""), host_name("evil.example:x"), host_name("a b")
    (None, None, None)
    """
    text = header.strip().lower()
    port = ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return None
        name, port = text[1:end], text[end + 1 :]
        if port and not port.startswith(":"):
            return None
        port = port[1:]
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return None
    else:
        name, _, port = text.partition(":")
        name = name.rstrip(".")
        if not _HOST.fullmatch(name):
            return None
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    return name


def same_address(a: str, b: str) -> bool:
    """Whether two addresses are one (an IPv4 address and its IPv6-mapped form are).

    >>> same_address("::ffff:192.0.2.7", "192.0.2.7"), same_address("2001:db8::1", "2001:DB8:0::1")
    (True, True)
    """
    try:
        x, y = ipaddress.ip_address(a), ipaddress.ip_address(b)
    except ValueError:
        return False
    if isinstance(x, ipaddress.IPv6Address) and x.ipv4_mapped is not None:
        x = x.ipv4_mapped
    if isinstance(y, ipaddress.IPv6Address) and y.ipv4_mapped is not None:
        y = y.ipv4_mapped
    return x == y


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


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


def page_urls(host: str, port: int) -> list[str]:
    """Where a browser reaches a page served on ``host:port``: that address, or for a
    wildcard one (``0.0.0.0``, ``::``), this machine's network addresses (the one its
    traffic leaves by first) and its mDNS name (``NAME.local``), never the wildcard.

    >>> page_urls("127.0.0.1", 8080), page_urls("::1", 80)
    (['http://127.0.0.1:8080/'], ['http://[::1]:80/'])
    >>> any("0.0.0.0" in url for url in page_urls("0.0.0.0", 8080))
    False
    """

    def url(address: str) -> str:
        return f"http://[{address}]:{port}/" if ":" in address else f"http://{address}:{port}/"

    if host not in ("0.0.0.0", "::", ""):
        return [url(host)]
    found: list[str] = []
    try:
        # Connecting a datagram socket sends nothing: it only picks the outgoing address.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    name = socket.gethostname().split(".", 1)[0].lower()
    try:
        found += [str(info[4][0]) for info in socket.getaddrinfo(name, None, socket.AF_INET)]
    except OSError:
        pass
    addresses = [a for a in dict.fromkeys(found) if not ipaddress.ip_address(a).is_loopback]
    urls = [url(a) for a in addresses]
    if name:
        urls.append(url(f"{name}.local"))
    return urls or [url("127.0.0.1")]


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
    ``pin_length``: the digits of a PIN the board makes (6-32; a longer one is harder to
    guess, see ``docs/web.md``).
    ``hosts``: the names (or addresses) the board is reached by, besides those it knows
    by itself: its host name, that name with ``.local``, and the address a client
    connected to (on 127.0.0.1, ``localhost``). A request naming another host is
    refused (DNS rebinding).
    """

    listen: str = ""
    pin: str = ""
    public_view: bool = False
    max_pages: int = 32
    hosts: tuple[str, ...] = ()
    pin_length: int = 6

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
        for i, name in enumerate(self.hosts):
            if not (_HOST.fullmatch(name.rstrip(".")) or _is_address(name.strip("[]"))):
                raise FieldError(f"hosts[{i}]", f"{name!r} is not a host name or address (without a port)")
        if not 6 <= self.pin_length <= 32:
            raise FieldError("pin_length", f"must be within 6-32, got {self.pin_length}")
        if not 1 <= self.max_pages <= 256:
            raise FieldError("max_pages", f"must be within 1-256, got {self.max_pages}")
