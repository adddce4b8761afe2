"""Endgame databases on disk: build them once, load them for the engine.

The retrograde analysis itself is pure and lives in :mod:`crownhead.rules.engine.egdb` (with a
NumPy version of it, :mod:`crownhead.firmware.egdb.retro`, that builds the same tables some
twenty times faster); this package keeps the tables as files, one per material, in
``<state dir>/egdb/`` (see :func:`crownhead.firmware.files.default_state_dir`):
``egdb-1011.xz`` holds the positions with one man and one king for the side to move
against one opponent's king, LZMA-compressed; the five- and six-piece tables are
``egdb-ABCD.blk`` files, compressed in blocks that the probe reads one at a time
(:mod:`crownhead.firmware.egdb.blocks`). A build writes each table as soon as it is done (to a
temporary name, then renamed), so an interrupted build goes on where it stopped; a
loader checks every file and names the file that is wrong. :func:`load_probe` gives the
engine its probe (``Engine(egdb=...)``); without the files the engine plays on without
one.

Every table of up to four pieces is shipped with the package (``tables/``, 41 files,
1.3 MB; ``crownhead egdb build --pieces 4 --dir firmware/egdb/tables`` makes the same
bytes), so a board needs no build; the five-piece tables (44 files, see docs/engine.md
for their size) are built by ``crownhead egdb build``, and the six-piece ones (a
desktop's hour, gigabytes of memory) by ``crownhead egdb build --pieces 6 --jobs N``.
:func:`load_probe` reads a build in the state directory when there is one, and the
shipped tables for whatever it lacks.
"""

from __future__ import annotations

import logging
import lzma
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crownhead.firmware.files import atomic_write, default_state_dir
from crownhead.rules.engine.egdb import (
    WHOLE_BLOCK,
    EndgameTables,
    Material,
    Table,
    materials,
    mirror,
    size_of,
    solve,
)

# The NumPy builder (:mod:`crownhead.firmware.egdb.retro`) is imported by a build alone: a board
# that only probes the tables (``crownhead run``) does not carry NumPy in memory.
from . import blocks

#: Piece counts a build may ask for (5 needs NumPy: see :mod:`crownhead.firmware.egdb.retro`).
MAX_PIECES = 6
#: Tables of up to this many pieces are one LZMA file each, read whole; larger ones
#: are blocked files read a block at a time.
WHOLE_PIECES = 4
_NAME = re.compile(r"egdb-(\d)(\d)(\d)(\d)\.(xz|blk|wdl)")
_log = logging.getLogger(__name__)


class EgdbError(ValueError):
    """A database file that is not what its name says."""


def default_dir(state_dir: Path | None = None) -> Path:
    """Where the tables live: ``egdb/`` in the state directory."""
    return (state_dir if state_dir is not None else default_state_dir()) / "egdb"


def file_name(material: Material) -> str:
    suffix = ".xz" if sum(material) <= WHOLE_PIECES else ".blk"
    return "egdb-" + "".join(str(n) for n in material) + suffix


def wdl_name(material: Material) -> str:
    """The file of a material's win/draw/loss table (:mod:`crownhead.firmware.egdb.wdl`)."""
    return "egdb-" + "".join(str(n) for n in material) + ".wdl"


