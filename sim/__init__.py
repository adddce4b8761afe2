"""The simulated board, interchangeable with the real hardware.

* :class:`crownhead.sim.board.SimBoard` - the board in memory: the physical truth (which token
  stands where), the raw switches, LEDs and buttons behind the :mod:`crownhead.hal` interfaces, and
  injectable faults. Deterministic on a :class:`~crownhead.hal.clock.VirtualClock`.
* :mod:`crownhead.sim.serial_board` - a microcontroller emulator speaking the serial line protocol
  over a pseudo-terminal, so the serial backend runs against a simulated board.
* :mod:`crownhead.sim.gpio_models` - electrical models of the switch matrix and the 74HC165 chain
  as gpiozero mock pins, for running the GPIO backends without a Pi.
"""

from crownhead.sim.board import LitFrame, SimBoard, SimError

__all__ = ["LitFrame", "SimBoard", "SimError"]
