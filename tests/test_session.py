"""One owner of the game: what users met where the same game was kept twice (issue 38).

Each test is a situation a person met on the simulated board, through the whole
application (:class:`helpers.rig.Rig`): the screens drew pieces from the simulator's
tokens instead of the game, a new game forgot ``--fen``, a resumed referee game showed
the names and clock of nobody, a takeback let a half-restored board be read as a move,
and the referee's clock events named a side while the clock stood still.
"""

from __future__ import annotations

import json
from pathlib import Path

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import Event
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.storage.matches import MatchStore, new_match
from crownhead.rules import Position

from helpers.rig import MakeRig, Rig, referee_rig, second_refereed_game_under_way, tokens


def _shown(rig: Rig) -> dict[int, str]:
    """The pieces the terminal and the page show (the page's ``board`` is drawn from them)."""
    return dict(rig.app.view().pieces)


def test_a_new_game_after_kings_shows_men_where_the_start_position_has_them(make_rig: MakeRig) -> None:
    # A game that ended with kings on 6 and 26 (set up by a host's new game), then `n`.
    kings = Position.from_fen("B:WK6,30:BK26,1")
    rig = make_rig(board=kings)
    rig.app.new_game(kings, rig.clock.now_ms())
    rig.wait(500)
    assert rig.game.position == kings
    rig.do("resign")
    rig.do("resign")
    assert rig.game.is_over
    rig.do("n")
    rig.do("f")  # the hands follow the lights: 6 and 26 were full and stay full
    rig.wait(1000)
    start = Position.start()
    assert rig.game.position == start and rig.game.ply == 0
    assert _shown(rig) == tokens(start)  # no White king on 6, no Black king on 26
    assert rig.sim.pieces == tokens(start)  # the hands set the right pieces down
    assert "must-capture" not in rig.app.lit_roles.values()


def test_game_two_of_a_match_after_kings_shows_men_where_the_start_position_has_them(tmp_path: Path) -> None:
    # Game 1 of a match ends with White's kings on 2, 11 and 12, where Black's men begin.
    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=2))
    kings = Position.from_fen("B:WK2,K11,K12:B21,22")
    rig = Rig(state, board=kings)
    asked = [kings]  # a host's new game from that position, as a source runs it
    rig.app.add_output(Poller(lambda now: rig.app.new_game(asked.pop(), now) if asked else []))
    try:
        rig.wait(500)
        assert rig.game.position == kings
        rig.do("22-26")
        rig.do("resign")  # White resigns: game 1 is counted
        rig.do("resign")
        assert rig.game.is_over
        rig.do("n")
        rig.do("f")  # the hands follow the lights: 2, 11 and 12 were full and stay full
        rig.wait(1000)
        start = Position.start()
        assert rig.game.position == start and rig.game.ply == 0
        assert rig.app.view().match.startswith("Match, game 2 of 2")
        assert _shown(rig) == tokens(start)  # Black's men on 2, 11 and 12, no White kings
        assert rig.sim.pieces == tokens(start)
        assert "must-capture" not in rig.app.lit_roles.values()
    finally:
        rig.close()


def test_kings_of_a_fen_set_up_are_shown_as_kings(tmp_path: Path) -> None:
    fen = Position.from_fen("B:WK32:BK1,5")
    rig = Rig(
        tmp_path / "state",
        settings=AppSettings(mode="referee", start=fen),
        referee=RefereeSettings(clock=TimeControl.parse("60")),
    )
    try:
        rig.wait(500)
        rig.do("f")
        rig.wait(1000)
        assert rig.game.position == fen
        assert _shown(rig) == {1: "B", 5: "b", 32: "W"}
    finally:
        rig.close()


def test_fen_is_the_start_of_every_new_game(tmp_path: Path) -> None:
    fen = Position.from_fen("B:W18,22:B9,10")
    settings = RefereeSettings(black="Ann", white="Bob")
    rig = referee_rig(tmp_path, settings, board=fen)
    try:
        rig.wait(500)
        rig.do("10-15")
        rig.do("hold resign")
        rig.wait(500)
        assert rig.game.is_over
        rig.do("n")
        target = rig.app.setup_target()
        assert target is not None and target[1] == fen  # not the standard start position
        rig.do("f")
        rig.wait(1000)
        assert rig.game.start == fen and rig.game.ply == 0
        rig.do("10-15")
        rig.wait(1000)
        current = json.loads((tmp_path / "state" / "current.json").read_text())
        assert current["start_fen"] == fen.fen()
    finally:
        rig.close()


def _second_game_under_way(tmp: Path, settings: RefereeSettings) -> None:
    """Game 1 resigned, game 2 (colours reversed: Bob has Black) two plies in, then the power goes."""
    rig = second_refereed_game_under_way(tmp, settings)
    try:
        view = rig.app.view()
        assert view.black.startswith("Bob") and view.white.startswith("Ann")
    finally:
        rig.close()


