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
from dataclasses import replace
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
from crownhead.firmware.hall.board import BoardPublisher, app_state
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
from crownhead.rules import BLACK, WHITE, Color
from crownhead.sim.board import SimError

if TYPE_CHECKING:  # the server (Starlette) is loaded only when the page is asked for
    from crownhead.firmware.web.far import FarRequests
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
        help="play game GAMEID on PlayStrategy against a person there, after 'crownhead online login' (docs/online.md)",
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


def run(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args)
    except ConfigError as exc:
        return _fail(str(exc))
    play: PlayConfig = config.get(PlayConfig)
    mode = args.mode or play.mode
    # Problems are games against the computer, with the machine on the defender's side.
    problems = mode == "problems"
    if problems:
        mode = "computer"
    elif args.problem:
        return _fail("--problem needs --mode problems")
    first_problem = None
    if args.problem:
        from crownhead.firmware.coach.problems import problem as find_problem

        try:
            first_problem = find_problem(args.problem)
        except KeyError as exc:
            return _fail(str(exc.args[0]))
    hints = (args.hints == "on") if args.hints else play.hints
    try:
        link_config = _link_config(config, args)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        web_config = _web_config(config, args)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        speech = voice_config(config, args)
        phrasebook = _phrasebook(speech)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    try:
        hall_settings = hall_from_args(args, config)
    except ValueError as exc:
        return _fail(str(exc))
    if link_config.port and link_config.plays != "both" and mode == "computer":
        return _fail(
            f"link.plays = {link_config.plays} gives the other side to the link; computer mode gives it to the engine: choose one"
        )
    backend = args.hal or config.board.backend
    if args.phone:
        if not args.remote or not web_config.listen:
            return _fail("--phone plays a game far apart on a page: give --remote CODE and --web [HOST:]PORT")
        if args.hal not in (None, "sim"):
            return _fail("--phone plays on the simulated board: there is no board here (drop --hal)")
        backend = args.hal = "sim"
    if link_config.port and backend == "serial" and link_config.port == config.serial.port:
        return _fail(f"the link and the serial board cannot share {link_config.port}: give the link a port of its own")
    if args.script and backend != "sim":
        return _fail("--script needs the simulated board (--hal sim)")
    if args.sim_keep_game and backend != "sim":
        return _fail("--sim-keep-game needs the simulated board (--hal sim)")
    headless = args.headless or bool(args.script)
    if not headless:
        from crownhead.firmware.simulator.tui import NoTerminalError, check_terminal

        try:
            check_terminal()
        except NoTerminalError as exc:
            return _fail(str(exc))
    actions = None
    if args.script:
        from crownhead.firmware.files import FileRefused
        from crownhead.firmware.simulator.script import ScriptError, parse_script, read_script

        try:
            actions = parse_script(read_script(args.script))
        except FileRefused as exc:
            return _fail(f"cannot read {exc}")
        except ScriptError as exc:
            return _fail(f"{args.script}: {exc}")
    start = position_from_args(args)
    if start is None:
        return 2
    try:
        refereeing = referee_from_args(
            args, mode, start, rules_from_args(args), config.get(RefereeConfig), any_clock=True
        )
        # Two-player and computer games keep a clock on the board too (--clock).
        control = TimeControl.parse(args.clock) if args.clock and mode != "referee" else None
    except ClockSpecError as exc:
        return _fail(f"--clock: {exc}")
    except ValueError as exc:
        return _fail(str(exc))
    retry = None
    if args.from_game is not None or args.ply is not None:
        if args.from_game is None or args.ply is None:
            return _fail("--from-game and --ply go together: the game, and the plies played before the position")
        if args.remote:
            return _fail("--from-game: a game far away is agreed with the other board, not tried again here")
        if mode not in ("computer", "play") or problems:
            return _fail("--from-game: a game tried again is played in computer or play mode (--mode)")
        from crownhead.firmware.app.tryagain import retry_from

        kept = Path(args.state_dir or config.get(StoreConfig).state_dir or default_state_dir())
        try:
            retry = retry_from(GameStore(kept), args.from_game, args.ply)
        except ValueError as exc:
            return _fail(f"--from-game: {exc}")
        if mode == "computer" and not args.computer_plays:
            args.computer_plays = str(retry.mover.opponent)  # the person plays the side to move
    try:
        players = _players(args, play, mode)
    except EngineUnavailable as exc:
        return _fail(str(exc))
    settings = AppSettings(
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
    state_dir = Path(args.state_dir or config.get(StoreConfig).state_dir or default_state_dir())
    # The referee's settings serve a host's `mode referee` too when the board starts in
    # another mode: the [referee] section as configured.
    arbiter = refereeing if refereeing is not None else config.get(RefereeConfig).settings()
    if arbiter.record_dir is None:
        arbiter = replace(arbiter, record_dir=str(state_dir / "referee"))
    agreement = None
    if not args.remote and not args.phone:
        # A game far apart the board's page took goes on when the board starts again.
        from crownhead.firmware.cli.remote import noted_game

        args.remote = noted_game(state_dir, link_config.port, mode)
    if args.remote:
        from crownhead.firmware.cli.remote import remote_game

        try:
            agreement, settings = remote_game(args.remote, state_dir, settings, link_config.port)
        except ValueError as exc:
            return _fail(f"--remote: {exc}")
        # The people at both boards, by the names the invitation agreed.
        players = {BLACK: Human(settings.black_name), WHITE: Human(settings.white_name)}
    online = None
    if args.online:
        # A game on PlayStrategy: the far side's moves come from the server (docs/online.md).
        from crownhead.firmware.cli.online import open_online
        from crownhead.firmware.online.game import online_settings

        if args.remote or mode != "play":
            return _fail("--online plays a person on the server: no --remote, and the play mode")
        try:
            online, server = open_online(args.online, state_dir)
        except ValueError as exc:
            return _fail(f"--online: {exc}")
        settings = online_settings(settings, server)
    store = GameStore(state_dir)
    clock: Clock = VirtualClock() if actions is not None else MonotonicClock()
    _configure_logging(headless, state_dir)
    _say_which_search()
    try:
        leds = config.get(PaletteConfig).led_settings(hints=hints)
        hardware = open_hardware(config, clock, hal=args.hal)
    except (ConfigError, HardwareError) as exc:
        return _fail(str(exc))
    sinks = []
    if headless:
        sink = json_sink if args.log == "json" else text_sink
        sinks.append(sink(sys.stdout.write, sys.stdout.flush))
    app = App(
        hardware,
        clock=clock,
        settings=settings,
        leds=leds,
        store=store,
        players=players,
        thinker=Thinker(background=actions is None),
        sinks=sinks,
        referee=Referee(arbiter) if refereeing is not None else None,
        referee_settings=arbiter,
        make_machine=lambda spec: machine_player(
            spec, egdb=_endgame_tables(args.state_dir) if spec.opponent == "engine" else None
        ),
    )
    link: Link | None = open_link(link_config, clock) if link_config.port else None
    absence = None
    if agreement is not None:
        from crownhead.firmware.cli.remote import remote_board
        from crownhead.firmware.remote.settings import RemoteConfig

        link, absence = remote_board(agreement, app, clock, state_dir, config.get(RemoteConfig))
        if args.phone:
            from crownhead.firmware.remote.phone import PhoneHands

            PhoneHands().attach(app)
    if online is not None:
        online.attach(app)
    if link is not None:
        link.attach(app)
        if app.sim is not None:
            link.hands = Hands(app)  # a host may move the simulated pieces (touch, hands, follow)
    desk = None
    if web_config.listen and not args.phone:
        # The page invites another board, joins a game, leaves it (docs/remote.md).
        from crownhead.firmware.remote.link import RemoteLink
        from crownhead.firmware.remote.page import FarDesk
        from crownhead.firmware.remote.settings import RemoteConfig

        desk = FarDesk(
            app,
            clock,
            state_dir,
            config.get(RemoteConfig),
            agreement=agreement,
            link=link if isinstance(link, RemoteLink) else None,
            absence=absence,
            cable=bool(link_config.port),
            page_address=lambda: _named_page(app.page_urls),
            hands=Hands(app) if app.sim is not None else None,
        ).attach(app)
    try:
        phone = agreement.plays if args.phone and agreement is not None else None
        web = _open_web(config, web_config, app, clock, store, state_dir, leds, phone=phone, far=desk)
    except ValueError as exc:
        if link is not None:
            link.close()
        app.hardware.close()
        return _fail(str(exc))
    publisher = None
    if hall_settings is not None:
        try:
            # Its finished games wait on disk for the hall's acknowledgement (docs/hall.md).
            results = results_file(state_dir, hall_settings.hall, hall_settings.board)
            publisher = BoardPublisher(hall_settings, lambda: app_state(app), connect=False, results=results)
        except ModuleNotFoundError as exc:
            for part in (web, link, app.hardware):
                if part is not None:
                    part.close()
            return _fail(missing_extra(exc) or str(exc))
        if hall_settings.commands:
            publisher.attach(app, events=False)
            attach_commands(publisher, app, link_config)
        else:
            publisher.attach(app)
        publisher.start()  # connected once commands, if any, have somewhere to go
    attach_board_parts(app, config, background=actions is None)  # closed with the app
    if problems:
        from crownhead.firmware.app.problems import ProblemCoach

        probe = _endgame_tables(args.state_dir)
        ProblemCoach(state_dir, probe if isinstance(probe, EndgameTables) else None, first_problem).attach(app)
    if retry is not None:
        from crownhead.firmware.app.tryagain import TryAgain

        side = BLACK if args.computer_plays == "black" else WHITE
        TryAgain(retry, mode, players[side] if mode == "computer" else None, side).attach(app)
    if phrasebook is not None or web is not None:
        # The page's live region reads every sentence out, spoken here or not.
        _open_voice(speech, phrasebook, app, page=web is not None)  # closed with the app
    stop = threading.Event()
    previous = _install_signals(stop, raise_stop=actions is not None)
    try:
        try:
            app.start()
        except StoreError as exc:
            return _fail(str(exc))
        if actions is not None:
            try:
                Hands(app).run_script(actions)
            except SimError as exc:
                return _fail(f"{args.script}: {exc}")
        elif headless:
            app.run(stop)
        else:
            from crownhead.firmware.simulator.tui import NoTerminalError, main as tui_main

            try:
                tui_main(app, stop.is_set)
            except NoTerminalError as exc:
                return _fail(str(exc))
        return 0
    except _Stop:
        return 0
    except BrokenPipeError:
        return 0
    finally:
        try:
            app.close()
        finally:
            if online is not None:
                online.close()
            if desk is not None:
                desk.close()
            if desk is not None and desk.link is not None and desk.link is not link:
                desk.link.close()  # the game far apart the page took
            if link is not None:
                link.close()
            if web is not None:
                web.close()
            if publisher is not None:
                publisher.close()
            _restore_signals(previous)


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
    from crownhead.rules.engine import native

    if native.core() is None:
        logging.getLogger("crownhead.rules.engine").warning("engine: %s", native.describe())


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
