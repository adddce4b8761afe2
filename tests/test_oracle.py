"""Our legal moves against independent truth.

Two oracles:

* **pydraughts** (``import draughts``, variant ``"english"``): an independent English
  checkers implementation. It only plays the WCDF rules (captures compulsory, men capture
  forward), so it checks the default rules on thousands of positions.
* **a naive generator written here** from the rule text, square by square on (file, rank)
  coordinates with a dict board, sharing no code with :mod:`crownhead.rules.movegen`. It is first
  checked against pydraughts on the default rules, then used for the two rule options
  pydraughts does not have (men capturing backward, captures optional).

Positions come from random games (so they are the kind of positions play produces,
with kings and multi-captures late in the game) and from random king-rich setups.

pydraughts reads and writes the PDN square numbers of English checkers (1 = b8, Black
on 1-12 moves first) through its ``english`` variant, although it rotates the board
internally; ``test_pydraughts_numbering`` proves the conversion on hand-checked
positions before the big comparison relies on it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version

import pytest

from crownhead.rules import WCDF, Position, Rules
from crownhead.rules.move import Move
from crownhead.rules.position import Color
from crownhead.squares import file_of, rank_of, square_at

try:  # py-draughts, another library, has the same import name: make sure it is pydraughts
    version("pydraughts")
except PackageNotFoundError:
    pytest.skip("pydraughts (the dev extra) is the oracle", allow_module_level=True)
import draughts  # noqa: E402

MoveKey = tuple[tuple[int, ...], tuple[int, ...]]

OPTIONS = [
    Rules(),
    Rules(men_capture_backward=True),
    Rules(captures_compulsory=False),
    Rules(men_capture_backward=True, captures_compulsory=False),
]


# -- pydraughts -------------------------------------------------------------------------


def pydraughts_moves(position: Position) -> Counter[MoveKey]:
    """The legal moves pydraughts finds, as a multiset of (full path, captures in order).

    pydraughts gives a move as its steps ``[[from, to], [from, to], ...]`` with the
    jumped square of each step in ``captures`` (empty for a plain move).
    """
    board = draughts.Board("english", position.fen())
    assert board.turn == (draughts.BLACK if position.turn is Color.BLACK else draughts.WHITE)
    out: Counter[MoveKey] = Counter()
    for move in board.legal_moves():
        steps = move.board_move
        path = (steps[0][0], *(to for _, to in steps))
        out[path, tuple(move.captures or ())] += 1
    return out


def our_moves(position: Position, rules: Rules = Rules()) -> Counter[MoveKey]:
    return Counter((m.path, m.captures) for m in position.legal_moves(rules))


# -- the naive generator ----------------------------------------------------------------
# Board: {(file 0-7, rank 1-8): (colour, king)}. Black moves towards rank 1.


def _board(position: Position) -> dict[tuple[int, int], tuple[Color, bool]]:
    return {(file_of(s), rank_of(s)): (piece.color, piece.king) for s, piece in position.pieces().items()}


def _sq(f: int, r: int) -> int:
    square = square_at(f, r)
    assert square is not None
    return square


def naive_moves(position: Position, rules: Rules = Rules()) -> Counter[MoveKey]:
    board = _board(position)
    me = position.turn
    forward = -1 if me is Color.BLACK else 1
    crown_rank = 1 if me is Color.BLACK else 8
    jumps: list[MoveKey] = []
    steps: list[MoveKey] = []

    def on_board(f: int, r: int) -> bool:
        return 0 <= f < 8 and 1 <= r <= 8

    for (f, r), (color, king) in board.items():
        if color is not me:
            continue
        step_dirs = [(df, dr) for df in (-1, 1) for dr in (-1, 1) if king or dr == forward]
        jump_dirs = [
            (df, dr) for df in (-1, 1) for dr in (-1, 1) if king or dr == forward or rules.men_capture_backward
        ]
        for df, dr in step_dirs:
            if on_board(f + df, r + dr) and (f + df, r + dr) not in board:
                steps.append(((_sq(f, r), _sq(f + df, r + dr)), ()))

        # Depth-first over chains. The mover has left its start square; jumped pieces
        # stay where they are until the chain is over.
        def chain(at: tuple[int, int], path: list[int], taken: list[tuple[int, int]]) -> None:
            extended = False
            for df, dr in jump_dirs:
                over = (at[0] + df, at[1] + dr)
                land = (at[0] + 2 * df, at[1] + 2 * dr)
                if not on_board(*land) or over in taken:
                    continue
                victim = board.get(over)
                if victim is None or victim[0] is me:
                    continue
                if land in board and land != (f, r):
                    continue
                extended = True
                new_path = path + [_sq(*land)]
                new_taken = taken + [over]
                if not king and land[1] == crown_rank:
                    jumps.append((tuple(new_path), tuple(_sq(*o) for o in new_taken)))
                else:
                    chain(land, new_path, new_taken)
            if not extended and taken:
                jumps.append((tuple(path), tuple(_sq(*o) for o in taken)))

        chain((f, r), [_sq(f, r)], [])
    if jumps and rules.captures_compulsory:
        return Counter(jumps)
    return Counter(jumps + steps)


# -- positions --------------------------------------------------------------------------


def random_game_positions(rng: random.Random, count: int) -> Iterator[Position]:
    """Positions met in random games from the start (our own generator plays them)."""
    made = 0
    while made < count:
        pos = Position.start()
        for _ in range(200):
            moves = pos.legal_moves(WCDF)
            if not moves:
                break
            yield pos
            made += 1
            if made >= count:
                return
            pos = pos.apply(rng.choice(moves), WCDF)


def random_setup(rng: random.Random) -> Position:
    """Random men and kings, often king-rich and crowded enough for long chains.

    Men never stand on their own crown row (they would have been crowned there).
    """
    squares = list(range(1, 33))
    rng.shuffle(squares)
    n_black, n_white = rng.randint(1, 10), rng.randint(1, 10)
    king_share = rng.choice((0.2, 0.5, 0.9))
    pieces: dict[int, str] = {}
    for square in squares[: n_black + n_white]:
        black = len([p for p in pieces.values() if p in "bB"]) < n_black
        king = rng.random() < king_share
        if not king and ((black and square >= 29) or (not black and square <= 4)):
            king = True
        pieces[square] = ("B" if king else "b") if black else ("W" if king else "w")
    return Position.from_pieces(pieces, rng.choice((Color.BLACK, Color.WHITE)))


def sample(seed: int, games: int, setups: int) -> list[Position]:
    rng = random.Random(seed)
    return list(random_game_positions(rng, games)) + [random_setup(rng) for _ in range(setups)]


def _report(position: Position, ours: Counter[MoveKey], theirs: Counter[MoveKey]) -> str:
    return (
        f"{position.fen()}\n{position.diagram()}\n"
        f"only ours: {sorted((ours - theirs).elements())}\n"
        f"only theirs: {sorted((theirs - ours).elements())}"
    )


# -- tests ------------------------------------------------------------------------------


def test_pydraughts_numbering() -> None:
    """pydraughts's ``english`` variant speaks our PDN numbers: proven on known positions."""
    start = pydraughts_moves(Position.start())
    assert start == Counter(
        {((s, e), ()): 1 for s, e in [(9, 13), (9, 14), (10, 14), (10, 15), (11, 15), (11, 16), (12, 16)]}
    )
    # White to move after 11-15: White's men on 21-24 step towards 17-20.
    after = Position.start().apply(Move((11, 15)), WCDF)
    assert pydraughts_moves(after) == Counter(
        {((s, e), ()): 1 for s, e in [(21, 17), (22, 17), (22, 18), (23, 18), (23, 19), (24, 19), (24, 20)]}
    )
    # Asymmetric corners: a Black man on a7 (5) has only b6 (9); a White man on h2 (28)
    # has only g3 (24). A wrong rotation or mirror would move them elsewhere.
    assert pydraughts_moves(Position.from_fen("B:W28:B5")) == Counter({((5, 9), ()): 1})
    assert pydraughts_moves(Position.from_fen("W:W28:B5")) == Counter({((28, 24), ()): 1})
    # A Black man on c5 (14) jumps the White man on d4 (18) to e3 (23), then on over
    # f2 (27) to g1 (32), where it is crowned.
    assert pydraughts_moves(Position.from_fen("B:W18,27:B14")) == Counter({((14, 23, 32), (18, 27)): 1})
    # A Black king on 15 round four White pieces either way: two routes, same captures.
    assert pydraughts_moves(Position.from_fen("B:WK18,K19,26,27:BK15")) == Counter(
        {((15, 24, 31, 22, 15), (19, 27, 26, 18)): 1, ((15, 22, 31, 24, 15), (18, 26, 27, 19)): 1}
    )


