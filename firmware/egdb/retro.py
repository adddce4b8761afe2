"""The retrograde analysis of :mod:`crownhead.rules.engine.egdb`, on whole arrays with NumPy.

Same tables, byte for byte, as :func:`crownhead.rules.engine.egdb.solve` (the pure-Python
reference, which the tests compare it with on every table of up to four pieces), some
twenty times faster (four pieces: 5.3 s of CPU against 120 s), which is what makes five
pieces (180 million indices) a build of minutes rather than hours. Only *building* needs NumPy (the ``egdb`` extra,
docs/install.md); probing the tables is pure Python.

The work is the reference's, done a slice at a time:

* **Every position's moves.** Positions are decoded from their indices in chunks
  (bitboards as ``uint32`` arrays); captures are followed jump by jump for all
  positions at once (a chain is a row that stays in the array while it can go on);
  quiet moves are counted with shifts and population counts. Moves that leave the pair
  of materials being solved (captures, crownings) are looked up in the tables already
  built; the ones that stay are only counted.
* **Waves by distance.** The positions decided at ``n`` plies are un-moved together
  (the quiet moves, without a crowning, of the side that just moved, where that side
  had no capture): a position lost in ``n`` makes its predecessors won in ``n + 1``; a
  position won in ``n`` takes one from each predecessor's count of moves still open,
  and a predecessor whose count reaches zero with no way out is lost.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from math import comb
from typing import Any

from crownhead.rules.engine import egdb
from crownhead.rules.engine.egdb import Material, mirror, size_of

try:
    import numpy as np
except ImportError:  # pragma: no cover - the build says what to install
    np = None  # type: ignore[assignment]

Array = Any  # numpy arrays; kept loose so the module imports without NumPy

_EVEN_ROWS = 0x0F0F0F0F
_ODD_ROWS = 0xF0F0F0F0
_FILE_A = 0x10101010
_FILE_H = 0x08080808
_EVEN_NOT_H = _EVEN_ROWS & ~_FILE_H
_ODD_NOT_A = _ODD_ROWS & ~_FILE_A
_BLACK_CROWN_ROW = 0xF0000000

#: Positions decoded at once in the first pass (bounds the memory: ~100 bytes each).
CHUNK = 1 << 20


def available() -> bool:
    """Whether NumPy (2.0 or later, for its population count) is installed."""
    return np is not None and hasattr(np, "bitwise_count")


def _u32(x: int) -> Any:
    return np.uint32(x)


def step_sw(b: Array) -> Array:
    return ((b & _u32(_EVEN_ROWS)) << _u32(4)) | ((b & _u32(_ODD_NOT_A)) << _u32(3))


def step_se(b: Array) -> Array:
    return ((b & _u32(_EVEN_NOT_H)) << _u32(5)) | ((b & _u32(_ODD_ROWS)) << _u32(4))


def step_nw(b: Array) -> Array:
    return ((b & _u32(_EVEN_ROWS)) >> _u32(4)) | ((b & _u32(_ODD_NOT_A)) >> _u32(5))


def step_ne(b: Array) -> Array:
    return ((b & _u32(_EVEN_NOT_H)) >> _u32(3)) | ((b & _u32(_ODD_ROWS)) >> _u32(4))


_STEPS = (step_sw, step_se, step_nw, step_ne)  # Black's men move the first two ways


def flip(x: Array) -> Array:
    """Every bitboard turned round (square s to 33 - s): the bits reversed."""
    x = ((x >> _u32(1)) & _u32(0x55555555)) | ((x & _u32(0x55555555)) << _u32(1))
    x = ((x >> _u32(2)) & _u32(0x33333333)) | ((x & _u32(0x33333333)) << _u32(2))
    x = ((x >> _u32(4)) & _u32(0x0F0F0F0F)) | ((x & _u32(0x0F0F0F0F)) << _u32(4))
    x = ((x >> _u32(8)) & _u32(0x00FF00FF)) | ((x & _u32(0x00FF00FF)) << _u32(8))
    return (x >> _u32(16)) | (x << _u32(16))


def _popcount(x: Array) -> Array:
    return np.bitwise_count(x).astype(np.int64)


def _unique(x: Array) -> Array:
    """The distinct values of ``x``, sorted (as ``np.unique``). By sorting: NumPy 2.3's
    hash-based ``np.unique`` took 4.3 s for 4 million indices here, a sort 0.1 s, and it
    was 40% of a build's time."""
    s = np.sort(x)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _low(x: Array) -> Array:
    return x & (~x + _u32(1))


