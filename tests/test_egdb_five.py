"""Five-piece endgame databases: the NumPy builder, blocked files, the lazy probe.

The NumPy builder (:mod:`crownhead.firmware.egdb.retro`) must give the pure-Python reference's
bytes exactly; the five-piece tables are checked position by position against their
children's values (:func:`crownhead.rules.engine.egdb.check`), across captures and crownings into
the four-piece tables, and against the search. The whole five-piece build and its
verification are behind ``-m slow``; the default run builds and checks one slice.
"""

from __future__ import annotations

import logging
import random
import shutil
from pathlib import Path

import pytest

from crownhead.firmware.egdb import (
    SHIPPED,
    EgdbError,
    blocks,
    build,
    file_name,
    load_probe,
    load_table,
    load_tables,
    open_tables,
    retro,
    save_table,
)
from crownhead.rules import WCDF, Color, Game, Position
from crownhead.rules.engine import WIN, Engine
from crownhead.rules.engine.egdb import (
    EndgameTables,
    Material,
    boards_of,
    build as reference_build,
    check,
    materials,
    mirror,
    size_of,
)

pytestmark = pytest.mark.skipif(not retro.available(), reason="the builder needs NumPy 2")

#: Five pieces whose moves lead only into four-piece tables: four kings against one.
KINGS_41: Material = (0, 4, 0, 1)


@pytest.fixture(scope="module")
def shipped() -> dict[Material, bytes]:
    return load_tables(SHIPPED)


@pytest.fixture(scope="module")
def kings_41(shipped: dict[Material, bytes]) -> dict[Material, bytearray]:
    return retro.solve(KINGS_41, shipped)


def test_the_numpy_builder_gives_the_reference_bytes_up_to_three_pieces(shipped: dict[Material, bytes]) -> None:
    # The shipped tables are the reference's bytes (tests/test_egdb_files.py builds the
    # three-piece ones again with it; slow: all of them, with both builders).
    fast = retro.build(3)
    assert sorted(fast) == sorted(materials(3))
    for material, table in fast.items():
        assert bytes(table) == shipped[material], material


@pytest.mark.slow
def test_both_builders_give_the_same_four_piece_bytes() -> None:
    assert {m: bytes(t) for m, t in retro.build(4).items()} == {m: bytes(t) for m, t in reference_build(4).items()}


@pytest.mark.parametrize("material", [(1, 1, 1, 1), (2, 0, 1, 1), (2, 0, 2, 0), (0, 2, 1, 1)])
def test_the_numpy_builder_gives_the_shipped_four_piece_bytes(
    material: Material, shipped: dict[Material, bytes]
) -> None:
    known = {m: t for m, t in shipped.items() if m not in (material, mirror(material))}
    for m, table in retro.solve(material, known).items():
        assert bytes(table) == shipped[m], m


@pytest.mark.slow
def test_the_numpy_builder_gives_every_shipped_table(shipped: dict[Material, bytes]) -> None:
    fast = retro.build(4)
    assert {m: bytes(t) for m, t in fast.items()} == shipped


def test_a_five_piece_slice_agrees_with_its_children(
    kings_41: dict[Material, bytearray], shipped: dict[Material, bytes]
) -> None:
    probe = EndgameTables({**shipped, **kings_41})
    assert probe.pieces == 5
    rng = random.Random(5)
    for material in (KINGS_41, mirror(KINGS_41)):
        sample = [rng.randrange(size_of(material)) for _ in range(1500)]
        assert check(material, probe, sample) == [], material
    # The check can fail: one value changed is found.
    table = bytearray(kings_41[KINGS_41])
    index = next(i for i in range(len(table)) if table[i] > 3)
    table[index] += 2
    broken = EndgameTables({**shipped, KINGS_41: table, mirror(KINGS_41): kings_41[mirror(KINGS_41)]})
    assert check(KINGS_41, broken, [index]) == [index]


