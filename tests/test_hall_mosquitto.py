"""The hall through Mosquitto, a real broker run by the test on a free loopback port.

Skipped with a reason where Debian's ``mosquitto`` is not installed (``.ci/run`` installs
it). The broker runs with password authentication, the ACL of docs/hall.md and
persistence, so that it can be killed and started again mid-game like a real one.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.events import Event, MoveMade
from firmware.hall.board import BoardPublisher
from firmware.hall.settings import HallSettings
from firmware.hall.hall import Hall, HallListener
from firmware.simulator.script import replay

from helpers.net import WAIT_S, free_port, wait_for
from helpers.scriptgen import TINSLEY, game_script, sample
from helpers.rig import Rig

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
PASSWD = shutil.which("mosquitto_passwd")

pytestmark = [
    pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason="mosquitto is not installed (Debian package mosquitto)"),
    pytest.mark.skipif(not TINSLEY.is_file(), reason="reference data not found beside the checkout"),
]

BOARDS = [f"table-{i}" for i in range(1, 21)]





class Mosquitto:
    """A Mosquitto broker with users ``hall`` and ``table-1``...``table-20`` (password = name + '-pw')."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        passwd = folder / "passwd"
        for i, user in enumerate(["hall", *BOARDS]):
            args = [PASSWD, "-b"] + (["-c"] if i == 0 else []) + [str(passwd), user, f"{user}-pw"]
            subprocess.run(args, check=True, capture_output=True)
        (folder / "acl").write_text(
            "pattern write crownhead/club/%u/#\n"
            "pattern read crownhead/club/%u/cmd\n"
            "user hall\n"
            "topic read crownhead/club/#\n"
            "topic write crownhead/club/+/cmd\n"
        )
        (folder / "mosquitto.conf").write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous false\n"
            f"password_file {passwd}\n"
            f"acl_file {folder / 'acl'}\n"
            "persistence true\n"
            f"persistence_location {folder}/\n"
            "autosave_interval 1\n"
            # Started as root it would drop to the mosquitto user, who cannot read the
            # test's files: stay the user who runs the test.
            + (f"user {pwd.getpwuid(os.geteuid()).pw_name}\n" if os.geteuid() == 0 else "")
        )
        passwd.chmod(0o600)
        (folder / "acl").chmod(0o600)
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, user: str) -> str:
        return f"mqtt://{user}:{user}-pw@127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        assert wait_for(listening), "mosquitto did not start"

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(WAIT_S)


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path)
    broker.start()
    yield broker
    if broker.process is not None and broker.process.poll() is None:
        broker.kill()


@pytest.fixture
def hall(mosquitto: Mosquitto) -> Iterator[Hall]:
    h = Hall("club")
    listener = HallListener(h, mosquitto.url("hall"))
    listener.start()
    assert listener.subscribed.wait(WAIT_S)
    # The broker has saved the hall's session (autosave_interval 1) when its database
    # file has been written after the subscription was confirmed: a broker killed later
    # keeps the hall's messages for it.
    confirmed = time.time()
    database = mosquitto.folder / "mosquitto.db"
    assert wait_for(lambda: database.is_file() and database.stat().st_mtime > confirmed), "mosquitto saved nothing"
    yield h
    listener.close()


class Board:
    """A board's publisher fed as the main loop feeds it: each event, then a poll that
    refreshes the retained state (whose moves let a hall that missed events catch up)."""

    def __init__(self, settings: HallSettings) -> None:
        self.moves: list[str] = []
        self.publisher = BoardPublisher(settings, lambda: {"fen": "x", "ply": len(self.moves), "moves": list(self.moves)})

    def play(self, event: Event) -> None:
        if isinstance(event, MoveMade):
            self.moves.append(event.move)
        self.publisher.sink(event)
        self.publisher.poll(0)


def played(index: int) -> tuple[list[Event], list[str]]:
    game = list(sample(20, 5))[index]
    events = [e for e in replay(game_script(game, index), game.start) if e.kind not in ("lights", "final")]
    return events, [e.move for e in events if isinstance(e, MoveMade)]


def test_twenty_boards_each_play_a_real_game_into_the_hall(mosquitto: Mosquitto, hall: Hall) -> None:
    publishers = []
    expected = {}
    for i, name in enumerate(BOARDS):
        events, moves = played(i)
        expected[name] = moves
        publisher = BoardPublisher(HallSettings(mosquitto.url(name), "club", name), lambda: {"fen": "x"})
        for event in events:
            publisher.sink(event)
        publishers.append(publisher)
    try:
        assert wait_for(lambda: {b["name"]: b["moves"] for b in hall.boards()} == expected)
    finally:
        for p in publishers:
            p.close(flush_s=0)
    assert all(b["online"] is False for b in hall.boards()) or True  # offline once closed (below)
    assert wait_for(lambda: all(not b["online"] for b in hall.boards()))


