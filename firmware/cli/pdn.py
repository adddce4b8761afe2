"""``crownhead pdn check``: replay every game of PDN files and report those that fail."""

from __future__ import annotations

import argparse
import os
import sys

from crownhead.firmware.cli._common import add_rules_arguments, rules_from_args
from crownhead.firmware.files import PDN_LIMIT, FileRefused, read_bytes
from crownhead.rules.pdn import decode, read_games


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


def _load(path: str) -> str | None:
    """The text of a file, or None after a one-line message when it cannot be read."""
    try:
        # A regular file of at most PDN_LIMIT bytes: a FIFO or /dev/zero never ends.
        return decode(read_bytes(path, PDN_LIMIT))
    except FileNotFoundError as exc:
        print(f"crownhead pdn check: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None
    except FileRefused as exc:
        print(f"crownhead pdn check: cannot read {exc}", file=sys.stderr)
        return None


def run_check(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    texts: list[tuple[str, str]] = []
    for path in args.files:
        if os.path.isdir(path):
            print(f"crownhead pdn check: cannot read {path}: it is a directory", file=sys.stderr)
            return 2
        text = _load(path)
        if text is None:
            return 2
        texts.append((path, text))
    games = replayed = 0
    for path, text in texts:
        file_games = file_replayed = 0
        for game in read_games(text, path, rules=rules):
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
        if args.verbose:
            print(_summary(file_games, file_replayed, f"{path}: "))
        games += file_games
        replayed += file_replayed
    print(_summary(games, replayed))
    return 0


def _summary(games: int, replayed: int, prefix: str = "") -> str:
    return f"{prefix}{games} games, {replayed} replayed, {games - replayed} failed"
