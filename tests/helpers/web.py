"""A live board for the web page's tests: the application rig (:class:`helpers.rig.Rig`)
on a real-time clock, its main loop in a thread, the web server in its own, and helpers
to talk to it.

Browser tests use Debian's chromium through Playwright (never a browser Playwright
downloads), through the ``browser`` fixture of ``conftest.py``; they are skipped, saying
why, where there is none.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.players import Player, Thinker
from crownhead.firmware.config import Config, default_config
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.referee.settings import RefereeSettings
from crownhead.firmware.pages.serving import Limits
from crownhead.firmware.web.bridge import KEEP_MS, PageHub, WebLink
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.web.server import WebServer
from crownhead.hal.clock import Clock, MonotonicClock
from crownhead.rules import Position

from helpers.rig import Rig

#: Real seconds a test waits for the board's server (a request, a socket's next line)
#: before it fails: a bound on a failure only, generous enough for a very busy machine.
WAIT_S = 60.0

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: What ``crownhead run --web`` says once its page is served, before the address.
PAGE_LINE = "the board's page is at "


def run_command(state_dir: Path, web: str, config: Path | None = None) -> list[str]:
    """``crownhead run --headless --hal sim --web WEB`` as a new process starts it."""
    command = [sys.executable, "-m", "crownhead.firmware.cli", "run", "--headless", "--hal", "sim", "--web", web]
    command += ["--state-dir", str(state_dir)]
    return command + (["--config", str(config)] if config is not None else [])


def page_url(stream: IO[str], lines: list[str]) -> str:
    """The page's address, read from a board's output ``stream`` (each line read is kept
    in ``lines``); AssertionError with what it said if it never says."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if PAGE_LINE in line:
            return line.split(PAGE_LINE, 1)[1].strip()
    raise AssertionError("the board never said where its page is:\n" + "".join(lines))


def chromium_path() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


class LiveBoard:
    """The app on the simulated board, served on 127.0.0.1 at a free port."""

    def __init__(
        self,
        state_dir: Path,
        *,
        pin: str = "",
        host: str = "127.0.0.1",
        public_view: bool = False,
        settings: AppSettings | None = None,
        board: Mapping[int, str] | None = None,
        referee: RefereeSettings | None = None,
        lines_per_step: int = 8,
        clock: Clock | None = None,
        server_clock: Clock | None = None,
        page_rate: float = 1000.0,
        main_rate: float = 1000.0,
        keep_ms: int = KEEP_MS,
        limits: Limits | None = None,
        hosts: tuple[str, ...] = (),
        config: Config | None = None,
        max_pages: int = 64,
        players: Mapping[Any, Player] | None = None,
    ) -> None:
        self.rig = Rig(
            state_dir,
            board=board,
            players=players,
            settings=settings or AppSettings(auto_crown=True),
            thinker=Thinker(background=True),  # the machine thinks beside the live main loop
            referee_settings=referee or RefereeSettings(record_dir=str(state_dir / "referee")),
            clock=clock or MonotonicClock(),
            start=False,
        )
        self.clock = self.rig.clock
        self.app = self.rig.app
        assert self.rig.store is not None
        self.store = self.rig.store
        config = config or default_config()
        # Tests send faster than a person: the rates are the product's only where a
        # test (or bench/web.py) says so.
        self.hub = PageHub(rate=main_rate, burst=max(20, int(main_rate)), keep_ms=keep_ms, max_pages=max_pages)
        self.link = WebLink(self.hub, LinkConfig(lines_per_step=lines_per_step))
        self.link.attach(self.app, hands=Hands(self.app) if self.app.sim is not None else None)
        self.server = WebServer(
            self.link,
            host=host,
            port=0,
            pin=pin,
            public_view=public_view,
            store=self.store,
            config=config,
            clock=server_clock or self.clock,
            page_rate=page_rate,
            page_burst=max(20, int(page_rate)),
            state_dir=state_dir,
            hosts=hosts,
            # A WebSocket's budget too (a fuzz test sends 10,000 messages at once).
            limits=limits if limits is not None else Limits(ws_bytes_s=64 << 20, ws_frames_s=1_000_000),
        )
        self.server.start()
        self.app.start()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.app.run, args=(self._stop,), name="test-main-loop", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ws_url(self) -> str:
        return self.server.url.replace("http://", "ws://") + "ws"

    def get(self, path: str, headers: Mapping[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        return request(self.url + path.lstrip("/"), headers=headers)

    def state(self) -> dict[str, Any]:
        status, _headers, body = self.get("/api/state")
        assert status == 200, body
        return json.loads(body)

    def close(self) -> None:
        self._stop.set()
        self.app.wake()
        self._thread.join(timeout=WAIT_S)
        self.rig.close()
        self.server.close()

    def __enter__(self) -> LiveBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def request(
    url: str, *, method: str = "GET", data: bytes | None = None, headers: Mapping[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


class Socket:
    """A WebSocket to the board, reading the link's JSON lines (the websockets library).

    Its queue of lines received and not yet read is unbounded unless ``max_queue`` says
    otherwise: with the library's 16 lines, a socket a test had stopped reading stopped
    taking bytes off the wire, so the board's answer to its close never came through and
    the close waited its full 10 s (a test of a page that reads nothing passes its own).
    """

    def __init__(self, url: str, **kwargs: Any) -> None:
        from websockets.sync.client import connect

        self._connection = connect(url, **{"open_timeout": WAIT_S, "max_queue": None, **kwargs})
        self.ws = self._connection.__enter__()
        self.seen: list[dict[str, Any]] = []

    def send(self, text: str | bytes) -> None:
        self.ws.send(text)

    def next(self, timeout: float = WAIT_S) -> dict[str, Any]:
        message = json.loads(self.ws.recv(timeout=timeout))
        self.seen.append(message)
        return message

    def until(self, predicate: Any, timeout: float = WAIT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"nothing matched in {timeout} s; last seen: {self.seen[-3:]}")
            message = self.next(left)
            if predicate(message):
                return message

    def command(self, text: str, timeout: float = WAIT_S) -> dict[str, Any]:
        """Send a command and return its reply or error (events meanwhile are skipped)."""
        self.send(text)
        return self.until(lambda m: m.get("event") in ("reply", "error"), timeout)

    def close(self) -> None:
        self._connection.__exit__(None, None, None)

    def __enter__(self) -> Socket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_position_board() -> dict[int, str]:
    return {s: p.symbol for s, p in Position.start().pieces().items()}
