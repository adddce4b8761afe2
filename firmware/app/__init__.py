"""The board application: main loop, modes, LED policy, players, opening the hardware.

:mod:`~crownhead.firmware.app.application` is :class:`~crownhead.firmware.app.application.App`, the main loop
that pumps the controller, reacts to the game's events and lights the LEDs through
:mod:`~crownhead.firmware.app.leds` (the picture is :mod:`crownhead.firmware.tracking.picture`'s). Around it,
one module per concept:

* :mod:`~crownhead.firmware.app.loop` drives it in real time or virtual time, and
  :mod:`~crownhead.firmware.app.commands` is what a host, a page or the hall may ask of it;
* :mod:`~crownhead.firmware.app.modes`: the mode, who plays each side, referee mode's arbiter;
* :mod:`~crownhead.firmware.app.players`: people, the machine, the thinker that runs it, and the
  engine's move the hint button shows;
* :mod:`~crownhead.firmware.app.keeper` keeps the games on disk (:mod:`crownhead.firmware.storage`) whatever
  the disk does, and :mod:`~crownhead.firmware.app.resume` keeps in the record how a game is
  played, so that it resumes that way;
* :mod:`~crownhead.firmware.app.timing`: the board clock of two-player and computer games;
* :mod:`~crownhead.firmware.app.matchplay` seats the players of each game of a match and keeps its
  score (``App.matches``);
* :mod:`~crownhead.firmware.app.snapshot`: the game as each step leaves it, the one thing every
  output reads; :mod:`~crownhead.firmware.app.outputs`: the output protocol, how outputs are
  added and closed;
* :mod:`~crownhead.firmware.app.view` and :mod:`~crownhead.firmware.app.setup`: what a screen shows, the
  prompts, the set-up in words; :mod:`~crownhead.firmware.app.sinks`: the log lines;
* :mod:`~crownhead.firmware.app.hardware` opens the configured sensors, lights and buttons (or the
  simulated board); :mod:`~crownhead.firmware.app.settings`: the application's config sections.

Outputs beyond the LEDs (the link, the display, a terminal view) are outputs and inputs
are commands: they plug in from above and this package imports none of them.
"""
