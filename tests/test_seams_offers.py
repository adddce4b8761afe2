"""Offers and results at the seams (issue 50, items 3, 4, 7, 9 and 11): an offer through a
power cut, an offer that lapses, a result taken back from the kept record, the plies a
kept game lists."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.simulator.script import parse_script, replay
from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError
from crownhead.rules import BLACK, WCDF, Game, Position
from helpers.rig import Rig, referee_rig


def test_a_draw_offer_standing_at_a_power_cut_is_accepted_after_the_resume(tmp_path: Path) -> None:
    # Before: the saved game noted Black's offer, the resumed game forgot it, and White's
    # draw button made a new offer instead of accepting.
    settings = RefereeSettings()
    board = referee_rig(tmp_path, settings)
    board.do("11-15")
    board.do("b")  # Black offers after its move: it stands until White answers or moves
    assert board.app.session.draw_offer == (BLACK, 1)
    board.app.close()  # the power goes

    again = referee_rig(tmp_path, settings, keep=True)
    again.wait(1000)
    assert again.of_kind("game-start")[-1]["resumed"] is True
    assert again.app.session.draw_offer == (BLACK, 1)
    again.do("w")  # White accepts the offer standing when the power went
    assert [(e["result"], e["reason"]) for e in again.of_kind("game-over")] == [("1/2-1/2", "agreement")]
    again.close()


def test_a_move_made_after_the_power_cut_still_declines_the_offer(tmp_path: Path) -> None:
    settings = RefereeSettings()
    board = referee_rig(tmp_path, settings)
    board.do("11-15")
    board.do("b")
    board.app.close()
    again = referee_rig(tmp_path, settings, keep=True)
    again.wait(1000)
    again.do("22-18")  # White moves instead: the offer lapses, and is saved as lapsed
    assert again.app.session.draw_offer is None
    again.app.close()
    third = referee_rig(tmp_path, settings, keep=True)
    third.wait(1000)
    assert third.app.session.draw_offer is None
    third.close()


def test_takeback_after_an_agreed_draw_only_reopens_the_game(tmp_path: Path) -> None:
    # Before: it reopened the game and silently took the last move back.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("22-18")
    rig.do("b")
    rig.do("w")
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]
    rig.do("t")
    assert rig.moves() == ["11-15", "22-18"] and not rig.app.game.is_over
    assert [e["ply"] for e in rig.of_kind("reopened")] == [2] and rig.of_kind("takeback") == []
    assert "draw" in rig.app.view().message and "taken back" in rig.app.view().message
    rig.do("15x22")  # play goes on from the same position
    assert rig.moves() == ["11-15", "22-18", "15x22"]


def test_a_result_taken_back_is_gone_from_the_kept_games(tmp_path: Path) -> None:
    # Before: the game played on, yet `crownhead games` and its PDN still listed it as won
    # by resignation.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("22-18")
    rig.do("hold resign")
    store = GameStore(tmp_path)
    assert [g.result for g in store.list_games()] == ["0-1"]
    rig.do("t")
    assert store.list_games() == [] and store.export() == ""
    current = store.load_current()
    assert current is not None and current.result is None and current.reason is None
    assert rig.app.record is not None and not rig.app.record.finished
    # Finished again, the game is kept once, with its new result.
    rig.do("15x22")
    rig.do("b")
    rig.do("w")
    (kept,) = store.list_games()
    assert kept.result == "1/2-1/2" and kept.tags["Termination"] == "agreement" and kept.plies == 3


def test_a_lapsed_draw_offer_is_an_event_said_to_the_players(tmp_path: Path) -> None:
    # Before: the offer lapsed silently when its offerer moved, and the other side's
    # "accept" became a new offer with no word that the first one had lapsed.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("w")  # White offers, then moves instead of waiting for Black's answer
    rig.do("22-18")
    (lapsed,) = rig.of_kind("draw-lapsed")
    assert (lapsed["ply"], lapsed["side"]) == (1, "white")
    assert "White's draw offer lapsed" in lapsed["message"]
    assert rig.app.view().message == lapsed["message"]
    rig.do("b")  # Black's press is a new offer of its own, as the players were told
    assert [(e["ply"], e["side"]) for e in rig.of_kind("draw-offer")] == [(1, "white"), (2, "black")]
    assert rig.of_kind("game-over") == []


def test_an_offer_declined_by_a_move_says_so(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("b")
    rig.do("22-18")  # White moves rather than accept
    (lapsed,) = rig.of_kind("draw-lapsed")
    assert (lapsed["ply"], lapsed["side"]) == (1, "black") and "White moved" in lapsed["message"]


def test_a_lapsed_offer_is_in_the_replay_output() -> None:
    script = "lift 11\nwait 400\nplace 15\nwait 1000\npress white_draw\nwait 100\nlift 22\nwait 400\nplace 18\n"
    events = [e.to_json() for e in replay(parse_script(script), position=None, rules=WCDF)]
    kinds = [e["event"] for e in events]
    assert kinds == ["move", "draw-offer", "move", "draw-lapsed", "final"]
    lapsed = events[3]
    assert (lapsed["t"], lapsed["ply"], lapsed["side"]) == (events[2]["t"], 1, "white")


def test_games_lists_the_plies_played_not_the_ballots_opening(tmp_path: Path) -> None:
    # Before: a balloted 4-ply game was listed with 6 plies (the ballot's moves, in the
    # record's comment, were counted as plies).
    rig = referee_rig(tmp_path, RefereeSettings(ballot=5), board=Position.start())
    rig.wait(500)
    for _ in range(3):
        rig.do("f")  # the ballot's three moves, as the lights ask
    rig.do("21-17")
    rig.do("hold resign")
    rig.close()
    (kept,) = GameStore(tmp_path / "state").list_games()
    assert kept.tags["BallotMoves"] == "9-13 22-18 6-9" and kept.plies == 4


def test_a_record_keeps_the_standing_offer_and_refuses_one_that_is_no_side() -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    record = replace(GameRecord.new(rules=WCDF).with_game(game), offer="black")
    assert GameRecord.from_json(record.to_json()).offer == "black"
    assert record.with_game(game).offer == "black"  # the same moves: it still stands
    game.play_text("22-18")
    assert record.with_game(game).offer is None  # a move was made: it lapsed
    bad = json.loads(record.to_json()) | {"offer": "Black"}
    with pytest.raises(StoreError, match="'offer' must be black, white"):
        GameRecord.from_json(json.dumps(bad), "current.json")


def test_the_referees_record_says_an_offer_lapsed(tmp_path: Path) -> None:
    settings = RefereeSettings(record_dir=str(tmp_path / "record"))
    board = referee_rig(tmp_path, settings)
    board.do("11-15")
    board.do("b")
    board.do("22-18")  # White declines by moving
    text = " ".join((tmp_path / "record" / "live.pdn").read_text().split())
    assert "draw offered by black" in text and "Black's draw offer lapsed: White moved instead of accepting it" in text
    board.close()
