"""Scenario tests of the move tracker: each behaviour of issue 4 with its exact events.

Scripts run on the simulated board through the real debouncer, controller and tracker
(``crownhead.firmware.simulator.script``), with debounce 30 ms, settle 300 ms and patience 2500 ms,
so every time below is reasoned out: a switch change is accepted 30 ms after it happens,
a move 300 ms after its last accepted change (or at once when the reply starts).
"""

from __future__ import annotations

import pytest

from crownhead.firmware.simulator.script import parse_script, replay
from crownhead.firmware.events import MoveMade
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.tracker import (
    HINT_ROLES,
    ROLES,
    Kind,
    ModePolicy,
    Tracker,
    TrackerSettings,
    visible_roles,
)
from crownhead.rules import WCDF, Color, Game, Move, Position, Rules
from crownhead.squares import bit

SETTINGS = TrackerSettings(settle_ms=300, patience_ms=2500)


def run(
    script: str, fen: str | None = None, *, mode: str = "play", lights: bool = False, rules: Rules = Rules()
) -> list[dict]:
    position = Position.from_fen(fen) if fen else None
    events = replay(parse_script(script), position, rules, mode, SETTINGS, lights=lights, debounce_ms=30)
    return [e.to_json() for e in events]


def move(t: int, ply: int, side: str, text: str, path: list[int], captures: list[int] | None = None) -> dict:
    return {"t": t, "event": "move", "ply": ply, "side": side, "move": text, "path": path, "captures": captures or []}


def warning(t: int, code: str, squares: list[int], message: str) -> dict:
    return {"t": t, "event": "warning", "code": code, "squares": squares, "message": message}


def final(t: int, fen: str, plies: int) -> dict:
    return {"t": t, "event": "final", "fen": fen, "plies": plies}


AFTER_11_15 = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
AFTER_9_13 = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,11,12,13"
START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


# -- plain moves ------------------------------------------------------------------------


def test_lift_then_place():
    assert run("lift 11\nwait 400\nplace 15") == [
        move(730, 1, "black", "11-15", [11, 15]),
        final(730, AFTER_11_15, 1),
    ]


def test_slide_places_before_it_lifts():
    # 15 closes at 0 (accepted 30), 11 opens at 15 (accepted 45): settled at 345.
    assert run("place 15\nwait 15\nlift 11") == [
        move(345, 1, "black", "11-15", [11, 15]),
        final(345, AFTER_11_15, 1),
    ]


def test_piece_put_back_and_bounces_are_nothing():
    script = """
        lift 11
        wait 200
        place 11      # put back on its own square...
        wait 3
        lift 11       # ...with a bounce shorter than the debounce
        wait 3
        place 11
        wait 1000
        lift 11
        wait 200
        place 15
        wait 4
        lift 15
        wait 4
        place 15      # accepted at 1414 + 30
    """
    assert run(script) == [move(1744, 1, "black", "11-15", [11, 15]), final(1744, AFTER_11_15, 1)]


def test_lines_without_wait_happen_at_the_same_instant():
    assert run("lift 11\nplace 15") == [move(330, 1, "black", "11-15", [11, 15]), final(330, AFTER_11_15, 1)]


# -- captures ---------------------------------------------------------------------------

CAPTURE = "B:W18,30:B15,1"  # Black's 15x22 takes 18
AFTER_CAPTURE = "W:W30:B1,22"


@pytest.mark.parametrize(
    "script",
    [
        "lift 18\nwait 300\nlift 15\nwait 300\nplace 22",  # captured piece off first
        "lift 15\nwait 300\nlift 18\nwait 300\nplace 22",  # while the jumper is in the hand
        "lift 15\nwait 300\nplace 22\nwait 300\nlift 18",  # after the jump
    ],
)
def test_captured_piece_removed_before_during_or_after(script):
    assert run(script, CAPTURE) == [
        move(930, 1, "black", "15x22", [15, 22], [18]),
        final(930, AFTER_CAPTURE, 1),
    ]


DOUBLE = "B:W15,23,32:B10,1"  # Black's 10x19x26 takes 15 and 23


@pytest.mark.parametrize(
    "script",
    [
        # Square by square, captured pieces off between the landings.
        "lift 10\nwait 300\nplace 19\nwait 300\nlift 15\nwait 300\nlift 19\nwait 300\nplace 26\nwait 300\nlift 23",
        # Straight from start to end, captured pieces off in the other order.
        "lift 10\nwait 600\nplace 26\nwait 600\nlift 23\nwait 300\nlift 15",
        # Both captured pieces off before the jumper moves.
        "lift 23\nwait 300\nlift 15\nwait 600\nlift 10\nwait 600\nplace 26",
    ],
)
def test_multi_jump_in_any_order(script):
    assert run(script, DOUBLE) == [
        move(1830, 1, "black", "10x26", [10, 19, 26], [15, 23]),
        final(1830, "W:W32:B1,26", 1),
    ]


def test_routes_with_the_same_ends_are_written_in_full():
    # The man on 2 can take 6 and 14 (via 9) or 7 and 15 (via 11) to reach 18.
    script = "lift 2\nwait 300\nplace 11\nwait 300\nlift 11\nwait 300\nplace 18\nwait 300\nlift 7\nwait 300\nlift 15"
    assert run(script, "B:W6,7,14,15:B2") == [
        move(1830, 1, "black", "2x11x18", [2, 11, 18], [7, 15]),
        final(1830, "W:W6,14:B18", 1),
    ]


