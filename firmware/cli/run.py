"""``crownhead run``: the board application, with the terminal simulator or headless.

With no configuration it runs on the simulated board in the terminal (what ``make run``
starts). ``--headless`` runs the same application without the screen, logging every
event to stdout, one line each (what the systemd service runs on a Pi). SIGTERM, SIGINT
and SIGHUP stop it cleanly: the game is saved, the LEDs turned off, the pins released.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from crownhead.firmware.app.application import App
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.sinks import json_sink, text_sink
from crownhead.firmware.tracking.policy import MODES
from crownhead.firmware.cli._common import add_rules_arguments, missing_extra, position_from_args, rules_from_args
from crownhead.firmware.config import Config, ConfigError
from crownhead.firmware.app.settings import MatchConfig, PaletteConfig, PlayConfig, StoreConfig
from crownhead.firmware.egdb import EgdbError, load_probe
from crownhead.rules.engine.egdb import EndgameTables
from crownhead.firmware.app.hardware import add_hardware_arguments, add_sim_arguments, config_from_args, open_hardware
from crownhead.firmware.files import int_argument
from crownhead.firmware.link.host import Link, open_link
from crownhead.firmware.link.settings import PLAYS, LinkConfig
from crownhead.firmware.redact import RedactingFilter
from crownhead.firmware.web.settings import WebConfig
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.firmware.voice.settings import VoiceConfig
from crownhead.firmware.voice.speaker import open_speaker
from crownhead.firmware.cli._hall import add_hall_arguments, hall_from_args
from crownhead.firmware.cli._voice import add_speech_arguments, voice_config, voice_settings
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.results import results_file
from crownhead.firmware.hall.commands import attach_commands
from crownhead.firmware.display.panel import attach_board_parts
from crownhead.firmware.referee.arbiter import Referee, RefereeConfig, add_referee_arguments, referee_from_args
from crownhead.firmware.gameclock import ClockSpecError, TimeControl
from crownhead.firmware.app.players import (
    EngineUnavailable,
    Human,
    MachineSpec,
    Player,
    RandomMover,
    Thinker,
    engine_player,
    machine_player,
)
from crownhead.firmware.files import default_state_dir
from crownhead.firmware.storage.store import GameStore, StoreError
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.clock import Clock, MonotonicClock, VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.rules import BLACK, WHITE, Color, Position
from crownhead.sim.board import SimError

if TYPE_CHECKING:  # the server (Starlette) is loaded only when the page is asked for
    from crownhead.firmware.app.leds import LedSettings
    from crownhead.firmware.app.tryagain import Retry
    from crownhead.firmware.coach.problems import Problem
    from crownhead.firmware.hall.settings import HallSettings
    from crownhead.firmware.referee.settings import RefereeSettings
    from crownhead.firmware.remote.board import Absence
    from crownhead.firmware.remote.invite import Agreement
    from crownhead.firmware.online.desk import OnlineDesk
    from crownhead.firmware.online.game import OnlineGame
    from crownhead.firmware.remote.page import FarDesk
    from crownhead.firmware.simulator.hands import Action
    from crownhead.firmware.web.far import FarRequests
    from crownhead.firmware.web.online import OnlineRequests
    from crownhead.firmware.web.server import WebServer

__all__ = ["register", "run"]

PROG = "crownhead run"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the board: the terminal simulator, or headless on a Pi",
        description=(
            "Run the board application. Without a configuration it uses the simulated "
            "board in an interactive terminal screen; --headless runs without the screen "
            "and logs events to stdout (the systemd service does this)."
        ),
    )
    add_hardware_arguments(p)
    p.add_argument("--headless", action="store_true", help="no terminal screen; log events to stdout")
    p.add_argument(
        "--mode",
        choices=[*MODES, "problems"],
        help="play: two people (default); computer: against the machine; referee: tournament games "
        "(see docs/referee.md); problems: published problems against the engine (see docs/coach.md)",
    )
    p.add_argument(
        "--problem", metavar="ID", help="with --mode problems: begin with this problem (crownhead problems list)"
    )
    p.add_argument(
        "--from-game",
        metavar="GAME",
        help="try a kept game again (its number or name in crownhead games) from the position after "
        "--ply plies, against the computer (--mode computer: it takes the side not to move) or a friend "
        "(--mode play); the new game's record names it (docs/coach.md)",
    )
    p.add_argument(
        "--ply",
        type=int_argument,
        metavar="N",
        help="with --from-game: the plies of that game played before the position (0: its start)",
    )
    p.add_argument("--hints", choices=("on", "off"), help="hint lights (default: on, or [play] hints)")
    p.add_argument(
        "--analysis",
        choices=("on", "off"),
        help="the engine's live analysis on the page and the display (default: off, or [play] analysis; "
        "never in referee mode)",
    )
    p.add_argument(
        "--computer-plays", choices=("black", "white"), help="the machine's side in computer mode (default: white)"
    )
    p.add_argument(
        "--opponent",
        choices=("engine", "random"),
        help="the machine in computer mode: the engine (default) or a random-move test player",
    )
    p.add_argument(
        "--level",
        type=int_argument,
        choices=range(1, 11),
        metavar="1-10",
        help="the engine's strength (default: full strength, or [play] level)",
    )
    p.add_argument(
        "--seed", type=int_argument, default=None, help="seed for the machine's choices (reproducible games)"
    )
    p.add_argument("--black", metavar="NAME", help="Black's name for the game record")
    p.add_argument("--white", metavar="NAME", help="White's name for the game record")
    p.add_argument("--fen", help="start new games from this position instead of the start position")
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where games are kept (default: /var/lib/crownhead when writable, "
        "else $XDG_STATE_HOME/crownhead or ~/.local/state/crownhead)",
    )
    p.add_argument("--log", choices=("text", "json"), default="text", help="headless event log format (default: text)")
    p.add_argument(
        "--script",
        metavar="FILE",
        help="simulator only, headless: perform the hand actions of a replay script "
        "(lift S, place S, wait MS, press NAME) in virtual time, then exit",
    )
    p.add_argument(
        "--sim-keep-game",
        action="store_true",
        help="simulator only: a resumed game's pieces already stand on the board "
        "(as a real board keeps them through a power cut)",
    )
    p.add_argument(
        "--link",
        metavar="PORT",
        help="talk to a host computer or another board on PORT: a serial device "
        "(/dev/ttyGS0) or a pyserial URL (socket://host:7000); see docs/protocol.md "
        "(default: link.port in the configuration, else no link)",
    )
    p.add_argument(
        "--link-plays",
        choices=PLAYS,
        help="with a link: the side(s) the people at this board play; the other side's "
        "moves come over the link (default: link.plays, or both)",
    )
    p.add_argument(
        "--remote",
        metavar="CODE",
        help="play the game agreed with 'crownhead remote invite' or 'join' against the board "
        "far away, through the broker (docs/remote.md)",
    )
    p.add_argument(
        "--online",
        metavar="GAMEID",
        nargs="?",
        const="",
        help="play people on PlayStrategy, after 'crownhead online login': game GAMEID, or with no GAMEID the "
        "game under way (joined again by itself after a restart) and the page's and buttons' seeks and "
        "challenges (docs/online.md)",
    )
    p.add_argument(
        "--phone",
        action="store_true",
        help="with --remote and --web: no board here, the player plays on a phone: the page "
        "/phone, the simulated board's hands making the far board's moves (docs/remote.md)",
    )
    p.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        help="serve the board's web page on PORT (host 127.0.0.1 unless given; see "
        "docs/web.md) (default: web.listen in the configuration, else no page)",
    )
    add_sim_arguments(p)
    add_speech_arguments(p)
    add_hall_arguments(p, commands=True)
    add_referee_arguments(p, names=False)
    add_rules_arguments(p)
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


class _Stop(Exception):
    """Raised by the signal handler in script mode, where nothing waits on a flag."""


class _Refused(Exception):
    """The board does not start: ``message`` is what ``_fail`` says (None: it was said
    already, as ``position_from_args`` does)."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class _Plan:
    """What the options and the configuration ask of the run, checked: everything known
    before anything is opened."""

    args: argparse.Namespace
    config: Config
    mode: str  # "computer" for --mode problems
    problems: bool  # --mode problems: the coach sets the problems
    first_problem: Problem | None  # --problem
    hints: bool
    link_config: LinkConfig
    web_config: WebConfig
    speech: VoiceConfig
    phrasebook: Phrasebook | None  # None: the board is silent
    hall_settings: HallSettings | None
    headless: bool
    actions: list[Action] | None  # --script's, played in virtual time
    refereeing: RefereeSettings | None  # --mode referee's
    arbiter: RefereeSettings  # the referee's settings, for a host's `mode referee` too
    retry: Retry | None  # --from-game and --ply
    players: dict[Color, Player]
    settings: AppSettings
    state_dir: Path
    agreement: Agreement | None  # the game far apart (--remote, or the one the page took)
    online: OnlineGame | OnlineDesk | None  # --online's game on PlayStrategy, or its desk


