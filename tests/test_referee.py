"""Referee mode, rule by rule and result by result, in both styles (scripted hands, virtual time).

Every scenario is a replay script on the simulated board through the debouncer, the
controller, the tracker and the referee, exactly as ``crownhead replay --mode referee``
runs it; every one records the LED picture and checks that no hint is ever lit.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from crownhead.firmware.gameclock import TimeControl, pdn_move_clock
from crownhead.firmware.simulator.script import parse_script, replay
from crownhead.firmware.simulator.hands import plain_actions, spaced
from crownhead.firmware.app.leds import HINT_ROLES as LED_HINT_ROLES
from crownhead.firmware.referee.arbiter import BallotBox, Referee, RefereeSettings, parse_ballot
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.tracker import HINT_ROLES, Tracker
from crownhead.rules import DRAW, WCDF, Game, Move, Position
from crownhead.squares import bit
from crownhead.rules.ballots import deck

STYLES = ("strict", "record")


def run(script: str, fen: str | None = None, style: str = "strict", **settings: Any) -> list[dict[str, Any]]:
    """The events of a referee replay as JSON objects; fails if a hint is ever lit."""
    position = Position.from_fen(fen) if fen else None
    events = replay(
        parse_script(script),
        position,
        mode="referee",
        referee=RefereeSettings(style=style, **settings),
        lights=True,
        rules=WCDF,
    )
    out = [e.to_json() for e in events]
    assert_no_hint(out)
    return out


def assert_no_hint(events: list[dict[str, Any]]) -> None:
    frames = [e["roles"] for e in events if e["event"] == "lights"]
    assert frames, "the scenario recorded no LED picture"
    for roles in frames:
        lit_hints = {s: r for s, r in roles.items() if r in HINT_ROLES | LED_HINT_ROLES}
        assert not lit_hints, f"a hint was lit in referee mode: {lit_hints}"


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


def kinds(events: list[dict[str, Any]], *names: str) -> list[str]:
    return [e["event"] for e in events if e["event"] in names]


def final(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[-1]["event"] == "final"
    return events[-1]


def moves_script(texts: list[str], think: int = 400) -> str:
    """Plain hand actions for ``texts`` (``a-b`` king or man steps), ``think`` ms apart."""
    lines = []
    for text in texts:
        a, b = (int(s) for s in text.split("-"))
        lines += [str(x) for x in spaced(plain_actions(Move((a, b))), 100)] + [f"wait {think}"]
    return "\n".join(lines) + "\n"


def lit_roles(events: list[dict[str, Any]], t: int) -> dict[str, str]:
    """The LED picture standing at time ``t``."""
    shown: dict[str, str] = {}
    for e in events:
        if e["event"] == "lights" and e["t"] <= t:
            shown = e["roles"]
    return shown


# -- illegal moves: the table of scenarios -------------------------------------------------------
#
# Each: the position, the offending hand actions, the offence code, the hands that put it
# right in strict style (ending with a legal move), and in record style the opponent's
# answer and the position the game goes on from.


class Case:
    def __init__(self, name: str, fen: str, offend: str, code: str, restore: str, answer: str, after: str) -> None:
        self.name, self.fen, self.offend, self.code = name, fen, offend, code
        self.restore, self.answer, self.after = restore, answer, after


CASES = [
    Case(
        "moving after touching another piece",
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "lift 9\nwait 200\nplace 9\nwait 500\nlift 10\nwait 200\nplace 14\nwait 1000\n",
        "touch-move",
        "lift 14\nwait 100\nplace 10\nwait 500\nlift 9\nwait 100\nplace 13\nwait 1000\n",
        "lift 22\nwait 200\nplace 18\nwait 1000\n",
        "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,11,12,14",
    ),
    Case(
        "a plain move while a capture is on",
        "B:W18,30:B14,9",
        "lift 14\nwait 200\nplace 17\nwait 1000\n",
        "forced-capture",
        "lift 17\nwait 100\nplace 14\nwait 500\nlift 14\nwait 100\nplace 23\nlift 18\nwait 1000\n",
        "lift 30\nwait 200\nplace 26\nwait 1000\n",
        "B:W18,26:B9,17",
    ),
    Case(
        "a man moving backward",
        "B:W30:B14,9",
        "lift 14\nwait 200\nplace 10\nwait 1000\n",
        "backward-man",
        "lift 10\nwait 100\nplace 14\nwait 500\nlift 14\nwait 100\nplace 18\nwait 1000\n",
        "lift 30\nwait 200\nplace 26\nwait 1000\n",
        "B:W26:B9,10",
    ),
    Case(
        "jumping on after crowning",
        "B:W26,27,30:B22,1",
        # 22x31 crowns; the new king jumps on over 27 before the move has settled.
        "lift 22\nwait 100\nplace 31\nwait 50\nlift 26\nwait 50\nlift 31\nwait 50\nplace 24\nwait 50\nlift 27\nwait 1000\n",
        "continued-after-crown",
        "lift 24\nwait 100\nplace 31\nwait 50\nplace 27\nwait 1000\n",
        "lift 30\nwait 200\nplace 26\nwait 1000\n",
        "B:W26:B1,24",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_strict_cautions_and_the_move_is_taken_back(case: Case) -> None:
    events = run(case.offend + case.restore, case.fen)
    (caution,) = of(events, "caution")
    assert caution["side"] == "black" and caution["count"] == 1 and caution["code"] == case.code
    assert caution["message"]
    # The caution comes with the warning, and the lights say what to put back.
    warning = next(w for w in of(events, "warning") if w["code"] == "illegal-move")
    assert warning["t"] == caution["t"]
    shown = lit_roles(events, caution["t"])
    assert {"extra", "missing", "error"} & set(shown.values())
    # Nothing illegal was accepted; once put right, the game goes on with a legal move.
    (move,) = of(events, "move")
    assert move["ply"] == 1 and move["t"] > caution["t"]
    assert not of(events, "forfeit") and not of(events, "game-over")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_record_an_unopposed_illegal_move_stands(case: Case) -> None:
    events = run(case.offend + case.answer, case.fen, style="record")
    assert not of(events, "caution") and not of(events, "forfeit")
    (condoned,) = of(events, "condoned")
    assert condoned["code"] == case.code and condoned["side"] == "black"
    # The illegal move is ply 1 of the game, the answer ply 2, from the board as it stood.
    moves = of(events, "move")
    assert [m["ply"] for m in moves] == [1, 2]
    assert moves[0]["move"] == condoned["move"]
    assert final(events)["fen"] == case.after and final(events)["plies"] == 2


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_record_an_objection_is_a_caution_and_the_move_is_taken_back(case: Case) -> None:
    events = run(case.offend + "press claim\nwait 100\n" + case.restore, case.fen, style="record")
    (caution,) = of(events, "caution")
    assert caution["code"] == case.code and caution["side"] == "black"
    assert not of(events, "claim") and not of(events, "condoned")
    (move,) = of(events, "move")
    assert move["t"] > caution["t"]


def test_unfinished_chain_strict_caution_when_the_opponent_starts() -> None:
    fen = "B:W15,23,32:B10,1"
    # 10x19 made, 15 taken off, the jumper rests on 19: a move in progress, no offence yet.
    start = "lift 10\nwait 100\nplace 19\nwait 100\nlift 15\nwait 500\n"
    events = run(start, fen)
    assert not of(events, "caution")
    # White starts to reply: the chain was left unfinished.
    events = run(start + "lift 32\nwait 400\nplace 32\nwait 300\nlift 19\nwait 100\nplace 26\nlift 23\nwait 500\n", fen)
    (caution,) = of(events, "caution")
    assert caution["code"] == "unfinished-capture" and caution["t"] == 730
    assert lit_roles(events, 730) == {"26": "next-jump", "32": "missing"}
    assert [m["move"] for m in of(events, "move")] == ["10x26"]


def test_unfinished_chain_record_stands_when_answered() -> None:
    events = run(
        "lift 10\nwait 100\nplace 19\nwait 100\nlift 15\nwait 500\nlift 23\nwait 200\nplace 16\nwait 100\nlift 19\nwait 600\n",
        "B:W15,23,32:B10,1",
        style="record",
    )
    (condoned,) = of(events, "condoned")
    assert condoned["code"] == "unfinished-capture" and condoned["move"] == "10x19"
    assert condoned["fen"] == "W:W23,32:B1,19"
    assert [m["move"] for m in of(events, "move")] == ["10x19", "23x16"]
    assert final(events)["fen"] == "B:W16,32:B1"


def test_unfinished_chain_record_objection_after_the_warning() -> None:
    events = run(
        "lift 10\nwait 100\nplace 19\nwait 100\nlift 15\nwait 3000\npress claim\nwait 100\nlift 19\nplace 26\nlift 23\nwait 500\n",
        "B:W15,23,32:B10,1",
        style="record",
    )
    assert [c["code"] for c in of(events, "caution")] == ["unfinished-capture"]
    assert [m["move"] for m in of(events, "move")] == ["10x26"]


@pytest.mark.parametrize("style", STYLES)
def test_jumping_on_after_the_crowning_move_was_accepted(style: str) -> None:
    # 22x31 settles and is accepted; then the new king jumps on over 27: a move out of turn.
    events = run(
        "lift 22\nwait 100\nplace 31\nwait 50\nlift 26\nwait 1000\nlift 31\nwait 50\nplace 24\nwait 50\nlift 27\nwait 1000\n",
        "B:W26,27:B22,1",
        style,
    )
    assert [m["move"] for m in of(events, "move")] == ["22x31"]
    warning = [w for w in of(events, "warning") if w["code"] == "illegal-move"][-1]
    assert warning["squares"] == [31, 24]
    assert warning["message"].startswith("the man crowned on 31 moved on to 24")
    cautions = of(events, "caution")
    if style == "strict":
        assert [(c["side"], c["code"]) for c in cautions] == [("black", "continued-after-crown")]
    else:
        assert cautions == []  # recorded for the arbiter; a move out of turn never stands
    assert final(events)["plies"] == 1


# -- touch-move (1.23) ------------------------------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_lifting_a_piece_with_no_legal_move(style: str) -> None:
    events = run("lift 1\nwait 200\nplace 1\nwait 500\nlift 9\nwait 100\nplace 13\nwait 1000\n", style=style)
    (warning,) = of(events, "warning")
    assert warning["code"] == "unplayable-piece" and warning["squares"] == [1]
    assert lit_roles(events, warning["t"]) == {"1": "error"}
    if style == "strict":
        (caution,) = of(events, "caution")
        assert caution["code"] == "unplayable-piece" and caution["t"] == warning["t"] == 30
    else:
        assert not of(events, "caution")
    assert [m["move"] for m in of(events, "move")] == ["9-13"]


@pytest.mark.parametrize("style", STYLES)
def test_lifting_a_piece_that_cannot_capture_names_no_other_piece(style: str) -> None:
    events = run(
        "lift 9\nwait 200\nplace 9\nwait 500\nlift 14\nwait 100\nplace 23\nlift 18\nwait 1000\n",
        "B:W18,30:B14,9",
        style,
    )
    (warning,) = of(events, "warning")
    # The pieces that can capture stay unnamed and unlit: a referee gives no hint.
    assert warning == {
        "t": 30,
        "event": "warning",
        "code": "forced-capture",
        "squares": [9],
        "message": "a capture is compulsory: the man on 9 cannot capture; put it back",
    }
    assert lit_roles(events, 30) == {"9": "error"}
    assert len(of(events, "caution")) == (1 if style == "strict" else 0)
    assert [m["move"] for m in of(events, "move")] == ["14x23"]


@pytest.mark.parametrize("style", STYLES)
def test_a_touched_piece_must_be_played(style: str) -> None:
    # 9 touched and put back; 10 lifted and put back: warned, not an offence; 9 is played.
    events = run(
        "lift 9\nwait 200\nplace 9\nwait 500\nlift 10\nwait 300\nplace 10\nwait 500\nlift 9\nwait 100\nplace 14\nwait 1000\n",
        style=style,
    )
    assert [w["code"] for w in of(events, "warning")] == ["touch-move"]
    assert lit_roles(events, 600) == {"9": "touched"}
    assert not of(events, "caution")
    assert [m["move"] for m in of(events, "move")] == ["9-14"]


@pytest.mark.parametrize("style", STYLES)
def test_adjust_allows_straightening_without_obligation(style: str) -> None:
    events = run(
        "press adjust\nwait 100\nlift 1\nwait 200\nplace 1\nwait 300\npress adjust\nwait 100\nlift 9\nwait 200\nplace 9\nwait 300\n"
        "lift 10\nwait 100\nplace 14\nwait 1000\n",
        style=style,
    )
    assert not of(events, "warning") and not of(events, "caution")
    assert [m["move"] for m in of(events, "move")] == ["10-14"]


# -- one episode, one offence; the second offence forfeits ----------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_touching_then_moving_illegally_is_one_offence(style: str) -> None:
    # 9 cannot capture (14x23 is on): lifted (an illegal move), then put on 13: one episode.
    script = "lift 9\nwait 100\nplace 13\nwait 1000\n"
    if style == "record":
        script += "press claim\nwait 100\n"
    script += "lift 13\nwait 100\nplace 9\nwait 500\nlift 14\nwait 100\nplace 23\nlift 18\nwait 1000\n"
    events = run(script, "B:W18,30:B14,9", style)
    assert [w["code"] for w in of(events, "warning")] == ["forced-capture", "illegal-move"]
    (caution,) = of(events, "caution")
    assert caution["code"] == "forced-capture"
    assert not of(events, "forfeit")
    assert [m["move"] for m in of(events, "move")] == ["14x23"]


@pytest.mark.parametrize("style", STYLES)
def test_second_offence_forfeits(style: str) -> None:
    object_ = "press claim\nwait 100\n" if style == "record" else ""
    events = run(
        "lift 14\nwait 200\nplace 10\nwait 1000\n" + object_ + "lift 10\nwait 100\nplace 14\nwait 500\n"
        "lift 14\nwait 200\nplace 17\nwait 1000\n" + object_ + "wait 500\n",
        "B:W18,30:B14,9",
        style,
    )
    (caution,) = of(events, "caution")
    assert caution["code"] == "backward-man"
    (forfeit,) = of(events, "forfeit")
    assert forfeit["side"] == "black" and forfeit["code"] == "forced-capture"
    (over,) = of(events, "game-over")
    assert over == {"t": forfeit["t"], "event": "game-over", "result": "0-1", "reason": "forfeit"}
    assert not of(events, "move")


def test_offences_are_counted_per_side() -> None:
    # Black is cautioned, then White: neither forfeits.
    events = run(
        "lift 14\nwait 200\nplace 10\nwait 1000\nlift 10\nwait 100\nplace 14\nwait 500\nlift 14\nwait 100\nplace 18\nwait 1000\n"
        "lift 30\nwait 200\nplace 21\nwait 1000\nlift 21\nwait 100\nplace 30\nwait 500\n",
        "B:W30:B14,9",
    )
    assert [(c["side"], c["count"]) for c in of(events, "caution")] == [("black", 1), ("white", 1)]
    assert not of(events, "forfeit")


# -- draws (1.32) ---------------------------------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_draw_by_agreement(style: str) -> None:
    events = run(
        "lift 9\nwait 100\nplace 13\nwait 500\npress black_draw\nwait 2000\npress white_draw\nwait 100\n", style=style
    )
    (offer,) = of(events, "draw-offer")
    assert offer["ply"] == 1 and offer["side"] == "black"
    (over,) = of(events, "game-over")
    assert over["result"] == "1/2-1/2" and over["reason"] == "agreement" and over["t"] == 2600


@pytest.mark.parametrize("style", STYLES)
def test_one_person_cannot_agree_a_draw(style: str) -> None:
    # Before: the shared draw button pressed twice ended the game as agreed, even with a
    # warning showing. The board cannot tell who pressed it: both presses are offers.
    events = run("lift 9\nwait 100\nplace 13\nwait 500\npress draw\nwait 2000\npress draw\nwait 100\n", style=style)
    assert [(o["ply"], o["side"]) for o in of(events, "draw-offer")] == [(1, ""), (1, "")]
    assert not of(events, "game-over")
    # The same side's own button twice is no agreement either; nor is a shared press.
    events = run(
        "lift 9\nwait 100\nplace 13\nwait 500\npress black_draw\nwait 100\npress black_draw\nwait 100\npress draw\nwait 100\n",
        style=style,
    )
    assert [o["side"] for o in of(events, "draw-offer")] == ["black", "black", ""]
    assert not of(events, "game-over")


@pytest.mark.parametrize("style", STYLES)
def test_a_move_declines_the_offer(style: str) -> None:
    events = run("press draw\nwait 100\nlift 9\nwait 100\nplace 13\nwait 500\npress draw\nwait 100\n", style=style)
    assert [o["ply"] for o in of(events, "draw-offer")] == [0, 1]
    assert not of(events, "game-over")


REPEAT = ["1-6", "32-27", "6-1", "27-32"]


@pytest.mark.parametrize("style", STYLES)
def test_repetition_claim_exact_to_the_ply(style: str) -> None:
    fen = "B:WK32:BK1"
    # After 6 plies Black's next move would make a position stand only a second time.
    early = run(moves_script(REPEAT + REPEAT[:2]) + "press claim\nwait 100\n", fen, style)
    (claim,) = of(early, "claim")
    assert claim["valid"] is False and claim["reason"] == "none" and claim["side"] == "black"
    assert not of(early, "game-over") and not of(early, "draw-claimable")
    # After 7 plies White's 27-32 would make the start position stand a third time.
    exact = run(moves_script(REPEAT + REPEAT[:3]) + "press claim\nwait 100\n", fen, style)
    (claimable,) = of(exact, "draw-claimable")
    assert claimable["reason"] == "repetition" and claimable["side"] == "white"
    (claim,) = of(exact, "claim")
    assert claim["valid"] is True and claim["reason"] == "repetition" and claim["side"] == "white"
    (over,) = of(exact, "game-over")
    assert over["result"] == "1/2-1/2" and over["reason"] == "repetition"
    # After 8 plies the position already stands a third time: Black may claim too.
    late = run(moves_script(REPEAT + REPEAT) + "press claim\nwait 100\n", fen, style)
    assert of(late, "claim")[0]["valid"] is True and of(late, "claim")[0]["side"] == "black"


def quiet_walk(fen: str, plies: int, seed: int = 3) -> list[str]:
    """King moves only, no capture ever possible, no position twice (so no repetition)."""
    from crownhead.squares import bit

    rng = random.Random(seed)
    for _ in range(200):
        game = Game(Position.from_fen(fen), WCDF)
        seen = {game.position}
        walk = []
        while len(walk) < plies:
            options = []
            for m in game.legal_moves():
                after = game.position.apply(m, WCDF)
                king = game.position.kings & bit(m.start)
                if king and after not in seen and not after.capture_available(WCDF) and not m.is_capture:
                    options.append(m)
            if not options:
                break
            m = rng.choice(options)
            game.play(m)
            seen.add(game.position)
            walk.append(m.pdn())
        if len(walk) == plies:
            return walk
    raise AssertionError("no quiet walk found")


@pytest.mark.parametrize("style", STYLES)
def test_forty_move_claim_exact_to_the_ply(style: str) -> None:
    fen = "B:WK28,K32:BK1,K5"
    walk = quiet_walk(fen, 80)
    early = run(moves_script(walk[:79], think=300) + "wait 200\npress claim\nwait 100\n", fen, style)
    (claim,) = of(early, "claim")
    assert claim["valid"] is False and claim["side"] == "white" and "79 of the 80 plies" in claim["message"]
    assert not of(early, "draw-claimable") and not of(early, "game-over")
    exact = run(moves_script(walk, think=300) + "wait 200\npress claim\nwait 100\n", fen, style)
    (claimable,) = of(exact, "draw-claimable")
    assert claimable["reason"] == "forty-moves" and claimable["side"] == "black"
    assert claimable["t"] == of(exact, "move")[79]["t"]
    (claim,) = of(exact, "claim")
    assert claim["valid"] is True and claim["reason"] == "forty-moves" and claim["side"] == "black"
    assert of(exact, "game-over")[0]["reason"] == "forty-moves"


def test_a_man_move_resets_the_forty_move_count() -> None:
    # 80 plies, but the first moved a man: 79 quiet plies, one short.
    walk = quiet_walk("W:WK28,K32:BK1,K5,13", 79)
    events = run(moves_script(["9-13"] + walk, think=300) + "wait 200\npress claim\nwait 100\n", "B:WK28,K32:BK1,K5,9")
    assert len(of(events, "move")) == 80
    (claim,) = of(events, "claim")
    assert claim["valid"] is False and "79 of the 80 plies" in claim["message"]


# -- the other results ------------------------------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_no_legal_move_ends_the_game(style: str) -> None:
    events = run("lift 14\nwait 100\nplace 23\nlift 18\nwait 1000\n", "B:W18:B14", style)
    (over,) = of(events, "game-over")
    assert over["result"] == "1-0" and over["reason"] == "no-moves"


@pytest.mark.parametrize("style", STYLES)
def test_resign_resigns_for_the_side_to_move(style: str) -> None:
    events = run("lift 9\nwait 100\nplace 13\nwait 500\npress resign\nwait 100\n", style=style)
    assert [e["side"] for e in of(events, "resign-confirm")] == ["white"] and not of(events, "game-over")
    events = run("lift 9\nwait 100\nplace 13\nwait 500\npress resign\nwait 1000\npress resign\nwait 100\n", style=style)
    (over,) = of(events, "game-over")
    assert over["result"] == "1-0" and over["reason"] == "resign"


@pytest.mark.parametrize("style", STYLES)
def test_flag_fall_loses_on_time(style: str) -> None:
    events = run("lift 9\nwait 1000\nplace 13\nwait 6000\n", style=style, clock=TimeControl.parse("5"))
    clocks = of(events, "clock")
    # Black's time starts with Black's first lift (seen at 30 ms, once debounced).
    assert clocks[0] == {"t": 0, "event": "clock", "black": 5000, "white": 5000, "running": ""}
    assert clocks[1] == {"t": 30, "event": "clock", "black": 5000, "white": 5000, "running": "black"}
    assert clocks[2] == {"t": 1330, "event": "clock", "black": 3700, "white": 5000, "running": "white"}
    (flag,) = of(events, "flag")
    assert flag == {"t": 6330, "event": "flag", "side": "white"}
    (over,) = of(events, "game-over")
    assert over == {"t": 6330, "event": "game-over", "result": "1-0", "reason": "time"}
    assert clocks[-1]["white"] == 0 and clocks[-1]["running"] == ""


def test_the_clock_switches_when_the_board_accepts_the_move() -> None:
    # Black's time starts at the lift (30 ms, debounced). The move settles at 5020 ms,
    # 10 ms before Black's flag: in time.
    ok = run("lift 9\nwait 4690\nplace 13\nwait 1000\n", clock=TimeControl.parse("5"))
    assert not of(ok, "flag") and of(ok, "move")[0]["t"] == 5020
    # Settling at 5030 ms is too late: the flag fell first, the move is not accepted.
    late = run("lift 9\nwait 4700\nplace 13\nwait 1000\n", clock=TimeControl.parse("5"))
    assert of(late, "flag") == [{"t": 5030, "event": "flag", "side": "black"}]
    assert not of(late, "move") and of(late, "game-over")[0]["result"] == "0-1"


def test_increment_and_moves_in_time_on_the_clock_events() -> None:
    events = run(moves_script(["9-13", "22-18", "13x22"][:2]), clock=TimeControl.parse("1/60+2:30"))
    clocks = of(events, "clock")
    # Black's first move ends its first period: 30 s more, and the 2 s increment.
    assert clocks[2]["black"] == 60_000 - 400 + 2_000 + 30_000  # from the lift at 30 ms


# -- ballots --------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_ballot_moves_are_shown_and_required(style: str) -> None:
    # Ballot 46 (Double Cross): 9-14 23-18 14x23. A wrong first move is stopped, not cautioned.
    events = run(
        "lift 10\nwait 100\nplace 14\nwait 1000\nlift 14\nwait 100\nplace 10\nwait 500\n"
        + moves_script(["9-14", "23-18"])
        + "lift 14\nwait 100\nplace 23\nlift 18\nwait 1000\n",
        style=style,
        ballot=46,
    )
    assert of(events, "ballot") == [
        {"t": 0, "event": "ballot", "number": 46, "moves": ["9-14", "23-18", "14x23"], "name": "Double Cross"}
    ]
    assert lit_roles(events, 0) == {"9": "move-from", "14": "move-to"}
    assert [w["code"] for w in of(events, "warning")] == ["illegal-move"]
    assert "9-14" in of(events, "warning")[0]["message"]
    assert not of(events, "caution") and not of(events, "condoned")
    assert [m["move"] for m in of(events, "move")] == ["9-14", "23-18", "14x23"]
    # After the ballot the board asks for nothing.
    assert lit_roles(events, final(events)["t"]) == {"14": "last-from", "23": "last-to"}


def test_deck_draws_are_seeded_and_never_barred() -> None:
    box = BallotBox(deck=True, seed=11)
    drawn = [box.draw() for _ in range(156)]
    assert len({b.number for b in drawn}) == 156 and all(b.in_deck for b in drawn)
    again = BallotBox(deck=True, seed=11)
    assert [again.draw().number for _ in range(5)] == [b.number for b in drawn[:5]]
    assert box.draw() is not None  # an empty deck is shuffled again
    assert {b.number for b in deck()} == {b.number for b in drawn}


def test_deck_ballot_in_a_replay() -> None:
    first = BallotBox(deck=True, seed=5).draw()
    assert first is not None
    events = run("wait 100\n", deck=True, seed=5)
    assert of(events, "ballot")[0]["number"] == first.number


def test_parse_ballot() -> None:
    assert parse_ballot("deck") == (None, True) and parse_ballot(12) == (12, False)
    for bad, words in (("3", "barred"), ("175", "no ACF ballot number"), ("x", "ACF ballot number")):
        with pytest.raises(ValueError, match=words):
            parse_ballot(bad)


# -- the command line ------------------------------------------------------------------------------


def crownhead(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_replay_command_line() -> None:
    done = crownhead(
        "replay",
        "-",
        "--mode",
        "referee",
        "--referee-style",
        "strict",
        "--ballot",
        "5",
        "--clock",
        "300+5",
        stdin="lift 1\nwait 100\nplace 1\nwait 500\nlift 9\nwait 100\nplace 13\nwait 1000\n",
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["event"] for o in out] == ["clock", "ballot", "clock", "move", "clock", "final"]
    # During the ballot a lifted piece is no offence: the board only wants 9-13.
    assert out[3]["move"] == "9-13"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--clock", "300"], "crownhead replay: --clock needs --mode referee"),
        (["--mode", "referee", "--clock", "5m"], "crownhead replay: --clock: clock spec '5m': '5m' is not a period"),
        (["--mode", "referee", "--ballot", "3"], "crownhead replay: --ballot: ballot 3 is barred"),
        (
            ["--mode", "referee", "--ballot", "9", "--fen", "B:W30:B1"],
            "crownhead replay: --ballot: a ballot is played from the start position",
        ),
    ],
)
def test_replay_option_errors(args: list[str], message: str) -> None:
    done = crownhead("replay", "-", *args, stdin="wait 10\n")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1


# -- the host's calls ------------------------------------------------------------------------------


def refereed(settings: RefereeSettings) -> tuple[Follower, Referee]:
    """A board under a referee: the follower of a tracker, its session timed as the
    referee's settings say, the referee its judge."""
    referee = Referee(settings)
    session = GameSession(Game(None, WCDF), time_control=settings.clock)
    return Follower(Tracker(session, mode="referee"), referee), referee


