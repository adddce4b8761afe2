"""Move generation on 32-bit bitboards for English checkers.

This module is the engine room of :mod:`crownhead.rules`: it works on raw integers so that perft
and the search stay fast in pure Python. Everything here looks at the board from the
side to move: ``own`` and ``opp`` are the bitboards of the mover's and the opponent's
pieces, ``kings`` holds the kings of both sides and ``black`` says who is moving.

Quiet moves are found for all pieces at once by shifting whole bitboards; captures are
followed square by square along precomputed jump tables, because a chain branches.

A capture route is ``(path, captures)``: the squares the jumper stands on (start first,
then every landing square) and the squares jumped, in order. Jumped pieces stay on the
board until the chain ends (WCDF 1.19), so they block landing squares and cannot be
jumped twice; the jumper's start square is empty during the chain, so a king may come
back to it. A man that reaches the king row stops there (WCDF 1.16).
"""

from __future__ import annotations

from crownhead.squares import (
    DIRECTIONS,
    EVEN_ROWS,
    FILE_A,
    FILE_H,
    FULL,
    NORTH_EAST,
    NORTH_WEST,
    ODD_ROWS,
    RAYS,
    SOUTH_EAST,
    SOUTH_WEST,
)
from crownhead.rules.move import BLACK_CROWN_ROW, WHITE_CROWN_ROW

EVEN_NOT_H = EVEN_ROWS & ~FILE_H
ODD_NOT_A = ODD_ROWS & ~FILE_A

Route = tuple[tuple[int, ...], tuple[int, ...]]


def step_sw(b: int) -> int:
    """Every piece of ``b`` moved one square south-west (towards a1, Black's forward left)."""
    return ((b & EVEN_ROWS) << 4 | (b & ODD_NOT_A) << 3) & FULL


def step_se(b: int) -> int:
    return ((b & EVEN_NOT_H) << 5 | (b & ODD_ROWS) << 4) & FULL


def step_nw(b: int) -> int:
    return (b & EVEN_ROWS) >> 4 | (b & ODD_NOT_A) >> 5


def step_ne(b: int) -> int:
    return (b & EVEN_NOT_H) >> 3 | (b & ODD_ROWS) >> 4


def _jump_table(direction: int) -> tuple[tuple[int, int, int, int] | None, ...]:
    """For each square: (jumped bit, landing bit, jumped square, landing square)."""
    table: list[tuple[int, int, int, int] | None] = [None]
    for square in range(1, 33):
        ray = RAYS[direction][square]
        if len(ray) >= 2:
            table.append((1 << (ray[0] - 1), 1 << (ray[1] - 1), ray[0], ray[1]))
        else:
            table.append(None)
    return tuple(table)


JUMPS = tuple(_jump_table(d) for d in range(len(DIRECTIONS)))
ALL_DIRECTIONS = (SOUTH_WEST, SOUTH_EAST, NORTH_WEST, NORTH_EAST)
BLACK_MAN_DIRECTIONS = (SOUTH_WEST, SOUTH_EAST)
WHITE_MAN_DIRECTIONS = (NORTH_WEST, NORTH_EAST)


def jumpers(own: int, opp: int, kings: int, black: bool, men_backward: bool = False) -> int:
    """The pieces of the side to move that have at least one capture."""
    empty = ~(own | opp) & FULL
    # A piece can jump towards D when the next square that way holds an opponent and the
    # one after is empty: step both back from the empty squares.
    sw = step_ne(opp & step_ne(empty))
    se = step_nw(opp & step_nw(empty))
    nw = step_se(opp & step_se(empty))
    ne = step_sw(opp & step_sw(empty))
    forward, backward = (sw | se, nw | ne) if black else (nw | ne, sw | se)
    if men_backward:
        return own & (forward | backward)
    return own & (forward | (backward & kings))


