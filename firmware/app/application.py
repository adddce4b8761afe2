"""The board application: hardware, tracker, LED policy, players and persistence in one loop.

Data flows one way, once per :meth:`App.step`::

    switches -> debouncer -> tracker -> game      (the controller)
                                |
                                +-> persistence   (saved before anyone hears of a move)
                                +-> players       (the computer's move is shown, then expected)
                                +-> event sinks   (log lines, a host link...)
                                +-> LED policy -> lights

A step never sleeps and takes its time from the injected clock, so tests drive the whole
application on a :class:`~hal.clock.VirtualClock` through complete games.
:meth:`App.run` is the real-time loop of the Pi; the terminal simulator
(:mod:`firmware.simulator.tui`) calls :meth:`App.step` and :meth:`App.view`, and its
hands (:class:`firmware.simulator.hands.Hands`) move the pieces of the simulated board,
which the application reads like any other board.

>>> from hal.clock import VirtualClock
>>> from firmware.config import default_config
>>> from firmware.app.hardware import open_hardware
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

import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from firmware.tracking.controller import Controller
from firmware.tracking.follower import Follower
from firmware.events import (
    Alert,
    BoardWarning,
    Crowned,
    DrawDeclined,
    DrawOffer,
    Event,
    ForcedJump,
    GameOver,
    Huffed,
    HuffTakenBack,
    MoveMade,
    NewGame,
    Notice,
    Reopened,
    ResignAsked,
    SetUp,
    TakenBack,
)
from firmware.app.hardware import Hardware
from firmware.app.leds import LedPolicy, LedSettings
from firmware.app.setup import setup_squares, setup_text
from firmware.app.matchplay import MatchPlay, MatchScore
from firmware.app.settings import MatchConfig
from firmware.app.players import (
    Computer,
    EngineUnavailable,
    Human,
    MachineSpec,
    Player,
    PlayerError,
    Thinker,
    draw_answer,
    engine_player,
    machine_player,
)
from firmware.app.resume import REFEREE_KEYS, StoredMode, mode_settings, read_settings
from firmware.referee.arbiter import BallotBox, Referee, RefereeSettings
from firmware.referee.clock import TimeControl
from firmware.app.timing import BoardClock
from firmware.storage.matches import MatchStore
from firmware.storage.store import GameRecord, GameStore, StoreError, StoreLockedError
from firmware.tracking.policy import MODES, ModePolicy
from firmware.tracking.roles import Role
from firmware.tracking.tracker import Kind, Tracker, TrackerSettings
from hal.buttons import ButtonEvent
from hal.clock import Clock
from hal.lights import Frame, FrameKey
from hal.debounce import Debouncer
from rules import BLACK, WHITE, Color, Game, Move, Position, Rules, WCDF
from rules.game import win_for

__all__ = [
    "App",
    "AppSettings",
    "BoardView",
    "ModePolicy",
    "MODES",
    "GameStarted",
    "ComputerMove",
    "GameSaved",
    "Notice",
    "Sink",
    "Source",
    "json_sink",
    "text_sink",
    "describe_event",
]

log = logging.getLogger(__name__)

#: The longest the real-time loop sleeps when it sleeps until the next deadline (see
#: App.run): a bound on a wake-up missed, and on an unwoken stop.
IDLE_MS = 100

Sink = Callable[[Event], None]
#: Polled once per step after the board was read, with the step's time: something outside
#: the board (a host link) that may act on the game; returns the events its actions caused.
Source = Callable[[int], list[Event]]


# -- the application's own events ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """A game is on: ``resumed`` from the state directory, or new. ``ply`` moves so far."""

    kind: ClassVar[str] = "game-start"
    resumed: bool
    ply: int
    fen: str
    id: str


@dataclass(frozen=True, slots=True)
class ComputerMove(Event):
    """The machine's move, shown on the LEDs; the board now waits for a person to make it."""

    kind: ClassVar[str] = "computer-move"
    side: str
    player: str
    move: str
    path: tuple[int, ...]
    captures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameSaved(Event):
    """A finished (or abandoned) game was written as a PDN file."""

    kind: ClassVar[str] = "game-saved"
    result: str
    path: str


# -- modes and settings --------------------------------------------------------------------


@dataclass(frozen=True)
class AppSettings:
    """How the application plays. ``event`` None means the mode's own PDN Event name."""

    mode: str = "play"
    black_name: str = "?"
    white_name: str = "?"
    site: str = "?"
    event: str | None = None
    start: Position | None = None
    rules: Rules = WCDF
    #: The simulator's hands crown a man when the board asks (the terminal UI).
    auto_crown: bool = False
    #: Contact chatter the simulator's hands make when they put a piece down or lift it.
    hand_bounces: int = 0
    #: A resumed game's pieces stand on the simulated board at start, as a real board
    #: keeps them through a power cut (otherwise the simulator starts as configured and
    #: the lights guide the pieces into place).
    sim_keep_game: bool = False
    #: How long the engine looks for the move the hint button shows (play and computer modes).
    hint_movetime_ms: int = 500
    #: A game clock for two-player and computer games (``--clock``; a referee keeps its own).
    clock: TimeControl | None = None
    #: The ``[match]`` section: whether the board begins a match by itself.
    match: MatchConfig = MatchConfig()
    #: What was chosen for this start (``crownhead run``'s options, named as in
    #: :data:`firmware.app.resume.RESUMABLE`): these win over a resumed game's own
    #: settings; everything else comes back as the game was played (docs/simulator.md).
    given: frozenset[str] = frozenset()
    #: The machine and its side computer mode makes for this start: a resumed computer
    #: game takes from them what ``given`` names (``level``, ``computer_plays``...).
    machine: MachineSpec = MachineSpec()
    machine_side: Color = WHITE

    @property
    def policy(self) -> ModePolicy:
        try:
            return MODES[self.mode]
        except KeyError:
            raise ValueError(f"unknown mode {self.mode!r} (known: {', '.join(MODES)})") from None


# -- what a screen shows -------------------------------------------------------------------


@dataclass(frozen=True)
class BoardView:
    """Everything the terminal simulator shows, as plain values (see :func:`firmware.simulator.tui.render`)."""

    pieces: Mapping[int, str]
    lit: Mapping[FrameKey, tuple[int, int, int]]
    blinking: frozenset[int]
    status: str
    mode_text: str
    black: str
    white: str
    moves: tuple[str, ...]
    first_mover_white: bool = False
    warning: str = ""
    prompt: str = ""
    hand: tuple[str, ...] = ()
    message: str = ""
    #: The match under way and its score, one line (empty without a match).
    match: str = ""
    #: What the simulated display beside the board shows, line by line ("" without one).
    display: tuple[str, ...] = ()
    #: Where a browser reaches the board's web page, and the PIN its commands need (a PIN
    #: made by the board; words for one set in the configuration; "" for none needed).
    page_urls: tuple[str, ...] = ()
    page_pin: str = ""


# -- event sinks ---------------------------------------------------------------------------


def describe_event(event: Event) -> str:
    """One readable line for an event (the ``--log text`` format)."""
    if isinstance(event, MoveMade):
        return f"move {event.ply}: {event.side} {event.move}"
    if isinstance(event, BoardWarning):
        return f"warning {event.code}: {event.message}"
    if isinstance(event, Crowned):
        return f"crown the man on {event.square}"
    if isinstance(event, TakenBack):
        return f"move {event.ply} taken back"
    if isinstance(event, GameOver):
        return f"game over: {event.result} ({event.reason})"
    if isinstance(event, NewGame):
        return f"new game from {event.fen}"
    if isinstance(event, GameStarted):
        how = "resumed" if event.resumed else "new"
        return f"game {event.id} {how} at ply {event.ply}"
    if isinstance(event, ComputerMove):
        return f"{event.player} ({event.side}) plays {event.move}: make it on the board"
    if isinstance(event, GameSaved):
        return f"game saved ({event.result}) as {event.path}"
    if isinstance(event, (Notice, Alert)):
        return event.message
    if isinstance(event, MatchScore):
        of = f" of {event.games}" if event.games else ""
        score = f"{event.first} {event.marks[0]}, {event.second} {event.marks[1]}"
        if event.cause == "game-start":
            return f"match {event.id}: game {event.number}{of} begins, {event.black} has Black; {score}"
        end = f"; {event.winner} takes the match" if event.winner else ("; the match is drawn" if event.over else "")
        return f"match {event.id}: after game {event.number}{of}, {score}{end}"
    data = event.to_json()
    return f"{data.pop('event')} " + " ".join(f"{k}={v}" for k, v in data.items() if k != "t")


