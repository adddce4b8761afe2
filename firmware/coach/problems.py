"""Problems to solve: the shipped collections, an attempt judged by the stated result, and
the player's record.

The collections (``firmware/coach/problems/*.pdn``, 1,032 games: 1,024 used, since one
has no pieces and seven state results the endgame tables contradict) are public problem
positions with their stated results, as published in the PDN collection of
github.com/wiegerw/pdn (``games/succeed``): Beginner's problems, Boland's Border Classics
and Bridges, Gem problems, Gould's problems and the LPC problems. Each gives a position
and who wins (or that it is a draw), not the solution: the player plays the winning side
(the side to move of a drawn problem) against the engine defending, and the attempt is
judged by the result:

- a won problem is solved when the defender has no move left, or when the player has
  won material (is further ahead than at the start) and the endgame tables call the
  position won; it fails when the tables call it drawn or lost,
  when the search finds a forced loss for the player, when the game is drawn, or when
  :data:`MOVE_LIMIT` of the player's moves pass without the win;
- a drawn problem is solved when the game is drawn, when the tables call it drawn with
  the material level (or after :data:`HOLD_MOVES` moves held behind), or when the player holds for :data:`MOVE_LIMIT` moves with no loss in sight; it fails when
  the tables or the search see a loss.

>>> problems = collection()
>>> len(problems), problems[0].id, problems[0].difficulty
(1024, 'beginner-1', 1)
>>> problems[0].player.name, problems[0].goal
('WHITE', 'win')
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from crownhead.firmware.files import RECORD_LIMIT, FileRefused, atomic_write, move_aside, parse_json, read_text
from crownhead.rules import Game, Position
from crownhead.rules.engine import WIN_THRESHOLD, Engine
from crownhead.rules.engine.egdb import EndgameProbe, EndgameTables
from crownhead.rules.game import DRAW
from crownhead.rules.move import Move
from crownhead.rules.pdn import PdnGame, move_text, read_games
from crownhead.rules.position import Color
from crownhead.rules.settings import WCDF

#: The collections, easiest first: (file stem, name).
COLLECTIONS = (
    ("beginner", "Beginner's problems"),
    ("gem", "Gem problems"),
    ("goulds", "Gould's problems"),
    ("lpc", "LPC problems"),
    ("borderclassics", "Boland's Border Classics"),
    ("bridges", "Boland's Bridges"),
)
#: The player's moves an attempt may take before it is judged.
MOVE_LIMIT = 20
#: A draw the tables confirm, held this many moves by a player behind in material, is solved.
HOLD_MOVES = 5
#: Problems whose stated result the endgame tables contradict (exact: every position of up
#: to six pieces); left out. tests/test_coach_problems.py checks this list against the tables.
CONTRADICTED = frozenset(
    ("gem-107", "gem-108", "gem-144", "goulds-30", "goulds-97", "goulds-197", "borderclassics-b-5")
)
#: Positions the defender searches for each reply (the same replies on any machine).
DEFEND_NODES = 20_000
#: Positions a hint searches.
HINT_NODES = 40_000
#: Difficulty 1 (easiest) to 5.
LEVELS = range(1, 6)


def _difficulty(collection: str, pieces: int) -> int:
    """1 for the beginner's collection; else by the pieces on the board (more pieces,
    longer and less forced lines): up to 5 pieces 2, 6-7 3, 8-9 4, 10 or more 5."""
    if collection == "beginner":
        return 1
    if pieces <= 5:
        return 2
    if pieces <= 7:
        return 3
    return 4 if pieces <= 9 else 5


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: a position and its stated result."""

    id: str
    collection: str
    title: str
    start: Position
    #: The stated result, as PDN writes it (``1-0`` Black wins).
    result: str
    difficulty: int

    @property
    def goal(self) -> str:
        """``win`` or ``draw``: what the player must reach."""
        return "draw" if self.result == DRAW else "win"

    @property
    def player(self) -> Color:
        """The side the player takes: the winner, or the side to move of a drawn problem."""
        if self.result == DRAW:
            return self.start.turn
        return Color.BLACK if self.result == "1-0" else Color.WHITE

    @property
    def task(self) -> str:
        """What the stated result asks: ``White to play and win``, ``Black to play; White draws``."""
        mover = "Black" if self.start.turn is Color.BLACK else "White"
        side = "Black" if self.player is Color.BLACK else "White"
        if self.player is self.start.turn:
            return f"{side} to play and {self.goal}"
        return f"{mover} to play; {side} {'draws' if self.goal == 'draw' else 'wins'}"

    @property
    def collection_name(self) -> str:
        """The collection's name: ``Gem problems``."""
        return dict(COLLECTIONS).get(self.collection, self.collection)

    def describe(self) -> str:
        """``Gem problems #12: White to play and win (difficulty 2)``."""
        return f"{self.title}: {self.task} (difficulty {self.difficulty})"


