"""The simulated board's people: scripted hands, replay scripts and the terminal simulator.

:mod:`~firmware.simulator.hands` turns a move into lift/place actions the way a person
makes it; :mod:`~firmware.simulator.tui` is the curses view and keyboard of ``crownhead
run --hal sim``. They act on the :mod:`sim` board from outside the application.
"""
