"""The board application: hardware, tracker, LED policy, players and persistence in one loop.

Data flows one way, once per :meth:`App.step`::

    switches -> debouncer -> follower -> tracker, session (the game, its clock), referee
                                |                          (the controller)
                                +-> persistence   (saved before anyone hears of a move)
                                +-> players       (the computer's move is shown, then expected)
                                +-> LED policy -> lights
                                +-> snapshot (with the roles lit) -> outputs: the snapshot,
                                    the step's events, then ``stepped`` (log lines, a host
                                    link, the display...)

Outputs read the snapshots they are given, and of the application only its port
(:class:`~crownhead.firmware.app.outputs.BoardPort`); events are kept by one table of
handlers (:data:`crownhead.firmware.app.handlers.HANDLERS`).

The application is built in small parts: the table it stands on (the parts and the state
they share, :mod:`crownhead.firmware.app.table`), the commands on it
(:mod:`crownhead.firmware.app.commands`), the recorder (:mod:`crownhead.firmware.app.recorder`),
the machine's seat (:mod:`crownhead.firmware.app.machine`), the snapshot maker
(:mod:`crownhead.firmware.app.scene`) and the table of event handlers
(:mod:`crownhead.firmware.app.handlers`); this module is the loop that drives them.

A step never sleeps and takes its time from the injected clock, so tests drive the whole
application on a :class:`~crownhead.hal.clock.VirtualClock` through complete games.
:meth:`App.run` is the real-time loop of the Pi; the terminal simulator
(:mod:`crownhead.firmware.simulator.tui`) calls :meth:`App.step` and :meth:`App.view`, and its
hands (:class:`crownhead.firmware.simulator.hands.Hands`) move the pieces of the simulated board,
which the application reads like any other board.

>>> from crownhead.hal.clock import VirtualClock
>>> from crownhead.firmware.config import default_config
>>> from crownhead.firmware.app.hardware import open_hardware
>>> clock = VirtualClock()
>>> app = App(open_hardware(default_config(), clock), clock=clock)
>>> app.start()
>>> _ = app.sim.lift(11), app.sim.place(15)     # a hand moves Black's man 11-15
>>> [e.to_json()["move"] for e in app.run_for(1000) if e.kind == "move"]
['11-15']
>>> app.view().status
'White to move, move 1'
>>> app.close()
"""

from __future__ import annotations

import logging

from crownhead.firmware.app.commands import Commands
from crownhead.firmware.app.guidance import near_side
from crownhead.firmware.app.handlers import handle
from crownhead.firmware.app.players import Computer, Thinker
from crownhead.firmware.app.resume import kept_offer
from crownhead.firmware.app.setup import setup_event
from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.app.view import BoardView, board_view
from crownhead.firmware.events import Event, GameSaved, NewGame, Notice
from crownhead.firmware.tracking.controller import Controller
from crownhead.firmware.tracking.tracker import Kind
from crownhead.hal.debounce import Debouncer
from crownhead.rules import BLACK, WHITE, Game, Position

__all__ = ["App"]

log = logging.getLogger(__name__)


