"""Endgame databases on disk: build them once, load them for the engine.

The retrograde analysis itself is pure and lives in :mod:`rules.engine.egdb`; this
package keeps its tables as files, one per material, in ``<state dir>/egdb/`` (see
:func:`firmware.storage.default_state_dir`): ``egdb-1011.xz`` holds the positions with
one man and one king for the side to move against one opponent's king, LZMA-compressed.
A build writes each table as soon as it is done (to a temporary name, then renamed), so
an interrupted build goes on where it stopped; a loader checks every file's length and
names the file that is wrong. :func:`load_probe` gives the engine its probe
(``Engine(egdb=...)``); without the files the engine plays on without one.

Every table of up to four pieces is shipped with the package (``tables/``, 41 files,
1.3 MB; ``crownhead egdb build --dir firmware/egdb/tables`` makes the same bytes), so a
board needs no build: :func:`load_probe` reads a build in the state directory when there
is one, else the shipped tables.
"""

from __future__ import annotations

import lzma
import os
import re
from collections.abc import Callable
from pathlib import Path

from firmware.storage.store import default_state_dir
from rules.engine.egdb import EndgameTables, Material, materials, size_of, solve

#: Piece counts a build may ask for: 5 pieces would take hours in pure Python.
MAX_PIECES = 4
_NAME = re.compile(r"egdb-(\d)(\d)(\d)(\d)\.xz")


class EgdbError(ValueError):
    """A database file that is not what its name says."""


def default_dir(state_dir: Path | None = None) -> Path:
    """Where the tables live: ``egdb/`` in the state directory."""
    return (state_dir if state_dir is not None else default_state_dir()) / "egdb"


def file_name(material: Material) -> str:
    return "egdb-" + "".join(str(n) for n in material) + ".xz"


def save_table(folder: Path, material: Material, table: bytes | bytearray) -> Path:
    """Write one table (atomically: a half-written file never has the real name)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name(material)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(lzma.compress(bytes(table), preset=6))
    os.replace(tmp, path)
    return path


def load_table(path: Path) -> tuple[Material, bytes]:
    """One table file, checked: its name gives the material, its length must fit."""
    found = _NAME.fullmatch(path.name)
    if found is None:
        raise EgdbError(f"{path}: not an endgame table name (egdb-ABCD.xz)")
    material: Material = tuple(int(g) for g in found.groups())  # type: ignore[assignment]
    if sum(material) > MAX_PIECES or not (material[0] + material[1]) or not (
            material[2] + material[3]):
        raise EgdbError(f"{path}: no table for material {material}")
    size = size_of(material)
    try:
        with lzma.open(path) as f:
            data = f.read(size + 1)  # bounded: never more than the table can hold
    except (lzma.LZMAError, EOFError) as error:
        raise EgdbError(f"{path}: not a readable table ({error})") from None
    if len(data) != size:
        raise EgdbError(f"{path}: {len(data)} bytes, material {material} needs {size}")
    return material, data


def load_tables(folder: Path) -> dict[Material, bytes]:
    """Every table file in ``folder`` (none when it does not exist)."""
    tables: dict[Material, bytes] = {}
    if not folder.is_dir():
        return tables
    for path in sorted(folder.glob("egdb-*.xz")):
        material, data = load_table(path)
        tables[material] = data
    return tables


#: The tables shipped with the package.
SHIPPED = Path(__file__).resolve().parent / "tables"


def load_probe(folder: Path | None = None) -> EndgameTables | None:
    """The engine's probe over the tables in ``folder``, or None when there are none.

    Without a folder: a build in :func:`default_dir` if there is one, else the tables
    shipped in :data:`SHIPPED`.
    """
    if folder is None:
        tables = load_tables(default_dir()) or load_tables(SHIPPED)
    else:
        tables = load_tables(folder)
    if not tables:
        return None
    probe = EndgameTables(tables)
    return probe if probe.pieces >= 2 else None


Progress = Callable[[int, int, Material], None]


def build(folder: Path, pieces: int, progress: Progress | None = None) -> dict[Material, bytes]:
    """Build every table of up to ``pieces`` pieces into ``folder``, keeping the ones
    already there. ``progress(done, total, material)`` counts index slots."""
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be 2-{MAX_PIECES}, not {pieces}")
    tables: dict[Material, bytes | bytearray] = dict(load_tables(folder))
    wanted = materials(pieces)
    total = sum(size_of(m) for m in wanted)
    done = sum(size_of(m) for m in wanted if m in tables)
    for material in wanted:
        if material in tables:
            continue
        base = done
        group_size = size_of(material) + (
            size_of((material[2], material[3], material[0], material[1]))
            if material != (material[2], material[3], material[0], material[1]) else 0)

        def report(positions: int, base: int = base, material: Material = material) -> None:
            if progress is not None:
                progress(min(base + positions, base + group_size - 1), total, material)

        for m, table in solve(material, tables, report).items():
            save_table(folder, m, table)
            tables[m] = table
            done += size_of(m)
        if progress is not None:
            progress(done, total, material)
    return {m: bytes(t) for m, t in tables.items() if sum(m) <= pieces}


__all__ = ["EgdbError", "MAX_PIECES", "SHIPPED", "build", "default_dir", "file_name", "load_probe",
           "load_table", "load_tables", "save_table"]