def capture_routes(own: int, opp: int, kings: int, black: bool, men_backward: bool = False) -> list[Route]:
    """Every capture route of the side to move (routes, not merged)."""
    routes: list[Route] = []
    pieces = jumpers(own, opp, kings, black, men_backward)
    if not pieces:
        return routes
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    man_dirs = ALL_DIRECTIONS if men_backward else (BLACK_MAN_DIRECTIONS if black else WHITE_MAN_DIRECTIONS)
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        start = low.bit_length()
        empty = (~(own | opp) | low) & FULL
        if low & kings:
            _follow(start, ALL_DIRECTIONS, 0, opp, empty, 0, (start,), (), routes)
        else:
            _follow(start, man_dirs, crown_row, opp, empty, 0, (start,), (), routes)
    return routes


def _follow(
    square: int,
    dirs: tuple[int, ...],
    crown_row: int,
    opp: int,
    empty: int,
    taken: int,
    path: tuple[int, ...],
    caps: tuple[int, ...],
    routes: list[Route],
) -> None:
    extended = False
    for d in dirs:
        jump = JUMPS[d][square]
        if jump is None:
            continue
        over, land, over_sq, land_sq = jump
        if over & opp and not over & taken and land & empty:
            extended = True
            if land & crown_row:
                # A man crowned by a jump ends the move there (WCDF 1.16, 1.19).
                routes.append((path + (land_sq,), caps + (over_sq,)))
            else:
                _follow(
                    land_sq, dirs, crown_row, opp, empty, taken | over, path + (land_sq,), caps + (over_sq,), routes
                )
    if not extended and caps:
        routes.append((path, caps))


def _count_routes(square: int, dirs: tuple[int, ...], crown_row: int, opp: int, empty: int, taken: int) -> int:
    total = 0
    for d in dirs:
        jump = JUMPS[d][square]
        if jump is None:
            continue
        over, land, _, land_sq = jump
        if over & opp and not over & taken and land & empty:
            if land & crown_row:
                total += 1
            else:
                total += _count_routes(land_sq, dirs, crown_row, opp, empty, taken | over)
    return total or 1


def quiet_moves(own: int, opp: int, kings: int, black: bool) -> list[tuple[int, int]]:
    """Every non-capturing move as (from bit, to bit)."""
    empty = ~(own | opp) & FULL
    moves: list[tuple[int, int]] = []
    append = moves.append
    if black:
        fwd_movers, back_movers = own, own & kings
    else:
        fwd_movers, back_movers = own & kings, own
    # South-west and south-east: Black's forward, White's kings' backward.
    t = step_sw(fwd_movers) & empty
    while t:
        d = t & -t
        t ^= d
        append((d >> 4 if d & ODD_ROWS else d >> 3, d))
    t = step_se(fwd_movers) & empty
    while t:
        d = t & -t
        t ^= d
        append((d >> 5 if d & ODD_ROWS else d >> 4, d))
    t = step_nw(back_movers) & empty
    while t:
        d = t & -t
        t ^= d
        append((d << 4 if d & ODD_ROWS else d << 5, d))
    t = step_ne(back_movers) & empty
    while t:
        d = t & -t
        t ^= d
        append((d << 3 if d & ODD_ROWS else d << 4, d))
    return moves


def count_quiet(own: int, opp: int, kings: int, black: bool) -> int:
    empty = ~(own | opp) & FULL
    if black:
        south, north = own, own & kings
    else:
        south, north = own & kings, own
    return (
        (step_sw(south) & empty).bit_count()
        + (step_se(south) & empty).bit_count()
        + (step_nw(north) & empty).bit_count()
        + (step_ne(north) & empty).bit_count()
    )


def count_moves(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    men_backward: bool = False,
    compulsory: bool = True,
) -> int:
    """How many legal moves (capture routes counted one by one) the side to move has."""
    pieces = jumpers(own, opp, kings, black, men_backward)
    total = 0
    if pieces:
        crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
        man_dirs = ALL_DIRECTIONS if men_backward else (BLACK_MAN_DIRECTIONS if black else WHITE_MAN_DIRECTIONS)
        occupied = own | opp
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            empty = (~occupied | low) & FULL
            if low & kings:
                total += _count_routes(low.bit_length(), ALL_DIRECTIONS, 0, opp, empty, 0)
            else:
                total += _count_routes(low.bit_length(), man_dirs, crown_row, opp, empty, 0)
        if compulsory:
            return total
    return total + count_quiet(own, opp, kings, black)


