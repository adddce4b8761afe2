"""Build files for people building a board, drawn from the pin plans in the code.

:mod:`crownhead.firmware.wiring.schematic` draws one SVG schematic per wiring option (the Pi's
GPIO matrix, the 74HC165 chain, a Pico over USB) from the same tables the software
uses: the configuration defaults (:func:`crownhead.firmware.config.hardware.used_pins`) for the Pi
and the pin table at the top of the Pico firmware. :mod:`crownhead.firmware.wiring.geometry`
holds the board's dimensions; from them :mod:`crownhead.firmware.wiring.template` draws the drill
template (SVG, and PDF tiled on A4 or Letter at 1:1) and :mod:`crownhead.firmware.wiring.plans`
the stripboard cell and a cable plan per wiring option. :mod:`crownhead.firmware.wiring.kit`
writes them all (``crownhead schematic``, into ``docs/schematics/``); a test fails when
a committed file and the code disagree. A pure library: it imports the configuration
and the firmware's pin table, nothing that runs.
"""
