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