def children(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    men_backward: bool = False,
    compulsory: bool = True,
) -> list[tuple[int, int, int]]:
    """The positions after each legal move, seen from the new side to move.

    Each child is ``(own, opp, kings)`` for the opponent, who moves next.
    """
    out: list[tuple[int, int, int]] = []
    routes = capture_routes(own, opp, kings, black, men_backward)
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    for path, caps in routes:
        frm = 1 << (path[0] - 1)
        to = 1 << (path[-1] - 1)
        taken = 0
        for c in caps:
            taken |= 1 << (c - 1)
        new_own = (own & ~frm) | to
        if frm & kings or to & crown_row:
            new_kings = (kings & ~(frm | taken)) | to
        else:
            new_kings = kings & ~taken
        out.append((opp & ~taken, new_own, new_kings))
    if routes and compulsory:
        return out
    for frm, to in quiet_moves(own, opp, kings, black):
        ft = frm | to
        if frm & kings:
            out.append((opp, own ^ ft, kings ^ ft))
        elif to & crown_row:
            out.append((opp, own ^ ft, kings | to))
        else:
            out.append((opp, own ^ ft, kings))
    return out


def perft(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    depth: int,
    men_backward: bool = False,
    compulsory: bool = True,
    *,
    unique: bool = False,
) -> int:
    """Leaf count ``depth`` plies below this node; every capture route counts.

    With ``unique``, capture routes with equal start, end and captured set (a king
    going round a loop either way) count once. The count runs on the ghost layout
    below, which is several times faster than the public functions of this module.
    """
    if depth <= 0:
        return 1
    return _g_perft(_ghost(own), _ghost(opp), _ghost(kings), black, depth, men_backward, compulsory, unique)


# -- the ghost layout, for counting -----------------------------------------------------
#
# Perft spends nearly all its time in a few lines, so it runs on its own layout of the
# board: a spare ("ghost") bit after every two rows, bit ``i + i // 8`` for square
# ``i + 1``. Each diagonal step is then one shift for every square (south-west +4,
# south-east +5, north-west -5, north-east -4); a step off the board's side lands on a
# ghost bit and one off its top or bottom beyond the 35 bits, never empty nor occupied. The public functions above keep the
# plain layout (bit ``s - 1`` for square ``s``) that the rest of the program uses.
#
# Black moves to higher bits, White to lower ones. ``own``/``opp``/``kings`` are as
# above; ``back`` means men capture backward; ``compulsory`` that captures must be made.


def _ghost(b: int) -> int:
    return (b & 0xFF) | (b & 0xFF00) << 1 | (b & 0xFF0000) << 2 | (b & 0xFF000000) << 3


def _unghost(g: int) -> int:
    return (g & 0xFF) | (g >> 1 & 0xFF00) | (g >> 2 & 0xFF0000) | (g >> 3 & 0xFF000000)


_G_ALL = _ghost(FULL)
_G_BLACK_CROWN = _ghost(BLACK_CROWN_ROW)
_G_WHITE_CROWN = _ghost(WHITE_CROWN_ROW)
# Jump directions as signed shifts: positive towards higher bits.
_G_KING: tuple[int, ...] = (4, 5, -4, -5)
_G_BLACK_MAN: tuple[int, ...] = (4, 5)
_G_WHITE_MAN: tuple[int, ...] = (-4, -5)


def _g_routes(x: int, dirs: tuple[int, ...], opp: int, empty: int, crown: int) -> int:
    """How many capture routes the piece on bit ``x`` has (1 when it cannot jump on).

    ``opp`` holds the pieces still to be jumped (a jumped piece leaves it, so it cannot
    be jumped twice) while ``empty`` stays as it was: jumped pieces block landings until
    the move ends. ``crown`` is the row where a man's move ends (0 for a king).
    """
    n = 0
    for d in dirs:
        if d > 0:
            over = x << d
            land = over << d
        else:
            over = x >> -d
            land = over >> -d
        if over & opp and land & empty:
            n += 1 if land & crown else _g_routes(land, dirs, opp ^ over, empty, crown)
    return n or 1


