"""Small endgames against exact truth: two kings against one are won, and won in time.

The truth comes from a retrograde solver written here on the public rules API alone
(Position.legal_moves and apply), independent of the engine: every position of two kings
against one, with either side to move, together with everything reachable from them,
labelled won or lost in so many plies with best play, or drawn.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
from functools import cache
from typing import TypeVar

import pytest

from crownhead.rules import WCDF, Color, Game, Position
from crownhead.rules.engine import WIN, Engine
from crownhead.rules.engine.egdb import EndgameTables
from crownhead.squares import bit

# The tests that search run with the native search core and with the pure-Python
# search; the tables' checks against the solver search nothing and run once.
both_ways = pytest.mark.usefixtures("engine_both_ways")

#: How the engine plays in these tests: a fixed depth, so the result is the same on
#: every machine (a few milliseconds per move here; a timed search goes far deeper in
#: so small an ending). Depth 10 sees the few wins that pass through one king against
#: one (the lone king jumps a king and is then caught on the edge, 11 plies on).
DEPTH = 10
#: The stronger side must have won within this many plies of the start.
PLY_LIMIT = 60

Value = tuple[str, int]  # ("W", n): the side to move wins in n plies; ("L", n) loses


def kings_only(black_kings: int, white_kings: int) -> list[Position]:
    """Every position with these numbers of kings, with either side to move."""
    out = []
    for blacks in itertools.combinations(range(1, 33), black_kings):
        rest = [s for s in range(1, 33) if s not in blacks]
        for whites in itertools.combinations(rest, white_kings):
            b = sum(bit(s) for s in blacks)
            w = sum(bit(s) for s in whites)
            for turn in (Color.BLACK, Color.WHITE):
                out.append(Position(b, w, b | w, turn))
    return out


def solve(roots: list[Position]) -> dict[Position, Value | None]:
    """Exact values of ``roots`` and of every position reachable from them.

    Retrograde by ply: a position with no legal move is lost in 0; one with a move to a
    position lost in n - 1 is won in n (the first n found is the fastest); one whose
    moves all lead to won positions, the longest in n - 1, is lost in n. What is never
    labelled is a draw (None). Written apart from the engine's own retrograde analysis
    (``crownhead.rules.engine.egdb``), from the moves alone, as the truth the tables are held to.
    """
    index: dict[Position, int] = {}
    positions: list[Position] = []
    for p in roots:
        if p not in index:
            index[p] = len(positions)
            positions.append(p)
    children: list[list[int]] = []
    i = 0
    while i < len(positions):
        kids = []
        for move in positions[i].legal_moves(WCDF):
            child = positions[i].apply(move, WCDF)
            if child not in index:
                index[child] = len(positions)
                positions.append(child)
            kids.append(index[child])
        children.append(kids)
        i += 1
    # Level by level from the positions with no move: a parent of a position lost in n - 1
    # is won in n; one whose children are all won is lost in n once the last of them
    # (the longest) is labelled at n - 1.
    parents: list[list[int]] = [[] for _ in positions]
    for i, kids in enumerate(children):
        for k in kids:
            parents[k].append(i)
    unlabelled_children = [len(kids) for kids in children]
    value: list[Value | None] = [("L", 0) if not kids else None for kids in children]
    frontier = [i for i, v in enumerate(value) if v is not None]
    n = 0
    while frontier:
        n += 1
        found = []
        for k in frontier:
            lost = value[k] == ("L", n - 1)
            for i in parents[k]:
                if value[i] is not None:
                    continue
                if lost:
                    value[i] = ("W", n)
                    found.append(i)
                else:
                    unlabelled_children[i] -= 1
                    if unlabelled_children[i] == 0:
                        found.append(i)
        for i in found:
            if value[i] is None:  # every child won: lost in n
                value[i] = ("L", n)
        frontier = found
    return {p: value[i] for i, p in enumerate(positions)}


@cache
def two_kings_against_one() -> dict[Position, Value | None]:
    """Black's two kings against White's one: every position and its value."""
    return solve(kings_only(2, 1))


def strong_side_wins(position: Position, value: Value | None) -> bool:
    """Whether Black (the two kings) wins with best play."""
    if value is None:
        return False
    return (value[0] == "W") == (position.turn == Color.BLACK)


def swap_colours(position: Position) -> Position:
    """With kings only, the same position with the colours swapped is the same game."""
    return Position(position.white, position.black, position.kings, position.turn.opponent)


def winnable() -> list[tuple[Position, int]]:
    """Every position where the two kings win, with the plies it takes with best play."""
    values = two_kings_against_one()
    return sorted(
        (
            (p, v[1])
            for p, v in values.items()
            if p.count(Color.BLACK) == 2 and p.count(Color.WHITE) == 1 and strong_side_wins(p, v)
        ),
        key=lambda item: (item[0].black, item[0].white, item[0].turn),
    )


def engine_converts(position: Position, strong: Color) -> tuple[bool, int, Game]:
    """Play the engine against itself from ``position``; did ``strong`` win in time?"""
    attacker, defender = Engine(tt_size=1 << 14), Engine(tt_size=1 << 14)
    game = Game(position, WCDF)
    while game.result is None and game.ply < PLY_LIMIT:
        engine = attacker if game.turn == strong else defender
        result = engine.search(game.position, depth=DEPTH, history=game.positions[:-1])
        game.play(result.move)
    won = game.result is not None and game.result.winner == strong
    return won, game.ply, game


def test_solver_knows_the_ending() -> None:
    values = two_kings_against_one()
    wins = winnable()
    assert len(kings_only(2, 1)) == 2 * 496 * 30
    # Almost everything is won; draws come from the lone king jumping a loose king.
    assert 27_000 < len(wins) < 29_760
    # With best play the two kings need at most 35 plies (the figure in the literature).
    assert max(n for _, n in wins) <= 35
    # Checks by hand. Black to move jumps 14x23 and White has nothing left:
    assert values[Position.from_fen("B:WK18:BK14,K1")] == ("W", 1)
    # White to move must jump 18x9 and one king against one is a draw:
    assert values[Position.from_fen("W:WK18:BK14,K1")] is None
    # A king in the double corner holds out longest:
    assert values[Position.from_fen("B:WK32:BK1,K5")] == ("W", 31)


def _sample(count: int, seed: int) -> list[tuple[Position, int]]:
    wins = winnable()
    longest = sorted(wins, key=lambda item: -item[1])[:8]
    rest = random.Random(seed).sample(wins, count)
    return longest + rest


T = TypeVar("T")


def _share(engine_both_ways: str, sample: list[T]) -> list[T]:
    """The sample the search plays: the pure-Python search plays every third of it. It is
    the reference the native core is checked against node for node on other positions
    (tests/test_native.py), and some thirty times slower."""
    return sample if engine_both_ways == "native" else sample[::3]


@both_ways
def test_two_kings_beat_one_from_a_sample(engine_both_ways: str) -> None:
    failures = []
    for i, (position, best) in enumerate(_share(engine_both_ways, _sample(28, seed=7))):
        # Every other position with the colours swapped: White has the two kings.
        if i % 2:
            won, plies, game = engine_converts(swap_colours(position), Color.WHITE)
        else:
            won, plies, game = engine_converts(position, Color.BLACK)
        if not won:
            failures.append((position.fen(), best, plies, [str(m) for m in game.moves]))
    assert not failures, failures


@both_ways
def test_engine_scores_match_the_truth(engine_both_ways: str) -> None:
    """Where the end is within the search's reach, the score says exactly when."""
    values = two_kings_against_one()
    engine = Engine(tt_size=1 << 14)
    rng = random.Random(3)
    checked = 0
    ordered = sorted(values.items(), key=lambda kv: (kv[0].black, kv[0].white, kv[0].kings, kv[0].turn))
    for position, value in _share(engine_both_ways, rng.sample(ordered, 250)):
        if len(position.legal_moves(WCDF)) < 2:
            continue  # a forced move is played after a one-ply look only
        result = engine.search(position, depth=10)
        if value is not None and value[1] <= 9:
            expected = WIN - value[1] if value[0] == "W" else -WIN + value[1]
            assert result.score == expected, (position.fen(), value, result)
            checked += 1
        elif value is None:
            assert abs(result.score) < WIN - 1000, (position.fen(), result)
    assert checked > (20 if engine_both_ways == "native" else 6)


