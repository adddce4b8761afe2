"""The board's web page in a real browser (Debian's chromium through Playwright).

One browser for the module; each test starts a live board (the app on the simulated
board in real time, served on 127.0.0.1) and opens pages on it. Skipped, saying why,
when no chromium is installed.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from helpers.web import LiveBoard, Socket

pytest.importorskip("websockets")

WAIT_MS = 120_000  # a bound on a failure only: chromium on a very busy machine


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveBoard]:
    with LiveBoard(tmp_path) as board:
        yield board


def open_page(browser: Any, board: LiveBoard) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(board.url)
    page.wait_for_selector('#connection[data-state="live"]')
    page.wait_for_function("() => window.crownhead && window.crownhead.view !== null")
    return page


def click(page: Any, square: int) -> None:
    page.click(f'#board [data-square="{square}"]')


def wait_moves(page: Any, n: int) -> list[str]:
    """The move list once it holds ``n`` plies: each ply's PDN, in order."""
    page.wait_for_function(f"() => document.querySelectorAll('#moves [data-ply]').length === {n}")
    return page.locator("#moves [data-ply]").all_text_contents()


def submit_new_game(page: Any) -> None:
    """Submit the new-game form and wait until the board has taken all it sends: the mode,
    the rules, ``new`` and the names go one at a time, and the form closes after the last.
    (A piece lifted as soon as the mode showed was lifted before ``new``, which then began
    a game with that man in hand: the board asked for it back, and the test waited for
    ever for a move, on a busy machine.)"""
    page.click("#new-form button[type=submit]")
    page.wait_for_function("() => !document.querySelector('#new-game').open")


def wait_hand(page: Any, text: str) -> None:
    """The hand shows ``text`` (taken pieces go beside the board, not into the hand)."""
    page.wait_for_function("(t) => document.querySelector('#hand').textContent === t", arg=text)


