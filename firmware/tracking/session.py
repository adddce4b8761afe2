"""The game session: the one owner of the game a board follows.

A :class:`GameSession` holds what the game *is*, apart from what the board shows of it:
the record (:class:`crownhead.rules.Game`), the standing draw offer, a resignation waiting for its
confirmation, the result (declared, claimed, resigned or reached on the board), the
sides whose moves are made elsewhere (held: a computer, the other end of a link), the
position every new game of the session starts from and a saved game waiting for its
position to be set up. It is pure: no I/O, no clock (times come in as arguments),
deterministic.

The tracker (:mod:`crownhead.firmware.tracking.tracker`) reads the board and asks the session to
commit what it read (:meth:`GameSession.play`) or what a button asked (an offer, a
resignation, a claim); the application owns one session for the whole run and gives it
to every tracker it follows, so nothing of the game is copied from one tracker to the
next. Whatever changes here changes :attr:`GameSession.revision`, which is how a reader
(a tracker, the application's snapshot) knows its picture is out of date without
comparing the game itself.

>>> from crownhead.rules import BLACK, WCDF, WHITE
>>> session = GameSession(Game(None, WCDF))
>>> session.hold(WHITE, "the engine")
>>> session.held, session.person
({<Color.WHITE: 1>: 'the engine'}, <Color.BLACK: 0>)
>>> [e.kind for e in session.offer_draw(None, 0)]       # the person at the board offers
['draw-offer']
>>> before = session.revision
>>> [e.kind for e in session.offer_draw(WHITE, 10)]     # the engine accepts
['game-over']
>>> session.game.result, session.revision > before
(Result(score='1/2-1/2', reason='agreement'), True)
"""

from __future__ import annotations

from collections.abc import Mapping

from crownhead.firmware.events import Claim, DrawLapsed, DrawOffer, Event, GameOver, Reopened, ResignAsked, Side
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.tracking.sides import RESIGN_CONFIRM_MS
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.rules import Color, Game, Move, Position, Rules
from crownhead.rules.game import FORTY_MOVES_PLIES, HistoryEntry, Huff, JumpForced

__all__ = ["GameSession", "claim_text", "REOPENABLE"]

#: The results a takeback reopens (the players' own decisions); any other result stands,
#: and a takeback after it takes the last move back.
REOPENABLE = ("resign", "agreement")


def _name(side: Color) -> str:
    return side.name.title()


def claim_text(game: Game, reason: str | None) -> str:
    """What the board says of the side to move's claim of a draw (WCDF 1.32), ``reason``
    being the rule it is valid by (``repetition``, ``forty-moves``) or None: one sentence,
    the same in every mode and on every screen and record.

    >>> from crownhead.rules import WCDF
    >>> claim_text(Game(None, WCDF), None)
    "Black claims a draw: refused, no move of Black's makes a position stand a third time, and 0 of the 80 plies of the forty-move rule have passed without a man moving or a capture; play goes on"
    >>> claim_text(Game(None, WCDF), "repetition")
    'Black claims a draw: valid, by repetition (WCDF 1.32)'
    """
    side = game.turn.name.title()
    if reason is not None:
        words = "repetition" if reason == "repetition" else "the forty-move rule"
        return f"{side} claims a draw: valid, by {words} (WCDF 1.32)"
    return (
        f"{side} claims a draw: refused, no move of {side}'s makes a position stand a third time, and"
        f" {game.quiet_plies} of the {FORTY_MOVES_PLIES} plies of the forty-move rule have passed"
        " without a man moving or a capture; play goes on"
    )


