"""What a newcomer met at the terminal (issue 40, items 1-5 and 15), through the whole
application on the simulated board (:class:`helpers.rig.Rig`)."""

from __future__ import annotations

from pathlib import Path

from firmware.app.settings import AppSettings
from firmware.referee.arbiter import RefereeSettings
from rules import Position

from helpers.rig import MakeRig, referee_rig


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
