"""A reviewed game tried again on the board (issue 43): the review names the losing move,
the board guides the position before it onto the squares one rank at a time, the player
plays on against the machine, and the new game is kept naming the game it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.app.guidance import rank_squares
from crownhead.firmware.app.players import Human, RandomMover
from crownhead.firmware.app.tryagain import FROM_GAME, FROM_PLY, TryAgain, retry_from
from crownhead.firmware.cli import main
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.firmware.tracking.roles import Role
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.rules import WCDF, BLACK, WHITE, Game, Position
from crownhead.rules.pdn import read_game

from helpers.rig import Rig
from test_seams_link import Wire, ask

#: Black's 12-16 (ply 5) gives a man away (tests/test_coach_review.py).
GIVEN_AWAY = "11-15 23-19 8-11 22-17 12-16 19x12 4-8 25-22 15-19 24x15"
NODES = 3000


def _played(tmp_path: Path, rig: Rig) -> str:
    """The game with the blunder played on the board and resigned by Black: its kept name."""
    for move in GIVEN_AWAY.split():
        rig.do(move)
    assert rig.moves() == GIVEN_AWAY.split()
    rig.do("hold resign")  # Black, to move, resigns
    assert rig.app.game.result is not None and rig.app.game.result.score == "0-1"
    (kept,) = GameStore(tmp_path).game_files()
    return kept.stem


def _losing_ply(tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str]) -> int:
    """``crownhead review GAME --json``: the ply of the one blunder."""
    capsys.readouterr()
    assert main(["review", game, "--json", "--nodes", str(NODES), "--state-dir", str(tmp_path)]) == 0
    review = json.loads(capsys.readouterr().out)
    assert main(["review", game, "--nodes", str(NODES), "--state-dir", str(tmp_path)]) == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said == f"Play 3. 12-16 again on the board: crownhead run --from-game {game} --ply 4 --mode computer"
    (blunder,) = [p for p in review["plies"] if p["mark"] == "??"]
    assert (blunder["ply"], blunder["move"], blunder["side"]) == (5, "12-16", "black")
    return int(blunder["ply"])


def _set_up_by_hand(rig: Rig, near_first: tuple[int, ...]) -> list[int]:
    """Follow the lights as a person does, one rank at a time: lift what is lit to come
    off (a wrong piece put aside), put the right piece where one is missing. Checks that
    only the rank said is lit; returns the ranks in the order they were shown."""
    ranks: list[int] = []
    changed: set[int] = set()
    while rig.app.setting_up is not None:
        step = rig.app.guide.step
        assert step is not None
        ranks.append(step.rank)
        if step.change:
            changed.add(step.rank)
        lit = {s for s, r in rig.app.lit_roles.items() if r in (Role.MISSING, Role.EXTRA)}
        assert lit == step.squares and lit <= set(rank_squares(step.rank)), (step, lit)
        target = rig.app.setting_up
        for square in sorted(lit):
            if square in rig.sim.pieces:
                rig.sim.lift(square)
                rig.sim.hand.pop()  # into the box
                rig.wait(100)
            piece = target.piece_at(square)
            if piece is not None:
                assert rig.app.lit_roles.get(square) == Role.MISSING  # lifted: now to be filled
                rig.sim.place(square, piece.symbol)
                rig.wait(100)
        assert len(ranks) < 20
    # Ranks whose pieces must change came first, then the others from the player's side.
    assert ranks == sorted(ranks, key=lambda r: (r not in changed, near_first.index(r))), (ranks, changed)
    assert len(set(ranks)) == len(ranks)  # each rank once: finished before the next
    return ranks


def test_a_reviewed_game_tried_again_from_its_losing_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rig = Rig(tmp_path, players={BLACK: Human("Ann"), WHITE: Human("Bob")}, start=False)
    voice = BoardVoice(None, Phrasebook("en")).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    game = _played(tmp_path, rig)
    ply = _losing_ply(tmp_path, game, capsys)
    retry = retry_from(rig.store, game, ply - 1)  # the position before the losing move
    before = Game(None, WCDF)
    for move in GIVEN_AWAY.split()[: ply - 1]:
        before.play_text(move)
    assert retry.position == before.position and retry.mover is BLACK
    # Against the machine: it takes White, Ann plays Black's move again.
    TryAgain(retry, "computer", RandomMover(5)).attach(rig.app)
    mark = voice.said_count
    rig.wait(100)
    assert rig.app.setting_up == retry.position and rig.app.mode.name == "computer"
    assert rig.app.message.startswith(f"Try again from game {game} after 4 of its 10 plies")
    # The last game's White man on 12 stands where Black's man belongs: it must change.
    assert 12 in rig.app.guide.step.change if rig.app.guide.step else False
    ranks = _set_up_by_hand(rig, near_first=(8, 7, 6, 5, 4, 3, 2, 1))  # Black's side first
    assert ranks[0] == 6  # the rank of 12
    said = [s.text for s in voice.said_since(mark)]
    assert "Rank 6, squares 9 to 12." in said
    assert "The piece on 12 is the wrong one: lift it and put the one named." in said
    assert "Black men on 9, 10, 11 and 12." in said
    assert rig.app.game.start == retry.position and rig.app.game.ply == 0
    # Ann plays on, the better move this time; the machine answers; then she resigns all the same.
    rig.do("9-13")
    rig.follow()  # the machine's reply, made by hand
    assert rig.app.game.ply == 2
    rig.do("hold resign")
    assert rig.app.game.result is not None and rig.app.game.result.score == "0-1"
    files = GameStore(tmp_path).game_files()
    assert len(files) == 2
    again = read_game(files[-1].read_text(), files[-1].name)
    assert again is not None
    assert again.tags[FROM_GAME] == game and again.tags[FROM_PLY] == "4"
    assert again.start == retry.position and [m.pdn() for m in again.moves][0] == "9-13"
    rig.close()


def test_the_page_tries_a_game_again_with_a_friend(tmp_path: Path) -> None:
    rig = Rig(tmp_path, start=False)
    rig.connect(Wire(), LinkConfig())
    rig.app.start()
    rig.wait(100)
    game = _played(tmp_path, rig)
    answer = ask(rig, f"again {game} 99 play")
    assert answer["event"] == "error" and "has 10 plies: the ply is 0 (its start) to 10, not 99" in answer["message"]
    assert ask(rig, "again nosuchgame 1")["code"] == "bad-argument"
    answer = ask(rig, f"again {game} 6 play")
    position = read_game(GameStore(tmp_path).game_files()[0].read_text()).positions[6]  # type: ignore[union-attr]
    assert answer["event"] == "reply" and answer["fen"] == position.fen()
    assert rig.app.mode.name == "play" and rig.app.setting_up == position
    rig.follow()
    assert rig.app.game.start == position and rig.app.record is not None
    assert rig.app.record.extra == {FROM_GAME: game, FROM_PLY: "6"}
    # Saved as it goes: a power cut keeps the reference with the game in progress.
    saved = json.loads((tmp_path / "current.json").read_text())
    assert saved["extra"] == {FROM_GAME: game, FROM_PLY: "6"} and saved["start_fen"] == position.fen()
    rig.close()


def test_run_from_game_checks_its_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(tmp_path)
    assert main(["run", "--headless", "--from-game", "1", "--state-dir", state]) == 2
    assert "--from-game and --ply go together" in capsys.readouterr().err
    assert main(["run", "--headless", "--from-game", "1", "--ply", "0", "--state-dir", state]) == 2
    assert "--from-game: no kept game '1'" in capsys.readouterr().err
    assert main(["run", "--headless", "--mode", "referee", "--from-game", "1", "--ply", "0", "--state-dir", state]) == 2
    assert "computer or play mode" in capsys.readouterr().err


def test_a_position_with_no_move_left_is_not_tried_again(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "g1.pdn").write_text('[SetUp "1"]\n[FEN "B:W18:B14"]\n1. 14x23 1-0\n')
    with pytest.raises(ValueError, match="is over after 1 plies: white has no move to try"):
        retry_from(store, "g1", 1)
    assert retry_from(store, "1", 0).position == Position.from_fen("B:W18:B14")


def test_run_from_game_sets_up_the_position_and_keeps_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # crownhead run itself, headless on the simulated board, hands from a replay script.
    game = Game(None, WCDF)
    for move in GIVEN_AWAY.split():
        game.play_text(move)
    game.declare("0-1", "resign")
    store = GameStore(tmp_path)
    kept = store.finish(GameRecord.new(black="Ann", white="Bob", rules=WCDF).with_game(game)).stem
    script = tmp_path / "hands.txt"
    # The person plays Black (the machine White) from Black's side: rank 7 first (8 off),
    # then 15, then 17 and 19 on (the man lifted from 8 goes on 15), then 22 and 23 off.
    script.write_text(
        "lift 8\nwait 200\nplace 15\nwait 200\nplace 17\nplace 19\nwait 200\n"
        "lift 22\nlift 23\nwait 500\nlift 9\nplace 13\nwait 500\n"
    )
    argv = ["run", "--hal", "sim", "--headless", "--log", "json", "--script", str(script)]
    argv += ["--from-game", kept, "--ply", "4", "--mode", "computer", "--opponent", "random", "--seed", "1"]
    assert main([*argv, "--state-dir", str(tmp_path)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [e["rank"] for e in events if e["event"] == "setup-rank"] == [7, 5, 4, 3]
    assert [e["move"] for e in events if e["event"] == "move"][:1] == ["9-13"]
    saved = json.loads((tmp_path / "current.json").read_text())
    assert saved["extra"] == {FROM_GAME: kept, FROM_PLY: "4"} and saved["moves"][0] == "9-13"
    assert saved["mode"] == "computer"


def test_no_game_is_tried_again_during_a_match(tmp_path: Path) -> None:
    from crownhead.firmware.storage.matches import MatchStore, new_match

    rig = Rig(tmp_path, start=False)
    rig.connect(Wire(), LinkConfig())
    rig.app.start()
    rig.wait(100)
    game = _played(tmp_path, rig)
    MatchStore(tmp_path).save(new_match("Ana", "Ben", games=2))
    answer = ask(rig, f"again {game} 4 play")
    assert answer["event"] == "error" and answer["message"].startswith("a match is under way")
    rig.close()


def test_a_game_tried_again_is_numbered_from_the_move_chosen(tmp_path: Path) -> None:
    # Issue 54, item 8: tried again from move 3 (after 4 plies), the terminal said "move 1"
    # and numbered its moves from 1, as if the game began there.
    rig = Rig(tmp_path, players={BLACK: Human("Ann"), WHITE: Human("Bob")})
    rig.wait(100)
    game = _played(tmp_path, rig)
    retry = retry_from(rig.store, game, 4)
    TryAgain(retry, "play").attach(rig.app)
    rig.wait(100)
    rig.follow()
    assert rig.app.setting_up is None
    assert rig.app.view().status == "Black to move, move 3"
    rig.do("9-13")
    rig.do("24-20")
    view = rig.app.view()
    assert view.status == "Black to move, move 4"
    assert view.first_number == 3
    from crownhead.firmware.simulator.tui import render

    assert "  3. 9-13     24-20" in render(view).text()
    rig.close()
