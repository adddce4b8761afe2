"""The LED picture: the role of every lit square, one function for the board and replay.

The tracker gives the roles of what is happening (a referee's judge leaves the hints out):
a piece in hand and where it can go, a warning's squares, the move the board waits for,
the last move and the kings. :func:`picture` adds what is true of the position at the
start of a turn: the pieces that must capture when a capture is compulsory, and the
engine's move when the hint button asked for one (drawn under everything the tracker
shows but the background). The application colours the picture (``crownhead.firmware.app.leds``);
``crownhead replay --lights`` prints it.

>>> from crownhead.rules import WCDF, Game, Position
>>> from crownhead.firmware.tracking.tracker import Tracker
>>> tracker = Tracker(Game(Position.from_fen("B:W18,32:B14,1"), WCDF))
>>> tracker.roles.get(14), str(picture(tracker)[14])
(None, 'must-capture')
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from crownhead.firmware.tracking.roles import Role
from crownhead.firmware.tracking.tracker import Kind, Tracker
from crownhead.rules import Move, Position, Rules

__all__ = ["picture", "must_capture"]

#: The roles a must-capture or a hinted square is drawn over (dim background ones).
_UNDER = (None, Role.KING, Role.LAST_FROM, Role.LAST_TO)


def picture(tracker: Tracker, hint: Move | None = None, roles: Mapping[int, str] | None = None) -> dict[int, str]:
    """The role of each lit square now: the tracker's (or ``roles``, the follower's
    picture of them under a judge), the pieces that must capture at the start of a turn
    with a compulsory capture, and ``hint`` (the engine's move for the person to move)
    while the game is under way."""
    roles = dict(roles) if roles is not None else tracker.roles
    game = tracker.game
    if game.result is not None or tracker.setting_up is not None:
        return roles
    if (
        tracker.expected is None
        and tracker.reading.kind is Kind.IDLE
        and game.turn not in tracker.held  # nothing to capture here: wait for the move
    ):
        # Under huffing a jump is required only after a forced jump.
        if game.rules.must_capture or game.jump_required:
            for square in must_capture(game.position, game.rules):
                if roles.get(square) in _UNDER:
                    roles[square] = Role.MUST_CAPTURE
    if hint is not None:
        wanted = {hint.start: Role.HINT_FROM, hint.end: Role.HINT_TO}
        for square in hint.path[1:-1]:
            wanted.setdefault(square, Role.HINT_PATH)
        for square in hint.captures:
            wanted.setdefault(square, Role.HINT_CAPTURE)
        for square, role in wanted.items():
            if roles.get(square) in (*_UNDER, Role.MUST_CAPTURE):
                roles[square] = role
    return roles


@lru_cache(maxsize=64)
def must_capture(position: Position, rules: Rules) -> tuple[int, ...]:
    """The squares of the pieces that can capture in ``position`` (side to move)."""
    return tuple(sorted({m.start for m in position.captures(rules)}))