class App(Commands):
    """The board's application: the main loop over its table (see the module; the
    parameters are :class:`~crownhead.firmware.app.table.Table`'s)."""

    #: The set-up last announced with a ``setup`` event (cause, fen), or None.
    _announced_setup: tuple[str, str] | None = None
    _closed = False

    # -- life cycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Claim the state directory, find the game to resume, and take the first reading.

        Every game, new or resumed, begins with its position being set up: the lights
        show which squares to fill and to empty, and play starts when the board matches.
        A resumed game keeps its moves; ``new`` pressed meanwhile puts it away instead.
        """
        if self._started:
            return
        now = self.clock.now_ms()
        self.keeper.acquire(now)
        record = self.keeper.load(now)
        resume = (record, record.to_game()) if record is not None else None
        if self.store is not None:
            store = self.store
            self.pending += [Notice(now, m) for m in self.matches.load(store.list_games)]
        if resume is not None:
            start = self.recorder.take_up(*resume, now)
        else:
            start = self.settings.start or Position.start(self.settings.rules)
        # Drain what the sensors said before now: the snapshot already contains it.
        self.hardware.sensors.poll()
        occupancy = self.hardware.sensors.snapshot()
        debouncer = Debouncer(self.hardware.debounce_ms, initial=occupancy)
        rules = resume[1].rules if resume is not None else self.settings.rules
        self.session.adopt(Game(start, rules))
        if resume is not None:
            # It goes on when its position stands on the board (the session says so).
            self.session.resume_when_set_up(resume[1], kept_offer(resume[0]))
        self.follow(board=occupancy)
        self.controller = Controller(self.hardware.sensors, self.buttons, self.follower, debouncer, self.clock)
        if resume is not None:
            # Its players and clock are shown while it is set up.
            self.modes.expect_resume(resume[1])
            referee = self.referee
            if referee is not None:
                # The referee's colours of this game of the pair are the seats' too: names
                # given for this start are the pair's first game's, not this one's.
                self.modes.seats.name_people(referee.names)
            self.session.new_clock(now)
            clock = self.session.clock
            if clock is not None:
                self.clock_saver.load(clock, resume[0].id, resume[1])
                # The moves before the power cut keep their clocks: the record and the
                # referee's PDN read every move's from the game's clock.
                clock.recall({ply: (left, used) for ply, left, used in resume[0].times}, resume[1])
        self._started = True
        # A snapshot before the first step: an output polled in it (a page asking for the
        # state) reads the game already.
        self.scene.last = self.scene.dressed(self.scene.take(now))
        self.outputs.snapshot(self.scene.last)  # the outputs hear the game before the first step
        for fault in getattr(self.hardware, "faults", ()):
            self.pending.append(Notice(now, fault))
        self.pending += self.follower.new_game(start, now)
        self.step(now)
        if resume is not None and self.resuming:
            # The pieces do not stand as saved. Headless (the service) there is no screen:
            # the log says what the lights ask.
            self._emit(
                Notice(
                    now,
                    f"unfinished game {resume[0].id} ({resume[1].ply} {'ply' if resume[1].ply == 1 else 'plies'}):"
                    " it resumes when its "
                    "position stands on the board (the lights show the squares to fill and to "
                    "empty); press new for a new game instead",
                )
            )

    def close(self) -> None:
        """Save the game, turn the LEDs off, release the hardware and the state directory."""
        if self._closed:
            return
        self._closed = True
        saved: list[GameSaved] = []
        try:
            if self._started:
                saved = self.recorder.save(self.clock.now_ms())
        finally:
            self.thinker.cancel()
            self.hints.thinker.cancel()
            self.analyst.close()
            self.clock_saver.close()  # its last state written
            try:
                self.hardware.lights.off()
                self.hardware.lights.flush(None)
            except Exception:  # noqa: BLE001 - the rest of the shutdown matters more
                log.exception("could not turn the LEDs off")
            self.hardware.close()
            self.keeper.release()
            if self._started:
                now = self.clock.now_ms()
                self.publish([*saved, Notice(now, self.keeper.stopped_text())])
            self.outputs.close()  # the outputs last: they hear how the board stopped

    # -- the loop -------------------------------------------------------------------------

    def step(self, now: int | None = None) -> list[Event]:
        """One iteration: read the board, keep the game, move the machine, light the LEDs."""
        if not self._started:
            raise RuntimeError("App.start() first")
        now = self.clock.now_ms() if now is None else now
        self.steps += 1
        self.message_line.step(now)
        queue = self.pending + self.controller.step(now)
        queue += self.outputs.poll(now)  # what the outputs did (a link's lines, a page's requests)
        self.pending = []
        out: list[Event] = []
        i = 0
        while i < len(queue):
            event = queue[i]
            i += 1
            # The set-up of a resumed game is no new game: game-start (resumed) says it.
            if not (isinstance(event, NewGame) and self.session.resumed):
                out.append(event)
            queue += handle(self, event, now)
        self._return_to_mode(now)  # before the machine moves: the seats of the new game
        self._seat_coming_game()
        self.machine.play(now, out)
        self.hints.find(
            self.tracker.game, self.machine.hint_allowed(), self.tracker.reading.kind is Kind.IDLE, now, out
        )
        out += self._announce_setup(now)
        target, tracker = self.setup_target(), self.tracker
        before = tracker.game.position if target is not None and target[0] == "new-game" else None
        at_board = [c for c in (BLACK, WHITE) if c not in tracker.held and self.players[c].is_human]
        out += self.guide.follow(target, tracker.board, before, near_side(at_board), now)
        self.analyst.follow(self.tracker.game if self.analysing else None)
        self.recorder.keep_clock(now)
        self.takeback_pressed = False  # a press is handled in the step that polled it
        self.scene.note_takebacks()
        # The step's snapshot, with the roles its LEDs light, before its events go out:
        # an output hearing of a move reads the game with that move made, and what it
        # shows of the step (a page's view) shows that step's lights.
        scene = self.scene
        snapshot = scene.take(now)
        snapshot = scene.last = scene.dressed(snapshot, scene.light(snapshot, now))
        self.outputs.snapshot(snapshot)
        self.publish(out)
        self.outputs.stepped(now, snapshot)
        return out

    def _seat_coming_game(self) -> None:
        """A new game is set up: a match's players take their seats for it now (the machine
        on its colour of that game, the people under the match's names), so that the
        set-up is guided, held and shown as the game to come, not the one put away. The
        match counts the game when it begins (the recorder seats them the same)."""
        if self.resuming or self.tracker.setting_up is None:
            return
        coming = self.matches.coming(self.players)
        if coming is not None and coming != dict(self.players):
            self.players.update(coming)

    def next_deadline(self) -> int | None:
        """When :meth:`step` must run next (debounce, settle, blink, frame limit); None if idle."""
        now = self.clock.now_ms()
        times = [
            self.controller.next_deadline(),
            self.policy.next_change(now),
            self.hardware.lights.next_deadline(),
        ]
        held = getattr(self.hardware.buttons, "next_deadline", None)
        if held is not None:
            times.append(held())  # a button held down becomes a long press
        times.append(self.outputs.deadline())
        times.append(self.message_line.until)
        if self.sim is not None:
            times.append(self.sim.next_event_ms())
        if self.thinker.busy or self.hints.thinker.busy:
            times.append(now + 20)  # poll the thinking machine
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def sleeps_until_due(self) -> bool:
        """Whether :meth:`run` may sleep until the next deadline: on the simulated board,
        whose switches change only when this loop moves its pieces or at the times its
        timeline holds (:meth:`next_deadline`, exactly what virtual time steps through),
        with no output polling but those that wake the loop (``wakes``). Elsewhere a scanner's or a serial
        board's change, or a link's line, is only seen at the next poll."""
        return self.hardware.backend == "sim" and self.outputs.all_wake

    def settle(self, limit_ms: int = 10_000) -> list[Event]:
        """Virtual time: run until nothing is pending but blinking (at most ``limit_ms``)."""
        events: list[Event] = []
        end = self.clock.now_ms() + limit_ms
        while True:
            times = [self.controller.next_deadline(), self.hardware.lights.next_deadline()]
            if self.sim is not None:
                times.append(self.sim.next_event_ms())
            if self.thinker.busy or self.hints.thinker.busy:
                times.append(self.clock.now_ms() + 20)
            due = [t for t in times if t is not None]
            if not due or min(due) > end:
                break
            events += self.run_until(min(due))
        return events

    # -- the step's parts ----------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        """The game as the last step left it: what every output draws from."""
        if self.scene.last is None:
            raise RuntimeError("App.start() first")
        return self.scene.last

    @property
    def lit_roles(self) -> dict[int, str]:
        """The LED role of each lit square, as last shown (the snapshot's ``lit`` too)."""
        return self.scene.lit_roles

    def _announce_setup(self, now: int) -> list[Event]:
        """A ``setup`` event when a set-up begins (or its target changes): the whole position."""
        target = self.setup_target()
        key = (target[0], target[1].fen()) if target is not None else None
        if key == self._announced_setup:
            return []
        self._announced_setup = key
        if target is None:
            return []
        cause, position = target
        if cause == "new-game":
            self.message_line.forget()  # the game before is put away
        return [setup_event(now, cause, position, self.tracker.board)]

    def _emit(self, event: Event) -> None:
        self.publish([event])

    @property
    def hint_player(self) -> Computer | None:
        return self.hints.player

    @hint_player.setter
    def hint_player(self, player: Computer | None) -> None:
        self.hints.player = player

    @property
    def hint_thinker(self) -> Thinker:
        return self.hints.thinker

    @hint_thinker.setter
    def hint_thinker(self, thinker: Thinker) -> None:
        self.hints.thinker = thinker

    def view(self) -> BoardView:
        """What the terminal simulator shows now (see :mod:`crownhead.firmware.app.view`)."""
        return board_view(self.scene.dressed(self.snapshot))
