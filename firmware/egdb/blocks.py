"""Tables in blocks: read one block of a table when the search needs it.

A five-piece table is up to 12 million bytes; all 44 of them, 180 million; the six-piece
ones, 3.6 billion. Loading them whole would take a Raspberry Pi's memory and, worse, seconds of decompression in the
middle of a search. So they are kept as ``egdb-ABCD.blk`` files: the table cut into
blocks of 4,096 indices, each compressed on its own with zlib, after a header that
says where each block starts. A probe reads and inflates the one block it needs (tens
of microseconds) and keeps the blocks it read in a cache of bounded size, shared by
every table (:class:`BlockCache`); the least recently used block goes first.

The file: ``CHEGDB1\\n``, the material (4 bytes), the table's length (8 bytes), the
block size and the number of blocks (4 bytes each), one 8-byte file offset per block
and one for the end, then the blocks. The header is checked when the file is opened (a
table's length must be its material's, the offsets must run from the header to the end
of the file); a block whose offsets run backwards, or that does not inflate to its
length, makes the table unusable from then on (:class:`DamagedTable`, which the probe
logs and treats as a missing table).

A *win/draw/loss* table (``egdb-ABCD.wdl``, :class:`WdlTable`) has the same layout
under the magic ``CHWDL01\n``: each index holds two bits (0 drawn, 1 won, 2 lost for
the side to move), four to a byte, 65,536 indices to a block. Positions where the side
to move has a capture (and indices that are no position) are not kept: they hold
whatever value makes the block compress best (the one before them), and the probe works
them out from the captures (:class:`crownhead.rules.engine.egdb.EndgameTables`). That is what
makes them small: the six-piece tables take 46 MB, 1/26 of their blocked files (docs/engine.md).
"""

from __future__ import annotations

import array
import os
import struct
import sys
import zlib
from collections import OrderedDict
from pathlib import Path

from crownhead.firmware.files import atomic_file
from crownhead.rules.engine.egdb import LOST, WON, Material, size_of

MAGIC = b"CHEGDB1\n"
WDL_MAGIC = b"CHWDL01\n"
#: Indices in a block of a win/draw/loss table: 16 KB when inflated.
WDL_BLOCK = 1 << 16
_HEAD = struct.Struct("<8s4BQII")
BLOCK = 4096
#: Default cache: 4,096 blocks, about 17 MB with Python's overhead.
CACHE_BYTES = 16 << 20


class DamagedTable(LookupError):
    """A block that cannot be read or inflated to its length."""


class BlockError(ValueError):
    """A blocked table file whose header does not hold together."""


def write(path: Path, material: Material, table: bytes | bytearray, block: int = BLOCK) -> None:
    """Write ``table`` as a blocked file (atomically: a temporary name, then renamed)."""
    data = bytes(table)
    blocks = [zlib.compress(data[i : i + block], 9) for i in range(0, len(data), block)]
    _write_blocks(path, MAGIC, material, len(data), block, blocks)


