"""A tournament hall through a real MQTT broker: the embedded one (amqtt), in-process.

Boards are simulated: real Tinsley games made by scripted hands through ``crownhead
replay --mqtt``'s own code, published by the real board publisher (paho-mqtt) to a real
broker, followed by the real hall listener and read back through the hall's HTTP API.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.cli._hall import publish_replay
from crownhead.firmware.events import GameOver, MoveMade
from crownhead.firmware.hall.accounts import Accounts
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.settings import HallSettings
from crownhead.firmware.hall.hall import Hall, HallListener, HallServer
from crownhead.firmware.hall.pairings import Pairing, Pairings, read_pairings
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.referee.settings import RefereeSettings
from crownhead.firmware.simulator.script import replay
from crownhead.rules import WCDF
from crownhead.rules.pdn import read_games

from helpers.hallnet import Embedded, game_states
from helpers.net import WAIT_S, free_port, wait_for
from helpers.scriptgen import TINSLEY, game_script, sample, tinsley_games


@pytest.fixture
def broker() -> Iterator[Embedded]:
    b = Embedded()
    b.start()
    yield b
    b.close()


#: The boards of the ``hall`` fixture.
BOARDS = ["table-1", "table-2", "table-3"]


class RunningHall:
    """A hall following ``broker``, its page served on a free port, its state in ``state_dir``."""

    def __init__(
        self,
        broker: Embedded,
        state_dir: Path | None = None,
        *,
        boards: list[str] = BOARDS,
        pairings: Pairings | None = None,
    ) -> None:
        self.hall = Hall("club", str(state_dir) if state_dir is not None else None, boards=boards, pairings=pairings)
        self.listener = HallListener(self.hall, broker.url("hall"))
        self.listener.start()
        assert self.listener.subscribed.wait(WAIT_S)
        self.server = HallServer(self.hall, "127.0.0.1", 0)
        self.server.start()
        host, port = self.server.address
        self.web = f"http://{host}:{port}"

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.web + path, timeout=WAIT_S) as r:
            return bytes(r.read())

    def close(self) -> None:
        self.server.close()
        self.listener.close()
        self.hall.close()


@pytest.fixture
def hall(broker: Embedded, tmp_path: Path) -> Iterator[tuple[Hall, str]]:
    running = RunningHall(broker, tmp_path / "hall")
    yield running.hall, running.web
    running.close()


@pytest.mark.skipif(not TINSLEY.is_file(), reason="reference data not found beside the checkout")
def test_boards_play_real_games_into_the_hall_and_every_move_arrives_in_order(broker: Embedded, tmp_path: Path) -> None:
    games = list(sample(6, 3))
    running = RunningHall(broker, tmp_path, boards=[f"table-{i + 1}" for i in range(len(games))])
    try:
        _boards_play_real_games(running.hall, running.web, broker, games)
    finally:
        running.close()


def _boards_play_real_games(h: Hall, web: str, broker: Embedded, games: list[Any]) -> None:
    texts = []
    for i, game in enumerate(games):
        events = [e for e in replay(game_script(game, i), game.start, rules=WCDF) if e.kind not in ("lights", "final")]
        texts.append([e.move for e in events if isinstance(e, MoveMade)])
        settings = HallSettings(broker.url(f"table-{i + 1}"), "club", f"table-{i + 1}")
        assert publish_replay(settings, events, None, WCDF, timeout_s=WAIT_S) == 0
    assert wait_for(
        lambda: (
            all(len(b["moves"]) == len(g.moves) for b, g in zip(h.boards(), games)) and len(h.boards()) == len(games)
        )
    )
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
    assert '<script src="/static/hall.js"' in page and '<script src="/static/board.js"' in page
    with urllib.request.urlopen(web + "/static/hall.js") as r:
        script = r.read().decode()
    assert "/api/boards" in script and "textContent" in script and "innerHTML" not in script


def test_a_board_keeps_its_events_while_the_broker_is_away_and_sends_them_later() -> None:
    broker = Embedded()
    state = {"fen": "B:W21:B1", "ply": 1}
    publisher = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1", max_queue=50), lambda: state)
    for ply in range(1, 41):
        publisher.sink(MoveMade(ply * 1000, ply, "black", "11-15", (11, 15), ()))
    publisher.poll(0)
    # Nothing waited for a broker: 40 events (and the state) queued with none at all.
    assert publisher.pending == 41 and not publisher.connected
    broker.start()
    try:
        h = Hall("club", boards=["table-1"])
        listener = HallListener(h, broker.url("hall"))
        listener.start()
        assert listener.subscribed.wait(WAIT_S)
        assert wait_for(lambda: publisher.pending == 0)
        assert wait_for(lambda: bool(h.boards()) and h.boards()[0]["fen"] == "B:W21:B1")
        listener.close()
    finally:
        publisher.close(flush_s=0)
        broker.close()


def test_bad_names_and_urls_are_refused_with_one_clear_error() -> None:
    with pytest.raises(ValueError, match="board name 'a/b'"):
        HallSettings("mqtt://127.0.0.1", "club", "a/b").validate()
    with pytest.raises(ValueError, match="use mqtt://"):
        BrokerUrl.parse("http://x")
    h = Hall("club", boards=["x"])
    h.receive("crownhead/club/x/state", b"\xff not json")
    h.receive("crownhead/other/x/state", b"{}")
    h.receive("crownhead/club/x/state", b"[1]")
    assert h.rejected == 3 and h.boards()[0]["fen"] is None


def test_names_with_markup_are_data_in_the_csv_and_the_api() -> None:
    h = Hall("club", boards=["b1"])
    h.receive(
        "crownhead/club/b1/state", json.dumps({"black": "<script>x</script>", "white": 'a,"b"', "ply": 3}).encode()
    )
    assert h.boards()[0]["black"] == "<script>x</script>"
    assert '"a,""b"""' in h.results_csv()


