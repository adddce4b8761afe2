"""Following a game from the switches: the turn table, the tracker, the session, the follower.

:mod:`~crownhead.firmware.tracking.table` turns the legal moves of a turn into occupancy patterns;
:mod:`~crownhead.firmware.tracking.tracker` reads settled switch changes against them
(:mod:`~crownhead.firmware.tracking.reading`) and commits what it reads to the game's session
(:mod:`~crownhead.firmware.tracking.session`: the record, offers, resignations, claims, the result,
the held sides and the one clock, in one place, with a revision number), raising
:mod:`crownhead.firmware.events` and giving each lit square a :mod:`~crownhead.firmware.tracking.roles` role,
as the mode's :mod:`~crownhead.firmware.tracking.policy` allows; a variant's turn rules plug into
it through the named hooks of :mod:`~crownhead.firmware.tracking.rule` (huffing:
:mod:`~crownhead.firmware.tracking.huffing`); :mod:`~crownhead.firmware.tracking.follower` routes every input
to its owner (the board's to the tracker, the players' to the session, the clock's to
the clock) and consults a judge, a referee policy declared in
:mod:`~crownhead.firmware.tracking.judge`; :mod:`~crownhead.firmware.tracking.controller` pumps sensors
through the debouncer into the follower; :mod:`~crownhead.firmware.tracking.timer` is the game
clock's rules, for every timed game. This package knows nothing of the referee, the
application, the link, the simulator or the command line.
"""
