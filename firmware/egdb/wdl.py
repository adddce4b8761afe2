"""Win/draw/loss tables from built ones: what ships with the package for five and six pieces.

A built table (:mod:`crownhead.rules.engine.egdb`) gives every position's distance to the end in a
byte. The search needs less than that to play an ending right, if it makes progress by
itself (:mod:`crownhead.rules.engine.search`, "tables without distances"): who wins. So
:func:`pack` keeps two bits an index (0 drawn, 1 won, 2 lost), and leaves out what the
probe can work out with one ply of captures: a position where the side to move has a
capture (its value is the best of its captures', which lead to fewer pieces) and an
index that is no position. Those hold the value of the index before them, so the runs
of equal values that zlib compresses grow longer: the five-piece tables, 67.6 MB as
blocked files, take 1.6 MB this way, and the six-piece ones, 1,185 MB, take 46.3 MB
(docs/engine.md has the figures).

Needs NumPy, as a build does (``crownhead egdb pack``); reading the packed files does not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from crownhead.rules.engine.egdb import Material, materials, size_of

from . import blocks, retro

#: Indices decoded at once (about 40 bytes each of working arrays).
CHUNK = 1 << 22


def codes(material: Material, table: bytes | bytearray) -> Any:
    """The two-bit code of every index (a NumPy array of ``uint8``), the positions the
    probe works out for itself filled with the code before them."""
    np = retro.np
    values = np.frombuffer(table, dtype=np.uint8)
    size = len(values)
    if size != size_of(material):
        raise ValueError(f"material {material}: {size} bytes, not {size_of(material)}")
    out = np.zeros(size, dtype=np.uint8)
    out[(values > 0) & (values % 2 == 0)] = 1
    out[values % 2 == 1] = 2
    kept = np.empty(size, dtype=bool)
    indexer = retro.Indexer()
    for start in range(0, size, CHUNK):
        index = np.arange(start, min(size, start + CHUNK), dtype=np.int64)
        own, opp, kings = indexer.boards(index, material)
        kept[start : start + len(index)] = (np.bitwise_count(own | opp) == sum(material)) & (
            retro.jumpers(own, opp, kings, True) == 0
        )
    # Each left-out index takes the value of the last kept one before it.
    last = np.where(kept, np.arange(size, dtype=np.int64), 0)
    np.maximum.accumulate(last, out=last)
    return out[last]


def pack(material: Material, table: bytes | bytearray) -> bytes:
    """``table`` as two bits an index, four indices a byte, the first in the low bits.

    >>> from crownhead.rules.engine.egdb import build, WON, LOST
    >>> tables = build(2)
    >>> m = (0, 1, 1, 0)  # a king against a man
    >>> packed = pack(m, tables[m])
    >>> len(packed) == -(-len(tables[m]) // 4)
    True
    """
    np = retro.np
    c = codes(material, table)
    c = np.concatenate([c, np.zeros(-len(c) % 4, dtype=np.uint8)]).reshape(-1, 4)
    return (c[:, 0] | c[:, 1] << 2 | c[:, 2] << 4 | c[:, 3] << 6).astype(np.uint8).tobytes()


Progress = Callable[[int, int, Material], None]


def pack_folder(
    source: Path, target: Path, pieces: tuple[int, int], progress: Progress | None = None
) -> list[Material]:
    """Write ``egdb-ABCD.wdl`` into ``target`` for every table of ``source`` whose
    number of pieces lies in ``pieces`` (low, high), keeping any already there; the
    materials written or kept. ``progress(done, total, material)`` counts indices."""
    from . import EgdbError, file_name, load_table, wdl_name

    if not retro.available():
        raise EgdbError("packing tables needs NumPy 2 (pip install 'numpy>=2')")
    low, high = pieces
    wanted = [m for m in materials(high) if sum(m) >= low]
    missing = [m for m in wanted if not (source / file_name(m)).is_file()]
    if missing:
        raise EgdbError(f"{source}: no table {file_name(missing[0])} to pack (a build of {high} pieces makes it)")
    target.mkdir(parents=True, exist_ok=True)
    total = sum(size_of(m) for m in wanted)
    done = 0
    for m in wanted:
        path = target / wdl_name(m)
        if not _whole(path, m):
            blocks.write_wdl(path, m, pack(m, load_table(source / file_name(m))[1]))
        done += size_of(m)
        if progress is not None:
            progress(done, total, m)
    return wanted


def _whole(path: Path, material: Material) -> bool:
    if not path.is_file():
        return False
    try:
        blocks.WdlTable(path, material, blocks.BlockCache(0)).close()
    except (OSError, blocks.BlockError):
        return False
    return True


__all__ = ["codes", "pack", "pack_folder"]
