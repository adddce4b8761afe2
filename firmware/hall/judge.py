"""Whether a result a board reports follows from the moves it reported.

The hall counts a result only when the game's moves, replayed from its start by the rules
core, are the game (each legal, or an illegal move the board's referee let stand:
WCDF 1.26, listed in the state's ``condoned``), the number of plies is the board's, and
the result agrees with where they lead:

- a position where the side to move has no move decides the game: the reported result
  must be that one;
- ``no-moves`` is no result while the side to move has a move;
- ``repetition`` and ``forty-moves`` are draws the position must allow (the rules
  core's draw claim, or a position standing a third time, or forty moves each without a
  man moved or a capture); ``agreement`` is a draw; ``resign``, ``time`` and ``forfeit``
  are wins;
- any other reason (an arbiter's ``result 1-0 adjudicated``) stands on the moves being
  the game.

:func:`replay` answers None when they agree, else why not, in words for the arbiter.

>>> state = {"moves": ["11-15", "23-19", "8-11"], "ply": 3, "result": "0-1", "reason": "resign"}
>>> replay(state) is None
True
>>> replay({**state, "moves": ["11-15", "23-19", "8-12"]})
'ply 3, 8-12, is not a legal move'
>>> replay({**state, "result": "1-0", "reason": "no-moves"})
'the board says 1-0 (no-moves), but White, to move, has moves'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crownhead.rules import Game, Move, Position
from crownhead.rules.game import BLACK_WINS, DRAW, FORTY_MOVES_PLIES, WHITE_WINS, GameOverError
from crownhead.rules.move import IllegalMoveError
from crownhead.rules.pdn import UNTAGGED, read_game
from crownhead.rules.position import FenError, parse_move_squares
from crownhead.rules.settings import Rules
from crownhead.squares import file_of, rank_of, square_at

__all__ = ["replay", "MAX_PLIES"]

#: The most plies the hall follows in one game (real games are a few hundred at most).
MAX_PLIES = 600
_DRAWS = {"agreement", "repetition", "forty-moves"}
_WINS = {"resign", "time", "forfeit", "no-moves"}


def replay(state: Mapping[str, Any], start: str | None = None) -> str | None:
    """None when the result of ``state`` (a board's retained state) follows from its moves
    replayed from ``start`` (a FEN; else the state's ``start``, else the FEN of its PDN,
    else the start position), else why not."""
    result, reason = state.get("result"), state.get("reason")
    if result not in (BLACK_WINS, WHITE_WINS, DRAW):
        return f"{result!r} is not a result"
    reason = reason if isinstance(reason, str) else ""
    moves = state.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return "the board reported no moves"
    if len(moves) > MAX_PLIES:
        return f"{len(moves)} plies, more than the {MAX_PLIES} the hall follows"
    ply = state.get("ply")
    if ply is not None and ply != len(moves):
        return f"the board says ply {ply} but reported {len(moves)} moves"
    try:
        game = _start(state, start)
    except ValueError as exc:
        return f"the game's start cannot be read: {exc}"
    condoned = state.get("condoned") or []
    condoned = set(condoned) if isinstance(condoned, list) else set()
    for number, text in enumerate(moves, 1):
        try:
            try:
                game.play(game.position.parse_move(text, game.rules))
            except IllegalMoveError:
                if number not in condoned:
                    raise
                game.condone(_as_played(text))
        except GameOverError:
            return f"ply {number}, {text}, comes after the game was over ({game.result})"
        except ValueError:
            return f"ply {number}, {text}, is not a legal move"
    return _agrees(game, result, reason)


def _start(state: Mapping[str, Any], start: str | None) -> Game:
    pdn = state.get("pdn")
    # A state without its PDN is read as an untagged PDN game would be.
    rules: Rules = UNTAGGED
    tagged: Position | None = None
    if isinstance(pdn, str) and pdn.strip():
        header = pdn.split("\n\n", 1)[0] if "\n\n" in pdn else pdn
        read = read_game(header + "\n*\n")  # the tags only: the moves are the state's
        if read is not None:
            if read.error is not None and read.error.ply is None:
                raise ValueError(read.error.reason)
            rules, tagged = read.rules, read.start
    fen = start if start is not None else state.get("start")
    if isinstance(fen, str) and fen:
        try:
            return Game(Position.from_fen(fen), rules)
        except FenError as exc:
            raise ValueError(str(exc)) from None
    return Game(tagged if tagged is not None else Position.start(rules), rules)


def _as_played(text: str) -> Move:
    """An illegal move as the board saw it played: its squares, and for each hop of two
    diagonal steps the piece between (a longer hop names no piece: not condoned here)."""
    path = parse_move_squares(text)
    captures = []
    if "x" in text.lower() or ":" in text:
        for a, b in zip(path, path[1:]):
            df, dr = file_of(b) - file_of(a), rank_of(b) - rank_of(a)
            if abs(df) != 2 or abs(dr) != 2:
                raise ValueError(f"{text}: a capture whose piece taken cannot be told")
            between = square_at(file_of(a) + df // 2, rank_of(a) + dr // 2)
            if between is None:
                raise ValueError(f"{text}: not a hop on the board")
            captures.append(between)
    return Move(tuple(path), tuple(captures))


def _agrees(game: Game, result: str, reason: str) -> str | None:
    said = f"{result} ({reason})" if reason else result
    decided = game.result
    side = game.turn.name.title()
    if decided is not None and decided.reason == "no-moves":
        if decided.score != result:
            return f"the board says {said}, but {side}, to move, has no move: {decided.score}"
        return None
    if reason == "no-moves":
        return f"the board says {said}, but {side}, to move, has moves"
    if reason in _DRAWS and result != DRAW:
        return f"the board says {said}: {reason} is a draw"
    if reason in _WINS and result == DRAW:
        return f"the board says {said}: {reason} is a win"
    if reason == "repetition" and game.draw_claim() != "repetition" and game.repetitions() < 3:
        return f"the board says {said}, but no position stands or would stand a third time"
    if reason == "forty-moves" and game.quiet_plies < FORTY_MOVES_PLIES and game.draw_claim() != "forty-moves":
        return f"the board says {said}, but there were not forty moves each without a man moved or a capture"
    return None
