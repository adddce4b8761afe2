"""``crownhead sheet``: score sheets as PDF, read back as text (pypdf, and pdftotext when present)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from crownhead.firmware.cli import main
from crownhead.rules import WCDF, Game, read_game, write_game

#: Seed 000's four-game match: Ana wins game 1 with Black, Ben wins game 2, game 3 is
#: drawn, Ana wins game 4; colours swapped every game.
ANA_BEN = """\
[Event "Seed 000 match"]
[Date "2026.11.30"]
[Round "1"]
[Black "Ana"]
[White "Ben"]
[Result "1-0"]
1. 11-15 23-19 2. 8-11 22-17 1-0

[Event "Seed 000 match"]
[Date "2026.11.30"]
[Round "2"]
[Black "Ben"]
[White "Ana"]
[Result "1-0"]
1. 9-14 22-17 2. 11-15 25-22 1-0

[Event "Seed 000 match"]
[Date "2026.11.30"]
[Round "3"]
[Black "Ana"]
[White "Ben"]
[Result "1/2-1/2"]
1. 10-14 24-19 1/2-1/2

[Event "Seed 000 match"]
[Date "2026.11.30"]
[Round "4"]
[Black "Ben"]
[White "Ana"]
[Result "0-1"]
1. 11-16 24-19 2. 16-20 0-1
"""

_NUMBER = re.compile(r"^(\d+)\.$")
_MOVE = re.compile(r"^\d{1,2}(?:[-x]\d{1,2})+\??$")


def sheet(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["sheet", *argv])
    _, err = capsys.readouterr()
    return code, err


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def pdftotext(path: Path) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext (Debian poppler-utils) is not installed")
    return subprocess.run([tool, "-layout", str(path), "-"], check=True, capture_output=True, text=True).stdout


def table(text: str) -> dict[int, list[str]]:
    """The moves table read back: move number -> the moves written in its row."""
    rows: dict[int, list[str]] = {}
    number: int | None = None
    for token in text.split():
        if token == "Final":
            break  # the table is over: what follows is the diagram and the notes
        found = _NUMBER.match(token)
        if found:
            number = int(found.group(1))
            rows.setdefault(number, [])
        elif number is not None and _MOVE.match(token):
            rows[number].append(token)
    return rows


def expected_rows(moves: list[str]) -> dict[int, list[str]]:
    return {n + 1: moves[2 * n : 2 * n + 2] for n in range((len(moves) + 1) // 2)}


def played(rows: dict[int, list[str]]) -> dict[int, list[str]]:
    return {n: m for n, m in rows.items() if m}


@pytest.fixture
def ana_ben(tmp_path: Path) -> Path:
    path = tmp_path / "ana-ben.pdn"
    path.write_text(ANA_BEN, encoding="utf-8")
    return path


def test_the_seed_match_sheet_says_ana_2_ben_1(
    ana_ben: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match.pdf"
    assert sheet(capsys, str(ana_ben), "--match", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "Match score: Ana 2, Ben 1" in text
    assert "Ana takes the match, 2 games to 1" in text
    # Game by game: who had Black, the result, the running score.
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert any(line.startswith("1 Ana Ben 1-0 Ana 1 1 - 0") for line in lines), lines
    assert any(line.startswith("2 Ben Ana 1-0 Ben 1 1 - 1") for line in lines), lines
    assert any(line.startswith("3 Ana Ben 1/2-1/2 Drawn - - 1 - 1") for line in lines), lines
    assert any(line.startswith("4 Ben Ana 0-1 Ana 1 2 - 1") for line in lines), lines
    assert "Match score: Ana 2, Ben 1" in " ".join(pdftotext(out).split())


def test_counting_draws_as_the_1923_laws_do(ana_ben: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "match.pdf"
    assert sheet(capsys, str(ana_ben), "--match", "--count-draws", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "Match score: Ana 2½, Ben 1½" in text
    assert "Ana takes the match, 2½ points to 1½" in text
    assert "Ana: 2 wins, 1 draw, 1 loss" in text and "Ben: 1 win, 1 draw, 2 losses" in text


def test_a_match_sheet_leaves_out_other_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.pdn"
    other = '[Black "Cy"]\n[White "Di"]\n[Result "1-0"]\n1. 11-15 1-0\n\n'
    path.write_text(other + ANA_BEN, encoding="utf-8")
    out = tmp_path / "match.pdf"
    # --game N chooses the players: game 2 is Ana v Ben.
    assert sheet(capsys, str(path), "--match", "--game", "2", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "Match score: Ana 2, Ben 1" in text and "Cy" not in text


def test_a_game_sheet_has_the_names_every_move_in_order_and_the_result(
    ana_ben: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "game.pdf"
    assert sheet(capsys, str(ana_ben), "--game", "2", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    for needed in ("CHECKERS SCORE SHEET", "Ben", "Ana", "Seed 000 match", "2026.11.30", "1-0", "Ben (Black) wins"):
        assert needed in text
    assert played(table(text)) == expected_rows(["9-14", "22-17", "11-15", "25-22"])
    assert played(table(pdftotext(out))) == expected_rows(["9-14", "22-17", "11-15", "25-22"])
    # 9-14 22-17 11-15 are ballot 38's moves, but no ballot was drawn for this game.
    assert "ACF ballot" not in text


def test_every_game_of_a_file_gets_its_own_sheet(
    ana_ben: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "all.pdf"
    assert sheet(capsys, str(ana_ben), "-o", str(out)) == (0, "")
    reader = PdfReader(out)
    assert len(reader.pages) == 4
    assert "Ana (White) wins" in (reader.pages[3].extract_text() or "")


def long_game(plies: int) -> Game:
    """A legal game of at least ``plies`` plies (random moves; the first seed that lasts)."""
    for seed in range(1000):
        rng = random.Random(seed)
        game = Game(None, WCDF)
        while not game.is_over and game.ply < plies:
            game.play(rng.choice(game.position.legal_moves(game.rules)))
        if game.ply >= plies:
            return game
    raise AssertionError("no random game lasted")


@pytest.mark.parametrize("clocked", [False, True], ids=["moves", "with-clock-times"])
@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_a_200_ply_game_fits_without_cutting_a_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clocked: bool, paper: str
) -> None:
    game = long_game(200)
    texts = []
    position = game.start
    from crownhead.rules.pdn import move_text

    for move in game.moves:
        texts.append(move_text(position, move, game.rules))
        position = position.apply(move, game.rules)
    comments = {ply: f"[%clk 0:{59 - ply % 60:02d}:{ply % 60:02d}]" for ply in range(1, 201)} if clocked else None
    path = tmp_path / "long.pdn"
    path.write_text(write_game(game, tags={"Black": "Ana", "White": "Ben"}, comments=comments, result="*"))
    out = tmp_path / "long.pdf"
    assert sheet(capsys, str(path), "--paper", paper, "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert played(table(text)) == expected_rows(texts)
    if clocked:
        assert "0:59:00" in text  # ply 60's time left
    reader = PdfReader(out)
    width = float(reader.pages[0].mediabox.width)
    assert round(width) == (612 if paper == "letter" else 595)
    assert len(reader.pages) == (1 if not clocked else 2)


def test_clock_times_and_cautions_of_a_referee_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ref.pdn"
    path.write_text(
        '[Event "Club final"]\n[Round "3.1"]\n[Black "Ann"]\n[White "Bob"]\n[Ballot "5"]\n'
        '[BallotMoves "9-13 22-18 6-9"]\n[Opening "Dreaded Edinburgh"]\n[TimeControl "300+5"]\n'
        '[Refereeing "strict"]\n[Termination "resign"]\n[Result "1-0"]\n\n'
        "1. 9-13 {[%clk 0:05:03]} 22-18 {[%clk 0:05:01] caution to white, illegal move "
        "(forced-capture): a jump is required; the move is taken back (WCDF 1.25)} "
        "2. 6-9 {[%clk 0:04:58]} 18-14 {[%clk 0:04:40] white resigns} 1-0\n"
    )
    out = tmp_path / "ref.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "ACF ballot 5, Dreaded Edinburgh (9-13 22-18 6-9)" in text
    assert "300+5" in text and "3.1" in text
    assert "Cautions: Black 0, White 1" in text
    assert "Time left: Black 0:04:58 (after ply 3), White 0:04:40 (after ply 4)" in text
    assert "1... 22-18: Caution to white" in text
    assert "2... 18-14: White resigns" in text  # a note is a sentence: a capital first
    assert "Ann (Black) wins (resignation)" in text


def test_a_game_that_does_not_replay_gives_what_was_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text('[Black "Ana"]\n[White "Ben"]\n1. 11-15 23-19 2. 16-20 19x10 *\n')
    out = tmp_path / "bad.pdf"
    code, err = sheet(capsys, str(path), "-o", str(out))
    assert code == 1
    assert err == (
        f"crownhead sheet: {path}:3: game 1, ply 3, 16-20: no piece on 16 "
        "(the sheet shows the 2 moves read before it)\n"
    )
    text = pdf_text(out)
    assert played(table(text)) == {1: ["11-15", "23-19"], 2: ["16-20?"]}
    assert "game 1, ply 3, 16-20: no piece on 16" in " ".join(text.split())


def test_a_missing_file_is_one_line_and_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pdf"
    code, err = sheet(capsys, str(tmp_path / "nothere.pdn"), "-o", str(out))
    assert code == 2
    assert err == f"crownhead sheet: cannot read {tmp_path / 'nothere.pdn'}: No such file or directory\n"
    assert not out.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "9"], "there is no game 9 (the file has 4)"),
        (["--game", "0"], "there is no game 0 (the file has 4)"),
    ],
)
def test_bad_requests_are_one_line(
    ana_ben: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, err = sheet(capsys, str(ana_ben), *argv, "-o", str(tmp_path / "x.pdf"))
    assert code == 2 and err == f"crownhead sheet: {ana_ben}: {message}\n"


def test_an_empty_file_and_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.pdn"
    empty.write_text("")
    assert sheet(capsys, str(empty), "-o", str(tmp_path / "x.pdf")) == (
        2,
        f"crownhead sheet: {empty}: no games in the file\n",
    )
    assert sheet(capsys, str(tmp_path), "-o", str(tmp_path / "x.pdf")) == (
        2,
        f"crownhead sheet: cannot read {tmp_path}: it is a directory\n",
    )
    ok = tmp_path / "ok.pdn"
    ok.write_text("1. 11-15 *")
    assert sheet(capsys, str(ok), "-o", str(tmp_path)) == (
        2,
        f"crownhead sheet: {tmp_path} is a directory; give a file name\n",
    )


def test_a_blank_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "blank.pdf"
    assert sheet(capsys, "--blank", "--paper", "a4", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "CHECKERS SCORE SHEET" in text and "Final position (mark the pieces)" in text
    rows = table(text)
    assert sorted(rows) == list(range(1, 101)) and not played(rows)
    assert sheet(capsys, "--blank", "x.pdn", "-o", str(out))[0] == 2


def test_names_out_of_the_fonts_range_are_printed_readably(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "names.pdn"
    path.write_text('[Black "Łukasz Żółw"]\n[White "Zoë \\"the wall\\""]\n1. 11-15 *\n', encoding="utf-8")
    out = tmp_path / "names.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "Lukasz Zólw" in text and 'Zoë "the wall"' in text


def test_the_shared_games_all_make_sheets(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "oca.pdf"
    assert sheet(capsys, str(shared_data / "oca-2.0.pdn"), "-o", str(out)) == (0, "")
    assert len(PdfReader(out).pages) >= 43
    # Tinsley's game 541 stops at ply 123 (no piece on 32): its sheet says so.
    code, err = sheet(capsys, str(shared_data / "tinsley.pdn"), "--game", "541", "-o", str(out))
    assert code == 1 and "game 541, ply 123, 32-28: no piece on 32" in err


def test_a_blank_match_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "blank-match.pdf"
    assert sheet(capsys, "--blank", "--match", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    assert "CHECKERS MATCH SCORE SHEET" in text and "Winner of the match:" in text
    assert "a drawn game gives neither player a mark" in text and "Player 1" in text
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert "12" in lines and "13" not in lines


def test_the_board_s_games_of_one_match_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two matches between the same players in one export: --match takes the chosen game's.
    tagged = []
    for match_id, games in (("m1", ANA_BEN.split("\n\n")[:2]), ("m2", ANA_BEN.split("\n\n")[2:])):
        tagged += [f'[Match "{match_id}"]\n{game.strip()}\n' for game in games]
    path = tmp_path / "export.pdn"
    path.write_text("\n".join(tagged))
    out = tmp_path / "m2.pdf"
    assert sheet(capsys, str(path), "--match", "--game", "3", "-o", str(out)) == (0, "")
    text = pdf_text(out)
    # Games 3 and 4 of the file: a draw (Ana Black), then Ana's win with White.
    assert "Match score: Ana 1, Ben 0" in text


def test_a_ballot_is_named_only_when_one_was_drawn_or_set() -> None:
    from crownhead.rules.pdn import read_game
    from crownhead.firmware.sheets.model import SheetGame

    casual = SheetGame.from_pdn(read_game('[Event "Casual game"]\n1. 11-15 23-19 2. 8-11 22-17 *'))
    assert casual.opening == "" and "ballot" not in casual.opening.lower()  # ballot 126's moves, no ballot
    named = SheetGame.from_pdn(read_game("1. 9-13 22-18 2. 6-9 *"))
    assert named.opening == "Dreaded Edinburgh (9-13 22-18 6-9)"  # an opening's name, not a ballot
    refereed = SheetGame.from_pdn(
        read_game('[Ballot "120"]\n[BallotMoves "11-15 22-18 15x22"]\n1. 11-15 22-18 2. 15x22 *')
    )
    assert refereed.opening == "ACF ballot 120 (11-15 22-18 15x22)"


def refereed_game(plies: int = 33) -> str:
    """A referee's record as the board writes it: ballot 20, a clock, two notes (the
    ballot before the first move, the resignation at the end)."""
    from crownhead.firmware.referee.record import TournamentRecord
    from crownhead.rules import WCDF
    from crownhead.rules.ballots import BALLOTS

    ballot = next(b for b in BALLOTS if b.number == 20)
    for seed in range(4, 1000):
        game = Game(None, WCDF)
        for move in ballot.play_moves(WCDF):
            game.play(move)
        rng = random.Random(seed)
        while game.ply < plies and not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        if game.ply == plies and not game.is_over:
            break
    game.resign()
    record = TournamentRecord(
        event="Club final", black="Ann", white="Bob", date="2026.11.29", round="1.1", ballot=ballot, reason="resign"
    )
    record.note(0, f"ACF ballot 20: {' '.join(ballot.moves)}")
    record.note(game.ply, "white resigns")
    times = {ply: (3_000_000 - ply * 1000, 1000) for ply in range(1, game.ply + 1)}
    return record.pdn(game, times)


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_a_refereed_games_two_notes_fit_on_its_one_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], paper: str
) -> None:
    path = tmp_path / "ref.pdn"
    path.write_text(refereed_game())
    recorded = read_game(path.read_text())
    assert recorded is not None and len(recorded.moves) == 33
    out = tmp_path / "ref.pdf"
    assert sheet(capsys, str(path), "--paper", paper, "-o", str(out)) == (0, "")
    assert len(PdfReader(out).pages) == 1
    for text in (pdf_text(out), pdftotext(out)):
        words = " ".join(text.split())
        assert "Notes Before the first move: ACF ballot 20: 9-13 23-19 10-14" in words
        assert "17. " in words and ": White resigns" in words
        assert "page 1 of 1" in words
    # Every move is still in the grid.
    assert [m for row in played(table(pdf_text(out))).values() for m in row] == [str(m) for m in recorded.moves]


def test_a_long_games_notes_still_follow_its_moves_on_later_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.pdn"
    path.write_text(refereed_game(plies=150))  # 75 moves: the first page's whole grid
    out = tmp_path / "long.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    pages = PdfReader(out).pages
    assert len(pages) >= 2
    assert "White resigns" in (pages[-1].extract_text() or "")


def test_the_outcome_of_unnamed_players_and_of_a_side_with_no_pieces_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.pdn"
    path.write_text(
        '[Result "0-1"]\n[Termination "resign"]\n\n1. 11-15 23-19 0-1\n\n'
        '[Black "Ana"]\n[SetUp "1"]\n[FEN "B:W18:B14,1"]\n[Termination "no-moves"]\n\n1. 14x23 1-0\n'
    )
    out = tmp_path / "two.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    text = " ".join(pdf_text(out).split())
    assert "White wins (resignation)" in text and "? (White)" not in text
    assert "Ana (Black) wins (White has no pieces left)" in text
    assert "cannot move" not in text


def test_the_match_sheet_says_how_many_of_the_games_agreed_were_played(tmp_path: Path) -> None:
    from crownhead.firmware.sheets.pdf import match_sheet
    from crownhead.rules.match import Match

    out = tmp_path / "match.pdf"
    match = Match.new("Ana", "Ben", games=2).with_result("1/2-1/2").with_result("1-0")
    out.write_bytes(match_sheet(match))
    text = " ".join(pdf_text(out).split())
    # Not "2 played, 2 agreed", which reads like two agreed draws.
    assert "GAMES 2 of 2 played" in text and "agreed" not in text
    out.write_bytes(match_sheet(Match.new("Ana", "Ben").with_result("0-1")))
    assert "GAMES 1 played" in " ".join(pdf_text(out).split())


def test_a_game_lost_on_time_shows_the_losers_clock_at_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 54: White's flag fell after Black's third move; White's last recorded time
    # (0:00:41, after ply 2) is not what White had left.
    path = tmp_path / "flag.pdn"
    path.write_text(
        '[Black "Ann"]\n[White "Bob"]\n[TimeControl "300"]\n[Termination "time"]\n[Result "1-0"]\n\n'
        "1. 11-15 {[%clk 0:02:10]} 23-19 {[%clk 0:00:41]} 2. 8-11 {[%clk 0:01:57]} 1-0\n"
    )
    out = tmp_path / "flag.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    text = " ".join(pdf_text(out).split())
    assert "Time left: Black 0:01:57 (after ply 3), White 0:00:00 (lost on time)" in text


def test_a_game_from_a_set_position_shows_its_starting_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fen = "W:W18,K30:B14,1"
    path = tmp_path / "problem.pdn"
    path.write_text(f'[Black "Ann"]\n[White "Bob"]\n[SetUp "1"]\n[FEN "{fen}"]\n[Result "0-1"]\n\n1. 18x9 0-1\n')
    out = tmp_path / "problem.pdf"
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    text = " ".join(pdf_text(out).split())
    assert "Starting position (set up), White to move" in text
    assert "FEN W:W18,K30:B1,14" in text  # as the board writes it
    # A game from the usual start has none: its starting position is no news.
    plain = tmp_path / "plain.pdn"
    plain.write_text('[Black "Ann"]\n[White "Bob"]\n1. 11-15 23-19 *\n')
    assert sheet(capsys, str(plain), "-o", str(out)) == (0, "")
    assert "Starting position" not in pdf_text(out)


def test_a_tag_of_60_kb_and_a_file_of_too_many_games_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import crownhead.firmware.sheets.files as sheet_files
    import crownhead.rules.pdn as pdn

    # Issue 54: a PDN with a 20 MB tag grew past 538 MB; the reader now refuses a tag over
    # its bound (injected small here) with one line naming the file and the line.
    monkeypatch.setattr(pdn, "MAX_TOKEN", 10_000)
    path = tmp_path / "tag.pdn"
    path.write_text('[Black "Ann"]\n[Event "' + "E" * 50_000 + '"]\n[White "Bob"]\n1. 11-15 23-19 *\n')
    out = tmp_path / "tag.pdf"
    code, err = sheet(capsys, str(path), "-o", str(out))
    assert code == 1 and err.count("\n") == 1
    assert f"{path}:2: game 1: a tag longer than 10,000 characters" in err
    assert "Ann" in pdf_text(out)
    # A long tag within the bound prints cut to its field, never measured whole.
    path.write_text('[Event "' + "E" * 9_000 + '"]\n1. 11-15 *\n')
    assert sheet(capsys, str(path), "-o", str(out)) == (0, "")
    assert "EEE..." in pdf_text(out)
    # 2 MB of random bytes: hundreds of "games"; more than a PDF of sheets takes is one line.
    monkeypatch.setattr(sheet_files, "MAX_SHEETS", 50)
    noise = tmp_path / "noise.pdn"
    noise.write_bytes(random.Random(7).randbytes(2_000_000))
    code, err = sheet(capsys, str(noise), "-o", str(out))
    assert (code, err) == (
        2,
        f"crownhead sheet: {noise}: more than 50 games to print (a sheet each); give --game N, or split the file\n",
    )
    code, err = sheet(capsys, str(noise), "--game", "3", "-o", str(out))
    assert code in (0, 1) and pdf_text(out)
