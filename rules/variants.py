"""The named variants played on this board, and the move generator for every rule option.

Four games share the 8x8 board, its 32 dark squares and our PDN square numbers
(1 = b8 ... 32 = g1, see :mod:`crownhead.squares`):

============  ========  ===================================================  ===========
name          GameType  rules                                                first mover
============  ========  ===================================================  ===========
``english``   21        WCDF (the default, :data:`crownhead.rules.settings.WCDF`)      Black, 1-12
``giveaway``  21 [#]_   English moves; a side with no piece or no move wins  Black, 1-12
``russian``   25        men capture backward, flying kings, a man crowned    White, 21-32
                        mid-capture goes on jumping as a king
``pool``      23        men capture backward, flying kings, a man reaching   Black, 1-12
                        the king row mid-capture goes on jumping as a man
                        and is crowned only where the chain ends
============  ========  ===================================================  ===========

.. [#] The PDN GameType list has no number for giveaway checkers; its moves are English
   moves, so it is written as GameType 21 with a ``[Variant "giveaway"]`` tag.

>>> RUSSIAN.flying_kings, RUSSIAN.first_mover, gametype_of(RUSSIAN)
(True, 'white', 25)
>>> variant_for_gametype("23,B,8,8,N1,0") == POOL
True
>>> rules_for("pool").crowning
<Crowning.CONTINUES_AS_MAN: 'continues-as-man'>

The generator here works on the same bitboards as :mod:`crownhead.rules.movegen` (bit ``s - 1`` for
square ``s``; ``own``/``opp`` from the side to move; ``kings`` for both sides) and plays
every option of :class:`~crownhead.rules.settings.Rules`. :class:`~crownhead.rules.position.Position` uses it
only when ``rules.fast_path`` is false (flying kings, crowning that does not end the
move, kings capture first); the English rules keep the fast generator of
:mod:`crownhead.rules.movegen`.

Captures, for all rules: a chain of jumps must be followed to its end; jumped pieces
stay on the board until the chain ends, so they cannot be jumped twice and they block
the way (the "Turkish strike" rule); the jumper's start square is empty during the
chain. Among capture routes the choice is free (no maximum-capture rule in any of these
games). A flying king jumps an opponent piece anywhere along a diagonal, with only empty
squares between, and lands on any empty square beyond it, before the next piece; when
some of those landing squares let it jump on, it must land on one of them (a chain may
not be cut short).
"""

from __future__ import annotations

from collections.abc import Iterable

from crownhead.rules.settings import WCDF, Crowning, Rules
from crownhead.squares import (
    DIRECTIONS,
    FULL,
    NORTH_EAST,
    NORTH_WEST,
    RAYS,
    SOUTH_EAST,
    SOUTH_WEST,
    Square,
    parse_square,
    square_name,
)
from crownhead.rules.move import BLACK_CROWN_ROW, WHITE_CROWN_ROW
from crownhead.rules.quoting import excerpt

# -- the named variants -----------------------------------------------------------------

ENGLISH = WCDF
GIVEAWAY = Rules(giveaway=True, variant="giveaway")
RUSSIAN = Rules(
    men_capture_backward=True,
    flying_kings=True,
    crowning=Crowning.CONTINUES_AS_KING,
    first_mover="white",
    variant="russian",
)
POOL = Rules(
    men_capture_backward=True,
    flying_kings=True,
    crowning=Crowning.CONTINUES_AS_MAN,
    variant="pool",
)

#: Every named variant, by the name ``--variant`` takes.
VARIANTS: dict[str, Rules] = {
    "english": ENGLISH,
    "giveaway": GIVEAWAY,
    "russian": RUSSIAN,
    "pool": POOL,
}

