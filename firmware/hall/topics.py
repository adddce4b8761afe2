"""Topic names and broker URLs of a hall.

>>> topic("club", "board-7", "event")
'crownhead/club/board-7/event'
>>> url = BrokerUrl.parse("mqtt://arbiter:secret@127.0.0.1:1884")
>>> (url.host, url.port, url.username, url.tls)
('127.0.0.1', 1884, 'arbiter', False)
>>> BrokerUrl.parse("mqtts://hall.local").port
8883
>>> str(url)  # the password never shows
'mqtt://arbiter:***@127.0.0.1:1884'
>>> redact_url("mqtt://hall:hall-pw@hall.local:1883")
'mqtt://hall:***@hall.local:1883'
>>> check_name("board 7", "board")
Traceback (most recent call last):
...
ValueError: board name 'board 7': use letters, digits, '-', '_' and '.' only (at most 64)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

__all__ = ["ROOT", "KINDS", "topic", "check_name", "BrokerUrl", "redact_url"]

ROOT = "crownhead"
#: A board's topics: every event (QoS 1), its retained state and status, its results; the
#: arbiter's commands to it and the hall's acknowledgements of its results (retained).
KINDS = ("event", "state", "status", "result", "cmd", "ack")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def redact_url(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***`` (the user name stays,
    so a log still tells which account). What the hall prints, logs or answers goes through this."""
    return " ".join(_redact_word(word) for word in text.split(" "))


def _redact_word(word: str) -> str:
    scheme = word.find("://")
    if scheme < 0:
        return word
    head, rest = word[: scheme + 3], word[scheme + 3 :]
    at = rest.rfind("@")
    if at < 0:
        return word
    user, colon, _ = rest[:at].partition(":")
    return f"{head}{user}{':***' if colon else ''}@{rest[at + 1 :]}"


def check_name(name: str, what: str) -> str:
    """``name`` if it can stand in a topic (no ``/``, ``+``, ``#``, spaces), else ValueError."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"{what} name {name!r}: use letters, digits, '-', '_' and '.' only (at most 64)")
    return name


def topic(hall: str, board: str, kind: str) -> str:
    """The topic of ``kind`` (see ``KINDS``) for ``board`` in ``hall``; ``+`` is a wildcard."""
    return f"{ROOT}/{hall}/{board}/{kind}"


@dataclass(frozen=True, slots=True)
class BrokerUrl:
    """``mqtt://[user[:password]@]host[:port]`` or ``mqtts://...`` (TLS)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, text: str) -> BrokerUrl:
        if len(text) > 512:
            raise ValueError("broker URL longer than 512 characters")
        shown = redact_url(text)  # an error names the URL, never its password
        parts = urlsplit(text)
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ValueError(f"broker URL {shown!r}: use mqtt://host[:port] or mqtts://host[:port]")
        if not parts.hostname:
            raise ValueError(f"broker URL {shown!r} names no host")
        tls = parts.scheme == "mqtts"
        try:
            port = parts.port or (8883 if tls else 1883)
        except ValueError:
            raise ValueError(f"broker URL {shown!r}: the port must be a number 1-65535") from None
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, tls, user, password)

    def __str__(self) -> str:
        """The URL as it may be shown: the password as ``***``."""
        who = f"{self.username}{':***' if self.password else ''}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{who}{self.host}:{self.port}"
