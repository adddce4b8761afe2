"""Telling people how to set the board up: which colour and which kings go where.

The switches sense only occupancy, so a black man where a white one belongs would be
accepted and then treated by the record. Whenever the board must be set up (a new game
from a position, a game resumed, a move taken back, pieces to put right) the people are
told the whole position in words, and the ``setup`` event carries it for the link, the
web page, the display and the hall.

>>> from crownhead.rules import Position
>>> setup_text(Position.start())
'Black men on 1-12; White men on 21-32'
>>> setup_text(Position.from_fen("W:W18,K4,K5:B1,2,3,K26"))
'Black men on 1-3, king on 26; White man on 18, kings on 4 and 5'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crownhead.firmware.events import SetUp
from crownhead.rules import BLACK, WHITE, Color, Move, Position, Rules
from crownhead.squares import bit, iter_squares

__all__ = ["setup_squares", "setup_text", "square_ranges", "setup_event", "takeback_text"]


def square_ranges(squares: Iterable[int]) -> str:
    """``1-12``, ``1, 3 and 5-7``: squares in order, runs of three or more as ranges.

    >>> square_ranges([1, 2, 3, 5, 7, 8]), square_ranges([4])
    ('1-3, 5, 7 and 8', '4')
    """
    items = sorted(squares)
    parts: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{items[i]}-{items[j]}")
        else:
            parts.extend(str(s) for s in items[i : j + 1])
        i = j + 1
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def setup_squares(position: Position, color: Color) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The squares of ``color``'s men and of its kings in ``position``."""
    pieces = position.pieces_of(color)
    return tuple(iter_squares(pieces & ~position.kings)), tuple(iter_squares(pieces & position.kings))


def setup_text(position: Position) -> str:
    """The whole position in words, Black first (see the module's examples)."""
    sides = []
    for color, name in ((BLACK, "Black"), (WHITE, "White")):
        men, kings = setup_squares(position, color)
        parts = []
        if men:
            parts.append(f"{'man' if len(men) == 1 else 'men'} on {square_ranges(men)}")
        if kings:
            parts.append(f"{'king' if len(kings) == 1 else 'kings'} on {square_ranges(kings)}")
        if parts:
            sides.append(f"{name} " + ", ".join(parts))
    return "; ".join(sides) if sides else "an empty board"


def setup_event(now: int, cause: str, position: Position, board: int) -> SetUp:
    """The ``setup`` event of a set-up of ``position`` (``cause``: ``new-game``, ``resume``,
    ``restore``): the whole position, and the squares whose occupancy ``board`` has wrong."""
    black, black_kings = setup_squares(position, BLACK)
    white, white_kings = setup_squares(position, WHITE)
    wrong = tuple(s for s in range(1, 33) if bool(board >> (s - 1) & 1) != bool(position.occupied >> (s - 1) & 1))
    return SetUp(now, cause, position.fen(), black, black_kings, white, white_kings, wrong)


#: The plural of each piece's name ("mans" is no word).
_PLURAL = {"man": "men", "king": "kings", "piece": "pieces"}


@dataclass(frozen=True, slots=True)
class _Undo:
    """A move taken back (from ``before`` to ``after``), and the squares the other moves
    taken back changed too (there the board cannot tell which move it shows put back)."""

    move: Move
    before: Position
    after: Position
    shared: int


def _still_shown(positions: Sequence[Position], undone: Sequence[Move], board: int) -> list[_Undo]:
    """The moves of ``undone`` (from ``positions[i]`` to ``positions[i + 1]``) that
    ``board`` does not show put back yet. A move is shown put back when its squares stand
    as before it and no other move changed them: pieces are put back in any order (the
    earlier move first too), and a move put back is not asked for again.
    """
    changed = [a.occupied ^ b.occupied for a, b in zip(positions, positions[1:])]
    out = []
    for i, move in enumerate(undone):
        shared = 0
        for j, squares in enumerate(changed):
            shared |= squares if j != i else 0
        mine = changed[i]
        if mine & shared or board & mine != positions[i].occupied & mine:
            out.append(_Undo(move, positions[i], positions[i + 1], mine & shared))
    return out


def _undo_text(undo: _Undo, board: int) -> str:
    """How to put ``undo`` back: its piece (a man crowned by it goes back as a man), and
    the captured pieces not yet back on ``board``."""
    move, before = undo.move, undo.before
    piece, now = before.piece_at(move.start), undo.after.piece_at(move.end)
    if piece is not None and not piece.king and now is not None and now.king:
        text = f"the piece crowned on {move.end} back on {move.start} as a man"
    else:
        name = "king" if piece is not None and piece.king else "man"
        text = f"the {name} on {move.end} back on {move.start}"
    # A captured piece already back is not asked for (unless another move used its square).
    missing = [s for s in move.captures if not board & bit(s) or undo.shared & bit(s)]
    if missing:
        taken = [before.piece_at(s) for s in missing]
        kinds = {"king" if p is not None and p.king else "man" for p in taken}
        noun = kinds.pop() if len(kinds) == 1 else "piece"
        plural = _PLURAL[noun] if len(taken) > 1 else noun
        text += f" and the captured {plural} back on {square_ranges(missing)}"
    return text


def takeback_text(target: Position, undone: Sequence[Move], rules: Rules, board: int) -> str:
    """What to move to take ``undone`` back (the moves taken back, in the order they were
    played, from ``target``, the position before them), the last move first, leaving out
    what ``board`` already shows put back.

    >>> from crownhead.rules import WCDF, Move, Position
    >>> start = Position.start()
    >>> moves = [start.moves_matching("11-15", WCDF)[0]]
    >>> after = start.apply(moves[0], Rules())
    >>> moves.append(after.moves_matching("22-18", WCDF)[0])
    >>> board = after.apply(moves[1], Rules()).occupied
    >>> takeback_text(start, moves, Rules(), board)
    'put the man on 18 back on 22; then the man on 15 back on 11'
    >>> takeback_text(start, moves, Rules(), board & ~bit(15) | bit(11))  # 11-15 put back first
    'put the man on 18 back on 22'
    >>> capture = Position.from_fen("B:W18:B14")
    >>> jump = capture.moves_matching("14x23", WCDF)[0]
    >>> takeback_text(capture, [jump], Rules(), capture.apply(jump, Rules()).occupied)
    'put the man on 23 back on 14 and the captured man back on 18'
    >>> crown = Position.from_fen("B:W26:B22,1")
    >>> jump = crown.moves_matching("22x31", WCDF)[0]
    >>> takeback_text(crown, [jump], Rules(), crown.apply(jump, Rules()).occupied | bit(26))
    'put the piece crowned on 31 back on 22 as a man'
    """
    positions = [target]
    for move in undone:
        positions.append(positions[-1].apply(move, rules))
    # The later moves the board already shows taken back are left out.
    left = max((j for j, p in enumerate(positions) if p.occupied == board), default=len(undone))
    parts = [_undo_text(undo, board) for undo in reversed(_still_shown(positions[: left + 1], undone[:left], board))]
    if not parts:
        return ""
    return "put " + "; then ".join(parts)