def test_ring_of_jumps_back_to_the_start_is_told_by_its_landings():
    # A king on 2 takes all four men round a ring, either way; both leave the same board.
    landings = "lift 2\nwait 300\nplace 11\nwait 300\nlift 11\nwait 300\nplace 18\nwait 300\nlift 18\nwait 300\nplace 9\nwait 300\nlift 9\nwait 300\nplace 2\nwait 300\n"
    script = landings + "lift 7\nlift 15\nlift 6\nlift 14"
    assert run(script, "B:W6,7,14,15:BK2") == [
        move(2730, 1, "black", "2x11x18x9x2", [2, 11, 18, 9, 2], [7, 15, 14, 6]),
        {"t": 2730, "event": "game-over", "result": "1-0", "reason": "no-moves"},
        final(2730, "W:W:BK2", 1),
    ]


def test_a_result_that_is_also_part_way_through_another_route_waits_for_patience():
    # Pool checkers: the flying king on 25 takes the same four men going round either
    # way. With the king on 18 and every captured man off, the board is the end of one
    # route and the first landing of the other: it is accepted after patience_ms, or at
    # once when the opponent starts.
    from crownhead.rules.variants import rules_for

    fen = "B:W16,19,22,23,24,26,28,29,31:B2,3,4,5,6,7,8,10,12,14,K25"
    hands = (
        "lift 25\nwait 300\nplace 11\nwait 300\nlift 11\nwait 300\nplace 20\nwait 300\nlift 20\nwait 300\n"
        "place 27\nwait 300\nlift 27\nwait 300\nplace 18\nwait 300\nlift 22\nwait 300\nlift 16\nwait 300\n"
        "lift 24\nwait 300\nlift 23"  # the last change, accepted at 3330
    )
    after = "W:W19,26,28,29,31:B2,3,4,5,6,7,8,10,12,14,K18"
    made = move(5830, 1, "black", "25x18", [25, 11, 20, 27, 18], [22, 16, 24, 23])
    assert run(hands, fen, rules=rules_for("pool")) == [made, final(5830, after, 1)]
    events = run(hands + "\nwait 500\nlift 31", fen, rules=rules_for("pool"))
    assert events == [made | {"t": 3830}, final(3830, after, 1)]


# -- fast replies -----------------------------------------------------------------------


def test_fast_reply_is_neither_lost_nor_merged():
    # White lifts 22 only 100 ms after Black's man landed: 11-15 is accepted at that lift.
    script = "lift 11\nwait 300\nplace 15\nwait 100\nlift 22\nwait 300\nplace 18"
    assert run(script) == [
        move(430, 1, "black", "11-15", [11, 15]),
        move(1030, 2, "white", "22-18", [22, 18]),
        final(1030, "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15", 2),
    ]


def test_fast_reply_slid_in_before_the_move_settled():
    # 50 ms after 15 was covered, White slides 22 to 18 (18 covered 20 ms before 22 opens).
    script = "lift 11\nwait 300\nplace 15\nwait 50\nplace 18\nwait 20\nlift 22"
    assert run(script) == [
        move(380, 1, "black", "11-15", [11, 15]),
        move(700, 2, "white", "22-18", [22, 18]),
        final(700, "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15", 2),
    ]


def test_fast_exchange_starting_with_the_piece_just_moved():
    # Black 15x22; 80 ms later White takes the man on 22 off (it is captured by 25x18)
    # and then lifts 25: the board never showed Black's result alone.
    fen = "B:W18,26,31:B15,1"
    script = "lift 15\nwait 300\nplace 22\nwait 300\nlift 18\nwait 80\nlift 22\nwait 200\nlift 26\nwait 300\nplace 17"
    assert run(script, fen) == [
        move(910, 1, "black", "15x22", [15, 22], [18]),
        move(1510, 2, "white", "26x17", [26, 17], [22]),
        final(1510, "B:W17,31:B1", 2),
    ]


# -- patience ---------------------------------------------------------------------------


def test_jumper_stopping_midway_gets_guidance_at_once_and_a_warning_after_patience():
    script = "lift 10\nwait 300\nplace 19\nwait 3000\nlift 19\nwait 300\nplace 26\nwait 400\nlift 23\nwait 500\nlift 15"
    events = run(script, DOUBLE, lights=True)
    assert events == [
        {"t": 0, "event": "lights", "roles": {"10": "must-capture"}},
        {"t": 30, "event": "lights", "roles": {"10": "touched", "15": "capture", "19": "target", "23": "capture"}},
        {"t": 330, "event": "lights", "roles": {"15": "remove", "23": "capture", "26": "next-jump"}},
        warning(2830, "continue-capture", [26], "the capture is not finished: jump on to 26"),
        {"t": 3630, "event": "lights", "roles": {"15": "remove", "23": "remove"}},
        {"t": 4030, "event": "lights", "roles": {"15": "remove"}},
        {"t": 4530, "event": "lights", "roles": {}},
        move(4830, 1, "black", "10x26", [10, 19, 26], [15, 23]),
        {"t": 4830, "event": "lights", "roles": {"10": "last-from", "26": "last-to"}},
        final(4830, "W:W32:B1,26", 1),
    ]