def test_results_csv_escapes_spreadsheet_formulas_as_standings_csv_does() -> None:
    h = Hall("club", boards=["-3-1"])
    h.receive(
        "crownhead/club/-3-1/state",
        json.dumps(
            {
                "black": '=HYPERLINK("http://evil.example","x")',
                "white": "@SUM(A1:A9)",
                "result": "+1",
                "reason": "-2",
                "ply": "=1+1",
            }
        ).encode(),
    )
    rows = list(csv.reader(io.StringIO(h.results_csv())))
    # (A result or a ply that is none is not kept at all.)
    assert rows[1] == ["'-3-1", "", '\'=HYPERLINK("http://evil.example","x")', "'@SUM(A1:A9)", "", "'-2", "0", ""]
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)


def test_results_csv_has_each_games_round() -> None:
    h = Hall("club", boards=["t1"])
    h.receive(
        "crownhead/club/t1/state",
        json.dumps(
            {"black": "Ann", "white": "Bob", "round": "3", "result": "1-0", "reason": "resign", "ply": 41}
        ).encode(),
    )
    rows = list(csv.reader(io.StringIO(h.results_csv())))
    assert rows == [
        ["board", "round", "black", "white", "result", "reason", "plies", "counted"],
        ["t1", "3", "Ann", "Bob", "1-0", "resign", "41", "disputed"],
    ]  # a game not seen to begin


def test_a_hall_that_missed_events_catches_up_from_the_retained_state() -> None:
    h = Hall("club", boards=["b1"])
    h.receive("crownhead/club/b1/event", json.dumps({"t": 1, "event": "move", "ply": 1, "move": "11-15"}).encode())
    h.receive(
        "crownhead/club/b1/state", json.dumps({"fen": "B:W:B", "ply": 3, "moves": ["11-15", "23-19", "8-11"]}).encode()
    )
    assert h.boards()[0]["moves"] == ["11-15", "23-19", "8-11"]
    # A move event then goes on from there, a takeback cuts back.
    h.receive("crownhead/club/b1/event", json.dumps({"t": 2, "event": "move", "ply": 4, "move": "22-17"}).encode())
    h.receive("crownhead/club/b1/event", json.dumps({"t": 3, "event": "takeback", "ply": 4}).encode())
    assert h.boards()[0]["moves"] == ["11-15", "23-19", "8-11"]


def test_the_hall_page_in_a_real_browser_shows_every_board(
    broker: Embedded, hall: tuple[Hall, str], browser: Any
) -> None:
    h, web = hall
    for i in range(1, 4):
        state = {"fen": "B:W21,22:B1,K2", "ply": i, "black": f"<b>Ann {i}</b>", "white": "Bob", "moves": []}
        publisher = BoardPublisher(HallSettings(broker.url(f"table-{i}"), "club", f"table-{i}"), lambda s=state: s)
        publisher.sink(MoveMade(1, 1, "black", "9-13", (9, 13), ()))
        publisher.poll(0)
        assert publisher.flush(WAIT_S)
        publisher.close(flush_s=0)
    assert wait_for(lambda: len(h.boards()) == 3 and all(b["fen"] for b in h.boards()))
    page = browser.new_page()
    try:
        page.goto(web + "/")
        page.wait_for_selector("[data-board='table-3']")
        assert page.locator(".board").count() == 3
        # Pieces drawn from the FEN: 2 black (one a king), 2 white on each board.
        assert page.locator("[data-board='table-1'] [data-piece]").count() == 4
        assert page.locator("[data-board='table-1'] [data-piece='B']").count() == 1
        # A name with markup is text on the page.
        assert "<b>Ann 1</b>" in page.locator("[data-board='table-1'] .names").inner_text()
        assert page.locator("[data-board='table-1'] .names b").count() == 0
        page.locator("[data-board='table-2']").click()
        page.wait_for_selector("#moves [data-ply]")
        assert page.locator("#moves [data-ply]").all_inner_texts() == ["9-13"]
    finally:
        page.close()


