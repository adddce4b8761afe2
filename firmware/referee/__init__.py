"""Tournament refereeing (WCDF rules): a policy the board consults.

:mod:`~crownhead.firmware.referee.arbiter` is the referee, the follower's judge
(:mod:`crownhead.firmware.tracking.judge`): it rules on what the tracker reads and what the session
decides, and keeps its own record, never the game; :mod:`~crownhead.firmware.referee.offences`
classifies an illegal move; its own events (cautions, forfeits, claims) are in
:mod:`crownhead.firmware.events.referee`; :mod:`~crownhead.firmware.referee.record` writes the tournament
record (PDN and arbiter log); :mod:`~crownhead.firmware.referee.snapshot` checks the referee's
saved state of a game before a restart goes on with it; :mod:`~crownhead.firmware.referee.settings`
holds the style, ballot and clock settings and their config section. It builds on
:mod:`crownhead.firmware.tracking`, whose session keeps the game and its one clock.
"""