def jumpers(own: Array, opp: Array, kings: Array, black: bool) -> Array:
    """The pieces of the side to move with a capture (as :func:`crownhead.rules.movegen.jumpers`)."""
    empty = ~(own | opp)
    sw = step_ne(opp & step_ne(empty))
    se = step_nw(opp & step_nw(empty))
    nw = step_se(opp & step_se(empty))
    ne = step_sw(opp & step_sw(empty))
    forward, backward = (sw | se, nw | ne) if black else (nw | ne, sw | se)
    return own & (forward | (backward & kings))


class Indexer:
    """Ranks and unranks the positions of materials, as :func:`crownhead.rules.engine.egdb.index_of`."""

    def __init__(self) -> None:
        self.binomial = np.zeros((33, 6), dtype=np.int64)
        for p in range(32):
            for i in range(6):
                self.binomial[p, i] = comb(p, i)
        self._unrank: dict[tuple[int, int, int], Array] = {}

    def rank(self, mask: Array, k: int) -> Array:
        r = np.zeros(mask.shape, dtype=np.int64)
        m = mask.copy()
        for i in range(1, k + 1):
            low = _low(m)
            r += self.binomial[np.bitwise_count(low - _u32(1)), i]
            m ^= low
        return r

    def index(self, own: Array, opp: Array, kings: Array, material: Material) -> Array:
        _a, b, c, d = material
        men_own = own & ~kings
        men_opp = (opp & ~kings) >> _u32(4)
        return (
            (self.rank(men_own, material[0]) * comb(32, b) + self.rank(own & kings, b)) * comb(28, c)
            + self.rank(men_opp, c)
        ) * comb(32, d) + self.rank(opp & kings, d)

    def masks(self, squares: int, k: int, shift: int) -> Array:
        """The bitboards of ``k`` pieces on ``squares`` squares, by rank."""
        key = (squares, k, shift)
        table = self._unrank.get(key)
        if table is None:
            table = np.zeros(comb(squares, k), dtype=np.uint32)
            for combo in itertools.combinations(range(squares), k):
                r = sum(comb(p, i + 1) for i, p in enumerate(combo))
                table[r] = sum(1 << (p + shift) for p in combo)
            self._unrank[key] = table
        return table

    def boards(self, index: Array, material: Material) -> tuple[Array, Array, Array]:
        """(own, opp, kings) of each index; overlapping pieces are the caller's to drop."""
        a, b, c, d = material
        rest = index.astype(np.int64)
        rest, rd = np.divmod(rest, comb(32, d))
        rest, rc = np.divmod(rest, comb(28, c))
        ra, rb = np.divmod(rest, comb(32, b))
        own_men = self.masks(28, a, 0)[ra]
        own_kings = self.masks(32, b, 0)[rb]
        opp_men = self.masks(28, c, 4)[rc]
        opp_kings = self.masks(32, d, 0)[rd]
        return own_men | own_kings, opp_men | opp_kings, own_kings | opp_kings


def _material_codes(own: Array, opp: Array, kings: Array) -> Array:
    return (
        _popcount(own & ~kings) * 1000
        + _popcount(own & kings) * 100
        + _popcount(opp & ~kings) * 10
        + _popcount(opp & kings)
    )


