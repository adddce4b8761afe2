"""The follower: the game on the board, each input to its owner and the judge consulted.

A :class:`Follower` is what the controller pumps and the application's commands act on.
It owns nothing of the game and reads nothing of the board itself: it passes what the
switches say to the tracker (:class:`~crownhead.firmware.tracking.tracker.Tracker`: occupancy in,
readings, roles and conditions out, a move read committed to the session), what the
players decide (a draw offered or accepted, a resignation, a claim, a result declared)
to the session (:class:`~crownhead.firmware.tracking.session.GameSession`), runs the session's one
clock (its time starts with the side to move's first lift, switches on a move, stops at
the end; the ``clock`` press pauses it; a flag falls in its place in time), and consults
the judge (:class:`~crownhead.firmware.tracking.judge.Judge`, the referee's policy in referee
mode, none otherwise) on everything that happens: the judge words the warnings, counts
the offences and hands down its rulings through the follower, the bench it rules from.

The buttons are routed here: ``draw``, ``resign`` (shared or per side: see
:mod:`crownhead.firmware.tracking.sides`) and ``claim`` to the session, ``clock`` to the clock, and
the board's own (``new`` sets up, ``takeback`` guides back, ``adjust``, ``force``) to
the tracker; ``takeback`` after a resignation asks the session to take the resignation
back instead (what a takeback means for the record is the session's, not the board
reader's).

>>> from crownhead.rules import WCDF, Game
>>> from crownhead.firmware.tracking.tracker import Tracker
>>> follower = Follower(Tracker(Game(None, WCDF)))
>>> [e.kind for e in follower.press("black_draw", 0) + follower.press("white_draw", 10)]
['draw-offer', 'game-over']
>>> follower.session.game.result
Result(score='1/2-1/2', reason='agreement')
"""

from __future__ import annotations

from crownhead.firmware.events import (
    BoardWarning,
    Condoned,
    Crowned,
    Event,
    Flag,
    ForcedJump,
    GameOver,
    Huffed,
    HuffTakenBack,
    MoveMade,
    NewGame,
    Reopened,
    Side,
    TakenBack,
)
from crownhead.firmware.tracking.judge import Bench, BoardReading, Judge
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.sides import side_request
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.firmware.tracking.tracker import Tracker
from crownhead.rules import Color, Game, Move, Position
from crownhead.rules.game import win_for

__all__ = ["Follower", "Bench", "Judge"]

#: The events of a change to the game under a standing draw offer (a move made or taken
#: back, a huff): the offer lapses there, and its ``draw-lapsed`` follows the change.
_CHANGES = (MoveMade, TakenBack, Huffed, HuffTakenBack, ForcedJump)


