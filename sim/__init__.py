"""The simulated board, interchangeable with the real hardware.

* :class:`sim.board.SimBoard` - the board in memory: the physical truth (which token
  stands where), the raw switches, LEDs and buttons behind the :mod:`hal` interfaces, and
  injectable faults. Deterministic on a :class:`~hal.clock.VirtualClock`.
* :mod:`sim.serial_board` - a microcontroller emulator speaking the serial line protocol
  over a pseudo-terminal, so the serial backend runs against a simulated board.
* :mod:`sim.gpio_models` - electrical models of the switch matrix and the 74HC165 chain
  as gpiozero mock pins, for running the GPIO backends without a Pi.
"""

from sim.board import LitFrame, SimBoard, SimError

__all__ = ["LitFrame", "SimBoard", "SimError"]
