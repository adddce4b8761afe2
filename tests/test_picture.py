"""One LED picture: ``crownhead replay --lights`` shows what the board lights.

The picture is :func:`crownhead.firmware.tracking.picture.picture`, for the board's application
and for the controller's ``lights`` events alike; here both play the same hands.
"""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.simulator.hands import Hands, game_action_chunks
from crownhead.firmware.simulator.script import replay
from crownhead.firmware.tracking.picture import picture
from crownhead.firmware.tracking.tracker import Tracker
from helpers.games import random_game
from helpers.rig import Rig
from helpers.scriptgen import crowning_flags
from crownhead.rules import WCDF, Game, Position


def replayed_lights(actions: list, start: Position) -> dict[int, str]:
    """The picture ``crownhead replay --lights`` shows after ``actions``."""
    shown = [e for e in replay(actions, start, lights=True, rules=WCDF) if e.kind == "lights"]
    return shown[-1].as_dict() if shown else {}


def test_replay_lights_the_pieces_that_must_capture() -> None:
    start = Position.from_fen("B:W18,32:B14,1")
    assert picture(Tracker(Game(start, WCDF)))[14] == "must-capture"
    assert replayed_lights([], start)[14] == "must-capture"
    rig = Rig(None, board=start, settings=AppSettings(start=start))
    assert rig.app.lit_roles[14] == "must-capture" == replayed_lights([], start)[14]
    rig.close()


@settings(max_examples=12)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 16))
def test_replay_lights_what_the_board_lights(seed: int, plies: int) -> None:
    """After every move of a random game made by human hands, the picture replay prints
    is the board's."""
    game = random_game(seed, plies)
    chunks = game_action_chunks(crowning_flags(game.start, tuple(game.moves)), random.Random(seed))
    rig = Rig(None)
    done: list = []
    try:
        for chunk in chunks:
            done += chunk
            Hands(rig.app).run_script(chunk)
            assert replayed_lights(done, game.start) == rig.app.lit_roles, f"after {len(done)} actions"
    finally:
        rig.close()
