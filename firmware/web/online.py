"""Games against people on PlayStrategy from the board's page: seek a game, challenge a
friend by name, accept or decline a challenge received, and follow the game under way
(the players and ratings, the server's clocks, the chat, a line typed to it)
(docs/online.md).

The board's games on the server are another package's (:mod:`crownhead.firmware.online`, above
this one): the server knows them by the protocol :class:`OnlineRequests` (``crownhead run
--online`` hands it :class:`crownhead.firmware.online.desk.OnlineDesk`). A
:class:`~crownhead.firmware.web.far.FarFeed` with the event ``online`` tells every page when
their state changed; a page that may command the board then asks ``GET /api/online`` for
it and makes its requests with ``POST /api/online`` (``{"seek": {"clock": "10+5",
"rated": false}}``, ``{"cancel": true}``, ``{"challenge": {"user": "bob", "clock":
"15+10"}}``, ``{"accept": "ID"}``, ``{"decline": "ID"}``, ``{"chat": "text"}``,
``{"abort": true}``: before the game's second move). Every
word from the server (names, chat) goes into the page as text, never as markup.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Protocol

__all__ = ["ONLINE_REQUESTS", "OnlineRequests", "online_request_of"]

#: The requests a page may make, by the key its body names.
ONLINE_REQUESTS = ("seek", "cancel", "challenge", "accept", "decline", "chat", "abort")


class OnlineRequests(Protocol):
    """The board's games on PlayStrategy, as the page asks for them (see the module)."""

    @property
    def changes(self) -> int:
        """Counts the changes of :meth:`status`."""

    def status(self) -> dict[str, Any]:
        """What the page shows: ``state``, ``message``, ``challenges`` and ``game``
        (replaced whole: read from any thread)."""

    def ask(self, what: str, data: object = None) -> Future[dict[str, Any]] | None:
        """A page's request, answered by the main loop (None: too many waiting)."""


def online_request_of(data: object) -> tuple[str, object] | None:
    """The request a page's body makes (one of :data:`ONLINE_REQUESTS`) and its argument,
    or None.

    >>> online_request_of({"accept": "c0000001"}), online_request_of({"seek": {}, "chat": "x"})
    (('accept', 'c0000001'), None)
    """
    if not isinstance(data, dict) or len(data) != 1:
        return None
    ((what, value),) = data.items()
    return (what, value) if what in ONLINE_REQUESTS else None
