"""Named variants, their PDN GameTypes, the rule settings, perft against the published
tables, the command-line options, and the English fast path staying in use."""

from __future__ import annotations

import argparse

import pytest

from crownhead.firmware import cli
from crownhead.firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from crownhead.rules import Position, Rules, movegen, variants
from crownhead.rules.perft import divide, perft
from crownhead.rules.position import Color
from crownhead.rules.settings import WCDF, Crowning
from crownhead.rules.variants import (
    ENGLISH,
    GIVEAWAY,
    POOL,
    RUSSIAN,
    describe,
    gametype_of,
    gametype_tag,
    numeric_fen,
    rules_for,
    variant_for_gametype,
    variant_tag,
)

# Published perft of the start position, duplicate capture routes removed (depths 1-8).
RUSSIAN_PERFT = [7, 49, 302, 1469, 7482, 37986, 190146, 929899]
POOL_PERFT = [7, 49, 302, 1469, 7482, 37986, 190146, 929896]


# -- settings ---------------------------------------------------------------------------


def test_wcdf_defaults_are_unchanged() -> None:
    assert WCDF == Rules() == ENGLISH
    assert (WCDF.men_capture_backward, WCDF.captures_compulsory) == (False, True)
    assert not WCDF.flying_kings and WCDF.crowning is Crowning.ENDS_MOVE
    assert not (WCDF.kings_capture_first or WCDF.huffing or WCDF.giveaway)
    assert WCDF.first_mover == "black" and WCDF.variant == "english"
    assert WCDF.must_capture and WCDF.fast_path and WCDF.is_standard
    assert WCDF.crowning_ends_capture and not WCDF.keep_jumping_after_crowning
    assert WCDF.describe() == "WCDF"


def test_derived_fields_follow_changes() -> None:
    assert not Rules(huffing=True).must_capture
    assert not Rules(captures_compulsory=False).must_capture
    assert Rules(huffing=True).fast_path and Rules(giveaway=True).fast_path
    for rules in (
        Rules(flying_kings=True),
        Rules(kings_capture_first=True),
        Rules(crowning=Crowning.CONTINUES_AS_KING),
        RUSSIAN,
        POOL,
    ):
        assert not rules.fast_path
    changed = RUSSIAN.with_options(huffing=True)
    assert not changed.must_capture and changed.flying_kings
    assert Rules(crowning="continues-as-man").crowning is Crowning.CONTINUES_AS_MAN
    # Equal rules are equal and hash alike, whatever the derived fields.
    assert {Rules(huffing=True), Rules(huffing=True)} == {Rules(huffing=True)}
    assert Rules().option_names()[:2] == ["men_capture_backward", "captures_compulsory"]


def test_bad_settings_name_the_problem() -> None:
    with pytest.raises(ValueError, match="first_mover 'red'"):
        Rules(first_mover="red")
    with pytest.raises(ValueError, match="crowning 'sometimes'"):
        Rules(crowning="sometimes")
    with pytest.raises(ValueError, match="unknown variant 'chess'"):
        rules_for("chess")


# -- named variants and PDN -------------------------------------------------------------


def test_named_variants() -> None:
    assert variants.names() == ["english", "giveaway", "russian", "pool"]
    assert rules_for(" Russian ") is RUSSIAN
    assert RUSSIAN.men_capture_backward and RUSSIAN.flying_kings
    assert RUSSIAN.crowning is Crowning.CONTINUES_AS_KING and RUSSIAN.first_mover == "white"
    assert POOL.men_capture_backward and POOL.flying_kings
    assert POOL.crowning is Crowning.CONTINUES_AS_MAN and POOL.first_mover == "black"
    assert GIVEAWAY.giveaway and GIVEAWAY.fast_path
    assert describe(RUSSIAN) == "russian"
    assert describe(POOL.with_options(huffing=True)) == "pool with huffing=True"


