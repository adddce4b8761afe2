"""The engine: legal moves always, time limits kept, levels, keys, evaluation, hints."""

from __future__ import annotations

import gc
import random
import time
import types

import pytest

from crownhead.rules import WCDF, Color, Game, Move, Position, Rules, movegen
from crownhead.rules.engine import (
    LEVELS,
    WIN,
    Engine,
    OpeningBook,
    SearchResult,
    best_move,
    evaluate,
    hint,
    key_of,
    strength,
)
from crownhead.rules.engine.evaluation import ENDING_MOVE, THE_MOVE
from crownhead.rules.engine.search import capture_moves, move_id
from crownhead.rules.engine.tt import EXACT, LOWER, TranspositionTable, from_table, to_table
from crownhead.rules.engine.zobrist import key_from_boards
from crownhead.rules.variants import RUSSIAN
from crownhead.squares import bit, mask_of
from helpers.games import scattered_pieces

# Every test here runs with the native search core and with the pure-Python search.
pytestmark = pytest.mark.usefixtures("engine_both_ways")

HOUSE_RULES = (
    WCDF,
    Rules(men_capture_backward=True),
    Rules(captures_compulsory=False),
    Rules(men_capture_backward=True, captures_compulsory=False),
)


def random_positions(count: int, seed: int, rules: Rules = WCDF) -> list[Position]:
    """Positions from random games, at every stage from the opening to bare kings, each
    with a legal move for the side to move."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        position = Position.start()
        for _ in range(rng.randrange(4, 120)):
            after = position.apply(rng.choice(position.legal_moves(rules)), rules)
            if not after.legal_moves(rules):
                break
            position = after
        out.append(position)
    return out


def random_kings_and_men(count: int, seed: int) -> list[Position]:
    """Scattered pieces, kings and men mixed, either side to move."""
    return scattered_pieces(count, seed, most=9, kings=0.4)


def mirror(position: Position) -> Position:
    """The board turned round with the colours swapped: the same game for the other side."""

    def turn(mask: int) -> int:
        return sum(bit(33 - s) for s in range(1, 33) if mask & bit(s))

    return Position(turn(position.white), turn(position.black), turn(position.kings), position.turn.opponent)


# -- legality -------------------------------------------------------------------------


@pytest.mark.parametrize("rules", HOUSE_RULES, ids=lambda r: r.describe())
def test_every_move_is_legal(rules: Rules) -> None:
    engine = Engine(rules, tt_size=1 << 14)
    engine.verify_keys = True
    positions = random_positions(25, seed=11, rules=rules) + random_kings_and_men(15, seed=12)
    for i, position in enumerate(positions):
        legal = position.legal_moves(rules)
        result = engine.search(position, depth=1 + i % 4)
        if legal:
            assert result.move in legal, position.fen()
            assert result.pv[0] == result.move
            # Every move of the expected line is legal in turn.
            p = position
            for move in result.pv:
                assert move in p.legal_moves(rules), (position.fen(), result.pv)
                p = p.apply(move, WCDF)
        else:
            assert result.move is None and result.pv == ()


def test_levels_make_legal_moves_only() -> None:
    engine = Engine(tt_size=1 << 14, seed=3)
    for level in LEVELS:
        for position in random_positions(6, seed=20 + level.level):
            move = engine.search(position, strength=level.level, movetime_ms=60).move
            legal = position.legal_moves(WCDF)
            assert (move in legal) if legal else move is None


def test_whole_games_between_levels_are_legal() -> None:
    strong, weak = Engine(seed=1, tt_size=1 << 15), Engine(seed=2, tt_size=1 << 15)
    game = Game(None, WCDF)
    while game.result is None and game.ply < 60:
        engine, level = (strong, 4) if game.turn == Color.BLACK else (weak, 1)
        move = engine.hint(game, strength=level)
        assert move is not None
        game.play(move)  # raises on an illegal move


# -- no move, forced moves ------------------------------------------------------------


@pytest.mark.parametrize(
    "fen",
    [
        "W:W:B1,2",  # White has no pieces
        "B:WK1:B",  # Black has no pieces
        "B:W9,14:B5",  # Black's man on 5 is blocked (9 taken, no jump: 14 is taken)
        "W:W29:BK25,22",  # White's man on 29 is blocked (no jump: 22 is taken)
    ],
)
def test_no_legal_move_gives_none(fen: str) -> None:
    position = Position.from_fen(fen)
    assert not position.legal_moves(WCDF)
    result = Engine().search(position, movetime_ms=50)
    assert result == SearchResult(None, -WIN, 0, 0, result.ms, ())
    assert best_move(position) is None


def test_a_forced_move_is_answered_at_once() -> None:
    position = Position.from_fen("W:W18:B14,K10")  # 18x9 is White's only move
    result = Engine().search(position, movetime_ms=5000)
    assert result.move == Move((18, 9), (14,))
    assert result.depth == 1
    assert result.ms < 1000


def test_capture_is_taken_when_compulsory_and_backward_rules_respected() -> None:
    # Black man on 18, White man on 14 behind it (towards Black's side).
    position = Position.from_fen("B:W14,30:B18")
    assert not Engine(WCDF).search(position, depth=3).move.is_capture
    backward = Rules(men_capture_backward=True)
    assert Engine(backward).search(position, depth=3).move == Move((18, 9), (14,))


def test_optional_capture_is_declined_when_it_loses() -> None:
    # Black's 17x26 would let White answer with a double jump.
    position = Position.from_fen("B:W20,22,23:B7,16,17")
    capture = Move((17, 26), (22,))
    assert position.captures(WCDF) == [capture]
    assert any(len(m.captures) == 2 for m in position.apply(capture, WCDF).legal_moves(WCDF))
    optional = Rules(captures_compulsory=False)
    move = Engine(optional).search(position, depth=6).move
    assert move in position.legal_moves(optional) and not move.is_capture
    assert Engine(WCDF).search(position, depth=6).move == capture


# -- time -----------------------------------------------------------------------------


def test_movetime_is_kept_on_the_real_clock() -> None:
    # Counted in the CPU time this thread used: on a busy machine the wall time of the
    # search may run over while the thread waits for a core, but the search itself
    # stops at the deadline, so it cannot have worked longer than the movetime.
    engine = Engine()
    for position in (Position.start(), *random_positions(3, seed=5)):
        started = time.thread_time()
        result = engine.search(position, movetime_ms=100)
        cpu_ms = (time.thread_time() - started) * 1000
        assert cpu_ms <= 150, (position.fen(), cpu_ms)
        assert result.move in position.legal_moves(WCDF)


class StepClock:
    """A clock that moves on by ``step`` ms every time it is read: time passes as the
    search works, the same way on every machine."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_deadline_on_an_injected_clock() -> None:
    clock = StepClock(1.0)
    engine = Engine(clock=clock)
    result = engine.search(Position.start(), movetime_ms=40)
    assert result.move in Position.start().legal_moves(WCDF)
    # The clock is read every 128 nodes: the search ends within one read of 40 ms.
    assert result.ms <= 40 + 1
    assert result.nodes <= 41 * 128 + 128


