"""Tournament refereeing on top of the tracker (WCDF rules).

:mod:`~firmware.referee.arbiter` wraps the tracker as a follower and rules on what the
players do; :mod:`~firmware.referee.offences` classifies an illegal move;
:mod:`~firmware.referee.events` holds the referee's own events (cautions, forfeits,
claims); :mod:`~firmware.referee.record` writes the tournament record (PDN and arbiter
log); :mod:`~firmware.referee.snapshot` checks the referee's saved state of a game
before a restart goes on with it; :mod:`~firmware.referee.settings` holds the style, ballot and clock settings and
their config section; :mod:`~firmware.referee.clock` is the game clock and its time
controls. It builds on :mod:`firmware.tracking` and :mod:`firmware.storage` only.
"""
