"""The board's web page: a live board, controls, the simulator, the games and the status.

:mod:`~crownhead.firmware.web.settings` is the ``[web]`` section; :mod:`~crownhead.firmware.web.bridge` is
the main loop's side (:class:`~crownhead.firmware.web.bridge.WebLink`, the host link spoken by
every page, over a :class:`~crownhead.firmware.web.bridge.PageHub` of bounded queues);
:mod:`~crownhead.firmware.web.server` is the Starlette/uvicorn server in its own thread;
:mod:`~crownhead.firmware.web.auth` the PIN, sessions and rate limit; ``static/`` the page's
HTML, script and style (no build step, no CDN). The board is drawn by
:mod:`crownhead.firmware.diagram`. An event sink and a command source above :mod:`crownhead.firmware.app`,
like the serial link; ``docs/web.md`` describes the page and its testable contract.
"""
