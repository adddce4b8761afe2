"""The link of a game far apart: what two people in two homes agree on besides the moves.

:class:`RemoteLink` is the board's :class:`~crownhead.firmware.link.host.Link` (it follows the
other board's moves, takebacks and results as over a cable) with the link's policy for
a game between homes, :class:`FarPolicy`, which adds what such a game needs through the
hooks the link declares (:class:`~crownhead.firmware.link.policy.LinkPolicy`), each a line kind of
its own added to the link's (old boards ignore them):

* **Draw offers.** An offer made here (either draw button) crosses as its ``draw-offer``
  line; the other board puts it to its people as if the side far away had pressed its
  own draw button there, once its board has reached the move the offer was made at. The
  other side's draw button then agrees (the ``game-over`` line carries the result back);
  its next move declines, as on one board.
* **Takeback requests.** In a game far apart the takeback button asks the other side
  (a ``takeback-request`` line, said on both boards); the other side's takeback button
  agrees (its board takes the move back, and the board that asked follows), its next
  move refuses. A takeback is never made on one board alone; so once the game is over
  (a resignation, a draw agreed or claimed, a flag, a win) its result is final: the
  takeback button says so on either board, where on one board it would reopen a
  resignation or take the last move back.
* **Each side's own word.** A resignation or a flag of this board's side is this
  board's to say: the other board's word for it is refused (said once), and the far
  side's own buttons (its draw, its resign) do nothing here. One exception, agreed in
  the invitation (``away``: ``run``): a board away past its grace period may lose on
  time on the other board, whose word for it is then taken.
* **The clock, fair across latency.** Each move line of this board's side carries the
  mover's time left after the move (``left``, ms) and the time the move took (``used``),
  both as this board's clock measured them, and so does the link's state (a greeting's
  last move); the other board's clock (its session's: ``GameTimer.tell``) takes both as
  the record of that move once its people have made it there. So each side's time is
  kept by its own board (the time a move spends crossing, and the time the people far
  away take to make it on their board, count for nobody), and both boards show and save
  the same times: the clock, and each move's time left and time used in the game's
  record (its PDN's ``[%clk]`` and ``[%emt]``). A side's flag falls on its own board only
  (the other board lets that side's time run out on its clock without ending the game,
  and hears the result). Each board's ``game-over`` line carries its side's time left as
  its clock stopped at the end, which the other board takes once its own clock stopped
  (a line's crossing later): both end with the same clocks.
* **Takeback requests heard** are the ``takeback-asked`` event too, which the voice says.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.events import (
    DrawOffer,
    Event,
    GameOver,
    MoveMade,
    NewGame,
    Notice,
    Side,
    TakebackAsked,
    TakenBack,
)
from crownhead.firmware.link.board import LinkedBoard
from crownhead.firmware.link.host import Link
from crownhead.firmware.link.parts import GameId, LinkSide
from crownhead.firmware.link.policy import LinkPolicy
from crownhead.firmware.link.protocol import encode_event
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.transport import Transport
from crownhead.firmware.remote.invite import AWAY_CLOCKS
from crownhead.firmware.remote.parts import far_board
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.hal.buttons import ButtonEvent
from crownhead.rules import BLACK, WHITE, Color, Game, Position

__all__ = ["OFFER_KINDS", "FarPolicy", "RemoteLink"]

#: The line kinds a game far apart adds to the link's (see the module).
OFFER_KINDS = frozenset({"draw-offer", "takeback-request"})
#: The largest time a move line may carry: a day, ten times over.
_MAX_MS = 10 * 86_400_000


def _colour(side: str) -> Color:
    return BLACK if side == "black" else WHITE


class FarPolicy(LinkPolicy):
    """What a game far apart adds to its link (see the module): the offers and takeback
    requests across, each side's own word on its result, and the times of the moves.
    The link's ``plays`` names this board's side; ``away`` is what the clock does while
    a board is away, as the invitation said (``stop``, or ``run``: the other board may
    then call this side's flag, and its word for it is taken)."""

    def __init__(self, away: str = "stop") -> None:
        self._link: LinkSide | None = None
        #: How it hears the board's presses first (an output), while linked.
        self._joined: Poller | None = None
        self._away_clock = "stop"
        self.away_clock = away
        self._calls_far_flag = False
        # The other side's draw offer (the ply it was made at) not yet put to the people here.
        self._peer_offer: int | None = None
        # The takeback this board asked for (the ply of the last move then), while it stands.
        self._asked: int | None = None
        # The other board's takeback of this side's last move (the ply), agreed there, not
        # yet made here (this board was setting its pieces up when it came).
        self._agreed: int | None = None
        # The other side's move (its ply and path) this board took back on its request,
        # until the other board says it took it back too: a greeting of the other board
        # from before then (it was switched off and on meanwhile) still has it, and must
        # not show it again here.
        self._undone: tuple[int, list[int]] | None = None
        # The takeback the other side asked for (the ply), while it stands.
        self._asked_here: int | None = None
        # The other side's takeback request (the ply) not yet put to the people here: it
        # may come before they have made, as the lights ask, the move it is about.
        self._peer_request: int | None = None
        # Each side's time left at the end of the game as its own board's clock stopped it
        # (the other side's: its game-over line; this side's: nothing, as the other board
        # called its flag), until this board's clock has stopped too.
        self._final: dict[Color, int] = {}

    @property
    def away_clock(self) -> str:
        """What the clock does while a board is away, as the invitation said."""
        return self._away_clock

    @away_clock.setter
    def away_clock(self, away: str) -> None:
        if away not in AWAY_CLOCKS:
            raise ValueError(f"away: the clock stops or runs ({' or '.join(AWAY_CLOCKS)}), not {away!r}")
        self._away_clock = away

    @property
    def calls_far_flag(self) -> bool:
        """This board calls the far side's flag too: its board is away past the grace
        period, the clock running (set by :class:`~crownhead.firmware.remote.board.Absence`)."""
        return self._calls_far_flag

    @calls_far_flag.setter
    def calls_far_flag(self, value: bool) -> None:
        self._calls_far_flag = value
        if self._link is not None:
            self._guard_flags()  # at once: the step's next deadline is the far side's flag

    @property
    def link(self) -> LinkSide:
        assert self._link is not None, "a FarPolicy is given to a link first"
        return self._link

    @property
    def far(self) -> str:
        """The other board's side."""
        return "white" if self.link.plays == "black" else "black"

    def _keeper(self) -> GameTimer | None:
        """The game's clock (the session's: ``app.board_clock``; None without one): it
        keeps this side's time, and takes the far side's as that side's board measured it."""
        app = self.link.app
        return far_board(app).board_clock if app is not None else None

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
            self._joined = board.add_output(Poller(on_press=self._press))

    def detached(self, board: LinkedBoard) -> None:
        if self._joined is not None:
            board.remove_output(self._joined)
            self._joined = None
        keeper = far_board(board).board_clock
        if keeper is not None:
            keeper.called_elsewhere = frozenset()  # the far side's flag falls here again

    def polling(self, now: int) -> None:
        self._guard_flags()

    def _guard_flags(self) -> None:
        keeper = self._keeper()
        if keeper is not None and self.link.linked:
            # The far side's flag is its own board's to call (it keeps that side's time),
            # unless that board is away past its grace with the clock running.
            keeper.called_elsewhere = frozenset() if self._calls_far_flag else frozenset({_colour(self.far)})

    def polled(self, now: int) -> list[Event]:
        self._settle(now)
        return self._take_agreed(now) + self._put_offer(now) + self._put_request(now)

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
        elif isinstance(event, (NewGame, GameOver)):
            # A request stands no longer once the game is over (nothing is taken back then).
            self._peer_offer = self._asked = self._asked_here = self._peer_request = self._agreed = None
            self._undone = None
            if isinstance(event, NewGame):
                self._final = {}

    def send_event(self, transport: Transport, event: Event, line: bytes) -> None:
        """The other side's own draw offer, put to the people here, is not sent back; a
        move of this board's side carries its time, and the end of the game this side's
        time left as its clock stopped."""
        if isinstance(event, DrawOffer) and event.side == self.far:
            return  # the other side's own offer: it came from there
        if isinstance(event, MoveMade) and event.side == self.link.plays and (times := self.times()):
            line = encode_event(event, after=times)
        elif isinstance(event, GameOver) and (left := self._final_left(event)) is not None:
            line = encode_event(event, after={"left": left})
        transport.send(line)

    def _final_left(self, event: GameOver) -> int | None:
        """This side's time left as the game ended here (its clock stopped: the end of the
        game charged the running side up to then; nothing once its flag fell), or None
        without a clock."""
        keeper = self._keeper()
        if keeper is None:
            return None
        own = _colour(self.link.plays)
        if event.reason == "time" and event.result == ("0-1" if own is BLACK else "1-0"):
            return 0
        left = keeper.clock.snapshot(event.t)[own]
        return min(max(0, left), _MAX_MS)

    def peer_line(self, data: dict[str, Any], now: int) -> bool:
        link = self.link
        kind = data.get("event")
        if kind in OFFER_KINDS:
            if link.linked and link.peer.same_game and data.get("side") == self.far:
                self._offered(kind, data.get("ply"), now)
            return True
        if kind == "move" and link.linked and data.get("side") == self.far:
            self._heard_times(data)
        elif kind == "game-over" and link.linked and link.peer.same_game:
            left = data.get("left")
            if type(left) is int and 0 <= left <= _MAX_MS:
                self._final[_colour(self.far)] = left
        elif kind in ("hello", "state") and link.linked:
            self._forget_undone(data)
            self._heard_state_times(data)
            if kind == "hello":  # (either board just connected: the other greets, or answers)
                self._offer_again(now)
        elif kind == "takeback" and self._undone is not None and data.get("ply") == self._undone[0]:
            self._undone = None  # taken back there too
        return False

    def _forget_undone(self, data: dict[str, Any]) -> None:
        """A greeting (or state) of the other board still showing the move this board
        took back on its request (the other board went off before it heard): its last
        move is left out, so it is not shown here again (the takeback reaches that board
        from this one's journal and it takes the move back too)."""
        undone = self._undone
        state = data.get("state") if data.get("event") == "hello" else data
        if undone is None or not isinstance(state, dict):
            return
        last = state.get("last")
        if state.get("ply") == undone[0] and isinstance(last, dict) and last.get("path") == undone[1]:
            del state["last"]

    def peer_followed(self, data: dict[str, Any], now: int) -> None:
        ply = data.get("ply")
        if data.get("event") == "takeback" and type(ply) is int and self.link.app is not None:
            # The other board took back this side's last move: what this board asked for
            # (the other board takes back this side's move only when its people agree to
            # this side's request), whether or not this board still knows it asked (it
            # may have been switched off and on since). It is taken back here too.
            self._asked, self._agreed = None, ply
            self.link.emit(self._take_agreed(now))

    def _take_agreed(self, now: int) -> list[Event]:
        """The takeback agreed on the other board, made here once this board stands on
        the move it is about (not while its pieces are being set up)."""
        ply, app = self._agreed, self.link.app
        if ply is None or app is None or app.resuming or app.setting_up is not None:
            return []
        self._agreed = None
        game = app.game
        if game.ply != ply or game.is_over or not game.moves or game.positions[-2].turn is _colour(self.far):
            return []  # not this side's last move (anything else is not this board's to take back)
        return list(app.take_back(now))

    def accepts_result(self, score: str, reason: str, now: int) -> bool:
        """A resignation or a flag of this board's side is this board's to say: the other
        board's word for it (a person there pressing this side's resign, a flag its clock
        called) is refused, said once, and play goes on."""
        plays = self.link.plays
        lost = "0-1" if plays == "black" else "1-0"
        if score != lost or reason not in ("resign", "time"):
            return True
        app = self.link.app
        ended = app.game.result if app is not None else None
        if ended is not None and (ended.score, ended.reason) == (score, reason):
            return True  # this board's own word, coming back with the other board's lines: no news
        if reason == "time" and self.away_clock == "run":
            self.link.notice(
                now,
                f"away-flag-{self.link.game_id}",
                f"the other board says {plays.title()} lost on time while this board was out of reach "
                "(the invitation lets the clock run)",
            )
            self._final[_colour(plays)] = 0
            self._undo_after_flag(now)
            return True
        self._final.pop(_colour(self.far), None)  # (the game goes on: the other board's clock stopped, not this one's)
        what = "resigned" if reason == "resign" else "lost on time"
        self.link.notice(
            now,
            f"own-result-{self.link.game_id}-{reason}",
            f"the other board says {plays.title()} {what}: only this board says that, the game goes on here",
        )
        return False

    def stated(self, state: dict[str, Any]) -> dict[str, Any]:
        """The link's state, its last move with its clock when it is this board's side's
        (what the move's line carried: see :meth:`times`), for a board that took the
        move's line but never its time (back from a power cut)."""
        last = state.get("last")
        keeper = self._keeper()
        app = self.link.app
        if app is None or keeper is None or not isinstance(last, dict) or last.get("side") != self.link.plays:
            return state
        record = far_board(app).record
        kept = {ply: (left, used) for ply, left, used in (record.times if record is not None else ())}
        times = keeper.times.get(last["ply"]) or kept.get(last["ply"])
        if times is not None and 0 <= times[0] <= _MAX_MS:
            state["last"] = {**last, "left": times[0], "used": times[1]}
        return state

    # -- what the hooks do ----------------------------------------------------------------

    def _undo_after_flag(self, now: int) -> None:
        """The other board called this side's flag (``away``: ``run``) at its last move,
        while this board's people, out of reach, made their move after it (in time by this
        board's clock, which started later: as they made the other's move here). The
        invitation's word stands on both boards: the move, which could not cross in time,
        is taken back here and the game ends on time at the same move as there (before,
        the game was over on one board and went on on the other)."""
        app = self.link.app
        if app is None or app.resuming or app.setting_up is not None:
            return
        game, ply = app.game, self.link.peer.ply
        if game.is_over or game.ply != ply + 1 or game.positions[-2].turn is not _colour(self.link.plays):
            return
        move = game.moves[-1].pdn(full=True)
        self.link.emit(
            [
                *app.take_back(now),
                Notice(now, f"{move} came after the flag there: it is taken back, the game ends on time on both"),
            ]
        )

    def _settle(self, now: int) -> None:
        """The other side's time at the end of the game as its own board stopped it, once
        this board's clock has stopped too: each board stops the clock when the game ends
        there, the other a line's crossing later (and the running side's time ran on
        here meanwhile), so each side's final time is its own board's, on both boards."""
        keeper, app = self._keeper(), self.link.app
        if not self._final or keeper is None or app is None or not app.game.is_over or not keeper.clock.stopped:
            return
        final, self._final = self._final, {}
        for side, left in final.items():
            keeper.settle(side, left, now)

    def _moved(self, event: MoveMade) -> None:
        # A move after the one a request is about refuses it (the move itself, made here
        # after the request came, does not).
        far = self.far
        if self._asked is not None and event.ply > self._asked:
            if event.side == far:
                self.link.emit([Notice(event.t, f"{far.title()} played on: the takeback was refused")])
            self._asked = None
        if self._asked_here is not None and event.ply > self._asked_here:
            self._asked_here = None

    def _heard_times(self, data: dict[str, Any]) -> None:
        """The clock of the other side's move as its own board measured it: the game's
        clock here takes it when its people make the move (``GameTimer.tell``)."""
        keeper = self._keeper()
        ply, left, used = data.get("ply"), data.get("left"), data.get("used")
        if keeper is None or type(ply) is not int or type(left) is not int or not 0 <= left <= _MAX_MS:
            return
        if type(used) is not int or not 0 <= used <= _MAX_MS:
            used = 0  # a board of an older version sends its time left only
        keeper.tell(_colour(self.far), ply, left, used)

    def _heard_state_times(self, data: dict[str, Any]) -> None:
        """The clock of the other side's last move in the other board's greeting or state
        (a board back from a power cut may have taken the move's line, never its time)."""
        state = data.get("state") if data.get("event") == "hello" else data
        last = state.get("last") if isinstance(state, dict) else None
        if isinstance(last, dict) and last.get("side") == self.far:
            self._heard_times(last)

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
        if app.resuming or app.setting_up is not None:
            return None
        if game.is_over:
            # On one board the takeback reopens a resignation, or takes the last move back
            # from a finished game; far apart that would happen on this board only, the
            # other keeping the result: the two boards would play two games.
            link.emit([Notice(press.t_ms, self._final_words(game))])
            return False
        if not game.moves:
            return None
        if self._asked_here == game.ply:
            self._asked_here = None
            self._undone = (game.ply, list(game.moves[-1].path))
            return None  # agreed: the tracker takes the move back, and the other board follows
        move = game.moves[-1].pdn(full=True)
        if game.positions[-2].turn is _colour(far):
            # The last move is the other side's: a board asks back its own side's only.
            words = f"{move} is {far.title()}'s move: only {far.title()} may ask to take it back"
        else:
            self._asked = game.ply
            link.send({"t": press.t_ms, "event": "takeback-request", "ply": game.ply, "side": link.plays})
            words = f"asked {far.title()} to take back {move}: waiting for the answer"
        far_board(app).say(words)
        link.emit([Notice(press.t_ms, words)])
        return False

    @staticmethod
    def _final_words(game: Game) -> str:
        """Why nothing is taken back once a game far apart is over."""
        result = game.result
        if result is not None and result.reason == "resign":
            loser = "White" if result.winner is BLACK else "Black"
            return (
                f"{loser} resigned: in a game far apart a resignation is final and is not taken back "
                "(a new game starts another)"
            )
        return (
            "the game is over: in a game far apart its result stands and nothing is taken back "
            "(a new game starts another)"
        )

    def _offer_again(self, now: int) -> None:
        """A board is (back) online (the other board's greeting, or its answer to this
        one's): this side's request and draw offer standing go to the other board again.
        It may have taken them and gone off before it put them to its people (it keeps
        them in memory until its board reaches their move), or this board may have gone
        off before their lines left its journal; a board that has them already does not
        put them twice (:meth:`_offered`)."""
        link, app = self.link, self.link.app
        if app is None or app.game.is_over:
            return
        game = app.game
        if self._asked is not None and self._asked == game.ply:
            link.send({"t": now, "event": "takeback-request", "ply": self._asked, "side": link.plays})
        offer = far_board(app).session.draw_offer
        if offer is not None and offer[0] is _colour(link.plays) and offer[1] == game.ply:
            link.send({"t": now, "event": "draw-offer", "ply": offer[1], "side": link.plays})

    def _offered(self, kind: object, ply: object, now: int) -> None:
        if type(ply) is not int or not 0 <= ply <= 100_000:
            return
        app = self.link.app
        if kind == "draw-offer":
            if app is None or far_board(app).session.draw_offer != (_colour(self.far), ply):
                self._peer_offer = ply  # (one standing here already is not put twice)
            return
        if self._asked_here != ply:
            self._peer_request = ply

    def _put_request(self, now: int) -> list[Event]:
        """The other side's takeback request, put to the people here (said on the screen,
        the pages and, as its event, by the voice) once this board has reached the move it
        is about: one asked right after a move reaches a board whose people have not made
        it yet."""
        ply = self._peer_request
        link = self.link
        app = link.app
        if ply is None or app is None:
            return []
        game = app.game
        if app.resuming or app.setting_up is not None or game.ply < ply:
            return []
        self._peer_request = None
        if game.ply > ply or game.is_over or not game.moves:
            return []  # refused meanwhile: a move was made after it
        if game.positions[-2].turn is not _colour(self.far):
            return []  # not the asking side's move: nothing it may ask back
        self._asked_here = ply
        move = game.moves[-1].pdn(full=True)
        words = f"{self.far.title()} asks to take back {move}: press takeback to agree, or play on to refuse"
        far_board(app).say(words)
        link.notice(now, f"takeback-{link.game_id}-{ply}-{now}", words)
        return [TakebackAsked(now, ply, Side.of(_colour(self.far)), move, words)]

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
    """A :class:`~crownhead.firmware.link.host.Link` with the policy of a game far apart
    (:class:`FarPolicy`, see the module). ``settings.plays`` must name this board's side;
    ``away``: what the clock does while a board is away (the invitation's)."""

    def __init__(self, transport: Transport, settings: LinkConfig = LinkConfig(), away: str = "stop") -> None:
        self.far_policy = FarPolicy(away)
        super().__init__(transport, settings, self.far_policy)

    @property
    def far(self) -> str:
        """The other board's side."""
        return self.far_policy.far

    @property
    def away_clock(self) -> str:
        """What the clock does while a board is away (``stop`` or ``run``)."""
        return self.far_policy.away_clock

    @away_clock.setter
    def away_clock(self, away: str) -> None:
        self.far_policy.away_clock = away

    @property
    def calls_far_flag(self) -> bool:
        """Whether this board calls the far side's flag too (its board away past the grace
        period, the clock running: :class:`~crownhead.firmware.remote.board.Absence` says)."""
        return self.far_policy.calls_far_flag

    @calls_far_flag.setter
    def calls_far_flag(self, value: bool) -> None:
        self.far_policy.calls_far_flag = value

    def times(self) -> dict[str, int]:
        """The mover's time left after the move just made here and what the move took."""
        return self.far_policy.times()

    def begin_agreed(self, code: str, start: Position, saved: str | None = None, *, over: bool = False) -> None:
        """The game the two boards agreed (game ``code``, from ``start``) is the first each
        begins: both name it alike, from the invitation, so neither takes the other's for
        a newer game to join (which would set up again a board whose people moved
        already, or file the move away). ``saved``: the name of the game this board was
        playing when it went off (its journal's): the game it resumes is that one, so the
        other board's lines about it count here at once. ``over``: that game ended (it
        is filed away, none is resumed): the game this board begins is the next one, a
        serial further, so that the other board's last lines about the one that ended
        (its result, coming again after the power cut) do not end this one too."""
        tag = hashlib.sha256(code.encode()).hexdigest()[:6]
        name = GameId(1, tag)
        if saved is not None:
            try:
                name = GameId.parse(saved)
            except ValueError:
                saved = None  # a damaged name: the agreed one
        if saved is not None and over:
            name, saved = GameId.new(name.serial + 1), None
        self.peer.begin_as(name, start.fen())
        if saved is not None:
            self.peer.resume_as(name)
        self._note_name()

    def poll(self, now: int) -> list[Event]:
        events = super().poll(now)
        self._note_name()
        return events

    def sink(self, event: Event) -> None:
        super().sink(event)
        self._note_name()

    def _note_name(self) -> None:
        """The game's name, whenever it changes, into the transport's journal (a
        :class:`~crownhead.firmware.remote.transport.RemoteTransport` keeps it on disk)."""
        note = getattr(self.transport, "note_game", None)
        if note is not None:
            note(str(self.game_id))

    def detach(self) -> None:
        """The board stops playing far apart: the link lets the board go (:meth:`Link.detach
        <firmware.link.host.Link.detach>`: the far side's moves are made at the board again
        and its flag falls here), and the line to the broker closes."""
        if self.app is None:
            return
        super().detach()
        # What the other board has not acknowledged yet goes (for a few seconds) in a
        # thread of its own: the board's main loop never waits for the broker.
        threading.Thread(target=self.close, name="crownhead-far-leave", daemon=True).start()
