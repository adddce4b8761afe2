"""Not a benchmark: the board page's and the hall page's screenshots in docs/screenshots,
made again.

    .venv/bin/python bench/screenshots.py          # about 20 s; needs Debian's chromium
    .venv/bin/python bench/screenshots.py --only coach   # docs/coach.md's alone

The board, games and status tabs at 390x844 (a phone) and 1280x800 (a laptop), in
Debian's chromium through Playwright, of a live board on the simulator: a finished game
kept under Games, a second one under way with a piece in hand and its targets lit. Then
the hall's page at the same sizes: two boards reporting through the embedded broker (one
game on a clock, opened in the full view; one finished) and a round's standings. Each
picture is written as a small palette PNG (docs/web.md and docs/hall.md show them).
The coach's (docs/coach.md): the page with the engine's live analysis on, at both sizes,
a kept game reviewed in the Games tab, its blunder clicked (the Try again buttons under
it), and a problem of the problem mode set up, its hint lit, after one solved.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from PIL import Image  # noqa: E402

from helpers.web import CHROMIUM_FLAGS, LiveBoard, Socket, chromium_path  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZES = ((390, 844), (1280, 800))
TABS = ("board", "games", "status-page")


def play(board: LiveBoard, moves: tuple[str, ...], *, finish: bool = False, touch: int | None = None) -> None:
    """``moves`` by the simulated hands; ``finish``: agree a draw after them; ``touch``:
    then lift the piece there (its targets lit)."""
    with Socket(board.ws_url) as ws:
        ws.next()
        assert ws.command("names Ana;Ben")["ok"]
        for move in moves:
            assert ws.command(f"hands {move}")["ok"], move
            ws.until(lambda m, move=move: m.get("event") == "move" and m["move"] == move)
        if finish:
            assert ws.command("result 1/2-1/2 agreement")["ok"]
            ws.until(lambda m: m.get("event") == "game-saved")
            assert ws.command("new")["ok"]
            assert ws.command("follow")["ok"]  # the hands set the pieces up
            ws.until(lambda m: m.get("event") == "game-start")
        if touch is not None:
            assert ws.command(f"touch {touch}")["ok"]


def small_png(data: bytes) -> bytes:
    """The screenshot as a 256-colour PNG (a page is flat colour: a fraction of the size)."""
    image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def save(page: object, name: str) -> None:
    (OUT / name).write_bytes(small_png(page.screenshot()))  # type: ignore[attr-defined]
    print(f"{OUT.relative_to(ROOT) / name}: {(OUT / name).stat().st_size // 1024} KB")


#: The game the review shots show: Black gives a man away at 3. 12-16.
GIVEN_AWAY = ("11-15", "23-19", "8-11", "22-17", "12-16", "19x12")
#: The game the analysis shots show, under way: the same man given away, Black to move.
ANALYSED = GIVEN_AWAY


def coach_shots(browser: object) -> None:
    """The page's live analysis at each size (analysis-WxH.png), a review (review-WxH.png),
    and the problem mode (problems-WxH.png)."""
    from crownhead.firmware.app.settings import AppSettings

    with tempfile.TemporaryDirectory() as state, LiveBoard(Path(state), settings=AppSettings(auto_crown=True)) as board:
        with Socket(board.ws_url) as ws:
            ws.next()
            assert ws.command("names Ana;Ben")["ok"]
            for move in GIVEN_AWAY:
                assert ws.command(f"hands {move}")["ok"], move
                ws.until(lambda m, move=move: m.get("event") == "move" and m["move"] == move)
            assert ws.command("result 0-1 resign")["ok"]
            ws.until(lambda m: m.get("event") == "game-saved")
            assert ws.command("new")["ok"]
            assert ws.command("follow")["ok"]
            ws.until(lambda m: m.get("event") == "game-start")
        play(board, ANALYSED)
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
            page.set_default_timeout(180_000)
            page.goto(board.url)
            page.wait_for_selector('#connection[data-state="live"]')
            if not page.locator("#analysis-on").is_checked():
                page.check("#analysis-on")
            page.wait_for_function(
                "() => document.querySelector('#analysis-depth').textContent.startsWith('depth')"
                " && !document.querySelector('#analysis-depth').textContent.includes('deeper')"
            )
            page.locator("#analysis").scroll_into_view_if_needed()
            page.wait_for_timeout(400)  # the bar's transition
            save(page, f"analysis-{width}x{height}.png")
            page.click('nav a[data-tab="games"]')
            page.locator("#games-table tbody tr").last.locator("button").click()
            page.wait_for_selector("#replay:not([hidden])")
            page.click("#replay-review")
            page.wait_for_selector("#replay-moves .mark-blunder")
            page.click("#replay-moves .mark-blunder")
            page.locator("#replay").scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            save(page, f"review-{width}x{height}.png")
            page.close()
    problem_shots(browser)


#: Beginner's Problem #1 solved (White's moves; Black's replies are forced), before the
#: shots of the next one.
SOLVED = ("19-16", "27-23", "31x13", "13x6")


def problem_shots(browser: object) -> None:
    """The problem mode at each size (problems-WxH.png): Beginner's Problem #2 set up and
    its hint lit, after #1 was solved."""
    from crownhead.firmware.app.settings import AppSettings

    with tempfile.TemporaryDirectory() as state, LiveBoard(Path(state), settings=AppSettings(auto_crown=True)) as board:
        with Socket(board.ws_url) as ws:
            ws.next()
            assert ws.command("problem next")["id"] == "beginner-1"
            assert ws.command("follow")["ok"]  # the hands set the pieces up
            ws.until(lambda m: m.get("event") == "game-start")
            for move in SOLVED:
                assert ws.command(f"hands {move}")["ok"], move
                ws.until(lambda m, move=move: m.get("event") == "move" and m["move"] == move)
                if move != SOLVED[-1]:
                    ws.until(lambda m: m.get("event") == "computer-move")
                    assert ws.command("follow")["ok"]
                    ws.until(lambda m: m.get("event") == "move" and m["side"] == "black")
            ws.until(lambda m: m.get("event") == "problem" and m["cause"] == "verdict")
            assert ws.command("problem next")["id"] == "beginner-2"
            assert ws.command("follow")["ok"]
            ws.until(lambda m: m.get("event") == "game-start")
            assert ws.command("press hint")["ok"]
            ws.until(lambda m: m.get("event") == "problem" and m["cause"] == "hint")
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
            page.set_default_timeout(180_000)
            page.goto(board.url)
            page.wait_for_selector('#problems[data-id="beginner-2"]')
            page.wait_for_selector('#board [data-role="hint-from"]')
            page.locator("#problems").scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            save(page, f"problems-{width}x{height}.png")
            page.close()


