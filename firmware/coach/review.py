"""A finished game reviewed move by move: what each move cost, and the better move.

Each position of the game is searched twice at most: before the move (the best move and
its score) and, when another move was played, after it (the played move's score). Both
scores are turned into the mover's *expected result* (:func:`expectation`: 1 a win, 0.5
a draw, 0 a loss), and a move's cost is how much of it the move gave away. Scores in
centi-men mean different things at different sizes (a man up early is not a man up in an
ending), and expectations do not: a move from +900 to +700 keeps a won game and costs
next to nothing, one from +100 to -100 costs a quarter of a point.

Where the endgame tables cover both positions, they decide instead: a won position
turned into a draw, or a drawn one into a loss, is a blunder whatever the search says,
and a move that is the only one keeping a win (or a draw) is marked good, since the
tables can say so of every move at once.

The searches are limited by nodes, not time, so a review gives the same marks on a Pi as
on a desktop, loaded or not (as the referee's rulings never depend on speed).

>>> from crownhead.rules import WCDF, Game, Position
>>> game = Game(Position.start(), WCDF)
>>> for text in ("11-15", "23-19", "8-11", "22-17"):
...     _ = game.play_text(text)
>>> review = review_game(game, nodes=400)
>>> [ply.move for ply in review.plies]
['11-15', '23-19', '8-11', '22-17']
>>> review.plies[0].side, review.plies[1].side
('black', 'white')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from crownhead.rules import Game, Position
from crownhead.rules.engine import WIN_THRESHOLD, Engine
from crownhead.rules.engine.egdb import EndgameProbe, EndgameTables
from crownhead.rules.move import Move
from crownhead.rules.pdn import RESULTS, UNFINISHED, PdnExporter, line_text, move_text
from crownhead.rules.position import Color
from crownhead.rules.settings import Rules

#: Positions searched for each score when no limit is given: a few ms of the native core
#: (about 0.2 s of the pure-Python search) here; the same marks wherever it runs.
DEFAULT_NODES = 20_000

#: How many centi-men make the expected result move from 0.5 to about 0.73: a man up in
#: a middle game wins about three games in four, but is no certain win.
SCALE = 100.0

#: Plies of the better line kept: enough to show why, short enough to read.
LINE_PLIES = 8

#: Costs, in expected result given away, that earn a mark. A blunder gives away about a
#: quarter of a point (a level game to a lost one's side of even), a mistake an eighth.
BLUNDER, MISTAKE, DUBIOUS = 0.25, 0.12, 0.06


class Mark(Enum):
    """A move's mark, as PDN writes it after the move (and its NAG number)."""

    BLUNDER = "??"
    MISTAKE = "?"
    DUBIOUS = "?!"
    GOOD = "!"

    @property
    def nag(self) -> int:
        """The standard annotation glyph's number ($1 good ... $6 dubious)."""
        return {"!": 1, "?": 2, "??": 4, "?!": 6}[self.value]

    @property
    def word(self) -> str:
        return {"??": "blunder", "?": "mistake", "?!": "dubious", "!": "good move"}[self.value]


def expectation(score: int) -> float:
    """The expected result for the side a score is for: 1 a win, 0 a loss.

    >>> expectation(0)
    0.5
    >>> round(expectation(100), 2), round(expectation(-300), 2)
    (0.73, 0.05)
    >>> expectation(9_990), expectation(-9_990)
    (1.0, 0.0)
    """
    if score > WIN_THRESHOLD:
        return 1.0
    if score < -WIN_THRESHOLD:
        return 0.0
    return 1.0 / (1.0 + math.exp(-score / SCALE))


#: The tables' verdicts for the side to move, in the order a player prefers them.
_VERDICT_VALUE = {"loss": 0.0, "draw": 0.5, "win": 1.0}
_OTHER_SIDE = {"win": "loss", "loss": "win", "draw": "draw"}


