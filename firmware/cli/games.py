"""``crownhead games``: the games the board has kept, listed or exported as one PDN file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware.storage.store import GameStore, StoreError, atomic_write, default_state_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "games",
        help="list the games kept by the board, or export them as PDN",
        description=(
            "List the finished games kept in the state directory (and the game in "
            "progress, if any), or export every finished game as one PDN file."
        ),
    )
    state_help = (
        "where the games are kept (default: /var/lib/crownhead when writable, "
        "else $XDG_STATE_HOME/crownhead or ~/.local/state/crownhead)"
    )
    p.add_argument("--state-dir", metavar="DIR", help=state_help)
    actions = p.add_subparsers(dest="games_action", metavar="ACTION")
    listing = actions.add_parser("list", help="list the games (the default)")
    listing.set_defaults(func=run)
    export = actions.add_parser("export", help="write every finished game into one PDN file")
    # Also after the action (`crownhead games export --state-dir DIR`); SUPPRESS keeps a
    # --state-dir given before the action when none is given after it.
    for action_parser in (listing, export):
        action_parser.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS, help=state_help)
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    export.set_defaults(func=run)
    p.set_defaults(func=run)


def _store(args: argparse.Namespace) -> GameStore:
    return GameStore(Path(args.state_dir) if args.state_dir else default_state_dir())


def run(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        if getattr(args, "games_action", None) == "export":
            return _export(store, args.output)
        return _list(store)
    except StoreError as exc:
        print(f"crownhead games: {exc}", file=sys.stderr)
        return 2


def _list(store: GameStore) -> int:
    games = store.list_games()
    try:
        current = store.load_current()
        current_problem = None
    except StoreError as exc:
        current, current_problem = None, str(exc)
    if not games and current is None and current_problem is None:
        print(f"No games kept yet in {store.directory}.")
        return 0
    if games:
        print(f"{'#':>3}  {'date':<10}  {'result':<7}  {'plies':>5}  {'black':<18}  {'white':<18}  file")
    for n, g in enumerate(games, 1):
        t = g.tags
        print(
            f"{n:>3}  {t.get('Date', '?'):<10}  {g.result:<7}  {g.plies:>5}  "
            f"{t.get('Black', '?')[:18]:<18}  {t.get('White', '?')[:18]:<18}  {g.path.name}"
        )
    if current is not None:
        print(
            f"In progress: started {current.started}, {len(current.moves)} {'ply' if len(current.moves) == 1 else 'plies'}, "
            f"{current.black} (Black) v {current.white} (White); `crownhead run` resumes it."
        )
    if current_problem is not None:
        print(f"crownhead games: the game in progress cannot be read: {current_problem}", file=sys.stderr)
        return 2
    return 0


def _export(store: GameStore, output: str | None) -> int:
    text = store.export()
    count = len(store.game_files())
    if output is None:
        sys.stdout.write(text)
        return 0
    path = Path(output)
    if path.is_dir():
        print(f"crownhead games export: {path} is a directory; give a file name", file=sys.stderr)
        return 2
    try:
        atomic_write(path, text)
    except OSError as exc:
        print(f"crownhead games export: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{count} game{'s' if count != 1 else ''} written to {path}", file=sys.stderr)
    return 0
