"""The display beside the board: what it shows and the thread that draws it.

:mod:`crownhead.firmware.display.render` lays a :class:`~crownhead.firmware.display.render.Screen` (clocks,
whose move, the message in short, the result, the match score) out in lines that fit
128x64 and draws them; :mod:`crownhead.firmware.display.panel` keeps the screen up to date from
the application (an event sink and a source of the main loop) and draws it in a
thread of its own, at most a few times a second and only on change, reporting a
display that is lost or back. The hardware is a :class:`crownhead.hal.display.Display`.
"""

from crownhead.firmware.display.panel import BoardPanel, Painter, short_message
from crownhead.firmware.display.render import Screen, draw, fit, layout, shorten

__all__ = ["BoardPanel", "Painter", "Screen", "draw", "fit", "layout", "short_message", "shorten"]
