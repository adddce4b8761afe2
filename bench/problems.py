"""Problem benchmark: the engine plays both sides of the published problems.

    python bench/problems.py                         # every problem at 100, 300, 1000 ms
    python bench/problems.py --movetime 300 --sample 120 --jobs 2
    python bench/problems.py --files goulds,gem --movetime 100
    python bench/problems.py --egdb shipped          # with the shipped endgame databases
    python bench/problems.py --as-installed --random 200 --movetime 300   # what a user gets
    python bench/problems.py --analyse --random 200 --movetime 300 --jobs 1 # the command
    python bench/problems.py --pieces 6 --movetime 300 --egdb DIR   # six pieces only
    python bench/problems.py --sample 60 --speed 30000 --egdb shipped   # nodes a second
    python bench/problems.py --movetime 1000 --progress 2> run.log  # stopped part way...
    python bench/problems.py --movetime 1000 --resume run.log       # ...and finished

Each problem of ``../shared/data/problems/*.pdn`` is a position (its FEN) and a stated
result: ``1-0`` Black wins, ``0-1`` White wins, ``1/2-1/2`` a draw (whoever is to move
holds it). The engine plays both sides from the position at a fixed time per move, with
the game's earlier positions as its repetition history. The game ends:

* when the side to move has no legal move (it has lost);
* in a draw by threefold repetition, or after 80 plies in a row without a man moving or
  a capture (the 40-move rule), or after 200 plies.

A problem is solved when the game ends with the stated result: the winning side
converted, or the defending side held the draw. Two problems have no position (one FEN
lost its pieces in the source, one is a whole game from the start) and are skipped, so
the full set is 1,030 problems. A man given on the row where it would be crowned (six
problems) is taken as a king: the rules crown a man there, so none can stand on it.

A whole-set run at 1 s a move takes hours. ``--progress`` writes a line per finished
problem, and ``--resume LOG`` (which may be given more than once) takes the outcomes such
a log reports for the times being run instead of playing those problems again: the
figures printed are of the whole set, the time only of what this run played.

The engine's time is its process's CPU time (``--wall`` for the wall clock), so a
machine busy with other work gives the same figures, only later.

``--sample N`` takes N problems spread evenly over every file (the same N each run), so
a quick run says about the same as the full set; ``--random N`` takes N at random
(``--seed``), so that no sample is tuned for. ``--as-installed`` gives the engine the
tables a fresh install has (those shipped with the package: nothing is built at the
first start), which is the figure the README gives. ``--analyse`` plays every move by
running ``crownhead analyse --movetime T --fen FEN --moves ...`` in a new process, as a
script driving the installed command would: the same engine and tables, timed by the
wall clock from the start of each process (so Python's start-up, the tables opened and
every block read again come out of each move's time), which needs a quiet machine
(``--jobs 1``). The figures are printed overall and per
file with the wall time, then the failures (file, number, FEN, stated and reached
result, how the game ended). On a Raspberry Pi 4, pure Python is 5-10 times slower per
core: 300 ms here is about 1.5-3 s a move there.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.rules import WCDF, Color, Game, Move, Position  # noqa: E402
from crownhead.rules.engine import Engine, native  # noqa: E402
from bench.games import MAX_PLIES, game_end  # noqa: E402
from crownhead.rules.pdn import read_games  # noqa: E402
from crownhead.rules.move import BLACK_CROWN_ROW, WHITE_CROWN_ROW  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = REPO.parent / "shared" / "data" / "problems"
RESULTS = ("1-0", "0-1", "1/2-1/2")


@dataclass(frozen=True)
class Problem:
    file: str
    number: int
    fen: str
    result: str  # the stated result


@dataclass(frozen=True)
class Outcome:
    problem: Problem
    movetime: int
    result: str  # the result reached
    reason: str
    plies: int
    seconds: float

    @property
    def solved(self) -> bool:
        return self.result == self.problem.result


def load(folder: Path, files: list[str] | None = None) -> list[Problem]:
    """Every problem with a position and a stated result, file by file."""
    problems = []
    paths = sorted(folder.glob("*.pdn"))
    if not paths:
        raise SystemExit(f"no problem files in {folder}")
    for path in paths:
        if files and path.stem not in files:
            continue
        for game in read_games(path.read_bytes(), path.name):
            fen = game.tag("FEN")
            result = game.tag("Result") or game.result
            if fen is None or result not in RESULTS:
                continue
            start = Position.from_fen(fen)
            if not start.count(Color.BLACK) or not start.count(Color.WHITE):
                continue  # the diagram was lost in the source
            problems.append(Problem(path.stem, game.number, crowned(start).fen(), result))
    return problems


def crowned(position: Position) -> Position:
    """``position`` with any man on its crowning row made a king.

    A man that reaches the far row is crowned (WCDF 1.16), so none can stand there; six
    problems are given so all the same (beginner #10 has a White man on 1, for a White
    win that needs a king there). Taken as given, such a man could never move again.
    """
    stuck = (position.black & ~position.kings & BLACK_CROWN_ROW) | (position.white & ~position.kings & WHITE_CROWN_ROW)
    return position._replace(kings=position.kings | stuck) if stuck else position


def pieces_of(problem: Problem) -> int:
    start = Position.from_fen(problem.fen)
    return (start.black | start.white).bit_count()


def pieces_range(text: str) -> tuple[int, int]:
    """``--pieces``: ``6`` or ``2-6``."""
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of pieces or a range: {text!r}") from None
    if not 2 <= bounds[0] <= bounds[1] <= 24:
        raise argparse.ArgumentTypeError(f"pieces must run from 2 up to 24: {text!r}")
    return bounds


#: A line of ``--progress``: ``[12/1030] 1000 ms lpc #3 solved: stated 0-1, reached 0-1
#: (no-moves, 67 plies, 5 s)``; a game cut off by the ply limit ends ``(200 plies, 200
#: plies, 150 s)``.
_PROGRESS = re.compile(
    r"\[\d+/\d+\] (?P<limit>\d+) (?P<unit>ms|nodes) (?P<file>\S+) #(?P<number>\d+) "
    r"(?:solved|FAILED): stated (?P<stated>\S+), reached (?P<reached>\S+) "
    r"\((?P<reason>[^,()]+), (?P<plies>\d+) plies, (?P<seconds>\d+) s\)"
)
#: Longer than any line ``--progress`` writes: a log is read a bounded line at a time.
_LINE_LIMIT = 1024


class LogError(ValueError):
    """A ``--resume`` log that cannot be taken as it is."""


def read_log(path: Path, problems: list[Problem], unit: str) -> dict[tuple[Problem, int], Outcome]:
    """The outcomes a ``--progress`` log reports for ``problems``, by (problem, time).

    Lines that are no report (a warning, a traceback of a stopped run) are passed over,
    and so are reports in another unit (nodes instead of ms) or of problems this run does
    not play (``--files``, ``--sample``). A report whose stated result differs from the
    problem files' is an error naming the line: the log is of another problem set.
    """
    by_name = {(p.file, p.number): p for p in problems}
    found: dict[tuple[Problem, int], Outcome] = {}
    try:
        log = path.open(encoding="utf-8", errors="replace")
    except OSError as error:
        raise LogError(f"{path}: cannot be read ({error.strerror})") from None
    with log:
        number = 0
        while True:
            line = log.readline(_LINE_LIMIT)
            if not line:
                break
            number += 1
            if len(line) >= _LINE_LIMIT - 1 and not line.endswith("\n"):
                raise LogError(f"{path}:{number}: a line longer than {_LINE_LIMIT} characters; not a --progress log")
            match = _PROGRESS.fullmatch(line.strip())
            if match is None or match["unit"] != unit:
                continue
            problem = by_name.get((match["file"], int(match["number"])))
            if problem is None:
                continue  # a file or a number this run does not play (--files, --sample)
            if problem.result != match["stated"]:
                raise LogError(
                    f"{path}:{number}: {problem.file} #{problem.number} is stated "
                    f"{match['stated']} there, {problem.result} in the problem files"
                )
            limit = int(match["limit"])
            found[problem, limit] = Outcome(
                problem, limit, match["reached"], match["reason"], int(match["plies"]), float(match["seconds"])
            )
    return found


def sample(problems: list[Problem], n: int) -> list[Problem]:
    """``n`` problems spread evenly over the list (every file gets its share)."""
    if n >= len(problems):
        return problems
    step = len(problems) / n
    return [problems[int(i * step + step / 2)] for i in range(n)]


def drawn(problems: list[Problem], n: int, seed: int) -> list[Problem]:
    """``n`` problems drawn at random (the same for the same seed), in the files' order."""
    chosen = set(random.Random(seed).sample(range(len(problems)), min(n, len(problems))))
    return [p for i, p in enumerate(problems) if i in chosen]


