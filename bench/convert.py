"""Won endings converted: the engine with a set of tables against a defender with distances.

    python bench/convert.py --tables shipped --defender DIR --pieces 6 --per 10 --nodes 20000
    python bench/convert.py --tables DIR5 --defender DIR6 --pieces 5 --per 20 --movetime 300

Random positions of every material of ``--pieces`` pieces that the defender's tables
(built with distances: ``crownhead egdb build``) call won for the side to move, quiet
(no capture on) and outside the smaller tables' reach, are played out: the engine with
``--tables`` (``shipped``: the tables a fresh install has, or a folder) plays the winning
side; the defender plays every move its tables give as the longest loss, so each game
is the hardest the win can be. A game ends as bench/games.py says (no move, threefold
repetition, the 40-move rule, 200 plies). Printed: the share converted overall and by
material, the plies taken against the plies the tables say the win needs with best play
on both sides, and every failure with its FEN and how it ended. A win/draw/loss table
(what ships for five and six pieces) says only that a position is won: the engine must
find the way by itself (docs/engine.md, "Tables without distances"), and this measures
whether it does.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.games import MAX_PLIES, game_end  # noqa: E402
from crownhead.firmware.egdb import SHIPPED, load_probe  # noqa: E402
from crownhead.rules import WCDF, Color, Game, Position  # noqa: E402
from crownhead.rules.engine import Engine  # noqa: E402
from crownhead.rules.engine.egdb import EndgameTables, boards_of, flip, materials, size_of  # noqa: E402
from crownhead.rules.movegen import jumpers  # noqa: E402


def load(tables: str) -> EndgameTables | None:
    """``shipped`` (what a fresh install probes) or a folder."""
    if tables == "shipped":
        return load_probe(SHIPPED)
    if tables == "none":
        return None
    return load_probe(Path(tables))


def won_positions(probe: EndgameTables, pieces: int, per: int, seed: int) -> list[str]:
    """``per`` random quiet positions of each material of ``pieces`` pieces won by the side
    to move (as FEN, Black or White to move by turns)."""
    rng = random.Random(seed)
    out = []
    for material in materials(pieces):
        if sum(material) != pieces:
            continue
        found = 0
        for _ in range(per * 400):
            if found == per:
                break
            boards = boards_of(rng.randrange(size_of(material)), material)
            if boards is None:
                continue
            own, opp, kings = boards
            if jumpers(own, opp, kings, True):
                continue
            value = probe.value(own, opp, kings, True)
            if value is None or not value or value & 1:
                continue  # not won by the side to move
            position = Position(black=own, white=opp, kings=kings, turn=Color.BLACK)
            if found % 2:  # every other one turned round: White to move
                position = Position(black=flip(opp), white=flip(own), kings=flip(kings), turn=Color.WHITE)
            out.append(position.fen())
            found += 1
    return out


_winner: EndgameTables | None = None
_defender: EndgameTables | None = None
_limits: dict[str, float] = {}


def _init(tables: str, defender: str, limits: dict[str, float]) -> None:
    global _winner, _defender, _limits
    _winner = load(tables)
    _defender = load_probe(Path(defender))
    _limits = limits


def play(fen: str) -> tuple[str, str, str, int, int]:
    """(fen, result, reason, plies, the plies the tables give the win)."""
    start = Position.from_fen(fen)
    game = Game(start, WCDF)
    winner_color = start.turn
    winner = Engine(seed=0, egdb=_winner, clock=lambda: time.process_time() * 1000)
    defender = Engine(seed=0, egdb=_defender)
    assert _defender is not None
    best = _defender.probe_position(start)
    needed = best[1] if best is not None else -1
    while True:
        over = game_end(game, MAX_PLIES)
        if over is not None:
            break
        engine = winner if game.position.turn == winner_color else defender
        limits = _limits if engine is winner else {"depth": 2}
        found = engine.search(game.position, history=game.positions[:-1], **limits)  # type: ignore[arg-type]
        assert found.move is not None
        game.play(found.move)
    won = "1-0" if winner_color == Color.BLACK else "0-1"
    return fen, "won" if over.score == won else over.score, over.reason, game.ply, needed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tables", default="shipped", help="the winning engine's tables: shipped (default), none, or a folder"
    )
    parser.add_argument(
        "--defender", required=True, type=Path, help="a folder of tables with distances covering --pieces"
    )
    parser.add_argument("--pieces", type=int, default=6, help="pieces on the board (default 6)")
    parser.add_argument("--per", type=int, default=10, help="positions a material (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help="the winner's node budget a move")
    limit.add_argument("--movetime", type=int, help="the winner's CPU ms a move (default 300)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    limits: dict[str, float] = {"nodes": args.nodes} if args.nodes else {"movetime_ms": args.movetime or 300}
    defender = load_probe(args.defender)
    if defender is None or defender.pieces < args.pieces:
        parser.error(f"{args.defender}: no tables of {args.pieces} pieces with distances")
    fens = won_positions(defender, args.pieces, args.per, args.seed)
    started = time.monotonic()
    print(f"{len(fens)} won positions of {args.pieces} pieces, the winner with tables {args.tables}, {limits}")
    sys.stdout.flush()
    init = (args.tables, str(args.defender), limits)
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs, _init, init) as pool:
            outcomes = pool.map(play, fens, chunksize=1)
    else:
        _init(*init)
        outcomes = [play(f) for f in fens]
    by_material: dict[str, list[bool]] = {}
    for fen, result, _reason, _plies, _needed in outcomes:
        p = Position.from_fen(fen)
        own, opp = (p.black, p.white) if p.turn == Color.BLACK else (p.white, p.black)
        key = (
            f"{(own & ~p.kings).bit_count()}{(own & p.kings).bit_count()}"
            f"{(opp & ~p.kings).bit_count()}{(opp & p.kings).bit_count()}"
        )
        by_material.setdefault(key, []).append(result == "won")
    won = [o for o in outcomes if o[1] == "won"]
    print(
        f"converted {len(won)}/{len(outcomes)} = {100 * len(won) / max(len(outcomes), 1):.1f}% "
        f"in {time.monotonic() - started:.0f} s"
    )
    if won:
        ratio = sum(o[3] for o in won) / max(sum(o[4] for o in won), 1)
        print(f"  plies taken {sum(o[3] for o in won)} against {sum(o[4] for o in won)} with best play ({ratio:.2f}x)")
    print("  by material: " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_material.items())))
    for fen, result, reason, plies, needed in outcomes:
        if result != "won":
            print(f"  not converted: {fen} ({result}, {reason}, {plies} plies; won in {needed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
