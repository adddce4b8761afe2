"""The computer opponent: a searching engine for hints and for play against the board.

Pure Python on the bitboards of :mod:`crownhead.rules.movegen`; no I/O. The time limit is read from
an injectable clock (milliseconds), so tests can drive it.

>>> from crownhead.rules import WCDF, Position
>>> from crownhead.rules.engine import Engine
>>> engine = Engine()
>>> result = engine.search(Position.start(), depth=3)
>>> result.move in Position.start().legal_moves(WCDF)
True

Modules: :mod:`~crownhead.rules.engine.search` (the engine), :mod:`~crownhead.rules.engine.general` (the
search for the other rule sets), :mod:`~crownhead.rules.engine.result` (what both share),
:mod:`~crownhead.rules.engine.evaluation`,
:mod:`~crownhead.rules.engine.zobrist`, :mod:`~crownhead.rules.engine.tt`, :mod:`~crownhead.rules.engine.levels`
(beginner strengths) and :mod:`~crownhead.rules.engine.book` (ACF ballot openings).
"""

from crownhead.rules.engine.book import OpeningBook
from crownhead.rules.engine.evaluation import KING_VALUE, MAN_VALUE, evaluate
from crownhead.rules.engine.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, Strength, strength
from crownhead.rules.engine.result import SearchResult, monotonic_ms
from crownhead.rules.engine.search import DEFAULT_MOVETIME_MS, Engine, best_move, hint, score_meaning
from crownhead.rules.engine.tt import WIN, WIN_THRESHOLD, TranspositionTable
from crownhead.rules.engine.zobrist import key_of

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