@both_ways
def test_the_lone_king_runs_for_the_double_corner() -> None:
    # White's king on 19 is in the open; the double corner (28/32) is two steps away.
    # 19-23 and 19-24 hold out longest (lost in 29 more plies, against 5 or 1 otherwise).
    position = Position.from_fen("W:WK19:BK1,K10")
    values = two_kings_against_one()
    longest = {m for m in position.legal_moves(WCDF) if values[position.apply(m, WCDF)] == ("W", 29)}
    assert {str(m) for m in longest} == {"19-23", "19-24"}
    for depth in (2, 4, 6):
        assert Engine().search(position, depth=depth).move in longest


def _converts(task: tuple[str, Color]) -> tuple[str, bool, int]:
    fen, strong = task
    won, plies, _ = engine_converts(Position.from_fen(fen), strong)
    return fen, won, plies


@both_ways
@pytest.mark.slow
def test_two_kings_beat_one_from_every_winnable_position() -> None:
    """All 27,864 winnable positions, with either colour holding the two kings.

    About 40 minutes on two cores (the games are shared out over every core). Measured:
    every one converted, the longest in 38 plies.
    """
    tasks = []
    for position, _ in winnable():
        tasks.append((position.fen(), Color.BLACK))
        tasks.append((swap_colours(position).fen(), Color.WHITE))
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        results = list(pool.imap_unordered(_converts, tasks, chunksize=64))
    failures = [(fen, plies) for fen, won, plies in results if not won]
    assert len(results) == 2 * 27_864
    assert not failures, f"{len(failures)} not converted, e.g. {failures[:10]}"


