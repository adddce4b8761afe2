"""Two board processes far apart, for the remote-play tests: each a real ``crownhead run
--headless --hal sim --remote CODE`` with its own state directory, driven from outside
through its web page's WebSocket (the link's ``hands``, ``follow`` and ``view`` commands,
docs/protocol.md), and a TCP proxy between the boards and the broker that can cut the
line (every connection closed, new ones refused) or hold it (nothing forwarded: the
bytes wait, as TCP keeps them through an outage, and arrive late).

The agreement each board keeps (``remote/CODE.json``) is written here directly, as
``crownhead remote invite``/``join`` would (those are tested as processes in
``test_remote_cli.py``), with the broker's address the proxy's.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from crownhead.firmware.remote.invite import Agreement, Invitation

from helpers.net import WAIT_S
from helpers.web import PAGE_LINE, Socket

__all__ = ["BoardProcess", "Listener", "Proxy", "agree", "publish_as"]


class Listener:
    """An account on the broker at ``port`` (password ``ACCOUNT-pw``) subscribed to
    ``topics``: what it hears, in order (:attr:`messages`: topic and payload), the
    broker restarted or not."""

    def __init__(self, port: int, account: str, topics: list[str]) -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes]] = []
        subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=account)
        self.client.username_pw_set(account, f"{account}-pw")
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, bytes(m.payload)))
        self.client.on_subscribe = lambda c, u, mid, codes, props: subscribed.set()
        # Subscribed again after each reconnect (the broker restarted): it hears on.
        self.client.on_connect = lambda c, u, flags, reason, props: c.subscribe([(t, 1) for t in topics])
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(WAIT_S)

    @property
    def heard(self) -> list[bytes]:
        return [payload for _, payload in list(self.messages)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def publish_as(port: int, account: str, topic: str, payloads: list[bytes], *, retain: bool = False) -> None:
    """``payloads`` on ``topic`` from ``account``, each taken by the broker (``retain``:
    kept there for whoever subscribes later). (The shipped
    Mosquitto binds a client's id to its account: the board of that account is shut out
    for the moment, and its session at the broker wiped by this clean one, as when a
    second device logs in with a board's password.)"""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{account}-copies")
    client.username_pw_set(account, f"{account}-pw")
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        for payload in payloads:
            info = client.publish(topic, payload, qos=1, retain=retain)
            info.wait_for_publish(WAIT_S)
            assert info.is_published()
    finally:
        client.disconnect()
        client.loop_stop()


def agree(
    folders: tuple[Path, Path],
    boards: tuple[str, str],
    url: Callable[[str], str],
    code: str,
    **invitation: Any,
) -> None:
    """Write the agreement on game ``code`` into both state directories: the first board
    invited (it plays Black unless ``host_plays`` says otherwise) and the second joined."""
    host, guest = boards
    inv = Invitation(code, host, invitation.pop("host_plays", "black"), **invitation)
    for folder, me, peer in ((folders[0], host, guest), (folders[1], guest, host)):
        Agreement(inv, me, peer, url(me)).save(folder)


class Proxy:
    """TCP between the boards and the broker on 127.0.0.1: :meth:`cut`, :meth:`hold`, :meth:`mend`."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._lock = threading.Condition()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._state = "open"
        self._closed = False
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def url(self, user: str) -> str:
        return f"mqtt://{user}:{user}-pw@127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._pairs)

    def cut(self) -> None:
        """The line goes dead at once: every connection closed, new ones refused (closed)."""
        with self._lock:
            self._state = "cut"
            pairs, self._pairs = self._pairs, []
            self._lock.notify_all()
        for pair in pairs:
            _close(*pair)

    def hold(self) -> None:
        """Nothing crosses until :meth:`mend`; connections stay open, their bytes wait."""
        with self._lock:
            self._state = "hold"

    def mend(self) -> None:
        with self._lock:
            self._state = "open"
            self._lock.notify_all()

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._server.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                board, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                refused = self._state != "open"
            if refused:
                board.close()
                continue
            try:
                broker = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
                broker.settimeout(None)
            except OSError:
                board.close()  # the broker is down: the board's connect fails as it would
                continue
            with self._lock:
                self._pairs.append((board, broker))
            for a, b in ((board, broker), (broker, board)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            with self._lock:
                while self._state == "hold" and not self._closed:
                    self._lock.wait(0.05)
            if not data:
                break
            try:
                sink.sendall(data)
            except OSError:
                break
        _close(source, sink)
        with self._lock:
            self._pairs = [p for p in self._pairs if source not in p]


def _close(*sockets: socket.socket) -> None:
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


class BoardProcess:
    """``crownhead run --headless --hal sim --remote CODE`` in ``state_dir`` (``code`` None:
    without ``--remote``), its page on a free loopback port: its JSON events (stdout) kept in :attr:`events`, its log (stderr)
    in :attr:`log`, commands through the page's WebSocket."""

    def __init__(
        self,
        state_dir: Path,
        code: str | None,
        *,
        keep_game: bool = True,
        config: Path | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.state_dir, self.code, self.keep_game, self.config = state_dir, code, keep_game, config
        #: More of ``crownhead run``'s options (``--online``).
        self.extra = extra
        self.events: list[dict[str, Any]] = []
        self.log: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self.socket: Socket | None = None
        self.starts = 0
        self._page: list[str] = []
        self._found = threading.Event()

    def start(self, *, keep_game: bool | None = None, wait: bool = True) -> BoardProcess:
        """Switch the board on (``keep_game``: its pieces standing as its saved game has
        them); ``wait``: until its page is served (else :meth:`started`)."""
        keep = self.keep_game if keep_game is None else keep_game
        command = [sys.executable, "-m", "crownhead.firmware.cli", "run", "--headless", "--hal", "sim", "--log", "json"]
        command += ["--state-dir", str(self.state_dir), "--web", "127.0.0.1:0"]
        command += ["--remote", self.code] if self.code is not None else []  # None: as its page takes it
        command += ["--sim-keep-game"] if keep else []
        command += ["--config", str(self.config)] if self.config is not None else []
        command += list(self.extra)
        self.events.clear()
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.starts += 1
        self._page: list[str] = []
        self._found = threading.Event()
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read_events, args=(self.process.stdout, self.events), daemon=True).start()
        threading.Thread(
            target=self._read_log, args=(self.process.stderr, self._page, self._found), daemon=True
        ).start()
        return self.started() if wait else self

    @property
    def page(self) -> str:
        """The board's page's address (once :meth:`started`)."""
        return self._page[0]

    def started(self) -> BoardProcess:
        """Once its page is served: the WebSocket the test's hands and eyes use."""
        if not self._found.wait(WAIT_S) or not self._page:
            raise AssertionError(f"{self.state_dir.name}: the board never served its page:\n" + "".join(self.log))
        self.socket = Socket(self._page[0].replace("http://", "ws://") + "ws")
        return self

    def _read_events(self, stream: IO[str], into: list[dict[str, Any]]) -> None:
        for line in stream:
            if line.startswith("{"):
                into.append(json.loads(line))

    def _read_log(self, stream: IO[str], page: list[str], found: threading.Event) -> None:
        for line in stream:
            self.log.append(line)
            if PAGE_LINE in line and not found.is_set():
                page.append(line.split(PAGE_LINE, 1)[1].split(" or ")[0].strip().rstrip("/") + "/")
                found.set()
        found.set()  # the process ended

    # -- the board's people and screen -------------------------------------------------

    def command(self, text: str) -> dict[str, Any]:
        assert self.socket is not None
        return self.socket.command(text)

    def view(self) -> dict[str, Any]:
        reply = self.command("view")
        assert reply.get("ok"), reply
        return reply

    def hands(self, move: str) -> None:
        reply = self.command(f"hands {move}")
        assert reply.get("ok"), reply

    def moves(self) -> list[str]:
        """The moves this run of the board reported (``move`` events, takebacks undone)."""
        out: list[str] = []
        for event in list(self.events):
            if event.get("event") == "move":
                del out[event["ply"] - 1 :]
                out.append(event["move"])
            elif event.get("event") == "takeback":
                del out[event["ply"] - 1 :]
        return out

    def notices(self) -> list[str]:
        return [str(e.get("message")) for e in list(self.events) if e.get("event") == "notice"]

    def game(self) -> dict[str, Any]:
        """The board's saved game (``current.json``, the one the board resumes)."""
        return dict(json.loads((self.state_dir / "current.json").read_text()))

    def journal(self) -> dict[str, Any]:
        return dict(json.loads((self.state_dir / "remote" / f"{self.code}.journal.json").read_text()))

    def wait(self, predicate: Callable[[], object], what: str, timeout_s: float = WAIT_S) -> None:
        end = time.monotonic() + timeout_s
        while not predicate():
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(
                    f"{self.state_dir.name} ended ({self.process.returncode}) before {what}:\n"
                    + "".join(self.log[-20:])
                )
            if time.monotonic() > end:
                raise AssertionError(
                    f"{self.state_dir.name}: {what}: not within {timeout_s} s:\n" + "".join(self.log[-20:])
                )
            time.sleep(0.02)

    # -- power --------------------------------------------------------------------------

    def _drop_socket(self) -> None:
        if self.socket is not None:
            try:
                self.socket.close()
            except Exception:  # noqa: BLE001 - the board may be gone already
                pass
            self.socket = None

    def kill(self) -> None:
        """The power goes (SIGKILL): nothing is saved that was not saved already."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(WAIT_S)
        self._drop_socket()

    def stop(self) -> int:
        """Switched off by its owner (SIGTERM): the game saved, the journal written."""
        assert self.process is not None
        self._drop_socket()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(WAIT_S)


def step_until(pred: Callable[[], bool], what: str, rigs: Sequence[Any], step_ms: int = 20) -> None:
    """Step each of ``rigs``' applications ``step_ms`` of virtual time at a time (slowly,
    so resends come as they would) until ``pred()``; fails saying ``what`` after WAIT_S of
    real time (the broker's messages arrive in real time)."""
    end = time.monotonic() + WAIT_S
    while not pred():
        for rig in rigs:
            rig.app.run_for(step_ms)
        assert time.monotonic() < end, f"{what}: not within {WAIT_S} s"
        time.sleep(0.002)
