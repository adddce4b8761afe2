"""Random games for the tests: legal moves drawn from a seeded random generator.

>>> game = random_game(2)
>>> game.is_over and game.ply
97
>>> random_game(7, plies=40).ply
40
"""

from __future__ import annotations

import random

from rules import Game, Position, Rules


def random_game(
    seed: int | random.Random,
    plies: int | None = None,
    *,
    start: Position | None = None,
    rules: Rules = Rules(),
) -> Game:
    """A game of uniformly random legal moves from ``start``, to its end or ``plies`` plies.

    ``seed`` is a seed or a generator to draw from (and advance), so a loop of games can
    share one. The same seed always gives the same game.
    """
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    game = Game(start, rules)
    while not game.is_over and (plies is None or game.ply < plies):
        game.play(rng.choice(game.legal_moves()))
    return game
