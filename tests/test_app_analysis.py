"""The engine's live analysis (firmware.app.analysis): its words, the endgame tables'
verdict, a search cancelled by the next position, and the board's snapshot carrying it
only when asked for and never under a referee."""

from __future__ import annotations

import threading
from collections.abc import Callable

from crownhead.firmware.app.analysis import Analyst
from crownhead.firmware.app.commands import NO_ANALYSIS, NO_ANALYSIS_FAR
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.display.panel import short_message
from crownhead.firmware.egdb import load_probe
from crownhead.firmware.remote.board import remote_settings
from crownhead.firmware.remote.invite import Agreement, Invitation
from crownhead.firmware.simulator.hands import Hands
from helpers.rig import Rig
from helpers.web import WAIT_S
from crownhead.rules import WCDF, Game, Position

SMALL = 5_000


def _game(fen: str, *moves: str) -> Game:
    game = Game(Position.from_fen(fen), WCDF)
    for move in moves:
        game.play_text(move)
    return game


def test_the_tables_verdict_comes_in_words() -> None:
    analyst = Analyst(background=False, nodes=SMALL, tables=load_probe)
    # Two kings against one: won, the distance known (tables of up to four pieces).
    analyst.follow(_game("B:WK32:BK1,K5"))
    found = analyst.latest()
    assert found is not None and found.tables == "win" and found.tables_plies is not None
    assert found.words == f"Black wins in {found.tables_plies} plies: the tables say so"
    assert found.black_expects == 1.0 and found.done
    analyst.follow(_game("W:WK32:BK1"))
    found = analyst.latest()
    assert found is not None and found.words == "A draw: the tables say so" and found.black_expects == 0.5
    assert found.brief == "A draw"


def test_the_words_name_the_side_ahead(engine_both_ways: str) -> None:
    # Black is a man short from the start (11 gone): White is ahead, whoever is to move.
    analyst = Analyst(background=False, nodes=SMALL)
    analyst.follow(_game("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12"))
    found = analyst.latest()
    assert found is not None and found.tables is None and found.depth >= 1
    assert found.words.startswith("White is "), found.words
    assert found.black_expects < 0.35
    assert found.to_json()["black_score"] < -50 and found.line[0] in {
        m.pdn()
        for m in Position.from_fen("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12").legal_moves(WCDF)
    }


def test_an_even_position_is_said_even_not_level() -> None:
    # Issue 54, item 9: "Level" above the bar read as a difficulty heading (the problems
    # have levels); an even position is "Even".
    from crownhead.rules import BLACK, WHITE
    from crownhead.rules.engine.search import score_meaning

    assert score_meaning(4, WHITE) == "Even" and score_meaning(-9, BLACK) == "Even"
    assert score_meaning(3) == "even"


def _wait(condition: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(WAIT_S * 20)):  # a bound on a failure only
        if condition():
            return
        done.wait(0.05)
    raise AssertionError("the analysis never got there")


def test_the_next_position_cancels_the_search() -> None:
    woken = threading.Event()
    budget = 50_000_000  # a minute or so of the native core: never reached below
    analyst = Analyst(nodes=budget, wake=woken.set)
    try:
        first = Game(None, WCDF)
        analyst.follow(first)
        _wait(lambda: (found := analyst.latest()) is not None and found.depth >= 3)
        assert woken.is_set()
        # The next move: the search of the start is given up, the new position searched.
        analyst.nodes = SMALL
        after = _game(Position.start().fen(), "11-15")
        analyst.follow(after)
        _wait(lambda: (found := analyst.latest()) is not None and found.done)
        found = analyst.latest()
        assert found is not None and found.ply == 1 and found.position == after.position
        assert analyst.searched < budget // 10  # the start's search stopped early
        workers = [t for t in threading.enumerate() if t.name == "crownhead-analysis"]
        assert len(workers) == 1  # one worker for the board's life
    finally:
        analyst.close()


def _rig(**settings: object) -> Rig:
    return Rig(None, settings=AppSettings(analysis_nodes=SMALL, **settings))  # type: ignore[arg-type]


def test_the_snapshot_carries_the_analysis_only_when_asked_for() -> None:
    rig = _rig()
    app = rig.app
    try:
        app.run_for(100)
        assert app.snapshot.analysis is None and app.analyst.latest() is None and app.analyst.searched == 0
        assert app.set_analysis(True) is None
        app.run_for(100)
        found = app.snapshot.analysis
        assert found is not None and found.ply == 0 and found.depth >= 1
        assert short_message(app.snapshot) == found.brief  # the display, with nothing else to say
        Hands(app).act_text("11-15")
        app.run_for(1000)
        found = app.snapshot.analysis
        assert found is not None and found.ply == 1 and found.position == app.game.position
        assert short_message(app.snapshot) == found.brief and found.brief.startswith(("+", "-"))
        app.set_analysis(False)
        app.run_for(100)
        assert app.snapshot.analysis is None
    finally:
        rig.close()


def test_a_referee_game_gets_no_analysis() -> None:
    rig = _rig(mode="referee", analysis=True)
    app = rig.app
    try:
        app.run_for(100)
        assert app.analysis_wanted and not app.analysing
        assert app.snapshot.analysis is None and app.analyst.searched == 0
        assert app.set_analysis(True) == NO_ANALYSIS
    finally:
        rig.close()


def test_a_game_far_apart_gets_no_analysis_on_either_board() -> None:
    # The settings `crownhead run --remote` plays with, on each board of the game: the
    # live analysis asked for is refused on both, and says why.
    invitation = Invitation("abc234", "alice", "black")
    for me, peer in (("alice", "bob"), ("bob", "alice")):
        agreement = Agreement(invitation, me, peer, "mqtts://broker.example")
        rig = Rig(None, settings=remote_settings(agreement, AppSettings(analysis=True, analysis_nodes=SMALL)))
        app = rig.app
        try:
            app.run_for(100)
            assert app.analysis_wanted and not app.analysing
            assert app.snapshot.analysis is None and app.analyst.searched == 0
            assert app.analysis_refused == NO_ANALYSIS_FAR
            assert app.set_analysis(True) == NO_ANALYSIS_FAR
            Hands(app).act_text("11-15")
            app.run_for(500)
            assert app.snapshot.analysis is None and app.analyst.searched == 0
        finally:
            rig.close()