def save_table(folder: Path, material: Material, table: bytes | bytearray) -> Path:
    """Write one table (atomically: a half-written file never has the real name)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name(material)
    if path.suffix == ".blk":
        blocks.write(path, material, table)
        return path
    atomic_write(path, lzma.compress(bytes(table), preset=6), private=False)
    return path


def _material(path: Path) -> Material:
    found = _NAME.fullmatch(path.name)
    if found is None:
        raise EgdbError(
            f"{path}: not an endgame table name (egdb-ABCD.xz up to {WHOLE_PIECES} pieces, egdb-ABCD.blk above)"
        )
    own_men, own_kings, their_men, their_kings = (int(g) for g in found.groups()[:4])
    material: Material = (own_men, own_kings, their_men, their_kings)
    if sum(material) > MAX_PIECES or not (material[0] + material[1]) or not (material[2] + material[3]):
        raise EgdbError(f"{path}: no table for material {material}")
    if path.name not in (file_name(material), wdl_name(material)):
        raise EgdbError(
            f"{path}: a table of {sum(material)} pieces is {file_name(material)} "
            f"(or {wdl_name(material)} without distances)"
        )
    return material


class _Whole:
    """A table of up to four pieces, read whole from its LZMA file at the first probe
    (all 41 take about 0.1 s to inflate: a ``crownhead analyse`` that needs none of them
    does not wait for them). A file found damaged then is a damaged table
    (``LookupError``), as a block of a larger table is."""

    wdl = False

    def __init__(self, path: Path, material: Material) -> None:
        self.path = path
        self.material = material
        self.data: bytes | None = None

    def __len__(self) -> int:
        return size_of(self.material)

    def __getitem__(self, index: int) -> int:
        return self.read_block(0)[index]

    #: One block: the whole table (``crownhead.rules.engine.egdb.EndgameTables.blocks``).
    block_shift = WHOLE_BLOCK

    def read_block(self, n: int) -> bytes:
        """The whole table, read at the first call (``n`` is always 0)."""
        data = self.data
        if data is None:
            try:
                data = self.data = load_table(self.path)[1]
            except (EgdbError, OSError) as error:
                raise blocks.DamagedTable(str(error)) from None
        return data


def open_table(path: Path, cache: blocks.BlockCache) -> tuple[Material, Table]:
    """One table file for probing: a blocked file opened (its header checked), an LZMA
    file named (read whole at its first probe)."""
    material = _material(path)
    if path.suffix not in (".blk", ".wdl"):
        if not path.is_file():
            raise EgdbError(f"{path}: no such file")
        return material, _Whole(path, material)
    kind = blocks.WdlTable if path.suffix == ".wdl" else blocks.BlockTable
    try:
        return material, kind(path, material, cache)
    except (OSError, blocks.BlockError) as error:
        raise EgdbError(str(error) if isinstance(error, blocks.BlockError) else f"{path}: {error}") from None


def load_table(path: Path) -> tuple[Material, bytes]:
    """One table file, checked, read whole: its name gives the material, its length must
    fit. Only tables with distances: a win/draw/loss one is only probed."""
    material = _material(path)
    if path.suffix == ".wdl":
        raise EgdbError(f"{path}: a win/draw/loss table, not one with distances")
    if path.suffix == ".blk":
        try:
            table = blocks.BlockTable(path, material, blocks.BlockCache(0))
            try:
                return material, table.read_all()
            finally:
                table.close()
        except (OSError, blocks.BlockError, blocks.DamagedTable) as error:
            raise EgdbError(str(error)) from None
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
    for path in _table_files(folder):
        if path.suffix != ".wdl":
            material, data = load_table(path)
            tables[material] = data
    return tables


def _table_files(folder: Path) -> list[Path]:
    """The table files of ``folder``: those with distances first, then the win/draw/loss
    ones (a material with both is probed with distances)."""
    return sorted([*folder.glob("egdb-*.xz"), *folder.glob("egdb-*.blk")]) + sorted(folder.glob("egdb-*.wdl"))


def open_tables(
    folder: Path, cache: blocks.BlockCache, skip: Callable[[EgdbError], None] | None = None
) -> dict[Material, Table]:
    """Every table in ``folder`` for probing (none when it does not exist). A damaged
    file raises, or with ``skip`` is handed to it and left out."""
    tables: dict[Material, Table] = {}
    if not folder.is_dir():
        return tables
    for path in _table_files(folder):
        if path.suffix == ".wdl" and _NAME.fullmatch(path.name) and _material_or_none(path) in tables:
            continue  # the same material with distances is there
        try:
            material, table = open_table(path, cache)
        except EgdbError as error:
            if skip is None:
                raise
            skip(error)
            continue
        tables[material] = table
    return tables


def _material_or_none(path: Path) -> Material | None:
    try:
        return _material(path)
    except EgdbError:
        return None


#: The tables shipped with the package.
SHIPPED = Path(__file__).resolve().parent / "tables"


def _damaged(error: EgdbError) -> None:
    _log.warning("endgame table left out: %s", error)


def _damaged_block(material: Material, error: LookupError) -> None:
    _log.warning("endgame table %s left out: %s", "".join(map(str, material)), error)


def load_probe(
    folder: Path | None = None,
    cache_bytes: int = blocks.CACHE_BYTES,
    skip_damaged: bool = False,
    state_dir: Path | None = None,
) -> EndgameTables | None:
    """The engine's probe over the tables in ``folder``, or None when there are none.

    Without a folder: a build in :func:`default_dir` (of ``state_dir`` when given) if
    there is one, with the tables shipped in :data:`SHIPPED` for any material it lacks. Tables of up to four pieces
    are read whole (7.2 MB for all of them); five-piece ones are opened and read a block
    at a time, keeping at most ``cache_bytes`` of blocks in memory. A damaged file
    raises :class:`EgdbError`, or with ``skip_damaged`` is logged and left out (and a
    block found damaged while probing always is).
    """
    cache = blocks.BlockCache(cache_bytes)
    skip = _damaged if skip_damaged else None
    if folder is None:
        tables = open_tables(default_dir(state_dir), cache, skip)
        for material, table in open_tables(SHIPPED, cache, skip).items():
            tables.setdefault(material, table)
    else:
        tables = open_tables(folder, cache, skip)
    if not tables:
        return None
    probe = EndgameTables(tables, on_damage=_damaged_block)
    return probe if probe.pieces >= 2 else None


def describe(probe: EndgameTables | None) -> str:
    """What a probe covers, in words.

    >>> describe(load_probe(SHIPPED))
    'every position of up to 6 pieces: 2-4 with distances, 5-6 won, drawn or lost only'
    """
    if probe is None:
        return "no endgame tables"
    with_distances = sorted({sum(m) for m in probe.tables if m not in probe.wdl})
    without = sorted({sum(m) for m in probe.wdl})
    parts = []
    for counts, words in ((with_distances, "with distances"), (without, "won, drawn or lost only")):
        if counts:
            span = str(counts[0]) if counts[0] == counts[-1] else f"{counts[0]}-{counts[-1]}"
            parts.append(f"{span} {words}")
    mixed = set(with_distances) & set(without)
    note = f" ({', '.join(map(str, sorted(mixed)))} partly each)" if mixed else ""
    return f"every position of up to {probe.pieces} pieces: {', '.join(parts)}{note}"


Progress = Callable[[int, int, Material], None]


def needs(material: Material) -> list[Material]:
    """The materials a capture or a crowning leads to from ``material`` or its mirror:
    every one of fewer pieces, and the two a crowning gives (seen from the side that
    moves next), which must be built before ``material`` is.

    Two men against a king need every table of two pieces, and a man and a king
    against a man (White to move, after a man is crowned):

    >>> needs((2, 0, 0, 1))
    [(0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0), (0, 1, 1, 1)]
    """
    a, b, c, d = material
    out = materials(sum(material) - 1) if sum(material) > 2 else []
    for crowned in ((c, d, a - 1, b + 1) if a else None, (a, b, c - 1, d + 1) if c else None):
        if crowned is not None and crowned not in out:
            out.append(crowned)
    return out


def _stages(wanted: list[Material]) -> list[list[Material]]:
    """The materials to build, a pair (a material and its mirror) once, in stages: every
    pair in a stage needs only what earlier stages built, so a stage's pairs may be
    built at the same time."""
    stages: dict[tuple[int, int], list[Material]] = {}
    for m in wanted:
        if mirror(m) not in stages.get((sum(m), m[0] + m[2]), []):
            stages.setdefault((sum(m), m[0] + m[2]), []).append(m)
    return [stages[key] for key in sorted(stages)]


def _built(folder: Path, material: Material) -> bool:
    """Whether ``folder`` holds a whole table of ``material`` (its header checked; a
    file cut short by an interrupted build fails that and is built again)."""
    path = folder / file_name(material)
    if not path.is_file():
        return False
    if path.suffix == ".blk":
        try:
            blocks.BlockTable(path, material, blocks.BlockCache(0)).close()
        except (OSError, blocks.BlockError):
            return False
        return True
    try:
        load_table(path)
    except EgdbError:
        return False
    return True


#: Tables a build process holds whole (those of fewer pieces are needed by every pair).
_held: dict[Material, bytes] = {}


def _solve_pair(folder: Path, material: Material, report: Callable[[int], None] | None) -> list[Material]:
    """Build ``material`` and its mirror into ``folder``, reading the tables they need
    from there (kept in :data:`_held` for the next pair, but for the ones of as many
    pieces, which are large and needed by a pair or two)."""
    from . import retro

    wanted = needs(material)
    for m in [m for m in _held if m not in wanted]:
        del _held[m]
    for m in wanted:
        if m not in _held:
            _held[m] = load_table(folder / file_name(m))[1]
    solver = retro.solve if retro.available() else solve
    made = []
    for m, table in solver(material, _held, report).items():
        save_table(folder, m, table)
        made.append(m)
    return made


_reports: Any = None


def _start_worker(queue: Any) -> None:
    global _reports
    _reports = queue


def _solve_in_worker(folder: Path, material: Material) -> list[Material]:
    def report(positions: int) -> None:
        _reports.put((material, positions))

    return _solve_pair(folder, material, report)


def build(folder: Path, pieces: int, progress: Progress | None = None, jobs: int = 1) -> list[Material]:
    """Build every table of up to ``pieces`` pieces into ``folder``, keeping the ones
    already there, and give the materials it holds. ``progress(done, total, material)``
    counts index slots. With ``jobs`` above 1, that many processes build the pairs of
    each stage side by side (each holds the smaller tables: 190 MB at six pieces)."""
    from . import retro

    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be 2-{MAX_PIECES}, not {pieces}")
    if pieces > WHOLE_PIECES and not retro.available():
        raise EgdbError(
            f"a build of {pieces} pieces needs NumPy 2 (pip install "
            "'numpy>=2', or the package's egdb extra); up to "
            f"{WHOLE_PIECES} pieces builds without it"
        )
    if jobs < 1:
        raise ValueError(f"jobs must be 1 or more, not {jobs}")
    folder.mkdir(parents=True, exist_ok=True)
    wanted = materials(pieces)
    have = {m for m in wanted if _built(folder, m)}
    total = sum(size_of(m) for m in wanted)
    done = sum(size_of(m) for m in have if mirror(m) in have)
    # A pair is written one table after the other: an interrupted build may have left
    # one of them, and the pair is built again.
    todo = [[m for m in stage if m not in have or mirror(m) not in have] for stage in _stages(wanted)]
    todo = [stage for stage in todo if stage]
    if progress is not None:
        progress(done, total, todo[0][0] if todo else wanted[-1])

    def pair_size(m: Material) -> int:
        return size_of(m) + (size_of(mirror(m)) if mirror(m) != m else 0)

    if jobs == 1:
        for stage in todo:
            for material in stage:
                base = done

                def report(positions: int, base: int = base, material: Material = material) -> None:
                    if progress is not None:
                        progress(min(base + positions, base + pair_size(material) - 1), total, material)

                made = _solve_pair(folder, material, report)
                have.update(made)
                done += sum(size_of(m) for m in made)
                if progress is not None:
                    progress(done, total, material)
        _held.clear()
        return [m for m in wanted if m in have]
    import concurrent.futures
    import multiprocessing

    with multiprocessing.Manager() as manager:
        queue = manager.Queue()
        with concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(queue,)
        ) as pool:
            for stage in todo:
                running = {pool.submit(_solve_in_worker, folder, m): m for m in stage}
                partial: dict[Material, int] = {}
                while running:
                    finished, _ = concurrent.futures.wait(
                        running, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                    while not queue.empty():
                        m, positions = queue.get()
                        partial[m] = min(positions, pair_size(m) - 1)
                    for future in finished:
                        m = running.pop(future)
                        made = future.result()
                        have.update(made)
                        partial.pop(m, None)
                        done += sum(size_of(x) for x in made)
                    if progress is not None:
                        current = next(iter(running.values()), stage[-1])
                        progress(done + sum(partial.values()), total, current)
    return [m for m in wanted if m in have]


__all__ = [
    "EgdbError",
    "MAX_PIECES",
    "SHIPPED",
    "WHOLE_PIECES",
    "build",
    "default_dir",
    "describe",
    "file_name",
    "load_probe",
    "needs",
    "load_table",
    "load_tables",
    "open_table",
    "open_tables",
    "save_table",
    "wdl_name",
]
