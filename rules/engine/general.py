"""The engine for the rules the fast English search does not play.

:mod:`crownhead.rules.engine.search` walks the tree with the English bitboard generator of
:mod:`crownhead.rules.movegen` and scores positions for English checkers. That is exact for WCDF
rules, men capturing backward and optional captures, and wrong for everything else:
flying kings, a man crowned mid-capture going on as a king, kings capture first (the
moves differ), giveaway (the side left without a move *wins*) and huffing (a skipped
jump is legal but the opponent may punish it). :class:`~crownhead.rules.engine.search.Engine`
hands those rules to :func:`search` here, which walks the tree with the general
generator of :mod:`crownhead.rules.variants` (the same bitboards; every rule option) and the same
transposition table, repetition rule, time limit, depth limit and strength levels.

* Moves come from :func:`crownhead.rules.variants.legal_routes` and the position after a move
  from :func:`crownhead.rules.variants.crowns`, so every rule option is played exactly.
* Giveaway: a side with no legal move has won, and fewer pieces score better.
* Flying kings are worth far more than one-square kings (a Russian or pool king is
  reckoned at about two and a half men).
* Huffing: the engine never skips a jump (a skipped jump may be huffed): when a capture
  is available it chooses among the captures only, and it reads the tree as if captures
  were compulsory for both sides. After :meth:`crownhead.rules.game.Game.force_jump` this is also
  exactly what the rules demand.

>>> from crownhead.rules.engine import Engine
>>> from crownhead.rules.position import Position
>>> from crownhead.rules.variants import RUSSIAN
>>> result = Engine(RUSSIAN).search(Position.start(RUSSIAN), depth=3)
>>> result.move in Position.start(RUSSIAN).legal_moves(RUSSIAN)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from crownhead.rules import variants
from crownhead.rules.engine import zobrist
from crownhead.rules.engine.levels import Strength
from crownhead.rules.engine.result import EngineState, SearchResult, SearchTimeout, worth_another
from crownhead.rules.engine.tt import EXACT, LOWER, UPPER, WIN, WIN_THRESHOLD, from_table, to_table
from crownhead.rules.move import Move
from crownhead.rules.position import Color, Position
from crownhead.rules.settings import Rules

__all__ = ["plays_fast", "root_moves", "search", "evaluate_boards"]

MAN_VALUE = 100
#: A one-square king (English, giveaway) as in :mod:`crownhead.rules.engine.evaluation`.
KING_VALUE = 135
#: A flying king: it controls whole diagonals and is hard to trap.
FLYING_KING_VALUE = 250
#: Per row a man has advanced towards its king row.
ADVANCE = 4
#: A material lead of L with total material T earns L * TRADE_BONUS / T on top.
TRADE_BONUS = 400
MAX_DEPTH = 64
MAX_PLY = 256
CHECK_EVERY = 128
INFINITY = WIN + 1

#: ROWS[r]: the bitboard of the four squares of row r (0: squares 1-4, 7: squares 29-32).
ROWS = tuple(0xF << (4 * r) for r in range(8))

Board = tuple[int, int, int]  # own, opp, kings after a move, still from the mover's side


def plays_fast(rules: Rules) -> bool:
    """Whether the fast English search of :mod:`crownhead.rules.engine.search` plays ``rules`` exactly."""
    return rules.fast_path and not rules.giveaway and not rules.huffing


def root_moves(position: Position, rules: Rules) -> list[Move]:
    """The moves the engine considers: every legal move, but only jumps when a jump can
    be made under huffing (a skipped jump would give the opponent a huff).

    >>> from crownhead.rules.settings import Rules
    >>> pos = Position.from_fen("B:W14:B9,11")
    >>> [str(m) for m in root_moves(pos, Rules(huffing=True))]
    ['9x18']
    """
    legal = position.legal_moves(rules)
    if rules.huffing:
        jumps = [m for m in legal if m.is_capture]
        if jumps:
            return jumps
    return legal


def _move_id(path: Sequence[int], caps: Sequence[int]) -> int:
    taken = 0
    for c in caps:
        taken |= 1 << (c - 1)
    return 1 << (path[0] - 1) | 1 << (path[-1] - 1) << 32 | taken << 64


def _after(
    own: int, opp: int, kings: int, black: bool, path: Sequence[int], caps: Sequence[int], rules: Rules
) -> Board:
    frm = 1 << (path[0] - 1)
    to = 1 << (path[-1] - 1)
    taken = 0
    for c in caps:
        taken |= 1 << (c - 1)
    new_kings = kings & ~taken
    if frm & kings:
        new_kings = (new_kings & ~frm) | to
    elif variants.crowns(tuple(path), False, black, rules):
        new_kings |= to
    return (own & ~frm) | to, opp & ~taken, new_kings


def evaluate_boards(own: int, opp: int, kings: int, black: bool, rules: Rules) -> int:
    """The static score of a quiet position for the side to move, in centi-men.

    >>> from crownhead.rules.variants import GIVEAWAY, RUSSIAN
    >>> evaluate_boards(0b11, 0b100 << 28, 0, True, RUSSIAN) > 0      # two men against one
    True
    >>> evaluate_boards(0b11, 0b100 << 28, 0, True, GIVEAWAY) < 0     # in giveaway: worse
    True
    """
    if rules.giveaway:
        # The side that runs out of pieces (or moves) first wins: shed material.
        return MAN_VALUE * (opp.bit_count() - own.bit_count())
    king_value = FLYING_KING_VALUE if rules.flying_kings else KING_VALUE
    own_kings = (own & kings).bit_count()
    opp_kings = (opp & kings).bit_count()
    mat_own = MAN_VALUE * (own.bit_count() - own_kings) + king_value * own_kings
    mat_opp = MAN_VALUE * (opp.bit_count() - opp_kings) + king_value * opp_kings
    score = mat_own - mat_opp
    if score:
        bonus = abs(score) * TRADE_BONUS // (mat_own + mat_opp)
        score += bonus if score > 0 else -bonus
    black_men = (own if black else opp) & ~kings
    white_men = (opp if black else own) & ~kings
    advance = 0
    for r in range(1, 7):
        row = ROWS[r]
        # Black's men advance towards row 7, White's towards row 0.
        advance += r * (black_men & row).bit_count() - (7 - r) * (white_men & row).bit_count()
    advance *= ADVANCE
    return score + (advance if black else -advance)


def search(
    engine: EngineState,
    position: Position,
    *,
    max_depth: int,
    deadline: float | None,
    history: Iterable[Position] | None,
    level: Strength | None,
    started: float,
    max_nodes: int | None = None,
    exclude: Iterable[Move] = (),
) -> SearchResult:
    """Search ``position`` under ``engine.rules`` (see :meth:`Engine.search` for the limits)."""
    rules = engine.rules
    clock = engine.clock
    left_out = set(exclude)
    legal = [m for m in root_moves(position, rules) if m not in left_out]
    if not legal:
        # No move: the side to move has lost, or in giveaway checkers won.
        score = WIN if rules.giveaway else -WIN
        return SearchResult(None, score, 0, 0, max(0, round(clock() - started)), ())
    walk = _Walk(engine, deadline, history, max_nodes)
    black = position.turn is Color.BLACK
    own, opp = (position.black, position.white) if black else (position.white, position.black)
    root: list[tuple[Move, int, Board]] = [
        (m, _move_id(m.path, m.captures), _after(own, opp, position.kings, black, m.path, m.captures, rules))
        for m in legal
    ]
    root_key = zobrist.key_of(position)
    entry = engine.tt.probe(root_key)
    if entry is not None:
        root.sort(key=lambda r: r[1] != entry[4])
    want_scores = level is not None and level.mistake_rate > 0
    limit = 1 if len(root) == 1 else max_depth
    best_move, best_score, done = root[0][0], -INFINITY, 0
    scores: dict[Move, int] = {}
    walk.path.add(root_key)
    spent: list[float] = []  # time (or nodes) used when each iteration finished
    used: list[int] = []
    for depth in range(1, limit + 1):
        alpha = -INFINITY
        it_best: Move | None = None
        it_score = -INFINITY
        it_scores: dict[Move, int] = {}
        try:
            for move, _mid, (c_own, c_opp, c_kings) in root:
                beta = INFINITY if want_scores else -alpha
                score = -walk.negamax(c_opp, c_own, c_kings, not black, depth - 1, -INFINITY, beta, 1)
                it_scores[move] = score
                if score > it_score:
                    it_best, it_score = move, score
                    alpha = max(alpha, score)
        except SearchTimeout:
            if it_best is not None:
                best_move, best_score = it_best, it_score
            break
        assert it_best is not None
        best_move, best_score, done, scores = it_best, it_score, depth, it_scores
        root.sort(key=lambda r: -it_scores[r[0]])
        engine.tt.store(root_key, depth, EXACT, best_score, _move_id(best_move.path, best_move.captures))
        if abs(best_score) > WIN_THRESHOLD and WIN - abs(best_score) <= depth:
            break
        # The same rule as the English search: another iteration while it can half-finish.
        if deadline is not None:
            spent.append(clock() - started)
            if not worth_another(spent, deadline - started):
                break
        if max_nodes is not None:
            used.append(walk.nodes)
            if not worth_another(used, max_nodes):
                break
    walk.path.discard(root_key)
    if best_score == -INFINITY:
        best_score = 0
    chosen = best_move
    if want_scores and level is not None and scores and engine.rng.random() < level.mistake_rate:
        floor = best_score - level.mistake_margin
        others = [
            m
            for m, s in sorted(scores.items(), key=lambda kv: -kv[1])
            if m != best_move and s >= floor and s > -WIN_THRESHOLD
        ]
        if others:
            chosen = engine.rng.choice(others)
    chosen_score = best_score if chosen == best_move else scores.get(chosen, best_score)
    pv = walk.principal_variation(position, chosen) if chosen == best_move else (chosen,)
    ms = max(0, round(clock() - started))
    return SearchResult(chosen, chosen_score, done, walk.nodes, ms, pv)


class _Walk:
    """The tree walk of one search: negamax with alpha-beta and the transposition table."""

    def __init__(
        self,
        engine: EngineState,
        deadline: float | None,
        history: Iterable[Position] | None,
        max_nodes: int | None = None,
    ) -> None:
        self.engine = engine
        self.max_nodes = max_nodes
        self.rules = rules = engine.rules
        # Under huffing the tree is read as if jumps were compulsory (see the module text).
        self.gen_rules = rules.with_options(huffing=False) if rules.huffing else rules
        self.compulsory = self.gen_rules.must_capture
        self.deadline = deadline
        self.clock: Callable[[], float] = engine.clock
        self.nodes = 0
        self.path: set[int] = {zobrist.key_of(p) for p in history or ()}
        engine.tt.new_search()

    def _key(self, own: int, opp: int, kings: int, black: bool) -> int:
        if black:
            return zobrist.key_from_boards(own, opp, kings, True)
        return zobrist.key_from_boards(opp, own, kings, False)

    def _end(self, ply: int) -> int:
        """The score of a side to move without a legal move."""
        return WIN - ply if self.rules.giveaway else ply - WIN

    def negamax(self, own: int, opp: int, kings: int, black: bool, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes % CHECK_EVERY and (
            (self.deadline is not None and self.clock() >= self.deadline)
            or (self.max_nodes is not None and self.nodes >= self.max_nodes)
        ):
            raise SearchTimeout
        rules = self.gen_rules
        key = self._key(own, opp, kings, black)
        if key in self.path:
            return 0
        routes = variants.capture_routes(own, opp, kings, black, rules)
        stand_pat = False
        static = -INFINITY
        if depth <= 0 or ply >= MAX_PLY:
            if not routes:
                if not variants.has_legal_move(own, opp, kings, black, rules):
                    return self._end(ply)
                return evaluate_boards(own, opp, kings, black, rules)
            if ply >= MAX_PLY:
                return evaluate_boards(own, opp, kings, black, rules)
            if not self.compulsory and variants.quiet_moves(own, opp, kings, black, rules):
                # Captures are optional: the side may decline them all.
                static = evaluate_boards(own, opp, kings, black, rules)
                if static >= beta:
                    return static
                stand_pat = True
                alpha = max(alpha, static)
        alpha_orig = alpha
        tt = self.engine.tt
        hash_mid = 0
        entry = tt.probe(key)
        if entry is not None:
            hash_mid = entry[4]
            if entry[1] >= depth:
                score = from_table(entry[3], ply)
                bound = entry[2]
                if bound == EXACT:
                    return score
                if bound == LOWER and score >= beta:
                    return score
                if bound == UPPER and score <= alpha:
                    return score
        moves: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = []
        for path, caps in routes:
            mid = _move_id(path, caps)
            order = (1 << 40) if mid == hash_mid else (1 << 30) + len(caps)
            moves.append((order, mid, path, caps))
        if not (routes and self.compulsory) and not stand_pat:
            hist = self.engine.history_scores
            for frm, to in variants.quiet_moves(own, opp, kings, black, rules):
                path = (frm, to)
                mid = _move_id(path, ())
                order = (1 << 40) if mid == hash_mid else hist.get(mid, 0)
                moves.append((order, mid, path, ()))
        if not moves:
            return alpha if stand_pat else self._end(ply)
        moves.sort(key=lambda m: -m[0])
        child_depth = depth - 1 if len(moves) > 1 else depth  # a forced move costs no depth
        best = static if stand_pat else -INFINITY
        best_mid = 0
        self.path.add(key)
        try:
            for _order, mid, path, caps in moves:
                c_own, c_opp, c_kings = _after(own, opp, kings, black, path, caps, self.rules)
                score = -self.negamax(c_opp, c_own, c_kings, not black, child_depth, -beta, -alpha, ply + 1)
                if score > best:
                    best, best_mid = score, mid
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not caps:
                                hist = self.engine.history_scores
                                hist[mid] = hist.get(mid, 0) + depth * depth + 1
                            break
        finally:
            self.path.discard(key)
        bound = LOWER if best >= beta else (EXACT if best > alpha_orig else UPPER)
        tt.store(key, depth, bound, to_table(best, ply), best_mid)
        return best

    def principal_variation(self, position: Position, first: Move, length: int = 24) -> tuple[Move, ...]:
        """``first`` and then the table's best moves."""
        rules = self.rules
        pv = [first]
        pos = position.apply(first, rules)
        seen = {zobrist.key_of(position), zobrist.key_of(pos)}
        while len(pv) < length:
            entry = self.engine.tt.probe(zobrist.key_of(pos))
            if entry is None or not entry[4]:
                break
            move = next((m for m in pos.legal_moves(rules) if _move_id(m.path, m.captures) == entry[4]), None)
            if move is None:
                break
            pv.append(move)
            pos = pos.apply(move, rules)
            key = zobrist.key_of(pos)
            if key in seen:
                break
            seen.add(key)
        return tuple(pv)