def test_four_kings_against_one_win_and_the_engine_converts(
    kings_41: dict[Material, bytearray], shipped: dict[Material, bytes]
) -> None:
    probe = EndgameTables({**shipped, **kings_41})
    start = Position.from_fen("B:WK32:BK1,K2,K3,K4")
    found = probe.probe_position(start)
    assert found is not None and found[0] == "win"
    assert probe.probe_position(Position.from_fen("W:WK32:BK1,K2,K3,K4"))[0] == "loss"  # type: ignore[index]
    # Four kings to move win from every one of the 35,960 x 28 positions (the other
    # indices put two pieces on one square).
    wins = sum(1 for v in kings_41[KINGS_41] if v and (v - 1) & 1)
    assert wins == 35_960 * 28
    game = Game(start, WCDF)
    engine = Engine(tt_size=1 << 14, egdb=probe)
    first = engine.search(game.position, depth=2)
    assert first.score == WIN - found[1]
    while game.result is None and game.ply < 60:
        move = engine.search(game.position, depth=2, history=game.positions[:-1]).move
        assert move is not None
        game.play(move)
    assert game.result is not None and game.result.score == "1-0"
    assert game.ply == found[1]


def test_blocked_files_round_trip_and_are_read_lazily(
    tmp_path: Path, kings_41: dict[Material, bytearray], shipped: dict[Material, bytes]
) -> None:
    _copy_shipped(tmp_path)
    for m, table in kings_41.items():
        save_table(tmp_path, m, table)
    assert file_name(KINGS_41) == "egdb-0401.blk"
    path = tmp_path / "egdb-0401.blk"
    assert path.stat().st_size < size_of(KINGS_41) // 3
    assert load_table(path) == (KINGS_41, bytes(kings_41[KINGS_41]))
    probe = load_probe(tmp_path, cache_bytes=64 * blocks.BLOCK)
    assert probe is not None and probe.pieces == 5
    lazy = probe.tables[KINGS_41]
    assert isinstance(lazy, blocks.BlockTable)
    assert lazy.cache.used == 0  # nothing read until probed
    rng = random.Random(3)
    for i in (rng.randrange(size_of(KINGS_41)) for _ in range(3000)):
        assert lazy[i] == kings_41[KINGS_41][i]
    # The cache never holds more than it was given.
    assert lazy.cache.used <= 64 * blocks.BLOCK and lazy.cache.misses > 64


