"""What newcomers met at the terminal and the page (issue 54): the words said, the keys
shown, the messages that stay too long or never come. Through the whole application on
the simulated board (:class:`helpers.rig.Rig`)."""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.players import Human
from crownhead.firmware.app.setup import takeback_text
from crownhead.firmware.app.sinks import describe_event
from crownhead.firmware.events import ComputerMove
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.simulator.tui import HEIGHT, WIDTH, render
from crownhead.firmware.storage.matches import MatchStore, new_match
from crownhead.rules import BLACK, WHITE, WCDF, Position, Rules

from helpers.rig import MakeRig, Rig


def test_a_double_jump_taken_back_puts_the_captured_men_back() -> None:
    # Item 10: "put the captured mans back on 18 and 27".
    start = Position.from_fen("B:W18,27:B14")
    jump = start.moves_matching("14x32", WCDF)[0]
    after = start.apply(jump, Rules())
    text = takeback_text(start, [jump], Rules(), after.occupied)
    # 14x32 crowns: the piece goes back as a man (the takeback guidance, issue 50).
    assert text == "put the piece crowned on 32 back on 14 as a man and the captured men back on 18 and 27"
    assert "mans" not in text


def test_a_player_with_no_name_is_called_by_the_side(make_rig: MakeRig) -> None:
    # Item 10: "? plays 11-15" when no names were given (a ballot's move shown to people).
    rig = make_rig(board=Position.start(), players={BLACK: Human(), WHITE: Human()})
    rig.app.show_move(rig.game.position.moves_matching("11-15", WCDF)[0])
    rig.wait(100)
    assert rig.app.view().prompt == "Black plays 11-15: make it on the board (f does it)."
    line = describe_event(ComputerMove(0, "white", "?", "22-18", (22, 18), ()))
    assert not line.startswith("?") and line.startswith("white plays 22-18")


def test_the_key_line_shows_the_clock_key_when_the_game_has_a_clock(make_rig: MakeRig) -> None:
    # Item 10: k (the clock) was on no line of the terminal.
    clocked = make_rig(board=Position.start(), settings=_clock_settings())
    screen = render(clocked.app.view())
    shown = screen.line(HEIGHT - 2) + screen.line(HEIGHT - 1)
    assert "k clock" in shown
    assert len(screen.line(HEIGHT - 2)) < WIDTH and len(screen.line(HEIGHT - 1)) < WIDTH
    plain = render(make_rig(None, board=Position.start()).app.view())
    assert "k clock" not in plain.line(HEIGHT - 2) + plain.line(HEIGHT - 1)


def test_the_clock_line_goes_by_itself(make_rig: MakeRig) -> None:
    # Item 10: "clock running: Black's time (5:00 ...)" stayed, its times frozen.
    rig = make_rig(board=Position.start(), settings=_clock_settings())
    rig.do("11-15")
    rig.do("k")
    rig.do("k")
    assert rig.app.message.startswith("clock running: White's time")
    rig.wait(10_000)
    assert rig.app.message == ""


def test_a_takeback_made_by_hand_is_said_on_the_terminal(make_rig: MakeRig) -> None:
    # Item 10: moving the piece back took the move back without a word.
    rig = make_rig(board=Position.start())
    rig.do("11-15")
    rig.do("15-11")
    assert rig.game.moves == []
    assert rig.app.message == "Taken back: move 1, Black's 11-15."


def test_match_over_is_shown_only_with_the_game_that_ended_the_match(tmp_path: Path) -> None:
    # Item 10: "Match over" stayed in every later game, even after a restart.
    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=1))
    board = Rig(state, board=Position.start())
    board.wait(1000)
    board.do("11-15")
    board.do("hold resign")
    assert board.app.view().match.startswith("Match over: Ana takes the match")
    board.do("n")
    board.do("f")
    assert board.app.view().match == ""
    board.close()
    again = Rig(state)
    again.wait(1000)
    assert again.app.view().match == ""
    again.close()


def _clock_settings() -> object:
    from crownhead.firmware.app.settings import AppSettings

    return AppSettings(clock=TimeControl.parse("300"))