# -- the full view: the board's own page component ------------------------------------------


def test_the_hall_page_is_served_by_starlette_and_idle_clients_hold_no_thread() -> None:
    import socket
    import threading

    from crownhead.firmware.pages.serving import Limits

    server = HallServer(Hall("club"), "127.0.0.1", 0, Limits(request_s=1.0))
    server.start()
    host, port = server.address
    web = f"http://{host}:{port}"
    before = threading.active_count()
    idle = []
    try:
        for _ in range(20):  # clients that connect, start a request and never finish it
            s = socket.create_connection((host, port), timeout=WAIT_S)
            s.sendall(b"GET /api/boards HTTP/1.1\r\nHost: x\r\n")
            idle.append(s)
        with urllib.request.urlopen(web + "/api/boards", timeout=WAIT_S) as r:
            assert r.status == 200 and r.headers["Server"] is None  # no version told
        # One event loop serves them all (http.server held a thread for each), and closes
        # those that have not sent a request within the limit (slowloris).
        assert threading.active_count() - before < 5
        assert all(s.recv(100) == b"" for s in idle)
        with urllib.request.urlopen(web + "/api/standings", timeout=WAIT_S) as r:
            tag = r.headers["ETag"]
        request = urllib.request.Request(web + "/api/standings", headers={"If-None-Match": tag})
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=WAIT_S)
        assert answer.value.code == 304 and answer.value.headers["Cache-Control"] == "no-cache"
    finally:
        for s in idle:
            s.close()
        server.close()


def test_the_full_view_is_the_board_pages_component_read_only(
    broker: Embedded, hall: tuple[Hall, str], browser: Any
) -> None:
    from crownhead.firmware.diagram import component_templates
    from crownhead.firmware.web.server import page_html

    h, web = hall
    # One drawing and one script for both pages: the hall serves the board page's own
    # component and the same piece and role templates.
    with urllib.request.urlopen(web + "/static/board.js") as r:
        served = r.read()
    assert served == (Path(__file__).resolve().parents[1] / "firmware" / "web" / "static" / "board.js").read_bytes()
    with urllib.request.urlopen(web + "/") as r:
        hall_page = r.read().decode()
    assert component_templates() in hall_page and component_templates() in page_html()
    state = {
        "fen": "W:W18,K30:B10,14,K3",
        "ply": 3,
        "black": "<i>Ann</i>",
        "white": "Bob",
        "round": "2",
        "moves": ["11-15", "23-19", "9-14"],
        "status": "White to move, move 2",
        "clocks": {"black": 61_000, "white": 3_599_000},
    }
    publisher = BoardPublisher(HallSettings(broker.url("table-3"), "club", "table-3"), lambda: state)
    publisher.poll(0)
    assert publisher.flush(WAIT_S)
    publisher.close(flush_s=0)
    assert wait_for(lambda: any(b["fen"] == state["fen"] for b in h.boards()))
    page = browser.new_page()
    asked: list[str] = []
    try:
        page.goto(web + "/")
        page.wait_for_selector("[data-board='table-3'] [data-piece]")
        page.locator("[data-board='table-3']").click()
        page.wait_for_selector("#moves [data-ply]")
        full = page.locator("#board")
        assert full.locator("[data-square]").count() == 32
        pieces = {
            int(g.get_attribute("data-square") or 0): g.locator(":scope > [data-piece]").get_attribute("data-piece")
            for g in full.locator("[data-square]:has(> [data-piece])").all()
        }
        assert pieces == {18: "w", 30: "W", 10: "b", 14: "b", 3: "B"}
        # The last move lit as the board's LEDs show it.
        assert full.locator("[data-square='9']").get_attribute("data-role") == "last-from"
        assert full.locator("[data-square='14']").get_attribute("data-role") == "last-to"
        assert page.locator("#moves [data-ply]").all_inner_texts() == ["11-15", "23-19", "9-14"]
        # Numbered by move, as the board's page, PDN and the sheets number them.
        assert [" ".join(li.split()) for li in page.locator("#moves > li").all_inner_texts()] == [
            "1. 11-15 23-19",
            "2. 9-14",
        ]
        assert page.locator("#status").inner_text() == "White to move, move 2"
        assert page.locator('.name[data-side="black"]').inner_text() == "<i>Ann</i>"
        assert page.locator("#detail i").count() == 0
        assert page.locator('[data-clock="black"]').inner_text() == "1:01"
        assert page.locator('[data-clock="white"]').inner_text() == "59:59"
        # Black's name and clock above the board, beside Black's side (1-12 at the top).
        top = page.locator("#detail .player.top").inner_text()
        assert "Ann" in top and "1:01" in top and "Bob" not in top
        # Read-only: a click on a square asks nothing of anyone, the board stays as it is.
        page.on("request", lambda req: asked.append(f"{req.method} {req.url}"))
        full.locator("[data-square='14']").click()
        full.locator("[data-square='18']").click()
        # The page goes on asking the hall for the boards: one more of its requests after
        # the clicks, and anything the clicks had asked for would be in ``asked`` too.
        with page.expect_request(lambda req: req.url.startswith(f"{web}/api/")):
            pass
        assert asked and all(a.startswith(f"GET {web}/api/") for a in asked), asked
        assert full.locator("[data-piece]").count() == 5
        # Flipped: the board component's own flipped drawing.
        page.locator("#flip").click()
        assert full.locator("svg").get_attribute("data-flipped") == "true"
        assert full.locator("[data-square='14'] > [data-piece='b']").count() == 1
        assert page.locator(".player:has([data-side='white'])").bounding_box()["y"] < full.bounding_box()["y"]
    finally:
        page.close()


