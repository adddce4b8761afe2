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
handlers (:data:`_HANDLERS`).

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType

from crownhead.firmware.tracking.controller import Controller
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.firmware.tracking.picture import picture
from crownhead.firmware.tracking.roles import Role
from crownhead.firmware.events import (
    ClockState,
    Alert,
    ComputerMove,
    Crowned,
    DrawDeclined,
    DrawLapsed,
    DrawOffer,
    Event,
    ForcedJump,
    Forfeit,
    GameOver,
    GameSaved,
    GameStarted,
    Huffed,
    HuffTakenBack,
    MoveMade,
    NewGame,
    Notice,
    Reopened,
    ResignAsked,
    TakenBack,
    Side,
)
from crownhead.firmware.app.hardware import Hardware, TappedButtons, tidy_hand
from crownhead.firmware.app.keeper import GameKeeper
from crownhead.firmware.app.leds import LedPolicy, LedSettings
from crownhead.firmware.app.setup import setup_event
from crownhead.firmware.app.guidance import SetupGuide, near_side
from crownhead.firmware.app.outputs import O, Output, Outputs, SinkOutput
from crownhead.firmware.app.snapshot import Away, Condition, Offer, Seat, Setup, Shown, Snapshot, standing
from crownhead.firmware.app.matchplay import MatchPlay
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.sinks import Sink
from crownhead.firmware.app.view import BoardView, MessageLine, board_view
from crownhead.firmware.app.analysis import Analyst
from crownhead.firmware.app.players import (
    Computer,
    Hints,
    Human,
    MachineSpec,
    Player,
    PlayerError,
    Thinker,
    draw_answer,
    machine_player,
)
from crownhead.firmware.app.commands import NO_HINT_FAR, Commands
from crownhead.firmware.app.loop import Loop
from crownhead.firmware.app.modes import Modes
from crownhead.firmware.app.resume import comeback, kept_offer, offer_text
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.app.timing import ClockSaver
from crownhead.firmware.storage.matches import MatchStore
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.firmware.tracking.session import REOPENABLE, GameSession
from crownhead.firmware.tracking.tracker import Kind, Tracker, TrackerSettings
from crownhead.hal.buttons import ButtonEvent
from crownhead.hal.clock import Clock
from crownhead.hal.lights import Frame
from crownhead.hal.debounce import Debouncer
from crownhead.firmware.app.tryagain import tags_of
from crownhead.rules import BLACK, WHITE, Color, Game, Move, Position
from crownhead.rules.engine.egdb import EndgameTables

__all__ = ["App", "Source"]

log = logging.getLogger(__name__)

#: Polled once per step after the board was read, with the step's time: something outside
#: the board (a host link) that may act on the game; returns the events its actions caused.
Source = Callable[[int], list[Event]]


#: What the screen says when a result is taken back (:class:`Reopened`), by its reason.
_REOPENED_WORDS = {
    "resign": "The resignation is taken back: play on.",
    "agreement": "The draw agreed is taken back: play on.",
}

#: A saved game's mode in words (a game resumed in another mode says what it was).
_GAME_WORDS = {"play": "two-player game", "computer": "game against the computer", "referee": "refereed game"}


def _tables(store: GameStore | None) -> EndgameTables | None:
    """The endgame tables the analysis probes: a build in the state directory, with the
    shipped tables for whatever it lacks (None without any; a damaged file is left out)."""
    from crownhead.firmware.egdb import EgdbError, load_probe

    try:
        return load_probe(skip_damaged=True, state_dir=store.directory if store is not None else None)
    except EgdbError as error:
        log.warning("analysis: endgame tables not used: %s", error)
        return None


# -- the application -----------------------------------------------------------------------


