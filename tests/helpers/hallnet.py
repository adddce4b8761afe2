"""The hall's two brokers as shipped, for the tests: the embedded one and Mosquitto.

Both have the same accounts (``hall``, ``arbiter`` and boards, each with the password
``NAME-pw``) and enforce the shipped ACL; Mosquitto runs with
``deploy/mosquitto/crownhead.conf`` itself, only its TLS listener swapped for a plain one
on a free loopback port (and persistence, which Debian's main file would give, added so
that a test can kill it and start it again).
"""

from __future__ import annotations

from crownhead.rules import WCDF

import os
import pwd
import shutil
import socket
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from crownhead.firmware.hall.accounts import Accounts
from crownhead.firmware.hall.broker import EmbeddedBroker

from helpers.net import WAIT_S, free_port, wait_for

REPO = Path(__file__).resolve().parents[2]
SHIPPED_CONF = REPO / "deploy" / "mosquitto" / "crownhead.conf"
SHIPPED_ACL = REPO / "deploy" / "mosquitto" / "crownhead.acl"
MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
PASSWD = shutil.which("mosquitto_passwd")
NO_MOSQUITTO = "mosquitto is not installed (Debian package mosquitto)"
#: A test that needs a real Mosquitto skips, saying why, where it is not installed.
needs_mosquitto = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)

#: Every board account of the tests' brokers (Mosquitto's; the embedded one has more).
BOARDS = [f"table-{i}" for i in range(1, 21)]
ACCOUNTS = ["hall", "arbiter", *BOARDS]
#: The embedded broker's accounts: every board name the tests use.
EMBEDDED_ACCOUNTS = [*ACCOUNTS, "table-0", *(f"{prefix}{i}" for prefix in ("board-", "t") for i in range(10))]


def password(user: str) -> str:
    return f"{user}-pw"


class Broker:
    """What a test needs of a broker: its port and a URL for each account."""

    kind = "broker"
    port: int

    def url(self, user: str, secret: str | None = None) -> str:
        return f"mqtt://{user}:{secret if secret is not None else password(user)}@127.0.0.1:{self.port}"

    def start(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Embedded(Broker):
    """The hall's embedded broker (amqtt), in this process."""

    kind = "embedded"

    def __init__(self, users: list[str] = EMBEDDED_ACCOUNTS) -> None:
        self.port = free_port()
        self.accounts = Accounts({user: password(user) for user in users})
        self._broker: EmbeddedBroker | None = None

    def start(self) -> None:
        self._broker = EmbeddedBroker("127.0.0.1", self.port, accounts=self.accounts)
        self._broker.start(timeout_s=WAIT_S)

    def kill(self) -> None:
        self.close()

    def close(self) -> None:
        if self._broker is not None:
            self._broker.close()
            self._broker = None


class Mosquitto(Broker):
    """Mosquitto with the shipped configuration and ACL, its files in ``folder``."""

    kind = "mosquitto"

    def __init__(self, folder: Path, users: list[str] = ACCOUNTS, *, tls: Path | None = None) -> None:
        """``tls``: a folder with ``ca.crt``, ``server.crt`` and ``server.key`` (for
        ``localhost``): the shipped TLS listener kept, with them (:attr:`cafile`)."""
        assert MOSQUITTO is not None and PASSWD is not None, NO_MOSQUITTO
        self.folder = folder
        self.tls = tls
        self.cafile = str(tls / "ca.crt") if tls is not None else None
        self.port = free_port()
        passwd = folder / "passwd"
        for i, user in enumerate(users):
            args = [PASSWD, "-b"] + (["-c"] if i == 0 else []) + [str(passwd), user, password(user)]
            subprocess.run(args, check=True, capture_output=True)
        acl = folder / "crownhead.acl"
        acl.write_bytes(SHIPPED_ACL.read_bytes())
        lines = []
        for line in SHIPPED_CONF.read_text().splitlines():
            word = line.split(" ", 1)[0]
            if word == "listener":
                line = f"listener {self.port} 127.0.0.1"
            elif word in ("cafile", "certfile", "keyfile"):
                if tls is None:
                    continue  # the test's listener is plain TCP
                line = f"{word} {tls / {'cafile': 'ca.crt', 'certfile': 'server.crt', 'keyfile': 'server.key'}[word]}"
            elif word == "password_file":
                line = f"password_file {passwd}"
            elif word == "acl_file":
                line = f"acl_file {acl}"
            lines.append(line)
        lines += ["persistence true", f"persistence_location {folder}/", "autosave_interval 1"]
        if os.geteuid() == 0:
            # Started as root it would drop to the mosquitto user, who cannot read the
            # test's files: stay the user who runs the test.
            lines.append(f"user {pwd.getpwuid(os.geteuid()).pw_name}")
        (folder / "mosquitto.conf").write_text("\n".join(lines) + "\n")
        passwd.chmod(0o600)
        acl.chmod(0o600)
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, user: str, secret: str | None = None) -> str:
        if self.tls is None:
            return super().url(user, secret)
        return f"mqtts://{user}:{secret if secret is not None else password(user)}@localhost:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0

        assert wait_for(listening), "mosquitto did not start"

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(WAIT_S)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


def game_states(
    black: str,
    white: str,
    moves: list[str],
    result: str | None = None,
    reason: str | None = None,
    *,
    round_: str | None = "1",
    game_id: str | None = None,
    start: str | None = None,
) -> list[dict[str, object]]:
    """A board's retained states through one game, as ``board_state`` writes them: at its
    start, after each move, and (with ``result``) over."""
    from crownhead.rules import BLACK, Game, Position

    game = Game(Position.from_fen(start) if start else None, WCDF)
    states = []

    def state(over: bool) -> dict[str, object]:
        return {
            "event": None,
            "round": round_,
            "game_id": game_id,
            "fen": game.position.fen(),
            "ply": game.ply,
            "turn": "black" if game.turn is BLACK else "white",
            "black": black,
            "white": white,
            "result": result if over else None,
            "reason": reason if over else None,
            "clocks": None,
            "match": None,
            "status": "",
            "moves": list(moves[: game.ply]),
            "start": game.start.fen(),
            "condoned": [],
        }

    states.append(state(False))
    for text in moves:
        game.play_text(text)
        states.append(state(False))
    if result is not None:
        states.append(state(True))
    return states


def feed(hall: object, board: str, states: list[dict[str, object]]) -> None:
    """Give ``hall`` (a :class:`~crownhead.firmware.hall.hall.Hall`) the states as its listener would."""
    import json

    for s in states:
        hall.receive(f"crownhead/{hall.name}/{board}/state", json.dumps(s).encode())  # type: ignore[attr-defined]


def started_broker(kind: str, folder: Path) -> Broker:
    """A started broker of ``kind`` (``embedded`` or ``mosquitto``, its files in
    ``folder``), for a fixture run over both; the test is skipped, saying why, where
    Mosquitto is not installed."""
    if kind == "mosquitto":
        if MOSQUITTO is None or PASSWD is None:
            import pytest

            pytest.skip(NO_MOSQUITTO)
        broker: Broker = Mosquitto(folder)
    else:
        broker = Embedded()
    broker.start()
    return broker


@contextmanager
def running_mosquitto(folder: Path, users: Sequence[str]) -> Iterator[Mosquitto]:
    """A real Mosquitto with the shipped configuration and ACL and these ``users``'
    accounts, kept in ``folder`` (made), running for the ``with`` block."""
    folder.mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(folder, users=list(users))
    broker.start()
    try:
        yield broker
    finally:
        broker.close()