# -- standings and crosstable across rounds ---------------------------------------------------

#: Three rounds of four players on two boards; in round 3 board t1 plays a ballot's pair
#: of games (the colours reversed). (round, board, black, white, result)
SCHEDULE = [
    ("1", "t1", "Ann", "Bob", "1-0"),
    ("1", "t2", "Cid", "<b>Dee</b>", "1/2-1/2"),
    ("2", "t1", "<b>Dee</b>", "Ann", "0-1"),
    ("2", "t2", "Bob", "Cid", "1-0"),
    ("3", "t1", "Ann", "Cid", "1/2-1/2"),
    ("3", "t1", "Cid", "Ann", "1-0"),
    ("3", "t2", "<b>Dee</b>", "Bob", "1-0"),
]


def expected_standings(schedule: list[tuple[str, str, str, str, str]]) -> dict[str, tuple[int, str, int]]:
    """Half-points, W-D-L and quarter-point Sonneborn-Berger, worked out game by game."""
    halves: dict[str, int] = {}
    record: dict[str, list[int]] = {}
    got: list[tuple[str, str, int]] = []
    for _, _, black, white, result in schedule:
        b = {"1-0": 2, "0-1": 0, "1/2-1/2": 1}[result]
        for name, other, score in ((black, white, b), (white, black, 2 - b)):
            halves[name] = halves.get(name, 0) + score
            record.setdefault(name, [0, 0, 0])[{2: 0, 1: 1, 0: 2}[score]] += 1
            got.append((name, other, score))
    sb = {name: sum(score * halves[other] for n, other, score in got if n == name) for name in halves}
    return {name: (halves[name], "-".join(map(str, record[name])), sb[name]) for name in halves}


