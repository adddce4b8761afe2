"""The snapshot maker: the step's :class:`~crownhead.firmware.app.snapshot.Snapshot`, lit and dressed.

The :class:`Scene` makes each step's snapshot of the table (only when one of its inputs
changed: most steps hand the outputs the same object again), lights the LEDs for it and
dresses it with the roles lit and what else the board shows (:class:`Shown`: the
message, the hint, the machine thinking, the page's addresses, the simulated board...).
It also keeps the moves taken back until the board shows the game again, which the
takeback guidance and the words of a takeback name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from crownhead.firmware.app.snapshot import Condition, Offer, Seat, Setup, Sheet, Shown, Snapshot, standing
from crownhead.firmware.app.table import Table
from crownhead.firmware.events import ClockState
from crownhead.firmware.tracking.picture import picture
from crownhead.firmware.tracking.roles import Role
from crownhead.hal.lights import Frame
from crownhead.rules import BLACK, WHITE, Color, Game, Move

__all__ = ["Scene"]


class Scene:
    """What ``table`` shows, step by step (see the module)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._frame: Frame | None = None
        #: The last snapshot made (None before the board started).
        self.last: Snapshot | None = None
        #: What the last snapshot was built from (see :meth:`_inputs`).
        self._made_of: tuple[object, ...] | None = None
        #: The game's moves as the last step left them, and the moves taken back since the
        #: board last showed the game (what the takeback guidance names).
        self._moves_seen: tuple[Game | None, tuple[Move, ...]] = (None, ())
        self.undone: tuple[Move, ...] = ()
        #: The LED role of each lit square, as last shown (a screen draws them).
        self.lit_roles: dict[int, str] = {}

    # -- the step's snapshot ----------------------------------------------------------------

    def take(self, now: int) -> Snapshot:
        """The game as this step leaves it (see :mod:`crownhead.firmware.app.snapshot`), numbered
        after the last one: the last one itself when none of its inputs changed (most
        steps), with only the clock's times new while a clock runs."""
        inputs = self._inputs()
        clock = self.table.clock_state(now)
        previous = self.last
        if previous is not None and inputs == self._made_of:
            if clock == previous.clock:
                return previous
            if clock is not None and previous.clock is not None and not (clock.paused or previous.clock.paused):
                if clock[2:] == previous.clock[2:]:
                    return replace(previous, clock=clock)  # the same revision: only time ran
        self._made_of = inputs
        return self._build(clock)

    def _inputs(self) -> tuple[object, ...]:
        """Everything but the clock a snapshot is drawn from, as cheap values: the
        session's revision (the game, offers, result, holds), the tracker's version (the
        board, its reading, warnings and roles), which tracker and referee, and what the
        application adds (the hint, the resume, the moves taken back, the names)."""
        table = self.table
        tracker = table.tracker
        crowned = tracker.crowned
        sim = table.sim
        return (
            tracker,
            table.referee,
            tracker.version,
            table.session.revision,
            table.follower.resign_asked,  # it lapses with time
            table.hint,
            table.resuming,
            table.kept_game,
            self.undone,
            self.shown_seats(),
            table.guide.step,  # the rank of a set-up that is lit
            # The live analysis deepens in its worker while the position stands.
            table.analyst.latest() if table.analysing else None,
            # A man crowned on the simulated board changes no switch.
            sim.pieces.get(crowned) if crowned is not None and sim is not None else None,
            table.away,
            self._heading(),
        )

    def _heading(self) -> tuple[str, str, str | None, str | None, str | None]:
        """The names the game is played under (the referee's in referee mode, else the
        players'), its event and round as the referee tags it (None: none given) and its id
        on this board (the hall tells one game from the next by it): the heading of its
        :class:`Sheet`. Read every step (each is cheap): a tag or a record comes by a command."""
        table = self.table
        referee = table.referee
        if referee is not None:
            black, white = referee.names
        else:
            black, white = table.players[BLACK].name, table.players[WHITE].name
        event = round_ = None
        state = referee.state if referee is not None else None
        if state is not None:
            record = state.record
            event = record.event if record.event not in ("", "?") else None
            if record.round not in ("", "?"):
                # The referee tags the games of a session ROUND.K: the round is ROUND.
                round_ = record.round.rpartition(".")[0] or record.round
        stored = table.record
        game_id = (stored.id if stored is not None else None) or (state.name if state is not None else None)
        return black, white, event, round_, str(game_id) if game_id else None

    def _sheet(self, game: Game) -> Sheet:
        """``game`` as its score sheet has it (see :class:`Sheet`)."""
        black, white, event, round_, game_id = self._heading()
        return Sheet(
            game.start,
            tuple(game.moves),
            tuple(game.positions),
            game.condoned,
            game.rules,
            game.result,
            black,
            white,
            event,
            round_,
            game_id,
        )

    def shown_seats(self) -> tuple[tuple[str, str], tuple[int, int]]:
        """Black's and White's names and cautions as the board shows them: the game's
        (the referee's in referee mode); while a new game is set up, the next game's
        (a match seats its players, a referee's pair reverses the colours), never those of
        the game put away."""
        table = self.table
        referee = table.referee
        setup = table.setup_target()
        if setup is not None and setup[0] == "new-game":
            coming = table.matches.coming(table.players)
            if coming is not None:
                return (coming[BLACK].name, coming[WHITE].name), (0, 0)
            if referee is not None:
                return referee.next_names, (0, 0)
        if referee is not None:
            return referee.names, (referee.cautions(BLACK), referee.cautions(WHITE))
        return (table.players[BLACK].name, table.players[WHITE].name), (0, 0)

    def _build(self, clock: ClockState | None) -> Snapshot:
        table = self.table
        tracker = table.tracker
        # While a saved game is set up to resume, that game (its moves, whose turn), not
        # the one the tracker reads the board with meanwhile.
        game = table.game
        target = table.setup_target()
        step = table.guide.step
        setup = Setup(*target, rank=step.rank if step is not None else None) if target is not None else None
        board = tracker.board
        pieces, strays = standing(setup.position if setup is not None else game.position, board)
        follower = table.follower
        roles = table.guide.light(picture(tracker, table.hint, roles=follower.roles))
        offer = table.session.draw_offer
        asked = follower.resign_asked
        result = game.result if tracker.setting_up is None else None
        crown = next((s for s, r in roles.items() if r == Role.CROWN), None)
        if crown is not None and (result is not None or self._crowned_on_board(crown)):
            crown = None  # nothing left to ask: a king stands there, or the game is over
        # A new game being set up has no moves yet: the game put away's are not shown.
        fresh = setup is not None and setup.cause == "new-game"
        moves = () if fresh else tuple(game.moves)
        snapshot = Snapshot(
            position=game.position,
            board=board,
            pieces=pieces,
            strays=strays,
            ply=0 if fresh else game.ply,
            last_move=moves[-1] if moves else None,
            roles=roles,
            conditions=self._conditions(roles),
            clock=clock,
            offer=Offer(*offer) if offer is not None else None,
            result=result,
            setup=setup,
            expected=tracker.expected,
            rules=game.rules,
            moves=moves,
            seats=self._seats(),
            resign_asked=asked[0] if asked is not None else None,
            resuming=table.resuming,
            crown=crown,
            touched=self._touch_move(board, result),
            undone=self.undone,
            analysis=table.analyst.latest() if table.analysing else None,
            away=table.away,
            sheet=self._sheet(game),
        )
        return snapshot.then(self.last)

    def _conditions(self, roles: Mapping[int, str]) -> tuple[Condition, ...]:
        """The board's warnings as conditions, with the squares to put back and take off."""
        follower = self.table.follower
        put_back = tuple(sorted(s for s, r in roles.items() if r == Role.MISSING))
        take_off = tuple(sorted(s for s, r in roles.items() if r in (Role.EXTRA, Role.REMOVE)))
        return tuple(
            Condition(
                w.code,
                w.squares,
                w.message,
                # A piece moved wrongly goes back where it came from (the first square).
                put_back or (w.squares[:1] if w.code == "illegal-move" else ()),
                take_off,
            )
            for w in (follower.warnings if self.table.tracker.warning is not None else ())
        )

    def _seats(self) -> dict[Color, Seat]:
        held = self.table.tracker.held
        names, cautions = self.shown_seats()
        return {
            color: Seat(name, caution, held.get(color, ""))
            for color, name, caution in zip((BLACK, WHITE), names, cautions)
        }

    def _touch_move(self, board: int, result: object) -> int | None:
        """The square of the piece touched this turn that must now be played: under
        strict touch-move, with the piece back on its square and a move for it, so that
        the rule is said before it is applied."""
        table = self.table
        tracker = table.tracker
        touched = tracker.touched
        if touched is None or not table.mode.strict_touch_move or result is not None or tracker.expected is not None:
            return None
        if board != tracker.game.position.occupied:
            return None
        return touched if any(p.move.start == touched for p in tracker.table.plans) else None

    def _crowned_on_board(self, square: int) -> bool:
        """Whether a king is seen standing on ``square``: only the simulated board knows
        (a real board's switches cannot tell a crowned man, so the prompt stays there)."""
        sim = self.table.sim
        token = sim.pieces.get(square) if sim is not None else None
        return token is not None and token != token.lower()

    # -- the moves taken back ---------------------------------------------------------------

    def taken_back_words(self, ply: int) -> str:
        """``Taken back: move 1, Black's 11-15.``: the move as the last step saw it."""
        game, seen = self._moves_seen
        if game is None or not 1 <= ply <= len(seen):
            return f"Taken back: move {(ply + 1) // 2}."
        mover = game.start.turn if ply % 2 else game.start.turn.opponent
        number = (ply + (0 if game.start.turn is BLACK else 1) + 1) // 2
        return f"Taken back: move {number}, {mover.name.title()}'s {seen[ply - 1].pdn()}."

    def note_takebacks(self) -> None:
        """Keep the moves taken back (one or two plies a press, several presses) until
        the board shows the game again: the guidance says what to put back where."""
        tracker = self.table.tracker
        game = tracker.game
        moves = tuple(game.moves)
        seen_game, seen = self._moves_seen
        if game is seen_game and len(moves) < len(seen) and seen[: len(moves)] == moves:
            self.undone = seen[len(moves) :] + self.undone
        elif game is not seen_game or moves != seen:
            self.undone = ()
        self._moves_seen = (game, moves)
        if self.undone and (tracker.board_matches or tracker.setting_up is not None):
            self.undone = ()

    # -- lit and dressed ----------------------------------------------------------------------

    def light(self, snap: Snapshot, now: int) -> dict[int, str]:
        """Light the LEDs for ``snap``; the roles they light (see :attr:`Snapshot.lit`)."""
        table = self.table
        condition = snap.condition
        squares: tuple[int, ...] = condition.squares if condition is not None else ()
        roles = dict(snap.roles)
        frame = table.policy.frame(
            roles, now_ms=now, warning_squares=squares, result=snap.result, position=snap.position
        )
        lights = table.hardware.lights
        if frame != self._frame:
            self._frame = frame
            self.lit_roles = {square: role for square, role in roles.items() if square in frame}
            lights.show(frame)
        else:
            lights.flush(now)
        return self.lit_roles

    def dressed(self, snapshot: Snapshot, lit: Mapping[int, str] | None = None) -> Snapshot:
        """``snapshot`` with the roles lit (``lit``; None: as it has them) and what else the
        board shows now (:class:`Shown`), numbered again if they changed."""
        shown = self._shown()
        if lit is None:
            lit = snapshot.lit
        if snapshot.shown == shown and dict(snapshot.lit) == dict(lit):
            return snapshot
        return replace(snapshot, lit=MappingProxyType(dict(lit)), shown=shown).then(self.last)

    def _shown(self) -> Shown:
        """What the board shows besides the game, now (see :class:`Shown`)."""
        table = self.table
        sim = table.sim
        machine = ""
        if table.mode.computer:
            machines = [c.name.title() for c, p in table.players.items() if not p.is_human]
            machine = machines[0] if machines else ""
        thinking = "machine" if table.thinker.busy else "hint" if table.hints.thinker.busy else ""
        lights = sim.lights if sim is not None else table.hardware.lights
        hands = table.hardware.sim  # the simulated board's pieces and hand, as the hardware has it now
        policy = table.policy
        return Shown(
            frame=MappingProxyType(dict(lights.current)),
            blinking=table.blinking,
            message=table.message,
            hint=table.hint,
            thinking=thinking,
            mode=table.mode.title,
            machine=machine,
            hints_shown=policy.hints_shown,
            hints_on=policy.hints_on,
            referee_lights=table.mode.referee_lights,
            takeback=table.mode.takeback,
            referee_mode=table.referee is not None,
            match=table.matches.line(),
            display=tuple(getattr(table.hardware.display, "lines", ()) or ()),
            page_urls=table.page_urls,
            page_pin=table.page_pin,
            first_number=table.first_number,
            white_began=table.game.start.turn is WHITE,
            verdict=table.problem_verdict(),
            tokens=MappingProxyType(dict(hands.pieces)) if hands is not None else None,
            hand=tuple(hands.hand) if hands is not None else (),
            brightness=round(policy.settings.brightness * 100),
            match_state=table.matches.match,  # as line() just read it
        )
