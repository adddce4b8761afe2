"""What a person types into the simulator: a square, a move, or a key's name.

:func:`parse_input` reads a typed line and :func:`key_action` a single key into a
:class:`Toggle`, :class:`HandMove`, :class:`Press` or :class:`Quit`; the simulator's
hands (:class:`~crownhead.firmware.simulator.hands.Hands`) perform them, the terminal simulator
(:mod:`crownhead.firmware.simulator.tui`) shows the keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["KEYS", "HandMove", "InputError", "Press", "Quit", "Toggle", "Typed", "key_action", "parse_input"]

#: Keys acting at once when nothing is typed yet: (key, button or action, help text).
KEYS: tuple[tuple[str, str, str], ...] = (
    ("n", "new", "new"),
    ("h", "hint", "hint"),
    ("t", "takeback", "takeback"),
    ("c", "claim", "claim"),
    ("d", "draw", "draw"),
    ("r", "resign", "resign"),
    ("a", "adjust", "adjust"),
    ("j", "force", "jump"),
    # Per-side buttons (their help is on the line above the keys).
    ("b", "black_draw", ""),
    ("w", "white_draw", ""),
    ("B", "black_resign", ""),
    ("W", "white_resign", ""),
    ("k", "clock", ""),
    # The voice's button: the last move (typed "hold speak": the whole position).
    ("v", "speak", ""),
    ("f", "follow", "follow the lights"),
    ("q", "quit", "quit"),
)


class InputError(ValueError):
    """Typed text that is not a square, a move or a key."""


@dataclass(frozen=True)
class Toggle:
    """Lift the piece on ``square``, or put one down there if it is empty."""

    square: int


@dataclass(frozen=True)
class HandMove:
    """Make a whole move by hand: ``text`` such as ``11-15``, ``15x31`` or ``15x24x31``."""

    text: str


@dataclass(frozen=True)
class Press:
    """Press a board button (``new``, ``hint``...) or a simulator action (``follow``);
    ``long``: hold it down (``hold resign``, ``hold black``)."""

    name: str
    long: bool = False


@dataclass(frozen=True)
class Quit:
    pass


#: What a typed line or a key means.
Typed = Toggle | HandMove | Press | Quit

_MOVE = re.compile(r"^[0-9]{1,2}(\s*[-x:]\s*[0-9]{1,2})+$", re.IGNORECASE)


def parse_input(text: str) -> Typed | None:
    """What a typed line means: a square number, a move, or a key's name.

    >>> parse_input("11"), parse_input("15x24x31")
    (Toggle(square=11), HandMove(text='15x24x31'))
    >>> parse_input("resign"), parse_input("hold white")
    (Press(name='resign', long=False), Press(name='white', long=True))
    """
    t = text.strip().lower()
    if not t:
        return None
    if t.startswith("hold "):
        action = parse_input(t[5:])
        if isinstance(action, Press) and action.name not in ("follow", "quit"):
            return Press(action.name, long=True)
        raise InputError(f"{text.strip()!r}: hold takes a button name (hold resign, hold black)")
    if t in ("black", "white"):
        return Press(t)  # one button per side: short = draw, long (hold) = resign
    if t.isdigit():
        if not t.isascii() or len(t) > 4:
            raise InputError(f"{t[:8]!r} is not a square: squares are 1-32")
        square = int(t)
        if not 1 <= square <= 32:
            raise InputError(f"there is no square {square}: squares are 1-32")
        return Toggle(square)
    if _MOVE.match(t):
        squares = [int(s) for s in re.findall(r"[0-9]+", t)]
        bad = [s for s in squares if not 1 <= s <= 32]
        if bad:
            raise InputError(f"there is no square {bad[0]}: squares are 1-32")
        return HandMove(re.sub(r"\s+", "", t))
    for key, name, _ in KEYS:
        if t in (key.lower() if len(key) == 1 and key.islower() else "", name):
            return Quit() if name == "quit" else Press(name)
    raise InputError(f"{text.strip()!r}: type a square (1-32), a move (11-15, 15x24) or a key")


def key_action(key: str) -> Typed | None:
    """The action of a single key pressed with an empty input line, if any."""
    for k, name, _ in KEYS:
        if key == k:
            return Quit() if name == "quit" else Press(name)
    return None