def test_captured_pieces_left_on_the_board_are_reported_after_patience_once():
    script = "lift 10\nwait 300\nplace 26\nwait 3000\nlift 23\nwait 3000\nlift 15"
    assert run(script, DOUBLE) == [
        warning(2830, "remove-captured", [15, 23], "take the captured pieces off 15 and 23"),
        move(6630, 1, "black", "10x26", [10, 26], [15, 23]) | {"move": "10x26", "path": [10, 19, 26]},
        final(6630, "W:W32:B1,26", 1),
    ]


def test_remove_captured_at_once_when_the_opponent_starts_to_move():
    # The captured man on 15 is still there when White lifts 32: warned at once. Someone
    # takes 15 off: Black's move is complete and White's lift is the start of the reply.
    script = (
        "lift 10\nwait 300\nplace 19\nwait 300\nlift 19\nwait 300\nplace 26\nwait 400\nlift 23\n"
        "wait 500\nlift 32\nwait 400\nlift 15\nwait 200\nplace 27"
    )
    assert run(script, DOUBLE) == [
        warning(1830, "remove-captured", [15], "take the captured piece off 15"),
        move(2230, 1, "black", "10x26", [10, 19, 26], [15, 23]),
        move(2730, 2, "white", "32-27", [32, 27]),
        final(2730, "B:W27:B1,26", 2),
    ]


# -- touch-move, adjust, forced capture, unplayable pieces --------------------------------


def test_touch_move_in_play_mode_warns_and_accepts_the_move():
    script = "lift 11\nwait 300\nplace 11\nwait 1000\nlift 9\nwait 300\nplace 13"
    assert run(script) == [
        warning(1330, "touch-move", [11], "touch-move: the man on 11 was touched first and must be played"),
        move(1930, 1, "black", "9-13", [9, 13]),
        final(1930, AFTER_9_13, 1),
    ]


