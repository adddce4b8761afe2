"""Perft: leaf counts of the move tree against published numbers and hand counts.

The start-position numbers were published by Aart Bik ("perft for 8x8 checkers",
talkchess.com forum, 8 May 2009, http://www.talkchess.com/forum3/viewtopic.php?t=27814)
and confirmed by Martin Fierz's Cake ("perft for checkers", 15 February 2009,
http://checker-board.blogspot.com/2009/02/), both counting every capture route. Depth 12
(388623673 counted, 388617999 unique) is too slow for the test suite; run it with::

    crownhead perft --depth 12 --time            # about a minute
    crownhead perft --depth 12 --unique --time
"""

from __future__ import annotations

import random

import pytest

from crownhead.rules import WCDF, Position, Rules, movegen
from crownhead.rules.perft import _perft_unique, divide, perft
from crownhead.rules.position import Color

# Aart Bik / Cake, start position, every capture route counted.
START = {1: 7, 2: 49, 3: 302, 4: 1469, 5: 7361, 6: 36768, 7: 179740, 8: 845931}
START_SLOW = {9: 3963680, 10: 18391564, 11: 85242128}

# Captures optional ("American checkers" in py-draughts 1.10.1, whose move generator
# offers plain moves beside captures): PERFT_ANCHORS[AmericanBoard] in its
# test/test_move_generation_perf.py. py-draughts merges routes with equal start, end and
# captured set; so early in the game no two routes can share those, so both counts agree.
CAPTURES_OPTIONAL = {1: 7, 2: 49, 3: 379, 4: 2872, 5: 23582}

OPTIONS = [
    Rules(),
    Rules(men_capture_backward=True),
    Rules(captures_compulsory=False),
    Rules(men_capture_backward=True, captures_compulsory=False),
]


