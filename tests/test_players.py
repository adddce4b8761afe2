"""Players: people, computers around choose(), the random test mover, the thinker."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from crownhead.firmware.app.players import (
    Computer,
    EngineUnavailable,
    Human,
    PlayerError,
    RandomMover,
    Thinker,
    copy_game,
    engine_player,
)
from crownhead.rules import WCDF, Game, Move, Position


def test_random_mover_plays_legal_moves_to_the_end() -> None:
    mover = RandomMover(seed=4)
    game = Game(None, WCDF)
    while not game.is_over:
        move = mover.choose(game.position, game)
        assert move in game.legal_moves()
        game.play(move)
    assert game.result is not None


def test_random_mover_is_reproducible_and_clearly_named() -> None:
    def moves(seed: int) -> list[Move]:
        mover, game = RandomMover(seed), Game(None, WCDF)
        out = []
        for _ in range(20):
            move = mover.choose(game.position, game)
            game.play(move)
            out.append(move)
        return out

    assert moves(1) == moves(1) != moves(2)
    assert "test" in RandomMover().name.lower() and "random" in RandomMover().name.lower()


def test_computer_refuses_an_illegal_choice() -> None:
    bad = Computer(lambda pos, game: Move((1, 5)), "Broken")
    game = Game(None, WCDF)
    with pytest.raises(PlayerError, match=r"Broken chose 1-5, which is not legal"):
        bad.choose(game.position, game)


def test_computer_wraps_engine_crash() -> None:
    def boom(pos: Position, game: Game) -> Move:
        raise ZeroDivisionError("oops")

    game = Game(None, WCDF)
    with pytest.raises(PlayerError, match="Crashy failed: ZeroDivisionError: oops"):
        Computer(boom, "Crashy").choose(game.position, game)


def test_computer_asked_without_legal_moves() -> None:
    game = Game(Position.from_fen("B:W32:B28"), WCDF)  # Black's man on 28 is blocked by 32
    assert not game.legal_moves()
    with pytest.raises(PlayerError, match="without legal moves"):
        RandomMover().choose(game.position, game)


def test_human() -> None:
    assert Human("Ann").is_human and Human().name == "?"


def test_engine_player_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EngineUnavailable, match="--opponent random"):
        engine_player("rules.no_such_engine")


def test_engine_player_uses_module_choose(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    fake = types.ModuleType("fake_engine_for_tests")

    def choose(position: Position, game: Game, **options: object) -> Move:
        calls.append(options)
        return position.legal_moves(game.rules)[-1]

    fake.choose = choose  # type: ignore[attr-defined]
    fake.NAME = "Fake engine"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_engine_for_tests", fake)
    player = engine_player("fake_engine_for_tests", level=3, movetime_ms=50)
    game = Game(None, WCDF)
    assert player.name == "Fake engine (level 3)" and not player.is_human
    assert player.choose(game.position, game) == game.legal_moves()[-1]
    assert calls == [{"strength": 3, "movetime_ms": 50}]


def test_engine_player_uses_an_engine_class(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[object, object]] = []
    searched: list[dict[str, object]] = []

    class FakeEngine:
        def __init__(self, rules: object, *, seed: object = None) -> None:
            made.append((rules, seed))

        def search(self, position: Position, **limits: object) -> object:
            searched.append(limits)
            return types.SimpleNamespace(move=position.legal_moves(WCDF)[0])

    fake = types.ModuleType("fake_engine_class_for_tests")
    fake.Engine = FakeEngine  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_engine_class_for_tests", fake)
    player = engine_player("fake_engine_class_for_tests", level=2, seed=7)
    game = Game(None, WCDF)
    game.play_text("11-15")
    for _ in range(2):
        assert player.choose(game.position, game) == game.legal_moves()[0]
    assert made == [(game.rules, 7)]  # one engine for the whole game
    assert searched[0]["strength"] == 2 and searched[0]["history"] == game.positions[:-1]


def test_the_real_engine_plays_legal_moves() -> None:
    player = engine_player(level=1, seed=1)
    game = Game(None, WCDF)
    for _ in range(4):
        move = player.choose(game.position, game)
        assert move in game.legal_moves()
        game.play(move)
    assert player.name.startswith("Crownhead engine")


def test_the_real_engine_plays_an_ending_from_its_tables() -> None:
    from crownhead.firmware.egdb import SHIPPED, load_probe

    # Two kings against one in the double corner: the tables know the fastest win, 31
    # plies, far beyond what a search sees, and the engine plays it move by move.
    player = engine_player(seed=1, egdb=load_probe(SHIPPED))
    game = Game(Position.from_fen("B:WK32:BK1,K5"), WCDF)
    while game.result is None and game.ply < 40:
        game.play(player.choose(game.position, game))
    assert game.result is not None and game.result.score == "1-0" and game.ply == 31


def test_engine_player_without_choose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "empty_engine_for_tests", types.ModuleType("empty_engine_for_tests"))
    with pytest.raises(EngineUnavailable, match="neither a choose"):
        engine_player("empty_engine_for_tests")


def test_copy_game_is_independent() -> None:
    game = Game(None, WCDF)
    game.play_text("11-15")
    copy = copy_game(game)
    copy.play_text("23-19")
    assert game.ply == 1 and copy.ply == 2
    assert copy.moves[0] == game.moves[0]


def test_inline_thinker_answers_at_once() -> None:
    thinker = Thinker(background=False)
    game = Game(None, WCDF)
    thinker.start(RandomMover(1), game)
    assert thinker.busy and thinker.thinking_about(game)
    move = thinker.poll()
    assert move in game.legal_moves()
    assert not thinker.busy and thinker.poll() is None


def test_inline_thinker_reraises_player_errors() -> None:
    thinker = Thinker(background=False)
    game = Game(None, WCDF)
    thinker.start(Computer(lambda p, g: Move((1, 5)), "Broken"), game)
    with pytest.raises(PlayerError):
        thinker.poll()


def test_background_thinker_does_not_block_and_sees_a_snapshot() -> None:
    release = threading.Event()
    seen: list[int] = []

    def slow(position: Position, game: Game) -> Move:
        seen.append(game.ply)
        assert release.wait(120)
        return position.legal_moves(WCDF)[0]

    thinker = Thinker(background=True)
    game = Game(None, WCDF)
    thinker.start(Computer(slow, "Slow"), game)
    assert thinker.poll() is None  # still thinking; the caller was not blocked
    game.play_text("11-15")  # the board plays on; the thinker's copy is unaffected
    release.set()
    deadline = time.monotonic() + 60  # the thread's answer; a bound on a failure only
    while (move := thinker.poll()) is None and time.monotonic() < deadline:
        threading.Event().wait(0.01)
    assert move == Position.start().legal_moves(WCDF)[0]
    assert seen == [0]


def test_cancelled_thinker_forgets_the_answer() -> None:
    thinker = Thinker(background=False)
    game = Game(None, WCDF)
    thinker.start(RandomMover(1), game)
    thinker.cancel()
    assert thinker.poll() is None and not thinker.busy
    game.play_text("11-15")
    assert not thinker.thinking_about(game)
