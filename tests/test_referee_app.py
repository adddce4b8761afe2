"""Referee mode in the whole application on the simulated board: records, lights, resuming.

The balloted game pair runs through ``crownhead run --headless --script`` exactly as an
arbiter would script it, and its two PDN files go through ``crownhead pdn check``.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.simulator.script import parse_script, replay
from crownhead.firmware.config import ConfigError, parse_config
from crownhead.firmware.events import Event, MoveMade
from crownhead.firmware.simulator.hands import Action, Hands, game_actions, spaced
from crownhead.firmware.app.leds import LedSettings, Palette
from crownhead.firmware.referee.arbiter import RefereeConfig, RefereeSettings
from crownhead.firmware.storage.store import GameStore, pdn_text
from crownhead.rules import WCDF, BLACK, WHITE, Position
from crownhead.rules.pdn import read_games

from helpers import DATA
from helpers.rig import referee_rig
from helpers.scriptgen import crowning_flags

TINSLEY = DATA / "tinsley.pdn"


def crownhead(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", *args], capture_output=True, text=True, timeout=300
    )


# -- the balloted game pair ----------------------------------------------------------------------


def _tinsley(number: int) -> Any:
    if not TINSLEY.is_file():
        pytest.skip(f"Tinsley's games not found beside the checkout ({TINSLEY.name} in ../shared/data)")
    for g in read_games(TINSLEY.read_bytes(), TINSLEY.name):
        if g.number == number:
            assert g.error is None
            return g
    raise AssertionError(f"no game {number} in {TINSLEY}")


def _reset_to_start(final: Position) -> list[Action]:
    """Hands clearing the board after a game and setting up the start position."""
    start, occupied = Position.start().occupied, final.occupied
    lifts = [Action("lift", s) for s in range(1, 33) if occupied >> (s - 1) & 1 and not start >> (s - 1) & 1]
    places = [Action("place", s) for s in range(1, 33) if start >> (s - 1) & 1 and not occupied >> (s - 1) & 1]
    return spaced(lifts + places, 50)


def _pair_hands(first: Any, second: Any) -> list[Action]:
    wait = lambda ms: Action("wait", ms)  # noqa: E731
    press = lambda name: Action("press", name)  # noqa: E731
    return (
        game_actions(crowning_flags(first.start, tuple(first.moves)), random.Random(1))
        + [wait(1000), press("black_draw"), wait(500), press("white_draw"), wait(1000), press("new"), wait(200)]
        + _reset_to_start(first.positions[-1])
        + [wait(1000)]
        + game_actions(crowning_flags(second.start, tuple(second.moves)), random.Random(2))
        + [wait(1000), Action("hold", "resign"), wait(1000)]
    )


HINT_COLOURS = {"target": "#010203", "capture": "#040506", "must-capture": "#070809", "huff": "#0a0b0c"}


def _hint_palette() -> Palette:
    return Palette.from_mapping(
        {k: v for k, v in HINT_COLOURS.items() if k.replace("-", "_") in Palette.__dataclass_fields__}
    )


def _hint_rgbs() -> set[tuple[int, int, int]]:
    return {Palette.from_mapping({"target": c}).target for c in HINT_COLOURS.values()}


def test_balloted_game_pair_through_the_simulator(tmp_path: Path) -> None:
    # Two Tinsley games that begin with ballot 46 (Double Cross: 9-14 23-18 14x23): the
    # first agreed drawn, the second resigned by White, as the records say.
    first, second = _tinsley(674), _tinsley(365)
    assert first.result == "1/2-1/2" and second.result == "1-0" and second.positions[-1].turn is WHITE
    assert [m.pdn() for m in first.moves[:3]] == [m.pdn() for m in second.moves[:3]] == ["9-14", "23-18", "14x23"]
    record = tmp_path / "record"
    settings = RefereeSettings(
        ballot=46,
        black="Ann",
        white="Bob",
        event="Club final",
        site="Leeds",
        round="3",
        clock=TimeControl.parse("40/5400:1800"),
        record_dir=str(record),
    )
    board = referee_rig(tmp_path, settings, leds=LedSettings(palette=_hint_palette()))
    Hands(board.app).run_script(_pair_hands(first, second))
    frames = [f.frame for f in board.sim.lights.frames]
    board.app.close()
    # Referee mode lit no hint in either game.
    assert frames and not {rgb for frame in frames for rgb in frame.values()} & _hint_rgbs()
    assert [e["number"] for e in board.of_kind("ballot")] == [46, 46]
    assert not [e for e in board.events if e.kind in ("caution", "forfeit", "warning", "flag")]
    assert [(e["result"], e["reason"]) for e in board.of_kind("game-over")] == [
        ("1/2-1/2", "agreement"),
        ("1-0", "resign"),
    ]
    files = sorted(record.glob("game-*.pdn"))
    assert len(files) == 2
    check = crownhead("pdn", "check", "--verbose", *map(str, files))
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines()[-1] == "2 games, 2 replayed, 0 failed"
    games = [next(iter(read_games(f.read_text(), f.name))) for f in files]
    assert [g.tags["Result"] for g in games] == ["1/2-1/2", "1-0"]
    assert [(g.tags["Black"], g.tags["White"]) for g in games] == [("Ann", "Bob"), ("Bob", "Ann")]
    assert [g.tags["Round"] for g in games] == ["3.1", "3.2"]
    for g, source in zip(games, (first, second)):
        assert g.tags["Event"] == "Club final" and g.tags["Site"] == "Leeds"
        assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", g.tags["Date"])
        assert g.tags["Ballot"] == "46" and g.tags["BallotMoves"] == "9-14 23-18 14x23"
        assert g.tags["TimeControl"] == "40/5400:1800"
        assert g.moves == source.moves
        assert "ACF ballot 46 (Double Cross): 9-14 23-18 14x23" in g.comments[0]
        # The time left after each move, for the side that made it.
        assert all(any(c.startswith("[%clk ") for c in g.comments.get(ply, [])) for ply in range(1, len(g.moves) + 1))
    assert games[0].tags["Termination"] == "agreement" and games[1].tags["Termination"] == "resign"
    # The live file holds the last game; the arbiter log holds every event of both.
    assert (record / "live.pdn").read_text() == files[1].read_text()
    log = [json.loads(line) for line in (record / "arbiter.jsonl").read_text().splitlines()]
    assert sum(1 for e in log if e["event"] == "move") == len(first.moves) + len(second.moves)
    assert {e["game"] for e in log} == {1, 2}


def test_run_command_in_referee_mode(tmp_path: Path) -> None:
    # crownhead run wires the options: ballot, names, clock, the record beside the state.
    script = tmp_path / "script.txt"
    script.write_text("lift 9\nwait 100\nplace 13\nwait 1000\nhold resign\nwait 100\n")
    state = tmp_path / "state"
    done = crownhead(
        "run",
        "--headless",
        "--script",
        str(script),
        "--log",
        "json",
        "--state-dir",
        str(state),
        "--mode",
        "referee",
        "--ballot",
        "5",
        "--black",
        "Ann",
        "--white",
        "Bob",
        "--round",
        "2",
        "--clock",
        "300+5",
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events if e["event"] in ("ballot", "move", "game-over")] == [
        "ballot",
        "move",
        "game-over",
    ]
    (pdn,) = (state / "referee").glob("game-*.pdn")
    (game,) = read_games(pdn.read_text(), pdn.name)
    assert game.error is None and game.result == "1-0"  # White, to move, resigned
    assert (game.tags["Black"], game.tags["White"], game.tags["Round"], game.tags["Ballot"]) == (
        "Ann",
        "Bob",
        "2.1",
        "5",
    )
    assert game.tags["TimeControl"] == "300+5"


# -- the lights -----------------------------------------------------------------------------------


def _hints_scenario(tmp: Path, mode: str) -> set[tuple[int, int, int]]:
    """A game with every situation where play mode shows hints; the colours the strip got."""
    fen = Position.from_fen("B:W15,18,23,32:B10,14,9,1")
    board = referee_rig(tmp, RefereeSettings(), leds=LedSettings(palette=_hint_palette()), mode=mode, board=fen)
    # A man that cannot capture lifted, put back; a chain in progress; a wrong landing; then 14x23.
    board.script(
        "lift 9\nwait 300\nplace 9\nwait 500\nlift 10\nwait 300\nplace 19\nwait 300\nlift 15\nwait 3000\n"
        "lift 19\nwait 100\nplace 10\nplace 15\nwait 1000\nlift 10\nwait 100\nplace 19\nlift 15\nwait 100\n"
        "lift 19\nwait 100\nplace 26\nlift 23\nwait 1000\n"
    )
    frames = [f.frame for f in board.sim.lights.frames]
    board.app.close()
    return {rgb for frame in frames for rgb in frame.values()}


def test_referee_lights_no_hint_colour(tmp_path: Path) -> None:
    hints = _hint_rgbs()
    # The scenario does light hints when hints are on: the check can fail.
    assert _hints_scenario(tmp_path / "play", "play") & hints
    assert not _hints_scenario(tmp_path / "referee", "referee") & hints


# -- the record -----------------------------------------------------------------------------------


def test_live_pdn_is_rewritten_after_every_move(tmp_path: Path) -> None:
    record = tmp_path / "record"
    seen: list[str] = []

    board = referee_rig(tmp_path, RefereeSettings(record_dir=str(record), clock=TimeControl.parse("300+5")))

    def check(event: Event) -> None:
        if isinstance(event, MoveMade):
            seen.append((record / "live.pdn").read_text())

    board.app.add_sink(check)
    for move in ("9-13", "22-18", "10-14"):
        Hands(board.app).act_text(move)
        board.app.run_for(1000)
    assert len(seen) == 3
    for i, text in enumerate(seen):
        game = next(iter(read_games(text, "live.pdn")))
        assert game.error is None and len(game.moves) == i + 1 and game.result == "*"
        assert any(c.startswith("[%clk 0:05:0") for c in game.comments[i + 1])
    assert not list(record.glob(".*.tmp"))  # every write was atomic and finished
    board.app.close()


def test_cautions_and_claims_are_comments_and_log_lines(tmp_path: Path) -> None:
    record = tmp_path / "record"
    events = replay(
        parse_script(
            "lift 1\nwait 100\nplace 1\nwait 500\nlift 9\nwait 100\nplace 13\nwait 500\npress claim\nwait 100\n"
            "press black_draw\nwait 100\npress white_draw\nwait 100\n"
        ),
        mode="referee",
        referee=RefereeSettings(record_dir=str(record), black="Ann", white="Bob"),
        position=None,
        rules=WCDF,
    )
    assert [e.kind for e in events if e.kind in ("caution", "claim", "draw-offer", "game-over")] == [
        "caution",
        "claim",
        "draw-offer",
        "game-over",
    ]
    (game,) = read_games((record / "live.pdn").read_text(), "live.pdn")
    assert game.error is None and game.result == "1/2-1/2" and game.tags["Termination"] == "agreement"
    assert "caution to black, illegal move (unplayable-piece)" in game.comments[0][0]
    notes = " | ".join(game.comments[1])
    assert "White claims a draw: refused" in notes and "draw offered" in notes and "draw agreed" in notes
    log = [json.loads(line) for line in (record / "arbiter.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log] == [e.kind for e in events if e.kind != "final"]
    assert all(set(e) >= {"time", "game", "t", "event"} for e in log)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}.*", log[0]["time"])


def test_an_illegal_move_that_stood_is_marked_and_flagged_by_pdn_check(tmp_path: Path) -> None:
    record = tmp_path / "record"
    replay(
        parse_script("lift 14\nwait 200\nplace 10\nwait 1000\nlift 30\nwait 200\nplace 26\nwait 1000\n"),
        Position.from_fen("B:W30:B14,9"),
        mode="referee",
        referee=RefereeSettings(style="record", record_dir=str(record)),
        rules=WCDF,
    )
    text = " ".join((record / "live.pdn").read_text().split())
    assert "1. 14-10 {illegal move by black (backward-man): the man on 14 moved backward to 10;" in text
    assert "it stands, white answered without objection (WCDF 1.26)} 1... 30-26" in text
    assert '[Refereeing "record"]' in text
    # The record is the game as played: a checker replaying it by the rules stops there.
    check = crownhead("pdn", "check", str(record / "live.pdn"))
    assert check.returncode == 0
    assert "game 1, ply 1, 14-10:" in check.stdout and check.stdout.endswith("1 games, 0 replayed, 1 failed\n")


def test_resumed_game_keeps_its_cautions_clock_and_ballot(tmp_path: Path) -> None:
    settings = RefereeSettings(record_dir=str(tmp_path / "record"), clock=TimeControl.parse("600"), ballot=5)
    board = referee_rig(tmp_path, settings)
    Hands(board.app).act_text("9-13")
    board.app.run_for(5_000)
    board.app.close()  # the power goes in the middle of the ballot

    again = referee_rig(tmp_path, settings, keep=True)
    assert again.referee is not None and again.of_kind("game-start")[-1]["resumed"] is True
    assert str(again.app.tracker.expected) == "22-18"  # the ballot goes on
    for move in ("22-18", "6-9"):
        Hands(again.app).act_text(move)
        again.app.run_for(1000)
    again.script("lift 30\nwait 300\nplace 30\nwait 700\n")  # 30 cannot move: a caution to White
    assert [c["side"] for c in again.of_kind("caution")] == ["white"]
    left = again.app.clock_state(again.clock.now_ms())  # the board's one clock
    assert left is not None and left[BLACK] < 600_000 and left[WHITE] < 600_000
    again.app.close()  # and again

    third = referee_rig(tmp_path, settings, keep=True)
    assert third.referee is not None and third.referee.cautions(WHITE) == 1
    # The time left as last saved (each move, each ruling, every 5 s of a running clock):
    # White's 22-18 took 300 ms from its lift, then its clock ran until the caution was
    # saved; the time while the power was off is not charged, and the clock resumes
    # paused: no time passes until White lifts a piece (or the arbiter presses clock).
    saved = third.app.clock_state(third.clock.now_ms())
    assert saved is not None and saved[BLACK] == left[BLACK] and left[WHITE] <= saved[WHITE] <= 600_000 - 300
    third.app.run_for(10_000)
    assert third.app.clock_state(third.clock.now_ms()) == saved
    assert third.app.clock_state(third.clock.now_ms())[2:4] == ("white", True)  # paused, White's turn
    third.script("lift 29\nwait 300\n")  # White's second offence forfeits the game
    (forfeit,) = third.of_kind("forfeit")
    assert forfeit["side"] == "white" and third.of_kind("game-over")[-1]["reason"] == "forfeit"
    text = " ".join((tmp_path / "record" / "live.pdn").read_text().split())
    assert text.count("game resumed") == 2 and "caution to white" in text and "white forfeits" in text
    assert '[Ballot "5"]' in text
    third.app.close()


def test_a_refereed_timed_game_keeps_each_move_s_clock_through_a_power_cut(tmp_path: Path) -> None:
    # The one clock (the session's) times a refereed game too: its record keeps each
    # move's time left and time used, as a two-player game's does.
    settings = RefereeSettings(clock=TimeControl.parse("300+5"))
    board = referee_rig(tmp_path, settings)
    board.script("lift 9\nwait 2000\nplace 13\nwait 700\n")  # Black: 2.3 s from the lift seen
    board.script("lift 22\nwait 1000\nplace 18\nwait 700\n")  # White: from Black's move
    record = board.app.record
    assert record is not None and [ply for ply, _left, _used in record.times] == [1, 2]
    assert record.times[0] == (1, 300_000 - 2_300 + 5_000, 2_300)
    board.app.close()

    again = referee_rig(tmp_path, settings, keep=True)
    Hands(again.app).act_text("10-14")
    again.app.run_for(1000)
    assert again.app.record is not None and again.app.record.times[:2] == record.times
    assert [ply for ply, _left, _used in again.app.record.times] == [1, 2, 3]
    again.app.close()


def _move_clocks(text: str) -> dict[int, str]:
    """Each move's clock comment in a PDN text, by ply: ``[%clk 0:04:57] [%emt 0:00:02]``."""
    (game,) = read_games(text, "clocks")
    assert game.error is None, game.error
    return {ply: c for ply, texts in game.comments.items() for c in texts if c.startswith("[%clk")}


