"""A kept game reviewed from the page's Games tab (docs/coach.md), in a real browser.

The game gives a man away at 3. 12-16; the Review button marks exactly that move, and a
click on it steps the board there and says why. A page that may not command the board
(a PIN not given) may not start a review: it costs seconds of a processor.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.storage.store import GameRecord
from helpers.web import LiveBoard, Socket, request
from crownhead.rules import WCDF, Game, Position

pytest.importorskip("websockets")

WAIT_MS = 180_000  # a bound on a failure only: the review's searches on a busy machine
GIVEN_AWAY = ("11-15", "23-19", "8-11", "22-17", "12-16", "19x12")


def _play_and_keep(board: LiveBoard) -> None:
    with Socket(board.ws_url) as ws:
        ws.next()
        for move in GIVEN_AWAY:
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == move)
        assert ws.command("result 0-1 resign")["ok"]
        ws.until(lambda m: m.get("event") == "game-saved")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    with LiveBoard(tmp_path) as board:
        yield board


def test_the_review_marks_the_man_given_away(browser: Any, live: LiveBoard) -> None:
    _play_and_keep(live)
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(live.url)
    page.wait_for_selector('#connection[data-state="live"]')
    page.click('nav a[data-tab="games"]')
    page.locator("#games-table tbody tr").first.locator("button").click()
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay-review")
    page.wait_for_selector("#replay-moves .mark-blunder")
    marked = page.locator("#replay-moves [data-ply][class*='mark-']").all_text_contents()
    assert marked == ["12-16??"]
    assert page.locator("#replay-review-status").text_content().startswith("Reviewed at 20,000 positions a move.")
    page.click("#replay-moves .mark-blunder")
    comment = page.locator("#replay-comment").text_content()
    assert comment.startswith("after 3. 12-16??: Blunder (costs ") and "was better" in comment
    # Asked again, the review is the one kept: at once, and the same.
    page.click("#replay-review")
    page.wait_for_function("() => document.querySelector('#replay-review-status').textContent.startsWith('Reviewed')")
    page.close()


def test_a_review_needs_the_right_to_command(tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="4711") as board:
        game = Game(Position.start(), WCDF)
        for move in GIVEN_AWAY:
            game.play_text(move)
        game.declare("0-1", "resign")
        board.store.finish(GameRecord.new(black="Ann", white="Bob", rules=WCDF).with_game(game))
        (kept,) = board.store.game_files()
        status, _, body = request(f"{board.url}api/games/{kept.stem}/review", method="POST", data=b"")
        assert status == 403 and b"log in with the board's PIN to review a game" in body
        assert board.server.reviews == {}
        status, _, _ = request(f"{board.url}api/games/no-such-game/review", method="POST", data=b"")
        assert status == 403  # nothing said of the games before the login


def test_no_review_while_a_game_far_apart_is_under_way(tmp_path: Path) -> None:
    """(Issue 51.) No engine help of any kind between people apart: a kept game is not
    reviewed on the board's page while a game between homes is under way."""
    with LiveBoard(tmp_path, settings=AppSettings(far_apart=True)) as board:
        game = Game(Position.start(), WCDF)
        for move in GIVEN_AWAY:
            game.play_text(move)
        game.declare("0-1", "resign")
        board.store.finish(GameRecord.new(black="Ann", white="Bob", rules=WCDF).with_game(game))
        (kept,) = board.store.game_files()
        with Socket(board.ws_url) as ws:  # the game far apart is under way
            ws.next()
            assert ws.command("hands 11-15")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == "11-15")
        status, _, body = request(f"{board.url}api/games/{kept.stem}/review", method="POST", data=b"")
        assert status == 409 and b"no review in a game far apart" in body, (status, body)
        assert board.server.reviews == {}