class Follower:
    """The game followed on the board (see the module): ``tracker`` reads the board,
    its session keeps the game, ``judge`` (optional) rules.

    The application gives it its tracker (:meth:`crownhead.firmware.app.application.App.follow`,
    the one place the tracker is replaced) and its judge (the referee in referee mode).
    """

    tracker: Tracker

    def __init__(self, tracker: Tracker | None = None, judge: Judge | None = None) -> None:
        if tracker is not None:
            self.tracker = tracker
        self.judge = judge
        #: Report the flag's time as a deadline (a replay turns this off once its script
        #: has ended, so that it does not run on until a flag falls; flags still fall).
        self.clock_deadline = True
        self._pending: list[Event] = []
        self._now = 0
        self._over_key: tuple[object, ...] | None = None
        self._over = False
        #: The game whose end was last followed: (game, ply, declared result).
        self._ended: tuple[object, ...] | None = None

    # -- what it reads (the session's and the tracker's) ------------------------------------

    @property
    def session(self) -> GameSession:
        """The game's session (the tracker's: see :mod:`crownhead.firmware.tracking.session`)."""
        return self.tracker.session

    @property
    def reader(self) -> BoardReading:
        """The board as the tracker reads it (what a judge reads)."""
        return self.tracker

    @property
    def game(self) -> Game:
        return self.tracker.session.game

    @property
    def clock(self) -> GameTimer | None:
        """The game's clock (the session's), or None without a time control."""
        return self.tracker.session.clock

    @property
    def over(self) -> bool:
        """``game.is_over``, asked on every input, computed again only when the game changed
        (the session's revision moved, or a result was written on the game itself)."""
        session = self.tracker.session
        key = (session, session.revision, session.game.declared)
        if key != self._over_key:
            self._over_key = key
            self._over = session.game.is_over
        return self._over

    @property
    def roles(self) -> dict[int, str]:
        """The tracker's roles as shown: the judge's picture of them, if there is a judge."""
        roles = self.tracker.roles
        return self.judge.roles(roles, self) if self.judge is not None else roles

    @property
    def warnings(self) -> tuple[BoardWarning, ...]:
        """Every standing warning, most urgent first, as the judge words them."""
        warnings = self.tracker.warnings
        judge = self.judge
        return tuple(judge.word(w, self) for w in warnings) if judge is not None else warnings

    @property
    def warning(self) -> BoardWarning | None:
        """The most urgent standing warning, as the judge words it, or None."""
        warning = self.tracker.warning
        if warning is None or self.judge is None:
            return warning
        return self.judge.word(warning, self)

    @property
    def resign_asked(self) -> tuple[Color, int] | None:
        """A resignation waiting for its confirmation now: (side, until), or None."""
        return self.session.resign_asked(self._now)

    def next_deadline(self) -> int | None:
        """When :meth:`tick` has something to do (the tracker's timers, the judge's, the flag)."""
        times = [self.tracker.next_deadline()]
        if self.judge is not None:
            times.append(self.judge.next_deadline(self))
        if self.clock_deadline:
            times.append(self._flag_due())
        due = [t for t in times if t is not None]
        return min(due) if due else None

    # -- the controller's inputs ----------------------------------------------------------

    def update(self, occupancy: int, now_ms: int) -> list[Event]:
        """A new settled occupancy at ``now_ms`` (see :meth:`Tracker.update
        <firmware.tracking.tracker.Tracker.update>`)."""
        out = self._advance(now_ms)
        tracker = self.tracker
        clock = self.clock
        if clock is not None and clock.waiting and self._playing():
            game = self.game
            if tracker.board & ~occupancy & game.position.pieces_of(game.turn):
                out += clock.lifted(game, now_ms)  # the side to move's first lift starts its time
        out += self._process(tracker.update(occupancy, now_ms), now_ms)
        out += self._check(now_ms, read=True)
        return self._heard(out)

    def press(self, button: str, now_ms: int, long: bool = False) -> list[Event]:
        """A button pressed (``long``: held down), routed to its owner (see the module);
        a button of the application's (``hint``...) only marks the time."""
        out = self._advance(now_ms)
        tracker = self.tracker
        request = side_request(button, long)
        if button == "claim" or (request is not None and request.action == "draw"):
            judge = self.judge
            if judge is None or not judge.objectable(self):
                # Pressed right after a move, before it settled: the move comes first, so an
                # offer made after one's move is not declined by that very move, and a claim
                # is the claim of the player now to move (as ``resign`` does).
                out += self._process(tracker.accept_pending(now_ms), now_ms)
        if button == "claim":
            out += self._claim(now_ms)
        elif button == "clock":
            out += self._clock_press(now_ms)
        elif request is not None and request.action == "draw":
            out += self._offer(request.side, now_ms)
        elif request is not None:
            out += self._resign(request.side, now_ms, request.confirmed)
        else:
            out += self._process(tracker.attend(now_ms), now_ms)
            if button == "new":
                out += self._process(tracker.new_game(None, now_ms), now_ms)
            elif button == "takeback":
                out += self._take_back(now_ms)
            elif button == "adjust":
                out += self._process(tracker.adjust(now_ms), now_ms)
            elif button == "force":
                out += self._process(tracker.force(now_ms), now_ms)
        out += self._check(now_ms, read=False)
        return self._heard(out)

    def tick(self, now_ms: int) -> list[Event]:
        """Run what is due by ``now_ms``: the tracker's timers, the flag, the judge's."""
        out = self._advance(now_ms)
        out += self._check(now_ms, read=False)
        return self._heard(out)

    def restore(self, occupancy: int, now_ms: int) -> list[Event]:
        """The board shows ``occupancy`` for reasons outside the game: guided back."""
        out = self._advance(now_ms)
        out += self._process(self.tracker.restore(occupancy, now_ms), now_ms)
        return self._heard(out)

    # -- the application's commands ---------------------------------------------------------

    def begin(self, now_ms: int) -> list[Event]:
        """A game begins on the board as it stands, when no ``new-game`` will say so (a
        replay's board set up already, a mode entered before the first move): its clock
        and, with a judge, its refereeing."""
        return self._heard(self._begin(now_ms))

    def new_game(self, position: Position | None = None, now_ms: int | None = None) -> list[Event]:
        """Set the board up for a new game from ``position`` (default: the session's start)."""
        now = now_ms if now_ms is not None else self._now
        return self._heard(self._process(self.tracker.new_game(position, now_ms), now))

    def take_back(self, now_ms: int) -> list[Event]:
        """Take back the last move, or a resignation (the ``takeback`` button's, without
        the press)."""
        return self._heard(self._take_back(now_ms))

    def declare(self, score: str, reason: str, now_ms: int) -> list[Event]:
        """End the game with ``score`` for ``reason`` (an arbiter's decision, the other
        board's): nothing pending is accepted first; the ``game-over`` and what follows."""
        out = self._advance(now_ms)
        out += self._declare(score, reason, now_ms)
        return self._heard(out)

    def offer_draw(self, side: Color | None, now_ms: int) -> list[Event]:
        """``side`` offers a draw or accepts the other side's offer (None: a shared button)."""
        return self.press("draw" if side is None else f"{side}_draw", now_ms)

    def resign(self, side: Color | None, now_ms: int, *, confirmed: bool = False) -> list[Event]:
        """``side`` resigns (None: the side played at the board), once confirmed."""
        return self.press("resign" if side is None else f"{side}_resign", now_ms, confirmed)

    def claim(self, now_ms: int) -> list[Event]:
        """The side to move claims a draw (or, under a referee in record style, objects)."""
        return self.press("claim", now_ms)

    def expect(self, move: Move | None) -> None:
        """Ask for ``move`` on the board (see :meth:`Tracker.expect
        <firmware.tracking.tracker.Tracker.expect>`)."""
        self.tracker.expect(move)

    def condone(self, move: Move, now: int, *, code: str, message: str, clock_at: int) -> list[Event]:
        """A judge's ruling: ``move``, illegal (``code``: the rule it broke, in words
        ``message``), stands (WCDF 1.26). The session takes it in; the clock switched when
        the board first showed it settled (``clock_at``); the board is read on from there."""
        session = self.session
        game = session.game
        position = game.position
        rules = game.rules
        side = Side.of(position.turn)
        if move in position.legal_moves(rules):
            session.play(move)  # legal, but with another piece than the one touched
        else:
            session.condone(move)
        text = move.pdn()
        moved = MoveMade(now, game.ply, side, text, tuple(move.path), tuple(move.captures))
        out: list[Event] = [moved, Condoned(now, side, text, code, message, game.position.fen())]
        if position.crowns(move, rules):
            out.append(Crowned(now, move.end))
        out += self._moved(moved, clock_at)
        out += self._lapsed(now)  # the move declined a standing offer, or let it lapse
        # The answer stands on the board: the tracker reads it as the next move.
        out += self._process(self.tracker.read_afresh(now), now)
        return out

    # -- the game's inner workings ----------------------------------------------------------

    def _playing(self) -> bool:
        return not self.over and self.tracker.setting_up is None

    def _flag_due(self) -> int | None:
        clock = self.clock
        if clock is None or self.over or self.tracker.setting_up is not None:
            return None  # a new game is being set up: the old one's clock no longer counts
        return clock.flag_due()

    def _advance(self, now: int) -> list[Event]:
        """The tracker's timers up to ``now``, the flag falling in its place in time."""
        out, self._pending = self._pending, []
        self._now = max(self._now, now)
        tracker = self.tracker
        for _ in range(4):
            flag = self._flag_due()
            if flag is None or flag > now:
                break
            # Moves accepted before the flag fell count; one accepted at it is too late.
            out += self._process(tracker.tick(flag - 1), flag - 1)
            if self._flag_due() == flag:
                out += self._flag(flag)
                break
        out += self._process(tracker.tick(now), now)
        if self.judge is not None:
            out += self.judge.rejudge(now, self)
        game = self.game
        if self.over and self._ended != (game, game.ply, game.declared):
            assert game.result is not None
            # Ended from outside (a result written on the session itself): the game-over
            # was reported there; the clock stops and the judge hears how it ended.
            out += self._ended_with(GameOver(now, game.result.score, game.result.reason))
        return out

    def _flag(self, t: int) -> list[Event]:
        clock = self.clock
        assert clock is not None
        side = clock.clock.running
        assert side is not None
        if self.judge is not None:
            self.judge.flag_fell(side, self)
        clock.fall(side)
        return [Flag(t, Side.of(side))] + self._declare(win_for(side.opponent), "time", t)

    def _declare(self, score: str, reason: str, t: int) -> list[Event]:
        tracker = self.tracker
        if tracker.expected is not None:
            tracker.expect(None)  # a balloted move, a machine's, is no longer wanted
        if self.game.is_over or tracker.setting_up is not None:
            return []
        return self._process(self.session.declare(score, reason, t), t)

    def _claim(self, now: int) -> list[Event]:
        """``claim``: the player to move claims a draw, or (under a judge) objects."""
        if not self._playing():
            return []
        judge = self.judge
        if judge is not None:
            objected = judge.objection(now, self)
            if objected is not None:
                return objected
        return self._ruled(self.session.claim(now), now)

    def _offer(self, side: Color | None, now: int) -> list[Event]:
        """A draw button: the session keeps offers and tells an offer from an acceptance."""
        if not self._playing():
            return []
        return self._ruled(self.session.offer_draw(side, now), now)

    def _resign(self, side: Color | None, now: int, confirmed: bool) -> list[Event]:
        """A resign button: a move standing complete on the board was made before it."""
        tracker = self.tracker
        out = self._process(tracker.attend(now), now)
        if not self._playing():
            return out
        out += self._process(tracker.accept_pending(now), now)
        if self.game.is_over:
            return out
        return out + self._ruled(self.session.resign(side, now, confirmed=confirmed), now)

    def _ruled(self, events: list[Event], now: int) -> list[Event]:
        """What the session ruled (a claim, an offer, a resignation): the judge records it."""
        if self.judge is not None:
            self.judge.ruled(events, self.game.ply, self)
        if self.game.is_over and self.tracker.expected is not None:
            self.tracker.expect(None)  # a balloted move is no longer wanted
        return self._process(events, now)

    def _take_back(self, now: int) -> list[Event]:
        """The takeback: a resignation is taken back by the session (the game goes on from
        the same position, no move with it), when the mode allows takebacks and no set-up
        is under way; otherwise the tracker takes the last move back and guides the board."""
        tracker = self.tracker
        if tracker.setting_up is None and tracker.policy.takeback:
            reopened = self.session.reopen(now)
            if reopened:
                # The tracker sees the session's revision move and reads the board as of now.
                return self._process(reopened + tracker.attend(now), now)
        return self._process(tracker.take_back(now), now)

    def _clock_press(self, now: int) -> list[Event]:
        """The ``clock`` press: start a waiting clock, pause a running one, resume it."""
        clock = self.clock
        if clock is None or not self._playing():
            return []
        if clock.waiting or clock.clock.paused:
            how = "started" if clock.clock.running is None else "resumed"
        else:
            how = "paused"
        events = clock.press(self.game, now)
        if self.judge is not None and events:
            self.judge.clock_pressed(how, self)
        return events

    def _check(self, now: int, *, read: bool) -> list[Event]:
        return self.judge.check(now, self, read=read) if self.judge is not None else []

    def _begin(self, now: int) -> list[Event]:
        out = self.session.new_clock(now)
        if self.judge is not None:
            out += self.judge.begin(now, self)
        return out

    def _process(self, events: list[Event], now: int) -> list[Event]:
        """Events of the tracker or the session, and what each causes: the judge's words
        and rulings, the clock's switches."""
        judge = self.judge
        out: list[Event] = []
        for event in events:
            if isinstance(event, BoardWarning) and judge is not None:
                out += judge.warned(event, self)
                continue
            out.append(event)
            if isinstance(event, MoveMade):
                out += self._moved(event)
            elif isinstance(event, GameOver):
                out += self._ended_with(event)
            elif isinstance(event, NewGame):
                if not self.session.resumed:  # a saved game resumed: no new clock, no new refereeing
                    out += self._begin(event.t)
            elif isinstance(event, (TakenBack, ForcedJump)) and self.clock is not None:
                # (a forced jump takes the move that skipped the jump back: its mover's
                # time runs again, and the move keeps no clock)
                out += self.clock.taken_back(self.game, now)
            elif isinstance(event, Reopened) and self.clock is not None:
                out += self.clock.reopened(self.game, now)
            if isinstance(event, _CHANGES):
                out += self._lapsed(event.t)  # told right after the change that ended it
        return out + self._lapsed(now)

    def _lapsed(self, t: int) -> list[Event]:
        """The offer the last change ended, told (the judge records it as a ruling)."""
        lapsed = self.session.lapsed(t)
        if lapsed and self.judge is not None:
            self.judge.ruled(lapsed, self.game.ply, self)
        return lapsed

    def _moved(self, event: MoveMade, clock_at: int | None = None) -> list[Event]:
        out: list[Event] = []
        clock = self.clock
        if clock is not None:
            # A move made: the opponent's time runs (reported unless the game is over).
            out += clock.moved(event.side.color, self.game, event.t, clock_at, ply=event.ply)
        if self.judge is not None:
            out += self.judge.moved(event, self)
        return out

    def _ended_with(self, event: GameOver) -> list[Event]:
        game = self.game
        self._ended = (game, game.ply, game.declared)
        out: list[Event] = []
        clock = self.clock
        if clock is not None:
            out += clock.over(event.t)
        if self.judge is not None:
            out += self.judge.ended(event, self)
        return out

    def _heard(self, events: list[Event]) -> list[Event]:
        if self.judge is not None and events:
            self.judge.heard(events)
        return events