def test_a_resumed_referee_game_shows_its_players_and_clock_while_it_is_set_up(tmp_path: Path) -> None:
    settings = RefereeSettings(black="Ann", white="Bob", clock=TimeControl.parse("60"), record_dir=tmp_path / "record")
    _second_game_under_way(tmp_path, settings)
    again = referee_rig(tmp_path, settings)  # the board is not as saved: it is set up first
    try:
        again.wait(500)
        assert again.app.resuming
        view = again.app.view()
        assert view.black.startswith("Bob") and view.white.startswith("Ann")
        state = again.app.clock_state(again.clock.now_ms())
        assert state is not None and state.black_ms < 60_000 and state.white_ms < 60_000
    finally:
        again.close()


def test_the_clock_event_at_resume_reports_the_saved_times(tmp_path: Path) -> None:
    settings = RefereeSettings(black="Ann", white="Bob", clock=TimeControl.parse("60"), record_dir=tmp_path / "record")
    _second_game_under_way(tmp_path, settings)
    again = referee_rig(tmp_path, settings)
    try:
        again.do("f")
        again.wait(1500)
        assert not again.app.resuming
        (first, *_) = again.of_kind("clock")
        assert first["black"] < 60_000 and first["white"] < 60_000, first
        assert first["running"] == ""  # it resumes paused, until the side to move lifts
    finally:
        again.close()


def test_the_arbiters_pause_says_paused(tmp_path: Path) -> None:
    rig = referee_rig(tmp_path, RefereeSettings(clock=TimeControl.parse("60")), board=Position.start())
    try:
        rig.wait(500)
        rig.do("11-15")  # Black's lift started the clock; White's runs now
        rig.do("clock")  # the arbiter pauses it
        rig.do("clock")  # ...and resumes it
        paused, resumed = rig.of_kind("clock")[-2:]
        assert paused["running"] == "" and resumed["running"] == "white"
        assert paused["white"] == resumed["white"]
    finally:
        rig.close()


def test_a_takeback_restored_last_move_first_commits_no_move(make_rig: MakeRig) -> None:
    rig = make_rig(board=Position.start(), settings=AppSettings(start=Position.start()))
    rig.wait(500)
    rig.do("11-15")
    rig.do("22-18")
    rig.do("takeback")
    rig.do("takeback")
    assert rig.game.ply == 0
    rig.script("lift 18\nwait 200\nplace 22\nwait 1000\n")  # the board now looks like 11-15 made
    assert rig.game.ply == 0 and rig.moves() == ["11-15", "22-18"]
    rig.script("lift 15\nwait 200\nplace 11\nwait 1000\n")
    assert rig.game.ply == 0 and rig.moves() == ["11-15", "22-18"]
    assert len(rig.of_kind("takeback")) == 2
    assert rig.app.tracker.board_matches and rig.app.view().warning == ""


def test_a_takeback_in_the_middle_of_a_double_jump_commits_no_move(make_rig: MakeRig) -> None:
    # After White's 31-27, Black's man on 10 must jump 10x19x26 (over 15, then 23).
    before = Position.from_fen("W:W15,23,31:B6,10")
    rig = make_rig(board=before, settings=AppSettings(start=before))
    rig.wait(500)
    rig.do("31-27")  # White moves; Black's double jump 10x19x26 is then on
    assert rig.game.ply == 1
    rig.script("lift 10\nwait 200\nplace 19\nwait 200\nlift 15\nwait 200\n")  # resting on 19
    rig.do("takeback")  # White's 31-27 goes; the board is half a jump away from it
    assert rig.game.ply == 0
    rig.script("lift 19\nwait 200\nplace 10\nwait 1000\n")
    assert rig.game.ply == 0, rig.moves()
    rig.script("place 15\nwait 1000\n")  # the jump undone: the board shows 31-27 made
    assert rig.game.ply == 0, rig.moves()
    rig.script("lift 27\nwait 200\nplace 31\nwait 1000\n")
    assert rig.game.ply == 0 and rig.app.tracker.board_matches
    assert rig.moves() == ["31-27"]


def test_a_claim_is_ruled_and_worded_once_in_every_mode(tmp_path: Path) -> None:
    # Issue 40 item 11: play mode said "No draw to claim: ...", the referee "white claims
    # a draw: invalid, ...". One handler now, one capitalised sentence.
    said = []
    for mode, referee in (("play", None), ("referee", RefereeSettings())):
        rig = Rig(
            tmp_path / mode,
            board=Position.start(),
            settings=AppSettings(mode=mode, start=Position.start()),
            referee=referee,
        )
        try:
            rig.wait(500)
            rig.do("11-15")
            rig.do("claim")
            (claim,) = rig.of_kind("claim")
            said.append(claim["message"])
            assert rig.app.view().message == claim["message"] and not rig.game.is_over
        finally:
            rig.close()
    assert said[0] == said[1]
    assert said[0].startswith("White claims a draw: refused, no move of White's makes a position stand a third time")


def test_a_source_polled_in_the_first_step_reads_the_game(tmp_path: Path) -> None:
    # The pages' link answers GET /api/state in the main loop's first step, before that
    # step's snapshot: the game is there to read from the start.
    rig = Rig(tmp_path / "state", board=Position.start(), start=False)
    seen: list[str] = []

    def source(now: int) -> list[Event]:
        seen.append(rig.app.view().status)
        return []

    rig.app.add_output(Poller(source))
    try:
        rig.app.start()
        assert seen[:1] == ["Black to move, move 1"]
    finally:
        rig.close()
