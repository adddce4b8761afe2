"""A buzzer beside the board: a tone on or off, the way gpiozero drives one.

:class:`Buzzer` is the interface: :meth:`Buzzer.tone` starts a tone (Hz) or, with
None, stops it. What to play and when is decided above (:mod:`crownhead.firmware.sound`), on the
injected clock, so patterns are exact in tests.

:class:`GpioBuzzer` drives a *passive* piezo with PWM (gpiozero's
:class:`~gpiozero.PWMOutputDevice`, the device under gpiozero's ``TonalBuzzer``: the
frequency is the tone, the duty cycle the volume) or an *active* buzzer, which has its
own oscillator, with gpiozero's :class:`~gpiozero.Buzzer` (on or off; any volume above
0 is on). The simulator's twin is :class:`crownhead.sim.buzzer.SimBuzzer`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from crownhead.hal.device import Closeable, Device
from crownhead.hal.errors import HardwareError, gpio_setup

__all__ = ["Buzzer", "GpioBuzzer", "NullBuzzer"]


@runtime_checkable
class Buzzer(Closeable, Protocol):
    def tone(self, hz: float | None) -> None:
        """Sound ``hz`` until told otherwise; None: silence."""
        ...

    def close(self) -> None:
        """Silence and release the pin. Idempotent."""
        ...


class NullBuzzer(Device):
    """A board without a buzzer."""

    def tone(self, hz: float | None) -> None:
        pass


class GpioBuzzer(Device):
    """A buzzer on one GPIO pin: ``kind`` is ``"passive"`` (tones) or ``"active"`` (on/off).

    ``volume`` (0-1) is the PWM duty cycle of a passive piezo, from silent to its
    loudest at half duty; an active buzzer sounds at any volume above 0.
    """

    def __init__(self, pin: int, kind: str = "passive", *, volume: float = 0.5, pin_factory: Any = None) -> None:
        if kind not in ("passive", "active"):
            raise HardwareError(f"buzzer kind must be passive or active, got {kind!r}")
        if not 0.0 <= volume <= 1.0:
            raise HardwareError(f"buzzer volume must be 0-1, got {volume}")
        self.kind = kind
        self.volume = volume
        self.pin = pin
        self._hz: float | None = None
        with gpio_setup(f"the buzzer on GPIO{pin}"):
            if kind == "passive":
                from gpiozero import PWMOutputDevice

                self._device: Any = PWMOutputDevice(pin, initial_value=0, frequency=440, pin_factory=pin_factory)
            else:
                from gpiozero import Buzzer as ActiveBuzzer

                self._device = ActiveBuzzer(pin, pin_factory=pin_factory)

    def tone(self, hz: float | None) -> None:
        if self._device is None or hz == self._hz:
            return
        self._hz = hz
        if hz is None or hz <= 0 or self.volume <= 0:
            self._device.off()
        elif self.kind == "passive":
            self._device.frequency = hz
            self._device.value = self.volume / 2
        else:
            self._device.on()

    def _release(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            device.off()
            device.close()
