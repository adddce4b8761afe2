"""The rule options are listed once, as the fields of ``crownhead.rules.settings.Rules``: the saved
game's keys, their JSON types and ``Rules.with_options`` are derived from them."""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from pathlib import Path

import pytest

from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError
from crownhead.rules import WCDF, Game, Rules
from crownhead.rules.settings import HOUSE_RULES, OPTION_TYPES, Crowning, HouseRule, with_house_rules
from crownhead.rules.variants import POOL, RUSSIAN

REPO = Path(__file__).resolve().parents[1]
HOME = "rules/settings.py"
NAMES = [f.name for f in fields(Rules) if f.init]


def _named(tree: ast.AST) -> set[str]:
    """The rule option names a module spells out: as strings, keyword arguments, class
    attributes (a dataclass's or a TypedDict's fields) and dictionary keys."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in NAMES:
            found.add(str(node.value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in NAMES:
            found.add(node.target.id)
        elif isinstance(node, ast.keyword) and node.arg in NAMES:
            found.add(node.arg)
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for pkg in ("squares", "rules", "hal", "sim", "firmware") for p in (REPO / pkg).rglob("*.py")),
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_no_module_lists_the_rule_options_again(path: Path) -> None:
    relative = str(path.relative_to(REPO))
    if relative == HOME:
        return
    named = _named(ast.parse(path.read_text(encoding="utf-8")))
    # A module may name the options it sets (the command line's flags); every one of
    # them named is a list of the options, which goes stale when Rules gains one.
    assert named != set(NAMES), f"{relative} lists every rule option: derive them from rules.settings.OPTION_TYPES"


def test_the_check_finds_a_listing() -> None:
    listing = "class Options:\n" + "".join(f"    {name}: bool\n" for name in NAMES)
    assert _named(ast.parse(listing)) == set(NAMES)
    assert _named(ast.parse((REPO / HOME).read_text(encoding="utf-8"))) == set(NAMES)


def test_the_options_are_the_fields_of_rules_with_their_json_types() -> None:
    assert list(OPTION_TYPES) == NAMES == WCDF.option_names()
    assert OPTION_TYPES["crowning"] is str and OPTION_TYPES["huffing"] is bool and OPTION_TYPES["variant"] is str


@pytest.mark.parametrize("rules", [WCDF, RUSSIAN, POOL.with_options(huffing=True, captures_compulsory=False)])
def test_every_option_is_kept_by_a_saved_game_and_read_back(tmp_path: Path, rules: Rules) -> None:
    assert Rules.from_options(rules.options()) == rules
    store = GameStore(tmp_path)
    game = Game(None, rules)
    game.play(game.legal_moves()[0])
    store.save_current(GameRecord.new(rules=rules).with_game(game))
    data = json.loads(store.current_path.read_text())
    assert {k: data[k] for k in NAMES} == rules.options()
    assert "rules" not in data  # the format keeps each option as a key of its own
    loaded = store.load_current()
    assert loaded is not None and loaded.rules == rules


def test_a_saved_game_without_some_options_takes_their_defaults(tmp_path: Path) -> None:
    record = GameRecord.new(now="2026-05-04T20:00:00+00:00", rules=WCDF)
    data = json.loads(record.to_json())
    for name in ("kings_capture_first", "giveaway", "variant"):
        del data[name]  # a record written before these options existed
    assert GameRecord.from_json(json.dumps(data)).rules == WCDF


def test_a_bad_option_is_one_error_naming_it() -> None:
    data = json.loads(GameRecord.new(now="2026-05-04T20:00:00+00:00", rules=WCDF).to_json())
    with pytest.raises(StoreError, match="'flying_kings' must be a boolean"):
        GameRecord.from_json(json.dumps({**data, "flying_kings": 1}))
    with pytest.raises(ValueError, match="'hufing' is not a rule option"):
        WCDF.with_options(hufing=True)
    assert WCDF.with_options(crowning=Crowning.CONTINUES_AS_KING).keep_jumping_after_crowning


HOUSE_NAMES = {rule.name for rule in HOUSE_RULES}


def _house_rules_named(tree: ast.AST) -> set[str]:
    """The house rules a module spells out (``"captures-optional"``, ``"--huffing"``)."""
    return {
        str(node.value).removeprefix("--")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.removeprefix("--") in HOUSE_NAMES
    }


def test_the_house_rules_are_listed_once() -> None:
    """The command line's house-rule flags, the link's ``rules`` options and what each
    sets come from ``crownhead.rules.settings.HOUSE_RULES`` (they were listed in three modules)."""
    listing = {
        str(path.relative_to(REPO)): named
        for pkg in ("rules", "firmware")
        for path in sorted((REPO / pkg).rglob("*.py"))
        if str(path.relative_to(REPO)) != HOME
        and len(named := _house_rules_named(ast.parse(path.read_text(encoding="utf-8")))) > 1
    }
    assert listing == {}
    assert _house_rules_named(ast.parse('p.add_argument("--huffing"); x = "captures-optional"')) == {
        "huffing",
        "captures-optional",
    }


def test_every_house_rule_is_a_flag_a_link_option_and_a_box_on_the_page() -> None:
    import argparse
    import re

    from crownhead.firmware.cli._common import add_rules_arguments, rules_from_args
    from crownhead.firmware.link.protocol import RULE_OPTIONS

    parser = argparse.ArgumentParser()
    add_rules_arguments(parser)
    for rule in HOUSE_RULES:
        rules = rules_from_args(parser.parse_args([f"--{rule.name}"]))
        assert getattr(rules, rule.option) == rule.value != getattr(WCDF, rule.option)
    assert RULE_OPTIONS == tuple(rule.name for rule in HOUSE_RULES)
    page = (REPO / "firmware" / "web" / "static" / "index.html").read_text(encoding="utf-8")
    assert set(re.findall(r'data-rule="([a-z-]+)"', page)) == HOUSE_NAMES


def test_a_house_rule_names_the_option_it_sets() -> None:
    with pytest.raises(ValueError, match="'crowning' is not a bool option"):
        HouseRule("x", "crowning", True, "")
    assert with_house_rules(RUSSIAN, []) is RUSSIAN
