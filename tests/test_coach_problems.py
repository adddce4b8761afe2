"""Problems: the shipped collections, an attempt judged by the stated result, the record."""

from __future__ import annotations

from crownhead.rules import WCDF

import io
import json
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.cli.problems import play
from crownhead.firmware.coach.problems import (
    CONTRADICTED,
    RECORD_FILE,
    Attempt,
    Record,
    collection,
    load_record,
    problem,
    save_record,
    shipped,
)
from crownhead.firmware.egdb import load_probe
from crownhead.rules.engine.egdb import EndgameTables
from crownhead.rules.position import Color

DEFEND = 5000


@pytest.fixture(scope="module")
def tables() -> EndgameTables:
    probe = load_probe()
    assert probe is not None
    return probe


def test_the_collections_ship_with_ids_and_difficulties() -> None:
    problems = collection()
    assert len(problems) == 1032 - 1 - len(CONTRADICTED)  # one has no pieces (Boland's Bridges #14)
    assert len({p.id for p in problems}) == len(problems)
    assert {p.difficulty for p in problems} == {1, 2, 3, 4, 5}
    assert {p.collection for p in problems} == {"beginner", "gem", "goulds", "lpc", "borderclassics", "bridges"}
    gem = problem("gem-12")
    assert gem.title == "Gem Problems #12" and gem.goal in ("win", "draw")
    with pytest.raises(KeyError, match="no problem 'gem-9999'"):
        problem("gem-9999")


def test_left_out_are_exactly_the_problems_the_tables_contradict(tables: EndgameTables) -> None:
    # Every shipped game again, none left out: each one the tables cover is checked.
    contradicted = set()
    for pid, _, game in shipped():
        pieces = (game.start.black | game.start.white).bit_count()
        found = tables.probe_position(game.start) if game.error is None and pieces >= 2 else None
        if found is None:
            continue
        black = {"1-0": "win", "0-1": "loss"}.get(game.result, "draw")
        stated = black if game.start.turn is Color.BLACK else {"win": "loss", "loss": "win"}.get(black, "draw")
        if found[0] != stated:
            contradicted.add(pid)
    assert contradicted == CONTRADICTED


def _attempt(problem_id: str, moves: list[str], tables: EndgameTables) -> Attempt:
    attempt = Attempt(problem(problem_id), probe=tables, defend_nodes=DEFEND)
    for text in moves:
        while not attempt.player_to_move and not attempt.verdict.over:
            attempt.defend()
        if attempt.verdict.over:
            break
        attempt.play(attempt.game.position.parse_move(text, WCDF))
    while not attempt.verdict.over and not attempt.player_to_move:
        attempt.defend()
    return attempt


def test_a_problem_solved_by_its_shot(tables: EndgameTables) -> None:
    # Beginner's Problem #1, W:W31,27,19:B17,12,5: 19-16 12x19 27-23 19x26 31x13 and 13x6.
    attempt = _attempt("beginner-1", ["19-16", "27-23", "31x13", "13x6"], tables)
    assert attempt.verdict.status == "solved"
    assert attempt.moves_text().startswith("19-16 12x19 27-23 19x26 31x13")


def test_the_same_problem_failed_by_a_wrong_move(tables: EndgameTables) -> None:
    attempt = _attempt("beginner-1", ["27-23"], tables)
    assert attempt.verdict.status == "failed"
    assert attempt.verdict.reason == "the win has gone: the tables say it is a draw"
    with pytest.raises(ValueError, match="the attempt is over"):
        attempt.play(attempt.game.legal_moves()[0])


def test_a_problem_whose_side_is_ahead_already_is_not_solved_without_winning_more(tables: EndgameTables) -> None:
    # Gem Problems #89, W:WK12,31:BK4,K5,23: White to play, Black (a man up) wins. White's
    # 12-16 leaves Black as far ahead as before: no material won yet, nothing solved.
    attempt = Attempt(problem("gem-89"), probe=tables)
    assert attempt.problem.player.name == "BLACK" and not attempt.player_to_move
    attempt.defend()
    assert attempt.verdict.status == "playing" and attempt.player_moves == 0


def test_a_drawn_problem_held(tables: EndgameTables) -> None:
    # Beginner's Problem #7: White to play and draw.
    attempt = _attempt("beginner-7", ["23-18", "31-27", "27x9"], tables)
    assert problem("beginner-7").goal == "draw"
    assert attempt.verdict.status == "solved", attempt.moves_text()


