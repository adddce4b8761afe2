"""Static evaluation: how good a quiet position is for the side to move, in centi-men.

The weights are data, :data:`crownhead.rules.engine.weights.WEIGHTS` (written by
``bench/fit_eval.py``), read by both searches (the native core through
:func:`native_weights`): material,
the trading bonus, mobility, the square tables and the runaway men were fitted on
self-play games labelled by their results and by the endgame tables
(``bench/fit_eval.py``), the endgame terms on the tables before. A man is worth about
100 and a king about 125. On top of material the evaluation knows:

* **Trading down when ahead**: the same material lead counts for more with fewer pieces
  on the board (2 against 1 is a win, 12 against 11 is only an edge).
* **Square tables** per phase (opening, middle game, endgame), for men and for kings:
  men gain value as they advance, more so in the endgame; the back-rank guard (Black's
  men on 1 and 3, White's on 30 and 32, the "bridge") counts in the opening and middle
  game; kings like the centre and dislike the edges.
* **Two-row patterns** (none shipped): a weight for each arrangement of the men on each
  pair of rows, by phase, seen from each side's own back rows.
* **Mobility**: the difference in the number of ordinary moves.
* **Runaway men**: a man that no enemy man can reach any more (no enemy man inside the
  cone of squares ahead of it) and no enemy king to stop it is as good as crowned.
* **The move** (opposition) in endgames with equal material: with Black to move, an odd
  number of pieces in Black's "system" (the columns of squares 1-4) means Black has it;
  with White to move, the same holds for White's system (the columns of squares 5-8).
* **Endgame knowledge** (eight pieces or fewer, :func:`endgame_knowledge`): the move
  (opposition) whatever the material, kings with no safe move (trapped: every move
  puts the king where it is jumped at once; the first- and second-position technique
  squeezes the defending king until it is), and the bridge held with a king against
  men (Black's men on 1 and 3, White's on 30 and 32: the other side's men cannot crown
  past it). The weights were fitted on positions of the endgame databases (won ranked
  above drawn, drawn above lost, within each material: ``bench/evaluation.py``); a
  penalty for men with no safe step ranked the tables' positions better still but lost
  drawn problems, and was left out (docs/engine.md).
* **Driving the lone king**: in won endgames the stronger side's kings walk towards the
  weaker side's pieces, and the weaker side's kings are better off in a double corner
  (1 and 5, or 28 and 32), where they are hardest to trap; the search then finds the
  forcing manoeuvre out of it.

The search calls :func:`evaluate_boards` on raw bitboards from the side to move's view;
:func:`evaluate` is the friendly form for a :class:`~crownhead.rules.position.Position`.

>>> from crownhead.rules.position import Position
>>> evaluate(Position.start())
0
>>> evaluate(Position.from_fen("B:WK1:BK14,K19")) > 250  # two kings against one
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crownhead.rules import movegen
from crownhead.rules.engine.weights import WEIGHTS
from crownhead.rules.position import Color, Position
from crownhead.rules.movegen import EVEN_NOT_H as _EVEN_NOT_H, ODD_NOT_A as _ODD_NOT_A
from crownhead.squares import EVEN_ROWS, FULL, ODD_ROWS, bit, file_of, row_of

_SCALARS = (
    "man_value",
    "king_value",
    "trade_bonus",
    "mobility",
    "the_move",
    "drive",
    "double_corner",
    "trapped_king",
    "ending_move",
    "bridge",
)


def check_weights(data: object) -> dict[str, Any]:
    """``data`` if it has the form of :data:`crownhead.rules.engine.weights.WEIGHTS` (every term an
    integer, ``men`` and ``kings`` three phases of 32 squares, ``runaway`` eight rows,
    ``patterns`` twelve lists of [index, 16-bit weight]); else ValueError naming what
    is wrong. A copy, with empty patterns where there were none.

    >>> check_weights({**WEIGHTS, "mobility": 2.5})
    Traceback (most recent call last):
    ...
    ValueError: the weights' 'mobility' must be an integer
    """

    def ints(value: object, count: int) -> bool:
        return isinstance(value, list) and len(value) == count and all(type(v) is int for v in value)

    if not isinstance(data, dict):
        raise ValueError("the weights must be a mapping")
    for name in _SCALARS:
        if type(data.get(name)) is not int:
            raise ValueError(f"the weights' {name!r} must be an integer")
    for name in ("men", "kings"):
        table = data.get(name)
        if not (isinstance(table, list) and len(table) == 3 and all(ints(row, 32) for row in table)):
            raise ValueError(f"the weights' {name!r} must be three phases of 32 integers")
    if not ints(data.get("runaway"), 8):
        raise ValueError("the weights' 'runaway' must be eight integers")
    patterns = data.get("patterns", [[] for _ in range(12)])
    if not (isinstance(patterns, list) and len(patterns) == 12):
        raise ValueError("the weights' 'patterns' must be twelve lists (three phases of four pairs of rows)")
    for entries in patterns:
        for entry in entries if isinstance(entries, list) else [None]:
            if not (ints(entry, 2) and 0 <= entry[0] < PATTERN_SIZE and -(1 << 15) <= entry[1] < 1 << 15):  # type: ignore[index]
                raise ValueError(f"a pattern's entry must be [index below {PATTERN_SIZE}, a 16-bit integer]")
    return {**data, "patterns": patterns}


#: The men of two rows: eight squares, each empty, a Black man or a White man.
PATTERN_SIZE = 3**8

_W = check_weights(WEIGHTS)
MAN_VALUE: int = _W["man_value"]
KING_VALUE: int = _W["king_value"]
#: A material lead of L with total material T earns L * TRADE_BONUS / T on top.
TRADE_BONUS: int = _W["trade_bonus"]
MOBILITY: int = _W["mobility"]
#: Having the opposition in an equal endgame.
THE_MOVE: int = _W["the_move"]
#: Per diagonal step between each strong king and the nearest weak piece.
DRIVE: int = _W["drive"]
#: A weak king in a double corner (from the weak side's view).
DOUBLE_CORNER_BONUS: int = _W["double_corner"]
#: Endgame knowledge (see :func:`endgame_knowledge`): per king with no safe move (every
#: move it has puts it where it is jumped at once, or none: trapped).
TRAPPED_KING: int = _W["trapped_king"]
#: The move (opposition) in any ending, on top of THE_MOVE for equal material.
ENDING_MOVE: int = _W["ending_move"]
#: The bridge in an ending: men on 1 and 3 (Black's) or 30 and 32 (White's), held by a
#: side with a king (and no fewer kings than the other side) against a side with men,
#: which cannot crown past it.
BRIDGE: int = _W["bridge"]
_BLACK_BRIDGE = bit(1) | bit(3)
_WHITE_BRIDGE = bit(30) | bit(32)

OPENING, MIDDLE_GAME, ENDGAME = 0, 1, 2


def phase_of(pieces: int) -> int:
    """The phase index for ``pieces`` on the board in total."""
    if pieces > 16:
        return OPENING
    if pieces > 8:
        return MIDDLE_GAME
    return ENDGAME


def _man_value(phase: int, square: int) -> int:
    return int(_W["men"][phase][square - 1])


def _king_value(phase: int, square: int) -> int:
    return int(_W["kings"][phase][square - 1])


def _byte_tables(values: list[int]) -> tuple[tuple[int, ...], ...]:
    """Per byte of a bitboard, the summed square values of the bits set in it."""
    tables = []
    for shift in range(4):
        # A byte's sum is that of the byte without its lowest bit plus that bit's value:
        # 256 additions a table instead of 2,048 (the tables are built at every start of
        # the command, whose time counts against `crownhead analyse --movetime`).
        row = [0] * 256
        for byte in range(1, 256):
            low = byte & -byte
            row[byte] = row[byte ^ low] + values[shift * 8 + low.bit_length()]
        tables.append(tuple(row))
    return tuple(tables)


def _tables(valuer: Callable[[int, int], int]) -> tuple[tuple, tuple]:
    out_black, out_white = [], []
    for phase in (OPENING, MIDDLE_GAME, ENDGAME):
        black = [0] + [valuer(phase, s) for s in range(1, 33)]
        # A White piece on s stands where a Black one would on 33 - s, board turned round.
        white = [0] + [valuer(phase, 33 - s) for s in range(1, 33)]
        out_black.append(_byte_tables(black))
        out_white.append(_byte_tables(white))
    return tuple(out_black), tuple(out_white)


_BLACK_MEN, _WHITE_MEN = _tables(_man_value)


def _dense_patterns(sparse: list[list[list[int]]]) -> tuple[tuple[list[int], ...], ...]:
    """Per phase, the four pairs of rows' tables, from the file's [index, weight] lists."""
    tables = []
    for entries in sparse:
        table = [0] * PATTERN_SIZE
        for index, value in entries:
            table[index] = value
        tables.append(table)
    return tuple(tuple(tables[4 * phase : 4 * phase + 4]) for phase in range(3))


#: Two-row patterns (see :func:`evaluate_boards`); None when the weights have none.
_PATTERNS = _dense_patterns(_W["patterns"]) if any(_W["patterns"]) else None
#: A byte of a bitboard (a pair of rows) as a base-3 number, 1 for each bit set; and the
#: same with the byte's bits reversed (the pair seen from the other side of the board).
_TERNARY = tuple(sum(3**j for j in range(8) if byte >> j & 1) for byte in range(256))
_TERNARY_REVERSED = tuple(sum(3**j for j in range(8) if byte >> (7 - j) & 1) for byte in range(256))
_BLACK_KINGS, _WHITE_KINGS = _tables(_king_value)


def _cone(square: int, black: bool) -> int:
    """The squares ahead of a man on ``square`` within reach of its forward diagonals."""
    f0, r0 = file_of(square), row_of(square)
    mask = 0
    for s in range(1, 33):
        f, r = file_of(s), row_of(s)
        ahead = r - r0 if black else r0 - r
        if ahead > 0 and abs(f - f0) <= ahead:
            mask |= bit(s)
    return mask


_BLACK_CONE = (0,) + tuple(_cone(s, True) for s in range(1, 33))
_WHITE_CONE = (0,) + tuple(_cone(s, False) for s in range(1, 33))
#: A runaway man is worth about a king; the nearer the crown, the surer (by row).
_BLACK_RUNAWAY = (0,) + tuple(int(_W["runaway"][row_of(s)]) for s in range(1, 33))
_WHITE_RUNAWAY = (0,) + tuple(int(_W["runaway"][7 - row_of(s)]) for s in range(1, 33))
#: Rows 3-7 (Black's men past the middle) and rows 0-4 (White's).
_BLACK_FAR_HALF = 0xFFFFF000
_WHITE_FAR_HALF = 0x000FFFFF

_DOUBLE_CORNERS = bit(1) | bit(5) | bit(28) | bit(32)
#: The 32 squares on the board with ghost squares (see _knowledge).
_PADDED_SQUARES = sum(1 << (i + i // 8) for i in range(32))

_DIST = tuple(
    tuple(0 if a == 0 or b == 0 else max(abs(file_of(a) - file_of(b)), abs(row_of(a) - row_of(b))) for b in range(33))
    for a in range(33)
)


def _runaways_black(men: int, white: int) -> int:
    bonus = 0
    candidates = men & _BLACK_FAR_HALF
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        s = low.bit_length()
        if not _BLACK_CONE[s] & white:
            bonus += _BLACK_RUNAWAY[s]
    return bonus


def _runaways_white(men: int, black: int) -> int:
    bonus = 0
    candidates = men & _WHITE_FAR_HALF
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        s = low.bit_length()
        if not _WHITE_CONE[s] & black:
            bonus += _WHITE_RUNAWAY[s]
    return bonus


def _drive(strong_kings: int, weak: int, weak_kings: int) -> int:
    """From the strong side's view: close in on the weak pieces, keep them out of corners."""
    distance = 0
    weak_squares = []
    w = weak
    while w:
        low = w & -w
        w ^= low
        weak_squares.append(low.bit_length())
    k = strong_kings
    while k:
        low = k & -k
        k ^= low
        row = _DIST[low.bit_length()]
        distance += min(row[s] for s in weak_squares)
    return -DRIVE * distance - DOUBLE_CORNER_BONUS * (weak_kings & _DOUBLE_CORNERS).bit_count()


