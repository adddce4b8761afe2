"""Win/draw/loss tables: packed from built ones, probed like them, and the engine wins with them."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from bench.games import game_end  # noqa: E402
from crownhead.firmware.cli import main  # noqa: E402
from crownhead.firmware.egdb import SHIPPED, blocks, file_name, load_probe, load_table, wdl_name  # noqa: E402
from crownhead.firmware.egdb.wdl import pack, pack_folder  # noqa: E402
from crownhead.rules import WCDF, Game, Position  # noqa: E402
from crownhead.rules.engine import Engine  # noqa: E402
from crownhead.rules.engine.egdb import (  # noqa: E402
    LOST,
    WON,
    boards_of,
    check,
    materials,
    outcome,
    size_of,
)
from crownhead.rules.engine.search import TABLE_WIN  # noqa: E402
from crownhead.rules.movegen import jumpers  # noqa: E402

#: Four-piece materials packed here (each with its mirror): kings only, men and kings.
KINGS = [(0, 2, 0, 2), (0, 3, 0, 1), (0, 1, 0, 3)]
PACKED = [*KINGS, (0, 2, 1, 1), (1, 1, 0, 2), (2, 0, 1, 1), (1, 1, 2, 0)]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of up to three pieces with distances, and the four-piece materials of
    :data:`PACKED` as win/draw/loss tables only."""
    folder = tmp_path_factory.mktemp("wdl")
    for m in materials(3):
        shutil.copy(SHIPPED / file_name(m), folder)
    for m in PACKED:
        blocks.write_wdl(folder / wdl_name(m), m, pack(m, load_table(SHIPPED / file_name(m))[1]))
    return folder


def test_a_packed_table_gives_every_position_the_outcome_of_the_built_one(mixed: Path) -> None:
    probe = load_probe(mixed)
    exact = load_probe(SHIPPED)
    assert probe is not None and exact is not None and probe.wdl == set(PACKED)
    rng = random.Random(3)
    captures = 0
    for m in PACKED:
        for _ in range(600):
            boards = boards_of(rng.randrange(size_of(m)), m)
            if boards is None:
                continue
            captures += bool(jumpers(*boards, True))
            got, want = probe.value(*boards, True), exact.value(*boards, True)
            assert got is not None and want is not None
            assert outcome(got) == outcome(want), (m, boards, got, want)
            # Positions with a capture are worked out from the smaller tables: there a
            # distance may be known, elsewhere it is not.
            assert got in (0, WON, LOST) or jumpers(*boards, True)
    assert captures > 100  # the left-out positions were among those checked


def test_a_packed_table_is_small_and_checks_against_its_moves(mixed: Path) -> None:
    for m in PACKED:  # under a bit a position, where unpacked it would be two
        assert (mixed / wdl_name(m)).stat().st_size * 8 < size_of(m)
    probe = load_probe(mixed)
    assert probe is not None
    rng = random.Random(5)
    for m in KINGS:  # whose moves all lead to tables there are
        assert check(m, probe, [rng.randrange(size_of(m)) for _ in range(150)]) == []


def test_a_table_with_distances_is_preferred_to_a_packed_one(mixed: Path, tmp_path: Path) -> None:
    for path in mixed.iterdir():
        shutil.copy(path, tmp_path)
    shutil.copy(SHIPPED / file_name(PACKED[0]), tmp_path)
    probe = load_probe(tmp_path)
    assert probe is not None and PACKED[0] not in probe.wdl and PACKED[1] in probe.wdl


def test_pack_writes_what_is_missing_and_keeps_the_rest(tmp_path: Path) -> None:
    source = tmp_path / "built"
    source.mkdir()
    for m in materials(3):
        shutil.copy(SHIPPED / file_name(m), source)
    packed = pack_folder(source, tmp_path / "out", (3, 3))
    assert packed == [m for m in materials(3) if sum(m) == 3]
    first = tmp_path / "out" / wdl_name(packed[0])
    stamp = first.stat().st_mtime_ns
    assert pack_folder(source, tmp_path / "out", (3, 3)) == packed
    assert first.stat().st_mtime_ns == stamp
    assert (
        main(["egdb", "pack", "--dir", str(source), "--to", str(tmp_path / "cli"), "--pieces", "2-3", "--quiet"]) == 0
    )
    assert len(list((tmp_path / "cli").glob("*.wdl"))) == len(materials(3))
    assert (
        main(["egdb", "pack", "--dir", str(source), "--to", str(tmp_path / "x"), "--pieces", "4", "--quiet"]) == 1
    )  # no four-piece tables there
    assert main(["egdb", "pack", "--to", str(tmp_path), "--pieces", "7"]) == 2


