"""bench/games.py: the one rule by which the benchmarks end a game."""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

import pytest

from crownhead.rules import WCDF, Game, Position

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
    game = Game(Position.from_fen("B:WK29,K32:BK1,K4"), WCDF)
    while games.game_end(game) is None:
        game.play(
            min(
                game.legal_moves(),
                key=lambda m: (
                    bool(game.position.apply(m, WCDF).captures(WCDF)),
                    game.repetitions(game.position.apply(m, WCDF)),
                ),
            )
        )
    end = games.game_end(game)
    assert (game.ply, end.score, end.reason) == (80, "1/2-1/2", "forty-moves")
    assert games.game_end(Game(Position.from_fen("B:WK32:BK1"), WCDF), max_plies=0).reason == "0 plies"


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


def test_a_stopped_run_is_finished_from_its_progress_log(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _games()
    problems = importlib.import_module("bench.problems")
    beginner = problems.load(shared_data / "problems", ["beginner"])
    # A log of every beginner problem but the first, as --progress writes it, among lines
    # a stopped run leaves too (a traceback, a report in another unit).
    lines = [
        "Traceback (most recent call last):",
        "KeyboardInterrupt",
        "[1/58] 16000 nodes beginner #13 FAILED: stated 0-1, reached 1/2-1/2 (repetition, 9 plies, 0 s)",
    ]
    for i, p in enumerate(beginner[1:]):
        reached = "1/2-1/2" if p.number == 13 else p.result
        mark = "solved" if reached == p.result else "FAILED"
        # A game stopped by the ply limit says so in place of the ending's name.
        ending = "200 plies, 200" if p.number == 13 else "repetition, 40"
        lines.append(
            f"[{i + 1}/58] 50 ms {p.file} #{p.number} {mark}: stated {p.result}, "
            f"reached {reached} ({ending} plies, 2 s)"
        )
    log = tmp_path / "run.log"
    log.write_text("\n".join(lines) + "\n")
    found = problems.read_log(log, beginner, "ms")
    assert len(found) == 57 and (beginner[0], 50) not in found
    assert found[beginner[2], 50].plies == 40
    assert next(o for o in found.values() if o.problem.number == 13).reason == "200 plies"

    first = beginner[0]
    assert (
        problems.main(
            [
                "--files",
                "beginner",
                "--movetime",
                "50",
                "--jobs",
                "1",
                "--progress",
                "--resume",
                str(log),
                "--problems",
                str(shared_data / "problems"),
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    # Only the problem the log lacks was played; the figures are of all 58.
    assert err.count("\n") == 1 and f"[58/58] 50 ms beginner #{first.number}" in err
    assert "57/58 solved" in out and "57 of them from earlier runs" in out
    assert "failed: beginner #13 " in out

    # A log of another problem set is refused, naming the line.
    log.write_text(lines[-1].replace(f"stated {beginner[-1].result}", "stated 9-9") + "\n")
    with pytest.raises(problems.LogError, match=r"run.log:1: beginner #\d+ is stated 9-9"):
        problems.read_log(log, beginner, "ms")
    log.write_text("x" * 5000)
    with pytest.raises(problems.LogError, match="run.log:1: a line longer than"):
        problems.read_log(log, beginner, "ms")
    with pytest.raises(problems.LogError, match="missing.log: cannot be read"):
        problems.read_log(tmp_path / "missing.log", beginner, "ms")


def test_a_random_sample_as_installed(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _games()
    problems = importlib.import_module("bench.problems")
    every = problems.load(shared_data / "problems")
    first = problems.drawn(every, 200, 1)
    assert first == problems.drawn(every, 200, 1) != problems.drawn(every, 200, 2)
    assert len(first) == 200 and first == sorted(first, key=every.index)
    assert {p.file for p in first} == {p.file for p in every}
    assert (
        problems.main(
            [
                "--files",
                "beginner",
                "--random",
                "2",
                "--as-installed",
                "--movetime",
                "20",
                "--jobs",
                "1",
                "--problems",
                str(shared_data / "problems"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "2 problems, endgame databases: as-installed (every position of up to 6 pieces" in out
    assert "20 ms a move:" in out
    with pytest.raises(SystemExit):
        problems.main(["--analyse", "--nodes", "100"])


def test_won_endings_are_converted_and_counted(capsys: pytest.CaptureFixture[str]) -> None:
    _games()
    convert = importlib.import_module("bench.convert")
    from crownhead.firmware.egdb import SHIPPED

    assert (
        convert.main(
            [
                "--tables",
                "shipped",
                "--defender",
                str(SHIPPED),
                "--pieces",
                "3",
                "--per",
                "1",
                "--nodes",
                "2000",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    # Three-piece wins: one of each material with a win, all converted in the fewest plies
    # (the winner has the distances of the shipped three-piece tables).
    assert "won positions of 3 pieces, the winner with tables shipped" in out
    assert "converted 6/6 = 100.0%" in out and "(1.00x)" in out
