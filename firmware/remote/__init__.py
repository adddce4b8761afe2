"""Two boards, two homes: one game between boards far apart, through an MQTT broker.

:mod:`crownhead.firmware.remote.wire` names the game's topics and its short code;
:mod:`crownhead.firmware.remote.journal` keeps each board's stream of lines on disk until the other
has it; :mod:`crownhead.firmware.remote.transport` carries the link's lines over the broker, so the
board's :class:`~crownhead.firmware.link.host.Link` follows the other board as over a cable;
:mod:`crownhead.firmware.remote.invite` is what the two boards agree before the game. See
``docs/remote.md``.
"""
