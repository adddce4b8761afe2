"""What a newcomer met at the terminal (issue 40, items 1-5 and 15), through the whole
application on the simulated board (:class:`helpers.rig.Rig`)."""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.rules import Position

from helpers.rig import MakeRig, machine_rig, referee_rig


def test_the_crowning_prompt_is_asked_only_while_a_man_stands_uncrowned(make_rig: MakeRig, tmp_path: Path) -> None:
    # Item 1: after 22x31 the terminal (which crowns by itself) showed [B] and still said
    # "Crown the man on 31", f said "nothing to do", and a finished game kept the prompt.
    start = Position.from_fen("B:W26,8:B22")
    crowning = make_rig(tmp_path / "auto", board=start, settings=AppSettings(start=start, auto_crown=True))
    crowning.do("22x31")
    view = crowning.app.view()
    assert view.pieces[31] == "B" and "Crown" not in view.prompt

    by_hand = make_rig(tmp_path / "hand", board=start, settings=AppSettings(start=start))
    by_hand.do("22x31")
    view = by_hand.app.view()
    assert view.pieces[31] == "b" and view.prompt == "Crown the man on 31: put a king on it (f does it)."
    by_hand.do("f")
    view = by_hand.app.view()
    assert view.pieces[31] == "B" and "Crown" not in view.prompt

    last = Position.from_fen("B:W26:B22")  # the capture takes White's last piece
    over = make_rig(tmp_path / "over", board=last, settings=AppSettings(start=last))
    over.do("22x31")
    view = over.app.view()
    assert view.status.startswith("Game over") and "Crown" not in view.prompt


def test_touch_move_is_said_when_the_touched_piece_is_put_back(tmp_path: Path) -> None:
    # Item 2: after a caution for 10-17, the man put back on 10 stayed lit and nothing said
    # it must be played; 11-15 then forfeited the game.
    rig = referee_rig(tmp_path, RefereeSettings(), board=Position.start())
    try:
        rig.do("10-17")
        rig.wait(1000)
        assert [c["code"] for c in rig.of_kind("caution")] == ["wrong-move"]
        rig.do("17-10")
        rig.wait(1000)
        assert rig.app.view().prompt == (
            "Touch-move: the man on 10 was touched, so it must be played; a move with another piece is an illegal move."
        )
        rig.do("10-14")  # played as the board said: the game goes on
        assert rig.moves() == ["10-14"] and not rig.of_kind("forfeit")
        assert "Touch-move" not in rig.app.view().prompt
    finally:
        rig.close()


def test_takeback_guidance_says_what_to_move(make_rig: MakeRig) -> None:
    # Item 3: "Put the board back to: Black men on 1-6, 8-10 and 12, ...": the whole
    # position, where one man and the piece it took are to go back.
    rig = make_rig(board=Position.start(), settings=AppSettings(start=Position.start()))
    for move in ("11-15", "22-18", "15x22"):
        rig.do(move)
    rig.do("takeback")
    assert rig.app.view().prompt == (
        "Take back 15x22: put the man on 22 back on 15 and the captured man back on 18 (f does it)."
    )
    rig.do("takeback")  # a second press: the later move first, then this one
    assert rig.app.view().prompt == (
        "Take back 22-18 15x22: put the man on 22 back on 15 and the captured man back on 18;"
        " then the man on 18 back on 22 (f does it)."
    )
    rig.do("f")
    assert rig.app.tracker.board_matches and rig.app.view().prompt == "" and rig.game.ply == 1


def test_takeback_guidance_against_the_computer_names_both_plies(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path)
    try:
        rig.do("11-15")
        rig.wait_for(lambda: rig.app.tracker.expected is not None, "the machine's answer")
        answer = rig.app.tracker.expected
        assert answer is not None
        rig.do("f")  # the hands make the machine's move
        rig.do("takeback")  # the person's own move goes too (two plies)
        assert rig.game.ply == 0
        assert rig.app.view().prompt == (
            f"Take back 11-15 {answer.pdn()}: put the man on {answer.end} back on {answer.start};"
            " then the man on 15 back on 11 (f does it)."
        )
    finally:
        rig.close()


def test_a_move_out_of_turn_is_named(make_rig: MakeRig) -> None:
    # Item 4: with White to move, 9-14 gave "The board does not match the game: put a
    # piece on 9; take the piece off 14".
    rig = make_rig(board=Position.start(), settings=AppSettings(start=Position.start()))
    rig.do("11-15")
    rig.do("9-14", wait=1500)
    assert rig.app.view().warning == "It is White's turn: put the man back on 9"
    assert rig.moves() == ["11-15"]
    rig.do("14-9")
    assert rig.app.view().warning == "" and rig.app.tracker.board_matches


def test_referee_mode_in_the_terminal_says_what_its_keys_do(tmp_path: Path) -> None:
    # Item 5: t and h said only "pressed the takeback button" and were on the key line;
    # k gave no sign whether the clock ran.
    from crownhead.firmware.gameclock import TimeControl
    from crownhead.firmware.simulator.tui import render

    rig = referee_rig(tmp_path, RefereeSettings(clock=TimeControl.parse("60")), board=Position.start())
    try:
        rig.do("11-15")
        rig.do("t")
        assert rig.app.message.startswith("takeback: not in a refereed game") and rig.moves() == ["11-15"]
        rig.do("h")
        assert rig.app.message.startswith("hint: not in a refereed game")
        keys = render(rig.app.view()).text().splitlines()[-1]
        assert "t takeback" not in keys and "h hint" not in keys and "c claim" in keys
        rig.do("k")
        assert rig.app.message.startswith("clock paused (Black 0:00:59, White 0:00:57)"), rig.app.message
        rig.do("k")
        assert rig.app.message.startswith("clock running: White's time")
    finally:
        rig.close()


def test_computer_mode_says_it_resumes_an_old_two_player_game(tmp_path: Path) -> None:
    # Item 15: `run --mode computer` went on with an unfinished two-player game without a
    # word when its pieces stood on the board.
    from dataclasses import replace

    from helpers.rig import COMPUTER, Rig

    first = Rig(tmp_path, board=Position.start())
    first.do("11-15")
    first.do("22-18")
    first.close()
    asked = replace(COMPUTER, given=frozenset({"mode"}), sim_keep_game=True)
    again = machine_rig(tmp_path, settings=asked)
    try:
        again.wait(500)
        assert not again.app.resuming and again.game.ply == 2  # its pieces stand: it goes on
        assert again.app.view().message == (
            "This is the unfinished two-player game (2 plies), now in computer mode: press new for a new game instead."
        )
        again.do("n")  # the offer taken: a new game is set up, the old one kept as unfinished
        again.do("f")
        assert again.game.ply == 0 and again.app.view().message == ""
    finally:
        again.close()
