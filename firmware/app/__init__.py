"""The board application: main loop, modes, LED policy, players, opening the hardware.

:mod:`~firmware.app.application` is the main loop that pumps the controller, turns events
into LED frames through :mod:`~firmware.app.leds`, asks the
:mod:`~firmware.app.players` for the machine's moves and saves through
:mod:`firmware.storage`; :mod:`~firmware.app.hardware` opens the configured sensors,
lights and buttons (or the simulated board); :mod:`~firmware.app.matchplay` seats the
players of each game of a match and keeps its score (``App.matches``); :mod:`~firmware.app.resume`
keeps in the game record the mode a game is played in, so that it resumes that way. Outputs beyond the LEDs (the link, a
terminal view) are event sinks and inputs are commands: they plug in from above and
this package imports none of them.
"""
