"""The server's move notation, and the board's PDN squares.

PlayStrategy's draughts library (strategygames) numbers an 8x8 board's dark squares 1-32
four a row from the top, as PDN does (its square 1 is b8, 29 is a1), but always with its
first player (``p1``) at the bottom: its English start position is Russian draughts',
``p1`` on 21-32. In English checkers ``p1`` is Black, the side that moves first, which
PDN puts on 1-12 at the top. The two boards are one turned half round: the server's
square is ``33 - s`` for the PDN square ``s`` (and back).

A move is written as the library's UCI: each square as two digits, from then to
(``"2217"``: PDN 11-15 is the server's 22-18, ``"2218"``). A multi-jump is sent one jump
at a time (``"2215"``, ``"1506"``); the game's moves as the server lists them may come
a jump at a time or a whole capture in one (``"221506"``), and both are read.

>>> server_square(11), pdn_square(22)
(22, 11)
>>> to_server(Move((11, 15), ()))
['2218']
>>> to_server(Move((11, 18, 25), (15, 22)))
['2215', '1508']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from crownhead.rules import BLACK, Color, Game, Move, Position, Rules

__all__ = [
    "NotationError",
    "REFUSED_VARIANTS",
    "check_variant",
    "color_of",
    "moves_from_server",
    "parse_uci",
    "pdn_square",
    "player_of",
    "server_square",
    "split_server_moves",
    "to_server",
]


#: The board's game on the server (strategygames' variant key).
ENGLISH = "english"

#: The server's other draughts games on 8x8, and why the board does not play them there:
#: it plays a variant online only where its rules are the server's exactly (docs/online.md).
#: Read in strategygames' ``draughts/variant/Russian.scala`` and ``Pool.scala``.
REFUSED_VARIANTS = {
    "russian": (
        "PlayStrategy's Russian ends a game drawn by the FMJD's counts (15 moves of kings only, "
        "30 or 60 moves in endings of 4 to 7 pieces, a lone king on the long diagonal), "
        "which the board's rules do not keep"
    ),
    "pool": (
        "PlayStrategy's pool ends a game drawn by Russian draughts' counts (its Pool.scala uses "
        "Russian's drawing moves), which American pool checkers and the board's rules do not have"
    ),
    "brazilian": "the board has no rules for Brazilian draughts",
    "portuguese": "the board has no rules for Portuguese draughts",
}


def check_variant(key: object) -> str:
    """``key`` if the board plays that game on the server; ValueError saying why not.

    >>> check_variant("english")
    'english'
    >>> check_variant("pool")
    Traceback (most recent call last):
    ...
    ValueError: pool is not played online from this board: PlayStrategy's pool ends a game drawn by Russian draughts' counts (its Pool.scala uses Russian's drawing moves), which American pool checkers and the board's rules do not have
    """
    if key == ENGLISH:
        return ENGLISH
    why = REFUSED_VARIANTS.get(str(key), "the board plays English checkers there")
    raise ValueError(f"{key} is not played online from this board: {why}")


class NotationError(ValueError):
    """A move the server sent that is not one of the game's moves here."""


def server_square(square: int) -> int:
    """The server's number of the PDN square ``square`` (English: turned half round)."""
    if not 1 <= square <= 32:
        raise ValueError(f"no square {square} on the board")
    return 33 - square


def pdn_square(number: int) -> int:
    """The PDN square of the server's square ``number``."""
    if not 1 <= number <= 32:
        raise ValueError(f"no square {number} on an 8x8 board")
    return 33 - number


def player_of(color: Color) -> str:
    """The server's player (``p1`` moves first: Black in English)."""
    return "p1" if color is BLACK else "p2"


def color_of(player: str) -> Color:
    """The side of the server's ``p1`` or ``p2``."""
    if player not in ("p1", "p2"):
        raise ValueError(f"no player {player!r}: p1 or p2")
    return BLACK if player == "p1" else BLACK.opponent


def to_server(move: Move) -> list[str]:
    """``move`` as the server takes it: one UCI per step (a multi-jump jump by jump)."""
    path = move.path
    return [f"{server_square(a):02d}{server_square(b):02d}" for a, b in zip(path, path[1:])]


def parse_uci(text: str) -> list[int]:
    """The PDN squares of one server UCI (two digits a square, two squares or more)."""
    if not text.isdigit() or len(text) < 4 or len(text) % 2:
        raise NotationError(f"not a move: {text!r}")
    return [pdn_square(int(text[i : i + 2])) for i in range(0, len(text), 2)]


def moves_from_server(
    ucis: Iterable[str], rules: Rules, start: Position | None = None, *, unfinished: bool = False
) -> list[Move]:
    """The game's moves from the server's list (``moves`` of a game state): jumps of one
    capture, sent one at a time, joined into the one move they make here. A capture not
    finished at the end (its first jumps taken, the next on the way) is an error, or,
    with ``unfinished``, left out."""
    moves, path = split_server_moves(ucis, rules, start)
    if path and not unfinished:
        raise NotationError(f"the capture {'x'.join(map(str, path))} is not finished")
    return moves


def split_server_moves(
    ucis: Iterable[str], rules: Rules, start: Position | None = None
) -> tuple[list[Move], list[int]]:
    """The whole moves of the server's list, and the PDN squares of a capture it holds
    half made at the end (its jumps taken so far; empty when none).

    >>> from crownhead.rules import WCDF
    >>> game = Game(None, WCDF)
    >>> line = "9-13 21-17 6-9 24-20 10-15 23-19 15x24 28x19 11-15 19x10".split()
    >>> sent = [uci for text in line for uci in to_server(game.play_text(text))]
    >>> moves, path = split_server_moves(sent + ["2619"], WCDF)   # 7x14 of 7x14x21 taken
    >>> len(moves), path
    (10, [7, 14])
    """
    game = Game(start, rules)
    moves: list[Move] = []
    path: list[int] = []
    for uci in ucis:
        squares = parse_uci(uci)
        if path and squares[0] != path[-1]:
            raise NotationError(f"{uci}: a jump of the capture from {path[-1]} expected")
        path = path + squares[1:] if path else squares
        done = _match(game.legal_moves(), path)
        if done is None:
            continue
        game.play(done)
        moves.append(done)
        path = []
    return moves, path


def _match(legal: Sequence[Move], path: list[int]) -> Move | None:
    """The legal move along ``path``; None while ``path`` begins one (a capture half
    sent); NotationError if no legal move goes that way."""
    whole = [m for m in legal if list(m.path) == path]
    if whole:
        return whole[0]
    if any(list(m.path[: len(path)]) == path for m in legal if len(m.path) > len(path)):
        return None
    raise NotationError(f"{'-'.join(map(str, path))} is not a legal move here")
