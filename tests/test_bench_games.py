"""bench/games.py: the one rule by which the benchmarks end a game."""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

from rules import Game, Position

REPO = Path(__file__).resolve().parents[1]


def _games():  # type: ignore[no-untyped-def]
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return importlib.import_module("bench.games")


def test_the_doctests_run() -> None:
    failed, attempted = doctest.testmod(_games())
    assert attempted >= 4 and failed == 0


def test_forty_moves_and_the_ply_limit() -> None:
    games = _games()
    # Kings only, each move safe and to the position seen least often: 80 plies with no
    # man moved and nothing taken, and no position three times.
    game = Game(Position.from_fen("B:WK29,K32:BK1,K4"))
    while games.game_end(game) is None:
        game.play(min(game.legal_moves(),
                      key=lambda m: (bool(game.position.apply(m).captures()),
                                     game.repetitions(game.position.apply(m)))))
    end = games.game_end(game)
    assert (game.ply, end.score, end.reason) == (80, "1/2-1/2", "forty-moves")
    assert games.game_end(Game(Position.from_fen("B:WK32:BK1")), max_plies=0).reason == "0 plies"


def test_both_benchmarks_use_it() -> None:
    for name in ("engine.py", "problems.py"):
        text = (REPO / "bench" / name).read_text()
        assert "from bench.games import MAX_PLIES, game_end" in text
        assert "repetitions()" not in text and "FORTY_MOVES_PLIES" not in text


def test_the_problems_crown_a_man_given_on_its_crowning_row(shared_data: Path) -> None:
    _games()  # the repository on the path
    problems = importlib.import_module("bench.problems")
    # beginner #10 as given: White's man on 1 and Black's man on 2 (Black's own back row).
    given = Position.from_fen("W:W18,K15,1:BK30,K26,2")
    assert problems.crowned(given) == Position.from_fen("W:W18,K15,K1:BK30,K26,2")
    black = Position.from_fen("B:W5:B30")
    assert problems.crowned(black) == Position.from_fen("B:W5:BK30")
    start = Position.start()
    assert problems.crowned(start) is start
    loaded = {(p.file, p.number): p for p in problems.load(shared_data / "problems")}
    assert len(loaded) == 1030
    assert loaded["beginner", 10].fen == given._replace(kings=given.kings | 1).fen()


def test_the_problems_can_be_chosen_by_pieces(shared_data: Path) -> None:
    import argparse

    import pytest

    _games()
    problems = importlib.import_module("bench.problems")
    assert problems.pieces_range("6") == (6, 6) and problems.pieces_range("2-5") == (2, 5)
    for bad in ("six", "5-2", "1-4", "2-30"):
        with pytest.raises(argparse.ArgumentTypeError, match=bad):
            problems.pieces_range(bad)
    loaded = problems.load(shared_data / "problems")
    counts = [problems.pieces_of(p) for p in loaded]
    # The figures of the whole-set runs: 105 of up to four pieces, 89 of five, 305 of six.
    assert (sum(n <= 4 for n in counts), counts.count(5), counts.count(6)) == (105, 89, 305)
