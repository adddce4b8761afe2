"""The simulated board's people: hands, replay scripts and the terminal simulator.

:mod:`~crownhead.firmware.simulator.hands` turns a move into lift/place actions the way a person
makes it, and its :class:`~crownhead.firmware.simulator.hands.Hands` make them (and follow the
lights) on the simulated board of an application; :mod:`~crownhead.firmware.simulator.keys` reads
what a person types; :mod:`~crownhead.firmware.simulator.script` runs replay scripts through the
controller; :mod:`~crownhead.firmware.simulator.tui` is the curses view and keyboard of
``crownhead run --hal sim``. They act on the :mod:`crownhead.sim` board from outside the
application, which imports none of them.
"""
