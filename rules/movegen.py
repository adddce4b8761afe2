"""Move generation on 32-bit bitboards for English checkers.

This module is the engine room of :mod:`rules`: it works on raw integers so that perft
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

from rules.squares import (
    BLACK_CROWN_ROW,
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
    WHITE_CROWN_ROW,
)

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


def capture_routes(
    own: int, opp: int, kings: int, black: bool, men_backward: bool = False
) -> list[Route]:
    """Every capture route of the side to move (routes, not merged)."""
    routes: list[Route] = []
    pieces = jumpers(own, opp, kings, black, men_backward)
    if not pieces:
        return routes
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    man_dirs = ALL_DIRECTIONS if men_backward else (
        BLACK_MAN_DIRECTIONS if black else WHITE_MAN_DIRECTIONS
    )
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
                _follow(land_sq, dirs, crown_row, opp, empty, taken | over,
                        path + (land_sq,), caps + (over_sq,), routes)
    if not extended and caps:
        routes.append((path, caps))


def _count_routes(
    square: int, dirs: tuple[int, ...], crown_row: int, opp: int, empty: int, taken: int
) -> int:
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
        man_dirs = ALL_DIRECTIONS if men_backward else (
            BLACK_MAN_DIRECTIONS if black else WHITE_MAN_DIRECTIONS
        )
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
) -> int:
    """Leaf count ``depth`` plies below this node; every capture route counts."""
    if depth <= 0:
        return 1
    if depth == 1:
        return count_moves(own, opp, kings, black, men_backward, compulsory)
    total = 0
    nxt = not black
    for o, p, k in children(own, opp, kings, black, men_backward, compulsory):
        total += perft(o, p, k, nxt, depth - 1, men_backward, compulsory)
    return total
