"""Serial cables and host computers for the link tests.

:class:`NullModem` is a null-modem cable between two serial ports that exist as device
files: two pseudo-terminal pairs whose master ends a pump thread joins byte for byte.
Each side is a symlink (as udev makes ``/dev/serial/by-id/...``), so :meth:`NullModem.unplug`
and :meth:`NullModem.replug` can pull the cable and put in a new one: the ports vanish
(reads and writes fail) and come back under the same names. Both ends open their port
with pyserial, as a board and a host computer would.

:func:`linked_board` is the application rig (:class:`helpers.rig.Rig`) with a
:class:`~crownhead.firmware.link.host.Link` on one side of a cable; :class:`Host` is a pyserial port
on the other side that sends commands and collects the board's lines, stepping the
boards while it waits (they run in the test's thread; only the serial I/O has threads).
:class:`HostedBoard` is the three together: cable, host and board.

Nothing here decides by how long it has waited: a host knows the board has said all
it had to when the answer to a command sent last has come (:meth:`Host.sync`: the board
answers commands in order, behind the events before them), and two boards on one cable
are settled when every byte either wrote has been read and taken (:func:`settle`).
Real-time bounds (:data:`TIMEOUT_S`) only turn a hang into a failure.
"""

from __future__ import annotations

import errno
import json
import os
import select
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import serial

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.protocol import COMMANDS
from crownhead.firmware.link.transport import LineTransport

from helpers.rig import Rig

#: Real seconds a test waits for an answer over a pty before it fails: a bound on a
#: failure only, so generous enough for a very busy machine.
TIMEOUT_S = 120.0
#: The sentinel of :meth:`Host.sync`: ``help`` from just past the last command, an empty
#: page that no test asks for.
SYNC = f"help {len(COMMANDS)}"


class NullModem:
    """Two serial device files, ``a`` and ``b``, joined like a null-modem cable."""

    def __init__(self, directory: Path, names: tuple[str, str] = ("board", "host")) -> None:
        self.paths = (directory / names[0], directory / names[1])
        self._masters: list[int] = []
        self._slaves: list[int] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self.bytes = [0, 0]  # carried a -> b, b -> a
        self._plug()
        self._thread = threading.Thread(target=self._pump, name="null-modem", daemon=True)
        self._thread.start()

    @property
    def a(self) -> str:
        return str(self.paths[0])

    @property
    def b(self) -> str:
        return str(self.paths[1])

    def _plug(self) -> None:
        masters, slaves = [], []
        for path in self.paths:
            master, slave = os.openpty()
            # Raw from the start: no echo, no CR/LF games before the owner opens the port.
            tty.setraw(slave)
            os.set_blocking(master, False)
            if path.is_symlink() or path.exists():
                path.unlink()
            path.symlink_to(os.ttyname(slave))
            masters.append(master)
            slaves.append(slave)
        with self._lock:
            self._masters, self._slaves = masters, slaves
        os.write(self._wake_w, b"x")

    def unplug(self) -> None:
        """Pull the cable: both ports vanish; their users' reads and writes fail."""
        with self._lock:
            fds = self._masters + self._slaves
            self._masters, self._slaves = [], []
        os.write(self._wake_w, b"x")
        for path in self.paths:
            if path.is_symlink():
                path.unlink()
        for fd in fds:
            os.close(fd)

    def replug(self) -> None:
        """A new cable under the same names."""
        self._plug()

    def _pump(self) -> None:
        pending = [b"", b""]  # bytes read from side i, waiting to be written to the other
        while not self._stop.is_set():
            with self._lock:
                masters = list(self._masters)
            if len(masters) != 2:
                pending = [b"", b""]
                select.select([self._wake_r], [], [], 0.05)
                _drain(self._wake_r)
                continue
            readers = [m for i, m in enumerate(masters) if len(pending[i]) < 65536] + [self._wake_r]
            writers = [masters[1 - i] for i in range(2) if pending[i]]
            try:
                readable, writable, _ = select.select(readers, writers, [], 0.05)
            except (OSError, ValueError):
                continue
            if self._wake_r in readable:
                _drain(self._wake_r)
            for i, master in enumerate(masters):
                if master in readable:
                    try:
                        data = os.read(master, 4096)
                    except OSError as exc:
                        if exc.errno in (errno.EAGAIN, errno.EIO, errno.EBADF):
                            continue
                        raise
                    pending[i] += data
                other = masters[1 - i]
                if pending[i] and other in writable:
                    try:
                        n = os.write(other, pending[i])
                    except OSError as exc:
                        if exc.errno in (errno.EAGAIN, errno.EIO, errno.EBADF):
                            continue
                        raise
                    self.bytes[i] += n
                    pending[i] = pending[i][n:]

    def close(self) -> None:
        self._stop.set()
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)