def _bridge(b: int, w: int, kings: int) -> int:
    """The bridge term from Black's view (see :func:`bridge_term`)."""
    # The other side's men cannot crown past the bridge while a king keeps the tempo
    # moves, so the men on it never have to leave. The square tables pay for advanced
    # men, and so scored the bridge below an advanced pair. Against more kings than its
    # own it is worth far less (the six-piece tables agree).
    score = 0
    if b & ~kings & _BLACK_BRIDGE == _BLACK_BRIDGE and w & ~kings:
        bk = (b & kings).bit_count()
        if bk and bk >= (w & kings).bit_count():
            score += BRIDGE
    if w & ~kings & _WHITE_BRIDGE == _WHITE_BRIDGE and b & ~kings:
        wk = (w & kings).bit_count()
        if wk and wk >= (b & kings).bit_count():
            score -= BRIDGE
    return score


def bridge_term(own: int, opp: int, kings: int, black: bool) -> int:
    """The part of :func:`endgame_knowledge` the bridge gives, from the side to move's
    view: ``BRIDGE`` for men on its bridge squares (1 and 3 for Black, 30 and 32 for
    White) with a king and no fewer kings than the other side, which has men; minus the
    same for the other side's bridge.

    >>> from crownhead.rules.position import Position
    >>> p = Position.from_fen("B:W13,20,26:B1,3,K5")  # won; with 3 on 7 instead, drawn
    >>> bridge_term(p.black, p.white, p.kings, True) == BRIDGE
    True
    """
    if (own | opp).bit_count() > 8:
        return 0
    b, w = (own, opp) if black else (opp, own)
    score = _bridge(b, w, kings)
    return score if black else -score


