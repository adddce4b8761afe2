"""Buttons on GPIO pins through gpiozero (each button between its pin and ground)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crownhead.hal.buttons import DEFAULT_HOLD_MS, TIMED_BUTTONS, ButtonEvent, ButtonQueue, check_button_name
from crownhead.hal.clock import Clock
from crownhead.hal.device import Device
from crownhead.hal.errors import HardwareError, gpio_setup

__all__ = ["GpioButtons"]


class GpioButtons(Device):
    """Named gpiozero :class:`~gpiozero.Button` devices reported as :class:`ButtonEvent`.

    Pins use the internal pull-up, so a button connects its pin to ground. gpiozero's
    ``bounce_time`` filters edges in the driver; :class:`ButtonQueue` adds a lockout on
    the injected clock so a bouncing contact yields one press on every pin factory.
    The :data:`~crownhead.hal.buttons.TIMED_BUTTONS` (resign, one button per side) are timed on
    the injected clock too: a press held ``hold_ms`` is a long one.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        clock: Clock,
        *,
        bounce_ms: int = 50,
        pull_up: bool = True,
        hold_ms: int = DEFAULT_HOLD_MS,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import Button

        self._queue = ButtonQueue(clock, lockout_ms=bounce_ms, hold_ms=hold_ms)
        self._buttons: dict[str, Any] = {}
        try:
            with gpio_setup("the button pins"):
                for name, pin in pins.items():
                    try:
                        check_button_name(name)
                    except ValueError as exc:
                        raise HardwareError(f"cannot set up the button pins: {exc}") from None
                    button = Button(
                        pin,
                        pull_up=pull_up,
                        bounce_time=bounce_ms / 1000 if bounce_ms > 0 else None,
                        pin_factory=pin_factory,
                    )
                    # Bind the name now; gpiozero calls the handler from its own thread.
                    if name in TIMED_BUTTONS:
                        button.when_pressed = self._edge(self._queue.down, name)
                        button.when_released = self._edge(self._queue.up, name)
                    else:
                        button.when_pressed = self._handler(name)
                    self._buttons[name] = button
        except BaseException:
            self.close()
            raise

    def _handler(self, name: str) -> Callable[..., None]:
        # gpiozero calls the handler with the device, or with nothing: accept both.
        def pressed(*_args: object) -> None:
            self._queue.press(name)

        return pressed

    @staticmethod
    def _edge(record: Callable[[str], object], name: str) -> Callable[..., None]:
        def edge(*_args: object) -> None:
            record(name)

        return edge

    def next_deadline(self) -> int | None:
        """When a button held down now becomes a long press (the main loop polls then)."""
        return self._queue.next_deadline()

    @property
    def names(self) -> list[str]:
        return list(self._buttons)

    def poll(self) -> list[ButtonEvent]:
        return self._queue.poll()

    def _release(self) -> None:
        for button in self._buttons.values():
            button.close()
        self._buttons.clear()