def test_the_referees_pdn_and_the_saved_games_show_the_same_clocks_through_a_power_cut(tmp_path: Path) -> None:
    # Each move's clock is kept in one place, the game's clock (the record saves it): the
    # referee's PDN (its live file, the finished game's file) writes the very same
    # comments as the saved game's PDN, the moves before the power cut included.
    settings = RefereeSettings(record_dir=str(tmp_path / "record"), clock=TimeControl.parse("300+5"))
    board = referee_rig(tmp_path, settings)
    board.script("lift 11\nwait 2000\nplace 15\nwait 700\n")
    board.script("lift 23\nwait 1000\nplace 19\nwait 700\n")
    board.app.close()

    again = referee_rig(tmp_path, settings, keep=True)
    again.script("lift 8\nwait 3000\nplace 11\nwait 700\n")
    again.script("lift 22\nwait 1500\nplace 17\nwait 700\n")
    again.script("hold resign\nwait 1000\n")  # Black resigns
    record = again.app.record
    assert again.referee is not None and record is not None and record.finished
    saved = _move_clocks(pdn_text(record))
    assert sorted(saved) == [1, 2, 3, 4] and saved[3] == "[%clk 0:05:04] [%emt 0:00:03]"
    assert _move_clocks(again.referee.pdn(again.app.session)) == saved
    assert _move_clocks((tmp_path / "record" / "live.pdn").read_text()) == saved
    (kept,) = GameStore(tmp_path / "state").game_files()  # the referee's text, as finished
    assert _move_clocks(kept.read_text()) == saved
    again.app.close()


