"""The LED policy: what the lights under the board show, from the tracker's square roles.

The tracker decides *what* each square is (a legal target, a piece to remove, a square
that must be filled...) as a role name; this module decides *how* it looks and whether it
is shown at all: colours, brightness, steady or blinking, hints on or off.

Three kinds of light, so a glance tells them apart without colour vision:

* **hints** glow steadily and can be switched off (``target``, ``capture``,
  ``must-capture``); the engine's best move after the hint button (``hint-from``,
  ``hint-path``, ``hint-to``, ``hint-capture``) is one too; the referee never shows them;
* **required actions and information** glow steadily whatever the hint setting: the
  touched piece, the next landing square of a jump, captured pieces to take off, squares
  to fill or empty, the crowning prompt, the move the board wants made; kings and the
  last move are shown dimly (the switches cannot see a crown);
* **warnings** blink fast: every square named by the tracker's current warning, and
  ``error`` squares.

The default palette keeps to hues that people with red-green colour blindness tell apart
(blue, orange, yellow, white, aqua) and never relies on colour alone: blinking says
"warning", brightness says "hint" or "background".

>>> policy = LedPolicy()
>>> policy.frame({15: "target", 11: "touched"}, now_ms=0)[15]
(0, 120, 255)
>>> LedPolicy(LedSettings(hints=False)).frame({15: "target"}, now_ms=0)
{}
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from crownhead.firmware.tracking.roles import (
    ACTION_ROLES,
    BACKGROUND_ROLES,
    ENGINE_HINT_ROLES,
    HINT_ROLES,
    WARNING_ROLES,
)
from crownhead.hal.lights import Frame
from crownhead.rules import Color, Position, Result

__all__ = [
    "RGB",
    "HINT_ROLES",
    "ACTION_ROLES",
    "BACKGROUND_ROLES",
    "WARNING_ROLES",
    "ROLES",
    "ENGINE_HINT_ROLES",
    "Palette",
    "LedSettings",
    "LedPolicy",
    "parse_colour",
]

RGB = tuple[int, int, int]

#: The tracker's roles, all of them (the engine's hint roles are the application's).
ROLES = HINT_ROLES | ACTION_ROLES | BACKGROUND_ROLES | WARNING_ROLES

_HEX = re.compile(r"^#?([0-9a-fA-F]{6})$")


def parse_colour(value: object, where: str = "colour") -> RGB:
    """A colour from ``"#rrggbb"``, ``"rrggbb"`` or ``[r, g, b]`` (ints 0-255).

    >>> parse_colour("#ff8000"), parse_colour([0, 120, 255])
    ((255, 128, 0), (0, 120, 255))
    """
    if isinstance(value, str):
        m = _HEX.match(value.strip())
        if not m:
            raise ValueError(f'{where}: {value!r} is not a colour (write it as "#rrggbb")')
        h = m.group(1)
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
    if (
        isinstance(value, list | tuple)
        and len(value) == 3
        and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)
    ):
        return (value[0], value[1], value[2])
    raise ValueError(f'{where}: {value!r} is not a colour ("#rrggbb" or [r, g, b] with 0-255)')


@dataclass(frozen=True)
class Palette:
    """The colour of each role, full scale (the hardware applies its brightness cap).

    The meaning is carried by families of hues: blue means "a piece goes here", orange
    "a piece leaves", yellow "this piece moves", white "the piece in your hand",
    aqua "king". Every pair a player must tell apart stays apart under simulated
    deuteranopia, protanopia and tritanopia (see tests/test_leds.py). Field names are the role names with ``_`` for ``-``.
    """

    touched: RGB = (255, 255, 255)
    target: RGB = (0, 120, 255)
    capture: RGB = (255, 100, 0)
    must_capture: RGB = (255, 200, 0)
    #: Under huffing, a piece that missed a jump and may be taken off: "a piece leaves".
    huff: RGB = (255, 100, 0)
    next_jump: RGB = (0, 120, 255)
    remove: RGB = (255, 100, 0)
    missing: RGB = (0, 120, 255)
    extra: RGB = (255, 100, 0)
    crown: RGB = (0, 255, 180)
    move_from: RGB = (255, 200, 0)
    move_path: RGB = (0, 60, 160)
    move_to: RGB = (0, 120, 255)
    error: RGB = (255, 30, 0)
    king: RGB = (0, 255, 180)
    last_from: RGB = (255, 255, 255)
    last_to: RGB = (255, 255, 255)
    #: Game over: the winner's pieces, or every piece after a draw.
    win: RGB = (255, 200, 0)
    draw: RGB = (255, 255, 255)
    #: The engine's hint. Its start is white, not the yellow of ``must-capture``, so the
    #: hinted piece stands out among the pieces that may capture.
    hint_from: RGB = (255, 255, 255)
    hint_path: RGB = (0, 60, 160)
    hint_to: RGB = (0, 120, 255)
    hint_capture: RGB = (255, 100, 0)

    def colour(self, role: str) -> RGB:
        return getattr(self, role.replace("-", "_"))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], where: str = "palette") -> Palette:
        """A palette with some roles recoloured, e.g. from a ``[palette]`` config table.

        Keys may use ``-`` or ``_``; an unknown key is an error naming it.
        """
        names = {f.name for f in fields(cls)}
        changes: dict[str, RGB] = {}
        for key, value in values.items():
            name = key.replace("-", "_")
            if name not in names:
                known = ", ".join(sorted(n.replace("_", "-") for n in names))
                raise ValueError(f"{where}: unknown role {key!r} (known: {known})")
            changes[name] = parse_colour(value, f"{where}.{key}")
        return replace(cls(), **changes)


@dataclass(frozen=True)
class LedSettings:
    """How the lights behave.

    ``brightness`` scales every colour (0-1) below the hardware's power cap; background
    roles (kings, last move) are shown at ``background`` of that. A warning blinks with
    a period of ``blink_ms`` (on for half of it), fast enough to be told from a hint at a
    glance (4 Hz by default).
    """

    hints: bool = True
    brightness: float = 1.0
    background: float = 0.15
    blink_ms: int = 250
    palette: Palette = field(default_factory=Palette)

    def __post_init__(self) -> None:
        for name in ("brightness", "background"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
        if isinstance(self.blink_ms, bool) or not isinstance(self.blink_ms, int) or self.blink_ms < 20:
            raise ValueError(f"blink_ms must be an int of at least 20, got {self.blink_ms!r}")


def _scale(rgb: RGB, factor: float) -> RGB:
    if factor >= 1:
        return rgb
    # Round up so a dim but non-zero colour never vanishes entirely.
    r, g, b = (0 if c == 0 else max(1, int(c * factor + 0.5)) for c in rgb)
    return (r, g, b)


class LedPolicy:
    """Turns square roles into LED frames.

    ``referee`` hides hints for good (the hint button does nothing); otherwise
    :meth:`reveal_hints` shows them for the current turn even when they are off.
    The policy keeps only the blink phase between calls; :meth:`frame` is otherwise a
    pure function of its arguments.
    """

    def __init__(self, settings: LedSettings | None = None, *, referee: bool = False) -> None:
        self.settings = settings or LedSettings()
        self.referee = referee
        self._revealed = False
        self._blink_key: frozenset[int] = frozenset()
        self._blink_since = 0
        self._blinking = False
        #: The squares blinking in the last frame (lit or in their dark half).
        self.blinking: frozenset[int] = frozenset()

    # -- hint switch ------------------------------------------------------------------

    @property
    def hints_shown(self) -> bool:
        """Whether hint roles are lit now."""
        if self.referee:
            return False
        return self.settings.hints or self._revealed

    @property
    def hints_on(self) -> bool:
        """Whether hints are on for the games now, as a page or a host is told: the
        setting, and never under a referee (which lights none, whatever the setting kept
        for the modes after it)."""
        return self.settings.hints and not self.referee

    def reveal_hints(self) -> None:
        """The hint button: show hints until :meth:`turn_changed`, even with hints off."""
        self._revealed = True

    def turn_changed(self) -> None:
        """A move was committed or taken back: a revealed hint lasts one turn."""
        self._revealed = False

    def set_hints(self, on: bool) -> None:
        self.settings = replace(self.settings, hints=on)

    # -- frames -----------------------------------------------------------------------

    def frame(
        self,
        roles: Mapping[int, str],
        *,
        now_ms: int,
        warning_squares: Collection[int] = (),
        result: Result | None = None,
        position: Position | None = None,
    ) -> Frame:
        """The frame for ``roles`` at ``now_ms``: ``{square: (r, g, b)}``, off squares absent.

        ``warning_squares`` are the squares of the tracker's current warning: they blink
        whatever their role (a square with no role blinks in the ``error`` colour).
        With ``result`` (the game is over) and ``position``, the result is shown under
        the roles: the winner's pieces in ``win`` colour, every piece in ``draw`` colour
        after a draw.
        """
        s = self.settings
        pal = s.palette
        out: Frame = {}
        if result is not None and position is not None:
            out.update(self._result_frame(result, position))
        warned = frozenset(warning_squares) | {sq for sq, r in roles.items() if r in WARNING_ROLES}
        show_hints = self.hints_shown
        for square, role in roles.items():
            if role in BACKGROUND_ROLES:
                if square not in out:
                    out[square] = _scale(pal.colour(role), s.background * s.brightness)
            elif role in HINT_ROLES or role in ENGINE_HINT_ROLES:
                if show_hints or square in warned:
                    out[square] = _scale(pal.colour(role), s.brightness)
            elif role in ACTION_ROLES or role in WARNING_ROLES:
                out[square] = _scale(pal.colour(role), s.brightness)
            # An unknown role (a newer tracker) is left dark rather than guessed at.
        self.blinking = warned
        on = self._blink_on(warned, now_ms)
        for square in warned:
            if not on:
                out.pop(square, None)
            elif square not in out or roles.get(square) in BACKGROUND_ROLES:
                out[square] = _scale(pal.error, s.brightness)
        return out

    def _result_frame(self, result: Result, position: Position) -> Frame:
        s = self.settings
        winner = result.winner
        if winner is None:
            colour, squares = s.palette.draw, list(position.pieces())
        else:
            colour = s.palette.win
            squares = [sq for sq, piece in position.pieces().items() if piece.color is winner]
            if not squares:
                # The pieces may already be cleared away: light the winner's home rows.
                squares = list(range(1, 13)) if winner is Color.BLACK else list(range(21, 33))
        c = _scale(colour, s.brightness)
        return {sq: c for sq in squares}

    # -- blinking ---------------------------------------------------------------------

    def _blink_on(self, warned: frozenset[int], now_ms: int) -> bool:
        # The phase restarts when the set of warned squares changes, so a new warning
        # lights up at once instead of possibly starting in its dark half.
        if not warned:
            self._blinking = False
            self._blink_key = frozenset()
            return True
        if not self._blinking or warned != self._blink_key:
            self._blinking = True
            self._blink_key = warned
            self._blink_since = now_ms
        half = self.settings.blink_ms // 2
        return ((now_ms - self._blink_since) // half) % 2 == 0

    def next_change(self, now_ms: int) -> int | None:
        """When the frame changes by itself (the next blink edge); None when steady."""
        if not self._blinking:
            return None
        half = self.settings.blink_ms // 2
        elapsed = max(0, now_ms - self._blink_since)
        return self._blink_since + (elapsed // half + 1) * half
