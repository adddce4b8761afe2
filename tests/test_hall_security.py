"""Attack probes on the hall's broker, run against both brokers as shipped.

Each test is a small script an attacker on the hall's network could run: it starts the
broker (the embedded one in this process, or Mosquitto with ``deploy/mosquitto``), the
hall and the boards as they are run for real, then acts as the attacker with a plain
MQTT client (paho) holding a board's account, no account, or a wrong password.
Mosquitto's runs are skipped with a reason where it is not installed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from crownhead.firmware.events import MoveMade
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.settings import HallSettings
from crownhead.firmware.hall.hall import Hall, HallListener

from helpers.hallnet import started_broker, BOARDS, Broker, Embedded, password
from helpers.net import WAIT_S, wait_for
from helpers.rig import Rig


@pytest.fixture(params=["embedded", "mosquitto"])
def broker(request: Any, tmp_path: Path) -> Iterator[Broker]:
    b = started_broker(request.param, tmp_path)
    yield b
    b.close()


@pytest.fixture
def hall(broker: Broker) -> Iterator[tuple[Hall, HallListener]]:
    h = Hall("club", boards=BOARDS)
    listener = HallListener(h, broker.url("hall"))
    listener.start()
    assert listener.subscribed.wait(WAIT_S)
    yield h, listener
    listener.close()


def heard(h: Hall) -> list[str]:
    """The boards the hall has heard from."""
    return [b["name"] for b in h.boards() if b["fen"] is not None or b["moves"]]


def board(h: Hall, name: str) -> dict[str, Any]:
    return next(b for b in h.boards() if b["name"] == name)


class Client:
    """A plain MQTT client: what an attacker runs."""

    def __init__(
        self,
        broker: Broker,
        user: str | None,
        secret: str | None = None,
        client_id: str = "",
        will: tuple[str, bytes] | None = None,
    ) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        if user is not None:
            self.client.username_pw_set(user, secret if secret is not None else password(user))
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1)
        self.answered = threading.Event()
        self.refused: bool | None = None
        self.received: list[tuple[str, bytes]] = []
        self.subscribed = threading.Event()
        self.disconnects = 0

        def on_connect(c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
            self.refused = bool(reason.is_failure)
            if self.refused:
                # Put off, it goes away: trying again, its client would first wait out a
                # second that close() waited for too.
                c.disconnect()
            self.answered.set()

        def on_disconnect(c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
            self.disconnects += 1
            self.answered.set()

        self.client.on_connect = on_connect
        self.client.on_disconnect = on_disconnect
        self.client.on_message = lambda c, u, m: self.received.append((m.topic, bytes(m.payload)))
        self.client.on_subscribe = lambda c, u, mid, codes, props: self.subscribed.set()
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        assert self.answered.wait(WAIT_S)

    def publish(self, topic: str, payload: bytes, wait: bool = True) -> None:
        if self.refused:
            return  # nothing goes out without a connection
        info = self.client.publish(topic, payload, qos=1)
        if not wait:
            return
        try:
            info.wait_for_publish(5)
        except (RuntimeError, ValueError):
            pass  # the broker put the attacker off: nothing to wait for

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_no_account_or_a_wrong_password_gets_nothing_in(broker: Broker, hall: tuple[Hall, HallListener]) -> None:
    h, _ = hall
    finished = json.dumps({"black": "Mallory", "white": "Eve", "result": "1-0", "round": "1"}).encode()
    for who, secret in ((None, None), ("table-1", "guess"), ("nobody", "nobody-pw")):
        attacker = Client(broker, who, secret)
        assert attacker.refused is True, who
        attacker.publish("crownhead/club/table-1/state", finished)  # tried all the same
        attacker.close()
    honest = Client(broker, "table-2")
    assert honest.refused is False
    honest.publish("crownhead/club/table-2/state", json.dumps({"fen": "B:W21:B1"}).encode())
    assert wait_for(lambda: heard(h) == ["table-2"])
    honest.close()
    assert h.standings.games() == []


def test_only_the_arbiter_may_write_a_boards_cmd_topic(broker: Broker) -> None:
    # table-1 listens to its commands as a board run with --mqtt-commands does.
    board = Client(broker, "table-1", client_id="table-1")
    board.client.subscribe("crownhead/club/table-1/cmd", qos=1)
    assert board.subscribed.wait(WAIT_S)
    board.publish("crownhead/club/table-1/cmd", b"names Mallory;Eve")  # its own account, its own topic
    other = Client(broker, "table-2")
    other.publish("crownhead/club/table-1/cmd", b"result 0-1 forfeit")
    hall_account = Client(broker, "hall")
    hall_account.publish("crownhead/club/table-1/cmd", b"result 1-0 forfeit")
    arbiter = Client(broker, "arbiter")
    arbiter.publish("crownhead/club/table-1/cmd", b"names Ann;Bob")
    try:
        assert wait_for(lambda: bool(board.received))
        time.sleep(0.3)  # anything forged was sent before the arbiter's line
        assert board.received == [("crownhead/club/table-1/cmd", b"names Ann;Bob")]
    finally:
        for c in (other, hall_account, arbiter, board):
            c.close()


def test_a_last_will_cannot_smuggle_a_command(broker: Broker) -> None:
    board = Client(broker, "table-1")
    board.client.subscribe("crownhead/club/table-1/cmd", qos=1)
    assert board.subscribed.wait(WAIT_S)
    # table-2's will names table-1's cmd topic; it then drops its connection uncleanly.
    # (The embedded broker refuses such a client at once; Mosquitto drops the will.)
    attacker = Client(broker, "table-2", will=("crownhead/club/table-1/cmd", b"result 0-1 forfeit"))
    attacker.client.loop_stop()
    sock = attacker.client.socket()
    if sock is not None:
        sock.close()
    arbiter = Client(broker, "arbiter")
    arbiter.publish("crownhead/club/table-1/cmd", b"names Ann;Bob")
    try:
        assert wait_for(lambda: bool(board.received))
        time.sleep(0.5)
        assert board.received == [("crownhead/club/table-1/cmd", b"names Ann;Bob")]
    finally:
        arbiter.close()
        board.close()


def test_a_board_naming_anothers_client_id_disconnects_nobody(broker: Broker, hall: tuple[Hall, HallListener]) -> None:
    h, listener = hall
    table1 = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), lambda: {"fen": "B:W21:B1"})
    table1.poll(0)
    assert table1.flush(WAIT_S)
    assert wait_for(lambda: heard(h) == ["table-1"])
    ids = ["hall", "table-1", "crownhead-hall-club", "crownhead-club-table-1"]
    # table-2's own account, and the hall's name with a wrong password, under every id
    # the hall and table-1 have or had.
    attackers = [Client(broker, "table-2", client_id=i) for i in ids]
    attackers += [Client(broker, "hall", "guess", client_id=i) for i in ids]
    time.sleep(0.5)
    try:
        assert listener.disconnects == 0 and table1.disconnects == 0
        # Both still where they were: table-1's next state reaches the hall.
        table1._state_source = lambda: {"fen": "B:W22:B1"}
        table1._dirty = True
        table1.poll(0)
        assert table1.flush(WAIT_S)
        assert wait_for(lambda: board(h, "table-1")["fen"] == "B:W22:B1")
        assert listener.disconnects == 0 and table1.disconnects == 0
    finally:
        for a in attackers:
            a.close()
        table1.close(flush_s=0)


def test_a_message_larger_than_a_board_ever_sends_is_refused(broker: Broker, hall: tuple[Hall, HallListener]) -> None:
    h, _ = hall
    attacker = Client(broker, "table-1")
    big = json.dumps({"t": 1, "event": "move", "ply": 1, "move": "1" * 120_000}).encode()
    attacker.publish("crownhead/club/table-1/event", big, wait=False)
    assert wait_for(lambda: attacker.disconnects >= 1)  # put off for it
    attacker.close()
    honest = Client(broker, "table-1")
    honest.publish(
        "crownhead/club/table-1/event", json.dumps({"t": 2, "event": "move", "ply": 1, "move": "11-15"}).encode()
    )
    assert wait_for(lambda: board(h, "table-1")["moves"] == ["11-15"])
    honest.close()


def test_a_board_run_with_commands_obeys_the_arbiter_only(
    broker: Broker, hall: tuple[Hall, HallListener], tmp_path: Path
) -> None:
    from crownhead.firmware.hall.commands import attach_commands
    from crownhead.firmware.link.settings import LinkConfig

    h, _ = hall
    rig = Rig(tmp_path / "state")
    settings = HallSettings(broker.url("table-1"), "club", "table-1", commands=True)
    publisher = BoardPublisher(settings, connect=False)
    publisher.attach(rig.app, events=False)
    attach_commands(publisher, rig.app, LinkConfig())
    publisher.start()
    replies: list[dict] = []
    arbiter = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    arbiter.username_pw_set("arbiter", "arbiter-pw")
    arbiter.on_message = lambda c, u, m: replies.append(json.loads(m.payload)) if m.topic.endswith("/event") else None
    listening = threading.Event()
    arbiter.on_subscribe = lambda c, u, mid, codes, props: listening.set()
    arbiter.connect("127.0.0.1", broker.port)
    arbiter.subscribe("crownhead/club/table-1/event", qos=1)
    arbiter.loop_start()
    # Another board's account may not send table-1 a command: the ACL drops it.
    other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    other.username_pw_set("table-2", "table-2-pw")
    other.connect("127.0.0.1", broker.port)
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
        assert wait_for(lambda: (rig.wait(20), any(b["black"] == "Ann" for b in h.boards()))[1]), (
            h.boards(),
            publisher.pending,
            publisher.sent,
        )
        assert not any(b["black"] == "Mallory" for b in h.boards())
        # A garbled line gets the link's error reply and changes nothing.
        arbiter.publish("crownhead/club/table-1/cmd", b"frobnicate", qos=1).wait_for_publish(WAIT_S)
        assert wait_for(
            lambda: (
                rig.wait(20),
                any(r.get("event") == "error" and r.get("code") == "unknown-command" for r in replies),
            )[1]
        )
    finally:
        arbiter.loop_stop()
        other.loop_stop()
        publisher.close(flush_s=0)
        rig.app.close()


def test_a_board_may_publish_only_under_its_own_name(broker: Broker, hall: tuple[Hall, HallListener]) -> None:
    h, _ = hall
    # table-1's credentials, claiming to be table-2: the broker's ACL drops it.
    forger = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-2"), lambda: {"fen": "forged"})
    honest = BoardPublisher(HallSettings(broker.url("table-3"), "club", "table-3"), lambda: {"fen": "B:W21:B1"})
    try:
        forger.sink(MoveMade(1, 1, "black", "11-15", (11, 15), ()))
        forger.poll(0)
        honest.sink(MoveMade(1, 1, "black", "9-13", (9, 13), ()))
        honest.poll(0)
        assert wait_for(lambda: any(b["name"] == "table-3" and b["moves"] == ["9-13"] for b in h.boards()))
        time.sleep(0.5)  # the forged messages, had they passed, were sent before the honest ones
        assert heard(h) == ["table-3"]
    finally:
        forger.close(flush_s=0)
        honest.close(flush_s=0)


def test_a_board_reads_no_other_boards_messages_not_even_retained_ones(
    broker: Broker, hall: tuple[Hall, HallListener]
) -> None:
    # What the broker keeps for table-2: its state and status, and a command the arbiter
    # left retained. The hall's subscription names them all (crownhead/club/+/+).
    table2 = Client(broker, "table-2")
    for kind, payload in (("state", b'{"fen": "B:W21:B1"}'), ("status", b"online")):
        table2.client.publish(f"crownhead/club/table-2/{kind}", payload, qos=1, retain=True).wait_for_publish(WAIT_S)
    arbiter = Client(broker, "arbiter")
    arbiter.client.publish("crownhead/club/table-2/cmd", b"names Cid;Dee", qos=1, retain=True).wait_for_publish(WAIT_S)
    # table-1 logs in and listens to its commands; the arbiter's next line to it comes
    # after anything the broker sent it on logging in.
    table1 = Client(broker, "table-1")
    table1.client.subscribe("crownhead/club/table-1/cmd", qos=1)
    try:
        assert table1.subscribed.wait(WAIT_S)
        arbiter.publish("crownhead/club/table-1/cmd", b"names Ann;Bob")
        assert wait_for(lambda: any(t.endswith("table-1/cmd") for t, _ in table1.received))
        assert table1.received == [("crownhead/club/table-1/cmd", b"names Ann;Bob")]
    finally:
        for c in (table1, arbiter, table2):
            c.close()


def test_a_boards_new_connection_ends_its_old_one_and_the_hall_sees_it_online(
    broker: Broker, hall: tuple[Hall, HallListener]
) -> None:
    import socket

    h, _ = hall
    # table-1's connection as its Wi-Fi went: open at the broker, silent at the board.
    gone = Client(broker, "table-1", will=("crownhead/club/table-1/status", b"offline"))
    gone.client.publish("crownhead/club/table-1/status", b"online", qos=1, retain=True).wait_for_publish(WAIT_S)
    gone.client.loop_stop()
    old = gone.client.socket()
    assert isinstance(old, socket.socket)
    # The board is back, on a new connection with its own account (clean session).
    back = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), lambda: {"fen": "B:W21:B1"})

    def closed_by_broker() -> bool:
        try:
            return old.recv(1 << 16, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    try:
        back.poll(0)
        assert back.flush(WAIT_S)
        # The old connection is closed at once (MQTT 3.1.4-2), its will said before the
        # new connection's "online": the hall sees the board online, and it stays so.
        assert wait_for(closed_by_broker, 10)
        assert wait_for(lambda: board(h, "table-1")["fen"] == "B:W21:B1")
        time.sleep(0.3)
        assert board(h, "table-1")["online"] is True
    finally:
        back.close(flush_s=0)
        old.close()


def test_a_crowd_that_connects_and_says_nothing_keeps_no_board_out(
    broker: Broker, hall: tuple[Hall, HallListener]
) -> None:
    from crownhead.firmware.hall.broker import MAX_WAITING, MAX_WAITING_PER_ADDRESS
    from helpers.attack import addresses, idle_connections

    if not isinstance(broker, Embedded) or broker._broker is None:
        pytest.skip("Mosquitto's own bounds (its max_connections, the machine's descriptors) are the operator's")
    door = broker._broker.door
    assert door is not None
    h, _ = hall
    # No account needed to open a connection: 20 from each of 15 addresses, never a byte
    # sent; past the bound of one address, and together past the bound of all.
    crowd, sources = 300, addresses(15)
    assert crowd // len(sources) > MAX_WAITING_PER_ADDRESS and crowd > MAX_WAITING
    with idle_connections(broker.port, crowd, sources):
        assert wait_for(lambda: door.refused >= crowd - MAX_WAITING)
        assert len(door.waiting) == MAX_WAITING
        time.sleep(1.1)  # the crowd has waited long enough to make room for a newcomer
        board_ = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), lambda: {"fen": "B:W21:B1"})
        try:
            board_.poll(0)
            assert board_.flush(WAIT_S)
            assert wait_for(lambda: board(h, "table-1")["fen"] == "B:W21:B1", 10)
            assert door.waiting.evicted >= 1
        finally:
            board_.close(flush_s=0)


def test_a_board_subscribing_thousands_of_filters_costs_no_message_anyone_is_sent(broker: Broker) -> None:
    # table-1 subscribes 3,000 filters its ACL allows (its own cmd topic in 3,000 halls)
    # while the arbiter commands table-2 400 times and table-3 reports 400 events: each
    # of them reaches every subscriber (issue 40, item 18: amqtt lost those of the
    # subscribers after the first, when a subscription came during its ACL check).
    table2 = Client(broker, "table-2")
    table2.client.subscribe("crownhead/club/table-2/cmd", qos=1)
    hall_account = Client(broker, "hall")
    hall_account.client.subscribe("crownhead/club/+/+", qos=1)
    arbiter = Client(broker, "arbiter")
    arbiter.client.subscribe("crownhead/club/+/event", qos=1)
    assert all(c.subscribed.wait(WAIT_S) for c in (table2, hall_account, arbiter))
    greedy, table3 = Client(broker, "table-1"), Client(broker, "table-3")
    for kind in ("state", "status"):  # what the broker keeps for newcomers' subscriptions
        table3.client.publish(f"crownhead/club/table-3/{kind}", b"{}", qos=1, retain=True).wait_for_publish(WAIT_S)
    granted: list[int] = []
    greedy.client.on_subscribe = lambda c, u, mid, codes, props: granted.extend(int(code.value) for code in codes)

    def subscribe_many() -> None:
        for i in range(3000):  # spread over the messages: a subscription at every moment
            greedy.client.subscribe(f"crownhead/h{i}/table-1/cmd", qos=1)
            if i % 4 == 0:
                time.sleep(0.001)

    subscriber = threading.Thread(target=subscribe_many)
    subscriber.start()
    commands = [f"names A{n};B".encode() for n in range(400)]
    events = [f'{{"n":{n}}}'.encode() for n in range(400)]
    newcomers: list[tuple[str, Client]] = []
    try:
        for n, (command, event) in enumerate(zip(commands, events)):
            arbiter.client.publish("crownhead/club/table-2/cmd", command, qos=1)
            table3.client.publish("crownhead/club/table-3/event", event, qos=1).wait_for_publish(WAIT_S)
            if n % 25 == 0 and len(newcomers) < 16:  # boards logging in meanwhile
                name = f"table-{4 + len(newcomers)}"
                newcomers.append((name, Client(broker, name)))
        subscriber.join(WAIT_S)
        # Each board that logged in during the subscriptions stayed in (amqtt ended the
        # connection of one that came while its table of subscriptions changed).
        for name, newcomer in newcomers:
            newcomer.client.subscribe(f"crownhead/club/{name}/cmd", qos=1)
        assert all(newcomer.subscribed.wait(WAIT_S) for _, newcomer in newcomers)
        assert [newcomer.disconnects for _, newcomer in newcomers] == [0] * len(newcomers)
        assert wait_for(lambda: len(granted) == 3000), len(granted)

        def arrived() -> tuple[int, int, int]:
            sent_to_hall = [t for t, _ in hall_account.received if t.endswith(("/cmd", "/event"))]
            return len(table2.received), len(sent_to_hall), len(arbiter.received)

        assert wait_for(lambda: arrived() == (400, 800, 400), 20), arrived()
        assert [p for _, p in table2.received] == commands
        assert [p for t, p in hall_account.received if t.endswith("/cmd")] == commands
        assert [p for t, p in hall_account.received if t.endswith("/event")] == events
        assert [p for _, p in arbiter.received] == events
        if broker.kind == "embedded":
            # The embedded broker holds an account's subscriptions within 16: the rest refused.
            assert granted.count(0x80) == 3000 - 16 and granted.count(1) == 16
    finally:
        for c in (greedy, arbiter, table3, table2, hall_account, *(c for _, c in newcomers)):
            c.close()