def _knowledge(b: int, w: int, kings: int, black: bool) -> int:
    """The endgame knowledge from Black's view (see :func:`endgame_knowledge`)."""
    # The move: with Black to move, an odd count in Black's system (see evaluate_boards).
    if black:
        score = ENDING_MOVE if ((b | w) & EVEN_ROWS).bit_count() & 1 else -ENDING_MOVE
    else:
        score = -ENDING_MOVE if ((b | w) & ODD_ROWS).bit_count() & 1 else ENDING_MOVE
    if not kings:
        return score
    score += _bridge(b, w, kings)
    # Trapped kings. On a board with a ghost square after every eight (bit i + i // 8
    # for square i + 1) every diagonal step is a plain shift: +4 and +5 towards 32, -4
    # and -5 back, and a step off the board lands on a ghost bit or outside, never on a
    # square (shifted sets are only ever intersected with real squares).
    b = (b & 0xFF) | (b & 0xFF00) << 1 | (b & 0xFF0000) << 2 | (b & 0xFF000000) << 3
    w = (w & 0xFF) | (w & 0xFF00) << 1 | (w & 0xFF0000) << 2 | (w & 0xFF000000) << 3
    kings = (kings & 0xFF) | (kings & 0xFF00) << 1 | (kings & 0xFF0000) << 2 | (kings & 0xFF000000) << 3
    empty = _PADDED_SQUARES & ~(b | w)
    bk = b & kings
    wk = w & kings
    if bk:
        # Squares where a Black piece would be jumped at once: a White piece beside it
        # (jumping towards 1, or either way for a king) and the square beyond empty.
        hit = w >> 4 & empty << 4 | w >> 5 & empty << 5
        if wk:
            hit |= wk << 4 & empty >> 4 | wk << 5 & empty >> 5
        safe = empty & ~hit
        score -= TRAPPED_KING * (bk & ~(safe >> 4 | safe >> 5 | safe << 4 | safe << 5)).bit_count()
    if wk:
        hit = b << 4 & empty >> 4 | b << 5 & empty >> 5
        if bk:
            hit |= bk >> 4 & empty << 4 | bk >> 5 & empty << 5
        safe = empty & ~hit
        score += TRAPPED_KING * (wk & ~(safe >> 4 | safe >> 5 | safe << 4 | safe << 5)).bit_count()
    return score