#: One line per variant, for ``--help`` and menus.
SUMMARIES: dict[str, str] = {
    "english": "English checkers / American checkers, WCDF rules (the default)",
    "giveaway": "giveaway checkers: English moves, the first side with no piece or no move wins",
    "russian": "Russian draughts: men capture backward, flying kings, crowned mid-capture "
    "a man jumps on as a king; White (21-32) moves first",
    "pool": "American pool checkers: men capture backward, flying kings, a man crowns only "
    "where its jumps end; Black (1-12) moves first",
}

#: The PDN GameType tag written for each variant (number, first mover, board size,
#: notation, invert flag), as in the PDN 3.0 GameType table.
GAMETYPE_TAGS: dict[str, str] = {
    "english": "21,B,8,8,N1,0",
    "giveaway": "21,B,8,8,N1,0",
    "pool": "23,B,8,8,N1,0",
    "russian": "25,W,8,8,A0,0",
}

_BY_GAMETYPE: dict[int, str] = {21: "english", 23: "pool", 25: "russian"}


def names() -> list[str]:
    """The variant names, the default first."""
    return list(VARIANTS)


def rules_for(name: str) -> Rules:
    """The rules of a named variant (case and surrounding spaces ignored)."""
    key = name.strip().lower()
    if key not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; choose one of: {', '.join(VARIANTS)}")
    return VARIANTS[key]


def base_variant(rules: Rules) -> str:
    """The name of the named variant ``rules`` start from (their ``variant`` label)."""
    return rules.variant if rules.variant in VARIANTS else "english"


def describe(rules: Rules) -> str:
    """A short description: the variant name, with any house rules that differ from it.

    >>> describe(RUSSIAN), describe(Rules(huffing=True))
    ('russian', 'english with huffing=True')
    """
    base = VARIANTS.get(rules.variant, WCDF)
    changed = [n for n in rules.option_names() if getattr(rules, n) != getattr(base, n)]
    name = rules.variant
    if not changed:
        return name
    return name + " with " + ", ".join(f"{n}={getattr(rules, n)}" for n in changed)


def gametype_of(rules: Rules) -> int:
    """The PDN GameType number of the game ``rules`` play (21 for English and giveaway).

    House rules keep the number of the game they change.
    """
    return int(GAMETYPE_TAGS[base_variant(rules)].split(",")[0])


def gametype_tag(rules: Rules) -> str:
    """The full PDN GameType value, e.g. ``25,W,8,8,A0,0`` for Russian draughts."""
    return GAMETYPE_TAGS[base_variant(rules)]


def variant_tag(rules: Rules) -> str | None:
    """The ``[Variant ...]`` value a PDN file needs beside the GameType, if any."""
    return "giveaway" if base_variant(rules) == "giveaway" else None


def variant_for_gametype(gametype: int | str, variant: str | None = None) -> Rules:
    """The rules for a PDN GameType number or tag value (``25`` or ``"25,W,8,8,A0,0"``).

    ``variant`` is the file's ``[Variant ...]`` tag, which tells giveaway from English.
    Raises ValueError for a game this board does not play (e.g. 20, international draughts
    on 10x10) or a malformed value.
    """
    text = str(gametype).strip().strip('"')
    head = text.split(",")[0].strip()
    if not (head.isascii() and head.isdigit() and len(head) <= 4):
        raise ValueError(f"GameType {gametype!r} does not start with a game number")
    number = int(head)
    if number not in _BY_GAMETYPE:
        known = ", ".join(f"{n} ({name})" for n, name in sorted(_BY_GAMETYPE.items()))
        raise ValueError(f"GameType {number} is not a game this board plays; it plays {known}")
    name = _BY_GAMETYPE[number]
    if variant is not None and variant.strip().lower() in ("giveaway", "suicide", "losing"):
        if name != "english":
            raise ValueError(f"Variant {variant!r} does not go with GameType {number}")
        name = "giveaway"
    return VARIANTS[name]


def notation(rules: Rules) -> str:
    """``numeric`` (PDN numbers 1-32) or ``algebraic`` (a1-h8, Russian books and PDN)."""
    return "algebraic" if base_variant(rules) == "russian" else "numeric"


