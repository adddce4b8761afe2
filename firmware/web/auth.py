"""Who may watch and who may command: the PIN, sessions and the rate limit on wrong tries.

A page logs in by posting the PIN; it is compared in constant time. Wrong tries are
counted per client address: after :data:`FREE_TRIES` wrong ones, each further try must
wait (1 s, doubling up to :data:`MAX_WAIT_S`), refused without even being compared. A
good PIN gives a session: a random token in an ``HttpOnly``, ``SameSite=Strict``
cookie. Time comes from an injected clock (milliseconds).

>>> from hal.clock import VirtualClock
>>> clock = VirtualClock()
>>> gate = Gate("2468", clock)
>>> gate.login("1.2.3.4", "1111")
('wrong', 0)
>>> token = gate.login("1.2.3.4", "2468")[1]
>>> gate.session(token), gate.session("forged")
(True, False)
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
from collections import OrderedDict
from pathlib import Path

from hal.clock import Clock

__all__ = ["Gate", "FREE_TRIES", "MAX_WAIT_S", "SESSION_MS", "make_pin", "stored_pin", "COOKIE"]

log = logging.getLogger(__name__)

COOKIE = "crownhead_session"
FREE_TRIES = 5
MAX_WAIT_S = 300
SESSION_MS = 12 * 3600 * 1000
MAX_SESSIONS = 256
MAX_CLIENTS = 1024


def make_pin() -> str:
    """A random 6-digit PIN."""
    return f"{secrets.randbelow(10**6):06d}"


def stored_pin(state_dir: Path) -> tuple[str, bool]:
    """The PIN kept in ``state_dir`` (made and kept on first use); (pin, made now)."""
    path = state_dir / "web-pin"
    try:
        text = path.read_text(encoding="utf-8").strip()
        if 4 <= len(text) <= 64:
            return text, False
    except (OSError, UnicodeDecodeError):
        pass
    pin = make_pin()
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(pin + "\n")
    except OSError as exc:
        log.warning("web: cannot keep the PIN in %s (%s): it changes at each start", path, exc)
    return pin, True


class Gate:
    """The PIN check with its rate limit, and the sessions it gave (thread-safe enough for
    one asyncio thread: the server calls it from its loop only)."""

    def __init__(self, pin: str, clock: Clock) -> None:
        self._pin = pin.encode("utf-8")
        self.clock = clock
        self._sessions: OrderedDict[str, int] = OrderedDict()
        # client -> (wrong tries, not before this time)
        self._wrong: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self.refused = 0

    def login(self, client: str, pin: str) -> tuple[str, str | int]:
        """``("ok", token)``, ``("wrong", 0)`` or ``("wait", seconds)``."""
        now = self.clock.now_ms()
        tries, until = self._wrong.get(client, (0, 0))
        if now < until:
            self.refused += 1
            return "wait", max(1, (until - now + 999) // 1000)
        given = pin.encode("utf-8", "replace")[:256]
        if hmac.compare_digest(given, self._pin):
            self._wrong.pop(client, None)
            token = secrets.token_urlsafe(32)
            self._sessions[token] = now + SESSION_MS
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
            return "ok", token
        tries += 1
        wait_s = 0 if tries < FREE_TRIES else min(MAX_WAIT_S, 2 ** (tries - FREE_TRIES))
        self._wrong[client] = (tries, now + wait_s * 1000)
        self._wrong.move_to_end(client)
        while len(self._wrong) > MAX_CLIENTS:
            self._wrong.popitem(last=False)
        log.warning("web: wrong PIN from %s (%d wrong)", client, tries)
        return "wrong", 0

    def session(self, token: str | None) -> bool:
        """Whether ``token`` is a live session's."""
        if not token:
            return False
        expiry = None
        for known, until in self._sessions.items():
            # Every token is compared, in constant time each: no early exit to time.
            if hmac.compare_digest(known.encode(), token.encode("utf-8", "replace")[:128]):
                expiry = until
        return expiry is not None and self.clock.now_ms() < expiry

    def logout(self, token: str | None) -> None:
        if token:
            self._sessions.pop(token, None)
