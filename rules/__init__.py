"""Exact English checkers (WCDF rules): positions, moves, games, notation and perft.

Pure game logic, no I/O. Typical use::

    >>> from rules import Position, Game
    >>> pos = Position.start()
    >>> [str(m) for m in pos.legal_moves()][:3]
    ['9-13', '10-14', '11-15']
"""

from rules.game import DRAW, BLACK_WINS, WHITE_WINS, Game, GameOverError, Result
from rules.move import AmbiguousMoveError, IllegalMoveError, Move
from rules.position import (
    BLACK,
    WHITE,
    Color,
    FenError,
    Piece,
    Position,
    parse_fen,
    parse_move_squares,
)
from rules.settings import WCDF, Rules
from rules.squares import Square, parse_square, square_name

__all__ = [
    "AmbiguousMoveError",
    "BLACK",
    "BLACK_WINS",
    "Color",
    "DRAW",
    "FenError",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "Move",
    "Piece",
    "Position",
    "Result",
    "Rules",
    "Square",
    "WCDF",
    "WHITE",
    "WHITE_WINS",
    "parse_fen",
    "parse_move_squares",
    "parse_square",
    "square_name",
]
