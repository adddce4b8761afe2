"""Problems on the board (run --mode problems): set up by the lights, defended by the
machine, judged as played, counted in the record; the next one on the new button."""

from __future__ import annotations

import json
from pathlib import Path

from firmware.app.players import Human, RandomMover
from firmware.app.problems import ProblemCoach
from firmware.app.settings import AppSettings
from firmware.coach.problems import RECORD_FILE, problem
from firmware.egdb import load_probe
from helpers.rig import Rig
from rules import BLACK, WHITE

#: Beginner's Problem #1, W:W31,27,19:B17,12,5: White to play and win; Black's replies
#: are all forced (12x19, 19x26, 5-9), so any defender plays the same.
FIRST = problem("beginner-1")


def _rig(tmp_path: Path) -> tuple[Rig, ProblemCoach]:
    rig = Rig(
        tmp_path,
        settings=AppSettings(mode="computer"),
        players={BLACK: RandomMover(1), WHITE: Human("Ann")},
        start=False,
    )
    coach = ProblemCoach(tmp_path, load_probe(), FIRST, defender=lambda: RandomMover(2)).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    return rig, coach


def _set_up(rig: Rig) -> None:
    assert rig.app.setting_up == FIRST.start
    assert rig.app.message.startswith("Problem beginner-1: Beginner's Problem #1: White to play and win")
    rig.follow()  # the hands put the pieces where the lights ask
    assert rig.app.setting_up is None and rig.app.game.start == FIRST.start


def test_a_problem_set_up_by_the_lights_and_solved(tmp_path: Path) -> None:
    rig, coach = _rig(tmp_path)
    _set_up(rig)
    for mine in ("19-16", "27-23", "31x13", "13x6"):
        rig.do(mine)
        if not rig.app.game.is_over:
            rig.follow()  # the machine's forced reply, made by hand
    assert rig.moves()[:5] == ["19-16", "12x19", "27-23", "19x26", "31x13"]
    assert coach.attempt is not None and coach.attempt.verdict.status == "solved"
    assert rig.app.message.startswith("Solved: the defender has no move left. Level 1, streak 1.")
    over = rig.of_kind("game-over")
    assert over and over[-1]["result"] == "0-1"
    record = json.loads((tmp_path / RECORD_FILE).read_text())
    assert record["solved"] == ["beginner-1"] and record["streak"] == 1 and record["tried"]["1"] == 1
    # New: the next problem at the level, set up on the board.
    rig.do("n")
    rig.wait(100)
    assert coach.problem is not None and coach.problem.id == "beginner-2"
    assert rig.app.setting_up == problem("beginner-2").start


def test_the_same_problem_failed_by_a_wrong_move(tmp_path: Path) -> None:
    rig, coach = _rig(tmp_path)
    _set_up(rig)
    rig.do("27-23")
    assert coach.attempt is not None and coach.attempt.verdict.status == "failed"
    assert rig.app.message.startswith("Not solved: the win has gone: the tables say it is a draw.")
    assert rig.of_kind("game-over")[-1]["result"] == "1/2-1/2"
    record = json.loads((tmp_path / RECORD_FILE).read_text())
    assert record["solved"] == [] and record["tried"]["1"] == 1 and record["streak"] == 0