def test_a_refereed_game_put_away_for_a_new_one_keeps_its_clocks(tmp_path: Path) -> None:
    # The game before keeps its moves' clocks in the referee's record once the new game
    # has a clock of its own (the session keeps the clock of the game put away).
    record_dir = tmp_path / "record"
    settings = RefereeSettings(record_dir=str(record_dir), clock=TimeControl.parse("300"))
    board = referee_rig(tmp_path, settings)
    for move in ("11-15", "23-19"):
        board.do(move)
    first = board.app.record
    assert first is not None
    board.script("press new\nwait 200\n")
    board.follow()  # the start position set up: the new game begins
    assert board.app.record is not None and board.app.record.id != first.id
    (put_away,) = [p for p in record_dir.glob("game-*.pdn") if p.name.endswith("-1.pdn")]
    text = put_away.read_text()
    assert "game abandoned" in text
    assert _move_clocks(text) == _move_clocks(pdn_text(first)) and sorted(_move_clocks(text)) == [1, 2]
    board.app.close()


def test_an_earlier_referee_json_with_its_own_clocks_is_read_and_they_are_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # An earlier version kept each move's time left in referee.json ("clocks") too: such a
    # file still resumes the game (names, notes, cautions), and the clocks written are the
    # game record's, the one place they are kept.
    settings = RefereeSettings(record_dir=str(tmp_path / "record"), clock=TimeControl.parse("300"), black="Ann")
    board = referee_rig(tmp_path, settings)
    for move in ("11-15", "23-19"):
        board.do(move)
    board.app.close()
    path = tmp_path / "record" / "referee.json"
    state = json.loads(path.read_text())
    assert "clocks" not in state  # no longer written
    path.write_text(json.dumps({**state, "clocks": {"1": 1_000, "2": 2_000}}))

    again = referee_rig(tmp_path, settings, keep=True)
    again.do("8-11")
    assert not [r for r in caplog.records if "referee record" in r.getMessage()]
    assert again.referee is not None and again.referee.names[0] == "Ann"
    record = again.app.record
    assert record is not None
    written = _move_clocks(again.referee.pdn(again.app.session))
    assert written == _move_clocks(pdn_text(record)) and sorted(written) == [1, 2, 3]
    assert not any(c.startswith(("[%clk 0:00:01]", "[%clk 0:00:02]")) for c in written.values())
    again.app.close()