# -- endgame databases against the same truth ---------------------------------------------


@cache
def three_piece_tables() -> EndgameTables:
    """The tables of up to three pieces as shipped. They are byte for byte what
    ``egdb.build(3)`` makes (test_egdb_files.py's
    test_the_shipped_tables_cover_four_pieces_and_match_a_fresh_build_of_three, which
    builds them: seconds of CPU, not spent again here), so the tests below hold the
    build to the solver."""
    from crownhead.firmware.egdb import SHIPPED, load_tables

    return EndgameTables({m: t for m, t in load_tables(SHIPPED).items() if sum(m) <= 3})


def _db_value(position: Position) -> Value | None:
    """The database's outcome in the solver's terms."""
    found = three_piece_tables().probe_position(position)
    assert found is not None, position.fen()
    outcome, plies = found
    return None if outcome == "draw" else ("W" if outcome == "win" else "L", plies)


def test_the_database_agrees_with_the_solver_on_every_king_ending() -> None:
    values = two_kings_against_one()
    disagree = [(p.fen(), v, _db_value(p)) for p, v in values.items() if _db_value(p) != v]
    assert len(values) > 30_000 and not disagree, disagree[:5]
    # Colours swapped: White's two kings against Black's one, the same values.
    swapped = [(p.fen(), v) for p, v in list(values.items())[::7] if _db_value(swap_colours(p)) != v]
    assert not swapped, swapped[:5]


