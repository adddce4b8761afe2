"""The simulated board: physical truth, raw switch events on the virtual clock, faults."""

from __future__ import annotations

import pytest

from crownhead.hal.buttons import ButtonEvent, Buttons
from crownhead.hal.clock import VirtualClock
from crownhead.hal.debounce import DebouncedSensors
from crownhead.hal.lights import Lights
from crownhead.hal.sensors import SensorEvent, Sensors, mask_of
from crownhead.sim.board import SimBoard, SimError


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(1000)


def test_interfaces(clock: VirtualClock) -> None:
    board = SimBoard(clock)
    assert isinstance(board.sensors, Sensors)
    assert isinstance(board.lights, Lights)
    assert isinstance(board.buttons, Buttons)


def test_position_and_truth(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={1: "b", 2: "B", 30: "W"})
    assert board.pieces == {1: "b", 2: "B", 30: "W"}
    assert board.sensors.snapshot() == mask_of([1, 2, 30]) == board.truth
    assert [e.square for e in board.sensors.poll()] == [1, 2, 30]
    board.set_position({5: "w"})
    assert board.sensors.poll() == [
        SensorEvent(1, False, 1000),
        SensorEvent(2, False, 1000),
        SensorEvent(5, True, 1000),
        SensorEvent(30, False, 1000),
    ]
    with pytest.raises(SimError):
        board.set_position({33: "w"})


def test_lift_and_place_use_the_hand(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={9: "W"})
    board.sensors.poll()
    assert board.lift(9) == "W"
    assert board.hand == ["W"] and 9 not in board.pieces
    clock.advance(250)
    assert board.place(13) == "W"  # the token in hand, opaque
    assert board.pieces == {13: "W"} and board.hand == []
    assert board.sensors.poll() == [SensorEvent(9, False, 1000), SensorEvent(13, True, 1250)]
    with pytest.raises(SimError, match="no piece"):
        board.lift(9)
    with pytest.raises(SimError, match="occupied"):
        board.place(13, "b")
    with pytest.raises(SimError, match="nothing in hand"):
        board.place(14)
    with pytest.raises(SimError):
        board.lift(0)


def test_slide_closes_the_arrival_before_opening_the_departure(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={22: "w"})
    board.sensors.poll()
    assert board.slide(22, 18, overlap_ms=15) == "w"
    assert board.pieces == {18: "w"}  # the truth moves at once
    assert board.sensors.snapshot() == mask_of([18, 22])  # both switches closed meanwhile
    assert board.next_event_ms() == 1015
    clock.set(1015)
    assert board.sensors.poll() == [SensorEvent(18, True, 1000), SensorEvent(22, False, 1015)]
    assert board.next_event_ms() is None


def test_bounce_chatters_and_ends_in_the_true_state(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={7: "b"})
    board.sensors.poll()
    board.bounce(7, times=2, interval_ms=3)
    clock.advance(100)
    assert board.sensors.poll() == [
        SensorEvent(7, False, 1003),
        SensorEvent(7, True, 1006),
        SensorEvent(7, False, 1009),
        SensorEvent(7, True, 1012),
    ]
    # Through the debouncer the chatter is invisible.
    board.bounce(7, times=3, interval_ms=2)
    deb = DebouncedSensors(board.sensors, clock, 30)
    for _ in range(100):
        clock.advance(1)
        assert deb.poll() == []
    assert deb.state == mask_of([7])


def test_events_are_stamped_when_they_happen_not_when_polled(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={3: "w"})
    board.sensors.poll()
    board.knock(3, 8, flight_ms=40)
    clock.advance(1000)  # poll much later
    events = board.sensors.poll()
    assert events[0] == SensorEvent(3, False, 1000)
    assert [e.t_ms for e in events[1:]] == [1040, 1042, 1044, 1046, 1048]
    assert events[-1] == SensorEvent(8, True, 1048)
    assert board.pieces == {8: "w"}


def test_knock_only_onto_a_free_neighbour(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={3: "w", 7: "b"})
    with pytest.raises(SimError, match="not next to"):
        board.knock(3, 12)
    with pytest.raises(SimError, match="occupied"):
        board.knock(3, 7)
    with pytest.raises(SimError, match="no piece"):
        board.knock(4, 8)


def test_buttons(clock: VirtualClock) -> None:
    board = SimBoard(clock, buttons=("new", "hint"))
    board.press("hint")
    clock.advance(5)
    board.press("hint")
    assert board.buttons.poll() == [ButtonEvent("hint", 1000), ButtonEvent("hint", 1005)]
    with pytest.raises(SimError, match="no button 'resign'"):
        board.press("resign")


def test_stuck_switches(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={12: "b", 20: "w"})
    board.sensors.poll()
    board.stick(12, True)
    board.lift(12)
    assert board.sensors.snapshot() == mask_of([12, 20])  # still reads occupied
    board.stick(20, False)
    assert board.sensors.poll() == [SensorEvent(20, False, 1000)]
    board.stick(12, None)
    assert board.sensors.poll() == [SensorEvent(12, False, 1000)]
    assert board.truth == mask_of([20])


def test_swapped_wires(clock: VirtualClock) -> None:
    board = SimBoard(clock)
    board.swap_wires(5, 6)
    board.place(5, "b")
    assert board.sensors.poll() == [SensorEvent(6, True, 1000)]
    assert board.faults["swapped"] == {5: 6, 6: 5}


def test_lights_record_frames_and_dead_leds(clock: VirtualClock) -> None:
    board = SimBoard(clock)
    board.lights.show({1: (255, 0, 0), 2: (0, 255, 0)})
    clock.advance(40)
    board.kill_led(2)
    board.lights.show({2: (0, 0, 9), (0, 0): (1, 1, 1)})
    assert [f.t_ms for f in board.lights.frames] == [1000, 1040]
    assert board.lights.frames[0].frame == {1: (255, 0, 0), 2: (0, 255, 0)}
    assert board.lights.sent == {2: (0, 0, 9), (0, 0): (1, 1, 1)}
    assert board.lights.current == {(0, 0): (1, 1, 1)}  # the dead LED shows nothing
    assert board.lights.lit(2) is None
    board.lights.close()
    assert board.lights.current == {} and board.lights.closed


def test_same_actions_same_events() -> None:
    def script() -> list[SensorEvent]:
        clock = VirtualClock()
        board = SimBoard(clock, pieces={9: "b", 22: "w"})
        board.sensors.poll()
        board.slide(9, 14)
        board.bounce(14)
        clock.advance(50)
        board.knock(22, 17)
        clock.advance(100)
        return board.sensors.poll()

    assert script() == script()


def test_crown_changes_the_token_not_the_switch(clock: VirtualClock) -> None:
    board = SimBoard(clock, pieces={2: "w", 30: "b"})
    board.sensors.poll()
    assert board.crown(30) == "B"
    assert board.pieces == {2: "w", 30: "B"}
    assert board.crown(2, "K") == "K"  # any label the caller's convention uses
    assert board.sensors.poll() == [] and board.sensors.snapshot() == mask_of([2, 30])
    board.lift(30)
    assert board.hand == ["B"]  # the king comes off as one stack
    with pytest.raises(SimError, match="no piece on square 30"):
        board.crown(30)
    with pytest.raises(SimError, match="already 'K'"):
        board.crown(2)
    with pytest.raises(SimError):
        board.crown(33)


def test_force_button_exists_on_the_simulated_board(clock: VirtualClock) -> None:
    board = SimBoard(clock)
    board.press("force")
    assert board.buttons.poll() == [ButtonEvent("force", 1000)]
