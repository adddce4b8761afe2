"""The general move generator (:mod:`crownhead.rules.variants`) against independent truth.

Three checks, on positions from random games and random king-rich setups:

* **pydraughts** (variant ``"russian"``), an independent Russian draughts implementation,
  against our Russian moves, compared as (start, end, captured set): pydraughts writes
  a capture route's intermediate squares its own way, so the full path is not compared.
* **a naive generator written here** from the rule text, square by square on (file, rank)
  coordinates with a dict board, sharing no code with :mod:`crownhead.rules.variants`. It plays
  flying kings, the three crowning rules and kings-capture-first, and is compared route
  by route (full path and captures, as a multiset). It is first checked against
  pydraughts on Russian positions, then trusted for pool and the English house rules,
  which pydraughts does not play.
* the fast English generator (:mod:`crownhead.rules.movegen`) against the general one on the
  rules both play (WCDF, men capturing backward, optional captures).

pydraughts's ``russian`` board numbers squares its own way; we hand it FENs in
algebraic notation (a1-h8, the way Russian PDN files write them) and read its moves
back through its own number-to-algebraic conversion, proven on hand-checked positions
in ``test_pydraughts_russian_reading``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from crownhead.rules import Position, Rules
from crownhead.rules.position import Color
from crownhead.rules.settings import WCDF, Crowning
from crownhead.squares import file_of, parse_square, rank_of, square_at, square_name
from crownhead.rules.variants import POOL, RUSSIAN, legal_routes

draughts = pytest.importorskip("draughts", reason="pydraughts (the dev extra) is the oracle")
from draughts.convert import _number_to_algebraic  # noqa: E402  (after the skip)

Key = tuple[int, int, frozenset[int]]
Route = tuple[tuple[int, ...], tuple[int, ...]]

HOUSE_RULES = [
    Rules(crowning=Crowning.CONTINUES_AS_KING),
    Rules(kings_capture_first=True),
    Rules(crowning=Crowning.CONTINUES_AS_KING, kings_capture_first=True, huffing=True),
    Rules(crowning=Crowning.CONTINUES_AS_MAN, men_capture_backward=True),
]
ALL_RULES = [RUSSIAN, POOL, *HOUSE_RULES, POOL.with_options(kings_capture_first=True)]


# -- pydraughts -------------------------------------------------------------------------


def _their_square(number: int) -> int:
    return parse_square(_number_to_algebraic(str(number), variant="russian"))


def algebraic_fen(position: Position) -> str:
    def side(color: Color) -> str:
        return ",".join(
            ("K" if p.king else "") + square_name(s) for s, p in position.pieces().items() if p.color is color
        )

    return f"{position.turn.letter}:W{side(Color.WHITE)}:B{side(Color.BLACK)}"


def pydraughts_russian(position: Position) -> set[Key]:
    board = draughts.Board("russian", algebraic_fen(position))
    out = set()
    for move in board.legal_moves():
        steps = move.board_move
        out.add(
            (
                _their_square(steps[0][0]),
                _their_square(steps[-1][1]),
                frozenset(_their_square(c) for c in (move.captures or ())),
            )
        )
    return out


def keys(routes: list[Route] | Counter[Route]) -> set[Key]:
    return {(path[0], path[-1], frozenset(caps)) for path, caps in routes}


def ours(position: Position, rules: Rules) -> Counter[Route]:
    return Counter((m.path, m.captures) for m in position.legal_moves(rules))


# -- the naive generator ----------------------------------------------------------------
# Board: {(file 0-7, rank 1-8): (colour, king)}. Black moves towards rank 1.

DIAGONALS = ((-1, -1), (1, -1), (-1, 1), (1, 1))


def naive_moves(position: Position, rules: Rules) -> Counter[Route]:
    board = {(file_of(s), rank_of(s)): (p.color, p.king) for s, p in position.pieces().items()}
    me = position.turn
    forward = -1 if me is Color.BLACK else 1
    crown_rank = 1 if me is Color.BLACK else 8

    def sq(at: tuple[int, int]) -> int:
        square = square_at(*at)
        assert square is not None
        return square

    def on_board(at: tuple[int, int]) -> bool:
        return 0 <= at[0] < 8 and 1 <= at[1] <= 8

    captures: list[tuple[Route, bool]] = []  # (route, made by a king)
    steps: list[Route] = []
    for origin, (color, king) in board.items():
        if color is not me:
            continue

        def free(at: tuple[int, int], origin: tuple[int, int] = origin) -> bool:
            # The mover has left its start square; jumped pieces stay until the end.
            return on_board(at) and (at not in board or at == origin)

        def jumps(
            at: tuple[int, int], is_king: bool, taken: list[tuple[int, int]]
        ) -> list[tuple[tuple[int, int], list[tuple[int, int]]]]:
            """(jumped square, landing squares) for every jump from ``at``."""
            out = []
            for df, dr in DIAGONALS:
                if not is_king and dr != forward and not rules.men_capture_backward:
                    continue
                x, y = at[0] + df, at[1] + dr
                if is_king and rules.flying_kings:
                    while free((x, y)):
                        x, y = x + df, y + dr
                if not on_board((x, y)) or (x, y) in taken:
                    continue
                victim = board.get((x, y))
                if victim is None or victim[0] is me:
                    continue
                lands = []
                lx, ly = x + df, y + dr
                while free((lx, ly)):
                    lands.append((lx, ly))
                    if not (is_king and rules.flying_kings):
                        break
                    lx, ly = lx + df, ly + dr
                if lands:
                    out.append(((x, y), lands))
            return out

        def chain(
            at: tuple[int, int], is_king: bool, path: list[int], taken: list[tuple[int, int]], origin_king: bool = king
        ) -> None:
            found = jumps(at, is_king, taken)
            if not found:
                if taken:
                    captures.append(((tuple(path), tuple(sq(t) for t in taken)), origin_king))
                return
            for victim, lands in found:
                now_taken = taken + [victim]

                # A chain may not stop where it could go on: among the landing squares,
                # those that allow a further jump are the only choice when there are any.
                def goes_on(land: tuple[int, int]) -> bool:
                    return bool(
                        jumps(
                            land,
                            is_king or (land[1] == crown_rank and rules.crowning is Crowning.CONTINUES_AS_KING),
                            now_taken,
                        )
                    )

                if len(lands) > 1 and any(goes_on(land) for land in lands):
                    lands = [land for land in lands if goes_on(land)]
                for land in lands:
                    new_path = path + [sq(land)]
                    if not is_king and land[1] == crown_rank:
                        if rules.crowning is Crowning.ENDS_MOVE:
                            captures.append(((tuple(new_path), tuple(sq(t) for t in now_taken)), origin_king))
                            continue
                        chain(land, rules.crowning is Crowning.CONTINUES_AS_KING, new_path, now_taken)
                    else:
                        chain(land, is_king, new_path, now_taken)

        chain(origin, king, [sq(origin)], [])
        for df, dr in DIAGONALS:
            if not king and dr != forward:
                continue
            x, y = origin[0] + df, origin[1] + dr
            while free((x, y)) and (x, y) != origin:
                steps.append(((sq(origin), sq((x, y))), ()))
                if not (king and rules.flying_kings):
                    break
                x, y = x + df, y + dr

    routes = [route for route, _ in captures]
    if rules.kings_capture_first and any(by_king for _, by_king in captures):
        routes = [route for route, by_king in captures if by_king]
    if routes and rules.captures_compulsory and not rules.huffing:
        return Counter(routes)
    return Counter(routes + steps)


# -- positions --------------------------------------------------------------------------


def random_game_positions(rng: random.Random, rules: Rules, count: int) -> Iterator[Position]:
    made = 0
    while made < count:
        pos = Position.start(rules)
        for _ in range(150):
            moves = pos.legal_moves(rules)
            if not moves or made >= count:
                break
            yield pos
            made += 1
            pos = pos.apply(rng.choice(moves), rules)


def random_setup(rng: random.Random) -> Position:
    """Random men and kings, often king-rich; men never stand on their own king row."""
    squares = list(range(1, 33))
    rng.shuffle(squares)
    n_black, n_white = rng.randint(1, 9), rng.randint(1, 9)
    king_share = rng.choice((0.2, 0.5, 0.9))
    pieces: dict[int, str] = {}
    for i, square in enumerate(squares[: n_black + n_white]):
        black = i < n_black
        king = rng.random() < king_share
        if not king and ((black and square >= 29) or (not black and square <= 4)):
            king = True
        pieces[square] = ("B" if king else "b") if black else ("W" if king else "w")
    return Position.from_pieces(pieces, rng.choice((Color.BLACK, Color.WHITE)))


def crowning_setup(rng: random.Random) -> Position:
    """Men of the side to move just short of their king row among opponents: chains
    that pass over the king row are common here."""
    turn = rng.choice((Color.BLACK, Color.WHITE))
    near = list(range(21, 25)) if turn is Color.BLACK else list(range(9, 13))
    rng.shuffle(near)
    pieces: dict[int, str] = {}
    man, king = ("b", "B") if turn is Color.BLACK else ("w", "W")
    foe_man, foe_king = ("w", "W") if turn is Color.BLACK else ("b", "B")
    for square in near[: rng.randint(1, 3)]:
        pieces[square] = man
    # Opponents mostly on the row before the king row, where they get jumped on the
    # way in and out.
    rows = range(25, 29) if turn is Color.BLACK else range(5, 9)
    close = [s for s in rows if s not in pieces]
    rng.shuffle(close)
    for square in close[: rng.randint(2, 3)]:
        pieces[square] = foe_king if rng.random() < 0.3 else foe_man
    free = [s for s in range(1, 33) if s not in pieces]
    rng.shuffle(free)
    for square in free[: rng.randint(1, 5)]:
        pieces[square] = foe_king if rng.random() < 0.3 else foe_man
    if rng.random() < 0.3:
        pieces[free[-1]] = king
    # Men of the side not to move never stand on their own king row.
    for square, symbol in pieces.items():
        if symbol == foe_man and ((turn is Color.WHITE and square >= 29) or (turn is Color.BLACK and square <= 4)):
            pieces[square] = foe_king
    return Position.from_pieces(pieces, turn)


def sample(seed: int, rules: Rules, games: int, setups: int) -> list[Position]:
    rng = random.Random(seed)
    return (
        list(random_game_positions(rng, rules, games))
        + [random_setup(rng) for _ in range(setups)]
        + [crowning_setup(rng) for _ in range(setups)]
    )


def _report(position: Position, mine: object, theirs: object) -> str:
    return f"{position.fen()}\n{position.diagram()}\nours: {mine}\ntheirs: {theirs}"


# -- tests ------------------------------------------------------------------------------


def test_pydraughts_russian_reading() -> None:
    """Our reading of pydraughts's Russian board, proven on hand-checked positions."""
    start = Position.start(RUSSIAN)
    assert pydraughts_russian(start) == {
        (s, e, frozenset()) for s, e in [(21, 17), (22, 17), (22, 18), (23, 18), (23, 19), (24, 19), (24, 20)]
    }
    # The flying king on a1 jumping d4 from afar, landing e5-h8 (see test_variants_rules).
    assert pydraughts_russian(Position.from_fen("W:WK29:B18")) == {(29, s, frozenset({18})) for s in (15, 11, 8, 4)}
    # A man crowned on d8 goes on as a king over f6 to g5 or h4.
    assert pydraughts_russian(Position.from_fen("W:W9:B6,11")) == {
        (9, 16, frozenset({6, 11})),
        (9, 20, frozenset({6, 11})),
    }
    # Black men (moving towards a1) are read the right way round too.
    assert pydraughts_russian(Position.from_fen("B:W25,26:B21")) == {
        (21, s, frozenset({25, 26})) for s in (23, 19, 16, 12)
    }


