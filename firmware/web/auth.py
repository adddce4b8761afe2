"""Who may watch and who may command: the PIN, sessions and the limits on wrong tries.

A page logs in by posting the PIN; it is compared in constant time. Wrong tries are
counted per client address: after :data:`FREE_TRIES` wrong ones, each further try must
wait (1 s, doubling up to :data:`MAX_WAIT_S`), refused without even being compared. And
they are counted from all addresses together, since an attacker may have many: after
:data:`GLOBAL_TRIES` wrong ones within :data:`GLOBAL_WINDOW_MS`, every login is refused
for :data:`LOCKOUT_MS`, the right PIN's too (sessions already given go on), and the
board says so (``on_lockout``: the terminal, every page, the display). A 6-digit PIN
then takes on average some 200 days to guess; a longer one (``web.pin_length``, or any
``web.pin`` of up to 64 characters) far longer. Wrong tries are logged in bounded form:
the first, then one line a minute at most with how many came from how many addresses.
A good PIN gives a session: a random token in an ``HttpOnly``, ``SameSite=Strict``
cookie. Time comes from an injected clock (milliseconds).

>>> from crownhead.hal.clock import VirtualClock
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
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path

from crownhead.hal.clock import Clock

__all__ = [
    "Gate",
    "FREE_TRIES",
    "MAX_WAIT_S",
    "GLOBAL_TRIES",
    "GLOBAL_WINDOW_MS",
    "LOCKOUT_MS",
    "SESSION_MS",
    "PIN_LENGTH",
    "make_pin",
    "stored_pin",
    "COOKIE",
]

log = logging.getLogger(__name__)

COOKIE = "crownhead_session"
FREE_TRIES = 5
MAX_WAIT_S = 300
SESSION_MS = 12 * 3600 * 1000
MAX_SESSIONS = 256
MAX_CLIENTS = 1024
#: Wrong PINs from all addresses together within GLOBAL_WINDOW_MS that lock every login
#: out for LOCKOUT_MS: at most 10 guesses in 6 minutes, whatever the addresses.
GLOBAL_TRIES = 10
GLOBAL_WINDOW_MS = 60_000
LOCKOUT_MS = 5 * 60_000
#: The alert code of a lockout (:data:`crownhead.firmware.events.ALERT_CODES`).
LOCKOUT = "pin-guessing"
#: How often at most a line tells of wrong tries (the first is told at once).
LOG_EVERY_MS = 60_000
#: Digits of a PIN the board makes (``web.pin_length``: more for a longer one).
PIN_LENGTH = 6


def make_pin(length: int = PIN_LENGTH) -> str:
    """A random PIN of ``length`` digits."""
    return "".join(str(secrets.randbelow(10)) for _ in range(length))


def stored_pin(state_dir: Path, length: int = PIN_LENGTH) -> tuple[str, bool]:
    """The PIN kept in ``state_dir`` (made and kept on first use, and made anew when the one
    kept is shorter than ``length``); (pin, made now)."""
    path = state_dir / "web-pin"
    try:
        text = path.read_text(encoding="utf-8").strip()
        if max(4, length) <= len(text) <= 64:
            return text, False
    except (OSError, UnicodeDecodeError):
        pass
    pin = make_pin(length)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(pin + "\n")
    except OSError as exc:
        log.warning("web: cannot keep the PIN in %s (%s): it changes at each start", path, exc)
    return pin, True


class Gate:
    """The PIN check with its limits, and the sessions it gave (thread-safe enough for one
    asyncio thread: the server calls it from its loop only). ``on_lockout`` is called with
    the alert's code (:data:`LOCKOUT`) and what to tell the people at the board when
    logins are locked out."""

    def __init__(
        self, pin: str, clock: Clock, on_lockout: Callable[[str, str], None] = lambda code, message: None
    ) -> None:
        self._pin = pin.encode("utf-8")
        self.clock = clock
        self.on_lockout = on_lockout
        self._sessions: OrderedDict[str, int] = OrderedDict()
        # client -> (wrong tries, not before this time)
        self._wrong: OrderedDict[str, tuple[int, int]] = OrderedDict()
        # When the last wrong tries came, from any address (at most GLOBAL_TRIES).
        self._recent: deque[int] = deque(maxlen=GLOBAL_TRIES)
        self.locked_until = 0
        #: Tries refused without being compared, wrong PINs, lockouts.
        self.refused = 0
        self.wrong = 0
        self.lockouts = 0
        # Wrong tries not yet told in the log: how many, from which addresses (a few).
        self._untold = 0
        self._untold_from: set[str] = set()
        self._told_at: int | None = None

    def login(self, client: str, pin: str) -> tuple[str, str | int]:
        """``("ok", token)``, ``("wrong", 0)``, ``("wait", seconds)`` (this address tried
        too often) or ``("locked", seconds)`` (every address: too many wrong PINs in all)."""
        now = self.clock.now_ms()
        self._tell_wrong("", now)  # wrong tries gathered for a minute are told now
        if now < self.locked_until:
            self.refused += 1
            return "locked", max(1, (self.locked_until - now + 999) // 1000)
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
        self.wrong += 1
        self._tell_wrong(client, now)
        self._recent.append(now)
        if len(self._recent) == GLOBAL_TRIES and now - self._recent[0] < GLOBAL_WINDOW_MS:
            self._lock(now)
        return "wrong", 0

    def _lock(self, now: int) -> None:
        self.locked_until = now + LOCKOUT_MS
        self._recent.clear()
        self.lockouts += 1
        self._tell_wrong("", now, force=True)
        message = (
            f"someone is guessing the page's PIN: {GLOBAL_TRIES} wrong PINs within "
            f"{GLOBAL_WINDOW_MS // 1000} s; logins are refused for {LOCKOUT_MS // 60_000} minutes "
            "(pages logged in stay so)"
        )
        log.warning("web: %s", message)
        try:
            self.on_lockout(LOCKOUT, message)
        except Exception:  # noqa: BLE001 - telling the board must not break the login
            log.exception("web: cannot tell the board of the lockout")

    def _tell_wrong(self, client: str, now: int, force: bool = False) -> None:
        """Log wrong tries in bounded form: at once when none was told for a minute, else
        gathered into one line a minute at most (or at a lockout)."""
        if client:
            self._untold += 1
            if len(self._untold_from) < 1000:
                self._untold_from.add(client)
        if not self._untold:
            return
        if not force and self._told_at is not None and now - self._told_at < LOG_EVERY_MS:
            return
        if self._untold == 1:
            log.warning("web: wrong PIN from %s", next(iter(self._untold_from)))
        else:
            many = len(self._untold_from)
            log.warning(
                "web: %d wrong PINs from %s address%s since the last report",
                self._untold,
                f"{many}{'+' if many >= 1000 else ''}",
                "" if many == 1 else "es",
            )
        self._untold = 0
        self._untold_from.clear()
        self._told_at = now

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
