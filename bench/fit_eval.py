"""The evaluation's weights fitted on data: self-play games labelled by their results
and by the shipped endgame tables.

    .venv/bin/python bench/fit_eval.py play --games 4000 --nodes 4000 --out selfplay.npz
    .venv/bin/python bench/fit_eval.py fit --data selfplay.npz --out rules/engine/weights.py
    .venv/bin/python bench/fit_eval.py match --candidate rules/engine/weights.py --base old.json

* **play**: games of the native engine against itself at a node budget a move, from the
  ACF ballots (the whole deck, in turn), with a random move now and then in the first
  plies after the ballot (so that no two games are alike and the engine sees positions
  it would not choose), the tables probed. A game ends as bench/games.py ends it, or as
  soon as it reaches the shipped tables (six pieces or fewer), which then give its
  result. Every quiet position (no capture for either side) from the ballot on is kept,
  labelled with the game's result from the side to move's view (won 1, drawn 1/2, lost
  0), and where the tables cover it, with the tables' value instead.
* **fit**: the evaluation is linear in the weights fitted (:func:`features` gives, for
  each position, how much each weight counts in it), so the weights are fitted
  by logistic regression (Texel's method): the chance of winning is
  ``1 / (1 + exp(-e / K))`` with ``e`` the evaluation, ``K`` fitted for the weights in
  use first; then all weights at once by gradient descent on the mean log-loss with a
  small L2 pull towards the weights in use, a tenth of the games held out, the step
  with the best held-out loss kept (``--patterns``: the two-row patterns as well).
  ``--out`` writes the rounded weights, as JSON or (a ``.py`` path) as a module like
  ``rules/engine/weights.py``, the data both searches read (the terms not fitted
  copied from it).
* **match**: the weights of a file against the shipped ones, both the native core, at a
  node budget a move (the same games on any machine), ballots with both colours; the
  score and its Elo with a 95% interval (bench/engine_native.py's).

Times on this machine (2 cores, at a load of 5-12): play, 4,000 games at 4,000 nodes a
move, 50 minutes (one process); fit, a minute; match, 64 games at 20,000 nodes, 5-12
minutes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.engine_native import elo  # noqa: E402
from bench.games import game_end  # noqa: E402
from crownhead.rules import Color, Game, movegen  # noqa: E402
from crownhead.rules.ballots import deck  # noqa: E402
from crownhead.rules.engine import Engine, evaluation, native  # noqa: E402
from crownhead.rules.engine.egdb import LOST, WON  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def table_result(probe: object, own: int, opp: int, kings: int, black: bool) -> float | None:
    """The tables' verdict from the side to move's view (1 won, 1/2 drawn, 0 lost)."""
    value = probe.value(own, opp, kings, black)  # type: ignore[attr-defined]
    if value is None:
        return None
    if value == 0:
        return 0.5
    if value == WON:
        return 1.0
    if value == LOST:
        return 0.0
    return 1.0 if (value - 1) % 2 else 0.0


def quiet(own: int, opp: int, kings: int, black: bool) -> bool:
    """Neither side has a capture."""
    return not movegen.jumpers(own, opp, kings, black) and not movegen.jumpers(opp, own, kings, not black)


def as_arrays(rows: list[tuple[int, int, int, int, int, int]], labels: list[float]) -> dict[str, np.ndarray]:
    data = np.array(rows, dtype=np.int64).reshape(-1, 6)
    return {
        "own": data[:, 0],
        "opp": data[:, 1],
        "kings": data[:, 2],
        "black": data[:, 3],
        "game": data[:, 4],
        "label": np.array(labels, dtype=np.float64),
    }


def self_play(games: int, nodes: int, seed: int, randomness: float, out: Path | None = None) -> dict[str, np.ndarray]:
    from crownhead.firmware.egdb import load_probe

    probe = load_probe()
    rng = random.Random(seed)
    ballots = deck()
    rows: list[tuple[int, int, int, int, int, int]] = []  # own, opp, kings, black, game, ply
    labels: list[float] = []
    started = time.monotonic()
    for number in range(games):
        ballot = ballots[(seed * 7919 + number) % len(ballots)]
        game = Game(ballot.position())
        engine = Engine(native_core=True, seed=rng.randrange(1 << 30), egdb=probe)
        kept: list[tuple[int, int, int, bool]] = []
        result: float | None = None  # Black's points
        while True:
            p = game.position
            black = p.turn == Color.BLACK
            own, opp = (p.black, p.white) if black else (p.white, p.black)
            if probe is not None and (own | opp).bit_count() <= probe.pieces:
                verdict = table_result(probe, own, opp, p.kings, black)
                if verdict is not None:
                    result = verdict if black else 1 - verdict
                    break
            end = game_end(game)
            if end is not None:
                result = {"1-0": 1.0, "0-1": 0.0}.get(end.score, 0.5)
                break
            if quiet(own, opp, p.kings, black):
                kept.append((own, opp, p.kings, black))
            legal = game.legal_moves()
            if game.ply < 24 and rng.random() < randomness:
                move = rng.choice(legal)
            else:
                found = engine.search(p, history=game.positions[:-1], nodes=nodes)
                assert found.move is not None
                move = found.move
            game.play(move)
        for own, opp, kings, black in kept:
            label = result if black else 1 - result
            if probe is not None and (own | opp).bit_count() <= probe.pieces:
                exact = table_result(probe, own, opp, kings, black)
                if exact is not None:
                    label = exact
            rows.append((own, opp, kings, int(black), number + seed * 1_000_000, game.ply))
            labels.append(label)
        if (number + 1) % 100 == 0:
            print(f"  {number + 1} games, {len(rows):,} positions, {time.monotonic() - started:.0f} s", flush=True)
        if out is not None and (number + 1) % 500 == 0:  # what is played so far, usable at once
            np.savez_compressed(out, **as_arrays(rows, labels))
    return as_arrays(rows, labels)


# -- the features: how much each weight counts in a position (Black's view) -------------

#: The weights fitted, in the order of the feature vector.
SCALARS = ("man_value", "king_value", "trade_bonus", "mobility")
N_PHASES = 3
MEN, KINGS = len(SCALARS), len(SCALARS) + 32 * N_PHASES
RUNAWAY = KINGS + 32 * N_PHASES
DENSE = RUNAWAY + 8
#: Patterns: the men of two rows (8 squares, 3**8 arrangements), four regions, by phase.
PATTERN_SIZE = 3**8
TERNARY = np.array([sum(3**j for j in range(8) if byte >> j & 1) for byte in range(256)], dtype=np.int64)
REVERSED = np.array([int(f"{byte:08b}"[::-1], 2) for byte in range(256)], dtype=np.int64)


def current_vector() -> np.ndarray:
    """The weights in use, in the order of the features."""
    w = evaluation.native_weights()
    out = np.zeros(DENSE)
    for i, name in enumerate(SCALARS):
        out[i] = w[name]
    men, kings = w["black_men"], w["black_kings"]
    for phase in range(N_PHASES):
        for s in range(1, 33):
            out[MEN + 32 * phase + s - 1] = men[33 * phase + s]
            out[KINGS + 32 * phase + s - 1] = kings[33 * phase + s]
    runaway = w["black_runaway"]
    for s in range(13, 33):
        out[RUNAWAY + (s - 1) // 4] = runaway[s]
    return out


def features(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dense features (Black's view), the pattern indices and signs, the side to move's
    sign, and the evaluation in use (Black's view) for every position."""
    n = len(data["label"])
    dense = np.zeros((n, DENSE), dtype=np.float32)
    patterns = np.zeros((n, 8), dtype=np.int64)
    signs = np.zeros((n, 8), dtype=np.float32)
    stm = np.where(data["black"] == 1, 1.0, -1.0)
    current = np.zeros(n)
    w = evaluation.native_weights()
    cone_b, cone_w = evaluation._BLACK_CONE, evaluation._WHITE_CONE
    for i in range(n):
        own, opp, kings, black = int(data["own"][i]), int(data["opp"][i]), int(data["kings"][i]), bool(data["black"][i])
        b, wh = (own, opp) if black else (opp, own)
        bm, bk, wm, wk = b & ~kings, b & kings, wh & ~kings, wh & kings
        nbk, nwk = bk.bit_count(), wk.bit_count()
        nb, nw = b.bit_count(), wh.bit_count()
        row = dense[i]
        row[0] = (nb - nbk) - (nw - nwk)
        row[1] = nbk - nwk
        mat_b = w["man_value"] * (nb - nbk) + w["king_value"] * nbk
        mat_w = w["man_value"] * (nw - nwk) + w["king_value"] * nwk
        row[2] = (mat_b - mat_w) / (mat_b + mat_w)
        mobility = movegen.count_quiet(own, opp, kings, black) - movegen.count_quiet(opp, own, kings, not black)
        row[3] = mobility if black else -mobility
        phase = 0 if nb + nw > 16 else (1 if nb + nw > 8 else 2)
        for s in range(1, 33):
            m = 1 << (s - 1)
            if bm & m:
                row[MEN + 32 * phase + s - 1] += 1
                if s > 12 and not wk and not cone_b[s] & wm:
                    row[RUNAWAY + (s - 1) // 4] += 1
            elif wm & m:
                row[MEN + 32 * phase + 32 - s] -= 1
                if s < 21 and not bk and not cone_w[s] & bm:
                    row[RUNAWAY + (32 - s) // 4] -= 1
            elif bk & m:
                row[KINGS + 32 * phase + s - 1] += 1
            elif wk & m:
                row[KINGS + 32 * phase + 32 - s] -= 1
        for k in range(4):
            a, z = bm >> 8 * k & 255, wm >> 8 * k & 255
            patterns[i, k] = (phase * 4 + k) * PATTERN_SIZE + TERNARY[a] + 2 * TERNARY[z]
            signs[i, k] = 1
            a, z = REVERSED[wm >> 8 * (3 - k) & 255], REVERSED[bm >> 8 * (3 - k) & 255]
            patterns[i, 4 + k] = (phase * 4 + k) * PATTERN_SIZE + TERNARY[a] + 2 * TERNARY[z]
            signs[i, 4 + k] = -1
        mob = movegen.count_quiet(own, opp, kings, black)
        e = evaluation.evaluate_boards(own, opp, kings, black, mob)
        current[i] = e if black else -e
    return dense, patterns, signs, stm, current


def log_loss(e_stm: np.ndarray, label: np.ndarray, k: float) -> float:
    p = 1 / (1 + np.exp(-np.clip(e_stm / k, -40, 40)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(label * np.log(p) + (1 - label) * np.log(1 - p)))


def fit_k(e_stm: np.ndarray, label: np.ndarray) -> float:
    best = min((log_loss(e_stm, label, k), k) for k in range(40, 601, 10))
    return float(best[1])


def load(paths: list[Path]) -> dict[str, np.ndarray]:
    parts = [dict(np.load(p)) for p in paths]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def fit(
    paths: list[Path], patterns_on: bool, steps: int, l2: float, l2_patterns: float, cache: Path | None
) -> tuple[np.ndarray, np.ndarray | None, dict[str, float]]:
    """The fitted dense weights and pattern tables, and the losses before and after."""
    data = load(paths)
    if cache is not None and cache.exists():
        with np.load(cache) as c:
            dense, pats, signs, stm, current = (c[k] for k in ("dense", "pats", "signs", "stm", "current"))
    else:
        started = time.monotonic()
        dense, pats, signs, stm, current = features(data)
        print(f"features of {len(stm):,} positions in {time.monotonic() - started:.0f} s", flush=True)
        if cache is not None:
            np.savez(cache, dense=dense, pats=pats, signs=signs, stm=stm, current=current)
    label = data["label"]
    held = (data["game"] * 2654435761 % 10) == 0
    w0 = current_vector()
    offset = current - dense.astype(np.float64) @ w0
    k = fit_k(current * stm, label)
    report = {"k": k, "before_fit": log_loss((current * stm)[~held], label[~held], k)}
    report["before_held"] = log_loss((current * stm)[held], label[held], k)
    print(
        f"K {k}; log-loss with the weights in use: fit {report['before_fit']:.5f}, held out {report['before_held']:.5f}"
    )
    x = dense[~held].astype(np.float64)
    y, o, sg = label[~held], offset[~held], stm[~held]
    pi, ps = pats[~held], signs[~held].astype(np.float64)
    n_pat = N_PHASES * 4 * PATTERN_SIZE
    w = w0.copy()
    p = np.zeros(n_pat)
    # Adam on the mean log-loss; the features' scales differ a lot (counts against the
    # trading ratio), so each weight gets its own step (Adam's) starting from its value.
    m_w, v_w, m_p, v_p = np.zeros_like(w), np.zeros_like(w), np.zeros(n_pat), np.zeros(n_pat)
    rate = 0.5
    best = (float("inf"), w.copy(), p.copy())
    for step in range(1, steps + 1):
        e = o + x @ w
        if patterns_on:
            e = e + (p[pi] * ps).sum(axis=1)
        prob = 1 / (1 + np.exp(-np.clip(sg * e / k, -40, 40)))
        err = (prob - y) * sg / k / len(y)
        g_w = x.T @ err + 2 * l2 * (w - w0)
        m_w = 0.9 * m_w + 0.1 * g_w
        v_w = 0.999 * v_w + 0.001 * g_w * g_w
        w -= rate * (m_w / (1 - 0.9**step)) / (np.sqrt(v_w / (1 - 0.999**step)) + 1e-12)
        if patterns_on:
            g_p = np.bincount(pi.ravel(), weights=(ps * err[:, None]).ravel(), minlength=n_pat)
            g_p += 2 * l2_patterns * p
            m_p = 0.9 * m_p + 0.1 * g_p
            v_p = 0.999 * v_p + 0.001 * g_p * g_p
            p -= rate * (m_p / (1 - 0.9**step)) / (np.sqrt(v_p / (1 - 0.999**step)) + 1e-12)
        if step % 50 == 0 or step == steps:
            e_all = offset + dense @ np.round(w)
            if patterns_on:
                e_all = e_all + (np.round(p)[pats] * signs).sum(axis=1)
            held_loss = log_loss((e_all * stm)[held], label[held], k)
            print(
                f"  step {step}: fit {log_loss((e_all * stm)[~held], label[~held], k):.5f}, held out {held_loss:.5f}",
                flush=True,
            )
            # Early stopping: the weights of the best held-out loss are kept.
            if held_loss < best[0]:
                best = (held_loss, w.copy(), p.copy())
    w, p = best[1], best[2]
    # The kings' table of the ending stays as it is: the games stop at the tables (six
    # pieces), so it is fitted on seven and eight pieces only, and a fitted one no
    # longer drove a lone king out (tests/test_engine_endgame.py, two kings against one).
    ending_kings = slice(KINGS + 32 * 2, KINGS + 32 * 3)
    w[ending_kings] = w0[ending_kings]
    e_all = offset + dense @ np.round(w)
    if patterns_on:
        e_all = e_all + (np.round(p)[pats] * signs).sum(axis=1)
    report["after_fit"] = log_loss((e_all * stm)[~held], label[~held], k)
    report["after_held"] = log_loss((e_all * stm)[held], label[held], k)
    return np.round(w), (np.round(p) if patterns_on else None), report


MODULE = REPO / "rules" / "engine" / "weights.py"
HEADER = '''"""The evaluation's weights (written by bench/fit_eval.py; do not edit by hand).

Read by :mod:`crownhead.rules.engine.evaluation` and, through it, handed to the native core: the
terms, per phase (opening, middle game, ending) and square 1-32 from Black's side what a
man and a king are worth on it, a runaway man by row, and the two-row patterns (by phase
and pair of rows, [index, weight] where not 0). Material, the trading bonus, mobility,
the square tables (but the kings' in the ending) and the runaways were fitted on
self-play games labelled by their results and the endgame tables; the endgame terms on
the tables before (docs/engine.md).
"""

from typing import Any
'''


def read_weights(path: Path) -> dict:
    """A weights file written by ``fit --out``: JSON, or a module like rules/engine/weights.py."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        scope: dict = {}
        exec(compile(text, str(path), "exec"), scope)  # our own generated file
        return evaluation.check_weights(scope["WEIGHTS"])
    return evaluation.check_weights(json.loads(text))


def write_weights(path: Path, w: np.ndarray, p: np.ndarray | None) -> None:
    """The fitted weights over those in use: the terms not fitted stay as they are. A
    ``.py`` path gets a module like rules/engine/weights.py, any other JSON."""
    out = dict(evaluation.check_weights(evaluation.WEIGHTS))
    for i, name in enumerate(SCALARS):
        out[name] = int(w[i])
    out["men"] = [[int(v) for v in w[MEN + 32 * ph : MEN + 32 * ph + 32]] for ph in range(N_PHASES)]
    out["kings"] = [[int(v) for v in w[KINGS + 32 * ph : KINGS + 32 * ph + 32]] for ph in range(N_PHASES)]
    out["runaway"] = [int(v) for v in w[RUNAWAY : RUNAWAY + 8]]
    if p is not None:
        # Sparse: most arrangements of eight squares never occur.
        table = p.reshape(N_PHASES, 4, PATTERN_SIZE)
        out["patterns"] = [
            [[int(i), int(v)] for i, v in enumerate(table[ph, k]) if v] for ph in range(N_PHASES) for k in range(4)
        ]
    else:
        out["patterns"] = [[] for _ in range(12)]
    if path.suffix == ".py":
        # One line a term, a table's phases one a line: the layout ruff format keeps.
        lines = [HEADER, "# fmt: off", "WEIGHTS: dict[str, Any] = {"]
        for key, value in out.items():
            if key in ("men", "kings", "patterns"):
                lines.append(f"    {json.dumps(key)}: [")
                lines.extend(f"        {json.dumps(row, separators=(', ', ': '))}," for row in value)
                lines.append("    ],")
            else:
                lines.append(f"    {json.dumps(key)}: {json.dumps(value, separators=(', ', ': '))},")
        lines += ["}", "# fmt: on"]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        path.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")


def play_weights(black: tuple[Engine, dict], white: tuple[Engine, dict], ballot_position: object, nodes: int) -> float:
    """One game, each side's weights handed to the core before its search; Black's points."""
    core = native.module()
    assert core is not None
    game = Game(ballot_position)  # type: ignore[arg-type]
    while True:
        end = game_end(game)
        if end is not None:
            return {"1-0": 1.0, "0-1": 0.0}.get(end.score, 0.5)
        engine, weights = black if game.turn == Color.BLACK else white
        core.set_weights(weights)
        result = engine.search(game.position, history=game.positions[:-1], nodes=nodes)
        assert result.move is not None
        game.play(result.move)


def match(candidate: Path, games: int, nodes: int, base: Path | None = None) -> None:
    """The weights of ``candidate`` against the shipped ones (or ``base``'s)."""
    from crownhead.firmware.egdb import load_probe

    probe = load_probe()
    ours = evaluation.native_weights(read_weights(candidate))
    theirs = evaluation.native_weights(read_weights(base)) if base else evaluation.native_weights()
    ballots = deck()[:: max(1, len(deck()) // max(1, games // 2))][: max(1, games // 2)]
    scores: list[float] = []
    try:
        for b in ballots:
            for ours_black in (True, False):
                a = (Engine(native_core=True, seed=b.number, egdb=probe), ours)
                z = (Engine(native_core=True, seed=b.number, egdb=probe), theirs)
                if ours_black:
                    scores.append(play_weights(a, z, b.position(), nodes))
                else:
                    scores.append(1 - play_weights(z, a, b.position(), nodes))
            print(f"  ballot {b.number}: so far {sum(scores)}/{len(scores)}", flush=True)
    finally:
        native.reload_weights()
    n = len(scores)
    share = sum(scores) / n
    wins, draws = scores.count(1.0), scores.count(0.5)
    print(
        f"{candidate.name} against {base.name if base else 'the shipped weights'} at {nodes:,} nodes a move, "
        f"{n} games: +{wins} ={draws} -{n - wins - draws}, {share:.1%}, {elo(share, n, scores)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="self-play games to fit on")
    play.add_argument("--games", type=int, default=6000)
    play.add_argument("--nodes", type=int, default=4000, help="node budget a move")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--randomness", type=float, default=0.08, help="chance of a random move in the first plies")
    play.add_argument("--out", type=Path, required=True)
    fitting = sub.add_parser("fit", help="fit the weights on positions written by play")
    fitting.add_argument("--data", type=Path, nargs="+", required=True)
    fitting.add_argument("--patterns", action="store_true", help="fit the two-row patterns as well")
    fitting.add_argument("--steps", type=int, default=600)
    fitting.add_argument("--l2", type=float, default=1e-6, help="pull towards the weights in use")
    fitting.add_argument("--l2-patterns", type=float, default=1e-6, help="pull of the patterns towards 0")
    fitting.add_argument("--cache", type=Path, help="keep the features here between runs")
    fitting.add_argument(
        "--out",
        type=Path,
        help="write the weights to this file (.py: a module like rules/engine/weights.py; else JSON)",
    )
    versus = sub.add_parser("match", help="fitted weights against the shipped ones")
    versus.add_argument("--candidate", type=Path, required=True, help="a weights file")
    versus.add_argument("--base", type=Path, help="the weights to play (default: the shipped ones)")
    versus.add_argument("--games", type=int, default=64, help="two a ballot (64)")
    versus.add_argument("--nodes-a-move", type=int, default=20_000)
    args = parser.parse_args(argv)
    if not native.built():
        print(native.describe())
        return 1
    if args.command == "play":
        data = self_play(args.games, args.nodes, args.seed, args.randomness, args.out)
        np.savez_compressed(args.out, **data)
        print(f"{len(data['label']):,} positions of {args.games} games written to {args.out}")
    if args.command == "match":
        match(args.candidate, args.games, args.nodes_a_move, args.base)
    if args.command == "fit":
        w, p, report = fit(args.data, args.patterns, args.steps, args.l2, args.l2_patterns, args.cache)
        print(
            f"log-loss: fit {report['before_fit']:.5f} -> {report['after_fit']:.5f}, "
            f"held out {report['before_held']:.5f} -> {report['after_held']:.5f} (K {report['k']})"
        )
        show = {name: int(w[i]) for i, name in enumerate(SCALARS)}
        print("scalars:", show)
        for phase in range(N_PHASES):
            print(f"men, phase {phase}:", [int(v) for v in w[MEN + 32 * phase : MEN + 32 * phase + 32]])
            print(f"kings, phase {phase}:", [int(v) for v in w[KINGS + 32 * phase : KINGS + 32 * phase + 32]])
        print("runaway by row:", [int(v) for v in w[RUNAWAY : RUNAWAY + 8]])
        if args.out is not None:
            write_weights(args.out, w, p)
            print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
