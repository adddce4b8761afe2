"""The native search core against the pure-Python search, in one run: speed and strength.

    .venv/bin/python bench/engine_native.py --only speed          # nodes a second, ~1 min
    .venv/bin/python bench/engine_native.py --only match --movetime 300 --games 16
    .venv/bin/python bench/engine_native.py --only depth          # depth reached in a time
    .venv/bin/python bench/engine_native.py --only tables         # the tables' probe, its cost
    .venv/bin/python bench/engine_native.py --only loop           # the main loop beside a search
    .venv/bin/python bench/engine_native.py --only features --nodes-a-move 20000 --games 64

* **speed**: the same searches (a node budget, so the same trees: the two engines search
  node for node alike; tests/test_native.py holds them to it) on a fixed set of positions, the start, ballots, middle games
  and endings; nodes per CPU second of each and their ratio.
* **depth**: the depth each completes in 300 ms and 1 s of CPU from the start and from
  the middle games, as the hint and the computer player search; and the native core
  at 30 and 60 ms (a Pi 4's 300 ms, 5-10 times slower a core) against Python at 3 s.
* **tables**: the endings of six to ten pieces with the shipped tables and without,
  both ways: the native core with its probe in C and through the Python probe (called
  back, counted and timed), the Python search with the Python probe.
* **loop**: a stand-in for the board's main loop, a step of pure Python due every 2 ms,
  while a search runs in a thread beside it (as the hint and the computer player run):
  how late the steps come. The native core lets go of Python's lock while it searches;
  the Python search holds it for up to the interpreter's switch interval (5 ms) at a
  time.
* **features** (not run by default): each of the search's features (late move
  reductions, the threat extension at the horizon) measured alone, as a match of the
  native engine against itself with the feature off, like the match below.
* **match**: native against Python at equal CPU time a move, each ballot of a spread
  sample of the ACF deck played twice, colours swapped; the score, an Elo estimate and
  its 95% interval (from the games' spread). Times are this process's CPU time, so the
  load of the machine changes neither side's thinking. Game ends: bench/games.py.

On a Raspberry Pi 4 a core is some 5-10 times slower than here (bench/engine.py says
how that was estimated): divide the rates by that.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.games import game_end  # noqa: E402
from crownhead.rules import WCDF, Color, Game, Position  # noqa: E402
from crownhead.rules.ballots import deck  # noqa: E402
from crownhead.rules.engine import Engine, native  # noqa: E402

#: Middle games and endings of the speed set (published problems and bench/engine.py's).
POSITIONS = (
    "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,4,6,7,9,10,11,12",
    "W:W17,21,22,23,25,26,27,29,30,31:B1,3,5,6,7,9,10,11,12,14",
    "B:W14,20,22,23,25,26,27,29,31,32:B1,2,3,5,7,8,10,11,12,15",
    "W:WK19,K23:BK28,12",
    "B:WK28,13,12:BK15,5,3",
    "W:W21,22,30,K2:B9,13,14,K10",
    "B:W18,22,23,27,31:B6,9,10,12,K26",
    "W:W17,19,26,27,29:B1,3,5,10,15",
)


def cpu_ms() -> float:
    return time.process_time() * 1000


def speed_positions() -> list[Position]:
    ballots = [b.position(WCDF) for b in deck()[::20]]
    return [Position.start(), *ballots, *(Position.from_fen(f) for f in POSITIONS)]


def speed(nodes: int) -> None:
    """The same trees both ways: nodes per CPU second and the ratio."""
    rates = {}
    for on in (True, False):
        total, cpu = 0, 0.0
        for p in speed_positions():
            engine = Engine(native_core=on)
            started = time.process_time()
            total += engine.search(p, nodes=nodes).nodes
            cpu += time.process_time() - started
        rates[on] = total / max(cpu, 1e-6)
        print(f"{'native' if on else 'python'}: {total:,} nodes in {cpu * 1000:,.0f} ms of CPU = {rates[on]:,.0f}/s")
    print(
        f"speed: native {rates[True] / rates[False]:.1f} times the nodes a second of Python "
        f"({len(speed_positions())} positions, {nodes:,} nodes each: the same trees)"
    )


def depth() -> None:
    """Depth completed in a CPU time, from the start and the middle games."""
    positions = [Position.start(), *(Position.from_fen(f) for f in POSITIONS[:2])]
    for movetime in (300, 1000):
        for on in (True, False):
            depths, nodes = [], 0
            for p in positions:
                result = Engine(native_core=on, clock=cpu_ms).search(p, movetime_ms=movetime)
                depths.append(result.depth)
                nodes += result.nodes
            print(
                f"{movetime} ms, {'native' if on else 'python'}: depths {depths} "
                f"({nodes / len(positions):,.0f} nodes a search)"
            )
    # A Pi 4 is 5-10 times slower a core: its 300 ms are 30-60 ms here. Against the
    # Python search at 3 s here (the "today's engine at several seconds").
    for on, movetime in ((True, 30), (True, 60), (False, 3000)):
        depths = [Engine(native_core=on, clock=cpu_ms).search(p, movetime_ms=movetime).depth for p in positions]
        print(f"{movetime} ms, {'native (a Pi 4 at 300 ms)' if on else 'python'}: depths {depths}")


#: Endings of six to ten pieces, where the shipped tables are probed below the root.
TABLE_ENDINGS = (
    "B:W21,25,K30:B6,K10,11",
    "W:W18,22,25,K30:B6,10,11,K2",
    "B:W18,22,23,27,31:B6,9,10,12,K26",
    "W:W17,19,26,27,29:B1,3,5,10,15",
    "W:W21,22,30,K2:B9,13,14,K10",
)


def tables() -> None:
    """What probing the shipped tables through the Python callback costs each search."""
    from crownhead.firmware.egdb import load_probe

    probe = load_probe()
    if probe is None:
        print("no endgame tables shipped in this checkout")
        return

    class Timed:
        """The probe, its calls counted and timed."""

        pieces = probe.pieces

        def __init__(self) -> None:
            self.calls, self.cpu = 0, 0.0

        def value(self, own: int, opp: int, kings: int, black: bool) -> int | None:
            self.calls += 1
            started = time.process_time()
            try:
                return probe.value(own, opp, kings, black)
            finally:
                self.cpu += time.process_time() - started

    # The native core probes the tables in C (rules.engine.native.probe_of); the
    # counting wrapper is no EndgameTables, so through it the core calls the Python
    # probe back, as it did before: both are measured.
    for on in (True, False):
        for how in ("without", "callback", "in C") if on else ("without", "callback"):
            timed = Timed() if how == "callback" else None
            egdb = probe if how == "in C" else timed
            nodes, started = 0, time.process_time()
            for fen in TABLE_ENDINGS:
                engine = Engine(native_core=on, egdb=egdb)
                nodes += engine.search(Position.from_fen(fen), nodes=300_000 if on else 30_000).nodes
            cpu = time.process_time() - started
            extra = ""
            if timed is not None:
                extra = f", {timed.calls:,} probes taking {timed.cpu * 1000:,.0f} ms ({timed.cpu / max(timed.calls, 1) * 1e6:.0f} us each)"
            label = {
                "without": "without the tables",
                "callback": "with the tables (Python probe)",
                "in C": "with the tables probed in C",
            }[how]
            print(
                f"{'native' if on else 'python'} {label}: "
                f"{nodes:,} nodes in {cpu * 1000:,.0f} ms of CPU = {nodes / max(cpu, 1e-6):,.0f}/s{extra}"
            )


def elo(score: float, games: int, scores: list[float]) -> str:
    """The Elo difference the share ``score`` means, with a 95% interval."""

    def of(p: float) -> float:
        p = min(max(p, 0.5 / games), 1 - 0.5 / games)  # a whitewash has no finite estimate
        return -400 * math.log10(1 / p - 1)

    spread = statistics.pstdev(scores) / math.sqrt(games) if games > 1 else 0.5
    low, high = of(score - 1.96 * spread), of(score + 1.96 * spread)
    return f"{of(score):+.0f} Elo (95%: {low:+.0f} to {high:+.0f})"


def play(black: Engine, white: Engine, opening: Position, movetime: int, nodes: int | None = None) -> float:
    """One game from ``opening``; Black's points."""
    game = Game(opening, WCDF)
    while True:
        end = game_end(game)
        if end is not None:
            return {"1-0": 1.0, "0-1": 0.0}.get(end.score, 0.5)  # "1-0": Black won
        engine = black if game.turn == Color.BLACK else white
        if nodes is not None:  # a node budget: the same game on any machine
            result = engine.search(game.position, history=game.positions[:-1], nodes=nodes)
        else:
            result = engine.search(game.position, history=game.positions[:-1], movetime_ms=movetime)
        assert result.move is not None
        game.play(result.move)