@pytest.mark.skipif(not TINSLEY.is_file(), reason="reference data not found beside the checkout")
def test_standings_and_crosstable_over_three_rounds_survive_a_restart(broker: Embedded, tmp_path: Path) -> None:
    games = sorted(tinsley_games(), key=lambda g: len(g.moves))[: len(SCHEDULE)]
    state_dir = tmp_path / "hall"
    # The arbiter pairs each round as it begins: a game counts in the round it began in.
    pairings = Pairings()
    running = RunningHall(broker, state_dir, boards=["t1", "t2"], pairings=pairings)
    try:
        for i, ((rnd, board, black, white, result), game) in enumerate(zip(SCHEDULE, games)):
            if rnd not in pairings.by_round:
                pairings.by_round[rnd] = {b: Pairing(rnd, b, p[0], p[1]) for r, b, *p, _ in SCHEDULE if r == rnd}
            events = [
                e for e in replay(game_script(game, i), game.start, rules=WCDF) if e.kind not in ("lights", "final")
            ]
            events.append(GameOver(events[-1].t + 1000, result, "adjudicated"))  # the arbiter's result
            referee = RefereeSettings(event="Club night", round=rnd, black=black, white=white)
            assert (
                publish_replay(HallSettings(broker.url(board), "club", board), events, None, WCDF, referee=referee) == 0
            )
            # Each board's state is retained: the next game of a board replaces it.
            assert wait_for(lambda: len(running.hall.standings.games()) == i + 1)
        table = json.loads(running.get("/api/standings"))
        standings_csv = running.get("/standings.csv").decode()
    finally:
        running.close()
    want = expected_standings(SCHEDULE)
    assert {
        p["name"]: (round(p["points"] * 2), p["wdl"], round(p["sonneborn_berger"] * 4)) for p in table["players"]
    } == want
    assert [(p["rank"], p["name"], p["points_text"]) for p in table["players"]] == [
        (1, "Ann", "2½"),
        (2, "Cid", "2"),
        (3, "<b>Dee</b>", "1½"),
        (4, "Bob", "1"),
    ]
    assert table["rounds"] == ["1", "2", "3"] and table["tie_break"][0] == "points"
    names = [p["name"] for p in table["players"]]
    ann, cid = names.index("Ann"), names.index("Cid")
    # Round 3's pair on t1: both colours in one cell, each from the row player's side.
    assert cell(table, ann, cid) == [
        {"round": "3", "board": "t1", "colour": "black", "score": "½", "result": "1/2-1/2"},
        {"round": "3", "board": "t1", "colour": "white", "score": "0", "result": "1-0"},
    ]
    assert [c["score"] for c in cell(table, cid, ann)] == ["½", "1"]
    assert cell(table, ann, ann) == [] and cell(table, names.index("Bob"), cid) == [
        {"round": "2", "board": "t2", "colour": "black", "score": "1", "result": "1-0"}
    ]
    # Every game twice in the crosstable, once from each side, and nothing else.
    assert sum(len(met["games"]) for row in table["crosstable"] for met in row) == 2 * len(SCHEDULE)
    csv_rows = list(csv.reader(io.StringIO(standings_csv)))
    assert csv_rows[0][:8] == ["rank", "player", "points", "games", "wins", "draws", "losses", "sonneborn_berger"]
    # Numbers a spreadsheet adds up, not the page's half signs.
    assert csv_rows[1][:3] == ["1", "Ann", "2.5"] and csv_rows[1][2 + 6 + cid] == "R3 B 0.5 R3 W 0"
    assert "½" not in standings_csv
    # The hall restarts on the same broker: the retained states come again, nothing counts twice.
    again = RunningHall(broker, state_dir, boards=["t1", "t2"], pairings=pairings)
    try:
        assert wait_for(lambda: len(again.hall.boards()) == 2)
        time.sleep(0.5)
        assert json.loads(again.get("/api/standings"))["players"] == table["players"]
        assert len(again.hall.standings.games()) == len(SCHEDULE)
    finally:
        again.close()
    # And with no broker at all: everything came back from the hall's state directory.
    alone = Hall("club", str(state_dir), boards=["t1", "t2"], pairings=pairings)
    assert alone.standings.table()["players"] == table["players"]
    assert alone.standings.table()["crosstable"] == table["crosstable"]


def cell(table: dict[str, Any], row: int, column: int) -> list[dict[str, str]]:
    """The games of the player in place ``row`` against the one in place ``column``."""
    return next((met["games"] for met in table["crosstable"][row] if met["opponent"] == column), [])


def test_a_page_asks_whether_the_standings_changed_and_is_told_304_until_they_do() -> None:
    h = Hall("club")
    server = HallServer(h, "127.0.0.1", 0)
    server.start()
    host, port = server.address
    url = f"http://{host}:{port}/api/standings"
    try:
        with urllib.request.urlopen(url) as r:
            tag, first = r.headers["ETag"], json.load(r)
        assert first["players"] == [] and r.headers["Cache-Control"] == "no-cache"
        with pytest.raises(urllib.error.HTTPError) as unchanged:
            urllib.request.urlopen(urllib.request.Request(url, headers={"If-None-Match": tag}))
        assert unchanged.value.code == 304
        h.standings.record("t1", {"black": "Ann", "white": "Bob", "result": "1-0"})
        with urllib.request.urlopen(urllib.request.Request(url, headers={"If-None-Match": tag})) as r:
            assert r.status == 200 and r.headers["ETag"] != tag
            assert [p["name"] for p in json.load(r)["players"]] == ["Ann", "Bob"]
    finally:
        server.close()


def test_ties_are_broken_by_sonneborn_berger_then_wins_and_equal_players_share_a_rank() -> None:
    h = Hall("club")
    for n, (black, white, result) in enumerate(
        [
            ("A", "B", "1-0"),
            ("A", "D", "1/2-1/2"),
            ("B", "E", "1-0"),
            ("C", "D", "1-0"),
            ("F", "G", "1/2-1/2"),
        ]
    ):
        h.standings.record(f"t{n}", {"round": "1", "black": black, "white": white, "result": result, "moves": []})
    players = h.standings.table()["players"]
    assert [(p["rank"], p["name"], p["points_text"], p["sonneborn_berger"]) for p in players] == [
        (1, "A", "1½", 1.25),
        (2, "C", "1", 0.5),
        (3, "B", "1", 0.0),
        (4, "D", "½", 0.75),
        (5, "F", "½", 0.25),
        (5, "G", "½", 0.25),
        (7, "E", "0", 0.0),
    ]


