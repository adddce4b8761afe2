"""Properties that hold in every position (Hypothesis draws the positions)."""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from crownhead.rules import WCDF, Move, Position, Rules
from crownhead.rules.position import Color
from crownhead.squares import bit, file_of, mask_of, rank_of

RULES = st.sampled_from(
    [
        Rules(),
        Rules(men_capture_backward=True),
        Rules(captures_compulsory=False),
        Rules(men_capture_backward=True, captures_compulsory=False),
    ]
)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any legal-looking position: up to 12 pieces a side, men off their own king row."""
    squares = draw(st.lists(st.integers(1, 32), min_size=1, max_size=24, unique=True))
    pieces: dict[int, str] = {}
    for i, square in enumerate(squares):
        black = draw(st.booleans()) if i else True
        king = draw(st.booleans()) or (square >= 29 if black else square <= 4)
        pieces[square] = ("B" if king else "b") if black else ("W" if king else "w")
    return Position.from_pieces(pieces, draw(st.sampled_from([Color.BLACK, Color.WHITE])))


@st.composite
def played_positions(draw: st.DrawFn) -> Position:
    """A position reached by playing legal moves from the start."""
    pos = Position.start()
    for _ in range(draw(st.integers(0, 80))):
        moves = pos.legal_moves(WCDF)
        if not moves:
            break
        pos = pos.apply(moves[draw(st.integers(0, len(moves) - 1))], WCDF)
    return pos


ANY_POSITION = st.one_of(positions(), played_positions())


@settings(max_examples=300)
@given(ANY_POSITION, RULES)
def test_apply_keeps_the_piece_counts_right(pos: Position, rules: Rules) -> None:
    mover = pos.turn
    own, opp = pos.pieces_of(mover), pos.pieces_of(mover.opponent)
    for move in pos.legal_moves(rules):
        after = pos.apply(move, rules)
        taken = mask_of(move.captures)
        assert after.turn is mover.opponent
        # The mover keeps every piece: one left the start square and one stands on the end.
        assert after.pieces_of(mover) == (own & ~bit(move.start)) | bit(move.end)
        assert after.count(mover) == pos.count(mover)
        # Exactly the jumped squares are emptied, and each held an opponent's piece.
        assert taken & opp == taken
        assert len(move.captures) == len(set(move.captures))
        assert after.pieces_of(mover.opponent) == opp & ~taken
        assert after.count(mover.opponent) == pos.count(mover.opponent) - len(move.captures)
        # Kings: jumped kings go, the mover is a king if it was one or was just crowned.
        king_after = bool(after.kings & bit(move.end))
        assert king_after == (bool(pos.kings & bit(move.start)) or pos.crowns(move, rules))
        assert after.kings & ~bit(move.end) == pos.kings & ~taken & ~bit(move.start) & ~bit(move.end)
        assert after.kings & ~(after.black | after.white) == 0


@settings(max_examples=300)
@given(ANY_POSITION, RULES)
def test_capture_routes_are_well_formed(pos: Position, rules: Rules) -> None:
    for move in pos.legal_moves(rules):
        if not move.captures:
            assert len(move.path) == 2
            continue
        assert len(move.path) == len(move.captures) + 1
        # Each jump passes over the captured square to the next landing.
        for frm, over, to in zip(move.path, move.captures, move.path[1:]):
            assert abs(file_of(frm) - file_of(to)) == 2
            assert abs(rank_of(frm) - rank_of(to)) == 2
            assert (file_of(over), rank_of(over)) == (
                (file_of(frm) + file_of(to)) // 2,
                (rank_of(frm) + rank_of(to)) // 2,
            )
        # Short pieces never land on a square they jumped: jumped pieces blocking their
        # squares until the chain ends (WCDF 1.19) never changes a route on this board.
        assert not set(move.path) & set(move.captures)
        # Landing squares were empty (the start square is free once the piece leaves).
        assert all(pos.piece_at(s) is None for s in move.path[1:] if s != move.start)


@settings(max_examples=300)
@given(ANY_POSITION)
def test_fen_round_trip(pos: Position) -> None:
    fen = pos.fen()
    assert Position.from_fen(fen) == pos
    assert Position.from_fen(fen).fen() == fen
    # The order the squares are listed in does not matter.
    turn, white, black = fen.split(":")
    shuffled = ":".join([turn, white[0] + ",".join(reversed(white[1:].split(","))), black])
    assert Position.from_fen(shuffled) == pos


@settings(max_examples=200)
@given(ANY_POSITION)
def test_equal_positions_hash_equal(pos: Position) -> None:
    twins = [
        Position.from_fen(pos.fen()),
        Position.from_pieces(pos.pieces(), pos.turn),
        Position(pos.black, pos.white, pos.kings, Color(int(pos.turn))),
    ]
    for twin in twins:
        assert twin == pos and hash(twin) == hash(pos)
    assert len({pos, *twins}) == 1
    other_side = pos._replace(turn=pos.turn.opponent)
    assert other_side != pos


def test_transpositions_are_the_same_position() -> None:
    a = Position.start()
    for text in ["9-13", "24-20", "12-16", "21-17"]:
        a = a.play(a.parse_move(text, WCDF), WCDF)
    b = Position.start()
    for text in ["12-16", "21-17", "9-13", "24-20"]:
        b = b.play(b.parse_move(text, WCDF), WCDF)
    assert a == b and hash(a) == hash(b)
    assert {a: "seen"}[b] == "seen"
    assert a != a.apply(Move((1, 5)), WCDF)


def test_hash_is_stable_from_run_to_run() -> None:
    # Positions are stored by hash (repetition counts, the engine's tables): the hash
    # must not depend on Python's per-process string hashing.
    code = "from crownhead.rules import Position; p = Position.from_fen('W:W18,K22,30:B3,K14'); print(hash(p))"
    seen = set()
    for seed in ("1", "2", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        seen.add(out.stdout.strip())
    assert len(seen) == 1