_NUMBER = re.compile(r"#\s*([A-Za-z0-9-]{1,12})\s*$")


def shipped() -> Iterator[tuple[str, str, PdnGame]]:
    """Every game of the shipped collections with its id and title, none left out: the
    id is the collection and the problem's number in its title (``gem-12``,
    ``borderclassics-a-1``), else its place in the file."""
    folder = resources.files("crownhead.firmware.coach") / "problems"
    for stem, name in COLLECTIONS:
        seen: set[str] = set()
        text = (folder / f"{stem}.pdn").read_text(encoding="utf-8")
        for n, game in enumerate(read_games(text, f"{stem}.pdn"), 1):
            title = game.tags.get("Event") or f"{name} #{n}"
            found = _NUMBER.search(title)
            pid = f"{stem}-{found.group(1).lower() if found else n}"
            if pid in seen:
                pid = f"{stem}-{n}"
            seen.add(pid)
            yield pid, title, game


@cache
def collection() -> tuple[Problem, ...]:
    """Every shipped problem, collection by collection in :data:`COLLECTIONS` order."""
    out: list[Problem] = []
    for pid, title, game in shipped():
        if game.error is not None or game.result not in ("1-0", "0-1", DRAW) or pid in CONTRADICTED:
            continue
        pieces = (game.start.black | game.start.white).bit_count()
        if pieces < 2:
            continue
        stem = pid.split("-", 1)[0]
        out.append(Problem(pid, stem, title, game.start, game.result, _difficulty(stem, pieces)))
    return tuple(out)


def problem(problem_id: str) -> Problem:
    """A shipped problem by id (``gem-12``); ``KeyError`` naming it when there is none."""
    for p in collection():
        if p.id == problem_id:
            return p
    raise KeyError(f"no problem {problem_id!r} (ids are like beginner-1 or gem-12: see crownhead problems list)")


# -- an attempt --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """Where an attempt stands: ``playing``, ``solved`` or ``failed``, and why."""

    status: str
    reason: str = ""
    #: What the position is for the player when judged: ``win``, ``draw`` or ``loss``.
    outcome: str = "draw"

    @property
    def over(self) -> bool:
        return self.status != "playing"


PLAYING = Verdict("playing")