class App(Loop, Commands):
    """The board's application around opened :class:`~crownhead.firmware.app.hardware.Hardware`.

    ``players`` maps each colour to a :class:`~crownhead.firmware.app.players.Player` (default: people
    on both sides). ``store`` keeps the games (None: nothing is saved, for tests of the
    lights alone). ``sources`` are polled every step (see :data:`Source`).
    ``sinks`` receive every event, the tracker's and the app's, after the
    game has been saved. ``thinker`` runs computer players (default: in the background).
    ``referee`` judges the games in referee mode (default: one with ``referee_settings``,
    the configured ``[referee]`` section, which also serves a later :meth:`set_mode`).
    ``hint_player`` finds the best move the hint button shows (default: the engine at
    ``settings.hint_movetime_ms``, made at the first hint); ``hint_thinker`` runs it, apart
    from ``thinker`` so that a hint never disturbs the machine's own thinking (default:
    one like ``thinker``, in the background or not). ``analyst`` runs the live analysis
    while it is on (``settings.analysis``, :meth:`set_analysis`; default: one in the
    background like ``thinker``, with the endgame tables of the state directory).
    """

    def __init__(
        self,
        hardware: Hardware,
        *,
        clock: Clock | None = None,
        settings: AppSettings = AppSettings(),
        leds: LedSettings | None = None,
        tracker_settings: TrackerSettings = TrackerSettings(),
        store: GameStore | None = None,
        players: Mapping[Color, Player] | None = None,
        thinker: Thinker | None = None,
        sinks: Iterable[Sink] = (),
        sources: Iterable[Source] = (),
        referee: Referee | None = None,
        referee_settings: RefereeSettings | None = None,
        hint_player: Computer | None = None,
        hint_thinker: Thinker | None = None,
        make_machine: Callable[[MachineSpec], Player] | None = None,
        analyst: Analyst | None = None,
    ) -> None:
        Loop.__init__(self)
        self.hardware = hardware
        self.clock: Clock = clock or hardware.clock
        self.settings = settings
        self.store = store
        self.thinker = thinker or Thinker(background=True)
        #: The engine's move the hint button shows.
        self.hints = Hints(
            hint_player, hint_thinker or Thinker(background=self.thinker.background), settings.hint_movetime_ms
        )
        #: The engine's live analysis of the position standing, in a worker of its own.
        self.analyst = analyst or Analyst(
            background=self.thinker.background,
            nodes=settings.analysis_nodes,
            tables=lambda: _tables(store),
            wake=self.wake,
        )
        self.analysis_wanted = settings.analysis
        #: Every output of the board (see :mod:`crownhead.firmware.app.outputs`): the sinks given
        #: here first, then what :meth:`add_output` adds; closed last by :meth:`close`.
        self.outputs = Outputs()
        for sink in sinks:
            self.outputs.add(SinkOutput(sink))
        self.sources: list[Source] = list(sources)
        #: Sources that wake the real-time loop themselves (:meth:`wake`) when another
        #: thread gives them something, and say in :attr:`deadlines` when they want a
        #: step: with no other source, :meth:`run` on the simulated board sleeps until
        #: the next thing due.
        self.waking_sources: list[Source] = []
        #: When a source wants the next step, besides the board's own deadlines (a display
        #: drawn in this thread, a buzzer pattern): functions returning a time or None.
        self.deadlines: list[Callable[[], int | None]] = []
        #: Told of every button press before the app and the tracker; one returning False
        #: has answered it (the voice's ``speak`` button), and nothing else hears of it.
        self.press_listeners: list[Callable[[ButtonEvent], bool | None]] = []
        self.policy = LedPolicy(leds, referee=settings.policy.referee_lights)
        #: The game of the board and everything decided about it (the record, offers,
        #: resignations, the result, the held sides, the clock): one for the whole run,
        #: given to every tracker the board follows (see :meth:`follow`).
        self.session = GameSession(Game(settings.start, settings.rules), start=settings.start)
        #: The game followed on the board: the controller's inputs and the commands about
        #: the game go to the tracker, the session, the clock and the referee through it.
        self.follower = Follower()
        #: The mode, who plays each side, and referee mode's arbiter (it judges the tracker).
        self.modes = Modes(
            settings, self.policy, players, referee, referee_settings, make_machine or machine_player, self.session
        )
        self.tracker_settings = tracker_settings
        #: Keeps the session's clock on disk (``clock.json``), whatever the mode.
        self.clock_saver = ClockSaver(store.directory / "clock.json" if store is not None else None)
        self._set_clock()
        self.sim = hardware.sim
        #: What the board says on the screens and pages (:meth:`say`).
        self.message_line = MessageLine()
        #: Steps run so far (the web page reports the loop's rate from it).
        self.steps = 0
        #: Where the board's web page is reached and its PIN (see BoardView): set by whoever
        #: serves the page, shown on the screen and the display.
        self.page_urls: tuple[str, ...] = ()
        self.page_pin = ""
        #: What a game far apart waits for (the snapshot's ``away``): set by whoever
        #: watches its line (:class:`crownhead.firmware.remote.board.Absence`); None: nothing.
        self.away: Away | None = None
        #: The rank of a set-up the lights show now (see firmware.app.guidance).
        self.guide = SetupGuide()
        #: The set-up last announced with a ``setup`` event (cause, fen), or None.
        self._announced_setup: tuple[str, str] | None = None
        #: The takeback button was pressed (a computer game then takes back two plies).
        self._takeback_pressed = False
        self._started = False
        self._closed = False
        #: Said when the saved game resumes in another mode than it was played in.
        self._resume_note = ""
        self._frame: Frame | None = None
        self._snapshot: Snapshot | None = None
        #: What the last snapshot was built from (see _snapshot_inputs).
        self._snapshot_made_of: tuple[object, ...] | None = None
        #: The game's moves as the last step left them, and the moves taken back since the
        #: board last showed the game (what the takeback guidance names).
        self._moves_seen: tuple[Game | None, tuple[Move, ...]] = (None, ())
        self._undone: tuple[Move, ...] = ()
        self._pending: list[Event] = []
        #: The games on disk.
        self.keeper = GameKeeper(store, lambda event: self._pending.append(event))
        #: The game on disk and its record: the game played, or the saved one set up to
        #: resume, until the next game begins.
        self._game: Game | None = None
        self.record: GameRecord | None = None
        self._buttons = TappedButtons(hardware.buttons, self._on_press)
        #: The LED role of each lit square, as last shown (a screen draws them).
        self.lit_roles: dict[int, str] = {}
        self.controller: Controller
        #: The match under way in the state directory (see firmware.app.matchplay).
        self.matches = MatchPlay(
            MatchStore(store.directory) if store is not None else None, settings.match, self.players
        )

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
            self._pending += [Notice(now, m) for m in self.matches.load(store.list_games)]
        if resume is not None:
            start = self._take_up(*resume, now)
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
        self.controller = Controller(self.hardware.sensors, self._buttons, self.follower, debouncer, self.clock)
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
        # A snapshot before the first step: a source polled in it (a page asking for the
        # state) reads the game already.
        self._snapshot = self._dressed(self._take_snapshot(now))
        self.outputs.snapshot(self._snapshot)  # the outputs hear the game before the first step
        for fault in getattr(self.hardware, "faults", ()):
            self._pending.append(Notice(now, fault))
        self._pending += self.follower.new_game(start, now)
        self.step(now)
        if resume is not None and self._resuming:
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

    # -- a game resumes as it was played ------------------------------------------------------

    def _take_up(self, record: GameRecord, game: Game, now: int) -> Position:
        """The saved game ``record`` (``game``) is the one to resume: its players seated,
        the simulated board set as saved if asked, what it is said; its position."""
        self.record, self._game = record, game
        self._come_back(record, now)
        # The people of a resumed game are those who were playing it (unless names
        # were given for this start).
        named = "names" in self.settings.given
        for color, name in ((BLACK, record.black), (WHITE, record.white)):
            player = self.players[color]
            if name not in ("", "?") and isinstance(player, Human) and (player.name in ("", "?") or not named):
                self.modes.seats.name(color, name)
        # A game of the match resumes with its players where the match put them, from
        # its set-up on: names given for this start are the match's, not this game's
        # colours.
        self.players.update(self.matches.resumed(record, self.players))
        start = game.position
        if self.settings.sim_keep_game and self.sim is not None:
            self.sim.set_position({s: p.symbol for s, p in start.pieces().items()})
        plies = f"{game.ply} {'ply' if game.ply == 1 else 'plies'}"
        how = ""
        if self.mode.name != record.mode and "mode" in self.settings.given:
            saved = _GAME_WORDS.get(record.mode, f"{record.mode} game")
            how = f", a {saved}, in {self.mode.name} mode as asked (--mode)"
            # Said again once it resumes: the game was not the one asked for.
            self._resume_note = (
                f"This is the unfinished {saved} ({plies}), now in {self.mode.name} mode:"
                " press new for a new game instead."
            )
        self.say(
            f"Resuming the unfinished game ({plies}){how}. Put the pieces where the "
            "lights ask, or press new for a new game."
        )
        return start

    def _come_back(self, record: GameRecord, now: int) -> None:
        """The saved game's mode and its settings, as its record keeps them, before its
        set-up (see :func:`crownhead.firmware.app.resume.comeback`): the machine's side and level,
        the referee's settings (its state of the game goes to the referee when the game
        resumes), hints, the board clock, the rules of the games after it."""
        assert self.store is not None
        plan = comeback(record, self.settings, self.mode.name, str(self.store.current_path))
        if plan is None:
            return  # an older record: the game resumes as configured
        for level, message in plan.said:
            log.log(level, "%s", message)
            self._pending.append(Notice(now, message))
        if plan.rules is not None:
            self.settings = replace(self.settings, rules=plan.rules, start=None)
        if plan.clock != self.settings.clock:
            self.settings = replace(self.settings, clock=plan.clock)
        self._pending += [Notice(now, message) for message in self.modes.resume(plan)]
        self._set_clock()

    def follow(
        self,
        tracker: Tracker | None = None,
        *,
        resumed: bool = False,
        now: int | None = None,
        board: int | None = None,
    ) -> Tracker:
        """Follow the board with ``tracker`` (default: a new one reading ``board``, or the
        board as it stands) from now on: the one place the followed tracker is made and
        replaced (at start, when a saved game resumes, when the rules or the mode change),
        and the mode's referee given to the follower as its judge. Every tracker reads the
        session's game (:attr:`session`: its record, offers, result, held sides and clock,
        nothing copied), whose new games begin from the session's start position
        (``--fen`` is the start of every game, not only the first); the controller drives
        the one follower. ``resumed``: it follows the saved game now resuming (the referee
        goes on with it); ``now``: the mode was entered now (a game not yet begun is
        refereed, and timed, from then)."""
        self.session.new_start = self.settings.start
        if tracker is None:
            occupancy = board if board is not None else self.controller.occupancy
            tracker = Tracker(self.session, self.tracker_settings, self.mode, board=occupancy)
        elif tracker.session is not self.session:
            raise ValueError("the board follows its own session's game: Tracker(app.session, ...)")
        follower = self.follower
        follower.tracker = tracker
        referee = self.modes.referee
        follower.judge = referee
        self._set_clock()
        if resumed and referee is not None:
            saved, self.modes.referee_game = self.modes.referee_game, None
            self._pending += referee.resume(follower, saved)
        elif now is not None and not tracker.game.is_over and tracker.setting_up is None:
            clock = self.session.clock
            if referee is not None or (clock.control if clock is not None else None) != self.session.time_control:
                self._pending += follower.begin(now)
        return tracker

    @property
    def tracker(self) -> Tracker:
        """The tracker reading the board (replaced only by :meth:`follow`)."""
        return self.follower.tracker

    @property
    def board_clock(self) -> GameTimer | None:
        """The game's clock (the session's), or None without a time control."""
        return self.session.clock

    def _set_clock(self) -> None:
        """The time control of the games to come: the referee's in referee mode, else the
        settings' (a game under way keeps its clock; a clock no longer wanted goes
        unless it runs)."""
        referee = self.modes.referee
        control = referee.settings.clock if referee is not None else self.settings.clock
        session = self.session
        session.time_control = control
        clock = session.clock
        if control is None and clock is not None and (clock.clock.stopped or clock.clock.running is None):
            session.clock = None

    def _new_record(self, start: Position) -> GameRecord:
        s = self.settings
        record = GameRecord.new(
            black=self.players[BLACK].name,
            white=self.players[WHITE].name,
            event=s.event or self.mode.event,
            site=s.site,
            mode=self.mode.name,
            start=start,
            rules=self.session.game.rules,
        )
        tags = self.start_tags
        if tags is None or tags[0] != start:
            return record
        self.start_tags = None  # the tags given with that set-up: this game's alone
        return replace(record, extra=dict(tags[1]))

    def close(self) -> None:
        """Save the game, turn the LEDs off, release the hardware and the state directory."""
        if self._closed:
            return
        self._closed = True
        saved: list[GameSaved] = []
        try:
            if self._started:
                saved = self._save(self.clock.now_ms())
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
                self._publish([*saved, Notice(now, self.keeper.stopped_text())])
            self.outputs.close()  # the outputs last: they hear how the board stopped

    # -- the loop -------------------------------------------------------------------------

    def step(self, now: int | None = None) -> list[Event]:
        """One iteration: read the board, keep the game, move the machine, light the LEDs."""
        if not self._started:
            raise RuntimeError("App.start() first")
        now = self.clock.now_ms() if now is None else now
        self.steps += 1
        self.message_line.step(now)
        queue = self._pending + self.controller.step(now)
        queue += self._poll_sources(now)
        self._pending = []
        out: list[Event] = []
        i = 0
        while i < len(queue):
            event = queue[i]
            i += 1
            # The set-up of a resumed game is no new game: game-start (resumed) says it.
            if not (isinstance(event, NewGame) and self.session.resumed):
                out.append(event)
            queue += self._handle(event, now)
        self._return_to_mode(now)  # before the machine moves: the seats of the new game
        self._seat_coming_game()
        self._play_computer(now, out)
        self.hints.find(self.tracker.game, self._hint_allowed(), self.tracker.reading.kind is Kind.IDLE, now, out)
        out += self._announce_setup(now)
        target, tracker = self.setup_target(), self.tracker
        before = tracker.game.position if target is not None and target[0] == "new-game" else None
        at_board = [c for c in (BLACK, WHITE) if c not in tracker.held and self.players[c].is_human]
        out += self.guide.follow(target, tracker.board, before, near_side(at_board), now)
        self.analyst.follow(self.tracker.game if self.analysing else None)
        self._keep_clock(now)
        self._takeback_pressed = False  # a press is handled in the step that polled it
        self._note_takebacks()
        # The step's snapshot, with the roles its LEDs light, before its events go out:
        # an output hearing of a move reads the game with that move made, and what it
        # shows of the step (a page's view) shows that step's lights.
        snapshot = self._take_snapshot(now)
        lit = self._light(snapshot, now)
        snapshot = self._dressed(snapshot, lit)
        self._snapshot = snapshot
        self.outputs.snapshot(snapshot)
        self._publish(out)
        self.outputs.stepped(now, snapshot)
        return out

    def _keep_clock(self, now: int) -> None:
        """The clock on disk with the game it times (none while a saved game is set up)."""
        record = self.record
        if record is not None and not self._resuming and self.session.game is self._game:
            self.clock_saver.keep(self.session.clock, record.id, self.session.game.ply, now)

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
        times += [deadline() for deadline in self.deadlines]
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
        with no source but those that wake the loop. Elsewhere a scanner's or a serial
        board's change, or a link's line, is only seen at the next poll."""
        return (
            self.hardware.backend == "sim"
            and all(source in self.waking_sources for source in self.sources)
            and self.outputs.all_wake
        )

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

    # -- reacting to events ---------------------------------------------------------------

    def _handle(self, event: Event, now: int) -> list[Event]:
        """Keep the game for ``event``; return the events it causes (handled in turn): its
        handler from :data:`_HANDLERS` (by its class) or :data:`_KIND_HANDLERS` (by its kind)."""
        if isinstance(event, (MoveMade, TakenBack, GameOver, NewGame)):
            self.message_line.forget()
        if isinstance(event, (MoveMade, NewGame)) and self.sim is not None:
            tidy_hand(self.sim, event, self.tracker.game)
        for kind in type(event).__mro__:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                return handler(self, event, now)
        by_kind = _KIND_HANDLERS.get(event.kind)
        return by_kind(self, event, now) if by_kind is not None else []

    def _on_move(self, event: Event, now: int) -> list[Event]:
        self.policy.turn_changed()
        self.hints.forget()
        # A last move is saved with the result, at game-over.
        return [] if self.tracker.game.is_over else list(self._save(now))

    def _on_takeback(self, event: Event, now: int) -> list[Event]:
        """A move taken back or a forced jump made for the side to move."""
        tracker = self.tracker
        self.policy.turn_changed()
        self.hints.forget()
        self.thinker.cancel()
        pressed, self._takeback_pressed = self._takeback_pressed, False
        if not isinstance(event, TakenBack):
            return list(self._save(now))
        # Said on the terminal and the pages, whether a button or the hands (a piece
        # moved back) took it back: the board alone shows no sign.
        self.message_line.say(self._taken_back_words(event.ply))
        game = tracker.game
        if (
            pressed
            and self.mode.computer
            and game.moves
            and not self.players[game.turn].is_human
            and tracker.setting_up is None
        ):
            # The person takes back their own move, not just the machine's answer
            # (which the machine would only ask for again): a second ply goes, and the
            # lights guide the board back to the position before the person's move.
            return self.follower.take_back(now) + self.follower.restore(tracker.board, now)
        return list(self._save(now))

    def _on_huff(self, event: Event, now: int) -> list[Event]:
        self.thinker.cancel()  # the position changed under the side to move
        self.hints.forget()
        return list(self._save(now))

    def _on_game_over(self, event: Event, now: int) -> list[Event]:
        written = self.keeper.written
        out: list[Event] = list(self._save(now))
        record = self.record
        if record is not None and record.finished and self.keeper.written is not written:
            # The result counts in the match once, whether or not the disk took it.
            ballot = self.referee.ballot if self.referee is not None else None
            out += self.matches.finished(record, now, ballot.number if ballot is not None else None)
        if self.tracker.expected is not None:
            self.tracker.expect(None)  # the machine's move shown is moot now
        return out

    def _on_draw_offer(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, DrawOffer)
        out = self._on_offer(event, now)
        if not self.tracker.game.is_over:
            out += self._save(now)  # an offer stands through a power cut
        return out

    def _on_lapsed(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, DrawLapsed)
        self.say(event.message)  # the other side's draw button offers now: say why
        return [] if self.tracker.game.is_over else list(self._save(now))

    def _on_resign_asked(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, ResignAsked)
        self.say(
            f"{event.side.title()}: press resign again within 3 s to resign (or hold it down).",
            until=event.until,
        )
        return []

    def _on_reopened(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, Reopened)
        self.say(_REOPENED_WORDS.get(event.reason, "The result is taken back: play on."))
        self.policy.turn_changed()
        return list(self._save(now, reopened=True))  # the game in progress again, its result unkept

    def _on_claim(self, event: Event, now: int) -> list[Event]:
        # A refused claim changes nothing on the board: the screen says why.
        self.say(str(getattr(event, "message", "")))
        if not self.tracker.game.is_over and self.referee is not None:
            return list(self._save(now))  # the referee's note, kept with the game
        return []

    def _on_forfeit(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, Forfeit)
        self.say(f"{event.side.title()} forfeits the game: a second illegal move ({event.message}), WCDF 1.25.")
        return []

    def _on_caution(self, event: Event, now: int) -> list[Event]:
        # A second caution after a restart still forfeits.
        return [] if self.tracker.game.is_over else list(self._save(now))

    def _on_crowned(self, event: Event, now: int) -> list[Event]:
        assert isinstance(event, Crowned)
        if self.settings.auto_crown and self.sim is not None:
            token = self.sim.pieces.get(event.square)
            if token is not None and token.islower():
                # Stacking a second piece keeps the switch closed: no sensor change.
                self.sim.crown(event.square)
        return []

    def clock_state(self, now: int) -> ClockState | None:
        """The game clock for the display, the buzzer and the pages (the session's, in
        every mode: one :class:`~crownhead.firmware.events.clock.ClockState`), or None without one."""
        clock = self.session.clock
        return clock.state(now) if clock is not None else None

    def _on_offer(self, offer: DrawOffer, now: int) -> list[Event]:
        """A draw offer: the machine answers one made to it; people are told how to accept."""
        game = self.tracker.game
        if offer.side is None:
            # The shared button cannot tell who pressed it (docs/hardware.md).
            self.say(
                "Draw offered with the shared button, which cannot tell who pressed it: offer with"
                " your side's own draw button, and the other side accepts with theirs."
            )
            return []
        side = offer.side.color
        machine = self.players[side.opponent]
        if self.mode.computer and isinstance(machine, Computer) and not machine.is_human:
            accept, score = draw_answer(game, side.opponent)
            if accept:
                self.say(f"{machine.name} accepts the draw (level or worse for it).")
                return self.follower.offer_draw(side.opponent, now)
            message = f"{machine.name} declines the draw: {side.opponent} is better ({score / 100:+.2f})"
            self.say(message + ".")
            return [DrawDeclined(now, Side.of(side.opponent), message)]
        self.say(f"{side.name.title()} offers a draw: {side.opponent.name.title()} accepts with their draw button.")
        return []

    def _new_game(self, now: int) -> list[Event]:
        """The set-up position stands on the board: the saved game resumed, or a new game
        began (the session says which: :meth:`GameSession.begin
        <firmware.tracking.session.GameSession.begin>`)."""
        out: list[Event] = []
        self.policy.turn_changed()
        self.hints.forget()
        self.thinker.cancel()
        if self.session.resumed:
            record, game = self.record, self._game
            # The saved game, with its history (repetitions, takeback, the last move lit
            # dimly), is the session's: the referee goes on with it.
            assert record is not None and game is self.session.game
            self.follow(resumed=True)
            self.players.update(self.matches.resumed(record, self.players))
            self.say(self._resume_note)
            self._resume_note = ""
            out.append(GameStarted(now, True, game.ply, game.position.fen(), record.id))
            clock = self.session.clock
            if clock is not None:
                out.append(clock.report(now))  # the times as saved, paused
            return out
        out += self._put_away(now)
        self.modes.referee_game = None  # the saved game was put away: its referee state with it
        self._game = self.tracker.game
        if self.referee is not None:
            # The referee's names for this game (colours are reversed every game).
            self.modes.seats.name_people(self.referee.names)
        seating = self.matches.begin(now, self.players, self.referee, self.follower)
        self.players.update(seating.players)
        out += seating.events
        self.record = self._new_record(self._game.start)
        if seating.names is not None:
            black, white = seating.names
            self.record = replace(self.record, black=black, white=white, extra={**self.record.extra, **seating.tags})
        out += self._save(now)
        out.append(GameStarted(now, False, 0, self._game.position.fen(), self.record.id))
        return out

    def _save(self, now: int, *, reopened: bool = False) -> list[GameSaved]:
        """Save the game in progress, or write it as PDN when it is over (the keeper never
        raises over the disk: see :class:`~crownhead.firmware.app.keeper.GameKeeper`).
        ``reopened``: the game's result was just taken back, and its kept file goes."""
        if self.store is None or self.record is None:
            return []
        game = self.tracker.game
        if game is not self._game:
            return []  # a new game is being set up; the old one was handled
        # The offer standing is kept with the game: it survives a power cut.
        record = replace(self.record.with_game(game), offer=offer_text(self.session.draw_offer))
        if self.board_clock is not None:
            record = record.with_times(self.board_clock.times, self.board_clock.control)  # each move's clock
        if not record.finished:
            clock = self.settings.clock if self.referee is None else None
            kept = self.modes.kept(game, self.policy.settings.hints, clock)
            self.record = record = replace(record, mode=self.mode.name, settings=kept)
            return self.keeper.reopen(record, now) if reopened else self.keeper.save(record, now)
        self.record = record
        referee = self.referee
        if referee is None or not referee.judges(self.session):
            return self.keeper.finish(record, now)
        return self.keeper.finish(record, now, lambda: referee.pdn(self.session))

    def _put_away(self, now: int) -> list[GameSaved]:
        """The game before a new one: kept as PDN if it had moves and had not ended."""
        record = self.record
        if self.store is None or record is None or self._game is None:
            return []
        return self.keeper.put_away(record.with_game(self._game), now)

    def _on_press(self, press: ButtonEvent) -> bool | None:
        for listener in self.press_listeners:
            if listener(press) is False:
                return False
        if not self.outputs.on_press(press):
            return False
        declared = self.tracker.game.declared
        if (
            press.name == "takeback"
            and declared is not None
            and declared.reason in REOPENABLE
            and self.matches.counted(self.record)
        ):
            # The match has the result on its sheet: a resignation or a draw agreed in it stands.
            what = "resignation" if declared.reason == "resign" else "draw agreed"
            self.say(f"The {what} stands: the game is counted in the match.")
            return False
        if press.name == "hint" and self.settings.far_apart:
            # The other side, far away, could not see the engine's help this one gets.
            self._pending.append(Notice(press.t_ms, NO_HINT_FAR))
            self.say(NO_HINT_FAR)
            return False
        if press.name == "hint":
            self.policy.reveal_hints()
            # A referee allows no hints; the engine's move (for a person to move, the
            # board at rest) is found in this step's hints.find, after the press's events.
            self.hints.wanted = not self.mode.referee_lights
        elif press.name == "new" and self._resuming:
            self.give_up_resume()
        elif press.name == "takeback":
            self._takeback_pressed = True

        return None

    # -- the machine's moves --------------------------------------------------------------

    def _play_computer(self, now: int, out: list[Event]) -> None:
        if not self.mode.computer:
            return
        tracker = self.tracker
        game = tracker.game
        if tracker.setting_up is not None or game.is_over or self._resuming:
            self.thinker.cancel()
            return
        player = self.players[game.turn]
        if player.is_human or not isinstance(player, Computer):
            if self.thinker.busy:
                self.thinker.cancel()
            return
        if tracker.expected is not None:
            return
        if not self.thinker.thinking_about(game):
            self.thinker.start(player, game)
        try:
            move = self.thinker.poll()
        except PlayerError as exc:
            out.append(Notice(now, f"{exc}; make a move for {player.name} by hand"))
            self.players[game.turn] = Human(player.name)
            return
        if move is None:
            return
        tracker.expect(move)
        out.append(
            ComputerMove(now, Side.of(game.turn), player.name, move.pdn(), tuple(move.path), tuple(move.captures))
        )

    # -- the engine's hint and the lights ------------------------------------------------

    @property
    def hint(self) -> Move | None:
        """The engine's move the hint button asked for, while it is still this turn's."""
        return None if self.mode.referee_lights else self.hints.move(self.tracker.game)

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

    def _hint_allowed(self) -> bool:
        """Whether a person is to move in a game under way, so that a hint makes sense."""
        tracker = self.tracker
        game = tracker.game
        player = self.players[game.turn]
        return not (
            self.mode.referee_lights
            or self.settings.far_apart  # no engine help between people apart
            or self._resuming
            or tracker.setting_up is not None
            or game.is_over
            or tracker.expected is not None
            or game.turn in tracker.held  # the machine's or the link's side: not a person's
            or not player.is_human
        )

    @property
    def blinking(self) -> frozenset[int]:
        """The squares blinking, as last shown (the LED policy keeps them)."""
        return self.policy.blinking

    def _snapshot_inputs(self) -> tuple[object, ...]:
        """Everything but the clock a snapshot is drawn from, as cheap values: the
        session's revision (the game, offers, result, holds), the tracker's version (the
        board, its reading, warnings and roles), which tracker and referee, and what the
        application adds (the hint, the resume, the moves taken back, the names)."""
        tracker = self.tracker
        referee = self.referee
        crowned = tracker.crowned
        names: tuple[object, ...] = self._shown_seats()
        return (
            tracker,
            referee,
            tracker.version,
            self.session.revision,
            self.follower.resign_asked,  # it lapses with time
            self.hint,
            self._resuming,
            self._game,
            self._undone,
            names,
            self.guide.step,  # the rank of a set-up that is lit
            # The live analysis deepens in its worker while the position stands.
            self.analyst.latest() if self.analysing else None,
            # A man crowned on the simulated board changes no switch.
            self.sim.pieces.get(crowned) if crowned is not None and self.sim is not None else None,
            self.away,
        )

    def _seat_coming_game(self) -> None:
        """A new game is set up: a match's players take their seats for it now (the machine
        on its colour of that game, the people under the match's names), so that the
        set-up is guided, held and shown as the game to come, not the one put away. The
        match counts the game when it begins (:meth:`_new_game` seats them the same)."""
        if self._resuming or self.tracker.setting_up is None:
            return
        coming = self.matches.coming(self.players)
        if coming is not None and coming != dict(self.players):
            self.players.update(coming)

    def _shown_seats(self) -> tuple[tuple[str, str], tuple[int, int]]:
        """Black's and White's names and cautions as the board shows them: the game's
        (the referee's in referee mode); while a new game is set up, the next game's
        (a match seats its players, a referee's pair reverses the colours), never those of
        the game put away."""
        referee = self.referee
        setup = self.setup_target()
        if setup is not None and setup[0] == "new-game":
            coming = self.matches.coming(self.players)
            if coming is not None:
                return (coming[BLACK].name, coming[WHITE].name), (0, 0)
            if referee is not None:
                return referee.next_names, (0, 0)
        if referee is not None:
            return referee.names, (referee.cautions(BLACK), referee.cautions(WHITE))
        return (self.players[BLACK].name, self.players[WHITE].name), (0, 0)

    def _take_snapshot(self, now: int) -> Snapshot:
        """The game as this step leaves it (see :mod:`crownhead.firmware.app.snapshot`), numbered
        after the last one: the last one itself when none of its inputs changed (most
        steps), with only the clock's times new while a clock runs."""
        inputs = self._snapshot_inputs()
        clock = self.clock_state(now)
        previous = self._snapshot
        if previous is not None and inputs == self._snapshot_made_of:
            if clock == previous.clock:
                return previous
            if clock is not None and previous.clock is not None and not (clock.paused or previous.clock.paused):
                if clock[2:] == previous.clock[2:]:
                    return replace(previous, clock=clock)  # the same revision: only time ran
        self._snapshot_made_of = inputs
        return self._build_snapshot(now, clock)

    def _build_snapshot(self, now: int, clock: ClockState | None) -> Snapshot:
        tracker = self.tracker
        # While a saved game is set up to resume, that game (its moves, whose turn), not
        # the one the tracker reads the board with meanwhile.
        game = self.game
        target = self.setup_target()
        step = self.guide.step
        setup = Setup(*target, rank=step.rank if step is not None else None) if target is not None else None
        board = tracker.board
        pieces, strays = standing(setup.position if setup is not None else game.position, board)
        follower = self.follower
        roles = self.guide.light(picture(tracker, self.hint, roles=follower.roles))
        put_back = tuple(sorted(s for s, r in roles.items() if r == Role.MISSING))
        take_off = tuple(sorted(s for s, r in roles.items() if r in (Role.EXTRA, Role.REMOVE)))
        conditions = tuple(
            Condition(
                w.code,
                w.squares,
                w.message,
                # A piece moved wrongly goes back where it came from (the first square).
                put_back or (w.squares[:1] if w.code == "illegal-move" else ()),
                take_off,
            )
            for w in (follower.warnings if tracker.warning is not None else ())
        )
        offer = self.session.draw_offer
        asked = follower.resign_asked
        result = game.result if tracker.setting_up is None else None
        crown = next((s for s, r in roles.items() if r == Role.CROWN), None)
        if crown is not None and (result is not None or self._crowned_on_board(crown)):
            crown = None  # nothing left to ask: a king stands there, or the game is over
        held = tracker.held
        names, cautions = self._shown_seats()
        seats = {
            color: Seat(name, caution, held.get(color, ""))
            for color, name, caution in zip((BLACK, WHITE), names, cautions)
        }
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
            conditions=conditions,
            clock=clock,
            offer=Offer(*offer) if offer is not None else None,
            result=result,
            setup=setup,
            expected=tracker.expected,
            rules=game.rules,
            moves=moves,
            seats=seats,
            resign_asked=asked[0] if asked is not None else None,
            resuming=self._resuming,
            crown=crown,
            touched=self._touch_move(board, result),
            undone=self._undone,
            analysis=self.analyst.latest() if self.analysing else None,
            away=self.away,
        )
        return snapshot.then(self._snapshot)

    def _touch_move(self, board: int, result: object) -> int | None:
        """The square of the piece touched this turn that must now be played: under
        strict touch-move, with the piece back on its square and a move for it, so that
        the rule is said before it is applied."""
        tracker = self.tracker
        touched = tracker.touched
        if touched is None or not self.mode.strict_touch_move or result is not None or tracker.expected is not None:
            return None
        if board != tracker.game.position.occupied:
            return None
        return touched if any(p.move.start == touched for p in tracker.table.plans) else None

    def _taken_back_words(self, ply: int) -> str:
        """``Taken back: move 1, Black's 11-15.``: the move as the last step saw it."""
        game, seen = self._moves_seen
        if game is None or not 1 <= ply <= len(seen):
            return f"Taken back: move {(ply + 1) // 2}."
        mover = game.start.turn if ply % 2 else game.start.turn.opponent
        number = (ply + (0 if game.start.turn is BLACK else 1) + 1) // 2
        return f"Taken back: move {number}, {mover.name.title()}'s {seen[ply - 1].pdn()}."

    def _note_takebacks(self) -> None:
        """Keep the moves taken back (one or two plies a press, several presses) until
        the board shows the game again: the guidance says what to put back where."""
        game = self.tracker.game
        moves = tuple(game.moves)
        seen_game, seen = self._moves_seen
        if game is seen_game and len(moves) < len(seen) and seen[: len(moves)] == moves:
            self._undone = seen[len(moves) :] + self._undone
        elif game is not seen_game or moves != seen:
            self._undone = ()
        self._moves_seen = (game, moves)
        if self._undone and (self.tracker.board_matches or self.tracker.setting_up is not None):
            self._undone = ()

    def _crowned_on_board(self, square: int) -> bool:
        """Whether a king is seen standing on ``square``: only the simulated board knows
        (a real board's switches cannot tell a crowned man, so the prompt stays there)."""
        token = self.sim.pieces.get(square) if self.sim is not None else None
        return token is not None and token != token.lower()

    def _dressed(self, snapshot: Snapshot, lit: Mapping[int, str] | None = None) -> Snapshot:
        """``snapshot`` with the roles lit (``lit``; None: as it has them) and what else the
        board shows now (:class:`Shown`), numbered again if they changed."""
        shown = self._shown()
        if lit is None:
            lit = snapshot.lit
        if snapshot.shown == shown and dict(snapshot.lit) == dict(lit):
            return snapshot
        return replace(snapshot, lit=MappingProxyType(dict(lit)), shown=shown).then(self._snapshot)

    def _shown(self) -> Shown:
        """What the board shows besides the game, now (see :class:`Shown`)."""
        sim = self.sim
        machine = ""
        if self.mode.computer:
            machines = [c.name.title() for c, p in self.players.items() if not p.is_human]
            machine = machines[0] if machines else ""
        thinking = "machine" if self.thinker.busy else "hint" if self.hints.thinker.busy else ""
        lights = sim.lights if sim is not None else self.hardware.lights
        hands = self.hardware.sim  # the simulated board's pieces and hand, as the hardware has it now
        return Shown(
            frame=MappingProxyType(dict(lights.current)),
            blinking=self.blinking,
            message=self.message,
            hint=self.hint,
            thinking=thinking,
            mode=self.mode.title,
            machine=machine,
            hints_shown=self.policy.hints_shown,
            hints_on=self.policy.hints_on,
            referee_lights=self.mode.referee_lights,
            takeback=self.mode.takeback,
            referee_mode=self.referee is not None,
            match=self.matches.line(),
            display=tuple(getattr(self.hardware.display, "lines", ()) or ()),
            page_urls=self.page_urls,
            page_pin=self.page_pin,
            first_number=self.first_number,
            white_began=self.game.start.turn is WHITE,
            verdict=self.problem_verdict(),
            tokens=MappingProxyType(dict(hands.pieces)) if hands is not None else None,
            hand=tuple(hands.hand) if hands is not None else (),
            brightness=round(self.policy.settings.brightness * 100),
        )

    @property
    def snapshot(self) -> Snapshot:
        """The game as the last step left it: what every output draws from."""
        if self._snapshot is None:
            raise RuntimeError("App.start() first")
        return self._snapshot

    def _light(self, snap: Snapshot, now: int) -> dict[int, str]:
        """Light the LEDs for ``snap``; the roles they light (see :attr:`Snapshot.lit`)."""
        condition = snap.condition
        squares: tuple[int, ...] = condition.squares if condition is not None else ()
        roles = dict(snap.roles)
        frame = self.policy.frame(
            roles, now_ms=now, warning_squares=squares, result=snap.result, position=snap.position
        )
        lights = self.hardware.lights
        if frame != self._frame:
            self._frame = frame
            self.lit_roles = {square: role for square, role in roles.items() if square in frame}
            lights.show(frame)
        else:
            lights.flush(now)
        return self.lit_roles

    # -- sources and sinks ----------------------------------------------------------------

    def _poll_sources(self, now: int) -> list[Event]:
        events: list[Event] = []
        for source in self.sources:
            try:
                events += source(now)
            except Exception:  # a broken link must not stop the board
                log.exception("event source failed")
        return events + self.outputs.poll(now)

    def setup_target(self) -> tuple[str, Position] | None:
        """What the board must be set up as now, and why (``new-game``, ``resume``,
        ``restore``), or None when it shows the game."""
        tracker = self.tracker
        if self._resuming and self._game is not None:
            return "resume", self._game.position
        if tracker.setting_up is not None:
            return "new-game", tracker.setting_up
        if tracker.reading.kind is Kind.RESTORE and not tracker.board_matches:
            return "restore", tracker.game.position
        return None

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

    def add_output(self, output: O, *, first: bool = False) -> O:
        """Add ``output`` to the board (see :mod:`crownhead.firmware.app.outputs`): it hears every
        step's events and snapshot, its deadline is the loop's, and :meth:`close` closes it
        (the last added first). ``first``: it hears the events before the others."""
        return self.outputs.add(output, first=first)

    def add_sink(self, sink: Sink, *, first: bool = False) -> None:
        """Add an output that only hears the events (a log, a test's list)."""
        self.outputs.add(SinkOutput(sink), first=first)

    def remove_output(self, output: Output) -> None:
        """Take ``output`` off the board (a link letting it go): it hears nothing more and
        is not closed with the others."""
        self.outputs.remove(output)

    def remove_sink(self, sink: Sink) -> None:
        """Take off the outputs :meth:`add_sink` added for ``sink`` (a link letting the board go)."""
        for output in self.outputs:
            if isinstance(output, SinkOutput) and output.sink == sink:
                self.outputs.remove(output)

    def _emit(self, event: Event) -> None:
        self._publish([event])

    def _publish(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Alert):
                self.say(event.message)  # on the terminal's message line and every page, too
        self.outputs.events(events)

    # -- the screen -------------------------------------------------------------------------

    @property
    def first_number(self) -> int:
        """The number of the game's first move: 1, or for a kept game tried again the
        move it was tried from (its record's ``FromPly`` tag: the plies played before)."""
        record = self.record
        came = tags_of(record.extra) if record is not None and self._game is self.tracker.game else None
        if came is None:
            return 1
        plies = came[1]
        # The kept game began with the side to move here when an even number of plies
        # was played before, the other side otherwise; a game White began numbers its
        # first ply 1... and Black's reply 2.
        mover = self.tracker.game.start.turn
        white_began = (mover is WHITE) == (plies % 2 == 0)
        return (plies + (1 if white_began else 0)) // 2 + 1

    def view(self) -> BoardView:
        """What the terminal simulator shows now (see :mod:`crownhead.firmware.app.view`)."""
        return board_view(self._dressed(self.snapshot))


#: What the application does for an event, by its class (the first of its classes found):
#: keep the game, say something, move the machine on; returns the events it causes.
_HANDLERS: dict[type, Callable[[App, Event, int], list[Event]]] = {
    MoveMade: App._on_move,
    TakenBack: App._on_takeback,
    ForcedJump: App._on_takeback,
    Huffed: App._on_huff,
    HuffTakenBack: App._on_huff,
    GameOver: App._on_game_over,
    DrawOffer: App._on_draw_offer,
    DrawLapsed: App._on_lapsed,
    ResignAsked: App._on_resign_asked,
    Reopened: App._on_reopened,
    NewGame: lambda app, event, now: app._new_game(now),
    Forfeit: App._on_forfeit,
    Crowned: App._on_crowned,
}

#: The same, by an event's kind, for those without a handler by class.
_KIND_HANDLERS: dict[str, Callable[[App, Event, int], list[Event]]] = {
    "claim": App._on_claim,
    "caution": App._on_caution,
}