def test_view_shows_the_clock_and_cautions(tmp_path: Path) -> None:
    board = referee_rig(tmp_path, RefereeSettings(black="Ann", white="Bob", clock=TimeControl.parse("300+5")))
    board.script("lift 1\nwait 100\nplace 1\nwait 900\n")
    view = board.app.view()
    assert view.black == "Ann  0:04:59  1 caution" and view.white == "Bob  0:05:00"
    assert view.mode_text == "Referee, hints off"
    Hands(board.app).act_text("resign")
    board.app.run_for(100)
    assert board.app.view().status == "Black to move, move 1"  # asked to confirm
    Hands(board.app).act_text("resign")
    board.app.run_for(100)
    assert board.app.view().status == "Game over: White wins (resignation)"
    board.app.close()


# -- configuration ----------------------------------------------------------------------------------


def test_referee_config_section() -> None:
    config = parse_config(
        {
            "referee": {
                "style": "record",
                "clock": "40/5400:1800",
                "ballot": "deck",
                "seed": 4,
                "round": "2",
                "black_name": "Ann",
            }
        }
    )
    settings = config.get(RefereeConfig).settings()
    assert settings.style == "record" and str(settings.clock) == "40/5400:1800"
    assert settings.deck and settings.ballot is None and settings.seed == 4
    assert settings.round == "2" and settings.black == "Ann" and settings.white == "?"
    assert parse_config({"referee": {"ballot": 12}}).get(RefereeConfig).settings().ballot == 12
    for table, words in (
        ({"style": "loose"}, 'referee.style: must be "strict" or "record"'),
        ({"clock": "5m"}, "referee.clock: clock spec '5m'"),
        ({"ballot": 3}, "referee.ballot: ballot 3 is barred"),
        ({"colour": "red"}, "referee.colour"),
    ):
        with pytest.raises(ConfigError, match=re.escape(words)):
            parse_config({"referee": table})