def write_wdl(path: Path, material: Material, packed: bytes | bytearray, block: int = WDL_BLOCK) -> None:
    """Write a win/draw/loss table, given as two bits an index, four to a byte (the
    first index in the low bits), as a blocked file."""
    size = size_of(material)
    if len(packed) != -(-size // 4):
        raise ValueError(f"material {material}: {len(packed)} bytes, {size} indices need {-(-size // 4)}")
    step = block // 4
    data = bytes(packed)
    blocks = [zlib.compress(data[i : i + step], 9) for i in range(0, len(data), step)]
    _write_blocks(path, WDL_MAGIC, material, size, block, blocks)


def _write_blocks(path: Path, magic: bytes, material: Material, size: int, block: int, blocks: list[bytes]) -> None:
    start = _HEAD.size + 8 * (len(blocks) + 1)
    offsets = [start]
    for b in blocks:
        offsets.append(offsets[-1] + len(b))
    with atomic_file(path, private=False) as f:
        f.write(_HEAD.pack(magic, *material, size, block, len(blocks)))
        f.write(struct.pack(f"<{len(offsets)}Q", *offsets))
        for b in blocks:
            f.write(b)


class BlockCache:
    """Inflated blocks of every table, the least recently used dropped past ``limit``
    bytes."""

    def __init__(self, limit: int = CACHE_BYTES) -> None:
        self.limit = limit
        self.used = 0
        self.blocks: OrderedDict[int, bytes] = OrderedDict()
        self.misses = 0

    def put(self, key: int, data: bytes) -> None:
        self.blocks[key] = data
        self.used += len(data)
        while self.used > self.limit and len(self.blocks) > 1:
            _, old = self.blocks.popitem(last=False)
            self.used -= len(old)

    def clear(self) -> None:
        self.blocks.clear()
        self.used = 0


class BlockTable:
    """One table read block by block: ``table[index]`` is its byte at ``index``.

    The header is checked at once; the file stays open (``close()``) and blocks are read
    with ``os.pread``, so two threads may probe at the same time.
    """

    _numbers = 0
    kind = "blocked"
    #: What the file must start with.
    magic = MAGIC
    #: Whether the table holds only who wins (see :class:`WdlTable`).
    wdl = False

    def __init__(self, path: Path, material: Material, cache: BlockCache) -> None:
        self.path = path
        self.material = material
        self.cache = cache
        BlockTable._numbers += 1
        self._key = BlockTable._numbers << 32
        self._fd = os.open(path, os.O_RDONLY)
        try:
            self._read_header()
        except BaseException:
            os.close(self._fd)
            raise

    def _read_header(self) -> None:
        path, material = self.path, self.material
        head = os.pread(self._fd, _HEAD.size, 0)
        if len(head) != _HEAD.size:
            raise BlockError(f"{path}: too short for a table header")
        magic, a, b, c, d, size, block, count = _HEAD.unpack(head)
        if magic != self.magic:
            raise BlockError(f"{path}: not a {self.kind} endgame table (no {self.magic!r} header)")
        if (a, b, c, d) != material:
            raise BlockError(f"{path}: holds material {(a, b, c, d)}, its name says {material}")
        if size != size_of(material):
            raise BlockError(f"{path}: {size} indices, material {material} needs {size_of(material)}")
        if not 256 <= block <= 1 << 20 or block & (block - 1):
            raise BlockError(f"{path}: block size {block} is not a power of two of 256-1M")
        if count != -(-size // block):
            raise BlockError(f"{path}: {count} blocks, {size} indices need {-(-size // block)}")
        raw = os.pread(self._fd, 8 * (count + 1), _HEAD.size)
        if len(raw) != 8 * (count + 1):
            raise BlockError(f"{path}: the block offsets are cut short")
        # An array, not a tuple of ints: a six-piece build has 870,000 blocks, whose
        # offsets are 7 MB this way and 35 MB as Python ints.
        offsets = array.array("Q", raw)
        if sys.byteorder == "big":
            offsets.byteswap()
        end = os.fstat(self._fd).st_size
        # The ends only: walking 870,000 offsets of a six-piece build took a second at
        # every start; a block whose offsets run backwards is found when it is read.
        if offsets[0] != _HEAD.size + len(raw) or offsets[-1] != end:
            raise BlockError(
                f"{path}: the block offsets do not run from the header to the end of the file ({end} bytes)"
            )
        self.size = size
        self.block = block
        self.shift = block.bit_length() - 1
        self.offsets = offsets

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:
        return self._block(index >> self.shift)[index & (self.block - 1)]

    @property
    def block_shift(self) -> int:
        """An index's block is ``index >> block_shift`` (what the native probe reads)."""
        return self.shift

    def read_block(self, n: int) -> bytes:
        """Block ``n`` inflated, through the cache: the native core's probe reads the
        table's bytes this way (``crownhead.rules.engine.egdb.EndgameTables.blocks``)."""
        return self._block(n)

    def _block(self, n: int) -> bytes:
        """Block ``n`` inflated, from the cache when it is there."""
        key = self._key | n
        blocks = self.cache.blocks
        data = blocks.get(key)
        if data is None:
            data = self._inflate(n)
            self.cache.put(key, data)
        else:
            blocks.move_to_end(key)
        return data

    def _inflate(self, n: int) -> bytes:
        self.cache.misses += 1
        start, end = self.offsets[n], self.offsets[n + 1]
        want = self._length(n)
        if end < start:
            raise DamagedTable(f"{self.path}: block {n} ends before it starts")
        try:
            raw = os.pread(self._fd, end - start, start)
            inflater = zlib.decompressobj()
            data = inflater.decompress(raw, want + 1)  # bounded: a block at most
        except (OSError, zlib.error) as error:
            raise DamagedTable(f"{self.path}: block {n} unreadable ({error})") from None
        if len(data) != want:
            raise DamagedTable(f"{self.path}: block {n} holds {len(data)} bytes, not {want}")
        return data

    def _length(self, n: int) -> int:
        """The bytes block ``n`` inflates to."""
        return min(self.block, self.size - n * self.block)

    def read_all(self) -> bytes:
        """The whole table (for a build that goes on from it)."""
        return b"".join(self._inflate(n) for n in range(len(self.offsets) - 1))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to tell
            pass


_WDL_VALUES = (0, WON, LOST, 0)


class WdlTable(BlockTable):
    """A win/draw/loss table read block by block: ``table[index]`` is 0 (drawn),
    :data:`~crownhead.rules.engine.egdb.WON` or :data:`~crownhead.rules.engine.egdb.LOST`, and means
    nothing where the side to move has a capture (the probe works those out).

    ``read_all`` gives the packed bytes, two bits an index.
    """

    kind = "win/draw/loss"
    magic = WDL_MAGIC
    wdl = True

    def __getitem__(self, index: int) -> int:
        i = index & (self.block - 1)
        return _WDL_VALUES[self._block(index >> self.shift)[i >> 2] >> ((i & 3) << 1) & 3]

    def _length(self, n: int) -> int:
        return -(-min(self.block, self.size - n * self.block) // 4)


__all__ = [
    "BLOCK",
    "BlockCache",
    "BlockError",
    "BlockTable",
    "CACHE_BYTES",
    "DamagedTable",
    "MAGIC",
    "WDL_BLOCK",
    "WDL_MAGIC",
    "WdlTable",
    "write",
    "write_wdl",
]
