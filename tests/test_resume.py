"""A resumed game keeps its mode (issue 13, item 8): the machine's side and level, the
referee's settings with its clock and cautions, hints, the rules, the board clock.

Each scenario plays a game on the simulated board, closes the application as a power
cut would (the pieces stay where they stood: ``sim_keep_game``), and starts a *fresh*
application on the same state directory with nothing configured: everything must come
back from the game record alone.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.leds import LedSettings
from crownhead.firmware.app.players import Computer, Human, MachineSpec, RandomMover, engine_player
from crownhead.firmware.cli import main
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.rules import WCDF, BLACK, WHITE, Game
from crownhead.rules.variants import VARIANTS
from helpers.rig import MakeRig, Rig, referee_rig

KEEP = AppSettings(sim_keep_game=True)


def _person_moves(rig: Rig, plies: int) -> None:
    """Ann (Black) and the machine (White) play ``plies`` moves; the machine's are shown
    on the lights and made by the hands, Ann's are her first legal move."""
    while rig.app.tracker.game.ply < plies:
        game = rig.app.tracker.game
        if rig.app.players[game.turn].is_human:
            rig.do(game.legal_moves()[0].pdn(full=True))
        else:
            assert rig.app.tracker.expected is not None, "the machine shows its move"
            rig.follow()


def _current(state: Path) -> dict[str, Any]:
    return json.loads((state / "current.json").read_text())


# -- against the computer -------------------------------------------------------------------


def test_a_computer_game_resumes_against_the_same_machine(tmp_path: Path, make_rig: MakeRig) -> None:
    machine = engine_player(level=2, seed=1)
    first = make_rig(
        settings=AppSettings(mode="computer", auto_crown=True), players={BLACK: Human("Ann"), WHITE: machine}
    )
    _person_moves(first, 4)
    game = first.app.tracker.game
    first.do(game.legal_moves()[0].pdn(full=True))  # Ann's fifth ply: the machine is to move
    assert [e["side"] for e in first.of_kind("computer-move")][-1] == "white"
    first.close()  # the power goes while the machine's move is on the lights
    saved = _current(tmp_path)
    assert saved["mode"] == "computer" and saved["settings"]["machine"] == {
        "side": "white",
        "opponent": "engine",
        "level": 2,
        "seed": 1,
        "name": "Crownhead engine (level 2)",
    }

    again = make_rig(settings=KEEP)  # configured for two people: the record says otherwise
    app = again.app
    assert app.mode.name == "computer" and again.of_kind("game-start")[-1]["resumed"] is True
    white = app.players[WHITE]
    assert isinstance(white, Computer) and white.spec == MachineSpec("engine", 2, 1)
    assert white.name == "Crownhead engine (level 2)" and app.players[BLACK] == Human("Ann")
    assert app.view().mode_text == "Computer plays White, hints on"
    # The machine moves when it is its turn: its move on the lights, made by the hands.
    (shown,) = again.of_kind("computer-move")
    assert shown["side"] == "white" and shown["player"] == "Crownhead engine (level 2)"
    again.follow()
    assert again.moves() == [shown["move"]] and app.tracker.game.ply == 6
    assert app.players[app.tracker.game.turn] == Human("Ann")
    assert GameStore(tmp_path).load_current().mode == "computer"


def test_the_machine_of_a_resumed_game_comes_back_on_black_and_moves_first(make_rig: MakeRig) -> None:
    first = make_rig(settings=AppSettings(mode="computer"), players={BLACK: RandomMover(7), WHITE: Human("Bo")})
    first.follow()
    first.do(first.app.tracker.game.legal_moves()[0].pdn(full=True))
    first.close()  # Black (the machine) to move
    again = make_rig(settings=KEEP)
    black = again.app.players[BLACK]
    assert isinstance(black, RandomMover) and black.spec == MachineSpec("random", None, 7)
    assert again.app.view().mode_text == "Computer plays Black, hints on"
    assert [e["side"] for e in again.of_kind("computer-move")] == ["black"]


