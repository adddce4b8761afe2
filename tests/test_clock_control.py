"""The referee's clock: time control specs, increments, periods, flags (virtual time only)."""

from __future__ import annotations

import pytest

from crownhead.firmware.gameclock import ClockSpecError, GameClock, Period, TimeControl, clock_text, pdn_clock
from crownhead.rules import BLACK, WHITE


@pytest.mark.parametrize(
    ("spec", "periods"),
    [
        ("300+5", (Period(300, None, 5),)),
        ("600", (Period(600),)),
        ("40/5400:1800", (Period(5400, 40), Period(1800))),
        ("40/5400+30:1800+30", (Period(5400, 40, 30), Period(1800, None, 30))),
        ("30/3600", (Period(3600, 30),)),
        (" 0+2 ", (Period(0, None, 2),)),
    ],
)
def test_specs_read_and_write_back(spec: str, periods: tuple[Period, ...]) -> None:
    control = TimeControl.parse(spec)
    assert control.periods == periods
    assert str(control) == spec.strip()
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "empty clock spec"),
        ("5m", "'5m' is not a period"),
        ("40/x", "'40/x' is not a period"),
        ("300:60", "period 1 (300) is for the rest of the game"),
        ("0", "period 1 (0) gives no time at all"),
        ("0/300", "the number of moves must be at least 1"),
        ("300+5+5", "is not a period"),
        ("-300", "is not a period"),
    ],
)
def test_bad_specs_are_named(spec: str, words: str) -> None:
    with pytest.raises(ClockSpecError) as info:
        TimeControl.parse(spec)
    assert words in str(info.value)


def test_describe_in_words() -> None:
    assert TimeControl.parse("300+5").describe() == "0:05:00 for the game plus 5 s a move"
    assert TimeControl.parse("30/3600").describe() == "30 moves in 1:00:00, repeating"


def test_time_runs_for_the_side_to_move_only() -> None:
    clock = GameClock(TimeControl.parse("600"))
    clock.start(BLACK, 1000)
    assert clock.running is BLACK and clock.flag_due() == 601_000
    assert clock.remaining(BLACK, 11_000) == 590_000
    assert clock.remaining(WHITE, 11_000) == 600_000
    assert clock.move_made(BLACK, 11_000) == 590_000
    assert clock.running is WHITE and clock.flag_due() == 611_000
    assert clock.remaining(BLACK, 500_000) == 590_000  # Black's clock stands still
    assert clock.moves(BLACK) == 1 and clock.moves(WHITE) == 0


def test_increment_after_each_move() -> None:
    clock = GameClock(TimeControl.parse("300+5"))
    clock.start(BLACK, 0)
    assert clock.move_made(BLACK, 2_000) == 303_000
    assert clock.move_made(WHITE, 3_000) == 304_000
    assert clock.move_made(BLACK, 3_000) == 308_000  # a move in no time still earns it


def test_next_period_added_at_the_last_move_of_a_period() -> None:
    clock = GameClock(TimeControl.parse("2/100:50+1"))
    clock.start(BLACK, 0)
    t = 0
    lefts = []
    for _ in range(4):
        t += 10_000
        lefts.append(clock.move_made(BLACK, t))
        clock.move_made(WHITE, t)  # White answers at once
    # Moves 1-2 in the first period (no increment), 50 s added at move 2; then 1 s a move.
    assert lefts == [90_000, 130_000, 121_000, 112_000]


def test_last_period_with_moves_repeats() -> None:
    control = TimeControl.parse("2/100")
    assert [control.added_after(n) for n in range(1, 8)] == [0, 100_000, 0, 100_000, 0, 100_000, 0]
    control = TimeControl.parse("3/100:2/50")
    assert [control.added_after(n) for n in range(1, 10)] == [0, 0, 50_000, 0, 50_000, 0, 50_000, 0, 50_000]
    assert [control.period_index(n) for n in (1, 3, 4, 5, 6, 99)] == [0, 0, 1, 1, 1, 1]


def test_flag_time_and_stop() -> None:
    clock = GameClock(TimeControl.parse("5"))
    clock.start(BLACK, 0)
    assert clock.flag_due() == 5_000
    assert clock.remaining(BLACK, 5_000) == 0
    clock.stop(5_000)
    assert clock.running is None and clock.flag_due() is None
    assert clock.snapshot(99_000) == {BLACK: 0, WHITE: 5_000}
    # A stopped clock does not start again.
    clock.start(WHITE, 6_000)
    assert clock.running is None


def test_texts() -> None:
    assert clock_text(3_725_999) == "1:02:05"
    assert clock_text(-1) == "0:00:00"
    assert pdn_clock(65_000) == "[%clk 0:01:05]"


def test_doctests() -> None:
    import doctest

    import crownhead.firmware.gameclock as module

    assert doctest.testmod(module).failed == 0