class Attempt:
    """One try at a problem: the player's moves, the engine's replies, the verdict.

    The engine defends (:meth:`defend`) whenever the defender is to move, the player's
    moves come through :meth:`play`; each is judged as it is made.
    """

    def __init__(
        self,
        problem: Problem,
        *,
        probe: EndgameProbe | None = None,
        engine: Engine | None = None,
        defend_nodes: int = DEFEND_NODES,
        move_limit: int = MOVE_LIMIT,
    ) -> None:
        self.problem = problem
        self.probe = probe
        self.engine = engine if engine is not None else Engine(WCDF, egdb=probe)
        self.defend_nodes = defend_nodes
        self.move_limit = move_limit
        self.game = Game(problem.start, WCDF)
        self.player_moves = 0
        self.verdict = PLAYING
        self.hints = 0
        # The player's lead at the start: a problem whose side is ahead already is not
        # solved by standing still (nor by the defender's first move).
        self._start_lead = self._material_lead()

    @property
    def player_to_move(self) -> bool:
        return not self.verdict.over and self.game.position.turn is self.problem.player

    def play(self, move: Move) -> Verdict:
        """The player's move (legal, the player's turn); the verdict after it."""
        if not self.player_to_move:
            raise ValueError("it is not the player's turn" if not self.verdict.over else "the attempt is over")
        if move not in self.game.legal_moves():
            raise ValueError(f"{move} is not a legal move here")
        self.game.play(move)
        self.player_moves += 1
        self.verdict = self._judge()
        return self.verdict

    def defend(self) -> Move | None:
        """The engine's reply for the defender, played (None when the attempt is over)."""
        if self.verdict.over or self.player_to_move:
            return None
        result = self.engine.search(self.game.position, nodes=self.defend_nodes, history=self.game.positions[:-1])
        if result.move is None:
            self.verdict = self._judge()
            return None
        self.game.play(result.move)
        self.verdict = self._judge(defender_score=result.score)
        return result.move

    def follow(self, moves: Iterable[Move]) -> Verdict:
        """Judge the game played elsewhere (on the board, the machine defending there):
        ``moves`` are all its moves from the problem's position."""
        if self.verdict.over:
            return self.verdict
        game = Game(self.problem.start, WCDF)
        player_moves = 0
        for move in moves:
            if game.position.turn is self.problem.player:
                player_moves += 1
            game.play(move)
        self.game, self.player_moves = game, player_moves
        self.verdict = self._judge()
        return self.verdict

    def hint(self, nodes: int = HINT_NODES) -> Move | None:
        """The engine's move for the player (counted: a record can tell solved with hints)."""
        if not self.player_to_move:
            return None
        self.hints += 1
        return self.engine.search(self.game.position, nodes=nodes, history=self.game.positions[:-1]).move

    def _tables(self) -> str | None:
        """The tables' verdict for the player in the current position, when covered."""
        if not isinstance(self.probe, EndgameTables):
            return None
        found = self.probe.probe_position(self.game.position)
        if found is None:
            return None
        word = found[0]
        if self.game.position.turn is not self.problem.player:
            word = {"win": "loss", "loss": "win", "draw": "draw"}[word]
        return word

    def _judge(self, defender_score: int | None = None) -> Verdict:
        goal = self.problem.goal
        result = self.game.result
        if result is None and self.game.draw_claim() is not None:
            # A draw the side to move could claim: the game would end here.
            return Verdict("solved", "the game is drawn") if goal == "draw" else Verdict("failed", "the game is drawn")
        if result is not None:
            if result.winner is self.problem.player:
                return Verdict("solved", "the defender has no move left", "win")
            if result.winner is None:
                return Verdict("solved" if goal == "draw" else "failed", "the game is drawn")
            return Verdict("failed", "the game is lost", "loss")
        tables = self._tables()
        if tables is not None:
            if tables == "loss":
                return Verdict("failed", "the tables say the position is lost", "loss")
            if goal == "win" and tables != "win":
                return Verdict("failed", "the win has gone: the tables say it is a draw")
            # A won (or held) position is not yet a solved problem: most problems stand in
            # the tables from the start. Solved once the point has been made: material won
            # (or kept level in a draw), or a draw held for HOLD_MOVES moves.
            ahead = self._material_lead()
            if goal == "win" and ahead > max(self._start_lead, 0):
                return Verdict("solved", "material won, and the tables say the position is won", "win")
            if goal == "draw" and (ahead >= 0 or self.player_moves >= HOLD_MOVES):
                return Verdict("solved", "the tables say the position is drawn")
        if defender_score is not None and defender_score > WIN_THRESHOLD:
            return Verdict("failed", "the defender has a forced win", "loss")
        if self.player_moves >= self.move_limit and not self.player_to_move:
            if goal == "draw":
                return Verdict("solved", f"held for {self.move_limit} moves")
            return Verdict("failed", f"not won in {self.move_limit} moves")
        return PLAYING

    def _material_lead(self) -> int:
        """The player's pieces less the defender's (a king counts as one: the tables
        judge whether it wins, this only whether something was won)."""
        position = self.game.position
        own, other = (position.black, position.white)
        if self.problem.player is Color.WHITE:
            own, other = other, own
        return own.bit_count() - other.bit_count()

    def moves_text(self) -> str:
        """The moves so far, in PDN."""
        out = []
        for position, move in zip(self.game.positions, self.game.moves):
            out.append(move_text(position, move, WCDF))
        return " ".join(out)


# -- the record --------------------------------------------------------------------------

#: The record's file in the state directory.
RECORD_FILE = "problems.json"
#: What a problem solved with hints is worth, said with its verdict.
HELPED = "Solved with the engine's help: not counted as solved, and the streak stays."


def verdict_word(solved: bool, hints: int) -> str:
    """``Solved``, ``Solved with 2 hints`` or ``Not solved``.

    >>> verdict_word(True, 0), verdict_word(True, 1), verdict_word(False, 3)
    ('Solved', 'Solved with 1 hint', 'Not solved')
    """
    if not solved:
        return "Not solved"
    if hints:
        return f"Solved with {hints} hint{'s' if hints > 1 else ''}"
    return "Solved"


#: Solved in a row at the player's level to move up a level, failed in a row to move down.
UP_AFTER, DOWN_AFTER = 3, 2