def square_text(square: Square, rules: Rules = WCDF) -> str:
    """A square as the variant's books write it: ``22`` in English, ``c3`` in Russian."""
    return square_name(square) if notation(rules) == "algebraic" else str(square)


def numeric_fen(fen: str) -> str:
    """A FEN with every a1-h8 square name replaced by its number; numbers pass through.

    Russian PDN files write FEN squares the algebraic way (GameType 25, notation A0):

    >>> numeric_fen("W:Wc3,Ka1:Bd4")
    'W:W22,K29:B18'
    >>> numeric_fen("B:W21-32:B1-12")
    'B:W21-32:B1-12'
    """
    text = fen.strip()
    parts = text.split(":")
    out = [parts[0]]
    for part in parts[1:]:
        stripped = part.strip()
        if not stripped or stripped[0].upper() not in ("W", "B"):
            out.append(part)  # Position.from_fen names the problem
            continue
        tokens = []
        for token in stripped[1:].split(","):
            token = token.strip()
            king = token[:1] in ("K", "k")
            body = token[1:].strip() if king else token
            end = body.rstrip(".")
            if len(end) == 2 and end[0].lower() in "abcdefgh" and end[1] in "12345678":
                try:
                    number = parse_square(end)
                except ValueError as exc:
                    raise ValueError(f"FEN {excerpt(fen)}: {exc}") from None
                body = str(number) + body[len(end) :]
            tokens.append(("K" if king else "") + body)
        out.append(stripped[0] + ",".join(tokens))
    return ":".join(out)


# -- the general move generator ---------------------------------------------------------

Route = tuple[tuple[int, ...], tuple[int, ...]]

ALL_DIRECTIONS = (SOUTH_WEST, SOUTH_EAST, NORTH_WEST, NORTH_EAST)
BLACK_FORWARD = (SOUTH_WEST, SOUTH_EAST)
WHITE_FORWARD = (NORTH_WEST, NORTH_EAST)

#: RAY[d][s]: ((square, bit), ...) along direction d from square s, nearest first.
RAY: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(tuple((t, 1 << (t - 1)) for t in RAYS[d][s]) for s in range(33)) for d in range(len(DIRECTIONS))
)


def _bits(mask: int) -> Iterable[tuple[int, int]]:
    while mask:
        low = mask & -mask
        mask ^= low
        yield low.bit_length(), low


