"""The tournament hall under load: many boards publishing through one Mosquitto.

    .venv/bin/python bench/hall.py                       # 10, 50 and 200 boards
    .venv/bin/python bench/hall.py --boards 10 50 --seconds 8

For each number of boards, a real Mosquitto (Debian's ``mosquitto``) on a free loopback
port, the hall as its own process (``crownhead hall --broker ...``), and that many
simulated boards in this process, each a real :class:`~crownhead.firmware.hall.board.BoardPublisher`
sending a move every ``30 s / speed`` (30 s is a brisk tournament move; the default speed
is 100x that pace). It prints the messages per second the hall took, the p50/p95 latency
from a board's publish to the move showing in the hall page's ``/api/boards``, and the
hall process's CPU per message (from /proc; it includes answering the page's /api/boards
every 20 ms, as a page open on the hall would), then the ratio to the smallest hall.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crownhead.firmware.events import MoveMade  # noqa: E402
from crownhead.firmware.hall.board import BoardPublisher  # noqa: E402
from crownhead.firmware.hall.settings import HallSettings  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_port(port: int, timeout_s: float = 15) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def run(boards: int, seconds: float, speed: float, mosquitto: str) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="crownhead-bench-"))
    port, web = free_port(), free_port()
    (folder / "m.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n")
    broker = subprocess.Popen(
        [mosquitto, "-c", str(folder / "m.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    hall = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "hall",
            "--broker",
            f"mqtt://127.0.0.1:{port}",
            "--hall",
            "bench",
            "--web",
            f"127.0.0.1:{web}",
            "--state-dir",
            str(folder / "hall"),
            "--boards",
            ",".join(f"b{i}" for i in range(boards)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    publishers: list[BoardPublisher] = []
    try:
        wait_port(port)
        wait_port(web)
        time.sleep(1.0)
        interval = 30.0 / speed
        sent: dict[tuple[str, int], float] = {}
        for i in range(boards):
            p = BoardPublisher(HallSettings(f"mqtt://127.0.0.1:{port}", "bench", f"b{i}"), lambda: {"fen": "x"})
            publishers.append(p)
        end = time.monotonic() + 10
        while not all(p.connected for p in publishers) and time.monotonic() < end:
            time.sleep(0.05)
        seen: dict[tuple[str, int], float] = {}
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/boards") as r:
                    now = time.monotonic()
                    for b in json.load(r):
                        for ply in range(1, len(b["moves"]) + 1):
                            seen.setdefault((b["name"], ply), now)
                time.sleep(0.02)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        cpu0 = cpu_seconds(hall.pid)
        start = time.monotonic()
        ply = 0
        # Boards move in turn, spread evenly over each interval.
        while time.monotonic() - start < seconds:
            ply += 1
            for i, p in enumerate(publishers):
                due = start + (ply - 1) * interval + interval * i / boards
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                sent[(f"b{i}", ply)] = time.monotonic()
                p.sink(MoveMade(ply, ply, "black", "11-15", (11, 15), ()))
        end = time.monotonic() + 30
        while len(seen) < len(sent) and time.monotonic() < end:
            time.sleep(0.05)
        stop.set()
        watcher.join(5)
        cpu = cpu_seconds(hall.pid) - cpu0
        last = max(seen.values()) if seen else time.monotonic()
        latencies = sorted((seen[k] - t) * 1000 for k, t in sent.items() if k in seen)
        n = len(latencies)
        return {
            "boards": boards,
            "messages": len(sent),
            "arrived": n,
            "msg_s": n / max(last - start, 1e-9),
            "p50_ms": statistics.median(latencies) if latencies else float("nan"),
            "p95_ms": latencies[int(0.95 * (n - 1))] if latencies else float("nan"),
            "cpu_ms_per_msg": cpu * 1000 / max(n, 1),
        }
    finally:
        for p in publishers:
            p.close(flush_s=0)
        hall.terminate()
        broker.terminate()
        hall.wait(10)
        broker.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--seconds", type=float, default=10.0, help="publishing time per row (default 10)")
    parser.add_argument(
        "--speed",
        type=float,
        nargs="+",
        default=[1.0, 100.0],
        help="multiples of tournament pace, one move per 30 s a board (default: 1 and 100)",
    )
    args = parser.parse_args()
    mosquitto = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if mosquitto is None:
        print("bench/hall.py needs Debian's mosquitto (apt-get install mosquitto)", file=sys.stderr)
        return 2
    print(
        f"{'boards':>6} {'pace':>5} {'sent':>6} {'arrived':>7} {'msg/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'hall CPU ms/msg':>15}"
    )
    for speed in args.speed:
        base: dict[str, float] | None = None
        for boards in args.boards:
            row = run(boards, args.seconds, speed, mosquitto)
            base = base or row
            print(
                f"{boards:>6} {speed:>4.0f}x {row['messages']:>6} {row['arrived']:>7} {row['msg_s']:>8.1f}"
                f" {row['p50_ms']:>7.1f} {row['p95_ms']:>7.1f} {row['cpu_ms_per_msg']:>15.3f}"
                f"   (CPU/msg {row['cpu_ms_per_msg'] / base['cpu_ms_per_msg']:.2f}x of {base['boards']:.0f} boards)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