@dataclass
class Record:
    """The player's record: the level, the streak, what was solved, per difficulty."""

    level: int = 1
    streak: int = 0
    best_streak: int = 0
    #: Solved (or failed) in a row at the current level, for moving up (or down).
    run: int = 0
    solved: set[str] = field(default_factory=set)
    tried: dict[int, int] = field(default_factory=lambda: {n: 0 for n in LEVELS})
    wins: dict[int, int] = field(default_factory=lambda: {n: 0 for n in LEVELS})

    def add(self, problem: Problem, solved: bool, hints: int = 0) -> None:
        """Count an attempt, and move the level up or down as the run says. A problem
        solved with ``hints`` is tried, not solved: the engine found the moves, so it
        neither extends the streak nor moves the level (nor breaks them), and it is
        offered again to be solved alone."""
        self.tried[problem.difficulty] += 1
        if solved and hints:
            return
        if solved:
            self.wins[problem.difficulty] += 1
            self.solved.add(problem.id)
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
            self.run = max(self.run, 0) + 1
            if self.run >= UP_AFTER and self.level < max(LEVELS):
                self.level, self.run = self.level + 1, 0
        else:
            self.streak = 0
            self.run = min(self.run, 0) - 1
            if -self.run >= DOWN_AFTER and self.level > min(LEVELS):
                self.level, self.run = self.level - 1, 0

    def next_problem(self, problems: Iterable[Problem] | None = None, seed: int | None = None) -> Problem:
        """A problem at the player's level not solved yet (any at that level once all are),
        the first in collection order, or a random one with ``seed``."""
        pool = [p for p in (problems if problems is not None else collection()) if p.difficulty == self.level]
        fresh = [p for p in pool if p.id not in self.solved] or pool
        if not fresh:
            raise LookupError(f"no problem of difficulty {self.level}")
        return fresh[0] if seed is None else random.Random(seed).choice(fresh)

    def to_json(self) -> str:
        return json.dumps(
            {
                "level": self.level,
                "streak": self.streak,
                "best_streak": self.best_streak,
                "run": self.run,
                "solved": sorted(self.solved),
                "tried": {str(k): v for k, v in self.tried.items()},
                "solved_by_level": {str(k): v for k, v in self.wins.items()},
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str, where: str) -> Record:
        """A record read back; ``ValueError`` naming the file and the key when it is wrong."""
        try:
            data = parse_json(text)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{where}: not a record (a JSON object)")

        def number(key: str, low: int, high: int) -> int:
            value = data.get(key, low)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ValueError(f"{where}: {key} must be a whole number from {low} to {high}, not {value!r}")
            return value

        def counts(key: str) -> dict[int, int]:
            value = data.get(key, {})
            if not isinstance(value, dict):
                raise ValueError(f"{where}: {key} must map a difficulty to a count")
            out = {n: 0 for n in LEVELS}
            for k, v in value.items():
                if k not in {str(n) for n in LEVELS} or not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    raise ValueError(f"{where}: {key}: {k!r}: {v!r} is no difficulty and count")
                out[int(k)] = v
            return out

        solved = data.get("solved", [])
        if not isinstance(solved, list) or not all(isinstance(s, str) and len(s) < 64 for s in solved):
            raise ValueError(f"{where}: solved must be a list of problem ids")
        return cls(
            level=number("level", min(LEVELS), max(LEVELS)),
            streak=number("streak", 0, 1 << 30),
            best_streak=number("best_streak", 0, 1 << 30),
            run=number("run", -(1 << 30), 1 << 30),
            solved=set(solved),
            tried=counts("tried"),
            wins=counts("solved_by_level"),
        )


def load_record(state_dir: Path) -> tuple[Record, str | None]:
    """The record kept in ``state_dir`` (a new one when there is none), and a warning when
    the file could not be read: it is then set aside (``*.bad``) and a new record begun,
    so a damaged file never stops the problems."""
    path = state_dir / RECORD_FILE
    if not path.exists():
        return Record(), None
    try:
        return Record.from_json(read_text(path, RECORD_LIMIT), str(path)), None
    except (ValueError, FileRefused, OSError) as exc:
        problem = str(exc)
    try:
        kept = move_aside(path)
    except OSError as exc:
        return Record(), f"{problem}; it could not be set aside ({exc.strerror or exc}): a new record is used"
    return Record(), f"{problem}; set aside as {kept.name}, a new record begun"


def save_record(state_dir: Path, record: Record) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(state_dir / RECORD_FILE, record.to_json() + "\n")


__all__ = [
    "COLLECTIONS",
    "HELPED",
    "Attempt",
    "MOVE_LIMIT",
    "Problem",
    "Record",
    "Verdict",
    "collection",
    "load_record",
    "problem",
    "save_record",
    "verdict_word",
]
