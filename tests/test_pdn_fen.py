"""FEN in its PDN form: ranges, kings, unsorted squares, trailing dots, exact round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crownhead.rules import BLACK, WHITE, FenError, Piece, Position
from crownhead.rules.pdn import read_game

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


@pytest.mark.parametrize(
    "fen",
    [
        "B:W21-32:B1-12",
        "B:W21-24,25-32:B1-4,5,6,7-12",
        "b:w32,31,30,29,28,27,26,25,24,23,22,21:b12,11,10,9,8,7,6,5,4,3,2,1",
        "B:B1-12:W21-32",  # the sides in either order
        "B:W21-32:B1-12.",  # a trailing dot, as problem files write
        " B : W21-32 : B1-12 ",
        '"B:W21-32:B1-12"',
        START_FEN,
    ],
)
def test_ways_of_writing_the_start_position(fen: str) -> None:
    assert Position.from_fen(fen) == Position.start()


def test_kings_and_ranges_of_kings() -> None:
    pos = Position.from_fen("W:WK21-23,24:BK1,2,k3.")
    assert pos.turn is WHITE
    assert pos.piece_at(21) == Piece(WHITE, True) and pos.piece_at(23) == Piece(WHITE, True)
    assert pos.piece_at(24) == Piece(WHITE, False)
    assert pos.piece_at(1) == Piece(BLACK, True) and pos.piece_at(3) == Piece(BLACK, True)
    assert pos.piece_at(2) == Piece(BLACK, False)
    assert pos.fen() == "W:WK21,K22,K23,24:BK1,2,K3"


def test_ranges_written_high_to_low_or_with_a_k_on_both_ends() -> None:
    assert Position.from_fen("B:W32-21:B12-1") == Position.start()
    pos = Position.from_fen("W:WK23-K21,24:BK1-k2")
    assert pos.fen() == "W:WK21,K22,K23,24:BK1,K2"


def test_unsorted_squares_from_a_problem_file() -> None:
    pos = Position.from_fen("W:W29,25,21,18,15:B13,8,6,5,4.")
    assert pos.fen() == "W:W15,18,21,25,29:B4,5,6,8,13"


def test_empty_sides() -> None:
    assert Position.from_fen("W:W:B").fen() == "W:W:B"
    assert Position.from_fen("B:W18") == Position(0, 1 << 17, 0, BLACK)


@pytest.mark.parametrize(
    "fen",
    [
        START_FEN,
        "W:W15,18,21,25,29:B4,5,6,8,13",
        "B:WK1,K2,31:BK32",
        "W:W:B",
        "B:W:BK5",
    ],
)
def test_canonical_fen_round_trips_exactly(fen: str) -> None:
    assert Position.from_fen(fen).fen() == fen


@st.composite
def positions(draw: st.DrawFn) -> Position:
    squares = draw(st.lists(st.integers(1, 32), unique=True, max_size=24))
    pieces = {s: draw(st.sampled_from("bwBW")) for s in squares}
    return Position.from_pieces(pieces, draw(st.sampled_from([BLACK, WHITE])))


@given(positions())
def test_any_position_round_trips_through_fen(pos: Position) -> None:
    fen = pos.fen()
    assert Position.from_fen(fen) == pos
    assert Position.from_fen(fen).fen() == fen


@pytest.mark.parametrize(
    ("fen", "problem"),
    [
        ("", "must start with the side to move"),
        ("X:W1:B2", "must start with the side to move"),
        ("B:W33", "square 33 is not on the board"),
        ("B:W0", "square 0 is not on the board"),
        ("B:Wa", "bad square 'a'"),
        ("B:WK", "bad square 'K'"),
        ("B:WKK1", "bad square 'KK1'"),
        ("B:W1-", "bad range '1-'"),
        ("B:W0-3", "range '0-3' is not within 1-32"),
        ("B:WK3-x", "bad range 'K3-x'"),
        ("B:W1-40", "range '1-40' is not within 1-32"),
        ("B:W1,1", "two pieces on square 1"),
        ("B:W1:B1", "two pieces on square 1"),
        ("B:W1:W2", "lists W twice"),
        ("B:Z1", "'Z1' should start with B or W"),
        ("B:W1;B2", "bad square '1;B2'"),
    ],
)
def test_malformed_fen_names_the_problem(fen: str, problem: str) -> None:
    with pytest.raises(FenError, match="FEN") as info:
        Position.from_fen(fen)
    assert problem in str(info.value)


def test_a_bad_fen_tag_fails_only_its_game() -> None:
    game = read_game('[FEN "B:W1,1:B5"]\n1. 5-9 *', "p.pdn")
    assert game is not None and game.error is not None
    assert str(game.error) == "p.pdn:1: game 1: FEN 'B:W1,1:B5' puts two pieces on square 1"


@pytest.mark.parametrize(
    ("fen", "problem"),
    [
        ("W:W" + "1," * 45_000, "two pieces on square 1"),
        ("X" * 90_000, "must start with the side to move"),
        ("B:W18:B" + "x" * 90_000, "bad square"),
        ("B:W18:B1-" + "9" * 90_000, "bad range"),
        ("B:W18:Q" + "1" * 90_000, "should start with B or W"),
    ],
)
def test_a_bad_fen_of_90_kb_is_named_with_a_short_excerpt(
    fen: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 54: the whole argument was echoed, 90 KB of error.
    from crownhead.firmware.cli import main

    assert main(["moves", "--fen", fen]) != 0
    err = capsys.readouterr().err
    assert problem in err and len(err) < 400, err[:400]