class _Children:
    """What a batch of children is worth, from the tables already built."""

    def __init__(self, indexer: Indexer, known: Mapping[Material, Array]) -> None:
        self.indexer = indexer
        self.known = known

    def values(self, own: Array, opp: Array, kings: Array) -> Array:
        """The value of each child (own to move, turned round so own is Black)."""
        out = np.ones(own.shape, dtype=np.uint8)  # no piece left: lost at once
        codes = _material_codes(own, opp, kings)
        alive = own != 0
        for code in _unique(codes[alive]):
            m: Material = (int(code) // 1000, int(code) // 100 % 10, int(code) // 10 % 10, int(code) % 10)
            sel = np.nonzero(alive & (codes == code))[0]
            table = self.known.get(m)
            if table is None:
                raise ValueError(f"material {m} is needed before it is built")
            out[sel] = table[self.indexer.index(own[sel], opp[sel], kings[sel], m)]
        return out


class _Outcomes:
    """Per position: fastest win, longest loss, any draw among the moves seen so far."""

    def __init__(self, n: int) -> None:
        self.best_win = np.full(n, 255, dtype=np.uint8)
        self.longest = np.zeros(n, dtype=np.uint8)
        self.draw = np.zeros(n, dtype=bool)

    def add(self, pid: Array, values: Array) -> None:
        wins = (values & 1) == 1
        np.minimum.at(self.best_win, pid[wins], values[wins])
        losses = (values != 0) & ~wins
        np.maximum.at(self.longest, pid[losses], values[losses])
        self.draw[pid[values == 0]] = True


def _captures(own: Array, opp: Array, kings: Array, children: _Children, outcomes: _Outcomes, pids: Array) -> None:
    """Every capture of the positions ``pids`` (own to move as Black), into ``outcomes``."""
    able = jumpers(own, opp, kings, True)
    states = []
    while True:  # one chain per piece that can capture
        low = _low(able)
        sel = np.nonzero(low)[0]
        if not len(sel):
            break
        able = able ^ low
        start = low[sel]
        states.append(
            (
                pids[sel],
                own[sel] ^ start,
                opp[sel],
                kings[sel] & ~start,
                start,
                np.zeros(len(sel), dtype=np.uint32),
                (kings[sel] & start) != 0,
            )
        )
    if not states:
        return
    pid, rest, foe, crowned, square, taken, king = (np.concatenate(parts) for parts in zip(*states))
    while len(pid):
        blocked = rest | foe
        grown = []
        went = np.zeros(len(pid), dtype=bool)
        for d, step in enumerate(_STEPS):
            over = step(square) & foe & ~taken
            land = step(over) & ~blocked & ~square
            if d >= 2:
                land &= np.where(king, _u32(0xFFFFFFFF), _u32(0))
            sel = np.nonzero(land)[0]
            if not len(sel):
                continue
            went[sel] = True
            grown.append((pid[sel], rest[sel], foe[sel], crowned[sel], land[sel], taken[sel] | over[sel], king[sel]))
        ended = np.nonzero(~went & (taken != 0))[0]
        if len(ended):
            _capture_children(
                pid[ended],
                rest[ended],
                foe[ended],
                crowned[ended],
                square[ended],
                taken[ended],
                king[ended],
                children,
                outcomes,
            )
        if not grown:
            break
        pid, rest, foe, crowned, square, taken, king = (np.concatenate(parts) for parts in zip(*grown))
        # A man that lands on the king row is crowned and stops there.
        stop = ~king & ((square & _u32(_BLACK_CROWN_ROW)) != 0)
        if stop.any():
            s = np.nonzero(stop)[0]
            _capture_children(
                pid[s],
                rest[s],
                foe[s],
                crowned[s],
                square[s],
                taken[s],
                np.ones(len(s), dtype=bool),
                children,
                outcomes,
            )
            keep = np.nonzero(~stop)[0]
            pid, rest, foe, crowned, square, taken, king = (
                pid[keep],
                rest[keep],
                foe[keep],
                crowned[keep],
                square[keep],
                taken[keep],
                king[keep],
            )


def _capture_children(
    pid: Array,
    rest: Array,
    foe: Array,
    crowned: Array,
    square: Array,
    taken: Array,
    king: Array,
    children: _Children,
    outcomes: _Outcomes,
) -> None:
    new_own = rest | square
    new_opp = foe & ~taken
    new_kings = (crowned & ~taken) | np.where(king, square, _u32(0))
    values = children.values(flip(new_opp), flip(new_own), flip(new_kings))
    outcomes.add(pid, values)


ProgressCount = Callable[[int], None]


def solve(
    material: Material, known: Mapping[Material, bytes | bytearray], progress: ProgressCount | None = None
) -> dict[Material, bytearray]:
    """The tables of ``material`` and its mirror, as :func:`crownhead.rules.engine.egdb.solve`.

    ``progress`` is called now and then with a count that rises to the number of
    indices of the pair: half for the first pass, half for the waves.
    """
    if not available():
        raise RuntimeError("building endgame tables this way needs NumPy 2 (pip install 'numpy>=2')")
    group = sorted({material, mirror(material)})
    indexer = Indexer()
    arrays = {m: np.frombuffer(t, dtype=np.uint8) for m, t in known.items() if m not in group}
    children = _Children(indexer, arrays)
    offsets: dict[Material, int] = {}
    total = 0
    for m in group:
        offsets[m] = total
        total += size_of(m)
    value = np.zeros(total, dtype=np.uint8)
    unresolved = np.zeros(total, dtype=np.uint8)
    longest_win = np.zeros(total, dtype=np.uint8)
    holds = np.zeros(total, dtype=bool)
    buckets: dict[int, list[Array]] = {}

    def put(n: Array | int, where: Array) -> None:
        if not len(where):
            return
        if isinstance(n, int):
            buckets.setdefault(n, []).append(where)
            return
        for v in _unique(n):
            buckets.setdefault(int(v), []).append(where[n == v])

    done = 0
    for m in group:
        pieces = sum(m)
        base = offsets[m]
        for lo in range(0, size_of(m), CHUNK):
            hi = min(lo + CHUNK, size_of(m))
            idx = np.arange(lo, hi, dtype=np.int64)
            own, opp, kings = indexer.boards(idx, m)
            valid = _popcount(own | opp) == pieces
            idx, own, opp, kings = idx[valid], own[valid], opp[valid], kings[valid]
            n = len(idx)
            outcomes = _Outcomes(n)
            capture = jumpers(own, opp, kings, True) != 0
            cap = np.nonzero(capture)[0]
            _captures(own[cap], opp[cap], kings[cap], children, outcomes, cap)
            quiet = np.nonzero(~capture)[0]
            q_own, q_opp, q_kings = own[quiet], opp[quiet], kings[quiet]
            empty = ~(q_own | q_opp)
            men = q_own & ~q_kings
            own_kings = q_own & q_kings
            inside = np.zeros(len(quiet), dtype=np.int64)
            for step in _STEPS:
                inside += _popcount(step(own_kings) & empty)
            crowning_moves = np.zeros(len(quiet), dtype=np.int64)
            for step, back in ((step_sw, step_ne), (step_se, step_nw)):
                to = step(men) & empty
                inside += _popcount(to & _u32(~_BLACK_CROWN_ROW & 0xFFFFFFFF))
                crowns = to & _u32(_BLACK_CROWN_ROW)
                while True:
                    low = _low(crowns)
                    sel = np.nonzero(low)[0]
                    if not len(sel):
                        break
                    crowns = crowns ^ low
                    crowning_moves[sel] += 1
                    t = low[sel]
                    f = back(t)
                    c_own = q_own[sel] ^ f ^ t
                    c_kings = q_kings[sel] | t
                    values = children.values(flip(q_opp[sel]), flip(c_own), flip(c_kings))
                    outcomes.add(quiet[sel], values)
            moves = np.zeros(n, dtype=np.int64)
            moves[quiet] = inside + crowning_moves
            inside_all = np.zeros(n, dtype=np.int64)
            inside_all[quiet] = inside
            seen = np.zeros(n, dtype=bool)
            seen[cap] = True
            gidx = idx + base
            stuck = ~capture & (moves == 0)
            put(0, gidx[stuck])
            winning = outcomes.best_win < 255
            holds[gidx[winning | outcomes.draw]] = True
            put(outcomes.best_win[winning].astype(np.int64), gidx[winning])
            closed = ~stuck & ~winning & ~outcomes.draw & (inside_all == 0)
            put(outcomes.longest[closed].astype(np.int64), gidx[closed])
            longest_win[gidx] = outcomes.longest
            unresolved[gidx] = inside_all
            done += hi - lo
            if progress is not None:
                progress(done // 2)  # the waves are the other half of the work

    n = 0
    decided = 0
    while buckets:
        parts = buckets.pop(n, None)
        if parts is None:
            n += 1
            continue
        if n >= 255:
            raise ValueError(f"material {material}: a game {n} plies long does not fit a byte")
        cand = _unique(np.concatenate(parts))
        cand = cand[value[cand] == 0]
        value[cand] = n + 1
        decided += len(cand)
        if progress is not None:  # most positions are decided: a fair measure of the waves
            progress(total // 2 + min(decided // 2, total // 2 - 1))
        lost = not n & 1
        for m in group:
            base = offsets[m]
            mine = cand[(cand >= base) & (cand < base + size_of(m))] - base
            if not len(mine):
                continue
            preds = _unmoves(indexer, mine, m) + offsets[mirror(m)]
            preds = preds[value[preds] == 0]
            if lost:
                put(n + 1, preds)
                continue
            longest_win[preds] = np.maximum(longest_win[preds], n + 1)
            np.subtract.at(unresolved, preds, 1)
            ready = _unique(preds)
            ready = ready[(unresolved[ready] == 0) & ~holds[ready]]
            put(longest_win[ready].astype(np.int64), ready)
        n += 1
    return {m: bytearray(value[offsets[m] : offsets[m] + size_of(m)].tobytes()) for m in group}


def _unmoves(indexer: Indexer, index: Array, material: Material) -> Array:
    """The indices (in the mirror material) of every position from which the opponent's
    quiet move without a crowning, made with no capture on the board, leads to each
    position of ``index``."""
    own, opp, kings = indexer.boards(index, material)
    empty = ~(own | opp)
    out = []
    movers = opp
    while True:
        t = _low(movers)
        sel = np.nonzero(t)[0]
        if not len(sel):
            break
        movers = movers ^ t
        t, o_own, o_opp, o_kings, o_empty = t[sel], own[sel], opp[sel], kings[sel], empty[sel]
        is_king = (t & o_kings) != 0
        for d, step in enumerate(_STEPS):
            f = step(t) & o_empty
            if d >= 2:
                f &= np.where(is_king, _u32(0xFFFFFFFF), _u32(0))
            ok = np.nonzero(f)[0]
            if not len(ok):
                continue
            moved = t[ok] ^ f[ok]
            p_opp = o_opp[ok] ^ moved
            p_kings = np.where(is_king[ok], o_kings[ok] ^ moved, o_kings[ok])
            p_own = o_own[ok]
            legal = jumpers(p_opp, p_own, p_kings, False) == 0
            out.append(indexer.index(flip(p_opp[legal]), flip(p_own[legal]), flip(p_kings[legal]), mirror(material)))
    if not out:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(out)


def build(
    pieces: int,
    known: Mapping[Material, bytes | bytearray] | None = None,
    progress: Callable[[Material, int], None] | None = None,
) -> dict[Material, bytes | bytearray]:
    """Every table of up to ``pieces`` pieces (``known`` ones taken as they are)."""
    return egdb.build(pieces, progress, known, solver=solve)


__all__ = ["CHUNK", "Indexer", "available", "build", "flip", "jumpers", "solve"]