def capture_routes(own: int, opp: int, kings: int, black: bool, rules: Rules) -> list[Route]:
    """Every capture route of the side to move under ``rules`` (routes, not merged).

    With ``kings_capture_first``, only kings' routes when a king can capture.
    """
    routes: list[Route] = []
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    man_dirs = ALL_DIRECTIONS if rules.men_capture_backward else (BLACK_FORWARD if black else WHITE_FORWARD)
    flying = rules.flying_kings
    crowning = rules.crowning
    occupied = own | opp
    append = routes.append

    def king_jumps(square: int, empty: int, taken: int) -> list[tuple[int, int, list[int]]]:
        """(jumped square, jumped bit, landing squares) for each jump a king has here."""
        found = []
        for d in ALL_DIRECTIONS:
            ray = RAY[d][square]
            i, n = 0, len(ray)
            if flying:
                while i < n and ray[i][1] & empty:
                    i += 1
            if i + 1 >= n:
                continue
            over_sq, over = ray[i]
            if not over & opp or over & taken:
                continue
            lands = []
            j = i + 1
            while j < n and ray[j][1] & empty:
                lands.append(ray[j][0])
                if not flying:
                    break
                j += 1
            if lands:
                found.append((over_sq, over, lands))
        return found

    def king_chain(square: int, empty: int, taken: int, path: tuple, caps: tuple) -> None:
        jumps = king_jumps(square, empty, taken)
        if not jumps:
            if caps:
                append((path, caps))
            return
        for over_sq, over, lands in jumps:
            now_taken = taken | over
            if len(lands) > 1:
                # A flying king must land where it can jump on, when such a square exists.
                going_on = [s for s in lands if king_jumps(s, empty, now_taken)]
                if not going_on:
                    for s in lands:
                        append((path + (s,), caps + (over_sq,)))
                    continue
                lands = going_on
            for s in lands:
                king_chain(s, empty, now_taken, path + (s,), caps + (over_sq,))

    def man_chain(square: int, empty: int, taken: int, path: tuple, caps: tuple) -> None:
        extended = False
        for d in man_dirs:
            ray = RAY[d][square]
            if len(ray) < 2:
                continue
            over_sq, over = ray[0]
            land_sq, land = ray[1]
            if not over & opp or over & taken or not land & empty:
                continue
            extended = True
            new_path, new_caps, now_taken = path + (land_sq,), caps + (over_sq,), taken | over
            if land & crown_row:
                if crowning is Crowning.ENDS_MOVE:
                    append((new_path, new_caps))
                elif crowning is Crowning.CONTINUES_AS_KING:
                    king_chain(land_sq, empty, now_taken, new_path, new_caps)
                else:
                    man_chain(land_sq, empty, now_taken, new_path, new_caps)
            else:
                man_chain(land_sq, empty, now_taken, new_path, new_caps)
        if not extended and caps:
            append((path, caps))

    king_found = False
    for square, b in _bits(own):
        empty = ~(occupied ^ b) & FULL
        before = len(routes)
        if b & kings:
            king_chain(square, empty, 0, (square,), ())
            king_found = king_found or len(routes) > before
        else:
            man_chain(square, empty, 0, (square,), ())
    # The chains call themselves through this scope: emptied, so that each call leaves
    # no reference cycle behind for Python's cycle collector (a search makes thousands).
    del king_jumps, king_chain, man_chain
    if king_found and rules.kings_capture_first:
        return [r for r in routes if (1 << (r[0][0] - 1)) & kings]
    return routes


def capture_available(own: int, opp: int, kings: int, black: bool, rules: Rules) -> bool:
    """Whether the side to move has a capture (the first jump decides it)."""
    empty_all = ~(own | opp) & FULL
    man_dirs = ALL_DIRECTIONS if rules.men_capture_backward else (BLACK_FORWARD if black else WHITE_FORWARD)
    for square, b in _bits(own):
        empty = empty_all | b
        king = b & kings
        for d in ALL_DIRECTIONS if king else man_dirs:
            ray = RAY[d][square]
            i, n = 0, len(ray)
            if king and rules.flying_kings:
                while i < n and ray[i][1] & empty:
                    i += 1
            if i + 1 < n and ray[i][1] & opp and ray[i + 1][1] & empty:
                return True
    return False


def quiet_moves(own: int, opp: int, kings: int, black: bool, rules: Rules) -> list[tuple[int, int]]:
    """Every non-capturing move as (from square, to square)."""
    empty = ~(own | opp) & FULL
    forward = BLACK_FORWARD if black else WHITE_FORWARD
    flying = rules.flying_kings
    moves: list[tuple[int, int]] = []
    for square, b in _bits(own):
        king = b & kings
        for d in ALL_DIRECTIONS if king else forward:
            for target, t in RAY[d][square]:
                if not t & empty:
                    break
                moves.append((square, target))
                if not (king and flying):
                    break
    return moves


def legal_routes(own: int, opp: int, kings: int, black: bool, rules: Rules) -> list[Route]:
    """Every legal move as a route; a plain move is ``((from, to), ())``."""
    routes = capture_routes(own, opp, kings, black, rules)
    if routes and rules.must_capture:
        return routes
    return routes + [((f, t), ()) for f, t in quiet_moves(own, opp, kings, black, rules)]