def test_pdn_gametypes() -> None:
    assert [gametype_of(r) for r in (ENGLISH, GIVEAWAY, POOL, RUSSIAN)] == [21, 21, 23, 25]
    assert gametype_tag(RUSSIAN) == "25,W,8,8,A0,0"
    assert gametype_tag(POOL) == "23,B,8,8,N1,0"
    assert gametype_tag(ENGLISH) == "21,B,8,8,N1,0"
    assert gametype_of(Rules(huffing=True)) == 21
    assert variant_for_gametype(21) == ENGLISH
    assert variant_for_gametype("25") == RUSSIAN
    assert variant_for_gametype('"23,B,8,8,N1,0"') == POOL
    assert variant_for_gametype(21, variant="Giveaway") == GIVEAWAY
    assert variant_tag(GIVEAWAY) == "giveaway" and variant_tag(RUSSIAN) is None
    with pytest.raises(ValueError, match="GameType 20 is not a game this board plays"):
        variant_for_gametype("20,W,10,10,N2,0")
    with pytest.raises(ValueError, match="does not start with a game number"):
        variant_for_gametype("russian")
    with pytest.raises(ValueError, match="does not go with GameType 25"):
        variant_for_gametype(25, variant="giveaway")


def test_algebraic_fens() -> None:
    assert numeric_fen("W:Wa1,c3,Kh8:Bb8,d6.") == "W:W29,22,K4:B1,10."
    assert Position.from_fen(numeric_fen("W:WKa1:Bd4")) == Position.from_fen("W:WK29:B18")
    with pytest.raises(ValueError, match="light square"):
        numeric_fen("W:Wa2:B1")


# -- perft ------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 8))
def test_russian_perft(depth: int) -> None:
    start = Position.start(RUSSIAN)
    assert start.turn is Color.WHITE
    assert perft(start, depth, RUSSIAN, unique=True) == RUSSIAN_PERFT[depth - 1]


@pytest.mark.parametrize("depth", range(1, 8))
def test_pool_perft(depth: int) -> None:
    assert perft(Position.start(POOL), depth, POOL, unique=True) == POOL_PERFT[depth - 1]


@pytest.mark.slow
def test_perft_depth_8() -> None:
    assert perft(Position.start(RUSSIAN), 8, RUSSIAN, unique=True) == RUSSIAN_PERFT[7]
    assert perft(Position.start(POOL), 8, POOL, unique=True) == POOL_PERFT[7]


def test_perft_through_positions_agrees_with_the_bitboard_perft() -> None:
    # divide() walks Position.legal_moves/apply; perft() the bitboard children.
    for rules in (RUSSIAN, POOL):
        start = Position.start(rules)
        assert sum(n for _, n in divide(start, 5, rules, unique=True)) == 7482
        assert sum(n for _, n in divide(start, 5, rules)) == perft(start, 5, rules)


def test_unique_merges_routes_with_the_same_captures() -> None:
    # The flying king on a1 jumping c3 then f6: it may land on d4 or e5 between the
    # jumps, and on g7 or h8 at the end. Four routes, two moves once merged.
    pos = Position.from_fen("W:WK29:B22,11")
    assert len(pos.legal_moves(RUSSIAN)) == 4
    assert perft(pos, 1, RUSSIAN) == 4 and perft(pos, 1, RUSSIAN, unique=True) == 2


