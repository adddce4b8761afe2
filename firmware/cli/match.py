"""``crownhead match``: begin a match, see its score, end it, print its sheet."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crownhead.firmware.app.settings import MatchConfig
from crownhead.firmware.cli.sheet import add_paper_argument, read_pdn, write_pdf
from crownhead.firmware.config import Config, ConfigError, load_config
from crownhead.firmware.files import int_argument
from crownhead.firmware.sheets.model import SheetGame
from crownhead.firmware.storage.matches import MatchStore, new_match
from crownhead.firmware.files import default_state_dir
from crownhead.firmware.storage.store import GameStore, StoreError
from crownhead.rules.match import MAX_GAMES, Match
from crownhead.rules.pdn import read_game

PROG = "crownhead match"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "match",
        help="play a match: begin one, see its score, end it, print its sheet",
        description=(
            "A match is two players and a number of games (or open-ended); the colours swap "
            "after every game and the board keeps the score (a win is a mark, a drawn game "
            "gives none; with --count-draws wins, draws and losses, a draw worth half a "
            "point). Without an action: the match under way and its score."
        ),
    )
    state_help = (
        "where the board keeps its games (default: [store] state_dir, else /var/lib/crownhead "
        "when writable, else $XDG_STATE_HOME/crownhead or ~/.local/state/crownhead)"
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS, help=state_help)
    common.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="the configuration file (for [store] and [match]; default /etc/crownhead/config.toml)",
    )
    p.add_argument("--state-dir", metavar="DIR", help=state_help)
    p.add_argument("--config", metavar="PATH", help="the configuration file (default /etc/crownhead/config.toml)")
    p.add_argument("--json", action="store_true", default=False, help="the status as one JSON object")
    actions = p.add_subparsers(dest="match_action", metavar="ACTION")
    status = actions.add_parser("status", parents=[common], help="the match under way and its score (the default)")
    status.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="as one JSON object")
    new = actions.add_parser(
        "new",
        parents=[common],
        help="begin a match: BLACK has Black in the first game",
        description="Begin a match from the next game on: BLACK plays Black in game 1, WHITE White; "
        "the colours swap every game. The game in progress, if any, is not part of it.",
    )
    new.add_argument("black", metavar="BLACK", help="Black's name in the first game")
    new.add_argument("white", metavar="WHITE", help="White's name in the first game")
    new.add_argument(
        "--games",
        type=int_argument,
        metavar="N",
        help=f"the number of games (1-{MAX_GAMES}; default: [match] games, else open-ended)",
    )
    new.add_argument(
        "--count-draws",
        action="store_true",
        default=None,
        help="score wins, draws and losses, a draw worth half a point (the 1923 Standard Laws)",
    )
    actions.add_parser("end", parents=[common], help="end the match under way (it is kept)")
    sheet = actions.add_parser(
        "sheet", parents=[common], help="the match sheet (PDF) of the match under way or just ended"
    )
    add_paper_argument(sheet)
    sheet.add_argument(
        "-o", "--output", metavar="OUT.pdf", help="the PDF to write ('-': standard output; default: MATCH-ID.pdf here)"
    )
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> Config:
    return load_config(getattr(args, "config", None))


def run(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    from crownhead.firmware.app.settings import StoreConfig

    state_dir = Path(getattr(args, "state_dir", None) or config.get(StoreConfig).state_dir or default_state_dir())
    store = MatchStore(state_dir)
    action = getattr(args, "match_action", None) or "status"
    try:
        if action == "new":
            return _new(store, args, config.get(MatchConfig))
        if action == "end":
            return _end(store)
        if action == "sheet":
            return _sheet(store, GameStore(state_dir), args.output, args.paper)
        return _status(store, GameStore(state_dir), args.json)
    except StoreError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2


def _new(store: MatchStore, args: argparse.Namespace, defaults: MatchConfig) -> int:
    games = args.games if args.games is not None else (defaults.games or None)
    count_draws = args.count_draws if args.count_draws is not None else defaults.count_draws
    try:
        match = new_match(args.black, args.white, games=games, count_draws=count_draws)
    except ValueError as exc:
        print(f"{PROG} new: {str(exc).removeprefix('match: ')}", file=sys.stderr)
        return 2
    current = store.load()
    if current is not None and not current.over:
        print(
            f"{PROG} new: the match {current.title} is under way ({current.verdict()}); "
            "end it first with crownhead match end",
            file=sys.stderr,
        )
        return 2
    if current is not None:
        store.put_away()
    store.save(match)
    black, white = match.colours()
    of = f"{match.games} games" if match.games else "open-ended"
    print(
        f"Match {match.title} ({of}, {'wins, draws and losses' if count_draws else 'wins'} counted): "
        f"the next game is game 1, {black} Black, {white} White."
    )
    return 0


def _end(store: MatchStore) -> int:
    match = store.load()
    if match is None:
        print(f"{PROG} end: no match under way in {store.directory}", file=sys.stderr)
        return 2
    ended = match if match.over else match.finished_now()
    store.save(ended)
    path = store.put_away()
    print(f"Match {ended.title} ended: {ended.verdict()}. Kept as {path}.")
    return 0


def _last(store: MatchStore) -> Match | None:
    match = store.load()
    if match is not None:
        return match
    archived = store.archived()
    return archived[-1] if archived else None


def _status(store: MatchStore, games: GameStore, as_json: bool) -> int:
    match = store.load()
    if match is not None:
        match = MatchStore.reconcile(match, games.list_games())
    if as_json:
        print(json.dumps(match.status() if match is not None else None, ensure_ascii=False))
        return 0
    if match is None:
        print(f"No match under way in {store.directory}. Begin one: crownhead match new BLACK WHITE [--games N]")
        return 0
    of = f"{match.games} games" if match.games else "open-ended"
    counting = "wins, draws and losses (a draw is half a point)" if match.count_draws else "wins (a draw gives no mark)"
    print(f"Match {match.title} ({of}), counting {counting}; id {match.id}")
    for game in match.played:
        winner = game.winner or ("drawn" if game.drawn else "unfinished, not counted")
        opening = f"  ballot {game.ballot}" if game.ballot else ""
        print(f"  game {game.number}: {game.black} (Black) v {game.white} (White)  {game.result:<7}  {winner}{opening}")
    print(f"Score: {match.score_text()}. {match.verdict()}.")
    if not match.over:
        black, white = match.colours()
        drawn = match.ballot()
        print(f"Next: game {match.number}, {black} Black, {white} White" + (f", ballot {drawn}" if drawn else "") + ".")
    return 0


def _sheet(store: MatchStore, games: GameStore, output: str | None, paper: str) -> int:
    match = _last(store)
    if match is None:
        print(f"{PROG} sheet: no match kept in {store.directory}", file=sys.stderr)
        return 2
    sheets = []
    for kept in MatchStore.games_of(match, games.list_games()):
        text = read_pdn(f"{PROG} sheet", str(kept.path))
        if text is None:
            return 2
        game = read_game(text, kept.path.name)
        if game is not None:
            sheets.append(SheetGame.from_pdn(game))
    from crownhead.firmware.sheets.pdf import match_sheet  # fpdf2 only for a sheet

    chosen = output or f"{match.id}.pdf"
    done = write_pdf(f"{PROG} sheet", chosen, match_sheet(match, sheets, paper))
    if done == 0 and chosen != "-":
        print(f"the match sheet is in {chosen}")
    return done
