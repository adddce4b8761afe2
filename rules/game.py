"""A game: the moves played from a known position, undo, the result and draw claims.

>>> from crownhead.rules import WCDF
>>> game = Game(None, WCDF)
>>> game.play_text("11-15")
Move(path=(11, 15), captures=())
>>> game.ply, str(game.turn)
(1, 'white')
>>> game.undo()
Move(path=(11, 15), captures=())

Draws are claims, not automatic (WCDF 1.32): the game says when one can be claimed.
A side with no legal move on its turn has lost (WCDF 1.30); in giveaway checkers it has won.

Huffing (the old Standard Laws, ``Rules(huffing=True)``): a move that skips an available
jump is legal, and before moving the opponent may take off the piece that should have
jumped (:meth:`Game.huff`, not a move: the same side is still to move), make the player
take the move back and jump (:meth:`Game.force_jump`), or simply move (the move stands).
:attr:`Game.history` keeps moves and these two actions in order, and :meth:`Game.undo`
takes back the last of them.

An illegal move that the opponent answered without objection stands (WCDF 1.26):
:meth:`Game.condone` enters it, the game goes on from the position it left, and
:attr:`Game.condoned` lists its ply so that a record can say so.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from crownhead.rules.move import IllegalMoveError, Move
from crownhead.rules.position import Color, Piece, Position
from crownhead.rules.settings import Rules
from crownhead.squares import Square, bit

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
    reason: str  # no-moves, resign, forfeit, agreement, repetition, forty-moves, time, ... (see reason_words)

    @property
    def winner(self) -> Color | None:
        if self.score == BLACK_WINS:
            return Color.BLACK
        if self.score == WHITE_WINS:
            return Color.WHITE
        return None


def win_for(color: Color) -> str:
    return BLACK_WINS if color == Color.BLACK else WHITE_WINS


#: How a game's end reads, by the reason its result gives (other reasons as they are).
_REASON_WORDS = {
    "resign": "resignation",
    "repetition": "repetition",
    "forty-moves": "forty-move rule",
    "agreement": "agreement",
    "problem": "the problem's verdict",
}


def reason_words(score: str, reason: str, final: Position | None = None) -> str:
    """Why a game ended, in words: a side that cannot move is named, and said to have no
    pieces left when that is why (``final``, the last position, tells).

    >>> reason_words("1-0", "no-moves", Position.from_fen("W:W:B23,1"))
    'White has no pieces left'
    >>> reason_words("1-0", "no-moves", Position.from_fen("W:W5:B1,9,10"))
    'White cannot move'
    >>> reason_words("0-1", "resign")
    'resignation'
    """
    if reason == "no-moves":
        # The side to move at the end is the one without a move (the winner, in giveaway).
        if final is not None:
            stuck = final.turn
        else:
            stuck = Color.WHITE if score == BLACK_WINS else Color.BLACK
        side = stuck.name.title()
        if final is not None and not final.pieces_of(stuck):
            return f"{side} has no pieces left"
        return f"{side} cannot move"
    return _REASON_WORDS.get(reason, reason)


class GameOverError(RuntimeError):
    """A move played after the game has ended."""


class HuffError(ValueError):
    """A huff or a forced jump asked for when no jump was missed (or not that piece)."""


@dataclass(frozen=True, slots=True)
class Huff:
    """The opponent took off ``piece`` from ``square``, the piece that missed a jump.

    A huff is not a move: the side that huffed is still to move. ``ply`` is the number of
    moves played when it happened.
    """

    square: Square
    piece: Piece
    ply: int


@dataclass(frozen=True, slots=True)
class JumpForced:
    """The opponent made the player take back ``missed`` (a move that skipped a jump);
    the player must now jump. ``ply`` is the number of moves played after the take-back.
    """

    missed: Move
    ply: int


#: What :attr:`Game.history` holds: the moves, and under huffing the huffs and forced jumps.
HistoryEntry = Move | Huff | JumpForced


class Game:
    """The moves of one game from a known position.

    The positions are kept alongside the moves, so repetition counts, undo and
    the draw claims are cheap to answer.
    """

    def __init__(self, start: Position | None, rules: Rules) -> None:
        self.rules = rules
        self.start = start if start is not None else Position.start(rules)
        self.moves: list[Move] = []
        self.positions: list[Position] = [self.start]
        # Moves, huffs and forced jumps in the order they happened (only moves unless
        # the rules allow huffing). ``positions[-1]`` is the board after all of them.
        self.history: list[HistoryEntry] = []
        # Plies since the last man move or capture, for the 40-move rule.
        self._quiet: list[int] = [0]
        self._counts: Counter[Position] = Counter({self.start: 1})
        # For each huff: the position and quiet count it replaced, for undo.
        self._huffed: list[tuple[Position, int]] = []
        # Plies of illegal moves that stood (WCDF 1.26), entered with condone().
        self._condoned: set[int] = set()
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
        """The moves the side to move may play now (only jumps after a forced jump)."""
        if self.jump_required:
            return self.position.captures(self.rules)
        return self.position.legal_moves(self.rules)

    @property
    def result(self) -> Result | None:
        """The result, when the game is over: declared, or the side to move cannot move.

        The side that cannot move loses, or wins in giveaway checkers. Under huffing the
        game is not over while the side to move may still huff or force a missed jump.
        """
        if self.declared is not None:
            return self.declared
        if not self.position.has_legal_move(self.rules):
            if self.huffable():
                return None
            winner = self.turn if self.rules.giveaway else self.turn.opponent
            return Result(win_for(winner), "no-moves")
        return None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    # -- playing --------------------------------------------------------------------

    def play(self, move: Move) -> Position:
        """Play a legal move (raises :class:`~crownhead.rules.move.IllegalMoveError` otherwise)."""
        if self.is_over:
            raise GameOverError(f"the game is over ({self.result}); no more moves")
        before = self.position
        if self.jump_required and not move.is_capture:
            raise IllegalMoveError(f"{move} is not a jump: the missed jump was taken back and a jump is required")
        after = before.play(move, self.rules)
        self._push(move, after)
        self.history.append(move)
        return after

    def condone(self, move: Move) -> Position:
        """Enter ``move`` although the rules forbid it: it stood (WCDF 1.26).

        An illegal move that the opponent answered without objection stands, and the game
        goes on from the position actually on the board: the piece on ``move.start`` is on
        ``move.end`` (crowned if it reached the king row) and the pieces on
        ``move.captures`` are off. Repetitions and the forty-move count go on from there
        as after any move; :attr:`condoned` lists the ply, and :meth:`undo` takes it back
        like any move.

        >>> from crownhead.rules import WCDF
        >>> game = Game(Position.from_fen("B:W30:B14,9"), WCDF)
        >>> game.condone(Move((14, 10))).fen()      # a man moved backward
        'W:W30:B9,10'
        >>> game.ply, sorted(game.condoned)
        (1, [1])

        Raises :class:`GameOverError` after the game, and ``ValueError`` naming the
        problem for a move no board can show (no piece of the side to move on its start,
        its end occupied, a capture of a square without an opponent's piece) or for a
        legal move (play it: there is nothing to condone).
        """
        if self.is_over:
            raise GameOverError(f"the game is over ({self.result}); no more moves")
        self._check_condonable(move)
        after = self.position.apply(move, self.rules)
        self._push(move, after)
        self.history.append(move)
        self._condoned.add(self.ply)
        return after

    def _check_condonable(self, move: Move) -> None:
        pos = self.position
        squares = (*move.path, *move.captures)
        if len(move.path) < 2 or not all(isinstance(s, int) and 1 <= s <= 32 for s in squares):
            raise ValueError(f"{move.pdn(full=True)}: a move needs a start and an end, squares 1-32")
        side = pos.turn
        piece = pos.piece_at(move.start)
        if piece is None or piece.color != side:
            raise ValueError(f"{move.pdn(full=True)}: there is no {side} piece on {move.start}")
        if move.end != move.start and pos.occupied & bit(move.end):
            raise ValueError(f"{move.pdn(full=True)}: square {move.end} is occupied")
        if move.end == move.start and not move.captures:
            raise ValueError(f"{move.pdn(full=True)}: the piece does not move")
        if len(set(move.captures)) != len(move.captures):
            raise ValueError(f"{move.pdn(full=True)}: a piece is captured twice")
        for square in move.captures:
            if not pos.pieces_of(side.opponent) & bit(square):
                raise ValueError(f"{move.pdn(full=True)}: there is no {side.opponent} piece on {square} to capture")
        if any(m.same_route(move) for m in self.legal_moves()):
            raise ValueError(f"{move.pdn(full=True)} is a legal move: play it, there is nothing to condone")

    @property
    def condoned(self) -> frozenset[int]:
        """The plies (1 for the first move) of the illegal moves that stood (:meth:`condone`)."""
        return frozenset(self._condoned)

    def _push(self, move: Move, after: Position) -> None:
        before = self.position
        progress = move.is_capture or not before.kings & bit(move.start)
        self.moves.append(move)
        self.positions.append(after)
        self._quiet.append(0 if progress else self._quiet[-1] + 1)
        self._counts[after] += 1

    def _pop(self) -> Move:
        self._condoned.discard(len(self.moves))
        move = self.moves.pop()
        after = self.positions.pop()
        self._quiet.pop()
        self._forget(after)
        return move

    def _forget(self, position: Position) -> None:
        self._counts[position] -= 1
        if not self._counts[position]:
            del self._counts[position]

    def _replace_last(self, position: Position, quiet: int) -> None:
        self._forget(self.positions[-1])
        self.positions[-1] = position
        self._quiet[-1] = quiet
        self._counts[position] += 1

    def play_text(self, text: str) -> Move:
        """Play a move written in PDN and return it."""
        move = self.position.parse_move(text, self.rules)
        self.play(move)
        return move

    def undo(self) -> HistoryEntry:
        """Take back the last move and return it (a declared result is cleared too).

        Under huffing the last entry of :attr:`history` may be a :class:`Huff` (the piece
        comes back) or a :class:`JumpForced` (the missed move is played again, and the
        opponent has the choice once more); that entry is returned.
        """
        if not self.history:
            raise IndexError("no move to take back")
        self.declared = None
        entry = self.history.pop()
        if isinstance(entry, Huff):
            position, quiet = self._huffed.pop()
            self._replace_last(position, quiet)
        elif isinstance(entry, JumpForced):
            self._push(entry.missed, self.position.apply(entry.missed, self.rules))
        else:
            self._pop()
        return entry

    # -- huffing --------------------------------------------------------------------

    @property
    def jump_required(self) -> bool:
        """After :meth:`force_jump`: the side to move must jump, whatever the rules."""
        return bool(self.history) and isinstance(self.history[-1], JumpForced)

    def missed_jump(self) -> bool:
        """Whether the last move skipped a jump it could have made (under huffing)."""
        if not self.rules.huffing or self.declared is not None or not self.history:
            return False
        move = self.history[-1]
        # An illegal move that stood is past objection: the opponent has answered it.
        return (
            isinstance(move, Move)
            and self.ply not in self._condoned
            and not move.is_capture
            and self.positions[-2].capture_available(self.rules)
        )

    def huffable(self) -> list[Square]:
        """The squares of the pieces that could have jumped but did not, where they stand now.

        Empty unless the rules allow huffing and the last move skipped a jump. The piece
        that moved instead is listed at its new square.

        >>> game = Game(Position.from_fen("B:W14:B9,11"), Rules(huffing=True))
        >>> game.play_text("11-15")   # 9 could have jumped 14
        Move(path=(11, 15), captures=())
        >>> game.huffable()
        [9]
        """
        if not self.missed_jump():
            return []
        move = self.moves[-1]
        jumpers = {m.start for m in self.positions[-2].captures(self.rules)}
        return sorted(move.end if s == move.start else s for s in jumpers)

    def huff(self, square: Square) -> Huff:
        """Take off the piece on ``square`` that missed a jump. Not a move: the side to
        move (the one that huffs) is still to move, and then moves as usual.
        """
        choices = self.huffable()
        if not choices:
            raise HuffError("no jump was missed by the last move; there is nothing to huff")
        if square not in choices:
            listed = ", ".join(str(s) for s in choices)
            raise HuffError(f"square {square} does not hold a piece that missed a jump ({listed})")
        pos = self.position
        piece = pos.piece_at(square)
        assert piece is not None  # huffable() lists occupied squares only
        b = bit(square)
        huffed = Position(pos.black & ~b, pos.white & ~b, pos.kings & ~b, pos.turn)
        self._huffed.append((pos, self._quiet[-1]))
        # Taking a piece off counts as progress for the forty-move count, like a capture.
        self._replace_last(huffed, 0)
        entry = Huff(square, piece, self.ply)
        self.history.append(entry)
        return entry

    def force_jump(self) -> JumpForced:
        """Make the player take back the move that skipped a jump; they must now jump."""
        if not self.missed_jump():
            raise HuffError("no jump was missed by the last move; there is no jump to force")
        missed = self._pop()
        entry = JumpForced(missed, self.ply)
        self.history.append(entry)
        return entry

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

    def agree_draw(self) -> Result:
        """Both players agree to a draw (allowed at any time, WCDF 1.32)."""
        return self.declare(DRAW, "agreement")

    # -- draws ----------------------------------------------------------------------

    def repetitions(self, position: Position | None = None) -> int:
        """How often ``position`` (default: the current one) has stood in this game."""
        return self._counts[position if position is not None else self.position]

    def repeating_moves(self) -> list[Move]:
        """Moves that would make a position stand for the third time (WCDF 1.32.1)."""
        pos = self.position
        return [m for m in self.legal_moves() if self._counts[pos.apply(m, self.rules)] >= 2]

    @property
    def quiet_plies(self) -> int:
        """Plies in a row with no man moved and nothing captured."""
        return self._quiet[-1]

    def draw_claim(self) -> str | None:
        """``repetition`` or ``forty-moves`` when the side to move can claim a draw now.

        Repetition: one of the claimant's moves would make a position stand for the third
        time (WCDF 1.32.1: the player shows that *their next move* would create it). A
        position that already stands a third time is no claim by itself: the player who
        made it could have claimed before moving, and the opponent may claim only with a
        repeating move of their own. Forty moves: during each player's own previous 40
        moves no man has moved and nothing has been captured (WCDF 1.32.2).
        """
        if self.repeating_moves():
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
