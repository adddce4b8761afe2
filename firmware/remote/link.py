"""The link of a game far apart: what two people in two homes agree on besides the moves.

:class:`RemoteLink` is the board's :class:`~firmware.link.host.Link` (it follows the
other board's moves, takebacks and results as over a cable) with the link's policy for
a game between homes, :class:`FarPolicy`, which adds what such a game needs through the
hooks the link declares (:class:`~firmware.link.policy.LinkPolicy`), each a line kind of
its own added to the link's (old boards ignore them):

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
  side's own buttons (its draw, its resign) do nothing here.
* **The clock, fair across latency.** Each move line of this board's side carries the
  mover's time left after the move (``left``, ms) and the time the move took (``used``),
  both as this board's clock measured them; the other board takes ``left`` as the record
  of that side's time once its people have made the move there. So each side's time is
  kept by its own board (the time a move spends crossing, and the time the people far
  away take to make it on their board, count for nobody), and both boards show and save
  the same times. A side's flag falls on its own board only (the other board lets that
  side's time run out on its clock without ending the game, and hears the result).
"""

from __future__ import annotations

from typing import Any

from firmware.events import DrawOffer, Event, MoveMade, NewGame, Notice, TakenBack
from firmware.link.board import LinkedBoard
from firmware.link.host import Link
from firmware.link.parts import LinkSide
from firmware.link.policy import LinkPolicy
from firmware.link.protocol import encode_event
from firmware.link.settings import LinkConfig
from firmware.link.transport import Transport
from hal.buttons import ButtonEvent
from rules import BLACK, WHITE, Color

__all__ = ["OFFER_KINDS", "FarPolicy", "RemoteLink"]

#: The line kinds a game far apart adds to the link's (see the module).
OFFER_KINDS = frozenset({"draw-offer", "takeback-request"})
#: The largest time a move line may carry: a day, ten times over.
_MAX_MS = 10 * 86_400_000
#: Reported times kept for moves not yet made here (a board far behind keeps only these).
_KEEP_TIMES = 8


def _colour(side: str) -> Color:
    return BLACK if side == "black" else WHITE


