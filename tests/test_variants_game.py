"""Games under the variants: giveaway results, huffing (huff, force the jump, let it
stand) with undo, and the variants' first movers. Positions are hand-checked; diagrams
have Black at the top (square 1 = b8)."""

from __future__ import annotations

import pytest

from crownhead.rules import WCDF, BLACK_WINS, WHITE_WINS, Game, Position, Rules
from crownhead.rules.game import Huff, HuffError, JumpForced
from crownhead.rules.move import IllegalMoveError, Move
from crownhead.rules.position import Color
from crownhead.rules.variants import GIVEAWAY, POOL, RUSSIAN

HUFFING = Rules(huffing=True)


# -- giveaway ---------------------------------------------------------------------------


def test_giveaway_side_without_pieces_wins() -> None:
    # Black to move with no piece at all: lost in checkers, won in giveaway.
    pos = Position.from_fen("B:W10:B")
    assert Game(pos, WCDF).result.score == WHITE_WINS
    result = Game(pos, GIVEAWAY).result
    assert result is not None and result.score == BLACK_WINS and result.reason == "no-moves"


def test_giveaway_side_without_a_move_wins() -> None:
    # 8   .   .   .   .
    # 7 b   .   .   .        The Black man on a7 (5) is stuck: b6 (9) is taken and the
    # 6   w   .   .   .      jump over it would land on c5 (14), also taken.
    # 5 .   w   .   .
    pos = Position.from_fen("B:W9,14:B5")
    assert Game(pos, WCDF).result.score == WHITE_WINS
    assert Game(pos, GIVEAWAY).result.score == BLACK_WINS


def test_giveaway_game_won_by_losing_the_last_piece() -> None:
    # Black's man on b6 (9) must jump White's last man on c5 (14): White, left with
    # nothing, has won.
    game = Game(Position.from_fen("B:W14:B9"), GIVEAWAY)
    assert game.result is None
    game.play_text("9x18")
    assert game.result is not None and game.result.winner is Color.WHITE
    game.undo()
    assert game.result is None


# -- huffing ----------------------------------------------------------------------------

# 8   .   .   .   .
# 7 .   .   .   .        Black to move. The man on b6 (9) can jump c5 (14) to d4 (18);
# 6   b   .   b   .      the man on f6 (11) has plain moves to e5 (15) and g5 (16).
# 5 .   w   .   .
# 4   .   .   .   .
# 3 .   .   .   .
# 2   .   .   .   .
# 1 .   w   .   .        (a White man on c1, 30, keeps White in the game)
MISSED = "B:W14,30:B9,11"


def test_huffing_makes_a_skipped_jump_legal() -> None:
    pos = Position.from_fen(MISSED)
    assert {str(m) for m in pos.legal_moves(WCDF)} == {"9x18"}
    assert {str(m) for m in pos.legal_moves(HUFFING)} == {"9x18", "9-13", "11-15", "11-16"}
    with pytest.raises(IllegalMoveError):
        Game(pos, WCDF).play_text("11-15")


def test_huff_removes_the_piece_and_keeps_the_turn() -> None:
    game = Game(Position.from_fen(MISSED), HUFFING)
    game.play_text("11-15")
    assert game.missed_jump() and game.huffable() == [9]
    before = game.position
    huff = game.huff(9)
    assert huff == Huff(9, before.piece_at(9), 1)
    assert game.turn is Color.WHITE and game.ply == 1
    assert game.position == Position.from_fen("W:W14,30:B15")
    assert game.history == [Move((11, 15)), huff]
    assert game.moves == [Move((11, 15))]
    assert game.huffable() == [] and game.quiet_plies == 0
    # White now moves as usual.
    game.play_text("14-9")
    assert game.ply == 2 and game.turn is Color.BLACK
    # Undo walks back through the move, the huff, and Black's move.
    assert game.undo() == Move((14, 9))
    assert game.undo() == huff
    assert game.position == before and game.huffable() == [9]
    assert game.repetitions(before) == 1
    assert game.undo() == Move((11, 15))
    assert game.position == Position.from_fen(MISSED) and game.history == []


def test_huffing_the_piece_that_moved_instead() -> None:
    # The man that should have jumped moves away instead (9-13): it is huffed on a5 (13).
    game = Game(Position.from_fen(MISSED), HUFFING)
    game.play_text("9-13")
    assert game.huffable() == [13]
    with pytest.raises(HuffError, match="square 9"):
        game.huff(9)
    game.huff(13)
    assert game.position.piece_at(13) is None and game.position.piece_at(11) is not None


