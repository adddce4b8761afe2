"""Setting a position up one rank at a time, the nearest first.

A position set up on a board (a game from a position, a saved game resumed, a position
of a review tried again, a problem) may differ from what stands there on every square.
Lighting every square to fill and to empty at once leaves a person searching 24 lit
squares for the next one; instead the lights show one rank (a row of four squares) at a
time, and the voice says what that rank must hold. Ranks come from the side of the person
setting up: the rank nearest them first, so that a hand placing pieces never reaches
across pieces it has just set (and knocks none of them). The person is the one playing
at the board when the other side's moves come from elsewhere (the machine, a board far
away); with two players at the board, White's side (the side diagrams are drawn from).

The switches sense only occupancy, so a square already holding a piece of the wrong
colour or kind looks right. The board knows which pieces stood where when the set-up
began (the game before it); such a square is lit to be emptied (``change``) and, once
its piece is lifted, to be filled with the right one. Ranks with such a square come
first: once the occupancy is right the set-up is over, and a wrong piece could no
longer be found. A rank begun is finished before the lights move on.

>>> from crownhead.rules import Position, WHITE
>>> steps = rank_steps(Position.start(), 0, WHITE)
>>> [(s.rank, s.fill) for s in steps[:2]], len(steps)
([(1, (29, 30, 31, 32)), (2, (25, 26, 27, 28))], 6)
>>> rank_steps(Position.start(), 0, BLACK)[0].fill
(1, 2, 3, 4)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from crownhead.firmware.events import Event, SetUpRank
from crownhead.firmware.tracking.roles import Role
from crownhead.rules import BLACK, WHITE, Color, Piece, Position
from crownhead.squares import bit

__all__ = ["RankStep", "SetupGuide", "rank_of", "rank_squares", "rank_steps"]


def rank_of(square: int) -> int:
    """The rank of ``square``, 1 (White's back rank, 29-32) to 8 (Black's, 1-4).

    >>> rank_of(1), rank_of(32), rank_of(14)
    (8, 1, 5)
    """
    return 8 - (square - 1) // 4


def rank_squares(rank: int) -> tuple[int, ...]:
    """The four squares of ``rank``, in number order.

    >>> rank_squares(1), rank_squares(8)
    ((29, 30, 31, 32), (1, 2, 3, 4))
    """
    first = (8 - rank) * 4 + 1
    return tuple(range(first, first + 4))


@dataclass(frozen=True, slots=True)
class RankStep:
    """One rank of a set-up: the squares to fill, to empty and whose piece to change, and
    what the rank holds once done (square -> piece)."""

    rank: int
    fill: tuple[int, ...]
    empty: tuple[int, ...]
    change: tuple[int, ...]
    pieces: tuple[tuple[int, Piece], ...]

    @property
    def squares(self) -> frozenset[int]:
        return frozenset(self.fill + self.empty + self.change)

    def event(self, t: int, cause: str, left: int) -> SetUpRank:
        def of(color: Color, king: bool) -> tuple[int, ...]:
            return tuple(s for s, p in self.pieces if p.color is color and p.king is king)

        squares = rank_squares(self.rank)
        return SetUpRank(
            t,
            cause,
            self.rank,
            squares[0],
            squares[-1],
            of(BLACK, False),
            of(BLACK, True),
            of(WHITE, False),
            of(WHITE, True),
            self.empty,
            self.change,
            left,
        )


def rank_steps(target: Position, board: int, near: Color, known: Mapping[int, Piece] | None = None) -> list[RankStep]:
    """The ranks still to set up for ``target`` on a board showing ``board`` (occupancy),
    in the order to do them: those with a piece to change first, then the nearest to
    ``near``'s side first. ``known``: the piece the board knows stands on a square (the
    game before the set-up), for the squares whose occupancy is right but whose piece is
    not."""
    known = known or {}
    order = range(1, 9) if near is WHITE else range(8, 0, -1)
    steps: list[RankStep] = []
    for rank in order:
        fill, empty, change, pieces = [], [], [], []
        for square in rank_squares(rank):
            wanted = target.piece_at(square)
            occupied = bool(board & bit(square))
            if wanted is not None:
                pieces.append((square, wanted))
                if not occupied:
                    fill.append(square)
                elif square in known and known[square] != wanted:
                    change.append(square)
            elif occupied:
                empty.append(square)
        if fill or empty or change:
            steps.append(RankStep(rank, tuple(fill), tuple(empty), tuple(change), tuple(pieces)))
    return [s for s in steps if s.change] + [s for s in steps if not s.change]


class SetupGuide:
    """The set-up's rank now, followed step by step (one for the application).

    :meth:`follow` is told each step what is being set up and what the board shows; it
    returns a :class:`~crownhead.firmware.events.SetUpRank` event whenever the lights move to
    another rank (the voice says it), and :meth:`light` keeps the lights of the set-up to
    that rank.
    """

    #: The causes of a set-up of a whole position (a ``restore``, a move taken back or a
    #: piece knocked, is a few squares near each other: all lit at once, as before).
    CAUSES = ("new-game", "resume")
    #: A set-up that begins with this many squares to change or fewer (a move or two
    #: away: a game resumed on a board that kept its pieces) is lit all at once.
    FEW = 4

    def __init__(self) -> None:
        self.step: RankStep | None = None
        #: This set-up is lit all at once (it began with :attr:`FEW` squares or fewer).
        self.at_once = False
        self._target: tuple[str, Position] | None = None
        self._known: dict[int, Piece] = {}
        self._said: int | None = None
        self._change: frozenset[int] = frozenset()
        self._board = -1

    def follow(
        self, target: tuple[str, Position] | None, board: int, before: Position | None, near: Color, now: int
    ) -> list[Event]:
        """``target``: the cause and the position being set up (None: none); ``before``:
        the position the board showed when it began, if known (its pieces are taken to
        stand where the board is occupied)."""
        if target is None or target[0] not in self.CAUSES:
            self._target, self.step, self._said, self._known = None, None, None, {}
            self.at_once, self._change = False, frozenset()
            return []
        new = target != self._target
        if not new and board == self._board:
            return []  # nothing moved: the step stands (the loop steps far more often)
        self._board = board
        if new:
            self._target, self._said, self.step = target, None, None
            pieces = before.pieces() if before is not None else {}
            self._known = {s: p for s, p in pieces.items() if board & bit(s)}
        for square in [s for s in self._known if not board & bit(s)]:
            del self._known[square]  # lifted: the piece put back is taken to be the right one
        steps = rank_steps(target[1], board, near, self._known)
        if new:
            self.at_once = sum(len(s.squares) for s in steps) <= self.FEW
        if self.at_once:
            self._change = frozenset(square for s in steps for square in s.change)
            return []
        # A rank begun is finished first (its wrong piece lifted is now a square to fill).
        going = [s for s in steps if self.step is not None and s.rank == self.step.rank]
        self.step = going[0] if going else steps[0] if steps else None
        if self.step is None or self.step.rank == self._said:
            return []
        self._said = self.step.rank
        return [self.step.event(now, target[0], len(steps))]

    def light(self, roles: dict[int, str]) -> dict[int, str]:
        """``roles`` with the set-up's squares to fill and to empty kept to the rank now,
        and its squares whose piece must change lit to be emptied (``roles`` itself when
        nothing is being set up)."""
        if self._target is None:
            return roles
        out = dict(roles)
        step = self.step
        if self.at_once:
            for square in self._change:
                out[square] = Role.EXTRA
            return out
        for square, role in roles.items():
            if role in (Role.MISSING, Role.EXTRA) and (step is None or square not in step.squares):
                del out[square]
        if step is not None:
            for square in step.change:
                out[square] = Role.EXTRA
        return out


def near_side(at_board: Iterable[Color]) -> Color:
    """The side of the person setting up: the one side played at the board when the
    other's moves come from elsewhere (``at_board``: the sides a person plays here, not
    the machine's nor a link's), else White.

    >>> near_side([BLACK]) is BLACK, near_side([BLACK, WHITE]) is WHITE
    (True, True)
    """
    sides = set(at_board)
    return sides.pop() if len(sides) == 1 else WHITE
