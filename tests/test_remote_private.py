"""A private game far apart: only its two boards (and the arbiter) may read or join it.

The invitation names the other board's account (``crownhead remote invite --guest``);
the game lives under ``crownhead/private/HOST/GUEST/CODE/``, which the shipped ACL lets
only those two accounts read (and the arbiter's, and nobody else write). A public
invitation, which every account reads, may be offered again by another account under its
own name: the board joining refuses the code then. Through a real Mosquitto on loopback
with the shipped configuration and ACL.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from crownhead.firmware.hall.acl import shipped_acl
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.remote.invite import Invitation, accept, await_guest, fetch, publish
from crownhead.firmware.remote.wire import game_topic
from crownhead.rules import Move

from helpers.hallnet import Mosquitto, needs_mosquitto, running_mosquitto
from helpers.net import WAIT_S
from helpers.remote import publish_as
from test_remote_offers import CODE, Pair

PAIR = ("alice", "bob")


def test_the_shipped_acl_keeps_a_private_game_to_its_two_boards_and_the_arbiter() -> None:
    acl = shipped_acl()
    for kind in ("lines", "ack", "status", "invite"):
        for board in PAIR:
            topic = game_topic(CODE, board, kind, PAIR)
            assert acl.allows(board, board, "write", topic)
            assert not acl.allows("mallory", "mallory", "write", topic)
            assert acl.allows("bob" if board == "alice" else "alice", "x", "read", topic)
            assert acl.allows("arbiter", "arbiter", "read", topic)
            for outsider in ("mallory", "hall"):
                assert not acl.allows(outsider, outsider, "read", topic)
    assert not acl.allows("bob", "bob", "write", game_topic(CODE, "alice", "lines", PAIR))
    assert not acl.allows("mallory", "mallory", "subscribe", "crownhead/private/#")
    assert acl.allows("hall", "hall", "subscribe", "crownhead/club/+/+")  # the hall's own boards still
    assert acl.allows("hall", "hall", "subscribe", "crownhead/remote/+/+/lines")  # and the public games


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ["alice", "bob", "mallory"]) as broker:
        yield broker


@needs_mosquitto
def test_a_private_game_is_joined_and_read_by_its_two_boards_only(tmp_path: Path, mosquitto: Mosquitto) -> None:
    import paho.mqtt.client as mqtt

    # The invitation, private to bob: mallory cannot even find it, bob joins.
    invitation = Invitation(CODE, "alice", "black", black="Ann", guest="bob")
    alice, bob, mallory = (BrokerUrl.parse(mosquitto.url(name)) for name in ("alice", "bob", "mallory"))
    publish(alice, invitation, timeout_s=WAIT_S)
    with pytest.raises(ValueError, match="no invitation"):
        fetch(mallory, CODE, timeout_s=1.0)  # the broker sends what it keeps as one subscribes
    with pytest.raises(ValueError, match="private to bob"):
        accept(mallory, invitation, timeout_s=WAIT_S)
    guest: list[str | None] = []
    waiting = threading.Thread(target=lambda: guest.append(await_guest(alice, invitation, timeout_s=WAIT_S)))
    waiting.start()
    found = fetch(bob, CODE, timeout_s=WAIT_S)
    assert found == invitation and found.private == PAIR
    accept(bob, found, timeout_s=WAIT_S)
    waiting.join(WAIT_S)
    assert guest == ["bob"]
    # Mallory listens to everything of the game and writes into it: hears nothing, changes nothing.
    heard: list[bytes] = []
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="mallory")
    listener.username_pw_set("mallory", "mallory-pw")
    listener.on_message = lambda c, u, m: heard.append(bytes(m.payload))
    listener.connect("127.0.0.1", mosquitto.port)
    listener.loop_start()
    listener.subscribe([("crownhead/#", 1), (f"crownhead/private/alice/bob/{CODE}/+/+", 1)])
    pair = Pair(tmp_path, mosquitto, private=True)
    try:
        forged = json.dumps({"s": "x", "n": 1, "line": '{"event": "game-over", "result": "0-1", "reason": "resign"}'})
        for board in PAIR:
            listener.publish(game_topic(CODE, board, "lines", PAIR), forged.encode(), qos=1).wait_for_publish(WAIT_S)
        pair.play(Move((11, 15)))
        pair.play(Move((22, 18)))
        pair.wait(lambda: pair.a.transport.pending == 0 == pair.b.transport.pending, "every line acknowledged")
    finally:
        listener.disconnect()
        listener.loop_stop()
        pair.close()
    assert heard == []  # not the invitation, not a line, not an acknowledgement
    assert not pair.a.game.is_over and pair.a.game.moves == pair.b.game.moves
    assert pair.a.transport.refused == pair.b.transport.refused == 0


@needs_mosquitto
def test_a_public_invitation_offered_by_two_boards_is_refused_and_junk_beside_it_ignored(mosquitto: Mosquitto) -> None:
    alice, bob, mallory = (BrokerUrl.parse(mosquitto.url(name)) for name in ("alice", "bob", "mallory"))
    # Beside the invitation, kept on the broker: a message nested too deep for the parser
    # (it ended the joining board's network thread, which then heard nothing more).
    publish_as(mosquitto.port, "mallory", game_topic(CODE, "mallory", "invite"), [b"[" * 4000], retain=True)
    invitation = Invitation(CODE, "alice", "black", black="Ann")
    publish(alice, invitation, timeout_s=WAIT_S)
    assert fetch(bob, CODE, timeout_s=WAIT_S) == invitation
    # Mallory reads the public invitation (any account may) and offers its code as its own.
    publish(mallory, replace(invitation, host="mallory"), timeout_s=WAIT_S)
    with pytest.raises(ValueError, match=r"offered by 2 boards \(alice, mallory\)"):
        fetch(bob, CODE, timeout_s=WAIT_S)
    # The people at board B know whom they play: the invitation of that account is taken.
    assert fetch(bob, CODE, timeout_s=WAIT_S, host="alice") == invitation


@needs_mosquitto
def test_a_public_game_another_board_took_already_is_refused_to_the_next(mosquitto: Mosquitto) -> None:
    alice, bob, mallory = (BrokerUrl.parse(mosquitto.url(name)) for name in ("alice", "bob", "mallory"))
    invitation = Invitation(CODE, "alice", "black")
    publish(alice, invitation, timeout_s=WAIT_S)
    taken = fetch(bob, CODE, timeout_s=WAIT_S)
    accept(bob, taken, timeout_s=WAIT_S)
    assert await_guest(alice, invitation, timeout_s=WAIT_S) == "bob"
    # A third board joins the same public code: it is told the game is taken, not that it joined.
    with pytest.raises(ValueError, match=r"taken already by bob"):
        fetch(mallory, CODE, timeout_s=WAIT_S)
    assert fetch(bob, CODE, timeout_s=WAIT_S) == invitation  # the board that took it may take it again