def test_what_counts_as_a_game_and_a_player() -> None:
    h = Hall("club")

    def state(board: str, **kw: Any) -> None:
        body = {"round": "1", "black": "Ann", "white": "Bob", "result": "1-0", "moves": ["11-15"], **kw}
        h.standings.record(board, body)

    state("t1", result=None)  # not over
    state("t1", result="*")  # unfinished
    state("t2", black="?")  # no name
    state("t3", white="Ann")  # one player twice
    state("t4", black="x" * 41)  # longer than a name may be
    assert h.standings.games() == []
    state("t1")
    state("t1")  # the same state again: one game
    state("t1", black="  Ann ")  # the same name, spaces aside
    assert len(h.standings.games()) == 1
    state("t1", result="1/2-1/2")  # the arbiter corrects the result: replaced
    assert [g.result for g in h.standings.games()] == ["1/2-1/2"]
    state("t1", game_id="g-2")  # a board that names its games: another game
    state("t2", black="ann")  # the case counts: another player
    assert [(p["name"], p["points_text"]) for p in h.standings.table()["players"]] == [
        ("Ann", "1½"),
        ("ann", "1"),
        ("Bob", "½"),
    ]


def test_a_corrupt_standings_file_is_set_aside_with_one_error_and_the_hall_starts(tmp_path: Path, caplog: Any) -> None:
    from crownhead.firmware.hall.standings import standings_file

    path = standings_file(tmp_path, "club")
    h = Hall("club", str(tmp_path))
    h.standings.record("t1", {"black": "Ann", "white": "Bob", "result": "0-1"})
    h.close()
    assert path.is_file() and len(Hall("club", str(tmp_path)).standings.games()) == 1
    for bad in (
        b'{"format": 1, "hall": "club", "games": [',
        b"\xff\xfe",
        b'{"format": 1, "hall": "club", "games": [{"board": "t1"}]}',
        b"[" * 100_000,
        b'{"format": 7, "games": []}',
    ):
        path.write_bytes(bad)
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="crownhead.firmware.hall.standings"):
            h = Hall("club", str(tmp_path))
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and str(path) in errors[0].getMessage() and "set aside" in errors[0].getMessage()
        assert h.standings.games() == [] and not path.exists()
        # The hall goes on and keeps the next games.
        h.standings.record("t1", {"black": "Ann", "white": "Bob", "result": "1-0"})
        assert h.standings.flush()
        assert len(Hall("club", str(tmp_path)).standings.games()) == 1
        h.close()
    aside = sorted(p.name for p in tmp_path.glob("*.bad"))
    assert len(aside) == 5 and all(n.startswith("hall-club-standings-") for n in aside)


def test_standings_in_a_real_browser_show_names_as_text(broker: Embedded, hall: tuple[Hall, str], browser: Any) -> None:
    h, web = hall
    evil = '<img src=x onerror="document.title=1">'
    for n, (black, white, result) in enumerate([("<b>Ann</b>", evil, "1-0"), (evil, "Cid", "1/2-1/2")]):
        h.standings.record(
            f"t{n}", {"round": str(n + 1), "black": black, "white": white, "result": result, "moves": []}
        )
    assert wait_for(lambda: len(h.standings.games()) == 2)
    page = browser.new_page()
    try:
        page.goto(web + "/")
        page.wait_for_selector("#crosstable tbody tr:nth-child(3)")
        assert page.locator("#standings tbody td:nth-child(2)").all_inner_texts() == ["<b>Ann</b>", evil, "Cid"]
        assert page.locator("#standings b, #crosstable b, #standings img, #crosstable img, #boards img").count() == 0
        row = page.locator("#crosstable tbody tr").nth(1)
        assert row.locator("td").nth(1).inner_text() == evil
        assert row.locator("td.cell").all_inner_texts() == ["R1 W 0", "R2 B ½"]
        assert page.title() == "Crownhead hall"
        with urllib.request.urlopen(web + "/standings.csv") as r:
            rows = list(csv.reader(io.StringIO(r.read().decode())))
        assert [r[1] for r in rows[1:]] == ["<b>Ann</b>", evil, "Cid"]
        # The page asks whether they changed (304 while not); a new game shows.
        h.standings.record("t2", {"round": "2", "black": "Dee", "white": "Cid", "result": "0-1"})
        page.wait_for_selector("#standings tbody tr:nth-child(4)")
        assert page.locator("#standings tbody td:nth-child(2)").all_inner_texts() == ["Cid", "<b>Ann</b>", evil, "Dee"]
    finally:
        page.close()


