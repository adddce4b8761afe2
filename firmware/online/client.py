"""PlayStrategy's Board API over HTTP, with the standard library (``http.client``).

The paths (as PlayStrategy's ``app/controllers/PlayApi.scala`` and its routes serve
them, the same as lichess's Board API):

* ``GET /api/account``: who the token is; ``GET /api/account/playing``: its games;
* ``GET /api/stream/event``: the account's events, newline-delimited JSON
  (``gameStart``, ``gameFinish``, ``challenge``, ``challengeCanceled``, ``challengeDeclined``);
* ``POST /api/board/seek``: a seek (the reply streams until a game is found);
* ``POST /api/challenge/{user}``, ``/api/challenge/{id}/accept``, ``.../decline``;
* ``GET /api/board/game/stream/{id}``: the game, NDJSON: first ``gameFull`` (players,
  clock, variant, the whole ``state``), then each ``gameState`` and ``chatLine``;
* ``POST /api/board/game/{id}/move/{uci}``, ``.../abort``, ``.../resign``,
  ``.../draw/{yes|no}``, ``.../chat``.

A refusal is a 4xx answer with ``{"error": "..."}`` (:class:`Refused`); a 429 says to wait
(:class:`RateLimited`: a minute, as the server asks, unless it says otherwise). The token
goes in the ``Authorization`` header only, never in a URL, a log line or an error. Plain
HTTP is refused except to this machine (a test server): the real server is reached over
TLS, its certificate checked.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from crownhead import __version__

__all__ = ["Backoff", "Client", "ClientError", "Lost", "RateLimited", "Refused", "DEFAULT_SERVER"]

#: The real server.
DEFAULT_SERVER = "https://playstrategy.org"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: How long to keep away after a 429 that says nothing (lichess's and PlayStrategy's
#: bots wait a minute).
RATE_LIMIT_S = 60.0


class ClientError(Exception):
    """Something went wrong talking to the server."""


class Refused(ClientError):
    """The server answered no (4xx): its ``error`` words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{message} (HTTP {status})")
        self.status = status
        self.message = message


class RateLimited(ClientError):
    """HTTP 429: too many requests; wait :attr:`wait_s` before the next."""

    def __init__(self, wait_s: float) -> None:
        super().__init__(f"the server asks to wait {wait_s:.0f} s (too many requests)")
        self.wait_s = wait_s


class Lost(ClientError):
    """No answer: the connection failed or dropped (worth trying again)."""


@dataclass
class Backoff:
    """Waits between attempts: ``first_s``, doubled each time up to ``most_s``; back to
    the first after a success (:meth:`reset`)."""

    first_s: float = 1.0
    most_s: float = 60.0
    _next: float = 0.0

    def next(self) -> float:
        wait = self._next or self.first_s
        self._next = min(self.most_s, wait * 2)
        return wait

    def reset(self) -> None:
        self._next = 0.0