def test_touch_move_in_referee_mode_refuses_another_piece():
    script = (
        "lift 11\nwait 300\nplace 11\nwait 1000\nlift 9\nwait 300\nplace 13\nwait 1000\n"
        "lift 13\nwait 100\nplace 9\nwait 500\nlift 11\nwait 300\nplace 16"
    )
    assert run(script, mode="referee") == [
        warning(1330, "touch-move", [11], "touch-move: the man on 11 was touched first and must be played"),
        warning(
            1930,
            "illegal-move",
            [9, 13],
            "touch-move: the piece on 11 was touched and must be played; put the man back on 9",
        ),
        move(3830, 1, "black", "11-16", [11, 16]),
        final(3830, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,16", 1),
    ]


def test_adjust_before_lifting_is_not_a_touch():
    script = "press adjust\nlift 11\nwait 300\nplace 11\nwait 1000\nlift 9\nwait 300\nplace 13"
    assert run(script) == [move(1930, 1, "black", "9-13", [9, 13]), final(1930, AFTER_9_13, 1)]


def test_forced_capture_warned_at_once_and_the_quiet_move_refused():
    fen = "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"  # after 11-15 22-18
    script = (
        "lift 9\nwait 500\nplace 14\nwait 1000\nlift 14\nwait 100\nplace 9\nwait 500\n"
        "lift 15\nwait 200\nplace 22\nwait 200\nlift 18"
    )
    events = run(script, fen, lights=True)
    assert events == [
        {"t": 0, "event": "lights", "roles": {"15": "must-capture"}},
        warning(
            30,
            "forced-capture",
            [15],
            "a capture is compulsory: the man on 9 cannot capture; capture with the piece on 15",
        ),
        {"t": 30, "event": "lights", "roles": {"9": "error", "15": "must-capture"}},
        {"t": 530, "event": "lights", "roles": {"9": "error", "14": "extra", "15": "must-capture"}},
        warning(830, "illegal-move", [9, 14], "a capture is compulsory: 9-14 is not allowed; put the man back on 9"),
        {"t": 1530, "event": "lights", "roles": {"9": "error", "15": "must-capture"}},
        {"t": 1630, "event": "lights", "roles": {"15": "must-capture"}},
        {"t": 2130, "event": "lights", "roles": {"15": "touched", "18": "capture", "22": "target"}},
        {"t": 2330, "event": "lights", "roles": {"18": "remove"}},
        {"t": 2530, "event": "lights", "roles": {}},
        move(2830, 1, "black", "15x22", [15, 22], [18]),
        {
            "t": 2830,
            "event": "lights",
            "roles": {"15": "last-from", "22": "last-to", "25": "must-capture", "26": "must-capture"},
        },
        final(2830, "W:W21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,22", 1),
    ]


def test_non_capturing_move_while_a_capture_exists_is_illegal_even_with_a_jumper():
    fen = "B:W18,30:B15,1"
    assert run("lift 15\nwait 300\nplace 19\nwait 1000", fen) == [
        warning(630, "illegal-move", [15, 19], "a capture is compulsory: 15-19 is not allowed; put the man back on 15"),
        final(1300, "B:W18,30:B1,15", 0),
    ]


def test_unplayable_piece():
    script = "lift 1\nwait 300\nplace 1\nwait 1000\nlift 9\nwait 300\nplace 13"
    assert run(script) == [
        warning(30, "unplayable-piece", [1], "the man on 1 has no legal move; put it back"),
        move(1930, 1, "black", "9-13", [9, 13]),
        final(1930, AFTER_9_13, 1),
    ]


# -- crowning ---------------------------------------------------------------------------

CROWNING = "W:W18:B14,6,7"  # White's 18x9x2 takes 14 and 6 and crowns on 2


def test_crowning_prompt_and_the_king_remembered():
    script = (
        "lift 18\nwait 300\nplace 9\nwait 300\nlift 14\nwait 200\nlift 9\nwait 200\nplace 2\nwait 200\n"
        "lift 6\nwait 1000\nlift 7\nwait 300\nplace 10\nwait 1000\nlift 2\nwait 300\nplace 6"
    )
    events = run(script, CROWNING, lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        move(1530, 1, "white", "18x2", [18, 9, 2], [14, 6]),
        {"t": 1530, "event": "crown", "square": 2},
        move(2830, 2, "black", "7-10", [7, 10]),
        # The king moves backward: the board knows it is a king from history alone.
        move(4130, 3, "white", "2-6", [2, 6]),
        final(4130, "B:WK6:B10", 3),
    ]
    lights = {e["t"]: e["roles"] for e in events if e["event"] == "lights"}
    assert lights[1530] == {"2": "crown", "18": "last-from"}
    assert lights[2230] == {"2": "king", "7": "touched", "10": "target", "11": "target"}
    assert lights[4130] == {"2": "last-from", "6": "king"}


def test_crowned_man_swapped_for_a_king_raises_nothing():
    script = (
        "lift 18\nwait 300\nplace 2\nwait 300\nlift 14\nwait 200\nlift 6\nwait 1000\n"
        "lift 2\nwait 1500\nplace 2\nwait 1000\nlift 7\nwait 300\nplace 10"
    )
    assert run(script, CROWNING) == [
        move(1130, 1, "white", "18x2", [18, 9, 2], [14, 6]),
        {"t": 1130, "event": "crown", "square": 2},
        move(4930, 2, "black", "7-10", [7, 10]),
        final(4930, "W:WK2:B10", 2),
    ]


# -- illegal moves and a board out of sync ------------------------------------------------


def test_illegal_move_is_explained_and_nothing_is_committed():
    script = (
        "lift 11\nwait 300\nplace 14\nwait 5000\nlift 14\nwait 300\nplace 11\nwait 1000\nlift 11\nwait 300\nplace 15"
    )
    events = run(script, lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        warning(630, "illegal-move", [11, 14], "11-14 is not a legal move; put the man back on 11"),
        move(7230, 1, "black", "11-15", [11, 15]),
        final(7230, AFTER_11_15, 1),
    ]
    lights = {e["t"]: e["roles"] for e in events if e["event"] == "lights"}
    assert lights[330] == {"11": "touched", "14": "extra", "15": "target", "16": "target"}


def test_board_out_of_sync_shows_missing_and_extra_until_it_matches_again():
    script = (
        "lift 29\nwait 20\nplace 25\nwait 60000\n"  # White's 29 knocked onto 25 on Black's turn
        "lift 25\nwait 100\nplace 29\nwait 1000\nlift 11\nwait 300\nplace 15"
    )
    events = run(script, "B:W21,22,23,24,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        warning(350, "out-of-sync", [25, 29], "it is Black's turn: put the man back on 29"),
        move(61750, 1, "black", "11-15", [11, 15]),
        final(61750, "W:W21,22,23,24,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15", 1),
    ]
    lights = [e for e in events if e["event"] == "lights"]
    assert lights[:2] == [
        {"t": 30, "event": "lights", "roles": {"29": "missing"}},
        {"t": 50, "event": "lights", "roles": {"25": "extra", "29": "missing"}},
    ]


# -- correction and takeback (casual play) -----------------------------------------------


def test_last_move_corrected_before_the_opponent_touches():
    script = "lift 11\nwait 300\nplace 15\nwait 1000\nlift 15\nwait 300\nplace 16"
    assert run(script) == [
        move(630, 1, "black", "11-15", [11, 15]),
        {"t": 1930, "event": "takeback", "ply": 1},
        move(1930, 1, "black", "11-16", [11, 16]),
        final(1930, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,16", 1),
    ]


def test_capture_corrected_into_another_capture():
    # 15x22 took 18; the jumper goes back into the hand and takes 19 instead (15x24), and
    # the man on 18 is put back.
    script = (
        "lift 15\nwait 300\nplace 22\nwait 300\nlift 18\nwait 1000\n"
        "lift 22\nwait 300\nplace 24\nwait 300\nlift 19\nwait 300\nplace 18"
    )
    events = run(script, "B:W18,19,30:B15,1", lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        move(930, 1, "black", "15x22", [15, 22], [18]),
        {"t": 2830, "event": "takeback", "ply": 1},
        move(2830, 1, "black", "15x24", [15, 24], [19]),
        final(2830, "W:W18,30:B1,24", 1),
    ]
    lights = {e["t"]: e["roles"] for e in events if e["event"] == "lights"}
    assert lights[1630] == {"15": "touched", "19": "capture", "22": "target", "24": "target"}
    # Once the man stands on 24, the man taken from 18 must come back.
    assert lights[1930] == {"18": "missing", "19": "remove"}
    assert lights[2230] == {"18": "missing"}


def test_no_correction_once_the_opponent_has_touched_a_piece():
    # White touches 22 and puts it back; Black's man moved from 15 to 16 is now just wrong.
    script = (
        "lift 11\nwait 300\nplace 15\nwait 1000\nlift 22\nwait 300\nplace 22\nwait 1000\nlift 15\nwait 500\nplace 16"
    )
    events = run(script, lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        move(630, 1, "black", "11-15", [11, 15]),
        warning(2930, "out-of-sync", [15], "the board does not match the game: put a piece on 15"),
        final(3130, AFTER_11_15, 1),
    ]
    assert events[-2] == {"t": 3130, "event": "lights", "roles": {"15": "missing", "16": "extra"}}


def test_takeback_by_restoring_the_position_before():
    # 11-15 22-18 15x22, then the capture is undone (18 put back, the jumper back on 15),
    # then White's 22-18 is undone too.
    script = (
        "lift 11\nwait 300\nplace 15\nwait 1000\nlift 22\nwait 300\nplace 18\nwait 1000\n"
        "lift 15\nwait 300\nplace 22\nwait 300\nlift 18\nwait 1000\n"
        "place 18\nwait 300\nlift 22\nwait 300\nplace 15\nwait 1000\n"
        "lift 18\nwait 300\nplace 22"
    )
    assert run(script) == [
        move(630, 1, "black", "11-15", [11, 15]),
        move(1930, 2, "white", "22-18", [22, 18]),
        move(3530, 3, "black", "15x22", [15, 22], [18]),
        {"t": 5130, "event": "takeback", "ply": 3},
        {"t": 6430, "event": "takeback", "ply": 2},
        final(6430, AFTER_11_15, 1),
    ]


def test_takeback_button_then_the_board_is_guided_back():
    script = "lift 11\nwait 300\nplace 15\nwait 1000\npress takeback\nwait 500\nlift 15\nwait 300\nplace 16"
    events = run(script, lights=True)
    assert events == [
        {"t": 30, "event": "lights", "roles": {"11": "touched", "15": "target", "16": "target"}},
        {"t": 330, "event": "lights", "roles": {}},
        move(630, 1, "black", "11-15", [11, 15]),
        {"t": 630, "event": "lights", "roles": {"11": "last-from", "15": "last-to"}},
        {"t": 1300, "event": "takeback", "ply": 1},
        {"t": 1300, "event": "lights", "roles": {"11": "missing", "15": "extra"}},
        # The man lifted off 15 is part-way back (issue 50): 11 is to fill, and 15 is no
        # target (a man put there is the move taken back, never read as made again).
        {"t": 1830, "event": "lights", "roles": {"11": "missing"}},
        {"t": 2130, "event": "lights", "roles": {}},
        move(2430, 1, "black", "11-16", [11, 16]),
        {"t": 2430, "event": "lights", "roles": {"11": "last-from", "16": "last-to"}},
        final(2430, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,16", 1),
    ]


def test_referee_mode_has_no_takeback():
    script = "lift 11\nwait 300\nplace 15\nwait 1000\nlift 15\nwait 200\nplace 11\nwait 1000\npress takeback"
    assert run(script, mode="referee") == [
        move(630, 1, "black", "11-15", [11, 15]),
        warning(1830, "out-of-sync", [11, 15], "it is White's turn: put the man back on 15"),
        final(2500, AFTER_11_15, 1),
    ]


# -- new game, game over, buttons ---------------------------------------------------------


def test_new_game_starts_when_the_start_position_stands():
    script = "lift 11\nwait 300\nplace 15\nwait 1000\npress new\nwait 500\nlift 15\nwait 300\nplace 11\nwait 1000\nlift 11\nwait 300\nplace 16"
    events = run(script, lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        move(630, 1, "black", "11-15", [11, 15]),
        {"t": 2130, "event": "new-game", "fen": START},
        move(3730, 1, "black", "11-16", [11, 16]),
        final(3730, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,16", 1),
    ]
    lights = {e["t"]: e["roles"] for e in events if e["event"] == "lights"}
    assert lights[1300] == {"11": "missing", "15": "extra"}
    assert lights[1830] == {"11": "missing"}
    assert lights[2130] == {}


def test_game_over_when_the_side_to_move_has_no_move():
    assert run("lift 14\nwait 300\nplace 23\nwait 300\nlift 18", "B:W18:B14") == [
        move(930, 1, "black", "14x23", [14, 23], [18]),
        {"t": 930, "event": "game-over", "result": "1-0", "reason": "no-moves"},
        final(930, "W:W:B23", 1),
    ]


def test_resign_and_an_invalid_claim():
    assert run("press claim\nwait 100\npress resign\nwait 2000\npress resign") == [
        {
            "t": 0,
            "event": "claim",
            "valid": False,
            "reason": "none",
            "side": "black",
            "message": "Black claims a draw: refused, no move of Black's makes a position stand a third time, and"
            " 0 of the 80 plies of the forty-move rule have passed without a man moving or a capture; play goes on",
        },
        {"t": 100, "event": "resign-confirm", "side": "black", "until": 3100},
        {"t": 2100, "event": "game-over", "result": "0-1", "reason": "resign"},
        final(2100, START, 0),
    ]


def test_resign_needs_a_second_press_within_3_s_or_a_long_press():
    # Before: one press of resign ended the game at once.
    assert run("press resign\nwait 3100\npress resign") == [
        {"t": 0, "event": "resign-confirm", "side": "black", "until": 3000},
        {"t": 3100, "event": "resign-confirm", "side": "black", "until": 6100},
        final(3100, START, 0),
    ]
    assert run("hold resign") == [
        {"t": 0, "event": "game-over", "result": "0-1", "reason": "resign"},
        final(0, START, 0),
    ]
    # One side's press does not confirm the other's.
    assert run("press black_resign\nwait 100\npress white_resign\nwait 100\npress white_resign") == [
        {"t": 0, "event": "resign-confirm", "side": "black", "until": 3000},
        {"t": 100, "event": "resign-confirm", "side": "white", "until": 3100},
        {"t": 200, "event": "game-over", "result": "1-0", "reason": "resign"},
        final(200, START, 0),
    ]
    # One button per side: a long press resigns.
    assert run("press black\nwait 100\nhold white") == [
        {"t": 0, "event": "draw-offer", "ply": 0, "side": "black"},
        {"t": 100, "event": "game-over", "result": "1-0", "reason": "resign"},
        final(100, START, 0),
    ]


def test_draw_is_agreed_only_between_two_known_sides():
    # Before: draw did nothing in play mode; the shared button twice must not agree.
    assert run("press draw\nwait 100\npress draw") == [
        {"t": 0, "event": "draw-offer", "ply": 0, "side": ""},
        {"t": 100, "event": "draw-offer", "ply": 0, "side": ""},
        final(100, START, 0),
    ]
    assert run("press black_draw\nwait 100\npress black_draw\nwait 100\npress draw") == [
        {"t": 0, "event": "draw-offer", "ply": 0, "side": "black"},
        {"t": 100, "event": "draw-offer", "ply": 0, "side": "black"},
        {"t": 200, "event": "draw-offer", "ply": 0, "side": ""},
        final(200, START, 0),
    ]
    assert run("press black_draw\nwait 100\npress white") == [
        {"t": 0, "event": "draw-offer", "ply": 0, "side": "black"},
        {"t": 100, "event": "game-over", "result": "1/2-1/2", "reason": "agreement"},
        final(100, START, 0),
    ]
    # A move declines the offer, and the offer's lapse is told: the answer after it is a
    # new offer (before issue 50 the offer lapsed silently).
    assert run("press white_draw\nwait 100\nlift 11\nplace 15\nwait 1000\npress black_draw") == [
        {"t": 0, "event": "draw-offer", "ply": 0, "side": "white"},
        move(430, 1, "black", "11-15", [11, 15]),
        {
            "t": 430,
            "event": "draw-lapsed",
            "ply": 0,
            "side": "white",
            "message": "White's draw offer lapsed: Black moved instead of accepting it"
            " (an offer stands until it is answered or a move is made)",
        },
        {"t": 1100, "event": "draw-offer", "ply": 1, "side": "black"},
        final(1100, "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15", 1),
    ]


def test_takeback_after_a_resignation_reopens_the_game_and_takes_back_no_move():
    # The buttons reach the tracker through the follower: resign to the session, takeback here.
    board = Follower(Tracker(Game(None, WCDF), SETTINGS))
    tracker = board.tracker
    board.update(tracker.position.occupied & ~bit(11) | bit(15), 0)
    assert [e.kind for e in board.tick(300)] == ["move"]
    assert [e.kind for e in board.press("resign", 400, long=True)] == ["game-over"]
    events = board.press("takeback", 500)
    assert [e.to_json() for e in events] == [{"t": 500, "event": "reopened", "ply": 1, "reason": "resign"}]
    assert tracker.game.ply == 1 and not tracker.game.is_over
    # The game goes on: White's reply is read as usual.
    board.update(tracker.position.occupied & ~bit(22) | bit(18), 600)
    assert [e.kind for e in board.tick(1000)] == ["move"] and tracker.game.ply == 2


def test_the_takeback_command_reopens_a_resignation_only_where_takebacks_are_allowed():
    # The follower asks the session first (its own command as the button does); a mode
    # without takebacks, or a set-up under way, leaves the resignation standing.
    def resigned(mode: str) -> Follower:
        board = Follower(Tracker(Game(None, WCDF), SETTINGS, mode))
        board.update(board.tracker.position.occupied & ~bit(11) | bit(15), 0)
        assert [e.kind for e in board.tick(300)] == ["move"]
        board.resign(None, 400, confirmed=True)
        return board

    board = resigned("play")
    assert [e.kind for e in board.take_back(500)] == ["reopened"]
    assert board.game.ply == 1 and not board.game.is_over
    board = resigned("referee")
    assert board.take_back(500) == [] and board.game.ply == 1 and board.game.is_over
    board = resigned("play")
    board.new_game(None, 500)  # the board is being set up for the next game: 15 back on 11
    assert board.tracker.setting_up is not None
    assert board.take_back(600) == [] and board.game.ply == 1 and board.game.is_over


# The king on 2 has two routes to 20: 2x11x20 (takes 7 and 16) and 2x9x18x11x20 (6, 14, 15, 16).
TWO_ROUTES = "B:W6,7,14,15,16,30:BK2"


@pytest.mark.parametrize(
    ("script", "message"),
    [
        # One piece of each route taken: the route explaining most is named, with what it spares.
        (
            "lift 7\nlift 6\nwait 200\nlift 2\nplace 20",
            "2x11x20 takes the pieces on 7 and 16, not the one on 6; put it back",
        ),
        (
            "lift 2\nwait 100\nlift 7\nlift 30\nwait 100\nplace 20",
            "2x11x20 takes the pieces on 7 and 16, not the one on 30; put it back",
        ),
        (
            "lift 2\nwait 100\nlift 7\nlift 30\nlift 6\nwait 100\nplace 20",
            "2x11x20 takes the pieces on 7 and 16, not those on 6 and 30; put them back",
        ),
    ],
)
def test_illegal_move_names_the_route_and_the_pieces_to_put_back(script, message):
    assert run(script, TWO_ROUTES) == [
        warning(530, "illegal-move", [2, 20], message),
        final(530, TWO_ROUTES, 0),
    ]


def test_a_piece_the_opponent_holds_is_no_part_of_the_move():
    # White lifts its man on 22 before Black begins: Black's 11-15 is Black's move, and
    # the man from 22 is guided back before White's move is read (issue 13, item 1).
    assert run("lift 22\nwait 100\nlift 11\nplace 15") == [
        move(430, 1, "black", "11-15", [11, 15]),
        final(430, AFTER_11_15, 1),
    ]
    # A flying king's plain move along the diagonal, a piece beside it held.
    assert run("lift 10\nwait 100\nlift 29\nplace 15", "B:W10,32:BK29", rules=Rules(flying_kings=True)) == [
        move(430, 1, "black", "29-15", [29, 15]),
        final(430, "W:W10,32:BK15", 1),
    ]


def test_a_piece_in_hand_makes_no_move_when_the_opponent_reaches_in():
    # White's 18 could jump a man on 14: lifting it while Black holds the man from 9 must
    # not be read as 9-14 made and the reply begun; the man goes to 13.
    assert run("lift 9\nwait 100\nlift 18\nwait 100\nplace 13\nwait 1000", "B:W18:B9") == [
        move(230, 1, "black", "9-13", [9, 13]),
        final(1200, "W:W18:B13", 1),
    ]


def test_resign_gives_up_the_side_played_at_the_board():
    # White's moves come from elsewhere: a resign press while White is to move is Black's.
    board = Follower(Tracker(Game(None, WCDF), SETTINGS))
    tracker = board.tracker
    board.session.hold(Color.WHITE, "the engine")
    board.update(tracker.position.occupied & ~bit(11) | bit(15), 0)
    assert [e.kind for e in board.tick(300)] == ["move"] and tracker.game.turn == Color.WHITE
    over = [e for e in board.press("resign", 400, long=True) if e.kind == "game-over"]
    assert [(e.result, e.reason) for e in over] == [("0-1", "resign")]


@pytest.mark.parametrize(("held", "score"), [((), "0-1"), ((Color.BLACK, Color.WHITE), "0-1"), ((Color.BLACK,), "1-0")])
def test_resign_by_the_side_to_move_unless_only_it_is_held(held, score):
    # Black to move: both sides at the board, or both elsewhere -> the side to move resigns;
    # Black played elsewhere -> the person at the board plays White and resigns for White.
    board = Follower(Tracker(Game(None, WCDF), SETTINGS))
    for side in held:
        board.session.hold(side, "elsewhere")
    assert [e.kind for e in board.press("resign", 0)] == ["resign-confirm"]
    over = [e for e in board.press("resign", 100) if e.kind == "game-over"]
    assert [(e.result, e.reason) for e in over] == [(score, "resign")]


# -- the tracker's API ---------------------------------------------------------------------


def occupancy_without(position: Position, *squares: int) -> int:
    board = position.occupied
    for s in squares:
        board &= ~bit(s)
    return board


def test_expected_move_is_shown_and_is_the_only_one_accepted():
    tracker = Tracker(Game(None, WCDF), SETTINGS)
    wanted = Move((11, 16))
    tracker.expect(wanted)
    assert tracker.roles == {11: "move-from", 16: "move-to"}
    start = tracker.position.occupied
    # Another legal move is refused.
    other = start & ~bit(11) | bit(15)
    assert tracker.update(other, 1000) == []
    assert [e.to_json() for e in tracker.tick(1300)] == [
        {
            "t": 1300,
            "event": "warning",
            "code": "illegal-move",
            "squares": [11, 15],
            "message": "the board wants 11-16 played; put the man back on 11",
        }
    ]
    assert tracker.game.ply == 0
    assert tracker.update(start, 2000) == []
    assert tracker.warning is None
    assert tracker.update(start & ~bit(11) | bit(16), 3000) == []
    assert [e.to_json()["move"] for e in tracker.tick(3300)] == ["11-16"]
    assert tracker.expected is None


def test_expected_capture_shows_path_and_captures():
    tracker = Tracker(Game(Position.from_fen(DOUBLE), WCDF), SETTINGS)
    tracker.expect(Move((10, 19, 26), (15, 23)))
    assert tracker.roles == {10: "move-from", 19: "move-path", 26: "move-to", 15: "capture", 23: "capture"}
    with pytest.raises(ValueError, match="not a legal move"):
        tracker.expect(Move((10, 14)))


def test_board_argument_resumes_a_game_guided_back_to_its_position():
    # A game resumed after 11-15 while the board shows the start position: the lights
    # guide the man back to 15; nothing is read as a move or a takeback meanwhile.
    game = Game(None, WCDF)
    game.play_text("11-15")
    start = Position.start().occupied
    for mode in ("play", "referee"):
        tracker = Tracker(game, SETTINGS, mode, board=start)
        assert not tracker.board_matches
        assert tracker.reading.kind is Kind.RESTORE
        assert tracker.roles == {11: "extra", 15: "missing"}
        assert tracker.tick(10_000) == [] and tracker.next_deadline() is None
        assert tracker.update(start & ~bit(11), 10_100) == []
        assert tracker.roles == {15: "missing"}
        assert tracker.update(game.position.occupied, 10_200) == []
        assert tracker.board_matches and tracker.game.ply == 1
        assert tracker.roles == {11: "last-from", 15: "last-to"}
        # Play goes on.
        board = game.position.occupied & ~bit(22) | bit(18)
        assert tracker.update(board, 11_000) == []
        assert [e.to_json()["move"] for e in tracker.tick(11_300)] == ["22-18"]
        game.undo()


def test_new_game_from_a_given_position():
    tracker = Tracker(Game(None, WCDF), SETTINGS)
    target = Position.from_fen(DOUBLE)
    assert tracker.new_game(target, 10) == []
    assert tracker.setting_up == target
    assert set(tracker.roles.values()) == {"extra", "missing"}
    events = tracker.update(target.occupied, 20)
    assert [e.to_json() for e in events] == [{"t": 20, "event": "new-game", "fen": target.fen()}]
    assert tracker.position == target and tracker.board_matches


def test_a_lifted_piece_shows_its_targets():
    tracker = Tracker(Game(None, WCDF), SETTINGS)
    tracker.update(occupancy_without(tracker.position, 11), 5)
    assert tracker.roles == {11: "touched", 15: "target", 16: "target"}
    assert tracker.touched == 11
    assert tracker.next_deadline() is None


def test_settings_and_modes_are_checked():
    with pytest.raises(ValueError, match="settle_ms"):
        TrackerSettings(settle_ms=-1)
    with pytest.raises(ValueError, match="unknown mode"):
        Tracker(Game(None, WCDF), SETTINGS, "blitz")
    custom = ModePolicy("house", takeback=False)
    assert Tracker(Game(None, WCDF), SETTINGS, custom).mode == "house"


def test_visible_roles_hide_hints():
    roles = {11: "touched", 15: "target", 18: "capture", 9: "must-capture", 2: "king"}
    assert visible_roles(roles, hints=False) == {11: "touched", 2: "king"}
    assert visible_roles(roles, hints=True) == roles
    assert HINT_ROLES < set(ROLES)


def test_referee_lights_show_no_hints():
    events = run("lift 11\nwait 300\nplace 15", mode="referee", lights=True)
    lights = [e["roles"] for e in events if e["event"] == "lights"]
    assert lights == [{"11": "touched"}, {}, {"11": "last-from", "15": "last-to"}]


def test_clean_moves_give_no_warning_with_captures_optional_and_backward_men():
    rules = Rules(men_capture_backward=True, captures_compulsory=False)
    # With captures optional, the quiet 15-19 is legal although 15x22 is available.
    events = run("lift 15\nwait 300\nplace 19", "B:W18,30:B15,1", rules=rules)
    assert [e["event"] for e in events] == ["move", "final"]
    # A man capturing backward.
    events = run("lift 15\nwait 300\nplace 8\nwait 300\nlift 11", "B:W11,30:B15,1", rules=rules)
    assert events[0] == move(930, 1, "black", "15x8", [15, 8], [11])


def test_every_move_event_is_legal_where_it_was_made():
    script = (
        "lift 11\nwait 300\nplace 15\nwait 1000\nlift 22\nwait 300\nplace 18\nwait 1000\nlift 15\nplace 22\nlift 18"
    )
    game = Game(None, WCDF)
    for e in replay(parse_script(script), settings=SETTINGS, debounce_ms=30, position=None, rules=WCDF):
        if isinstance(e, MoveMade):
            game.play(Move(e.path, e.captures))
    assert game.ply == 3


@pytest.mark.parametrize(
    "name",
    [
        "crownhead.firmware.events",
        "crownhead.firmware.tracking.tracker",
        "crownhead.firmware.tracking.table",
        "crownhead.firmware.simulator.hands",
        "crownhead.firmware.tracking.controller",
        "crownhead.firmware.simulator.script",
    ],
)
def test_examples_in_the_docstrings(name):
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
