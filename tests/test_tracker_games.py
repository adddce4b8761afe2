"""Real games made by messy hands: every Tinsley game read back exactly, with no warning.

The scripts come from :mod:`helpers.scriptgen` (captured pieces off before, between or
after the landings, touch-downs, slides, bounces under the debounce time, pauses of
100-2000 ms, a few replies started under 150 ms after the move before). Each runs on the
simulated board through the real debouncer, controller and tracker, at the default
settings. A subset runs in the regular suite; every game with three seeds is ``slow``.
"""

from __future__ import annotations

from crownhead.rules import WCDF

import pytest

from crownhead.firmware.simulator.script import replay
from crownhead.firmware.events import BoardWarning, Crowned, Final, GameOver, MoveMade
from crownhead.firmware.simulator.hands import HumanStyle

from helpers.scriptgen import TINSLEY, ScriptedGame, crowning_flags, game_script, sample, tinsley_games

pytestmark = pytest.mark.skipif(
    not TINSLEY.is_file(), reason="reference data not found beside the checkout (../shared/data/tinsley.pdn)"
)


def check_game(game: ScriptedGame, seed: int, style: HumanStyle = HumanStyle()) -> None:
    actions = game_script(game, seed, style)
    events = replay(actions, game.start, rules=WCDF)
    where = f"game {game.number}, seed {seed}"
    warnings = [e.to_json() for e in events if isinstance(e, BoardWarning)]
    assert warnings == [], f"{where}: clean play raised {warnings[:3]}"
    others = [e.kind for e in events if not isinstance(e, (MoveMade, Final, Crowned, GameOver))]
    assert others == [], f"{where}: unexpected events {others}"
    crowned = [e.square for e in events if isinstance(e, Crowned)]
    assert crowned == [m.end for m, crowns in crowning_flags(game.start, game.moves) if crowns], where
    made = [(e.ply, tuple(e.path), tuple(e.captures)) for e in events if isinstance(e, MoveMade)]
    expected = [(i + 1, m.path, m.captures) for i, m in enumerate(game.moves)]
    for got, want in zip(made, expected):
        assert got == want, f"{where}: ply {want[0]} read as {got}, played {want}"
    assert len(made) == len(expected), f"{where}: {len(made)} moves read, {len(expected)} played"
    final = events[-1]
    assert isinstance(final, Final)
    assert (final.fen, final.plies) == (game.final.fen(), len(game.moves)), where


def test_the_file_has_723_replayable_games():
    games = tinsley_games()
    assert len(games) == 723
    assert 541 not in {g.number for g in games}  # the game with a transcription error


@pytest.mark.parametrize("seed", [1, 2])
def test_sample_of_games_read_back_exactly(seed):
    for game in sample(40, seed):
        check_game(game, seed)


def test_hurried_players_with_many_fast_replies():
    # Every third reply under 150 ms, short pauses, lots of bounces and slides.
    hurried = HumanStyle(short_pause_ms=(100, 300), long_pause_chance=0.05, bounce_chance=0.4, slide_chance=0.5)
    for game in sample(15, 7):
        actions = game_script(game, 7, hurried)
        events = replay(actions, game.start, rules=WCDF)
        assert not [e for e in events if isinstance(e, BoardWarning)], game.number
        assert [tuple(e.path) for e in events if isinstance(e, MoveMade)] == [m.path for m in game.moves]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_game_read_back_exactly(seed):
    for game in tinsley_games():
        check_game(game, seed)
