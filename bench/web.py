"""The web page's figures: event-to-page latency, the main loop's cost, idle CPU and memory.

    .venv/bin/python bench/web.py                 # about a minute
    .venv/bin/python bench/web.py --only latency  # or: step, idle

* **latency**: 10 pages open in Debian's chromium (through Playwright); moves are made on
  the simulated board; for each move, the time from the app emitting the ``move`` event
  to each page's move list showing it (a MutationObserver in the page notes the time).
  Budget: p95 <= 50 ms here.
* **step**: the CPU time (this thread's) of one main-loop step, the real loop's pace
  (a step every 10 ms), without the web server, then with it, 10 pages connected (plain
  WebSocket clients reading every line) and one of them flooding commands; printed as
  a ratio to the baseline of the same run. Budget: <= 1.2x.
* **idle**: ``crownhead run --headless --hal sim --web`` with one page (chromium)
  connected, left alone for 10 s: its CPU share of one core and its resident memory.
  Budget: <= 2 % of a core; RSS stated (goal: under 80 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from firmware.app.application import App, AppSettings  # noqa: E402
from firmware.app.hardware import open_hardware  # noqa: E402
from firmware.config import default_config  # noqa: E402
from firmware.events import Event, MoveMade  # noqa: E402
from firmware.storage.store import GameStore  # noqa: E402
from hal.clock import MonotonicClock  # noqa: E402
from firmware.web.server import PAGE_RATE  # noqa: E402
from helpers.web import CHROMIUM_FLAGS, LiveBoard, Socket, chromium_path  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# -- latency ---------------------------------------------------------------------------

OBSERVER = """() => {
  window.__seen = [];
  const list = document.querySelector('#moves');
  new MutationObserver(() => {
    const n = list.children.length;
    if (n && !window.__seen.some(s => s[0] === n)) window.__seen.push([n, Date.now()]);
  }).observe(list, {childList: true});
}"""


def latency(moves: int) -> None:
    path = chromium_path()
    if path is None:
        print("latency: skipped, no chromium (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as profile:
        live = LiveBoard(Path(state))
        emitted: dict[int, float] = {}

        def note(event: Event) -> None:
            if isinstance(event, MoveMade):
                emitted[event.ply] = time.time() * 1000

        live.app.sinks.insert(0, note)
        try:
            with sync_playwright() as p:
                context = p.chromium.launch_persistent_context(profile, executable_path=path, headless=True, args=CHROMIUM_FLAGS)
                pages = []
                for _ in range(10):
                    page = context.new_page()
                    page.goto(live.url)
                    page.wait_for_selector('#connection[data-state="live"]')
                    page.evaluate(OBSERVER)
                    pages.append(page)
                rng = random.Random(1)
                with Socket(live.ws_url) as ws:
                    ws.next()
                    for _ in range(moves):
                        legal = ws.command("moves")["moves"]
                        if not legal:
                            break
                        move = rng.choice(legal)
                        assert ws.command(f"hands {move}")["ok"]
                        ws.until(lambda m: m.get("event") == "move")
                    time.sleep(0.5)
                samples = []
                for page in pages:
                    for ply, at in page.evaluate("() => window.__seen"):
                        if ply in emitted:
                            samples.append(at - emitted[ply])
                context.close()
        finally:
            live.close()
    print(f"latency: {len(samples)} samples ({len(emitted)} moves x 10 pages): event to page DOM "
          f"median {statistics.median(samples):.1f} ms, p95 {percentile(samples, 95):.1f} ms, "
          f"max {max(samples):.1f} ms (budget p95 <= 50 ms)")


# -- main-loop step ----------------------------------------------------------------------


def step_costs(app: App, seconds: float) -> list[float]:
    """This thread's CPU microseconds per step, stepping every 10 ms for ``seconds``."""
    costs = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.thread_time_ns()
        app.step()
        costs.append((time.thread_time_ns() - started) / 1000)
        time.sleep(0.01)
    return costs


PAGES = """
import sys, threading
from websockets.sync.client import connect
url = sys.argv[1]
sockets = [connect(url) for _ in range(10)]
def read(ws):
    try:
        while True:
            ws.recv()
    except Exception:
        pass
for ws in sockets:
    threading.Thread(target=read, args=(ws,), daemon=True).start()
print("connected", flush=True)
junk = ["fen", "moves", "view", "castle", "play 99-1", "touch 40", "hello"]
if len(sys.argv) > 2 and sys.argv[2] == "quiet":
    threading.Event().wait()
n = 0
while True:
    sockets[0].send(junk[n % len(junk)])
    n += 1
"""


