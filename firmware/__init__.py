"""The controller and everything on top of it, one subpackage per job.

Layers, lowest first; a package may import the ones before it, never one after it:

* :mod:`crownhead.firmware.files` (the one bounded reader of every file the board is given, and its
  one atomic writer) and
  :mod:`crownhead.firmware.redact` (the secrets no answer, page or log line shows), then
  :mod:`crownhead.firmware.events`, :mod:`crownhead.firmware.config` and :mod:`crownhead.firmware.gameclock`: the
  events every part speaks, the config-file loader and the game clock (base modules,
  importable by all).
* :mod:`crownhead.firmware.storage`: saved games and finished records; :mod:`crownhead.firmware.sheets`
  (printed score sheets) and :mod:`crownhead.firmware.diagram` (the board as SVG): pure libraries
  over :mod:`crownhead.rules`.
* :mod:`crownhead.firmware.egdb`: the engine's endgame databases as files (shipped, or built by
  ``crownhead egdb build`` into the state directory) and the probe loaded from them;
  :mod:`crownhead.firmware.pages`: what the board's page and the hall's page share (the page
  shell and the security headers of every answer).
* :mod:`crownhead.firmware.tracking`: the game session, the tracker, its turn table, huffing, the controller;
  :mod:`crownhead.firmware.coach`: a finished game reviewed move by move (``crownhead review``).
* :mod:`crownhead.firmware.referee`: tournament refereeing on top of the tracker.
* :mod:`crownhead.firmware.app`: the main loop, modes, LED policy, players, opening the hardware.
* :mod:`crownhead.firmware.link`: the serial host link (an event sink and a command source).
* :mod:`crownhead.firmware.simulator`: scripted hands, replay scripts, the terminal simulator.
* :mod:`crownhead.firmware.web`: the board's web page (an event sink and a command source: the
  host link spoken over WebSockets by a server in its own thread);
  :mod:`crownhead.firmware.hall`: the tournament hall over MQTT (boards publish, the hall shows);
  :mod:`crownhead.firmware.sound` (the buzzer), :mod:`crownhead.firmware.voice` (the board speaks) and
  :mod:`crownhead.firmware.display` (a small screen): event sinks beside the LEDs;
  :mod:`crownhead.firmware.diagnostics`: sensor view and self-test for people wiring a board.
* :mod:`crownhead.firmware.mcu`: the MicroPython firmware for a board with its own Raspberry Pi
  Pico (``mcu/pico/``, not imported by the rest), its CPython stand-ins, the protocol
  conformance check and the installer (over :mod:`crownhead.hal` and :mod:`crownhead.sim`); then
  :mod:`crownhead.firmware.wiring`: schematics drawn from the pin plans (configuration defaults,
  the Pico firmware's table).
* :mod:`crownhead.firmware.remote`: two boards far apart playing one game through an MQTT broker
  (the link on a transport of the game's topics, over the hall's broker URL and ACL);
  :mod:`crownhead.firmware.online`: games against people on a server (PlayStrategy's Board API).
* :mod:`crownhead.firmware.cli`: the ``crownhead`` command, the only package that imports them all.

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
    ("remote", "online"),
    ("diagnostics", "wiring"),
    ("cli",),
)