@dataclass
class _Board:
    """The application and the parts opened around it, closed with it."""

    app: App
    clock: Clock
    store: GameStore
    leds: LedSettings
    link: Link | None = None
    absence: Absence | None = None
    desk: FarDesk | None = None
    web: WebServer | None = None
    publisher: BoardPublisher | None = None
    online: OnlineGame | OnlineDesk | None = None

    def abandon(self) -> None:
        """Close what is open when the board does not start after all."""
        for part in (self.web, self.link, self.app.hardware):
            if part is not None:
                part.close()

    def close_parts(self) -> None:
        """Close the parts around the application (itself closed first)."""
        if self.desk is not None:
            self.desk.close()
        if self.desk is not None and self.desk.link is not None and self.desk.link is not self.link:
            self.desk.link.close()  # the game far apart the page took
        if self.link is not None:
            self.link.close()
        if self.online is not None:
            self.online.close()
        if self.web is not None:
            self.web.close()
        if self.publisher is not None:
            self.publisher.close()


def run(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
        board = _open_board(plan)
        _attach_parts(plan, board)
    except _Refused as refused:
        return 2 if refused.message is None else _fail(refused.message)
    return _play(plan, board)


# The plan: the options and the configuration, checked in this order (the first
# problem found is the one said).


def _plan(args: argparse.Namespace) -> _Plan:
    """The run ``args`` ask for; _Refused naming the first option that does not fit."""
    config = _configuration(args)
    play: PlayConfig = config.get(PlayConfig)
    mode, problems, first_problem = _game_mode(args, play)
    hints = (args.hints == "on") if args.hints else play.hints
    link_config, web_config = _connections(config, args)
    speech, phrasebook = _speech(config, args)
    hall_settings = _hall(config, args)
    _check_board(args, config, mode, link_config, web_config)
    headless = _headless(args)
    actions = _script_actions(args)
    start = _start_position(args)
    refereeing, control = _refereeing(args, config, mode, start)
    retry = _retry(args, config, mode, problems)
    players = _chosen_players(args, play, mode)
    settings = _app_settings(args, config, play, mode, start, headless, control, players)
    state_dir = Path(args.state_dir or config.get(StoreConfig).state_dir or default_state_dir())
    arbiter = _arbiter(config, refereeing, state_dir)
    agreement, settings, players = _far_game(args, state_dir, link_config, mode, settings, players)
    online, settings = _online_game(args, state_dir, mode, settings)
    return _Plan(
        args=args,
        config=config,
        mode=mode,
        problems=problems,
        first_problem=first_problem,
        hints=hints,
        link_config=link_config,
        web_config=web_config,
        speech=speech,
        phrasebook=phrasebook,
        hall_settings=hall_settings,
        headless=headless,
        actions=actions,
        refereeing=refereeing,
        arbiter=arbiter,
        retry=retry,
        players=players,
        settings=settings,
        state_dir=state_dir,
        agreement=agreement,
        online=online,
    )


def _configuration(args: argparse.Namespace) -> Config:
    try:
        return config_from_args(args)
    except ConfigError as exc:
        raise _Refused(str(exc)) from exc


def _game_mode(args: argparse.Namespace, play: PlayConfig) -> tuple[str, bool, Problem | None]:
    """The mode, whether it is problems, and ``--problem``'s problem."""
    mode = args.mode or play.mode
    # Problems are games against the computer, with the machine on the defender's side.
    problems = mode == "problems"
    if problems:
        mode = "computer"
    elif args.problem:
        raise _Refused("--problem needs --mode problems")
    first_problem = None
    if args.problem:
        from crownhead.firmware.coach.problems import problem as find_problem

        try:
            first_problem = find_problem(args.problem)
        except KeyError as exc:
            raise _Refused(str(exc.args[0])) from exc
    return mode, problems, first_problem


def _connections(config: Config, args: argparse.Namespace) -> tuple[LinkConfig, WebConfig]:
    """The ``[link]`` and ``[web]`` sections with the options applied."""
    try:
        link_config = _link_config(config, args)
    except ConfigError as exc:
        raise _Refused(str(exc)) from exc
    try:
        web_config = _web_config(config, args)
    except ConfigError as exc:
        raise _Refused(str(exc)) from exc
    return link_config, web_config


def _speech(config: Config, args: argparse.Namespace) -> tuple[VoiceConfig, Phrasebook | None]:
    """The ``[voice]`` section with the options applied, and the sentences it asks for."""
    try:
        speech = voice_config(config, args)
        return speech, _phrasebook(speech)
    except (ConfigError, ValueError) as exc:
        raise _Refused(str(exc)) from exc


def _hall(config: Config, args: argparse.Namespace) -> HallSettings | None:
    try:
        return hall_from_args(args, config)
    except ValueError as exc:
        raise _Refused(str(exc)) from exc


def _check_board(
    args: argparse.Namespace, config: Config, mode: str, link_config: LinkConfig, web_config: WebConfig
) -> None:
    """The board asked for fits the link, ``--phone``, ``--script`` and ``--sim-keep-game``
    (``--phone`` makes ``args.hal`` the simulated board)."""
    if link_config.port and link_config.plays != "both" and mode == "computer":
        raise _Refused(
            f"link.plays = {link_config.plays} gives the other side to the link; computer mode gives it to the engine: choose one"
        )
    backend = args.hal or config.board.backend
    if args.phone:
        backend = _phone_board(args, web_config)
    if link_config.port and backend == "serial" and link_config.port == config.serial.port:
        raise _Refused(
            f"the link and the serial board cannot share {link_config.port}: give the link a port of its own"
        )
    if args.script and backend != "sim":
        raise _Refused("--script needs the simulated board (--hal sim)")
    if args.sim_keep_game and backend != "sim":
        raise _Refused("--sim-keep-game needs the simulated board (--hal sim)")


def _phone_board(args: argparse.Namespace, web_config: WebConfig) -> str:
    """``--phone``'s board: the simulated one (set in ``args.hal``)."""
    if not args.remote or not web_config.listen:
        raise _Refused("--phone plays a game far apart on a page: give --remote CODE and --web [HOST:]PORT")
    if args.hal not in (None, "sim"):
        raise _Refused("--phone plays on the simulated board: there is no board here (drop --hal)")
    args.hal = "sim"
    return "sim"


def _headless(args: argparse.Namespace) -> bool:
    """Whether the board runs without the screen; else the terminal must be able to show it."""
    headless = args.headless or bool(args.script)
    if not headless:
        from crownhead.firmware.simulator.tui import NoTerminalError, check_terminal

        try:
            check_terminal()
        except NoTerminalError as exc:
            raise _Refused(str(exc)) from exc
    return headless


def _script_actions(args: argparse.Namespace) -> list[Action] | None:
    """``--script``'s hand actions; None without one."""
    if not args.script:
        return None
    from crownhead.firmware.files import FileRefused
    from crownhead.firmware.simulator.script import ScriptError, parse_script, read_script

    try:
        return parse_script(read_script(args.script))
    except FileRefused as exc:
        raise _Refused(f"cannot read {exc}") from exc
    except ScriptError as exc:
        raise _Refused(f"{args.script}: {exc}") from exc


def _start_position(args: argparse.Namespace) -> Position:
    start = position_from_args(args)
    if start is None:
        raise _Refused(None)  # position_from_args said why
    return start


def _refereeing(
    args: argparse.Namespace, config: Config, mode: str, start: Position
) -> tuple[RefereeSettings | None, TimeControl | None]:
    """The referee's settings (referee mode) and the board's clock (the other modes)."""
    try:
        refereeing = referee_from_args(
            args, mode, start, rules_from_args(args), config.get(RefereeConfig), any_clock=True
        )
        # Two-player and computer games keep a clock on the board too (--clock).
        control = TimeControl.parse(args.clock) if args.clock and mode != "referee" else None
    except ClockSpecError as exc:
        raise _Refused(f"--clock: {exc}") from exc
    except ValueError as exc:
        raise _Refused(str(exc)) from exc
    return refereeing, control


def _retry(args: argparse.Namespace, config: Config, mode: str, problems: bool) -> Retry | None:
    """The kept game's position tried again (``--from-game``, ``--ply``); None without.
    In computer mode the person plays the side to move (set in ``args.computer_plays``)."""
    if args.from_game is None and args.ply is None:
        return None
    if args.from_game is None or args.ply is None:
        raise _Refused("--from-game and --ply go together: the game, and the plies played before the position")
    if args.remote:
        raise _Refused("--from-game: a game far away is agreed with the other board, not tried again here")
    if mode not in ("computer", "play") or problems:
        raise _Refused("--from-game: a game tried again is played in computer or play mode (--mode)")
    from crownhead.firmware.app.tryagain import retry_from

    kept = Path(args.state_dir or config.get(StoreConfig).state_dir or default_state_dir())
    try:
        retry = retry_from(GameStore(kept), args.from_game, args.ply)
    except ValueError as exc:
        raise _Refused(f"--from-game: {exc}") from exc
    if mode == "computer" and not args.computer_plays:
        args.computer_plays = str(retry.mover.opponent)  # the person plays the side to move
    return retry


def _chosen_players(args: argparse.Namespace, play: PlayConfig, mode: str) -> dict[Color, Player]:
    try:
        return _players(args, play, mode)
    except EngineUnavailable as exc:
        raise _Refused(str(exc)) from exc


def _app_settings(
    args: argparse.Namespace,
    config: Config,
    play: PlayConfig,
    mode: str,
    start: Position,
    headless: bool,
    control: TimeControl | None,
    players: dict[Color, Player],
) -> AppSettings:
    return AppSettings(
        mode=mode,
        black_name=players[BLACK].name,
        white_name=players[WHITE].name,
        site=play.site,
        event=play.event or None,
        start=start,
        rules=rules_from_args(args),
        auto_crown=not headless,
        hand_bounces=0 if headless else config.sim.hand_bounces,
        sim_keep_game=args.sim_keep_game,
        hint_movetime_ms=play.hint_movetime_ms,
        analysis=(args.analysis == "on") if args.analysis else play.analysis,
        analysis_nodes=play.analysis_nodes,
        clock=control,
        match=config.get(MatchConfig),
        given=_given(args),
        machine=MachineSpec(args.opponent or play.opponent, args.level or play.level or None, args.seed),
        machine_side=BLACK if (args.computer_plays or play.computer_plays) == "black" else WHITE,
    )


def _arbiter(config: Config, refereeing: RefereeSettings | None, state_dir: Path) -> RefereeSettings:
    """The referee's settings: refereeing's, else the ``[referee]`` section as configured
    (for a host's `mode referee` when the board starts in another mode); records kept in
    the state directory unless the settings say where."""
    arbiter = refereeing if refereeing is not None else config.get(RefereeConfig).settings()
    if arbiter.record_dir is None:
        arbiter = replace(arbiter, record_dir=str(state_dir / "referee"))
    return arbiter


def _far_game(
    args: argparse.Namespace,
    state_dir: Path,
    link_config: LinkConfig,
    mode: str,
    settings: AppSettings,
    players: dict[Color, Player],
) -> tuple[Agreement | None, AppSettings, dict[Color, Player]]:
    """The game far apart (``--remote``, or the one the page took, noted in ``args.remote``),
    with the settings and the players it agreed; the settings and players as they are without."""
    if not args.remote and not args.phone:
        # A game far apart the board's page took goes on when the board starts again.
        from crownhead.firmware.cli.remote import noted_game

        args.remote = noted_game(state_dir, link_config.port, mode)
    if not args.remote:
        return None, settings, players
    from crownhead.firmware.cli.remote import remote_game

    try:
        agreement, settings = remote_game(args.remote, state_dir, settings, link_config.port)
    except ValueError as exc:
        raise _Refused(f"--remote: {exc}") from exc
    # The people at both boards, by the names the invitation agreed.
    return agreement, settings, {BLACK: Human(settings.black_name), WHITE: Human(settings.white_name)}


def _online_game(
    args: argparse.Namespace, state_dir: Path, mode: str, settings: AppSettings
) -> tuple[OnlineGame | OnlineDesk | None, AppSettings]:
    """``--online``'s game on PlayStrategy, or with no game named the desk that joins the
    game under way and takes the page's and the buttons' seeks (not yet attached), with
    the settings they give the board; the settings as they are without (docs/online.md)."""
    if args.online is None:
        return None, settings
    # The far side's moves come from the server.
    from crownhead.firmware.cli.online import open_desk, open_online
    from crownhead.firmware.online.game import online_settings

    if args.remote or mode != "play":
        raise _Refused("--online plays a person on the server: no --remote, and the play mode")
    try:
        online, server = open_online(args.online, state_dir) if args.online else open_desk(state_dir)
    except ValueError as exc:
        raise _Refused(f"--online: {exc}") from exc
    # With the desk, no engine help for the whole run (a game may start at any moment);
    # each game online's record has the server's site and event, local games their own.
    return online, online_settings(settings, server if args.online else None)


# The board: the application on its hardware, and the parts around it.


def _open_board(plan: _Plan) -> _Board:
    """The application on its hardware (the log and the clock set up), not started."""
    store = GameStore(plan.state_dir)
    clock: Clock = VirtualClock() if plan.actions is not None else MonotonicClock()
    _configure_logging(plan.headless, plan.state_dir)
    _say_which_search()
    try:
        leds = plan.config.get(PaletteConfig).led_settings(hints=plan.hints)
        hardware = open_hardware(plan.config, clock, hal=plan.args.hal)
    except (ConfigError, HardwareError) as exc:
        raise _Refused(str(exc)) from exc
    state_dir = plan.args.state_dir
    app = App(
        hardware,
        clock=clock,
        settings=plan.settings,
        leds=leds,
        store=store,
        players=plan.players,
        thinker=Thinker(background=plan.actions is None),
        sinks=_event_sinks(plan),
        referee=Referee(plan.arbiter) if plan.refereeing is not None else None,
        referee_settings=plan.arbiter,
        make_machine=lambda spec: machine_player(
            spec, egdb=_endgame_tables(state_dir) if spec.opponent == "engine" else None
        ),
    )
    return _Board(app, clock, store, leds, online=plan.online)


def _event_sinks(plan: _Plan) -> list[Callable[[Any], None]]:
    """Headless, every event logged to stdout, one line each (``--log``)."""
    if not plan.headless:
        return []
    sink = json_sink if plan.args.log == "json" else text_sink
    return [sink(sys.stdout.write, sys.stdout.flush)]


def _attach_parts(plan: _Plan, board: _Board) -> None:
    """The optional parts, each attached to the application: the link (or the game far
    apart), the page's desk for games far apart, the page, the hall, the board's own
    parts, the problems' coach, the game tried again, the voice."""
    _attach_link(plan, board)
    _attach_desk(plan, board)
    _attach_page(plan, board)
    _attach_hall(plan, board)
    attach_board_parts(board.app, plan.config, background=plan.actions is None)  # closed with the app
    _attach_coach(plan, board.app)
    _attach_try_again(plan, board.app)
    if plan.phrasebook is not None or board.web is not None:
        # The page's live region reads every sentence out, spoken here or not.
        _open_voice(plan.speech, plan.phrasebook, board.app, page=board.web is not None)  # closed with the app


def _attach_link(plan: _Plan, board: _Board) -> None:
    """The link to a host or another board (``--link``), or the game far apart's."""
    app = board.app
    board.link = open_link(plan.link_config, board.clock) if plan.link_config.port else None
    if plan.agreement is not None:
        from crownhead.firmware.cli.remote import remote_board
        from crownhead.firmware.remote.settings import RemoteConfig

        board.link, board.absence = remote_board(
            plan.agreement, app, board.clock, plan.state_dir, plan.config.get(RemoteConfig)
        )
        if plan.args.phone:
            from crownhead.firmware.remote.phone import PhoneHands

            PhoneHands().attach(app)
    if board.online is not None:
        board.online.attach(app)
    if board.link is not None:
        board.link.attach(app)
        if app.sim is not None:
            board.link.hands = Hands(app)  # a host may move the simulated pieces (touch, hands, follow)


def _attach_desk(plan: _Plan, board: _Board) -> None:
    """With a page (not a phone's): the page invites another board, joins a game, leaves
    it (docs/remote.md)."""
    if not plan.web_config.listen or plan.args.phone:
        return
    from crownhead.firmware.remote.link import RemoteLink
    from crownhead.firmware.remote.page import FarDesk
    from crownhead.firmware.remote.settings import RemoteConfig

    app = board.app
    board.desk = FarDesk(
        app,
        board.clock,
        plan.state_dir,
        plan.config.get(RemoteConfig),
        agreement=plan.agreement,
        link=board.link if isinstance(board.link, RemoteLink) else None,
        absence=board.absence,
        cable=bool(plan.link_config.port),
        page_address=lambda: _named_page(app.page_urls),
        hands=Hands(app) if app.sim is not None else None,
    ).attach(app)


def _attach_page(plan: _Plan, board: _Board) -> None:
    """The board's web page (``--web``), when asked for."""
    desk = None
    if board.online is not None and plan.args.online == "":
        from crownhead.firmware.online.desk import OnlineDesk

        desk = board.online if isinstance(board.online, OnlineDesk) else None
    try:
        phone = plan.agreement.plays if plan.args.phone and plan.agreement is not None else None
        board.web = _open_web(
            plan.config,
            plan.web_config,
            board.app,
            board.clock,
            board.store,
            plan.state_dir,
            board.leds,
            phone=phone,
            far=board.desk,
            online=desk,
        )
    except ValueError as exc:
        board.abandon()
        raise _Refused(str(exc)) from exc


def _attach_hall(plan: _Plan, board: _Board) -> None:
    """The hall's reporter (``--hall``, ``[mqtt]``), started, when asked for."""
    settings = plan.hall_settings
    if settings is None:
        return
    app = board.app
    try:
        # Its finished games wait on disk for the hall's acknowledgement (docs/hall.md).
        results = results_file(plan.state_dir, settings.hall, settings.board)
        # Its retained state is the board's snapshots' (handed over once attached).
        publisher = BoardPublisher(settings, connect=False, results=results)
    except ModuleNotFoundError as exc:
        board.abandon()
        raise _Refused(missing_extra(exc) or str(exc)) from exc
    board.publisher = publisher
    if settings.commands:
        publisher.attach(app, events=False)
        attach_commands(publisher, app, plan.link_config)
    else:
        publisher.attach(app)
    publisher.start()  # connected once commands, if any, have somewhere to go


def _attach_coach(plan: _Plan, app: App) -> None:
    """``--mode problems``: the coach setting the problems."""
    if not plan.problems:
        return
    from crownhead.firmware.app.problems import ProblemCoach

    probe = _endgame_tables(plan.args.state_dir)
    ProblemCoach(plan.state_dir, probe if isinstance(probe, EndgameTables) else None, plan.first_problem).attach(app)


def _attach_try_again(plan: _Plan, app: App) -> None:
    """``--from-game``: the kept game's position tried again."""
    if plan.retry is None:
        return
    from crownhead.firmware.app.tryagain import TryAgain

    side = BLACK if plan.args.computer_plays == "black" else WHITE
    TryAgain(plan.retry, plan.mode, plan.players[side] if plan.mode == "computer" else None, side).attach(app)


# Playing: the application started and run in its form, then everything closed.


def _play(plan: _Plan, board: _Board) -> int:
    """Run the board until it ends or a signal stops it (SIGTERM, SIGINT, SIGHUP); then
    close it and the parts around it."""
    stop = threading.Event()
    previous = _install_signals(stop, raise_stop=plan.actions is not None)
    try:
        return _start_and_run(plan, board.app, stop)
    except _Stop:
        return 0
    except BrokenPipeError:
        return 0
    finally:
        try:
            board.app.close()
        finally:
            board.close_parts()
            _restore_signals(previous)


def _start_and_run(plan: _Plan, app: App, stop: threading.Event) -> int:
    """Start the application and run it: the script's actions, headless, or on the screen."""
    try:
        app.start()
    except StoreError as exc:
        return _fail(str(exc))
    if plan.actions is not None:
        return _run_script(app, plan.actions, plan.args.script)
    if plan.headless:
        app.run(stop)
        return 0
    return _run_on_screen(app, stop)


def _run_script(app: App, actions: list[Action], script: str) -> int:
    """The script's hand actions, in virtual time."""
    try:
        Hands(app).run_script(actions)
    except SimError as exc:
        return _fail(f"{script}: {exc}")
    return 0


def _run_on_screen(app: App, stop: threading.Event) -> int:
    """The terminal simulator's screen until it is left or ``stop`` is set."""
    from crownhead.firmware.simulator.tui import NoTerminalError, main as tui_main

    try:
        tui_main(app, stop.is_set)
    except NoTerminalError as exc:
        return _fail(str(exc))
    return 0


def _phrasebook(voice: VoiceConfig) -> Phrasebook | None:
    """The sentences ``[voice]`` (or ``--speech``) asks for; None when the board is silent."""
    if not voice.enabled or voice.speak == "off":
        return None
    return Phrasebook(voice.language, voice.black_language, voice.white_language, voice.speak)


def _open_voice(voice: VoiceConfig, phrasebook: Phrasebook | None, app: App, *, page: bool) -> BoardVoice:
    """The board's voice attached to ``app``: on ALSA when speech is asked for (without
    espeak-ng it says once, on the message line, what to install, and the board plays on
    silently); for the page's live region alone (``page``, no speech) with no speaker."""
    if phrasebook is None:
        book = Phrasebook(voice.language, voice.black_language, voice.white_language)
        return BoardVoice(None, book, emit=page).attach(app)
    speaker, missing = open_speaker(
        voice.engine, voice.piper_voices, voice_settings(voice), device=voice.device, limit=voice.queue
    )
    return BoardVoice(speaker, phrasebook, missing, emit=page).attach(app)


def _link_config(config: Config, args: argparse.Namespace) -> LinkConfig:
    """The ``[link]`` section with ``--link`` and ``--link-plays`` applied; ConfigError if bad."""
    changes = {}
    if args.link:
        changes["port"] = args.link
    if args.link_plays:
        changes["plays"] = args.link_plays
    if changes:
        config = config.replace("link", **changes)
    link = config.get(LinkConfig)
    if args.link_plays and not link.port:
        raise ConfigError("--link-plays needs a link: --link PORT or link.port")
    return link


def _web_config(config: Config, args: argparse.Namespace) -> WebConfig:
    """The ``[web]`` section with ``--web`` applied; ConfigError if bad."""
    if args.web is not None:
        config = config.replace("web", listen=args.web)
    return config.get(WebConfig)


def _open_web(
    config: Config,
    web: WebConfig,
    app: App,
    clock: Clock,
    store: GameStore,
    state_dir: Path,
    leds: object,
    *,
    phone: str | None = None,
    far: FarRequests | None = None,
    online: OnlineRequests | None = None,
) -> WebServer | None:
    """The web page's server, listening, its link attached to ``app``; None when not asked
    for (``phone``: the side played on its phone's page, ``/phone``). ValueError naming the
    problem (the address taken, ...)."""
    if not web.listen:
        return None
    try:
        from crownhead.firmware.web.auth import stored_pin
        from crownhead.firmware.web.bridge import PageHub, WebLink
        from crownhead.firmware.web.server import ServerError, WebServer
        from crownhead.firmware.web.settings import is_loopback, page_urls, parse_listen
    except ModuleNotFoundError as exc:
        raise ValueError(missing_extra(exc) or str(exc)) from None

    host, port = parse_listen(web.listen)
    pin = web.pin
    # Shown on the board's own screen and display (never logged): a PIN the board made;
    # one set in the configuration is its owner's to know.
    app.page_pin = "as set in web.pin" if pin else ""
    if not pin and not is_loopback(host):
        # The PIN itself is never logged (a journal is readable by more than the board's
        # owner): the line says where it is kept, readable by the board's user alone.
        pin, made = stored_pin(state_dir, web.pin_length)
        app.page_pin = pin
        logging.getLogger("crownhead.firmware.web").warning(
            "web: the PIN for commands on the page is in %s (%s; set web.pin to choose one)",
            state_dir / "web-pin",
            "made now" if made else "kept from before",
        )
    palette = getattr(leds, "palette", None)
    colours = None
    if palette is not None:
        from dataclasses import fields

        colours = {f.name.replace("_", "-"): getattr(palette, f.name) for f in fields(palette)}
    hub = PageHub(max_pages=web.max_pages)
    web_link = WebLink(hub)
    # On the simulated board the pages may move its pieces (touch, hands, follow).
    web_link.attach(app, hands=Hands(app) if app.sim is not None else None)
    server = WebServer(
        web_link,
        host=host,
        port=port,
        pin=pin,
        public_view=web.public_view,
        store=store,
        config=config,
        clock=clock,
        colours=colours,
        state_dir=state_dir,
        hosts=web.hosts,
        phone=phone,
        far=far,  # the page's games far apart
        online=online,  # the page's games on PlayStrategy
    )
    try:
        server.start()
    except ServerError as exc:
        raise ValueError(str(exc)) from None
    app.page_urls = tuple(page_urls(server.host, server.port))
    logging.getLogger("crownhead.firmware.web").warning("web: the board's page is at %s", " or ".join(app.page_urls))
    if phone is not None:
        urls = " or ".join(url.rstrip("/") + "/phone" for url in app.page_urls)
        logging.getLogger("crownhead.firmware.web").warning(
            "web: the phone's page (%s plays there) is at %s", phone, urls
        )
    return server


def _named_page(urls: tuple[str, ...]) -> str | None:
    """The board's page by its name (``http://crownhead.local:8080/``), the one another
    home's board is reached by when it has the same name; else the first address."""
    named = [url for url in urls if ".local:" in url or url.split("//", 1)[-1].split(":")[0].endswith(".local")]
    found = named or list(urls)
    return found[0] if found else None


def _given(args: argparse.Namespace) -> frozenset[str]:
    """The settings given on the command line (``AppSettings.given``): they win over a
    resumed game's own; the others come back as the game was played."""
    options = (
        "mode",
        "hints",
        "computer_plays",
        "opponent",
        "level",
        "seed",
        "fen",
        "clock",
        "referee_style",
        "ballot",
        "ballot_seed",
        "event",
        "site",
        "round",
    )
    given = {name for name in options if getattr(args, name, None) is not None}
    if args.black or args.white:
        given.add("names")
    if args.variant is not None or rules_from_args(args) != rules_from_args(argparse.Namespace()):
        given.add("rules")
    return frozenset(given)


def _players(args: argparse.Namespace, play: PlayConfig, mode: str) -> dict[Color, Player]:
    names = {BLACK: args.black or play.black_name, WHITE: args.white or play.white_name}
    players: dict[Color, Player] = {BLACK: Human(names[BLACK]), WHITE: Human(names[WHITE])}
    if mode == "computer":
        side = BLACK if (args.computer_plays or play.computer_plays) == "black" else WHITE
        opponent = args.opponent or play.opponent
        if opponent == "random":
            players[side] = RandomMover(args.seed)
        else:
            level = args.level or play.level or None
            players[side] = engine_player(level=level, seed=args.seed, egdb=_endgame_tables(args.state_dir))
    return players


def _endgame_tables(state_dir: str | None) -> object | None:
    """The endgame databases for the computer opponent: a build in ``--state-dir`` (or the
    default state directory), with the shipped tables for whatever it lacks. A damaged
    file is logged and left out; it plays on without the tables when none is left."""
    try:
        return load_probe(skip_damaged=True, state_dir=Path(state_dir) if state_dir else None)
    except EgdbError as error:
        logging.getLogger(__name__).warning("endgame tables not used: %s", error)
        return None


#: The handler the last run added to the root logger (see _configure_logging).
_log_handler: logging.Handler | None = None


def _say_which_search() -> None:
    """Once at start, where the engine will search in pure Python: why (no compiler at
    install time, or CROWNHEAD_ENGINE=python), since it is some 40 times slower."""
    from crownhead.extras import native_cause
    from crownhead.rules.engine import native

    if native.core() is None:
        cause = "" if native.built() else f"; {native_cause()}"
        logging.getLogger("crownhead.rules.engine").warning("engine: %s%s", native.describe(), cause)


def _configure_logging(headless: bool, state_dir: Path) -> None:
    # On the screen a log line would tear the simulator's picture: log to a file there.
    handler: logging.Handler
    if headless:
        handler = logging.StreamHandler(sys.stderr)
    else:
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            handler = logging.FileHandler(state_dir / "crownhead.log", encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # no line names a URL's password
    root = logging.getLogger()
    # A second run in one process (the tests, a forked child) replaces the first one's
    # handler: kept, it wrote every line twice, or to a stream closed since.
    global _log_handler
    if _log_handler is not None:
        root.removeHandler(_log_handler)
    _log_handler = handler
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.WARNING:
        root.setLevel(logging.WARNING)


_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

#: What ``signal.signal`` returns: a handler, ``SIG_DFL``/``SIG_IGN``, or None for one
#: that was not set from Python.
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


def _install_signals(stop: threading.Event, raise_stop: bool) -> dict[int, _Handler]:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()
        if raise_stop:
            raise _Stop()

    previous: dict[int, _Handler] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous  # signals can only be handled in the main thread (tests call run())
    for sig in _SIGNALS:
        previous[sig] = signal.signal(sig, handler)
    return previous


def _restore_signals(previous: dict[int, _Handler]) -> None:
    for sig, old in previous.items():
        # None: the handler before was not Python's to give back; the default is.
        signal.signal(sig, signal.SIG_DFL if old is None else old)
