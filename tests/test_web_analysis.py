"""The engine's live analysis on the board's page (docs/coach.md), in a real browser.

Off until asked for; switched on from the page, it shows the evaluation as a bar and in
words, the depth and the best line, and they follow the position after a move on the
board. A referee's game gets none, and a page without the PIN may not switch it on.

The issue's figure, within a second of the move on the board, is measured by
``bench/analysis_page.py`` (tens of milliseconds here, from the move's own time on the
board to the page's stamp as it shows the analysis); this test checks that the page
follows, move after move, with no timed bound that a busy machine could fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.commands import NO_ANALYSIS
from crownhead.firmware.app.settings import AppSettings
from helpers.web import LiveBoard, Socket, request
from crownhead.rules import WCDF, Game

pytest.importorskip("websockets")

#: Positions a position: a few tenths of a second of the native core, so that the
#: analysis is still deepening (or just done) when the next move comes.
NODES = 300_000


def _fen_after(*moves: str) -> str:
    game = Game(None, WCDF)
    for move in moves:
        game.play_text(move)
    return game.position.fen()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    with LiveBoard(tmp_path, settings=AppSettings(auto_crown=True, analysis_nodes=NODES)) as board:
        yield board


def _shown(page: Any, fen: str, timeout: float | None = None) -> None:
    """Wait until the page shows an analysis of ``fen`` searched to some depth."""
    page.wait_for_function(
        "(fen) => { const s = document.querySelector('#analysis');"
        " return s.dataset.fen === fen && Number(s.dataset.depth) >= 1"
        " && document.querySelector('#analysis-line').textContent.startsWith('Best line: '); }",
        arg=fen,
        timeout=timeout,
    )


def test_the_page_shows_the_analysis_live(browser: Any, live: LiveBoard) -> None:
    page = browser.new_page()
    page.goto(live.url)
    page.wait_for_selector('#connection[data-state="live"]')
    # Off by default: nothing searched, nothing shown.
    assert page.locator("#analysis").get_attribute("data-on") == "false"
    assert page.locator("#analysis-panel").is_hidden()
    assert live.app.snapshot.analysis is None
    page.check("#analysis-on")
    _shown(page, _fen_after())
    # Deepened while the position stands, until its budget is spent.
    page.wait_for_function(
        "() => Number(document.querySelector('#analysis').dataset.depth) >= 3"
        " && !document.querySelector('#analysis-depth').textContent.includes('deeper')"
    )
    assert page.locator("#analysis-line").text_content().startswith("Best line: 1. ")
    words = page.locator("#analysis-words").text_content()
    assert words == "Even" or " is " in words, words
    width = page.locator("#eval-fill").evaluate("el => parseFloat(el.style.width)")
    assert 30 < width < 70  # the start position is about level
    with Socket(live.ws_url) as ws:
        ws.next()
        for played in (("11-15",), ("11-15", "23-19")):
            move = played[-1]
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m, move=move: m.get("event") == "move" and m["move"] == move)
            _shown(page, _fen_after(*played))
            page.wait_for_function(
                "(n) => document.querySelectorAll('#moves [data-ply]').length === n", arg=len(played)
            )
    # White's reply was the last move: the line goes on with Black's second move.
    assert page.locator("#analysis-line").text_content().startswith("Best line: 2. ")
    # A page opened now is told the analysis standing.
    late = browser.new_page()
    late.goto(live.url)
    _shown(late, _fen_after("11-15", "23-19"))
    late.close()
    page.uncheck("#analysis-on")
    page.wait_for_selector("#analysis[data-on='false']")
    assert page.locator("#analysis-panel").is_hidden()
    page.close()


def test_a_referee_game_gets_no_analysis(tmp_path: Path) -> None:
    settings = AppSettings(mode="referee", analysis=True, analysis_nodes=NODES)
    with LiveBoard(tmp_path, settings=settings) as board:
        status, _, body = board.get("/api/analysis")
        assert status == 200
        state = json.loads(body)
        assert state["analysis"] is None and state["why"] == NO_ANALYSIS
        status, _, body = request(
            board.url + "api/analysis",
            method="POST",
            data=b'{"on": true}',
            headers={"Content-Type": "application/json"},
        )
        assert status == 200 and json.loads(body)["why"] == NO_ANALYSIS
        assert board.app.snapshot.analysis is None and not board.app.analysing


def test_switching_the_analysis_needs_the_pin(tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="4711", settings=AppSettings(analysis_nodes=NODES)) as board:
        status, _, body = request(board.url + "api/analysis", method="POST", data=b'{"on": true}')
        assert status == 403 and b"log in with the board's PIN" in body
        assert not board.app.analysis_wanted


def test_a_bad_switch_is_refused_saying_what_to_send(live: LiveBoard) -> None:
    for data in (b"", b"on", b'{"on": "yes"}', b"[true]", b"x" * 2000):
        status, _, body = request(live.url + "api/analysis", method="POST", data=data)
        assert status in (400, 413), (data[:20], status)
        assert b"on" in body or b"too long" in body
    assert not live.app.analysis_wanted
