"""Evaluation benchmark: does the static evaluation rank won positions above drawn ones?

    python bench/evaluation.py                        # the shipped tables (up to 4 pieces)
    python bench/evaluation.py --egdb DIR --per 2000  # a build of `crownhead egdb build`
    python bench/evaluation.py --speed                # also the CPU cost of one evaluation
    python bench/evaluation.py --egdb DIR --bridge    # positions with the bridge (6 pieces)

The endgame databases give the exact value of every position they hold: won, drawn or
lost for the side to move. For each material (men and kings of each side) the script
draws ``--per`` random *quiet* positions (neither side can jump, so the evaluation, not
a capture, decides) and counts, over every pair of positions of the same material with
different values, how often the evaluation scores the better one higher (a tie counts
half): 1.0 is a perfect ranking, 0.5 is chance. Pairs are pooled over the materials that
have positions of two values. It prints the figure for :func:`evaluate_boards` and for
the same evaluation without :func:`endgame_knowledge` (the terms fitted on these
tables), overall and per material. ``tests/test_engine_evaluation.py`` checks the same
on the shipped tables.

``--bridge`` measures the bridge term alone, where random positions seldom have one (3
in 1,000): per material where it can count, ``--per`` positions with the side to move
holding the bridge (men on 1 and 3 and a king, against men), as many with the other
side holding it (30 and 32), and as many drawn at random, ranked with the evaluation
and with the evaluation less the term.
"""

from __future__ import annotations

import argparse
import bisect
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.rules import movegen  # noqa: E402
from crownhead.rules.engine.egdb import Material, boards_of, index_of, size_of  # noqa: E402
from crownhead.rules.engine.evaluation import bridge_term, endgame_knowledge, evaluate_boards  # noqa: E402
from crownhead.squares import bit  # noqa: E402

#: The bridge squares from the tables' side (the side to move plays Black's way).
OWN_BRIDGE = bit(1) | bit(3)
OPP_BRIDGE = bit(30) | bit(32)


@dataclass(frozen=True)
class Sample:
    value: int  # 1 won, 0 drawn, -1 lost for the side to move
    own: int
    opp: int
    kings: int
    mobility: int


def quiet_samples(table, material: Material, per: int, rng: random.Random) -> list[Sample]:
    """Up to ``per`` random positions of ``material`` where neither side can jump
    (Black to move, as the tables store them)."""
    n = size_of(material)
    out: list[Sample] = []
    tries = 0
    while len(out) < per and tries < per * 20:
        tries += 1
        index = rng.randrange(n)
        boards = boards_of(index, material)
        if boards is None:
            continue
        own, opp, kings = boards
        if movegen.jumpers(own, opp, kings, True) or movegen.jumpers(opp, own, kings, False):
            continue
        mobility = movegen.count_quiet(own, opp, kings, True)
        if not mobility:
            continue
        v = table[index]
        out.append(Sample(0 if v == 0 else 1 if v & 1 == 0 else -1, own, opp, kings, mobility))
    return out


def concordance(scored: list[tuple[int, int]]) -> tuple[float, int]:
    """(pairs ranked right, pairs) over ``(value, score)`` pairs with different values."""
    right = 0.0
    pairs = 0
    by_value: dict[int, list[int]] = {}
    for value, score in scored:
        by_value.setdefault(value, []).append(score)
    for better, worse in ((1, 0), (0, -1), (1, -1)):
        high, low = by_value.get(better, []), sorted(by_value.get(worse, []))
        if not high or not low:
            continue
        for s in high:
            below = bisect.bisect_left(low, s)
            ties = bisect.bisect_right(low, s) - below
            right += below + ties / 2
        pairs += len(high) * len(low)
    return right, pairs


def measure(
    tables: dict[Material, object], per: int, seed: int = 1, min_pieces: int = 3
) -> dict[Material, tuple[float, float, int]]:
    """Per material with positions of two values or more: (with, without, pairs)."""
    rng = random.Random(seed)
    out = {}
    for material in sorted(tables):
        if sum(material) < min_pieces:
            continue
        samples = quiet_samples(tables[material], material, per, rng)
        with_ = []
        without = []
        for s in samples:
            full = evaluate_boards(s.own, s.opp, s.kings, True, s.mobility)
            with_.append((s.value, full))
            without.append((s.value, full - endgame_knowledge(s.own, s.opp, s.kings, True)))
        right, pairs = concordance(with_)
        if not pairs:
            continue
        right_without, _ = concordance(without)
        out[material] = (right / pairs, right_without / pairs, pairs)
    return out


