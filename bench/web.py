"""The web page's figures: event-to-page latency, the main loop's cost, idle CPU and memory.

    .venv/bin/python bench/web.py                 # about a minute
    .venv/bin/python bench/web.py --only latency  # or: step, idle

* **latency**: 10 pages open in Debian's chromium (through Playwright); moves are made on
  the simulated board; for each move, the time from the app emitting the ``move`` event
  to each page's move list showing it (a MutationObserver in the page notes the time).
  Budget: p95 <= 50 ms here.
* **step**: the CPU time (this thread's) of one main-loop step, the real loop's pace
  (a step every 10 ms), without the web server, then with it, 10 pages connected (plain
  WebSocket clients reading every line) and one of them flooding commands, or (the
  third flood) a network attacker holding 1,100 idle and slowloris connections from
  110 addresses and opening each again as soon as the board closes it; printed as a
  ratio to the baseline of the same run. Budget: <= 1.2x.
* **idle**: ``crownhead run --headless --hal sim --web`` with one page (chromium)
  connected, left alone for 10 s: its CPU share of one core and its resident memory.
  Budget: <= 2 % of a core; RSS stated (goal: under 80 MB).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from crownhead.firmware.app.application import App  # noqa: E402
from crownhead.firmware.app.settings import AppSettings  # noqa: E402
from crownhead.firmware.app.hardware import open_hardware  # noqa: E402
from crownhead.firmware.config import default_config  # noqa: E402
from crownhead.firmware.events import Event, MoveMade  # noqa: E402
from crownhead.firmware.storage.store import GameStore  # noqa: E402
from crownhead.hal.clock import MonotonicClock  # noqa: E402
from crownhead.firmware.web.bridge import PageHub, WebLink  # noqa: E402
from crownhead.firmware.web.server import PAGE_RATE, WebServer  # noqa: E402
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

        live.app.add_sink(note, first=True)
        try:
            with sync_playwright() as p:
                context = p.chromium.launch_persistent_context(
                    profile, executable_path=path, headless=True, args=CHROMIUM_FLAGS
                )
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
    print(
        f"latency: {len(samples)} samples ({len(emitted)} moves x 10 pages): event to page DOM "
        f"median {statistics.median(samples):.1f} ms, p95 {percentile(samples, 95):.1f} ms, "
        f"max {max(samples):.1f} ms (budget p95 <= 50 ms)"
    )


# -- main-loop step ----------------------------------------------------------------------


def step_costs(app: App, seconds: float, walls: list[float] | None = None) -> list[float]:
    """This thread's CPU microseconds per step, stepping every 10 ms for ``seconds`` (the
    real loop's pace: ``App.run`` steps at least every 10 ms); ``walls`` gets each step's
    wall-clock microseconds too (with the time it waited for the interpreter's lock
    while the server's thread held it)."""
    costs = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started, wall = time.thread_time_ns(), time.perf_counter_ns()
        app.step()
        costs.append((time.thread_time_ns() - started) / 1000)
        if walls is not None:
            walls.append((time.perf_counter_ns() - wall) / 1000)
        time.sleep(0.01)
    return costs


PAGES = """
import logging, sys, threading
from websockets.sync.client import connect
logging.getLogger("websockets").setLevel(logging.CRITICAL)  # the flooder's drops, expected
url, flood = sys.argv[1], sys.argv[2]
# No keep-alive pings from these clients (browsers send none): the flooding page's
# socket is left unread by design while it is over its rate, and a ping queued behind
# its flood would time out and close it.
sockets = [connect(url, ping_interval=None) for _ in range(10)]
def read(ws):
    try:
        while True:
            ws.recv()
    except Exception:
        pass
for ws in sockets:
    threading.Thread(target=read, args=(ws,), daemon=True).start()
print("connected", flush=True)
floods = {
    # questions and garbage: what a page may send without changing anything
    "questions": ["fen", "moves", "view", "castle", "play 99-1", "touch 40", "hello"],
    # and commands that change what the board shows (each a view to every page)
    "commands": ["fen", "brightness 40", "moves", "view", "brightness 60", "castle", "hello", "brightness 50"],
}
if flood == "none":
    threading.Event().wait()
if flood == "connections":
    # A network attacker's connections instead of a page's lines: 1,100 at once from 110
    # addresses, every fourth a slowloris (a request's headers a line at a time), each
    # opened again as soon as the board closes it.
    import selectors, socket, time
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    sources = [f"127.0.{1 + i // 250}.{2 + i % 250}" for i in range(110)]
    selector = selectors.DefaultSelector()
    def opened(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((sources[i % len(sources)], 0))
        s.connect_ex(("127.0.0.1", port))
        selector.register(s, selectors.EVENT_READ, i)
        return s
    held = {i: opened(i) for i in range(1100)}
    begun = set()  # the slowloris connections that have sent their request line
    dripped = 0.0
    while True:
        for key, _ in selector.select(timeout=0.1):
            s, i = key.fileobj, key.data
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                selector.unregister(s)
                s.close()
                begun.discard(i)
                held[i] = opened(i)
        if time.monotonic() - dripped > 0.5:
            dripped = time.monotonic()
            for i in range(0, 1100, 4):
                try:
                    held[i].send(b"X-Slow: 1\\r\\n" if i in begun else b"GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n")
                    begun.add(i)
                except OSError:
                    pass
junk = floods[flood]
n = 0
flooder = sockets[0]
while True:
    try:
        flooder.send(junk[n % len(junk)])
    except Exception:
        # The server's keep-alive ping waits behind the flood it does not read, so after a
        # while it drops the flooder, which comes back (as a browser's page would).
        flooder = connect(url, ping_interval=None)
        threading.Thread(target=read, args=(flooder,), daemon=True).start()
    n += 1
"""


def _bare_app(state: Path) -> App:
    clock = MonotonicClock()
    app = App(
        open_hardware(default_config(), clock, hal="sim"), clock=clock, settings=AppSettings(), store=GameStore(state)
    )
    return app


def step(seconds: float, rounds: int) -> None:
    """The main loop's step without the web server and with it (10 pages, one flooding),
    for each kind of flood. See :func:`_step_rounds`."""
    for flood, what in (
        ("questions", "questions and garbage"),
        ("commands", "commands that change the board, questions and garbage"),
        ("connections", "1,100 idle and slowloris connections from 110 addresses, reopened when closed"),
    ):
        ratios = []
        for n, (base, web, handled, mained, web_share, walls) in enumerate(_step_rounds(seconds, rounds, flood)):
            b, w = statistics.mean(base), statistics.mean(web)
            ratios.append(w / b)
            print(
                f"step ({flood}) round {n + 1}: mean CPU per main-loop step {b:.1f} us without the web server, "
                f"{w:.1f} us with it -> {w / b:.2f}x (medians {statistics.median(base):.1f} -> "
                f"{statistics.median(web):.1f} us; {handled} lines from the flooding page, {mained} of them "
                f"handled by the main loop; the server thread "
                f"{web_share:.2f} % of a core; a step's wall time without -> with: p99 "
                f"{percentile(walls[0], 99) / 1000:.1f} -> {percentile(walls[1], 99) / 1000:.1f} ms, max "
                f"{max(walls[0]) / 1000:.1f} -> {max(walls[1]) / 1000:.1f} ms)"
            )
        print(
            f"step: with 10 pages, one flooding {what}: {min(ratios):.2f}-{max(ratios):.2f}x "
            f"(median {statistics.median(ratios):.2f}x over {rounds} rounds of {seconds:.0f} s each way) "
            f"the step without the web server (budget 1.2x)"
        )


def _step_rounds(
    seconds: float, rounds: int, flood: str
) -> list[tuple[list[float], list[float], int, int, float, tuple[list[float], list[float]]]]:
    """Rounds of alternating one-second blocks: the bare app, then the same app with the
    web server, 10 pages (another process) and ``flood``, so that both see the same
    machine (it is shared: its load drifts). The pages are stopped (SIGSTOP) while the
    bare app steps: the server then sleeps in its event loop, waking for nothing.
    Each round's step costs (bare, web), the flooding page's lines handled, how many of
    them the main loop handled, the server thread's CPU share while the web app
    stepped, and the steps' wall times (bare, web)."""
    out = []
    with tempfile.TemporaryDirectory() as state:
        bare = _bare_app(Path(state) / "bare")
        bare.start()
        app = _bare_app(Path(state) / "web")
        hub = PageHub()  # the product's rates and bounds
        link = WebLink(hub)
        link.attach(app)
        server = WebServer(link, port=0, page_rate=PAGE_RATE)
        server.start()
        app.start()
        url = server.url.replace("http://", "ws://") + "ws"
        pages = subprocess.Popen([sys.executable, "-c", PAGES, url, flood], stdout=subprocess.PIPE, text=True)
        try:
            assert pages.stdout is not None
            assert pages.stdout.readline().strip() == "connected"
            step_costs(app, 1.0)  # the pages greeted, the flood under way
            step_costs(bare, 1.0)
            assert server._thread is not None and server._thread.native_id is not None
            tid = server._thread.native_id
            for _ in range(rounds):
                base: list[float] = []
                web: list[float] = []
                handled = -(link.commands + link.errors + hub.answered + hub.refused)
                mained = -(link.commands + link.errors)
                web_cpu = 0.0
                web_time = 0.0
                walls: tuple[list[float], list[float]] = ([], [])
                for _block in range(max(1, round(seconds))):
                    os.kill(pages.pid, signal.SIGSTOP)
                    base += step_costs(bare, 1.0, walls[0])
                    os.kill(pages.pid, signal.SIGCONT)
                    cpu, started = _task_seconds(os.getpid(), tid), time.monotonic()
                    web += step_costs(app, 1.0, walls[1])
                    web_cpu += _task_seconds(os.getpid(), tid) - cpu
                    web_time += time.monotonic() - started
                handled += link.commands + link.errors + hub.answered + hub.refused
                mained += link.commands + link.errors
                out.append((base, web, handled, mained, 100 * web_cpu / web_time, walls))
        finally:
            os.kill(pages.pid, signal.SIGCONT)
            pages.terminate()
            pages.wait(timeout=10)
            app.close()
            server.close()
            bare.close()
    return out


def _task_seconds(pid: int, tid: int) -> float:
    fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- idle CPU and memory -----------------------------------------------------------------


def idle(seconds: float, rounds: int) -> None:
    """``rounds`` times: the board without the page, then with it; each measured alone."""
    runs: dict[bool, list[tuple[float, float, list[tuple[int, float]]]]] = {False: [], True: []}
    page_note = ""
    for _ in range(rounds):
        for web in (False, True):
            cpu, rss, threads, page_note_run = _idle_run(seconds, web)
            runs[web].append((cpu, rss, threads))
            if web:
                page_note = page_note_run
    for web in (False, True):
        label = f"with --web and {page_note}" if web else "without --web"
        for cpu, rss, threads in runs[web]:
            main_share = threads[0][1]  # the process's first thread: the main loop
            others = (
                ", ".join(f"{share:.2f}" for _tid, share in sorted(threads[1:], key=lambda t: -t[1])[:3]) or "none:"
            )
            print(
                f"idle: crownhead run --headless --hal sim {label}: {cpu:.2f} % of a core (the main loop's "
                f"thread {main_share:.2f} %, the busiest others {others} %), RSS {rss:.1f} MB"
            )
    base = [cpu for cpu, _rss, _t in runs[False]]
    with_web = [cpu for cpu, _rss, _t in runs[True]]
    rss_web = [rss for _cpu, rss, _t in runs[True]]
    rss_base = [rss for _cpu, rss, _t in runs[False]]
    print(
        f"idle: {rounds} runs of {seconds:.0f} s: {min(base):.2f}-{max(base):.2f} % of a core without the page, "
        f"{min(with_web):.2f}-{max(with_web):.2f} % with it (median {statistics.median(with_web):.2f} %); "
        f"RSS {min(rss_base):.0f}-{max(rss_base):.0f} MB without, {min(rss_web):.0f}-{max(rss_web):.0f} MB with "
        f"(budget 2 % of a core, goal RSS < 80 MB)"
    )


def _idle_run(seconds: float, web: bool) -> tuple[float, float, list[tuple[int, float]], str]:
    path = chromium_path() if web else None
    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as profile:
        port = 18000 + os.getpid() % 1000
        proc = subprocess.Popen(
            [sys.executable, "-m", "crownhead.firmware.cli", "run", "--headless", "--hal", "sim", "--state-dir", state]
            + (["--web", f"127.0.0.1:{port}"] if web else []),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
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
                context = playwright.chromium.launch_persistent_context(
                    profile, executable_path=path, headless=True, args=CHROMIUM_FLAGS
                )
                page = context.new_page()
                page.goto(url)
                page.wait_for_selector('#connection[data-state="live"]')
            time.sleep(3)  # past start-up: imports, the first views
            before = _cpu_seconds(proc.pid)
            threads_before = _thread_seconds(proc.pid)
            started = time.monotonic()
            time.sleep(seconds)
            used = _cpu_seconds(proc.pid) - before
            threads_after = _thread_seconds(proc.pid)
            elapsed = time.monotonic() - started
            rss = _rss_mb(proc.pid)
            if context is not None:
                context.close()
            if playwright is not None:
                playwright.stop()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    # The main thread first (its id is the process's), then the others.
    shares = sorted(
        ((tid, 100 * (t - threads_before.get(tid, 0.0)) / elapsed) for tid, t in threads_after.items()),
        key=lambda item: (item[0] != proc.pid, -item[1]),
    )
    page_note = "one page connected" if path is not None else "no page (no chromium)"
    return 100 * used / elapsed, rss, shares, page_note


def _thread_seconds(pid: int) -> dict[int, float]:
    """CPU seconds of each thread of ``pid``, by thread id."""
    out = {}
    ticks = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / ticks
    return out


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
    parser.add_argument("--seconds", type=float, default=10, help="length of each step phase (default 10)")
    parser.add_argument("--idle-seconds", type=float, default=20, help="length of each idle run (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the step and idle runs (default 3)")
    args = parser.parse_args()
    if args.only in (None, "latency"):
        latency(args.moves)
    if args.only in (None, "step"):
        step(args.seconds, args.rounds)
    if args.only in (None, "idle"):
        idle(args.idle_seconds, args.rounds)


if __name__ == "__main__":
    main()
