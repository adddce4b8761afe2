"""Following a game from the switches: the turn table, the tracker, huffing, the controller.

:mod:`~firmware.tracking.table` turns the legal moves of a turn into occupancy patterns;
:mod:`~firmware.tracking.tracker` reads settled switch changes against them
(:mod:`~firmware.tracking.reading`) and commits moves to the game's session
(:mod:`~firmware.tracking.session`: the record, offers, resignations, claims, the result
and the held sides, in one place, with a revision number), raising
:mod:`firmware.events` and giving each lit square a :mod:`~firmware.tracking.roles` role,
as the mode's :mod:`~firmware.tracking.policy` allows; a variant's turn rules plug into
it through the named hooks of :mod:`~firmware.tracking.rule` (huffing:
:mod:`~firmware.tracking.huffing`); :mod:`~firmware.tracking.follower` declares the
interface the tracker and a referee over it both offer, and
:mod:`~firmware.tracking.controller` pumps sensors through the debouncer into such a
follower; :mod:`~firmware.tracking.timer` is the game clock's rules, for every timed game. This package knows nothing of the referee, the application, the link, the
simulator or the command line.
"""
