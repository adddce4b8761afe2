"""The hall's standings at scale: counting games, building the table and its JSON.

    .venv/bin/python bench/hall_standings.py                 # 1,000 and 10,000 games
    .venv/bin/python bench/hall_standings.py --games 500 10000 --players 400

For each number of games, a :class:`~crownhead.firmware.hall.standings.Standings` in memory is fed
that many finished games (random pairings of ``--players`` players over 200 boards, one
round every 400 games) through :meth:`record`, as the hall's listener feeds it; then the
standings, the sparse crosstable and their JSON are built once (what ``/api/standings``
pays once per counted game, however many pages ask), and the CSV. Prints each time and
its ratio to the first row, measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import time

from crownhead.firmware.hall.standings import Standings


def run(games: int, players: int) -> dict[str, float]:
    rng = random.Random(games)
    names = [f"Player {i}" for i in range(players)]
    standings = Standings("bench")
    started = time.perf_counter()
    for i in range(games):
        black, white = rng.sample(names, 2)
        state = {
            "round": str(i // 400 + 1),
            "black": black,
            "white": white,
            "result": rng.choice(["1-0", "0-1", "1/2-1/2"]),
            "moves": [f"{i}"],
        }
        standings.record(f"t{i % 200}", state)
    counted = time.perf_counter()
    _, body = standings.json_snapshot()
    built = time.perf_counter()
    standings.csv()
    done = time.perf_counter()
    return {
        "record_us": (counted - started) / games * 1e6,
        "table_ms": (built - counted) * 1e3,
        "json_kb": len(body) / 1024,
        "csv_ms": (done - built) * 1e3,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--players", type=int, default=400)
    args = parser.parse_args()
    print(f"{'games':>6} {'players':>7} {'record us/game':>14} {'table+JSON ms':>13} {'JSON KiB':>9} {'CSV ms':>7}")
    base: dict[str, float] | None = None
    for games in args.games:
        row = run(games, args.players)
        base = base or row
        print(
            f"{games:>6} {args.players:>7} {row['record_us']:>14.1f} {row['table_ms']:>13.1f} {row['json_kb']:>9.0f} "
            f"{row['csv_ms']:>7.1f}   (table {row['table_ms'] / base['table_ms']:.1f}x of {args.games[0]} games)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