def endgame_knowledge(own: int, opp: int, kings: int, black: bool) -> int:
    """What :func:`evaluate_boards` adds in an ending (eight pieces or fewer) beyond
    material, squares, mobility, runaways, the move with equal material and the drive,
    from the side to move's view: so ``evaluate_boards(...) - endgame_knowledge(...)`` is
    the evaluation without it.

    >>> from crownhead.rules.position import Position
    >>> p = Position.from_fen("W:WK19,K23:BK28,12")  # first position, White to move
    >>> endgame_knowledge(p.white, p.black, p.kings, False) > 0
    True
    """
    if (own | opp).bit_count() > 8:
        return 0
    b, w = (own, opp) if black else (opp, own)
    score = _knowledge(b, w, kings, black)
    return score if black else -score


def evaluate_boards(own: int, opp: int, kings: int, black: bool, own_mobility: int) -> int:
    """The score of a quiet position for the side to move.

    ``own_mobility`` is the number of ordinary moves of the side to move (the search has
    it already, having checked that the side to move is not blocked).
    """
    if black:
        b, w = own, opp
    else:
        b, w = opp, own
    bm = b & ~kings
    bk = b & kings
    wm = w & ~kings
    wk = w & kings
    nbk = bk.bit_count()
    nwk = wk.bit_count()
    nb = b.bit_count()
    nw = w.bit_count()
    mat_b = MAN_VALUE * (nb - nbk) + KING_VALUE * nbk
    mat_w = MAN_VALUE * (nw - nwk) + KING_VALUE * nwk
    score = mat_b - mat_w
    if score:
        # Rounded towards zero so that the colours are treated alike.
        bonus = abs(score) * TRADE_BONUS // (mat_b + mat_w)
        score += bonus if score > 0 else -bonus

    phase = 0 if nb + nw > 16 else (1 if nb + nw > 8 else 2)
    t0, t1, t2, t3 = _BLACK_MEN[phase]
    score += t0[bm & 255] + t1[bm >> 8 & 255] + t2[bm >> 16 & 255] + t3[bm >> 24]
    t0, t1, t2, t3 = _WHITE_MEN[phase]
    score -= t0[wm & 255] + t1[wm >> 8 & 255] + t2[wm >> 16 & 255] + t3[wm >> 24]
    if bk:
        t0, t1, t2, t3 = _BLACK_KINGS[phase]
        score += t0[bk & 255] + t1[bk >> 8 & 255] + t2[bk >> 16 & 255] + t3[bk >> 24]
    if wk:
        t0, t1, t2, t3 = _WHITE_KINGS[phase]
        score -= t0[wk & 255] + t1[wk >> 8 & 255] + t2[wk >> 16 & 255] + t3[wk >> 24]
    if _PATTERNS is not None:
        # The men of each pair of rows, from each side's own back rows: Black's pair k
        # is White's pair 3 - k seen from the other side (each byte's bits reversed).
        p0, p1, p2, p3 = _PATTERNS[phase]
        t, r = _TERNARY, _TERNARY_REVERSED
        b0, b1, b2, b3 = bm & 255, bm >> 8 & 255, bm >> 16 & 255, bm >> 24
        w0, w1, w2, w3 = wm & 255, wm >> 8 & 255, wm >> 16 & 255, wm >> 24
        score += (
            p0[t[b0] + 2 * t[w0]]
            + p1[t[b1] + 2 * t[w1]]
            + p2[t[b2] + 2 * t[w2]]
            + p3[t[b3] + 2 * t[w3]]
            - p0[r[w3] + 2 * r[b3]]
            - p1[r[w2] + 2 * r[b2]]
            - p2[r[w1] + 2 * r[b1]]
            - p3[r[w0] + 2 * r[b0]]
        )

    if not wk and bm:
        score += _runaways_black(bm, wm)
    if not bk and wm:
        score -= _runaways_white(wm, bm)

    # movegen.count_quiet(opp, own, kings, not black), inlined: this runs at every leaf.
    empty = ~(b | w) & FULL
    if black:
        south, north = w & kings, w
    else:
        south, north = b, b & kings
    opp_mobility = 0
    if south:
        opp_mobility = (((south & EVEN_ROWS) << 4 | (south & _ODD_NOT_A) << 3) & empty).bit_count() + (
            ((south & _EVEN_NOT_H) << 5 | (south & ODD_ROWS) << 4) & empty
        ).bit_count()
    if north:
        opp_mobility += (((north & EVEN_ROWS) >> 4 | (north & _ODD_NOT_A) >> 5) & empty).bit_count() + (
            ((north & _EVEN_NOT_H) >> 3 | (north & ODD_ROWS) >> 4) & empty
        ).bit_count()
    mobility = MOBILITY * (own_mobility - opp_mobility)
    score += mobility if black else -mobility

    if phase == 2:
        score += _knowledge(b, w, kings, black)
        if mat_b == mat_w:
            if black:
                has_move = ((b | w) & EVEN_ROWS).bit_count() & 1
            else:
                has_move = ((b | w) & ODD_ROWS).bit_count() & 1
            # From the side to move's view, folded into Black's below.
            gain = THE_MOVE if has_move else -THE_MOVE
            score += gain if black else -gain
        elif mat_b >= mat_w + MAN_VALUE and bk and 0 < nw <= 4:
            score += _drive(bk, w, wk)
        elif mat_w >= mat_b + MAN_VALUE and wk and 0 < nb <= 4:
            score -= _drive(wk, b, bk)
    return score if black else -score


