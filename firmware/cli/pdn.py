"""``crownhead pdn check``: replay every game of PDN files and report those that fail."""

from __future__ import annotations

import argparse
import os
import sys

from crownhead.firmware.cli._common import add_rules_arguments, rules_from_args
from crownhead.firmware.files import PDN_LIMIT, FileRefused, open_bytes
from crownhead.rules.pdn import read_games


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pdn",
        help="work with PDN game files",
        description="Work with PDN game files.",
    )
    actions = p.add_subparsers(dest="pdn_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="replay every game and report those that fail",
        description=(
            "Replay every game of the files. Prints one line per game that fails "
            "(FILE:LINE: game N, ply P, MOVE: reason), a note where the reader had to "
            "decide where a game ends (FILE:LINE: note: ...; not a failure) and a last "
            "line 'N games, N replayed, N failed'. Exit code 0 when every file was read, "
            "failed games included; 2 when a file cannot be read."
        ),
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="PDN files to check")
    volume = check.add_mutually_exclusive_group()
    volume.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print only the summary line (no failures, no notes)",
    )
    volume.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also print a line for every game that replays, and a summary per file",
    )
    add_rules_arguments(check)
    check.set_defaults(func=run_check)


def _refusal(path: str) -> str | None:
    """Why ``path`` cannot be read (None: it can), checked before any game is printed."""
    if os.path.isdir(path):
        return f"cannot read {path}: it is a directory"
    try:
        # A regular file of at most PDN_LIMIT bytes: a FIFO or /dev/zero never ends.
        with open_bytes(path, PDN_LIMIT):
            return None
    except FileNotFoundError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    except FileRefused as exc:
        return f"cannot read {exc}"


def run_check(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    for path in args.files:
        problem = _refusal(path)
        if problem is not None:
            print(f"crownhead pdn check: {problem}", file=sys.stderr)
            return 2
    games = replayed = 0
    for path in args.files:
        file_games = file_replayed = 0
        try:
            # Read a window at a time, each game let go once reported: memory stays flat
            # whatever the file's size, and the time goes with its games.
            with open_bytes(path, PDN_LIMIT) as handle:
                for game in read_games(handle, path, rules=rules):
                    file_games += 1
                    if game.error is None:
                        file_replayed += 1
                        if args.verbose:
                            print(f"{path}:{game.line}: game {game.number}: {len(game.moves)} plies, {game.result}")
                    elif not args.quiet:
                        print(game.error)
                    if not args.quiet:
                        for note in game.notes:
                            print(note)
        except (FileNotFoundError, FileRefused) as exc:  # changed while it was read
            print(f"crownhead pdn check: cannot read {exc}", file=sys.stderr)
            return 2
        if args.verbose:
            print(_summary(file_games, file_replayed, f"{path}: "))
        games += file_games
        replayed += file_replayed
    print(_summary(games, replayed))
    return 0


def _summary(games: int, replayed: int, prefix: str = "") -> str:
    return f"{prefix}{games} games, {replayed} replayed, {games - replayed} failed"