class FarPolicy(LinkPolicy):
    """What a game far apart adds to its link (see the module): the offers and takeback
    requests across, each side's own word on its result, and the times of the moves.
    The link's ``plays`` names this board's side."""

    def __init__(self) -> None:
        self._link: LinkSide | None = None
        # The other side's draw offer (the ply it was made at) not yet put to the people here.
        self._peer_offer: int | None = None
        # The takeback this board asked for (the ply of the last move then), while it stands.
        self._asked: int | None = None
        # The takeback the other side asked for (the ply), while it stands.
        self._asked_here: int | None = None
        # The other side's time left after its move, by ply, as its board measured it.
        self._peer_left: dict[int, int] = {}

    @property
    def link(self) -> LinkSide:
        assert self._link is not None, "a FarPolicy is given to a link first"
        return self._link

    @property
    def far(self) -> str:
        """The other board's side."""
        return "white" if self.link.plays == "black" else "black"

    def _keeper(self) -> Any:
        """The board clock (None without one): it keeps this side's time, and takes the
        far side's as that side's board measured it."""
        return getattr(self.link.app, "board_clock", None)

    def times(self) -> dict[str, int]:
        """The mover's time left after the move just made here and what the move took."""
        keeper = self._keeper()
        if keeper is None:
            return {}
        left = keeper.clock.saved()[0][_colour(self.link.plays)]
        return {"left": left, "used": keeper.clock.last_used} if 0 <= left <= _MAX_MS else {}

    # -- the link's hooks -----------------------------------------------------------------

    def join(self, link: LinkSide) -> None:
        self._link = link

    def attached(self, board: LinkedBoard) -> None:
        if self.link.linked:
            board.press_listeners.append(self._press)

    def polling(self, now: int) -> None:
        keeper = self._keeper()
        if keeper is not None and self.link.linked:
            # The far side's flag is its own board's to call (it keeps that side's time).
            keeper.called_elsewhere = frozenset({_colour(self.far)})

    def polled(self, now: int) -> list[Event]:
        return self._put_offer(now)

    def heard(self, event: Event) -> None:
        link = self.link
        if link.app is None or not link.linked:
            return
        if isinstance(event, MoveMade):
            self._moved(event)
        elif isinstance(event, TakenBack):
            # Taken back on both boards (agreed): the other board's moves from there on
            # are no longer to be shown here, until it makes them again.
            link.peer.forget_from(event.ply)
        elif isinstance(event, NewGame):
            self._peer_offer = self._asked = self._asked_here = None
            self._peer_left.clear()

    def send_event(self, transport: Transport, event: Event, line: bytes) -> None:
        """The other side's own draw offer, put to the people here, is not sent back; a
        move of this board's side carries its time."""
        if isinstance(event, DrawOffer) and event.side == self.far:
            return  # the other side's own offer: it came from there
        if isinstance(event, MoveMade) and event.side == self.link.plays and (times := self.times()):
            line = encode_event(event, after=times)
        transport.send(line)

    def peer_line(self, data: dict[str, Any], now: int) -> bool:
        link = self.link
        kind = data.get("event")
        if kind in OFFER_KINDS:
            if link.linked and link.peer.same_game and data.get("side") == self.far:
                self._offered(kind, data.get("ply"), now)
            return True
        if kind == "move" and link.linked and data.get("side") == self.far:
            ply, left = data.get("ply"), data.get("left")
            if type(ply) is int and type(left) is int and 0 <= left <= _MAX_MS:
                self._peer_left[ply] = left
                for old in sorted(self._peer_left)[:-_KEEP_TIMES]:
                    del self._peer_left[old]
        return False

    def peer_followed(self, data: dict[str, Any], now: int) -> None:
        app = self.link.app
        if data.get("event") == "takeback" and self._asked is not None and app is not None:
            ply, game = data.get("ply"), app.game
            if ply == self._asked == game.ply and not app.resuming and app.setting_up is None:
                # What this board asked for: the other board took the move back; so does this one.
                self._asked = None
                self.link.emit(app.take_back(now))

    def accepts_result(self, score: str, reason: str, now: int) -> bool:
        """A resignation or a flag of this board's side is this board's to say: the other
        board's word for it (a person there pressing this side's resign, a flag its clock
        called) is refused, said once, and play goes on."""
        plays = self.link.plays
        lost = "0-1" if plays == "black" else "1-0"
        if score != lost or reason not in ("resign", "time"):
            return True
        what = "resigned" if reason == "resign" else "lost on time"
        self.link.notice(
            now,
            f"own-result-{self.link.game_id}-{reason}",
            f"the other board says {plays.title()} {what}: only this board says that, the game goes on here",
        )
        return False

    # -- what the hooks do ----------------------------------------------------------------

    def _moved(self, event: MoveMade) -> None:
        link = self.link
        far = self.far
        if self._asked is not None and event.side == far:
            link.emit([Notice(event.t, f"{far.title()} played on: the takeback was refused")])
        self._asked = self._asked_here = None
        if event.side != far:
            return
        left = self._peer_left.pop(event.ply, None)
        keeper = self._keeper()
        if left is None or keeper is None:
            return
        try:
            link.emit(keeper.agree(_colour(far), left, event.t))
        except ValueError:
            pass  # its clock runs again here already (a takeback in the same step): this board's time stands

    def _press(self, press: ButtonEvent) -> bool | None:
        """The takeback button asks the other side, or agrees to what it asked; the far
        side's own buttons (its draw, its resign) are at its board, not here."""
        link = self.link
        app = link.app
        if app is None:
            return None
        far = self.far
        if press.name in (f"{far}_draw", f"{far}_resign"):
            link.emit([Notice(press.t_ms, f"{far.title()} plays at the board far away: its buttons are there")])
            return False
        if press.name != "takeback":
            return None
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
        link.send({"t": press.t_ms, "event": "takeback-request", "ply": game.ply, "side": link.plays})
        link.emit([Notice(press.t_ms, f"asked {far.title()} to take back {move}: waiting for the answer")])
        return False

    def _offered(self, kind: object, ply: object, now: int) -> None:
        if type(ply) is not int or not 0 <= ply <= 100_000:
            return
        if kind == "draw-offer":
            self._peer_offer = ply
            return
        link = self.link
        assert link.app is not None
        game = link.app.game
        if ply != game.ply or game.is_over:
            return
        self._asked_here = ply
        move = game.moves[-1].pdn(full=True) if game.moves else ""
        link.notice(
            now,
            f"takeback-{link.game_id}-{ply}-{now}",
            f"{self.far.title()} asks to take back {move}: press takeback to agree, or play on to refuse",
        )

    def _put_offer(self, now: int) -> list[Event]:
        """The other side's draw offer, put to the people here once this board has reached
        the move it was made at (an offer made before a move shown here waits for it)."""
        ply = self._peer_offer
        app = self.link.app
        if ply is None or app is None:
            return []
        game = app.game
        if app.resuming or app.setting_up is not None or game.ply < ply:
            return []
        self._peer_offer = None
        if game.ply > ply or game.is_over:
            return []  # declined meanwhile: a move was made after it
        return list(app.offer_draw(_colour(self.far), now))


class RemoteLink(Link):
    """A :class:`~firmware.link.host.Link` with the policy of a game far apart
    (:class:`FarPolicy`, see the module). ``settings.plays`` must name this board's side."""

    def __init__(self, transport: Transport, settings: LinkConfig = LinkConfig()) -> None:
        self.far_policy = FarPolicy()
        super().__init__(transport, settings, self.far_policy)

    def times(self) -> dict[str, int]:
        """The mover's time left after the move just made here and what the move took."""
        return self.far_policy.times()
