"""The page's non-visual mode in a real browser (Debian's chromium through Playwright):
every sentence in an ARIA live region, squares reachable and named, moves typed, and a
blind player's whole game against the computer with the keyboard and the region alone.
Skipped, saying why, when no chromium is installed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.players import Human, MachineSpec, RandomMover
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from helpers.speech import position_heard
from helpers.web import LiveBoard
from crownhead.rules import WCDF, BLACK, WHITE, Color, Move, Position

pytest.importorskip("websockets")

WAIT_MS = 120_000  # a bound on a failure only: chromium on a very busy machine
START = Position.from_fen("B:W19,20,28:B10,11,K23")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    settings = AppSettings(
        auto_crown=True, mode="computer", start=START, machine=MachineSpec("random", None, 7), machine_side=WHITE
    )
    players = {BLACK: Human(), WHITE: RandomMover(7)}
    pieces = {s: p.symbol for s, p in START.pieces().items()}
    with LiveBoard(tmp_path, settings=settings, board=pieces, players=players) as board:
        BoardVoice(None, Phrasebook("en"), emit=True).attach(board.app)
        board.app.wake()
        yield board


def open_page(browser: Any, board: LiveBoard) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(board.url)
    page.wait_for_selector('#connection[data-state="live"]')
    page.get_by_role("button", name="Say the position").wait_for(state="visible")  # the page may play
    return page


def heard(page: Any, since: int) -> tuple[list[str], int]:
    """What the live region (found by its role and name, as a screen reader finds it) said
    after its first ``since`` sentences, and how many it has said in all."""
    region = page.get_by_role("log", name="What the board says")
    count, items = region.evaluate(
        "(el) => [Number(el.dataset.count || 0), [...el.querySelectorAll('li')].map((li) => li.textContent)]"
    )
    new = count - since
    return (items[-new:] if new > 0 else []), count


def wait_heard(page: Any, since: int) -> None:
    page.wait_for_function(
        "(n) => Number(document.querySelector('#speech').dataset.count || 0) > n", arg=since, timeout=WAIT_MS
    )


def type_move(page: Any, move: str) -> None:
    field = page.get_by_role("textbox", name="Move")
    field.focus()
    page.keyboard.type(move)
    page.keyboard.press("Enter")


def test_every_square_is_named_and_reached_by_keyboard(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    square = page.get_by_role("button", name="Square 11: black man")
    assert square.count() == 1
    assert page.get_by_role("button", name="Square 23: black king").count() == 1
    assert page.get_by_role("button", name=re.compile(r"^Square \d+: ")).count() == 32
    square.focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Square 15: empty"
    region = page.locator("#speech")
    assert region.get_attribute("aria-live") == "polite" and region.get_attribute("role") == "log"
    snapshot = page.locator("#voice").aria_snapshot()
    assert 'log "What the board says"' in snapshot and 'button "Say the position"' in snapshot


def test_the_board_is_one_tab_stop_with_the_arrows_inside_it(browser: Any, live: LiveBoard) -> None:
    # Issue 54, item 6: the 32 squares were 32 Tab stops before the move field; the
    # board is one (a roving focus): Tab reaches a square, the arrows walk the squares,
    # and the next Tab leaves the board.
    page = open_page(browser, live)
    stops = page.evaluate("() => [...document.querySelectorAll('#board [data-square]')].map((g) => g.tabIndex)")
    assert sorted(stops) == [-1] * 31 + [0], stops
    square = page.get_by_role("button", name="Square 11: black man")
    square.focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Square 15: empty"
    # The square last focused is the board's one stop: Tab back in comes to it.
    assert page.evaluate("() => document.querySelector('#board [data-square=\"15\"]').tabIndex") == 0
    assert page.evaluate("() => document.querySelectorAll('#board [tabindex=\"0\"]').length") == 1
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('#board')")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Square 15: empty"
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith("Square 1: ")
    page.close()


_MACHINE = re.compile(r"plays (\d+) (\d+) for White|jumps for White from (\d+) to ([\d, then]+), taking")
_OVER = re.compile(r"\b(wins|drawn)\b")


def _typed(move: Move) -> str:
    return "x".join(map(str, move.path)) if move.captures else f"{move.start}-{move.end}"


def _ask_position(page: Any, count: int) -> tuple[list[str], list[str], int]:
    """Press "Say the position" from the keyboard and listen until the reading is whole:
    (everything heard, the reading from "The position." to "... to move.", the count)."""
    page.get_by_role("button", name="Say the position").focus()
    page.keyboard.press("Enter")
    new: list[str] = []
    for _ in range(2400):
        more, count = heard(page, count)
        new += more
        if "The position." in new:
            start = len(new) - 1 - new[::-1].index("The position.")
            ends = [i for i in range(start, len(new)) if new[i].endswith(" to move.")]
            if ends:
                return new, new[start : ends[0] + 1], count
        page.wait_for_timeout(50)
    raise AssertionError(f"the position was never read out: {new}")


def test_a_blind_player_plays_a_whole_game_with_the_keyboard_and_the_live_region(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    count = 0
    since_move: list[str] = []  # what was said since the player's last move
    log: list[str] = []
    for _turn in range(80):
        new, reading, count = _ask_position(page, count)
        since_move += new
        log += new
        if any(_OVER.search(t) for t in since_move):
            break
        position = position_heard(reading)
        machine = [m for t in since_move if (m := _MACHINE.search(t))]
        if position.turn is Color.WHITE and machine:
            m = machine[-1]  # the machine's move, to make on the board
            text = (
                f"{m.group(1)}-{m.group(2)}" if m.group(1) else "x".join([m.group(3), *re.findall(r"\d+", m.group(4))])
            )
        elif position.turn is Color.BLACK:
            moves = position.legal_moves(WCDF)
            assert moves, reading
            text = _typed(max(moves, key=lambda mv: (len(mv.captures), mv.end)))
        else:
            page.wait_for_timeout(200)
            continue  # the machine is still thinking
        log.append(f"> {text}")
        since_move = []
        type_move(page, text)
        wait_heard(page, count)
    else:
        pytest.fail("no result was said: " + "\n".join(log[-40:]))
    assert live.app.tracker.game.is_over, log
    assert len([line for line in log if line.startswith("> ")]) >= 4, log