_probe = None
_cpu_clock = True
_nodes = False
_analyse = False


def cpu_ms() -> float:
    """This process's CPU time in milliseconds: the engine's time on a shared machine."""
    return time.process_time() * 1000


def _init_worker(egdb: str | None, cpu: bool, nodes: bool = False, analyse: bool = False) -> None:
    global _probe, _cpu_clock, _nodes, _analyse
    _cpu_clock = cpu
    _nodes = nodes
    _analyse = analyse
    if egdb:
        from crownhead.firmware.egdb import SHIPPED, load_probe

        _probe = load_probe(SHIPPED if egdb in ("shipped", "as-installed") else Path(egdb))


def play(task: tuple[Problem, int]) -> Outcome:
    problem, movetime = task
    limits = {"nodes": movetime} if _nodes else {"movetime_ms": movetime}
    started = time.monotonic()
    game = Game(Position.from_fen(problem.fen), WCDF)
    clock = cpu_ms if _cpu_clock else None
    engine = Engine(seed=0, egdb=_probe, clock=clock)
    while True:
        over = game_end(game, MAX_PLIES)
        if over is not None:
            break
        if _analyse:
            game.play(analysed(problem.fen, game, movetime))
            continue
        found = engine.search(game.position, history=game.positions[:-1], **limits)  # type: ignore[arg-type]
        assert found.move is not None
        game.play(found.move)
    result, reason = over.score, over.reason
    return Outcome(problem, movetime, result, reason, game.ply, time.monotonic() - started)


