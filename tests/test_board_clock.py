"""The clock on the board in two-player and computer games (``--clock``): it starts with
the first lift, switches on accepted moves, pauses for the arbiter, lets a flag fall,
and survives a power cut, resuming paused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.storage.store import GameStore
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.app.timing import ClockSaver
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.firmware.events import Side
from crownhead.rules import WCDF, BLACK, Game
from crownhead.rules.pdn import read_games
from crownhead.firmware.referee.arbiter import RefereeSettings
from helpers.rig import Rig, referee_rig


def clocked(tmp_path: Path, spec: str = "60", **kwargs: object) -> Rig:
    return Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse(spec), **kwargs))  # type: ignore[arg-type]


def test_blacks_time_starts_with_its_first_lift_and_switches_on_the_move(tmp_path: Path) -> None:
    rig = clocked(tmp_path)
    rig.wait(5000)  # nobody has touched a piece: nobody's time
    assert rig.app.clock_state(rig.clock.now_ms()) == (60_000, 60_000, Side.BLACK, True, None)
    Hands(rig.app).act_text("11")  # Black lifts its man
    rig.wait(2000)
    Hands(rig.app).act_text("15")
    rig.wait(1000)
    assert rig.moves() == ["11-15"]
    black, white, running, paused, flag = rig.app.clock_state(rig.clock.now_ms())
    # Black's time ran from the lift (seen at 30 ms) to the move accepted (2000 + 330 later).
    assert (black, running, paused, flag) == (60_000 - 2_300, Side.WHITE, False, None) and white == 60_000 - 670
    reports = rig.of_kind("clock")
    assert [r["running"] for r in reports] == ["", "black", "white"]


def test_the_clock_button_pauses_and_resumes(tmp_path: Path) -> None:
    rig = clocked(tmp_path)
    rig.do("11-15")
    rig.do("k", wait=10_000)  # the arbiter pauses: ten seconds are nobody's
    state = rig.app.clock_state(rig.clock.now_ms())
    assert state is not None and state[3] is True
    before = state[1]
    rig.do("k", wait=1000)
    assert rig.app.clock_state(rig.clock.now_ms())[1] == before - 1000


def test_a_flag_falls_ends_the_game_on_time_and_is_recorded(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "5")
    Hands(rig.app).act_text("11")  # Black lifts and thinks too long
    rig.wait(6000)
    assert rig.of_kind("flag") == [{"t": 5030, "event": "flag", "side": "black"}]
    over = rig.of_kind("game-over")
    assert [(e["result"], e["reason"]) for e in over] == [("0-1", "time")]
    assert rig.app.clock_state(rig.clock.now_ms())[4] is Side.BLACK
    (game,) = [g for f in GameStore(tmp_path).games_dir.glob("*.pdn") for g in read_games(f.read_text(), f.name)]
    assert game.tags["Result"] == "0-1"


def test_the_clock_names_its_sides_as_sides_and_saves_them_as_names(tmp_path: Path) -> None:
    path = tmp_path / "clock.json"
    clock = GameTimer(TimeControl.parse("5"))
    saver = ClockSaver(path)
    game = Game(None, WCDF)
    clock.begin(game, 0)
    waiting = clock.state(0)
    assert waiting.side is Side.BLACK and waiting.running is None and waiting.flag is None
    clock.lifted(game, 100)
    assert clock.state(200).running is Side.BLACK
    assert clock.flag_due() == 5100 and clock.clock.running is BLACK
    clock.fall(BLACK)
    assert clock.state(6000).flag is Side.BLACK and clock.flag_due() is None
    clock.over(6000)
    saver.keep(clock, "g1", game.ply, 6000)
    saver.close()  # the last state written
    assert json.loads(path.read_text())["flag"] == "black"
    again = GameTimer(TimeControl.parse("5"))
    assert ClockSaver(path).load(again, "g1", game)
    assert again.state(0).flag is Side.BLACK
    assert not ClockSaver(path).load(GameTimer(TimeControl.parse("5")), "g2", game)  # another game's clock


def test_a_damaged_saved_clock_is_not_used_and_the_clock_starts_afresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "clock.json"
    game = Game(None, WCDF)
    for damage in (b"[" * 3000, b"{" * 2000, b" " * 5000 + b"{}", b"\xff{}"):
        path.write_bytes(damage)
        caplog.clear()
        timer = GameTimer(TimeControl.parse("5"))
        assert not ClockSaver(path).load(timer, "g1", game)
        assert timer.state(0) == GameTimer(TimeControl.parse("5")).state(0)  # the control's, not the file's
        assert [r.levelname for r in caplog.records] == ["ERROR"] and str(path) in caplog.records[0].getMessage()


def test_the_clock_survives_a_power_cut_and_resumes_paused(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "600")
    rig.do("11-15")
    rig.do("22-18", wait=7_000)  # Black's clock runs; saved every 5 s
    assert rig.app.board_clock is not None
    rig.app.clock_saver.flush()  # written in a thread of its own
    saved = json.loads((tmp_path / "clock.json").read_text())
    assert saved["ply"] == 2 and saved["left"]["black"] < 600_000
    rig.app.close()

    again = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("600"), sim_keep_game=True))
    again.wait(1000)
    assert [e["resumed"] for e in again.of_kind("game-start")] == [True]
    black, white, running, paused, _flag = again.app.clock_state(again.clock.now_ms())
    assert (black, running, paused) == (saved["left"]["black"], "black", True)
    again.wait(30_000)  # paused: nothing is charged until Black lifts a piece
    assert again.app.clock_state(again.clock.now_ms())[0] == black
    Hands(again.app).act_text("15")
    again.wait(1000)
    assert again.app.clock_state(again.clock.now_ms())[2:4] == ("black", False)
    assert again.app.clock_state(again.clock.now_ms())[0] < black


def test_run_keeps_a_clock_in_a_two_player_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "run",
            "--headless",
            "--log",
            "json",
            "--script",
            "-",
            "--clock",
            "300+5",
            "--state-dir",
            str(tmp_path),
        ],
        input="lift 11\nwait 1000\nplace 15\nwait 1000\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    clocks = [e for e in map(json.loads, done.stdout.splitlines()) if e["event"] == "clock"]
    assert [c["running"] for c in clocks] == ["", "black", "white"]
    assert clocks[-1]["black"] == 300_000 - 1_300 + 5_000  # the move's time, then the increment


def test_a_taken_back_move_gives_back_its_increment_but_not_the_time_spent(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "10+2")
    rig.do("11-15")  # Black's 330 ms, then 2 s added
    assert rig.app.clock_state(rig.clock.now_ms())[0] == 10_000 - 300 + 2_000
    rig.do("t", wait=0)  # taken back: Black to move again, White's second stays spent
    rig.follow()  # the man goes back to 11
    black, white, running, _paused, _flag = rig.app.clock_state(rig.clock.now_ms())
    assert running == "black" and white == 10_000 - 670 and black < 10_000 - 300
    rig.do("9-13")
    assert [m.pdn() for m in rig.app.game.moves] == ["9-13"]
    assert rig.app.board_clock is not None
    assert rig.app.board_clock.clock.moves(BLACK) == 1
    # Every millisecond Black's clock ran counts; the one increment is the move that stands.
    black = rig.app.clock_state(rig.clock.now_ms())[0]
    reports = [r for r in rig.of_kind("clock") if r["running"] in ("", "white")]
    assert black == reports[-1]["black"] and 8_000 < black - 2_000 < 10_000 - 300
    rig.do("t", wait=0)
    rig.follow()
    assert rig.app.board_clock.clock.moves(BLACK) == 0


def test_a_taken_back_move_does_not_count_towards_the_time_control(tmp_path: Path) -> None:
    # Two moves in 10 s, then 60 s more: the minute comes with Black's second move only.
    rig = clocked(tmp_path, "2/10:60")
    for _ in range(3):
        rig.do("11-15")
        rig.do("t", wait=0)
        rig.follow()
    rig.do("11-15")
    rig.do("22-18")
    black = rig.app.clock_state(rig.clock.now_ms())[0]
    assert black < 10_000  # Black has made one move: no minute added yet
    rig.do("15x22")
    assert rig.app.clock_state(rig.clock.now_ms())[0] > 60_000


def test_a_timed_game_keeps_each_move_s_clock_in_its_record_and_pdn(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "600+5")
    rig.script("lift 11\nwait 2000\nplace 15\nwait 500")  # Black: 2.3 s
    rig.script("lift 24\nwait 4000\nplace 20\nwait 500")  # White: 4.5 s (from Black's move)
    rig.do("8-11")
    rig.do("t", wait=0)  # taken back: its clock goes from the record too
    rig.follow()
    record = rig.app.record
    assert record is not None
    assert [(ply, used) for ply, _left, used in record.times] == [(1, 2_300), (2, 4_500)]
    assert record.times[0][1] == 600_000 - 2_300 + 5_000
    rig.app.close()
    # A power cut: the record on disk keeps them, and the moves after add theirs.
    again = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("600+5"), sim_keep_game=True))
    again.wait(500)
    again.do("9-13")
    again.do("r", wait=100)  # White resigns
    again.do("r", wait=100)
    (pdn,) = GameStore(tmp_path).games_dir.glob("*.pdn")
    text = " ".join(pdn.read_text().split())
    assert "1. 11-15 {[%clk 0:10:02] [%emt 0:00:02]} 1... 24-20 {[%clk 0:10:00] [%emt 0:00:04]} 2. 9-13 {[%clk" in text


def _emt(rig: Rig) -> list[int]:
    """Each move's time used in the record, by ply order (ms)."""
    record = rig.app.record
    assert record is not None
    return [used for _ply, _left, used in record.times]