class JumpClock:
    """A clock that stands still, then jumps an hour ahead on its ``reads``-th reading."""

    def __init__(self, reads: int) -> None:
        self.reads = 0
        self.jump_at = reads

    def __call__(self) -> float:
        self.reads += 1
        return 3_600_000.0 if self.reads >= self.jump_at else 0.0


def test_iterations_go_on_while_the_next_can_half_finish() -> None:
    # A new iteration starts while the time left is at least half of what it is
    # expected to take (the previous best, searched first, is most of it); it used to
    # stop at half the time, leaving a third of it unused on average. On a clock that
    # moves as the search works, the searches of the middle game use most of their time
    # and none runs over.
    positions = [p for p in random_positions(12, seed=31) if len(p.legal_moves(WCDF)) > 1]
    used = []
    for position in positions:
        result = Engine(clock=StepClock(1.0)).search(position, movetime_ms=200)
        assert result.ms <= 201 and result.move in position.legal_moves(WCDF)
        used.append(result.ms)
    assert len(positions) >= 8
    # Stopping at half the time left a third of it unused on average (docs/engine.md).
    assert sum(used) / len(used) >= 160, used


@pytest.mark.parametrize("rules", [WCDF, RUSSIAN], ids=["english", "general"])
def test_a_search_leaves_no_reference_cycle(rules: Rules) -> None:
    # One left behind kept what it held (a dropped engine's transposition table) until
    # Python's cycle collector came round, inside a later search, and freeing it there
    # took up to 90 ms: past that search's deadline.
    positions = random_positions(3, seed=7, rules=rules)
    Engine(rules).search(positions[0], depth=2)  # imports and tables made on first use
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept to be looked at
    try:
        for position in positions:
            engine = Engine(rules, clock=StepClock(1.0))
            finished = engine.search(position, depth=3)
            cut_short = engine.search(position, movetime_ms=300)  # ends on SearchTimeout
            assert finished.move is not None and cut_short.move is not None
        gc.collect()
        # Other tests' threads may leave garbage of their own; none may be the rules'.
        left = [
            f.__qualname__
            for f in gc.garbage
            if isinstance(f, types.FunctionType) and f.__module__.startswith("rules.")
        ]
        assert left == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_search_stops_inside_an_iteration_when_the_deadline_passes() -> None:
    # Iterations never see time pass, so only the check inside the tree can stop this.
    clock = JumpClock(reads=40)
    result = Engine(clock=clock).search(Position.start(), movetime_ms=1000)
    assert result.move in Position.start().legal_moves(WCDF)
    assert clock.reads == 40 + 1  # the jump was seen, then the time used was measured
    # The tree reads the clock every 128 nodes: the search stopped at such a reading.
    assert result.nodes % 128 == 0 and result.nodes < 40 * 128
    assert result.depth >= 3