def test_host_sets_the_ballot_before_the_first_move_only() -> None:
    board, referee = refereed(RefereeSettings(clock=TimeControl.parse("60")))
    assert [e.kind for e in board.begin(0)] == ["clock"]
    events = referee.set_ballot(46, 10, board)
    assert [e.to_json()["number"] for e in events] == [46] and str(board.tracker.expected) == "9-14"
    board.update(board.tracker.board & ~bit(9) | bit(14), 100)
    assert [e.kind for e in board.tick(1000)] == ["move", "clock"]
    assert str(board.tracker.expected) == "23-18"
    with pytest.raises(ValueError, match="before the first move"):
        referee.set_ballot(5, 1000, board)
    with pytest.raises(ValueError, match="barred"):
        referee.set_ballot(3, 1000, board)
    # An arbiter's decision from the host ends the game; the clock stops.
    events = board.declare("0-1", "forfeit", 2000)
    assert [e.to_json() for e in events] == [
        {"t": 2000, "event": "game-over", "result": "0-1", "reason": "forfeit"},
        {"t": 2000, "event": "clock", "black": 59700, "white": 58400, "running": ""},  # from the lift at 100
    ]
    assert board.tracker.expected is None and '[Termination "forfeit"]' in referee.pdn(board.session)


def test_host_agrees_a_draw_and_a_result_declared_on_the_game_is_recorded() -> None:
    board, _ = refereed(RefereeSettings())
    board.begin(0)
    assert [e.to_json()["reason"] for e in board.declare(DRAW, "agreement", 50) if e.kind == "game-over"] == [
        "agreement"
    ]
    other, referee = refereed(RefereeSettings(clock=TimeControl.parse("60")))
    assert [e.kind for e in other.begin(0)] == ["clock"]
    other.game.declare("1-0", "time")  # someone ended the game without the referee
    assert [e.kind for e in other.tick(500)] == ["clock"]  # stopped
    assert other.next_deadline() is None and '[Termination "time"]' in referee.pdn(other.session)