def test_options_given_for_the_start_win_over_the_record(tmp_path: Path, make_rig: MakeRig) -> None:
    first = make_rig(settings=AppSettings(mode="computer"), players={BLACK: Human("Ann"), WHITE: RandomMover(3)})
    first.do("11-15")
    first.follow()
    first.close()
    # A level given: the machine of the record, at that level (the engine: the record's
    # machine was the random player, so only its side and seed are the record's).
    levelled = make_rig(
        settings=AppSettings(
            sim_keep_game=True, given=frozenset({"level", "opponent"}), machine=MachineSpec("engine", 1)
        )
    )
    white = levelled.app.players[WHITE]
    assert isinstance(white, Computer) and white.spec == MachineSpec("engine", 1, 3)
    levelled.close()
    # A mode given: that mode, and the log and the screen say so.
    played = make_rig(settings=AppSettings(given=frozenset({"mode"})))  # the pieces to set up again
    assert played.app.mode.name == "play" and all(p.is_human for p in played.app.players.values())
    assert "the game resumes in play mode, as asked (--mode); it was saved in computer mode" in [
        e["message"] for e in played.of_kind("notice")
    ]
    assert played.app.message.startswith(
        "Resuming the unfinished game (2 plies), a game against the computer, in play mode as asked (--mode)."
    )
    played.do("f")
    played.do("9-14")
    assert _current(tmp_path)["mode"] == "play"


def test_a_machine_side_now_played_over_a_link_resumes_without_the_machine(tmp_path: Path, make_rig: MakeRig) -> None:
    first = make_rig(settings=AppSettings(mode="computer"), players={BLACK: Human("Ann"), WHITE: RandomMover(3)})
    first.do("11-15")
    first.close()
    again = make_rig(settings=KEEP, start=False)
    again.app.hold(WHITE, "the other end of the link")
    again.app.start()
    assert again.app.mode.name == "play" and all(p.is_human for p in again.app.players.values())
    assert again.of_kind("computer-move") == []
    assert any("but white's moves come from the other end of the link" in e["message"] for e in again.of_kind("notice"))


# -- the referee ------------------------------------------------------------------------------


def test_a_referee_game_resumes_with_its_clock_and_caution(tmp_path: Path, make_rig: MakeRig) -> None:
    # No record directory: only the game record can bring the referee's state back.
    settings = RefereeSettings(
        clock=TimeControl.parse("600"),
        style="strict",
        ballot=None,
        event="Club night",
        round="3",
        black="Ann",
        white="Bob",
    )
    board = referee_rig(tmp_path, settings)
    board.do("11-15")
    board.do("22-18")
    board.script("lift 1\nwait 100\nplace 1\nwait 900\n")  # 1 cannot move: a caution to Black
    assert [(c["side"], c["count"]) for c in board.of_kind("caution")] == [("black", 1)]
    board.wait(7_000)  # Black thinks on, its time running
    referee = board.referee
    assert referee is not None
    left = board.app.clock_state(board.clock.now_ms())  # the board's one clock
    assert left is not None and left[BLACK] < 600_000 - 7_000 and left[WHITE] < 600_000
    board.close()

    again = make_rig(tmp_path / "state", settings=KEEP)  # configured: two players, no referee
    app = again.app
    assert app.mode.name == "referee" and app.referee is not None
    resumed = app.referee
    assert resumed.settings.clock == TimeControl.parse("600") and resumed.settings.style == "strict"
    assert resumed.settings.event == "Club night" and resumed.names == ("Ann", "Bob")
    assert resumed.cautions(BLACK) == 1 and resumed.cautions(WHITE) == 0
    assert app.clock_state(again.clock.now_ms())[:2] == left[:2]  # to the millisecond it was saved
    assert app.view().black == f"Ann  {_clock(left[BLACK])}  1 caution"
    assert app.view().mode_text == "Referee, hints off"
    again.wait(10_000)  # paused until Black lifts a piece: the power cut is nobody's time
    assert app.clock_state(again.clock.now_ms())[:2] == left[:2]
    again.script("lift 2\nwait 100\nplace 2\nwait 900\n")  # Black's second offence forfeits
    (forfeit,) = again.of_kind("forfeit")
    assert forfeit["side"] == "black" and again.of_kind("game-over")[-1]["reason"] == "forfeit"
    (path,) = GameStore(tmp_path / "state").game_files()
    text = " ".join(path.read_text().split())
    assert '[Event "Club night"]' in text and '[Round "3.1"]' in text and '[Black "Ann"]' in text
    assert "caution to black" in text and "black forfeits" in text and "game resumed" in text


