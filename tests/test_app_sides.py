"""Draws by agreement and resignations in every mode (issue 13, items 6 and 7): who
offered, who accepted, a confirmation for resigning, and a way back from a resignation."""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.players import Computer, Human
from crownhead.firmware.storage.store import GameStore
from crownhead.rules import BLACK, WHITE, Game, Position
from crownhead.rules.pdn import read_games
from helpers.rig import Rig

# White to move has one king against Black's three men near crowning: White is lost.
LOST_FOR_WHITE = "W:WK26:B5,6,7"
# The same with the colours the other way round: Black is lost.
LOST_FOR_BLACK = "B:BK7:W26,27,28"


def _first_mover(position: Position, game: Game) -> object:
    return position.legal_moves(game.rules)[0]


def computer_rig(tmp_path: Path, fen: str, machine=WHITE) -> Rig:
    start = Position.from_fen(fen)
    person = machine.opponent
    players = {person: Human("Ann"), machine: Computer(_first_mover, "Engine")}  # type: ignore[arg-type]
    return Rig(
        tmp_path,
        board=start,
        settings=AppSettings(mode="computer", start=start, auto_crown=True),
        players=players,
    )


def test_the_computer_accepts_a_draw_when_it_stands_worse(tmp_path: Path) -> None:
    # Before: draw did nothing in computer mode, and the engine never answered.
    rig = computer_rig(tmp_path, LOST_FOR_WHITE)
    rig.wait(1000)
    rig.do("d")  # the shared button: against the computer it is the person's
    assert [(e["side"]) for e in rig.of_kind("draw-offer")] == ["black"]
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]
    assert "Engine accepts the draw" in rig.app.view().message
    assert rig.app.view().status == "Game over: draw (agreement)"


def test_the_computer_declines_a_draw_when_it_stands_better(tmp_path: Path) -> None:
    rig = computer_rig(tmp_path, LOST_FOR_BLACK, machine=WHITE)
    rig.wait(1000)
    rig.do("b")  # Black's own draw button
    declined = rig.of_kind("draw-declined")
    assert [d["side"] for d in declined] == ["white"] and "white is better" in declined[0]["message"]
    assert rig.of_kind("game-over") == [] and not rig.app.game.is_over
    assert "Engine declines the draw" in rig.app.view().message


def test_draw_agreed_between_two_players_needs_both_sides(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("d")
    rig.do("d")  # the same shared button again: still an offer
    assert rig.of_kind("game-over") == []
    rig.do("w")  # White's own button: an offer only, the shared one's side is unknown
    assert rig.of_kind("game-over") == []
    rig.do("b")  # Black accepts White's offer
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]
    (game,) = [g for f in GameStore(tmp_path).games_dir.glob("*.pdn") for g in read_games(f.read_text(), f.name)]
    assert game.tags["Result"] == "1/2-1/2"


def test_takeback_after_a_resignation_reopens_the_game_without_taking_back_a_move(tmp_path: Path) -> None:
    # Before: takeback after resign reopened the game and also took back a move.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("22-18")
    rig.do("hold resign")  # a long press resigns at once (Black, to move)
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("0-1", "resign")]
    rig.do("t")
    assert rig.moves() == ["11-15", "22-18"] and not rig.app.game.is_over
    assert [e["ply"] for e in rig.of_kind("reopened")] == [2] and rig.of_kind("takeback") == []
    assert rig.app.view().status == "Black to move, move 2"
    rig.do("15x22")  # play goes on
    assert rig.moves() == ["11-15", "22-18", "15x22"]
    # The game is unfinished again: it is the current game of the store.
    current = GameStore(tmp_path).load_current()
    assert current is not None and [m for m in current.moves] == ["11-15", "22-18", "15x22"]