def _g_ends(
    x: int,
    dirs: tuple[int, ...],
    opp: int,
    empty: int,
    crown: int,
    taken: int,
    out: list[tuple[int, int]],
) -> None:
    """Append ``(landing bit, jumped bits)`` for every capture route on from ``x``."""
    extended = False
    for d in dirs:
        if d > 0:
            over = x << d
            land = over << d
        else:
            over = x >> -d
            land = over >> -d
        if over & opp and land & empty:
            extended = True
            if land & crown:
                out.append((land, taken | over))
            else:
                _g_ends(land, dirs, opp ^ over, empty, crown, taken | over, out)
    if not extended:
        out.append((x, taken))


def _g_jumpers(own: int, opp: int, kings: int, black: bool, back: bool, empty: int) -> int:
    down = opp >> 4 & empty >> 8 | opp >> 5 & empty >> 10  # can jump south
    up = opp << 4 & empty << 8 | opp << 5 & empty << 10  # can jump north
    if back:
        return own & (down | up)
    if black:
        return own & (down | kings & up)
    return own & (up | kings & down)


def _g_quiet_count(own: int, kings: int, black: bool, empty: int) -> int:
    if black:
        n = (own << 4 & empty).bit_count() + (own << 5 & empty).bit_count()
        k = own & kings
        if k:
            n += (k >> 4 & empty).bit_count() + (k >> 5 & empty).bit_count()
        return n
    n = (own >> 4 & empty).bit_count() + (own >> 5 & empty).bit_count()
    k = own & kings
    if k:
        n += (k << 4 & empty).bit_count() + (k << 5 & empty).bit_count()
    return n


def _g_count(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    back: bool = False,
    compulsory: bool = True,
    unique: bool = False,
) -> int:
    """How many legal moves the side to move has (perft at depth 1)."""
    empty = _G_ALL ^ own ^ opp
    if black:
        sw = opp >> 4 & empty >> 8
        se = opp >> 5 & empty >> 10
        crown = _G_BLACK_CROWN
        dirs = _G_BLACK_MAN
    else:
        sw = opp << 4 & empty << 8  # here: north-east, White's forward jumps
        se = opp << 5 & empty << 10  # north-west
        crown = _G_WHITE_CROWN
        dirs = _G_WHITE_MAN
    if not (own & kings or back):
        # Men only, jumping forward: a jumped piece and the start square lie behind
        # the jumper, so a route goes on from its landing square exactly as a fresh
        # jump from there would, and single jumps can be counted wholesale.
        a = own & sw
        b = own & se
        if not (a or b):
            return _g_quiet_count(own, kings, black, empty)
        n = a.bit_count() + b.bit_count()
        if black:
            onward = a << 8 & ~crown & (sw | se), b << 10 & ~crown & (sw | se)
        else:
            onward = a >> 8 & ~crown & (sw | se), b >> 10 & ~crown & (sw | se)
        for land in onward:
            # Each landing square with jumps onward adds its further routes beyond the one.
            while land:
                x = land & -land
                land ^= x
                n += _g_routes(x, dirs, opp, empty, crown) - 1
        return n if compulsory else n + _g_quiet_count(own, kings, black, empty)
    j = _g_jumpers(own, opp, kings, black, back, empty)
    if not j:
        return _g_quiet_count(own, kings, black, empty)
    if unique:
        n = len(_g_capture_children(own, opp, kings, black, back, empty, True))
        return n if compulsory else n + _g_quiet_count(own, kings, black, empty)
    if back:
        dirs = _G_KING
    n = 0
    while j:
        x = j & -j
        j ^= x
        if x & kings:
            n += _g_routes(x, _G_KING, opp, empty | x, 0)
        else:
            n += _g_routes(x, dirs, opp, empty | x, crown)
    return n if compulsory else n + _g_quiet_count(own, kings, black, empty)


