"""``crownhead games``: listing and exporting the kept games."""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.rules import WCDF, Game

from helpers.games import random_game


@pytest.fixture
def state(tmp_path: Path) -> Path:
    store = GameStore(tmp_path / "state")
    for day, seed in ((1, 31), (2, 32)):
        record = GameRecord.new(black="Ann", white="Bob", now=f"2026-02-0{day}T18:00:00+00:00", rules=WCDF)
        store.finish(record.with_game(random_game(seed)))
    return tmp_path / "state"


def test_list(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--state-dir", str(state)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["#", "date", "result", "plies", "black"]
    assert len(out) == 3
    assert out[1].split()[1] == "2026.02.01" and out[2].split()[1] == "2026.02.02"
    assert "Ann" in out[1] and "Bob" in out[1]
    games = GameStore(state).list_games()
    assert out[1].split()[2] == games[0].result
    assert int(out[1].split()[3]) == games[0].plies


def test_list_shows_game_in_progress(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    GameStore(state).save_current(GameRecord.new(black="Cy", rules=WCDF).with_game(game))
    assert main(["games", "--state-dir", str(state), "list"]) == 0
    out = capsys.readouterr().out
    assert "In progress" in out and "1 ply," in out and "Cy (Black)" in out


def test_list_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--state-dir", str(tmp_path / "none")]) == 0
    assert "No games kept yet" in capsys.readouterr().out


def test_export_to_stdout_and_file(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--state-dir", str(state), "export"]) == 0
    text = capsys.readouterr().out
    assert text.count("[Event ") == 2
    out = tmp_path / "all.pdn"
    assert main(["games", "--state-dir", str(state), "export", "-o", str(out)]) == 0
    assert out.read_text() == text
    assert "2 games written" in capsys.readouterr().err


def test_state_dir_may_follow_the_action(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--state-dir", str(state), "export"]) == 0
    before = capsys.readouterr().out
    assert main(["games", "export", "--state-dir", str(state)]) == 0
    assert capsys.readouterr().out == before and before.count("[Event ") == 2
    assert main(["games", "list", "--state-dir", str(state)]) == 0
    assert capsys.readouterr().out.count(".pdn") == 2
    # Given before the action only, it still counts.
    assert main(["games", "--state-dir", str(state), "list"]) == 0
    assert capsys.readouterr().out.count(".pdn") == 2


def test_export_to_a_directory_is_refused(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--state-dir", str(state), "export", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a directory" in err


def test_unreadable_game_in_progress_is_one_line(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (state / "current.json").write_text("{broken")
    assert main(["games", "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "current.json" in err


def test_sheet_of_a_kept_game(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pypdf import PdfReader

    out = tmp_path / "g1.pdf"
    assert main(["games", "--state-dir", str(state), "sheet", "1", "-o", str(out)]) == 0
    text = " ".join(page.extract_text() for page in PdfReader(out).pages)
    assert "Ann" in text and "Bob" in text and "CHECKERS SCORE SHEET" in text
    games = GameStore(state).list_games()
    assert games[0].result in text
    # By file name too, and the same PDF as `crownhead sheet` makes of the file.
    again = tmp_path / "g1-by-name.pdf"
    assert main(["games", "sheet", games[0].path.stem, "--state-dir", str(state), "-o", str(again)]) == 0
    direct = tmp_path / "direct.pdf"
    assert main(["sheet", str(games[0].path), "-o", str(direct)]) == 0
    assert again.read_bytes() == out.read_bytes()
    assert PdfReader(direct).pages[0].extract_text() == PdfReader(out).pages[0].extract_text()


def test_sheet_of_a_game_that_is_not_kept(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["games", "--state-dir", str(state), "sheet", "7", "-o", str(tmp_path / "x.pdf")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no kept game '7'" in err and "2 kept" in err


def test_list_names_whole_and_match_games_numbered_as_the_match_numbers_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A refereed match game: its Round is the referee's session ("1.1", "1.2"), its game
    # in the match MatchGame, as `crownhead match` numbers them (game 1, game 2).
    from dataclasses import replace

    store = GameStore(tmp_path / "state")
    match = "20261204-180000-Ann-Crownhead-engine"
    engine = "Crownhead engine (level 5)"
    for n, (black, white) in enumerate((("Annabel Lee-Richardson", engine), (engine, "Annabel Lee-Richardson")), 1):
        record = GameRecord.new(black=black, white=white, now=f"2026-12-04T18:0{n}:00+00:00", rules=WCDF)
        record = replace(record, extra={"Round": f"1.{n}", "Match": match, "MatchGame": str(n)})
        store.finish(record.with_game(random_game(40 + n)))
    assert main(["games", "--state-dir", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    for line, (black, white) in zip(
        out[1:], ((("Annabel Lee-Richardson", engine), (engine, "Annabel Lee-Richardson")))
    ):
        assert f"  {black}  " in line and f"  {white}  " in line
    assert out[1].endswith(f"{match} game 1") and out[2].endswith(f"{match} game 2")
    # The columns still line up: each file name starts where the header's "file" does.
    at = out[0].index("file")
    assert all(line[at:].startswith("2026") for line in out[1:])
    assert out[0].index("match") == out[1].index(match)