def test_run_command_line_errors(tmp_path: Path) -> None:
    done = crownhead("run", "--headless", "--script", "-", "--ballot", "5", "--state-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr == "crownhead run: --ballot needs --mode referee\n"
    done = crownhead("run", "--headless", "--script", "-", "--clock", "5m", "--state-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.startswith("crownhead run: --clock: clock spec '5m'")
    done = crownhead(
        "run",
        "--headless",
        "--script",
        "-",
        "--mode",
        "referee",
        "--ballot",
        "deck",
        "--fen",
        "B:W30:B1",
        "--state-dir",
        str(tmp_path),
    )
    assert done.returncode == 2 and "a ballot is played from the start position" in done.stderr


def test_one_game_one_record_the_store_keeps_the_referees_with_everything(tmp_path: Path) -> None:
    # A caution, a claim, then a second offence: the board's own game file (what
    # `crownhead games export` exports) is the referee's record, with its notes.
    board = referee_rig(tmp_path, RefereeSettings(record_dir=str(tmp_path / "record"), black="Ann", white="Bob"))
    board.script(
        "lift 1\nwait 100\nplace 1\nwait 500\nlift 9\nwait 100\nplace 13\nwait 500\npress claim\nwait 100\n"
        "lift 29\nwait 100\nplace 29\nwait 500\nlift 29\nwait 100\nplace 29\nwait 1000\n"
    )
    assert [e["reason"] for e in board.of_kind("game-over")] == ["forfeit"]
    store = GameStore(tmp_path / "state")
    (kept,) = store.game_files()
    (game,) = read_games(kept.read_text(), kept.name)
    assert game.error is None and game.tags["Termination"] == "forfeit"
    assert "caution to black" in " ".join(game.comments[0])
    assert "White claims a draw: refused" in " | ".join(game.comments[1])


def test_a_refused_claim_is_shown_on_the_simulators_screen(tmp_path: Path) -> None:
    board = referee_rig(tmp_path, RefereeSettings(black="Ann", white="Bob"))
    board.script("press claim\nwait 100\n")
    (claim,) = board.of_kind("claim")
    assert claim["valid"] is False
    assert board.app.message == claim["message"] and board.app.message.startswith("Black claims a draw: refused")


def test_follow_after_a_caution_puts_the_piece_back_where_it_came_from(tmp_path: Path) -> None:
    position = Position.from_fen("B:W18,30:B14,10")
    board = referee_rig(tmp_path, RefereeSettings(), board=position)
    board.script("lift 10\nwait 100\nplace 15\nwait 1000\n")  # 14x23 was compulsory
    assert [c["code"] for c in board.of_kind("caution")] == ["forced-capture"]
    Hands(board.app).act_text("f")
    board.app.run_for(1000)
    assert (
        board.app.tracker.board_matches
        and board.app.message == "filled 1 square and emptied 1 square as the lights asked"
    )


def test_a_forfeit_says_why_on_the_screen(tmp_path: Path) -> None:
    board = referee_rig(tmp_path, RefereeSettings(record_dir=str(tmp_path / "record")))
    board.script(
        "lift 1\nwait 100\nplace 1\nwait 500\nlift 9\nwait 100\nplace 13\nwait 500\npress claim\nwait 100\n"
        "lift 29\nwait 100\nplace 29\nwait 500\nlift 29\nwait 100\nplace 29\nwait 1000\n"
    )
    view = board.app.view()
    assert view.status == "Game over: Black wins (forfeit)"
    # The reason, not White's refused claim of two moves before.
    assert (
        view.message == "White forfeits the game: a second illegal move (the man on 29 has no legal move), WCDF 1.25."
    )


def test_a_forfeit_says_the_whole_offence_and_no_remedy(tmp_path: Path) -> None:
    # 14-10 backward, then 14-17 while 14x23 is compulsory: the offence's own words hold
    # a "; ", which the screen keeps whole (it once cut the sentence there).
    board = referee_rig(tmp_path, RefereeSettings(), board=Position.from_fen("B:W18,30:B14,9"))
    board.script(
        "lift 14\nwait 200\nplace 10\nwait 1000\nlift 10\nwait 100\nplace 14\nwait 500\n"
        "lift 14\nwait 200\nplace 17\nwait 1000\n"
    )
    (forfeit,) = board.of_kind("forfeit")
    assert forfeit["message"] == "a capture was compulsory; 14-17 is a plain move"
    assert board.app.view().message == (
        "Black forfeits the game: a second illegal move (a capture was compulsory; 14-17 is a plain move), WCDF 1.25."
    )


def test_a_forfeit_for_a_lifted_piece_puts_nothing_back(tmp_path: Path) -> None:
    # The caution asks for the piece back; after the forfeit nothing is put back.
    board = referee_rig(tmp_path, RefereeSettings(), board=Position.from_fen("B:W30:B1,5,6"))
    board.script("lift 1\nwait 100\nplace 1\nwait 1000\nlift 1\nwait 100\nplace 1\nwait 1000\n")
    (caution,) = board.of_kind("caution")
    assert caution["message"] == "the man on 1 has no legal move; put it back"
    (forfeit,) = board.of_kind("forfeit")
    assert forfeit["message"] == "the man on 1 has no legal move"