def _check_russian(positions: list[Position]) -> Counter[str]:
    seen: Counter[str] = Counter()
    for position in positions:
        mine = ours(position, RUSSIAN)
        theirs = pydraughts_russian(position)
        assert keys(mine) == theirs, _report(position, keys(mine), theirs)
        naive = naive_moves(position, RUSSIAN)
        assert naive == mine, "naive generator: " + _report(position, mine, naive)
        seen["positions"] += 1
        seen["with kings"] += bool(position.kings)
        seen["multi-captures"] += any(len(caps) > 1 for _, caps in mine)
    return seen


def test_russian_against_pydraughts_and_the_naive_generator() -> None:
    seen = _check_russian(sample(2026, RUSSIAN, games=250, setups=350))
    # The sample really covers what matters.
    assert seen["with kings"] > 300 and seen["multi-captures"] > 80, seen


@pytest.mark.slow
def test_russian_against_pydraughts_many() -> None:
    seen = _check_russian(sample(7, RUSSIAN, games=3000, setups=8000))
    assert seen["multi-captures"] > 2000, seen


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe())
def test_general_generator_against_the_naive_one(rules: Rules) -> None:
    crowned_mid_capture = 0
    for position in sample(11, rules, games=150, setups=250):
        mine = ours(position, rules)
        naive = naive_moves(position, rules)
        assert mine == naive, _report(position, mine, naive)
        crowned_mid_capture += any(
            not position.kings & (1 << (path[0] - 1))
            and any((s <= 4 if position.turn is Color.WHITE else s >= 29) for s in path[1:-1])
            for path, _ in mine
        )
    if rules.crowning is not Crowning.ENDS_MOVE:
        assert crowned_mid_capture > 10


@pytest.mark.parametrize(
    "rules",
    [WCDF, Rules(men_capture_backward=True), Rules(captures_compulsory=False), Rules(huffing=True)],
    ids=lambda r: r.describe(),
)
def test_general_generator_agrees_with_the_fast_english_one(rules: Rules) -> None:
    for position in sample(5, rules, games=300, setups=300):
        own, opp = (
            (position.black, position.white) if position.turn is Color.BLACK else (position.white, position.black)
        )
        general = Counter(legal_routes(own, opp, position.kings, position.turn is Color.BLACK, rules))
        fast = ours(position, rules)
        assert general == fast, _report(position, general, fast)