def test_force_jump_takes_the_move_back_and_requires_the_jump() -> None:
    game = Game(Position.from_fen(MISSED), HUFFING)
    game.play_text("11-15")
    entry = game.force_jump()
    assert entry == JumpForced(Move((11, 15)), 0)
    assert game.turn is Color.BLACK and game.ply == 0 and game.moves == []
    assert game.position == Position.from_fen(MISSED)
    assert game.jump_required and [str(m) for m in game.legal_moves()] == ["9x18"]
    with pytest.raises(IllegalMoveError, match="jump is required"):
        game.play_text("11-15")
    game.play_text("9x18")
    assert not game.jump_required and game.huffable() == []
    # Undo: the jump, then the take-back (the missed move stands again, the choice too).
    assert game.undo() == Move((9, 18), (14,))
    assert game.jump_required
    assert game.undo() == entry
    assert game.moves == [Move((11, 15))] and game.turn is Color.WHITE
    assert game.huffable() == [9]


def test_letting_the_move_stand() -> None:
    game = Game(Position.from_fen(MISSED), HUFFING)
    game.play_text("11-15")
    # White simply moves (here it jumps b6 from c5): the chance to huff is gone.
    game.play_text("14x5")
    assert game.huffable() == []
    with pytest.raises(HuffError):
        game.huff(9)
    with pytest.raises(HuffError):
        game.force_jump()
    game.undo()
    assert game.huffable() == [9]
    # Had White made a plain move instead, it would itself have skipped that jump
    # (14x5), and Black could huff White's man on c5 in turn.
    game.play_text("30-26")
    assert game.huffable() == [14]


def test_no_huff_without_a_missed_jump_or_without_the_rule() -> None:
    game = Game(Position.from_fen(MISSED), HUFFING)
    game.play_text("9x18")
    assert game.huffable() == []
    with pytest.raises(HuffError):
        game.huff(18)
    # Optional captures are not huffing: a skipped jump there has no penalty.
    optional = Game(Position.from_fen(MISSED), Rules(captures_compulsory=False))
    optional.play_text("11-15")
    assert optional.huffable() == [] and not optional.missed_jump()


def test_huffable_side_without_moves_has_not_lost_yet() -> None:
    # 8   b   b   .   .
    # 7 w   .   .   .        Black can jump g3 (24) from f4 (19) or from h4 (20), but
    # 6   .   .   .   .      plays 2-7. White is then stuck (a7 is blocked by b8, g3 by
    # 5 .   .   b   .        f4/e5 and by h4 at the edge), but may still huff or force
    # 4   .   .   b   b      the jump, so the game is not over.
    # 3 .   .   .   w
    game = Game(Position.from_fen("B:W5,24:B1,2,15,19,20"), HUFFING)
    game.play_text("2-7")
    assert not game.position.has_legal_move(HUFFING)
    assert game.huffable() == [19, 20]
    assert game.result is None
    game.huff(19)
    assert game.result is None
    assert [str(m) for m in game.legal_moves()] == ["24-19"]
    game.undo()
    game.force_jump()
    assert {str(m) for m in game.legal_moves()} == {"19x28", "20x27"}


def test_huffing_in_a_flying_king_game() -> None:
    # Russian draughts with huffing: the White king on a1 (29) could jump d4 (18) but
    # the man on h2 (28) moves instead; Black huffs the king.
    rules = RUSSIAN.with_options(huffing=True)
    game = Game(Position.from_fen("W:WK29,28:B18,1"), rules)
    game.play_text("28-24")
    assert game.huffable() == [29]
    game.huff(29)
    assert game.position == Position.from_fen("B:W24:B1,18")


# -- first movers -----------------------------------------------------------------------


def test_games_start_with_the_variants_first_mover() -> None:
    assert Game(None, RUSSIAN).turn is Color.WHITE
    assert Game(None, POOL).turn is Color.BLACK
    assert Game(None, GIVEAWAY).turn is Color.BLACK
    game = Game(None, RUSSIAN)
    game.play_text("22-18")  # c3-d4
    assert game.turn is Color.BLACK


def test_russian_game_crowning_mid_capture_through_game() -> None:
    game = Game(Position.from_fen("W:W9:B6,11,32"), RUSSIAN)
    game.play_text("9x2x16")
    assert game.position.piece_at(16).king
    assert game.repeating_moves() == []
