"""The hall's page as a newcomer meets it (issue 40), in a real browser (Debian's chromium
through Playwright) at a phone's 390x844 and a laptop's 1280x800: one move numbering with
the board's page, PDN and the sheets; nothing wider than a phone; thumbnails that say
whose move it is and show the clocks. Skipped, saying why, without chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.events import MoveMade
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.settings import HallSettings

from helpers.hallnet import Embedded
from helpers.net import WAIT_S, wait_for
from test_hall import RunningHall

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
SIZES = pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])

#: Three boards as a round shows them: one under way on a clock (Black to move at move
#: 5), one finished, one a game White began (from a ballot's position).
STATES = {
    "table-1": {
        "fen": "B:W17,19,24,25,26,28,29,30,31,32:B1,2,3,4,5,6,7,10,11,12,15",
        "ply": 8,
        "black": "Annabel Lee-Richardson",
        "white": "Crownhead engine (level 5)",
        "round": "2",
        "moves": ["11-15", "23-19", "9-14", "22-17", "14x23", "27x18x11", "8x15", "21-17"],
        "status": "Black to move, move 5",
        "clocks": {"black": 61_000, "white": 3_599_000},
    },
    "table-2": {
        "fen": "B:W21,22:B1",
        "ply": 2,
        "black": "Bartholomew Oyelaran-Smith",
        "white": "Cid",
        "round": "2",
        "moves": ["11-15", "23-19"],
        "result": "0-1",
        "reason": "resign",
        "status": "Game over: White wins (resign)",
        "clocks": None,
    },
    "table-3": {
        "fen": "B:W21,22,23:B1,2,3",
        "ply": 3,
        "black": "Dee",
        "white": "Eve",
        "round": "2",
        "moves": ["22-18", "11-15", "18x11"],
        "status": "Black to move, move 3",
        "clocks": None,
    },
}


@pytest.fixture
def broker() -> Iterator[Embedded]:
    b = Embedded()
    b.start()
    yield b
    b.close()


@pytest.fixture
def web(broker: Embedded, tmp_path: Path) -> Iterator[str]:
    running = RunningHall(broker, tmp_path / "hall")
    for name, state in STATES.items():
        publisher = BoardPublisher(HallSettings(broker.url(name), "club", name), lambda s=state: s)
        publisher.sink(MoveMade(1, 1, "black", "11-15", (11, 15), ()))
        publisher.poll(0)
        assert publisher.flush(WAIT_S)
        publisher.close(flush_s=0)
    assert wait_for(lambda: sum(1 for b in running.hall.boards() if b["fen"]) == 3)
    # Eight players' standings: a crosstable wider than a phone.
    players = [f"Player number {i}" for i in range(1, 9)]
    for n, (black, white) in enumerate(zip(players, players[1:] + players[:1])):
        game = {"round": str(n % 3 + 1), "black": black, "white": white, "result": "1-0", "moves": []}
        running.hall.standings.record(f"t{n}", game)
    assert wait_for(lambda: len(running.hall.standings.games()) == 8)
    yield running.web
    running.close()


def open_hall(browser: Any, web: str, size: dict[str, int]) -> Any:
    page = browser.new_page()
    page.set_default_timeout(120_000)  # a bound on a failure only
    page.set_viewport_size(size)
    page.goto(web + "/")
    page.wait_for_selector("[data-board='table-3'] [data-piece]")
    page.wait_for_selector("#results tbody tr:nth-child(3)")
    page.wait_for_selector("#crosstable tbody tr:nth-child(8)")
    return page


def width(page: Any) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth"))


@SIZES
def test_the_hall_page_fits_the_screen(browser: Any, web: str, size: dict[str, int]) -> None:
    page = open_hall(browser, web, size)
    try:
        assert width(page) <= size["width"]
        # Each board's round result is all there, in words a phone can hold.
        first = page.locator("#results tbody tr").first.inner_text()
        assert "Annabel Lee-Richardson" in first and "Crownhead engine (level 5)" in first
        page.locator("[data-board='table-1']").click()
        page.wait_for_selector("#moves [data-ply]")
        assert width(page) <= size["width"]
    finally:
        page.close()


@SIZES
def test_thumbnails_say_whose_move_it_is_and_show_the_clocks(browser: Any, web: str, size: dict[str, int]) -> None:
    page = open_hall(browser, web, size)
    try:
        one = page.locator("[data-board='table-1']").inner_text()
        assert "ply" not in one
        assert "Move 5, Black to move" in one and "Black 1:01" in one and "White 59:59" in one
        # The side to move's clock is marked as the one running.
        assert (
            page.locator("[data-board='table-1'] [data-card-clock='black']").get_attribute("class") == "clock to-move"
        )
        assert page.locator("[data-board='table-1'] [data-card-clock='white']").get_attribute("class") == "clock"
        two = page.locator("[data-board='table-2']").inner_text()
        assert "0-1 (resign)" in two and "to move" not in two
        # White began (a ballot's position): White's 18x11 ended move 2, Black begins move 3.
        assert "Move 3, Black to move" in page.locator("[data-board='table-3']").inner_text()
    finally:
        page.close()


@SIZES
def test_the_full_view_numbers_moves_as_the_board_page_pdn_and_sheets_do(
    browser: Any, web: str, size: dict[str, int]
) -> None:
    page = open_hall(browser, web, size)
    try:
        page.locator("[data-board='table-1']").click()
        page.wait_for_selector("#moves [data-ply]")
        rows = [" ".join(r.split()) for r in page.locator("#moves > li").all_inner_texts()]
        assert rows == ["1. 11-15 23-19", "2. 9-14 22-17", "3. 14x23 27x18x11", "4. 8x15 21-17"]
        assert page.locator("#moves [data-ply]").all_inner_texts() == STATES["table-1"]["moves"]
        # Its square numbers as legible as on the board's page: 11 px at least.
        smallest = page.evaluate(
            """() => {
            const svg = document.querySelector('#board svg');
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return Math.min(...[...svg.querySelectorAll('.num')].map((n) => parseFloat(getComputedStyle(n).fontSize) * scale));
          }"""
        )
        assert smallest >= 11
        page.locator("[data-board='table-3']").click()
        page.wait_for_function("() => document.querySelector('#detail').dataset.shown === 'table-3'")
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 3")
        rows = [" ".join(r.split()) for r in page.locator("#moves > li").all_inner_texts()]
        assert rows == ["1. ... 22-18", "2. 11-15 18x11"]
    finally:
        page.close()