def main() -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("coach",), help="only the coach's pictures (docs/coach.md)")
    args = parser.parse_args()
    path = chromium_path()
    if path is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    if args.only == "coach":
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
            coach_shots(browser)
            browser.close()
        return 0
    with tempfile.TemporaryDirectory() as state, LiveBoard(Path(state)) as board, sync_playwright() as p:
        # A game kept under Games; the pages open; a game played while they watch.
        play(board, ("11-15", "22-18", "15x22", "25x18", "8-11", "29-25", "4-8", "24-20"), finish=True)
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        pages = []
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(board.url)
            page.wait_for_selector('#connection[data-state="live"]')
            pages.append(page)
        play(board, ("11-15", "23-19", "8-11", "22-17", "9-13"), touch=26)
        for page, (width, height) in zip(pages, SIZES):
            page.wait_for_function("() => document.querySelectorAll('#moves [data-ply]').length === 5")
            page.wait_for_selector('#board [data-role="target"]')
            for tab in TABS:
                page.click(f'nav a[data-tab="{tab}"]')
                if tab == "games":
                    page.locator("#games-table tbody tr").first.wait_for()
                if tab == "status-page":
                    page.wait_for_function("() => document.querySelector('#status-list').textContent.includes('sim')")
                page.wait_for_timeout(300)
                name = f"{tab.split('-')[0]}-{width}x{height}.png"
                (OUT / name).write_bytes(small_png(page.screenshot()))
                print(f"{OUT.relative_to(ROOT) / name}: {(OUT / name).stat().st_size // 1024} KB")
            page.close()
        hall_shots(browser)
        coach_shots(browser)
        browser.close()
    return 0


#: The hall's two boards: a game on a clock (after 1. 11-15 23-19 2. 8-11 22-17) and one
#: finished.
HALL_BOARDS = {
    "table-1": {
        "fen": "B:W17,19,21,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,11,12,15",
        "ply": 4,
        "black": "Ana",
        "white": "Ben",
        "round": "2",
        "moves": ["11-15", "23-19", "8-11", "22-17"],
        "status": "Black to move, move 3",
        "clocks": {"black": 1_712_000, "white": 1_655_000},
    },
    "table-2": {
        "fen": "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,15",
        "ply": 1,
        "black": "Cid",
        "white": "Dee",
        "round": "2",
        "moves": ["11-15"],
        "result": "1-0",
        "reason": "resign",
        "status": "Game over: Black wins (resign)",
        "clocks": None,
    },
}


def hall_shots(browser: object) -> None:
    """The hall page at each size, its first board's full view open (hall-WxH.png)."""
    from crownhead.firmware.events import MoveMade
    from crownhead.firmware.hall.board import BoardPublisher
    from crownhead.firmware.hall.hall import Hall, HallListener, HallServer
    from crownhead.firmware.hall.settings import HallSettings

    from helpers.hallnet import Embedded
    from helpers.net import WAIT_S, wait_for

    broker = Embedded()
    broker.start()
    hall = Hall("club", None, boards=list(HALL_BOARDS))
    listener = HallListener(hall, broker.url("hall"))
    listener.start()
    server = HallServer(hall, "127.0.0.1", 0)
    publishers = []
    try:
        assert listener.subscribed.wait(WAIT_S)
        server.start()
        host, port = server.address
        for round_, black, white, result in (("1", "Ana", "Cid", "1-0"), ("1", "Ben", "Dee", "1/2-1/2")):
            hall.standings.record(
                "t1", {"round": round_, "black": black, "white": white, "result": result, "moves": []}
            )
        for name, state in HALL_BOARDS.items():
            # Kept open while the pictures are taken: the boards are online.
            publisher = BoardPublisher(HallSettings(broker.url(name), "club", name), lambda s=state: s)
            publisher.sink(MoveMade(1, 1, "black", "11-15", (11, 15), ()))
            publisher.poll(0)
            assert publisher.flush(WAIT_S)
            publishers.append(publisher)
        assert wait_for(lambda: sum(1 for b in hall.boards() if b["fen"] and b["online"]) == len(HALL_BOARDS))
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
            page.goto(f"http://{host}:{port}/")
            page.wait_for_selector("#standings tbody tr")
            page.locator("[data-board='table-1']").click()
            page.wait_for_selector("#moves [data-ply]")
            page.wait_for_timeout(300)
            name = f"hall-{width}x{height}.png"
            (OUT / name).write_bytes(small_png(page.screenshot()))
            print(f"{OUT.relative_to(ROOT) / name}: {(OUT / name).stat().st_size // 1024} KB")
            page.close()
    finally:
        for publisher in publishers:
            publisher.close(flush_s=0)
        server.close()
        listener.close()
        hall.close()
        broker.close()


if __name__ == "__main__":
    sys.exit(main())
