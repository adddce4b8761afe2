"""Buttons: the gpiozero backend on MockFactory, the lockout, and the protocol."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from crownhead.hal.buttons import BUTTON_NAMES, ButtonEvent, ButtonQueue, Buttons, NullButtons
from crownhead.hal.clock import VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.hal.gpio_buttons import GpioButtons

PINS = {"new": 16, "hint": 20, "takeback": 21}


def press(factory: MockFactory, pin: int) -> None:
    p = factory.pin(pin)
    p.drive_low()  # the button shorts the pulled-up pin to ground
    p.drive_high()


def test_names() -> None:
    assert {
        "new",
        "hint",
        "takeback",
        "claim",
        "resign",
        "adjust",
        "draw",
        "force",
        "black_draw",
        "black_resign",
        "white_draw",
        "white_resign",
        "black",
        "white",
        "clock",
        "speak",
    } == set(BUTTON_NAMES)


def test_per_side_buttons_tell_short_from_long_presses_on_the_injected_clock() -> None:
    clock = VirtualClock(1000)
    factory = MockFactory()
    with_pins = GpioButtons(
        {"black": 14, "white": 15, "black_draw": 7}, clock, bounce_ms=0, hold_ms=1500, pin_factory=factory
    )
    try:
        factory.pin(14).drive_low()
        clock.advance(300)
        factory.pin(14).drive_high()  # a short press of Black's button: a draw offer
        assert with_pins.poll() == [ButtonEvent("black", 1000, False)]
        factory.pin(15).drive_low()
        assert with_pins.next_deadline() == 2800
        clock.advance(1499)
        assert with_pins.poll() == []
        clock.advance(1)
        assert with_pins.poll() == [ButtonEvent("white", 2800, True)]  # long: reported while held
        factory.pin(15).drive_high()
        assert with_pins.poll() == []  # its release says nothing more
        press(factory, 7)  # an untimed button reports at once
        assert with_pins.poll() == [ButtonEvent("black_draw", 2800, False)]
    finally:
        with_pins.close()


def test_presses_are_named_and_timestamped() -> None:
    clock = VirtualClock(1000)
    factory = MockFactory()
    buttons = GpioButtons(PINS, clock, bounce_ms=50, pin_factory=factory)
    assert isinstance(buttons, Buttons)
    assert factory.pin(16).pull == "up"
    press(factory, 20)
    clock.advance(100)
    press(factory, 16)
    assert buttons.poll() == [ButtonEvent("hint", 1000), ButtonEvent("new", 1100)]
    assert buttons.poll() == []
    buttons.close()


def test_bounce_within_lockout_is_one_press() -> None:
    clock = VirtualClock()
    factory = MockFactory()
    buttons = GpioButtons(PINS, clock, bounce_ms=50, pin_factory=factory)
    for _ in range(4):  # contact bounce: four edges within 6 ms
        press(factory, 21)
        clock.advance(2)
    clock.advance(60)
    press(factory, 21)
    assert [e.t_ms for e in buttons.poll()] == [0, 68]
    buttons.close()


def test_unknown_button_or_pin_is_refused() -> None:
    with pytest.raises(HardwareError, match="unknown button"):
        GpioButtons({"nwe": 16}, VirtualClock(), pin_factory=MockFactory())
    factory = MockFactory()
    with pytest.raises(HardwareError):
        GpioButtons({"new": 16, "hint": 99}, VirtualClock(), pin_factory=factory)
    GpioButtons({"new": 16}, VirtualClock(), pin_factory=factory).close()  # 16 was released


def test_queue_and_null() -> None:
    q = ButtonQueue(VirtualClock(), lockout_ms=10)
    assert q.press("new", 0) and not q.press("new", 9) and q.press("new", 10) and q.press("hint", 10)
    assert [e.name for e in q.poll()] == ["new", "new", "hint"]
    assert NullButtons().poll() == []
