"""How a benchmark game ends: one rule for bench/engine.py and bench/problems.py.

A game played by the benchmarks ends

* when the side to move has no legal move (it has lost, WCDF 1.30);
* in a draw when a position stands for the third time, or after 80 plies in a row with
  no man moved and nothing captured (the 40-move rule, WCDF 1.32), claimed at once;
* in a draw by adjudication after ``max_plies`` plies (200 by default).

>>> from crownhead.rules import WCDF, Game, Position
>>> game_end(Game(Position.from_fen("B:W8,11:B4"), WCDF))  # Black's man on 4 cannot move
Result(score='0-1', reason='no-moves')
>>> game = Game(Position.from_fen("B:WK32:BK1"), WCDF)
>>> for move in ["1-6", "32-27", "6-1", "27-32"] * 2:
...     _ = game.play_text(move)
>>> game_end(game)  # the first position stands for the third time
Result(score='1/2-1/2', reason='repetition')
>>> game_end(Game(Position.from_fen("B:WK32:BK1"), WCDF)) is None
True
"""

from __future__ import annotations

from crownhead.rules.game import DRAW, FORTY_MOVES_PLIES, Game, Result

#: Adjudicated a draw after this many plies (both sides' moves counted).
MAX_PLIES = 200


def game_end(game: Game, max_plies: int = MAX_PLIES) -> Result | None:
    """The result when the game is over by the rules above, else None."""
    result = game.result
    if result is not None:
        return result
    if game.repetitions() >= 3:
        return Result(DRAW, "repetition")
    if game.quiet_plies >= FORTY_MOVES_PLIES:
        return Result(DRAW, "forty-moves")
    if game.ply >= max_plies:
        return Result(DRAW, f"{max_plies} plies")
    return None


__all__ = ["MAX_PLIES", "game_end"]
