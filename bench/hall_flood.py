"""A board's account floods the hall: how much memory the hall (and its embedded broker) take.

    .venv/bin/python bench/hall_flood.py                    # 2,000 events of 60 KB, then the over-size ones
    .venv/bin/python bench/hall_flood.py --events 500 --size 30000

Starts ``crownhead hall`` with its embedded broker (its accounts made in a temporary
state directory) as its own process, then, as one board's account would, publishes
``--events`` move and caution events of ``--size`` bytes each on the board's own event
topic (the largest the brokers take is 64 KiB), a few states with long fields, and
messages under 1,000 made-up board names; then a 120 KB message (refused by the
broker, the client put off).
It prints the hall process's resident memory (from /proc) before and after, and the size
of one ``/api/boards`` answer; the outside probe of issue 34 saw 2,000 such events take
a hall with the embedded broker from 40 to 280 MB and one answer to 240 MB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.hall import free_port, wait_port  # noqa: E402
from crownhead.firmware.hall.accounts import Accounts, accounts_file  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--size", type=int, default=60_000, help="bytes a message (at most about 64 KiB is taken)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="crownhead-flood-"))
    (folder / "pairings.csv").write_text("round,board,black,white\n1,table-1,Ann,Bob\n1,table-2,Cid,Dee\n")
    port, web = free_port(), free_port()
    hall = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "hall",
            "--hall",
            "club",
            "--listen",
            f"127.0.0.1:{port}",
            "--web",
            f"127.0.0.1:{web}",
            "--state-dir",
            str(folder),
            "--pairings",
            str(folder / "pairings.csv"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(web)
        time.sleep(1.0)
        before = rss_mb(hall.pid)
        password = Accounts.open(accounts_file(folder, "club"))[0].passwords["table-1"]
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="table-1")
        client.username_pw_set("table-1", password)
        client.connect("127.0.0.1", port)
        client.loop_start()
        filler = "1" * (args.size - 200)
        started = time.monotonic()
        for n in range(1, args.events + 1):
            move = {"t": n, "event": "move", "ply": n, "move": filler}
            caution = {"t": n, "event": "caution", "side": "black", "message": filler}
            for event in (move, caution):
                client.publish("crownhead/club/table-1/event", json.dumps(event), qos=1).wait_for_publish(30)
            if n % 100 == 0:
                third = filler[: args.size // 3]
                state = {"fen": third, "black": third, "white": "Bob", "moves": ["11-15"] * 600, "pdn": third}
                client.publish("crownhead/club/table-1/state", json.dumps(state), qos=1, retain=True)
        for n in range(1000):
            client.publish(f"crownhead/club/fake-{n}/state", b"{}", qos=1).wait_for_publish(30)
        sent_s = time.monotonic() - started
        time.sleep(2.0)
        after = rss_mb(hall.pid)
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/boards", timeout=30) as r:
            answer = len(r.read())
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/others", timeout=30) as r:
            others = len(json.load(r))
        client.disconnect()
        client.loop_stop()
        # Over the brokers' bound: the client is put off.
        big = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="table-1")
        big.username_pw_set("table-1", password)
        big.connect("127.0.0.1", port)
        big.loop_start()
        info = big.publish("crownhead/club/table-1/event", b"1" * 120_000, qos=1)
        try:
            info.wait_for_publish(5)
            refused = not info.is_published()
        except (RuntimeError, ValueError):
            refused = True
        big.loop_stop()
        print(
            f"{2 * args.events} events of {args.size} bytes from one board's account in {sent_s:.1f} s, "
            f"and messages for 1,000 made-up boards (the ACL drops them: /api/others lists {others})"
        )
        print(
            f"hall process (with its embedded broker): {before:.0f} MB before, {after:.0f} MB after "
            f"({after / before:.2f}x)"
        )
        print(f"one /api/boards answer: {answer:,} bytes")
        print(f"a 120 KB message: {'refused, the client put off' if refused else 'TAKEN'}")
        return 0
    finally:
        hall.terminate()
        hall.wait(20)


if __name__ == "__main__":
    sys.exit(main())
