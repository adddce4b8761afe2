"""The LED roles: what a lit square tells the players, named once for every part.

The tracker gives each lit square a :class:`Role`; the LED policy
(:mod:`crownhead.firmware.app.leds`) colours them, the referee hides the hints, the simulator's
hands do what they ask. A :class:`Role` is a string (``Role.TARGET == "target"``), so
role maps read and print as the names in ``docs/replay.md``.

>>> Role.MUST_CAPTURE == "must-capture", Role.HUFF in HINT_ROLES
(True, True)
>>> [str(r) for r in ROLES[:3]]
['touched', 'target', 'capture']
"""

from __future__ import annotations

import enum

__all__ = [
    "ACTION_ROLES",
    "BACKGROUND_ROLES",
    "ENGINE_HINT_ROLES",
    "HINT_ROLES",
    "ROLES",
    "Role",
    "WARNING_ROLES",
]


class Role(enum.StrEnum):
    """A lit square's role, in the order ``docs/replay.md`` documents them."""

    TOUCHED = "touched"
    TARGET = "target"
    CAPTURE = "capture"
    MUST_CAPTURE = "must-capture"
    NEXT_JUMP = "next-jump"
    REMOVE = "remove"
    MISSING = "missing"
    EXTRA = "extra"
    CROWN = "crown"
    MOVE_FROM = "move-from"
    MOVE_PATH = "move-path"
    MOVE_TO = "move-to"
    ERROR = "error"
    KING = "king"
    LAST_FROM = "last-from"
    LAST_TO = "last-to"
    HUFF = "huff"
    #: The engine's best move after the hint button (set by the application, not the
    #: tracker): the piece to move, the landings on the way, the end, the pieces it jumps.
    HINT_FROM = "hint-from"
    HINT_PATH = "hint-path"
    HINT_TO = "hint-to"
    HINT_CAPTURE = "hint-capture"


#: Every role the tracker gives a square, in the documented order.
ROLES: tuple[Role, ...] = tuple(r for r in Role if not r.startswith("hint-"))
#: Advice rather than a requirement: switchable, hidden by a referee.
HINT_ROLES = frozenset({Role.TARGET, Role.CAPTURE, Role.MUST_CAPTURE, Role.HUFF})
#: What the player must do or should know now; shown whatever the hint setting.
ACTION_ROLES = frozenset(
    {
        Role.TOUCHED,
        Role.NEXT_JUMP,
        Role.REMOVE,
        Role.MISSING,
        Role.EXTRA,
        Role.CROWN,
        Role.MOVE_FROM,
        Role.MOVE_PATH,
        Role.MOVE_TO,
    }
)
#: Shown dimly underneath everything else.
BACKGROUND_ROLES = frozenset({Role.KING, Role.LAST_FROM, Role.LAST_TO})
#: Always blink.
WARNING_ROLES = frozenset({Role.ERROR})
#: The engine's best move after the hint button: hints like the others, never shown by a referee.
ENGINE_HINT_ROLES = frozenset({Role.HINT_FROM, Role.HINT_PATH, Role.HINT_TO, Role.HINT_CAPTURE})