def json_sink(write: Callable[[str], Any], flush: Callable[[], Any] | None = None) -> Sink:
    """A sink writing each event as one JSON line (flushed, so a crash loses nothing said)."""

    def sink(event: Event) -> None:
        write(json.dumps(event.to_json(), separators=(",", ":")) + "\n")
        if flush is not None:
            flush()

    return sink


def text_sink(write: Callable[[str], Any], flush: Callable[[], Any] | None = None) -> Sink:
    """A sink writing each event as a readable line with its time in seconds."""

    def sink(event: Event) -> None:
        write(f"{event.t / 1000:10.3f}  {describe_event(event)}\n")
        if flush is not None:
            flush()

    return sink


class _TappedButtons:
    """The board's buttons as the controller sees them, with the app listening in.

    The tracker handles the game's buttons; the app needs ``hint`` (and to know of the
    rest), without a second poll racing the controller's.
    """

    def __init__(self, buttons: Any, on_press: Callable[[ButtonEvent], bool | None]) -> None:
        self.buttons = buttons
        self.on_press = on_press
        self.injected: list[ButtonEvent] = []

    def poll(self) -> list[ButtonEvent]:
        presses = self.buttons.poll()
        if self.injected:
            presses, self.injected = list(presses) + self.injected, []
        # A press the app answers itself (returns False) does not reach the tracker.
        return [press for press in presses if self.on_press(press) is not False]


# -- the application -----------------------------------------------------------------------


