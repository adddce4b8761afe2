"""Printed score sheets: a game's sheet, a match's sheet and a blank one, as PDF.

:mod:`firmware.sheets.model` turns a game read from PDN into what its sheet shows (the
moves as numbered pairs, clock times, notes, cautions, the ballot, the final position,
the match it belongs to); :mod:`firmware.sheets.pdf` draws the pages with fpdf2, a pure
Python PDF library. A pure library over :mod:`rules`: ``crownhead sheet`` and
``crownhead games sheet`` (in :mod:`firmware.cli`) feed it PDN files.
"""
