"""Hand-checked small positions for every variant and house rule.

Each position has its diagram (Black at the top, square 1 = b8; ``b``/``w`` men,
``B``/``W`` kings) and the moves worked out by hand from the rule text. Squares are our
PDN numbers; the teaching names (a1-h8) are given where they help.
"""

from __future__ import annotations

import pytest

from crownhead.rules import Position, Rules
from crownhead.rules.move import Move
from crownhead.rules.position import Color
from crownhead.rules.settings import WCDF, Crowning
from crownhead.rules.pdn import move_text
from crownhead.rules.variants import GIVEAWAY, POOL, RUSSIAN

KEEP_JUMPING = Rules(crowning=Crowning.CONTINUES_AS_KING)
KINGS_FIRST = Rules(kings_capture_first=True)


def routes(fen: str, rules: Rules) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(m.path, m.captures) for m in Position.from_fen(fen).legal_moves(rules)}


def quiet(fen: str, rules: Rules) -> set[tuple[int, int]]:
    moves = Position.from_fen(fen).legal_moves(rules)
    assert not any(m.is_capture for m in moves)
    return {(m.start, m.end) for m in moves}


# -- flying kings -----------------------------------------------------------------------


@pytest.mark.parametrize("rules", [RUSSIAN, POOL], ids=["russian", "pool"])
def test_flying_king_moves_along_the_whole_diagonal(rules: Rules) -> None:
    # 8   .   .   .   .
    # 7 .   .   .   .
    # 6   .   .   .   b      White king on a1 (29), a Black man on h6 (12), off the
    # 5 .   .   .   .        long diagonal: the king may stop on any square of
    # 4   .   .   .   .      a1-h8, b2 (25) to h8 (4).
    # 3 .   .   .   .
    # 2   .   .   .   .
    # 1 W   .   .   .
    fen = "W:WK29:B12"
    assert quiet(fen, rules) == {(29, s) for s in (25, 22, 18, 15, 11, 8, 4)}
    # The English king moves one square.
    assert quiet(fen, WCDF) == {(29, 25)}


def test_flying_king_in_the_centre_has_thirteen_moves() -> None:
    # A lone White king on d4 (18): 4 squares towards h8, 3 towards a1, 3 towards a7,
    # 3 towards g1.
    moves = quiet("W:WK18:B", RUSSIAN)
    assert moves == {(18, s) for s in (15, 11, 8, 4, 22, 25, 29, 14, 9, 5, 23, 27, 32)}


def test_flying_king_stops_before_its_own_piece() -> None:
    # White king a1 (29) and White man e5 (15) on the long diagonal: the king reaches
    # b2, c3, d4 only; the man steps to d6 (10) or f6 (11).
    assert quiet("W:WK29,15:B", RUSSIAN) == {(29, 25), (29, 22), (29, 18), (15, 10), (15, 11)}


def test_flying_king_captures_at_a_distance_with_several_landing_squares() -> None:
    # 8   .   .   .   .
    # 7 .   .   .   .
    # 6   .   .   .   .      White king a1 (29) jumps the Black man on d4 (18) from
    # 5 .   .   .   .        three squares away and may land on e5, f6, g7 or h8
    # 4   .   b   .   .      (15, 11, 8, 4): four moves, captures compulsory.
    # 3 .   .   .   .
    # 2   .   .   .   .
    # 1 W   .   .   .
    for rules in (RUSSIAN, POOL):
        assert routes("W:WK29:B18", rules) == {((29, s), (18,)) for s in (15, 11, 8, 4)}
    # The English king cannot reach d4 to jump it.
    assert routes("W:WK29:B18", WCDF) == {((29, 25), ())}


def test_flying_king_must_land_where_it_can_jump_on() -> None:
    # 8   .   .   .   .
    # 7 .   .   b   .        After jumping d4 (18) the king could land on e5, f6, g7
    # 6   .   .   .   .      or h8, but only from f6 (11) can it jump on, over e7 (7)
    # 5 .   .   .   .        to d8 (2); so it must land on f6. One move: 29x11x2.
    # 4   .   b   .   .
    # 3 .   .   .   .
    # 2   .   .   .   .
    # 1 W   .   .   .
    for rules in (RUSSIAN, POOL):
        assert routes("W:WK29:B7,18", rules) == {((29, 11, 2), (18, 7))}


