"""``crownhead games``: the games the board has kept, listed, exported as one PDN file, or
printed as a score sheet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crownhead.firmware.cli.sheet import add_paper_argument, read_pdn, write_pdf
from crownhead.firmware.sheets.files import SheetError, sheets_from_pdn
from crownhead.firmware.storage.matches import MATCH_TAG, ROUND_TAG
from crownhead.firmware.files import atomic_write, default_state_dir
from crownhead.firmware.storage.store import GameStore, StoreError
from crownhead.rules.pdn import UNTAGGED


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
    sheet = actions.add_parser(
        "sheet",
        help="a kept game's score sheet as PDF (as crownhead sheet makes it)",
        description="Write the score sheet of a kept game: ID is its number in the listing "
        "(#) or its file name (with or without .pdn).",
    )
    sheet.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS, help=state_help)
    sheet.add_argument("id", metavar="ID", help="the game's number in `crownhead games` or its file name")
    add_paper_argument(sheet)
    sheet.add_argument(
        "-o", "--output", metavar="OUT.pdf", required=True, help="the PDF to write ('-': standard output)"
    )
    sheet.set_defaults(func=run)
    p.set_defaults(func=run)


def _store(args: argparse.Namespace) -> GameStore:
    return GameStore(Path(args.state_dir) if args.state_dir else default_state_dir())


def run(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        if getattr(args, "games_action", None) == "export":
            return _export(store, args.output)
        if getattr(args, "games_action", None) == "sheet":
            return _sheet(store, args.id, args.output, args.paper)
        return _list(store)
    except StoreError as exc:
        print(f"crownhead games: {exc}", file=sys.stderr)
        return 2


def _skipped(skipped: list[StoreError], action: str) -> int:
    """Name each file left out, one line each; the exit code (1 if any)."""
    for problem in skipped:
        print(f"crownhead games: {action} {problem}", file=sys.stderr)
    return 1 if skipped else 0


def _list(store: GameStore) -> int:
    skipped: list[StoreError] = []
    games = store.list_games(skipped)
    try:
        current = store.load_current()
        current_problem = None
    except StoreError as exc:
        current, current_problem = None, str(exc)
    if not games and current is None and current_problem is None and not skipped:
        print(f"No games kept yet in {store.directory}.")
        return 0
    in_matches = any(MATCH_TAG in g.tags for g in games)
    # Each column as wide as its longest entry: a name is never cut ("Crownhead engine (").
    black_w = max([5] + [len(g.tags.get("Black", "?")) for g in games])
    white_w = max([5] + [len(g.tags.get("White", "?")) for g in games])
    file_w = max([4] + [len(g.path.name) for g in games])
    if games:
        header = f"{'#':>3}  {'date':<10}  {'result':<7}  {'plies':>5}  {'black':<{black_w}}  {'white':<{white_w}}  "
        print((header + ("file".ljust(file_w) + "  match" if in_matches else "file")).rstrip())
    for n, g in enumerate(games, 1):
        t = g.tags
        line = (
            f"{n:>3}  {t.get('Date', '?'):<10}  {g.result:<7}  {g.plies:>5}  "
            f"{t.get('Black', '?'):<{black_w}}  {t.get('White', '?'):<{white_w}}  {g.path.name:<{file_w}}"
        )
        if MATCH_TAG in t:
            # Which match the game belongs to, and its game in it as `crownhead match` numbers
            # it: MatchGame where a referee's session numbered the Round ("1.2"), else Round.
            number = t.get("MatchGame") or t.get(ROUND_TAG)
            line += f"  {t[MATCH_TAG]}" + (f" game {number}" if number else "")
        print(line.rstrip())
    if current is not None:
        print(
            f"In progress: started {current.started}, {len(current.moves)} {'ply' if len(current.moves) == 1 else 'plies'}, "
            f"{current.black} (Black) v {current.white} (White); `crownhead run` resumes it."
        )
    status = _skipped(skipped, "left out (cannot be read):")
    if current_problem is not None:
        print(f"crownhead games: the game in progress cannot be read: {current_problem}", file=sys.stderr)
        return 2
    return status


def _export(store: GameStore, output: str | None) -> int:
    skipped: list[StoreError] = []
    text = store.export(skipped)
    count = len(store.game_files()) - len(skipped)
    if output is None:
        sys.stdout.write(text)
        return _skipped(skipped, "not exported (cannot be read):")
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
    return _skipped(skipped, "not exported (cannot be read):")


def find_game(store: GameStore, game_id: str) -> Path | None:
    """A kept game's file from its number in the listing or its file name."""
    return store.find(game_id)


def _sheet(store: GameStore, game_id: str, output: str, paper: str) -> int:
    prog = "crownhead games sheet"
    path = find_game(store, game_id)
    if path is None:
        count = len(store.game_files())
        print(
            f"{prog}: no kept game {game_id!r} in {store.directory} ({count} kept; see crownhead games)",
            file=sys.stderr,
        )
        return 2
    text = read_pdn(prog, str(path))
    if text is None:
        return 2
    try:
        # A kept game names its game type but for English checkers (the standard's default).
        pdf, problems = sheets_from_pdn(text, path.name, game=1, paper=paper, rules=UNTAGGED)
    except SheetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    code = write_pdf(prog, output, pdf)
    if code:
        return code
    for problem in problems:
        print(f"{prog}: {problem}", file=sys.stderr)
    return 1 if problems else 0