def _g_capture_children(
    own: int, opp: int, kings: int, black: bool, back: bool, empty: int, unique: bool
) -> list[tuple[int, int, int]]:
    """The positions after each capture route, as ``(own, opp, kings)`` for the opponent."""
    out: list[tuple[int, int, int]] = []
    if black:
        crown, dirs = _G_BLACK_CROWN, _G_BLACK_MAN
    else:
        crown, dirs = _G_WHITE_CROWN, _G_WHITE_MAN
    if not (own & kings or back):
        # Men only: when no landing square offers a further jump (see _g_count), every
        # capture is a single jump and its child is built directly.
        if black:
            a = own & (opp >> 4 & empty >> 8)
            b = own & (opp >> 5 & empty >> 10)
            onward = (a << 8 | b << 10) & ~crown & (opp >> 4 & empty >> 8 | opp >> 5 & empty >> 10)
        else:
            a = own & (opp << 4 & empty << 8)
            b = own & (opp << 5 & empty << 10)
            onward = (a >> 8 | b >> 10) & ~crown & (opp << 4 & empty << 8 | opp << 5 & empty << 10)
        if not (a or b):
            return out
        if not onward:
            for j, sh in ((a, 4), (b, 5)):
                while j:
                    x = j & -j
                    j ^= x
                    if black:
                        over = x << sh
                        land = over << sh
                    else:
                        over = x >> sh
                        land = over >> sh
                    out.append((opp ^ over, own ^ x | land, kings & ~over | land & crown))
            return out
    j = _g_jumpers(own, opp, kings, black, back, empty)
    if not j:
        return out
    if back:
        dirs = _G_KING
    seen: set[tuple[int, int, int]] = set()
    while j:
        x = j & -j
        j ^= x
        ends: list[tuple[int, int]] = []
        king = x & kings
        if king:
            _g_ends(x, _G_KING, opp, empty | x, 0, 0, ends)
        else:
            _g_ends(x, dirs, opp, empty | x, crown, 0, ends)
        for to, taken in ends:
            if unique:
                # Routes with equal start, end and captured set are one move.
                key = (x, to, taken)
                if key in seen:
                    continue
                seen.add(key)
            if king or to & crown:
                out.append((opp ^ taken, own ^ x | to, kings & ~(x | taken) | to))
            else:
                out.append((opp ^ taken, own ^ x | to, kings & ~taken))
    return out


def _g_children(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    back: bool = False,
    compulsory: bool = True,
    unique: bool = False,
) -> list[tuple[int, int, int]]:
    """The positions after each legal move, as ``(own, opp, kings)`` for the opponent."""
    empty = _G_ALL ^ own ^ opp
    out = _g_capture_children(own, opp, kings, black, back, empty, unique)
    if out and compulsory:
        return out
    append = out.append
    k = own & kings
    if black:
        crown = _G_BLACK_CROWN
        for sh in (4, 5):
            t = own << sh & empty
            while t:
                to = t & -t
                t ^= to
                ft = to | to >> sh
                if ft & kings:
                    append((opp, own ^ ft, kings ^ ft))
                elif to & crown:
                    append((opp, own ^ ft, kings | to))
                else:
                    append((opp, own ^ ft, kings))
        if k:
            for sh in (4, 5):
                t = k >> sh & empty
                while t:
                    to = t & -t
                    t ^= to
                    ft = to | to << sh
                    append((opp, own ^ ft, kings ^ ft))
    else:
        crown = _G_WHITE_CROWN
        for sh in (4, 5):
            t = own >> sh & empty
            while t:
                to = t & -t
                t ^= to
                ft = to | to << sh
                if ft & kings:
                    append((opp, own ^ ft, kings ^ ft))
                elif to & crown:
                    append((opp, own ^ ft, kings | to))
                else:
                    append((opp, own ^ ft, kings))
        if k:
            for sh in (4, 5):
                t = k << sh & empty
                while t:
                    to = t & -t
                    t ^= to
                    ft = to | to >> sh
                    append((opp, own ^ ft, kings ^ ft))
    return out


