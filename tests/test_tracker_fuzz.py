"""Property tests: random hands on the board never break the tracker.

Whatever the stream of settled boards, button presses and pauses, the tracker never
raises, never commits an illegal move, and its position always equals its game's. A
shadow game replays the events independently: every ``move`` must be legal where it was
made, every ``takeback`` undoes the last move, every ``new-game`` starts over.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from crownhead.firmware.events import WARNING_CODES, BoardWarning, Crowned, GameOver, MoveMade, NewGame, TakenBack
from crownhead.firmware.simulator.hands import plain_actions
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.tracker import ROLES, Tracker, TrackerSettings
from crownhead.rules import Game, Move, Position, Rules
from crownhead.squares import bit

BUTTONS = ("adjust", "takeback", "new", "resign", "claim", "hint")

# One step of the stream: toggle a square, make a whole legal move by hand (plan index),
# press a button, or let time pass.
step = st.one_of(
    st.tuples(st.just("toggle"), st.integers(1, 32), st.integers(0, 700)),
    st.tuples(st.just("move"), st.integers(0, 40), st.integers(0, 700)),
    st.tuples(st.just("press"), st.sampled_from(BUTTONS), st.integers(0, 700)),
    st.tuples(st.just("wait"), st.integers(0, 4000), st.just(0)),
    st.tuples(st.just("restore"), st.just(0), st.integers(0, 700)),
)

START_FENS = [
    None,
    "B:W15,23,32:B10,1",  # a double jump
    "W:W18:B14,6,7",  # a double jump that crowns
    "B:WK14,K22,27:BK18,K19,3",  # kings, loops of jumps
    "W:W5:B1",  # almost over
    "B:W18:B9",  # 18 could jump a man on 14: reaching for it is no proof of 9-14
]


class Shadow:
    """The game as the events tell it, kept independently of the tracker."""

    def __init__(self, start: Position, rules: Rules) -> None:
        self.rules = rules
        self.game = Game(start, rules)

    def apply(self, event: object) -> None:
        if isinstance(event, MoveMade):
            assert not self.game.is_over, f"a move after the game ended: {event}"
            assert event.ply == self.game.ply + 1
            assert event.side == str(self.game.turn)
            move = Move(tuple(event.path), tuple(event.captures))
            assert move in self.game.legal_moves(), f"illegal move committed: {event}"
            self.game.play(move)
        elif isinstance(event, TakenBack):
            assert event.ply == self.game.ply
            self.game.undo()
        elif isinstance(event, NewGame):
            self.game = Game(Position.from_fen(event.fen), self.rules)
        elif isinstance(event, GameOver):
            assert event.result in ("1-0", "0-1", "1/2-1/2")
        elif isinstance(event, Crowned):
            assert self.game.position.kings & bit(event.square)
        elif isinstance(event, BoardWarning):
            assert event.code in WARNING_CODES
            assert all(1 <= s <= 32 for s in event.squares) and event.message


def run_stream(start: Position | None, rules: Rules, steps: list[tuple[str, object, int]], mode: str) -> None:
    start = start or Position.start()
    tracker = Tracker(Game(start, rules), TrackerSettings(settle_ms=300, patience_ms=2500), mode)
    # The hands' inputs reach the tracker as on the board: through the follower, which
    # routes the buttons (the game's to the session, the board's to the tracker).
    follower = Follower(tracker)
    shadow = Shadow(start, rules)
    board = start.occupied
    now = 0
    # Squares a piece was put on since the last committed move: a move is only made by
    # putting its piece down (or it stands there now, or it went round to its start).
    landed = 0

    def feed(events: list) -> None:
        nonlocal landed
        times = [e.t for e in events]
        assert times == sorted(times), f"events out of time order: {events}"
        for e in events:
            if isinstance(e, MoveMade):
                end = e.path[-1]
                assert (landed | board) & bit(end) or e.path[0] == end, f"{e.move} committed, never put down"
            shadow.apply(e)
            assert e.t <= now
            if isinstance(e, (MoveMade, TakenBack, NewGame)):
                landed = 0
        assert tracker.position == tracker.game.position == shadow.game.position
        assert set(tracker.roles.values()) <= set(ROLES)
        assert set(tracker.roles) <= set(range(1, 33))
        if tracker.warning is not None:
            assert tracker.warning.code in WARNING_CODES
        # Every timer due by now has run.
        deadline = follower.next_deadline()
        assert deadline is None or deadline > now

    for kind, arg, gap in steps:
        now += gap
        if kind == "toggle":
            board ^= bit(int(arg))  # type: ignore[arg-type]
            landed |= board & bit(int(arg))  # type: ignore[arg-type]
            feed(follower.update(board, now))
        elif kind == "move":
            legal = tracker.position.legal_moves(rules)
            if not legal or tracker.board != tracker.position.occupied:
                continue
            move = legal[int(arg) % len(legal)]  # type: ignore[call-overload]
            for action in plain_actions(move):
                now += 50
                board ^= bit(int(action.arg))
                landed |= board & bit(int(action.arg))
                feed(follower.update(board, now))
        elif kind == "press":
            feed(follower.press(str(arg), now))
        elif kind == "restore":
            feed(follower.restore(board, now))
        else:
            feed(follower.tick(now))
    now += 10_000
    feed(follower.tick(now))


@settings(max_examples=300)
@example("B:W18:B9", False, "play", [("toggle", 9, 0), ("toggle", 18, 100), ("wait", 1000, 0)])
@given(
    st.sampled_from(START_FENS),
    st.booleans(),
    st.sampled_from(["play", "referee"]),
    st.lists(step, max_size=60),
)
def test_random_hands_never_break_the_tracker(fen, backward, mode, steps):
    rules = Rules(men_capture_backward=backward)
    run_stream(Position.from_fen(fen) if fen else None, rules, steps, mode)


@pytest.mark.slow
@settings(max_examples=3000)
@given(
    st.sampled_from(START_FENS),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["play", "referee"]),
    st.lists(step, max_size=150),
)
def test_random_hands_never_break_the_tracker_long(fen, backward, optional, mode, steps):
    rules = Rules(men_capture_backward=backward, captures_compulsory=not optional)
    run_stream(Position.from_fen(fen) if fen else None, rules, steps, mode)
