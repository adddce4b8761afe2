"""Which side a draw or resign press comes from, and what it asks.

A board may have the shared buttons (``draw``, ``resign``), a pair per side
(``black_draw``, ``black_resign``, ``white_draw``, ``white_resign``) or one button per
side (``black``, ``white``: a short press offers or accepts a draw, a long press
resigns). The host link and the web page send the same requests with a side named.

What a shared button cannot tell: who pressed it. A shared ``draw`` is an offer of
unknown origin, which never agrees to another offer (both could be the same person's);
a shared ``resign`` resigns the side played at the board (the side to move, or the
person's side against a computer or a linked board). Only a press whose side is known,
from the other side than the standing offer's, agrees a draw.

>>> side_request("black_draw", False)
SideRequest(action='draw', side=<Color.BLACK: 0>, confirmed=False)
>>> side_request("white", True)
SideRequest(action='resign', side=<Color.WHITE: 1>, confirmed=True)
>>> side_request("draw", False)
SideRequest(action='draw', side=None, confirmed=False)
>>> side_request("hint", False) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.rules import BLACK, WHITE, Color

__all__ = ["RESIGN_CONFIRM_MS", "SIDE_BUTTONS", "SideRequest", "side_request"]

#: A resignation needs a second press of the same side's resign within this time.
RESIGN_CONFIRM_MS = 3000

#: Buttons that speak for one side: name -> (side, action; "" = short draw, long resign).
SIDE_BUTTONS: dict[str, tuple[Color, str]] = {
    "black_draw": (BLACK, "draw"),
    "black_resign": (BLACK, "resign"),
    "white_draw": (WHITE, "draw"),
    "white_resign": (WHITE, "resign"),
    "black": (BLACK, ""),
    "white": (WHITE, ""),
}


@dataclass(frozen=True, slots=True)
class SideRequest:
    """A draw offer (or acceptance) or a resignation; ``side`` None: a shared button.

    ``confirmed``: a resignation that needs no second press (a long press).
    """

    action: str
    side: Color | None
    confirmed: bool = False


def side_request(button: str, long: bool = False) -> SideRequest | None:
    """What a press of ``button`` asks (None: not a draw or resign button)."""
    if button == "draw":
        return SideRequest("draw", None)
    if button == "resign":
        return SideRequest("resign", None, long)
    entry = SIDE_BUTTONS.get(button)
    if entry is None:
        return None
    side, action = entry
    if not action:
        return SideRequest("resign", side, True) if long else SideRequest("draw", side)
    return SideRequest(action, side, long and action == "resign")
