"""``crownhead analyse``: one JSON line with a legal move, within the time asked for."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from crownhead.firmware.cli import main
from crownhead.rules import WCDF, Game, Move, Position, Rules

# Every test here runs with the native search core and with the pure-Python search.
pytestmark = pytest.mark.usefixtures("engine_both_ways")

KEYS = ["move", "path", "captures", "score", "depth", "nodes", "ms", "meaning"]


def analyse(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(["analyse", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 1, out
    line = json.loads(lines[0])
    assert list(line) == KEYS  # the order of the keys is part of the format
    assert lines[0].startswith('{"move":')  # compact, no spaces
    return line


def test_start_position_by_depth(capsys: pytest.CaptureFixture[str]) -> None:
    line = analyse(capsys, "--depth", "4")
    start = Position.start()
    move = Move(tuple(line["path"]), tuple(line["captures"]))
    assert move in start.legal_moves(WCDF)
    assert line["move"] == str(move) == f"{line['path'][0]}-{line['path'][-1]}"
    assert line["depth"] == 4 and line["nodes"] > 0
    assert isinstance(line["score"], int) and isinstance(line["ms"], int)


def test_capture_is_reported_with_path_and_captured_squares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # White's only move is the double jump 27x18x9 (the second route 27x20 is blocked).
    line = analyse(capsys, "--fen", "W:W27:B23,14,1", "--depth", "3")
    assert line["move"] == "27x9"
    assert line["path"] == [27, 18, 9]
    assert line["captures"] == [23, 14]


def test_no_legal_move_gives_null(capsys: pytest.CaptureFixture[str]) -> None:
    for fen in ("W:W:B1,2", "B:W9,14:B5"):
        line = analyse(capsys, "--fen", fen, "--movetime", "50")
        assert line["move"] is None and line["path"] == [] and line["captures"] == []
        assert line["score"] == -10000 and line["depth"] == 0
        assert line["meaning"] == "no legal move: the side to move has lost"


def test_win_score_counts_plies(capsys: pytest.CaptureFixture[str]) -> None:
    line = analyse(capsys, "--fen", "B:W18:B14,1", "--depth", "2")
    assert line["move"] == "14x23"
    assert line["score"] == 10000 - 1
    assert line["meaning"] == "wins in 1 ply"


def test_the_score_is_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    # The first position from the losing side (issue 40: "score":-9968 said nothing).
    line = analyse(capsys, "--fen", "B:WK19,K18:BK28,12", "--depth", "1")
    assert line["score"] < -9000
    assert line["meaning"] == f"loses in {10000 + line['score']} plies"
    line = analyse(capsys, "--fen", "B:W29,30,31:B1,2,3,4,5", "--depth", "3", "--no-tables")
    assert 200 < line["score"] < 1000
    assert line["meaning"] == f"ahead by {line['score'] / 100:.2f} men"
    line = analyse(capsys, "--fen", "W:W29,30,31:B1,2,3,4,5", "--depth", "3", "--no-tables")
    assert line["meaning"] == f"behind by {-line['score'] / 100:.2f} men"


def test_rule_options_are_honoured(capsys: pytest.CaptureFixture[str]) -> None:
    # Black's man on 18 can take the man on 14 only by jumping backward.
    fen = "B:W14,30:B18"
    assert analyse(capsys, "--fen", fen, "--depth", "3")["captures"] == []
    line = analyse(capsys, "--fen", fen, "--depth", "3", "--men-capture-backward")
    assert line["move"] == "18x9" and line["captures"] == [14]
    optional = analyse(capsys, "--fen", "B:W20,22,23:B7,16,17", "--depth", "6", "--captures-optional")
    position = Position.from_fen("B:W20,22,23:B7,16,17")
    move = Move(tuple(optional["path"]), tuple(optional["captures"]))
    assert move in position.legal_moves(Rules(captures_compulsory=False))
    assert not move.is_capture


def test_the_board_s_endgame_tables_are_probed(capsys: pytest.CaptureFixture[str]) -> None:
    # First position, White to move: won in 61 plies, which only the tables can say at
    # depth 1 (docs/engine.md).
    line = analyse(capsys, "--fen", "W:WK19,K23:BK28,12", "--depth", "1")
    assert line["score"] == 10000 - 61
    line = analyse(capsys, "--fen", "W:WK19,K23:BK28,12", "--depth", "1", "--no-tables")
    assert abs(line["score"]) < 1000
    # Other rules than the tables were solved under: none.
    line = analyse(capsys, "--fen", "W:WK19,K23:BK28,12", "--depth", "1", "--men-capture-backward")
    assert abs(line["score"]) < 1000


def test_the_moves_played_count_for_repetitions(capsys: pytest.CaptureFixture[str]) -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.play_text("23-19")
    after = analyse(capsys, "--moves", "11-15 23-19", "--depth", "3")
    assert after == {**analyse(capsys, "--fen", game.position.fen(), "--depth", "3"), "ms": after["ms"]}
    # Two kings against one: 23-18 is the engine's move, but after 23-18 10-6 18-23 6-10 it
    # would go back to a position that stood before: a side that is ahead does not mark
    # time (rules.engine.search), so it plays another move.
    fen = "B:WK10:BK32,K23"
    assert analyse(capsys, "--fen", fen, "--depth", "4", "--no-tables")["move"] == "23-18"
    line = analyse(capsys, "--fen", fen, "--depth", "4", "--no-tables", "--moves", "23-18 10-6 18-23 6-10")
    assert line["move"] != "23-18" and line["score"] > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--moves", "11-15 23-20"], "--moves: 23-20: 23-20 is not legal"),
        (["--fen", "X:W1:B2"], "must start with the side to move"),
        (["--fen", "B:W1,1:B2"], "two pieces on square 1"),
        (["--fen", "B:W33:B2"], "square 33"),
        (["--movetime", "0"], "--movetime must be a positive"),
        (["--depth", "0"], "--depth must be 1 or more"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["analyse", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_movetime_and_depth_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["analyse", "--movetime", "100", "--depth", "3"])
    assert exc.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def _cpu_run(*argv: str) -> tuple[float, dict]:
    """``crownhead analyse`` in a new process: the CPU milliseconds it used, and its line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", "analyse", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu_s * 1000, json.loads(done.stdout)


