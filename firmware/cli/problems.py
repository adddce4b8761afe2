"""``crownhead problems``: the shipped problems, played against the engine, with a record.

    $ crownhead problems               # your record and the next problem at your level
    $ crownhead problems list --level 2
    $ crownhead problems play          # the next problem; or `play gem-12`

In ``play`` the player types moves in PDN (``19-16``, ``12x19``), ``h`` for a hint and
``q`` to give up; the engine defends. The record (level, streak, solved by difficulty)
is kept in the state directory as ``problems.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from crownhead.firmware.coach.problems import (
    LEVELS,
    HELPED,
    Attempt,
    Problem,
    Record,
    collection,
    load_record,
    verdict_word,
    problem,
    save_record,
)
from crownhead.firmware.files import default_state_dir, int_argument
from crownhead.rules import IllegalMoveError, Position
from crownhead.rules.pdn import move_text
from crownhead.rules.settings import WCDF


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "problems",
        help="solve the shipped problems against the engine; your record and level",
        description="Problems from public collections, played against the engine defending, "
        "judged by their stated result; the record is kept in the state directory.",
    )
    p.add_argument("--state-dir", metavar="DIR", help="where the record is kept")
    actions = p.add_subparsers(dest="problems_action", metavar="ACTION")
    listing = actions.add_parser("list", help="list the problems (of one difficulty)")
    listing.add_argument("--level", type=int_argument, choices=list(LEVELS), help="only this difficulty")
    play = actions.add_parser("play", help="play a problem in the terminal (the next one at your level)")
    play.add_argument("id", nargs="?", help="a problem's id (see list), e.g. gem-12")
    play.add_argument("--no-tables", action="store_true", help="judge without the endgame tables")
    for action in (listing, play):
        action.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS, help="where the record is kept")
    p.set_defaults(func=run)


def _state(args: argparse.Namespace) -> Path:
    return Path(args.state_dir) if args.state_dir else default_state_dir()


def _record(state: Path) -> Record:
    record, warning = load_record(state)
    if warning:
        print(f"crownhead problems: {warning}", file=sys.stderr)
    return record


def _standing(record: Record) -> str:
    lines = [f"Level {record.level} of {max(LEVELS)}; streak {record.streak} (best {record.best_streak})"]
    for n in LEVELS:
        if record.tried[n]:
            lines.append(f"  difficulty {n}: {record.wins[n]} solved of {record.tried[n]} tried")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    state = _state(args)
    action = getattr(args, "problems_action", None)
    if action == "list":
        for p in collection():
            if args.level is None or p.difficulty == args.level:
                print(f"{p.id:<20} {p.describe()}")
        return 0
    record = _record(state)
    if action == "play":
        try:
            chosen = problem(args.id) if args.id else record.next_problem()
        except KeyError as exc:
            print(f"crownhead problems: {exc.args[0]}", file=sys.stderr)
            return 2
        probe = None
        if not args.no_tables:
            from crownhead.firmware.egdb import EgdbError, load_probe

            try:
                probe = load_probe(skip_damaged=True, state_dir=state)
            except EgdbError as error:
                print(f"crownhead problems: endgame tables not used: {error}", file=sys.stderr)
        attempt = Attempt(chosen, probe=probe)
        solved = play(attempt, sys.stdin, sys.stdout)
        if solved is None:
            return 1
        record.add(chosen, solved, attempt.hints)
        save_record(state, record)
        print(_standing(record))
        return 0 if solved else 1
    print(_standing(record))
    print(f"Next: {record.next_problem().describe()} (crownhead problems play)")
    return 0


def play(attempt: Attempt, given: TextIO, out: TextIO) -> bool | None:
    """Play ``attempt`` with moves read from ``given``: solved (True), failed (False), or
    None when the input ended before the verdict (nothing is recorded)."""
    chosen: Problem = attempt.problem
    print(chosen.describe(), file=out)
    while not attempt.verdict.over:
        if not attempt.player_to_move:
            before = attempt.game.position
            move = attempt.defend()
            if move is not None:
                print(f"The engine plays {move_text(before, move, WCDF)}", file=out)
            continue
        print(numbered_diagram(attempt.game.position), file=out)
        print("Your move (h: hint, q: give up): ", end="", file=out, flush=True)
        line = given.readline()
        if not line:
            print("", file=out)
            return None
        text = line.strip()
        if text == "q":
            print("Given up: counted as not solved.", file=out)
            return False
        if text == "h":
            hint = attempt.hint()
            if hint is not None:
                print(f"Hint: {move_text(attempt.game.position, hint, WCDF)}", file=out)
            continue
        try:
            move = attempt.game.position.parse_move(text, WCDF)
        except (IllegalMoveError, ValueError) as exc:
            print(f"{text}: {exc}", file=out)
            continue
        attempt.play(move)
    verdict = attempt.verdict
    solved = verdict.status == "solved"
    print(f"{verdict_word(solved, attempt.hints)}: {verdict.reason}. Moves: {attempt.moves_text()}", file=out)
    if solved and attempt.hints:
        print(HELPED, file=out)
    return solved


def numbered_diagram(position: Position) -> str:
    """The board from Black's side (square 1 top left) with each dark square's number
    beside what stands on it (``19w``, ``5B``, ``12.``): moves are typed as numbers.

    >>> print(numbered_diagram(Position.from_fen("W:W19:BK5")).splitlines()[1])
      5B      6.      7.      8.
    """
    rows = []
    for row in range(8):
        cells = []
        for col in range(8):
            if (row + col) % 2 == 0:
                cells.append("    ")
                continue
            square = row * 4 + col // 2 + 1
            piece = position.piece_at(square)
            cells.append(f"{square:>3}{piece.symbol if piece else '.'}")
        rows.append("".join(cells).rstrip())
    rows.append(f"{position.turn.name.title()} to move")
    return "\n".join(rows)
