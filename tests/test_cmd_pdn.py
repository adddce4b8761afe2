"""``crownhead pdn check``: one line per failing game, then ``N games, N replayed, N failed``."""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["pdn", "check", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_the_shared_data(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(shared_data.glob("*.pdn")) + sorted((shared_data / "problems").glob("*.pdn"))
    code, lines, err = run(capsys, *map(str, files))
    assert code == 0 and err == ""
    assert lines == [
        f"{shared_data / 'tinsley.pdn'}:5588: game 541, ply 123, 32-28: no piece on 32",
        TTS_NOTE.format(shared_data / "tricks-traps-and-shots.pdn"),
        "1974 games, 1973 replayed, 1 failed",
    ]


# Game 66 ends "14-9 0-1[Event ...]": the next game's tags follow its result on the same
# line. Read as two games (nothing lost), and said so, though not as a failure.
TTS_NOTE = (
    "{}:763: note: game 66 ends with its result and a new game's tags follow on the same line; read as games 66 and 67"
)


def test_one_file_quiet_and_verbose(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tts = str(shared_data / "tricks-traps-and-shots.pdn")
    assert run(capsys, tts) == (0, [TTS_NOTE.format(tts), "91 games, 91 replayed, 0 failed"], "")
    assert run(capsys, "-q", tts) == (0, ["91 games, 91 replayed, 0 failed"], "")
    tinsley = str(shared_data / "tinsley.pdn")
    assert run(capsys, "--quiet", tinsley) == (0, ["724 games, 723 replayed, 1 failed"], "")
    code, lines, _ = run(capsys, "-v", tts, tinsley)
    assert code == 0 and len(lines) == 91 + 1 + 1 + 724 + 1 + 1
    assert lines[0] == f"{tts}:1: game 1: 9 plies, 0-1"
    # The note comes right after the line of the game it is about.
    assert lines[65:68] == [
        f"{tts}:754: game 66: 50 plies, 0-1",
        TTS_NOTE.format(tts),
        f"{tts}:763: game 67: 47 plies, 1-0",
    ]
    assert lines[92] == f"{tts}: 91 games, 91 replayed, 0 failed"
    assert f"{tinsley}:5588: game 541, ply 123, 32-28: no piece on 32" in lines
    assert lines[-2:] == [f"{tinsley}: 724 games, 723 replayed, 1 failed", "815 games, 814 replayed, 1 failed"]


MALFORMED = """\
[Event "good"]
1. 11-15 23-18 2. 8-11 27-23 1/2-1/2

[Event "garbage"]
1. 11-15 23-18 @@@ 2. 8-11 *

[Event "bad tag"]
[White Bob]
1. 11-15 *

[Event "illegal"]
1. 11-15 23-18 2. 15-22 *

[Event "ambiguous"]
[FEN "B:W6,7,14,15:B2"]
1. 2x18 *

[Event "bad fen"]
[FEN "B:W1-40:B5"]
1. 5-9 *

[Event "good again"]
1. 9-14 {fine} 22-17 1-0

[Event "truncated"]
1. 11-15 23-18 2. 8-11 {cut off in the mid
"""


def test_a_malformed_file_is_reported_game_by_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text(MALFORMED)
    code, lines, err = run(capsys, str(path))
    assert code == 0 and err == ""
    assert lines == [
        f"{path}:5: game 2, ply 3, @@@: unexpected text '@@@' among the moves",
        f"{path}:8: game 3: bad tag '[White Bob]': a tag is written [Name \"value\"]",
        f"{path}:12: game 4, ply 3, 15-22: the black man on 15 cannot go to 22; it can play 15-19",
        f"{path}:16: game 5, ply 1, 2x18: ambiguous: 2x18 fits 2x9x18, 2x11x18; "
        "the rest of the game replays after each route",
        f"{path}:19: game 6: range '1-40' is not within 1-32 in FEN 'B:W1-40:B5'",
        f"{path}:26: game 8, ply 4, {{: a comment opened with {{ is never closed",
        "8 games, 2 replayed, 6 failed",
    ]


def test_games_sharing_a_line_are_noted_not_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runin.pdn"
    path.write_text(
        '[Event "one"]\n1. 11-15 23-18 1-0[Event "two"]\n1. 9-14 22-17 *\n'
        "1. 10-14 * 1. 12-16 0-1\n"
        '1. 11-16 24-20 [Event "five"]\n1. 11-15 *\n'
    )
    code, lines, err = run(capsys, str(path))
    assert (code, err) == (0, "")
    assert lines == [
        f"{path}:2: note: game 1 ends with its result and a new game's tags follow on the "
        "same line; read as games 1 and 2",
        f"{path}:4: note: game 3 ends with its result and a new game's moves follow, "
        "without tags, on the same line; read as games 3 and 4",
        f"{path}:5: note: game 5 has no result and after its last move a new game's tags "
        "follow on the same line; read as games 5 and 6",
        "6 games, 6 replayed, 0 failed",
    ]
    assert run(capsys, "--quiet", str(path))[1] == ["6 games, 6 replayed, 0 failed"]


def test_crlf_bom_and_windows_1252(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "win.pdn"
    path.write_bytes(b'\xef\xbb\xbf[Event "x"]\r\n1. 11-15 23-18 *\r\n')
    assert run(capsys, str(path)) == (0, ["1 games, 1 replayed, 0 failed"], "")
    path.write_bytes('[White "M\u00fcller"]\r\n1. 11-15 *\r\n'.encode("cp1252"))
    assert run(capsys, str(path)) == (0, ["1 games, 1 replayed, 0 failed"], "")


def test_an_empty_file_has_no_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.pdn"
    path.write_text("")
    assert run(capsys, str(path)) == (0, ["0 games, 0 replayed, 0 failed"], "")


def test_rule_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "optional.pdn"
    path.write_text('[FEN "B:W18:B15,9"]\n1. 9-13 *\n')
    assert run(capsys, str(path))[1][-1] == "1 games, 0 replayed, 1 failed"
    assert run(capsys, "--captures-optional", str(path))[1] == ["1 games, 1 replayed, 0 failed"]


def test_a_missing_file_is_one_line_and_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.pdn"
    good.write_text("1. 11-15 *\n")
    missing = tmp_path / "missing.pdn"
    code, lines, err = run(capsys, str(good), str(missing))
    assert code == 2 and lines == []
    assert err == f"crownhead pdn check: cannot read {missing}: No such file or directory\n"
    code, lines, err = run(capsys, str(tmp_path))
    assert code == 2 and err == f"crownhead pdn check: cannot read {tmp_path}: it is a directory\n"


def test_pdn_needs_an_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["pdn"])
    assert info.value.code == 2
    assert "ACTION" in capsys.readouterr().err
