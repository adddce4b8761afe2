"""A tournament hall: boards report to an MQTT broker, a hall page follows them all.

:mod:`~firmware.hall.topics` holds the topic names and the broker URL;
:mod:`~firmware.hall.board` is the board's side, an event sink that publishes every event
and the board's retained state through a background client (a slow or absent broker never
stalls the main loop); :mod:`~firmware.hall.hall` is the hall's side, which subscribes to
every board of a hall and serves the live hall page, ``/api/boards`` and the downloads;
:mod:`~firmware.hall.broker` runs an embedded broker when the hall has none.
"""
