"""The debouncer: chatter is invisible, changes are accepted exactly debounce_ms after
they settle, and the result does not depend on when update() is called."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crownhead.hal.clock import VirtualClock
from crownhead.hal.debounce import DEFAULT_DEBOUNCE_MS, DebouncedSensors, Debouncer
from crownhead.hal.sensors import SensorEvent, mask_of
from crownhead.sim.board import SimBoard

D = 30


def ev(square: int, occupied: bool, t: int) -> SensorEvent:
    return SensorEvent(square, occupied, t)


def test_default_is_in_the_reed_switch_range() -> None:
    assert 20 <= DEFAULT_DEBOUNCE_MS <= 50
    assert Debouncer().debounce_ms == DEFAULT_DEBOUNCE_MS


def test_change_is_accepted_exactly_debounce_ms_after_it_settles() -> None:
    d = Debouncer(D)
    d.feed(ev(5, True, 100))
    assert d.next_deadline() == 130
    assert d.update(129) == []
    assert d.state == 0
    assert d.update(130) == [ev(5, True, 130)]
    assert d.state == mask_of([5])
    assert d.next_deadline() is None
    assert d.update(1000) == []


def test_chatter_shorter_than_debounce_is_invisible() -> None:
    d = Debouncer(D, initial=mask_of([7]))
    # The switch of an occupied square opens for 29 ms at most each time, then closes.
    t = 0
    for gap in (5, 12, 29, 1):
        d.feed(ev(7, False, t))
        d.feed(ev(7, True, t + gap))
        t += gap + 3
        assert d.update(t) == []
    assert d.update(t + 1000) == []
    assert d.state == mask_of([7])
    assert d.next_deadline() is None


def test_bouncing_arrival_is_timed_from_the_last_bounce() -> None:
    d = Debouncer(D)
    for t, occ in ((0, True), (2, False), (4, True), (6, False), (9, True)):
        d.feed(ev(12, occ, t))
    assert d.next_deadline() == 39
    assert d.update(38) == []
    assert d.update(39) == [ev(12, True, 39)]


def test_repeated_report_of_the_same_state_does_not_restart_the_timer() -> None:
    d = Debouncer(D)
    d.feed(ev(1, True, 0))
    d.feed(ev(1, True, 20))  # e.g. a serial board's heartbeat repeating the state
    assert d.update(30) == [ev(1, True, 30)]


def test_slide_arrival_before_departure_both_accepted_in_time_order() -> None:
    d = Debouncer(D, initial=mask_of([9]))
    d.feed(ev(14, True, 1000))  # the arriving square closes first
    d.feed(ev(9, False, 1015))  # the leaving one opens 15 ms later
    assert d.update(1030) == [ev(14, True, 1030)]
    assert d.state == mask_of([9, 14])  # both covered for a moment, as on the board
    assert d.update(1045) == [ev(9, False, 1045)]
    assert d.state == mask_of([14])


def test_events_decided_in_one_update_come_out_in_time_then_arrival_order() -> None:
    d = Debouncer(D)
    d.feed(ev(20, True, 5))
    d.feed(ev(3, True, 5))
    d.feed(ev(1, True, 7))
    assert d.update(100) == [ev(20, True, 35), ev(3, True, 35), ev(1, True, 37)]


def test_same_millisecond_slide_keeps_arrive_then_leave_order() -> None:
    # A fast slide from 18 to 14 seen in one millisecond: the arriving square (14)
    # was reported first and must stay first, though its number is lower... and the
    # other way round too, whichever square has the lower number.
    for src, dst in ((18, 14), (14, 18)):
        d = Debouncer(D, initial=mask_of([src]))
        d.feed(ev(dst, True, 500))
        d.feed(ev(src, False, 500))
        assert d.update(530) == [ev(dst, True, 530), ev(src, False, 530)]


def test_arrival_order_holds_for_changes_decided_by_feed() -> None:
    # Both pending changes are decided inside feed() (a later raw change on the same
    # square came after debounce_ms) and still come out in arrival order.
    d = Debouncer(D)
    d.feed(ev(9, True, 0))
    d.feed(ev(2, True, 0))
    d.feed(ev(2, False, 40))
    d.feed(ev(9, False, 41))
    assert d.update(41) == [ev(9, True, 30), ev(2, True, 30)]


def test_zero_debounce_accepts_at_the_raw_time() -> None:
    d = Debouncer(0)
    d.feed(ev(2, True, 50))
    assert d.update(50) == [ev(2, True, 50)]


def test_reset_drops_pending_changes() -> None:
    d = Debouncer(D)
    d.feed(ev(4, True, 0))
    d.reset(mask_of([8]))
    assert d.update(100) == []
    assert d.state == mask_of([8]) and d.raw == mask_of([8])


@pytest.mark.parametrize("bad", [-1, 1.5, "30", True])
def test_bad_debounce_values_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        Debouncer(bad)  # type: ignore[arg-type]


def test_debounced_sensors_on_the_simulator() -> None:
    clock = VirtualClock()
    board = SimBoard(clock, pieces={1: "b"})
    deb = DebouncedSensors(board.sensors, clock, D)
    assert deb.state == mask_of([1])
    board.place(2, "w")
    board.bounce(2, times=3, interval_ms=4)
    seen = []
    while clock.now_ms() < 200:
        seen += deb.poll()
        clock.advance(1)
    assert seen == [SensorEvent(2, True, 24 + D)]  # last bounce at 24 ms


# -- properties ------------------------------------------------------------------------

# A raw history: per step, a square whose switch flips and the gap before it (ms).
steps = st.lists(st.tuples(st.integers(1, 4), st.integers(0, 80)), max_size=60)


def reference(initial: int, events: list[SensorEvent], debounce: int) -> list[SensorEvent]:
    """The specification, straight: a raw segment lasting >= debounce whose value
    differs from the stable state becomes stable debounce after it began."""
    out = []
    for sq in range(1, 33):
        stable = bool(initial >> (sq - 1) & 1)
        mine = [(k, e) for k, e in enumerate(events) if e.square == sq]
        for i, (k, e) in enumerate(mine):
            end = mine[i + 1][1].t_ms if i + 1 < len(mine) else None
            lasted = end is None or end - e.t_ms >= debounce
            if lasted and e.occupied != stable:
                # Ties in time keep the order the raw changes arrived in (k).
                out.append((e.t_ms + debounce, k, SensorEvent(sq, e.occupied, e.t_ms + debounce)))
                stable = e.occupied
    return [e for _t, _k, e in sorted(out, key=lambda item: item[:2])]


def build(initial: int, history: list[tuple[int, int]]) -> list[SensorEvent]:
    raw = initial
    t = 0
    events = []
    for sq, gap in history:
        t += gap
        raw ^= 1 << (sq - 1)
        events.append(SensorEvent(sq, bool(raw >> (sq - 1) & 1), t))
    return events


@settings(max_examples=300)
@given(
    initial=st.integers(0, 15),
    history=steps,
    debounce=st.integers(0, 50),
    update_every=st.integers(1, 40),
)
def test_matches_the_specification_whenever_update_is_called(
    initial: int, history: list[tuple[int, int]], debounce: int, update_every: int
) -> None:
    events = build(initial, history)
    d = Debouncer(debounce, initial=initial)
    got: list[SensorEvent] = []
    now = 0
    pending = list(events)
    end = (events[-1].t_ms if events else 0) + debounce + 1
    while pending or now <= end:
        while pending and pending[0].t_ms <= now:
            d.feed(pending.pop(0))
        got += d.update(now)
        now += update_every
    got += d.update(end + 1000)
    assert got == reference(initial, events, debounce)
    # Accepted changes alternate and end at the raw state.
    assert d.state == d.raw
    assert all(a.t_ms <= b.t_ms for a, b in itertools.pairwise(got))


@settings(max_examples=200)
@given(initial=st.integers(0, 15), history=steps, debounce=st.integers(1, 50))
def test_jumping_to_next_deadline_gives_the_same_events(
    initial: int, history: list[tuple[int, int]], debounce: int
) -> None:
    events = build(initial, history)
    d = Debouncer(debounce, initial=initial)
    got: list[SensorEvent] = []
    for i, e in enumerate(events):
        d.feed(e)
        horizon = events[i + 1].t_ms if i + 1 < len(events) else None
        # Decide everything due before the next raw event, jumping deadline to deadline.
        while (deadline := d.next_deadline()) is not None and (horizon is None or deadline < horizon):
            out = d.update(deadline)
            assert out and all(x.t_ms == deadline for x in out)
            got += out
    assert d.next_deadline() is None
    assert got == reference(initial, events, debounce)


@settings(max_examples=200)
@given(history=steps, debounce=st.integers(1, 50))
def test_chatter_shorter_than_debounce_never_shows(history: list[tuple[int, int]], debounce: int) -> None:
    # Every flip is followed by a flip back on the same square sooner than debounce.
    d = Debouncer(debounce)
    t = 0
    for sq, gap in history:
        t += gap + debounce  # quiet between bursts
        d.feed(SensorEvent(sq, True, t))
        d.feed(SensorEvent(sq, False, t + gap % debounce))
        assert d.update(t + gap % debounce) == []
    assert d.update(t + 10 * debounce) == []
    assert d.state == 0