def _drain(fd: int) -> None:
    try:
        os.read(fd, 1024)
    except BlockingIOError:
        pass


def linked_board(
    port: str,
    state: Path,
    *,
    plays: str = "both",
    control: bool = True,
    settings: AppSettings = AppSettings(),
    lines_per_step: int = 8,
    reconnect_ms: int = 500,
    start: bool = True,
) -> Rig:
    """A board application with a link on ``port``: simulated board, virtual clock, state dir."""
    rig = Rig(state, settings=settings, start=False)
    config = LinkConfig(
        port=port, plays=plays, control=control, lines_per_step=lines_per_step, reconnect_ms=reconnect_ms
    )
    transport = LineTransport(port, rig.clock, reconnect_ms=reconnect_ms, name=f"link {Path(port).name}")
    rig.connect(transport, config)
    # Open the port here rather than in the reader thread: opening flushes what is waiting,
    # so the other end must not have been told anything before (see :func:`settle`).
    transport.connect_now()
    transport.start()
    if start:
        rig.app.start()
    return rig


class Host:
    """A host computer on ``port`` (pyserial): sends commands, reads the board's lines."""

    def __init__(self, port: str, boards: Iterable[Rig] = ()) -> None:
        self.port_name = port
        self.port = serial.serial_for_url(port, timeout=0.002, write_timeout=TIMEOUT_S)
        self.boards = list(boards)
        self.lines: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self._buf = b""
        self._seen = 0
        self._synced = 0  # answers to sentinels taken in
        self._overruns = 0  # overrun lines taken in

    def reopen(self) -> None:
        try:
            self.port.close()
        except Exception:  # noqa: BLE001
            pass
        self.port = serial.serial_for_url(self.port_name, timeout=0.002, write_timeout=TIMEOUT_S)
        self._buf = b""

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def send(self, text: str) -> None:
        self.port.write(text.encode("utf-8") + b"\n")

    def pump(self, step: bool = True) -> list[dict[str, Any]]:
        """Step every board once (unless ``step`` is false) and take in the lines that arrived."""
        for board in self.boards if step else ():
            board.step()
        data = self.port.read(65536)
        new: list[dict[str, Any]] = []
        if data:
            self._buf += data
            *complete, self._buf = self._buf.split(b"\n")
            for raw in complete:
                self.raw.append(raw)
                assert len(raw) + 1 <= 1024, f"the board sent a line of {len(raw) + 1} bytes"
                line = json.loads(raw.decode("utf-8"))
                if line["event"] == "reply" and line.get("cmd") == "help" and line.get("commands") == []:
                    self._synced += 1  # the answer to a sentinel is no line of the test's
                    continue
                self._overruns += line["event"] == "overrun"
                new.append(line)
        self.lines += new
        return new

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], what: str = "a line") -> dict[str, Any]:
        """The first line after those already taken that satisfies ``pred``."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while self._seen < len(self.lines):
                line = self.lines[self._seen]
                self._seen += 1
                if pred(line):
                    return line
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {TIMEOUT_S} s; got {self.lines[-5:]}")
            self.pump()

    def request(self, text: str) -> dict[str, Any]:
        """Send a command and return its one answer (a reply or an error)."""
        self.send(text)
        return self.wait_for(lambda d: d["event"] in ("reply", "error"), f"answer to {text!r}")

    def answers(self, count: int) -> list[dict[str, Any]]:
        return [self.wait_for(lambda d: d["event"] in ("reply", "error"), "answer") for _ in range(count)]

    def event(self, kind: str) -> dict[str, Any]:
        return self.wait_for(lambda d: d["event"] == kind, f"{kind} event")

    def since(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The lines not yet taken by ``wait_for`` (of ``kind``), marking them taken."""
        out = self.lines[self._seen :]
        self._seen = len(self.lines)
        return [d for d in out if kind is None or d["event"] == kind]

    def sync(self) -> None:
        """Pump until the board has answered everything sent before and every line it
        sent until then has been taken in.

        A sentinel command goes last; the board answers commands in order, each after the
        events that came before it, so its answer (kept out of :attr:`lines`) closes
        everything before. After an overrun the sentinel may have been dropped: it is
        sent again.
        """
        deadline = time.monotonic() + TIMEOUT_S
        self.send(SYNC)
        want, overruns = self._synced + 1, self._overruns
        while self._synced < want:
            self.pump()
            if self._overruns != overruns:
                self.send(SYNC)
                want, overruns = self._synced + 1, self._overruns
            if time.monotonic() > deadline:
                raise AssertionError(f"the board did not answer {SYNC!r} within {TIMEOUT_S} s; got {self.lines[-5:]}")

    def close(self) -> None:
        self.port.close()


