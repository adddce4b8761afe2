"""Endgame databases: every position with few pieces solved by retrograde analysis.

For each *material* (how many men and kings each side has), every position is labelled
with its exact value under the WCDF rules: won or lost in so many plies with best play
(the winner hurrying, the loser holding out longest), or drawn. The values count plies
to the end of the game, through captures and crownings into smaller materials, so the
search can play a won ending straight to the end and a lost one as long as it lasts.
Repetitions and the 40-move rule are not part of the value: a database win is a win
with best play, and the plies it takes are given so a player can see it fits in the
forty moves (every four-piece win here takes fewer than 80 plies from its last man move
or capture; :func:`longest` says how long the longest is).

Positions are kept from the side to move's view: the board is turned round when White
is to move (square ``s`` becomes ``33 - s`` and the colours swap), so one table serves
both colours. A table is a ``bytes``-like object, one byte per index: 0 for a draw (or
an index that is no position: two pieces on one square), else ``n + 1`` for a game
decided in ``n`` plies, won by the side to move when ``n`` is odd and lost when even.

A *win/draw/loss* table (what ships for five and six pieces: a few bits a position
instead of a byte, see :mod:`crownhead.firmware.egdb.blocks`) knows only who wins: its positions
are :data:`WON` or :data:`LOST` without a number of plies, or drawn, and a position where
the side to move has a capture is not kept in it at all: the probe works it out from
the captures, whose positions have fewer pieces (:meth:`EndgameTables.value`).

This module is pure: :func:`build` computes tables in memory and :class:`EndgameTables`
probes them; reading and writing files is the business of the firmware
(``crownhead egdb build``), which hands the loaded tables to the engine.

>>> tables = EndgameTables(build(2))  # up to two pieces: built in a moment (three take seconds)
>>> from crownhead.rules.position import Position
>>> tables.probe_position(Position.from_fen("B:WK32:BK28"))  # one king each
('draw', 0)
>>> tables.probe_position(Position.from_fen("B:W18:B14"))    # 14x23 takes the last piece
('win', 1)
>>> tables.probe_position(Position.from_fen("W:W12:BK3"))    # 12-8, the only move, is taken
('loss', 2)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from math import comb
from typing import Protocol

from crownhead.rules.movegen import children, jumpers, step_ne, step_nw, step_se, step_sw
from crownhead.rules.position import Color, Position

#: (own men, own kings, opponent's men, opponent's kings), the side to move first.
Material = tuple[int, int, int, int]


class Table(Protocol):
    """A table as the probe reads it: ``bytes``, or a file read block by block (which
    raises a ``LookupError`` when a block of it turns out damaged)."""

    def __getitem__(self, index: int, /) -> int: ...

    def __len__(self) -> int: ...


Tables = Mapping[Material, Table]

#: Decided, in an unknown number of plies (a win/draw/loss table): won, or lost, by the
#: side to move. Larger than any distance a byte holds, and of the parity every value
#: has (even: the side to move wins), so ``value & 1`` still tells a loss.
WON = 256
LOST = 257
BuiltTables = Mapping[Material, bytes | bytearray]

#: Black's men never stand on 29-32 (they are crowned there), White's never on 1-4.
_BLACK_MAN_SQUARES = 28
_WHITE_MAN_OFFSET = 4


def _reverse_byte(b: int) -> int:
    return int(f"{b:08b}"[::-1], 2)


_REV = tuple(_reverse_byte(b) for b in range(256))


def flip(board: int) -> int:
    """The bitboard with the board turned round: square ``s`` to ``33 - s``.

    >>> flip(1) == 1 << 31 and flip(flip(0x1234_5678)) == 0x1234_5678
    True
    """
    return _REV[board & 255] << 24 | _REV[board >> 8 & 255] << 16 | _REV[board >> 16 & 255] << 8 | _REV[board >> 24]


def material_of(own: int, opp: int, kings: int) -> Material:
    return (
        (own & ~kings).bit_count(),
        (own & kings).bit_count(),
        (opp & ~kings).bit_count(),
        (opp & kings).bit_count(),
    )


def mirror(material: Material) -> Material:
    """The material seen from the other side."""
    a, b, c, d = material
    return (c, d, a, b)


def materials(pieces: int) -> list[Material]:
    """Every material of 2 to ``pieces`` pieces with a piece on each side, in the order
    they are built: fewer pieces first, then fewer men (a capture or a crowning only ever
    leads to a material built earlier).

    >>> materials(2)
    [(0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0)]
    """
    out = []
    for total in range(2, pieces + 1):
        for own in range(1, total):
            opp = total - own
            for own_men in range(own + 1):
                for opp_men in range(opp + 1):
                    out.append((own_men, own - own_men, opp_men, opp - opp_men))
    return sorted(out, key=lambda m: (m[0] + m[1] + m[2] + m[3], m[0] + m[2], m))


def size_of(material: Material) -> int:
    """The number of indices of ``material`` (some are no position: pieces overlap)."""
    a, b, c, d = material
    return comb(_BLACK_MAN_SQUARES, a) * comb(32, b) * comb(32 - _WHITE_MAN_OFFSET, c) * comb(32, d)


_C = tuple(tuple(comb(p, i) for i in range(6)) for p in range(33))


def _rank(mask: int) -> int:
    """The combinatorial number of a set of bit positions (0 for the empty set)."""
    r = 0
    i = 1
    while mask:
        low = mask & -mask
        mask ^= low
        r += _C[low.bit_length() - 1][i]
        i += 1
    return r


def index_of(own: int, opp: int, kings: int, material: Material) -> int:
    """The index of a position (own to move, own men moving towards 29-32) in its material."""
    _a, b, c, d = material
    return (
        (_rank(own & ~kings) * _C[32][b] + _rank(own & kings)) * _C[28][c] + _rank((opp & ~kings) >> _WHITE_MAN_OFFSET)
    ) * _C[32][d] + _rank(opp & kings)


def _boards(material: Material) -> Iterator[tuple[int, int, int]]:
    """Every position of ``material``: (own, opp, kings), own to move (Black's side)."""
    a, b, c, d = material
    men_b = [sum(1 << p for p in combo) for combo in itertools.combinations(range(28), a)]
    kings_b = [sum(1 << p for p in combo) for combo in itertools.combinations(range(32), b)]
    men_w = [sum(1 << (p + 4) for p in combo) for combo in itertools.combinations(range(28), c)]
    kings_w = [sum(1 << p for p in combo) for combo in itertools.combinations(range(32), d)]
    for bm in men_b:
        for bk in kings_b:
            if bm & bk:
                continue
            own = bm | bk
            for wm in men_w:
                if wm & own:
                    continue
                for wk in kings_w:
                    if wk & (own | wm):
                        continue
                    yield own, wm | wk, bk | wk


def _from_white(own: int, opp: int, kings: int) -> tuple[int, int, int]:
    """A position with White (``own``) to move, turned round so that it is Black's."""
    return flip(own), flip(opp), flip(kings)


Progress = Callable[[int], None]


def solve(material: Material, known: BuiltTables, progress: Progress | None = None) -> dict[Material, bytearray]:
    """The tables of ``material`` and of its mirror (they lead into each other by quiet
    moves), given ``known`` tables of every material a capture or crowning leads to.

    ``progress`` is called with a count of positions done, now and then.
    """
    group = sorted({material, mirror(material)})
    values = {m: bytearray(size_of(m)) for m in group}
    unresolved = {m: bytearray(size_of(m)) for m in group}
    longest_win = {m: bytearray(size_of(m)) for m in group}  # 1 + longest child win
    holds = {m: bytearray(size_of(m)) for m in group}  # 1: a drawn or winning way out
    buckets: list[list[int]] = [[] for _ in range(257)]
    done = 0

    def value_of(own: int, opp: int, kings: int) -> int:
        if not own:
            return 1  # no piece left: lost, no move to make
        if not opp:
            raise AssertionError("a side to move whose opponent has no piece")
        m = material_of(own, opp, kings)
        return known[m][index_of(own, opp, kings, m)]

    # Each position: what its captures and crownings lead to (known), and how many of
    # its moves stay in the group (decided below, by retrograde waves).
    for m in group:
        val, unres, lw, hold = values[m], unresolved[m], longest_win[m], holds[m]
        for own, opp, kings in _boards(m):
            i = index_of(own, opp, kings, m)
            kids = children(own, opp, kings, True)
            pieces = (own | opp).bit_count()
            men = (own | opp) & ~kings
            men = men.bit_count()
            done += 1
            if progress is not None and not done & 0xFFF:
                progress(done)
            if not kids:
                buckets[0].append(own | opp << 32 | kings << 64)
                continue
            inside = 0
            best_win = 0  # 1 + fastest loss among children
            longest = 0
            draw = False
            for c_own, c_opp, c_kings in kids:
                if (c_own | c_opp).bit_count() == pieces and ((c_own | c_opp) & ~c_kings).bit_count() == men:
                    inside += 1  # a quiet move that crowned nothing: in the group
                    continue
                n_own, n_opp, n_kings = flip(c_own), flip(c_opp), flip(c_kings)
                v = value_of(n_own, n_opp, n_kings)
                if v == 0:
                    draw = True
                elif v & 1:  # child lost in v - 1 (even): a win in v
                    if not best_win or v < best_win:
                        best_win = v
                elif v > longest:
                    longest = v
            if best_win:
                hold[i] = 1
                buckets[best_win].append(own | opp << 32 | kings << 64)
            elif draw:
                hold[i] = 1
            elif not inside:
                buckets[longest].append(own | opp << 32 | kings << 64)
            lw[i] = longest
            unres[i] = inside

    mask32 = 0xFFFF_FFFF
    for n, bucket in enumerate(buckets):
        if not bucket:
            continue
        if n >= 255:
            raise ValueError(f"material {material}: a game {n} plies long does not fit a byte")
        # Positions decided at n plies; their predecessors in the group follow.
        while bucket:
            packed = bucket.pop()
            own, opp, kings = packed & mask32, packed >> 32 & mask32, packed >> 64
            m = material_of(own, opp, kings)
            i = index_of(own, opp, kings, m)
            val = values[m]
            if val[i]:
                continue
            val[i] = n + 1
            lost = not n & 1
            # Un-moves: White (opp here) just made a quiet move that crowned nothing.
            empty = ~(own | opp) & mask32
            movers = opp
            while movers:
                t = movers & -movers
                movers ^= t
                if t & kings:
                    froms = (step_nw(t) | step_ne(t) | step_sw(t) | step_se(t)) & empty
                else:
                    froms = (step_sw(t) | step_se(t)) & empty
                while froms:
                    f = froms & -froms
                    froms ^= f
                    p_opp = opp ^ t ^ f
                    p_kings = kings ^ t ^ f if t & kings else kings
                    if jumpers(p_opp, own, p_kings, False):
                        continue  # a jump was on: the quiet move was not legal
                    q_own, q_opp, q_kings = flip(p_opp), flip(own), flip(p_kings)
                    qm = material_of(q_own, q_opp, q_kings)
                    q = index_of(q_own, q_opp, q_kings, qm)
                    if values[qm][q]:
                        continue
                    if lost:
                        buckets[n + 1].append(q_own | q_opp << 32 | q_kings << 64)
                        continue
                    lw = longest_win[qm]
                    if n + 1 > lw[q]:
                        lw[q] = n + 1
                    unres = unresolved[qm]
                    unres[q] -= 1
                    if not unres[q] and not holds[qm][q]:
                        buckets[lw[q]].append(q_own | q_opp << 32 | q_kings << 64)
    return values


#: What builds one material's tables (and its mirror's) from the tables it leads into:
#: :func:`solve` here, or a faster builder giving the same bytes.
Solver = Callable[[Material, BuiltTables, Progress | None], dict[Material, bytearray]]


def build(
    pieces: int,
    progress: Callable[[Material, int], None] | None = None,
    known: BuiltTables | None = None,
    solver: Solver | None = None,
) -> dict[Material, bytes | bytearray]:
    """Every table of up to ``pieces`` pieces; ``known`` ones are taken as they are
    (a resumed build), and ``progress(material, positions_done)`` is called now and then.
    ``solver`` builds each material (:func:`solve` when not given).
    """
    solve_one = solver or solve
    tables: dict[Material, bytes | bytearray] = dict(known or {})
    for m in materials(pieces):
        if m in tables:
            continue
        report = (lambda done, m=m: progress(m, done)) if progress is not None else None
        tables.update(solve_one(m, tables, report))
    return tables


def combine(values: Iterable[int]) -> int:
    """The value of a position given its children's (each for the side that moves there):
    one ply more than its fastest win, else a draw if it has a drawing move, else one
    ply more than its longest loss (no move: lost at once). A win or loss through a child
    whose distance is unknown (:data:`WON`, :data:`LOST`) has none either.

    >>> combine([0, 6]), combine([6, 3]), combine([6, LOST]), combine([WON, 8]), combine([])
    (0, 4, 256, 257, 1)
    """
    best_win = 0
    untimed_win = False
    longest_loss = 0
    untimed_loss = False
    draw = False
    for v in values:
        if v == 0:
            draw = True
        elif v & 1:
            if v >= WON:
                untimed_win = True
            elif not best_win or v < best_win:
                best_win = v
        elif v >= WON:
            untimed_loss = True
        elif v > longest_loss:
            longest_loss = v
    if best_win or untimed_win:
        # A win in a known number of plies, when some other winning move's count is
        # unknown, is still a win but no longer the fastest: its distance is unknown.
        return WON if untimed_win else best_win + 1
    if draw:
        return 0
    return LOST if untimed_loss else longest_loss + 1


def outcome(value: int) -> int:
    """1 won, 0 drawn, -1 lost (by the side to move), whatever the distance.

    >>> outcome(0), outcome(6), outcome(LOST)
    (0, 1, -1)
    """
    return 0 if not value else -1 if value & 1 else 1


def expected_value(own: int, opp: int, kings: int, probe: EndgameProbe) -> int:
    """The value a position (own to move, as Black) must have given its children's
    values (:func:`combine`). A table is right when every position agrees with it:
    :func:`check` (the children are probed too).

    >>> tables = EndgameTables(build(2))
    >>> expected_value(1 << 17, 1 << 22, 0, tables) == tables.value(1 << 17, 1 << 22, 0, True)
    True
    """
    values = []
    for c_own, c_opp, c_kings in children(own, opp, kings, True):
        v = probe.value(flip(c_own), flip(c_opp), flip(c_kings), True)
        if v is None:
            raise ValueError("a child the tables do not cover")
        values.append(v)
    return combine(values)


def check(material: Material, probe: EndgameProbe, indices: Iterator[int] | list[int]) -> list[int]:
    """The indices of ``material`` (among ``indices``) whose value in ``probe`` is not
    the one its children's values give (:func:`expected_value`): none when the tables
    are consistent, across captures and crownings into smaller tables too. Where either
    value has no distance (a win/draw/loss table), only the outcome is compared. Indices
    that are no position are skipped."""
    wrong = []
    for i in indices:
        boards = boards_of(i, material)
        if boards is None:
            continue
        own, opp, kings = boards
        got = probe.value(own, opp, kings, True)
        want = expected_value(own, opp, kings, probe)
        if got is None or (got != want if got < WON and want < WON else outcome(got) != outcome(want)):
            wrong.append(i)
    return wrong


def boards_of(index: int, material: Material) -> tuple[int, int, int] | None:
    """The position (own, opp, kings; own to move as Black) at ``index`` of ``material``,
    or None when the index is no position (two pieces on one square).

    >>> m = (1, 1, 0, 1)
    >>> index_of(*boards_of(12345, m), m)
    12345
    """
    a, b, c, d = material
    rest, rd = divmod(index, comb(32, d))
    rest, rc = divmod(rest, comb(28, c))
    ra, rb = divmod(rest, comb(32, b))
    own_men, own_kings = _unrank(ra, a, 0), _unrank(rb, b, 0)
    opp_men, opp_kings = _unrank(rc, c, _WHITE_MAN_OFFSET), _unrank(rd, d, 0)
    own, opp = own_men | own_kings, opp_men | opp_kings
    if (own | opp).bit_count() != a + b + c + d:
        return None
    return own, opp, own_kings | opp_kings


def _unrank(r: int, k: int, shift: int) -> int:
    """The set of ``k`` bit positions whose :func:`_rank` is ``r``, shifted up."""
    mask = 0
    for i in range(k, 0, -1):
        p = i - 1
        while comb(p + 1, i) <= r:
            p += 1
        r -= comb(p, i)
        mask |= 1 << (p + shift)
    return mask


def longest(table: bytes | bytearray) -> int:
    """The most plies any decided position of a table takes to the end."""
    return max(table) - 1


class _Whole:
    """A table held in memory, as the native probe reads it: one block, the whole."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def block(self, n: int) -> bytes:
        return self.data


class EndgameProbe(Protocol):
    """What the search asks of endgame databases (:class:`EndgameTables` is one)."""

    #: Every position of up to this many pieces is covered.
    pieces: int

    def value(self, own: int, opp: int, kings: int, black: bool) -> int | None:
        """0 drawn, ``n + 1`` decided in n plies (odd n: the side to move wins), :data:`WON`
        or :data:`LOST` decided in a number of plies the tables do not know, or None."""
        ...


#: The block shift (:meth:`EndgameTables.blocks`) of a table that is one block.
WHOLE_BLOCK = 63

#: The rows where the side to move's men (moving towards 29-32) and the other side's men
#: are crowned, as bit masks.
_OWN_CROWNING_ROW = 0xF << 28
_OPP_CROWNING_ROW = 0xF


class EndgameTables:
    """The probe the search uses: exact values of every position the tables cover.

    ``tables`` maps each material to its table; positions with more pieces than
    :attr:`pieces`, or of a material that is missing, are not covered (None). A table
    that raises ``LookupError`` (a damaged block of a file read in blocks) is dropped
    and reported once to ``on_damage``; its positions are not covered from then on.

    A table with a true ``wdl`` attribute holds only who wins (:data:`WON`, :data:`LOST`,
    0), and nothing for positions where the side to move has a capture: those are valued
    from their captures, probed in turn (fewer pieces, so the recursion ends).
    """

    def __init__(self, tables: Tables, on_damage: Callable[[Material, LookupError], None] | None = None) -> None:
        self.tables = dict(tables)
        self.on_damage = on_damage
        self.wdl = {m for m, t in self.tables.items() if getattr(t, "wdl", False)}
        # The largest count with a table; a missing material of it (a damaged file left
        # out, a build still going on) is only not covered.
        self.pieces = max((sum(m) for m in self.tables), default=0)
        # Every smaller count complete, though: a capture from the largest leads there.
        for m in materials(self.pieces):
            if sum(m) < self.pieces and m not in self.tables:
                self.pieces = min(self.pieces, sum(m) - 1)

    def value(self, own: int, opp: int, kings: int, black: bool) -> int | None:
        """The raw value (0 draw, ``n + 1`` decided in n plies) of the side to move,
        or None when the tables do not cover the position."""
        if (own | opp).bit_count() > self.pieces:
            return None
        if not own:
            return 1
        if not black:
            own, opp, kings = flip(own), flip(opp), flip(kings)
        if (own & ~kings & _OWN_CROWNING_ROW) or (opp & ~kings & _OPP_CROWNING_ROW):
            # A man on the row where it is crowned (a position set up so, never one
            # played to): outside every table. Its index would name another position,
            # or none at all, which is not damage.
            return None
        m = material_of(own, opp, kings)
        table = self.tables.get(m)
        if table is None:
            return None
        if m in self.wdl and jumpers(own, opp, kings, True):
            # Not kept: the captures say (each leads to fewer pieces).
            values = []
            for c_own, c_opp, c_kings in children(own, opp, kings, True):
                v = self.value(flip(c_own), flip(c_opp), flip(c_kings), True)
                if v is None:
                    return None
                values.append(v)
            return combine(values)
        try:
            return table[index_of(own, opp, kings, m)]
        except LookupError as error:
            del self.tables[m]
            self.wdl.discard(m)
            if self.on_damage is not None:
                self.on_damage(m, error)
            return None

    def blocks(self) -> list[tuple[int, int, int, int, bool, int, Callable[[int], bytes]]] | None:
        """What the native core's probe reads (:func:`crownhead.rules.engine.native.probe_of`): per
        table, its material, whether it is a win/draw/loss table, its block size as a
        power of two (63: one block) and a function giving block ``n`` inflated (its
        bytes, or for a win/draw/loss table its two bits an index, four to a byte). A
        table is a ``bytes``-like object or has ``block_shift`` and ``read_block(n)`` (the
        firmware's files do); None when one has neither.

        >>> [entry[:6] for entry in EndgameTables(build(2)).blocks()]
        [(0, 1, 0, 1, False, 63), (0, 1, 1, 0, False, 63), (1, 0, 0, 1, False, 63), (1, 0, 1, 0, False, 63)]
        """
        out: list[tuple[int, int, int, int, bool, int, Callable[[int], bytes]]] = []
        for m, table in self.tables.items():
            wdl = m in self.wdl
            if isinstance(table, bytes | bytearray):
                out.append((*m, wdl, WHOLE_BLOCK, _Whole(bytes(table)).block))
                continue
            shift = getattr(table, "block_shift", None)
            block = getattr(table, "read_block", None)
            if not isinstance(shift, int) or not callable(block):
                return None
            out.append((*m, wdl, shift, block))
        return out

    def probe_position(self, position: Position) -> tuple[str, int] | None:
        """``("win", n)``, ``("loss", n)`` (in n plies with best play; -1 when a
        win/draw/loss table does not know how many) or ``("draw", 0)`` for the side to
        move; None when not covered."""
        black = position.turn is Color.BLACK
        own, opp = (position.black, position.white) if black else (position.white, position.black)
        v = self.value(own, opp, position.kings, black)
        if v is None:
            return None
        if v == 0:
            return ("draw", 0)
        if v >= WON:
            return ("win" if v == WON else "loss", -1)
        return ("win" if v & 1 == 0 else "loss", v - 1)


__all__ = [
    "BuiltTables",
    "EndgameProbe",
    "EndgameTables",
    "LOST",
    "Material",
    "Table",
    "Tables",
    "WON",
    "build",
    "boards_of",
    "check",
    "combine",
    "expected_value",
    "flip",
    "index_of",
    "longest",
    "material_of",
    "materials",
    "mirror",
    "outcome",
    "size_of",
    "solve",
]