def step(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as state:
        clock = MonotonicClock()
        app = App(open_hardware(default_config(), clock, hal="sim"), clock=clock,
                  settings=AppSettings(), store=GameStore(Path(state) / "bare"))
        app.start()
        base = step_costs(app, seconds)
        app.close()

        live = LiveBoard(Path(state) / "web", page_rate=PAGE_RATE)
        live._stop.set()  # this thread runs the loop: its steps are the ones measured
        live._thread.join()
        # The pages are another process, as browsers are: 10 sockets reading every line,
        # one of them sending commands as fast as the server takes them.
        pages = subprocess.Popen([sys.executable, "-c", PAGES, live.ws_url], stdout=subprocess.PIPE, text=True)
        assert pages.stdout is not None
        assert pages.stdout.readline().strip() == "connected"
        time.sleep(0.5)
        handled_before = live.link.commands + live.link.errors
        with_web = step_costs(live.app, seconds)
        handled = live.link.commands + live.link.errors - handled_before
        pages.terminate()
        pages.wait(timeout=10)
        live.close()
    b, w = statistics.mean(base), statistics.mean(with_web)
    print(f"step: CPU per main-loop step, mean {b:.1f} us without the web server, {w:.1f} us with it "
          f"(10 pages, one flooding: {handled} commands handled in {seconds:.0f} s) -> {w / b:.2f}x "
          f"(median {statistics.median(base):.1f} -> {statistics.median(with_web):.1f} us; budget 1.2x)")


# -- idle CPU and memory -----------------------------------------------------------------


def idle(seconds: float) -> None:
    base_cpu, base_rss = _idle_run(seconds, web=False)
    cpu, rss, page_note = _idle_run(seconds, web=True)
    print(f"idle: crownhead run --headless --hal sim: {base_cpu:.2f} % of a core, RSS {base_rss:.1f} MB; "
          f"with --web and {page_note}: {cpu:.2f} % of a core, RSS {rss:.1f} MB "
          f"(the page's share {cpu - base_cpu:.2f} % and {rss - base_rss:.1f} MB; budget 2 %, goal RSS < 80 MB)")


def _idle_run(seconds: float, web: bool) -> Any:
    path = chromium_path() if web else None
    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as profile:
        port = 18000 + os.getpid() % 1000
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "run", "--headless", "--hal", "sim", "--state-dir", state]
            + (["--web", f"127.0.0.1:{port}"] if web else []),
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}/"
            deadline = time.monotonic() + 20
            import urllib.request

            while web:
                try:
                    urllib.request.urlopen(url + "api/state", timeout=1).read()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            context = None
            playwright = None
            if path is not None:
                from playwright.sync_api import sync_playwright

                playwright = sync_playwright().start()
                context = playwright.chromium.launch_persistent_context(profile, executable_path=path, headless=True, args=CHROMIUM_FLAGS)
                page = context.new_page()
                page.goto(url)
                page.wait_for_selector('#connection[data-state="live"]')
            time.sleep(2)
            before = _cpu_seconds(proc.pid)
            started = time.monotonic()
            time.sleep(seconds)
            used = _cpu_seconds(proc.pid) - before
            elapsed = time.monotonic() - started
            rss = _rss_mb(proc.pid)
            if context is not None:
                context.close()
            if playwright is not None:
                playwright.stop()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    if not web:
        return 100 * used / elapsed, rss
    page_note = "one page connected" if path is not None else "no page (no chromium)"
    return 100 * used / elapsed, rss, page_note


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("latency", "step", "idle"))
    parser.add_argument("--moves", type=int, default=40, help="moves for the latency run (default 40)")
    parser.add_argument("--seconds", type=float, default=10, help="length of the step and idle runs (default 10)")
    args = parser.parse_args()
    if args.only in (None, "latency"):
        latency(args.moves)
    if args.only in (None, "step"):
        step(args.seconds)
    if args.only in (None, "idle"):
        idle(args.seconds)


if __name__ == "__main__":
    main()
