"""Keeping games: the saved game in progress, finished records, the match, atomic writes.

:mod:`~firmware.storage.store` saves the game after every move (temp file, fsync,
rename), offers it for resume, and keeps finished games as PDN files, which only
:mod:`rules.pdn` writes; :mod:`~firmware.storage.matches` keeps the match under way
(``match.json``) and the finished ones; :mod:`~firmware.storage.selftest` the last
self-test's result (``selftest.json``). It depends on :mod:`rules` alone.
"""
