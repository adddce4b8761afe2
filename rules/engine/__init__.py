"""The computer opponent: a searching engine for hints and for play against the board.

Pure Python on the bitboards of :mod:`rules.movegen`; no I/O. The time limit is read from
an injectable clock (milliseconds), so tests can drive it.

>>> from rules import WCDF, Position
>>> from rules.engine import Engine
>>> engine = Engine()
>>> result = engine.search(Position.start(), depth=3)
>>> result.move in Position.start().legal_moves(WCDF)
True

Modules: :mod:`~rules.engine.search` (the engine), :mod:`~rules.engine.general` (the
search for the other rule sets), :mod:`~rules.engine.result` (what both share),
:mod:`~rules.engine.evaluation`,
:mod:`~rules.engine.zobrist`, :mod:`~rules.engine.tt`, :mod:`~rules.engine.levels`
(beginner strengths) and :mod:`~rules.engine.book` (ACF ballot openings).
"""

from rules.engine.book import OpeningBook
from rules.engine.evaluation import KING_VALUE, MAN_VALUE, evaluate
from rules.engine.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, Strength, strength
from rules.engine.result import SearchResult, monotonic_ms
from rules.engine.search import DEFAULT_MOVETIME_MS, Engine, best_move, hint, score_meaning
from rules.engine.tt import WIN, WIN_THRESHOLD, TranspositionTable
from rules.engine.zobrist import key_of

__all__ = [
    "DEFAULT_MOVETIME_MS",
    "Engine",
    "KING_VALUE",
    "LEVELS",
    "MAN_VALUE",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "OpeningBook",
    "SearchResult",
    "Strength",
    "TranspositionTable",
    "WIN",
    "WIN_THRESHOLD",
    "best_move",
    "evaluate",
    "hint",
    "key_of",
    "monotonic_ms",
    "score_meaning",
    "strength",
]
