"""The hint button asks the engine for the side to move's best move and lights it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.settings import PlayConfig
from crownhead.firmware.config import FieldError
from crownhead.firmware.app.leds import ENGINE_HINT_ROLES, LedSettings, Palette
from crownhead.firmware.app.players import Computer, Human, Thinker
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.rules import WCDF, BLACK, WHITE, Game, Move, Position
from crownhead.rules.engine import Engine
from helpers.colour_vision import MATRICES, MIN_DISTANCE, distance
from helpers.rig import PAL, MakeRig, Rig, dim, referee_rig

DEPTH = 3


class CountingEngine(Computer):
    """The engine at a fixed depth (fast and deterministic), counting its searches."""

    def __init__(self, depth: int = DEPTH) -> None:
        self.calls = 0
        self.depth = depth
        super().__init__(self._search, "test engine")

    def _search(self, position: Position, game: Game) -> Move:
        self.calls += 1
        result = Engine(game.rules).search(position, depth=self.depth, history=game.positions[:-1])
        assert result.move is not None
        return result.move


def best(position: Position, history: tuple[Position, ...] = ()) -> Move:
    move = Engine().search(position, depth=DEPTH, history=history).move
    assert move is not None
    return move


def hint_rig(tmp_path: Path, **kwargs: object) -> tuple[Rig, CountingEngine]:
    rig = Rig(tmp_path, start=False, **kwargs)  # type: ignore[arg-type]
    engine = CountingEngine()
    rig.app.hint_player = engine
    rig.app.start()
    return rig, engine


def test_hint_lights_the_engines_best_move_until_it_is_made(tmp_path: Path) -> None:
    rig, engine = hint_rig(tmp_path)
    move = best(Position.start())
    assert rig.lit == {}
    t0 = rig.clock.now_ms()
    rig.do("h", wait=100)
    assert engine.calls == 1
    assert rig.app.hint == move
    assert rig.lit == {move.start: PAL.hint_from, move.end: PAL.hint_to}
    assert {move.start: PAL.hint_from, move.end: PAL.hint_to} in rig.frames_between(t0, rig.clock.now_ms())
    assert rig.app.view().status == f"Black to move, move 1; hint: {move.pdn()}"
    # Pressed again: the move found stands, without a second search.
    rig.do("h", wait=100)
    assert engine.calls == 1 and rig.app.hint == move
    rig.do(move.pdn())
    assert rig.moves() == [move.pdn()]
    assert rig.app.hint is None
    assert rig.lit == {move.start: dim(PAL.last_from), move.end: dim(PAL.last_to)}
    assert rig.app.view().status == "White to move, move 1"
    rig.close()


def test_hint_is_drawn_under_the_lifted_pieces_targets(tmp_path: Path) -> None:
    rig, _ = hint_rig(tmp_path)
    move = best(Position.start())
    rig.do("h", wait=100)
    other = next(s for s in (9, 10, 11, 12) if s != move.start)
    rig.do(str(other), wait=100)  # another piece lifted
    lit = rig.lit
    assert lit[other] == PAL.touched
    assert lit[move.start] == PAL.hint_from
    targets = {m.end for m in Position.start().legal_moves(WCDF) if m.start == other}
    assert all(lit[t] == PAL.target for t in targets)
    rig.close()


def test_hint_shows_a_capture_route_and_the_pieces_it_jumps(tmp_path: Path) -> None:
    position = Position.from_fen("B:W9,18,32:B5,1")
    move = best(position)
    assert move == Move((5, 14, 23), (9, 18))  # the double jump wins both men
    rig, _ = hint_rig(tmp_path, board=position, settings=AppSettings(start=position))
    assert rig.lit == {5: PAL.must_capture}
    rig.do("h", wait=100)
    assert rig.lit == {5: PAL.hint_from, 14: PAL.hint_path, 23: PAL.hint_to, 9: PAL.hint_capture, 18: PAL.hint_capture}
    assert rig.app.view().status.endswith("; hint: 5x23")
    rig.close()


def test_hint_with_hints_off_and_for_white(tmp_path: Path) -> None:
    rig, _ = hint_rig(tmp_path, leds=LedSettings(hints=False))
    rig.do("11-15")
    game = rig.app.tracker.game
    move = best(game.position, tuple(game.positions[:-1]))
    rig.do("h", wait=100)
    assert rig.lit == {
        11: dim(PAL.last_from),
        15: dim(PAL.last_to),
        move.start: PAL.hint_from,
        move.end: PAL.hint_to,
    }
    rig.close()


def test_takeback_and_new_game_drop_the_hint(tmp_path: Path) -> None:
    rig, engine = hint_rig(tmp_path)
    rig.do("11-15")
    rig.do("h", wait=100)
    assert rig.app.hint is not None
    rig.do("t", wait=100)
    assert rig.of_kind("takeback")
    assert rig.app.hint is None
    assert rig.lit == {11: PAL.missing, 15: PAL.extra}  # only the takeback's guidance
    rig.do("f")
    rig.do("h", wait=100)
    assert rig.app.hint is not None and engine.calls == 2
    rig.do("n", wait=100)
    assert rig.app.hint is None
    rig.close()


def test_hint_while_a_piece_is_in_hand_reveals_only_its_targets(tmp_path: Path) -> None:
    rig, engine = hint_rig(tmp_path, leds=LedSettings(hints=False))
    rig.do("11", wait=100)
    rig.do("h", wait=100)
    assert rig.lit == {11: PAL.touched, 15: PAL.target, 16: PAL.target}
    assert engine.calls == 0
    rig.close()


def test_referee_mode_lights_nothing_for_hint(tmp_path: Path) -> None:
    # Hint colours that nothing else in the palette uses, so any hint light would show.
    unique = {"hint_from": "#010203", "hint_path": "#040506", "hint_to": "#070809", "hint_capture": "#0a0b0c"}
    palette = Palette.from_mapping(unique)
    board = referee_rig(
        tmp_path, RefereeSettings(record_dir=str(tmp_path / "record")), leds=LedSettings(palette=palette)
    )
    engine = CountingEngine()
    board.app.hint_player = engine
    board.script("press hint\nwait 200\n")
    assert engine.calls == 0
    assert board.app.hint is None
    seen = {rgb for f in board.sim.lights.frames for rgb in f.frame.values()}
    assert not seen & {palette.colour(r) for r in ENGINE_HINT_ROLES}
    assert "hint" not in board.app.view().status
    board.app.close()


def test_computer_mode_hint_only_for_the_person_to_move(tmp_path: Path) -> None:
    machine = CountingEngine(depth=2)
    rig, engine = hint_rig(
        tmp_path, settings=AppSettings(mode="computer", auto_crown=True), players={BLACK: Human("Ann"), WHITE: machine}
    )
    rig.do("11-15")
    assert len(rig.of_kind("computer-move")) == 1 and machine.calls == 1
    # The machine is to move (its move shown): the button starts no hint search.
    rig.do("h", wait=100)
    assert engine.calls == 0 and rig.app.hint is None
    assert machine.calls == 1 and len(rig.of_kind("computer-move")) == 1
    rig.do("f")
    assert len(rig.moves()) == 2
    # Ann is to move: the hint is hers.
    rig.do("h", wait=100)
    assert engine.calls == 1 and rig.app.hint is not None
    assert machine.calls == 1
    rig.close()


def test_hint_is_found_in_the_background_without_stalling_the_loop(make_rig: MakeRig) -> None:
    release, done = threading.Event(), threading.Event()
    move = best(Position.start())

    def slow(position: Position, game: Game) -> Move:
        release.wait(120)  # the test releases it; a bound on a failure only
        done.set()
        return move

    rig = make_rig(start=False)
    rig.app.hint_player = Computer(slow, "slow engine")
    rig.app.hint_thinker = Thinker(background=True)
    rig.app.start()
    rig.do("h", wait=100)  # returns while the search is still running
    assert rig.app.hint_thinker.busy and rig.app.hint is None
    assert rig.app.view().prompt == "Looking for a hint..."
    release.set()
    assert done.wait(120)
    rig.wait_for(lambda: rig.app.hint is not None, "the hint")  # the worker thread hands it over
    assert rig.app.hint == move
    assert rig.lit == {move.start: PAL.hint_from, move.end: PAL.hint_to}


def test_hint_movetime_is_validated() -> None:
    PlayConfig(hint_movetime_ms=500).validate()
    for bad in (0, 10, 60_000):
        with pytest.raises(FieldError, match="50-10000") as caught:
            PlayConfig(hint_movetime_ms=bad).validate()
        assert caught.value.key == "hint_movetime_ms"


def test_default_hint_player_uses_the_configured_movetime(make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(hint_movetime_ms=50))
    rig.do("h", wait=100)
    assert rig.app.hint_player is not None and not rig.app.hint_player.is_human
    assert rig.app.hint in Position.start().legal_moves(WCDF)


def test_hint_colours_stay_apart_from_what_shares_the_board_with_them() -> None:
    """The hinted piece must stand out from the other pieces that must capture, and its
    start, end and jumped pieces from each other, for colour-blind players too (the same
    simulation as tests/test_leds.py)."""

    pairs = [
        ("hint-from", "must-capture"),
        ("hint-from", "hint-to"),
        ("hint-from", "hint-capture"),
        ("hint-to", "hint-capture"),
        ("hint-capture", "must-capture"),
        ("hint-from", "target"),
    ]
    for vision in MATRICES:
        for a, b in pairs:
            assert distance(PAL.colour(a), PAL.colour(b), vision) > MIN_DISTANCE, (vision, a, b)


def test_no_hint_in_a_game_far_apart(tmp_path: Path) -> None:
    """A game between homes gets no engine help: the other side could not see it."""
    rig, engine = hint_rig(tmp_path, settings=AppSettings(far_apart=True))
    rig.do("h", wait=600)
    assert rig.app.hint is None and engine.calls == 0
    assert "hint:" not in rig.app.view().status
    said = [e.to_json().get("message") for e in rig.events if e.kind == "notice"]
    assert "no hint in a game far apart: neither side gets the engine's help" in said
    rig.close()
