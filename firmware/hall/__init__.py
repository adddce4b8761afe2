"""A tournament hall: boards report to an MQTT broker, a hall page follows them all.

:mod:`~crownhead.firmware.hall.topics` holds the topic names and the broker URL;
:mod:`~crownhead.firmware.hall.board` is the board's side, an output that publishes every event
and the board's retained state (drawn from each step's snapshot) through a background client (a slow or absent broker never
stalls the main loop); :mod:`~crownhead.firmware.hall.hall` is the hall's side, which subscribes to
every board of a hall and serves the live hall page, ``/api/boards`` and the downloads;
:mod:`~crownhead.firmware.hall.standings` keeps every finished game the hall has seen, across
rounds, in the hall's state directory, and makes the standings and the crosstable;
:mod:`~crownhead.firmware.hall.broker` runs an embedded broker when the hall has none, as closed as
the shipped Mosquitto configuration: :mod:`~crownhead.firmware.hall.accounts` (made at the hall's
first start) say who may connect, :mod:`~crownhead.firmware.hall.acl` (the shipped ACL file, read
by both brokers) what each may do. The page's
full view of a board is the board page's own component (``web/static/board.js``, served
as a file) over :mod:`crownhead.firmware.diagram`'s drawing.
"""