def test_english_fast_path_is_used_for_english_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """WCDF (and giveaway, huffing) never reach the general generator; the dispatch is
    checked, not timed."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the general generator was called for English rules")

    for name in (
        "legal_routes",
        "capture_routes",
        "capture_available",
        "has_legal_move",
        "crowns",
        "perft",
        "children",
        "quiet_moves",
    ):
        monkeypatch.setattr(variants, name, refuse)
    calls = []
    real_perft = movegen.perft

    def counting_perft(*args: object, **kwargs: object) -> int:
        calls.append(args)
        return real_perft(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(movegen, "perft", counting_perft)
    start = Position.start()
    optional = Rules(captures_compulsory=False)
    for rules in (WCDF, GIVEAWAY, Rules(huffing=True), Rules(men_capture_backward=True)):
        if rules in (WCDF, GIVEAWAY):
            assert perft(start, 5, rules) == 7361
            assert perft(start, 4, rules, unique=True) == 1469
        elif rules.huffing:  # a skipped jump is legal: the tree of optional captures
            assert perft(start, 5, rules) == perft(start, 5, optional)
            assert perft(start, 4, rules, True) == perft(start, 4, optional, True)
        else:
            assert perft(start, 5, rules) > perft(start, 4, rules, unique=True) > 0
        pos = start.apply(start.legal_moves(rules)[0], rules)
        assert pos.has_legal_move(rules) and not pos.capture_available(rules)
        assert pos.captures(rules) == [] and not start.crowns(start.legal_moves(rules)[0], rules)
    assert len(calls) == 10
    # `crownhead perft --depth 7` goes the same way.
    monkeypatch.setattr(movegen, "perft", lambda *args, **kwargs: 179740)
    assert cli.main(["perft", "--depth", "7"]) == 0


def test_flying_king_rules_use_the_general_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the English generator was called for Russian rules")

    for name in ("perft", "capture_routes", "quiet_moves", "jumpers", "count_quiet"):
        monkeypatch.setattr(movegen, name, refuse)
    start = Position.start(RUSSIAN)
    assert perft(start, 4, RUSSIAN) == 1469
    assert len(start.legal_moves(RUSSIAN)) == 7 and start.has_legal_move(RUSSIAN)
    assert not start.capture_available(RUSSIAN) and start.captures(RUSSIAN) == []


# -- command line -----------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fen")
    add_rules_arguments(parser)
    return parser.parse_args(list(argv))


def test_rules_from_args() -> None:
    assert rules_from_args(parse()) == WCDF
    assert rules_from_args(parse("--variant", "RUSSIAN")) == RUSSIAN
    assert rules_from_args(parse("--variant", "pool", "--huffing")) == POOL.with_options(huffing=True)
    house = rules_from_args(
        parse(
            "--keep-jumping-after-crowning",
            "--kings-capture-first",
            "--captures-optional",
            "--men-capture-backward",
        )
    )
    assert house == Rules(
        crowning=Crowning.CONTINUES_AS_KING,
        kings_capture_first=True,
        captures_compulsory=False,
        men_capture_backward=True,
    )
    assert rules_from_args(parse("--variant", "giveaway")) == GIVEAWAY
    # The start position has the variant's first mover to move.
    assert position_from_args(parse("--variant", "russian")).turn is Color.WHITE
    assert position_from_args(parse("--fen", "W:WKa1:Bd4")) == Position.from_fen("W:WK29:B18")


def test_unknown_variant_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parse("--variant", "checkers-960")
    assert exc.value.code == 2
    assert "invalid choice: 'checkers-960'" in capsys.readouterr().err


def test_cli_perft_and_moves(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["perft", "--variant", "russian", "--depth", "5", "--unique"]) == 0
    assert capsys.readouterr().out.split() == ["7482"]
    assert cli.main(["perft", "--variant", "pool", "--depth", "4", "--unique"]) == 0
    assert capsys.readouterr().out.split() == ["1469"]
    assert cli.main(["moves", "--variant", "russian", "--fen", "W:WK29:B18"]) == 0
    assert set(capsys.readouterr().out.split()) == {"29x15", "29x11", "29x8", "29x4"}
    assert cli.main(["moves", "--variant", "russian"]) == 0
    assert set(capsys.readouterr().out.split()) == {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}
    assert cli.main(["moves", "--fen", "B:W14,30:B9,11", "--huffing"]) == 0
    assert set(capsys.readouterr().out.split()) == {"9x18", "9-13", "11-15", "11-16"}


def test_cli_bad_algebraic_fen(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["moves", "--variant", "russian", "--fen", "W:Wa2:B1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a2" in err and "light square" in err


def test_help_lists_the_variants(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["perft", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in ("english", "giveaway", "russian", "pool"):
        assert f"{name}:" in out
    for flag in ("--keep-jumping-after-crowning", "--kings-capture-first", "--huffing"):
        assert flag in out
