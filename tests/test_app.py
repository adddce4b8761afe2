"""The whole application on the simulated board: real tracker, real LED policy, real store.

Every test drives the app with simulated hands on a virtual clock and checks the LED
frames the simulated strip received at the moments that matter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.leds import LedSettings
from crownhead.firmware.storage.store import GameFile
from crownhead.firmware.simulator.hands import Hands
from crownhead.rules import WCDF, Game, Position
from helpers.games import random_game
from helpers.rig import PAL, MakeRig, dim

FORCED = Position.from_fen("B:W14,15,22,23,30:B5,10,11")  # Black must capture with 10 or 11


def test_lift_lights_the_piece_and_its_targets(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11", wait=100)
    assert rig.lit == {11: PAL.touched, 15: PAL.target, 16: PAL.target}
    # The strip got that picture as soon as the lift was debounced (30 ms), not later.
    # (30 ms debounce, then at most one frame interval of the strip's rate limit).
    first = next(f for f in rig.sim.lights.frames if 11 in f.frame)
    assert 30 <= first.t_ms <= 30 + rig.hw.lights.interval_ms
    rig.do("15")
    assert rig.moves() == ["11-15"]
    # After the move: the last move dimly, nothing else.
    assert rig.lit == {11: dim(PAL.last_from), 15: dim(PAL.last_to)}


def test_piece_put_back_clears_the_hint(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("9", wait=100)
    assert set(rig.lit) == {9, 13, 14}
    rig.do("9", wait=500)
    assert rig.lit == {} and rig.moves() == []


def test_forced_capture_steady_hint_then_blinking_warning(make_rig: MakeRig) -> None:
    rig = make_rig(board=FORCED, settings=AppSettings(start=FORCED))
    # Start of the turn: the pieces that must capture glow steadily.
    steady = {10: PAL.must_capture, 11: PAL.must_capture}
    assert rig.lit == steady
    rig.wait(300)
    assert rig.lit == steady
    # Lifting a man that cannot capture: warned at once, blinking fast.
    Hands(rig.app).act_text("5")
    rig.wait(40)
    assert rig.of_kind("warning")[0]["code"] == "forced-capture"
    on = {5: PAL.error, 10: PAL.must_capture, 11: PAL.must_capture}
    t = rig.clock.now_ms()
    assert rig.lit == on
    rig.wait(125)
    assert rig.lit == {}
    rig.wait(125)
    assert rig.lit == on
    # The strip saw both halves of the blink, several times a second.
    frames = rig.frames_between(t, t + 1000)
    rig.wait(1000)
    frames = rig.frames_between(t, t + 1000)
    assert frames.count({}) >= 3 and frames.count(on) >= 3
    # Put back: steady hint again, no blinking left.
    rig.do("5", wait=400)
    assert rig.lit == steady
    assert rig.app.next_deadline() is None


def test_forced_capture_hint_follows_hint_switch(make_rig: MakeRig) -> None:
    rig = make_rig(board=FORCED, settings=AppSettings(start=FORCED), leds=LedSettings(hints=False))
    assert rig.lit == {}
    Hands(rig.app).act_text("5")
    rig.wait(70)
    # Hints off, but a warning is shown whatever the setting.
    assert rig.lit == {5: PAL.error, 10: PAL.must_capture, 11: PAL.must_capture}


def test_multi_jump_guidance_and_capture_removal(make_rig: MakeRig) -> None:
    rig = make_rig(board=FORCED, settings=AppSettings(start=FORCED))
    rig.do("10", wait=100)
    # Both routes from 10: first landings 17 and 19 as targets, the pieces they would take.
    assert rig.lit[10] == PAL.touched
    assert rig.lit[17] == PAL.target and rig.lit[19] == PAL.target
    # Touch down on 19: the next landing square and the piece still to take off.
    rig.do("19", wait=100)
    assert rig.lit[26] == PAL.next_jump
    assert rig.lit[15] == PAL.remove
    assert rig.lit[23] == PAL.capture
    # Stopping too long: the continue-capture warning blinks on 26.
    rig.wait(2600)
    assert rig.of_kind("warning")[-1]["code"] == "continue-capture"
    lit_now = [rig.lit.get(26)]
    rig.wait(125)
    lit_now.append(rig.lit.get(26))
    assert PAL.next_jump in lit_now and None in lit_now
    # Jump on and take both pieces off: one move, every landing named (the ends are ambiguous).
    for square in ("19", "26", "15", "23"):
        Hands(rig.app).act_text(square)
    rig.wait(1000)
    assert rig.moves() == ["10x19x26"]
    assert rig.of_kind("move")[0]["captures"] == [15, 23]
    # White's turn now starts with a compulsory capture: 30 must take 26.
    assert rig.lit == {10: dim(PAL.last_from), 26: dim(PAL.last_to), 30: PAL.must_capture}


def test_crowning_prompt_then_king_marked_dimly(make_rig: MakeRig) -> None:
    start = Position.from_fen("B:W5:B26")
    rig = make_rig(board=start, settings=AppSettings(start=start, auto_crown=True))
    rig.do("26-31")
    assert rig.of_kind("crown") == [{"t": rig.of_kind("move")[0]["t"], "event": "crown", "square": 31}]
    assert rig.lit == {26: dim(PAL.last_from), 31: PAL.crown}
    assert rig.sim.pieces[31] == "B"  # the simulator's hands stacked a crown
    # White starts the reply: the prompt is done; the king stays marked, dimly.
    rig.do("5", wait=100)
    assert rig.lit[31] == dim(PAL.king)
    rig.do("1", wait=1000)
    assert rig.moves() == ["26-31", "5-1"]
    assert rig.lit[31] == dim(PAL.king) and rig.lit[1] == PAL.crown


@pytest.mark.parametrize("auto_crown", [True, False])
def test_the_simulators_hands_crown_through_the_board(
    monkeypatch: pytest.MonkeyPatch, auto_crown: bool, make_rig: MakeRig
) -> None:
    # Crowning goes through SimBoard.crown (which checks the square), never around it;
    # without auto_crown the person asks the hands to follow the lights (`f`).
    from crownhead.sim.board import SimBoard

    crowned: list[int] = []
    real = SimBoard.crown

    def spy(board: SimBoard, square: int, token: str | None = None) -> str:
        crowned.append(square)
        return real(board, square, token)

    monkeypatch.setattr(SimBoard, "crown", spy)
    start = Position.from_fen("B:W5:B26")
    rig = make_rig(board=start, settings=AppSettings(start=start, auto_crown=auto_crown))
    rig.do("26-31")
    if not auto_crown:
        assert rig.sim.pieces[31] == "b" and rig.lit[31] == PAL.crown
        rig.do("f", wait=100)
        assert rig.app.view().message == "crowned"
        rig.do("f", wait=100)  # nothing left to crown: the hands do not crown twice
        assert rig.app.view().message == "the lights ask for nothing the simulator's hands can do"
    assert crowned == [31] and rig.sim.pieces[31] == "B"


def test_game_over_shows_the_result_and_writes_pdn(make_rig: MakeRig) -> None:
    start = Position.from_fen("B:W18:B14,1")
    rig = make_rig(board=start, settings=AppSettings(start=start, black_name="Ann"))
    assert rig.lit == {14: PAL.must_capture}
    rig.do("14x23")
    assert rig.of_kind("game-over") == [
        {"t": rig.of_kind("move")[0]["t"], "event": "game-over", "result": "1-0", "reason": "no-moves"}
    ]
    # Black's pieces light up in the winner's colour; the last move's start stays dim.
    assert rig.lit == {1: PAL.win, 23: PAL.win, 14: dim(PAL.last_from)}
    assert rig.app.view().status == "Game over: Black wins (White has no pieces left)"
    saved = rig.of_kind("game-saved")
    assert len(saved) == 1 and saved[0]["result"] == "1-0"
    record = GameFile.read(Path(saved[0]["path"]))
    assert record.tags["Result"] == "1-0" and record.tags["FEN"] == start.fen()
    assert record.tags["Black"] == "Ann" and record.plies == 1
    assert not rig.store.current_path.exists()


def test_hint_button_with_hints_off(make_rig: MakeRig) -> None:
    rig = make_rig(leds=LedSettings(hints=False))
    rig.do("11", wait=100)
    assert rig.lit == {11: PAL.touched}
    rig.do("h", wait=100)
    assert rig.lit == {11: PAL.touched, 15: PAL.target, 16: PAL.target}
    rig.do("15")
    # The revealed hint lasted one turn.
    rig.do("22", wait=100)
    assert rig.lit == {22: PAL.touched}


def test_takeback_button_guides_the_board_back(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11-15")
    rig.do("t", wait=100)
    assert rig.of_kind("takeback") == [{"t": rig.of_kind("takeback")[0]["t"], "event": "takeback", "ply": 1}]
    assert rig.lit == {11: PAL.missing, 15: PAL.extra}
    assert rig.store is not None and rig.store.load_current().moves == ()
    rig.do("f")
    assert rig.lit == {}
    assert rig.sim.pieces[11] == "b" and 15 not in rig.sim.pieces


def test_illegal_move_is_explained_and_nothing_committed(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11-18", wait=1500)
    assert rig.moves() == []
    warning = rig.of_kind("warning")[-1]
    assert warning["code"] == "illegal-move" and warning["squares"] == [11, 18]
    assert "put the man back on 11" in rig.app.view().warning
    rig.do("18-11", wait=500)
    assert rig.app.view().warning == "" and rig.lit == {}


def test_resign_and_claim_buttons(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11-15")
    rig.do("r", wait=100)
    assert rig.of_kind("game-over") == [] and "press resign again" in rig.app.view().message
    rig.do("r", wait=100)
    assert rig.of_kind("game-over") == [
        {"t": rig.of_kind("game-over")[0]["t"], "event": "game-over", "result": "1-0", "reason": "resign"}
    ]
    assert rig.app.view().status == "Game over: Black wins (resignation)"
    # Black's pieces show the win.
    assert all(rig.lit[s] == PAL.win for s in range(1, 11))


def test_new_game_button_puts_the_old_game_away(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11-15")
    rig.do("22-18")
    rig.do("n", wait=100)
    assert rig.app.view().status == "New game: set up the pieces"
    assert rig.lit == {11: PAL.missing, 22: PAL.missing, 15: PAL.extra, 18: PAL.extra}
    rig.do("f")
    saved = rig.of_kind("game-saved")
    assert [s["result"] for s in saved] == ["*"]
    starts = rig.of_kind("game-start")
    assert len(starts) == 2 and starts[-1]["resumed"] is False and starts[-1]["ply"] == 0
    assert rig.store.load_current().moves == ()
    rig.do("9-14")
    assert rig.store.load_current().moves == ("9-14",)


def test_every_move_is_saved_before_it_is_announced(make_rig: MakeRig) -> None:
    seen: list[tuple[str, ...]] = []
    rig = make_rig(start=False)

    def check(event: object) -> None:
        if getattr(event, "kind", "") == "move":
            seen.append(rig.store.load_current().moves)

    rig.app.add_sink(check)
    rig.app.start()
    for move in ("11-15", "23-19", "8-11", "22-17"):
        rig.do(move)
    assert seen == [("11-15",), ("11-15", "23-19"), ("11-15", "23-19", "8-11"), ("11-15", "23-19", "8-11", "22-17")]


@pytest.mark.parametrize("seed", [1, 2])
def test_complete_two_player_games(seed: int, make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(auto_crown=True, black_name="Ann", white_name="Bob"))
    texts = [move.pdn(full=True) for move in random_game(seed, 120).moves]
    reference = Game(None, WCDF)
    for text in texts:
        before = len(rig.moves())
        rig.do(text)
        assert len(rig.moves()) == before + 1, (text, rig.app.view().warning)
        move = reference.play_text(text)
        if reference.is_over:
            break
        # The last move dimly; a man just crowned shows the crowning prompt, a king its mark.
        crowned = rig.of_kind("crown") and rig.of_kind("crown")[-1]["t"] == rig.of_kind("move")[-1]["t"]
        king = reference.position.kings & (1 << (move.end - 1))
        expected = PAL.crown if crowned else dim(PAL.king) if king else dim(PAL.last_to)
        assert rig.lit.get(move.end) == expected
    assert rig.app.tracker.game.moves == reference.moves
    assert rig.of_kind("warning") == []
    if reference.is_over:
        saved = rig.of_kind("game-saved")
        assert saved and saved[-1]["result"] == reference.result.score
    else:
        rig.do("hold resign", wait=100)
        saved = rig.of_kind("game-saved")
    tags = GameFile.read(Path(saved[-1]["path"])).tags
    assert (tags["Black"], tags["White"]) == ("Ann", "Bob")
    assert GameFile.read(Path(saved[-1]["path"])).plies == len(texts)


def test_close_turns_the_leds_off_and_keeps_the_game(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11", wait=100)
    assert rig.lit
    rig.close()
    assert rig.sim.lights.frames[-1].frame == {} and rig.sim.lights.closed
    assert rig.store.load_current() is not None
    rig.close()  # idempotent


def test_view_describes_the_board(make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(black_name="Ann"))
    rig.do("11-15")
    rig.do("24", wait=100)
    view = rig.app.view()
    assert view.moves == ("11-15",)
    assert view.status == "White to move, move 1"
    assert view.black == "Ann" and view.white == "?"
    assert view.hand == ("w",)
    assert view.pieces[15] == "b" and 24 not in view.pieces
    assert view.mode_text == "Two players, hints on"
    assert view.lit[24] == PAL.touched
