"""Games that survive: resuming after a restart, crashes between steps, bad state files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError, StoreLockedError
from crownhead.rules import WCDF, Game, Position
from helpers.rig import PAL, MakeRig, Rig, dim, tokens

OPENING = ("11-15", "23-19", "8-11", "22-17")


def played(tmp_path: Path, moves: tuple[str, ...] = OPENING) -> Game:
    rig = Rig(tmp_path)
    for move in moves:
        rig.do(move)
    assert rig.moves() == list(moves)
    game = rig.app.tracker.game
    rig.close()
    return game


def test_resume_guides_the_pieces_then_continues(tmp_path: Path, make_rig: MakeRig) -> None:
    game = played(tmp_path)
    rig = make_rig()  # a fresh simulated board: the start position stands on it
    view = rig.app.view()
    assert view.status.startswith("Resuming a game: Black to move")
    assert view.moves == OPENING
    # Steady guidance: fill 15, 19, 17; empty 8 (its man went to 11), 23, 22: the difference,
    # a rank at a time from White's side (docs/coach.md): 22 and 23 first.
    start = Position.start().occupied
    target = game.position.occupied
    fill = {s for s in range(1, 33) if target >> (s - 1) & 1 and not start >> (s - 1) & 1}
    empty = {s for s in range(1, 33) if start >> (s - 1) & 1 and not target >> (s - 1) & 1}
    assert (fill, empty) == ({15, 17, 19}, {8, 22, 23})
    assert rig.lit == {22: PAL.extra, 23: PAL.extra}
    rig.wait(2000)
    assert rig.lit == {22: PAL.extra, 23: PAL.extra}
    assert rig.of_kind("warning") == [] and rig.of_kind("takeback") == []
    # Without a screen (the service), the log says the same.
    game_id = rig.store.load_current().id
    assert [e["message"] for e in rig.of_kind("notice")] == [
        f"unfinished game {game_id} (4 plies): it resumes when its position stands on the board"
        " (the lights show the squares to fill and to empty); press new for a new game instead"
    ]
    rig.do("f")
    started = rig.of_kind("game-start")
    assert started[-1]["resumed"] is True and started[-1]["ply"] == 4
    assert rig.of_kind("new-game") == []
    assert rig.sim.pieces == tokens(game.position)
    rig.do("9-14")
    assert rig.store.load_current().moves == OPENING + ("9-14",)


def test_resume_one_move_in_is_not_read_as_a_takeback(tmp_path: Path, make_rig: MakeRig) -> None:
    # The start position on a fresh board is the position before the saved game's only
    # move: it must be guidance to set up, never a takeback of that move.
    played(tmp_path, ("11-15",))
    rig = make_rig()
    rig.wait(3000)
    assert rig.of_kind("takeback") == []
    assert rig.lit == {11: PAL.extra, 15: PAL.missing}
    assert rig.store.load_current().moves == ("11-15",)
    rig.do("11-15", wait=500)
    assert rig.of_kind("game-start")[-1]["resumed"] is True
    assert rig.app.tracker.game.ply == 1 and rig.moves() == []


def test_resume_with_the_pieces_still_standing(tmp_path: Path, make_rig: MakeRig) -> None:
    played(tmp_path)
    rig = make_rig(settings=AppSettings(sim_keep_game=True))
    assert rig.of_kind("game-start")[-1] == {
        "t": 0,
        "event": "game-start",
        "resumed": True,
        "ply": 4,
        "fen": rig.app.tracker.game.position.fen(),
        "id": rig.store.load_current().id,
    }
    assert rig.lit[17] == dim(PAL.last_to)  # the last move, dimly, as before the restart
    assert rig.of_kind("notice") == []  # nothing to set up, nothing to say
    rig.do("9-14")
    assert rig.moves() == ["9-14"] and rig.app.tracker.game.ply == 5


def test_new_instead_of_resume_keeps_the_old_game(tmp_path: Path, make_rig: MakeRig) -> None:
    played(tmp_path)
    rig = make_rig()
    rig.do("n", wait=100)
    # Now the lights ask for the start position, which already stands: a new game at once.
    saved = rig.of_kind("game-saved")
    assert [s["result"] for s in saved] == ["*"]
    kept = Path(saved[0]["path"]).read_text()
    assert "11-15" in kept and '[Termination "abandoned"]' in kept
    assert rig.of_kind("game-start")[-1]["resumed"] is False
    assert rig.store.load_current().moves == ()


def test_finished_game_left_in_current_is_written_at_start(tmp_path: Path, make_rig: MakeRig) -> None:
    store = GameStore(tmp_path)
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.resign()
    record = GameRecord.new(rules=WCDF).with_game(game)
    store.save_current(record)  # as if the power went between "game over" and the PDN
    rig = make_rig()
    saved = rig.of_kind("game-saved")
    assert saved and Path(saved[0]["path"]) == store.game_path(record)
    assert rig.of_kind("game-start")[-1]["resumed"] is False


def test_unreadable_state_file_is_kept_aside(tmp_path: Path, make_rig: MakeRig) -> None:
    (tmp_path / "current.json").write_text('{"format": 1, "id": "x", "started": "y", "moves": ["11-15", "11-15"]}')
    rig = make_rig()
    notice = rig.of_kind("notice")[0]["message"]
    assert "move 2 (11-15) does not replay" in notice and "was kept as" in notice
    kept = list(tmp_path.glob("current-*.bad"))
    assert len(kept) == 1 and "11-15" in kept[0].read_text()
    rig.do("11-15")
    assert rig.store.load_current().moves == ("11-15",)


def test_save_failure_is_reported_and_play_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_rig: MakeRig
) -> None:
    rig = make_rig()

    def full(record: GameRecord) -> None:
        raise StoreError(f"cannot save the game to {tmp_path}/current.json: No space left on device")

    monkeypatch.setattr(rig.store, "save_current", full)
    rig.do("11-15")
    assert rig.moves() == ["11-15"]
    assert "No space left on device" in rig.of_kind("notice")[-1]["message"]
    monkeypatch.undo()
    rig.do("23-19")
    assert rig.store.load_current().moves == ("11-15", "23-19")


def test_second_app_on_the_same_state_dir_is_refused(make_rig: MakeRig) -> None:
    first = make_rig()
    with pytest.raises(StoreLockedError):
        make_rig()
    first.close()
    make_rig().close()


def test_saved_record_is_plain_json(tmp_path: Path) -> None:
    played(tmp_path, ("11-15", "22-18", "15x22"))
    data = json.loads((tmp_path / "current.json").read_text())
    assert data["moves"] == ["11-15", "22-18", "15x22"]
    assert data["format"] == 1 and data["result"] is None


def test_names_given_while_a_new_game_is_set_up_are_the_new_games(tmp_path: Path) -> None:
    # A page's New game: `new`, then `names`. The game left behind keeps its players.
    rig = Rig(tmp_path, settings=AppSettings(black_name="Ann", white_name="Bob"))
    rig.do("11-15")
    rig.do("22-18")
    rig.app.press("new")
    rig.wait(100)
    assert rig.app.tracker.setting_up is not None or rig.app.game.ply == 0
    assert rig.app.set_player_names("Ana", "Ben", rig.clock.now_ms()) is False
    rig.follow()
    (kept,) = GameStore(tmp_path).game_files()
    text = kept.read_text()
    assert '[Black "Ann"]' in text and '[White "Bob"]' in text and "22-18" in text
    assert (rig.app.record.black, rig.app.record.white) == ("Ana", "Ben")
