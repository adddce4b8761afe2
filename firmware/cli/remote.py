"""``crownhead remote``: a game between two boards far apart, through an MQTT broker.

``crownhead remote invite --broker mqtts://home-a:PASSWORD@broker.example`` offers a
game (the colours, names, rules, clock and ballot given here) and prints its short code;
``crownhead remote join CODE --broker mqtts://home-b:PASSWORD@broker.example`` on the
other board takes it. Each board keeps the agreement in its state directory; then both
run ``crownhead run --remote CODE`` (with their usual options), and each lights the
other's moves for its people to make. See docs/remote.md.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import shlex
import sys
from pathlib import Path

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.cli._common import add_rules_arguments, missing_extra, rules_from_args
from crownhead.firmware.files import default_state_dir, int_argument
from crownhead.firmware.gameclock import ClockSpecError, TimeControl
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.board import Absence, remote_link, remote_settings
from crownhead.firmware.remote.invite import (
    Agreement,
    Invitation,
    accept,
    await_guest,
    fetch,
    playing,
    publish,
    set_playing,
)
from crownhead.firmware.remote.parts import FarBoard
from crownhead.firmware.remote.settings import RemoteConfig
from crownhead.firmware.remote.transport import RemoteTransport, check_broker
from crownhead.firmware.remote.wire import check_code, new_code, show_code
from crownhead.hal.clock import Clock
from crownhead.rules.ballots import deck

__all__ = ["noted_game", "register", "remote_board", "remote_game", "run_invite", "run_join"]

PROG = "crownhead remote"


def _broker_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--broker",
        metavar="URL",
        required=True,
        help="the broker and this board's account: mqtts://BOARD:PASSWORD@host[:port] "
        "(mqtt:// only on this machine, or with --insecure)",
    )
    p.add_argument("--cafile", metavar="FILE", help="with mqtts://: the CA certificate file (default: the system's)")
    p.add_argument(
        "--insecure",
        action="store_true",
        help="allow a broker on another machine without TLS (passwords and moves travel readable)",
    )
    p.add_argument("--state-dir", metavar="DIR", help="where the board keeps its games (default: as crownhead run)")
    p.add_argument(
        "--wait-s", type=int_argument, default=600, help="how long to wait for the other board (default: 600)"
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "remote",
        help="play a board far away through an MQTT broker (invite, join)",
        description="A game between two boards far apart, through an MQTT broker (docs/remote.md).",
    )
    commands = p.add_subparsers(dest="remote_command", metavar="ACTION", required=True)
    inv = commands.add_parser(
        "invite",
        help="offer a game: print its code, wait for the other board",
        description="Offer a game on the broker, print its short code and wait for the other board to join.",
    )
    _broker_arguments(inv)
    inv.add_argument("--plays", choices=("black", "white"), default="black", help="this board's side (default: black)")
    inv.add_argument("--black", metavar="NAME", help="Black's name for the record")
    inv.add_argument("--white", metavar="NAME", help="White's name for the record")
    inv.add_argument("--clock", metavar="SPEC", help="a clock for both sides, e.g. 600+5 (seconds, increment)")
    inv.add_argument(
        "--ballot",
        nargs="?",
        const=0,
        type=int_argument,
        metavar="N",
        help="start after ACF ballot N's three moves (without N: one drawn from the deck)",
    )
    inv.add_argument(
        "--grace-s",
        type=int_argument,
        default=300,
        help="how long a board may be out of reach before it is called late (default: 300)",
    )
    inv.add_argument(
        "--away",
        choices=("stop", "run"),
        default="stop",
        help="while a board is out of reach: the clock stops (default), or runs: the absent side's time "
        "runs and, once its board is away past the grace period, it may lose on time",
    )
    inv.add_argument(
        "--guest",
        metavar="ACCOUNT",
        help="a private game: only the board of this broker account (and the arbiter) may join and read it",
    )
    add_rules_arguments(inv)
    inv.set_defaults(func=run_invite)
    join = commands.add_parser(
        "join",
        help="take a game offered by another board",
        description="Take the game whose code the other board printed; the agreement is kept for 'crownhead run --remote CODE'.",
    )
    join.add_argument(
        "code", metavar="CODE", help="the code the other board printed (k7q-m2x), or its invitation link (any host)"
    )
    join.add_argument(
        "--host",
        metavar="ACCOUNT",
        help="the inviting board's broker account: only its invitation is taken (another account may offer the code)",
    )
    _broker_arguments(join)
    join.set_defaults(func=run_join)


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def _url(args: argparse.Namespace) -> BrokerUrl:
    url = BrokerUrl.parse(args.broker)
    check_broker(url, insecure=args.insecure)
    return url


def _state_dir(args: argparse.Namespace) -> Path:
    return Path(args.state_dir) if args.state_dir else default_state_dir()


def _run_hint(code: str, args: argparse.Namespace) -> str:
    """The command that plays the game now, as it must be typed: with the state directory
    the agreement went into, when it is not the default one (``run`` would not find it)."""
    words = ["crownhead", "run", "--remote", code]
    if args.state_dir:
        words += ["--state-dir", args.state_dir]
    return f"now: {shlex.join(words)}"


def _describe(agreement: Agreement) -> str:
    inv = agreement.invitation
    names = f"Black {inv.black or '(no name)'}, White {inv.white or '(no name)'}"
    extras = [f"clock {inv.clock}" if inv.clock else "no clock"]
    if inv.ballot is not None:
        extras.append(f"ballot {inv.ballot}")
    extras.append(f"a board away: {inv.grace_s} s of grace, the clock {'stops' if inv.away == 'stop' else 'runs'}")
    if inv.guest is not None:
        extras.append("private")
    return (
        f"game {show_code(inv.code)}: this board ({agreement.me}) plays {agreement.plays}, "
        f"{agreement.peer} the other side; {names}; {', '.join(extras)}"
    )


def run_invite(args: argparse.Namespace) -> int:
    try:
        url = _url(args)
        if args.clock:
            TimeControl.parse(args.clock)
        ballot = args.ballot
        if ballot == 0:
            ballot = secrets.choice(deck()).number
        assert url.username is not None
        invitation = Invitation(
            new_code(),
            url.username,
            args.plays,
            black=args.black,
            white=args.white,
            rules=rules_from_args(args).options(),
            clock=args.clock,
            ballot=ballot,
            grace_s=args.grace_s,
            away=args.away,
            guest=args.guest,
        )
    except ClockSpecError as exc:
        return _fail(f"--clock: {exc}")
    except ValueError as exc:
        return _fail(str(exc))
    try:
        publish(url, invitation, cafile=args.cafile)
        print(f"game code: {show_code(invitation.code)}", flush=True)
        print(f"on the other board: crownhead remote join {show_code(invitation.code)} --broker URL", flush=True)
        guest = await_guest(url, invitation, cafile=args.cafile, timeout_s=args.wait_s)
    except ModuleNotFoundError as exc:
        return _fail(missing_extra(exc) or str(exc))
    except (ConnectionError, ValueError) as exc:
        return _fail(str(exc))
    if guest is None:
        return _fail(f"nobody joined game {show_code(invitation.code)} within {args.wait_s} s")
    agreement = Agreement(invitation, url.username, guest, args.broker, args.cafile, args.insecure)
    agreement.save(_state_dir(args))
    print(_describe(agreement))
    print(_run_hint(invitation.code, args))
    return 0


def run_join(args: argparse.Namespace) -> int:
    try:
        code = check_code(args.code)
        url = _url(args)
        invitation = fetch(url, code, cafile=args.cafile, timeout_s=min(args.wait_s, 60), host=args.host)
        accept(url, invitation, cafile=args.cafile)
    except ModuleNotFoundError as exc:
        return _fail(missing_extra(exc) or str(exc))
    except (ConnectionError, ValueError) as exc:
        return _fail(str(exc))
    assert url.username is not None
    agreement = Agreement(invitation, url.username, invitation.host, args.broker, args.cafile, args.insecure)
    agreement.save(_state_dir(args))
    print(_describe(agreement))
    print(_run_hint(code, args))
    return 0


def noted_game(state_dir: Path, link_port: str, mode: str) -> str | None:
    """``crownhead run`` without ``--remote``: the game far apart the board's page took
    (``remote/playing.json``), to go back to; None without one, or when the board starts
    otherwise (a link of another kind, another mode, the game's agreement gone or
    damaged: the log says why it does not, and a note naming a game that cannot be
    resumed is forgotten, so that the board always starts).

    >>> import tempfile
    >>> from crownhead.firmware.remote.invite import set_playing
    >>> folder = Path(tempfile.mkdtemp()); set_playing(folder, "k7q-m2x")
    >>> noted_game(folder, "/dev/ttyGS0", "play")  # another link: not resumed, still noted
    >>> playing(folder), noted_game(folder, "", "play"), playing(folder)  # no agreement kept
    ('k7qm2x', None, None)
    """
    code = playing(state_dir)
    log = logging.getLogger("crownhead.firmware.remote")
    if code is not None and (link_port or mode != "play"):
        log.warning(
            "remote: the game far apart %s is not resumed: this board starts with %s",
            code,
            f"a link on {link_port}" if link_port else f"mode {mode}",
        )
        return None
    if code is not None:
        try:
            Agreement.load(state_dir, code)
        except ValueError as exc:
            log.error("remote: the game far apart %s cannot be resumed (%s): the board starts as configured", code, exc)
            set_playing(state_dir, None)
            return None
    return code


def remote_game(code: str, state_dir: Path, settings: AppSettings, link_port: str) -> tuple[Agreement, AppSettings]:
    """``crownhead run --remote CODE``: the agreement kept for game ``code`` and the
    application's settings for it; ValueError saying what is wrong."""
    agreement = Agreement.load(state_dir, check_code(code))
    if link_port:
        raise ValueError(f"the other side comes through the broker: drop the link on {link_port} (--link, link.port)")
    if settings.mode not in ("play",):
        raise ValueError(f"a game far apart is played in play mode, not {settings.mode}")
    check_broker(BrokerUrl.parse(agreement.broker), insecure=agreement.insecure)
    return agreement, remote_settings(agreement, settings)


def remote_board(
    agreement: Agreement, app: FarBoard, clock: Clock, state_dir: Path, config: RemoteConfig = RemoteConfig()
) -> tuple[RemoteLink, Absence]:
    """The link of the agreed game (attached by the caller) and the absences shown on ``app``."""
    link = remote_link(agreement, clock, state_dir, config)
    assert isinstance(link.transport, RemoteTransport)
    invitation = agreement.invitation
    absence = Absence(link.transport, invitation.grace_s, invitation.away, link)
    absence.attach(app)
    return link, absence