def _g_perft2(own: int, opp: int, kings: int, black: bool, unique: bool) -> int:
    """Perft at depth 2 under the WCDF rules, wholesale where the board allows it.

    When no piece is a king and neither side has a capture on the board as it stands,
    a reply can only become a capture through the square the mover left or the one it
    reached. Every other move changes the opponent's count of plain moves by the
    opponent's steps into the square left minus those into the square reached, so
    those children are summed with a few population counts instead of one by one.
    """
    empty = _G_ALL ^ own ^ opp
    if not kings:
        if black:
            b, w = own, opp
            if not (
                b & (w >> 4 & empty >> 8 | w >> 5 & empty >> 10) or w & (b << 4 & empty << 8 | b << 5 & empty << 10)
            ):
                # White's men step to w - 4 and w - 5.
                w4 = w >> 4
                w5 = w >> 5
                base = (w4 & empty).bit_count() + (w5 & empty).bit_count()
                n = 0
                # South-west steps (from = to - 4). White can reply with a jump when a
                # man of its stands on to + 4 (landing on the square left), or on to + 5
                # with to - 5 empty, or on from + 10 with a Black piece on from + 5.
                t = b << 4 & empty
                if t:
                    c = t & (w4 | w5 & empty << 5 | w >> 6 & b >> 1)
                    q = t ^ c
                    f = q >> 4
                    n += (
                        q.bit_count() * base
                        + (f & w4).bit_count()
                        + (f & w5).bit_count()
                        - (q & w4).bit_count()
                        - (q & w5).bit_count()
                    )
                    while c:
                        to = c & -c
                        c ^= to
                        n += _g_count(w, b ^ (to | to >> 4), to & _G_BLACK_CROWN, False)
                # South-east steps (from = to - 5): a White man on to + 5, or on to + 4
                # with to - 4 empty, or on from + 8 with a Black piece on from + 4.
                t = b << 5 & empty
                if t:
                    c = t & (w5 | w4 & empty << 4 | w >> 3 & b << 1)
                    q = t ^ c
                    f = q >> 5
                    n += (
                        q.bit_count() * base
                        + (f & w4).bit_count()
                        + (f & w5).bit_count()
                        - (q & w4).bit_count()
                        - (q & w5).bit_count()
                    )
                    while c:
                        to = c & -c
                        c ^= to
                        n += _g_count(w, b ^ (to | to >> 5), to & _G_BLACK_CROWN, False)
                return n
        else:
            w, b = own, opp
            if not (
                w & (b << 4 & empty << 8 | b << 5 & empty << 10) or b & (w >> 4 & empty >> 8 | w >> 5 & empty >> 10)
            ):
                # Black's men step to b + 4 and b + 5; the mirror image of the above.
                b4 = b << 4
                b5 = b << 5
                base = (b4 & empty).bit_count() + (b5 & empty).bit_count()
                n = 0
                t = w >> 4 & empty  # north-east steps, from = to + 4
                if t:
                    c = t & (b4 | b5 & empty >> 5 | b << 6 & w << 1)
                    q = t ^ c
                    f = q << 4
                    n += (
                        q.bit_count() * base
                        + (f & b4).bit_count()
                        + (f & b5).bit_count()
                        - (q & b4).bit_count()
                        - (q & b5).bit_count()
                    )
                    while c:
                        to = c & -c
                        c ^= to
                        n += _g_count(b, w ^ (to | to << 4), to & _G_WHITE_CROWN, True)
                t = w >> 5 & empty  # north-west steps, from = to + 5
                if t:
                    c = t & (b5 | b4 & empty >> 4 | b << 3 & w >> 1)
                    q = t ^ c
                    f = q << 5
                    n += (
                        q.bit_count() * base
                        + (f & b4).bit_count()
                        + (f & b5).bit_count()
                        - (q & b4).bit_count()
                        - (q & b5).bit_count()
                    )
                    while c:
                        to = c & -c
                        c ^= to
                        n += _g_count(b, w ^ (to | to << 5), to & _G_WHITE_CROWN, True)
                return n
    n = 0
    nxt = not black
    for o, p, k in _g_children(own, opp, kings, black, False, True, unique):
        n += _g_count(o, p, k, nxt, False, True, unique)
    return n


def _g_perft(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    depth: int,
    back: bool,
    compulsory: bool,
    unique: bool,
) -> int:
    if depth == 1:
        return _g_count(own, opp, kings, black, back, compulsory, unique)
    if depth == 2 and compulsory and not back:
        return _g_perft2(own, opp, kings, black, unique)
    n = 0
    nxt = not black
    for o, p, k in _g_children(own, opp, kings, black, back, compulsory, unique):
        n += _g_perft(o, p, k, nxt, depth - 1, back, compulsory, unique)
    return n