def _clock(ms: int) -> str:
    from crownhead.firmware.gameclock import clock_text

    return clock_text(ms)


def test_the_record_directory_and_the_game_record_agree(tmp_path: Path, make_rig: MakeRig) -> None:
    # With a record directory the referee's own state (saved every few seconds) is used:
    # the game record names the same game, so both come back the same.
    settings = RefereeSettings(clock=TimeControl.parse("300+5"), record_dir=str(tmp_path / "record"), ballot=5)
    board = referee_rig(tmp_path, settings)
    for _ in range(3):
        board.follow()  # the ballot's moves: 9-13 22-18 6-9
    assert board.moves() == ["9-13", "22-18", "6-9"]
    board.script("lift 30\nwait 300\nplace 30\nwait 700\n")  # 30 cannot move: White's caution
    assert [c["side"] for c in board.of_kind("caution")] == ["white"]
    board.close()
    again = make_rig(
        tmp_path / "state", settings=KEEP, referee_settings=RefereeSettings(record_dir=str(tmp_path / "record"))
    )
    referee = again.app.referee
    assert referee is not None and referee.cautions(WHITE) == 1 and referee.ballot is not None
    assert referee.ballot.number == 5 and referee.settings.clock == TimeControl.parse("300+5")
    again.script("lift 29\nwait 300\n")  # White's second offence forfeits
    assert [f["side"] for f in again.of_kind("forfeit")] == ["white"]


# -- old records, damaged records -------------------------------------------------------------------


def _write_record(state: Path, **fields: Any) -> GameRecord:
    game = Game(None, WCDF)
    for move in ("11-15", "23-19"):
        game.play_text(move)
    record = GameRecord.new(black="Ann", white="Bob", now="2026-01-01T12:00:00+00:00", rules=WCDF).with_game(game)
    data = json.loads(record.to_json())
    data.pop("settings")
    data.update(fields)
    state.mkdir(parents=True, exist_ok=True)
    (state / "current.json").write_text(json.dumps(data))
    return record


def test_a_record_of_the_previous_version_resumes_as_before(
    tmp_path: Path, make_rig: MakeRig, caplog: pytest.LogCaptureFixture
) -> None:
    # Written before modes were kept: no settings; its mode says computer, but with no
    # machine kept it resumes as configured (two players), quietly.
    _write_record(tmp_path, mode="computer")
    with caplog.at_level(logging.WARNING):
        rig = make_rig(settings=KEEP)
    assert caplog.records == [] and rig.of_kind("notice") == []
    assert rig.app.mode.name == "play" and rig.app.game.ply == 2
    assert rig.app.players[BLACK] == Human("Ann") and rig.app.players[WHITE] == Human("Bob")
    rig.do("8-11")
    saved = _current(tmp_path)
    assert saved["moves"] == ["11-15", "23-19", "8-11"] and saved["mode"] == "play"
    assert saved["settings"] == {"hints": True}