class App:
    """The board's application around opened :class:`~firmware.app.hardware.Hardware`.

    ``players`` maps each colour to a :class:`~firmware.app.players.Player` (default: people
    on both sides). ``store`` keeps the games (None: nothing is saved, for tests of the
    lights alone). ``sources`` are polled every step (see :data:`Source`).
    ``sinks`` receive every event, the tracker's and the app's, after the
    game has been saved. ``thinker`` runs computer players (default: in the background).
    ``referee`` judges the games in referee mode (default: one with ``referee_settings``,
    the configured ``[referee]`` section, which also serves a later :meth:`set_mode`).
    ``hint_player`` finds the best move the hint button shows (default: the engine at
    ``settings.hint_movetime_ms``, made at the first hint); ``hint_thinker`` runs it, apart
    from ``thinker`` so that a hint never disturbs the machine's own thinking (default:
    one like ``thinker``, in the background or not).
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
    ) -> None:
        self.hardware = hardware
        #: Makes the machine a resumed computer game was played against (default: the
        #: engine at the record's level, or the random test player).
        self.make_machine: Callable[[MachineSpec], Player] = make_machine or machine_player
        #: The referee's state of the game being resumed, as its record kept it.
        self._referee_game: dict[str, Any] | None = None
        self.clock: Clock = clock or hardware.clock
        self.settings = settings
        self.mode = settings.policy
        self.store = store
        self.players: dict[Color, Player] = dict(players or {BLACK: Human(settings.black_name), WHITE: Human(settings.white_name)})
        # A person's name on a side the machine took over (set_mode), for when it is given back.
        self._human_names: dict[Color, str] = {BLACK: settings.black_name, WHITE: settings.white_name}
        self.thinker = thinker or Thinker(background=True)
        self.hint_player: Computer | None = hint_player
        self.hint_thinker = hint_thinker or Thinker(background=self.thinker.background)
        #: The hint button asked for the engine's move this turn; the move once found,
        #: with the (ply, position) it is for.
        self._hint_wanted = False
        self._hint: tuple[tuple[int, Position], Move] | None = None
        self._hint_failed = False
        self.sinks: list[Sink] = list(sinks)
        self.sources: list[Source] = list(sources)
        #: Sources that wake the real-time loop themselves (:meth:`wake`) when another
        #: thread gives them something, and say in :attr:`deadlines` when they want a
        #: step: with no other source, :meth:`run` on the simulated board sleeps until
        #: the next thing due.
        self.waking_sources: list[Source] = []
        self._woken = threading.Event()
        #: When a source wants the next step, besides the board's own deadlines (a display
        #: drawn in this thread, a buzzer pattern): functions returning a time or None.
        self.deadlines: list[Callable[[], int | None]] = []
        self.policy = LedPolicy(leds, referee=self.mode.referee_lights)
        #: Referee mode's arbiter: it stands in for the tracker (see :meth:`_judged`).
        self.referee_settings = referee.settings if referee is not None else referee_settings or RefereeSettings()
        if referee is None and self.mode.tracker_mode == "referee":
            referee = Referee(self.referee_settings)
        self.referee = referee
        # Referee mode's arbiter, kept while another mode is on (set_mode), so that its
        # session (games, ballot deck, record files) goes on when referee mode is back.
        self._arbiter = referee
        # Sides whose moves are made elsewhere (hold()), with who makes them.
        self._held: dict[Color, str] = {}
        self.tracker_settings = tracker_settings
        #: The game clock of a two-player or computer game with a time control.
        self.board_clock: BoardClock | None = None
        if settings.clock is not None and self.mode.tracker_mode != "referee":
            path = store.directory / "clock.json" if store is not None else None
            self.board_clock = BoardClock(settings.clock, path)
        self.sim = hardware.sim
        self.message = ""
        #: Where the board's web page is reached and its PIN (see BoardView): set by whoever
        #: serves the page, shown on the screen and the display.
        self.page_urls: tuple[str, ...] = ()
        self.page_pin = ""
        # The step the message was said in, and when it lapses by itself (a resign prompt).
        self._said_step = 0
        self._message_until: int | None = None
        self.steps = 0
        #: The set-up last announced with a ``setup`` event (cause, fen), or None.
        self._announced_setup: tuple[str, str] | None = None
        #: The takeback button was pressed (a computer game then takes back two plies).
        self._takeback_pressed = False
        #: Finished games' full PDN (a refereed game's record), by record id, until written.
        self._full_pdn: dict[str, str] = {}
        self._started = False
        self._closed = False
        self._resuming = False
        self._frame: Frame | None = None
        self._blinking: frozenset[int] = frozenset()
        self._pending: list[Event] = []
        self._game: Game | None = None
        self._resume: tuple[GameRecord, Game] | None = None
        self._resume_declined = False
        self._buttons = _TappedButtons(hardware.buttons, self._on_press)
        self._jumpers_key: tuple[int, Position, bool] | None = None
        self._jumpers_cache: tuple[int, ...] = ()
        self.record: GameRecord | None = None
        self._written: GameRecord | None = None
        #: The LED role of each lit square, as last shown (a screen draws them).
        self.lit_roles: dict[int, str] = {}
        #: Why games are not being kept (the state directory failed), None while they are.
        self.not_kept: str | None = None
        # Finished games whose PDN is not written yet, oldest first: written before the
        # game in progress is saved again, so that nothing is overwritten unwritten.
        self._unwritten: list[GameRecord] = []
        # An unreadable current.json that could not be moved aside: nothing overwrites it.
        self._aside_pending = False
        self.tracker: Follower
        self.controller: Controller
        #: The match under way in the state directory (see firmware.app.matchplay).
        self.matches = MatchPlay(MatchStore(store.directory) if store is not None else None, settings.match, self.players)

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
        if self.store is not None:
            try:
                self.store.acquire()
            except StoreLockedError:
                raise  # another board application runs on this directory: never two
            except StoreError as exc:
                # Read-only, full, missing, not ours: the board plays all the same.
                self._store_failed(now, exc)
        resume = self._load(now)
        if self.store is not None:
            store = self.store
            self._pending += [Notice(now, m) for m in self.matches.load(store.list_games)]
        self._resume = resume
        self._resuming = resume is not None
        if resume is not None:
            record, game = resume
            self.record, self._game = record, game
            self._come_back(record, now)
            # The people of a resumed game are those who were playing it (unless names
            # were given for this start).
            named = "names" in self.settings.given
            for color, name in ((BLACK, record.black), (WHITE, record.white)):
                player = self.players[color]
                if name not in ("", "?") and isinstance(player, Human) and (player.name in ("", "?") or not named):
                    self.players[color] = Human(name)
            start = game.position
            if self.settings.sim_keep_game and self.sim is not None:
                self.sim.set_position({s: p.symbol for s, p in start.pieces().items()})
            how = f" in {self.mode.name} mode, as asked (--mode)" if self.mode.name != record.mode and "mode" in self.settings.given else ""
            self.say(
                f"Resuming the unfinished game ({game.ply} {'ply' if game.ply == 1 else 'plies'}){how}. Put the pieces where the "
                "lights ask, or press new for a new game."
            )

        else:
            start = self.settings.start or Position.start(self.settings.rules)
        # Drain what the sensors said before now: the snapshot already contains it.
        self.hardware.sensors.poll()
        occupancy = self.hardware.sensors.snapshot()
        debouncer = Debouncer(self.hardware.debounce_ms, initial=occupancy)
        rules = resume[1].rules if resume is not None else self.settings.rules
        self.tracker = self._judged(Tracker(Game(start, rules), self.tracker_settings, self.mode, board=occupancy))
        self.controller = Controller(self.hardware.sensors, self._buttons, self.tracker, debouncer, self.clock)
        self._started = True
        for fault in getattr(self.hardware, "faults", ()):
            self._pending.append(Notice(now, fault))
        self._sync_holds()
        self._pending += self.tracker.new_game(start, now)
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

    def _judged(self, tracker: Tracker, *, resumed: bool = False) -> Follower:
        """``tracker``, or in referee mode the referee judging it (it stands in for it)."""
        if self.referee is None:
            return tracker
        saved, self._referee_game = (self._referee_game, None) if resumed else (None, self._referee_game)
        return self.referee.attach(tracker, resumed=resumed, saved=saved)

    # -- a game resumes as it was played ------------------------------------------------------

    def _come_back(self, record: GameRecord, now: int) -> None:
        """The saved game's mode and its settings, as its record keeps them, before its
        set-up: the machine's side and level, the referee's settings (its state of the
        game goes to the referee when the game resumes), hints, the board clock, the
        rules of the games after it. What ``settings.given`` names stays as given.

        A record written before modes were kept resumes as configured; one whose mode
        or settings are not ones is said once (file and key) and resumes with two players.
        """
        assert self.store is not None
        problem = record.damaged
        stored: StoredMode | None = None
        if problem is None and record.settings:
            stored, problem = read_settings(record.mode, record.settings, str(self.store.current_path))
        if problem is not None:
            log.error("%s", problem)
            self._pending.append(Notice(now, problem))
            stored = StoredMode()
        if stored is None:
            return  # an older record: the game resumes as configured
        given = self.settings.given
        mode = self.mode.name if "mode" in given else stored.mode
        if mode != stored.mode:
            message = f"the game resumes in {mode} mode, as asked (--mode); it was saved in {stored.mode} mode"
            log.warning("%s", message)
            self._pending.append(Notice(now, message))
        if stored.hints is not None and "hints" not in given:
            self.policy.set_hints(stored.hints)
        if "rules" not in given and "fen" not in given and record.rules != self.settings.rules:
            # The games after it are played under its rules too, as before the restart.
            self.settings = replace(self.settings, rules=record.rules, start=None)
        control = self.settings.clock if "clock" in given or stored.mode == "referee" else stored.clock
        if control != self.settings.clock:
            self.settings = replace(self.settings, clock=control)
        if mode == "referee" and stored.mode == "referee":
            changes = {key: value for key, value in stored.referee.items() if REFEREE_KEYS[key] not in given}
            try:
                self.change_referee(**changes)
            except ValueError as exc:
                self._pending.append(Notice(now, f"the referee's saved settings are not used: {exc}"))
            arbiter = self.referee or self._arbiter
            if arbiter is not None:
                s = arbiter.settings
                arbiter.box = BallotBox(s.ballot, s.deck, s.seed)
            self._referee_game = stored.referee_game
        machine: tuple[Color, Player] | None = None
        if mode == "computer":
            machine = self._resumed_machine(stored, now)
            if machine is None:
                mode = "play"
        self._enter_mode(mode, machine)

    def _resumed_machine(self, stored: StoredMode, now: int) -> tuple[Color, Player] | None:
        """The machine of a resumed computer game: the record's, but for what was given
        for this start; the configured one when it is that machine. None (said) when it
        cannot be made: the game goes on with two people."""
        s = self.settings
        given = s.given
        side = s.machine_side
        spec = s.machine
        name = None
        if stored.mode == "computer" and stored.side is not None and stored.machine is not None:
            if "computer_plays" not in given:
                side = stored.side
            spec = MachineSpec(
                s.machine.opponent if "opponent" in given else stored.machine.opponent,
                s.machine.level if "level" in given else stored.machine.level,
                s.machine.seed if "seed" in given else stored.machine.seed,
            )
            if spec == stored.machine and "names" not in given:
                name = stored.machine_name
        if side in self._held:
            self._pending.append(
                Notice(now, f"the machine played {side} in the saved game, but {side}'s moves come from"
                       f" {self._held[side]}: the game resumes without the machine")
            )
            return None
        player = self.players[side]
        if not (isinstance(player, Computer) and (player.spec is None or player.spec == spec)):
            try:
                player = self.make_machine(spec)
            except (PlayerError, ValueError) as exc:
                self._pending.append(Notice(now, f"{exc}; the game resumes with two people at the board"))
                return None
        if name is not None and isinstance(player, Computer):
            player.name = name
        return side, player

    def _enter_mode(self, name: str, machine: tuple[Color, Player] | None = None) -> None:
        """Be in mode ``name`` before the first tracker is made (a resumed game's mode):
        the lights, the referee, the board clock, and the machine's side."""
        self.mode = MODES[name]
        self.policy.referee = self.mode.referee_lights
        if self.mode.tracker_mode == "referee":
            self.referee = self.referee or self._arbiter or Referee(self.referee_settings)
            self._arbiter = self.referee
        else:
            self.referee = None
        for color, player in list(self.players.items()):
            if not player.is_human and (machine is None or color is not machine[0]):
                self.players[color] = Human(self._human_names.get(color, "?"))
        if machine is not None:
            side, player = machine
            if self.players[side].is_human:
                self._human_names[side] = self.players[side].name
            self.players[side] = player
        control = self.settings.clock if self.mode.tracker_mode != "referee" else None
        if control is None:
            if self.board_clock is not None:
                self.board_clock.close()
            self.board_clock = None
        elif self.board_clock is None or self.board_clock.control != control:
            if self.board_clock is not None:
                self.board_clock.close()
            self.board_clock = BoardClock(control, self.store.directory / "clock.json" if self.store is not None else None)

    def _mode_settings(self, game: Game) -> dict[str, Any]:
        """What the record keeps of how ``game`` is played (see :mod:`firmware.app.resume`)."""
        machine = None
        if self.mode.computer:
            for color, player in self.players.items():
                if isinstance(player, Computer) and not player.is_human:
                    machine = (color, player.spec or MachineSpec(), player.name)
                    break
        referee = self.referee
        return mode_settings(
            self.mode.name,
            hints=self.policy.settings.hints,
            machine=machine,
            referee=referee.settings if referee is not None else None,
            referee_game=referee.snapshot(game) if referee is not None else None,
            clock=self.board_clock.control if self.board_clock is not None else None,
        )

    def _load(self, now: int) -> tuple[GameRecord, Game] | None:
        """The unfinished game in the state directory, if there is one to resume."""
        if self.store is None:
            return None
        try:
            record = self.store.load_current()
        except StoreLockedError:
            raise
        except StoreError as exc:
            try:
                aside = self.store.set_aside()
            except StoreError as why:
                self._aside_pending = True
                self._pending.append(Notice(now, f"{exc}; a new game begins ({why}: it is kept as it is, and moved aside when it can be)"))
            else:
                self._pending.append(Notice(now, f"{exc}; the file was kept as {aside} and a new game begins"))
            return None
        if record is not None and record.finished:
            # A crash between writing the PDN and forgetting the game: finish again (or
            # as soon as the disk takes it).
            self._unwritten.append(record)
            self._pending += self._flush(now)
            return None
        if record is None:
            return None
        return record, record.to_game()

    def _new_record(self, start: Position) -> GameRecord:
        s = self.settings
        return GameRecord.new(
            black=self.players[BLACK].name,
            white=self.players[WHITE].name,
            event=s.event or self.mode.event,
            site=s.site,
            mode=self.mode.name,
            start=start,
            rules=self.tracker.game.rules,
        )

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
            self.hint_thinker.cancel()
            if self.board_clock is not None:
                self.board_clock.close()  # its last state written
            try:
                self.hardware.lights.off()
                self.hardware.lights.flush(None)
            except Exception:  # noqa: BLE001 - the rest of the shutdown matters more
                log.exception("could not turn the LEDs off")
            self.hardware.close()
            if self.store is not None:
                self.store.release()
            if self._started:
                now = self.clock.now_ms()
                for event in saved:
                    self._emit(event)
                self._emit(Notice(now, self._stopped_text()))

    def _stopped_text(self) -> str:
        """The last line: whether the game really is on disk."""
        if self.store is None:
            return "stopped: the LEDs are off (this board keeps no games)"
        if self.not_kept is None and not self._unwritten and not self._aside_pending:
            return "stopped: the game is saved and the LEDs are off"
        unwritten = len(self._unwritten)
        also = f"; {unwritten} finished game{'s' if unwritten != 1 else ''} not written" if unwritten else ""
        return f"stopped: the LEDs are off, but the game is NOT saved ({self.not_kept or 'the state directory failed'}{also})"

    # -- the loop -------------------------------------------------------------------------

    def step(self, now: int | None = None) -> list[Event]:
        """One iteration: read the board, keep the game, move the machine, light the LEDs."""
        if not self._started:
            raise RuntimeError("App.start() first")
        now = self.clock.now_ms() if now is None else now
        self.steps += 1
        if self._message_until is not None and now >= self._message_until:
            self.message, self._message_until = "", None
        self._sync_holds()  # before the board is read: players change, trackers are replaced
        flag = self._flag(now)  # a flag that fell before this step's moves
        queue = self._pending + flag + self.controller.step(now) + self._clock_lift(now) + self._poll_sources(now)
        self._pending = []
        out: list[Event] = []
        i = 0
        while i < len(queue):
            event = queue[i]
            i += 1
            # The set-up of a resumed game is no new game: game-start (resumed) says it.
            if not (isinstance(event, NewGame) and self._resuming and not self._resume_declined):
                out.append(event)
            queue += self._handle(event, now)
        self._play_computer(now, out)
        self._find_hint(now, out)
        out += self._announce_setup(now)
        self._takeback_pressed = False  # a press is handled in the step that polled it
        for event in out:
            self._emit(event)
        self._light(now)
        return out

    def _flag(self, now: int) -> list[Event]:
        """The board clock's flag, if it fell by ``now``: the game ends on time."""
        clock = self.board_clock
        if clock is None or self._resuming or self.tracker.setting_up is not None:
            return []
        fell = clock.check(now)  # cheap: the clock stops when the game ends
        if fell is None or self.tracker.game.is_over:
            return []
        t, side = fell
        return clock.fell(t, side) + self.tracker.declare(win_for(side.opponent), "time", t)

    def _clock_lift(self, now: int) -> list[Event]:
        """A waiting board clock starts when the side to move lifts one of its pieces."""
        clock = self.board_clock
        if clock is None or not clock.waiting or self._resuming or self.tracker.setting_up is not None:
            return []
        game = self.tracker.game
        own = game.position.pieces_of(game.turn)
        if self.tracker.board & own == own:
            return []
        return clock.lifted(game, now)

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
        if self.board_clock is not None:
            times.append(self.board_clock.next_deadline())
        times.append(self._message_until)
        if self.sim is not None:
            times.append(self.sim.next_event_ms())
        if self.thinker.busy or self.hint_thinker.busy:
            times.append(now + 20)  # poll the thinking machine
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def wake(self) -> None:
        """Ask the real-time loop (:meth:`run`) for a step now; from any thread."""
        self._woken.set()

    def sleeps_until_due(self) -> bool:
        """Whether :meth:`run` may sleep until the next deadline: on the simulated board,
        whose switches change only when this loop moves its pieces or at the times its
        timeline holds (:meth:`next_deadline`, exactly what virtual time steps through),
        with no source but those that wake the loop. Elsewhere a scanner's or a serial
        board's change, or a link's line, is only seen at the next poll."""
        return self.hardware.backend == "sim" and all(source in self.waking_sources for source in self.sources)

    def run(self, stop: threading.Event, poll_ms: int = 10, idle_ms: int = IDLE_MS) -> None:
        """The real-time main loop: step, then sleep until the next deadline or ``poll_ms``.

        ``poll_ms`` bounds how long a switch change waits in the backend's queue before the
        debouncer sees it (the scanners run in their own threads). When nothing else can
        change the board meanwhile (:meth:`sleeps_until_due`) it sleeps until the next
        deadline, at most ``idle_ms``, or until woken (:meth:`wake`): the same steps at the
        same deadlines, without a hundred wake-ups a second of an idle board. It sees
        ``stop`` within ``idle_ms`` (at once if whoever sets it wakes the loop too; a
        signal handler must not: the loop may hold the wake-up's lock when it runs).
        """
        while not stop.is_set():
            self._woken.clear()  # a wake-up during the step makes the next one at once
            self.step()
            now = self.clock.now_ms()
            due = self.next_deadline()
            limit = idle_ms if self.sleeps_until_due() else poll_ms
            wait = limit if due is None else max(0, min(limit, due - now))
            if wait:
                self._woken.wait(wait / 1000)

    def run_for(self, ms: int) -> list[Event]:
        """Virtual time only: step through every deadline for the next ``ms`` milliseconds."""
        return self.run_until(self.clock.now_ms() + ms)

    def run_until(self, until: int) -> list[Event]:
        """Virtual time only: step through every deadline up to ``until``, then to it."""
        set_time = getattr(self.clock, "set", None)
        if set_time is None:
            raise TypeError("run_until needs a VirtualClock")
        events: list[Event] = []
        for _ in range(100_000):
            due = self.next_deadline()
            if due is None or due > until:
                break
            set_time(max(due, self.clock.now_ms()))
            events += self.step()
        set_time(max(until, self.clock.now_ms()))
        events += self.step()
        return events

    def settle(self, limit_ms: int = 10_000) -> list[Event]:
        """Virtual time: run until nothing is pending but blinking (at most ``limit_ms``)."""
        events: list[Event] = []
        end = self.clock.now_ms() + limit_ms
        while True:
            times = [self.controller.next_deadline(), self.hardware.lights.next_deadline()]
            if self.sim is not None:
                times.append(self.sim.next_event_ms())
            if self.thinker.busy or self.hint_thinker.busy:
                times.append(self.clock.now_ms() + 20)
            due = [t for t in times if t is not None]
            if not due or min(due) > end:
                break
            events += self.run_until(min(due))
        return events

    # -- reacting to events ---------------------------------------------------------------

    def _handle(self, event: Event, now: int) -> list[Event]:
        """Keep the game for ``event``; return the events it causes (handled in turn)."""
        out: list[Event] = []
        tracker = self.tracker
        if self.board_clock is not None and tracker.game is self._game:
            out += self._clock_event(event, now)
        if isinstance(event, (MoveMade, TakenBack, GameOver, NewGame)):
            self._forget_said()
        if isinstance(event, (MoveMade, NewGame)) and self.sim is not None:
            self._tidy_hand(event)
        if isinstance(event, MoveMade):
            self.policy.turn_changed()
            self._forget_hint()
            if not tracker.game.is_over:
                out += self._save(now)  # a last move is saved with the result, at game-over
        elif isinstance(event, (TakenBack, ForcedJump)):
            self.policy.turn_changed()
            self._forget_hint()
            self.thinker.cancel()
            pressed, self._takeback_pressed = self._takeback_pressed, False
            game = tracker.game
            if (
                pressed
                and isinstance(event, TakenBack)
                and self.mode.computer
                and game.moves
                and not self.players[game.turn].is_human
                and tracker.setting_up is None
            ):
                # The person takes back their own move, not just the machine's answer
                # (which the machine would only ask for again): a second ply goes, and the
                # lights guide the board back to the position before the person's move.
                out += tracker.take_back(now)
                out += tracker.restore(tracker.board, now)
                return out
            out += self._save(now)
        elif isinstance(event, (Huffed, HuffTakenBack)):
            self.thinker.cancel()  # the position changed under the side to move
            self._forget_hint()
            out += self._save(now)
        elif isinstance(event, GameOver):
            written = self._written
            out += self._save(now)
            record = self.record
            if record is not None and record.finished and self._written is not written:
                # The result counts in the match once, whether or not the disk took it.
                ballot = self.referee.ballot if self.referee is not None else None
                out += self.matches.finished(record, now, ballot.number if ballot is not None else None)
            if tracker.expected is not None:
                tracker.expect(None)  # the machine's move shown is moot now
        elif isinstance(event, DrawOffer):
            out += self._on_offer(event, now)
        elif isinstance(event, ResignAsked):
            self.say(
                f"{event.side.title()}: press resign again within 3 s to resign (or hold it down).",
                until=event.until,
            )
        elif isinstance(event, Reopened):
            self.say("The resignation is taken back: play on.")
            self.policy.turn_changed()
            self._written = None
            out += self._save(now)
        elif isinstance(event, NewGame):
            out += self._new_game(now)
        elif event.kind == "claim":
            # A refused claim changes nothing on the board: the screen says why.
            self.say(str(getattr(event, "message", "")))
            if not tracker.game.is_over and self.referee is not None:
                out += self._save(now)  # the referee's note, kept with the game
        elif event.kind == "forfeit":
            data = event.to_json()
            side = str(data.get("side", "")).title()
            what = str(data.get("message", "")).split("; ")[0]  # what to put back is moot now
            self.say(f"{side} forfeits the game: a second illegal move ({what}), WCDF 1.25.")
        elif event.kind == "caution" and not tracker.game.is_over:
            out += self._save(now)  # a second caution after a restart still forfeits
        elif isinstance(event, Crowned) and self.settings.auto_crown and self.sim is not None:
            token = self.sim.pieces.get(event.square)
            if token is not None and token.islower():
                # Stacking a second piece keeps the switch closed: no sensor change.
                self.sim.crown(event.square)
        return out

    def _tidy_hand(self, event: MoveMade | NewGame) -> None:
        """The simulator's hands put taken pieces beside the board, not in the hand: the
        pieces a move captured leave it, and a new game begins with the hand empty."""
        sim = self.sim
        assert sim is not None
        if isinstance(event, NewGame):
            sim.hand.clear()
            return
        positions = self.tracker.game.positions
        before = positions[-2] if len(positions) > 1 else None
        for square in event.captures:
            piece = before.piece_at(square) if before is not None else None
            if piece is not None and square not in sim.pieces and piece.symbol in sim.hand:
                sim.hand.remove(piece.symbol)  # the first such: the jumper, if held, is the last

    def clock_state(self, now: int) -> tuple[int, int, str, bool, str] | None:
        """The game clock for the display and the buzzer: (Black's ms, White's ms, the
        running side or "", paused, the side whose flag fell or ""), or None without one."""
        referee = self.referee
        if referee is not None:
            return referee.clock_state(now)
        if self.board_clock is not None and not self._resuming:
            return self.board_clock.state(now)
        return None

    def _clock_event(self, event: Event, now: int) -> list[Event]:
        """The board clock follows the game: moves switch it, the end stops it."""
        clock = self.board_clock
        assert clock is not None
        game = self.tracker.game
        if isinstance(event, MoveMade):
            return clock.moved(BLACK if event.side == "black" else WHITE, game, event.t)
        if isinstance(event, GameOver):
            return clock.over(event.t)
        if isinstance(event, TakenBack):
            return clock.taken_back(game, now)
        if isinstance(event, Reopened):
            return clock.reopened(game, now)
        return []

    def _on_offer(self, offer: DrawOffer, now: int) -> list[Event]:
        """A draw offer: the machine answers one made to it; people are told how to accept."""
        side = BLACK if offer.side == "black" else WHITE if offer.side == "white" else None
        game = self.tracker.game
        if side is None:
            # The shared button cannot tell who pressed it (docs/hardware.md).
            self.say(
                "Draw offered with the shared button, which cannot tell who pressed it: offer with"
                " your side's own draw button, and the other side accepts with theirs."
            )
            return []
        machine = self.players[side.opponent]
        if self.mode.computer and isinstance(machine, Computer) and not machine.is_human:
            accept, score = draw_answer(game, side.opponent)
            if accept:
                self.say(f"{machine.name} accepts the draw (level or worse for it).")
                return self.tracker.offer_draw(side.opponent, now)
            message = f"{machine.name} declines the draw: {side.opponent} is better ({score / 100:+.2f})"
            self.say(message + ".")
            return [DrawDeclined(now, str(side.opponent), message)]
        self.say(f"{side.name.title()} offers a draw: {side.opponent.name.title()} accepts with their draw button.")
        return []

    def offer_draw(self, side: Color | None, now: int | None = None) -> list[Event]:
        """``side`` offers or accepts a draw (None: the shared button), as its button does.

        For the host link and the web page (a :data:`Source`, which returns the events).
        """
        return self._command(lambda t: self.tracker.press("draw" if side is None else f"{side}_draw", t), now)

    def resign(self, side: Color | None, now: int | None = None, *, confirmed: bool = False) -> list[Event]:
        """``side`` resigns (None: the side played at the board); unless ``confirmed``, the
        first request asks for a second one within 3 s, as the button does."""
        name = "resign" if side is None else f"{side}_resign"
        return self._command(lambda t: self.tracker.press(name, t, confirmed), now)

    def _command(self, act: Callable[[int], list[Event]], now: int | None) -> list[Event]:
        """Run a command on the game now and return its events: a :data:`Source` returns
        them from its poll, so that this step handles and sends them like a press's."""
        return act(self.clock.now_ms() if now is None else now)

    def _new_game(self, now: int) -> list[Event]:
        """The set-up position stands on the board: resume the saved game, or begin anew."""
        out: list[Event] = []
        self.policy.turn_changed()
        self._forget_hint()
        self.thinker.cancel()
        if self._resuming and not self._resume_declined:
            assert self._resume is not None
            record, game = self._resume
            # The set-up tracker knew only the position; the game's own tracker knows its
            # history (repetitions, takeback, the last move lit dimly).
            self.tracker = self._judged(
                Tracker(game, self.tracker_settings, self.mode, board=self.controller.occupancy), resumed=True
            )
            self.controller = Controller(
                self.hardware.sensors, self._buttons, self.tracker, self.controller.debouncer, self.clock
            )
            self._sync_holds()
            self._resuming = False
            self._resume = None
            self.record, self._game = record, game
            self.players.update(self.matches.resumed(record, self.players))
            self.say("")
            out.append(GameStarted(now, True, game.ply, game.position.fen(), record.id))
            if self.board_clock is not None:
                out += self.board_clock.begin(record.id, game, now, resumed=True)
            return out
        out += self._put_away(now)
        self._resuming = False
        self._resume_declined = False
        self._resume = None
        self._referee_game = None  # the saved game was put away: its referee state with it
        self._game = self.tracker.game
        if self.referee is not None:
            # The referee's names for this game (colours are reversed every game).
            for color, name in zip((BLACK, WHITE), self.referee.names):
                if isinstance(self.players[color], Human):
                    self.players[color] = Human(name)
        seating = self.matches.begin(now, self.players, self.referee)
        self.players.update(seating.players)
        out += seating.events
        self.record = self._new_record(self._game.start)
        if seating.names is not None:
            black, white = seating.names
            self.record = replace(self.record, black=black, white=white, extra={**self.record.extra, **seating.tags})
        out += self._save(now)
        out.append(GameStarted(now, False, 0, self._game.position.fen(), self.record.id))
        if self.board_clock is not None:
            out += self.board_clock.begin(self.record.id, self._game, now)
        return out

    def _save(self, now: int) -> list[GameSaved]:
        """Save the game in progress, or write it as PDN when it is over.

        Never raises over the disk: when the state directory fails (full, read-only,
        gone) the board says so once, plays on, and tries again at the next save; the
        game stays whole in memory meanwhile, and finished games wait their turn.
        """
        if self.store is None or self.record is None:
            return []
        game = self.tracker.game
        if game is not self._game:
            return []  # a new game is being set up; the old one was handled
        record = self.record.with_game(game)
        if not record.finished:
            record = replace(record, mode=self.mode.name, settings=self._mode_settings(game))
        self.record = record
        if record.finished:
            if record == self._written:
                return self._flush(now)  # already queued (closing after the game ended)
            self._written = record
            self._unwritten.append(record)
            referee = self.referee
            if referee is not None and referee.state is not None and referee.state.game is game:
                # One game, one record: the store keeps the referee's, with everything.
                self._full_pdn[record.id] = referee.pdn()
            return self._flush(now)
        saved = self._flush(now)
        if self._unwritten or self._aside_pending or not self.store.locked:
            return saved  # the disk failed just now: what is older goes first
        try:
            self.store.save_current(record)
        except StoreError as exc:
            self._store_failed(now, exc)
        else:
            self._store_ok(now)
        return saved

    def save_now(self, now: int) -> bool:
        """Save the game in progress at once (say, after its names changed); whether it is on disk."""
        if self.resuming or self.tracker.setting_up is not None or self.tracker.game.is_over:
            return False
        self._pending += self._save(now)
        return self.not_kept is None and not self._unwritten

    #: Finished games kept in memory at most while the disk fails (the oldest go first).
    UNWRITTEN_LIMIT = 64

    def _flush(self, now: int) -> list[GameSaved]:
        """Claim the directory, move a bad file aside, write the finished games waiting."""
        store = self.store
        if store is None:
            return []
        saved: list[GameSaved] = []
        try:
            if not store.locked:
                store.acquire()
            if self._aside_pending:
                aside = store.set_aside()
                self._aside_pending = False
                if aside is not None:
                    self._pending.append(Notice(now, f"the unreadable game file was kept as {aside}"))
            while self._unwritten:
                record = self._unwritten[0]
                path = store.finish(record, self._full_pdn.get(record.id))
                self._unwritten.pop(0)
                self._full_pdn.pop(record.id, None)
                saved.append(GameSaved(now, record.result or "*", str(path)))
        except StoreError as exc:
            self._store_failed(now, exc)
            if len(self._unwritten) > self.UNWRITTEN_LIMIT:
                # Not the oldest: it may be the one current.json still holds from before
                # the disk failed, which nothing may lose. The others were never on disk.
                lost = self._unwritten.pop(1)
                log.error("game %s dropped: %d finished games wait for the disk", lost.id, len(self._unwritten))
            return saved
        if saved:
            self._store_ok(now)  # something was written: the disk takes games again
        return saved

    def _store_failed(self, now: int, exc: StoreError) -> None:
        """Say once that games are not being kept, and why."""
        if self.not_kept is not None:
            return
        self.not_kept = str(exc)
        message = (
            f"games are not being kept: {exc}; the board plays on and tries again at every move "
            "(see docs/install.md)"
        )
        log.error("%s", message)
        self._pending.append(Notice(now, message))

    def _store_ok(self, now: int) -> None:
        if self.not_kept is None:
            return
        self.not_kept = None
        assert self.store is not None
        self._pending.append(Notice(now, f"games are kept again in {self.store.directory}"))

    def _put_away(self, now: int) -> list[GameSaved]:
        """The game before a new one: kept as PDN if it had moves and had not ended."""
        record = self.record
        if self.store is None or record is None or self._game is None:
            return []
        record = record.with_game(self._game)
        if record.finished:
            return self._flush(now)  # already queued when it ended
        if not record.moves:
            if not self._unwritten and not self._aside_pending and self.store.locked:
                try:
                    self.store.clear_current()
                except StoreError as exc:
                    self._store_failed(now, exc)
            return []
        self._unwritten.append(record.abandoned())
        return self._flush(now)

    def _on_press(self, press: ButtonEvent) -> bool | None:
        if press.name == "takeback" and self._resignation_counted():
            # The match has the result on its sheet: a resignation in it stands.
            self.say("The resignation stands: the game is counted in the match.")
            return False
        if press.name == "clock" and self.board_clock is not None and self.referee is None:
            if not self._resuming and self.tracker.setting_up is None:
                self._pending += self.board_clock.press(self.tracker.game, press.t_ms)
            return None
        if press.name == "hint":
            self.policy.reveal_hints()
            # A referee allows no hints; the engine's move (for a person to move, the
            # board at rest) is found in this step's _find_hint, after the press's events.
            self._hint_wanted = not self.mode.referee_lights
        elif press.name == "new" and self._resuming:
            self.give_up_resume()
        elif press.name == "takeback":
            self._takeback_pressed = True

        return None

    def give_up_resume(self) -> None:
        """The saved game being set up to resume is given up for a new game (the board's
        ``new`` button then, or a page's New game): it is kept as an unfinished game's PDN
        when the new game begins, and until then the board sets up the new one."""
        if self._resuming:
            self._resuming = False
            self._resume_declined = True

    def _resignation_counted(self) -> bool:
        """Whether the game ended by resignation and the match under way has counted it."""
        declared = self.tracker.game.declared
        match = getattr(self.matches, "match", None)
        record = self.record
        return (
            declared is not None
            and declared.reason == "resign"
            and match is not None
            and record is not None
            and any(g.id == record.id for g in match.played)
        )

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
            ComputerMove(now, str(game.turn), player.name, move.pdn(), tuple(move.path), tuple(move.captures))
        )

    # -- the engine's hint -----------------------------------------------------------------

    @property
    def hint(self) -> Move | None:
        """The engine's move the hint button asked for, while it is still this turn's."""
        if self._hint is None or self.mode.referee_lights:
            return None
        key, move = self._hint
        game = self.tracker.game
        return move if key == (game.ply, game.position) else None

    def _forget_hint(self) -> None:
        """The turn changed or a game began: the hint is moot, and so is its search."""
        self._hint_wanted = False
        self._hint = None
        self.hint_thinker.cancel()

    def _hint_allowed(self) -> bool:
        """Whether a person is to move in a game under way, so that a hint makes sense."""
        tracker = self.tracker
        game = tracker.game
        player = self.players[game.turn]
        return not (
            self.mode.referee_lights
            or self._resuming
            or tracker.setting_up is not None
            or game.is_over
            or tracker.expected is not None
            or game.turn in tracker.held  # the machine's or the link's side: not a person's
            or not player.is_human
        )

    def _find_hint(self, now: int, out: list[Event]) -> None:
        """Start, poll or drop the search for the hinted move (see :meth:`_on_press`)."""
        if not self._hint_wanted and not self.hint_thinker.busy:
            return
        if not self._hint_allowed():
            self._forget_hint()
            return
        game = self.tracker.game
        if self._hint_wanted and self.hint is not None:
            self._hint_wanted = False  # pressed again: the move found stands
        if self._hint_wanted and not self.hint_thinker.thinking_about(game):
            self._hint_wanted = False
            if self.tracker.reading.kind is not Kind.IDLE:
                # A piece is in hand: the player has chosen it, and the revealed hints
                # show where it can go. The engine's move is for a board at rest.
                return
            if not game.legal_moves():
                return
            player = self._hint_engine(now, out)
            if player is None:
                return
            self._hint = None
            self.hint_thinker.start(player, game)
        try:
            move = self.hint_thinker.poll()
        except PlayerError as exc:
            out.append(Notice(now, f"no hint: {exc}"))
            return
        if move is not None:
            self._hint = ((game.ply, game.position), move)

    def _hint_engine(self, now: int, out: list[Event]) -> Computer | None:
        """The hint's player, made at the first hint; None (said once) without an engine."""
        if self.hint_player is None and not self._hint_failed:
            try:
                self.hint_player = engine_player(movetime_ms=self.settings.hint_movetime_ms)
            except EngineUnavailable as exc:
                self._hint_failed = True
                out.append(Notice(now, f"the hint button shows the legal moves only: {exc}"))
        return self.hint_player

    def _hint_roles(self, roles: dict[int, str]) -> None:
        """Draw the hinted move under the tracker's roles (targets, warnings, removals...)."""
        move = self.hint
        if move is None:
            return
        wanted = {move.start: Role.HINT_FROM, move.end: Role.HINT_TO}
        for square in move.path[1:-1]:
            wanted.setdefault(square, Role.HINT_PATH)
        for square in move.captures:
            wanted.setdefault(square, Role.HINT_CAPTURE)
        for square, role in wanted.items():
            if roles.get(square) in (None, Role.KING, Role.LAST_FROM, Role.LAST_TO, Role.MUST_CAPTURE):
                roles[square] = role

    # -- the lights -----------------------------------------------------------------------

    def _light(self, now: int) -> None:
        tracker = self.tracker
        warning = tracker.warning
        squares: tuple[int, ...] = warning.squares if warning is not None else ()
        game = tracker.game
        result = game.result if tracker.setting_up is None else None
        roles = tracker.roles
        if (
            result is None
            and tracker.setting_up is None
            and tracker.expected is None
            and tracker.reading.kind is Kind.IDLE
            and game.turn not in tracker.held  # nothing to capture here: wait for the move
        ):
            # The start of a turn with a compulsory capture: the pieces that must capture.
            for square in self._jumpers(game):
                if roles.get(square) in (None, Role.KING, Role.LAST_FROM, Role.LAST_TO):
                    roles[square] = Role.MUST_CAPTURE
        if result is None and tracker.setting_up is None:
            self._hint_roles(roles)
        frame = self.policy.frame(
            roles, now_ms=now, warning_squares=squares, result=result, position=game.position
        )
        self._blinking = self.policy.blinking
        lights = self.hardware.lights
        if frame != self._frame:
            self._frame = frame
            self.lit_roles = {square: role for square, role in roles.items() if square in frame}
            lights.show(frame)
        else:
            lights.flush(now)

    def _jumpers(self, game: Game) -> tuple[int, ...]:
        """The squares of the pieces that can capture now, when a capture is compulsory."""
        key = (game.ply, game.position, game.jump_required)
        if self._jumpers_key != key:
            self._jumpers_key = key
            squares: tuple[int, ...] = ()
            # Under huffing a jump is required only after a forced jump.
            if game.rules.must_capture or game.jump_required:
                squares = tuple(sorted({m.start for m in game.position.captures(game.rules)}))
            self._jumpers_cache = squares
        return self._jumpers_cache

    # -- sources and sinks ----------------------------------------------------------------

    def _poll_sources(self, now: int) -> list[Event]:
        events: list[Event] = []
        for source in self.sources:
            try:
                events += source(now)
            except Exception:  # a broken link must not stop the board
                log.exception("event source failed")
        return events

    @property
    def game(self) -> Game:
        """The game on the board; while a saved game is being set up to resume, that game."""
        if self._resuming and self._game is not None:
            return self._game
        return self.tracker.game

    @property
    def resuming(self) -> bool:
        """Whether a saved game's pieces are being set up before it goes on."""
        return self._resuming

    def set_player_names(self, black: str, white: str, now: int) -> bool:
        """Name the players: the people's seats take the names, a machine is renamed, the
        referee's games (the record, the games after) and the unfinished game's record
        follow. True when the game is on disk with the new names (a failure to save is
        said once, as every save's, and never overwrites a finished game waiting for the
        disk)."""
        for color, name in ((BLACK, black), (WHITE, white)):
            player = self.players[color]
            if isinstance(player, Computer):
                player.name = name
            else:
                self.players[color] = Human(name)
        if self.referee is not None:
            self.referee.set_names(black, white)  # the tournament record, and the games after
        game = self.tracker.game
        if (
            self.record is None
            or (self.record.black, self.record.white) == (black, white)
            or self._resuming
            or game is not self._game
            or self.tracker.setting_up is not None
            or game.is_over
        ):
            # No game under way is the record's: a saved game waiting to be set up, one
            # put away for a new game being set up, one over. The names are the next game's.
            return False
        self.record = replace(self.record, black=black, white=white)
        if self.store is None:
            return False
        return self.save_now(now)

    def hold(self, side: Color, by: str) -> None:
        """``side``'s moves are made elsewhere (``by`` names where: ``the other end of the
        link``): the board accepts none but the one its lights show, in every game from
        now on (see :meth:`firmware.tracking.tracker.Tracker.hold`). A computer's side is held
        this way while it plays.
        """
        self._held[side] = by
        if self._started:
            self._sync_holds()

    def release(self, side: Color) -> None:
        """Moves for ``side`` are made at the board again (undoes :meth:`hold`)."""
        self._held.pop(side, None)
        if self._started:
            self._sync_holds()

    def _sync_holds(self) -> None:
        """Hold on the tracker the sides held here and the computers' sides."""
        wanted = dict(self._held)
        if self.mode.computer:
            for color, player in self.players.items():
                if isinstance(player, Computer) and not player.is_human:
                    wanted.setdefault(color, player.name)
        tracker = self.tracker
        have = tracker.held
        if have == wanted:
            return
        for color in have.keys() - wanted.keys():
            tracker.release(color)
        for color, by in wanted.items():
            tracker.hold(color, by)

    def set_rules(self, rules: Rules, now: int | None = None) -> list[Event]:
        """Play the next games under ``rules`` (a variant, house rules): before a game's
        first move, after the game, or while one is set up. The board is then set up for
        a new game from that variant's start position (a host: ``rules``, then ``new``).

        Returns the events of the new game's set-up; raises ``ValueError`` when a game
        is under way.
        """
        game = self.tracker.game
        if self._resuming or (game.ply and not game.is_over and self.tracker.setting_up is None):
            raise ValueError("the rules change only before the first move or after the game")
        if rules == game.rules:
            return []
        now = self.clock.now_ms() if now is None else now
        self.thinker.cancel()
        self._forget_hint()
        self.settings = replace(self.settings, rules=rules, start=None)
        occupancy = self.tracker.board
        plain = Tracker(Game(Position.start(rules), rules), self.tracker_settings, self.mode, board=occupancy)
        self.tracker = self._judged(plain)
        self.controller.tracker = self.tracker
        self._sync_holds()
        return self.tracker.new_game(Position.start(rules), now)

    def computer_player(self, level: int | None = None) -> Player:
        """The engine as a player at ``level`` (None: full strength), for ``computer`` mode.
        Raises ``ValueError`` when the engine is not installed in this checkout."""
        try:
            return engine_player(level=level)
        except EngineUnavailable as exc:
            raise ValueError(str(exc)) from None

    def set_brightness(self, fraction: float) -> None:
        """The LEDs' brightness from now on, 0-1 of the configured maximum."""
        self.policy.settings = replace(self.policy.settings, brightness=fraction)

    def change_referee(self, **changes: Any) -> RefereeSettings:
        """Change the referee's settings (style, clock, event, site, round) for the games
        to come: the configured ones and the arbiter's, in referee mode or kept for it.
        Raises ``ValueError`` for a value the referee does not take."""
        settings = replace(self.referee_settings, **changes)
        self.referee_settings = settings
        arbiter = self.referee or self._arbiter
        if arbiter is not None:
            arbiter.settings = replace(arbiter.settings, **changes)
            arbiter.style = arbiter.settings.style
        return settings

    def set_mode(self, name: str, now: int | None = None, computer: tuple[Color, Player] | None = None) -> None:
        """Switch between ``play`` (two players) and ``referee`` before a game's first move,
        after the game, or while one is set up: the tracker's rules, the lights, the arbiter
        (a host does this over the link: ``mode play|referee``).

        The referee is the configured one (:attr:`referee_settings`: style, clock, ballot,
        record files), the same one each time referee mode comes back. It takes the
        players' names the board knows (``?`` ones from its settings).

        ``computer``: for ``computer`` mode, the machine's side and player (the engine at
        some level); the other side is a person's. Leaving computer mode gives the
        machine's side back to a person.

        Raises ``ValueError`` naming the problem (another mode, a game under way).
        """

        if name not in ("play", "referee", "computer"):
            raise ValueError(f"the mode is play, referee or computer, got {name!r}")
        if name == "computer" and computer is None:
            raise ValueError("computer mode needs the machine's side and player")
        game = self.tracker.game
        if self._resuming or (game.ply and not game.is_over and self.tracker.setting_up is None):
            raise ValueError("the mode changes only before the first move or after the game")
        if name == self.mode.name and name != "computer":
            return
        now = self.clock.now_ms() if now is None else now
        self.thinker.cancel()
        if self.mode.computer and self.tracker.expected is not None:
            self.tracker.expect(None)  # the machine's move is no longer asked for
        # People on both sides again, under the names they had; then the machine's side.
        for color, player in list(self.players.items()):
            if not player.is_human:
                self.players[color] = Human(self._human_names.get(color, "?"))
        if computer is not None and name == "computer":
            side, machine = computer
            self._human_names[side] = self.players[side].name
            self.players[side] = machine
        plain = self.tracker.tracker
        self.mode = MODES[name]
        self._forget_hint()
        self.policy.referee = self.mode.referee_lights
        plain.policy = self.mode
        if self.mode.tracker_mode == "referee":
            self.referee = self.referee or self._arbiter or Referee(self.referee_settings)
            self._arbiter = self.referee
            # A game not yet begun is refereed from now; otherwise from the next new game.
            begins = not game.is_over and plain.setting_up is None
            self.tracker = self.referee.attach(plain, now if begins else None)
            self._name_players(now if begins else None)
        else:
            if self.referee is not None and plain.expected is not None and plain.expected == self.referee.ballot_move:
                plain.expect(None)  # the referee's ballot is no longer asked for
            self.referee = None
            self.tracker = plain
        self.controller.tracker = self.tracker
        self.tracker.expect(self.tracker.expected)  # the board read again under the new rules

    def _name_players(self, now: int | None) -> None:
        """Referee mode has begun: the referee and the board agree on the players' names.

        A name the board knows wins over the referee's configured one (``?`` is none).
        ``now``: the game begins now, so its record takes the names too.
        """
        referee = self.referee
        assert referee is not None
        known = (self.players[BLACK].name, self.players[WHITE].name)
        names = tuple(mine if mine != "?" else theirs for mine, theirs in zip(known, referee.names))
        referee.set_names(*names)
        for color, name in zip((BLACK, WHITE), names):
            if isinstance(self.players[color], Human):
                self.players[color] = Human(name)
        if now is not None and self.record is not None and self._game is self.tracker.game:
            self.record = replace(self.record, black=names[0], white=names[1])
            self._pending += self._save(now)


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
            self._forget_said()  # the game before is put away
        black, black_kings = setup_squares(position, BLACK)
        white, white_kings = setup_squares(position, WHITE)
        board = self.tracker.board
        wrong = tuple(s for s in range(1, 33) if bool(board >> (s - 1) & 1) != bool(position.occupied >> (s - 1) & 1))
        return [SetUp(now, cause, position.fen(), black, black_kings, white, white_kings, wrong)]

    def _emit(self, event: Event) -> None:
        if isinstance(event, Alert):
            self.say(event.message)  # on the terminal's message line and every page, too
        for sink in self.sinks:
            try:
                sink(event)
            except BrokenPipeError:
                raise
            except Exception:  # a broken log or link must not stop the board
                log.exception("event sink failed")

    # -- the screen -------------------------------------------------------------------------

    def press(self, name: str, now: int | None = None, *, long: bool = False) -> None:
        """Press button ``name`` as if on the board (a web page or a host link's ``press``).

        The press reaches the tracker with the board's own buttons in the next step, on
        every backend, whether or not the board has that button wired.
        """
        t = self.clock.now_ms() if now is None else now
        fields = {"long": True} if long and "long" in getattr(ButtonEvent, "__dataclass_fields__", {}) else {}
        self._buttons.injected.append(ButtonEvent(name, t, **fields))

    def say(self, message: str, *, until: int | None = None) -> None:
        """Show a message on the simulator's screen and the pages (``until``: it goes by
        itself then, the board's ms). A message is about the moment it was said: when the
        game moves on (a move, a takeback), ends or a new one is set up, it goes."""
        self.message = message
        self._said_step = self.steps
        self._message_until = until

    def _forget_said(self) -> None:
        """What was said before this step is old news: the game has moved on."""
        if self._said_step < self.steps:
            self.message = ""
            self._message_until = None

    # -- the view -------------------------------------------------------------------------

    def view(self) -> BoardView:
        """What the terminal simulator shows now."""
        tracker = self.tracker
        game = self._game if self._resuming and self._game is not None else tracker.game
        if self.sim is not None:
            pieces: Mapping[int, str] = dict(self.sim.pieces)
            lit = self.sim.lights.current
            hand = tuple(self.sim.hand)
        else:
            pieces = {s: p.symbol for s, p in tracker.position.pieces().items()}
            lit = self.hardware.lights.current
            hand = ()
        result = game.result
        if self._resuming:
            status = f"Resuming a game: {game.turn.name.title()} to move, move {game.ply // 2 + 1}"
        elif tracker.setting_up is not None:
            status = "New game: set up the pieces"
        elif result is not None:
            status = f"Game over: {_result_words(result.score, result.reason)}"
        else:
            status = f"{game.turn.name.title()} to move, move {game.ply // 2 + 1}"
            if self.hint is not None:
                status += f"; hint: {self.hint.pdn()}"
        warning = tracker.warning
        prompt = ""
        target = self.setup_target()
        if self._resuming:
            assert target is not None
            prompt = f"Set up {setup_text(target[1])}: where the lights ask (f does it), or n for a new game instead."
        elif tracker.setting_up is not None:
            prompt = (
                f"Set up {setup_text(tracker.setting_up)}: put pieces on the blue squares and take"
                " them off the orange ones (f does it)."
            )
        elif target is not None and target[0] == "restore":
            prompt = f"Put the board back to: {setup_text(target[1])} (f does it)."
        elif crown := [s for s, r in tracker.roles.items() if r == "crown"]:
            prompt = f"Crown the man on {crown[0]}: put a king on it (f does it)."
        elif tracker.expected is not None:
            prompt = f"{self.players[game.turn].name} plays {tracker.expected.pdn()}: make it on the board (f does it)."
        elif self.thinker.busy:
            prompt = f"{self.players[game.turn].name} is thinking..."
        elif self.hint_thinker.busy:
            prompt = "Looking for a hint..."
        elif game.turn in tracker.held and tracker.setting_up is None and result is None:
            prompt = f"{game.turn.name.title()}'s moves come from {tracker.held[game.turn]}: wait until the board shows one."
        warning_text = ""
        if warning is not None:
            warning_text = warning.message[:1].upper() + warning.message[1:]
        hints = "hints on" if self.policy.hints_shown else "hints off"
        mode = self.mode.title
        if self.mode.computer:
            machine = [c.name.title() for c, p in self.players.items() if not p.is_human]
            if machine:
                mode = f"Computer plays {machine[0]}"
        moves = tuple(m.pdn() for m in game.moves)
        return BoardView(
            pieces=pieces,
            lit=dict(lit),
            blinking=self._blinking,
            status=status,
            mode_text=f"{mode}, {hints}",
            black=self.players[BLACK].name if self.referee is None else self.referee.side_text(BLACK, self.clock.now_ms()),
            white=self.players[WHITE].name if self.referee is None else self.referee.side_text(WHITE, self.clock.now_ms()),
            moves=moves,
            first_mover_white=game.start.turn is WHITE,
            warning=warning_text,
            prompt=prompt,
            hand=hand,
            message=self.message,
            match=self.matches.line(),
            display=tuple(getattr(self.hardware.display, "lines", ()) or ()),
            page_urls=self.page_urls,
            page_pin=self.page_pin,
        )


def _result_words(score: str, reason: str) -> str:
    reasons = {
        "no-moves": "the other side cannot move",
        "resign": "resignation",
        "repetition": "repetition",
        "forty-moves": "forty-move rule",
        "agreement": "agreement",
    }
    why = reasons.get(reason, reason)
    if score == "1-0":
        return f"Black wins ({why})"
    if score == "0-1":
        return f"White wins ({why})"
    return f"draw ({why})"
