"""A tournament hall: boards report to an MQTT broker, a hall page follows them all.

:mod:`~firmware.hall.topics` holds the topic names and the broker URL;
:mod:`~firmware.hall.board` is the board's side, an event sink that publishes every event
and the board's retained state through a background client (a slow or absent broker never
stalls the main loop); :mod:`~firmware.hall.hall` is the hall's side, which subscribes to
every board of a hall and serves the live hall page, ``/api/boards`` and the downloads;
:mod:`~firmware.hall.standings` keeps every finished game the hall has seen, across
rounds, in the hall's state directory, and makes the standings and the crosstable;
:mod:`~firmware.hall.broker` runs an embedded broker when the hall has none, as closed as
the shipped Mosquitto configuration: :mod:`~firmware.hall.accounts` (made at the hall's
first start) say who may connect, :mod:`~firmware.hall.acl` (the shipped ACL file, read
by both brokers) what each may do. The page's
full view of a board is the board page's own component (``web/static/board.js``, served
as a file) over :mod:`firmware.diagram`'s drawing.
"""
