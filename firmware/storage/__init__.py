"""Keeping games: the saved game in progress, finished records, atomic writes.

:mod:`~firmware.storage.store` saves the game after every move (temp file, fsync,
rename), offers it for resume, and keeps finished games as PDN files, which only
:mod:`rules.pdn` writes. It depends on :mod:`rules` alone.
"""
