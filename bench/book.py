"""The opening book of master games: which moves the published games played in their
first plies, and how they scored, written as data into ``rules/engine/masters.py``.

    .venv/bin/python bench/book.py                       # ../shared/data/*.pdn, 12 plies
    .venv/bin/python bench/book.py --plies 10 --min-games 3 --check
    .venv/bin/python bench/book.py --ballots             # the book after the ballots

Every game from the start position that replays (a game with a transcription error is
left out from that ply on, as the PDN reader reports it) adds, for each of its first
``--plies`` plies, one game to the move played in the position before it, and the
points its player scored (a win 1, a draw 1/2, from the result tag). A move enters the
book when at least ``--min-games`` games played it and its player scored at least a
third of the points: the engine then draws among a position's book moves by their
points (``crownhead.rules.engine.book.MasterBook``). ``--check`` compares the module with what the
games give instead of writing it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.rules import Color, Position  # noqa: E402
from crownhead.rules.pdn import read_games  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "rules" / "engine" / "masters.py"

HEADER = '''"""The master games' opening moves (written by bench/book.py; do not edit by hand).

Each entry: the position (FEN), a move played in it (PDN), the number of games that
played it within their first {plies} plies, and the points its player scored in them
(a win 1, a draw 1/2). Read by :class:`crownhead.rules.engine.book.MasterBook`. The games:
{files}.
"""

MASTER_MOVES: tuple[tuple[str, str, int, float], ...] = (
'''


def gather(folder: Path, plies: int) -> tuple[dict[tuple[str, str], list[float]], list[str]]:
    counts: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    files = sorted(folder.glob("*.pdn"))
    for path in files:
        for game in read_games(path.read_text(encoding="utf-8", errors="replace"), source=path.name):
            if game.start != Position.start() or game.result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            position = game.start
            for move in game.moves[:plies]:
                black = position.turn == Color.BLACK
                points = 0.5 if game.result == "1/2-1/2" else float((game.result == "1-0") == black)
                entry = counts[(position.fen(), move.pdn(full=True))]
                entry[0] += 1
                entry[1] += points
                position = position.apply(move, game.rules)
    return counts, [p.name for p in files]


def render(counts: dict[tuple[str, str], list[float]], files: list[str], plies: int, min_games: int) -> str:
    lines = [HEADER.format(files=", ".join(files), plies=plies)]
    for (fen, move), (games, points) in sorted(counts.items()):
        if games >= min_games and points >= games / 3:
            lines.append(f'    ("{fen}", "{move}", {int(games)}, {points}),\n')  # as ruff format writes it
    lines.append(")\n")
    return "".join(lines)


def ballots() -> int:
    """How far the book reaches past the ballots: for each card of the ACF deck, whether
    the master book has the position after its three moves, and how many plies an engine
    playing ``book=True`` on both sides (one engine a side, as the board's player) plays
    from the book before it searches; then whether ``crownhead analyse`` answers there
    with the book's move."""
    import io
    from contextlib import redirect_stdout

    from crownhead.firmware.cli import main as command
    from crownhead.rules import WCDF, Game
    from crownhead.rules.ballots import deck
    from crownhead.rules.engine import Engine
    from crownhead.rules.engine.book import MasterBook

    book = MasterBook(WCDF)
    cards = covered = analysed = 0
    plies: list[int] = []
    for card in deck():
        game = Game(Position.start(), WCDF)
        try:
            for text in card.moves:
                game.play_text(text)
        except ValueError:
            continue
        cards += 1
        if not book.moves(game.position):
            plies.append(0)
            continue
        covered += 1
        sides = {Color.BLACK: Engine(seed=card.number), Color.WHITE: Engine(seed=card.number + 1)}
        ply = 0
        while True:
            result = sides[game.turn].search(game.position, movetime_ms=5, book=True, history=game.positions[:-1])
            if result.move is None or result.nodes or result.depth:
                break  # searched: out of the book
            game.play(result.move)
            ply += 1
        plies.append(ply)
        out = io.StringIO()
        with redirect_stdout(out):
            command(["analyse", "--moves", " ".join(card.moves), "--movetime", "20", "--no-tables"])
        analysed += '"depth":0,"nodes":0' in out.getvalue()
    print(
        f"{cards} ballots: the master book has the position after the three moves of {covered}; "
        f"book plies played after them with book=True on both sides: mean {sum(plies) / cards:.1f}, "
        f"max {max(plies)}; crownhead analyse answers with a book move after {analysed}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=Path, default=DATA, help="the folder of PDN games (../shared/data)")
    parser.add_argument("--plies", type=int, default=12, help="plies of each game taken (12)")
    parser.add_argument("--min-games", type=int, default=2, help="games a move needs to enter (2)")
    parser.add_argument("--check", action="store_true", help="compare with rules/engine/masters.py, write nothing")
    parser.add_argument(
        "--ballots", action="store_true", help="how far the book reaches past the ballots' three moves (writes nothing)"
    )
    args = parser.parse_args(argv)
    if args.ballots:
        return ballots()
    counts, files = gather(args.games, args.plies)
    if not files:
        print(f"no PDN files in {args.games}", file=sys.stderr)
        return 1
    text = render(counts, files, args.plies, args.min_games)
    entries = text.count("\n    (")
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.name}: {'the same as' if same else 'differs from'} what the games give ({entries} moves)")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT.relative_to(REPO)}: {entries} book moves from {len(files)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
