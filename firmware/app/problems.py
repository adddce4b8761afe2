"""Problems on the board (``crownhead run --mode problems``, or the link's and the page's
``problem`` command): each problem set up by the lights, the engine defending, the
attempt judged as it is played, the record kept.

A :class:`ProblemCoach` joins the application as one of its outputs (a
:class:`~crownhead.firmware.app.outputs.Poller`: polled each step, acting through its
commands). While the problem mode is on (:attr:`ProblemCoach.active`) it puts the
board in computer mode with the machine on the defender's side and sets up the problem's
position as a new game (the lights say which squares to fill and to empty, as for any
position). Every move the board accepts is judged by
:class:`~crownhead.firmware.coach.problems.Attempt`; the verdict ends the game (reason
``problem``), is said on the message line and counted in the record (``problems.json``
in the state directory). The ``new`` button then sets up the next problem at the
player's level; ``hint`` lights the engine's move, searched, as the defender's replies
are, to a fixed number of positions (the same hint and the same replies on any machine).

Each step of the mode is told as a :class:`~crownhead.firmware.events.ProblemReport` event (the
problem set up, a hint, the verdict, the mode left), which the link and the pages hear;
:meth:`ProblemCoach.state` is the same for a page that opens meanwhile. A game set up
otherwise (a page's new game, another mode) leaves the mode.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from crownhead.firmware.coach.problems import (
    DEFEND_NODES,
    HELPED,
    HINT_NODES,
    LEVELS,
    Attempt,
    Problem,
    Record,
    load_record,
    problem as find_problem,
    save_record,
    verdict_word,
)
from crownhead.firmware.events import Event, ProblemReport, Side
from crownhead.firmware.app.outputs import O, Poller
from crownhead.firmware.app.players import Computer
from crownhead.hal.buttons import ButtonEvent
from crownhead.rules import Color, Game, Move, Position, Rules
from crownhead.rules.engine import Engine
from crownhead.rules.engine.egdb import EndgameProbe
from crownhead.rules.game import DRAW, win_for
from crownhead.rules.pdn import move_text
from crownhead.rules.settings import WCDF

if TYPE_CHECKING:
    from crownhead.firmware.app.matchplay import MatchPlay
    from crownhead.firmware.app.modes import ModeSeats
    from crownhead.firmware.app.players import Player
    from crownhead.firmware.app.settings import AppSettings
    from crownhead.firmware.tracking.policy import ModePolicy
    from crownhead.hal.clock import Clock

__all__ = ["Coached", "NO_PROBLEMS_FAR", "NO_PROBLEMS_MATCH", "ProblemCoach", "endgame_tables", "searcher"]

log = logging.getLogger(__name__)

#: Why the problem mode does not begin in a game far apart, or during a match.
NO_PROBLEMS_FAR = "no problems in a game far apart: the other board plays this game"
NO_PROBLEMS_MATCH = "a match is under way: a problem would count as one of its games (crownhead match end first)"


def endgame_tables(state_dir: Path | None) -> EndgameProbe | None:
    """The endgame tables that judge the attempts (a build in ``state_dir``, with the
    shipped tables for what it lacks); None without any (a damaged file is left out)."""
    from crownhead.firmware.egdb import EgdbError, load_probe

    try:
        return load_probe(skip_damaged=True, state_dir=state_dir)
    except EgdbError as error:
        log.warning("problems: endgame tables not used: %s", error)
        return None


def searcher(name: str, nodes: int, probe: Callable[[], EndgameProbe | None]) -> Computer:
    """A machine player searching ``nodes`` positions a move under English rules, with the
    tables ``probe`` gives at its first move: the defender
    (:data:`~crownhead.firmware.coach.problems.DEFEND_NODES`) and the hint
    (:data:`~crownhead.firmware.coach.problems.HINT_NODES`), as ``crownhead problems play`` has them."""
    engines: list[Engine] = []
    # A cancelled search cannot be interrupted: the next one waits for it.
    lock = threading.Lock()

    def choose(position: Position, game: Game) -> Move:
        with lock:
            if not engines:
                engines.append(Engine(WCDF, egdb=probe()))
            found = engines[0].search(position, nodes=nodes, history=game.positions[:-1]).move
        assert found is not None  # the player asks only where there is a move
        return found

    return Computer(choose, name)


class Coached(Protocol):
    """What the problem mode needs of the application (:class:`~crownhead.firmware.app.application.App`:
    its hooks and commands), named here so that the commands may make a coach without a
    cycle."""

    problems: ProblemCoach | None
    settings: AppSettings
    matches: MatchPlay
    hint_player: Computer | None

    @property
    def clock(self) -> Clock: ...
    @property
    def started(self) -> bool: ...
    @property
    def resuming(self) -> bool: ...
    @property
    def game(self) -> Game: ...
    @property
    def setting_up(self) -> Position | None: ...
    @property
    def mode(self) -> ModePolicy: ...
    @property
    def hint(self) -> Move | None: ...
    @property
    def players(self) -> Mapping[Color, Player]: ...
    def add_output(self, output: O, *, first: bool = False) -> O: ...
    def give_up_resume(self) -> None: ...
    def new_game(self, position: Position, now: int) -> list[Event]: ...
    def set_rules(self, rules: Rules, now: int | None = None) -> list[Event]: ...
    def set_mode(self, name: str, now: int | None = None, computer: tuple[Color, Player] | None = None) -> None: ...
    def declare(self, score: str, reason: str, now: int) -> list[Event]: ...
    def mode_seats(self) -> ModeSeats: ...
    def return_to(self, before: ModeSeats) -> None: ...
    def say(self, message: str, *, until: int | None = None) -> None: ...


class ProblemCoach:
    """The board's problem mode (see the module)."""

    def __init__(
        self,
        state_dir: Path | None,
        probe: EndgameProbe | None = None,
        first: Problem | None = None,
        defender: Callable[[], Player] | None = None,
        *,
        tables: Callable[[], EndgameProbe | None] | None = None,
        active: bool = True,
    ) -> None:
        """``probe`` judges the attempts, and the defender and the hint search with it (the
        tables may be probed from several threads at once); or ``tables`` reads them when
        the first problem begins. ``defender`` makes the machine that defends each
        problem (default: the engine searching a fixed number of positions). ``active``:
        the first problem (``first``, else the next at the player's level) is set up at the
        first step; otherwise the mode waits for :meth:`start`."""
        self.state_dir = state_dir
        self._defender = defender
        self._probe = probe
        self._tables = tables
        self._probed = probe is not None or tables is None
        self.record, self.warning = load_record(state_dir) if state_dir is not None else (Record(), None)
        self._first = first
        self.attempt: Attempt | None = None
        #: Whether the problem mode is on: the new button gives the next problem.
        self.active = active
        self._app: Coached | None = None
        self._next = active  # a problem is to be set up at the next step
        self._counted = False
        # The hint button was pressed at this ply of the attempt (its move not yet told).
        self._hint_asked: int | None = None
        # The hint player of the board before the mode (given back when it is left).
        self._hinter: tuple[Computer | None] | None = None
        # The mode and seats before the problems, and the defender seated: the next game
        # after the problems is the mode left, unless another was chosen meanwhile.
        self._before: ModeSeats | None = None
        self._defender_seated: Player | None = None
        #: The last report (see :meth:`state`).
        self.last: ProblemReport | None = None

    def attach(self, app: Coached) -> ProblemCoach:
        self._app = app
        app.problems = self
        # Polled every step and told of the presses first; it says when it needs a step
        # (deadline): the simulated board may sleep meanwhile (it wakes).
        app.add_output(Poller(self.source, deadline=self.deadline, on_press=self.on_press, wakes=True))
        return self

    @property
    def probe(self) -> EndgameProbe | None:
        """The tables that judge the attempts (read at the first problem)."""
        if not self._probed:
            self._probed = True
            assert self._tables is not None
            self._probe = self._tables()
        return self._probe

    @property
    def problem(self) -> Problem | None:
        return self.attempt.problem if self.attempt is not None else None

    # -- commands (the link's and the page's ``problem``) ---------------------------------

    def start(self, problem_id: str | None, now: int) -> list[Event]:
        """The problem mode on, with problem ``problem_id`` (None: the next at the player's
        level) set up now; its events. ``KeyError`` for no such problem, ``ValueError``
        naming why the mode cannot begin (a game far apart, a match under way, no engine)."""
        chosen = find_problem(problem_id) if problem_id is not None else None
        app = self._app
        assert app is not None
        if app.settings.far_apart:
            raise ValueError(NO_PROBLEMS_FAR)
        if app.matches.active is not None:
            raise ValueError(NO_PROBLEMS_MATCH)
        self._next = False
        self._first = chosen
        return self._begin(now)

    def stop(self, now: int) -> list[Event]:
        """The problem mode off: the game on the board stays as it is (a game against the
        engine), the new button sets up a new game again; its events."""
        if not self.active:
            return []
        self.active = False
        self._next = False
        self._hint_asked = None
        app = self._app
        if app is not None and self._hinter is not None:
            app.hint_player = self._hinter[0]
        self._hinter = None
        before, self._before = self._before, None
        if app is not None and before is not None and any(p is self._defender_seated for p in app.players.values()):
            app.return_to(before)  # at the next new game: the problem's game stays on the board
        self._defender_seated = None
        if app is not None:
            app.say("The problems are left: New sets up a new game.")
        return [self._report(now, "stopped")]

    def state(self) -> dict[str, Any]:
        """The mode as the link's ``problems`` answers: ``active``, and the last report's
        fields (the problem, its status, the record; an empty ``id`` before the first)."""
        report = self.last if self.last is not None else self._report(0, "none", remember=False)
        body = {k: v for k, v in report.to_json().items() if k not in ("t", "event")}
        return {"active": self.active, **body}

    # -- the application's hooks -------------------------------------------------------

    def on_press(self, press: ButtonEvent) -> bool | None:
        """``new``: the next problem, not the start position; ``hint``: told once found."""
        if not self.active:
            return None
        if press.name == "new" and not press.long:
            self._next = True
            return False
        if (
            press.name == "hint"
            and self.attempt is not None
            and not self.attempt.verdict.over
            and self._app is not None
        ):
            self._hint_asked = self._app.game.ply
        return None

    def deadline(self) -> int | None:
        """Now when the next step has something for the mode to do, else None."""
        app = self._app
        if app is None or not app.started or not self.active:
            return None
        return app.clock.now_ms() if self._due(app) else None

    def _due(self, app: Coached) -> bool:
        if self._next or (self._hint_asked is not None and app.hint is not None):
            return True
        attempt = self.attempt
        if attempt is None:
            return False
        if self._left(app, attempt.problem):
            return True
        game = app.game
        return (
            not attempt.verdict.over
            and app.setting_up is None
            and game.start == attempt.problem.start
            and len(game.moves) != len(attempt.game.moves)
        )

    def _left(self, app: Coached, problem: Problem) -> bool:
        """Whether the board was given another game (a page's new game, another mode)."""
        if app.mode.name != "computer" or app.resuming:
            return True
        setting_up = app.setting_up
        if setting_up is not None:
            return setting_up != problem.start
        return app.game.start != problem.start

    def source(self, now: int) -> list[Event]:
        app = self._app
        if app is None or not app.started or not self.active:
            return []
        if self._next:
            self._next = False
            return self._begin(now)
        attempt = self.attempt
        if attempt is None:
            return []
        if self._left(app, attempt.problem):
            return self.stop(now)
        events: list[Event] = []
        if self._hint_asked is not None:
            if app.game.ply != self._hint_asked or attempt.verdict.over:
                self._hint_asked = None  # the turn passed before the hint came
            elif app.hint is not None:
                self._hint_asked = None
                attempt.hints += 1
                hint = move_text(app.game.position, app.hint, WCDF)
                events.append(self._report(now, "hint", hint=hint))
        if attempt.verdict.over or app.setting_up is not None:
            return events
        game = app.game
        if len(game.moves) == len(attempt.game.moves):
            return events
        verdict = attempt.follow(game.moves)
        if not verdict.over:
            return events
        return events + self._judged(now)

    # -- a problem ---------------------------------------------------------------------

    def _begin(self, now: int) -> list[Event]:
        app = self._app
        assert app is not None
        problem = self._first or self.record.next_problem()
        self._first = None
        if self._defender is not None:
            machine = self._defender()
        else:
            machine = searcher("Crownhead engine (problems)", DEFEND_NODES, lambda: self.probe)
        if self._before is None:
            self._before = app.mode_seats()
        self._defender_seated = machine
        self.attempt = Attempt(problem, probe=self.probe)
        self._counted = False
        self._hint_asked = None
        self.active = True
        if self._hinter is None:
            self._hinter = (app.hint_player,)
            app.hint_player = searcher("Crownhead engine (hint)", HINT_NODES, lambda: self.probe)
        # As a game tried again is set up (firmware.app.tryagain): the game on the board
        # put away first, so that the rules and the mode may change.
        if app.resuming:
            app.give_up_resume()
        events: list[Event] = []
        if app.game.rules != WCDF:
            events += app.new_game(problem.start, now)
            events += app.set_rules(WCDF, now)
        events += app.new_game(problem.start, now)
        app.set_mode("computer", now, computer=(problem.player.opponent, machine))
        side = "Black" if problem.player is Color.BLACK else "White"
        warning = f" ({self.warning})" if self.warning else ""
        self.warning = None
        app.say(f"Problem {problem.id}: {problem.describe()}. Set up the pieces; you play {side}.{warning}")
        return [*events, self._report(now, "begin")]

    def _judged(self, now: int) -> list[Event]:
        app = self._app
        attempt = self.attempt
        assert app is not None and attempt is not None
        problem, verdict = attempt.problem, attempt.verdict
        solved = verdict.status == "solved"
        if not self._counted:
            self._counted = True
            self.record.add(problem, solved, attempt.hints)
            if self.state_dir is not None:
                try:
                    save_record(self.state_dir, self.record)
                except OSError as exc:
                    app.say(f"The problems' record could not be saved: {exc.strerror or exc}")
        events: list[Event] = []
        if not app.game.is_over:
            outcome = verdict.outcome
            score = win_for(problem.player) if outcome == "win" else DRAW
            if outcome == "loss":
                score = win_for(problem.player.opponent)
            events = app.declare(score, "problem", now)
        helped = f" {HELPED}" if solved and attempt.hints else ""
        app.say(
            f"{verdict_word(solved, attempt.hints)}: {verdict.reason}.{helped} Level {self.record.level},"
            f" streak {self.record.streak}. Press New for the next problem."
        )
        return [*events, self._report(now, "verdict")]

    def _report(self, now: int, cause: str, *, hint: str = "", remember: bool = True) -> ProblemReport:
        attempt, record = self.attempt, self.record
        problem = attempt.problem if attempt is not None else None
        report = ProblemReport(
            now,
            cause,
            problem.id if problem is not None else "",
            problem.collection_name if problem is not None else "",
            problem.title if problem is not None else "",
            problem.task if problem is not None else "",
            problem.difficulty if problem is not None else 0,
            Side.of(problem.player) if problem is not None else None,
            attempt.verdict.status if attempt is not None else "",
            attempt.verdict.reason if attempt is not None else "",
            hint,
            attempt.hints if attempt is not None else 0,
            record.level,
            record.streak,
            record.best_streak,
            tuple(record.wins[n] for n in LEVELS),
            tuple(record.tried[n] for n in LEVELS),
        )
        if remember:
            self.last = report
        return report
