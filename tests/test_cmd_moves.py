"""``crownhead moves``: the legal moves in PDN, one per line."""

from __future__ import annotations

import pytest

from crownhead.firmware.cli import main
from crownhead.rules import WCDF, Position


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["moves", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_start_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys)
    assert code == 0 and err == ""
    assert lines == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]


def test_captures_are_short_unless_two_routes_share_their_ends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The man on 2 takes 6 and 14 or 7 and 15, both landing on 18. The king on 25 jumps
    # 22 to 18, then 14 or 15: two routes with different ends, written short.
    code, lines, _ = run(capsys, "--fen", "B:W6,7,14,15,30,22:B2,K25")
    assert code == 0
    assert lines == ["2x9x18", "2x11x18", "25x9", "25x11"]
    code, lines, _ = run(capsys, "--fen", "B:W6,14:B1")
    assert lines == ["1x17"]
    code, lines, _ = run(capsys, "--fen", "B:W6,14:B1", "--full")
    assert lines == ["1x10x17"]


def test_every_line_reads_back_as_exactly_one_legal_move(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "B:W6,7,14,15,30,22:B2,K25"
    _, lines, _ = run(capsys, "--fen", fen)
    pos = Position.from_fen(fen)
    assert sorted(pos.parse_move(t, WCDF).path for t in lines) == sorted(m.path for m in pos.legal_moves(WCDF))


def test_rule_options(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "B:W18:B15,9"
    assert run(capsys, "--fen", fen)[1] == ["15x22"]
    assert run(capsys, "--fen", fen, "--captures-optional")[1] == ["9-13", "9-14", "15-19", "15x22"]
    # a man on 18 with a white man behind it on 14 and 10 empty
    assert run(capsys, "--fen", "B:W14,27:B18")[1] == ["18-22", "18-23"]
    assert run(capsys, "--fen", "B:W14,27:B18", "--men-capture-backward")[1] == ["18x9"]


def test_no_legal_move_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "--fen", "W:W32:B23,27,28")
    assert (code, lines, err) == (0, [], "")


def test_a_bad_fen_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "--fen", "B:W1,1")
    assert code == 2 and lines == []
    assert err.count("\n") == 1 and "two pieces on square 1" in err and "Traceback" not in err
    assert err.startswith("crownhead moves: --fen: ")