class Client:
    """The Board API at ``server`` for the account of ``token`` (see the module)."""

    def __init__(
        self,
        token: str,
        server: str = DEFAULT_SERVER,
        *,
        timeout_s: float = 30.0,
        cafile: str | None = None,
        rate_limit_s: float = RATE_LIMIT_S,
    ) -> None:
        url = urllib.parse.urlsplit(server)
        if url.scheme not in ("https", "http") or not url.hostname:
            raise ValueError(f"not a server address: {server!r}")
        if url.scheme == "http" and url.hostname not in _LOOPBACK:
            raise ValueError("the server is reached over https only (plain http only to this machine, for tests)")
        self.server = f"{url.scheme}://{url.netloc}"
        self._https = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port
        self._token = token
        self.timeout_s = timeout_s
        #: How long a 429 that says nothing keeps this client away.
        self.rate_limit_s = rate_limit_s
        self._context = ssl.create_default_context(cafile=cafile) if self._https else None

    def __repr__(self) -> str:
        return f"Client({self.server!r})"  # never the token

    # -- the wire -----------------------------------------------------------------------

    def _connection(self, timeout_s: float | None) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout_s, context=self._context)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout_s)

    def _open(
        self, method: str, path: str, form: Mapping[str, str] | None = None, *, stream: bool = False
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, socket.socket | None]:
        headers = {
            "Authorization": f"Bearer {self._token}",
            "Accept": "application/x-ndjson" if stream else "application/json",
            "User-Agent": f"crownhead/{__version__} (checkers e-board)",
        }
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn = self._connection(self.timeout_s)
        try:
            conn.request(method, path, body=body, headers=headers)
            sock = conn.sock  # the connection lets go of it once a streamed answer begins
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise Lost(f"{method} {path}: {type(exc).__name__}: {exc}") from None
        if resp.status == 429:
            wait = _retry_after(resp.getheader("Retry-After"), self.rate_limit_s)
            conn.close()
            raise RateLimited(wait)
        if resp.status >= 400:
            text = resp.read(64 * 1024)
            conn.close()
            if resp.status >= 500:
                raise Lost(f"{method} {path}: the server failed (HTTP {resp.status})")
            raise Refused(resp.status, _error_of(text))
        return conn, resp, sock

    def call(self, method: str, path: str, form: Mapping[str, str] | None = None) -> dict[str, Any]:
        """One request; its JSON answer (``{}`` if none)."""
        conn, resp, _sock = self._open(method, path, form)
        try:
            text = resp.read(1024 * 1024)
        except (OSError, http.client.HTTPException) as exc:
            raise Lost(f"{method} {path}: {exc}") from None
        finally:
            conn.close()
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError:
            raise ClientError(f"{method} {path}: the answer is not JSON") from None
        return data if isinstance(data, dict) else {"value": data}

    def stream(
        self,
        path: str,
        *,
        method: str = "GET",
        form: Mapping[str, str] | None = None,
        opened: Callable[[socket.socket], None] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The objects of an NDJSON stream, one a line (the empty keep-alive lines
        skipped) until the server ends it; :class:`Lost` if it drops. ``opened`` is given
        the socket once the server answers (to cut it from another thread)."""
        conn, resp, sock = self._open(method, path, form, stream=True)
        if opened is not None and sock is not None:
            opened(sock)
        try:
            while True:
                try:
                    line = resp.readline(256 * 1024)
                except (OSError, http.client.HTTPException) as exc:
                    raise Lost(f"{path}: the stream dropped ({type(exc).__name__})") from None
                if not line:
                    return
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                except ValueError:
                    raise ClientError(f"{path}: a line that is not JSON") from None
                if isinstance(data, dict):
                    yield data
        finally:
            conn.close()

    # -- the Board API ------------------------------------------------------------------

    def account(self) -> dict[str, Any]:
        return self.call("GET", "/api/account")

    def playing(self) -> list[str]:
        """The ids of the account's games under way (``/api/account/playing``)."""
        games = self.call("GET", "/api/account/playing").get("nowPlaying")
        if not isinstance(games, list):
            return []
        return [str(g.get("gameId") or g.get("fullId", "")[:8]) for g in games if isinstance(g, dict)]

    def events(self, opened: Callable[[socket.socket], None] | None = None) -> Iterator[dict[str, Any]]:
        return self.stream("/api/stream/event", opened=opened)

    def game_stream(
        self, game_id: str, opened: Callable[[socket.socket], None] | None = None
    ) -> Iterator[dict[str, Any]]:
        return self.stream(f"/api/board/game/stream/{_id(game_id)}", opened=opened)

    def move(self, game_id: str, uci: str, *, offering_draw: bool | None = None) -> dict[str, Any]:
        if not uci.isdigit():
            raise ValueError(f"not a move: {uci!r}")
        query = "" if offering_draw is None else f"?offeringDraw={'true' if offering_draw else 'false'}"
        return self.call("POST", f"/api/board/game/{_id(game_id)}/move/{uci}{query}")

    def command(self, game_id: str, command: str) -> dict[str, Any]:
        """``abort``, ``resign``, ``draw/yes``, ``draw/no`` on the game."""
        if command not in ("abort", "resign", "draw/yes", "draw/no"):
            raise ValueError(f"no such command: {command}")
        return self.call("POST", f"/api/board/game/{_id(game_id)}/{command}")

    def chat(self, game_id: str, text: str, room: str = "player") -> dict[str, Any]:
        return self.call("POST", f"/api/board/game/{_id(game_id)}/chat", {"room": room, "text": text[:140]})

    def seek(
        self,
        minutes: int,
        increment_s: int,
        *,
        variant: str = "english",
        rated: bool = False,
        opened: Callable[[socket.socket], None] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """A seek: the server keeps the answer open until it pairs it (the game starts on
        the event stream) or the seek is cancelled (the connection closed: ``opened`` is
        given its socket, to cut it from another thread)."""
        form = {"time": str(minutes), "increment": str(increment_s), "variant": variant, "rated": str(rated).lower()}
        return self.stream("/api/board/seek", method="POST", form=form, opened=opened)

    def challenge(self, username: str, minutes: int, increment_s: int, *, variant: str = "english") -> dict[str, Any]:
        form = {
            "clock.limit": str(minutes * 60),
            "clock.increment": str(increment_s),
            "variant": variant,
            "rated": "false",
        }
        return self.call("POST", f"/api/challenge/{_id(username)}", form)

    def accept(self, challenge_id: str) -> dict[str, Any]:
        return self.call("POST", f"/api/challenge/{_id(challenge_id)}/accept")

    def decline(self, challenge_id: str, reason: str = "generic") -> dict[str, Any]:
        return self.call("POST", f"/api/challenge/{_id(challenge_id)}/decline", {"reason": reason})


def _id(text: str) -> str:
    """A game, challenge or user id as a path part (letters, digits, ``_``, ``-``)."""
    if not text or len(text) > 64 or not all(c.isalnum() or c in "_-" for c in text):
        raise ValueError(f"not an id: {text!r}")
    return text


def _retry_after(value: str | None, default_s: float) -> float:
    try:
        return max(1.0, float(value)) if value else default_s
    except ValueError:
        return default_s


def _error_of(text: bytes) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return "refused"
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, str):
            return err[:200]
        if isinstance(err, dict):
            return "; ".join(f"{k}: {v}" for k, v in list(err.items())[:4])[:200]
    return "refused"