def test_a_move_is_ready_even_when_time_runs_out_at_once() -> None:
    engine = Engine(clock=StepClock(1000.0))
    position = random_positions(1, seed=9)[0]
    result = engine.search(position, movetime_ms=1)
    assert result.move in position.legal_moves(WCDF)


def test_depth_limit_and_bad_limits() -> None:
    engine = Engine()
    assert engine.search(Position.start(), depth=3).depth == 3
    with pytest.raises(ValueError, match="depth"):
        engine.search(Position.start(), depth=0)
    with pytest.raises(ValueError, match="movetime"):
        engine.search(Position.start(), movetime_ms=0)
    with pytest.raises(ValueError, match="strength"):
        engine.search(Position.start(), strength=11)


# -- search quality -------------------------------------------------------------------


def test_win_scores_count_plies() -> None:
    # Black to move takes White's last piece: a win in one ply.
    result = Engine().search(Position.from_fen("B:W18:B14"), depth=3)
    assert result.move == Move((14, 23), (18,))
    assert result.score == WIN - 1 and result.is_win and result.plies_to_end == 1


def test_repetition_counts_as_a_draw() -> None:
    # One king each: White's king on 1 has two moves, 1-5 and 1-6.
    position = Position.from_fen("W:WK1:BK25")
    mine = [position.apply(m, WCDF) for m in position.legal_moves(WCDF)]
    replies = [p.apply(m, WCDF) for p in mine for m in p.legal_moves(WCDF)]
    assert len(mine) == 2
    assert Engine().search(position, depth=3).score != 0
    # Going back to a position of the game is a draw for the side that searches: it
    # would rather make progress (or, when worse off, take the draw).
    assert Engine().search(position, depth=3, history=mine).score == 0
    # The opponent's way back to a position that stood once is no draw yet ...
    assert Engine().search(position, depth=3, history=replies).score != 0
    # ... but a position that would stand for the third time is (WCDF 1.32.1).
    assert Engine().search(position, depth=3, history=replies * 2).score == 0
    # In a game, the engine reads the history from the game.
    game = Game(Position.from_fen("B:WK1:BK29"), WCDF)
    for text in ("29-25", "1-5", "25-29", "5-1"):
        game.play_text(text)
    assert Engine().search(game.position, depth=3, history=game.positions[:-1]).score == 0


def test_search_is_deterministic() -> None:
    a = Engine().search(Position.start(), depth=6)
    b = Engine().search(Position.start(), depth=6)
    assert (a.move, a.score, a.nodes, a.pv) == (b.move, b.score, b.nodes, b.pv)


# -- levels and book ------------------------------------------------------------------


