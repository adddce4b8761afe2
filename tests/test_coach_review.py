"""crownhead review: each move scored, and exactly the moves that gave something away marked.

Two games with a known fault: a man given away for nothing in the opening (the search
sees it), and a won four-piece ending thrown to a draw (the endgame tables say so).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.coach.review import Mark, expectation, review_game
from crownhead.firmware.egdb import load_probe
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.rules import WCDF, Game, Position
from crownhead.rules.engine.egdb import EndgameTables
from crownhead.rules.pdn import read_games

#: 3. 12-16 leaves the man on 16 to 19x12 with nothing in return; the rest is sound.
GIVEN_AWAY = "11-15 23-19 8-11 22-17 12-16 19x12 4-8 25-22 15-19 24x15"
#: White to move wins with 26-22 only (the tables, with distances: four pieces); 15-10
#: lets Black draw. The moves after it keep the draw on both sides.
WON_ENDING = "W:WK15,26:B14,K16"
NODES = 3000


def _game(moves: str, fen: str | None = None) -> Game:
    game = Game(Position.from_fen(fen) if fen else Position.start(), WCDF)
    for text in moves.split():
        game.play_text(text)
    return game


@pytest.fixture(scope="module")
def tables() -> EndgameTables:
    probe = load_probe()
    assert probe is not None, "the package ships its endgame tables"
    return probe


def _faults(review_plies: list) -> list[tuple[int, str]]:
    return [(p.ply, p.move) for p in review_plies if p.mark in (Mark.BLUNDER, Mark.MISTAKE, Mark.DUBIOUS)]


def test_a_man_given_away_is_the_one_move_marked() -> None:
    review = review_game(_game(GIVEN_AWAY), nodes=NODES)
    assert len(review.plies) == 10
    assert _faults(list(review.plies)) == [(5, "12-16")]
    blunder = review.plies[4]
    assert blunder.mark is Mark.BLUNDER and blunder.side == "black" and blunder.number == 3
    assert blunder.best != "12-16" and blunder.line[0] == blunder.best
    assert blunder.score <= -100  # a man down, from Black's view
    assert blunder.explain().startswith("Blunder (costs ")
    assert f"{blunder.best} was better" in blunder.explain()
    assert review.summary()["black"]["blunder"] == 1 and review.summary()["white"]["blunder"] == 0


def test_a_won_ending_thrown_to_a_draw_is_marked_by_the_tables(tables: EndgameTables) -> None:
    thrown = review_game(_game("15-10 14-17 10-14 17-21", WON_ENDING), nodes=NODES, probe=tables)
    assert _faults(list(thrown.plies)) == [(1, "15-10")]
    first = thrown.plies[0]
    assert (first.mark, first.verdict, first.verdict_after, first.best) == (Mark.BLUNDER, "win", "draw", "26-22")
    assert first.explain() == "Blunder: turns the win into a draw, the tables say: 26-22 was better (26-22)"
    # The winning move itself is the only one that keeps the win: marked good.
    kept = review_game(_game("26-22", WON_ENDING), nodes=NODES, probe=tables)
    assert kept.plies[0].mark is Mark.GOOD and kept.plies[0].cost == 0
    assert _faults(list(kept.plies)) == []


def test_without_the_tables_the_search_alone_scores_the_ending() -> None:
    review = review_game(_game("15-10", WON_ENDING), nodes=NODES)
    assert review.plies[0].verdict is None and review.plies[0].mark is not Mark.GOOD


def test_the_review_is_the_same_whatever_the_speed(tables: EndgameTables) -> None:
    # Limited by nodes, not time: two runs give the same scores and marks.
    first = review_game(_game(GIVEN_AWAY), nodes=NODES).to_json()
    again = review_game(_game(GIVEN_AWAY), nodes=NODES).to_json()
    assert first == again


def test_expectation_rises_with_the_score() -> None:
    scores = [-10_000, -9_000 + 1, -500, -100, 0, 100, 500, 8_500, 9_990]
    values = [expectation(s) for s in scores]
    assert values == sorted(values) and values[0] == 0.0 and values[-1] == 1.0 and expectation(0) == 0.5


def _kept_game(state: Path, moves: str) -> None:
    store = GameStore(state)
    game = _game(moves)
    game.declare("0-1", "resign")
    record = GameRecord.new(black="Ann", white="Bob", now="2026-12-01T10:00:00", rules=WCDF).with_game(game)
    store.finish(record)


def test_cli_reviews_the_last_kept_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _kept_game(tmp_path, GIVEN_AWAY)
    assert main(["review", "--state-dir", str(tmp_path), "--nodes", str(NODES)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("Ann (Black) v Bob (White), 0-1: 10 moves reviewed at 3,000 positions each")
    assert "  3. 12-16??  Blunder (costs " in out
    assert "  3... 19x12" not in out  # the reply was the best move: not listed
    assert "Black: 1 blunder, 0 mistakes, 0 dubious, 0 good moves" in out
    assert main(["review", "1", "--state-dir", str(tmp_path), "--nodes", str(NODES), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    marked = [(p["ply"], p["move"], p["mark"]) for p in document["plies"] if p["mark"]]
    assert marked == [(5, "12-16", "??")]
    assert document["tags"]["Black"] == "Ann" and document["nodes"] == NODES
    # As PDN: the mark on the move, the words in a comment; read back, the same game.
    assert main(["review", "1", "--state-dir", str(tmp_path), "--nodes", str(NODES), "--pdn"]) == 0
    text = capsys.readouterr().out
    assert "3. 12-16?? {Blunder (costs " in text and text.count("??") == 1
    (again,) = read_games(text, "review.pdn")
    assert again.ok and [str(m) for m in again.moves] == GIVEN_AWAY.split()
    assert again.tags["Annotator"] == f"crownhead review, {NODES} nodes a position"
    assert again.comments[5][0].startswith("Blunder (costs ")


def test_cli_reviews_a_pdn_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdn = tmp_path / "ending.pdn"
    pdn.write_text(f'[Event "Study"]\n[SetUp "1"]\n[FEN "{WON_ENDING}"]\n\n1... 15-10 2. 14-17 10-14 *\n')
    assert main(["review", str(pdn), "--nodes", str(NODES), "--state-dir", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert "  1... 15-10??  Blunder: turns the win into a draw, the tables say: 26-22 was better" in out
    assert "  2. 14-17!  The only move that keeps the draw: the tables say so" in out
    # In JSON: 15-10 the one move marked as a fault, by the tables' verdicts before and after.
    assert main(["review", str(pdn), "--nodes", str(NODES), "--state-dir", str(tmp_path / "none"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    faults = [(p["ply"], p["move"], p["mark"]) for p in document["plies"] if p["mark"] in ("??", "?", "?!")]
    assert faults == [(1, "15-10", "??")]
    thrown = document["plies"][0]
    assert (thrown["side"], thrown["number"], thrown["best"], thrown["cost"]) == ("white", 1, "26-22", 0.5)
    assert (thrown["tables"], thrown["tables_after"]) == ("win", "draw")
    assert document["summary"]["white"]["blunder"] == 1 and document["summary"]["black"]["blunder"] == 0
    # As PDN: the mark on 15-10 alone, the words after it; read back, the same game and words.
    assert main(["review", str(pdn), "--nodes", str(NODES), "--state-dir", str(tmp_path / "none"), "--pdn"]) == 0
    text = capsys.readouterr().out
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1... 15-10?? {Blunder: turns the win into a draw") and movetext.count("?") == 2
    (again,) = read_games(text, "review.pdn")
    assert again.ok and again.start == Position.from_fen(WON_ENDING)
    assert [str(m) for m in again.moves] == ["15-10", "14-17", "10-14"]
    assert (
        " ".join(again.comments[1]).replace("\n", " ").startswith("Blunder: turns the win into a draw, the tables say")
    )


def test_cli_says_when_there_is_nothing_to_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--state-dir", str(tmp_path)]) == 2
    assert "no finished game kept in" in capsys.readouterr().err
    assert main(["review", "7", "--state-dir", str(tmp_path)]) == 2
    assert "7: no such file, nor a game kept in" in capsys.readouterr().err
    _kept_game(tmp_path, GIVEN_AWAY)
    assert main(["review", "1", "--game", "2", "--state-dir", str(tmp_path)]) == 2
    assert "holds 1 game(s), not a game 2" in capsys.readouterr().err


def test_cli_refuses_a_game_longer_than_any_real_one_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 54: review of a game of 400,000 plies ran for minutes; the bound is injected small.
    import crownhead.rules.pdn as pdn_module

    monkeypatch.setattr(pdn_module, "MAX_PLIES", 12)
    shuffle = " ".join(f"{n}. 1-5 32-27 {n + 1}. 5-1 27-32" for n in range(1, 400, 2))
    long_game = tmp_path / "long.pdn"
    long_game.write_text(f'[Black "Ann"]\n[White "Bob"]\n[FEN "B:WK32:BK1"]\n\n{shuffle} *\n')
    assert main(["review", str(long_game), "--nodes", str(NODES), "--state-dir", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "crownhead review: long.pdn:5: game 1: more than 12 plies: no real game has as many; "
        "the rest of the game is not read\n"
    )
