"""Engine benchmark: matches against a random and a greedy player, self-play at two
depths, and the search speed from the start position.

    python bench/engine.py                   # everything, 100 ms per move, all cores
    python bench/engine.py --quick           # a few games per match, for a smoke test
    python bench/engine.py --only speed      # just nodes per second and depth in 1 s (and in endings)
    python bench/engine.py --only greedy --games 40 --as-installed --cpu   # with the shipped tables

Every match plays each opening of the ACF 156-ballot deck twice, colours swapped
(312 games). How a game ends:

* a side with no legal move on its turn loses (WCDF 1.30);
* a draw when a position stands for the third time, or after 80 plies in a row with no
  man moved and nothing captured (the 40-move rule, WCDF 1.32) — claimed at once;
* adjudicated a draw after 200 plies (moves of both sides counted; the three ballot moves
  included).

Points: a win is 1, a draw 1/2. The engine thinks for ``--movetime`` ms per move
(default 100) with a fresh transposition table each game; the random player picks a
legal move uniformly, the greedy player the move that leaves it the most material after
that one ply (man 100, king 135), ties broken at random; both are seeded per game.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.rules import WCDF, Color, Game, Position  # noqa: E402
from crownhead.rules.ballots import deck  # noqa: E402
from crownhead.rules.engine import KING_VALUE, MAN_VALUE, Engine, native  # noqa: E402
from crownhead.rules.engine.egdb import EndgameProbe  # noqa: E402
from bench.games import MAX_PLIES, game_end  # noqa: E402


@dataclass(frozen=True)
class PlayerSpec:
    """Who plays: ``random``, ``greedy`` or ``engine`` (by time per move or by depth)."""

    kind: str
    movetime_ms: int | None = None
    depth: int | None = None
    #: Probe the endgame tables a fresh install has (those shipped with the package).
    tables: bool = False

    def label(self) -> str:
        if self.kind != "engine":
            return self.kind
        name = f"engine {self.movetime_ms} ms" if self.depth is None else f"engine depth {self.depth}"
        return name + (" with the shipped tables" if self.tables else "")


@dataclass
class GameRecord:
    ballot: int
    first_black: bool  # the first player of the match had Black
    score: float  # points of the first player
    plies: int
    reason: str
    engine_moves: int = 0
    engine_nodes: int = 0
    engine_ms: int = 0
    engine_depths: list[int] = field(default_factory=list)


def material_after(position: Position, move, color: Color) -> int:  # type: ignore[no-untyped-def]
    after = position.apply(move, WCDF)
    own, opp = after.pieces_of(color), after.pieces_of(color.opponent)
    kings = after.kings

    def worth(mask: int) -> int:
        return MAN_VALUE * (mask & ~kings).bit_count() + KING_VALUE * (mask & kings).bit_count()

    return worth(own) - worth(opp)


#: Set by --cpu: time the engine by its process's CPU time instead of the wall clock.
CPU_CLOCK = False


def cpu_ms() -> float:
    return time.process_time() * 1000


@functools.cache
def shipped_tables() -> EndgameProbe | None:
    """The probe of the tables shipped with the package, opened once a process."""
    from crownhead.firmware.egdb import SHIPPED, load_probe

    return load_probe(SHIPPED)


class Player:
    def __init__(self, spec: PlayerSpec, seed: int) -> None:
        self.spec = spec
        self.rng = random.Random(seed)
        clock = cpu_ms if CPU_CLOCK else None
        egdb = shipped_tables() if spec.tables else None
        self.engine = Engine(seed=seed, clock=clock, egdb=egdb) if spec.kind == "engine" else None
        self.moves = self.nodes = self.ms = 0
        self.depths: list[int] = []

    def choose(self, game: Game):  # type: ignore[no-untyped-def]
        moves = game.legal_moves()
        if self.spec.kind == "random":
            return self.rng.choice(moves)
        if self.spec.kind == "greedy":
            scored = [(material_after(game.position, m, game.turn), m) for m in moves]
            best = max(s for s, _ in scored)
            return self.rng.choice([m for s, m in scored if s == best])
        assert self.engine is not None
        result = self.engine.search(
            game.position,
            movetime_ms=self.spec.movetime_ms,
            depth=self.spec.depth,
            history=game.positions[:-1],
        )
        self.moves += 1
        self.nodes += result.nodes
        self.ms += result.ms
        self.depths.append(result.depth)
        return result.move


def play_game(task: tuple[PlayerSpec, PlayerSpec, int, bool, int, bool]) -> GameRecord:
    global CPU_CLOCK
    first, second, ballot_number, first_black, seed, CPU_CLOCK = task
    ballot = next(b for b in deck() if b.number == ballot_number)
    game = Game(None, WCDF)
    for text in ballot.moves:
        game.play_text(text)
    a, b = Player(first, seed), Player(second, seed + 1)
    black, white = (a, b) if first_black else (b, a)
    while True:
        result = game_end(game, MAX_PLIES)
        if result is not None:
            break
        player = black if game.turn == Color.BLACK else white
        game.play(player.choose(game))
    winner = result.winner
    first_color = Color.BLACK if first_black else Color.WHITE
    score = 0.5 if winner is None else 1.0 if winner == first_color else 0.0
    reason = result.reason
    record = GameRecord(ballot_number, first_black, score, game.ply, reason)
    for p in (a, b):
        if p.engine is not None and p is a:
            record.engine_moves, record.engine_nodes, record.engine_ms = p.moves, p.nodes, p.ms
            record.engine_depths = p.depths
    return record


def run_match(first: PlayerSpec, second: PlayerSpec, games: int, jobs: int, seed: int, cpu: bool = False) -> None:
    ballots = [b.number for b in deck()]
    tasks = []
    for i in range((games + 1) // 2):
        number = ballots[i % len(ballots)]
        for first_black in (True, False):
            tasks.append((first, second, number, first_black, seed + 2 * len(tasks), cpu))
    tasks = tasks[:games]
    started = time.monotonic()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            records = pool.map(play_game, tasks, chunksize=1)
    else:
        records = [play_game(t) for t in tasks]
    elapsed = time.monotonic() - started
    wins = sum(1 for r in records if r.score == 1.0)
    draws = sum(1 for r in records if r.score == 0.5)
    losses = len(records) - wins - draws
    points = sum(r.score for r in records)
    reasons: dict[str, int] = {}
    for r in records:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    print(
        f"{first.label()} vs {second.label()}: {len(records)} games, "
        f"+{wins} ={draws} -{losses}, {points:g} points = {100 * points / len(records):.1f}%"
    )
    print(
        f"  game length: mean {statistics.mean(r.plies for r in records):.0f} plies, "
        f"max {max(r.plies for r in records)}; endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    )
    moves = sum(r.engine_moves for r in records)
    if moves:
        nodes = sum(r.engine_nodes for r in records)
        ms = sum(r.engine_ms for r in records)
        depths = [d for r in records for d in r.engine_depths]
        print(
            f"  {first.label()}: {moves} moves, mean {ms / moves:.0f} ms and depth "
            f"{statistics.mean(depths):.1f} (median {statistics.median(depths):g}) per move, "
            f"{nodes / max(ms, 1) * 1000:,.0f} nodes/s (with {jobs} games at once)"
        )
    lost = [r for r in records if r.score == 0.0]
    for r in lost[:10]:
        colour = "Black" if r.first_black else "White"
        print(f"  lost: ballot {r.ballot} as {colour} after {r.plies} plies ({r.reason})")
    print(f"  {elapsed:.0f} s")
    sys.stdout.flush()


#: A Raspberry Pi 4 runs pure Python roughly this many times slower per core.
PI4_SLOWDOWN = (5, 10)


def speed() -> None:
    """Nodes per second and depth reached from the start position, on one core.

    Rates are given per second of wall time and per second of this process's CPU time;
    on a machine shared with other work the second is the fairer figure.
    """
    position = Position.start()
    reached: dict[int, int] = {}
    rate = 0.0
    for movetime in (1000, 200, 100):
        engine = Engine()
        cpu = time.process_time()
        result = engine.search(position, movetime_ms=movetime)
        cpu = time.process_time() - cpu
        reached[movetime] = result.depth
        if movetime == 1000:
            rate = result.nodes / max(cpu, 1e-3)
        print(
            f"start position, {movetime} ms: depth {result.depth} completed, "
            f"{result.nodes:,} nodes in {result.ms} ms = "
            f"{result.nodes / max(result.ms, 1) * 1000:,.0f} nodes/s "
            f"({result.nodes / max(cpu, 1e-3):,.0f} per CPU second), move {result.move}"
        )
    fast, slow = PI4_SLOWDOWN
    print(
        f"Raspberry Pi 4 estimate ({fast}-{slow}x slower per core): "
        f"{rate / slow:,.0f}-{rate / fast:,.0f} nodes/s; in 1 s about the depth reached "
        f"here in 100-200 ms: {reached[100]}-{reached[200]}"
    )
    endings()
    for depth in range(6, 12):
        engine = Engine()
        started = time.monotonic()
        result = engine.search(position, depth=depth)
        took = time.monotonic() - started
        print(
            f"start position, depth {depth}: {took * 1000:,.0f} ms, {result.nodes:,} nodes, "
            f"{result.nodes / took:,.0f} nodes/s"
        )
        if took > 5:
            break
    sys.stdout.flush()


#: Endings of 4-10 pieces (first position, a negative second position, three published
#: problems): where the evaluation's endgame knowledge runs.
ENDINGS = (
    "W:WK19,K23:BK28,12",
    "B:WK28,13,12:BK15,5,3",
    "W:W21,22,30,K2:B9,13,14,K10",
    "B:W18,22,23,27,31:B6,9,10,12,K26",
    "W:W17,19,26,27,29:B1,3,5,10,15",
)


def endings(nodes: int = 60_000) -> None:
    """Nodes per CPU second searching endings (no tables), the same budget each."""
    total_nodes = 0
    cpu = time.process_time()
    for fen in ENDINGS:
        total_nodes += Engine(seed=0).search(Position.from_fen(fen), nodes=nodes).nodes
    cpu = time.process_time() - cpu
    print(
        f"{len(ENDINGS)} endings, {nodes:,} nodes each: {total_nodes:,} nodes in "
        f"{cpu * 1000:,.0f} ms of CPU = {total_nodes / max(cpu, 1e-3):,.0f} per CPU second"
    )


def main(argv: list[str] | None = None) -> int:
    # CROWNHEAD_ENGINE=python: the pure-Python search, as the crownhead command reads it.
    native.choose(os.environ.get(native.ENV))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, default=100, help="engine ms per move (100)")
    parser.add_argument(
        "--games", type=int, default=2 * len(deck()), help="games per match (default: the deck twice, 312)"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="games played at once (default: the number of cores)"
    )
    parser.add_argument("--depths", default="8,4", help="self-play depths, deeper first (8,4)")
    parser.add_argument("--only", choices=("speed", "random", "greedy", "self"), help="run one part")
    parser.add_argument("--quick", action="store_true", help="8 games per match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time the engine by its process's CPU time, not the wall clock "
        "(fair figures on a machine busy with other work)",
    )
    parser.add_argument(
        "--as-installed",
        action="store_true",
        help="the engine probes the endgame tables shipped with the package, as a fresh install's computer player does",
    )
    args = parser.parse_args(argv)
    games = 8 if args.quick else args.games
    engine = PlayerSpec("engine", movetime_ms=args.movetime, tables=args.as_installed)
    deep, shallow = (int(d) for d in args.depths.split(","))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.jobs} jobs")
    if args.only in (None, "speed"):
        speed()
    if args.only in (None, "random"):
        run_match(engine, PlayerSpec("random"), games, args.jobs, args.seed, args.cpu)
    if args.only in (None, "greedy"):
        run_match(engine, PlayerSpec("greedy"), games, args.jobs, args.seed, args.cpu)
    if args.only in (None, "self"):
        run_match(
            PlayerSpec("engine", depth=deep), PlayerSpec("engine", depth=shallow), games, args.jobs, args.seed, args.cpu
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
