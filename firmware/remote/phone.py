"""A phone instead of a board: the other side of a game far apart played on a page.

A player without a board runs a board of no hardware (the simulated one) wherever it
suits: on the broker's machine, on the inviting board's computer, on a PC. To the board
far away it is a board like any other: its link, its journal and its account on the
broker, its lines numbered and acknowledged (:mod:`crownhead.firmware.remote.transport`), draw
offers, takebacks and the clock as between two boards. Its page (``/phone`` on its web
server, the PIN needed to play) is where the player sees the game and taps moves; the
moves offered are the rules' legal ones (the link's ``moves``), made by the simulated
hands (``hands``), so the board judges them as it judges any.

:class:`PhoneHands` is what the people at a real board would do with what the lights
ask: it makes the far board's moves on the simulated board as soon as they are lit, sets
up a new or resumed game, puts a piece back where the lights say, takes a captured piece
off. So the phone's player only ever plays the own side's moves.
"""

from __future__ import annotations

import logging
from typing import Any

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.events import Event
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.tracking.roles import Role
from crownhead.sim.board import SimError

__all__ = ["PhoneHands", "PHONE_PATH"]

log = logging.getLogger(__name__)

#: Where the web server serves the phone's page.
PHONE_PATH = "/phone"
#: The lights that ask the hands to do something (the far board's move is the expected one).
_ASKING = frozenset({Role.REMOVE, Role.MISSING, Role.EXTRA, Role.CROWN, Role.ERROR})


class PhoneHands:
    """An application source (:meth:`attach`): the simulated hands follow the lights.

    They act once for each new picture of what is asked, never again while it stands as
    it was (the hands' pieces are sensed, debounced, in the steps after): a request they
    cannot carry out is logged once, not tried at every step.
    """

    def __init__(self) -> None:
        self.app: Any = None
        self.hands: Hands | None = None
        self._done: tuple[Any, ...] | None = None
        #: How many times the hands followed the lights (for status and tests).
        self.follows = 0

    def attach(self, app: Any) -> PhoneHands:
        if app.sim is None:
            raise ValueError("a phone plays on the simulated board (--hal sim): there are no hands for real pieces")
        self.app = app
        self.hands = Hands(app)
        app.add_output(Poller(self.poll))
        return self

    def _asked(self) -> tuple[Any, ...] | None:
        """What the lights ask now (None: nothing), as a key that changes with it: read
        from the step's snapshot (the move shown, a set-up) and the roles lit."""
        snap = self.app.snapshot
        asking = sorted((s, str(r)) for s, r in snap.lit.items() if r in _ASKING)
        setting_up = snap.setup.position if snap.setup is not None and snap.setup.cause == "new-game" else None
        if snap.expected is None and not asking and not snap.resuming and setting_up is None:
            return None
        return (snap.moves, snap.expected, tuple(asking), snap.resuming, setting_up)

    def poll(self, now: int) -> list[Event]:
        asked = self._asked()
        if asked is None or asked == self._done:
            return []
        self._done = asked
        assert self.hands is not None
        try:
            self.hands.follow()
            self.follows += 1
        except (SimError, ValueError) as exc:
            log.warning("phone: the hands cannot do what the lights ask: %s", exc)
        return []
