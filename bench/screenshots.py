"""Not a benchmark: the board page's screenshots in docs/screenshots, made again.

    .venv/bin/python bench/screenshots.py          # about 15 s; needs Debian's chromium

The board, games and status tabs at 390x844 (a phone) and 1280x800 (a laptop), in
Debian's chromium through Playwright, of a live board on the simulator: a finished game
kept under Games, a second one under way with a piece in hand and its targets lit. Each
picture is written as a small palette PNG (docs/web.md shows them).
"""

from __future__ import annotations

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


def main() -> int:
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
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
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
