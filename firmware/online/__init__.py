"""Games against people online, played from the board: PlayStrategy's Board API (the
lichess-style HTTP API of playstrategy.org), as chess e-boards play on lichess.

* :mod:`~crownhead.firmware.online.notation`: the board's PDN squares and the server's
  square numbers, a move as the server writes it (a multi-jump one jump at a time);
* :mod:`~crownhead.firmware.online.client`: the HTTP client (standard library only):
  the Board API's paths, newline-delimited JSON streams, refusals and 429s, TLS;
* :mod:`~crownhead.firmware.online.token`: the personal API token, kept 0600;
* :mod:`~crownhead.firmware.online.game`: a game on the server played on the board: a
  source and a sink of the application, as the computer and the board far apart are.

docs/online.md says what was checked against the server's public source only.
"""