def test_the_database_agrees_with_the_solver_with_men_on_the_board() -> None:
    rng = random.Random(11)
    roots = []
    while len(roots) < 400:
        squares = rng.sample(range(1, 33), 3)
        colours = [rng.random() < 0.5 for _ in squares]
        if all(colours) or not any(colours):
            continue
        black = white = kings = 0
        for square, is_black in zip(squares, colours):
            crowned = rng.random() < 0.3 or square > 28 if is_black else (rng.random() < 0.3 or square < 5)
            if is_black:
                black |= bit(square)
            else:
                white |= bit(square)
            if crowned:
                kings |= bit(square)
        roots.append(Position(black, white, kings, rng.choice((Color.BLACK, Color.WHITE))))
    values = solve(roots)
    assert len(values) > 10_000  # the roots and everything reachable from them
    disagree = [(p.fen(), v, _db_value(p)) for p, v in values.items() if _db_value(p) != v]
    assert not disagree, disagree[:5]


@both_ways
def test_the_search_plays_the_database_exactly() -> None:
    """With the tables the engine's score is the exact value, and it converts in that."""
    tables = three_piece_tables()
    engine = Engine(tt_size=1 << 14, egdb=tables)
    for position, plies in _sample(10, seed=5):
        result = engine.search(position, depth=4)
        black = position.turn == Color.BLACK
        assert result.score == (WIN - plies if black else plies - WIN), position.fen()
        game = Game(position, WCDF)
        while game.result is None and game.ply < plies + 1:
            game.play(engine.search(game.position, depth=2, history=game.positions[:-1]).move)
        assert game.result is not None and game.result.winner == Color.BLACK
        assert game.ply == plies, position.fen()


@both_ways
def test_a_lost_side_holds_out_longest_with_the_tables() -> None:
    position = Position.from_fen("W:WK19:BK1,K10")  # see the double-corner test above
    engine = Engine(egdb=three_piece_tables())
    result = engine.search(position, depth=3)
    assert str(result.move) in {"19-23", "19-24"} and result.score == -WIN + 30


@both_ways
def test_the_tables_are_not_used_under_other_rules() -> None:
    from crownhead.rules.settings import Rules

    optional = Rules(captures_compulsory=False)
    # With optional captures White need not jump here; the tables assume it must.
    position = Position.from_fen("B:WK18:BK14,K1")
    with_tables = Engine(optional, egdb=three_piece_tables()).search(position, depth=5)
    without = Engine(optional).search(position, depth=5)
    assert (with_tables.score, with_tables.move) == (without.score, without.move)
    assert Engine(egdb=three_piece_tables()).search(position, depth=5).score == WIN - 1


class _CountingProbe:
    """The three-piece tables, counting the look-ups the search makes."""

    def __init__(self) -> None:
        self.tables = three_piece_tables()
        self.pieces = self.tables.pieces
        self.calls = 0

    def value(self, own: int, opp: int, kings: int, black: bool) -> int | None:
        self.calls += 1
        return self.tables.value(own, opp, kings, black)


@both_ways
def test_the_search_keeps_the_values_the_tables_gave() -> None:
    position = Position.from_fen("W:WK19:BK1,K10")
    probe = _CountingProbe()
    engine = Engine(egdb=probe)
    engine.verify_keys = True  # every kept value is compared with a fresh look-up
    first = engine.search(position, depth=6)
    looked_up = probe.calls
    probe.calls = 0
    engine.verify_keys = False
    again = engine.search(position, depth=6)
    assert (again.move, again.score) == (first.move, first.score)
    # A second search of the same position asks the tables nothing new.
    assert probe.calls == 0 < looked_up
    # Another probe (tables rebuilt or replaced) starts afresh.
    other = _CountingProbe()
    engine.egdb = other
    assert engine.search(position, depth=6).score == first.score
    assert other.calls > 0
    engine.new_game()
    assert engine.table_values(other) == {}


@both_ways
def test_the_kept_table_values_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from crownhead.rules.engine import search

    monkeypatch.setattr(search, "TABLE_VALUES", 50)
    engine = Engine(egdb=three_piece_tables())
    engine.search(Position.from_fen("W:WK19:BK1,K10"), depth=8)
    assert 0 < len(engine.table_values(engine.egdb)) <= 50
