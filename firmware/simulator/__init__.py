"""The simulated board's people: hands, replay scripts and the terminal simulator.

:mod:`~firmware.simulator.hands` turns a move into lift/place actions the way a person
makes it, and its :class:`~firmware.simulator.hands.Hands` make them (and follow the
lights) on the simulated board of an application; :mod:`~firmware.simulator.keys` reads
what a person types; :mod:`~firmware.simulator.script` runs replay scripts through the
controller; :mod:`~firmware.simulator.tui` is the curses view and keyboard of
``crownhead run --hal sim``. They act on the :mod:`sim` board from outside the
application, which imports none of them.
"""
