"""A tournament hall through a real MQTT broker: the embedded one (amqtt), in-process.

Boards are simulated: real Tinsley games made by scripted hands through ``crownhead
replay --mqtt``'s own code, published by the real board publisher (paho-mqtt) to a real
broker, followed by the real hall listener and read back through the hall's HTTP API.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.cli._hall import publish_replay
from firmware.events import MoveMade
from firmware.hall.board import BoardPublisher, HallSettings
from firmware.hall.broker import EmbeddedBroker
from firmware.hall.hall import Hall, HallListener, HallServer
from firmware.hall.topics import BrokerUrl
from firmware.simulator.script import replay
from rules import WCDF
from rules.pdn import read_games

from helpers.net import free_port, wait_for
from helpers.scriptgen import TINSLEY, game_script, sample





@pytest.fixture
def broker() -> Iterator[str]:
    port = free_port()
    b = EmbeddedBroker("127.0.0.1", port)
    b.start()
    yield f"mqtt://127.0.0.1:{port}"
    b.close()


@pytest.fixture
def hall(broker: str) -> Iterator[tuple[Hall, str]]:
    h = Hall("club")
    listener = HallListener(h, broker)
    listener.start()
    assert listener.connected.wait(10)
    server = HallServer(h, "127.0.0.1", 0)
    server.start()
    host, port = server.address
    yield h, f"http://{host}:{port}"
    server.close()
    listener.close()


@pytest.mark.skipif(not TINSLEY.is_file(), reason="reference data not found beside the checkout")
def test_boards_play_real_games_into_the_hall_and_every_move_arrives_in_order(broker: str, hall: tuple[Hall, str]) -> None:
    h, web = hall
    games = list(sample(6, 3))
    texts = []
    for i, game in enumerate(games):
        events = [e for e in replay(game_script(game, i), game.start) if e.kind not in ("lights", "final")]
        texts.append([e.move for e in events if isinstance(e, MoveMade)])
        settings = HallSettings(broker, "club", f"board-{i}")
        assert publish_replay(settings, events, None, WCDF) == 0
    assert wait_for(lambda: all(len(b["moves"]) == len(g.moves) for b, g in zip(h.boards(), games)) and len(h.boards()) == len(games))
    with urllib.request.urlopen(web + "/api/boards") as r:
        boards = json.load(r)
    for board, game, moves in zip(boards, games, texts):
        assert board["moves"] == moves and len(moves) == len(game.moves)
        assert board["fen"] == game.final.fen() and board["ply"] == len(game.moves)
    # The round's PDN replays, game by game, to the same final positions.
    with urllib.request.urlopen(web + "/round.pdn") as r:
        text = r.read().decode()
    read = list(read_games(text))
    assert len(read) == len(games)
    for pdn_game, game in zip(read, games):
        assert pdn_game.error is None and pdn_game.moves == list(game.moves)
    with urllib.request.urlopen(web + "/") as r:
        page = r.read().decode()
    assert "/api/boards" in page and "textContent" in page


def test_a_board_keeps_its_events_while_the_broker_is_away_and_sends_them_later() -> None:
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}"
    state = {"fen": "B:W21:B1", "ply": 1}
    publisher = BoardPublisher(HallSettings(url, "club", "late", max_queue=50), lambda: state)
    started = time.perf_counter()
    for ply in range(1, 41):
        publisher.sink(MoveMade(ply * 1000, ply, "black", "11-15", (11, 15), ()))
    publisher.poll(0)
    # Nothing blocked: 40 events queued with no broker at all.
    assert time.perf_counter() - started < 1.0
    assert publisher.pending == 41 and not publisher.connected
    broker = EmbeddedBroker("127.0.0.1", port)
    broker.start()
    try:
        h = Hall("club")
        listener = HallListener(h, url)
        listener.start()
        assert listener.connected.wait(10)
        assert wait_for(lambda: publisher.pending == 0, 30)
        assert wait_for(lambda: bool(h.boards()) and h.boards()[0]["fen"] == "B:W21:B1", 10)
        listener.close()
    finally:
        publisher.close(flush_s=0)
        broker.close()


def test_bad_names_and_urls_are_refused_with_one_clear_error() -> None:
    with pytest.raises(ValueError, match="board name 'a/b'"):
        HallSettings("mqtt://127.0.0.1", "club", "a/b").validate()
    with pytest.raises(ValueError, match="use mqtt://"):
        BrokerUrl.parse("http://x")
    h = Hall("club")
    h.receive("crownhead/club/x/state", b"\xff not json")
    h.receive("crownhead/other/x/state", b"{}")
    h.receive("crownhead/club/x/state", b"[1]")
    assert h.rejected == 3 and h.boards()[0]["fen"] is None


def test_names_with_markup_are_data_in_the_csv_and_the_api() -> None:
    h = Hall("club")
    h.receive("crownhead/club/b1/state", json.dumps({"black": "<script>x</script>", "white": 'a,"b"', "ply": 3}).encode())
    assert h.boards()[0]["black"] == "<script>x</script>"
    assert '"a,""b"""' in h.results_csv()


def test_a_hall_that_missed_events_catches_up_from_the_retained_state() -> None:
    h = Hall("club")
    h.receive("crownhead/club/b1/event", json.dumps({"t": 1, "event": "move", "ply": 1, "move": "11-15"}).encode())
    h.receive("crownhead/club/b1/state", json.dumps({"fen": "B:W:B", "ply": 3, "moves": ["11-15", "23-19", "8-11"]}).encode())
    assert h.boards()[0]["moves"] == ["11-15", "23-19", "8-11"]
    # A move event then goes on from there, a takeback cuts back.
    h.receive("crownhead/club/b1/event", json.dumps({"t": 2, "event": "move", "ply": 4, "move": "22-17"}).encode())
    h.receive("crownhead/club/b1/event", json.dumps({"t": 3, "event": "takeback", "ply": 4}).encode())
    assert h.boards()[0]["moves"] == ["11-15", "23-19", "8-11"]


def test_the_hall_page_in_a_real_browser_shows_every_board(broker: str, hall: tuple[Hall, str], browser: Any) -> None:
    h, web = hall
    for i in range(3):
        state = {"fen": "B:W21,22:B1,K2", "ply": i, "black": f"<b>Ann {i}</b>", "white": "Bob", "moves": []}
        publisher = BoardPublisher(HallSettings(broker, "club", f"table-{i}"), lambda s=state: s)
        publisher.sink(MoveMade(1, 1, "black", "9-13", (9, 13), ()))
        publisher.poll(0)
        assert publisher.flush(10)
        publisher.close(flush_s=0)
    assert wait_for(lambda: len(h.boards()) == 3 and all(b["fen"] for b in h.boards()))
    page = browser.new_page()
    try:
        page.goto(web + "/")
        page.wait_for_selector("[data-board='table-2']")
        assert page.locator(".board").count() == 3
        # Pieces drawn from the FEN: 2 black (one a king), 2 white on each board.
        assert page.locator("[data-board='table-0'] [data-piece]").count() == 4
        assert page.locator("[data-board='table-0'] [data-piece='B']").count() == 1
        # A name with markup is text on the page.
        assert "<b>Ann 0</b>" in page.locator("[data-board='table-0'] .names").inner_text()
        assert page.locator("[data-board='table-0'] .names b").count() == 0
        page.locator("[data-board='table-1']").click()
        page.wait_for_selector("#dmoves li")
        assert page.locator("#dmoves li").all_inner_texts() == ["9-13"]
    finally:
        page.close()
