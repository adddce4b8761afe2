"""A game: the moves played from a known position, undo, the result and draw claims.

>>> game = Game()
>>> game.play_text("11-15")
Move(path=(11, 15), captures=())
>>> game.ply, str(game.turn)
(1, 'white')
>>> game.undo()
Move(path=(11, 15), captures=())

Draws are claims, not automatic (WCDF 1.32): the game says when one can be claimed.
A side with no legal move on its turn has lost (WCDF 1.30).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rules.move import Move
from rules.position import Color, Position
from rules.settings import WCDF, Rules
from rules.squares import bit

#: Plies without progress (40 moves by each player) after which a draw can be claimed.
FORTY_MOVES_PLIES = 80

BLACK_WINS = "1-0"
WHITE_WINS = "0-1"
DRAW = "1/2-1/2"
UNFINISHED = "*"


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: ``score`` is ``1-0`` (Black won), ``0-1`` or ``1/2-1/2``."""

    score: str
    reason: str  # no-moves, resign, forfeit, agreement, repetition, forty-moves, time, ...

    @property
    def winner(self) -> Color | None:
        if self.score == BLACK_WINS:
            return Color.BLACK
        if self.score == WHITE_WINS:
            return Color.WHITE
        return None


def win_for(color: Color) -> str:
    return BLACK_WINS if color == Color.BLACK else WHITE_WINS


class GameOverError(RuntimeError):
    """A move played after the game has ended."""


class Game:
    """The moves of one game from a known position.

    The positions are kept alongside the moves, so repetition counts, undo and
    the draw claims are cheap to answer.
    """

    def __init__(self, start: Position | None = None, rules: Rules = WCDF) -> None:
        self.rules = rules
        self.start = start if start is not None else Position.start()
        self.moves: list[Move] = []
        self.positions: list[Position] = [self.start]
        # Plies since the last man move or capture, for the 40-move rule.
        self._quiet: list[int] = [0]
        self._counts: Counter[Position] = Counter({self.start: 1})
        self.declared: Result | None = None

    # -- state ----------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def ply(self) -> int:
        """Moves played so far (one ply is one side's move)."""
        return len(self.moves)

    def legal_moves(self) -> list[Move]:
        return self.position.legal_moves(self.rules)

    @property
    def result(self) -> Result | None:
        """The result, when the game is over: declared, or the side to move cannot move."""
        if self.declared is not None:
            return self.declared
        if not self.position.has_legal_move(self.rules):
            return Result(win_for(self.turn.opponent), "no-moves")
        return None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    # -- playing --------------------------------------------------------------------

    def play(self, move: Move) -> Position:
        """Play a legal move (raises :class:`~rules.move.IllegalMoveError` otherwise)."""
        if self.is_over:
            raise GameOverError(f"the game is over ({self.result}); no more moves")
        before = self.position
        after = before.play(move, self.rules)
        progress = move.is_capture or not before.kings & bit(move.start)
        self.moves.append(move)
        self.positions.append(after)
        self._quiet.append(0 if progress else self._quiet[-1] + 1)
        self._counts[after] += 1
        return after

    def play_text(self, text: str) -> Move:
        """Play a move written in PDN and return it."""
        move = self.position.parse_move(text, self.rules)
        self.play(move)
        return move

    def undo(self) -> Move:
        """Take back the last move and return it (a declared result is cleared too)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self.declared = None
        move = self.moves.pop()
        after = self.positions.pop()
        self._quiet.pop()
        self._counts[after] -= 1
        if not self._counts[after]:
            del self._counts[after]
        return move

    def declare(self, score: str, reason: str) -> Result:
        """Record a result the board cannot see: resignation, agreement, forfeit, time..."""
        if score not in (BLACK_WINS, WHITE_WINS, DRAW):
            raise ValueError(f"{score!r} is not a result (1-0, 0-1 or 1/2-1/2)")
        self.declared = Result(score, reason)
        return self.declared

    def resign(self, color: Color | None = None) -> Result:
        """``color`` (by default the side to move) resigns."""
        loser = self.turn if color is None else color
        return self.declare(win_for(loser.opponent), "resign")

    # -- draws ----------------------------------------------------------------------

    def repetitions(self, position: Position | None = None) -> int:
        """How often ``position`` (default: the current one) has stood in this game."""
        return self._counts[position if position is not None else self.position]

    def repeating_moves(self) -> list[Move]:
        """Moves that would make a position stand for the third time (WCDF 1.32.1)."""
        pos = self.position
        return [m for m in self.legal_moves() if self._counts[pos.apply(m)] >= 2]

    @property
    def quiet_plies(self) -> int:
        """Plies in a row with no man moved and nothing captured."""
        return self._quiet[-1]

    def draw_claim(self) -> str | None:
        """``repetition`` or ``forty-moves`` when the side to move can claim a draw now.

        Repetition: the current position stands for the third time, or one of the
        claimant's moves would make it so. Forty moves: during each player's own previous
        40 moves no man has moved and nothing has been captured (WCDF 1.32.2).
        """
        if self.repetitions() >= 3 or self.repeating_moves():
            return "repetition"
        if self.quiet_plies >= FORTY_MOVES_PLIES:
            return "forty-moves"
        return None

    def claim_draw(self) -> Result | None:
        """Claim a draw for the side to move; the result when the claim is valid."""
        reason = self.draw_claim()
        if reason is None:
            return None
        return self.declare(DRAW, reason)
