"""Reed switches read through a chain of four 74HC165 parallel-in/serial-out registers.

Each switch pulls one register input to ground (a 10 kOhm pull-up per input keeps it
high when open). The Pi pulses SH/LD (the *load* pin) low to latch all 32 inputs at
once, then clocks the bits out of QH of the first chip: first that chip's H input, then
G ... A, then the next chip's H ... and so on down the chain. By default the n-th bit
read (n = 0..31) is square n + 1; ``squares`` remaps boards wired in another order.

SER of the last chip is tied high. After the 32 switch bits the chain therefore shifts
out ones: reading ``check_bits`` extra bits and finding a zero means the data line is
stuck low or broken (the Pi's pull-down wins) or the chain is broken between two chips,
which would otherwise look like a full board. A broken CLK or SH/LD line it cannot
see: QH then holds one input (chip 1's H) for all 40 bits, or the ones shifted in from
SER, which with square 1 empty reads as an empty board with good check bits (the
self-test's walk finds it: no square ever closes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crownhead.hal.clock import Clock
from crownhead.hal.errors import gpio_setup
from crownhead.hal.scanning import ScanningSensors, busy_wait_us

__all__ = ["ShiftRegisterSensors", "CHAIN_BITS"]

CHAIN_BITS = 32  # four chips, eight inputs each


class ShiftRegisterSensors(ScanningSensors):
    """:class:`~crownhead.hal.sensors.Sensors` for four chained 74HC165 on three GPIO pins."""

    kind = "shift"

    def __init__(
        self,
        load_pin: int,
        clock_pin: int,
        data_pin: int,
        clock: Clock,
        *,
        squares: Sequence[int] | None = None,
        active_low: bool = True,
        check_bits: int = 8,
        scan_hz: float = 500.0,
        settle_us: int = 1,
        pin_factory: Any = None,
    ) -> None:
        if len({load_pin, clock_pin, data_pin}) != 3:
            raise ValueError("shift register pins must all be different")
        if squares is None:
            squares = list(range(1, CHAIN_BITS + 1))
        if sorted(squares) != list(range(1, CHAIN_BITS + 1)):
            raise ValueError("squares must list each square 1-32 exactly once, in chain order")
        if not 0 <= check_bits <= 64:
            raise ValueError(f"check_bits must be 0-64, got {check_bits}")
        super().__init__(clock, scan_hz=scan_hz)
        from gpiozero import InputDevice, OutputDevice

        self.pin_numbers = {"load": load_pin, "clock": clock_pin, "data": data_pin}
        self.squares = list(squares)
        self.active_low = active_low
        self.check_bits = check_bits
        self.settle_us = settle_us
        self.last_check: int | None = None
        self._devices: list[Any] = []
        try:
            with gpio_setup("the shift register pins"):
                self._devices.append(OutputDevice(load_pin, initial_value=True, pin_factory=pin_factory))
                self._devices.append(OutputDevice(clock_pin, initial_value=False, pin_factory=pin_factory))
                # Pull-down: a disconnected data line then reads as zeros, which the
                # check bits catch, instead of ones, which would look like an empty board.
                self._devices.append(InputDevice(data_pin, pull_up=False, pin_factory=pin_factory))
        except BaseException:
            self._release()
            raise
        self._load, self._clk, self._data = (d.pin for d in self._devices)
        # bit position in the chain -> occupancy bit
        self._bit_of = [1 << (sq - 1) for sq in self.squares]

    def read_chain(self) -> tuple[int, int]:
        """Latch and shift out the chain: (32 input levels, check bits), bit 0 first."""
        load, clk, data = self._load, self._clk, self._data
        load.state = False  # parallel load
        busy_wait_us(self.settle_us)
        load.state = True  # back to shift mode; QH now shows the first bit
        levels = 0
        for i in range(CHAIN_BITS):
            if data.state:
                levels |= 1 << i
            clk.state = True
            clk.state = False
        check = 0
        for i in range(self.check_bits):
            if data.state:
                check |= 1 << i
            clk.state = True
            clk.state = False
        return levels, check

    def read_switches(self) -> int:
        levels, check = self.read_chain()
        self.last_check = check
        closed = ~levels if self.active_low else levels
        occ = 0
        for i, bit in enumerate(self._bit_of):
            if closed >> i & 1:
                occ |= bit
        return occ

    def diagnose(self) -> list[str]:
        if self.check_bits == 0:
            return []
        with self._lock:
            _levels, check = self.read_chain()
        expected = (1 << self.check_bits) - 1
        if check == expected:
            return []
        return [
            f"shift register chain: the {self.check_bits} bits after the 32 inputs read "
            f"{check:0{self.check_bits}b} instead of all ones (SER of the last chip tied high): "
            f"data line (GPIO{self.pin_numbers['data']}) broken or stuck low, the chain broken between "
            f"two chips, or no clock on GPIO{self.pin_numbers['clock']} with chip 1's input H closed"
        ]

    def _release_pins(self) -> None:
        for device in self._devices:
            device.close()
        self._devices = []
