"""The board's page as a newcomer meets it (issue 33, and the move list of issue 32), in a
real browser: Debian's chromium through Playwright, one browser for the module.

Each test follows one path a person takes (a phone opening the Games tab, a game played
by clicks, logging in, a referee game, a new game while a saved one waits) and checks
every defect that path showed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.web import LiveBoard, Socket, request

pytest.importorskip("websockets")

WAIT_MS = 120_000  # a bound on a failure only: chromium on a very busy machine


def open_page(browser: Any, board: LiveBoard, *, live: bool = True) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(board.url)
    page.wait_for_selector('#connection[data-state="live"]')
    page.wait_for_function("() => window.crownhead && window.crownhead.view !== null")
    return page


def show_tab(page: Any, tab: str) -> None:
    """Taps the tab and waits until the page has shown it: the page switches tabs on the
    ``hashchange`` the tap causes, a task after the click returns (checked at once, the
    old tab was still shown one CI run in many)."""
    page.click(f'nav a[data-tab="{tab}"]')
    page.wait_for_function(
        "tab => document.querySelector('nav a.active')?.getAttribute('data-tab') === tab"
        " && !document.querySelector(`#tab-${tab}`).hidden",
        arg=tab,
    )


def click(page: Any, square: int) -> None:
    page.click(f'#board [data-square="{square}"]')


def hands(board: LiveBoard, *moves: str, pin: str = "") -> None:
    """The simulated hands make ``moves`` (a page of its own, logged in with ``pin``)."""
    headers = {}
    if pin:
        _status, answer, _body = request(
            board.url + "api/login",
            method="POST",
            data=json.dumps({"pin": pin}).encode(),
            headers={"Content-Type": "application/json"},
        )
        headers["Cookie"] = answer["set-cookie"].split(";")[0]
    with Socket(board.ws_url, additional_headers=headers) as ws:
        ws.next()
        for move in moves:
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == move)


def test_on_a_phone_games_and_status_are_tabs_of_their_own(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path) as live:
        with Socket(live.ws_url) as ws:
            ws.next()
            assert ws.command("names Anastasia Kowalczyk-Smith;Benedict Oyelaran-Whitfield")["ok"]
            for move in ("11-15", "23-19"):
                assert ws.command(f"hands {move}")["ok"]
                ws.until(lambda m, move=move: m.get("event") == "move" and m["move"] == move)
            assert ws.command("result 1/2-1/2 agreement")["ok"]
            ws.until(lambda m: m.get("event") == "game-saved")
        page = open_page(browser, live)
        page.set_viewport_size({"width": 390, "height": 844})
        # "#board" is the board's own id too: tapping Board keeps the header and tabs in view.
        show_tab(page, "board")
        assert page.evaluate("() => window.scrollY") == 0
        page.click('nav a[data-tab="games"]')
        row = page.locator("#games-table tbody tr").first
        row.wait_for()
        # The board's tab is hidden, not pushed up above the games (it was 1,400 px down).
        assert not page.locator("#tab-board").is_visible()
        assert page.locator("#games-table").bounding_box()["y"] < 200
        # Every game's links are on the screen, not off its right edge.
        for link in ("a[href$='.pdn']", "a[href$='.pdf']", "button"):
            box = row.locator(link).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, link
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        assert "1 moves" not in row.text_content() and row.locator('[data-col="moves"]').text_content() == "1"
        page.click('nav a[data-tab="status-page"]')
        page.wait_for_function("() => document.querySelector('#status-list').textContent.includes('sim')")
        assert not page.locator("#tab-board").is_visible() and not page.locator("#tab-games").is_visible()
        # No raw configuration dump; every number says what it counts.
        assert page.locator("#tab-status-page pre").count() == 0
        status = page.locator("#status-list").text_content()
        assert '"web"' not in page.locator("#tab-status-page").text_content()
        assert "Errors" not in status and "Commands refused" in status and "not logged in" in status
        show_tab(page, "board")
        assert page.locator("#tab-board").is_visible() and not page.locator("#tab-games").is_visible()

        page.close()


def test_a_game_by_clicks_numbered_per_move_with_nothing_left_in_hand(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path) as live:
        page = open_page(browser, live)
        page.wait_for_function("() => window.crownhead.commands.size > 0")
        hands(live, "11-15", "22-18", "15x22")
        # White takes back by clicks: 25 jumps 22 to 18, the taken man is lifted off.
        for square in (25, 18, 22):
            click(page, square)
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 4")
        hands(live, "8-11")
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 5")
        moves = page.locator("#moves > li").all_text_contents()
        assert [" ".join(m.split()) for m in moves] == ["1. 11-15 22-18", "2. 15x22 25x18", "3. 8-11"]
        # The taken man went beside the board, not into the hand.
        page.wait_for_function("() => document.querySelector('#hand').textContent === ''")
        assert live.app.sim is not None and live.app.sim.hand == []
        # The events are numbered per move once, by the page, never also by the list.
        log = page.locator('#log [data-kind="move"]').all_text_contents()
        assert log[::-1][:4] == ["1. Black 11-15", "1... White 22-18", "2. Black 15x22", "2... White 25x18"]
        assert log[0] == "3. Black 8-11"
        markers = page.evaluate(
            "() => [...document.querySelectorAll('#log li, #moves li')].map((li) => getComputedStyle(li).listStyleType)"
        )
        assert set(markers) == {"none"}
        # A claim that does not hold says why, on the page (the board's own words).
        page.click('[data-press="claim"]')
        page.wait_for_selector('#log [data-kind="claim"]')
        assert page.locator('#log [data-kind="reply"]').first.text_content() == "pressed the claim button"
        page.wait_for_function(
            "() => document.querySelector('#message').textContent.startsWith('White claims a draw: refused')"
        )
        assert "of the 80 plies" in page.locator("#message").text_content()
        page.close()


def test_a_click_before_logging_in_is_no_selection_and_says_how_to_log_in(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="2468") as live:
        page = open_page(browser, live)
        assert page.locator("#login").is_visible()
        assert "display" in page.locator("#pin-help").text_content()  # where the PIN is
        # A spectator's page gets the move list, not an error for asking.
        hands(live, "11-15", pin="2468")
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 1")
        click(page, 22)
        page.wait_for_function("() => document.querySelector('#page-message').textContent.includes('Log in')")
        assert page.evaluate("() => window.crownhead.selected") is None
        assert page.locator('#log [data-kind="error"]').count() == 0
        page.fill("#pin", "2468")
        page.click("#login button")
        page.wait_for_function("() => !document.body.classList.contains('read-only')")
        page.wait_for_function(
            "() => { const s = window.crownhead.socket; return s && s.readyState === WebSocket.OPEN; }"
        )
        page.wait_for_selector('#connection[data-state="live"]')
        assert page.locator("#page-message").text_content() == ""
        # An empty square clicked with an empty hand: nothing is put down there.
        click(page, 17)
        page.wait_for_selector('#log [data-kind="error"]')
        assert "no piece in the hand" in page.locator('#log [data-kind="error"]').first.text_content()
        assert (
            live.state()["state"]["fen"].count("17") == 0 and live.app.sim is not None and 17 not in live.app.sim.pieces
        )
        # The first click after logging in lifts, the next puts down: a move.
        click(page, 22)
        page.wait_for_function("() => document.querySelector('#hand').textContent === 'in hand: white man'")
        click(page, 18)
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 2")
        page.close()


def test_a_page_that_may_not_watch_says_to_log_in_not_offline(browser: Any, tmp_path: Path) -> None:
    # On a network address without public_view, watching needs the PIN too: the socket is
    # refused until then, which the page said as "offline: reconnecting", knocking forever.
    with LiveBoard(tmp_path, host="0.0.0.0", pin="24682468") as live:
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(f"http://127.0.0.1:{live.server.port}/")
        page.wait_for_selector('#connection[data-state="login"]')
        assert page.locator("#connection").text_content() == "log in to watch"
        assert page.locator("#login").is_visible()
        assert page.locator("#pin-help").text_content().startswith("To watch the board and play from here")
        page.wait_for_timeout(1500)  # the page knocked every 0.5-1 s
        assert sockets == [] and page.locator("#connection").get_attribute("data-state") == "login"
        page.fill("#pin", "24682468")
        page.click("#login button")
        page.wait_for_selector('#connection[data-state="live"]')
        page.wait_for_function("() => document.querySelector('#status').textContent === 'Black to move, move 1'")
        assert len(sockets) == 1
        page.close()


def test_a_referee_game_shows_only_the_buttons_that_act(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path) as live:
        page = open_page(browser, live)
        for press in ("hint", "takeback", "adjust", "claim"):
            assert page.locator(f'[data-press="{press}"]').is_visible(), press
        assert not page.locator('[data-press="force"]').is_visible()  # no huffing
        assert not page.locator('[data-press="clock"]').is_visible()  # no clock
        page.click("#new-game summary")
        page.select_option("#new-mode", "referee")
        page.fill("#new-clock", "300+5")
        page.click("#new-form button[type=submit]")
        # Everything the form sends taken (it closes after the last): the hands below
        # move only once the new game has begun.
        page.wait_for_function("() => !document.querySelector('#new-game').open")
        page.wait_for_function("() => document.querySelector('#mode').textContent.startsWith('Referee')")
        page.wait_for_selector('[data-press="hint"]', state="hidden")
        page.wait_for_selector('[data-press="clock"]', state="visible")  # the referee's clock
        for press in ("hint", "takeback", "force"):
            assert not page.locator(f'[data-press="{press}"]').is_visible(), press
        assert not page.locator("#hints").is_visible()  # no hint lights under a referee
        for press in ("adjust", "claim", "clock"):
            assert page.locator(f'[data-press="{press}"]').is_visible(), press
        hands(live, "11-15", "23-19")
        page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 2")
        page.wait_for_selector('#log [data-kind="move"]')
        texts = page.locator("#log li").all_text_contents()
        assert texts and not any(t.strip() == "clock" or t.startswith("clock") for t in texts), texts
        page.close()


def test_new_game_while_a_saved_game_waits_asks_first_and_then_starts_it(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path) as first:
        hands(first, "11-15", "22-18")
    with LiveBoard(tmp_path) as live:  # restarted: the saved game waits to be set up
        page = open_page(browser, live)
        page.wait_for_selector("#setup:not([hidden])")
        # Players the board does not know are named by their side, not by a "?".
        assert [" ".join(page.locator(f"#player-{p}").text_content().split()) for p in ("top", "bottom")] == [
            "Black",
            "White",
        ]
        page.click("#new-game summary")
        page.fill("#new-black", "Ana")
        page.fill("#new-white", "Ben")
        asked: list[str] = []

        def answer(dialog: Any, accept: bool) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        page.once("dialog", lambda d: answer(d, False))
        page.click("#new-form button[type=submit]")
        page.wait_for_function("() => !document.querySelector('#new-form button[type=submit]').disabled")
        page.wait_for_timeout(300)
        assert asked and "saved game" in asked[0]
        # Not confirmed: nothing changed, the saved game keeps its players.
        state = live.state()
        assert (state["black"], state["white"]) == ("?", "?") and live.app.resuming
        page.once("dialog", lambda d: answer(d, True))
        page.click("#new-form button[type=submit]")
        page.wait_for_function("() => document.querySelector('.name[data-side=\"black\"]').textContent === 'Ana'")
        page.wait_for_function("() => document.querySelector('#status').textContent === 'Black to move, move 1'")
        state = live.state()
        assert state["state"]["ply"] == 0 and (state["black"], state["white"]) == ("Ana", "Ben")
        assert not live.app.resuming and page.locator("#new-message").text_content() == ""
        # Each name (and clock, and cautions) beside its own side's men: Black's start on
        # 1-12 at the top, White's at the bottom; flipped, the other way round.
        for flipped in (False, True):
            board_box = page.locator("#board").bounding_box()
            top_row = (
                page.locator('#board [data-square="1"]').bounding_box()["y"] < board_box["y"] + board_box["height"] / 2
            )
            ana = page.locator('.player:has(.name[data-side="black"])').bounding_box()
            ben = page.locator('.player:has(.name[data-side="white"])').bounding_box()
            assert top_row is not flipped
            assert (ana["y"] < board_box["y"] < ben["y"]) is not flipped, (flipped, ana, ben, board_box)
            assert (ben["y"] < board_box["y"] < ana["y"]) is flipped, (flipped, ana, ben, board_box)
            page.click("#flip")
        # The saved game was put away under its own players, with its moves.
        page.click('nav a[data-tab="games"]')
        row = page.locator("#games-table tbody tr").first
        row.wait_for()
        assert [row.locator(f'[data-col="{c}"]').text_content() for c in ("black", "white", "result", "moves")] == [
            "?",
            "?",
            "*",
            "1",
        ]
        page.close()