@dataclass(frozen=True, slots=True)
class PlyReview:
    """One move of the game, as the review saw it.

    Scores are from the mover's view, in centi-men (``WIN - n``: a win in n plies).
    ``verdict`` and ``verdict_after`` are the tables' word on the position before the move
    and after it, both for the mover (``win``, ``draw``, ``loss``), when they cover both.
    """

    ply: int
    #: The move number as PDN and the sheets count it: Black's move and White's reply
    #: share one (a game that starts with White to move starts with ``1... 15-10``).
    number: int
    side: str
    move: str
    score: int
    best: str
    best_score: int
    line: tuple[str, ...]
    cost: float
    mark: Mark | None
    verdict: str | None = None
    verdict_after: str | None = None

    @property
    def numbered(self) -> str:
        """The move as a PDN move list writes it: ``3. 12-16`` for Black, ``3... 19x12`` for White."""
        return f"{self.number}{'.' if self.side == 'black' else '...'} {self.move}"

    def explain(self) -> str:
        """The review's word on this move, for a PDN comment or the page.

        >>> PlyReview(5, 3, "black", "9-14", -180, "10-15", 20, ("10-15", "22-17"), 0.31,
        ...           Mark.BLUNDER).explain()
        'Blunder (costs 0.31): 10-15 was better (10-15 22-17)'
        """
        if self.mark is None:
            return ""
        if self.mark is Mark.GOOD:
            return f"The only move that keeps the {self.verdict}: the tables say so"
        head = f"{self.mark.word.capitalize()} (costs {self.cost:.2f})"
        if self.verdict is not None and self.verdict_after is not None and self.verdict != self.verdict_after:
            head = (
                f"{self.mark.word.capitalize()}: turns the {self.verdict} into a {self.verdict_after}, the tables say"
            )
        if self.best == self.move:
            return head
        return f"{head}: {self.best} was better ({' '.join(self.line)})"

    def to_json(self) -> dict[str, object]:
        return {
            "ply": self.ply,
            "number": self.number,
            "side": self.side,
            "move": self.move,
            "score": self.score,
            "best": self.best,
            "best_score": self.best_score,
            "line": list(self.line),
            "cost": round(self.cost, 3),
            "mark": self.mark.value if self.mark is not None else None,
            "tables": self.verdict,
            "tables_after": self.verdict_after,
            "comment": self.explain() or None,
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A whole game reviewed: one :class:`PlyReview` a move played."""

    start: Position
    rules: Rules
    moves: tuple[Move, ...]
    plies: tuple[PlyReview, ...]
    nodes: int
    tags: dict[str, str] = field(default_factory=dict)

    def marked(self, *marks: Mark) -> list[PlyReview]:
        """The plies with one of ``marks`` (every marked ply without)."""
        return [p for p in self.plies if p.mark is not None and (not marks or p.mark in marks)]

    def summary(self) -> dict[str, dict[str, int]]:
        """Each side's count of every mark."""
        out: dict[str, dict[str, int]] = {side: {m.word: 0 for m in Mark} for side in ("black", "white")}
        for p in self.plies:
            if p.mark is not None:
                out[p.side][p.mark.word] += 1
        return out

    def comments(self) -> dict[int, str]:
        """PDN comments by ply (after the move) for the marked moves."""
        return {p.ply: p.explain() for p in self.plies if p.mark is not None}

    def marks(self) -> dict[int, str]:
        """The marks by ply, as PDN writes them after the move (``?``, ``??``, ``!``)."""
        return {p.ply: p.mark.value for p in self.plies if p.mark is not None}

    def pdn(self) -> str:
        """The game as PDN with the review in it: each marked move's mark on the move
        (``12-16??``) and the review's words in a comment after it.

        >>> from crownhead.rules import WCDF, Game, Position
        >>> game = Game(Position.start(), WCDF)
        >>> for text in ("11-15", "23-19", "8-11", "22-17", "12-16", "19x12"):
        ...     _ = game.play_text(text)
        >>> text = review_game(game, nodes=400, tags={"Black": "Ann"}).pdn()
        >>> print(text[text.index("1. "):])  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
        1. 11-15 23-19 2. 8-11 22-17 3. 12-16?? {Blunder (costs ...): ... was better (...)} 3... 19x12 *
        """
        out = PdnExporter(self.start, self.rules)
        tags = {**self.tags, "Annotator": f"crownhead review, {self.nodes} nodes a position"}
        result = tags.get("Result", UNFINISHED)
        out.visit_tags(tags, result if result in RESULTS else UNFINISHED)
        position = self.start
        reviewed = {p.ply: p for p in self.plies}
        for ply, move in enumerate(self.moves, 1):
            out.visit_move(position, move)
            position = position.apply(move, self.rules)
            seen = reviewed.get(ply)
            if seen is not None and seen.mark is not None:
                out.visit_nag(seen.mark.value)
                out.visit_comment(seen.explain())
        out.visit_result(result if result in RESULTS else UNFINISHED)
        return out.text()

    def to_json(self) -> dict[str, object]:
        return {
            "start": self.start.fen(),
            "nodes": self.nodes,
            "tags": self.tags,
            "summary": self.summary(),
            "plies": [p.to_json() for p in self.plies],
        }


def _mark(cost: float) -> Mark | None:
    if cost >= BLUNDER:
        return Mark.BLUNDER
    if cost >= MISTAKE:
        return Mark.MISTAKE
    if cost >= DUBIOUS:
        return Mark.DUBIOUS
    return None


def _verdict(probe: EndgameProbe | None, position: Position) -> str | None:
    """The tables' word for the side to move of ``position``, when they cover it."""
    if not isinstance(probe, EndgameTables):
        return None
    found = probe.probe_position(position)
    return found[0] if found is not None else None


def _only_keeper(probe: EndgameProbe | None, position: Position, played: Move, rules: Rules) -> bool:
    """Whether ``played`` is the only move of ``position`` that keeps the tables'
    verdict (a win, or a draw), with other moves to choose from."""
    verdict = _verdict(probe, position)
    moves = position.legal_moves(rules)
    if verdict not in ("win", "draw") or len(moves) < 2:
        return False
    keeping = 0
    for move in moves:
        after = _verdict(probe, position.apply(move, rules))
        if after is None:
            return False
        if _OTHER_SIDE[after] == verdict:
            keeping += 1
            if move != played:
                return False
    return keeping == 1


Progress = Callable[[int, int], None]


def review_game(
    game: Game,
    *,
    engine: Engine | None = None,
    nodes: int = DEFAULT_NODES,
    probe: EndgameProbe | None = None,
    tags: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> Review:
    """Review every move of ``game`` (see the module's docstring).

    ``engine`` searches (one is made for the game's rules when not given, probing
    ``probe``); ``nodes`` limits each search; ``progress(done, total)`` is called after
    each move.
    """
    rules = game.rules
    if engine is None:
        engine = Engine(rules, egdb=probe)
    if probe is None:
        probe = engine.egdb
    positions: Sequence[Position] = game.positions
    moves = tuple(game.moves)
    plies: list[PlyReview] = []
    # With White to move first, White's move is move 1 and Black's reply starts move 2.
    white_first = game.start.turn is Color.WHITE
    for i, played in enumerate(moves):
        before, after = positions[i], positions[i + 1]
        history = list(positions[:i])
        best = engine.search(before, nodes=nodes, history=history)
        if best.move is None:
            break  # a move played from a lost position cannot be reviewed: none is legal
        if best.move == played:
            played_score = best.score
        else:
            reply = engine.search(after, nodes=nodes, history=[*history, before])
            played_score = -reply.score
        # A search limited by nodes sees less than the tables: never score the played
        # move above the best found, so that a deeper look after the move is no "gain".
        best_score = max(best.score, played_score)
        cost = max(0.0, expectation(best_score) - expectation(played_score))
        mark = _mark(cost)
        verdict = _verdict(probe, before)
        after_verdict = _verdict(probe, after)
        verdict_after = _OTHER_SIDE[after_verdict] if after_verdict is not None else None
        if verdict is not None and verdict_after is not None:
            # The tables know: a result given away is a blunder, anything else is none.
            thrown = _VERDICT_VALUE[verdict] - _VERDICT_VALUE[verdict_after]
            cost = thrown
            mark = Mark.BLUNDER if thrown > 0 else None
            if mark is None and _only_keeper(probe, before, played, rules):
                mark = Mark.GOOD
        texts = line_text(before, (best.pv if best.pv else (best.move,))[:LINE_PLIES], rules)
        plies.append(
            PlyReview(
                ply=i + 1,
                number=(i + 2 + white_first) // 2,
                side="black" if before.turn is Color.BLACK else "white",
                move=move_text(before, played, rules),
                score=played_score,
                best=move_text(before, best.move, rules),
                best_score=best_score,
                line=texts,
                cost=cost,
                mark=mark,
                verdict=verdict,
                verdict_after=verdict_after,
            )
        )
        if progress is not None:
            progress(i + 1, len(moves))
    return Review(game.start, rules, moves, tuple(plies), nodes, dict(tags or {}))


__all__ = [
    "BLUNDER",
    "DEFAULT_NODES",
    "DUBIOUS",
    "MISTAKE",
    "Mark",
    "PlyReview",
    "Review",
    "expectation",
    "review_game",
]
