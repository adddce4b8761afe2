"""Two boards, two homes: one game between boards far apart, through an MQTT broker.

:mod:`firmware.remote.wire` names the game's topics and its short code;
:mod:`firmware.remote.journal` keeps each board's stream of lines on disk until the other
has it; :mod:`firmware.remote.transport` carries the link's lines over the broker, so the
board's :class:`~firmware.link.host.Link` follows the other board as over a cable;
:mod:`firmware.remote.invite` is what the two boards agree before the game. See
``docs/remote.md``.
"""
