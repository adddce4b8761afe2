"""Reed switches in an 8 x 4 diode matrix, scanned on 12 GPIO pins with gpiozero.

Wiring (see docs/hardware.md): each of the 8 *row* pins serves one rank of the board,
each of the 4 *column* pins (inputs, internal pull-up) serves one of the four dark
squares of every rank, counted from the left. The switch for row ``r`` and column ``c``
is square ``4 r + c + 1``, and is wired column pin -> reed switch -> diode -> row pin,
with the diode's cathode (the band) towards the row pin.

Scanning pulls one row low at a time (the pin an output driving low); every closed
switch on that row pulls its column low through its diode. The other rows are
*released*: inputs held up by their pull-ups, as an open-drain line would be. A row is
never driven high: with one diode soldered in backwards and a piece on another square
of its column, a high row would feed the low one through two diodes with nothing but
the two pin drivers to limit the current. Released rows and the diodes keep a closed
switch on another row from feeding a column: no ghosting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from crownhead.hal.clock import Clock
from crownhead.hal.errors import gpio_setup
from crownhead.hal.scanning import ScanningSensors, busy_wait_us

__all__ = ["MatrixSensors", "MATRIX_ROWS", "MATRIX_COLS"]

MATRIX_ROWS = 8
MATRIX_COLS = 4


class MatrixSensors(ScanningSensors):
    """:class:`~crownhead.hal.sensors.Sensors` for an 8 x 4 diode matrix on GPIO.

    ``rows`` and ``cols`` are BCM pin numbers, row 0 being the top rank (squares 1-4)
    and column 0 the leftmost dark square of each rank. ``settle_us`` is waited after
    selecting a row before reading the columns (the column line must discharge its
    cable capacitance through the switch); ``scan_hz`` paces the background thread.
    """

    kind = "matrix"

    def __init__(
        self,
        rows: Sequence[int],
        cols: Sequence[int],
        clock: Clock,
        *,
        scan_hz: float = 500.0,
        settle_us: int = 10,
        pin_factory: Any = None,
    ) -> None:
        if len(rows) != MATRIX_ROWS or len(cols) != MATRIX_COLS:
            raise ValueError(f"a matrix needs {MATRIX_ROWS} row pins and {MATRIX_COLS} column pins")
        if len(set(rows) | set(cols)) != MATRIX_ROWS + MATRIX_COLS:
            raise ValueError("matrix pins must all be different")
        super().__init__(clock, scan_hz=scan_hz)
        from gpiozero import InputDevice

        self.row_numbers = list(rows)
        self.col_numbers = list(cols)
        self.settle_us = settle_us
        self._devices: list[Any] = []
        try:
            with gpio_setup("the switch matrix pins"):
                for pin in rows:
                    # Released: an input with its pull-up; the scan makes it an output
                    # driving low while the row is selected, then releases it again.
                    self._devices.append(InputDevice(pin, pull_up=True, pin_factory=pin_factory))
                for pin in cols:
                    self._devices.append(InputDevice(pin, pull_up=True, pin_factory=pin_factory))
        except BaseException:
            self._release()
            raise
        # The scan touches the pins directly: the device layer's locking and value
        # mapping would cost several times the electrical work at hundreds of scans/s.
        self._row_pins = [d.pin for d in self._devices[:MATRIX_ROWS]]
        self._col_pins = [d.pin for d in self._devices[MATRIX_ROWS:]]

    def read_switches(self) -> int:
        occ = 0
        settle = self.settle_us
        cols = self._col_pins
        try:
            for r, row in enumerate(self._row_pins):
                # lgpio claims an output driving low; the explicit low is for pin
                # libraries that keep the last level driven (this scan only drives low).
                row.function = "output"
                row.state = False
                busy_wait_us(settle)
                base = r * MATRIX_COLS
                for c, col in enumerate(cols):
                    if not col.state:  # pulled low through switch and diode: closed
                        occ |= 1 << (base + c)
                self._let_go(row)
        except BaseException:
            # A pin error half way through a pass must not leave a row pulled low.
            for row in self._row_pins:
                with contextlib.suppress(Exception):
                    self._let_go(row)
            raise
        return occ

    @staticmethod
    def _let_go(row: Any) -> None:
        """Release a row: an input again, held up by its pull-up."""
        row.function = "input"
        row.pull = "up"

    def diagnose(self) -> list[str]:
        """Check the columns with every row released: each must read high.

        With no row low no switch can pull a column low, whatever stands on the board
        (and a reversed diode would rather pull it up): a column that reads low is
        shorted to ground, or a row wire touches ground under a closed switch.
        """
        faults = []
        with self._lock:
            for row in self._row_pins:
                if row.function != "input":
                    self._let_go(row)
            busy_wait_us(self.settle_us)
            for c, col in enumerate(self._col_pins):
                if not col.state:
                    faults.append(
                        f"matrix column {c} (GPIO{self.col_numbers[c]}) reads low with no row "
                        "selected: the column wire is shorted to ground, or a row wire "
                        "touches ground where a piece stands"
                    )
        return faults

    def _release_pins(self) -> None:
        for device in self._devices:
            device.close()
        self._devices = []