def test_levels_are_reproducible_with_a_seed() -> None:
    def play(seed: int) -> list[Move]:
        engine = Engine(seed=seed, tt_size=1 << 14)
        game = Game(None, WCDF)
        for _ in range(20):
            move = engine.hint(game, strength=2)
            assert move is not None
            game.play(move)
        return game.moves

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_weak_levels_make_mistakes_strong_ones_do_not() -> None:
    positions = random_positions(30, seed=31)
    positions = [p for p in positions if len(p.legal_moves(WCDF)) >= 3]
    engine = Engine(seed=4, tt_size=1 << 14)
    best = [engine.search(p, depth=1, book=False).move for p in positions]
    weak = [engine.search(p, strength=1, book=False).move for p in positions]
    assert sum(a != b for a, b in zip(best, weak)) >= 3
    assert strength(9).mistake_rate == 0


def test_book_plays_deck_openings() -> None:
    book = OpeningBook()
    engine = Engine(seed=8)
    game = Game(None, WCDF)
    for _ in range(3):
        result = engine.search(game.position, strength=1, history=game.positions[:-1])
        assert result.move in book.moves(game.position)
        game.play(result.move)
    from crownhead.rules.ballots import deck

    assert " ".join(str(m) for m in game.moves) in {" ".join(b.moves) for b in deck()}
    assert game.position not in book
    # The start position continues with the 7 first moves of the deck.
    assert sum(book.moves(Position.start()).values()) == 156


# -- hints ------------------------------------------------------------------------------


def test_hint_for_the_side_to_move() -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    move = hint(game, depth=4)
    assert move in game.legal_moves()
    game.play(move)
    assert Engine().hint(game, depth=3) in game.legal_moves()


def test_hint_refuses_a_game_under_other_rules() -> None:
    game = Game(None, Rules(captures_compulsory=False))
    with pytest.raises(ValueError, match="captures_compulsory"):
        Engine().hint(game, depth=2)
    assert hint(game, depth=2) in game.legal_moves()


# -- keys, table, evaluation ----------------------------------------------------------


def test_zobrist_keys_are_distinct_and_follow_the_turn() -> None:
    positions = set(random_positions(200, seed=41))
    keys = {key_of(p) for p in positions}
    assert len(keys) == len(positions)
    start = Position.start()
    assert key_of(start) != key_of(start._replace(turn=Color.WHITE))
    assert key_of(start) == key_from_boards(start.black, start.white, 0, True)


def test_search_updates_keys_correctly_through_crowning_and_king_jumps() -> None:
    engine = Engine(Rules(men_capture_backward=True))
    engine.verify_keys = True
    for fen in ("B:WK1,6,7,15:BK26,K27,22", "W:W5,6,K14:B1,2,9,10,K30", "B:W26,27:B22,K13"):
        engine.search(Position.from_fen(fen), depth=6)


def test_table_keeps_deep_results_and_adjusts_win_scores() -> None:
    tt = TranspositionTable(1000)
    assert len(tt) == 1024
    tt.store(5, depth=6, bound=EXACT, score=10, move_id=1)
    tt.store(5 + 1024, depth=2, bound=LOWER, score=3, move_id=2)  # same slot, shallower
    assert tt.probe(5) is not None and tt.probe(5 + 1024) is None
    tt.new_search()
    tt.store(5 + 1024, depth=2, bound=LOWER, score=3, move_id=2)  # older entry gives way
    assert tt.probe(5 + 1024) is not None
    assert from_table(to_table(WIN - 7, 3), 5) == WIN - 9
    assert from_table(to_table(-WIN + 7, 3), 5) == -WIN + 9
    assert to_table(55, 9) == 55
    with pytest.raises(ValueError):
        TranspositionTable(0)


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_search_captures_are_the_routes_of_movegen(backward: bool) -> None:
    # The search's own capture generator (bitboards, no squares between) against every
    # route of movegen, in positions full of captures: kings and men mixed at random,
    # and chains in every direction.
    rules = Rules(men_capture_backward=backward)
    positions = random_kings_and_men(400, seed=21) + random_positions(100, seed=22, rules=rules)
    positions.append(Position.from_fen("B:W6,7,14,15,22,23:BK10"))  # a king's ring of jumps
    with_captures = 0
    for position in positions:
        for black in (True, False):
            own, opp = (position.black, position.white) if black else (position.white, position.black)
            expected = sorted(
                (bit(path[0]), bit(path[-1]), mask_of(caps))
                for path, caps in movegen.capture_routes(own, opp, position.kings, black, backward)
            )
            assert sorted(capture_moves(own, opp, position.kings, black, backward)) == expected
            with_captures += bool(expected)
    assert with_captures > 100


