"""Tournament refereeing on top of the tracker (WCDF rules).

:mod:`~firmware.referee.arbiter` wraps the tracker as a follower and rules on what the
players do; :mod:`~firmware.referee.offences` classifies an illegal move;
its own events (cautions, forfeits, claims) are in :mod:`firmware.events.referee`;
:mod:`~firmware.referee.record` writes the tournament record (PDN and arbiter
log); :mod:`~firmware.referee.snapshot` checks the referee's saved state of a game
before a restart goes on with it; :mod:`~firmware.referee.settings` holds the style, ballot and clock settings and
their config section. It keeps its clock with :mod:`firmware.gameclock`, the game clock
every timed game has, and builds on :mod:`firmware.tracking`.
"""