def has_legal_move(own: int, opp: int, kings: int, black: bool, rules: Rules) -> bool:
    empty = ~(own | opp) & FULL
    forward = BLACK_FORWARD if black else WHITE_FORWARD
    for square, b in _bits(own):
        for d in ALL_DIRECTIONS if b & kings else forward:
            ray = RAY[d][square]
            if ray and ray[0][1] & empty:
                return True
    return capture_available(own, opp, kings, black, rules)


def crowns(path: tuple[int, ...], start_is_king: bool, black: bool, rules: Rules) -> bool:
    """Whether the man moving along ``path`` ends the move as a king.

    English and pool: when it ends on the king row. Russian (and the keep-jumping house
    rule): when it lands on the king row at any point of the chain.
    """
    if start_is_king:
        return False
    crown_row = BLACK_CROWN_ROW if black else WHITE_CROWN_ROW
    if rules.crowning is Crowning.CONTINUES_AS_KING:
        return any((1 << (s - 1)) & crown_row for s in path[1:])
    return bool((1 << (path[-1] - 1)) & crown_row)


def _child(own: int, opp: int, kings: int, black: bool, rules: Rules, route: Route) -> tuple[int, int, int, int]:
    """(own, opp, kings, captured mask) after ``route``, still from the mover's side."""
    path, caps = route
    frm = 1 << (path[0] - 1)
    to = 1 << (path[-1] - 1)
    taken = 0
    for c in caps:
        taken |= 1 << (c - 1)
    new_own = (own & ~frm) | to
    new_kings = kings & ~taken
    if frm & kings or crowns(path, False, black, rules):
        new_kings = (new_kings & ~frm) | to
    return new_own, opp & ~taken, new_kings, taken


def children(
    own: int, opp: int, kings: int, black: bool, rules: Rules, unique: bool = False
) -> list[tuple[int, int, int]]:
    """The positions after each legal move, seen from the new side to move.

    With ``unique``, routes with equal start, end, captured set and crowning are one.
    """
    out: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int, int, int]] = set()
    for route in legal_routes(own, opp, kings, black, rules):
        new_own, new_opp, new_kings, taken = _child(own, opp, kings, black, rules, route)
        if unique and route[1]:
            key = (route[0][0], new_own, new_kings, taken)
            if key in seen:
                continue
            seen.add(key)
        out.append((new_opp, new_own, new_kings))
    return out


def count_moves(own: int, opp: int, kings: int, black: bool, rules: Rules, unique: bool = False) -> int:
    if not unique:
        return len(legal_routes(own, opp, kings, black, rules))
    return len(children(own, opp, kings, black, rules, unique=True))


def perft(own: int, opp: int, kings: int, black: bool, depth: int, rules: Rules, unique: bool = False) -> int:
    """Leaf count ``depth`` plies below this node under any rules.

    Every capture route counts unless ``unique`` merges routes with the same start, end,
    captured set and crowning (the published tables for the flying-king games do).
    """
    if depth <= 0:
        return 1
    if depth == 1:
        return count_moves(own, opp, kings, black, rules, unique)
    total = 0
    nxt = not black
    for o, p, k in children(own, opp, kings, black, rules, unique):
        total += perft(o, p, k, nxt, depth - 1, rules, unique)
    return total


__all__ = [
    "ENGLISH",
    "GAMETYPE_TAGS",
    "GIVEAWAY",
    "POOL",
    "RUSSIAN",
    "SUMMARIES",
    "VARIANTS",
    "base_variant",
    "capture_available",
    "capture_routes",
    "children",
    "crowns",
    "describe",
    "gametype_of",
    "gametype_tag",
    "has_legal_move",
    "legal_routes",
    "names",
    "notation",
    "numeric_fen",
    "perft",
    "quiet_moves",
    "rules_for",
    "square_text",
    "variant_for_gametype",
    "variant_tag",
]
