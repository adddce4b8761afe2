"""Illegal moves read back from the switches, what rule they break, and standing one in a game."""

from __future__ import annotations

import pytest

from crownhead.firmware.referee.offences import classify, jump_shaped, read_move, read_out_of_turn, stand
from crownhead.rules import WCDF, Game, Move, Position
from crownhead.squares import mask_of

START = Position.start()


def board_after(position: Position, lifted: tuple[int, ...], placed: tuple[int, ...]) -> int:
    return position.occupied & ~mask_of(lifted) | mask_of(placed)


def test_one_piece_moved_and_pieces_taken_off_is_read() -> None:
    pos = Position.from_fen("B:W18,27:B9,14")
    move = read_move(pos, board_after(pos, (9,), (13,)), WCDF)
    assert move == Move((9, 13))
    move = read_move(pos, board_after(pos, (14, 27), (10,)), WCDF)
    assert move == Move((14, 10), (27,))


def test_a_legal_capture_read_back_is_the_legal_move_with_every_landing() -> None:
    pos = Position.from_fen("B:W15,23,32:B10,1")
    assert read_move(pos, board_after(pos, (10, 15, 23), (26,)), WCDF) == Move((10, 19, 26), (15, 23))


@pytest.mark.parametrize(
    ("lifted", "placed", "why"),
    [
        ((9, 10), (13, 14), "two of the mover's pieces moved: which went where is not told"),
        ((9,), (), "a piece off the board and nothing placed: knocked or in the hand"),
        ((9,), (13, 17), "one piece, two new squares"),
        ((22,), (18,), "only the opponent's piece moved"),
        ((), (13,), "a piece from nowhere"),
    ],
)
def test_anything_else_is_not_guessed(lifted: tuple[int, ...], placed: tuple[int, ...], why: str) -> None:
    assert read_move(START, board_after(START, lifted, placed), WCDF) is None, why


def test_a_move_out_of_turn_is_read_for_the_side_not_to_move() -> None:
    pos = Position.from_fen("W:W27:B1,K31")  # Black has just crowned on 31; White to move
    board = board_after(pos, (31, 27), (24,))
    assert read_out_of_turn(pos, board) == Move((31, 24), (27,))
    assert jump_shaped(Move((31, 24), (27,)))
    # Read as White's move it would be 27 to 24 with Black's king gone: not a jump's shape.
    assert read_move(pos, board, WCDF) == Move((27, 24), (31,)) and not jump_shaped(Move((27, 24), (31,)))


@pytest.mark.parametrize(
    ("fen", "move", "touched", "code"),
    [
        (START.fen(), Move((10, 14)), 9, "touch-move"),
        ("B:W30:B14,9", Move((14, 10)), None, "backward-man"),
        ("B:W18:B14,9", Move((14, 17)), None, "forced-capture"),
        ("B:W18:B14,9", Move((9, 13)), None, "forced-capture"),
        ("B:W15,23,32:B10,1", Move((10, 19), (15,)), None, "unfinished-capture"),
        ("B:W26,27:B22,1", Move((22, 24), (26, 27)), None, "continued-after-crown"),
        ("B:W30:B1,5,6,9", Move((1, 10)), None, "unplayable-piece"),
        ("B:W30:B14,9", Move((14, 23)), None, "wrong-move"),
    ],
)
def test_classify(fen: str, move: Move, touched: int | None, code: str) -> None:
    offence = classify(Position.from_fen(fen), move, touched=touched, rules=WCDF)
    assert offence.code == code and offence.side.name == "BLACK" and offence.message


def test_a_king_moving_backward_is_no_backward_man() -> None:
    assert classify(Position.from_fen("B:W30:BK14,9"), Move((14, 5)), rules=WCDF).code == "wrong-move"


def test_stand_enters_an_illegal_move_and_the_game_goes_on_from_the_board() -> None:
    game = Game(Position.from_fen("B:W30:B14,9"), WCDF)
    after = stand(game, Move((14, 10)))
    assert after == Position.from_fen("W:W30:B9,10") == game.position
    assert game.ply == 1 and game.moves == [Move((14, 10))] and game.quiet_plies == 0
    game.play_text("30-26")
    assert game.ply == 2 and game.repetitions() == 1
    game.undo()
    game.undo()
    assert game.position == Position.from_fen("B:W30:B14,9")


def test_stand_crowns_a_man_reaching_the_king_row() -> None:
    game = Game(Position.from_fen("B:W5:B22"), WCDF)
    stand(game, Move((22, 31)))  # two rows at once: illegal, and on the king row
    assert game.position.piece_at(31).king  # type: ignore[union-attr]
    assert game.condoned == {1}


def test_stand_refuses_a_legal_move() -> None:
    game = Game(Position.from_fen("B:W5:B27"), WCDF)
    with pytest.raises(ValueError, match="27-31 is a legal move"):
        stand(game, Move((27, 31)))
    assert game.ply == 0 and not game.condoned


@pytest.mark.parametrize(
    "name",
    [
        "crownhead.firmware.referee.arbiter",
        "crownhead.firmware.referee.offences",
        "crownhead.firmware.referee.record",
        "crownhead.firmware.events.referee",
        "crownhead.firmware.referee.settings",
    ],
)
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