# -- buttons pressed right after a move, before it settled -----------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_a_draw_offered_right_after_ones_move_is_not_declined_by_it(style: str) -> None:
    # Black moves and offers 80 ms later (the move settles only at 430): the offer is
    # made after ply 1, and White's press accepts it.
    events = run(
        "lift 9\nwait 100\nplace 14\nwait 80\npress black_draw\nwait 600\npress white_draw\nwait 500\n", style=style
    )
    (offer,) = of(events, "draw-offer")
    assert offer["ply"] == 1
    assert kinds(events, "move", "draw-offer") == ["move", "draw-offer"]
    (over,) = of(events, "game-over")
    assert over["result"] == "1/2-1/2" and over["reason"] == "agreement"


@pytest.mark.parametrize("style", STYLES)
def test_a_claim_right_after_a_move_is_the_claim_of_the_player_now_to_move(style: str) -> None:
    # Black's 6-1 (ply 7) is on the board but not settled when claim is pressed: White,
    # now to move, claims (27-32 would make the start position stand a third time).
    fen = "B:WK32:BK1"
    script = moves_script(REPEAT + REPEAT[:2])
    script += "lift 6\nwait 100\nplace 1\nwait 80\npress claim\nwait 500\n"
    events = run(script, fen, style)
    assert len(of(events, "move")) == 7
    (claim,) = of(events, "claim")
    assert claim["valid"] is True and claim["side"] == "white" and claim["reason"] == "repetition"
    assert of(events, "game-over")[0]["reason"] == "repetition"


