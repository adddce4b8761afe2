"""Buttons: the gpiozero backend on MockFactory, the lockout, and the protocol."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hal.buttons import BUTTON_NAMES, ButtonEvent, ButtonQueue, Buttons, NullButtons
from hal.clock import VirtualClock
from hal.errors import HardwareError
from hal.gpio_buttons import GpioButtons

PINS = {"new": 16, "hint": 20, "takeback": 21}


def press(factory: MockFactory, pin: int) -> None:
    p = factory.pin(pin)
    p.drive_low()  # the button shorts the pulled-up pin to ground
    p.drive_high()


def test_names() -> None:
    assert {"new", "hint", "takeback", "claim", "resign", "adjust", "draw", "force"} == set(
        BUTTON_NAMES
    )


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
    assert (
        q.press("new", 0) and not q.press("new", 9) and q.press("new", 10) and q.press("hint", 10)
    )
    assert [e.name for e in q.poll()] == ["new", "new", "hint"]
    assert NullButtons().poll() == []