def test_a_move_s_time_used_counts_its_thinking_before_an_arbiters_pause(tmp_path: Path) -> None:
    # Black thinks 20 s, the arbiter holds the clock a minute, Black thinks 10 s more and
    # moves: the move took 30 s of Black's time, not the 10 s after the pause (issue 51).
    settings = RefereeSettings(record_dir=str(tmp_path / "record"), clock=TimeControl.parse("300"))
    rig = referee_rig(tmp_path, settings)
    rig.script("lift 11\nwait 20000\npress clock\nwait 60000\npress clock\nwait 10000\nplace 15\nwait 500")
    assert rig.moves() == ["11-15"]
    (used,) = _emt(rig)
    assert 30_000 <= used < 31_000
    assert rig.app.record is not None and rig.app.record.times[0][1] == 300_000 - used  # what it was charged
    rig.script("hold resign\nwait 1000\n")  # White resigns: the game's PDN
    assert rig.referee is not None
    assert "[%emt 0:00:30]" in rig.referee.pdn(rig.app.session)
    rig.app.close()


def test_a_move_s_time_used_counts_its_thinking_before_a_power_cut(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "600")
    rig.script("lift 11\nwait 20500")  # Black thinks 20 s (the clock saved every 5 s)...
    rig.app.clock_saver.flush()
    rig.app.close()  # ... and the power goes
    again = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("600"), sim_keep_game=True))
    again.wait(1000)
    # Black's man is back on 11 (the board as saved); Black thinks 10 s more and moves.
    again.script("lift 11\nwait 10000\nplace 15\nwait 500")
    assert again.moves() == ["11-15"]
    (used,) = _emt(again)
    assert 30_000 <= used < 31_500  # its 20 s before the power cut and its 10 s after
    again.app.close()