def test_a_captured_piece_blocks_the_rest_of_the_chain() -> None:
    # 8   .   .   .   .
    # 7 .   .   .   .        White king on c3 (22). It can jump e5 (15), landing on
    # 6   .   .   .   .      f6, g7 or h8, or jump b2 (25), landing on a1 (29).
    # 5 .   .   b   .        Having jumped e5, the way back to b2 runs over e5, which
    # 4   .   .   .   .      stays on the board until the move ends and cannot be
    # 3 .   W   .   .        passed (the Turkish strike rule). Having jumped b2, the
    # 2   b   .   .   .      way back is blocked by b2 itself. So no move takes both.
    # 1 .   .   .   .
    expected = {((22, 29), (25,))} | {((22, s), (15,)) for s in (11, 8, 4)}
    for rules in (RUSSIAN, POOL):
        assert routes("W:WK22:B15,25", rules) == expected


def test_men_capture_backward_in_russian_and_pool_but_step_forward_only() -> None:
    # White man d4 (18), Black man c3 (22) behind it: Russian and pool men jump backward
    # to b2 (25), and the jump is compulsory. The English man only steps forward.
    for rules in (RUSSIAN, POOL):
        assert routes("W:W18:B22", rules) == {((18, 25), (22,))}
    assert routes("W:W18:B22", WCDF) == {((18, 14), ()), ((18, 15), ())}
    # With nothing to jump, a man does not step backward.
    assert quiet("W:W18:B1", RUSSIAN) == {(18, 14), (18, 15)}


# -- crowning in the middle of a capture --------------------------------------------------


def test_crowning_mid_capture_four_ways() -> None:
    # 8   .   .   .   .
    # 7 .   .   .   .        Black man a3 (21) jumps b2 (25) and lands on c1 (30), on
    # 6   .   .   .   .      Black's king row. From c1, d2 (26) could be jumped next
    # 5 .   .   .   .        (backward, towards e3).
    # 4   .   .   .   .
    # 3 b   .   .   .
    # 2   w   w   .   .
    # 1 .   .   .   .
    fen = "B:W25,26:B21"
    pos = Position.from_fen(fen)
    # English: crowning ends the move.
    assert routes(fen, WCDF) == {((21, 30), (25,))}
    (english,) = pos.legal_moves(WCDF)
    assert pos.apply(english, WCDF).piece_at(30).king
    # Keep jumping after crowning: the new king jumps on over d2, one square, to e3.
    assert routes(fen, KEEP_JUMPING) == {((21, 30, 23), (25, 26))}
    (keep,) = pos.legal_moves(KEEP_JUMPING)
    assert pos.crowns(keep, KEEP_JUMPING)
    assert pos.apply(keep, KEEP_JUMPING).piece_at(23).king
    # Russian: the new king is a flying king and may land anywhere beyond d2.
    assert routes(fen, RUSSIAN) == {((21, 30, s), (25, 26)) for s in (23, 19, 16, 12)}
    for move in pos.legal_moves(RUSSIAN):
        assert pos.crowns(move, RUSSIAN)
        assert pos.play(move, RUSSIAN).piece_at(move.end).king
    # Pool: the man jumps on backward as a man, and is not crowned: its chain ends on e3.
    assert routes(fen, POOL) == {((21, 30, 23), (25, 26))}
    (pool,) = pos.legal_moves(POOL)
    assert not pos.crowns(pool, POOL)
    after = pos.play(pool, POOL)
    assert after.piece_at(23) is not None and not after.piece_at(23).king


def test_russian_crowned_man_goes_on_as_a_king_pool_man_stops_and_crowns() -> None:
    # 8   .   .   .   .
    # 7 .   b   .   .        White man b6 (9) jumps c7 (6) to d8 (2), White's king row.
    # 6   w   .   b   .      As a king it could go on over f6 (11), landing on g5 or
    # 5 .   .   .   .        h4 (16, 20); as a man it has nothing more to jump.
    # 4   .   .   .   .
    # 3 .   .   .   .
    # 2   .   .   .   .
    # 1 .   .   .   .
    fen = "W:W9:B6,11"
    assert routes(fen, RUSSIAN) == {((9, 2, 16), (6, 11)), ((9, 2, 20), (6, 11))}
    # Pool and English: the chain ends on d8 and the man is crowned there.
    for rules in (POOL, WCDF):
        assert routes(fen, rules) == {((9, 2), (6,))}
        pos = Position.from_fen(fen)
        (move,) = pos.legal_moves(rules)
        assert pos.crowns(move, rules) and pos.play(move, rules).piece_at(2).king


