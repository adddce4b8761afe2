"""``crownhead review``: a finished game scored move by move, its mistakes and the better moves.

    $ crownhead review            # the last game the board kept
    $ crownhead review 3          # game 3 of `crownhead games`
    $ crownhead review game.pdn --game 2 --json

Each position is searched to ``--nodes`` positions (the same marks on any machine, at any
load); the endgame tables decide where they cover the position. The report names each
marked move (``??`` blunder, ``?`` mistake, ``?!`` dubious, ``!`` the only move that keeps
the result), what it cost in expected result (1 a win, 0.5 a draw) and the better move
with its line; ``--json`` prints the whole review as one JSON document (see docs/coach.md),
``--pdn`` the game as PDN with the marks on the moves (``12-16??``) and the words in comments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crownhead.firmware.cli.games import find_game
from crownhead.firmware.files import PDN_LIMIT, FileRefused, open_bytes
from crownhead.firmware.coach.review import DEFAULT_NODES, Review, review_game
from crownhead.firmware.files import default_state_dir, int_argument
from crownhead.firmware.storage.store import GameStore
from crownhead.rules import pdn as pdn_reader
from crownhead.rules.pdn import PdnGame, read_games
from crownhead.rules.settings import WCDF


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "review",
        help="score every move of a finished game: its mistakes and the better moves",
        description=(
            "Review a game move by move: GAME is a number or file name from `crownhead games`, "
            "or a PDN file (default: the last game the board kept)."
        ),
    )
    p.add_argument("game", nargs="?", metavar="GAME", help="a kept game's number or name, or a PDN file")
    p.add_argument("--game", dest="index", type=int_argument, default=1, metavar="N", help="the Nth game of a PDN file")
    p.add_argument(
        "--nodes",
        type=int_argument,
        default=DEFAULT_NODES,
        metavar="N",
        help=f"positions searched for each score (default {DEFAULT_NODES:,})",
    )
    p.add_argument("--no-tables", action="store_true", help="review without the endgame tables")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the review as one JSON document")
    output.add_argument("--pdn", action="store_true", help="print the game as PDN with the marks and comments")
    p.add_argument("--state-dir", metavar="DIR", help="where the board keeps its games")
    p.set_defaults(func=run)


def _game_file(args: argparse.Namespace, prog: str) -> Path | None:
    store = GameStore(Path(args.state_dir) if args.state_dir else default_state_dir())
    if args.game is None:
        files = store.game_files()
        if not files:
            print(f"{prog}: no finished game kept in {store.directory} yet (give a PDN file)", file=sys.stderr)
            return None
        return files[-1]
    path = Path(args.game)
    if path.is_file():
        return path
    kept = find_game(store, args.game)
    if kept is None:
        print(f"{prog}: {args.game}: no such file, nor a game kept in {store.directory}", file=sys.stderr)
    return kept


_PLURAL = {"blunder": "blunders", "mistake": "mistakes", "good move": "good moves"}


def _nth_game(prog: str, path: Path, index: int) -> tuple[PdnGame | None, int] | None:
    """Game ``index`` of the file (None: it has fewer) and how many games it has; None
    after a one-line message when it cannot be read. The file is read a part at a time,
    only that game kept."""
    chosen: PdnGame | None = None
    count = 0
    try:
        with open_bytes(path, PDN_LIMIT) as handle:
            for game in read_games(handle, path.name):
                count += 1
                if count == index:
                    chosen = game
    except FileNotFoundError as exc:
        print(f"{prog}: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None
    except FileRefused as exc:
        print(f"{prog}: cannot read {exc}", file=sys.stderr)
        return None
    return chosen, count


def report(review: Review) -> str:
    """The review as text: the game, each marked move, each side's count."""
    tags = review.tags
    black, white = tags.get("Black", "Black"), tags.get("White", "White")
    lines = [
        f"{black} (Black) v {white} (White), {tags.get('Result', '*')}: "
        f"{len(review.plies)} moves reviewed at {review.nodes:,} positions each"
    ]
    marked = review.marked()
    if not marked:
        lines.append("No move marked: neither side gave anything away that the search could see.")
    for p in marked:
        lines.append(f"  {p.numbered}{p.mark.value if p.mark else ''}  {p.explain()}")
    for side, counts in review.summary().items():
        said = ", ".join(f"{n} {_PLURAL.get(word, word) if n != 1 else word}" for word, n in counts.items())
        lines.append(f"{side.capitalize()}: {said}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    prog = "crownhead review"
    if args.nodes < 1:
        print(f"{prog}: --nodes must be 1 or more, not {args.nodes}", file=sys.stderr)
        return 2
    path = _game_file(args, prog)
    if path is None:
        return 2
    found = _nth_game(prog, path, args.index)
    if found is None:
        return 2
    pdn, count = found
    if pdn is None:
        print(f"{prog}: {path.name} holds {count} game(s), not a game {args.index}", file=sys.stderr)
        return 2
    if pdn.error is not None and len(pdn.moves) >= pdn_reader.MAX_PLIES:
        # Longer than any real game: reviewing its first plies would take an hour.
        print(f"{prog}: {pdn.error}", file=sys.stderr)
        return 2
    if pdn.error is not None:
        print(f"{prog}: {pdn.error} (the moves before it are reviewed)", file=sys.stderr)
    probe = None
    if not args.no_tables and pdn.rules == WCDF:
        from crownhead.firmware.egdb import EgdbError, load_probe

        try:
            probe = load_probe(skip_damaged=True, state_dir=Path(args.state_dir) if args.state_dir else None)
        except EgdbError as error:
            print(f"{prog}: endgame tables not used: {error}", file=sys.stderr)
    game = pdn.game()

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{prog}: move {done} of {total}", end="" if done < total else "\n", file=sys.stderr)

    review = review_game(game, nodes=args.nodes, probe=probe, tags=pdn.tags, progress=progress)
    if args.json:
        print(json.dumps(review.to_json(), separators=(",", ":")))
    elif args.pdn:
        sys.stdout.write(review.pdn())
    else:
        print(report(review))
        worst = max(review.marked(), key=lambda p: p.cost, default=None)
        if worst is not None and worst.mark is not None and worst.mark.value != "!" and path.parent.name == "games":
            # A kept game: the board can set the position before that move up again.
            print(
                f"Play {worst.numbered} again on the board: "
                f"crownhead run --from-game {path.stem} --ply {worst.ply - 1} --mode computer"
            )
    return 0
