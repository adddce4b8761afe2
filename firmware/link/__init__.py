"""The host link: a line protocol over serial (or any byte stream) to a host or a peer board.

:mod:`~firmware.link.protocol` parses and formats lines; :mod:`~firmware.link.transport`
moves them through bounded queues in threads (any :class:`~firmware.link.transport.Transport`
will do); :mod:`~firmware.link.host` is the board's side (events out, commands in), typed
against :class:`~firmware.link.board.LinkedBoard`, the part of the application it uses;
:mod:`~firmware.link.peer` follows another board's game; :mod:`~firmware.link.relay` joins
two boards' links. The link is an event sink and a command source for the application,
and imports none of it.
"""
