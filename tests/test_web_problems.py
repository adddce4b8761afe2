"""The problem mode on the board's page (docs/coach.md), in a real browser.

A page logged in with the board's PIN starts the problems: the board sets up the next
problem at the player's level, the page names it, its collection and its stated result,
the player's level, streak and record by difficulty; a problem chosen by its id then.
The simulated hands follow the lights (the page's Follow the lights) a rank at a time,
the page asks for a hint, the solution is played from the page, the machine's reply made
as lit, and the verdict and the record updated are shown. A page without the PIN sees
the problems and may start none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.commands import NO_ANALYSIS_PROBLEM
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.coach.problems import RECORD_FILE, problem
from helpers.web import LiveBoard, Socket

pytest.importorskip("websockets")

PIN = "4711"
#: Beginner's Problem #1: the first at level 1.
FIRST = problem("beginner-1")
#: Beginner's Problem #3 (W:W19,24,32:B10,11,18): White to play and win by 19-16 11x27
#: 32x7, Black's reply forced.
CHOSEN = problem("beginner-3")


def _log_in(page: Any) -> None:
    page.fill("#pin", PIN)
    page.click("#login button[type=submit]")
    page.wait_for_selector("#login", state="hidden")
    page.wait_for_selector('#connection[data-state="live"]')


def _set_up_by_the_lights(page: Any) -> list[list[int]]:
    """Do what the page's lights ask, as a person at the page's simulator does: click each
    lit square (lift the piece to come off, put one where it is missing), then wait until
    the board has read them all (none of them lit any more) and the next rank is lit, until
    nothing is left to set up. Returns the squares lit each time."""
    lit: list[list[int]] = []
    while page.evaluate("() => crownhead.view.target !== null"):
        roles = page.evaluate("() => crownhead.view.roles")
        off = sorted(s for role in ("extra", "remove") for s in roles.get(role, []))
        on = sorted(roles.get("missing", []))
        assert off or on, roles
        lit.append(sorted(off + on))
        # Clicked in the page (its handler sends the simulator's `touch`), all at once.
        page.evaluate(
            '(squares) => squares.forEach((s) => document.querySelector(`#board [data-square="${s}"]`)'
            ".dispatchEvent(new MouseEvent('click', { bubbles: true })))",
            off + on,
        )
        page.wait_for_function(
            "(done) => crownhead.view.target === null || !done.some((s) =>"
            " Object.values(crownhead.view.roles).some((squares) => squares.includes(s)))",
            arg=off + on,
        )
    return lit


def _play(page: Any, move: str, plies: int) -> None:
    """``move`` typed on the page (made by the simulated hands); wait for ``plies`` moves."""
    page.fill("#move-input", move)
    page.click("#move-form button[type=submit]")
    page.wait_for_function("(n) => document.querySelectorAll('#moves [data-ply]').length >= n", arg=plies)


def test_a_problem_from_the_page_set_up_hinted_solved_and_counted(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin=PIN, settings=AppSettings(auto_crown=True)) as board:
        page = browser.new_page()
        page.goto(board.url)
        # A page without the PIN sees the record and has no problem controls.
        page.wait_for_selector('#problem-record:text("Your level 1")')
        assert page.locator("#problem-next").is_hidden() and page.locator("#problem-current").is_hidden()
        _log_in(page)
        page.click("#problem-next")
        page.wait_for_selector('#problems[data-active="true"][data-id="beginner-1"]')
        assert page.locator("#problem-title").text_content() == "Beginner's Problem #1"
        assert page.locator("#problem-collection").text_content() == "(Beginner's problems, beginner-1, difficulty 1)"
        assert page.locator("#problem-task").text_content() == "White to play and win"
        assert page.locator("#problem-record").text_content() == "Your level 1, streak 0 (best 0)."
        assert page.locator('#problem-table [data-difficulty="1"]').text_content() == "0/0"
        page.wait_for_function("(fen) => crownhead.view && crownhead.view.target === fen", arg=FIRST.start.fen())
        # A chosen one instead: set up from the start position still on the board.
        page.fill("#problem-id", CHOSEN.id)
        page.click("#problem-form button[type=submit]")
        page.wait_for_selector(f'#problems[data-id="{CHOSEN.id}"][data-status="playing"]')
        assert page.locator("#problem-title").text_content() == "Beginner's Problem #3"
        # The lights ask for the problem's position a rank at a time, from the player's side
        # (White's: squares 29-32 first); the hands follow them.
        page.wait_for_function("(fen) => crownhead.view && crownhead.view.target === fen", arg=CHOSEN.start.fen())
        lit = _set_up_by_the_lights(page)
        rows = [{(square - 1) // 4 for square in squares} for squares in lit]
        assert rows == [{7}, {6}, {5}, {4}, {2}, {1}, {0}]  # squares 13-16 need nothing
        assert board.app.setting_up is None and board.app.game.start == CHOSEN.start
        # While it is solved, the live analysis stays off, saying why.
        page.click("#analysis-on")  # refused: the box unchecks itself again
        page.wait_for_selector(f'#analysis-why:text("{NO_ANALYSIS_PROBLEM}")')
        assert page.locator("#analysis-panel").is_hidden() and board.app.snapshot.analysis is None
        page.click("#problem-hint-button")
        page.wait_for_selector('#problem-hint:text("Hint: 19-16")')
        page.wait_for_selector('#board [data-square="19"][data-role="hint-from"]')
        # The solution from the page; the machine's forced reply (11x27) made as lit.
        _play(page, "19-16", 1)
        page.wait_for_function("() => crownhead.view.roles && crownhead.view.roles['move-from']")
        page.click("#follow")  # once: the hands make the whole move lit
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length >= 2")
        _play(page, "32x7", 3)
        page.wait_for_selector('#problems[data-status="solved"]')
        # Solved with the hint: said so, and not counted as solved (issue 54).
        assert page.locator("#problem-verdict").text_content() == (
            "Solved with 1 hint: the defender has no move left. "
            "Solved with the engine's help: not counted as solved, and the streak stays."
        )
        assert page.locator("#problem-record").text_content() == "Your level 1, streak 0 (best 0)."
        assert page.locator('#problem-table [data-difficulty="1"]').text_content() == "0/1"
        assert json.loads((tmp_path / RECORD_FILE).read_text())["solved"] == []
        # A page opened now is told where the problems stand.
        late = browser.new_page()
        late.goto(board.url)
        late.wait_for_selector(f'#problems[data-status="solved"][data-id="{CHOSEN.id}"]')
        assert late.locator("#problem-record").text_content() == "Your level 1, streak 0 (best 0)."
        late.close()
        # Left: the mode is off, and the analysis may run again.
        page.click("#problem-off")
        page.wait_for_selector('#problems[data-active="false"]')
        assert board.app.analysis_refused is None
        page.close()


def test_a_page_without_the_pin_starts_no_problem(tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin=PIN, public_view=True) as board, Socket(board.ws_url) as ws:
        ws.next()
        refused = ws.command("problem next")
        assert refused["event"] == "error" and refused["code"] == "forbidden"
        state = ws.command("problems")
        assert state["ok"] and state["active"] is False and state["level"] == 1
        assert board.app.problems is not None and not board.app.problems.active
