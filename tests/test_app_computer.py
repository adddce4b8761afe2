"""Playing against the computer: the machine's move on the LEDs, made by a person's hands."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.players import Computer, Human, RandomMover, Thinker
from crownhead.firmware.storage.store import GameFile
from crownhead.rules import WCDF, BLACK, WHITE, Game, Move, Position
from helpers.rig import COMPUTER, PAL, MakeRig, dim, machine_rig


def test_machine_move_is_shown_and_only_it_is_accepted(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path)
    rig.do("11-15")
    chosen = rig.of_kind("computer-move")
    assert len(chosen) == 1 and chosen[0]["side"] == "white"
    assert chosen[0]["player"] == RandomMover.NAME
    move = Move(tuple(chosen[0]["path"]), tuple(chosen[0]["captures"]))
    assert move in Position.start().play(Move((11, 15)), WCDF).legal_moves(WCDF)
    # The LEDs show it: from (yellow), to (blue).
    assert rig.lit[move.start] == PAL.move_from and rig.lit[move.end] == PAL.move_to
    prompt = rig.app.view().prompt
    assert prompt.startswith(f"{RandomMover.NAME} plays {move.pdn()}")
    # A person makes another white move instead: refused, nothing committed.
    other = next(m for m in Position.start().play(Move((11, 15)), WCDF).legal_moves(WCDF) if m.start != move.start)
    rig.do(other.pdn(full=True), wait=1500)
    assert rig.moves() == ["11-15"]
    assert rig.of_kind("warning")[-1]["code"] == "illegal-move"
    assert f"wants {move.pdn()} played" in rig.of_kind("warning")[-1]["message"]
    rig.do(f"{other.end}-{other.start}", wait=500)
    # Now the machine's move, made by hand.
    rig.do("f")
    assert rig.moves() == ["11-15", move.pdn()]
    assert rig.lit == {move.start: dim(PAL.last_from), move.end: dim(PAL.last_to)}


def test_resign_while_the_machine_is_to_move_resigns_the_person(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path)
    rig.do("11-15")
    assert rig.of_kind("computer-move")[0]["side"] == "white"  # the machine is to move
    rig.do("r", wait=100)
    rig.do("r", wait=100)
    over = rig.of_kind("game-over")
    assert [(e["result"], e["reason"]) for e in over] == [("0-1", "resign")]
    assert rig.app.view().status == "Game over: White wins (resignation)"


def test_machine_plays_black_moves_first(make_rig: MakeRig) -> None:
    settings = AppSettings(mode="computer")
    rig = make_rig(settings=settings, players={BLACK: RandomMover(1), WHITE: Human()})
    chosen = rig.of_kind("computer-move")
    assert len(chosen) == 1 and chosen[0]["side"] == "black"
    assert rig.app.view().mode_text == "Computer plays Black, hints on"


def test_complete_game_against_the_computer(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path, seed=8)
    rng = random.Random(8)
    game = rig.app.tracker.game
    for _ in range(200):
        if game.is_over:
            break
        if game.turn is BLACK:
            rig.do(rng.choice(game.legal_moves()).pdn(full=True))
        else:
            expected = rig.app.tracker.expected
            assert expected is not None
            assert rig.lit[expected.start] == PAL.move_from
            rig.do("f")
        game = rig.app.tracker.game
    if not game.is_over:
        rig.do("r", wait=100)
    assert rig.of_kind("warning") == []
    machine = [e["move"] for e in rig.of_kind("computer-move")]
    made = [e["move"] for e in rig.of_kind("move") if e["side"] == "white"]
    assert machine == made
    saved = rig.of_kind("game-saved")
    tags = GameFile.read(Path(saved[-1]["path"])).tags
    assert tags["White"] == RandomMover.NAME and tags["Black"] == "Ann"
    assert tags["Event"] == "Game against the computer"


def test_takeback_in_computer_mode_takes_back_the_persons_move_too(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path)
    rig.do("11-15")
    rig.do("f")
    rig.do("t", wait=100)  # the machine's answer and the person's move both go (issue 13)
    assert rig.app.tracker.game.ply == 0 and [e["ply"] for e in rig.of_kind("takeback")] == [2, 1]
    answer = rig.moves()[1]
    start, end = answer.split("-")
    assert rig.app.view().prompt == (
        f"Take back 11-15 {answer}: put the man on {end} back on {start}; then the man on 15 back on 11 (f does it)."
    )
    rig.do("f")  # the board back as it was before the person's move
    assert rig.app.tracker.board_matches and rig.app.tracker.game.ply == 0
    # The person is to move again; the machine asks for nothing meanwhile.
    assert len(rig.of_kind("computer-move")) == 1 and rig.app.tracker.expected is None
    rig.do("9-13")
    rig.do("f")
    assert rig.app.tracker.game.ply == 2 and len(rig.of_kind("computer-move")) == 2


def test_person_moving_for_a_thinking_machine_is_put_back(make_rig: MakeRig) -> None:
    release = threading.Event()

    def slow(position: Position, game: Game) -> Move:
        release.wait(120)  # the test releases it; a bound on a failure only
        return position.legal_moves(WCDF)[0]

    players = {BLACK: Human(), WHITE: Computer(slow, "Slow engine")}
    rig = make_rig(settings=COMPUTER, players=players, thinker=Thinker(background=True))
    rig.do("11-15")
    assert "thinking" in rig.app.view().prompt
    rig.do("22-18")  # a person moves White before the machine has chosen
    # Refused, not accepted and then taken back: no move, no takeback, White still to move.
    assert not rig.of_kind("takeback") and rig.moves() == ["11-15"] and rig.app.tracker.game.ply == 1
    warning = rig.of_kind("warning")[-1]
    assert warning["squares"] == [22, 18]
    assert (
        warning["message"]
        == "white's moves come from Slow engine: wait until the board shows one; put the man back on 22"
    )
    assert rig.app.tracker.roles == {22: "missing", 18: "extra"}
    assert set(rig.lit) <= {22, 18} and set(rig.lit.values()) <= {PAL.missing, PAL.extra}  # blinking
    rig.do("18-22")
    assert rig.app.tracker.warning is None and rig.lit == {11: dim(PAL.last_from), 15: dim(PAL.last_to)}
    release.set()
    rig.wait_for(lambda: bool(rig.of_kind("computer-move")), "the engine's move")
    first = Position.start().play(Move((11, 15)), WCDF).legal_moves(WCDF)[0]
    assert rig.of_kind("computer-move")[0]["move"] == first.pdn()
    assert rig.app.tracker.expected == first


def test_failing_engine_hands_the_side_to_a_person(make_rig: MakeRig) -> None:
    def broken(position: Position, game: Game) -> Move:
        raise RuntimeError("search exploded")

    players = {BLACK: Human(), WHITE: Computer(broken, "Broken engine")}
    rig = make_rig(settings=COMPUTER, players=players)
    rig.do("11-15")
    notice = rig.of_kind("notice")[-1]["message"]
    assert "Broken engine failed: RuntimeError: search exploded" in notice
    rig.do("22-18")
    assert rig.moves() == ["11-15", "22-18"]