def test_move_ids_tell_capture_routes_apart() -> None:
    a = Move((1, 10, 19), (6, 15))
    b = Move((1, 10, 19), (6, 14))
    assert move_id(a) != move_id(b) != move_id(Move((1, 6)))


def test_evaluation_is_the_same_for_both_colours() -> None:
    for position in random_positions(60, seed=51) + random_kings_and_men(40, seed=52):
        assert evaluate(position) == evaluate(mirror(position)), position.fen()


def test_evaluation_knows_material_and_kings() -> None:
    assert evaluate(Position.start()) == 0
    man_up = Position.from_fen("B:W21-31:B1-12")
    assert evaluate(man_up) > 80
    assert evaluate(man_up._replace(turn=Color.WHITE)) < -80
    # A king is worth more than a man on the same square.
    man = Position.from_fen("W:W30:B14")
    king = Position.from_fen("W:W30:BK14")
    assert evaluate(king) < evaluate(man)


def test_evaluation_values_runaway_men() -> None:
    # Black's man on 22 has nothing in front of it: it will crown.
    free = Position.from_fen("W:W32,9:B22")
    # Here White's man on 31 stands in its way (the same row as 32, as mobile).
    blocked = Position.from_fen("W:W31,9:B22")
    assert evaluate(free) < evaluate(blocked) - 20  # worse for White, who is to move


def test_weak_king_is_better_off_in_the_double_corner() -> None:
    cornered = Position.from_fen("W:WK1:BK14,K19")
    open_board = Position.from_fen("W:WK10:BK19,K23")
    assert evaluate(cornered) > evaluate(open_board)
    # The strong side likes its kings near the weak king.
    near = Position.from_fen("B:WK10:BK15,K14")
    far = Position.from_fen("B:WK10:BK28,K32")
    assert evaluate(near) > evaluate(far)


def test_the_move_in_equal_endgames() -> None:
    # Whatever else the evaluation sees is the same for either side to move, so the sum
    # of the two scores is twice the opposition terms (the equal-material one and the
    # endgame knowledge's, which counts in every ending).
    move = THE_MOVE + ENDING_MOVE

    def both(fen: str) -> int:
        position = Position.from_fen(fen)
        return evaluate(position) + evaluate(position._replace(turn=position.turn.opponent))

    # One man each on the same file with a square between: the side to move must step
    # next to the other man and be jumped, so the side to move lacks the move.
    assert both("B:W18:B10") == -2 * move
    # On neighbouring files the side to move has it.
    assert both("B:W22:B10") == 2 * move


def test_a_threat_at_the_horizon_is_searched_a_ply_further() -> None:
    # Black's 22-25 (or 22-26) opens 22 behind White's man on 17: 13x22 follows whatever
    # White does (6-2 crowns, and the man is lost all the same). One ply deep, the position
    # after 22-25 is White's to move with no capture: without the threat test it would
    # be scored as it stands, level; with it, the search sees the man fall, as a
    # search of eight plies does.
    position = Position.from_fen("B:W17,24,6:B13,22,10")
    deep = Engine().search(position, depth=8)
    assert deep.score > 150
    shallow = Engine().search(position, depth=1)
    assert shallow.score > 150 and shallow.pv[0] in (Move((22, 25)), Move((22, 26)))
    assert shallow.pv[1:3] == (Move((6, 2)), Move((13, 22), (17,)))
    blind = Engine()
    blind.threats = False
    assert blind.search(position, depth=1).score < 50


def test_node_budget_stops_the_search_and_is_repeatable() -> None:
    position = Position.from_fen("B:W23,22,20,19,16:B13,7,3,2,1")
    a = Engine().search(position, nodes=3000)
    b = Engine().search(position, nodes=3000)
    assert a.move in position.legal_moves(WCDF)
    assert a.nodes <= 3000 + 128  # the budget is read with the clock, every 128 nodes
    assert (a.move, a.score, a.depth, a.nodes) == (b.move, b.score, b.depth, b.nodes)
    assert Engine().search(position, nodes=30_000).depth > a.depth
    with pytest.raises(ValueError, match="nodes"):
        Engine().search(position, nodes=0)
