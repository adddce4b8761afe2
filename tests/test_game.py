"""Games: undo, the result when a side cannot move, recorded results and draw claims.

The draw claims are checked ply by ply on king endgames built for the purpose: a claim
must appear exactly on the ply it becomes claimable, not one earlier.
"""

from __future__ import annotations

import pytest

from crownhead.rules import BLACK, DRAW, WCDF, WHITE, Game, GameOverError, Move, Position, Result
from crownhead.rules.game import FORTY_MOVES_PLIES
from crownhead.squares import bit


def test_undo_restores_position_counts_and_quiet_plies() -> None:
    game = Game(Position.from_fen("B:WK32:BK1,12"), WCDF)
    before = (game.position, game.quiet_plies, game.repetitions())
    played = [game.play_text(t) for t in ("1-6", "32-27", "12-16")]
    assert game.ply == 3 and game.quiet_plies == 0  # 12-16 is a man move
    assert game.undo() == played[-1]
    assert game.quiet_plies == 2 and game.ply == 2
    assert game.undo() == played[1] and game.undo() == played[0]
    assert (game.position, game.quiet_plies, game.repetitions()) == before
    assert game.positions == [game.start] and game.moves == []
    with pytest.raises(IndexError):
        game.undo()


def test_a_side_with_no_pieces_has_lost() -> None:
    game = Game(Position.from_fen("B:W18:B15"), WCDF)
    assert game.result is None
    game.play_text("15x22")
    assert game.position.white == 0
    assert game.result == Result("1-0", "no-moves") and game.is_over
    assert game.result.winner is BLACK
    with pytest.raises(GameOverError):
        game.play(Move((22, 26)))


def test_a_side_whose_pieces_are_all_blocked_has_lost() -> None:
    # 24-28 leaves White's man on 32 with 27 and 28 taken and 23 behind 27 taken too.
    game = Game(Position.from_fen("B:W32:B23,24,27"), WCDF)
    game.play_text("24-28")
    assert game.position.count(WHITE) == 1 and game.legal_moves() == []
    assert game.result == Result("1-0", "no-moves")
    game.undo()
    assert game.result is None


def test_white_loses_or_black_loses_by_the_side_to_move() -> None:
    # Black to move with its only man blocked on 28 by White's men (men do not go back).
    game = Game(Position.from_fen("B:W32,K23:B28"), WCDF)
    assert game.legal_moves() == []
    assert game.result == Result("0-1", "no-moves") and game.result.winner is WHITE


def test_resignation_and_agreement_are_recorded() -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    assert game.resign() == Result("1-0", "resign")  # White, to move, resigns
    assert game.is_over
    with pytest.raises(GameOverError):
        game.play_text("23-18")
    game.undo()  # taking back a move clears a declared result
    assert game.result is None
    assert game.resign(BLACK) == Result("0-1", "resign")
    assert game.agree_draw() == Result(DRAW, "agreement")
    assert game.declare("0-1", "time") == Result("0-1", "time")
    with pytest.raises(ValueError, match="not a result"):
        game.declare("2-0", "forfeit")


# -- threefold repetition -----------------------------------------------------------------

SHUFFLE = ["1-6", "32-27", "6-1", "27-32"]  # kings on 1 and 32 going back and forth


def test_repetition_is_claimable_exactly_when_a_move_would_repeat_a_third_time() -> None:
    game = Game(Position.from_fen("B:WK32:BK1"), WCDF)
    claims = []
    for ply, text in enumerate(SHUFFLE * 2, start=1):
        game.play_text(text)
        claims.append((ply, game.draw_claim()))
    # After ply 7 White's 27-32 would bring the start position back a third time.
    assert claims == [(p, None) for p in range(1, 7)] + [(7, "repetition"), (8, "repetition")]
    game.undo()
    assert game.repeating_moves() == [Move((27, 32))]
    assert game.repetitions() == 2 and game.repetitions(game.start) == 2
    game.play_text("27-32")
    assert game.repetitions() == 3
    assert game.repeating_moves() == [Move((1, 6))]  # and 1-6 would repeat a third time too
    assert game.claim_draw() == Result(DRAW, "repetition") and game.is_over


