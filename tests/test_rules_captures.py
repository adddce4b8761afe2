"""Each capture rule of English checkers on a small position (WCDF rules unless named).

Diagrams are from Black's side, square 1 (b8) top left; ``b``/``w`` men, ``B``/``W``
kings. Black moves down the board (towards 29-32), White up (towards 1-4).
"""

from __future__ import annotations

import pytest

from crownhead.rules import WCDF, AmbiguousMoveError, IllegalMoveError, Move, Position, Rules
from crownhead.rules.perft import perft

BACKWARD = Rules(men_capture_backward=True)
OPTIONAL = Rules(captures_compulsory=False)


def moves(fen: str, rules: Rules = Rules()) -> set[str]:
    return {m.pdn(full=True) for m in Position.from_fen(fen).legal_moves(rules)}


# -- crowning ends the move ---------------------------------------------------------------


def test_crowning_ends_a_chain() -> None:
    #   3  . b . .      The man on c3 (22) jumps d2 (26) and lands on e1 (31), Black's
    #   2   . w w .     king row: it is crowned and the move ends there, although a
    #   1  . . . .      king on e1 could jump on over f2 (27) to g3 (24).
    pos = Position.from_fen("B:W26,27:B22")
    assert pos.legal_moves(WCDF) == [Move((22, 31), (26,))]
    move = pos.legal_moves(WCDF)[0]
    assert pos.crowns(move, WCDF)
    after = pos.apply(move, WCDF)
    assert after.fen() == "W:W27:BK31"


def test_crowning_ends_a_chain_for_white() -> None:
    #   8   . . . .     White's man on f6 (11) jumps e7 (7) to d8 (2) and is crowned
    #   7  . b b .      there; the jump on over c7 (6) to b6 (9) would need a king.
    #   6   . . w .
    assert moves("W:W11:B6,7") == {"11x2"}


def test_a_king_jumps_on_across_the_king_row() -> None:
    #   3  . B . .      The same squares with a king on c3: it lands on e1 (31) and
    #   2   . w w .     jumps on over f2 (27) to g3 (24); a king row does not stop a king.
    assert moves("B:W26,27:BK22") == {"22x31x24"}


def test_crowning_ends_a_chain_with_men_capturing_backward_too() -> None:
    assert moves("B:W26,27:B22", BACKWARD) == {"22x31"}


def test_a_king_jumps_out_of_the_king_row() -> None:
    #   2   . w . .     A Black king on c1 (30), on Black's own king row, jumps north
    #   1  . B . .      over d2 (26) to e3 (23); White's king on d8 (2) south over c7.
    assert moves("B:W26:BK30") == {"30x23"}
    assert moves("W:WK2:B6") == {"2x9"}


# -- jumped pieces ------------------------------------------------------------------------


def test_a_piece_is_jumped_once() -> None:
    #   5  . . B .      The king on e5 (15) jumps d4 (18) to c3 (22). Its start square is
    #   4   . w . .     empty now, and jumping d4 again back to e5 would be a second
    #   3  . . . .      capture of the same piece: the move ends on c3.
    pos = Position.from_fen("B:W18:BK15")
    assert pos.legal_moves(WCDF) == [Move((15, 22), (18,))]


def test_jumped_pieces_stay_until_the_chain_ends() -> None:
    # They come off only after the move (WCDF 1.19), so the position after a long chain
    # is the board minus exactly the jumped pieces, and the mover stands on its end.
    pos = Position.from_fen("B:W9,10,17,K18,K19,21,K28:BK15")
    [move] = [m for m in pos.legal_moves(WCDF) if len(m.captures) == 5 and m.path[1] == 22]
    assert move.pdn(full=True) == "15x22x13x6x15x24"
    after = pos.apply(move, WCDF)
    assert after.fen() == "W:W21,K28:BK24"
    # With short kings a landing square is never a jumped square (they differ in the
    # parity of file and rank), so a jumped piece's blocking of its square cannot be
    # seen on this board; test_rules_properties checks that over random positions.
    assert not set(move.path) & set(move.captures)


# -- a king may come back to its start square ------------------------------------------


def test_a_king_may_return_to_its_start_square() -> None:
    #   5  . . B .      The king on e5 (15) goes round d4, f4, d2, f2 either way and
    #   4   . W W .     lands on e5 again: two routes, the same four pieces taken.
    #   2   . w w .     Perft counts both; --unique merges them.
    pos = Position.from_fen("B:WK18,K19,26,27:BK15")
    assert moves(pos.fen()) == {"15x22x31x24x15", "15x24x31x22x15"}
    first, second = pos.legal_moves(WCDF)
    assert first.start == first.end == 15
    assert first.same_route(second) and first != second
    assert pos.apply(first, WCDF) == pos.apply(second, WCDF) == Position.from_fen("W:W:BK15")
    assert perft(pos, 1, WCDF) == 2
    assert perft(pos, 1, unique=True, rules=WCDF) == 1