def wait_until(boards: Iterable[Rig], pred: Callable[[], bool], what: str) -> None:
    """Step ``boards`` (their links answer each other meanwhile) until ``pred()`` holds."""
    boards = list(boards)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        for board in boards:
            board.step()
        if pred():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {TIMEOUT_S} s")
        time.sleep(0.0005)  # the serial threads carry the lines meanwhile


def settle(boards: Iterable[Rig]) -> None:
    """Step two boards on one cable until nothing is on its way between them.

    Settled: both ports open and greeted, each board's queue empty, every byte one
    board's writer took read by the other, and every line read taken by its board, all
    at once. Stepping does not move the virtual clocks, so nothing more is said after
    that. Exact only for a cable that was never pulled and ports that were open before
    either board spoke (:func:`linked_board` opens its port at once): a byte lost on the
    way would leave the count short for ever, and the wait would fail.
    """
    a, b = boards

    def settled() -> bool:
        # Read in the order the bytes go (a, then b, then a again), so that a line
        # moving between two readings is seen somewhere.
        a1, b1, a2 = a.transport.flow(), b.transport.flow(), a.transport.flow()
        return (
            not a1[4]
            and not b1[4]
            and a1[0] == 0
            and b1[0] == 0
            and a1[1] == b1[2]
            and b1[3] == 0
            and b1[1] == a2[2]
            and a2[3] == 0
        )

    wait_until((a, b), settled, "the boards' lines settle")


class HostedBoard:
    """A board (``linked_board``) and a :class:`Host` at the two ends of a :class:`NullModem`."""

    def __init__(self, tmp_path: Path, **board: Any) -> None:
        self.cable = NullModem(tmp_path)
        self.host = Host(self.cable.b)  # the host's port is open before the board speaks
        self.board = linked_board(self.cable.a, tmp_path / "state", **board)
        self.host.boards.append(self.board)
        self.hello = self.host.event("hello")

    def close(self) -> None:
        self.board.close()
        self.host.close()
        self.cable.close()


def snapshot(board: Rig) -> tuple[Any, ...]:
    """Everything a command could change."""
    app = board.app
    game = app.game
    assert board.link is not None
    return (
        game.position.fen(),
        game.ply,
        tuple(game.moves),
        game.result,
        game.start.fen(),
        app.tracker.expected,
        app.tracker.setting_up,
        app.tracker.mode,
        app.policy.settings.hints,
        app.players[game.turn].name,
        app.record.black if app.record else None,
        board.link.game_id,
        dict(board.link.requests.host),
        board.link.requests.ballot,
    )


def unplugged(boards: Iterable[Rig]) -> None:
    """Wait until each board's link has noticed that its cable is gone.

    The link notices in its own thread, in real time; only then does its clock for the
    next attempt start (``reconnect_ms`` of the board's virtual clock from that moment).
    """
    boards = list(boards)
    deadline = time.monotonic() + TIMEOUT_S
    while any(board.transport.connected for board in boards):
        if time.monotonic() > deadline:
            raise AssertionError(f"a link did not notice its cable go within {TIMEOUT_S} s")
        time.sleep(0.001)


def plugged_in(boards: Iterable[Rig], connects: int, step_ms: int = 100) -> None:
    """Let each board's virtual time run until its link has opened its port ``connects`` times.

    A link retries ``reconnect_ms`` after it noticed the cable go, and opens the port in
    its own thread: virtual time goes on in steps until the port is open again, rather
    than by a fixed amount that a busy machine might outrun.
    """
    boards = list(boards)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        behind = [board for board in boards if board.transport.connects < connects]
        if not behind:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"a link did not reopen its port within {TIMEOUT_S} s")
        for board in behind:
            board.wait(step_ms)
        time.sleep(0.001)
