"""The evaluation's weights (written by bench/fit_eval.py; do not edit by hand).

Read by :mod:`crownhead.rules.engine.evaluation` and, through it, handed to the native core: the
terms, per phase (opening, middle game, ending) and square 1-32 from Black's side what a
man and a king are worth on it, a runaway man by row, and the two-row patterns (by phase
and pair of rows, [index, weight] where not 0). Material, the trading bonus, mobility,
the square tables (but the kings' in the ending) and the runaways were fitted on
self-play games labelled by their results and the endgame tables; the endgame terms on
the tables before (docs/engine.md).
"""

from typing import Any

# fmt: off
WEIGHTS: dict[str, Any] = {
    "man_value": 98,
    "king_value": 125,
    "trade_bonus": 600,
    "mobility": 2,
    "the_move": 8,
    "drive": 4,
    "double_corner": 20,
    "trapped_king": 16,
    "ending_move": 10,
    "bridge": 100,
    "men": [
        [16, 12, 18, 2, 2, 7, 6, 2, 5, 9, -3, -3, 3, 6, 6, -11, 2, 5, 8, -1, 3, 7, 7, 5, 9, 9, 9, 9, 0, 0, 0, 0],
        [26, 19, 27, -7, 4, 7, 8, -5, 2, 2, -5, 7, 11, -4, 3, 0, -1, 3, 3, 7, 7, 6, 10, 5, 17, 21, 20, 10, 0, 0, 0, 0],
        [8, 3, 6, 4, 11, 7, 6, 5, 12, 8, 9, 14, 18, 15, 16, 16, 21, 20, 20, 22, 26, 27, 31, 28, 36, 39, 40, 32, 0, 0, 0, 0],
    ],
    "kings": [
        [0, 0, 0, -6, 0, 4, 4, 4, 4, 8, 8, 0, 0, 8, 12, 4, 4, 12, 8, 0, 0, 8, 8, 4, 4, 4, 4, 0, -6, 0, 0, 0],
        [0, 0, 0, -6, 0, 4, 4, 4, 5, 5, 9, 0, 1, 8, 9, 4, 4, 12, 8, 1, 1, 9, 6, 3, 6, 6, 4, 0, -10, 4, -1, 0],
        [0, 0, 0, -6, 0, 4, 4, 4, 4, 8, 8, 0, 0, 8, 12, 4, 4, 12, 8, 0, 0, 8, 8, 4, 4, 4, 4, 0, -6, 0, 0, 0],
    ],
    "runaway": [0, 0, 0, 21, 23, 27, 34, 40],
    "patterns": [
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
    ],
}
# fmt: on
