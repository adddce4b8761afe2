"""Illegal moves as the board sees them: what was moved, which rule it broke, and standing it.

The switches say only which squares are occupied; the pieces' identities come from the
game. An illegal move can therefore be read back from the occupancy when exactly one
piece of the moving side left its square and exactly one empty square was filled (any
number of the opponent's pieces may have been taken off): that piece went from the one
square to the other, and the pieces gone are off the board. Any other board (two of the
mover's pieces moved, a piece missing with nothing placed, an opponent's piece put
somewhere new) cannot be told apart from a knocked or misplaced piece, and nothing is
guessed: :func:`read_move` returns None.

>>> from crownhead.rules import WCDF, Position
>>> pos = Position.from_fen("B:W18,27:B9,14")
>>> board = pos.occupied & ~(1 << 8) | (1 << 12)       # the man on 9 went to 13
>>> move = read_move(pos, board, WCDF)
>>> str(move), classify(pos, move, rules=WCDF).code                 # 14x23 was compulsory
('9-13', 'forced-capture')
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.rules import Color, Game, Move, Position, Rules
from crownhead.squares import file_of, iter_squares, row_of

__all__ = ["Offence", "read_move", "read_out_of_turn", "jump_shaped", "classify", "stand", "piece_name"]


@dataclass(frozen=True, slots=True)
class Offence:
    """An illegal move by ``side``: ``code`` (see ``OFFENCE_CODES``) and what happened in words.

    ``remedy`` is what the player must do about it while the game goes on (put a lifted
    piece back), apart so that a forfeit, after which nothing is put back, leaves it out.
    """

    side: Color
    code: str
    message: str
    remedy: str = ""

    @property
    def caution(self) -> str:
        """What a caution says: what happened, then the remedy."""
        return f"{self.message}; {self.remedy}" if self.remedy else self.message


def _single(mask: int) -> bool:
    return bool(mask) and not mask & (mask - 1)


def _low(mask: int) -> int:
    return (mask & -mask).bit_length()


def piece_name(position: Position, square: int) -> str:
    piece = position.piece_at(square)
    if piece is None:
        return "piece"
    return "king" if piece.king else "man"


def read_move(position: Position, board: int, rules: Rules) -> Move | None:
    """The move of the side to move that ``board`` shows, legal or not, or None if it
    cannot be told (see the module docstring). A legal move with the same start, end and
    captured pieces is returned as that move (with every landing square).
    """
    occupied = position.occupied
    own = position.pieces_of(position.turn)
    removed = occupied & ~board
    added = board & ~occupied
    moved = removed & own
    if not _single(moved) or not _single(added):
        return None
    taken = removed & ~own
    move = Move((_low(moved), _low(added)), tuple(iter_squares(taken)))
    for legal in position.legal_moves(rules):
        if legal.same_route(move):
            return legal
    return move


def read_out_of_turn(position: Position, board: int) -> Move | None:
    """A piece of the side *not* to move moved (pieces of the side to move may be gone):
    the move it made, or None. Such a move is never read as a move of the game.
    """
    occupied = position.occupied
    theirs = position.pieces_of(position.turn.opponent)
    removed = occupied & ~board
    added = board & ~occupied
    moved = removed & theirs
    if not _single(moved) or not _single(added):
        return None
    return Move((_low(moved), _low(added)), tuple(iter_squares(removed & ~theirs)))


def jump_shaped(move: Move) -> bool:
    """Whether ``move`` looks like jumps: every captured piece stands between two squares
    of its path two diagonal steps apart (so a piece gone elsewhere is not read as jumped).

    >>> jump_shaped(Move((31, 24), (27,))), jump_shaped(Move((27, 24), (31,)))
    (True, False)
    """
    if not move.captures:
        return True
    path = move.path
    if len(path) == 2 and len(move.captures) == 1:
        a, b = path
        (ra, fa), (rb, fb) = (row_of(a), file_of(a)), (row_of(b), file_of(b))
        c = move.captures[0]
        return abs(ra - rb) == 2 and abs(fa - fb) == 2 and (row_of(c), file_of(c)) == ((ra + rb) // 2, (fa + fb) // 2)
    return False


def _backward(color: Color, start: int, end: int) -> bool:
    # Black moves towards higher rows (row 0 is Black's home row 1-4).
    return row_of(end) < row_of(start) if color is Color.BLACK else row_of(end) > row_of(start)


def classify(
    position: Position,
    move: Move,
    rules: Rules,
    touched: int | None = None,
) -> Offence:
    """Which rule ``move`` (by the side to move) broke, most specific first.

    ``touched`` is the piece touched first this turn (touch-move, WCDF 1.23).
    """
    side = position.turn
    a, b = move.start, move.end
    name = piece_name(position, a)
    legal = position.legal_moves(rules)
    from_a = [m for m in legal if m.start == a]
    if touched is not None and touched != a and any(m.start == touched for m in legal):
        first = piece_name(position, touched)
        return Offence(
            side,
            "touch-move",
            f"the {first} on {touched} was touched first and had to be played; the {name} on {a} moved instead",
        )
    piece = position.piece_at(a)
    if piece is not None and not piece.king and _backward(side, a, b):
        return Offence(side, "backward-man", f"the man on {a} moved backward to {b}")
    for m in from_a:
        if m.is_capture and b in m.path[1:-1]:
            return Offence(side, "unfinished-capture", f"the jump from {a} stopped on {b}; it had to go on to {m.end}")
    for m in from_a:
        if not position.crowns(m, rules):
            continue
        after = position.apply(m, rules)
        # The new king, its own side to move again: where could it have jumped on to?
        on = Position(after.black, after.white, after.kings, side)
        if any(b in c.path[1:] for c in on.captures(rules) if c.start == m.end):
            return Offence(
                side,
                "continued-after-crown",
                f"the man crowned on {m.end} jumped on to {b}; crowning ends the move",
            )
    if (
        rules.captures_compulsory
        and position.capture_available(rules)
        and (not move.is_capture or not any(m.is_capture for m in from_a))
    ):
        kind = "a plain move" if not move.is_capture else f"no capture the {name} on {a} can make"
        return Offence(side, "forced-capture", f"a capture was compulsory; {a}-{b} is {kind}")
    if not from_a:
        return Offence(side, "unplayable-piece", f"the {name} on {a} has no legal move")
    return Offence(side, "wrong-move", f"the {name} on {a} cannot go to {b}")


def stand(game: Game, move: Move) -> Position:
    """Enter ``move`` into ``game`` although it is illegal: it stood (WCDF 1.26).

    The position after it is what the board shows: the piece moved from its start to its
    end (crowned if it reached the king row), the pieces in ``move.captures`` taken off.
    Repetition counts and the forty-move count go on from there as after any move, and
    the game lists the ply in :attr:`~crownhead.rules.game.Game.condoned` (see
    :meth:`~crownhead.rules.game.Game.condone`), so the record and a resumed game know it.
    """
    return game.condone(move)