def test_a_won_ending_is_kept_won_and_scored_above_any_evaluation(mixed: Path) -> None:
    probe = load_probe(mixed)
    # Two kings against a king and a man (first position, White to move: won).
    start = Position.from_fen("W:WK19,K23:BK28,12")
    assert probe is not None and probe.probe_position(start) == ("win", -1)
    result = Engine(egdb=probe).search(start, depth=1)
    assert TABLE_WIN - 1000 < result.score < TABLE_WIN + 1000
    # Without the move it is drawn: no move may lose it.
    drawn = Position.from_fen("B:WK19,K23:BK28,12")
    for depth in (1, 3):
        move = Engine(egdb=probe).search(drawn, depth=depth).move
        assert move is not None
        after = drawn.apply(move, WCDF)
        assert probe.probe_position(after) is not None
        assert probe.probe_position(after)[0] == "draw"  # type: ignore[index]


@pytest.mark.parametrize(
    "fen",
    [
        "B:WK2,12:BK14,K18",  # two kings against a king and a man, won in 33 plies
        "B:WK19,K26:B1,K18",  # a king and a man against two kings, in 31
        "B:WK5,19:B11,28",  # two men against a king and a man, in 47
        "B:W22,30:BK19,24",  # a king and a man against two men, in 41
    ],
)
def test_the_engine_converts_won_endings_knowing_only_that_they_are_won(mixed: Path, fen: str) -> None:
    probe = load_probe(mixed)
    exact = load_probe(SHIPPED)
    game = Game(Position.from_fen(fen), WCDF)
    winner = Engine(seed=0, egdb=probe)
    defender = Engine(seed=0, egdb=exact)  # the longest loss, every move
    while (over := game_end(game)) is None:
        engine = winner if game.position.turn == game.start.turn else defender
        found = engine.search(game.position, history=game.positions[:-1], nodes=5_000)
        assert found.move is not None
        game.play(found.move)
    assert over.score == "1-0", (over, game.ply)


def test_first_position_is_not_won_without_distances(mixed: Path) -> None:
    # The known limit of a table without distances (docs/engine.md): First Position's win
    # takes a technique the evaluation does not know, and the engine, told only that it is
    # won, marks time until the 40-move rule. That is why tables of up to four pieces,
    # where it lies, ship with their distances; with them it is won.
    exact = load_probe(SHIPPED)
    outcomes = {}
    for name, probe in (("won only", load_probe(mixed)), ("distances", exact)):
        game = Game(Position.from_fen("W:WK19,K23:BK28,12"), WCDF)
        winner = Engine(seed=0, egdb=probe)
        defender = Engine(seed=0, egdb=exact)
        while (over := game_end(game)) is None:
            engine = winner if game.position.turn == game.start.turn else defender
            found = engine.search(game.position, history=game.positions[:-1], nodes=5_000)
            assert found.move is not None
            game.play(found.move)
        outcomes[name] = over.score
    assert outcomes == {"won only": "1/2-1/2", "distances": "0-1"}


def test_the_board_probes_its_build_with_the_shipped_tables_for_the_rest(tmp_path: Path) -> None:
    # A build of some materials in the state directory (say, five pieces with distances)
    # must not hide the six-piece tables that ship: each material from the build when it
    # has it, else from the package.
    from crownhead.firmware.cli.run import _endgame_tables

    built = tmp_path / "egdb"
    built.mkdir()
    m = (0, 1, 0, 1)
    shutil.copy(SHIPPED / file_name(m), built)
    probe = _endgame_tables(str(tmp_path))
    assert probe is not None and probe.pieces == 6
    assert probe.tables[m].path.parent == built  # type: ignore[attr-defined]
    assert probe.tables[(0, 2, 0, 1)].path.parent == SHIPPED  # type: ignore[attr-defined]