def test_pool_man_jumps_on_backward_from_the_king_row_uncrowned() -> None:
    # White man b6 (9) jumps c7 (6) to d8 (2), then must jump e7 (7) backward to f6
    # (11), where its chain ends: it stays a man. In Russian draughts it is a king from
    # d8 on and may land on f6, g5 or h4.
    fen = "W:W9:B6,7"
    assert routes(fen, POOL) == {((9, 2, 11), (6, 7))}
    pos = Position.from_fen(fen)
    (move,) = pos.legal_moves(POOL)
    assert not pos.play(move, POOL).piece_at(11).king
    assert routes(fen, RUSSIAN) == {((9, 2, s), (6, 7)) for s in (11, 16, 20)}
    assert all(pos.play(m, RUSSIAN).piece_at(m.end).king for m in pos.legal_moves(RUSSIAN))
    assert routes(fen, WCDF) == {((9, 2), (6,))}
    # Keep jumping after crowning: the new (one-square) king jumps e7 to f6 as a king.
    assert routes(fen, KEEP_JUMPING) == {((9, 2, 11), (6, 7))}
    (keep,) = pos.legal_moves(KEEP_JUMPING)
    assert pos.play(keep, KEEP_JUMPING).piece_at(11).king


def test_keep_jumping_never_jumps_a_piece_twice() -> None:
    # Black man e3 (23) jumps f2 (27) to g1 (32) and is crowned. The new king's only way
    # on would be back over f2, which it has already jumped: the chain ends on g1.
    assert routes("B:W27:B23", KEEP_JUMPING) == {((23, 32), (27,))}


# -- kings capture first --------------------------------------------------------------------


def test_kings_capture_first() -> None:
    # 8   .   .   .   .
    # 7 .   .   .   .        Black man b6 (9) can jump c5 (14) to d4 (18); the Black
    # 6   b   .   .   .      king on c3 (22) can jump d2 (26) to e1 (31).
    # 5 .   w   .   .
    # 4   .   .   .   .
    # 3 .   B   .   .
    # 2   .   w   .   .
    # 1 .   .   .   .
    fen = "B:W14,26:B9,K22"
    assert routes(fen, WCDF) == {((9, 18), (14,)), ((22, 31), (26,))}
    assert routes(fen, KINGS_FIRST) == {((22, 31), (26,))}
    # A man may still capture when no king can.
    assert routes("B:W14:B9,K30", KINGS_FIRST) == {((9, 18), (14,))}
    pos = Position.from_fen(fen)
    assert pos.capture_available(KINGS_FIRST)
    assert [m.start for m in pos.captures(KINGS_FIRST)] == [22]


# -- giveaway ---------------------------------------------------------------------------


def test_giveaway_moves_are_english_moves() -> None:
    for fen in ("B:W14,26:B9,K22", "B:W25,26:B21", "B:W21-32:B1-12"):
        assert routes(fen, GIVEAWAY) == routes(fen, WCDF)
    assert GIVEAWAY.fast_path


def test_russian_start_has_white_to_move_with_the_usual_seven_moves() -> None:
    start = Position.start(RUSSIAN)
    assert start.turn is Color.WHITE
    assert start.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    texts = sorted(move_text(start, m, RUSSIAN) for m in start.legal_moves(RUSSIAN))
    assert texts == ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
    assert Position.start(POOL).turn is Color.BLACK
    king = Position.from_fen("W:WK29:B18,7")
    assert move_text(king, Move((29, 11, 2), (18, 7)), RUSSIAN) == "a1:d8"
    assert move_text(king, Move((29, 11, 2), (18, 7)), RUSSIAN, numbers=True) == "29x2"
    # Two routes with the same ends: every landing, as the short form would not say which.
    loop = Position.from_fen("B:W6,7,14,15:BK2")
    assert sorted(move_text(loop, m, RUSSIAN) for m in loop.legal_moves(RUSSIAN)) == [
        "d8:b6:d4:f6:d8",
        "d8:f6:d4:b6:d8",
    ]
