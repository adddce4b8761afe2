"""The link of a game far apart: what two people in two homes agree on besides the moves.

:class:`RemoteLink` is the board's :class:`~firmware.link.host.Link` (it follows the
other board's moves, takebacks and results as over a cable) with three things a game
between homes needs, each a line kind of its own added to the link's (old boards ignore
them):

* **Draw offers.** An offer made here (either draw button) crosses as its ``draw-offer``
  line; the other board puts it to its people as if the side far away had pressed its
  own draw button there, once its board has reached the move the offer was made at. The
  other side's draw button then agrees (the ``game-over`` line carries the result back);
  its next move declines, as on one board.
* **Takeback requests.** In a game far apart the takeback button asks the other side
  (a ``takeback-request`` line, said on both boards); the other side's takeback button
  agrees (its board takes the move back, and the board that asked follows), its next
  move refuses. A takeback is never made on one board alone.
* **Each side's own word.** A resignation or a flag of this board's side is this
  board's to say: the other board's word for it is refused (said once), and the far
  side's own buttons (its draw, its resign) do nothing here. One exception, agreed in
  the invitation (``away``: ``run``): a board away past its grace period may lose on
  time on the other board, whose word for it is then taken.
* **The clock, fair across latency.** Each move line of this board's side carries the
  mover's time left after the move (``left``, ms) and the time the move took (``used``),
  both as this board's clock measured them; the other board's clock takes both as the
  record of that move once its people have made it there (``BoardClock.tell``). So each
  side's time is kept by its own board (the time a move spends crossing, and the time
  the people far away take to make it on their board, count for nobody), and both
  boards show and save the same times: the clock, and each move's time left and time
  used in the game's record (its PDN's ``[%clk]`` and ``[%emt]``). A side's flag falls on its own board only (the other board lets that
  side's time run out on its clock without ending the game, and hears the result).
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from firmware.events import DrawOffer, Event, MoveMade, NewGame, Notice, TakenBack
from firmware.link.host import Link
from firmware.link.peer import GameId
from firmware.link.policy import LinkPolicy
from firmware.link.protocol import encode_message
from firmware.link.settings import LinkConfig
from firmware.link.transport import Transport
from rules import BLACK, WHITE, Color, Position

__all__ = ["OFFER_KINDS", "FarPolicy", "RemoteLink"]

#: The line kinds a game far apart adds to the link's (see the module).
OFFER_KINDS = frozenset({"draw-offer", "takeback-request"})
#: The largest time a move line may carry: a day, ten times over.
_MAX_MS = 10 * 86_400_000


def _colour(side: str) -> Color:
    return BLACK if side == "black" else WHITE


class FarPolicy(LinkPolicy):
    """How a game far apart sends the board's events (see the module): the other side's
    own draw offer, put to the people here, is not sent back; a move of this board's side
    carries its time."""

    def __init__(self) -> None:
        self.link: RemoteLink | None = None

    def send_event(self, transport: Transport, event: Event, line: bytes) -> None:
        link = self.link
        if link is None or not isinstance(event, DrawOffer | MoveMade):
            transport.send(line)
        elif isinstance(event, DrawOffer) and event.side == link.far:
            return  # the other side's own offer: it came from there
        elif isinstance(event, MoveMade) and event.side == link.plays and (times := link.times()):
            transport.send(encode_message({**event.to_json(), **times}))
        else:
            transport.send(line)


class RemoteLink(Link):
    """A :class:`~firmware.link.host.Link` with the offers, requests and times of a game
    far apart (see the module). ``settings.plays`` must name this board's side."""

    def __init__(self, transport: Transport, settings: LinkConfig = LinkConfig()) -> None:
        policy = FarPolicy()
        super().__init__(transport, settings, policy)
        policy.link = self
        # The other side's draw offer (the ply it was made at) not yet put to the people here.
        self._peer_offer: int | None = None
        # The takeback this board asked for (the ply of the last move then), while it stands.
        self._asked: int | None = None
        # The takeback the other side asked for (the ply), while it stands.
        self._asked_here: int | None = None
        #: What the clock does while a board is away (the invitation's ``away``): with
        #: ``run`` the other board may call this side's flag while this one is away, and
        #: its word for it is taken.
        self.away_clock = "stop"
        #: This board calls the far side's flag too: its board is away past the grace
        #: period, the clock running (set by :class:`~firmware.remote.board.Absence`).
        self.calls_far_flag = False

    @property
    def _far(self) -> str:
        return "white" if self.plays == "black" else "black"

    def attach(self, app: Any) -> None:
        super().attach(app)
        if self.linked:
            app.press_listeners.append(self._press)

    def begin_agreed(self, code: str, start: Position) -> None:
        """The game the two boards agreed (game ``code``, from ``start``) is the first each
        begins: both name it alike, so neither takes the other's for a newer game to join
        (which would set up again a board whose people moved already)."""
        tag = hashlib.sha256(code.encode()).hexdigest()[:6]
        self._following = (GameId(1, tag), start.fen())

    def detach(self) -> None:
        """The board stops playing far apart: the link lets the application go (its
        source, sink and press listener do nothing from now on), the far side's moves are
        made at the board again and its flag falls here, and the line to the broker closes."""
        app = self.app
        if app is None:
            return
        keeper = getattr(app, "board_clock", None)
        if keeper is not None:
            keeper.called_elsewhere = frozenset()
        if self.remote is not None:
            app.release(self.remote)
        self.app = None
        # What the other board has not acknowledged yet goes (for a few seconds) in a
        # thread of its own: the board's main loop never waits for the broker.
        threading.Thread(target=self.close, name="crownhead-far-leave", daemon=True).start()

    # -- sending ------------------------------------------------------------------------

    @property
    def far(self) -> str:
        """The other board's side."""
        return self._far

    def times(self) -> dict[str, int]:
        """The mover's time left after the move just made here and what the move took."""
        assert self.app is not None
        keeper = getattr(self.app, "board_clock", None)
        if keeper is None:
            return {}
        left = keeper.clock.saved()[0][_colour(self.plays)]
        return {"left": left, "used": keeper.clock.last_used} if 0 <= left <= _MAX_MS else {}

    # -- the app's hooks ----------------------------------------------------------------

    def poll(self, now: int) -> list[Event]:
        keeper = getattr(self.app, "board_clock", None)
        if keeper is not None and self.linked:
            # The far side's flag is its own board's to call (it keeps that side's time),
            # unless that board is away past its grace with the clock running.
            keeper.called_elsewhere = frozenset() if self.calls_far_flag else frozenset({_colour(self._far)})
        events = super().poll(now)
        return events + self._put_offer(now)

    def sink(self, event: Event) -> None:
        if self.app is not None and self.linked:
            if isinstance(event, MoveMade):
                self._moved(event)
            elif isinstance(event, TakenBack):
                # Taken back on both boards (agreed): the other board's moves from there on
                # are no longer to be shown here, until it makes them again.
                for ply in [p for p in self._peer_moves if p >= event.ply]:
                    del self._peer_moves[ply]
                self._peer_ply = min(self._peer_ply, event.ply - 1)
            elif isinstance(event, NewGame):
                self._peer_offer = self._asked = self._asked_here = None
        super().sink(event)

    def _moved(self, event: MoveMade) -> None:
        if self._asked is not None and event.side == self._far:
            self._events.append(Notice(event.t, f"{self._far.title()} played on: the takeback was refused"))
        self._asked = self._asked_here = None

    def _press(self, press: Any) -> bool | None:
        """The takeback button asks the other side, or agrees to what it asked; the far
        side's own buttons (its draw, its resign) are at its board, not here."""
        if self.app is None:
            return None
        if press.name in (f"{self._far}_draw", f"{self._far}_resign"):
            self._events.append(
                Notice(press.t_ms, f"{self._far.title()} plays at the board far away: its buttons are there")
            )
            return False
        if press.name != "takeback":
            return None
        app = self.app
        game = app.game
        if app.resuming or app.setting_up is not None or not game.moves:
            return None
        if game.is_over and (game.declared is None or game.declared.reason != "resign"):
            return None
        if self._asked_here == game.ply:
            self._asked_here = None
            return None  # agreed: the tracker takes the move back, and the other board follows
        if game.is_over:
            return None  # a resignation taken back, as on one board
        self._asked = game.ply
        move = game.moves[-1].pdn(full=True)
        self._send({"t": press.t_ms, "event": "takeback-request", "ply": game.ply, "side": self.plays})
        self._events.append(
            Notice(press.t_ms, f"asked {self._far.title()} to take back {move}: waiting for the answer")
        )
        return False

    # -- the other board's lines ----------------------------------------------------------

    def _peer(self, data: dict[str, Any], now: int) -> None:
        kind = data.get("event")
        if kind in OFFER_KINDS:
            if self.linked and self._peer_game == self.game_id and data.get("side") == self._far:
                self._offered(kind, data.get("ply"), now)
            return
        if kind == "move" and self.linked and data.get("side") == self._far:
            self._heard_times(data)
        elif kind in ("hello", "state") and self.linked:
            self._heard_state_times(data)
        super()._peer(data, now)
        self._own_result_only(now)
        if kind == "takeback" and self._asked is not None and self.app is not None:
            ply, game = data.get("ply"), self._game()
            if ply == self._asked == game.ply and not self.app.resuming and self._setting_up() is None:
                # What this board asked for: the other board took the move back; so does this one.
                self._asked = None
                self._events += self.app.take_back(now)

    def _heard_times(self, data: dict[str, Any]) -> None:
        """The clock of the other side's move as its own board measured it: the board
        clock here takes it when its people make the move (``BoardClock.tell``)."""
        keeper = getattr(self.app, "board_clock", None)
        ply, left, used = data.get("ply"), data.get("left"), data.get("used")
        if keeper is None or type(ply) is not int or type(left) is not int or not 0 <= left <= _MAX_MS:
            return
        if type(used) is not int or not 0 <= used <= _MAX_MS:
            used = 0  # a board of an older version sends its time left only
        keeper.tell(_colour(self._far), ply, left, used)

    def _heard_state_times(self, data: dict[str, Any]) -> None:
        """The clock of the other side's last move in the other board's greeting or state
        (a board back from a power cut may have taken the move's line, never its time)."""
        state = data.get("state") if data.get("event") == "hello" else data
        last = state.get("last") if isinstance(state, dict) else None
        if isinstance(last, dict) and last.get("side") == self._far:
            self._heard_times(last)

    def _state(self) -> dict[str, Any]:
        """The link's state, its last move with its clock when it is this board's side's
        (what the move's line carried: see :meth:`times`)."""
        state = super()._state()
        last = state.get("last")
        keeper = getattr(self.app, "board_clock", None)
        if keeper is None or not isinstance(last, dict) or last.get("side") != self.plays:
            return state
        record = getattr(self.app, "record", None)
        kept = {ply: (left, used) for ply, left, used in getattr(record, "times", ())}
        times = keeper.times.get(last["ply"]) or kept.get(last["ply"])
        if times is not None and 0 <= times[0] <= _MAX_MS:
            state["last"] = {**last, "left": times[0], "used": times[1]}
        return state

    def _own_result_only(self, now: int) -> None:
        """A resignation or a flag of this board's side is this board's to say: the other
        board's word for it (a person there pressing this side's resign, a flag its clock
        called) is refused, said once, and play goes on."""
        result = self._peer_result
        lost = "0-1" if self.plays == "black" else "1-0"
        if result is None or result[0] != lost or result[1] not in ("resign", "time"):
            return
        if result[1] == "time" and self.away_clock == "run":
            self._notice(
                now,
                f"away-flag-{self.game_id}",
                f"the other board says {self.plays.title()} lost on time while this board was out of reach "
                "(the invitation lets the clock run)",
            )
            return
        self._peer_result = None
        what = "resigned" if result[1] == "resign" else "lost on time"
        self._notice(
            now,
            f"own-result-{self.game_id}-{result[1]}",
            f"the other board says {self.plays.title()} {what}: only this board says that, the game goes on here",
        )

    def _offered(self, kind: object, ply: object, now: int) -> None:
        if type(ply) is not int or not 0 <= ply <= 100_000:
            return
        if kind == "draw-offer":
            self._peer_offer = ply
            return
        game = self._game()
        if ply != game.ply or game.is_over:
            return
        self._asked_here = ply
        move = game.moves[-1].pdn(full=True) if game.moves else ""
        self._notice(
            now,
            f"takeback-{self.game_id}-{ply}-{now}",
            f"{self._far.title()} asks to take back {move}: press takeback to agree, or play on to refuse",
        )

    def _put_offer(self, now: int) -> list[Event]:
        """The other side's draw offer, put to the people here once this board has reached
        the move it was made at (an offer made before a move shown here waits for it)."""
        ply = self._peer_offer
        if ply is None or self.app is None:
            return []
        app = self.app
        game = app.game
        if app.resuming or app.setting_up is not None or game.ply < ply:
            return []
        self._peer_offer = None
        if game.ply > ply or game.is_over:
            return []  # declined meanwhile: a move was made after it
        return list(app.offer_draw(_colour(self._far), now))
