"""Setting up tells which colour and which kings go where (issue 13, item 8).

Whenever the board must be set up (a game from a position, a game resumed, a move taken
back), the ``setup`` event carries the whole position for the link, the page, the display
and the hall, and the simulator's prompt says it in words.
"""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.settings import AppSettings
from crownhead.rules import Position

from helpers.rig import Rig

KINGS = "W:WK10,22,23:B5,K27"


def test_a_game_from_a_position_says_where_each_colour_and_king_goes(tmp_path: Path) -> None:
    rig = Rig(tmp_path, settings=AppSettings(start=Position.from_fen(KINGS)))
    rig.wait(100)
    (setup,) = rig.of_kind("setup")
    assert setup["cause"] == "new-game" and setup["fen"] == Position.from_fen(KINGS).fen()
    assert (setup["black"], setup["black_kings"], setup["white"], setup["white_kings"]) == ([5], [27], [22, 23], [10])
    # Only occupancy can be sensed: 10 holds a black man where the white king goes.
    assert 1 in setup["wrong"] and 21 in setup["wrong"] and 10 not in setup["wrong"]
    prompt = rig.app.view().prompt
    assert "Black man on 5, king on 27; White men on 22 and 23, king on 10" in prompt
    rig.do("f")
    assert rig.of_kind("new-game") and len(rig.of_kind("setup")) == 1  # announced once
    assert "Set up" not in rig.app.view().prompt


def test_a_resumed_game_tells_the_colours_to_set_up(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    for move in ("11-15", "23-19", "8-11"):
        rig.do(move)
    position = rig.app.tracker.game.position
    rig.close()
    rig = Rig(tmp_path)  # a fresh simulated board: the start position stands on it
    rig.wait(100)
    setups = rig.of_kind("setup")
    assert [s["cause"] for s in setups] == ["resume"] and setups[0]["fen"] == position.fen()
    assert setups[0]["black"] == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 15]
    assert "Set up Black men on 1-7, 9-12 and 15; White men on 19, 21, 22 and 24-32" in rig.app.view().prompt


def test_a_move_taken_back_asks_for_the_position_before_it_in_full(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("t")  # the takeback button: the man must go back from 15 to 11
    setups = rig.of_kind("setup")
    assert [s["cause"] for s in setups] == ["restore"]
    assert setups[0]["fen"] == Position.start().fen() and setups[0]["wrong"] == [11, 15]
    rig.do("f")
    assert rig.app.tracker.board_matches


def test_the_simulators_buttons_say_what_they_do_or_why_not(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("c")
    assert rig.app.message.startswith(
        "Black claims a draw: refused, no move of Black's makes a position stand a third time, and 0 of the 80 plies"
    )
    rig.do("j")
    assert rig.app.message == "force: only under huffing (--huffing), where it makes a missed jump be taken"
    rig.do("a")
    assert rig.app.message.startswith("adjust: straighten pieces now")


def test_a_crowning_move_says_which_man_to_crown(tmp_path: Path) -> None:
    position = Position.from_fen("B:W5,9:B27")
    rig = Rig(tmp_path, board=position, settings=AppSettings(start=position))
    rig.do("27-32")
    assert rig.app.view().prompt == "Crown the man on 32: put a king on it (f does it)."


def test_a_resumed_game_keeps_the_names_of_its_players(tmp_path: Path) -> None:
    rig = Rig(tmp_path, settings=AppSettings(black_name="Ann", white_name="Bob"))
    rig.do("11-15")
    rig.close()
    rig = Rig(tmp_path)  # started without names
    view = rig.app.view()
    assert (view.black, view.white) == ("Ann", "Bob")


def test_lifting_the_man_just_crowned_and_putting_it_back_crowns_it(tmp_path: Path) -> None:
    position = Position.from_fen("B:W5,9:B27")
    rig = Rig(tmp_path, board=position, settings=AppSettings(start=position))
    rig.do("27-32")
    assert rig.app.view().prompt.startswith("Crown the man on 32")
    rig.do("32", wait=200)  # the man comes off...
    rig.do("32")  # ... and a king goes on: the swap the prompt asked for
    assert rig.app.view().prompt == "" and "crown" not in rig.app.lit_roles.values()
    assert rig.sim.pieces[32] == "B" and rig.sim.hand == []
    rig.do("9-6")
    rig.do("32-27")  # a king's move backward
    assert [m.pdn() for m in rig.app.game.moves] == ["27-32", "9-6", "32-27"]