def test_in_play_mode_too_a_claim_right_after_a_move_is_the_next_players() -> None:
    # The follower routes the claim to the session in every mode, the move standing on the
    # board first (play mode once ruled on the claim of Black, who had just moved).
    script = moves_script(REPEAT + REPEAT[:2]) + "lift 6\nwait 100\nplace 1\nwait 80\npress claim\nwait 500\n"
    events = [e.to_json() for e in replay(parse_script(script), Position.from_fen("B:WK32:BK1"), WCDF)]
    assert len(of(events, "move")) == 7
    (claim,) = of(events, "claim")
    assert claim["valid"] is True and claim["side"] == "white" and claim["reason"] == "repetition"


def test_a_move_taken_back_keeps_no_clock_in_the_referees_record() -> None:
    # Under huffing, ``force`` takes back the move that skipped a jump: the referee's PDN
    # then has no clock for it (the game's clock keeps none), its mover's time runs
    # again, and the jump made instead has its own clock, the one the game keeps.
    rules = WCDF.with_options(huffing=True)
    start = Position.from_fen("B:W18,30:B14,9")
    control = TimeControl.parse("300")
    referee = Referee(RefereeSettings(clock=control))
    board = Follower(Tracker(GameSession(Game(start, rules), time_control=control), mode="referee"), referee)
    board.begin(0)
    shown = start.occupied & ~bit(9)
    board.update(shown, 100)  # Black lifts 9: its time runs
    board.update(shown | bit(13), 600)  # 9-13, skipping the jump 14x23
    board.tick(2_000)
    assert board.game.ply == 1 and "[%clk 0:04:59]" in referee.pdn(board.session)
    assert [e.kind for e in board.press("force", 3_000)][0] == "force-jump"
    assert board.game.ply == 0 and "[%clk" not in referee.pdn(board.session)
    clock = board.clock
    assert clock is not None and clock.times == {} and clock.state(3_000).side == "black"
    board.update(start.occupied, 3_500)  # 13 back on 9
    board.update(start.occupied & ~bit(14), 4_000)
    board.update(start.occupied & ~bit(14) & ~bit(18) | bit(23), 4_500)  # 14x23
    board.tick(6_000)
    assert [str(m) for m in board.game.moves] == ["14x23"]
    left, used = clock.times[1]
    assert f"1. 14x23 {{{pdn_move_clock(left, used)}}}" in " ".join(referee.pdn(board.session).split())