def test_a_timed_game_s_pdn_names_its_time_control(tmp_path: Path) -> None:
    rig = clocked(tmp_path, "600+5")
    rig.do("11-15")
    rig.app.close()  # (a power cut: the saved record keeps it)
    again = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("600+5"), sim_keep_game=True))
    again.wait(500)
    again.do("22-18")
    again.do("r", wait=100)  # Black resigns
    again.do("r", wait=100)
    (pdn,) = GameStore(tmp_path).games_dir.glob("*.pdn")
    (game,) = read_games(pdn.read_text(), pdn.name)
    assert game.tags["TimeControl"] == "600+5"
    again.app.close()
    # An untimed game's has none.
    untimed = Rig(tmp_path / "untimed")
    untimed.do("11-15")
    untimed.do("r", wait=100)
    untimed.do("r", wait=100)
    (pdn,) = GameStore(tmp_path / "untimed").games_dir.glob("*.pdn")
    assert "TimeControl" not in pdn.read_text()
    untimed.app.close()


def test_a_saved_record_s_time_control_is_read_back_or_refused_by_name() -> None:
    from dataclasses import replace

    from crownhead.firmware.storage.store import GameRecord, StoreError

    record = replace(GameRecord.new(now="2024-01-01T10:00:00", rules=WCDF), time_control="40/5400:1800")
    assert GameRecord.from_json(record.to_json()).time_control == "40/5400:1800"
    bad = record.to_json().replace('"40/5400:1800"', '"ten minutes"')
    with pytest.raises(StoreError, match="'time_control' must be a time control such as 600\\+5"):
        GameRecord.from_json(bad, "current.json")


def test_a_refereed_move_s_time_used_counts_its_thinking_before_a_power_cut(tmp_path: Path) -> None:
    settings = RefereeSettings(record_dir=str(tmp_path / "record"), clock=TimeControl.parse("300"))
    rig = referee_rig(tmp_path, settings)
    rig.script("lift 11\nwait 20500")  # Black thinks 20 s, and the power goes
    rig.app.clock_saver.flush()
    rig.app.close()
    again = referee_rig(tmp_path, settings, keep=True)
    again.wait(1000)
    again.script("lift 11\nwait 10000\nplace 15\nwait 500")
    assert again.moves() == ["11-15"]
    (used,) = _emt(again)
    assert 30_000 <= used < 31_500
    again.app.close()
