"""The ACF 3-move ballot list: the module against the shared TSV, and every ballot legal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from crownhead.rules import WCDF, Color, Position, Rules
from crownhead.rules.ballots import BALLOTS, BARRED, CROSSBOARD, MAIL, Ballot, ballot, deck, positions


def _read_tsv(path: Path) -> list[tuple[int, tuple[str, ...], str, str]]:
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("number\t"):
            continue
        fields = line.split("\t")
        assert len(fields) == 4, f"{path.name} line {line_no}: expected 4 fields, got {fields}"
        number, moves, status, name = fields
        rows.append((int(number), tuple(moves.split()), status, name))
    return rows


def test_module_equals_the_shared_tsv(shared_data: Path) -> None:
    rows = _read_tsv(shared_data / "acf-3move-ballots.tsv")
    assert len(rows) == 174
    assert [(b.number, b.moves, b.status, b.name) for b in BALLOTS] == rows


def test_deck_and_statuses() -> None:
    assert [b.number for b in BALLOTS] == list(range(1, 175))
    counts = Counter(b.status for b in BALLOTS)
    assert counts == {CROSSBOARD: 144, MAIL: 12, BARRED: 18}
    assert len(deck()) == 156
    assert all(b.in_deck for b in deck())
    assert BARRED not in {b.status for b in deck()}


def test_every_ballot_is_legal_from_the_start() -> None:
    for b in BALLOTS:
        position = Position.start()
        for ply, text in enumerate(b.moves):
            move = position.parse_move(text, WCDF)  # raises if illegal or ambiguous
            assert str(move) == text, (b.number, ply, text)
            position = position.play(move, WCDF)
        assert position == b.position(WCDF), b.number
        assert position.turn == Color.WHITE


def test_positions_are_distinct_and_white_to_move() -> None:
    by_number = positions(WCDF)
    assert sorted(by_number) == list(range(1, 175))
    assert len(set(by_number.values())) == 174
    assert {p.turn for p in by_number.values()} == {Color.WHITE}


def test_lookup_by_number() -> None:
    assert ballot(1) == Ballot(1, ("9-13", "21-17", "5-9"), CROSSBOARD)
    assert ballot(5).name == "Dreaded Edinburgh"
    assert str(ballot(6)) == "ACF #6: 9-13 22-18 10-14 (Inferno)"
    assert ballot(35).status == BARRED
    for bad in (0, 175, -1, "5", None):
        with pytest.raises(ValueError, match="no ACF ballot number"):
            ballot(bad)  # type: ignore[arg-type]


def test_ballot_with_a_capture() -> None:
    # ACF #4, 9-13 22-17 13x22: the third move is a capture.
    moves = ballot(4).play_moves(WCDF)
    assert moves[2].captures == (17,)
    assert ballot(4).position(WCDF).count(Color.WHITE) == 11


def test_ballots_stay_legal_under_the_house_rules() -> None:
    for rules in (Rules(men_capture_backward=True), Rules(captures_compulsory=False)):
        for b in BALLOTS:
            assert len(b.play_moves(rules)) == 3
