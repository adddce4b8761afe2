"""The display beside the board: what it shows and the thread that draws it.

:mod:`firmware.display.render` lays a :class:`~firmware.display.render.Screen` (clocks,
whose move, the message in short, the result, the match score) out in lines that fit
128x64 and draws them; :mod:`firmware.display.panel` keeps the screen up to date from
the application (an event sink and a source of the main loop) and draws it in a
thread of its own, at most a few times a second and only on change, reporting a
display that is lost or back. The hardware is a :class:`hal.display.Display`.
"""

from firmware.display.panel import BoardPanel, Painter, short_message
from firmware.display.render import Screen, draw, fit, layout, shorten

__all__ = ["BoardPanel", "Painter", "Screen", "draw", "fit", "layout", "short_message", "shorten"]