def test_the_page_shows_24_pieces_at_the_start(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    board = page.locator("#board")
    assert board.locator("[data-square]").count() == 32
    assert board.locator('[data-piece="b"]').count() == 12
    assert board.locator('[data-piece="w"]').count() == 12
    assert page.locator("[data-piece]").count() == 24
    assert page.locator("#status").text_content() == "Black to move, move 1"
    assert page.locator("#moves [data-ply]").count() == 0
    # Flipped: White's side at the top, the same pieces.
    page.click("#flip")
    page.wait_for_function("() => document.querySelector('#board svg').getAttribute('data-flipped') === 'true'")
    assert page.locator("#board [data-piece]").count() == 24
    # Square 32 (g1, bottom right for Black) is now at the top left: b8 seen from White.
    assert page.locator('#board [data-square="32"]').get_attribute("transform") == "translate(100,0)"
    # A 360 px wide phone: the board fills the width, nothing runs off the side.
    page.set_viewport_size({"width": 360, "height": 740})
    page.wait_for_function("() => document.documentElement.scrollWidth <= 360")
    width = page.evaluate("() => document.querySelector('#board svg').getBoundingClientRect().width")
    assert 300 <= width <= 360
    page.close()


def test_the_clocks_are_written_by_the_shared_board_script(browser: Any, live: LiveBoard) -> None:
    # board.js writes the clocks for the board's page and the hall's alike.
    page = open_page(browser, live)
    cases = {
        0: "0:00",
        61_000: "1:01",
        3_599_999: "59:59",
        3_600_000: "1:00:00",
        3_723_000: "1:02:03",
        -7_500: "-0:07",
        None: "",
    }
    shown = page.evaluate("(ms) => ms.map((m) => CrownheadBoard.formatClock(m))", list(cases))
    assert shown == list(cases.values())
    page.close()


def test_a_two_player_game_by_clicking_with_a_double_jump_and_a_crowning(browser: Any, tmp_path: Path) -> None:
    from crownhead.rules import Position

    start = Position.from_fen("B:W18,27,30:B1,14")
    pieces = {s: p.symbol for s, p in start.pieces().items()}
    with LiveBoard(tmp_path, board=pieces, settings=AppSettings(auto_crown=True, start=start)) as live:
        page = open_page(browser, live)
        assert page.locator("#board [data-piece]").count() == 5
        # Black: 14x23x32, jumping 18 and 27, and crowned on 32.
        click(page, 14)
        wait_hand(page, "in hand: black man")
        page.wait_for_selector('#board [data-square="14"][data-role="touched"]')
        click(page, 23)
        wait_hand(page, "")
        click(page, 23)
        wait_hand(page, "in hand: black man")
        click(page, 32)
        wait_hand(page, "")
        click(page, 18)
        click(page, 27)
        assert wait_moves(page, 1) == ["14x32"]
        page.wait_for_selector('#board [data-square="32"] [data-piece="B"]')
        assert page.locator('#board [data-square="18"] [data-piece]').count() == 0
        assert page.locator('#board [data-square="27"] [data-piece]').count() == 0
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('White to move')")
        # White: 30-26; Black's new king: 32-27.
        click(page, 30)
        wait_hand(page, "in hand: white man")
        click(page, 26)
        assert wait_moves(page, 2) == ["14x32", "30-26"]
        click(page, 32)
        wait_hand(page, "in hand: black king")
        click(page, 27)
        assert wait_moves(page, 3) == ["14x32", "30-26", "32-27"]
        page.wait_for_selector('#board [data-square="27"] [data-piece="B"]')
        assert live.state()["state"]["fen"] == "W:W26:B1,K27"
        page.close()


def test_a_computer_game_started_from_the_page(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    page.click("#new-game summary")
    page.select_option("#new-mode", "computer")
    page.select_option("#new-computer-side", "white")
    page.fill("#new-level", "1")
    submit_new_game(page)
    page.wait_for_function("() => document.querySelector('#mode').textContent.startsWith('Computer plays White')")
    click(page, 11)
    wait_hand(page, "in hand: black man")
    click(page, 15)
    wait_moves(page, 1)
    # The machine's move is lit; the simulated hands make it.
    page.wait_for_selector('#log [data-kind="computer-move"]')
    page.wait_for_function("() => document.querySelector('#prompt').textContent.includes('make it on the board')")
    page.click("#follow")
    moves = wait_moves(page, 2)
    assert moves[0] == "11-15"
    assert live.state()["state"]["ply"] == 2
    page.close()


def test_a_referee_game_with_a_clock_started_from_the_page_shows_a_caution(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    page.click("#new-game summary")
    page.select_option("#new-mode", "referee")
    page.fill("#new-clock", "300+5")
    page.fill("#new-event", "Club Open")
    page.fill("#new-black", "Ann")
    page.fill("#new-white", "Bo")
    submit_new_game(page)
    page.wait_for_function("() => document.querySelector('#mode').textContent.startsWith('Referee')")
    page.wait_for_function(
        "() => /^[0-9]+:[0-9][0-9]$/.test(document.querySelector('[data-clock=\"black\"]').textContent)"
    )
    assert page.locator('[data-clock="white"]').text_content() == "5:00"
    page.wait_for_function("() => document.querySelector('.name[data-side=\"black\"]').textContent === 'Ann'")
    # Black's time starts with Black's first lift. 11-18 is no move: the referee cautions Black.
    assert page.locator('[data-clock="black"].running').count() == 0
    click(page, 11)
    wait_hand(page, "in hand: black man")
    page.wait_for_selector('[data-clock="black"].running')
    # Black's clock ticks on the page.
    first = page.locator('[data-clock="black"]').text_content()
    page.wait_for_function("(t) => document.querySelector('[data-clock=\"black\"]').textContent !== t", arg=first)
    # The arbiter's clock button pauses it, and again resumes it.
    page.click('[data-press="clock"]')
    page.wait_for_selector('[data-clock="black"].paused')
    page.click('[data-press="clock"]')
    page.wait_for_selector('[data-clock="black"].running')
    click(page, 18)
    page.wait_for_selector('#log [data-kind="caution"]')
    page.wait_for_function("() => document.querySelector('[data-cautions=\"black\"]').textContent === '1 caution'")
    assert "11" in page.locator("#warning").text_content()
    page.close()


def test_resume_shows_the_colours_to_set_up(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path) as first:
        with Socket(first.ws_url) as ws:
            ws.next()
            for move in ("11-15", "22-18"):
                assert ws.command(f"hands {move}")["ok"]
                ws.until(lambda m: m.get("event") == "move" and m["move"] == move)
    # The board restarts with the pieces back at the start: the saved game must be set up.
    with LiveBoard(tmp_path) as second:
        page = open_page(browser, second)
        page.wait_for_selector("#setup:not([hidden])")
        setup = page.locator("#setup").text_content()
        assert "Black men: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15" in setup
        assert "White men: 18, 21, 23," in setup
        assert "Still wrong: 11, 15, 18, 22." in setup
        assert page.locator('#board [data-square="15"] .ghost[data-want="b"]').count() == 1
        assert page.locator('#board [data-square="11"] .ghost[data-want="."]').count() == 1
        assert page.locator('#board [data-role="missing"]').count() == 2
        assert page.locator("#status").text_content().startswith("Resuming a game")
        page.click("#follow")
        page.wait_for_selector("#setup[hidden]", state="attached")
        assert wait_moves(page, 2) == ["11-15", "22-18"]
        page.close()


def test_ten_pages_all_follow(browser: Any, live: LiveBoard) -> None:
    pages = [open_page(browser, live) for _ in range(10)]
    with Socket(live.ws_url) as ws:
        ws.next()
        assert ws.command("hands 11-15")["ok"]
        for page in pages:
            page.bring_to_front()  # chromium draws the front page only: a wait behind waits on frames
            assert wait_moves(page, 1) == ["11-15"]
            page.wait_for_selector('#board [data-square="15"] [data-piece="b"]')
            assert page.locator('#board [data-square="11"] [data-piece]').count() == 0
        assert live.server.hub.pages == 11
    for page in pages:
        page.close()


def test_names_with_markup_are_shown_as_text(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    black, white = "<script>window.pwned=1</script>", "<img src=x onerror=window.pwned=2>"
    with Socket(live.ws_url) as ws:
        ws.next()
        assert ws.command(f"names {black};{white}")["ok"]
    page.wait_for_function("(n) => document.querySelector('.name[data-side=\"black\"]').textContent === n", arg=black)
    assert page.locator('.name[data-side="white"]').text_content() == white
    assert page.locator(".name img, .name script").count() == 0
    assert page.evaluate("() => window.pwned === undefined")
    page.close()


def test_login_with_the_pin_in_the_page(browser: Any, tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="2468") as live:
        page = open_page(browser, live)
        assert page.locator("#login").is_visible()
        assert page.evaluate("() => document.body.classList.contains('read-only')")
        page.fill("#pin", "1111")
        page.click("#login button")
        page.wait_for_function("() => document.querySelector('#login-message').textContent === 'wrong PIN'")
        page.evaluate("() => { window.socketBeforeLogin = window.crownhead.socket; }")
        page.fill("#pin", "2468")
        page.click("#login button")
        page.wait_for_function("() => !document.body.classList.contains('read-only')")
        # The page reconnects with its session: a click goes over the new socket only.
        page.wait_for_function(
            "() => { const s = window.crownhead.socket;"
            " return s !== null && s !== window.socketBeforeLogin && s.readyState === WebSocket.OPEN; }"
        )
        page.wait_for_selector('#connection[data-state="live"]')
        click(page, 11)
        wait_hand(page, "in hand: black man")
        page.close()


class _Other(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the library's name
        body = b"<!doctype html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_page_of_another_site_cannot_open_the_socket(browser: Any, live: LiveBoard) -> None:
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Other)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        outcome = page.evaluate(
            """(url) => new Promise((done) => {
                const ws = new WebSocket(url);
                ws.onopen = () => done("opened");
                ws.onerror = () => done("refused");
            })""",
            live.ws_url,
        )
        assert outcome == "refused"
        page.close()
    finally:
        other.shutdown()
        other.server_close()


def test_resign_from_the_page_asks_first(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click('[data-resign="black"]')
    page.wait_for_timeout(300)
    assert live.state()["state"]["result"] is None  # not confirmed: nothing happened
    page.once("dialog", lambda dialog: dialog.accept())
    page.click('[data-resign="black"]')
    page.wait_for_function("() => document.querySelector('#result').textContent.includes('0-1')")
    assert live.state()["state"]["result"] == "0-1"
    page.close()


def test_games_tab_lists_and_replays(browser: Any, live: LiveBoard) -> None:
    with Socket(live.ws_url) as ws:
        ws.next()
        assert ws.command("names <i>Ann</i>;Bo")["ok"]
        for move in ("11-15", "23-19"):
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == move)
        assert ws.command("result 1/2-1/2 agreement")["ok"]
        ws.until(lambda m: m.get("event") == "game-saved")
    page = open_page(browser, live)
    page.click('nav a[data-tab="games"]')
    row = page.locator("#games-table tbody tr").first
    row.wait_for()
    assert row.locator("td").nth(1).text_content() == "<i>Ann</i>"
    assert page.locator("#games-table i").count() == 0
    assert row.locator('a[href$=".pdn"]').count() == 1 and row.locator('a[href$=".pdf"]').count() == 1
    row.locator("button").click()
    page.wait_for_selector("#replay:not([hidden])")
    # Where the replay stands, numbered by move as the move list is (not "2 / 2" plies).
    assert page.locator("#replay-ply").text_content() == "after 1... 23-19"
    assert page.locator('#replay-board [data-square="19"] [data-piece="w"]').count() == 1
    page.click("#replay-first")
    assert page.locator("#replay-ply").text_content() == "the start"
    assert page.locator("#replay-board [data-piece]").count() == 24
    assert page.locator('#replay-board [data-square="11"] [data-piece="b"]').count() == 1
    page.click('nav a[data-tab="status-page"]')
    page.wait_for_function("() => document.querySelector('#status-list').textContent.includes('sim')")
    page.close()


def test_a_draw_offered_by_one_side_and_accepted_by_the_other(browser: Any, live: LiveBoard) -> None:
    page = open_page(browser, live)
    page.wait_for_function("() => window.crownhead.commands.size > 0")  # the board's commands known
    page.click('[data-draw="black"]')
    page.wait_for_selector('#log [data-kind="draw-offer"]')
    assert live.state()["state"]["result"] is None
    page.click('[data-draw="white"]')
    page.wait_for_function("() => document.querySelector('#result').textContent.includes('1/2-1/2')")
    assert live.state()["state"]["result"] == "1/2-1/2"
    page.close()


def test_the_status_page_shows_the_last_selftest(browser: Any, live: LiveBoard, tmp_path: Path) -> None:
    from crownhead.firmware.cli import main
    from crownhead.firmware.storage.selftest import SELFTEST_FILE

    page = open_page(browser, live)
    page.click('nav a[data-tab="status-page"]')
    page.wait_for_function("() => document.querySelector('#selftest').textContent === 'never run'")
    assert main(["selftest", "--hal", "sim", "--sim-stuck", "12", "--no-leds", "--state-dir", str(tmp_path)]) == 1
    page.click('nav a[data-tab="board"]')
    page.click('nav a[data-tab="status-page"]')
    page.wait_for_function("() => document.querySelector('#selftest').getAttribute('data-state') === 'failed'")
    summary = page.locator("#selftest").text_content()
    assert summary.startswith("failed, 20") and summary.endswith("UTC (sim): 1 fault")
    lines = page.locator("#selftest-lines > li").all_text_contents()
    assert "FAULTS (1):" in lines and any("square 12" in line for line in lines)
    (tmp_path / SELFTEST_FILE).write_bytes(b"\x00garbage")
    page.click('nav a[data-tab="board"]')
    page.click('nav a[data-tab="status-page"]')
    page.wait_for_function("() => document.querySelector('#selftest').getAttribute('data-state') === 'unreadable'")
    assert page.locator("#selftest-lines > li").count() == 0
    assert "sim" in page.locator("#status-list").text_content()  # the rest of the status still shows
    page.close()


def test_a_script_that_arrives_late_still_hears_the_board_greet_the_page(browser: Any, live: LiveBoard) -> None:
    """The socket opens once every script of the page has run: far.js held back a second
    (a slow board serving it) still hears the board's greeting, after which it asks for
    the games far apart. (The socket opened as soon as the login check came back, and a
    greeting that came before far.js had run was heard by nobody: on a busy board the
    page never showed "Join a game".)"""
    import time

    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)

    def slow(route: Any) -> None:
        time.sleep(1.0)  # the script's bytes late, as from a busy board: not a wait for a state
        route.continue_()

    page.route("**/static/far.js", slow)
    try:
        page.goto(live.url)
        page.wait_for_selector('#connection[data-state="live"]')
        page.wait_for_function("() => window.crownhead.far && window.crownhead.far.greeted", timeout=20_000)
    finally:
        page.unroute("**/static/far.js")
        page.close()
