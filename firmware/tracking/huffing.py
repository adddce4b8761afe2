"""Huffing on the board: the tracker's turn rule for ``Rules(huffing=True)``.

Under the old Standard Laws a player who could jump but moved otherwise may be punished
by the opponent, who chooses before moving (see :mod:`crownhead.rules.game`). On the board:

* the move that skipped a jump is accepted as usual and followed by a ``missed-jump``
  event; while the choice is open the pieces that could have jumped show the ``huff``
  role (a hint, like ``must-capture``);
* **huff**: the opponent takes one of those pieces off. Once the board has stood like that
  for ``settle_ms`` (``patience_ms`` when the removal could also be the start of a capture
  of that piece, or the mover taking the piece up to correct the move), or at once when
  the opponent goes on to move, it is a ``huff`` event (:meth:`crownhead.rules.game.Game.huff`),
  neither a move nor a board out of sync;
* **force the jump**: the ``force`` button, or in casual play the ``takeback`` button or
  the position before the move restored on the board, takes the move back
  (:meth:`crownhead.rules.game.Game.force_jump`): a ``force-jump`` event, the lights guide the piece
  back, and then only a capture is accepted;
* **let it stand**: the opponent simply moves.

In casual play a huff is taken back like a move: put the piece back (or press
``takeback``), a ``huff-takeback`` event. A forced jump is not taken back: the jump must
be made.

:class:`HuffingRule` is a :class:`~crownhead.firmware.tracking.rule.TurnRule`: the tracker calls
its hooks at a few marked places and it changes the tracker only through the
:class:`~crownhead.firmware.tracking.rule.RuleHost` interface, so the English tracker reads as
before.
"""

from __future__ import annotations

from crownhead.firmware.events import Event, ForcedJump, GameOver, Huffed, HuffTakenBack, MissedJump, Side
from crownhead.firmware.tracking.reading import Kind, Reading
from crownhead.firmware.tracking.roles import Role
from crownhead.firmware.tracking.rule import RuleHost, TurnRule
from crownhead.firmware.tracking.table import TurnTable
from crownhead.rules import Game, Move, Position
from crownhead.rules.game import Huff, JumpForced
from crownhead.squares import bit

__all__ = ["HUFF_ROLE", "HuffingRule"]

#: The LED role of a piece that may be huffed.
HUFF_ROLE = Role.HUFF


def _list(squares: list[int]) -> str:
    items = [str(s) for s in squares]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