def test_naive_generator_on_hand_positions() -> None:
    """The naive generator on the same hand-checked positions, with options too."""
    assert naive_moves(Position.from_fen("B:W18,27:B14")) == Counter({((14, 23, 32), (18, 27)): 1})
    # Men capturing backward: the Black man on 23 jumps back over 18 to 14 ...
    back = Position.from_fen("B:W18:B23")
    assert naive_moves(back) == Counter({((23, 26), ()): 1, ((23, 27), ()): 1})
    assert naive_moves(back, Rules(men_capture_backward=True)) == Counter({((23, 14), (18,)): 1})
    # ... and with captures optional the plain moves are offered beside it.
    assert naive_moves(back, Rules(men_capture_backward=True, captures_compulsory=False)) == (
        Counter({((23, 14), (18,)): 1, ((23, 26), ()): 1, ((23, 27), ()): 1})
    )


def _compare_with_pydraughts(positions: list[Position]) -> Counter[str]:
    seen: Counter[str] = Counter()
    for position in positions:
        ours = our_moves(position)
        theirs = pydraughts_moves(position)
        assert ours == theirs, _report(position, ours, theirs)
        naive = naive_moves(position)
        assert naive == theirs, "naive generator: " + _report(position, naive, theirs)
        seen["positions"] += 1
        if position.kings:
            seen["with kings"] += 1
        if any(len(path) > 2 and caps for path, caps in ours):
            seen["multi-captures"] += 1
        if any(caps for _, caps in ours):
            seen["captures"] += 1
        if any(len(caps) >= 4 for _, caps in ours):
            seen["chains of 4+"] += 1
    return seen


