"""Printed score sheets: a game's sheet, a match's sheet and a blank one, as PDF.

:mod:`crownhead.firmware.sheets.model` turns a game read from PDN into what its sheet shows (the
moves as numbered pairs, clock times, notes, cautions, the ballot, the final position,
the match it belongs to); :mod:`crownhead.firmware.sheets.pdf` draws the pages with fpdf2, a pure
Python PDF library. A pure library over :mod:`crownhead.rules`: ``crownhead sheet`` and
``crownhead games sheet`` (in :mod:`crownhead.firmware.cli`) feed it PDN files.
"""
