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

from crownhead.firmware.events import SetUp
from crownhead.rules import BLACK, WHITE, Color, Move, Position, Rules
from crownhead.squares import iter_squares

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
    >>> capture = Position.from_fen("B:W18:B14")
    >>> jump = capture.moves_matching("14x23", WCDF)[0]
    >>> takeback_text(capture, [jump], Rules(), capture.apply(jump, Rules()).occupied)
    'put the man on 23 back on 14 and the captured man back on 18'
    """
    positions = [target]
    for move in undone:
        positions.append(positions[-1].apply(move, rules))
    # The later moves the board already shows taken back are left out.
    left = max((j for j, p in enumerate(positions) if p.occupied == board), default=len(undone))
    parts = []
    for before, move in reversed(list(zip(positions[:left], undone[:left]))):
        piece = before.piece_at(move.start)
        name = "king" if piece is not None and piece.king else "man"
        text = f"the {name} on {move.end} back on {move.start}"
        if move.captures:
            taken = [before.piece_at(s) for s in move.captures]
            kinds = {"king" if p is not None and p.king else "man" for p in taken}
            noun = kinds.pop() if len(kinds) == 1 else "piece"
            if len(taken) > 1:
                noun = _PLURAL[noun]
            text += f" and the captured {noun} back on {square_ranges(move.captures)}"
        parts.append(text)
    if not parts:
        return ""
    return "put " + "; then ".join(parts)