#: The state directory ``crownhead analyse`` is given: one that does not exist, as on a
#: fresh install (a board's own, /var/lib/crownhead, would be preferred to it).
_FRESH_STATE = str(Path(tempfile.gettempdir()) / f"crownhead-fresh-{os.getpid()}")


def crownhead() -> list[str]:
    """The installed command beside this Python (``python -m crownhead`` without it)."""
    script = Path(sys.executable).with_name("crownhead")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "crownhead"]


def analysed(fen: str, game: Game, movetime: int) -> Move:
    """The move ``crownhead analyse`` gives in a new process for the game so far."""
    command = [*crownhead(), "analyse", "--fen", fen, "--movetime", str(movetime)]
    if game.moves:
        command += ["--moves", " ".join(m.pdn(full=True) for m in game.moves)]
    env = {**os.environ, "XDG_STATE_HOME": _FRESH_STATE}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
    line = json.loads(done.stdout)
    return Move(tuple(line["path"]), tuple(line["captures"]))


def _progress(outcome: Outcome, done: int, total: int, show: bool, unit: str = "ms") -> Outcome:
    """One line per finished problem on stderr (with --progress), so a long run that is
    stopped still says what it measured."""
    if show:
        p = outcome.problem
        mark = "solved" if outcome.solved else "FAILED"
        print(
            f"[{done + 1}/{total}] {outcome.movetime} {unit} {p.file} #{p.number} {mark}: stated "
            f"{p.result}, reached {outcome.result} ({outcome.reason}, {outcome.plies} plies, "
            f"{outcome.seconds:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    return outcome


def report(
    outcomes: list[Outcome], movetime: int, elapsed: float, jobs: int, failures: int, unit: str = "ms", resumed: int = 0
) -> None:
    solved = sum(o.solved for o in outcomes)
    earlier = f"; {resumed} of them from earlier runs" if resumed else ""
    print(
        f"{movetime} {unit} a move: {solved}/{len(outcomes)} solved = "
        f"{100 * solved / max(len(outcomes), 1):.1f}% in {elapsed:.0f} s "
        f"({jobs} processes{earlier})"
    )
    files = sorted({o.problem.file for o in outcomes})
    for name in files:
        mine = [o for o in outcomes if o.problem.file == name]
        ok = sum(o.solved for o in mine)
        print(f"  {name:16} {ok:4}/{len(mine):<4} = {100 * ok / len(mine):5.1f}%")
    by_stated: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_stated.setdefault(o.problem.result, []).append(o)
    print(
        "  by stated result: "
        + ", ".join(f"{r} {sum(o.solved for o in v)}/{len(v)}" for r, v in sorted(by_stated.items()))
    )
    by_pieces: dict[str, list[Outcome]] = {}
    for o in outcomes:
        n = pieces_of(o.problem)
        by_pieces.setdefault("<=4" if n <= 4 else str(n) if n <= 8 else "9+", []).append(o)
    order = ["<=4", "5", "6", "7", "8", "9+"]
    print(
        "  by pieces on the board: "
        + ", ".join(f"{k} {sum(o.solved for o in by_pieces[k])}/{len(by_pieces[k])}" for k in order if k in by_pieces)
    )
    failed = [o for o in outcomes if not o.solved]
    for o in failed[:failures]:
        p = o.problem
        print(
            f"  failed: {p.file} #{p.number} {p.fen} stated {p.result}, reached "
            f"{o.result} ({o.reason}, {o.plies} plies)"
        )
    if len(failed) > failures:
        print(f"  ... and {len(failed) - failures} more failures")
    sys.stdout.flush()


def speed(problems: list[Problem], nodes: int, egdb: str | None) -> None:
    """Search each problem's position once at a budget of ``nodes`` (a fresh engine each,
    in this process) and print the nodes per second of CPU time and the mean depth:
    the engine's speed in endings, where the games of this benchmark are decided."""
    _init_worker(egdb, True, True)
    total = 0
    cpu = 0.0
    depths = []
    for problem in problems:
        engine = Engine(seed=0, egdb=_probe)
        position = Position.from_fen(problem.fen)
        engine.search(position, depth=1)  # any table a first probe reads, read outside the clock
        started = time.process_time()
        result = engine.search(position, nodes=nodes)
        cpu += time.process_time() - started
        total += result.nodes
        depths.append(result.depth)
    print(
        f"speed: {len(problems)} positions at {nodes:,} nodes: {total:,} nodes in "
        f"{cpu:.2f} s of CPU = {total / max(cpu, 1e-9):,.0f} nodes/s, mean depth "
        f"{sum(depths) / max(len(depths), 1):.2f}"
    )
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    # CROWNHEAD_ENGINE=python: the pure-Python search, as the crownhead command reads it.
    native.choose(os.environ.get(native.ENV))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", default="100,300,1000", help="engine ms per move, comma-separated (100,300,1000)")
    parser.add_argument("--sample", type=int, help="play only N problems spread over the files")
    parser.add_argument("--random", type=int, metavar="N", help="play only N problems drawn at random (--seed)")
    parser.add_argument("--seed", type=int, default=1, help="which --random problems (default 1)")
    parser.add_argument("--files", help="only these files (stems, comma-separated)")
    parser.add_argument(
        "--pieces",
        type=pieces_range,
        metavar="N or LO-HI",
        help="only the problems with this many pieces on the board (6, or 2-6)",
    )
    parser.add_argument(
        "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="problems played at once (default 2)"
    )
    parser.add_argument("--failures", type=int, default=1000, help="list at most this many failures per time (all)")
    tables = parser.add_mutually_exclusive_group()
    tables.add_argument(
        "--egdb",
        help="endgame databases to probe: 'shipped' (the "
        "tables in firmware/egdb/tables) or a folder built by `crownhead "
        "egdb build`; default: none",
    )
    tables.add_argument(
        "--as-installed", action="store_true", help="the tables a fresh install probes (the shipped ones)"
    )
    parser.add_argument(
        "--nodes",
        help="instead of a time, this many positions searched a "
        "move, comma-separated: the same moves on any machine and load, for "
        "comparing two versions of the engine",
    )
    parser.add_argument(
        "--speed",
        type=int,
        metavar="NODES",
        help="only measure the search's speed: each position searched once "
        "at this node budget, nodes per CPU second and mean depth printed",
    )
    parser.add_argument(
        "--analyse",
        action="store_true",
        help="play each move by running `crownhead analyse` in a new process "
        "(the tables a fresh install has; the wall clock)",
    )
    parser.add_argument(
        "--wall",
        action="store_true",
        help="time the engine by the wall clock (default: by its process's "
        "CPU time, so other work on the machine does not change the figures)",
    )
    parser.add_argument("--progress", action="store_true", help="a line on stderr as each problem finishes")
    parser.add_argument(
        "--resume",
        type=Path,
        action="append",
        default=[],
        metavar="LOG",
        help="take the outcomes a --progress log of an earlier run reports "
        "instead of playing those problems again (may be repeated)",
    )
    parser.add_argument(
        "--problems", type=Path, default=PROBLEMS, help="the folder of problem files (../shared/data/problems)"
    )
    args = parser.parse_args(argv)
    problems = load(args.problems, args.files.split(",") if args.files else None)
    if args.pieces:
        low, high = args.pieces
        problems = [p for p in problems if low <= pieces_of(p) <= high]
    if args.sample:
        problems = sample(problems, args.sample)
    if args.random:
        problems = drawn(problems, args.random, args.seed)
    if args.as_installed or args.analyse:
        args.egdb = "as-installed"
    if args.analyse:
        if args.nodes is not None or args.speed:
            parser.error("--analyse plays by time: not with --nodes or --speed")
        args.wall = True
    if args.speed:
        speed(problems, args.speed, args.egdb)
        return 0
    by_nodes = args.nodes is not None
    times = [int(t) for t in (args.nodes if by_nodes else args.movetime).split(",")]
    unit = "nodes" if by_nodes else "ms"
    limit = (
        "a node budget"
        if by_nodes
        else "crownhead analyse, a new process a move, by the wall clock"
        if args.analyse
        else "wall clock"
        if args.wall
        else "CPU time"
    )
    tables = "none"
    if args.egdb:
        from crownhead.firmware.egdb import describe

        _init_worker(args.egdb, True)
        tables = f"{args.egdb} ({describe(_probe)})"
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.jobs} processes, "
        f"{len(problems)} problems, endgame databases: {tables}, "
        f"engine {'limited by' if by_nodes else 'timed by'} {limit}, {native.describe()}"
    )
    earlier: dict[tuple[Problem, int], Outcome] = {}
    for log in args.resume:
        try:
            earlier.update(read_log(log, problems, unit))
        except LogError as error:
            parser.error(str(error))
    for movetime in times:
        outcomes = [earlier[p, movetime] for p in problems if (p, movetime) in earlier]
        resumed = len(outcomes)
        tasks = [(p, movetime) for p in problems if (p, movetime) not in earlier]
        started = time.monotonic()
        if args.jobs > 1:
            with multiprocessing.Pool(
                args.jobs, _init_worker, (args.egdb, not args.wall, by_nodes, args.analyse)
            ) as pool:
                for outcome in pool.imap_unordered(play, tasks, chunksize=1):
                    outcomes.append(_progress(outcome, len(outcomes), len(problems), args.progress, unit))
        else:
            _init_worker(args.egdb, not args.wall, by_nodes, args.analyse)
            for task in tasks:
                outcomes.append(_progress(play(task), len(outcomes), len(problems), args.progress, unit))
        order = {p: i for i, p in enumerate(problems)}
        outcomes.sort(key=lambda o: order[o.problem])
        report(outcomes, movetime, time.monotonic() - started, args.jobs, args.failures, unit, resumed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
