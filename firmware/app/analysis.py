"""The engine's live analysis of the position on the board: its score, in words, its
depth and the line it expects, deepened while the position stands.

:class:`Analyst` searches out of the main loop, in one worker thread it keeps for the
board's life, as the machine's and the hint's searches run (the native search core walks
its tree without the interpreter's lock, so the main loop runs on beside it). The main
loop only says which position stands (:meth:`Analyst.follow`, a comparison per step) and
takes the newest result (:meth:`Analyst.latest`). A new position cancels the search of the
old one at once: the search's clock is the analyst's, and it tells a cancelled search
that its time is up, so the tree unwinds within a few hundred positions.

Each position is searched one depth after the other (the table keeps what each depth
learnt, so a depth costs little more than it would inside one search) up to a number of
positions (``nodes``), not a time: the same depths and lines on a Pi as on a desktop,
loaded or not, only later. Where the endgame tables cover the position, their verdict
comes first, before any search.

>>> from crownhead.rules import WCDF, Game
>>> analyst = Analyst(background=False, nodes=3_000)
>>> analyst.follow(Game(None, WCDF))
>>> found = analyst.latest()
>>> found.ply, found.depth > 0, found.done, found.line[0] in ("9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16")
(0, True, True, True)
>>> analyst.close()
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crownhead.firmware.app.settings import ANALYSIS_NODES
from crownhead.firmware.coach.review import expectation
from crownhead.rules import Color, Game, Position, Rules
from crownhead.rules.engine import WIN, WIN_THRESHOLD, Engine, score_meaning
from crownhead.rules.engine.egdb import EndgameProbe, EndgameTables
from crownhead.rules.engine.search import TABLE_WIN
from crownhead.rules.pdn import line_text

__all__ = ["Analysis", "Analyst", "DEFAULT_NODES", "MAX_DEPTH"]

log = logging.getLogger(__name__)

#: Positions searched for one position on the board at most (then the analysis stands
#: until the next move): see :data:`crownhead.firmware.app.settings.ANALYSIS_NODES`.
DEFAULT_NODES = ANALYSIS_NODES
#: How many times fewer positions the pure-Python search (no C compiler at install) is
#: given: about as long as the native core takes for its own, since it is that much
#: slower and holds the interpreter's lock meanwhile (the main loop waits for it at times).
PYTHON_SHARE = 40
#: The deepest it goes (a won ending seen to its end stops sooner).
MAX_DEPTH = 40
#: Plies of the expected line shown.
LINE_PLIES = 12
#: What the analyst's clock says to a cancelled search: past its deadline (:data:`_DEADLINE`).
_STOPPED, _DEADLINE = 2.0, 1.0


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the analysis of one position found so far.

    ``score`` is from the side to move's view in centi-men (``WIN - n``: a win in n
    plies); ``depth`` the last depth searched to its end (0: only the tables' verdict
    yet); ``line`` the expected line in PDN; ``tables`` the endgame tables' verdict for
    the side to move (``win``, ``draw``, ``loss``) and ``tables_plies`` its distance
    (None unknown), when they cover the position; ``done``: nothing more will come for
    this position.
    """

    ply: int
    position: Position
    depth: int
    score: int
    line: tuple[str, ...] = ()
    nodes: int = 0
    tables: str | None = None
    tables_plies: int | None = None
    done: bool = False
    #: Numbered by the analyst: a later analysis has a higher number.
    serial: int = field(default=0, compare=False)

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def verdict_score(self) -> int | None:
        """The tables' verdict as a score for the side to move (None: not covered)."""
        if self.tables is None:
            return None
        if self.tables == "draw":
            return 0
        magnitude = WIN - self.tables_plies if self.tables_plies is not None else TABLE_WIN
        return magnitude if self.tables == "win" else -magnitude

    @property
    def words(self) -> str:
        """The position in words, naming the side better placed ("Black is a man up",
        "White wins: the tables say so")."""
        verdict = self.verdict_score
        if verdict is not None:
            return score_meaning(verdict, self.turn, tables=True)
        return score_meaning(self.score, self.turn)

    @property
    def black_expects(self) -> float:
        """Black's expected result, 0 (a loss) to 1 (a win), as the review counts it
        (:func:`crownhead.firmware.coach.review.expectation`): what the page's bar shows."""
        verdict = self.verdict_score
        score = verdict if verdict is not None else self.score
        mine = expectation(score)
        return mine if self.turn is Color.BLACK else 1.0 - mine

    @property
    def brief(self) -> str:
        """In a few characters, for the board's small display: the tables' verdict, or
        the score for Black in men, the depth and the best move (``+0.35 d12 23-19``)."""
        verdict = self.verdict_score
        if verdict is not None:
            if verdict == 0:
                return "A draw"
            plies = self.tables_plies
            within = "" if plies is None else f" in {plies} {'ply' if plies == 1 else 'plies'}"
            return f"{self._better(verdict)} wins{within}"
        black = self.score if self.turn is Color.BLACK else -self.score
        if abs(black) > WIN_THRESHOLD:
            return f"{self._better(self.score)} wins d{self.depth}"
        best = f" {self.line[0]}" if self.line else ""
        return f"{black / 100:+.2f} d{self.depth}{best}"

    def _better(self, score: int) -> str:
        """The side better placed by ``score`` (the side to move's view), as a name."""
        return (self.turn if score > 0 else self.turn.opponent).name.title()

    def to_json(self) -> dict[str, Any]:
        """As the page's ``analysis`` line carries it (scores from Black's view too)."""
        black = self.score if self.turn is Color.BLACK else -self.score
        return {
            "ply": self.ply,
            "fen": self.position.fen(),
            "turn": self.turn.name.lower(),
            "depth": self.depth,
            "score": self.score,
            "black_score": black,
            "black_expects": round(self.black_expects, 3),
            "words": self.words,
            "line": list(self.line),
            "nodes": self.nodes,
            "tables": self.tables,
            "tables_plies": self.tables_plies,
            "done": self.done,
            "serial": self.serial,
        }


