"""The legal moves of one turn as the switches see them, computed once per turn.

The board senses occupancy only. For every legal move this module keeps the squares
the move empties and fills, so that a settled board can be matched against all of them
with a few integer operations per move:

* the **result**: the occupancy after the move (start emptied, end filled, captured
  pieces gone);
* the **states part-way** through it: the moving piece lifted, or standing on one of its
  landing squares (a multi-jump made square by square), or not yet lifted; any subset of
  the captured pieces already taken off (people remove them before, during or after the
  jump, in any order); for a plain move, the slide where the piece covers its start and
  its end at once.

>>> from crownhead.rules import WCDF, Position
>>> table = TurnTable(Position.start(), rules=WCDF)
>>> [str(p.move) for p in table.complete(table.occupied ^ (1 << 10) ^ (1 << 14))]
['11-15']
>>> sorted(str(p.move) for p in table.in_progress(table.occupied & ~(1 << 10)))
['11-15', '11-16']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crownhead.rules import Move, Position, Rules
from crownhead.squares import bit, mask_of

__all__ = ["Plan", "TurnTable", "ProgressView", "view_progress", "lowest_square"]


def lowest_square(mask: int) -> int:
    """The lowest square of a non-empty bitboard."""
    return (mask & -mask).bit_length()


@dataclass(frozen=True, slots=True)
class Plan:
    """One legal move as masks of squares (bit ``s - 1`` for square ``s``)."""

    move: Move
    start: int  #: bit of the start square
    end: int  #: bit of the end square
    landings: int  #: every square the piece lands on (the end included)
    captured: int  #: the pieces it jumps
    result: int  #: the occupancy once the move is complete
    removable: int  #: squares that may be empty part-way: start and captured pieces
    crowns: bool  #: whether a man is crowned by this move

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def step_at(self, square: int, after: int = 0) -> int:
        """Index in the path of ``square`` as a landing (after index ``after``), or -1."""
        path = self.move.path
        for i in range(max(after, 0) + 1, len(path)):
            if path[i] == square:
                return i
        return -1


def plan_of(position: Position, move: Move, after: Position) -> Plan:
    occupied = position.occupied
    start, end = bit(move.start), bit(move.end)
    captured = mask_of(move.captures)
    landings = mask_of(move.path[1:])
    result = (occupied & ~start & ~captured) | end
    crowns = not position.kings & start and bool(after.kings & end)
    return Plan(move, start, end, landings, captured, result, start | captured, crowns)


class TurnTable:
    """Every legal move of ``position`` as a :class:`Plan`, indexed by result.

    ``only`` restricts the moves considered (a move the board wants made, or the touched
    piece under strict touch-move); the legal-move facts (``movable``, ``jumpers``) always
    describe the whole position.
    """

    __slots__ = (
        "position",
        "rules",
        "occupied",
        "own",
        "opponent",
        "plans",
        "movable",
        "jumpers",
        "_by_result",
    )

    def __init__(self, position: Position, rules: Rules, moves: Sequence[Move] | None = None) -> None:
        self.position = position
        self.rules = rules
        self.occupied = position.occupied
        self.own = position.pieces_of(position.turn)
        self.opponent = self.occupied & ~self.own
        legal = position.legal_moves(rules) if moves is None else list(moves)
        # The rules tell whether a man crowned mid-capture ends a king off the king row.
        self.plans: tuple[Plan, ...] = tuple(plan_of(position, m, position.apply(m, rules)) for m in legal)
        movable = jumpers = 0
        for p in self.plans:
            movable |= p.start
            if p.captured:
                jumpers |= p.start
        self.movable = movable
        #: Pieces that can capture (with compulsory captures: the only pieces that can move).
        self.jumpers = jumpers
        by_result: dict[int, list[Plan]] = {}
        for p in self.plans:
            by_result.setdefault(p.result, []).append(p)
        self._by_result = {k: tuple(v) for k, v in by_result.items()}

    def __len__(self) -> int:
        return len(self.plans)

    def plan(self, move: Move) -> Plan | None:
        for p in self.plans:
            if p.move == move:
                return p
        return None

    def ambiguous_ends(self, plan: Plan) -> bool:
        """Whether another legal move has the same start and end (PDN then writes the path)."""
        return any(p is not plan and p.start == plan.start and p.end == plan.end for p in self.plans)

    def complete(self, board: int, only: Iterable[Plan] | None = None) -> tuple[Plan, ...]:
        """The moves whose result is ``board`` (several only for routes with equal results)."""
        found = self._by_result.get(board, ())
        if only is None or not found:
            return found
        allowed = set(map(id, only))
        return tuple(p for p in found if id(p) in allowed)

    def in_progress(self, board: int, only: Iterable[Plan] | None = None, extra_removable: int = 0) -> list[Plan]:
        """The moves ``board`` is part-way through (the unchanged board fits every move).

        ``extra_removable`` names squares that may be empty besides each move's own (the
        pieces a previous move captured, when that move is being corrected).
        """
        occupied = self.occupied
        removed = occupied & ~board
        added = board & ~occupied
        if added & (added - 1):
            return []  # a piece stands in two new places: no single move does that
        out = []
        for p in self.plans if only is None else only:
            if removed & ~(p.removable | extra_removable):
                continue
            if added:
                if added & ~p.landings:
                    continue
                # A jumper on a landing square has left its start; a plain move may
                # cover both squares during a slide.
                if p.captured and not removed & p.start:
                    continue
            out.append(p)
        return out


@dataclass(frozen=True, slots=True)
class ProgressView:
    """Where a move in progress stands, for guidance lights and patience warnings."""

    #: The square the moving piece was lifted from, when it is in the hand before any landing.
    lifted: int | None
    #: Squares the piece may go to next: ``first`` before any landing, else chain continuations.
    first: frozenset[int]
    next_jumps: frozenset[int]
    #: Pieces still standing that the move will jump.
    ahead: frozenset[int]
    #: Pieces already jumped and still standing: they must be taken off.
    to_remove: frozenset[int]
    #: ``"continue-capture"``, ``"remove-captured"`` or None: what is overdue if the
    #: piece stays where it stopped.
    stopped: str | None
    stopped_squares: tuple[int, ...]


def view_progress(plans: Sequence[Plan], board: int, occupied: int, seen: Sequence[int]) -> ProgressView:
    """Analyse ``board`` part-way through ``plans`` (all from the position ``occupied``).

    ``seen`` lists the landing squares the piece has touched down on so far this move,
    in order: a piece lifted again from a landing square is continuing from there.
    """
    added = board & ~occupied
    lifted: int | None = None
    first: set[int] = set()
    nxt: set[int] = set()
    ahead: set[int] = set()
    remove: set[int] = set()
    ends: list[Plan] = []
    conts: list[Plan] = []
    for p in plans:
        path, caps = p.move.path, p.move.captures
        on_board = bool(board & p.start)
        if added and added & p.landings and not on_board:
            j = p.step_at(lowest_square(added))
            standing = True
        elif on_board:
            j, standing = 0, False
        else:
            j = p.step_at(seen[-1]) if seen else 0
            j = max(j, 0)
            standing = False
            if j == 0:
                lifted = path[0]
        for c in caps[:j]:
            if board & bit(c):
                remove.add(c)
        for c in caps[j:]:
            if board & bit(c):
                ahead.add(c)
        if j + 1 < len(path):
            (nxt if j >= 1 else first).add(path[j + 1])
        if standing and j >= 1 and p.captured:
            (ends if j == len(path) - 1 else conts).append(p)
    stopped: str | None = None
    squares: tuple[int, ...] = ()
    if conts:
        stopped = "continue-capture"
        squares = tuple(sorted({c.move.path[c.step_at(lowest_square(added)) + 1] for c in conts}))
    elif ends and remove:
        stopped = "remove-captured"
        squares = tuple(sorted(remove))
    return ProgressView(lifted, frozenset(first), frozenset(nxt), frozenset(ahead), frozenset(remove), stopped, squares)
