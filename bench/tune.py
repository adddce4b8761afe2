"""Fitting the evaluation's weights on the master games, and checking the fit in play.

    .venv/bin/python bench/tune.py                      # fit, then 32 games: ~3 min
    .venv/bin/python bench/tune.py --games-at 20000 --match 64

Positions: every position of the games of ``../shared/data/*.pdn`` from their tenth ply
on where the side to move has no capture (a quiet position, the kind the evaluation
scores), labelled by the game's result from the side to move's view (won 1, drawn 1/2,
lost 0). The model is logistic: the chance of winning is ``1 / (1 + 10 ** (-e / K))``
with ``e`` the evaluation (``crownhead.rules.engine.evaluation``, through the native core's copy
for speed), ``K`` fitted first; then each scalar weight (the king's value, the trading
bonus, mobility, the move, the drive, trapped kings, the move in endings, the bridge)
and a scale of the square tables of each phase are moved in turn, a step up or down,
while the mean log-loss falls (coordinate descent), with half the games held out to
check the fit is not only of the games it was fitted on.

Then the fitted weights play the shipped ones, a match at a node budget a move (the
same games on any machine; both the native core, the weights swapped between moves),
each of a spread sample of ballots with both colours. The weights are kept in
``rules/engine/evaluation.py`` only when they win that match (docs/engine.md says what
was measured).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.engine_native import elo  # noqa: E402
from bench.games import game_end  # noqa: E402
from crownhead.rules import WCDF, Color, Game, Position, movegen  # noqa: E402
from crownhead.rules.ballots import deck  # noqa: E402
from crownhead.rules.engine import Engine, evaluation, native  # noqa: E402
from crownhead.rules.pdn import read_games  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SCALARS = ("king_value", "trade_bonus", "mobility", "the_move", "drive", "trapped_king", "ending_move", "bridge")
TABLES = ("black_men", "white_men", "black_kings", "white_kings")

Sample = tuple[int, int, int, bool, int, float]  # own, opp, kings, black, mobility, label


def positions(folder: Path) -> tuple[list[Sample], list[Sample]]:
    """Quiet positions of the games, alternate games to the fit and the check."""
    fit: list[Sample] = []
    check: list[Sample] = []
    number = 0
    for path in sorted(folder.glob("*.pdn")):
        for game in read_games(path.read_text(encoding="utf-8", errors="replace"), source=path.name):
            if game.result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            number += 1
            out = fit if number % 2 else check
            position = game.start
            for ply, move in enumerate(game.moves):
                if ply >= 10:
                    black = position.turn == Color.BLACK
                    own, opp = (position.black, position.white) if black else (position.white, position.black)
                    if not movegen.jumpers(own, opp, position.kings, black):
                        mobility = movegen.count_quiet(own, opp, position.kings, black)
                        if mobility:
                            label = 0.5 if game.result == "1/2-1/2" else float((game.result == "1-0") == black)
                            out.append((own, opp, position.kings, black, mobility, label))
                position = position.apply(move, game.rules)
    return fit, check


def scaled(weights: dict, scales: list[float]) -> dict:
    """The weights with each phase's square tables scaled."""
    out = dict(weights)
    for name in TABLES:
        values = list(weights[name])
        out[name] = [round(v * scales[i // 33]) for i, v in enumerate(values)]
    return out


def loss(samples: list[Sample], weights: dict, k: float) -> float:
    core = native.module()
    assert core is not None
    core.set_weights(weights)
    evaluate = core.evaluate
    total = 0.0
    for own, opp, kings, black, mobility, label in samples:
        p = 1 / (1 + 10 ** (-evaluate(own, opp, kings, black, mobility) / k))
        p = min(max(p, 1e-6), 1 - 1e-6)
        total -= label * math.log(p) + (1 - label) * math.log(1 - p)
    return total / len(samples)


def fit(samples: list[Sample], check: list[Sample], rounds: int) -> tuple[dict, float]:
    base = evaluation.native_weights()
    k = min((400.0 * 1.25**i for i in range(-6, 8)), key=lambda k: loss(samples, base, k))
    print(f"K = {k:.0f}: log-loss {loss(samples, base, k):.5f} on the fit, {loss(check, base, k):.5f} held out")
    weights = dict(base)
    scales = [1.0, 1.0, 1.0]
    best = loss(samples, weights, k)
    for r in range(rounds):
        moved = False
        for name in SCALARS:
            for step in (1.25, 0.8):
                trial = dict(weights)
                trial[name] = max(0, round(weights[name] * step)) if weights[name] else 4
                value = loss(samples, scaled(trial, scales), k)
                if value < best - 1e-6:
                    best, weights, moved = value, trial, True
                    break
        for phase in range(3):
            for step in (1.25, 0.8):
                trial_scales = list(scales)
                trial_scales[phase] *= step
                value = loss(samples, scaled(weights, trial_scales), k)
                if value < best - 1e-6:
                    best, scales, moved = value, trial_scales, True
                    break
        print(f"round {r + 1}: log-loss {best:.5f}", flush=True)
        if not moved:
            break
    tuned = scaled(weights, scales)
    changed = {n: (base[n], tuned[n]) for n in SCALARS if base[n] != tuned[n]}
    print(f"fitted: {changed}, square tables by phase x{scales[0]:.2f}, x{scales[1]:.2f}, x{scales[2]:.2f}")
    print(f"held out: log-loss {loss(check, base, k):.5f} shipped, {loss(check, tuned, k):.5f} fitted")
    return tuned, k


def play(black: tuple[Engine, dict], white: tuple[Engine, dict], opening: Position, nodes: int) -> float:
    core = native.module()
    assert core is not None
    game = Game(opening, WCDF)
    while True:
        end = game_end(game)
        if end is not None:
            return {"1-0": 1.0, "0-1": 0.0}.get(end.score, 0.5)
        engine, weights = black if game.turn == Color.BLACK else white
        core.set_weights(weights)
        result = engine.search(game.position, history=game.positions[:-1], nodes=nodes)
        assert result.move is not None
        game.play(result.move)


def match(tuned: dict, games: int, nodes: int) -> None:
    shipped = evaluation.native_weights()
    ballots = deck()[:: max(1, len(deck()) // max(1, games // 2))][: max(1, games // 2)]
    scores = []
    for b in ballots:
        for tuned_black in (True, False):
            a = (Engine(native_core=True, seed=b.number), tuned)
            z = (Engine(native_core=True, seed=b.number), shipped)
            s = play(a, z, b.position(WCDF), nodes) if tuned_black else 1 - play(z, a, b.position(WCDF), nodes)
            scores.append(s)
        print(f"  ballot {b.number}: so far {sum(scores)}/{len(scores)}", flush=True)
    native.reload_weights()
    n = len(scores)
    share = sum(scores) / n
    wins, draws = scores.count(1.0), scores.count(0.5)
    print(
        f"fitted against shipped at {nodes:,} nodes a move, {n} games: +{wins} ={draws} -{n - wins - draws}, "
        f"{share:.1%}, {elo(share, n, scores)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=Path, default=DATA, help="the folder of PDN games (../shared/data)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of coordinate descent (6)")
    parser.add_argument("--match", type=int, default=32, help="games of the check match (32; 0: none)")
    parser.add_argument("--games-at", type=int, default=20_000, help="nodes a move in the match (20,000)")
    args = parser.parse_args(argv)
    if not native.built():
        print(native.describe())
        return 1
    samples, check = positions(args.games)
    print(f"{len(samples):,} quiet positions to fit, {len(check):,} held out")
    tuned, _k = fit(samples, check, args.rounds)
    native.reload_weights()
    if args.match:
        match(tuned, args.match, args.games_at)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
