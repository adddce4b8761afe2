"""The controller and everything on top of it, one subpackage per job.

Layers, lowest first; a package may import the ones before it, never one after it:

* :mod:`firmware.files` (the one bounded reader of every file the board is given, and its
  one atomic writer) and
  :mod:`firmware.redact` (the secrets no answer, page or log line shows), then
  :mod:`firmware.events`, :mod:`firmware.config` and :mod:`firmware.gameclock`: the
  events every part speaks, the config-file loader and the game clock (base modules,
  importable by all).
* :mod:`firmware.storage`: saved games and finished records; :mod:`firmware.sheets`
  (printed score sheets) and :mod:`firmware.diagram` (the board as SVG): pure libraries
  over :mod:`rules`.
* :mod:`firmware.egdb`: the engine's endgame databases as files (shipped, or built by
  ``crownhead egdb build`` into the state directory) and the probe loaded from them;
  :mod:`firmware.pages`: what the board's page and the hall's page share (the page
  shell and the security headers of every answer).
* :mod:`firmware.tracking`: the game session, the tracker, its turn table, huffing, the controller;
  :mod:`firmware.coach`: a finished game reviewed move by move (``crownhead review``).
* :mod:`firmware.referee`: tournament refereeing on top of the tracker.
* :mod:`firmware.app`: the main loop, modes, LED policy, players, opening the hardware.
* :mod:`firmware.link`: the serial host link (an event sink and a command source).
* :mod:`firmware.simulator`: scripted hands, replay scripts, the terminal simulator.
* :mod:`firmware.web`: the board's web page (an event sink and a command source: the
  host link spoken over WebSockets by a server in its own thread);
  :mod:`firmware.hall`: the tournament hall over MQTT (boards publish, the hall shows);
  :mod:`firmware.sound` (the buzzer), :mod:`firmware.voice` (the board speaks) and
  :mod:`firmware.display` (a small screen): event sinks beside the LEDs;
  :mod:`firmware.diagnostics`: sensor view and self-test for people wiring a board.
* :mod:`firmware.mcu`: the MicroPython firmware for a board with its own Raspberry Pi
  Pico (``mcu/pico/``, not imported by the rest), its CPython stand-ins, the protocol
  conformance check and the installer (over :mod:`hal` and :mod:`sim`); then
  :mod:`firmware.wiring`: schematics drawn from the pin plans (configuration defaults,
  the Pico firmware's table).
* :mod:`firmware.remote`: two boards far apart playing one game through an MQTT broker
  (the link on a transport of the game's topics, over the hall's broker URL and ACL).
* :mod:`firmware.cli`: the ``crownhead`` command, the only package that imports them all.

``docs/architecture.md`` draws the picture and says where a new feature plugs in.
"""

#: The layers, lowest first: a package (or base module) may import those in earlier tiers
#: and its own modules, never a later tier nor another package of its own tier
#: (``tests/test_architecture.py`` checks every import).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("files", "redact"),
    ("events", "config", "gameclock"),
    ("storage", "sheets", "diagram"),
    ("egdb", "pages"),
    ("tracking", "coach"),
    ("referee",),
    ("app",),
    ("link",),
    ("simulator", "sound", "voice"),
    ("web", "hall", "display", "mcu"),
    ("remote",),
    ("diagnostics", "wiring"),
    ("cli",),
)