def test_a_new_process_answers_with_a_legal_move() -> None:
    """A fresh ``crownhead analyse`` process answers; how long it takes is bench/analyse.py's."""
    _, line = _cpu_run("--movetime", "400")
    assert Move(tuple(line["path"])) in Position.start().legal_moves(WCDF)


def _movetimes_given(monkeypatch: pytest.MonkeyPatch, age_ms: float, *argv: str) -> list[object]:
    """The movetimes ``crownhead analyse --movetime 400 ARGV`` gave the engine, with the
    process ``age_ms`` old when it asked."""
    from crownhead.firmware.cli import analyse
    from crownhead.rules.engine import Engine

    given: list[object] = []
    search = Engine.search

    def recorded(self: Engine, position: Position, **limits: object) -> object:
        given.append(limits["movetime_ms"])
        return search(self, position, depth=1)

    monkeypatch.setattr(analyse, "_process_age_ms", lambda: age_ms)
    monkeypatch.setattr(Engine, "search", recorded)
    code = main(["analyse", "--movetime", "400", *argv])
    assert code == 0
    return given


@pytest.mark.parametrize("age_ms", [0.0, 150.0, 399.0, 5000.0])
def test_the_movetime_is_the_search_s_own(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], age_ms: float
) -> None:
    """The search gets the whole --movetime (less the few ms of printing and leaving),
    however long Python's start-up and the tables took: a start-up of over a second on a
    busy machine used to leave the search its minimum of 10 ms. Decided from the
    process's age, so tested with that age given, whatever the machine's speed."""
    given = _movetimes_given(monkeypatch, age_ms)
    assert given == [400 - 5]
    line = json.loads(capsys.readouterr().out)
    assert line["move"] is not None and list(line) == KEYS  # the format is unchanged


