"""The controller: the same pump for the simulated and the real board."""

from __future__ import annotations

from crownhead.firmware.tracking.controller import Controller
from crownhead.firmware.events import Lights, MoveMade
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.tracker import Tracker, TrackerSettings
from crownhead.hal.clock import VirtualClock
from crownhead.hal.debounce import Debouncer
from crownhead.rules import WCDF, Game, Position
from crownhead.sim.board import SimBoard

SETTINGS = TrackerSettings(settle_ms=300, patience_ms=2500)


class RecordingFollower(Follower):
    """A real follower (of a real tracker) that also records what reached it, and when."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[tuple[str, object, int]] = []

    def update(self, occupancy, now_ms):
        self.calls.append(("update", occupancy, now_ms))
        return super().update(occupancy, now_ms)

    def press(self, button, now_ms, long=False):
        self.calls.append(("press", button, now_ms))
        return super().press(button, now_ms, long)


def rig(position: Position | None = None, *, lights: bool = False, tracker_board: int | None = None):
    position = position or Position.start()
    clock = VirtualClock(0)
    board = SimBoard(clock, pieces={s: p.symbol for s, p in position.pieces().items()})
    follower = RecordingFollower(Tracker(Game(position, WCDF), SETTINGS, board=tracker_board))
    debouncer = Debouncer(30, initial=board.sensors.snapshot())
    return clock, board, follower, Controller(board.sensors, board.buttons, follower, debouncer, clock, lights=lights)


def bit(square: int) -> int:
    return 1 << (square - 1)


def test_changes_reach_the_follower_at_their_accepted_time_in_the_order_they_happened():
    clock, board, follower, ctl = rig()
    start = Position.start().occupied
    board.place(16, "b")  # same instant, placed first although 16 > 12: a slide of 12 to 16
    board.lift(12)
    clock.advance(100)
    ctl.step()
    assert follower.calls == [("update", start | bit(16), 30), ("update", start & ~bit(12) | bit(16), 30)]


def test_presses_and_changes_interleave_in_time():
    clock, board, follower, ctl = rig()
    board.lift(11)  # accepted at 30
    clock.advance(10)
    board.press("adjust")  # at 10
    clock.advance(20)
    board.press("hint")  # at 30, after the change accepted at 30
    clock.advance(100)
    ctl.step()
    assert [(kind, t) for kind, _, t in follower.calls] == [("press", 10), ("update", 30), ("press", 30)]


def test_timers_run_at_their_time_even_when_stepped_late():
    clock, board, _follower, ctl = rig()
    board.lift(11)
    clock.advance(400)
    board.place(15)
    clock.advance(5000)
    assert ctl.step() == [MoveMade(730, 1, "black", "11-15", (11, 15), ())]


def test_run_until_and_next_deadline():
    clock, board, _follower, ctl = rig()
    assert ctl.next_deadline() is None
    board.lift(11)
    assert ctl.step() == [] and ctl.next_deadline() == 30
    clock.set(30)
    ctl.step()
    board.place(15)
    clock.set(31)
    assert ctl.run_until(200) == [] and clock.now_ms() == 200
    assert ctl.next_deadline() == 360
    assert [e.t for e in ctl.run_until(10_000)] == [360]
    assert ctl.next_deadline() is None


def test_first_step_tells_the_tracker_what_stands_on_the_board():
    # The tracker expects the game after 11-15, the board still shows the start.
    game = Game(None, WCDF)
    game.play_text("11-15")
    clock = VirtualClock(0)
    board = SimBoard(clock, pieces={s: p.symbol for s, p in Position.start().pieces().items()})
    tracker = Tracker(game, SETTINGS, "referee")
    ctl = Controller(
        board.sensors, None, Follower(tracker), Debouncer(30, board.sensors.snapshot()), clock, lights=True
    )
    events = ctl.step()
    assert events == [Lights(0, ((11, "extra"), (15, "missing")))]
    assert ctl.run_until(5000) == []  # guided back, not a warning nor a takeback
    assert ctl.occupancy == Position.start().occupied
    board.lift(11)
    board.place(15)
    assert ctl.run_until(6000) == [
        Lights(5030, ((15, "missing"),)),
        Lights(5030, ((11, "last-from"), (15, "last-to"))),
    ]
    assert tracker.board_matches and tracker.game.ply == 1


def test_lights_events_follow_the_picture():
    clock, board, _follower, ctl = rig(lights=True)
    board.lift(11)
    events = ctl.run_until(100)
    assert events == [Lights(30, ((11, "touched"), (15, "target"), (16, "target")))]
    assert ctl.shown == {11: "touched", 15: "target", 16: "target"}
    board.place(15)
    events = ctl.run_until(1000)
    assert [e.kind for e in events] == ["lights", "move", "lights"]
    assert events[-1] == Lights(430, ((11, "last-from"), (15, "last-to")))
