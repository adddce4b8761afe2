"""The board as a coach: a finished game reviewed move by move (:mod:`crownhead.firmware.coach.review`).

A library over :mod:`crownhead.rules` and its engine, in the tier of :mod:`crownhead.firmware.tracking`: the
``crownhead review`` command uses it, and the page and the board can.
"""