def test_a_declined_draw_offer_stays_declined_after_a_takeback(tmp_path: Path) -> None:
    # Black offers after its move; White declines by moving, then takes that move back.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("b")
    rig.do("22-18")
    rig.do("t", wait=0)
    rig.follow()
    assert rig.app.game.ply == 1 and rig.app.session.draw_offer is None
    rig.do("w")  # White's draw press is an offer of its own now, not an acceptance
    assert rig.of_kind("game-over") == [] and not rig.app.game.is_over
    assert [(e["ply"], e["side"]) for e in rig.of_kind("draw-offer")] == [(1, "black"), (1, "white")]
    # An offer taken back with the move it followed does not come back with the move.
    rig.do("t", wait=0)
    rig.follow()
    rig.do("11-15")
    rig.do("b")
    assert rig.of_kind("game-over") == [] and rig.app.session.draw_offer == (BLACK, 1)
    rig.do("w")  # a standing offer is still accepted
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]


def test_a_refused_claim_in_play_mode_says_why_and_a_valid_one_ends_the_game(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.app.press("claim")  # the page's Claim, a host's `press claim`
    rig.wait(100)
    (claim,) = rig.of_kind("claim")
    assert (claim["valid"], claim["reason"], claim["side"]) == (False, "none", "white")
    why = rig.app.view().message
    assert why.startswith("White claims a draw: refused, no move of White's") and "0 of the 80 plies" in why
    assert not rig.app.game.is_over
    rig.do("22-18")  # the game moves on: what was said about the last turn goes
    assert rig.app.view().message == ""


def test_a_valid_claim_in_play_mode_is_reported_before_the_game_ends(tmp_path: Path) -> None:
    start = Position.from_fen("B:WK32:BK1")
    rig = Rig(tmp_path, board=start, settings=AppSettings(start=start))
    for move in ["1-6", "32-27", "6-1", "27-32"] + ["1-6", "32-27", "6-1"]:
        rig.do(move)
    rig.do("c")  # White's 27-32 would make the start position stand a third time
    (claim,) = rig.of_kind("claim")
    assert (claim["valid"], claim["reason"], claim["side"]) == (True, "repetition", "white")
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "repetition")]
    assert rig.app.view().message == "White claims a draw: valid, by repetition (WCDF 1.32)"


def test_the_shared_draw_buttons_words_say_what_it_does(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("d")
    said = rig.app.view().message
    # It cannot accept, so it must not tell anyone to accept it: each side offers with its own.
    assert "shared button" in said and "own draw button" in said and "accept with your own" not in said
    rig.do("w")
    assert rig.app.view().message == "White offers a draw: Black accepts with their draw button."
    assert rig.of_kind("game-over") == []
    rig.do("b")
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]


def test_a_draw_offer_line_goes_when_the_game_ends_and_a_new_one_is_set_up(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("b")
    assert "Black offers a draw" in rig.app.view().message
    rig.app.press("white_resign", long=True)  # White resigns instead (held down)
    rig.wait(100)
    assert rig.app.game.is_over and "offers a draw" not in rig.app.view().message
    rig.do("b")  # pressed after the game: it changes nothing, and says so
    rig.app.press("new")  # the next game's set-up (a page's New game)
    rig.wait(100)
    assert "Black's draw button" not in rig.app.view().message
    rig.follow()
    rig.do("11-15")
    rig.do("b")
    rig.do("22-18")  # ... and in the next game the move declines it: the line goes
    assert "offers a draw" not in rig.app.view().message


def test_the_resign_prompt_goes_when_its_three_seconds_lapse(tmp_path: Path) -> None:
    from crownhead.firmware.simulator.hands import Hands
    from crownhead.firmware.simulator.keys import key_action

    rig = Rig(tmp_path)
    action = key_action("B")
    assert action is not None
    Hands(rig.app).act(action)  # Black's resign button, once
    rig.wait(100)
    assert rig.app.view().message == "Black: press resign again within 3 s to resign (or hold it down)."
    rig.wait(3000)
    assert rig.app.view().message == ""
    assert not rig.app.game.is_over


def test_buttons_are_named_in_words_in_the_simulators_messages(tmp_path: Path) -> None:
    from crownhead.firmware.simulator.hands import Hands
    from crownhead.firmware.simulator.keys import KEYS, Press

    rig = Rig(tmp_path)
    rig.do("hold black")  # over: most buttons have nothing left to do, the words stay
    for _key, name, _help in KEYS:
        if name in ("follow", "quit", "new"):
            continue
        for long in (False, True):
            Hands(rig.app).act(Press(name, long=long))
            said = rig.app.view().message
            assert "_" not in said, (name, said)
