"""Games far apart on the board's page: invite another board, join its game, leave it
(docs/remote.md#from-the-boards-page).

The board's games far apart are another package's (:mod:`crownhead.firmware.remote`, above this
one): the server knows them by the protocol :class:`FarRequests` (``crownhead run`` hands it
:class:`crownhead.firmware.remote.page.FarDesk`). :class:`FarFeed` joins the main loop as
an output that polls (a :class:`~crownhead.firmware.app.outputs.Poller`) and tells every
page, with one ``far`` line, when their state changed; a page that may command the board
then asks ``GET /api/far`` for it (the invitation's code is for those with the PIN only,
so the line carries no more than the state), makes its requests with ``POST /api/far``
(``{"invite": {...}}``, ``{"look": "k7q-m2x"}`` for an invitation's terms,
``{"join": "k7q-m2x"}``, ``{"cancel": true}``, ``{"leave": true}``), and shows the
invitation's link as a QR code
(``GET /api/far/qr.svg``, drawn by :func:`qr_svg`).
"""

from __future__ import annotations

import io
import logging
from concurrent.futures import Future
from typing import Any, Protocol

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.events import Event
from crownhead.firmware.link.protocol import encode_message
from crownhead.firmware.web.bridge import PageHub
from crownhead.firmware.web.settings import host_name, is_loopback

__all__ = [
    "ANSWER_S",
    "FarFeed",
    "FarRequests",
    "MAX_BODY",
    "MAX_LINK",
    "REQUESTS",
    "as_reached",
    "qr_svg",
    "request_of",
]

log = logging.getLogger(__name__)

#: The longest link a QR code is drawn for (a board's address and a code are far shorter).
MAX_LINK = 300


class FarRequests(Protocol):
    """The board's games far apart, as the page asks for them (see the module)."""

    @property
    def changes(self) -> int:
        """Counts the changes of :meth:`status`."""

    def status(self) -> dict[str, Any]:
        """What the page shows: ``state``, ``message``, the invitation's ``code``,
        ``shown``, ``link`` and ``game`` (replaced whole: read from any thread)."""

    def ask(self, what: str, data: object = None) -> Future[dict[str, Any]] | None:
        """A page's request, answered by the main loop (None: too many waiting)."""


def qr_svg(text: str) -> bytes:
    """``text`` as a QR code, an SVG image (error correction M, a quiet zone of 4).

    >>> qr_svg("http://crownhead.local:8080/#join=k7q-m2x")[:5]
    b'<svg '
    """
    if not 0 < len(text) <= MAX_LINK:
        raise ValueError(f"a link of 1-{MAX_LINK} characters")
    import segno

    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(out, kind="svg", scale=6, border=4, xmldecl=False, svgns=True)
    return out.getvalue()


def as_reached(status: dict[str, Any], host: str, scheme: str = "http") -> dict[str, Any]:
    """``status`` as the page reached at ``host`` (its request's ``Host``, which the server
    checked) shows it: an invitation's link naming this machine only (the page served
    on 127.0.0.1, behind a proxy that other homes reach) names ``host`` instead, the
    address the page is served on to the people reading it; the link as it is
    otherwise.

    >>> status = {"link": "http://127.0.0.1:8080/#join=k7q-m2x", "link_note": "...", "shown": "k7q-m2x"}
    >>> as_reached(status, "board.example:8443", "https")["link"], as_reached(status, "board.example")["link_note"]
    ('https://board.example:8443/#join=k7q-m2x', None)
    >>> as_reached(status, "localhost:8080")["link"]          # a page on this machine: as it was
    'http://127.0.0.1:8080/#join=k7q-m2x'
    """
    link, shown, name = status.get("link"), status.get("shown"), host_name(host)
    if not isinstance(link, str) or not isinstance(shown, str) or name is None or is_loopback(name):
        return status
    linked = host_name(link.split("//", 1)[-1].split("/", 1)[0])
    if linked is None or not is_loopback(linked):
        return status
    return {**status, "link": f"{scheme}://{host}/#join={shown}", "link_note": None}


class FarFeed:
    """Tells the pages of ``hub`` when the board's games far apart (``games``) changed: a
    part of the main loop that polls (:meth:`attach`), woken by the games themselves.
    ``event`` names the line (``online``: the games on PlayStrategy,
    :mod:`crownhead.firmware.web.online`)."""

    def __init__(self, hub: PageHub, games: FarRequests, event: str = "far") -> None:
        self.hub = hub
        self.games = games
        self.event = event
        self._sent = -1

    def attach(self, app: Any) -> FarFeed:
        app.add_output(Poller(self.poll, wakes=True))
        return self

    def poll(self, now: int) -> list[Event]:
        changes = self.games.changes
        if changes == self._sent:
            return []
        self._sent = changes
        state = self.games.status().get("state")
        try:
            line = encode_message({"t": now, "event": self.event, "state": state})
        except ValueError:
            return []
        # To every page (never as a reply), leaving the game's answers the hub keeps.
        current, self.hub.current = self.hub.current, None
        try:
            self.hub.send(line, display_only=True)
        finally:
            self.hub.current = current
        return []


#: What a page's body may be at most (an invitation's settings are a few hundred bytes).
MAX_BODY = 4096
#: How long a page waits for the main loop's answer.
ANSWER_S = 5.0
#: The requests a page may make, by the key its body names.
REQUESTS = ("invite", "look", "join", "cancel", "leave")


def request_of(data: object) -> tuple[str, object] | None:
    """The request a page's body makes (one of :data:`REQUESTS`) and its argument, or None.

    >>> request_of({"join": "k7q-m2x"}), request_of({"leave": True}), request_of({"x": 1})
    (('join', 'k7q-m2x'), ('leave', True), None)
    """
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((what, value),) = data.items()
    return (what, value) if what in REQUESTS else None
