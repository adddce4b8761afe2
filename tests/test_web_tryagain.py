"""The page's move lists as a way into the game (issue 43), in a real browser: a move of
the game in progress clicked shows its position on the board; a kept game's replay sets
the position before a move up on the board again, as a new game with a friend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.web import LiveBoard, Socket, request
from crownhead.rules import WCDF, Game, Position

pytest.importorskip("websockets")

GIVEN_AWAY = ("11-15", "23-19", "8-11", "22-17", "12-16", "19x12")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    with LiveBoard(tmp_path) as board:
        yield board


def _pieces(page: Any) -> dict[int, str]:
    """What the page's board draws: square -> piece."""
    found = page.eval_on_selector_all(
        "#board [data-square]",
        "els => els.map(g => [g.getAttribute('data-square'),"
        " (g.querySelector(':scope > [data-piece]') || {getAttribute: () => null}).getAttribute('data-piece')])",
    )
    return {int(s): p for s, p in found if p}


def _after(plies: int) -> Position:
    game = Game(Position.start(), WCDF)
    for move in GIVEN_AWAY[:plies]:
        game.play_text(move)
    return game.position


def test_the_move_lists_show_a_position_and_try_a_kept_game_again(browser: Any, live: LiveBoard) -> None:
    # One board and one page for both (a browser test costs seconds).
    page = browser.new_page()
    page.goto(live.url)
    page.wait_for_selector('#connection[data-state="live"]')
    with Socket(live.ws_url) as ws:
        ws.next()
        for move in GIVEN_AWAY[:4]:
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == move)
        page.wait_for_selector('#moves [data-ply="4"]')
        status, _, body = request(f"{live.url}api/current")
        assert status == 200 and json.loads(body)["moves"] == ["11-15", "23-19", "8-11", "22-17"]
        # A move of the game in progress clicked: the board shows the position after it.
        page.click('#moves [data-ply="1"]')
        page.wait_for_selector("#preview:not([hidden])")
        page.wait_for_function("() => document.querySelector('#board [data-square=\"23\"] [data-piece]') !== null")
        assert _pieces(page) == {s: p.symbol for s, p in _after(1).pieces().items()}
        assert (
            page.locator("#preview-text").text_content().startswith("The board here shows the position after 1. 11-15")
        )
        # The next move on the board brings the board back to the game.
        assert ws.command("hands 12-16")["ok"]
        ws.until(lambda m: m.get("event") == "move" and m["move"] == "12-16")
        page.wait_for_selector("#preview", state="hidden")
        page.wait_for_function("() => document.querySelector('#board [data-square=\"16\"] [data-piece]') !== null")
        assert _pieces(page) == {s: p.symbol for s, p in _after(5).pieces().items()}
        assert ws.command("hands 19x12")["ok"]
        ws.until(lambda m: m.get("event") == "move" and m["move"] == "19x12")
        assert ws.command("result 0-1 resign")["ok"]
        ws.until(lambda m: m.get("event") == "game-saved")
        # The kept game's replay: the position before 3. 12-16 set up again, with a friend.
        page.click('nav a[data-tab="games"]')
        page.locator("#games-table tbody tr").first.locator("button").click()
        page.wait_for_selector("#replay:not([hidden])")
        # The replay stands at the end, after 19x12 (resigned): the board could play on there.
        assert page.locator("#again-here").is_enabled() and page.locator("#again-before").is_enabled()
        page.click('#replay-moves [data-ply="5"]')  # 3. 12-16, the man given away
        page.select_option("#again-opponent", "play")
        page.click("#again-before")
        page.wait_for_selector("#tab-board:not([hidden])")
        page.wait_for_selector("#setup:not([hidden])")
        assert ws.command("fen")["setup"] == _after(4).fen()
        assert live.app.mode.name == "play"
        assert page.locator("#again-status").text_content().startswith("Set up on the board")
        # The hands follow the lights: the new game begins, its record naming where from.
        assert ws.command("follow")["ok"]
        ws.until(lambda m: m.get("event") == "game-start")
        saved = json.loads((live.store.directory / "current.json").read_text())
        (kept,) = live.store.game_files()
        assert saved["extra"] == {"FromGame": kept.stem, "FromPly": "4"}
        # Numbered from the move chosen, 3, as the replay numbered it (issue 54: from 1).
        assert ws.command("history")["first"] == 3
        assert ws.command("hands 9-13")["ok"]
        ws.until(lambda m: m.get("event") == "move" and m["move"] == "9-13")
        page.wait_for_selector('#moves [data-ply="1"]')
        assert page.locator("#moves li").first.inner_text().startswith("3. 9-13")
        page.wait_for_selector('#log [data-kind="move"]')
        assert page.locator('#log [data-kind="move"]').first.inner_text() == "3. Black 9-13"
    page.close()