class HuffingRule(TurnRule):
    """The tracker's hooks under huffing (see the module docstring)."""

    watches_updates = True

    def __init__(self, host: RuleHost) -> None:
        super().__init__(host)
        #: A huffable square a piece was put back on (or slid onto), with when.
        self._refilled: tuple[int, int] | None = None

    def turn_moves(self, game: Game) -> list[Move] | None:
        """Only jumps after a forced jump; otherwise every legal move (None)."""
        return game.legal_moves() if game.jump_required else None

    def takeback_board(self, game: Game) -> int | None:
        """The position before the last move; with the piece put back after a huff; none
        after a forced jump (the jump must be made)."""
        if not game.history:
            return None
        last = game.history[-1]
        if isinstance(last, Huff):
            return game.position.occupied | bit(last.square)
        if isinstance(last, JumpForced) or len(game.positions) < 2:
            return None
        return game.positions[-2].occupied

    def _huffed_square(self, board: int) -> int | None:
        """The one huffable square whose piece, alone, is missing from ``board``."""
        game = self.host.game
        occupied = game.position.occupied
        for square in game.huffable():
            if board == occupied & ~bit(square):
                return square
        return None

    def read(self, board: int) -> Reading | None:
        """``Kind.HUFF`` for a board that is the position with one huffable piece taken off."""
        host = self.host
        square = None if host.expected is not None else self._huffed_square(board)
        if square is None:
            return None
        # The same board may be a capture of that piece begun by taking it off first, the
        # man just crowned being swapped for a king, or the mover taking the piece up to
        # correct the move: then wait patience_ms, not settle_ms.
        maybe_else = square == host.crowned or bool(host.table.in_progress(board))
        correction = host.correction_table()
        if correction is not None and not maybe_else:
            last = host.game.moves[-1]
            maybe_else = bool(correction.in_progress(board, extra_removable=last.captured_mask))
        return Reading(Kind.HUFF, board, (), also_progress=maybe_else)

    def commit(self, board: int, now: int) -> list[Event]:
        """Huff the piece missing from ``board`` (a ``Kind.HUFF`` reading accepted)."""
        square = self._huffed_square(board)
        if square is None:
            return []
        return self._huff(square, now)

    def _huff(self, square: int, now: int) -> list[Event]:
        game = self.host.game
        side = Side.of(game.turn)
        self.host.session.huff(square)
        self.host.restart_turn(now)
        events: list[Event] = [Huffed(now, game.ply, side, square)]
        result = game.result
        if result is not None:
            events.append(GameOver(now, result.score, result.reason))
        return events

    def ahead(self, board: int, now: int, *, finished: bool = False, refilled: int | None = None) -> list[Event]:
        """Huff a piece at once when ``board`` reads as a move begun or made after the huff.

        For a board that fits no move of the position (or, with ``finished``, is only part-way
        through one): the opponent took a huffable piece off and went on to move without
        waiting. With ``finished`` only a whole move after the huff counts: a board part-way
        through a capture of the huffable piece is more likely that capture. ``refilled`` is
        a huffed square a piece was just slid onto (it may stand on the board).
        """
        game = self.host.game
        if self.host.expected is not None:
            return []
        position = game.position
        for square in game.huffable():
            b = bit(square)
            if (board & b and square != refilled) or not position.occupied & b:
                continue
            without = Position(position.black & ~b, position.white & ~b, position.kings & ~b, position.turn)
            table = TurnTable(without, game.rules)
            if table.complete(board) or (not finished and table.in_progress(board)):
                return self._huff(square, now)
        return []

    def after_update(self, old: Reading, new: Reading, now: int) -> list[Event]:
        """After each board change under huffing: a huff followed by a whole move is both.

        A board read as a move part-way (or as the mover redoing the last move part-way) may
        be a whole move once the huffed piece is gone: e.g. the opponent slides a piece onto
        the square it has just huffed (the board shows the position again for a moment, then
        the piece's start empties), or moves a piece that could also be taken for one the
        mover captures while correcting the move.
        """
        game = self.host.game
        occupied = game.position.occupied
        for square in game.huffable():
            b = bit(square)
            if occupied & b and not old.board & b and new.board & b:
                # A piece put on a huffable square while its own piece was off: the piece put
                # back, or the opponent's piece moved there after a huff. The next change or
                # two tell which.
                self._refilled = (square, now)
        if new.kind not in (Kind.PROGRESS, Kind.CORRECT_PROGRESS):
            return []
        refilled = None
        noted = self._refilled
        if noted is not None and now - noted[1] <= self.host.settings.settle_ms:
            refilled = noted[0]
        return self.ahead(new.board, now, finished=True, refilled=refilled)

    def offer(self, now: int) -> list[Event]:
        """The ``missed-jump`` event after a move that skipped a jump under huffing."""
        game = self.host.game
        if not game.missed_jump():
            return []
        squares = game.huffable()
        missed = game.moves[-1]
        side, opponent = Side.of(game.turn.opponent), str(game.turn)
        buttons = "force or takeback" if self.host.policy.takeback else "force"
        message = (
            f"{side} could have jumped with the piece on {_list(squares)}: {opponent} may huff it "
            f"(take it off), press {buttons} to make {side} take {missed.pdn()} back and jump, "
            "or move to let it stand"
        )
        return [MissedJump(now, game.ply, side, tuple(squares), message)]

    def force(self, now: int) -> list[Event]:
        """Take back the move that skipped a jump; the player must jump (the ``force`` button).

        The lights then guide the piece back (``missing``/``extra``) as after a takeback.
        """
        game = self.host.game
        if not game.missed_jump():
            return []
        shown = game.position.occupied
        events = self._force(now)
        self.host.guide_back(shown)
        return events

    def _force(self, now: int) -> list[Event]:
        game = self.host.game
        ply = game.ply
        entry = self.host.session.force_jump()
        self.host.restart_turn(now)
        return [ForcedJump(now, ply, Side.of(game.turn), entry.missed.pdn())]

    def undo(self, now: int) -> list[Event] | None:
        """Taking back the last history entry when it is not a plain move, else None.

        A huff comes off the history (the piece stands again); a move that skipped a jump is
        a forced jump, unless its mover is redoing it (a correction, in casual play); nothing
        takes back a forced jump.
        """
        game = self.host.game
        if not game.history:
            return None
        last = game.history[-1]
        if isinstance(last, JumpForced):
            return []
        if isinstance(last, Huff):
            self.host.session.undo()
            self.host.restart_turn(now)
            return [HuffTakenBack(now, last.square)]
        if game.missed_jump() and self.host.reading.kind is not Kind.CORRECT_COMPLETE:
            return self._force(now)
        return None

    def take_back(self, now: int) -> list[Event] | None:
        """The ``takeback`` button when the last history entry is no plain move, else None."""
        game = self.host.game
        if not game.history or not (isinstance(game.history[-1], (Huff, JumpForced)) or game.missed_jump()):
            return None
        shown = game.position.occupied
        events = self.undo(now) or []
        if events:
            # The board still shows what was taken back: guide it, do not read it again.
            self.host.guide_back(shown)
        return events

    def roles(self, out: dict[int, str]) -> None:
        """Add the ``huff`` role on the pieces that may be huffed, while the choice is open."""
        host = self.host
        if host.expected is not None or host.reading.kind not in (Kind.IDLE, Kind.HUFF, Kind.PROGRESS):
            return  # no huff while the board waits for a machine's move
        board = host.board
        for square in host.game.huffable():
            if board & bit(square) and out.get(square) in (None, Role.KING, Role.LAST_FROM, Role.LAST_TO):
                out[square] = HUFF_ROLE
