"""``crownhead analyse``: the engine's best move for a position, as one JSON line.

    $ crownhead analyse --movetime 500
    {"move":"11-15","path":[11,15],"captures":[],"score":0,"depth":9,"nodes":81234,"ms":302,"meaning":"even"}

``score`` is from the side to move's view in centi-men (a man is 100); a game won in
``n`` plies scores ``10000 - n`` and one lost in ``n`` plies ``-10000 + n``; ``meaning``
says it in words ("loses in 32 plies", "ahead by 1.35 men", "won by the endgame tables
(plies not known)" for a won position of the win/draw/loss tables, which score 8000
and up). When the side
to move has no legal move (it has lost) ``move`` is null, ``path`` and ``captures`` are
empty and the score is -10000 (+10000 with ``--variant giveaway``, where it has won).
``--variant`` and the house-rule options choose the rules the engine plays (see
``docs/variants.md``). Outside checks parse this line: keep its keys as they are.

``--movetime`` is the search's own time: it counts from when the search can start, once
Python has started, the engine's modules are imported and the endgame tables are opened
(together a few hundred milliseconds on a PC, over a second on a busy one or a Pi), so
a 300 ms analysis searches about 300 ms and a script asking for a move gets the engine's
full strength at that time. The process as a whole takes that start-up more.
``--startup`` adds ``startup_ms`` to the line (after the other keys): how long the
process had run when the search could start, where the operating system tells when it
started (Linux; else 0). ``--from-start`` counts the budget from the start of the
process instead (as before issue 53), so that the whole run keeps within ``--movetime``;
what the start-up leaves may be only a few milliseconds of search (at least 10).

In the opening, where the master games' book (``rules/engine/book.py``) has the position,
for instance just after a 3-move ballot, the answer is the book's move (drawn by the
points it scored, as the board's computer player draws it): ``depth`` and ``nodes`` are
0, ``score`` 0 and ``meaning`` says "book move". ``--no-book`` searches instead, and so
do ``--depth`` and ``--lines``.

``--max-movetime MS`` (at least ``--movetime``) lets a hard move search longer: one whose
best changes between iterations, or whose score falls, may take up to twice
``--movetime``, never more than MS (the board's time management, see docs/engine.md).

``--lines N`` prints the N best moves instead, a JSON line each with the same keys and
``rank`` (1 the best) and ``line`` (the expected line in PDN, starting with the move):
each further move is the best of those not shown yet, searched in its share of the time,
and the lines are ranked by their scores. Without it the answer is the one line above.

``--moves`` gives the moves played since ``--fen`` (or the start), in PDN: the engine then
knows the game as the board does (a position that would stand a third time is a draw,
the 40-move count runs). The engine probes the same endgame tables as the board's
computer player (English rules): a build in the state directory, and the tables shipped
with the package for whatever it lacks; ``--no-tables`` searches without them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time

from crownhead.firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from crownhead.firmware.files import int_argument
from crownhead.rules import Game, IllegalMoveError, Move, Position, Rules
from crownhead.rules.engine import DEFAULT_MOVETIME_MS, Engine, SearchResult, native, score_meaning
from crownhead.rules.engine.egdb import EndgameProbe
from crownhead.rules.pdn import line_text

#: Kept back from the budget for printing the answer and leaving the interpreter.
EXIT_MARGIN_MS = 5
#: The search gets at least this long, however late the process started working.
MIN_SEARCH_MS = 10
#: The most lines ``--lines`` shows (more than a position's moves is fewer lines).
MAX_LINES = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyse",
        help="print the engine's best move for a position as one JSON line",
        description=(
            "Search a position and print one JSON line: "
            '{"move":"11-15","path":[11,15],"captures":[],"score":S,"depth":D,"nodes":N,"ms":T,"meaning":M}. '
            "The score is from the side to move's view in centi-men; 10000 - n is a win in "
            "n plies, and meaning says it in words ('loses in 32 plies'). move is null when the "
            "side to move has no legal move."
        ),
    )
    p.add_argument("--fen", help="the position (PDN FEN); default: the start position")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument(
        "--movetime",
        type=int_argument,
        metavar="MS",
        help=f"search for MS milliseconds, counted from when the search can start: Python's "
        f"start-up and the tables' loading come on top (default {DEFAULT_MOVETIME_MS})",
    )
    limit.add_argument("--depth", type=int_argument, metavar="N", help="search N plies deep")
    p.add_argument(
        "--moves",
        metavar="MOVES",
        help="the moves played since the position, in "
        "PDN, space-separated ('11-15 23-19'): repetitions and the 40-move rule "
        "count them",
    )
    p.add_argument("--no-tables", action="store_true", help="search without the endgame tables")
    p.add_argument(
        "--max-movetime",
        type=int_argument,
        metavar="MS",
        help="a hard limit beyond --movetime: a move whose best changes between iterations, or "
        "whose score falls, may search up to twice --movetime within it (default: --movetime "
        "is never passed)",
    )
    p.add_argument(
        "--no-book",
        action="store_true",
        help="search even where the opening book has the position (the book is used with --movetime, one line, only)",
    )
    p.add_argument(
        "--from-start",
        action="store_true",
        help="count --movetime from the start of the process (start-up and tables included), "
        "so the whole run keeps within it; the search then gets what is left (at least "
        f"{MIN_SEARCH_MS} ms)",
    )
    p.add_argument(
        "--startup",
        action="store_true",
        help="add startup_ms to the line: how long the process had run when the search could start",
    )
    p.add_argument(
        "--lines",
        type=int_argument,
        default=1,
        metavar="N",
        help="the N best moves, a JSON line each, best first, with its score and line "
        "(the time is shared between them; default 1)",
    )
    add_rules_arguments(p)
    p.set_defaults(func=run)


def _process_age_ms() -> float:
    """How long ago this process started, or 0 where that cannot be told."""
    try:
        with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        # Field 22 of stat (the 20th after the command name) is the start time in clock
        # ticks since boot; CLOCK_BOOTTIME counts from the same boot.
        started_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        age = (time.clock_gettime(time.CLOCK_BOOTTIME) - started_s) * 1000
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0 <= age < 60_000 else 0.0


def _tables(rules: Rules) -> EndgameProbe | None:
    """The board's endgame tables (English rules only: they are solved under them)."""
    from crownhead.rules.settings import WCDF

    if rules != WCDF:
        return None
    from crownhead.firmware.egdb import EgdbError, load_probe

    try:
        return load_probe(skip_damaged=True)
    except EgdbError as error:
        logging.getLogger(__name__).warning("endgame tables not used: %s", error)
        return None