@pytest.mark.parametrize("depth", sorted(START))
def test_start_position(depth: int) -> None:
    assert perft(Position.start(), depth, WCDF) == START[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", sorted(START_SLOW))
def test_start_position_deep(depth: int) -> None:
    assert perft(Position.start(), depth, WCDF) == START_SLOW[depth]


def test_depth_zero_is_the_position_itself() -> None:
    assert perft(Position.start(), 0, WCDF) == 1
    assert perft(Position.start(), 0, unique=True, rules=WCDF) == 1


@pytest.mark.parametrize("depth", sorted(CAPTURES_OPTIONAL))
def test_start_position_captures_optional(depth: int) -> None:
    rules = Rules(captures_compulsory=False)
    assert perft(Position.start(), depth, rules) == CAPTURES_OPTIONAL[depth]
    assert perft(Position.start(), depth, rules, unique=True) == CAPTURES_OPTIONAL[depth]


@pytest.mark.parametrize("depth", range(1, 8))
def test_unique_equals_counted_early(depth: int) -> None:
    # Two routes with equal start, end and captured set need a king going round four
    # pieces; from the start that first happens at depth 12 (388623673 vs 388617999).
    assert perft(Position.start(), depth, unique=True, rules=WCDF) == START[depth]


def test_divide_sums_to_perft() -> None:
    rows = divide(Position.start(), 5, WCDF)
    assert [str(m) for m, _ in rows] == [str(m) for m in Position.start().legal_moves(WCDF)]
    assert sum(n for _, n in rows) == START[5]
    assert divide(Position.start(), 0, WCDF) == []
    # Unique divide merges the king's two loop routes into one row.
    loop = Position.from_fen("B:WK6,K7,K14,15,K28:BK9")
    assert [n for _, n in divide(loop, 3, WCDF)] == [8, 8]
    assert [n for _, n in divide(loop, 3, unique=True, rules=WCDF)] == [8]


# -- positions where --unique matters ----------------------------------------------------
#
# Found by searching random king positions for two capture routes with the same start,
# end and captured set, then counted by hand.


def test_king_loop_both_ways() -> None:
    # Black king on 15 (e5); White kings 18, 19 and men 26, 27 around d4-f4-d2-f2:
    #
    #   8  . . . .            15x24x31x22x15 and 15x22x31x24x15 take the same four
    #   5   . B . .           pieces and end where they started: two routes, one
    #   4  . W W .            unique move. White is left with nothing: depth 2 is 0.
    #   2  . w w .
    pos = Position.from_fen("B:WK18,K19,26,27:BK15")
    assert perft(pos, 1, WCDF) == 2
    assert perft(pos, 1, unique=True, rules=WCDF) == 1
    assert perft(pos, 2, WCDF) == 0


def test_king_loop_with_a_reply() -> None:
    # Black king b6 (9); White kings c7 (6), e7 (7), c5 (14), h2 (28), man e5 (15).
    #
    #   8   . . . .        b6 round c7-e7-e5-c5 either way: 9x2x11x18x9 or 9x18x11x2x9,
    #   7  . W W .         both taking 6, 7, 14, 15 and ending on 9 (2 counted, 1
    #   6   B . . .        unique). Then White's king on h2 has g3 (24) and g1 (32):
    #   5  . W w .         4 / 2 at depth 2. Then Black's lone king on b6 has a7, c7,
    #   2  . . . W         a5, c5: 16 / 8 at depth 3.
    pos = Position.from_fen("B:WK6,K7,K14,15,K28:BK9")
    assert [perft(pos, d, WCDF) for d in (1, 2, 3)] == [2, 4, 16]
    assert [perft(pos, d, unique=True, rules=WCDF) for d in (1, 2, 3)] == [1, 2, 8]


def test_king_loop_that_goes_on() -> None:
    # Black king e5 (15) among White men 9, 10, 17, 21 and kings 18, 19, 28.
    # 15x24 takes 19 alone. 15x22x13x6x15x24 and 15x6x13x22x15x24 both pass through
    # the start square and go on to 24, taking 9, 10, 17, 18, 19: 3 counted, 2 unique.
    # Whatever Black did, White's king on h2 (28) must jump g3 (24) to f4 (19): the
    # only reply, and Black has nothing left after it.
    pos = Position.from_fen("B:W9,10,17,K18,K19,21,K28:BK15")
    assert [perft(pos, d, WCDF) for d in (1, 2, 3)] == [3, 3, 0]
    assert [perft(pos, d, unique=True, rules=WCDF) for d in (1, 2, 3)] == [2, 2, 0]


def test_man_loop_when_men_capture_backward() -> None:
    # A Black man on b6 (9) round White's men c7 (6), e7 (7), c5 (14), e5 (15): only
    # with men capturing backward, and d8 (2) is White's crown row, not Black's, so
    # the man goes all the way round. WCDF: it can only jump 14, to d4 (18).
    pos = Position.from_fen("B:W6,7,14,15,K28:B9")
    assert perft(pos, 1, WCDF) == 1
    back = Rules(men_capture_backward=True)
    assert perft(pos, 1, back) == 2
    assert perft(pos, 1, back, unique=True) == 1
    # Captures optional as well: the plain step to a5 (13) joins them.
    both = Rules(men_capture_backward=True, captures_compulsory=False)
    assert perft(pos, 1, both) == 3
    assert perft(pos, 1, both, unique=True) == 2


def _random_king_position(rng: random.Random) -> Position:
    squares = rng.sample(range(1, 33), rng.randint(6, 11))
    n_black = rng.randint(1, 3)
    pieces: dict[int, str] = {}
    for i, square in enumerate(squares):
        black = i < n_black
        king = rng.random() < 0.6 or (square >= 29 if black else square <= 4)
        pieces[square] = ("B" if king else "b") if black else ("W" if king else "w")
    return Position.from_pieces(pieces, Color.BLACK)


def test_search_finds_duplicate_routes_and_unique_merges_them() -> None:
    rng = random.Random(12)
    found = 0
    for _ in range(20000):
        pos = _random_king_position(rng)
        counted, unique = perft(pos, 1, WCDF), perft(pos, 1, unique=True, rules=WCDF)
        if counted == unique:
            continue
        found += 1
        moves = pos.legal_moves(WCDF)
        keys = {(m.start, m.end, frozenset(m.captures)) for m in moves}
        assert (counted, unique) == (len(moves), len(keys)), pos.fen()
        assert unique < counted
        # Every merged pair is a king's loop: the same pieces taken in another order.
        for key in keys:
            twins = [m for m in moves if (m.start, m.end, frozenset(m.captures)) == key]
            if len(twins) > 1:
                assert pos.piece_at(key[0]).king
                assert len({m.captures for m in twins}) == len(twins)
                assert len(key[2]) >= 4
        # The fast unique count agrees with the one built move by move.
        assert perft(pos, 3, unique=True, rules=WCDF) == _perft_unique(pos, 3, Rules())
    assert found >= 5


# -- the fast count against the move list ----------------------------------------------


def _random_positions(seed: int, count: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start()
        for _ in range(rng.randint(5, 120)):
            moves = pos.legal_moves(WCDF)
            if not moves:
                break
            pos = pos.apply(rng.choice(moves), WCDF)
        out.append(pos)
        out.append(_random_king_position(rng))
    return out


def _perft_by_moves(pos: Position, depth: int, rules: Rules) -> int:
    if depth == 0:
        return 1
    return sum(_perft_by_moves(pos.apply(m, WCDF), depth - 1, rules) for m in pos.legal_moves(rules))


@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe())
def test_fast_count_matches_move_list(rules: Rules) -> None:
    # perft runs on its own board layout; tie it to legal_moves (which the oracle
    # tests hold against pydraughts), position by position, for every rule option.
    for pos in _random_positions(seed=3, count=300):
        assert perft(pos, 1, rules) == len(pos.legal_moves(rules)), pos.fen()
        assert perft(pos, 3, rules) == _perft_by_moves(pos, 3, rules), pos.fen()
        assert perft(pos, 2, rules, unique=True) == _perft_unique(pos, 2, rules), pos.fen()


@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe())
def test_fast_children_are_the_positions_after_each_move(rules: Rules) -> None:
    # The boards the fast count walks through, square for square (a stale king bit
    # left on an emptied square would only show up plies later in a count).
    for pos in _random_positions(seed=5, count=300):
        own, opp, black = (pos.black, pos.white, True) if pos.turn is Color.BLACK else (pos.white, pos.black, False)
        kids = movegen._g_children(
            movegen._ghost(own),
            movegen._ghost(opp),
            movegen._ghost(pos.kings),
            black,
            rules.men_capture_backward,
            rules.captures_compulsory,
        )
        seen = sorted((movegen._unghost(o), movegen._unghost(p), movegen._unghost(k)) for o, p, k in kids)
        expected = sorted(
            (after.pieces_of(after.turn), after.pieces_of(pos.turn), after.kings)
            for after in (pos.apply(m, rules) for m in pos.legal_moves(rules))
        )
        assert seen == expected, pos.fen()


@pytest.mark.slow
@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe())
def test_fast_count_matches_move_list_deeper(rules: Rules) -> None:
    for pos in _random_positions(seed=4, count=600):
        assert perft(pos, 4, rules) == _perft_by_moves(pos, 4, rules), pos.fen()
        assert perft(pos, 3, rules, unique=True) == _perft_unique(pos, 3, rules), pos.fen()
