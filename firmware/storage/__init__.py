"""Keeping games: the saved game in progress, finished records, the match, atomic writes.

:mod:`~crownhead.firmware.storage.store` saves the game after every move (temp file, fsync,
rename), offers it for resume, and keeps finished games as PDN files, which only
:mod:`crownhead.rules.pdn` writes; :mod:`~crownhead.firmware.storage.matches` keeps the match under way
(``match.json``) and the finished ones; :mod:`~crownhead.firmware.storage.selftest` the last
self-test's result (``selftest.json``). It depends on :mod:`crownhead.rules` alone.
"""
