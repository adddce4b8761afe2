"""How much of its budget a timed search uses, and what that is worth: the time manager
of issue 53 (``Engine.time_policy = "budget"``) against the one before it (``classic``),
in one run.

    .venv/bin/python bench/timeuse.py                          # both parts, ~15 minutes
    .venv/bin/python bench/timeuse.py --only share             # ~2 minutes
    .venv/bin/python bench/timeuse.py --only match --games 40 --movetime 100 --jobs 2

**share**: an even sample of the published problems of eight pieces or more (``--positions``,
each with more than one legal move: a forced move is played at once), each searched by
a new engine (the shipped tables) at 300 ms and at 1 s of CPU, with the old policy, the
new one, and the new one allowed up to twice the budget on unstable moves
(``max_movetime_ms``); printed: the mean and the longest search as a share of the
budget, and the mean depth.

**match**: the new policy (with ``max_movetime_ms`` twice the budget, unless
``--no-stretch``) against the old at the same nominal time a move, from ACF ballots
(the deck, evenly spread) with both colours, one engine a game each with the shipped
tables, both timed by their process's CPU time (a loaded machine slows both alike);
games end as bench/games.py ends them. Printed: the score with its Elo and 95%
interval (as bench/engine_native.py gives it) and the mean time each side used a move.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.engine_native import elo  # noqa: E402
from bench.games import game_end  # noqa: E402
from bench.problems import PROBLEMS, load, pieces_of, sample  # noqa: E402
from crownhead.rules import WCDF, Color, Game, Position  # noqa: E402
from crownhead.rules.ballots import deck  # noqa: E402
from crownhead.rules.engine import Engine, native  # noqa: E402


def cpu_ms() -> float:
    return time.process_time() * 1000


_tables: object = None


def tables() -> object:
    global _tables
    if _tables is None:
        from crownhead.firmware.egdb import SHIPPED, load_probe

        _tables = load_probe(SHIPPED)
    return _tables


def engine(policy: str, seed: int = 0) -> Engine:
    made = Engine(seed=seed, clock=cpu_ms, egdb=tables())  # type: ignore[arg-type]
    made.time_policy = policy
    return made


#: (label, policy, stretch): the hard limit as a multiple of the budget.
WAYS = (("classic", "classic", 1.0), ("budget", "budget", 1.0), ("budget, up to 2x", "budget", 2.0))


def share(count: int, movetimes: list[int]) -> None:
    problems = [p for p in load(PROBLEMS) if pieces_of(p) >= 8]
    positions = [Position.from_fen(p.fen) for p in problems]
    positions = [p for p in positions if len(p.legal_moves(WCDF)) > 1]
    chosen = sample(positions, count)  # type: ignore[arg-type]
    print(f"{len(chosen)} problem positions of 8+ pieces, a new engine each, CPU time, {native.describe()}")
    print(f"{'budget':>7} {'policy':>17} {'mean used':>9} {'longest':>8} {'mean depth':>10}")
    for movetime in movetimes:
        for label, policy, stretch in WAYS:
            used, depths = [], []
            for position in chosen:
                result = engine(policy).search(position, movetime_ms=movetime, max_movetime_ms=movetime * stretch)
                used.append(result.ms / movetime)
                depths.append(result.depth)
            print(
                f"{movetime:>5}ms {label:>17} {statistics.mean(used):>9.2f} {max(used):>8.2f} "
                f"{statistics.mean(depths):>10.1f}",
                flush=True,
            )


def play(task: tuple[int, bool, int, bool]) -> tuple[float, float, float]:
    """One game from ballot ``number``; the new policy's points and the mean CPU ms a move
    of each side (new, old)."""
    number, new_black, movetime, stretch = task
    ballot = next(b for b in deck() if b.number == number)
    game = Game(ballot.position(WCDF), WCDF)
    new, old = engine("budget", number), engine("classic", number)
    spent: dict[bool, list[int]] = {True: [], False: []}
    while True:
        end = game_end(game)
        if end is not None:
            black_points = {"1-0": 1.0, "0-1": 0.0}.get(end.score, 0.5)
            break
        is_new = (game.turn == Color.BLACK) == new_black
        limits: dict[str, float] = {"movetime_ms": movetime}
        if is_new and stretch:
            limits["max_movetime_ms"] = 2 * movetime
        result = (new if is_new else old).search(game.position, history=game.positions[:-1], **limits)  # type: ignore[arg-type]
        assert result.move is not None
        spent[is_new].append(result.ms)
        game.play(result.move)
    points = black_points if new_black else 1 - black_points
    return points, statistics.mean(spent[True] or [0]), statistics.mean(spent[False] or [0])


def match(games: int, movetime: int, jobs: int, stretch: bool) -> None:
    cards = deck()
    pairs = max(1, games // 2)
    ballots = cards[:: max(1, len(cards) // pairs)][:pairs]
    tasks = [(b.number, new_black, movetime, stretch) for b in ballots for new_black in (True, False)]
    started = time.monotonic()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(play, tasks, chunksize=1)
    else:
        results = [play(t) for t in tasks]
    scores = [r[0] for r in results]
    n = len(scores)
    wins, draws = scores.count(1.0), scores.count(0.5)
    rate = sum(scores) / n
    print(
        f"new (budget{', up to 2x' if stretch else ''}) against old (classic) at {movetime} ms of CPU a move, "
        f"{n} games ({len(ballots)} ballots, both colours, shipped tables): "
        f"+{wins} ={draws} -{n - wins - draws}, {rate:.1%}, {elo(rate, n, scores)}"
    )
    print(
        f"  mean CPU a move: new {statistics.mean(r[1] for r in results):.0f} ms, "
        f"old {statistics.mean(r[2] for r in results):.0f} ms; {time.monotonic() - started:.0f} s of wall time"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("share", "match"))
    parser.add_argument("--positions", type=int, default=24, help="problem positions for the share (24)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[300, 1000], metavar="MS")
    parser.add_argument("--games", type=int, default=40, help="games of the match (40)")
    parser.add_argument("--movetime", type=int, default=100, help="ms of CPU a move in the match (100)")
    parser.add_argument("--jobs", type=int, default=2, help="games at once (2)")
    parser.add_argument("--no-stretch", action="store_true", help="the new policy without max_movetime_ms")
    args = parser.parse_args(argv)
    if args.only in (None, "share"):
        share(args.positions, args.budgets)
    if args.only in (None, "match"):
        match(args.games, args.movetime, args.jobs, not args.no_stretch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
