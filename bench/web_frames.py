"""The owner's page under a WebSocket frame flood from spectators' pages (issue 40, item 19).

    .venv/bin/python bench/web_frames.py                  # about 40 s
    .venv/bin/python bench/web_frames.py --seconds 10 --pages 10

The board's page served on 0.0.0.0 with a PIN and ``public_view``; the logged-in owner's
page (a plain WebSocket client) makes moves with the simulated board's hands and asks
``/api/state`` between them, while ``--pages`` spectators' pages from other loopback
addresses (127.0.0.2, ...) write tiny WebSocket frames as fast as their sockets take
them, each opened again as soon as the board closes it. Three phases in one run, each
``--seconds`` long: no flood (the baseline), the flood against the page as shipped
(``Limits()``: each WebSocket's bytes and frames within its budget before parsing), and
the flood against the page with those budgets lifted (every frame parsed as it comes,
as before). Printed: for each phase, median / p95 / max and each as a ratio to the
baseline, of the time from the app emitting a move's event to the owner's page having
it (``move``), of the owner's command round trip (``moves``, the legal moves, asked
before each move) and of ``/api/state``.
Loopback only; every loop is bounded in time and stops by itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from crownhead.firmware.events import Event, MoveMade  # noqa: E402
from crownhead.firmware.pages.serving import Limits  # noqa: E402
from helpers.attack import FrameFlood, addresses  # noqa: E402
from helpers.web import LiveBoard, Socket  # noqa: E402

PIN = "24682468"
#: The page with the frame budgets lifted: every frame parsed as it arrives.
UNBOUNDED = Limits(ws_bytes_s=1 << 40, ws_frames_s=1 << 40, ws_chunk=1 << 30, ws_backlog=1 << 40)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def flooding(port: int, source: str, until: float, opened: list[int]) -> None:
    """One spectator's page: flood, and open again when closed, until ``until``."""
    while (left := until - time.monotonic()) > 0.2:
        flood = FrameFlood(port, source, seconds=left)
        flood.__enter__()
        flood.join()
        opened[0] += 1


def phase(limits: Limits, pages: int, seconds: float) -> dict[str, list[float]]:
    """The owner's move and /api/state times for ``seconds``, ``pages`` flooding (0: none)."""
    with tempfile.TemporaryDirectory() as state:
        board = LiveBoard(Path(state), host="0.0.0.0", pin=PIN, public_view=True, page_rate=8, limits=limits)
        emitted: dict[str, float] = {}

        def note(event: Event) -> None:
            if isinstance(event, MoveMade):
                emitted[f"{event.ply}:{event.move}"] = time.perf_counter()

        board.app.sinks.insert(0, note)
        try:
            port = board.server.port
            login = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/login", data=json.dumps({"pin": PIN}).encode(), method="POST"
            )
            with urllib.request.urlopen(login, timeout=30) as r:
                cookie = r.headers["set-cookie"].split(";")[0]
            end = time.monotonic() + seconds
            opened = [0]
            floods = [
                threading.Thread(target=flooding, args=(port, source, end, opened), daemon=True)
                for source in addresses(pages)
            ]
            for t in floods:
                t.start()
            moves: list[float] = []
            commands: list[float] = []
            states: list[float] = []
            with Socket(f"ws://127.0.0.1:{port}/ws", additional_headers={"Cookie": cookie}) as owner:
                owner.until(lambda m: m.get("event") == "hello", 30)
                while time.monotonic() < end:
                    started = time.perf_counter()
                    legal = owner.command("moves", 30)["moves"]
                    commands.append((time.perf_counter() - started) * 1000)
                    if not legal:
                        assert owner.command("new", 30)["ok"]
                        continue
                    move = legal[0]
                    assert owner.command(f"hands {move}", 30)["ok"]
                    seen = owner.until(lambda m, move=move: m.get("event") == "move" and m.get("move") == move, 30)
                    had = time.perf_counter()
                    at = emitted.get(f"{seen['ply']}:{move}")
                    if at is not None:
                        moves.append((had - at) * 1000)
                    started = time.perf_counter()
                    ask = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"Cookie": cookie})
                    with urllib.request.urlopen(ask, timeout=30) as r:
                        r.read()
                    states.append((time.perf_counter() - started) * 1000)
            for t in floods:
                t.join(timeout=seconds + 30)
            conns = board.server.connections
            assert conns is not None
            return {
                "move": moves,
                "moves": commands,
                "state": states,
                "info": [float(conns.frames), float(conns.cut), float(conns.throttled), float(opened[0])],
            }
        finally:
            board.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=12.0, help="length of each phase (default 12)")
    parser.add_argument("--pages", type=int, default=10, help="spectators' pages flooding (default 10)")
    args = parser.parse_args()
    runs = [
        ("no flood", phase(Limits(), 0, args.seconds)),
        ("flood, as shipped", phase(Limits(), args.pages, args.seconds)),
        ("flood, budgets lifted", phase(UNBOUNDED, args.pages, args.seconds)),
    ]
    base = {key: statistics.median(runs[0][1][key]) for key in ("move", "moves", "state")}
    for name, got in runs:
        frames, cut, throttled, opened = got["info"]
        parts = []
        for key, label in (("move", "move"), ("moves", "moves"), ("state", "/api/state")):
            values = got[key]
            median = statistics.median(values)
            parts.append(
                f"{label} {median:.1f} / {percentile(values, 95):.1f} / {max(values):.1f} ms "
                f"({median / base[key]:.2f}x, p95 {percentile(values, 95) / base[key]:.2f}x)"
            )
        print(
            f"{name}: {len(got['move'])} moves; " + "; ".join(parts) + f"; frames parsed {frames:.0f}, "
            f"flooders cut {cut:.0f}, held {throttled:.0f} times, opened {opened:.0f}"
        )


if __name__ == "__main__":
    main()