def _no_move(score: int) -> str:
    return f"no legal move: the side to move has {'won' if score > 0 else 'lost'}"


#: What ``meaning`` says of a move of the opening book (not searched: no score).
BOOK_MEANING = "book move (opening book, not searched)"


def _meaning(result: SearchResult) -> str:
    if result.move is None:
        return _no_move(result.score)
    if result.depth == 0 and result.nodes == 0:
        return BOOK_MEANING  # only a book move comes back unsearched
    return score_meaning(result.score)


def _bad_option(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, or None."""
    if args.movetime is not None and args.movetime <= 0:
        return f"--movetime must be a positive number of ms, not {args.movetime}"
    if args.depth is not None and args.depth < 1:
        return f"--depth must be 1 or more, not {args.depth}"
    if args.max_movetime is not None and (args.depth is not None or args.max_movetime <= 0):
        return "--max-movetime is a positive number of ms, with --movetime"
    if not 1 <= args.lines <= MAX_LINES:
        return f"--lines must be 1 to {MAX_LINES}, not {args.lines}"
    return None


def _game_after_moves(position: Position, rules: Rules, moves: str) -> Game | None:
    """The game from ``position`` with ``--moves`` played; None (said) when one is illegal."""
    game = Game(position, rules)
    for text in moves.split():
        try:
            game.play_text(text)
        except (IllegalMoveError, ValueError) as error:
            print(f"crownhead analyse: --moves: {text}: {error}", file=sys.stderr)
            return None
    return game


def _ready_engine(rules: Rules, position: Position, args: argparse.Namespace) -> Engine:
    """The engine with its tables and book read, before the clock runs."""
    engine = Engine(rules, egdb=None if args.no_tables else _tables(rules))
    if engine.native is not None and engine.egdb is not None:
        native.probe_of(engine.egdb)  # the core's probe of the tables, made before the clock runs
    if not args.no_book and (position.black | position.white).bit_count() >= 16:
        engine.masters.moves(position)  # the book read (15-20 ms) before the clock runs
    return engine


def _search_time(args: argparse.Namespace, startup: float) -> float:
    """The milliseconds the searches share (0 with --depth)."""
    if args.depth is not None:
        return 0.0
    budget = args.movetime if args.movetime is not None else DEFAULT_MOVETIME_MS
    spent = startup if args.from_start else 0.0
    return max(MIN_SEARCH_MS, budget - spent - EXIT_MARGIN_MS)


def _lines(engine: Engine, game: Game, args: argparse.Namespace, left: float) -> list[dict[str, object]]:
    """The best ``--lines`` moves, each found leaving the ones before out, in the order found."""
    position, history = game.position, game.positions[:-1]
    found: list[Move] = []
    answers: list[dict[str, object]] = []
    for n in range(args.lines):
        # Each further line is the best of the moves not shown yet, in its share of the time.
        if args.depth is not None:
            result = engine.search(position, depth=args.depth, history=history, exclude=found)
        else:
            share = max(MIN_SEARCH_MS, left / (args.lines - n))
            budget = args.movetime if args.movetime is not None else DEFAULT_MOVETIME_MS
            # The hard limit in the same proportion to each line's share as to the whole.
            stretch = None if args.max_movetime is None else share * max(1.0, args.max_movetime / budget)
            book = not args.no_book and args.lines == 1
            result = engine.search(
                position, movetime_ms=share, max_movetime_ms=stretch, history=history, exclude=found, book=book
            )
            left -= result.ms
        if result.move is None and found:
            break  # fewer legal moves than lines asked for
        answers.append(_answer(position, result, game.rules))
        if result.move is None:
            break
        found.append(result.move)
    return answers


def _answer(position: Position, result: SearchResult, rules: Rules) -> dict[str, object]:
    """One line's answer, as printed (JSON)."""
    move = result.move
    return {
        "move": move.pdn() if move is not None else None,
        "path": list(move.path) if move is not None else [],
        "captures": list(move.captures) if move is not None else [],
        "score": result.score,
        "depth": result.depth,
        "nodes": result.nodes,
        "ms": result.ms,
        "meaning": _meaning(result),
        "line": list(line_text(position, result.pv, rules)),
    }


def _print_answers(answers: list[dict[str, object]], lines: int) -> None:
    """One JSON line per answer: the one without its line for ``--lines 1``, else ranked."""
    if lines == 1:
        del answers[0]["line"]
        print(json.dumps(answers[0], separators=(",", ":")))
        return
    # A later search, with the moves shown left out, may see further than the first (the
    # table holds what the first learnt): the lines are ranked by their scores.
    answers.sort(key=lambda a: -int(a["score"]))  # type: ignore[call-overload]
    for rank, answer in enumerate(answers, 1):
        print(json.dumps({**answer, "rank": rank}, separators=(",", ":")))


def run(args: argparse.Namespace) -> int:
    problem = _bad_option(args)
    if problem is not None:
        print(f"crownhead analyse: {problem}", file=sys.stderr)
        return 2
    position = position_from_args(args)
    if position is None:
        return 2
    rules = rules_from_args(args)
    game = _game_after_moves(position, rules, args.moves or "")
    if game is None:
        return 2
    engine = _ready_engine(rules, game.position, args)
    startup = _process_age_ms()  # imports, tables, book: the search can start now
    answers = _lines(engine, game, args, _search_time(args, startup))
    if args.startup:
        for answer in answers:
            answer["startup_ms"] = round(startup)
    _print_answers(answers, args.lines)
    return 0