# -- the embedded broker ------------------------------------------------------------------------


def test_the_embedded_broker_is_configured_without_deprecated_keys() -> None:
    # Recorded here rather than left to a warnings filter: amqtt warns from its broker's
    # own thread when a configuration uses 'auth' or 'topic-check' or loads plugins by
    # entry point.
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        b = Embedded()
        b.start()
        try:
            h = Hall("club", boards=["t1"])
            listener = HallListener(h, b.url("hall"))
            listener.start()
            assert listener.subscribed.wait(WAIT_S)
            publisher = BoardPublisher(HallSettings(b.url("t1"), "club", "t1"), lambda: {"fen": "B:W21:B1"})
            publisher.poll(0)
            assert publisher.flush(WAIT_S)
            publisher.close(flush_s=0)
            assert wait_for(lambda: bool(h.boards()) and h.boards()[0]["fen"] == "B:W21:B1")
            listener.close()
        finally:
            b.close()
    deprecated = [f"{w.filename}:{w.lineno}: {w.message}" for w in seen if issubclass(w.category, DeprecationWarning)]
    assert deprecated == []


def test_a_referee_boards_state_carries_event_round_and_game_and_counts_once(tmp_path: Path) -> None:
    from crownhead.firmware.hall.board import board_state
    from crownhead.firmware.simulator.hands import Hands
    from helpers.rig import referee_rig

    board = referee_rig(tmp_path, RefereeSettings(black="Ann", white="Bob", event="Club night", round="3"))
    try:
        begun = board_state(board.app.snapshot)
        assert begun["ply"] == 0 and begun["start"] == begun["fen"] and begun["condoned"] == []
        board.script("lift 11\nwait 100\nplace 15\nwait 1000\n")
        state = board_state(board.app.snapshot)
        assert (state["event"], state["round"], state["black"], state["white"]) == ("Club night", "3", "Ann", "Bob")
        assert isinstance(state["game_id"], str) and state["game_id"] == begun["game_id"]
        assert '[Event "Club night"]' in state["pdn"] and '[Round "3"]' in state["pdn"]
        for _ in range(2):  # resign, and confirm
            Hands(board.app).act_text("resign")
            board.app.run_for(100)
        over = board_state(board.app.snapshot)
        assert over["result"] == "1-0" and over["game_id"] == state["game_id"]  # White, to move, resigned
        # The hall sees the game begin in round 3, paired so, and its result follow from the moves.
        h = Hall("club", pairings=read_pairings("round,board,black,white\n3,t1,Ann,Bob\n"))
        for s in (begun, state, over, over):
            h.receive("crownhead/club/t1/state", json.dumps(s).encode())
        (game,) = h.standings.games()
        assert (game.event, game.round, game.black, game.white, game.result) == ("Club night", "3", "Ann", "Bob", "1-0")
    finally:
        board.app.close()


