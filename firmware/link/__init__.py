"""The host link: a line protocol over serial (or any byte stream) to a host or a peer board.

:mod:`~crownhead.firmware.link.protocol` parses and formats lines; :mod:`~crownhead.firmware.link.transport`
moves them through bounded queues in threads (any :class:`~crownhead.firmware.link.transport.Transport`
will do); :mod:`~crownhead.firmware.link.host` is the board's side (events out, commands in), a
session with a policy (:mod:`~crownhead.firmware.link.policy`) made of parts that know it by
:mod:`~crownhead.firmware.link.parts`: the command table (:mod:`~crownhead.firmware.link.commands`), the view
drawn from the snapshot (:mod:`~crownhead.firmware.link.view`), another board's game
(:mod:`~crownhead.firmware.link.peer`) and the moves asked of the board
(:mod:`~crownhead.firmware.link.requests`). It is typed against
:class:`~crownhead.firmware.link.board.LinkedBoard`, the part of the application it uses;
:mod:`~crownhead.firmware.link.relay` joins two boards' links. The link is an event sink and a
command source for the application, and imports none of it but the snapshot.
"""