def native_engine(seed: int) -> Engine:
    return Engine(native_core=True, clock=cpu_ms, seed=seed)


def python_engine(seed: int) -> Engine:
    return Engine(native_core=False, clock=cpu_ms, seed=seed)


def without(feature: str) -> Callable[[int], Engine]:
    """The native engine with one of its search features (an Engine flag) off."""

    def make(seed: int) -> Engine:
        engine = native_engine(seed)
        setattr(engine, feature, False)
        return engine

    return make


def match(
    movetime: int,
    games: int,
    ours: Callable[[int], Engine] = native_engine,
    theirs: Callable[[int], Engine] = python_engine,
    label: str = "native against Python",
    nodes: int | None = None,
) -> None:
    ballots = deck()[:: max(1, len(deck()) // max(1, games // 2))][: max(1, games // 2)]
    scores: list[float] = []
    for b in ballots:
        opening = b.position(WCDF)
        for first_black in (True, False):
            a, z = ours(b.number), theirs(b.number)
            if first_black:
                scores.append(play(a, z, opening, movetime, nodes))
            else:
                scores.append(1 - play(z, a, opening, movetime, nodes))
            print(
                f"  ballot {b.number} first {'Black' if first_black else 'White'}: {scores[-1]} "
                f"(so far {sum(scores)}/{len(scores)})",
                flush=True,
            )
    n = len(scores)
    wins, draws = scores.count(1.0), scores.count(0.5)
    share = sum(scores) / n
    limit = f"{nodes:,} nodes" if nodes is not None else f"{movetime} ms of CPU"
    print(
        f"match at {limit} a move, {label}, {n} games: "
        f"+{wins} ={draws} -{n - wins - draws}, {share:.1%}, {elo(share, n, scores)}"
    )


def features(movetime: int, games: int, nodes: int | None) -> None:
    """Each search feature measured alone: the native engine against itself without it
    (at a node budget a move, ``--nodes-a-move``, the same games on any machine)."""
    for feature in ("reductions", "threats"):
        match(movetime, games, native_engine, without(feature), f"native against native without {feature}", nodes)


def loop_steps(on: bool | None, steps: int = 400) -> tuple[float, float]:
    """A stand-in for the board's main loop (a step of pure Python every 2 ms) while a
    search runs in a thread beside it, as the hint and the computer player run: the
    median and the longest delay of a step past when it was due, in ms."""
    import threading

    stop = threading.Event()

    def think() -> None:
        engine = Engine(native_core=on)
        while not stop.is_set():
            engine.search(Position.start(), movetime_ms=200)

    thread = threading.Thread(target=think, daemon=True) if on is not None else None
    if thread is not None:
        thread.start()
        time.sleep(0.05)
    late = []
    for _ in range(steps):
        due = time.monotonic() + 0.002
        time.sleep(0.002)
        sum(range(2000))  # the step's work, about 20 us here
        late.append((time.monotonic() - due) * 1000)
    stop.set()
    if thread is not None:
        thread.join()
    late.sort()
    return statistics.median(late), late[int(len(late) * 0.99)]


def loop() -> None:
    for on, label in ((None, "no search"), (True, "native search"), (False, "Python search")):
        median, longest = loop_steps(on)
        print(f"main loop beside {label}: a step late by {median:.2f} ms (median), {longest:.2f} ms (p99)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", choices=("speed", "depth", "tables", "loop", "match", "features"), help="run one part"
    )
    parser.add_argument("--nodes", type=int, default=100_000, help="node budget of a speed search (100,000)")
    parser.add_argument("--movetime", type=int, default=300, help="match ms of CPU a move (300)")
    parser.add_argument("--games", type=int, default=16, help="match games, two a ballot (16)")
    parser.add_argument("--nodes-a-move", type=int, help="features: a node budget a move instead of a time")
    args = parser.parse_args(argv)
    if not native.built():
        print(native.describe())
        return 1
    if args.only in (None, "speed"):
        speed(args.nodes)
    if args.only in (None, "depth"):
        depth()
    if args.only in (None, "tables"):
        tables()
    if args.only in (None, "loop"):
        loop()
    if args.only in (None, "match"):
        match(args.movetime, args.games)
    if args.only == "features":
        features(args.movetime, args.games, args.nodes_a_move)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
