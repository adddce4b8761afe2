"""Probes an attacker on the board's network would run against its web page, small
enough to copy: a real ``crownhead run --web 0.0.0.0:PORT`` with the open-files limit a
service has, idle and slowloris connections from many addresses, and a PIN holder who
plays moves meanwhile.

Every address of 127.0.0.0/8 is this machine's on Linux, so the "many addresses" of a
network are 127.0.0.2, 127.0.0.3, ... here, and the board tells them apart as it would
tell apart the machines of a club's network.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from helpers.web import WAIT_S, Socket, page_url, request, run_command

REPO = Path(__file__).resolve().parents[2]


def addresses(count: int, first: int = 2) -> list[str]:
    """``count`` loopback addresses other than 127.0.0.1 (127.0.0.2, ...)."""
    return [f"127.0.{(first + i) // 250}.{2 + (first + i) % 250}" for i in range(count)]


class RunningBoard:
    """``crownhead run --headless --hal sim --web 0.0.0.0:0`` in a process of its own, its
    open-files limit set to ``nofile`` (a service's default is 1,024), commands behind
    ``pin``."""

    def __init__(self, state_dir: Path, *, nofile: int, pin: str = "24682468", extra: str = "") -> None:
        self.state_dir = state_dir
        self.pin = pin
        config = state_dir / "config.toml"
        state_dir.mkdir(parents=True, exist_ok=True)
        config.write_text(f'[web]\npin = "{pin}"\n{extra}', encoding="utf-8")
        command = run_command(state_dir, "0.0.0.0:0", config)
        # The limit is set in the child before it runs anything (as systemd does).
        launcher = (
            "import os, resource, sys; n = int(sys.argv[1]); "
            "resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)); os.execv(sys.executable, sys.argv[2:])"
        )
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-c", launcher, str(nofile), *command],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(page_url(self.proc.stdout, self.output).rsplit(":", 1)[1].strip("/"))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def login(self) -> str:
        """The session cookie a PIN holder gets."""
        status, headers, body = request(
            self.url + "api/login", method="POST", data=json.dumps({"pin": self.pin}).encode()
        )
        assert status == 200, body
        return headers["set-cookie"].split(";")[0]

    def play(self, moves: Sequence[str], timeout: float = 30.0) -> None:
        """A PIN holder's page makes ``moves`` with the simulator's hands."""
        cookie = self.login()
        url = self.url.replace("http://", "ws://") + "ws"
        with Socket(url, additional_headers={"Cookie": cookie}, open_timeout=timeout) as ws:
            ws.until(lambda m: m.get("event") == "hello", timeout)
            for move in moves:
                assert ws.command(f"hands {move}", timeout)["ok"]
                ws.until(lambda m, move=move: m.get("event") == "move" and m.get("move") == move, timeout)

    def saved_moves(self) -> list[str]:
        """The moves of the game in progress as the board saved it."""
        record = json.loads((self.state_dir / "current.json").read_text(encoding="utf-8"))
        return [str(m) for m in record["moves"]]

    @contextmanager
    def told_on_failure(self) -> Iterator[None]:
        """On a failure, print what the board said (pytest shows it with the failure)."""
        try:
            yield
        except BaseException:
            print("".join(self.output[-40:]))
            raise

    def close(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        return "".join(self.output)

    def __enter__(self) -> RunningBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def idle_connections(port: int, count: int, sources: Sequence[str]) -> Iterator[list[socket.socket]]:
    """``count`` TCP connections to ``port`` that never send a byte, from ``sources`` in turn
    (opened without waiting: those the board does not accept wait in its queue)."""
    held: list[socket.socket] = []
    try:
        for i in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((sources[i % len(sources)], 0))
            s.connect_ex(("127.0.0.1", port))
            held.append(s)
        yield held
    finally:
        for s in held:
            s.close()


@contextmanager
def slowloris(port: int, count: int, sources: Sequence[str], every_s: float = 0.5) -> Iterator[list[socket.socket]]:
    """``count`` connections that send a request's headers a line at a time, one line
    every ``every_s`` seconds, and never finish them."""
    held: list[socket.socket] = []
    stop = threading.Event()

    def drip() -> None:
        n = 0
        while not stop.wait(every_s):
            n += 1
            for s in held:
                try:
                    s.send(f"X-Slow-{n}: {n}\r\n".encode())
                except OSError:
                    pass

    try:
        for i in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(5)
            s.bind((sources[i % len(sources)], 0))
            try:
                s.connect(("127.0.0.1", port))
                s.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except OSError:
                pass
            s.setblocking(False)
            held.append(s)
        thread = threading.Thread(target=drip, daemon=True)
        thread.start()
        yield held
    finally:
        stop.set()
        for s in held:
            s.close()


class RelentlessSlowloris:
    """``count`` slowloris connections from ``source`` kept open: each one the server
    closes is opened again at once (a thread; at most ``max_opened`` openings in all and
    ``seconds`` long, so the attack stops by itself)."""

    def __init__(
        self, port: int, count: int, source: str, *, every_s: float = 0.5, max_opened: int = 20_000, seconds: float = 60
    ) -> None:
        self.port, self.count, self.source, self.every_s = port, count, source, every_s
        self.max_opened, self.seconds = max_opened, seconds
        self.opened = 0
        self._held: list[socket.socket | None] = [None] * count
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _open(self) -> socket.socket | None:
        if self.opened >= self.max_opened:
            return None
        self.opened += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        s.bind((self.source, 0))
        try:
            s.connect(("127.0.0.1", self.port))
            s.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            s.close()
            return None
        s.setblocking(False)
        return s

    def _run(self) -> None:
        import time

        end = time.monotonic() + self.seconds
        dripped = time.monotonic()
        n = 0
        while not self._stop.wait(0.01) and time.monotonic() < end:
            for i, s in enumerate(self._held):
                if s is None or closed_by_peer([s]):
                    if s is not None:
                        s.close()
                    self._held[i] = self._open()
            if time.monotonic() - dripped >= self.every_s:
                dripped, n = time.monotonic(), n + 1
                for s in self._held:
                    try:
                        if s is not None:
                            s.send(f"X-Slow-{n}: {n}\r\n".encode())
                    except OSError:
                        pass

    def __enter__(self) -> RelentlessSlowloris:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for s in self._held:
            if s is not None:
                s.close()


class FrameFlood:
    """A spectator's page that writes WebSocket frames as fast as its socket takes them:
    it opens the board's ``/ws`` from ``source`` as a page of the board does (its
    ``Origin``), then writes tiny masked text frames (7 bytes each) without reading, for
    ``seconds`` at most and ``max_bytes`` in all (a thread: it stops by itself)."""

    FRAME = bytes([0x81, 0x81, 1, 2, 3, 4, ord("x") ^ 1])

    def __init__(
        self, port: int, source: str, *, seconds: float = 3.0, max_bytes: int = 64 << 20, paced: bool = False
    ) -> None:
        """``paced``: 700 bytes (100 frames) every 5 ms instead of all the socket takes."""
        self.port, self.source, self.seconds, self.max_bytes = port, source, seconds, max_bytes
        self.paced = paced
        self.sent = 0
        self.cut = False  # the board closed it
        self.opened = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import base64
        import time

        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.bind((self.source, 0))
            s.connect(("127.0.0.1", self.port))
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(
                (
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nOrigin: http://127.0.0.1:{self.port}\r\n"
                    f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            answer = b""
            while b"\r\n\r\n" not in answer:
                got = s.recv(4096)
                if not got:
                    self.cut = True
                    return
                answer += got
            self.opened = answer.startswith(b"HTTP/1.1 101")
            if not self.opened:
                return
            burst = self.FRAME * (100 if self.paced else 65536 // len(self.FRAME))
            s.setblocking(False)
            end = time.monotonic() + self.seconds
            while time.monotonic() < end and self.sent < self.max_bytes:
                try:
                    self.sent += s.send(burst)
                    if self.paced:
                        time.sleep(0.005)
                except BlockingIOError:
                    time.sleep(0.001)  # its socket takes no more: the board does not read it
                except OSError:
                    self.cut = True
                    return
                try:
                    if s.recv(65536) == b"":  # what the board sends it, unread by a flooder but here
                        self.cut = True
                        return
                except BlockingIOError:
                    pass
                except OSError:
                    self.cut = True
                    return

    def __enter__(self) -> FrameFlood:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join(timeout=self.seconds + 30)

    def join(self) -> None:
        self._thread.join(timeout=self.seconds + 30)


def closed_by_peer(sockets: Sequence[socket.socket]) -> int:
    """How many of ``sockets`` the server has closed (a read gives end of file or a reset)."""
    closed = 0
    for s in sockets:
        try:
            if s.recv(1 << 16, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))