def test_agrees_with_pydraughts_on_random_positions() -> None:
    rng = random.Random(2024)
    # At least 2,000 positions reached by random play from the start (issue 2), and
    # they really hold what the rules are hardest on: kings, captures, multi-captures.
    played = _compare_with_pydraughts(list(random_game_positions(rng, 2000)))
    assert played["positions"] == 2000
    assert played["with kings"] >= 500, played
    assert played["captures"] >= 300, played
    assert played["multi-captures"] >= 30, played
    # Random king-rich setups add the long chains that play rarely reaches.
    setups = _compare_with_pydraughts([random_setup(rng) for _ in range(600)])
    assert setups["multi-captures"] >= 50 and setups["chains of 4+"] >= 1, setups


@pytest.mark.slow
def test_agrees_with_pydraughts_on_many_random_positions() -> None:
    seen = _compare_with_pydraughts(sample(seed=7, games=20000, setups=10000))
    assert seen["chains of 4+"] >= 10, seen


def _compare_options(positions: list[Position]) -> None:
    for position in positions:
        for rules in OPTIONS:
            ours = our_moves(position, rules)
            naive = naive_moves(position, rules)
            assert ours == naive, f"{rules.describe()}\n" + _report(position, ours, naive)


def test_rule_options_agree_with_naive_generator() -> None:
    _compare_options(sample(seed=99, games=1000, setups=1000))


@pytest.mark.slow
def test_rule_options_agree_with_naive_generator_many() -> None:
    _compare_options(sample(seed=100, games=20000, setups=20000))