# -- men capture forward only (unless the option is on) --------------------------------


def test_men_do_not_capture_backward() -> None:
    #   4   . w . .     Black's man on e3 (23) has White's man behind it on d4 (18):
    #   3  . . b .      under WCDF it may only step forward to d2 or f2.
    assert moves("B:W18:B23") == {"23-26", "23-27"}
    #   7  . w . .      White's man on c7 (6) is behind Black's man on d6 (10) from
    #   6   . b . .     White's point of view: it cannot jump it either.
    assert moves("W:W6:B10") == {"6-1", "6-2"}


def test_men_capture_backward_with_the_option() -> None:
    assert moves("B:W18:B23", BACKWARD) == {"23x14"}
    assert moves("W:W6:B10", BACKWARD) == {"6x15"}


def test_a_man_jumping_back_to_its_own_home_row_is_not_crowned() -> None:
    #   8   . . . .     With men capturing backward, Black's man on d6 (10) jumps c7 (6)
    #   7  . w . .      back to b8 (1). That is White's king row: the man stays a man.
    #   6   . b . .
    pos = Position.from_fen("B:W6:B10")
    [move] = pos.legal_moves(BACKWARD)
    assert move == Move((10, 1), (6,))
    assert not pos.crowns(move, BACKWARD)
    assert pos.apply(move, BACKWARD).fen() == "W:W:B1"


def test_a_man_capturing_backward_goes_round_a_loop() -> None:
    #   8   . . . .     Black's man on b6 (9) round c7, e7, e5, c5: only with the option
    #   7  . w w .      (d8 is White's king row, so nothing stops it), and then either
    #   6   b . . .     way round: two routes, one unique move. WCDF: just 9x18.
    #   5  . w w .
    fen = "B:W6,7,14,15,K28:B9"
    assert moves(fen) == {"9x18"}
    assert moves(fen, BACKWARD) == {"9x2x11x18x9", "9x18x11x2x9"}


# -- compulsory captures, free choice, optional captures --------------------------------


def test_a_capture_must_be_made() -> None:
    #   8   b . . .     Black could step 1-5 or 1-6 or 14-17, but the man on c5 (14) can
    #   5  . b . .      jump d4 (18): the capture is the only legal move.
    #   4   . w . .
    pos = Position.from_fen("B:W18:B1,14")
    assert moves(pos.fen()) == {"14x23"}
    with pytest.raises(IllegalMoveError):
        pos.parse_move("1-5", WCDF)


def test_free_choice_between_captures_not_the_longest() -> None:
    #   6   . . . b     Black may take one piece with h6 (12) or two with c5 (14):
    #   5  . b . w      either is legal (no majority rule in English checkers). But a
    #   4   . w . .     chain, once begun, must be completed: 14x23 alone is not legal.
    #   2   . . w .
    pos = Position.from_fen("B:W16,18,27:B12,14")
    assert moves(pos.fen()) == {"12x19", "14x23x32"}
    with pytest.raises(IllegalMoveError):
        pos.parse_move("14x23", WCDF)


def test_captures_optional_offers_both_kinds() -> None:
    #   5  . b . .      With captures optional the man on c5 (14) may jump d4 or step
    #   4   . w . .     to b4 (17); the man on b8 (1) may step too.
    assert moves("B:W18:B1,14", OPTIONAL) == {"14x23", "14-17", "1-5", "1-6"}
    assert moves("B:W18:B1,14", Rules(men_capture_backward=True, captures_compulsory=False)) == {
        "14x23",
        "14-17",
        "1-5",
        "1-6",
    }
    # Without a capture on the board nothing changes.
    assert moves(Position.start().fen(), OPTIONAL) == moves(Position.start().fen())


# -- reading moves ------------------------------------------------------------------------


def test_short_capture_with_two_routes_is_ambiguous() -> None:
    #   7  B w . b      Black's king on d2 (26) can reach b8 (1) over c3 and c5 or over
    #   6   . . . W     e3 and e5 (different pieces): "26x1" is ambiguous; the full path
    #   5  . W W .      says which. Round the loop back to d2 it is ambiguous as well,
    #   3  . W W .      although both routes take the same pieces.
    #   2   . B . .
    #   1  w . . .
    pos = Position.from_fen("B:W6,K12,K14,K15,K22,K23,29:BK5,8,K26")
    with pytest.raises(AmbiguousMoveError) as exc:
        pos.parse_move("26x1", WCDF)
    assert "26x17x10x1" in str(exc.value) and "26x19x10x1" in str(exc.value)
    assert pos.parse_move("26x17x10x1", WCDF).captures == (22, 14, 6)
    assert pos.parse_move("26x19x10x1", WCDF).captures == (23, 15, 6)
    with pytest.raises(AmbiguousMoveError):
        pos.parse_move("26x26", WCDF)
    assert pos.parse_move("26x17x10x19x26", WCDF).captures == (22, 14, 15, 23)