def test_the_record_moves_the_level_and_keeps_the_streak() -> None:
    record = Record()
    easy = [p for p in collection() if p.difficulty == 1]
    for p in easy[:3]:
        record.add(p, solved=True)
    assert (record.level, record.streak, record.best_streak) == (2, 3, 3)
    assert record.next_problem().difficulty == 2
    hard = [p for p in collection() if p.difficulty == 2]
    record.add(hard[0], solved=False)
    assert (record.level, record.streak) == (2, 0)
    record.add(hard[1], solved=False)
    assert record.level == 1 and record.best_streak == 3
    # The next problem at the level is one not solved yet.
    assert record.next_problem().id == easy[3].id
    assert record.tried == {1: 3, 2: 2, 3: 0, 4: 0, 5: 0} and record.wins[1] == 3


def test_the_record_is_kept_and_a_damaged_one_set_aside(tmp_path: Path) -> None:
    record = Record()
    record.add(problem("beginner-1"), solved=True)
    save_record(tmp_path, record)
    again, warning = load_record(tmp_path)
    assert warning is None and again == record
    (tmp_path / RECORD_FILE).write_text(json.dumps({"level": 9}))
    fresh, warning = load_record(tmp_path)
    assert fresh == Record()
    assert warning is not None and "level must be a whole number from 1 to 5, not 9" in warning
    assert "set aside as problems-" in warning
    assert [p.suffix for p in tmp_path.iterdir()] == [".bad"]


def test_playing_in_the_terminal_records_the_attempt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    attempt = Attempt(problem("beginner-1"), probe=load_probe(), defend_nodes=DEFEND)
    out = io.StringIO()
    assert play(attempt, io.StringIO("9-99\nh\n19-16\n27-23\n31x13\n13x6\n"), out) is True
    text = out.getvalue()
    assert "Beginner's Problem #1: White to play and win (difficulty 1)" in text
    assert "9-99: " in text and "Hint: " in text and "The engine plays 12x19" in text
    assert "Solved with 1 hint: the defender has no move left." in text  # the hint was asked for
    # Through the command: a wrong move fails and is recorded.
    monkeypatched = io.StringIO("27-23\n")
    import sys

    stdin, sys.stdin = sys.stdin, monkeypatched
    try:
        assert main(["problems", "play", "beginner-1", "--state-dir", str(tmp_path)]) == 1
    finally:
        sys.stdin = stdin
    assert "Not solved: the win has gone" in capsys.readouterr().out
    record, _ = load_record(tmp_path)
    assert record.tried[1] == 1 and record.wins[1] == 0
    assert main(["problems", "--state-dir", str(tmp_path)]) == 0
    assert "Level 1 of 5; streak 0 (best 0)" in capsys.readouterr().out


def test_a_problem_solved_with_hints_neither_counts_as_solved_nor_extends_the_streak() -> None:
    # Issue 54, item 7: a problem solved with the engine's hints counted as solved, and
    # moved the streak and the level on as one solved alone.
    record = Record()
    easy = [p for p in collection() if p.difficulty == 1]
    record.add(easy[0], solved=True)
    record.add(easy[1], solved=True, hints=1)
    assert (record.streak, record.best_streak, record.run) == (1, 1, 1)
    assert record.tried[1] == 2 and record.wins[1] == 1
    assert easy[1].id not in record.solved  # offered again, to be solved alone
    record.add(easy[2], solved=True)
    assert record.streak == 2


def test_playing_in_the_terminal_shows_the_square_numbers_and_says_a_helped_solution(tmp_path: Path) -> None:
    # Issue 54, item 7: `problems play` drew the board without the numbers its moves are
    # typed in, and said "Solved" for a solution the hints gave.
    attempt = Attempt(problem("beginner-1"), probe=load_probe(), defend_nodes=DEFEND)
    out = io.StringIO()
    assert play(attempt, io.StringIO("h\n19-16\n27-23\n31x13\n13x6\n"), out) is True
    text = out.getvalue()
    # W:W31,27,19:B17,12,5: each dark square with its number and what stands on it.
    first = text.split("Your move")[0]
    assert "19w" in first and "27w" in first and "17b" in first and " 1." in first
    assert "Solved with 1 hint: the defender has no move left." in text
    assert "not counted as solved" in text
