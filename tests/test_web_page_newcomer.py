"""The board's page as a newcomer meets it (issue 40): the event log, the square numbers
on a phone, moves by dragging or tapping, the status page's settings. In a real browser
(Debian's chromium through Playwright) at a phone's 390x844 and a laptop's 1280x800;
skipped, saying why, when no chromium is installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.config import load_config
from helpers.web import LiveBoard

pytest.importorskip("websockets")

WAIT_MS = 120_000  # a bound on a failure only: chromium on a very busy machine
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
SIZES = pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    with LiveBoard(tmp_path) as board:
        yield board


def open_page(browser: Any, board: LiveBoard, size: dict[str, int], tab: str = "") -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.set_viewport_size(size)
    page.goto(board.url + tab)
    page.wait_for_selector('#connection[data-state="live"]')
    page.wait_for_function("() => window.crownhead && window.crownhead.view !== null")
    return page


# -- the status page: which settings are in force --------------------------------------


@SIZES
def test_the_status_page_says_the_built_in_defaults_when_no_file_was_read(
    browser: Any, live: LiveBoard, size: dict[str, int]
) -> None:
    page = open_page(browser, live, size, "#status-page")
    page.wait_for_function("() => document.querySelector('#settings-file').textContent !== ''")
    shown = page.locator("#tab-status-page").inner_text()
    assert "built-in defaults" in page.locator("#settings-file").inner_text()
    # No file is named as the settings when none was read.
    assert "settings are in its configuration file (/etc/crownhead/config.toml" not in shown.replace("\n", " ")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]
    page.close()


def test_the_status_page_names_the_file_it_read(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "my board.toml"
    path.write_text('[web]\npin = "2468"\n')
    with LiveBoard(tmp_path, config=load_config(path)) as live:
        page = open_page(browser, live, PHONE, "#status-page")
        page.wait_for_function("() => document.querySelector('#settings-file').textContent !== ''")
        said = page.locator("#settings-file").inner_text()
        assert str(path) in said and "built-in defaults" not in said
        page.close()


def test_the_status_data_names_the_file_read_or_none(tmp_path: Path) -> None:
    import json

    path = tmp_path / "board.toml"
    path.write_text("[web]\nmax_pages = 8\n")
    with LiveBoard(tmp_path / "a") as board:
        assert json.loads(board.get("/api/status")[2])["config_file"] is None
    with LiveBoard(tmp_path / "b", config=load_config(path)) as board:
        data = json.loads(board.get("/api/status")[2])
        assert data["config_file"] == str(path) and data["config"]["web"]["max_pages"] == 8


# -- the event log ---------------------------------------------------------------------


def log_lines(page: Any) -> list[str]:
    """The event log, newest first, as shown."""
    return page.locator("#log > li").all_inner_texts()


def type_move(page: Any, move: str, plies: int) -> None:
    page.fill("#move-input", move)
    page.press("#move-input", "Enter")
    page.wait_for_function(f"() => document.querySelectorAll('#moves [data-ply]').length === {plies}")


@SIZES
def test_the_log_says_each_thing_once_and_a_page_opened_mid_game_shows_the_game_so_far(
    browser: Any, live: LiveBoard, size: dict[str, int]
) -> None:
    page = open_page(browser, live, size)
    page.wait_for_function("() => window.crownhead.commands.size > 0")
    # A new game from the form: "new game" once (the reply and the event said it twice).
    page.click("#new-game summary")
    page.click("#new-form button[type=submit]")
    page.wait_for_selector('#log [data-kind="new-game"]')
    page.wait_for_function("() => !document.querySelector('#new-game').open")
    for n, move in enumerate(["11-15", "23-19", "8-11"], 1):
        type_move(page, move, n)
    page.wait_for_function("() => document.querySelectorAll('#log [data-kind=\"move\"]').length === 3")
    lines = log_lines(page)
    # The move the hands made is the move: no "hands: 11-15" beside each.
    assert lines == ["2. Black 8-11", "1... White 23-19", "1. Black 11-15", "new game"]
    # A page opened now starts with the game's events so far, numbered alike.
    late = open_page(browser, live, size)
    late.wait_for_function("() => document.querySelectorAll('#log [data-kind=\"move\"]').length === 3")
    assert log_lines(late) == ["2. Black 8-11", "1... White 23-19", "1. Black 11-15"]
    # Both go on alike, each move once.
    type_move(page, "22-17", 4)
    for p in (page, late):
        p.wait_for_function("() => document.querySelectorAll('#log [data-kind=\"move\"]').length === 4")
        assert log_lines(p)[:2] == ["2... White 22-17", "2. Black 8-11"]
    # Resigned: a page opened on the finished game says how it ended, after its moves.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click('[data-resign="black"]')
    page.wait_for_selector('#log [data-kind="game-over"]')
    last = open_page(browser, live, size)
    last.wait_for_selector('#log [data-kind="game-over"]')
    lines = log_lines(last)
    assert lines[0].startswith("game over: 0-1") and lines[1:] == log_lines(late)[-4:] == [
        "2... White 22-17",
        "2. Black 8-11",
        "1... White 23-19",
        "1. Black 11-15",
    ]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]
    for p in (page, late, last):
        p.close()