def bridge_samples(table, material: Material, per: int, rng: random.Random, own_bridge: bool) -> list[Sample]:
    """Up to ``per`` random quiet positions of ``material`` with the bridge held by the
    side to move (``own_bridge``) or by the other side: its men on the bridge squares,
    the other pieces anywhere a man or king of theirs may stand."""
    own_men, own_kings, opp_men, opp_kings = material
    if own_bridge and (own_men < 2 or not own_kings or not opp_men):
        return []
    if not own_bridge and (opp_men < 2 or not opp_kings or not own_men):
        return []
    held = OWN_BRIDGE if own_bridge else OPP_BRIDGE
    out: list[Sample] = []
    for _ in range(per * 20):
        if len(out) == per:
            break
        taken = held
        own = held if own_bridge else 0
        opp = 0 if own_bridge else held
        squares = [s for s in range(1, 33) if not taken & bit(s)]
        men = rng.sample([s for s in squares if s <= 28], own_men - (2 if own_bridge else 0))
        own |= sum(bit(s) for s in men)
        taken |= own
        men = rng.sample([s for s in range(5, 33) if not taken & bit(s)], opp_men - (0 if own_bridge else 2))
        opp |= sum(bit(s) for s in men)
        taken |= opp
        placed = rng.sample([s for s in range(1, 33) if not taken & bit(s)], own_kings + opp_kings)
        kings = sum(bit(s) for s in placed)
        own |= sum(bit(s) for s in placed[:own_kings])
        opp |= sum(bit(s) for s in placed[own_kings:])
        if movegen.jumpers(own, opp, kings, True) or movegen.jumpers(opp, own, kings, False):
            continue
        mobility = movegen.count_quiet(own, opp, kings, True)
        if not mobility:
            continue
        v = table[index_of(own, opp, kings, material)]
        out.append(Sample(0 if v == 0 else 1 if v & 1 == 0 else -1, own, opp, kings, mobility))
    return out


def measure_bridge(tables: dict[Material, object], per: int, seed: int = 1) -> dict[Material, tuple[float, float, int]]:
    """Per material where the bridge counts: (with, without the bridge term, pairs) over
    positions with the bridge held by either side and random ones."""
    rng = random.Random(seed)
    out = {}
    for material in sorted(tables):
        table = tables[material]
        held = bridge_samples(table, material, per, rng, True) + bridge_samples(table, material, per, rng, False)
        if not held:
            continue
        samples = held + quiet_samples(table, material, per, rng)
        with_ = [(s.value, evaluate_boards(s.own, s.opp, s.kings, True, s.mobility)) for s in samples]
        without = [
            (value, score - bridge_term(s.own, s.opp, s.kings, True)) for (value, score), s in zip(with_, samples)
        ]
        right, pairs = concordance(with_)
        if pairs:
            out[material] = (right / pairs, concordance(without)[0] / pairs, pairs)
    return out


def pooled(results: dict[Material, tuple[float, float, int]]) -> tuple[float, float]:
    pairs = sum(p for _, _, p in results.values())
    return (sum(w * p for w, _, p in results.values()) / pairs, sum(wo * p for _, wo, p in results.values()) / pairs)


def speed(samples: list[Sample], rounds: int = 5) -> tuple[float, float]:
    """CPU microseconds per evaluate_boards call on these positions (and per
    endgame_knowledge call)."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        t = time.process_time()
        for s in samples:
            evaluate_boards(s.own, s.opp, s.kings, True, s.mobility)
        best[0] = min(best[0], time.process_time() - t)
        t = time.process_time()
        for s in samples:
            endgame_knowledge(s.own, s.opp, s.kings, True)
        best[1] = min(best[1], time.process_time() - t)
    return best[0] / len(samples) * 1e6, best[1] / len(samples) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--egdb",
        default="shipped",
        help="'shipped' (the tables in firmware/egdb/tables) or a folder built by `crownhead egdb build`",
    )
    parser.add_argument("--per", type=int, default=1000, help="positions per material (1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--speed", action="store_true", help="also time the evaluation")
    parser.add_argument("--bridge", action="store_true", help="only the bridge term, on positions with the bridge held")
    args = parser.parse_args(argv)
    from crownhead.firmware.egdb import SHIPPED, load_probe

    probe = load_probe(SHIPPED if args.egdb == "shipped" else Path(args.egdb))
    if probe is None:
        raise SystemExit(f"no endgame tables in {args.egdb}")
    tables: dict[Material, object] = dict(probe.tables)  # type: ignore[attr-defined]
    started = time.monotonic()
    if args.bridge:
        results = measure_bridge(tables, args.per, args.seed)
        if not results:
            print(
                f"no material of the tables in {args.egdb} has bridge positions of two "
                "values: the bridge needs five or six pieces (`crownhead egdb build "
                "--pieces 6`)"
            )
            return 1
        with_, without = pooled(results)
        print(
            f"{len(results)} materials where the bridge counts, {args.per} positions with "
            f"it held by each side and {args.per} at random each (seed {args.seed}), "
            f"tables: {args.egdb}"
        )
        print(
            f"pairs ranked right: {with_:.4f} with the bridge term, {without:.4f} without "
            f"({time.monotonic() - started:.0f} s)"
        )
        for material, (w, wo, pairs) in results.items():
            print(f"  {''.join(map(str, material))}: {w:.3f} (without {wo:.3f}), {pairs} pairs")
        return 0
    results = measure(tables, args.per, args.seed)
    with_, without = pooled(results)
    print(
        f"{len(results)} materials with positions of different values, {args.per} quiet "
        f"positions each (seed {args.seed}), tables: {args.egdb}"
    )
    print(
        f"pairs ranked right: {with_:.4f} with the endgame knowledge, {without:.4f} "
        f"without ({time.monotonic() - started:.0f} s)"
    )
    for material, (w, wo, pairs) in results.items():
        print(f"  {''.join(map(str, material))}: {w:.3f} (without {wo:.3f}), {pairs} pairs")
    if args.speed:
        rng = random.Random(args.seed)
        samples = [s for m in sorted(tables) if sum(m) >= 4 for s in quiet_samples(tables[m], m, 200, rng)]
        full, knowledge = speed(samples)
        print(
            f"evaluate_boards: {full:.2f} us a call on {len(samples)} ending positions, "
            f"of which endgame_knowledge {knowledge:.2f} us"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
