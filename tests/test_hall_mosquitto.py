"""The hall through Mosquitto, a real broker run by the test on a free loopback port.

Skipped with a reason where Debian's ``mosquitto`` is not installed (``.ci/run`` installs
it). The broker runs with the shipped configuration and ACL (``deploy/mosquitto``, see
``helpers/hallnet.py``) and persistence, so that it can be killed and started again
mid-game like a real one.
"""

from __future__ import annotations

from crownhead.rules import WCDF

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.events import Event, MoveMade
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.settings import HallSettings
from crownhead.firmware.hall.hall import Hall, HallListener
from crownhead.firmware.simulator.script import replay

from helpers.hallnet import BOARDS, MOSQUITTO, NO_MOSQUITTO, PASSWD, Mosquitto
from helpers.net import WAIT_S, wait_for
from helpers.scriptgen import TINSLEY, game_script, sample

pytestmark = [
    pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO),
    pytest.mark.skipif(not TINSLEY.is_file(), reason="reference data not found beside the checkout"),
]


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path)
    broker.start()
    yield broker
    if broker.process is not None and broker.process.poll() is None:
        broker.kill()


@pytest.fixture
def hall(mosquitto: Mosquitto) -> Iterator[Hall]:
    h = Hall("club", boards=BOARDS)
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


def board_named(h: Hall, name: str) -> dict[str, Any]:
    return next(b for b in h.boards() if b["name"] == name)


class Board:
    """A board's publisher fed as the main loop feeds it: each event, then a poll that
    refreshes the retained state (whose moves let a hall that missed events catch up)."""

    def __init__(self, settings: HallSettings) -> None:
        self.moves: list[str] = []
        self.publisher = BoardPublisher(
            settings, lambda: {"fen": "x", "ply": len(self.moves), "moves": list(self.moves)}
        )

    def play(self, event: Event) -> None:
        if isinstance(event, MoveMade):
            self.moves.append(event.move)
        self.publisher.sink(event)
        self.publisher.poll(0)


def played(index: int) -> tuple[list[Event], list[str]]:
    game = list(sample(20, 5))[index]
    events = [e for e in replay(game_script(game, index), game.start, rules=WCDF) if e.kind not in ("lights", "final")]
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


def test_the_broker_killed_and_restarted_mid_game_loses_nothing(mosquitto: Mosquitto, hall: Hall) -> None:
    events, moves = played(7)
    board = Board(HallSettings(mosquitto.url("table-1"), "club", "table-1"))
    publisher = board.publisher
    half = len(events) // 2
    try:
        for event in events[:half]:
            board.play(event)
        first = [e.move for e in events[:half] if isinstance(e, MoveMade)]
        assert wait_for(lambda: board_named(hall, "table-1")["moves"] == first)
        mosquitto.kill()
        for event in events[half:]:  # the board plays on while the broker is down
            board.play(event)
        time.sleep(1.0)
        mosquitto.start()
        assert wait_for(lambda: board_named(hall, "table-1")["moves"] == moves), board_named(hall, "table-1")["moves"]
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
        assert wait_for(lambda: len(board_named(hall, "table-2")["moves"]) >= 1)
        mosquitto.kill()
        for event in events[10:]:
            board.play(event)  # queued, whatever the network does
        time.sleep(30)
        mosquitto.start()
        assert wait_for(lambda: board_named(hall, "table-2")["moves"] == moves, 90)
    finally:
        publisher.close(flush_s=0)


def test_commands_need_a_broker_account() -> None:
    from crownhead.firmware.config import FieldError

    with pytest.raises(FieldError, match="need the board's broker account"):
        HallSettings("mqtt://127.0.0.1", "club", "table-1", commands=True).validate()
