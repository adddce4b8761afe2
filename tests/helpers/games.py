"""Random games for the tests: legal moves drawn from a seeded random generator.

>>> game = random_game(2)
>>> game.is_over and game.ply
97
>>> random_game(7, plies=40).ply
40
>>> all(2 <= len(p.pieces()) <= 4 for p in scattered_pieces(20, seed=1, most=4))
True
"""

from __future__ import annotations

import random

from crownhead.rules import Color, Game, Position, Rules


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


def scattered_pieces(
    count: int, seed: int, *, fewest: int = 2, most: int = 9, kings: float = 0.4, both: bool = False
) -> list[Position]:
    """``count`` positions of ``fewest``-``most`` pieces scattered at random, men and
    kings of both colours (a piece a king with probability ``kings``; men never on their
    own crowning row), either side to move; ``both``: each colour has a piece."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        squares = rng.sample(range(1, 33), rng.randint(fewest, most))
        pieces = {}
        for s in squares:
            color = rng.choice("bw")
            crowned = (color == "b" and s >= 29) or (color == "w" and s <= 4)
            pieces[s] = color.upper() if crowned or rng.random() < kings else color
        colours = {piece.lower() for piece in pieces.values()}
        if both and colours != {"b", "w"}:
            continue
        out.append(Position.from_pieces(pieces, rng.choice([Color.BLACK, Color.WHITE])))
    return out
