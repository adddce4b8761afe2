"""Endgame databases on disk: the shipped tables, the build command, damaged files."""

from __future__ import annotations

import lzma
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from crownhead.firmware.egdb import (
    SHIPPED,
    EgdbError,
    build,
    file_name,
    load_probe,
    load_table,
    load_tables,
    save_table,
)
from crownhead.rules import WCDF, Position
from crownhead.rules.engine import WIN, Engine
from crownhead.rules.engine.egdb import EndgameTables, build as build_tables, materials, size_of


@cache
def three_pieces() -> dict[tuple[int, int, int, int], bytes]:
    """The tables of up to three pieces built in memory (seconds of CPU: built once)."""
    return {m: bytes(t) for m, t in build_tables(3).items()}


@pytest.fixture(scope="module")
def built_three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the build command filled with the tables of up to three pieces."""
    folder = tmp_path_factory.mktemp("egdb3")
    assert build(folder, 3) == materials(3)
    return folder


def test_the_shipped_tables_cover_four_pieces_and_match_a_fresh_build_of_three() -> None:
    shipped = load_tables(SHIPPED)
    assert sorted(shipped) == sorted(materials(4)) and len(shipped) == 41
    fresh = three_pieces()
    for material, table in fresh.items():
        assert shipped[material] == bytes(table), material
    assert sum(p.stat().st_size for p in SHIPPED.glob("*.xz")) < 2_000_000


@pytest.mark.parametrize(
    ("fen", "outcome"),
    [
        # First position (two kings against a king and a man, the strong side with the
        # move): White crowns 20 and wins (the ACF's "winning 1st position").
        ("W:W20,K15:BK28,12", "win"),
        # First Position itself (Lasker, diagram 93): the two kings win with the move
        # and only draw without it: the opposition decides.
        ("W:WK19,K23:BK28,12", "win"),
        ("B:WK19,K23:BK28,12", "draw"),
        # A "first position without": the strong side wins without the move.
        ("B:W22,K5:BK15,K6", "win"),
        # One king against one: drawn, wherever they stand, unless one is caught at once.
        ("B:WK32:BK1", "draw"),
        # Two kings against one in the double corner: still lost for the lone king.
        ("W:WK32:BK1,K5", "loss"),
    ],
)
def test_known_endings(fen: str, outcome: str) -> None:
    probe = load_probe(SHIPPED)
    assert probe is not None and probe.pieces == 6  # up to 4 with distances, 5-6 won or not
    found = probe.probe_position(Position.from_fen(fen))
    assert found is not None and found[0] == outcome, (fen, found)


@pytest.mark.parametrize(
    "fen", ["B:W20:B30,K1", "W:W3:BK10,K14", "B:WK20:B29,K1", "W:W2,K8:BK10", "B:W2:BK10,K14", "W:WK20:B31,K1"]
)
def test_a_man_on_its_crowning_row_is_not_in_the_tables_and_costs_no_table(fen: str) -> None:
    """Set up by hand (problems do that), such a position is outside every table: not
    covered, and no reason to give up a table as damaged."""
    probe = load_probe(SHIPPED)
    assert probe is not None
    tables = len(probe.tables)
    assert probe.probe_position(Position.from_fen(fen)) is None
    assert len(probe.tables) == tables
    assert probe.probe_position(Position.from_fen("W:WK19,K23:BK28,12")) == ("win", 61)


def test_the_engine_plays_first_position_to_a_win() -> None:
    from crownhead.rules import Game

    probe = load_probe(SHIPPED)
    game = Game(Position.from_fen("W:W20,K15:BK28,12"), WCDF)
    engine = Engine(tt_size=1 << 14, egdb=probe)
    first = engine.search(game.position, depth=2)
    assert first.score > WIN - 1000
    while game.result is None and game.ply < 120:
        game.play(engine.search(game.position, depth=2, history=game.positions[:-1]).move)
    assert game.result is not None and game.result.score == "0-1"
    assert game.ply == WIN - first.score


def test_a_build_is_resumed_and_writes_what_it_reads(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    made = build(tmp_path, 3, lambda done, total, material: calls.append((done, total)))
    assert made == materials(3)
    assert calls[-1][0] == calls[-1][1] == sum(size_of(m) for m in materials(3))
    tables = load_tables(tmp_path)
    assert tables == three_pieces()
    # Interrupted: one table of a pair lost (the one written second), another cut short.
    # The build makes those pairs again.
    (tmp_path / file_name((1, 0, 0, 2))).unlink()
    (tmp_path / file_name((0, 1, 0, 2))).write_bytes(b"")
    again: list[tuple[int, int]] = []
    assert build(tmp_path, 3, lambda d, t, m: again.append((d, t))) == made
    assert again[0][0] > 0.6 * again[0][1]  # two pairs of 16 tables to build again
    assert load_tables(tmp_path) == tables


def test_a_build_in_several_processes_makes_the_same_tables(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    assert build(tmp_path / "two", 3, lambda d, t, m: calls.append((d, t)), jobs=2) == materials(3)
    assert load_tables(tmp_path / "two") == three_pieces()
    assert calls[-1][0] == calls[-1][1] and [d for d, _ in calls] == sorted(d for d, _ in calls)
    with pytest.raises(ValueError, match="jobs must be 1 or more, not 0"):
        build(tmp_path, 3, jobs=0)


def test_every_pair_needs_only_what_earlier_stages_build() -> None:
    from crownhead.firmware.egdb import MAX_PIECES, _stages, needs

    built: set[tuple[int, int, int, int]] = set()
    for stage in _stages(materials(MAX_PIECES)):
        for material in stage:
            assert set(needs(material)) <= built, material
        built |= {m for material in stage for m in (material, (*material[2:], *material[:2]))}
    assert built == set(materials(MAX_PIECES))


def test_damaged_files_are_named(tmp_path: Path) -> None:
    save_table(tmp_path, (0, 1, 0, 1), bytes(size_of((0, 1, 0, 1))))
    (tmp_path / file_name((0, 1, 1, 0))).write_bytes(lzma.compress(b"short"))
    with pytest.raises(EgdbError, match=r"egdb-0110\.xz: 5 bytes, material \(0, 1, 1, 0\) needs 896"):
        load_tables(tmp_path)
    bad = tmp_path / "egdb-0201.xz"
    bad.write_bytes(b"not lzma at all")
    with pytest.raises(EgdbError, match="egdb-0201.xz: not a readable table"):
        load_table(bad)
    with pytest.raises(EgdbError, match="no table for material"):
        load_table(tmp_path / "egdb-0005.xz")
    # Far too long: read no further than a table can hold.
    big = tmp_path / "egdb-0101.xz"
    big.write_bytes(lzma.compress(bytes(10_000_000)))
    with pytest.raises(EgdbError, match="needs 1024"):
        load_table(big)


def test_no_tables_no_probe(tmp_path: Path) -> None:
    assert load_probe(tmp_path / "nothing") is None
    assert EndgameTables({}).pieces == 0


def _crownhead(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_command_builds_and_lists(tmp_path: Path) -> None:
    done = _crownhead("egdb", "build", "--pieces", "2", "--dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "4 tables of up to 2 pieces" in done.stdout
    assert "100%" in done.stderr  # the progress bar
    info = _crownhead("egdb", "info", "--dir", str(tmp_path))
    assert info.returncode == 0
    assert "0101      1,024 indices        230 won        108 lost  longest 11 plies" in info.stdout
    assert "MB of memory a process" in done.stdout
    bad = _crownhead("egdb", "build", "--pieces", "7", "--dir", str(tmp_path))
    assert bad.returncode == 2 and "--pieces must be 2-6, not 7" in bad.stderr
    bad = _crownhead("egdb", "build", "--jobs", "0", "--dir", str(tmp_path))
    assert bad.returncode == 2 and "--jobs must be 1 or more, not 0" in bad.stderr


@pytest.mark.parametrize("fen", ["W:WK22,K23,K24:BK31,K32", "B:WK22,K23,K24:BK31,K32"])
def test_three_kings_beat_two_in_the_double_corners(fen: str) -> None:
    """Five pieces, beyond the tables: the search forces the exchange into them.

    White to move wins at once with the shot 22-25!, 32-28 25-30! 28x26 30x23; Black to
    move, White brings its kings round and forces an exchange (a published study).
    """
    from crownhead.rules import Game

    game = Game(Position.from_fen(fen), WCDF)
    engine = Engine(tt_size=1 << 16, egdb=load_probe(SHIPPED))
    while game.result is None and game.ply < 80 and game.repetitions() < 3:
        game.play(engine.search(game.position, depth=6, history=game.positions[:-1]).move)
    assert game.result is not None and game.result.score == "0-1", [str(m) for m in game.moves]
    if fen.startswith("W"):
        assert str(game.moves[0]) == "22-25" and game.ply <= 20


def test_verify_names_a_table_built_wrong(tmp_path: Path, built_three: Path) -> None:
    tmp_path = Path(shutil.copytree(built_three, tmp_path / "tables"))
    done = _crownhead("egdb", "verify", "--dir", str(tmp_path), "--sample", "300")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "16 tables of up to 3 pieces" in done.stdout and "no table wrong" in done.stdout
    # Two kings against one, every position called a draw: the check sees the wins (and
    # that the tables whose moves lead there no longer agree with it).
    save_table(tmp_path, (0, 2, 0, 1), bytes(size_of((0, 2, 0, 1))))
    wrong = _crownhead("egdb", "verify", "--dir", str(tmp_path), "--sample", "300")
    assert wrong.returncode == 1
    assert "  0201  " in wrong.stdout and "wrong, the first index" in wrong.stdout
    assert "wrong or missing (" in wrong.stdout
    (tmp_path / file_name((1, 0, 1, 1))).unlink()
    missing = _crownhead("egdb", "verify", "--dir", str(tmp_path), "--sample", "10")
    assert missing.returncode == 1 and "  1011  missing" in missing.stdout
    empty = _crownhead("egdb", "verify", "--dir", str(tmp_path / "none"))
    assert empty.returncode == 1 and "no endgame tables" in empty.stdout


def test_a_position_the_tables_decide_takes_one_iteration() -> None:
    """Every move leads into the tables: the first iteration scores them exactly and a
    deeper one could only score them the same, so the search answers at once."""
    probe = load_probe(SHIPPED)
    assert probe is not None
    engine = Engine(tt_size=1 << 12, egdb=probe, clock=lambda: 0.0)
    won = Position.from_fen("W:WK14,K19:BK22")  # two kings against one, White to move
    result = engine.search(won, movetime_ms=5000)
    assert result.depth == 1 and result.nodes <= 2 * len(won.legal_moves(WCDF))  # a re-search or two
    assert result.score == WIN - (probe.value(*_own_opp(won)) or 0) + 1
    # Five pieces, beyond the shipped tables: the search deepens as before.
    beyond = Engine(tt_size=1 << 12, egdb=load_probe(SHIPPED))
    assert beyond.search(Position.from_fen("W:WK22,K23,K24:BK31,K32"), depth=5).depth == 5


def _own_opp(position: Position) -> tuple[int, int, int, bool]:
    black = position.turn.name == "BLACK"
    own, opp = (position.black, position.white) if black else (position.white, position.black)
    return own, opp, position.kings, black