@pytest.mark.parametrize("age_ms, expected", [(0.0, 400 - 5), (150.0, 400 - 150 - 5), (399.0, 10), (5000.0, 10)])
def test_from_start_counts_python_start_up_against_the_movetime(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], age_ms: float, expected: int
) -> None:
    """--from-start: the search gets what is left of the budget once the process has
    started (at least MIN_SEARCH_MS), so the whole run keeps within it."""
    given = _movetimes_given(monkeypatch, age_ms, "--from-start")
    assert given == [expected]
    assert json.loads(capsys.readouterr().out)["move"] is not None


def test_the_start_up_is_told_when_asked(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _movetimes_given(monkeypatch, 1234.4, "--startup")
    line = json.loads(capsys.readouterr().out)
    assert list(line) == [*KEYS, "startup_ms"] and line["startup_ms"] == 1234


def test_the_best_lines_each_with_its_score_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--depth", "5", "--lines", "3"]) == 0
    lines = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert [line["rank"] for line in lines] == [1, 2, 3]
    moves = [line["move"] for line in lines]
    assert len(set(moves)) == 3 and all(m in [str(x) for x in Position.start().legal_moves(WCDF)] for m in moves)
    scores = [line["score"] for line in lines]
    assert scores == sorted(scores, reverse=True)  # ranked by their scores
    for line in lines:
        assert line["line"][0] == line["move"] and len(line["line"]) >= 2
        game = Game(Position.start(), WCDF)
        for text in line["line"]:
            game.play_text(text)  # the line is legal
    # With one line the answer is the one JSON line it always was: no rank, no line.
    assert main(["analyse", "--depth", "5"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert "rank" not in single and "line" not in single and single["move"] in moves


def test_fewer_lines_than_asked_where_there_are_fewer_moves(capsys: pytest.CaptureFixture[str]) -> None:
    # Black's man on 14 can only go to 17 or 18.
    assert main(["analyse", "--fen", "B:W30:B14", "--depth", "3", "--lines", "5", "--no-tables"]) == 0
    lines = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert sorted(line["move"] for line in lines) == ["14-17", "14-18"]
    assert main(["analyse", "--lines", "0"]) == 2
    assert "--lines must be 1 to 20, not 0" in capsys.readouterr().err


def test_the_book_answers_after_a_ballot(capsys: pytest.CaptureFixture[str]) -> None:
    """Just after a 3-move ballot the master games' book has the position (127 of the 156
    ballots): a script asking for a move gets the book's, as the board's player plays
    it; none was played through this command before (it never looked at the book)."""
    from crownhead.firmware.cli.analyse import BOOK_MEANING
    from crownhead.rules.engine.book import MasterBook

    moves = "11-15 23-19 8-11"  # ballot 1 of the deck
    game = Game(Position.start(), WCDF)
    for text in moves.split():
        game.play_text(text)
    book = MasterBook().moves(game.position)
    assert book
    line = analyse(capsys, "--moves", moves, "--movetime", "50")
    assert line["meaning"] == BOOK_MEANING and line["depth"] == 0 and line["nodes"] == 0
    assert Move(tuple(line["path"]), tuple(line["captures"])) in book
    searched = analyse(capsys, "--moves", moves, "--movetime", "50", "--no-book")
    assert searched["depth"] >= 1 and searched["meaning"] != BOOK_MEANING
    # Out of the book the engine searches, as before.
    assert analyse(capsys, "--fen", "W:W18,22:B9,10", "--movetime", "50")["depth"] >= 1


def test_a_hard_limit_beyond_the_movetime_is_passed_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crownhead.rules.engine import Engine

    given: list[object] = []
    search = Engine.search

    def recorded(self: Engine, position: Position, **limits: object) -> object:
        given.append((limits["movetime_ms"], limits["max_movetime_ms"]))
        return search(self, position, depth=1)

    monkeypatch.setattr(Engine, "search", recorded)
    assert main(["analyse", "--movetime", "400", "--max-movetime", "800", "--no-book"]) == 0
    assert given == [(395, 790)]
    assert main(["analyse", "--depth", "3", "--max-movetime", "800"]) == 2
    assert "--max-movetime" in capsys.readouterr().err