def test_a_board_may_publish_only_under_its_own_name(mosquitto: Mosquitto, hall: Hall) -> None:
    # table-1's credentials, claiming to be table-2: the broker's ACL drops it.
    forger = BoardPublisher(HallSettings(mosquitto.url("table-1"), "club", "table-2"), lambda: {"fen": "forged"})
    honest = BoardPublisher(HallSettings(mosquitto.url("table-3"), "club", "table-3"), lambda: {"fen": "B:W21:B1"})
    try:
        forger.sink(MoveMade(1, 1, "black", "11-15", (11, 15), ()))
        forger.poll(0)
        honest.sink(MoveMade(1, 1, "black", "9-13", (9, 13), ()))
        honest.poll(0)
        assert wait_for(lambda: any(b["name"] == "table-3" and b["moves"] == ["9-13"] for b in hall.boards()))
        time.sleep(0.5)  # the forged messages, had they passed, were sent before the honest ones
        assert [b["name"] for b in hall.boards()] == ["table-3"]
    finally:
        forger.close(flush_s=0)
        honest.close(flush_s=0)


def test_the_broker_killed_and_restarted_mid_game_loses_nothing(mosquitto: Mosquitto, hall: Hall) -> None:
    events, moves = played(7)
    board = Board(HallSettings(mosquitto.url("table-1"), "club", "table-1"))
    publisher = board.publisher
    half = len(events) // 2
    try:
        for event in events[:half]:
            board.play(event)
        first = [e.move for e in events[:half] if isinstance(e, MoveMade)]
        assert wait_for(lambda: bool(hall.boards()) and hall.boards()[0]["moves"] == first)
        mosquitto.kill()
        for event in events[half:]:  # the board plays on while the broker is down
            board.play(event)
        time.sleep(1.0)
        mosquitto.start()
        assert wait_for(lambda: hall.boards()[0]["moves"] == moves), hall.boards()[0]["moves"]
    finally:
        publisher.close(flush_s=0)


@pytest.mark.slow
def test_a_board_that_loses_the_network_for_30_s_catches_up(mosquitto: Mosquitto, hall: Hall) -> None:
    events, moves = played(3)
    board = Board(HallSettings(mosquitto.url("table-2"), "club", "table-2"))
    publisher = board.publisher
    try:
        for event in events[:10]:
            board.play(event)
        assert wait_for(lambda: bool(hall.boards()) and len(hall.boards()[0]["moves"]) >= 1)
        mosquitto.kill()
        for event in events[10:]:
            board.play(event)  # queued, whatever the network does
        time.sleep(30)
        mosquitto.start()
        assert wait_for(lambda: hall.boards()[0]["moves"] == moves, 90)
    finally:
        publisher.close(flush_s=0)


def test_the_arbiter_sends_a_board_commands_and_a_board_cannot_command_another(mosquitto: Mosquitto, hall: Hall, tmp_path: Path) -> None:
    import json

    import paho.mqtt.client as mqtt

    from firmware.hall.commands import attach_commands
    from firmware.hall.board import app_state
    from firmware.link.settings import LinkConfig

    rig = Rig(tmp_path / "state")
    settings = HallSettings(mosquitto.url("table-1"), "club", "table-1", commands=True)
    publisher = BoardPublisher(settings, lambda: app_state(rig.app), connect=False)
    publisher.attach(rig.app, events=False)
    attach_commands(publisher, rig.app, LinkConfig())
    publisher.start()
    replies: list[dict] = []
    arbiter = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    arbiter.username_pw_set("hall", "hall-pw")
    arbiter.on_message = lambda c, u, m: replies.append(json.loads(m.payload)) if m.topic.endswith("/event") else None
    listening = threading.Event()
    arbiter.on_subscribe = lambda c, u, mid, codes, props: listening.set()
    arbiter.connect("127.0.0.1", mosquitto.port)
    arbiter.subscribe("crownhead/club/table-1/event", qos=1)
    arbiter.loop_start()
    # Another board's account may not send table-1 a command: the ACL drops it.
    other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    other.username_pw_set("table-2", "table-2-pw")
    other.connect("127.0.0.1", mosquitto.port)
    other.loop_start()
    try:
        # Commands are sent once both subscriptions are confirmed: the board's to its
        # commands, the arbiter's to the board's answers (before that they would be lost).
        assert publisher.subscribed.wait(WAIT_S) and listening.wait(WAIT_S)
        other.publish("crownhead/club/table-1/cmd", b"names Mallory;Eve", qos=1).wait_for_publish(WAIT_S)
        arbiter.publish("crownhead/club/table-1/cmd", b"names Ann;Bob", qos=1).wait_for_publish(WAIT_S)

        def answered() -> bool:
            rig.wait(20)
            return any(r.get("event") == "reply" and r.get("cmd") == "names" for r in replies)

        assert wait_for(answered)
        names = [r for r in replies if r.get("event") == "reply" and r.get("cmd") == "names"]
        assert len(names) == 1 and names[0]["ok"] is True
        assert wait_for(lambda: (rig.wait(20), any(b["black"] == "Ann" for b in hall.boards()))[1]), (hall.boards(), publisher.pending, publisher.sent)
        assert not any(b["black"] == "Mallory" for b in hall.boards())
        # A garbled line gets the link's error reply and changes nothing.
        arbiter.publish("crownhead/club/table-1/cmd", b"frobnicate", qos=1).wait_for_publish(WAIT_S)
        assert wait_for(lambda: (rig.wait(20), any(r.get("event") == "error" and r.get("code") == "unknown-command" for r in replies))[1])
    finally:
        arbiter.loop_stop()
        other.loop_stop()
        publisher.close(flush_s=0)
        rig.app.close()


def test_commands_need_a_broker_account() -> None:
    from firmware.config import FieldError

    with pytest.raises(FieldError, match="need the board's broker account"):
        HallSettings("mqtt://127.0.0.1", "club", "table-1", commands=True).validate()
