"""The endgame knowledge of the evaluation, checked against the endgame databases.

The shipped tables (every position of up to four pieces, solved) are the independent
truth: the evaluation must rank won positions above drawn ones, and drawn above lost,
more often with :func:`~crownhead.rules.engine.evaluation.endgame_knowledge` than without it.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from crownhead.firmware.egdb import SHIPPED, load_probe
from crownhead.rules import WCDF, Color, Game, Position
from crownhead.rules.engine import Engine
from crownhead.rules.engine.evaluation import (
    BRIDGE,
    ENDING_MOVE,
    TRAPPED_KING,
    endgame_knowledge,
    evaluate,
    evaluate_boards,
)
from crownhead.rules.game import FORTY_MOVES_PLIES
from crownhead.rules.engine.egdb import EndgameTables
from crownhead.squares import bit
from helpers.games import scattered_pieces

REPO = Path(__file__).resolve().parents[1]


def _bench():  # type: ignore[no-untyped-def]
    """bench/evaluation.py, the measure the figures in docs/engine.md come from."""
    spec = importlib.util.spec_from_file_location("bench_evaluation", REPO / "bench" / "evaluation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_evaluation"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def probe():  # type: ignore[no-untyped-def]
    shipped = load_probe(SHIPPED)
    assert shipped is not None
    # The tables with distances (up to four pieces): the fitted terms were measured on them.
    tables = EndgameTables({m: t for m, t in shipped.tables.items() if m not in shipped.wdl})
    assert tables.pieces == 4
    return tables


def _mirror(position: Position) -> Position:
    def turn(mask: int) -> int:
        return sum(bit(33 - s) for s in range(1, 33) if mask & bit(s))

    return Position(turn(position.white), turn(position.black), turn(position.kings), position.turn.opponent)


def _endings(n: int, seed: int) -> list[Position]:
    """Random positions of 2-8 pieces, men and kings of both colours, either to move."""
    return scattered_pieces(n, seed, most=8, kings=0.5, both=True)


def test_endgame_knowledge_is_the_same_for_both_colours() -> None:
    for position in _endings(300, seed=20):
        mirrored = _mirror(position)
        assert evaluate(position) == evaluate(mirrored), position.fen()
        black = position.turn is Color.BLACK
        own, opp = (position.black, position.white) if black else (position.white, position.black)
        m_own, m_opp = (mirrored.black, mirrored.white) if not black else (mirrored.white, mirrored.black)
        assert endgame_knowledge(own, opp, position.kings, black) == endgame_knowledge(
            m_own, m_opp, mirrored.kings, not black
        ), position.fen()


def test_endgame_knowledge_is_only_for_endings() -> None:
    start = Position.start()
    assert endgame_knowledge(start.black, start.white, start.kings, True) == 0


def test_a_trapped_king_counts_against_its_side() -> None:
    # White's king on 4 has one move, to 8, where Black's king on 12 takes it (12x3):
    # trapped in the single corner. The same king on 18 is free. Black to move.
    trapped = Position.from_fen("B:WK4,K30:BK12,K21,9")
    free = Position.from_fen("B:WK18,K30:BK12,K21,9")
    knowledge = [endgame_knowledge(p.black, p.white, p.kings, True) for p in (trapped, free)]
    assert knowledge[0] - knowledge[1] == TRAPPED_KING
    assert evaluate(trapped) > evaluate(free)
    # Seen from White, to move, the same.
    white = [p._replace(turn=Color.WHITE) for p in (trapped, free)]
    knowledge = [endgame_knowledge(p.white, p.black, p.kings, False) for p in white]
    assert knowledge[1] - knowledge[0] == TRAPPED_KING


def test_the_move_counts_in_unequal_endings_too() -> None:
    # First position: two kings against a king and a man. White to move has the move and
    # wins; Black to move draws (the tables say so, see the next test).
    fen = "W:WK19,K23:BK28,12"
    white = Position.from_fen(fen)
    black = white._replace(turn=Color.BLACK)
    for_white_to_move = endgame_knowledge(white.white, white.black, white.kings, False)
    for_white_black_to_move = -endgame_knowledge(black.black, black.white, black.kings, True)
    # Only the move depends on who is to move; White has it only when it is to move.
    assert for_white_to_move - for_white_black_to_move == 2 * ENDING_MOVE


#: Black to move, men on 1 and 3 and a king against three men, and the same with the man
#: on 3 moved to 7 or 8: the first won in so many plies, the second drawn (the six-piece
#: tables of `crownhead egdb build --pieces 6`, too large to ship). Without the bridge the
#: evaluation ranked each drawn one above the won one.
BRIDGES = [
    ("B:W13,20,26:B1,3,K5", 89, "B:W13,20,26:B1,K5,7"),
    ("B:W10,20,25:B1,3,K9", 17, "B:W10,20,25:B1,8,K9"),
    ("B:W5,16,17:B1,3,K28", 37, "B:W5,16,17:B1,8,K28"),
]


@pytest.mark.parametrize(("won", "plies", "drawn"), BRIDGES)
def test_the_bridge_ranks_the_won_position_above_the_drawn_one(won: str, plies: int, drawn: str) -> None:
    bridge, broken = Position.from_fen(won), Position.from_fen(drawn)
    assert evaluate(bridge) > evaluate(broken)
    assert evaluate(bridge) - BRIDGE < evaluate(broken)
    # Seen from White, the bridge is White's on 30 and 32: the same for both colours.
    assert evaluate(_mirror(bridge)) > evaluate(_mirror(broken))


def test_the_bridge_needs_kings_behind_it_and_men_in_front() -> None:
    def knowledge(fen: str) -> int:
        p = Position.from_fen(fen)
        return endgame_knowledge(p.black, p.white, p.kings, True)

    # Men on 1 and 2 instead: no bridge, and the same count for the move.
    with_king = knowledge("B:W13,20,26:B1,3,K5") - knowledge("B:W13,20,26:B1,2,K5")
    assert with_king == BRIDGE
    # No king: the men on 1 and 3 must move in the end. No White men: nothing to stop.
    assert knowledge("B:W13,20,26:B1,3,5") == knowledge("B:W13,20,26:B1,2,5")
    assert knowledge("B:WK13,K20:B1,3,K5") == knowledge("B:WK13,K20:B1,2,K5")
    # Against more kings than its own it is worth far less, and is not counted.
    assert knowledge("B:WK13,K20,26:B1,3,K5") == knowledge("B:WK13,K20,26:B1,2,K5")
    assert knowledge("B:WK13,K20,26:B1,3,K5,K9") - knowledge("B:WK13,K20,26:B1,2,K5,K9") == BRIDGE


def test_first_position_value_in_the_tables(probe) -> None:  # type: ignore[no-untyped-def]
    assert probe.probe_position(Position.from_fen("W:WK19,K23:BK28,12"))[0] == "win"
    assert probe.probe_position(Position.from_fen("B:WK19,K23:BK28,12")) == ("draw", 0)


def test_won_positions_rank_above_drawn_ones_more_often_with_the_knowledge(probe) -> None:  # type: ignore[no-untyped-def]
    bench = _bench()
    results = bench.measure(dict(probe.tables), per=300, seed=1)
    with_, without = bench.pooled(results)
    # Measured: about 0.78 against 0.74 (bench/evaluation.py, 1,500 a material).
    assert with_ > without + 0.02, (with_, without)
    better = sum(w > wo for w, wo, _ in results.values())
    assert better >= len(results) * 2 // 3, results
    # The concordance itself is honest: a shuffled evaluation is near chance.
    rng = random.Random(3)
    right = pairs = 0.0
    for material in list(results)[:5]:
        samples = bench.quiet_samples(probe.tables[material], material, 200, rng)
        scored = [(s.value, rng.randrange(1000)) for s in samples]
        r, p = bench.concordance(scored)
        right += r
        pairs += p
    assert 0.4 < right / pairs < 0.6


def test_the_evaluation_agrees_with_evaluate_boards() -> None:
    from crownhead.rules import movegen

    for position in _endings(50, seed=21):
        black = position.turn is Color.BLACK
        own, opp = (position.black, position.white) if black else (position.white, position.black)
        mobility = movegen.count_quiet(own, opp, position.kings, black)
        assert evaluate(position) == evaluate_boards(own, opp, position.kings, black, mobility)


def _play(fen: str, attacker: Color, nodes: int, probe) -> tuple[Color | None, str, int]:  # type: ignore[no-untyped-def]
    """The engine without tables plays ``attacker``; the other side plays perfectly from
    the tables (the longest defence)."""
    game = Game(Position.from_fen(fen), WCDF)
    engines = {attacker: Engine(seed=0), attacker.opponent: Engine(seed=0, egdb=probe)}
    while True:
        if game.result is not None:
            return game.result.winner, game.result.reason, game.ply
        if game.repetitions() >= 3:
            return None, "repetition", game.ply
        if game.quiet_plies >= FORTY_MOVES_PLIES:
            return None, "forty-moves", game.ply
        if game.ply >= 200:
            return None, "200 plies", game.ply
        found = engines[game.turn].search(game.position, history=game.positions[:-1], nodes=nodes)
        assert found.move is not None
        game.play(found.move)
