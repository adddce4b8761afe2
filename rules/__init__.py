"""Exact English checkers (WCDF rules): positions, moves, games, notation and perft.

Pure game logic, no I/O. Typical use::

    >>> from crownhead.rules import Position, Game
    >>> pos = Position.start()
    >>> [str(m) for m in pos.legal_moves(WCDF)][:3]
    ['9-13', '10-14', '11-15']
    >>> game = Game(None, WCDF)
    >>> game.play_text("11-15")
    Move(path=(11, 15), captures=())

Games in PDN, and the other games played on this board::

    >>> from crownhead.rules import RUSSIAN, read_games, write_game
    >>> [g.result for g in read_games("1. 11-15 23-18 2. 8-11 *")]
    ['*']
    >>> Position.start(RUSSIAN).turn.name
    'WHITE'

The modules behind these names: :mod:`crownhead.squares` (the board's squares, below the rules
core and the hardware layer alike), :mod:`crownhead.rules.move`,
:mod:`crownhead.rules.position`, :mod:`crownhead.rules.game`, :mod:`crownhead.rules.settings`, :mod:`crownhead.rules.variants`,
:mod:`crownhead.rules.pdn`, :mod:`crownhead.rules.perft` (``perft`` and ``divide``; not re-exported here,
where the name ``crownhead.rules.perft`` stays the module), :mod:`crownhead.rules.ballots` and
:mod:`crownhead.rules.match` (a match's colours and score).
"""

from crownhead.rules.game import (
    BLACK_WINS,
    DRAW,
    UNFINISHED,
    WHITE_WINS,
    Game,
    GameOverError,
    HistoryEntry,
    Huff,
    HuffError,
    JumpForced,
    Result,
)
from crownhead.rules.move import AmbiguousMoveError, IllegalMoveError, Move
from crownhead.rules.pdn import (
    PdnError,
    PdnGame,
    PdnNote,
    read_game,
    read_games,
    write_game,
    write_games,
)
from crownhead.rules.position import (
    BLACK,
    WHITE,
    Color,
    FenError,
    Piece,
    Position,
    parse_fen,
    parse_move_squares,
)
from crownhead.rules.settings import WCDF, Crowning, Rules
from crownhead.squares import SQUARES, Square, parse_square, square_name
from crownhead.rules.variants import ENGLISH, GIVEAWAY, POOL, RUSSIAN, VARIANTS, rules_for

__all__ = [
    "AmbiguousMoveError",
    "BLACK",
    "BLACK_WINS",
    "Color",
    "Crowning",
    "DRAW",
    "ENGLISH",
    "FenError",
    "GIVEAWAY",
    "Game",
    "GameOverError",
    "HistoryEntry",
    "Huff",
    "HuffError",
    "IllegalMoveError",
    "JumpForced",
    "Move",
    "POOL",
    "PdnError",
    "PdnGame",
    "PdnNote",
    "Piece",
    "Position",
    "RUSSIAN",
    "Result",
    "Rules",
    "SQUARES",
    "Square",
    "UNFINISHED",
    "VARIANTS",
    "WCDF",
    "WHITE",
    "WHITE_WINS",
    "parse_fen",
    "parse_move_squares",
    "parse_square",
    "read_game",
    "read_games",
    "rules_for",
    "square_name",
    "write_game",
    "write_games",
]
