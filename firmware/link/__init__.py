"""The host link: a line protocol over serial (or any byte stream) to a host or a peer board.

:mod:`~firmware.link.protocol` parses and formats lines; :mod:`~firmware.link.transport`
moves them through bounded queues in threads (any :class:`~firmware.link.transport.Transport`
will do); :mod:`~firmware.link.host` is the board's side (events out, commands in), a
session with a policy (:mod:`~firmware.link.policy`) made of parts that know it by
:mod:`~firmware.link.parts`: the command table (:mod:`~firmware.link.commands`), the view
drawn from the snapshot (:mod:`~firmware.link.view`), another board's game
(:mod:`~firmware.link.peer`) and the moves asked of the board
(:mod:`~firmware.link.requests`). It is typed against
:class:`~firmware.link.board.LinkedBoard`, the part of the application it uses;
:mod:`~firmware.link.relay` joins two boards' links. The link is an event sink and a
command source for the application, and imports none of it but the snapshot.
"""
