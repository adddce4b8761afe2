"""Plain moves, a blocked side, reading moves as people write them, and square names."""

from __future__ import annotations

import pytest

from crownhead.rules import (
    WCDF,
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    Move,
    Position,
    Rules,
    parse_square,
    square_name,
)
from crownhead.rules.game import WHITE_WINS
from crownhead.rules.perft import perft


# -- a side that cannot move ----------------------------------------------------------


def test_blocked_black_has_no_move_and_loses() -> None:
    #   8   . . . b     Black's only man, on h8 (4), faces g7 (8) with f6 (11) behind
    #   7  . . . w      it: no step, no jump. Black still has a piece but no move,
    #   6   . . w .     and a side with no legal move on its turn has lost (WCDF 1.30).
    pos = Position.from_fen("B:W8,11:B4")
    assert pos.legal_moves(WCDF) == []
    assert not pos.has_legal_move(WCDF)
    assert perft(pos, 1, WCDF) == 0 and perft(pos, 3, WCDF) == 0
    result = Game(pos, WCDF).result
    assert result is not None and result.score == WHITE_WINS and result.reason == "no-moves"


def test_blocked_white_has_no_move() -> None:
    #   3  . b . .      White's man on a1 (29) faces b2 (25) with c3 (22) behind it.
    #   2   b . . .
    #   1  w . . .
    pos = Position.from_fen("W:W29:B22,25")
    assert pos.legal_moves(WCDF) == []
    assert pos.legal_moves(Rules(captures_compulsory=False, men_capture_backward=True)) == []
    assert Game(pos, WCDF).result is not None


def test_a_side_without_pieces_has_no_move() -> None:
    assert Position.from_fen("W:W:B1").legal_moves(WCDF) == []


def test_kings_step_both_ways_men_forward_only() -> None:
    #   5  . . b .      A Black man on e5 (15) steps to d4 (18) or f4 (19); a Black king
    #   4   . . . .     there also to d6 (10) and f6 (11).
    assert {str(m) for m in Position.from_fen("B:W32:B15").legal_moves(WCDF)} == {"15-18", "15-19"}
    assert {str(m) for m in Position.from_fen("B:W32:BK15").legal_moves(WCDF)} == {"15-10", "15-11", "15-18", "15-19"}
    # A White man on e5 steps up the board instead.
    assert {str(m) for m in Position.from_fen("W:W15:B1").legal_moves(WCDF)} == {"15-10", "15-11"}


def test_a_man_stepping_onto_the_king_row_is_crowned() -> None:
    pos = Position.from_fen("B:W32:B27")
    move = pos.parse_move("27-31", WCDF)
    assert pos.crowns(move, WCDF)
    assert pos.apply(move, WCDF).piece_at(31).king


# -- Position.parse_move ----------------------------------------------------------------


@pytest.mark.parametrize("text", ["11-15", "11x15", "11:15", "11 - 15", " 11-15 ", "11X15"])
def test_plain_move_written_loosely(text: str) -> None:
    assert Position.start().parse_move(text, WCDF) == Move((11, 15))


@pytest.mark.parametrize("text", ["09-13", "09x13", "9-13", "09:13"])
def test_leading_zeros(text: str) -> None:
    assert Position.start().parse_move(text, WCDF) == Move((9, 13))


@pytest.mark.parametrize("text", ["14x32", "14x23x32", "14:23:32", "14-23-32", "14X32"])
def test_capture_by_its_ends_or_its_full_path(text: str) -> None:
    pos = Position.from_fen("B:W16,18,27:B12,14")
    assert pos.parse_move(text, WCDF) == Move((14, 23, 32), (18, 27))


def test_wrong_full_path_is_illegal() -> None:
    pos = Position.from_fen("B:W16,18,27:B12,14")
    with pytest.raises(IllegalMoveError) as exc:
        pos.parse_move("14x24x32", WCDF)
    assert "14x24x32" in str(exc.value)


def test_illegal_and_malformed_moves() -> None:
    pos = Position.start()
    for text in ["21-17", "11-14", "1-5"]:  # White's man, a sideways step, a blocked man
        with pytest.raises(IllegalMoveError) as exc:
            pos.parse_move(text, WCDF)
        assert text in str(exc.value)
    for text in ["", "e3-f4", "11", "11-16x", "33-29", "0-4"]:
        with pytest.raises(ValueError) as bad:
            pos.parse_move(text, WCDF)
        assert not isinstance(bad.value, IllegalMoveError)  # malformed, not illegal
        assert repr(text) in str(bad.value)


def test_ambiguous_short_capture() -> None:
    # The king loop: "15x15" fits both directions round; each full path is one move.
    pos = Position.from_fen("B:WK18,K19,26,27:BK15")
    with pytest.raises(AmbiguousMoveError) as exc:
        pos.parse_move("15x15", WCDF)
    assert "15x22x31x24x15" in str(exc.value) and "15x24x31x22x15" in str(exc.value)
    assert pos.parse_move("15x22x31x24x15", WCDF).captures == (18, 26, 27, 19)
    assert len(pos.moves_matching("15x15", WCDF)) == 2


# -- square names ---------------------------------------------------------------------


def _name_by_geometry(square: int) -> str:
    # Four dark squares a row from Black's side: row 0 is rank 8, whose dark squares
    # are b, d, f, h; odd rows (rank 7, 5, ...) start on the a-file.
    row, index = divmod(square - 1, 4)
    file = 2 * index + (1 if row % 2 == 0 else 0)
    return "abcdefgh"[file] + str(8 - row)


@pytest.mark.parametrize("square", range(1, 33))
def test_square_names_both_ways(square: int) -> None:
    name = _name_by_geometry(square)
    assert square_name(square) == name
    assert parse_square(name) == square
    assert parse_square(name.upper()) == square
    assert parse_square(str(square)) == square


def test_square_name_landmarks() -> None:
    assert [square_name(s) for s in (1, 4, 5, 18, 29, 32)] == ["b8", "h8", "a7", "d4", "a1", "g1"]
    # The double corners and single corners as every checkers book has them.
    assert (parse_square("h8"), parse_square("a1")) == (4, 29)


@pytest.mark.parametrize("text", ["a8", "h1", "e4", "0", "33", "i1", "a9", "", "b"])
def test_bad_square_names(text: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_square(text)
    assert text in str(exc.value)  # the message names what was wrong


@pytest.mark.parametrize("square", [0, 33, -1, True])
def test_bad_square_numbers(square: int) -> None:
    with pytest.raises(ValueError):
        square_name(square)
