"""Matches: the pure score (rules.match), the match file (firmware.storage.matches), ``crownhead match``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.storage.matches import MatchStore, match_tags, new_match
from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError
from crownhead.rules import WCDF, Game
from crownhead.rules.match import Match, match_from_games

SEED_RESULTS = ("1-0", "1-0", "1/2-1/2", "0-1")  # as PDN scores: 1-0 is a win for Black


def seed_match(count_draws: bool = False) -> Match:
    match = Match.new("Ana", "Ben", games=4, count_draws=count_draws)
    for result in SEED_RESULTS:
        match = match.with_result(result)
    return match


# -- the score ------------------------------------------------------------------------------


def test_the_seed_example_counts_wins_only() -> None:
    match = seed_match()
    assert [(g.black, g.white) for g in match.played] == [("Ana", "Ben"), ("Ben", "Ana")] * 2
    assert [g.winner for g in match.played] == ["Ana", "Ben", None, "Ana"]
    assert match.score_text() == "Ana 2, Ben 1"
    assert match.over and match.winner == "Ana"
    assert match.verdict() == "Ana takes the match, 2 games to 1"
    a, b = match.standings
    assert (a.wins, a.draws, a.losses, b.wins, b.draws, b.losses) == (2, 1, 1, 1, 1, 2)


def test_counting_draws_gives_points_and_w_d_l() -> None:
    match = seed_match(count_draws=True)
    assert match.score_text() == "Ana 2½, Ben 1½"
    assert match.verdict() == "Ana takes the match, 2½ points to 1½"
    assert [s.wdl for s in match.standings] == ["2-1-1", "1-1-2"]
    assert match.status()["score"] == {"Ana": 2.5, "Ben": 1.5}


def test_draws_can_decide_a_match_only_when_they_count() -> None:
    # Ana 1 win, 2 draws; Ben 1 win, 0 draws, 1 unfinished: level on wins either way.
    match = Match.new("Ana", "Ben", games=3)
    for result in ("1-0", "1-0", "1/2-1/2"):
        match = match.with_result(result)
    assert match.verdict() == "The match is drawn, 1 game each" and match.winner is None
    assert match.counting_draws().verdict() == "The match is drawn, 1½ points each"


def test_progress_and_open_ended_matches() -> None:
    match = Match.new("Ana", "Ben")
    assert match.verdict() == "Ana v Ben: no game played yet"
    match = match.with_result("0-1")
    assert match.verdict() == "Ben leads, 1 game to 0, after game 1" and not match.over
    match = match.with_result("*")  # abandoned: replayed with the same colours, not counted
    assert match.number == 2 and match.colours() == ("Ben", "Ana") and len(match.counted) == 1
    match = match.with_result("0-1")  # Ana, with White, wins game 2
    assert match.verdict() == "Level, 1 game each, after game 2"
    ended = match.finished_now()
    assert ended.over and ended.verdict() == "The match is drawn, 1 game each"


def test_a_finished_match_takes_no_more_games() -> None:
    with pytest.raises(ValueError, match="it is over"):
        seed_match().with_result("1-0")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"black": "Ana", "white": "Ana"}, "different names"),
        ({"black": " ", "white": "Ben"}, "the first player needs a name"),
        ({"black": "Ana", "white": "Ben", "games": 0}, "number of games must be 1 to 1000"),
        ({"black": "A" * 41, "white": "Ben"}, "longer than 40 characters"),
    ],
)
def test_bad_matches(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Match.new(**kwargs)


def test_ballot_pairs() -> None:
    match = Match.new("Ana", "Ben", games=4)
    assert match.needs_ballot() and match.ballot() is None
    match = match.with_ballot(46).with_result("1-0", ballot=46)
    # Game 2 plays game 1's ballot again, colours reversed; game 3 draws a new one.
    assert not match.needs_ballot() and match.ballot() == 46 and match.colours() == ("Ben", "Ana")
    match = match.with_result("0-1", ballot=46)
    assert match.needs_ballot() and match.ballot() is None
    with pytest.raises(ValueError, match="pair 1 already has ballot 46"):
        match.with_ballot(5, 1)


def test_round_trip_and_bad_data() -> None:
    match = seed_match().with_ballot(5, 5)
    assert Match.from_dict(match.as_dict()) == match
    data = match.as_dict()
    for change, message in [
        ({"colour": 1}, "unknown key 'colour'"),
        ({"games": "4"}, "'games' must be"),
        ({"played": [{"number": 1, "black": "Ana", "white": "Cy", "result": "1-0"}]}, "game 1: Ana v Cy are not"),
        ({"played": [{"number": 1, "black": "Ana", "white": "Ben", "result": "2-0"}]}, "'result' must be one of"),
        ({"count_draws": "yes"}, "'count_draws' must be true or false"),
        ({"played": [{}] * 1001}, "at most 1000 games"),
    ]:
        with pytest.raises(ValueError, match=message):
            Match.from_dict({**data, **change}, "match.json")


def test_a_match_from_a_list_of_games() -> None:
    games = [
        ("Ana", "Ben", "1-0", "1"),
        ("Ben", "Ana", "1-0", "2"),
        ("Ana", "Ben", "1/2-1/2", "3"),
        ("Ben", "Ana", "0-1", "4"),
    ]
    assert match_from_games(games).score_text() == "Ana 2, Ben 1"
    # Colours as played, even when they were not swapped.
    odd = match_from_games([("Ana", "Ben", "1-0", "1"), ("Ana", "Ben", "0-1", "2")])
    assert odd.score_text() == "Ana 1, Ben 1" and [g.black for g in odd.played] == ["Ana", "Ana"]


# -- the match file -------------------------------------------------------------------------


def test_the_match_file_survives_and_names_its_problems(tmp_path: Path) -> None:
    store = MatchStore(tmp_path)
    assert store.load() is None
    match = new_match("Ana", "Ben", games=4, now="2026-11-30T20:15:00+00:00").with_result("1-0", id="g1")
    store.save(match)
    assert MatchStore(tmp_path).load() == match
    assert not list(tmp_path.glob(".*.tmp"))  # written by rename: no temporary left
    store.path.write_text('{"format": 1, "first": "Ana", "second": "Ben", "games": -2}')
    with pytest.raises(StoreError, match=r"match\.json: 'games' must be"):
        store.load()
    store.path.write_text("{not json")
    with pytest.raises(StoreError, match=r"match\.json: not valid JSON"):
        store.load()
    aside = store.set_aside()
    assert aside is not None and aside.read_text() == "{not json" and store.load() is None


def test_reconcile_takes_a_game_written_just_before_a_power_cut(tmp_path: Path) -> None:
    games = GameStore(tmp_path)
    match = new_match("Ana", "Ben", games=4, now="2026-11-30T20:15:00+00:00")
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.declare("1-0", "resign")
    record = GameRecord.new(black="Ana", white="Ben", rules=WCDF)
    record = GameRecord(**{**record.__dict__, "extra": match_tags(match)}).with_game(game)
    games.finish(record)
    other = GameRecord.new(black="Ana", white="Ben", rules=WCDF).with_game(game)  # not tagged: not the match's
    games.finish(other)
    caught_up = MatchStore.reconcile(match, games.list_games())
    assert [(g.id, g.result) for g in caught_up.played] == [(record.id, "1-0")]
    assert MatchStore.reconcile(caught_up, games.list_games()) == caught_up


# -- crownhead match ---------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], state: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["match", *argv, "--state-dir", str(state)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The machine's own /etc/crownhead/config.toml must not decide these tests.
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("CROWNHEAD_CONFIG", str(empty))


def test_match_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    code, out, _ = cli(capsys, state)
    assert code == 0 and "No match under way" in out
    code, out, _ = cli(capsys, state, "new", "Ana", "Ben", "--games", "4")
    assert (
        code == 0 and out == "Match Ana v Ben (4 games, wins counted): the next game is game 1, Ana Black, Ben White.\n"
    )
    code, _, err = cli(capsys, state, "new", "Cy", "Di")
    assert code == 2 and "the match Ana v Ben is under way" in err and err.count("\n") == 1
    store = MatchStore(state)
    store.save(store.load().with_result("1-0", id="g1"))
    code, out, _ = cli(capsys, state, "status")
    assert code == 0
    assert "  game 1: Ana (Black) v Ben (White)  1-0      Ana" in out
    assert "Score: Ana 1, Ben 0. Ana leads, 1 game to 0, after game 1 of 4." in out
    assert "Next: game 2, Ben Black, Ana White." in out
    code, out, _ = cli(capsys, state, "status", "--json")
    status = json.loads(out)
    assert status["score"] == {"Ana": 1, "Ben": 0} and status["next"]["black"] == "Ben"
    code, out, _ = cli(capsys, state, "end")
    assert code == 0 and out.startswith("Match Ana v Ben ended: Ana takes the match, 1 game to 0. Kept as ")
    assert store.load() is None and [m.title for m in store.archived()] == ["Ana v Ben"]
    code, _, err = cli(capsys, state, "end")
    assert code == 2 and "no match under way" in err
    code, out, _ = cli(capsys, state, "new", "Cy", "Di", "--count-draws")
    assert code == 0 and "open-ended, wins, draws and losses counted" in out


def test_match_new_refuses_bad_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, tmp_path, "new", "Ana", "Ana")
    assert code == 2 and err == "crownhead match new: the two players need different names (both are 'Ana')\n"
    code, _, err = cli(capsys, tmp_path, "new", "Ana", "Ben", "--games", "0")
    assert code == 2 and "number of games must be 1 to 1000" in err


def test_the_match_section_gives_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[match]\ngames = 6\ncount_draws = true\n")
    monkeypatch.setenv("CROWNHEAD_CONFIG", str(config))
    code, out, _ = cli(capsys, tmp_path / "state", "new", "Ana", "Ben")
    assert code == 0 and "(6 games, wins, draws and losses counted)" in out
    config.write_text("[match]\ngames = 2000\n")
    code, _, err = cli(capsys, tmp_path / "state", "new", "Ana", "Ben")
    assert code == 2 and "match.games: must be 1-1000, or 0 for an open-ended match" in err