def test_damaged_blocked_files_are_named_and_skipped(
    tmp_path: Path,
    kings_41: dict[Material, bytearray],
    shipped: dict[Material, bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    _copy_shipped(tmp_path)
    for m, table in kings_41.items():
        save_table(tmp_path, m, table)
    path = tmp_path / "egdb-0401.blk"
    data = bytearray(path.read_bytes())
    # A header that lies about the material.
    path.write_bytes(data[:8] + bytes([0, 3, 0, 2]) + data[12:])
    with pytest.raises(EgdbError, match=r"egdb-0401\.blk: holds material \(0, 3, 0, 2\)"):
        load_probe(tmp_path)
    with caplog.at_level(logging.WARNING, logger="crownhead.firmware.egdb"):
        probe = load_probe(tmp_path, skip_damaged=True)
    assert probe is not None and KINGS_41 not in probe.tables and mirror(KINGS_41) in probe.tables
    assert "egdb-0401.blk" in caplog.text
    # Cut short: the offsets no longer reach the end of the file.
    path.write_bytes(data[:-10])
    with pytest.raises(EgdbError, match="do not run from the header to the end"):
        open_tables(tmp_path, blocks.BlockCache())
    # Offsets that run backwards: the block is damage, found when it is read.
    backwards = bytearray(data)
    head = blocks._HEAD.size
    backwards[head + 8 : head + 16] = (len(data) - 1).to_bytes(8, "little")  # block 0 ends late
    path.write_bytes(backwards)
    table = blocks.BlockTable(path, KINGS_41, blocks.BlockCache())
    with pytest.raises(blocks.DamagedTable, match="block 1 ends before it starts"):
        table[blocks.BLOCK]
    table.close()
    # A block that does not inflate: found while probing, logged, the table left out.
    path.write_bytes(data)
    good = blocks.BlockTable(path, KINGS_41, blocks.BlockCache())
    n = len(good.offsets) // 2
    start, end = good.offsets[n], good.offsets[n + 1]
    good.close()
    broken = bytearray(data)
    broken[start:end] = bytes(end - start)
    path.write_bytes(broken)
    probe = load_probe(tmp_path)
    assert probe is not None
    index = next(i for i in range(n * blocks.BLOCK, (n + 1) * blocks.BLOCK) if boards_of(i, KINGS_41) is not None)
    own, opp, kings = boards_of(index, KINGS_41)  # type: ignore[misc]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="crownhead.firmware.egdb"):
        assert probe.value(own, opp, kings, True) is None
    assert f"egdb-0401.blk: block {n}" in caplog.text and KINGS_41 not in probe.tables
    assert probe.value(own, opp, kings, True) is None  # and stays out


def test_the_probe_needs_no_numpy(tmp_path: Path) -> None:
    """The probe reads blocked files with the standard library alone."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from crownhead.firmware.egdb import retro, load_probe\n"
        "assert not retro.available()\n"
        "print(load_probe().pieces)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in {"4", "5", "6"}  # whatever the state directory holds


def _copy_shipped(folder: Path) -> None:
    for path in SHIPPED.glob("*.xz"):
        shutil.copy(path, folder / path.name)


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of up to five pieces, built (minutes: slow tests only)."""
    folder = tmp_path_factory.mktemp("egdb5")
    _copy_shipped(folder)
    build(folder, 5)
    return folder


@pytest.mark.slow
def test_every_five_piece_table_agrees_with_its_children(five: Path) -> None:
    probe = load_probe(five)
    assert probe is not None and probe.pieces == 5
    assert sorted(probe.tables) == sorted(materials(5))
    rng = random.Random(55)
    for material in materials(5):
        if sum(material) < 5:
            continue
        sample = [rng.randrange(size_of(material)) for _ in range(3000)]
        assert check(material, probe, sample) == [], material


@pytest.mark.slow
def test_five_piece_tables_agree_with_the_search(five: Path) -> None:
    """Where a search that knows only four pieces finds a forced result, the tables say
    the same, and no faster: the tables have both sides play best, a search may find a
    slower win than there is (so a longer loss too), never a faster one."""
    probe = load_probe(five)
    four = load_probe(SHIPPED)
    assert probe is not None and four is not None
    rng = random.Random(7)
    decided = 0
    for material in [m for m in materials(5) if sum(m) == 5]:
        tried = 0
        while tried < 6:
            boards = boards_of(rng.randrange(size_of(material)), material)
            if boards is None:
                continue
            tried += 1
            own, opp, kings = boards
            position = Position(own, opp, kings, Color.BLACK)
            value = probe.probe_position(position)
            assert value is not None
            found = Engine(tt_size=1 << 16, egdb=four).search(position, depth=7)
            if found.score > WIN - 1000:
                decided += 1
                assert value[0] == "win" and value[1] <= WIN - found.score, (position.fen(), value)
            elif found.score < -(WIN - 1000):
                decided += 1
                assert value[0] == "loss" and value[1] <= WIN + found.score, (position.fen(), value)
    assert decided > 10


def test_verify_names_a_damaged_block(tmp_path: Path, kings_41: dict[Material, bytearray]) -> None:
    import argparse
    import io

    from crownhead.firmware.cli.egdb import run_verify

    _copy_shipped(tmp_path)
    for m, table in kings_41.items():
        save_table(tmp_path, m, table)
    args = argparse.Namespace(dir=tmp_path, sample=300, seed=1)
    out = io.StringIO()
    assert run_verify(args, out) == 1  # the other five-piece materials are missing
    assert "  0401  " not in out.getvalue() and "  0104  " not in out.getvalue()
    path = tmp_path / "egdb-0401.blk"
    good = blocks.BlockTable(path, KINGS_41, blocks.BlockCache())
    start = good.offsets[0]
    good.close()
    data = bytearray(path.read_bytes())
    data[start:] = bytes(len(data) - start)  # every block zeroed: none inflates
    path.write_bytes(data)
    out = io.StringIO()
    assert run_verify(args, out) == 1
    lines = out.getvalue().splitlines()
    assert "  0104  cannot be checked: a child the tables do not cover" in lines
    assert "  0401  damaged: a block does not read" in lines
    assert "  0302  missing" in lines
