"""Reed switches in an 8 x 4 diode matrix, scanned on 12 GPIO pins with gpiozero.

Wiring (see docs/hardware.md): each of the 8 *row* pins (outputs) serves one rank of
the board, each of the 4 *column* pins (inputs, internal pull-up) serves one of the
four dark squares of every rank, counted from the left. The switch for row ``r`` and
column ``c`` is square ``4 r + c + 1``, and is wired column pin -> reed switch -> diode
-> row pin, with the diode's cathode (the band) towards the row pin.

Scanning drives one row low at a time; every closed switch on that row pulls its column
low through its diode. Idle rows are driven high, where their diodes block, so a closed
switch on another row can never feed a column: no ghosting, and no short between rows
however many switches are closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hal.clock import Clock
from hal.errors import gpio_setup
from hal.scanning import ScanningSensors, busy_wait_us

__all__ = ["MatrixSensors", "MATRIX_ROWS", "MATRIX_COLS"]

MATRIX_ROWS = 8
MATRIX_COLS = 4


class MatrixSensors(ScanningSensors):
    """:class:`~hal.sensors.Sensors` for an 8 x 4 diode matrix on GPIO.

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
        from gpiozero import InputDevice, OutputDevice

        self.row_numbers = list(rows)
        self.col_numbers = list(cols)
        self.settle_us = settle_us
        self._devices: list[Any] = []
        try:
            with gpio_setup("the switch matrix pins"):
                for pin in rows:
                    # active_high=False: "on" drives the row low; start off (high = idle).
                    self._devices.append(
                        OutputDevice(
                            pin, active_high=False, initial_value=False, pin_factory=pin_factory
                        )
                    )
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
        for r, row in enumerate(self._row_pins):
            row.state = False
            busy_wait_us(settle)
            base = r * MATRIX_COLS
            for c, col in enumerate(cols):
                if not col.state:  # pulled low through switch and diode: closed
                    occ |= 1 << (base + c)
            row.state = True
        return occ

    def diagnose(self) -> list[str]:
        """Check the columns with every row idle: each must read high.

        A column that reads low with no row selected cannot be explained by any switch
        (the diodes block towards idle rows): the line is shorted to ground, a diode is
        in backwards on a row that idles low, or the pull-up is missing.
        """
        faults = []
        with self._lock:
            for row in self._row_pins:
                row.state = True
            busy_wait_us(self.settle_us)
            for c, col in enumerate(self._col_pins):
                if not col.state:
                    faults.append(
                        f"matrix column {c} (GPIO{self.col_numbers[c]}) reads low with no row "
                        "selected: shorted to ground or a diode reversed"
                    )
        return faults

    def _release(self) -> None:
        for device in self._devices:
            device.close()
        self._devices = []