def test_the_standings_are_bounded_and_a_disk_that_refuses_loses_nothing_in_memory(
    tmp_path: Path, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crownhead.firmware.hall import standings

    monkeypatch.setattr(standings, "MAX_GAMES", 3)
    h = Hall("club", str(tmp_path))
    standings.standings_file(tmp_path, "club").mkdir()  # where the file goes, nothing can be written
    with caplog.at_level(logging.ERROR, logger="crownhead.firmware.hall.standings"):
        for n in range(5):
            h.standings.record(f"t{n}", {"black": f"P{n}", "white": "Q", "result": "1-0"})
            h.standings.flush()
        h.close()
    # Three games kept (the bound), two refused; the disk's refusal logged once, not per game.
    assert len(h.standings.games()) == 3 and h.standings.refused == 2
    messages = [r.getMessage() for r in caplog.records]
    assert sum("cannot save the standings" in m for m in messages) == 1
    assert sum("later games are not counted" in m for m in messages) == 1
    assert [(p["rank"], p["name"]) for p in h.standings.table()["players"]] == [
        (1, "P0"),
        (1, "P1"),
        (1, "P2"),
        (4, "Q"),
    ]


def test_the_hall_command_makes_accounts_once_and_keeps_its_standings_through_a_restart(tmp_path: Path) -> None:
    import signal
    import stat
    import subprocess
    import sys

    import paho.mqtt.client as mqtt

    state_dir = tmp_path / "hall-state"
    pairings = tmp_path / "pairings.csv"  # t1 is the hall's by its pairings, t0 by --boards
    pairings.write_text("round,board,black,white\n1,t0,Ann,Bob\n1,t1,Cid,Dee\n")

    def start() -> tuple[subprocess.Popen[str], int, str]:
        broker_port, web_port = free_port(), free_port()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "crownhead.firmware.cli",
                "hall",
                "--hall",
                "club",
                "--listen",
                f"127.0.0.1:{broker_port}",
                "--web",
                f"127.0.0.1:{web_port}",
                "--state-dir",
                str(state_dir),
                "--boards",
                "t0",
                "--pairings",
                str(pairings),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once the broker and the page are up
        if not line:
            process.wait(WAIT_S)
        assert "the hall page is" in line, (line, process.stderr.read() if process.poll() is not None else "")
        return process, broker_port, f"http://127.0.0.1:{web_port}"

    def stop(process: subprocess.Popen[str]) -> str:
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0
        assert process.stdout is not None
        return process.stdout.read()  # what readline() read ahead included

    def standings(web: str) -> list[tuple[str, str]]:
        with urllib.request.urlopen(web + "/api/standings", timeout=10) as r:
            return [(p["name"], p["points_text"]) for p in json.load(r)["players"]]

    process, port, web = start()
    accounts = Accounts.open(state_dir / "hall-club-accounts.txt")[0].passwords
    try:
        # Made at the first start, kept owner-only (and printed: below).
        assert sorted(accounts) == ["arbiter", "hall", "t0", "t1"]
        assert stat.S_IMODE((state_dir / "hall-club-accounts.txt").stat().st_mode) == 0o600
        # No account, no way in: an anonymous board's state is refused.
        anonymous = BoardPublisher(
            HallSettings(f"mqtt://127.0.0.1:{port}", "club", "t0"),
            lambda: {"black": "Eve", "white": "Mallory", "result": "1-0"},
        )
        anonymous.poll(0)
        assert wait_for(lambda: anonymous.disconnects > 0)  # put off by the broker...
        assert anonymous.pending > 0  # ...with its state unsent
        anonymous.close(flush_s=0)
        for n, (black, white, result, reason) in enumerate(
            [("Ann", "Bob", "1-0", "resign"), ("Cid", "Dee", "1/2-1/2", "agreement")]
        ):
            board = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"t{n}")
            board.username_pw_set(f"t{n}", accounts[f"t{n}"])
            board.connect("127.0.0.1", port)
            board.loop_start()
            for s in game_states(black, white, ["11-15"], result, reason):  # seen from its start
                board.publish(f"crownhead/club/t{n}/state", json.dumps(s), qos=1, retain=True).wait_for_publish(10)
            board.disconnect()
            board.loop_stop()
        assert wait_for(lambda: len(standings(web)) == 4, 20)
    finally:
        told = stop(process)
    # Printed where the arbiter sees them, each with how to use it.
    assert f"new account t0 {accounts['t0']}: crownhead run --mqtt mqtt://t0:{accounts['t0']}@127.0.0.1:{port}" in told
    assert f"-u arbiter -P {accounts['arbiter']}" in told
    # Started again on a broker of its own (nothing retained): the standings are the file's,
    # the accounts the same, and no password printed again.
    process, port, web = start()
    try:
        assert standings(web) == [("Ann", "1"), ("Cid", "½"), ("Dee", "½"), ("Bob", "0")]
        assert Accounts.open(state_dir / "hall-club-accounts.txt")[0].passwords == accounts
    finally:
        told = stop(process)
    assert "hall-club-accounts.txt" in told and not any(password in told for password in accounts.values())


def test_the_hall_never_prints_logs_or_serves_a_broker_password(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    secret = "s3cret-Pw"
    web_port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "hall",
            "--hall",
            "club",
            "--web",
            f"127.0.0.1:{web_port}",
            "--broker",
            f"mqtt://hall:{secret}@127.0.0.1:{free_port()}",
            "--state-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "boards report to mqtt://hall:***@127.0.0.1:" in line and secret not in line, line
        served = b"".join(
            urllib.request.urlopen(f"http://127.0.0.1:{web_port}{path}", timeout=WAIT_S).read()
            for path in ("/", "/api/boards", "/api/standings", "/results.csv", "/round.pdn")
        )
        assert secret.encode() not in served
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)
    assert process.stdout is not None and process.stderr is not None
    assert secret not in line + process.stdout.read() + process.stderr.read()
    # A URL the hall cannot use is named in the error, without its password.
    bad = subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", "hall", "--broker", f"mqtp://hall:{secret}@x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "mqtp://hall:***@x" in bad.stderr and secret not in bad.stderr + bad.stdout
    with pytest.raises(ValueError) as refused:
        HallSettings(f"mqtt://t1:{secret}@h:99999").validate()
    assert secret not in str(refused.value)