@dataclass
class _Job:
    key: tuple[int, Position, Rules]
    history: list[Position]
    cancelled: bool = False


Tables = Callable[[], EndgameProbe | None]


class Analyst:
    """Analyses the position it is told stands (see the module).

    ``background=False`` analyses at once inside :meth:`follow` (tests, scripted runs);
    ``nodes`` bounds each position's search; ``tables`` gives the endgame tables (called
    once, in the worker, when the first position of English checkers is analysed);
    ``wake`` is called from the worker whenever a new result is ready (the board's main
    loop may be asleep until its next deadline).
    """

    def __init__(
        self,
        *,
        background: bool = True,
        nodes: int = DEFAULT_NODES,
        tables: Tables | None = None,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        if nodes < 1:
            raise ValueError(f"the analysis's positions a move must be 1 or more, not {nodes}")
        self.background = background
        self.nodes = nodes
        self.wake = wake
        self._tables = tables
        self._probe: EndgameProbe | None = None
        self._probed = False
        self._engines: dict[Rules, Engine] = {}
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._job: _Job | None = None
        self._running: _Job | None = None
        self._latest: Analysis | None = None
        self._serial = 0
        #: Positions searched in all, by every search (a cancelled one's as far as it went).
        self.searched = 0
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- the main loop's side ------------------------------------------------------------

    def follow(self, game: Game | None) -> None:
        """``game``'s position stands on the board (None: none to analyse: a set-up, a game
        over, analysis off): the search goes on with it, or moves to it."""
        if game is None or game.is_over:
            if self._job is not None:  # most steps, with the analysis off: nothing to do
                self._set(None)
            return
        key = (game.ply, game.position, game.rules)
        job = self._job
        if job is not None and job.key == key:
            return
        self._set(_Job(key, list(game.positions[:-1])))

    def latest(self) -> Analysis | None:
        """The newest result for the position followed, or None (none yet, or none followed)."""
        found = self._latest
        job = self._job
        if found is None or job is None or (found.ply, found.position) != job.key[:2]:
            return None
        return found

    @property
    def busy(self) -> bool:
        """Whether the position followed is still being searched."""
        found = self.latest()
        return self._job is not None and not (found is not None and found.done)

    def close(self) -> None:
        """Stop searching (the board is closing); the worker ends with the search."""
        with self._lock:
            self._closed = True
            if self._job is not None:
                self._job.cancelled = True
            self._job = None
            self._ready.notify_all()

    # -- the search ----------------------------------------------------------------------

    def _set(self, job: _Job | None) -> None:
        with self._lock:
            if self._job is not None:
                self._job.cancelled = True
            self._job = job
            self._latest = None
            if job is None or self._closed:
                return
            if self.background:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._work, name="crownhead-analysis", daemon=True)
                    self._thread.start()
                self._ready.notify_all()
        if not self.background and job is not None:
            self._analyse(job)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._closed and (self._job is None or self._job is self._running):
                    self._ready.wait()
                if self._closed:
                    return
                job = self._running = self._job
            assert job is not None
            try:
                self._analyse(job)
            except Exception:  # noqa: BLE001 - an engine bug must not end the analysis
                log.exception("analysis of %s failed", job.key[1].fen())

    def _clock(self) -> float:
        """The searches' clock: past the deadline once their position is no longer followed
        (the search reads it every 128 positions)."""
        running = self._running
        return _STOPPED if self._closed or (running is not None and running.cancelled) else 0.0

    def _engine(self, rules: Rules) -> Engine:
        engine = self._engines.get(rules)
        if engine is None:
            if not self._probed and self._tables is not None:
                self._probed = True
                try:
                    self._probe = self._tables()
                except Exception:  # noqa: BLE001 - the analysis goes on without the tables
                    log.exception("analysis: the endgame tables could not be opened")
            # The tables are solved under English rules only (the engine probes them
            # under those alone).
            engine = self._engines[rules] = Engine(rules, clock=self._clock, egdb=self._probe)
        return engine

    def _publish(self, job: _Job, **found: Any) -> bool:
        """A new result for ``job``; False (nothing kept) when it was cancelled meanwhile."""
        with self._lock:
            if job.cancelled or self._job is not job:
                return False
            self._serial += 1
            ply, position, _rules = job.key
            self._latest = Analysis(ply, position, serial=self._serial, **found)
        try:
            self.wake()
        except Exception:  # noqa: BLE001 - the loop wakes at its next deadline anyway
            pass
        return True

    def _endgame(self, job: _Job, engine: Engine) -> dict[str, Any] | None:
        """The endgame tables' verdict on the job's position (empty without one), told at
        once, before any search; None when the job is no longer wanted."""
        ply, position, _rules = job.key
        probe = engine.egdb
        verdict = probe.probe_position(position) if isinstance(probe, EndgameTables) else None
        if verdict is None:
            return {}
        tables: dict[str, Any] = {"tables": verdict[0], "tables_plies": verdict[1] if verdict[1] >= 0 else None}
        score = Analysis(ply, position, 0, 0, **tables).verdict_score or 0
        return tables if self._publish(job, depth=0, score=score, **tables) else None

    def _analyse(self, job: _Job) -> None:
        if not self.background:
            self._running = job
        ply, position, rules = job.key
        engine = self._engine(rules)
        tables = self._endgame(job, engine)
        if tables is None:
            return
        budget = self.nodes if engine.native is not None else max(1, self.nodes // PYTHON_SHARE)
        used = 0
        last: dict[str, Any] | None = None
        for depth in range(1, MAX_DEPTH + 1):
            result = engine.search(
                position, depth=depth, deadline_ms=_DEADLINE, nodes=max(1, budget - used), history=job.history
            )
            used += result.nodes
            self.searched += result.nodes
            if job.cancelled:
                return
            if result.move is None:  # no legal move: the side to move has lost
                self._publish(job, depth=0, score=result.score, done=True, **tables)
                return
            complete = result.depth >= depth
            if complete:
                line = line_text(position, result.pv[:LINE_PLIES], rules)
                last = {"depth": depth, "score": result.score, "line": line, "nodes": used, **tables}
            decided = abs(result.score) > WIN_THRESHOLD and WIN - abs(result.score) <= depth
            finished = not complete or decided or used >= budget or depth == MAX_DEPTH
            if last is None and finished:
                # Not even the first depth within the budget: what it found, as it is.
                line = line_text(position, result.pv[:LINE_PLIES], rules)
                last = {"depth": 0, "score": result.score, "line": line, "nodes": used, **tables}
            if last is not None and (complete or finished):
                if not self._publish(job, done=finished, **last):
                    return
            if finished:
                return
