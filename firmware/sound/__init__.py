"""The buzzer's patterns and when the board plays them.

:mod:`crownhead.firmware.sound.player` holds the patterns (a caution or illegal move, the
machine's move to make, a flag about to fall in the last 10 s and fallen, game over)
and :class:`~crownhead.firmware.sound.player.SoundPlayer`, which plays them on a
:class:`crownhead.hal.buzzer.Buzzer` step by step on the injected clock, from the main loop, with
nothing blocking; :class:`~crownhead.firmware.sound.player.BoardSound` listens to the
application's events (a sink) and its clock (a source) to choose them.
"""

from crownhead.firmware.sound.player import PATTERNS, BoardSound, SoundPlayer

__all__ = ["PATTERNS", "BoardSound", "SoundPlayer"]