HUGE = "x" * 400_000


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"mode": 42}, "'mode'"),
        ({"mode": "chess", "settings": {"hints": True}}, "'mode'"),
        ({"mode": "computer", "settings": ["white"]}, "'settings'"),
        ({"mode": "computer", "settings": {"hints": True}}, "'settings.machine'"),
        (
            {
                "mode": "computer",
                "settings": {
                    "machine": {"side": "white", "opponent": "engine", "level": "high", "seed": None, "name": "x"}
                },
            },
            "'settings.machine.level'",
        ),
        ({"mode": "play", "settings": {"hints": True, "colour": "red"}}, "'settings.colour'"),
        ({"mode": "play", "settings": {"clock": HUGE}}, "'settings.clock'"),
        (
            {
                "mode": "referee",
                "settings": {
                    "referee": {
                        "style": "strict",
                        "clock": None,
                        "ballot": None,
                        "deck": False,
                        "seed": None,
                        "event": "?",
                        "site": "?",
                        "round": "?",
                        "black": "?",
                        "white": "?",
                        "game": {"number": 1, "notes": {str(n): [] for n in range(20_000)}},
                    }
                },
            },
            "'settings.referee.game'",
        ),
    ],
    ids=[
        "mode-not-a-word",
        "unknown-mode",
        "settings-not-an-object",
        "no-machine",
        "bad-level",
        "unknown-key",
        "huge-clock",
        "hostile-referee-state",
    ],
)
def test_a_damaged_mode_is_said_once_and_the_game_resumes_with_two_players(
    tmp_path: Path, make_rig: MakeRig, caplog: pytest.LogCaptureFixture, fields: dict[str, Any], key: str
) -> None:
    _write_record(tmp_path, **fields)
    with caplog.at_level(logging.WARNING):
        rig = make_rig(settings=AppSettings(mode="referee", sim_keep_game=True))  # even when configured otherwise
    path = str(tmp_path / "current.json")
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{path}: {key}") and errors[0].endswith("; the game resumes as a two-player game")
    assert len(errors[0]) < 300  # a huge value is not echoed back
    assert errors[0] in [e["message"] for e in rig.of_kind("notice")]
    assert rig.app.mode.name == "play" and rig.app.referee is None
    assert rig.of_kind("game-start")[-1]["resumed"] is True and rig.app.game.ply == 2  # nothing lost
    rig.do("8-11")
    assert GameStore(tmp_path).load_current().moves == ("11-15", "23-19", "8-11")


# -- hints, rules, the board clock --------------------------------------------------------------------


def test_hints_rules_and_the_board_clock_come_back(tmp_path: Path, make_rig: MakeRig) -> None:
    russian = VARIANTS["russian"]  # White moves first
    first = make_rig(
        settings=AppSettings(rules=russian, clock=TimeControl.parse("300+5")), leds=LedSettings(hints=False)
    )
    first.do(first.app.tracker.game.legal_moves()[0].pdn(full=True))
    first.close()
    again = make_rig(settings=KEEP)
    app = again.app
    assert app.policy.settings.hints is False and app.view().mode_text == "Two players, hints off"
    assert app.game.rules == russian and app.settings.rules == russian  # the games after it too
    assert app.board_clock is not None and str(app.board_clock.control) == "300+5"
    assert app.clock_state(again.clock.now_ms())[2:4] == ("black", True)  # waiting for Black's lift


# -- crownhead run ----------------------------------------------------------------------------------


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_crownhead_run_resumes_the_mode_unless_one_is_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path / "state")
    one = tmp_path / "one.txt"
    one.write_text("lift 11\nwait 300\nplace 15\nwait 800\n")
    common = ["run", "--state-dir", state, "--log", "json", "--sim-keep-game"]
    assert main([*common, "--script", str(one), "--mode", "computer", "--opponent", "random", "--seed", "5"]) == 0
    (chosen,) = [e for e in _events(capsys.readouterr().out) if e["event"] == "computer-move"]
    # Started again without a mode: the machine is back, and shows its move again.
    idle = tmp_path / "idle.txt"
    idle.write_text("wait 500\n")
    assert main([*common, "--script", str(idle)]) == 0
    again = [e for e in _events(capsys.readouterr().out) if e["event"] == "computer-move"]
    assert [(e["side"], e["player"], e["move"]) for e in again] == [("white", RandomMover.NAME, chosen["move"])]
    # Started with --mode play: two people, and the log says why.
    assert main([*common, "--script", str(idle), "--mode", "play"]) == 0
    events = _events(capsys.readouterr().out)
    assert not [e for e in events if e["event"] == "computer-move"]
    assert any("as asked (--mode); it was saved in computer mode" in str(e.get("message")) for e in events)