def native_weights(weights: dict[str, Any] | None = None) -> dict[str, int | list[int]]:
    """The evaluation's weights as the native core reads them (``crownhead.rules.engine.native``):
    the terms, and per phase and square (index 0 unused) what a man or a king is worth
    on it, for each colour; those of :mod:`crownhead.rules.engine.weights`, or of ``weights``, a
    mapping of that form (bench/fit_eval.py's match hands the core fitted weights this
    way).

    >>> w = native_weights()
    >>> w["man_value"], len(w["black_men"]), w["white_men"][33 * 2 + 32] == w["black_men"][33 * 2 + 1]
    (98, 99, True)
    """
    source = _W if weights is None else weights
    man = [[0, *source["men"][phase]] for phase in (OPENING, MIDDLE_GAME, ENDGAME)]
    king = [[0, *source["kings"][phase]] for phase in (OPENING, MIDDLE_GAME, ENDGAME)]

    def turned(rows: list[list[int]]) -> list[int]:
        return [v for row in rows for v in [0] + [row[33 - s] for s in range(1, 33)]]

    runaway = source["runaway"]
    if weights is None:
        # The module's constants, which evaluate_boards reads: one source for both.
        scalars = dict(zip(_SCALARS, (MAN_VALUE, KING_VALUE, TRADE_BONUS, MOBILITY, THE_MOVE, DRIVE)))
        scalars.update(
            double_corner=DOUBLE_CORNER_BONUS,
            trapped_king=TRAPPED_KING,
            ending_move=ENDING_MOVE,
            bridge=BRIDGE,
        )
    else:
        scalars = {name: int(source[name]) for name in _SCALARS}
    out: dict[str, int | list[int]] = dict(scalars)
    out.update(
        {
            "black_men": [v for row in man for v in row],
            "white_men": turned(man),
            "black_kings": [v for row in king for v in row],
            "white_kings": turned(king),
            "black_runaway": [0, *(runaway[row_of(s)] for s in range(1, 33))],
            "white_runaway": [0, *(runaway[7 - row_of(s)] for s in range(1, 33))],
            "patterns": [v for phase in _dense_patterns(source.get("patterns", [[]] * 12)) for t in phase for v in t],
        }
    )
    return out


def evaluate(position: Position) -> int:
    """The static score of ``position`` for the side to move (no search, no captures)."""
    black = position.turn == Color.BLACK
    own, opp = (position.black, position.white) if black else (position.white, position.black)
    mobility = movegen.count_quiet(own, opp, position.kings, black)
    return evaluate_boards(own, opp, position.kings, black, mobility)


__all__ = [
    "BRIDGE",
    "KING_VALUE",
    "MAN_VALUE",
    "bridge_term",
    "endgame_knowledge",
    "evaluate",
    "evaluate_boards",
    "native_weights",
    "phase_of",
]
