"""Following a game from the switches: the turn table, the tracker, huffing, the controller.

:mod:`~firmware.tracking.table` turns the legal moves of a turn into occupancy patterns;
:mod:`~firmware.tracking.tracker` reads settled switch changes against them and commits
moves to the game, raising :mod:`firmware.events`; :mod:`~firmware.tracking.huffing` is the
huffing rule plugged into the tracker through its named hooks; and
:mod:`~firmware.tracking.controller` pumps sensors through the debouncer into a *follower*
(the tracker, or the referee that wraps it). This package knows nothing of the
application, the link, the simulator or the command line.
"""