class GameSession:
    """The game of a board and everything decided about it (see the module).

    ``game`` is the game under way (default: a new one from the start position);
    ``start`` the position every new game of the session begins from (None: the rules'
    start position). Every change increments :attr:`revision`.
    """

    def __init__(self, game: Game, *, start: Position | None = None, time_control: TimeControl | None = None) -> None:
        self._game = game
        self._start = start
        #: The game before the one under way (put away when this one began), or None: for
        #: whoever closes its record.
        self.previous: Game | None = None
        #: That game's clock (each of its moves' clocks: :attr:`GameTimer.times
        #: <firmware.tracking.timer.GameTimer.times>`), or None: for whoever closes its record.
        self.previous_clock: GameTimer | None = None
        #: How many games the session has followed (the game under way is game ``number``).
        self.number = 1
        #: The time control of every new game of the session (None: no clock).
        self.time_control = time_control
        #: The clock of the game under way: the one clock of the board, whatever the mode
        #: (see :meth:`new_clock`), or None without a time control.
        self.clock: GameTimer | None = None
        #: Changes whenever anything here does (the game, an offer, a hold...).
        self.revision = 0
        #: A saved game whose position is being set up to resume it (see :meth:`begin`),
        #: and the draw offer standing in it when it was saved.
        self._saved: Game | None = None
        self._saved_offer: tuple[Color | None, int] | None = None
        #: Whether the game under way is a saved game resumed (:meth:`begin` of its
        #: position) rather than one begun: no new clock, no new refereeing.
        self.resumed = False
        # Sides held from outside (hold()) and by the machine the seats put there
        # (seat_machine()): one merged answer, the outside's winning for a side in both.
        self._outside: dict[Color, str] = {}
        self._machine: dict[Color, str] = {}
        self._held: dict[Color, str] = {}
        #: The standing draw offer: (side, None for a shared button; the ply it was made at).
        self._offer: tuple[Color | None, int] | None = None
        #: A first resign press: (side, until when a second press confirms it).
        self._resign: tuple[Color, int] | None = None
        #: An offer that lapsed in the last change and has not been told yet: (the offer,
        #: what made it lapse, in words). See :meth:`lapsed`.
        self._lapsed: tuple[tuple[Color | None, int], str] | None = None

    def _changed(self) -> None:
        self.revision += 1

    # -- the record -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game under way (or over), move by move."""
        return self._game

    @property
    def rules(self) -> Rules:
        return self._game.rules

    @property
    def new_start(self) -> Position | None:
        """The position every new game of the session begins from (None: the rules' own)."""
        return self._start

    @new_start.setter
    def new_start(self, position: Position | None) -> None:
        if position != self._start:
            self._start = position
            self._changed()

    def start_position(self) -> Position:
        """Where the next new game begins: :attr:`new_start`, or the rules' start position."""
        return self._start if self._start is not None else Position.start(self.rules)

    def play(self, move: Move) -> None:
        """``move`` was made on the board: into the record. A standing offer lapses (the
        move declines it)."""
        standing = self.draw_offer
        how = self._moving(standing)
        self._game.play(move)
        self._moved_on(standing, how)

    def undo(self) -> HistoryEntry:
        """Take the last entry of the record back (a move, a huff; a declared result goes
        with it); an offer does not come back with the position."""
        standing = self.draw_offer
        entry = self._game.undo()
        self._moved_on(standing, "the huff was taken back" if isinstance(entry, Huff) else "a move was taken back")
        return entry

    def condone(self, move: Move) -> Position:
        """``move``, illegal, stood (WCDF 1.26: the opponent answered without objection):
        into the record as the board shows it (:meth:`crownhead.rules.game.Game.condone`), the
        game going on from there. A standing offer lapses as after any move."""
        standing = self.draw_offer
        how = self._moving(standing)
        position = self._game.condone(move)
        self._moved_on(standing, how)
        return position

    def huff(self, square: int) -> Huff:
        """Under huffing: the opponent takes off the piece on ``square``, which could have
        jumped (:meth:`crownhead.rules.game.Game.huff`). The offer lapses as after a move."""
        standing, huffer = self.draw_offer, _name(self._game.turn)
        entry = self._game.huff(square)
        self._moved_on(standing, f"{huffer} huffed the piece on {square}")
        return entry

    def force_jump(self) -> JumpForced:
        """Under huffing: the move that skipped a jump is taken back and the jump is to be
        made (:meth:`crownhead.rules.game.Game.force_jump`)."""
        standing = self.draw_offer
        entry = self._game.force_jump()
        self._moved_on(standing, "a move was taken back for a jump")
        return entry

    def _moving(self, offer: tuple[Color | None, int] | None) -> str:
        """How the standing ``offer`` lapses when the side to move moves, in words: its
        own offer lapses, the other side's is declined."""
        mover = self._game.turn
        if offer is None or offer[0] is None:
            return f"{_name(mover)} moved"
        offerer, other = _name(offer[0]), _name(offer[0].opponent)
        if offer[0] == mover:
            return f"{offerer} moved before {other} answered"
        return f"{other} moved instead of accepting it"

    def _moved_on(self, standing: tuple[Color | None, int] | None, how: str) -> None:
        """The game changed (a move made or taken back): the offer ``standing`` before the
        change, if any, lapses, and :meth:`lapsed` tells it (``how``: what made it lapse,
        in words)."""
        self._offer = None
        self._lapsed = (standing, how) if standing is not None else None
        self._changed()

    def lapsed(self, now_ms: int) -> list[Event]:
        """The ``draw-lapsed`` event of the offer the last change ended, once (none if no
        offer was standing): a lapsed offer is told, so that the other side knows its draw
        button now offers rather than accepts.

        >>> from crownhead.rules import BLACK, WCDF
        >>> session = GameSession(Game(None, WCDF))
        >>> _ = session.offer_draw(BLACK, 0)
        >>> session.play(session.game.legal_moves()[0])
        >>> [e.message for e in session.lapsed(500)], session.lapsed(600)
        (["Black's draw offer lapsed: Black moved before White answered (an offer stands until it is answered or a move is made)"], [])
        """
        lapsed, self._lapsed = self._lapsed, None
        if lapsed is None:
            return []
        (side, ply), how = lapsed
        whose = f"{_name(side)}'s draw offer" if side is not None else "The draw offer made with the shared button"
        message = f"{whose} lapsed: {how} (an offer stands until it is answered or a move is made)"
        return [DrawLapsed(now_ms, ply, Side.of(side) if side is not None else None, message)]

    @property
    def saved(self) -> Game | None:
        """The saved game whose position is being set up to resume it, or None."""
        return self._saved

    def resume_when_set_up(self, game: Game | None, offer: tuple[Color | None, int] | None = None) -> None:
        """``game``, a saved game, goes on once its position stands on the board: the
        :meth:`begin` of that position resumes it rather than beginning a new game (None:
        it is given up, and the next game is a new one). ``offer``: the draw offer that
        stood in it when it was saved (side, ply; see :attr:`draw_offer`), standing again
        when it resumes: an offer stands until answered or a move is made, whatever
        happens to the power meanwhile.

        >>> from crownhead.rules import WCDF
        >>> saved = Game(None, WCDF); _ = saved.play_text("11-15")
        >>> session = GameSession(Game(saved.position, WCDF))   # its position, being set up
        >>> session.resume_when_set_up(saved)
        >>> session.begin(saved.position) is saved, session.resumed, session.saved
        (True, True, None)
        """
        self._saved_offer = offer if game is not None else None
        if game is not self._saved:
            self._saved = game
            self._changed()

    def begin(self, position: Position) -> Game:
        """The set-up of ``position`` stands on the board: the one place that says what
        begins. The saved game waiting for that position resumes (:attr:`resumed`), with
        its history; otherwise a new game from ``position`` under the same rules begins,
        and a saved game waiting for another position is given up. Offers and a
        resignation asked for are the old game's and go with it."""
        saved, self._saved = self._saved, None
        offer, self._saved_offer = self._saved_offer, None
        if saved is not None and saved.position == position:
            self.adopt(saved)
            self.resumed = True
            if offer is not None and offer[1] == saved.ply:
                self._offer = offer  # it stood when the power went: it stands still
            return saved
        return self.adopt(Game(position, self.rules))

    def adopt(self, game: Game) -> Game:
        """Follow ``game`` from now on (a variant's first game, the position a saved game
        is set up from), as a game begun: not :attr:`resumed`."""
        self.previous, self.previous_clock = self._game, self.clock
        self.number += 1
        self._game = game
        self._offer = self._resign = None
        self._lapsed = None  # the old game's: nothing to tell of it now
        self.resumed = False
        self._changed()
        return game

    # -- the clock -----------------------------------------------------------------------------

    def new_clock(self, now_ms: int) -> list[Event]:
        """The clock of the game under way begins afresh under :attr:`time_control` (both
        sides' full time, waiting for the side to move's first lift): its ``clock`` event,
        none without a time control (the clock is then None)."""
        control = self.time_control
        self.clock = GameTimer(control) if control is not None else None
        return self.clock.begin(self._game, now_ms) if self.clock is not None else []

    # -- who plays where --------------------------------------------------------------------

    @property
    def held(self) -> dict[Color, str]:
        """The sides whose moves are made elsewhere, each with who makes them."""
        return dict(self._held)

    def held_by(self, side: Color) -> str | None:
        """Who makes ``side``'s moves elsewhere, or None when they are made at the board."""
        return self._held.get(side)

    def held_from_outside(self, side: Color) -> str | None:
        """Who makes ``side``'s moves when :meth:`hold` put it there (not the machine)."""
        return self._outside.get(side)

    def hold(self, side: Color, by: str = "elsewhere") -> None:
        """``side``'s moves are made elsewhere (``by`` names who: a link's other end), in
        every game from now on, until :meth:`release`."""
        if self._outside.get(side) != by:
            self._outside[side] = by
            self._merge()

    def release(self, side: Color) -> None:
        """``side``'s moves are made at the board again (undoes :meth:`hold`)."""
        if self._outside.pop(side, None) is not None:
            self._merge()

    def seat_machine(self, sides: Mapping[Color, str]) -> None:
        """The sides the machine plays, each with its name (its moves are shown on the
        board, then expected): all of them, replacing those given before."""
        if dict(sides) != self._machine:
            self._machine = dict(sides)
            self._merge()

    def _merge(self) -> None:
        held = {**self._machine, **self._outside}
        if held != self._held:
            self._held = held
            self._changed()

    @property
    def person(self) -> Color | None:
        """The side of the person at the board, when the other side is held; else None."""
        if len(self._held) == 1:
            (side,) = self._held
            return side.opponent
        return None

    def resigner(self) -> Color:
        """The side a shared ``resign`` press gives up: the one played at the board.

        That is the side to move, unless its moves come from elsewhere (a computer, the
        other board) while the opponent's are made here: the button is pressed by that
        opponent, who resigns for themselves, never for the machine.
        """
        turn = self._game.turn
        if turn in self._held and turn.opponent not in self._held:
            return turn.opponent
        return turn

    # -- what the players decide ----------------------------------------------------------------

    @property
    def draw_offer(self) -> tuple[Color | None, int] | None:
        """The standing draw offer (side or None, ply), or None."""
        offer = self._offer
        game = self._game
        return offer if offer is not None and offer[1] == game.ply and not game.is_over else None

    def resign_asked(self, now_ms: int) -> tuple[Color, int] | None:
        """A resignation waiting for its confirmation at ``now_ms``: (side, until), or None."""
        pending = self._resign
        if pending is None or self._game.is_over or pending[1] < now_ms:
            return None
        return pending

    def offer_draw(self, side: Color | None, now_ms: int) -> list[Event]:
        """``side`` offers a draw, or accepts the other side's standing offer.

        ``side`` None is a shared button: the person's side when the other side is held,
        otherwise unknown. An offer stands until the next move; a draw is agreed only when
        the offer and the acceptance come from known, different sides, so one person
        pressing twice never ends a game. Nothing once the game is over.
        """
        game = self._game
        if game.is_over:
            return []
        if side is None:
            side = self.person
        ply = game.ply
        offer = self._offer if self._offer is not None and self._offer[1] == ply else None
        if offer is not None and side is not None and offer[0] is not None and offer[0] != side:
            self._offer = None
            result = game.declare("1/2-1/2", "agreement")
            self._changed()
            return [GameOver(now_ms, result.score, result.reason)]
        if offer is None or side is not None:
            self._offer = (side, ply)
            self._changed()
        return [DrawOffer(now_ms, ply, Side.of(side) if side is not None else None)]

    def resign(self, side: Color | None, now_ms: int, *, confirmed: bool = False) -> list[Event]:
        """``side`` (None: :meth:`resigner`) resigns, once confirmed: the first request asks
        (``resign-confirm``), a second one for the same side within
        :data:`~crownhead.firmware.tracking.sides.RESIGN_CONFIRM_MS`, or a ``confirmed`` one, resigns.

        >>> from crownhead.rules import BLACK, WCDF
        >>> session = GameSession(Game(None, WCDF))
        >>> [e.kind for e in session.resign(BLACK, 0)], session.resign_asked(100)
        (['resign-confirm'], (<Color.BLACK: 0>, 3000))
        >>> [e.kind for e in session.resign(BLACK, 2500)], session.game.result
        (['game-over'], Result(score='0-1', reason='resign'))
        """
        game = self._game
        if game.is_over:
            return []
        if side is None:
            side = self.resigner()
        pending = self._resign
        if not confirmed and not (pending is not None and pending[0] == side and now_ms <= pending[1]):
            until = now_ms + RESIGN_CONFIRM_MS
            self._resign = (side, until)
            self._changed()
            return [ResignAsked(now_ms, Side.of(side), until)]
        self._resign = None
        result = game.resign(side)
        self._changed()
        return [GameOver(now_ms, result.score, result.reason)]

    def reopen(self, now_ms: int) -> list[Event]:
        """A resignation or an agreed draw taken back: the game goes on from the same
        position (no move goes with it: the players decided the result, not the last
        move). None when the game did not end by one of those.

        >>> from crownhead.rules import BLACK, WCDF, WHITE
        >>> session = GameSession(Game(None, WCDF))
        >>> _ = session.offer_draw(BLACK, 0) + session.offer_draw(WHITE, 10)
        >>> [e.to_json() for e in session.reopen(20)], session.game.is_over
        ([{'t': 20, 'event': 'reopened', 'ply': 0, 'reason': 'agreement'}], False)
        """
        declared = self._game.declared
        if declared is None or declared.reason not in REOPENABLE:
            return []
        self._game.declared = None
        self._resign = None
        self._changed()
        return [Reopened(now_ms, self._game.ply, declared.reason)]

    def claim(self, now_ms: int) -> list[Event]:
        """The side to move claims a draw: a valid claim ends the game, a refused one says
        why (the one handler of a claim, in every mode: a referee records what it rules)."""
        game = self._game
        if game.is_over:
            return []
        side = Side.of(game.turn)
        text = claim_text(game, game.draw_claim())
        claimed = game.claim_draw()
        if claimed is None:
            return [Claim(now_ms, False, "none", side, text)]
        self._changed()
        return [Claim(now_ms, True, claimed.reason, side, text), GameOver(now_ms, claimed.score, claimed.reason)]

    def declare(self, score: str, reason: str, now_ms: int) -> list[Event]:
        """End the game with a result the board cannot see (a forfeit, time, an arbiter's
        decision): the ``game-over`` event, none if the game was already over."""
        game = self._game
        if game.is_over:
            return []
        result = game.declare(score, reason)
        self._changed()
        return [GameOver(now_ms, result.score, result.reason)]