def test_the_same_placement_with_the_other_side_to_move_is_another_position() -> None:
    game = Game(Position.from_fen("B:WK32:BK1"), WCDF)
    for text in SHUFFLE * 2:
        game.play_text(text)
    white_to_move = game.position._replace(turn=WHITE)
    assert game.repetitions(white_to_move) == 0


def test_no_claim_when_nothing_repeats() -> None:
    game = Game(None, WCDF)
    for text in ("11-15", "23-18", "8-11", "27-23", "4-8", "23-19"):
        game.play_text(text)
        assert game.draw_claim() is None and game.claim_draw() is None
    assert game.result is None


# -- the 40-move rule ---------------------------------------------------------------------


def king_tour(start: Position, plies: int) -> list[Move]:
    """King moves from ``start`` that never repeat a position nor allow a capture."""
    path: list[Move] = []
    seen = {start}

    def extend(pos: Position) -> bool:
        if len(path) == plies:
            return True
        for move in pos.legal_moves(WCDF):
            after = pos.apply(move, WCDF)
            if move.is_capture or not pos.kings & bit(move.start):
                continue
            if after in seen or after.capture_available(WCDF):
                continue
            seen.add(after)
            path.append(move)
            if extend(after):
                return True
            path.pop()
            seen.discard(after)
        return False

    assert extend(start)
    return path


# Kings on 14 and 19 wander; the men on 4 and 29 stay behind, ready to reset the count.
FORTY_START = Position.from_fen("B:WK19,29:BK14,4")


def test_forty_move_claim_appears_exactly_after_eighty_quiet_plies() -> None:
    tour = king_tour(FORTY_START, FORTY_MOVES_PLIES)
    game = Game(FORTY_START, WCDF)
    for ply, move in enumerate(tour, start=1):
        game.play(move)
        assert game.quiet_plies == ply
        assert game.repeating_moves() == [] and game.repetitions() == 1
        expected = "forty-moves" if ply >= FORTY_MOVES_PLIES else None
        assert game.draw_claim() == expected, ply
    assert game.claim_draw() == Result(DRAW, "forty-moves")


def test_a_man_move_on_the_eightieth_ply_resets_the_count() -> None:
    tour = king_tour(FORTY_START, FORTY_MOVES_PLIES)
    game = Game(FORTY_START, WCDF)
    for move in tour[:-1]:
        game.play(move)
    assert game.quiet_plies == FORTY_MOVES_PLIES - 1 and game.draw_claim() is None
    man_moves = [m for m in game.legal_moves() if not game.position.kings & bit(m.start)]
    assert man_moves, "the white man on 29 should be free to move"
    game.play(man_moves[0])
    assert game.quiet_plies == 0 and game.draw_claim() is None
    game.undo()
    game.play(tour[-1])
    assert game.draw_claim() == "forty-moves"


def test_a_capture_resets_the_count() -> None:
    game = Game(Position.from_fen("B:WK32:BK1,K19"), WCDF)
    for ply, text in enumerate(("1-6", "32-27", "6-10", "27-24"), start=1):
        game.play_text(text)
        assert game.quiet_plies == ply
    game.play_text("19x28")  # a king captures: progress all the same
    assert game.quiet_plies == 0
    assert game.result == Result("1-0", "no-moves")


def test_a_position_standing_a_third_time_is_no_claim_by_itself_as_both_docs_say() -> None:
    from pathlib import Path

    # White's 31-27 makes the position stand a third time without claiming; Black, to
    # move, has no move of its own that repeats a position a third time (WCDF 1.32.1).
    game = Game(Position.from_fen("B:WK32,K28:BK1"), WCDF)
    for text in ("1-5 32-27 5-1 28-32 1-6 27-31 6-1 31-26 1-5 26-31 5-1 31-27 1-5 27-31 5-1 31-27").split():
        game.play_text(text)
    assert game.repetitions() == 3 and game.repeating_moves() == []
    assert game.draw_claim() is None and game.claim_draw() is None
    docs = Path(__file__).resolve().parents[1] / "docs"
    for name in ("rules.md", "referee.md"):
        text = " ".join((docs / name).read_text().split())
        assert "A position that already stands a third time is no claim by itself" in text, name
        assert "(or it already has)" not in text, name
