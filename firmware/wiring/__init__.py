"""Wiring diagrams for people building a board, drawn from the pin plans in the code.

:mod:`firmware.wiring.schematic` draws one SVG schematic per wiring option (the Pi's
GPIO matrix, the 74HC165 chain, a Pico over USB) from the same tables the software
uses: the configuration defaults (:func:`firmware.config.hardware.used_pins`) for the Pi and the
pin table at the top of the Pico firmware. ``crownhead schematic`` writes them to
``docs/schematics/``; a test fails when a committed drawing and the code disagree. A
pure library: it imports the configuration and the firmware's pin table, nothing that
runs.
"""
