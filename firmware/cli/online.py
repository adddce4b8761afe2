"""``crownhead online``: games against people on PlayStrategy (playstrategy.org), played
on the board through the server's Board API, as chess e-boards play on lichess.

* ``login``: keep a personal API token (scope ``board:play``), 0600, never shown;
* ``seek``: a seek (English, a rapid or slower clock); prints the game found;
* ``challenge USER`` / ``accept ID`` / ``decline ID``: play a friend by name;
  ``watch``: the challenges sent to you (and the games under way) as they come;
* ``abort GAMEID``: a game aborted before its second move;
* ``play GAMEID``: the game on the board (``crownhead run --online GAMEID``; the far
  side's moves lit on the board, the board's sent to the server); ``play last`` after a
  restart or a power cut: the game played last;
* ``logout``. See docs/online.md.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import threading
from pathlib import Path
from typing import Any

from crownhead.firmware.files import atomic_write, default_state_dir
from crownhead.firmware.online.client import DEFAULT_SERVER, Backoff, Client, ClientError, Refused
from crownhead.firmware.online.desk import OnlineDesk, keep_game, kept_game
from crownhead.firmware.online.game import OnlineGame
from crownhead.firmware.online.notation import check_variant
from crownhead.firmware.online.token import TokenError, forget_token, load_token, save_token

PROG = "crownhead online"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("online", help="play people on PlayStrategy from the board (docs/online.md)")
    commands = p.add_subparsers(dest="online_command", metavar="ACTION")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument(
            "--state-dir", metavar="DIR", help="where the board keeps its games and token (default: as crownhead run)"
        )

    login = commands.add_parser("login", help="keep a personal API token (scope board:play)")
    common(login)
    login.add_argument("--server", default=DEFAULT_SERVER, help=f"the server (default: {DEFAULT_SERVER})")
    login.add_argument("--token-stdin", action="store_true", help="read the token from standard input, not a prompt")
    login.set_defaults(func=run_login)
    logout = commands.add_parser("logout", help="forget the token")
    common(logout)
    logout.set_defaults(func=run_logout)
    seek = commands.add_parser("seek", help="seek a game (English, rapid or slower) and print it when found")
    common(seek)
    seek.add_argument("--clock", default="10+5", metavar="MIN+INC", help="minutes and increment seconds (default 10+5)")
    seek.add_argument("--rated", action="store_true", help="a rated game")
    seek.add_argument(
        "--variant", default="english", help="the game: english (pool and russian are refused, and say why)"
    )
    seek.set_defaults(func=run_seek)
    chal = commands.add_parser("challenge", help="challenge a friend by name")
    common(chal)
    chal.add_argument("user")
    chal.add_argument("--clock", default="10+5", metavar="MIN+INC")
    chal.add_argument("--variant", default="english", help="the game: english (as seek)")
    chal.set_defaults(func=run_challenge)
    watch = commands.add_parser("watch", help="show the challenges sent to you and the games that start")
    common(watch)
    watch.add_argument("--count", type=int, default=0, help="stop after COUNT of them (default: Ctrl-C stops)")
    watch.set_defaults(func=run_watch)
    for name, helps in (("accept", "accept a challenge"), ("decline", "decline a challenge")):
        q = commands.add_parser(name, help=helps)
        common(q)
        q.add_argument("challenge_id")
        q.set_defaults(func=run_answer, answer=name)
    abort = commands.add_parser("abort", help="abort game GAMEID (before the second move; the board's keys resign)")
    common(abort)
    abort.add_argument("game_id", metavar="GAMEID")
    abort.set_defaults(func=run_abort)
    play = commands.add_parser(
        "play",
        help="play game GAMEID on the board (crownhead run --online GAMEID); 'last': the last one, after a restart",
    )
    common(play)
    play.add_argument("game_id", metavar="GAMEID", help="the game's id, or 'last'")
    play.add_argument("run_args", nargs=argparse.REMAINDER, help="crownhead run's options (--hal, --web, ...)")
    play.set_defaults(func=run_play)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def _state_dir(args: argparse.Namespace) -> Path:
    return Path(args.state_dir) if getattr(args, "state_dir", None) else default_state_dir()


def _account_path(state_dir: Path) -> Path:
    return state_dir / "online" / "account.json"


def account(state_dir: Path) -> dict[str, Any]:
    """The server and account ``login`` kept (never the token: that is its own file)."""
    try:
        data = json.loads(_account_path(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise TokenError("not logged in: run 'crownhead online login' first") from None
    if not isinstance(data, dict) or not isinstance(data.get("server"), str) or not isinstance(data.get("id"), str):
        raise TokenError("the account kept is damaged: log in again")
    return data


def client_for(state_dir: Path) -> tuple[Client, dict[str, Any]]:
    acc = account(state_dir)
    return Client(load_token(state_dir), acc["server"]), acc


def run_login(args: argparse.Namespace) -> int:
    state_dir = _state_dir(args)
    token = sys.stdin.readline() if args.token_stdin else getpass.getpass("PlayStrategy API token (board:play): ")
    token = token.strip()
    try:
        me = Client(token, args.server).account()
    except ValueError as exc:
        return _fail(str(exc))
    except ClientError as exc:
        return _fail(f"the server did not take the token: {exc}")
    try:
        save_token(state_dir, token)
    except TokenError as exc:
        return _fail(str(exc))
    state_dir.joinpath("online").mkdir(parents=True, exist_ok=True)
    user = str(me.get("id", "")).lower()
    atomic_write(
        _account_path(state_dir), json.dumps({"server": args.server, "id": user, "name": me.get("username", user)})
    )
    print(f"logged in to {args.server} as {me.get('username', user)} (the token kept, readable by you only)")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    state_dir = _state_dir(args)
    had = forget_token(state_dir)
    _account_path(state_dir).unlink(missing_ok=True)
    print("logged out" if had else "no token was kept")
    return 0


def _clock(text: str) -> tuple[int, int]:
    minutes, _, inc = text.partition("+")
    try:
        return int(minutes), int(inc or 0)
    except ValueError:
        raise ValueError(f"--clock: MIN+INC, as 10+5, not {text!r}") from None


def run_seek(args: argparse.Namespace) -> int:
    state_dir = _state_dir(args)
    try:
        minutes, inc = _clock(args.clock)
        check_variant(args.variant)
        client, _acc = client_for(state_dir)
    except (ValueError, TokenError) as exc:
        return _fail(str(exc))
    found: list[str] = []
    started = threading.Event()
    try:
        # The event stream tells every game under way when it opens: those are not this seek's.
        before = set(client.playing())
    except ClientError as exc:
        return _fail(str(exc))

    def watch() -> None:
        try:
            for event in client.events():
                if event.get("type") == "gameStart":
                    game = event.get("game") or {}
                    gid = str(game.get("gameId") or game.get("id"))
                    if gid in before:
                        continue
                    found.append(gid)
                    started.set()
                    return
        except ClientError:
            started.set()

    threading.Thread(target=watch, daemon=True).start()
    print(
        f"seeking {args.variant} {minutes}+{inc}{' rated' if args.rated else ''}: waiting for an opponent (Ctrl-C stops)"
    )
    try:
        for _ in client.seek(minutes, inc, variant=args.variant, rated=args.rated):
            pass
    except Refused as exc:
        return _fail(f"the seek was refused: {exc.message}")
    except ClientError as exc:
        return _fail(str(exc))
    started.wait(30)
    if not found:
        return _fail("the seek ended with no game")
    print(f"game {found[0]}: play it on the board with 'crownhead online play {found[0]}'")
    return 0


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def describe_event(event: dict[str, Any]) -> str | None:
    """One line for a challenge sent to this account or a game started, else None."""
    kind = event.get("type")
    if kind == "challenge":
        ch = _obj(event.get("challenge"))
        who, tc, variant = _obj(ch.get("challenger")), _obj(ch.get("timeControl")), _obj(ch.get("variant"))
        cid = str(ch.get("id", "?"))
        rating = f" ({who['rating']})" if isinstance(who.get("rating"), int) else ""
        return (
            f"challenge {cid} from {who.get('name', '?')}{rating}: {variant.get('key', '?')} "
            f"{tc.get('show', '')}{' rated' if ch.get('rated') else ''}; "
            f"crownhead online accept {cid} (or decline {cid})"
        )
    if kind == "gameStart":
        game = _obj(event.get("game"))
        gid = str(game.get("gameId") or game.get("id", "?"))
        return f"game {gid} under way: crownhead online play {gid}"
    return None


def run_watch(args: argparse.Namespace) -> int:
    try:
        client, acc = client_for(_state_dir(args))
    except TokenError as exc:
        return _fail(str(exc))
    print(f"watching {acc.get('name', acc['id'])}'s challenges and games (Ctrl-C stops)", flush=True)
    shown = 0
    try:
        for event in client.events():
            line = describe_event(event)
            if line is not None:
                print(line, flush=True)
                shown += 1
                if args.count and shown >= args.count:
                    return 0
    except ClientError as exc:
        return _fail(str(exc))
    return 0


def run_challenge(args: argparse.Namespace) -> int:
    try:
        minutes, inc = _clock(args.clock)
        variant = check_variant(args.variant)
        client, _acc = client_for(_state_dir(args))
        answer = client.challenge(args.user, minutes, inc, variant=variant)
    except (ValueError, TokenError, ClientError) as exc:
        return _fail(str(exc))
    inner = answer.get("challenge")
    ch: dict[str, Any] = inner if isinstance(inner, dict) else answer
    print(f"challenge {ch.get('id', '?')} sent to {args.user}: the game starts when it is accepted")
    return 0


def run_answer(args: argparse.Namespace) -> int:
    try:
        client, _acc = client_for(_state_dir(args))
        (client.accept if args.answer == "accept" else client.decline)(args.challenge_id)
    except (ValueError, TokenError, ClientError) as exc:
        return _fail(str(exc))
    print(f"challenge {args.challenge_id} {args.answer}ed")
    return 0


def run_abort(args: argparse.Namespace) -> int:
    try:
        client, _acc = client_for(_state_dir(args))
        client.command(args.game_id, "abort")
    except (ValueError, TokenError, ClientError) as exc:
        return _fail(str(exc))
    print(f"game {args.game_id} aborted")
    return 0


def run_play(args: argparse.Namespace) -> int:
    from crownhead.firmware.cli import main

    state_dir = _state_dir(args)
    game_id = args.game_id
    if game_id == "last":
        game_id = kept_game(state_dir)
        if game_id is None:
            return _fail("no game played here yet: give its GAMEID")
        print(f"back to game {game_id}")
    extra = ["--state-dir", str(state_dir)] if args.state_dir else []
    return main(["run", "--online", str(game_id), *extra, *args.run_args])


def open_online(game_id: str, state_dir: Path, backoff: Backoff | None = None) -> tuple[OnlineGame, str]:
    """The game ``game_id`` of the account logged in (not yet attached), and its server;
    ValueError naming what is missing."""
    try:
        client, acc = client_for(state_dir)
    except TokenError as exc:
        raise ValueError(str(exc)) from None
    game = OnlineGame(client, game_id, acc["id"], backoff=backoff)
    # The game played, kept: after a power cut `crownhead online play` goes back to it.
    keep_game(state_dir, game_id, acc["server"])
    return game, acc["server"]


def open_desk(state_dir: Path) -> tuple[OnlineDesk, str]:
    """The desk of the account logged in (not yet attached: it then joins the game under
    way, and takes the page's and the buttons' seeks and challenges), and its server;
    ValueError naming what is missing."""
    try:
        client, acc = client_for(state_dir)
    except TokenError as exc:
        raise ValueError(str(exc)) from None
    return OnlineDesk(client, acc["id"], state_dir), acc["server"]
