"""Problems on the board (``crownhead run --mode problems``): each problem set up by the
lights, the engine defending, the attempt judged as it is played, the record kept.

A :class:`ProblemCoach` is a source of the application (polled each step, acting through
its commands): it puts the board in computer mode with the machine on the defender's
side and sets up the problem's position as a new game (the lights say which squares to
fill and to empty, as for any position). Every move the board accepts is judged by
:class:`~firmware.coach.problems.Attempt`; the verdict ends the game (reason
``problem``), is said on the message line and counted in the record
(``problems.json`` in the state directory). The ``new`` button then sets up the next
problem at the player's level; ``hint`` gives the engine's move as in any game.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from firmware.coach.problems import Attempt, Problem, Record, load_record, save_record
from firmware.events import Event
from hal.buttons import ButtonEvent
from rules.engine.egdb import EndgameProbe
from rules.game import DRAW, win_for
from rules.position import Color

if TYPE_CHECKING:
    from firmware.app.application import App
    from firmware.app.players import Player

__all__ = ["ProblemCoach"]


class ProblemCoach:
    """The board's problem mode (see the module)."""

    def __init__(
        self,
        state_dir: Path | None,
        probe: EndgameProbe | None,
        first: Problem | None = None,
        defender: Callable[[], Player] | None = None,
    ) -> None:
        """``defender`` makes the machine that defends each problem (default: the engine at
        full strength, the application's computer player)."""
        self.state_dir = state_dir
        self._defender = defender
        self.probe = probe
        self.record, self.warning = load_record(state_dir) if state_dir is not None else (Record(), None)
        self._first = first
        self.attempt: Attempt | None = None
        self._app: App | None = None
        self._next = True  # a problem is to be set up at the next step
        self._counted = False

    def attach(self, app: App) -> ProblemCoach:
        self._app = app
        app.sources.append(self.source)
        app.press_listeners.append(self.on_press)
        return self

    @property
    def problem(self) -> Problem | None:
        return self.attempt.problem if self.attempt is not None else None

    def on_press(self, press: ButtonEvent) -> bool | None:
        """``new`` after a verdict (or before the first move): the next problem, not the
        start position."""
        if press.name == "new" and not press.long:
            self._next = True
            return False
        return None

    def source(self, now: int) -> list[Event]:
        app = self._app
        if app is None or not app.started:
            return []
        if self._next:
            self._next = False
            return self._begin(now)
        attempt = self.attempt
        if attempt is None or attempt.verdict.over or app.setting_up is not None:
            return []
        game = app.game
        if game.start != attempt.problem.start or len(game.moves) == len(attempt.game.moves):
            return []
        verdict = attempt.follow(game.moves)
        if not verdict.over:
            return []
        return self._judged(now)

    def _begin(self, now: int) -> list[Event]:
        app = self._app
        assert app is not None
        problem = self._first or self.record.next_problem()
        self._first = None
        self.attempt = Attempt(problem, probe=self.probe)
        self._counted = False
        defender = problem.player.opponent
        machine = self._defender() if self._defender is not None else app.computer_player()
        app.set_mode("computer", now, computer=(defender, machine))
        events = app.new_game(problem.start, now)
        side = "Black" if problem.player is Color.BLACK else "White"
        warning = f" ({self.warning})" if self.warning else ""
        self.warning = None
        app.say(f"Problem {problem.id}: {problem.describe()}. Set up the pieces; you play {side}.{warning}")
        return events

    def _judged(self, now: int) -> list[Event]:
        app = self._app
        attempt = self.attempt
        assert app is not None and attempt is not None
        problem, verdict = attempt.problem, attempt.verdict
        solved = verdict.status == "solved"
        if not self._counted:
            self._counted = True
            self.record.add(problem, solved)
            if self.state_dir is not None:
                save_record(self.state_dir, self.record)
        events: list[Event] = []
        if not app.game.is_over:
            outcome = verdict.outcome
            score = win_for(problem.player) if outcome == "win" else DRAW
            if outcome == "loss":
                score = win_for(problem.player.opponent)
            events = app.declare(score, "problem", now)
        word = "Solved" if solved else "Not solved"
        app.say(
            f"{word}: {verdict.reason}. Level {self.record.level}, streak {self.record.streak}. "
            "Press New for the next problem."
        )
        return events
