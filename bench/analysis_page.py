"""How soon the board's page shows the engine's analysis of the position a move on the
board left, against how soon it shows the move itself, in one run.

    .venv/bin/python bench/analysis_page.py              # about 30 s; needs Debian's chromium
    .venv/bin/python bench/analysis_page.py --moves 40 --apart 0.2

The issue's figure: the page's analysis changes within a second of a move on the board.
A live board on the simulator (the analysis at its default budget, 2,000,000 positions a
position, so that it is still searching the old position when each move comes and must
be cancelled) serves its page to chromium; random legal moves (seeded) are made by the
simulated hands (the link's ``hands``, as the page's own moves on a simulated board are)
one every ``--apart`` seconds. For each move, from the moment the board accepted it (the
``t`` of its ``move`` event, the board's clock, turned into the wall clock's time): when
the page has the move in its move list, and when it shows an analysis of the new position
(searched to some depth, with its best line). The browser stamps each with ``Date.now()``
as it shows it, the same clock as ``time.time()`` here: no polling is in the figure.

Printed: the median, the 90th percentile and the slowest of each, and the analysis's
over the move's (the move is the baseline: what the page's socket costs anyway).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers.web import CHROMIUM_FLAGS, LiveBoard, Socket, chromium_path  # noqa: E402

#: What the page records: when each position's analysis and each ply's move were shown.
RECORDER = """() => {
  window.benchShown = { analysis: {}, moves: {} };
  window.addEventListener('crownhead:line', (ev) => {
    const m = ev.detail, now = Date.now();
    if (m.event === 'analysis' && m.analysis && m.analysis.depth >= 1 && m.analysis.line.length
        && !(m.analysis.fen in window.benchShown.analysis)) window.benchShown.analysis[m.analysis.fen] = now;
    if (m.event === 'move' && !(m.ply in window.benchShown.moves)) window.benchShown.moves[m.ply] = now;
  });
}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    from playwright.sync_api import sync_playwright

    from crownhead.firmware.app.settings import AppSettings
    from crownhead.rules import WCDF, Game
    from crownhead.rules.pdn import move_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=30, help="moves to make (default 30)")
    parser.add_argument("--apart", type=float, default=0.5, help="seconds between moves (default 0.5)")
    parser.add_argument("--seed", type=int, default=1, help="the random moves' seed")
    args = parser.parse_args()
    path = chromium_path()
    if path is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    game = Game(None, WCDF)
    moves: list[str] = []
    fens: list[str] = []
    while len(moves) < args.moves and not game.is_over:
        position = game.position
        move = rng.choice(game.legal_moves())
        moves.append(move_text(position, move, game.rules))
        game.play(move)
        fens.append(game.position.fen())
    made: list[float] = []
    with tempfile.TemporaryDirectory() as state, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        with LiveBoard(Path(state), settings=AppSettings(auto_crown=True)) as board:
            page = browser.new_page()
            page.set_default_timeout(120_000)
            page.goto(board.url)
            page.wait_for_selector('#connection[data-state="live"]')
            page.evaluate(RECORDER)
            page.check("#analysis-on")
            page.wait_for_function("() => Number(document.querySelector('#analysis').dataset.depth) >= 1")
            # The board's clock (its events' t) against the wall clock the browser stamps with.
            offset = time.time() * 1000 - board.clock.now_ms()
            with Socket(board.ws_url) as ws:
                ws.next()
                for ply, move in enumerate(moves, 1):
                    ws.send(f"hands {move}")
                    made.append(ws.until(lambda m, ply=ply: m.get("event") == "move" and m["ply"] == ply)["t"] + offset)
                    time.sleep(args.apart)
            page.wait_for_function("(n) => Object.keys(window.benchShown.moves).length >= n", arg=len(moves))
            shown = page.evaluate("() => window.benchShown")
            page.close()
        browser.close()
    move_ms = [shown["moves"][str(ply)] - made[ply - 1] for ply in range(1, len(moves) + 1)]
    analysis_ms = [shown["analysis"][fen] - made[i] for i, fen in enumerate(fens) if fen in shown["analysis"]]
    missed = len(fens) - len(analysis_ms)
    print(f"{len(moves)} moves, {args.apart} s apart, the analysis at 2,000,000 positions a position")
    print(f"{'from the move on the board to the page showing':44s} {'median':>8s} {'p90':>8s} {'slowest':>8s}")
    for name, values in (("the move (the baseline)", move_ms), ("the analysis of the new position", analysis_ms)):
        print(f"  {name:42s} {statistics.median(values):7.0f}ms {percentile(values, 0.9):7.0f}ms {max(values):7.0f}ms")
    ratio = statistics.median(analysis_ms) / max(1.0, statistics.median(move_ms))
    print(f"analysis / move, medians: {ratio:.2f}x; positions never shown analysed (a move came first): {missed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
