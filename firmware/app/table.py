"""The board's table: the parts of the application and the state they share.

:class:`Table` is what :class:`~crownhead.firmware.app.application.App` is made of: the
hardware and its buttons, the one game session and its follower, the mode and the seats
(:class:`~crownhead.firmware.app.modes.Modes`), the LED policy, the thinkers, the game's
record, the outputs, and what is read of them (the mode, the players, the game shown,
the hint...). It makes and replaces the followed tracker in one place (:meth:`follow`).
The parts that act on it are collaborators given the table: the recorder
(:mod:`crownhead.firmware.app.recorder`), the machine's seat
(:mod:`crownhead.firmware.app.machine`), the snapshot maker
(:mod:`crownhead.firmware.app.scene`); the commands (:mod:`crownhead.firmware.app.commands`)
and the main loop (:mod:`crownhead.firmware.app.application`) build on it, so that no
class redeclares another's state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from crownhead.firmware.app.analysis import Analyst
from crownhead.firmware.app.guidance import SetupGuide
from crownhead.firmware.app.hardware import Hardware, TappedButtons
from crownhead.firmware.app.keeper import GameKeeper
from crownhead.firmware.app.leds import LedPolicy, LedSettings
from crownhead.firmware.app.matchplay import MatchPlay
from crownhead.firmware.app.modes import Modes
from crownhead.firmware.app.outputs import O, Output, Outputs, SinkOutput
from crownhead.firmware.app.players import Computer, Hints, MachineSpec, Player, Thinker, machine_player
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.sinks import Sink
from crownhead.firmware.app.snapshot import Away
from crownhead.firmware.app.timing import ClockSaver
from crownhead.firmware.app.tryagain import tags_of
from crownhead.firmware.app.view import MessageLine
from crownhead.firmware.app.loop import Loop
from crownhead.firmware.events import Alert, ClockState, Event, Notice
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.storage.matches import MatchStore
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.firmware.tracking.controller import Controller
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.policy import ModePolicy
from crownhead.firmware.tracking.session import REOPENABLE, GameSession
from crownhead.firmware.tracking.timer import GameTimer
from crownhead.firmware.tracking.tracker import Kind, Tracker, TrackerSettings
from crownhead.hal.buttons import ButtonEvent
from crownhead.hal.clock import Clock
from crownhead.rules import WHITE, Color, Game, Move, Position
from crownhead.rules.engine.egdb import EndgameTables

if TYPE_CHECKING:  # the problem mode brings the collections: made when first asked for
    from crownhead.firmware.app.problems import ProblemCoach

__all__ = ["NO_ANALYSIS", "NO_ANALYSIS_FAR", "NO_ANALYSIS_PROBLEM", "NO_HINT_FAR", "Table"]

log = logging.getLogger(__name__)

#: Why the live analysis does not run under a referee.
NO_ANALYSIS = "no analysis under a referee: a tournament game gets no help"
#: Why it does not run in a game far apart: the other side cannot see what helps this one.
NO_ANALYSIS_FAR = "no analysis in a game far apart: neither side gets the engine's help"
#: The hint button in a game far apart: no engine help of any kind between people apart.
NO_HINT_FAR = "no hint in a game far apart: neither side gets the engine's help"
#: Why it does not run in the problem mode: its best line is the problem's solution.
NO_ANALYSIS_PROBLEM = "no analysis while a problem is solved: its best line would give the solution away"


def _tables(store: GameStore | None) -> EndgameTables | None:
    """The endgame tables the analysis probes: a build in the state directory, with the
    shipped tables for whatever it lacks (None without any; a damaged file is left out)."""
    from crownhead.firmware.egdb import EgdbError, load_probe

    try:
        return load_probe(skip_damaged=True, state_dir=store.directory if store is not None else None)
    except EgdbError as error:
        log.warning("analysis: endgame tables not used: %s", error)
        return None


class Table(Loop):
    """The board's parts around opened :class:`~crownhead.firmware.app.hardware.Hardware`.

    ``players`` maps each colour to a :class:`~crownhead.firmware.app.players.Player` (default: people
    on both sides). ``store`` keeps the games (None: nothing is saved, for tests of the
    lights alone). ``sinks`` receive every event, the tracker's and the app's, after the
    game has been saved. ``thinker`` runs computer players (default: in the background).
    ``referee`` judges the games in referee mode (default: one with ``referee_settings``,
    the configured ``[referee]`` section, which also serves a later ``set_mode``).
    ``hint_player`` finds the best move the hint button shows (default: the engine at
    ``settings.hint_movetime_ms``, made at the first hint); ``hint_thinker`` runs it, apart
    from ``thinker`` so that a hint never disturbs the machine's own thinking (default:
    one like ``thinker``, in the background or not). ``analyst`` runs the live analysis
    while it is on (``settings.analysis``, ``set_analysis``; default: one in the
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
        referee: Referee | None = None,
        referee_settings: RefereeSettings | None = None,
        hint_player: Computer | None = None,
        hint_thinker: Thinker | None = None,
        make_machine: Callable[[MachineSpec], Player] | None = None,
        analyst: Analyst | None = None,
    ) -> None:
        Loop.__init__(self, clock or hardware.clock)
        self.hardware = hardware
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
        #: The live analysis was asked for (``--analysis``, the page's switch); it runs
        #: while :attr:`analysing`.
        self.analysis_wanted = settings.analysis
        #: Every output of the board (see :mod:`crownhead.firmware.app.outputs`): the sinks given
        #: here first, then what :meth:`add_output` adds; closed last by ``close``.
        self.outputs = Outputs()
        for sink in sinks:
            self.outputs.add(SinkOutput(sink))
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
        self.set_time_control()
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
        #: The takeback button was pressed in this step (a computer game then takes back two plies).
        self.takeback_pressed = False
        self._started = False
        #: Events to handle at the next step (said by the keeper, the commands, the start).
        self.pending: list[Event] = []
        #: The games on disk.
        self.keeper = GameKeeper(store, self.pending_event)
        #: The game on disk and its record: the game played, or the saved one set up to
        #: resume, until the next game begins (the recorder keeps them).
        self.kept_game: Game | None = None
        self.record: GameRecord | None = None
        self.buttons = TappedButtons(hardware.buttons, self._on_press)
        self.controller: Controller
        #: The match under way in the state directory (see firmware.app.matchplay).
        self.matches = MatchPlay(
            MatchStore(store.directory) if store is not None else None, settings.match, self.players
        )
        #: The problem mode (:mod:`crownhead.firmware.app.problems`): given by ``crownhead run --mode
        #: problems``, else made at the first question or command about it.
        self.problems: ProblemCoach | None = None

    def pending_event(self, event: Event) -> None:
        """Handle ``event`` at the next step (the keeper's word about the disk)."""
        self.pending.append(event)

    # -- the followed game ----------------------------------------------------------------

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
        self.set_time_control()
        if resumed and referee is not None:
            saved, self.modes.referee_game = self.modes.referee_game, None
            self.pending += referee.resume(follower, saved)
        elif now is not None and not tracker.game.is_over and tracker.setting_up is None:
            clock = self.session.clock
            if referee is not None or (clock.control if clock is not None else None) != self.session.time_control:
                self.pending += follower.begin(now)
        return tracker

    @property
    def tracker(self) -> Tracker:
        """The tracker reading the board (replaced only by :meth:`follow`)."""
        return self.follower.tracker

    @property
    def board_clock(self) -> GameTimer | None:
        """The game's clock (the session's), or None without a time control."""
        return self.session.clock

    def set_time_control(self) -> None:
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

    def clock_state(self, now: int) -> ClockState | None:
        """The game clock for the display, the buzzer and the pages (the session's, in
        every mode: one :class:`~crownhead.firmware.events.clock.ClockState`), or None without one."""
        clock = self.session.clock
        return clock.state(now) if clock is not None else None

    # -- what is read of the table --------------------------------------------------------

    @property
    def resuming(self) -> bool:
        """A saved game (:attr:`record`, :attr:`kept_game`) is being set up to resume: the
        session's to say (:attr:`GameSession.saved
        <firmware.tracking.session.GameSession.saved>`); it goes on when its position
        stands on the board, unless given up for a new game."""
        return self.session.saved is not None

    @property
    def started(self) -> bool:
        """Whether the board has started (:meth:`App.start <firmware.app.application.App.start>`)."""
        return self._started

    @property
    def mode(self) -> ModePolicy:
        """The mode the board is in (see :data:`crownhead.firmware.tracking.policy.MODES`)."""
        return self.modes.mode

    @property
    def referee(self) -> Referee | None:
        """Referee mode's arbiter (the follower's judge); None in other modes."""
        return self.modes.referee

    @property
    def referee_settings(self) -> RefereeSettings:
        return self.modes.referee_settings

    @property
    def players(self) -> dict[Color, Player]:
        """Who plays each side (a :class:`~crownhead.firmware.app.players.Player`)."""
        return self.modes.seats.players

    @property
    def game(self) -> Game:
        """The game on the board; while a saved game is being set up to resume, that game."""
        if self.resuming and self.kept_game is not None:
            return self.kept_game
        return self.tracker.game

    @property
    def message(self) -> str:
        """What the board says now on the terminal's message line and every page."""
        return self.message_line.text

    def say(self, message: str, *, until: int | None = None) -> None:
        """Show a message on the simulator's screen and the pages (``until``: it goes by
        itself then, the board's ms). A message is about the moment it was said: when the
        game moves on (a move, a takeback), ends or a new one is set up, it goes."""
        self.message_line.say(message, until=until)

    @property
    def hint(self) -> Move | None:
        """The engine's move the hint button asked for, while it is still this turn's."""
        return None if self.mode.referee_lights else self.hints.move(self.tracker.game)

    @property
    def blinking(self) -> frozenset[int]:
        """The squares blinking, as last shown (the LED policy keeps them)."""
        return self.policy.blinking

    @property
    def analysing(self) -> bool:
        """Whether the live analysis runs: asked for, not refused (:attr:`analysis_refused`),
        and a game on the board (not one being set up)."""
        return (
            self.analysis_wanted
            and self.analysis_refused is None
            and not self.resuming
            and self.tracker.setting_up is None
        )

    @property
    def analysis_refused(self) -> str | None:
        """Why the live analysis may not run now (referee mode, a game far apart, the
        problem mode), or None. A match at the board is the players' choice: it gets the
        analysis when they ask for it (a tournament's match is refereed)."""
        if self.mode.referee_lights:
            return NO_ANALYSIS
        if self.settings.far_apart:
            return NO_ANALYSIS_FAR
        if self.problems is not None and self.problems.active:
            return NO_ANALYSIS_PROBLEM
        return None

    def problem_verdict(self) -> str:
        """The verdict on the problem the board shows, in words (``Solved: ...``, ``Solved
        with 1 hint: ...``, ``Not solved: ...``), while the problem mode is on and the
        attempt is over; "" otherwise. The terminal's status keeps it: the message line
        saying it goes at the next thing said."""
        coach = self.problems
        attempt = coach.attempt if coach is not None and coach.active else None
        if attempt is None or not attempt.verdict.over:
            return ""
        from crownhead.firmware.coach.problems import verdict_word

        verdict = attempt.verdict
        return f"{verdict_word(verdict.status == 'solved', attempt.hints)}: {verdict.reason}"

    def setup_target(self) -> tuple[str, Position] | None:
        """What the board must be set up as now, and why (``new-game``, ``resume``,
        ``restore``), or None when it shows the game."""
        tracker = self.tracker
        if self.resuming and self.kept_game is not None:
            return "resume", self.kept_game.position
        if tracker.setting_up is not None:
            return "new-game", tracker.setting_up
        if tracker.reading.kind is Kind.RESTORE and not tracker.board_matches:
            return "restore", tracker.game.position
        return None

    @property
    def first_number(self) -> int:
        """The number of the game's first move: 1, or for a kept game tried again the
        move it was tried from (its record's ``FromPly`` tag: the plies played before)."""
        record = self.record
        came = tags_of(record.extra) if record is not None and self.kept_game is self.tracker.game else None
        if came is None:
            return 1
        plies = came[1]
        # The kept game began with the side to move here when an even number of plies
        # was played before, the other side otherwise; a game White began numbers its
        # first ply 1... and Black's reply 2.
        mover = self.tracker.game.start.turn
        white_began = (mover is WHITE) == (plies % 2 == 0)
        return (plies + (1 if white_began else 0)) // 2 + 1

    # -- the board's buttons --------------------------------------------------------------

    def _on_press(self, press: ButtonEvent) -> bool | None:
        """A button pressed, before the tracker hears it: the outputs first (False keeps it
        from the board), then what the application answers itself."""
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
            self.pending.append(Notice(press.t_ms, NO_HINT_FAR))
            self.say(NO_HINT_FAR)
            return False
        if press.name == "hint":
            self.policy.reveal_hints()
            # A referee allows no hints; the engine's move (for a person to move, the
            # board at rest) is found in this step's hints.find, after the press's events.
            self.hints.wanted = not self.mode.referee_lights
        elif press.name == "new" and self.resuming:
            self.session.resume_when_set_up(None)  # the saved game given up for a new one
        elif press.name == "takeback":
            self.takeback_pressed = True
        return None

    # -- joining the board (the port: see firmware.app.outputs.BoardPort) --------------------

    def add_output(self, output: O, *, first: bool = False) -> O:
        """Add ``output`` to the board (see :mod:`crownhead.firmware.app.outputs`): it hears every
        step's events and snapshot, its deadline is the loop's, it is polled and hears the
        presses if it has ``poll`` and ``on_press``, and ``close`` closes it (the last added
        first). ``first``: it hears the events before the others."""
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

    def publish(self, events: list[Event]) -> None:
        """Give ``events`` to every output (an alert is said on the message line too)."""
        for event in events:
            if isinstance(event, Alert):
                self.say(event.message)  # on the terminal's message line and every page, too
        self.outputs.events(events)
