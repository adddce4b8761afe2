"""Electrical models of the switch wirings, as gpiozero mock pins.

They let the real GPIO backends (:mod:`crownhead.hal.matrix`, :mod:`crownhead.hal.shift`) run unmodified
on gpiozero's :class:`~gpiozero.pins.mock.MockFactory`: the pins behave the way the
wires on a real board make them behave. Each model hands out a pin class for the
factory::

    wiring = MatrixWiring(rows=[...], cols=[...])
    factory = MockFactory(pin_class=wiring.pin_class())
    sensors = MatrixSensors(rows, cols, clock, pin_factory=factory)
    wiring.set_occupancy(mask_of([1, 12]))
    assert sensors.scan_once() == mask_of([1, 12])
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from gpiozero.pins.mock import MockPin

__all__ = ["MatrixWiring", "ShiftChainWiring"]


def _gpio_number(pin: MockPin) -> int:
    name = pin.info.name  # 'GPIO17'
    return int(name[4:]) if name.startswith("GPIO") else -1


class _WiredPin(MockPin):
    """A mock pin that tells its wiring model whenever its driven level changes.

    Like a real GPIO (and unlike a bare MockPin, whose one state is both what it reads
    and what it drives) it keeps its output latch apart from the level it reads as an
    input: a pin switched back to output drives what it last drove as an output, low
    if it never did (as lgpio's ``gpio_claim_output`` does), not what its pull-up made
    it read meanwhile.
    """

    model: _Model

    def __init__(self, factory: Any, info: Any) -> None:
        self._latch = False
        super().__init__(factory, info)
        self.model.attach(_gpio_number(self), self)

    def _change_state(self, value: bool) -> bool:
        if self._function == "output":
            self._latch = bool(value)
        changed = super()._change_state(value)
        if changed and self._function == "output":
            self.model.output_changed(_gpio_number(self), bool(value))
        return changed

    def _set_function(self, value: str) -> None:
        if value == "output" and self.function != "output":
            self._function: str = "output"
            with self.model.lock:
                self._state = self._latch
                self.model.update()
            return
        super()._set_function(value)
        self.model.update()

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        self.model.update()


class _Model:
    def __init__(self) -> None:
        self.pins: dict[int, MockPin] = {}
        # A scanning thread drives the pins while a test moves pieces: one at a time.
        self.lock = threading.RLock()

    def pin_class(self) -> type[MockPin]:
        """A MockPin subclass bound to this model, for ``MockFactory(pin_class=...)``."""
        return type("WiredPin", (_WiredPin,), {"model": self})

    def attach(self, number: int, pin: MockPin) -> None:
        with self.lock:
            self.pins[number] = pin
            self.update()

    def output_changed(self, number: int, level: bool) -> None:
        with self.lock:
            self.update()

    def update(self) -> None:
        raise NotImplementedError

    def _drive_input(self, number: int, low: bool | None) -> None:
        """Set an input pin: low=True pulls it low, False drives it high, None leaves it
        to its pull resistor."""
        pin = self.pins.get(number)
        if pin is None or pin.function != "input":
            return
        if low is None:
            pull = pin.pull
            if pull == "up":
                pin.drive_high()
            elif pull == "down":
                pin.drive_low()
            return  # floating: keeps whatever it last read, like a real floating input
        if low:
            pin.drive_low()
        else:
            pin.drive_high()


class MatrixWiring(_Model):
    """An 8 x 4 reed-switch matrix: column -> switch -> diode -> row.

    ``diodes=False`` models the same matrix without diodes (current can then flow
    backwards through closed switches, which is what causes ghosting). Faults:
    :meth:`stick` (a reed welded shut or never closing), :attr:`shorted_columns`,
    :attr:`grounded_rows` (a row wire touching ground) and :meth:`reverse_diode` (a
    diode soldered in backwards).

    A row *driven high* that reaches a row driven low through closed switches and
    their diodes is a short between two pin drivers, limited by nothing else: every
    one is recorded in :attr:`shorts` as ``(high row, low row)``.
    """

    def __init__(self, rows: Sequence[int], cols: Sequence[int], *, diodes: bool = True) -> None:
        super().__init__()
        self.rows = list(rows)
        self.cols = list(cols)
        self.diodes = diodes
        self.closed: set[tuple[int, int]] = set()
        self.stuck: dict[tuple[int, int], bool] = {}
        self.shorted_columns: set[int] = set()
        self.grounded_rows: set[int] = set()
        self.reversed: set[tuple[int, int]] = set()
        self.shorts: set[tuple[int, int]] = set()

    @staticmethod
    def switch_of(square: int) -> tuple[int, int]:
        return divmod(square - 1, 4)

    def set_occupancy(self, mask: int) -> None:
        with self.lock:
            self.closed = {self.switch_of(s) for s in range(1, 33) if mask >> (s - 1) & 1}
            self.update()

    def stick(self, square: int, closed: bool | None) -> None:
        key = self.switch_of(square)
        with self.lock:
            if closed is None:
                self.stuck.pop(key, None)
            else:
                self.stuck[key] = closed
            self.update()

    def short_column(self, c: int) -> None:
        with self.lock:
            self.shorted_columns.add(c)
            self.update()

    def ground_row(self, r: int) -> None:
        """Row ``r``'s wire touches ground: it is low whatever its pin does."""
        with self.lock:
            self.grounded_rows.add(r)
            self.update()

    def reverse_diode(self, square: int) -> None:
        """The diode of ``square``'s switch is in backwards (band towards the column)."""
        with self.lock:
            self.reversed.add(self.switch_of(square))
            self.update()

    def _effective(self) -> set[tuple[int, int]]:
        out = set(self.closed)
        for key, closed in self.stuck.items():
            (out.add if closed else out.discard)(key)
        return out

    def _row_low(self, r: int) -> bool:
        if r in self.grounded_rows:
            return True
        pin = self.pins.get(self.rows[r])
        return pin is not None and pin.function == "output" and not pin.state

    def row_driven_high(self, r: int) -> bool:
        pin = self.pins.get(self.rows[r])
        return pin is not None and pin.function == "output" and bool(pin.state)

    def update(self) -> None:
        with self.lock:
            self._update()

    def _update(self) -> None:
        closed = self._effective()
        low_cols: set[int]
        if self.diodes:
            low_cols = self._diode_paths(closed)
        else:
            # Without diodes current also flows column -> switch -> row -> other
            # switch -> other column: any column connected to a low row through
            # closed switches reads low.
            low_rows = {r for r in range(len(self.rows)) if self._row_low(r)}
            low_cols = set()
            frontier_rows = set(low_rows)
            seen_rows = set(low_rows)
            while frontier_rows:
                new_cols = {c for (r, c) in closed if r in frontier_rows} - low_cols
                low_cols |= new_cols
                new_rows = {r for (r, c) in closed if c in new_cols} - seen_rows
                seen_rows |= new_rows
                frontier_rows = new_rows
        for c, number in enumerate(self.cols):
            self._drive_input(number, True if (c in low_cols or c in self.shorted_columns) else None)

    def _diode_paths(self, closed: set[tuple[int, int]]) -> set[int]:
        """The columns pulled low, following current through the diodes; records shorts.

        A closed switch with its diode the right way round conducts from its column into
        its row; one with a reversed diode from its row into its column. Current flows
        from a column (held up by its pull-up) or a row driven high, through released
        rows and other columns, into a row that is low. A column that reaches a low row
        reads low; a row driven high that reaches one is a short.
        """
        n_rows = len(self.rows)
        low_rows = {r for r in range(n_rows) if self._row_low(r)}
        high_rows = {r for r in range(n_rows) if r not in low_rows and self.row_driven_high(r)}
        into_row: dict[int, set[int]] = {}  # column -> rows it conducts into
        into_col: dict[int, set[int]] = {}  # row -> columns it conducts into
        for r, c in closed:
            if (r, c) in self.reversed:
                into_col.setdefault(r, set()).add(c)
            else:
                into_row.setdefault(c, set()).add(r)

        def reaches_low(start_cols: set[int]) -> set[int]:
            """The low rows reachable from these columns (through released rows only)."""
            found: set[int] = set()
            seen_cols = set(start_cols)
            frontier = list(start_cols)
            seen_rows: set[int] = set()
            while frontier:
                c = frontier.pop()
                for r in into_row.get(c, ()):
                    if r in low_rows:
                        found.add(r)
                    elif r not in high_rows and r not in seen_rows:
                        seen_rows.add(r)
                        for c2 in into_col.get(r, ()):
                            if c2 not in seen_cols:
                                seen_cols.add(c2)
                                frontier.append(c2)
            return found

        for r in high_rows:
            for low in reaches_low(set(into_col.get(r, ()))):
                self.shorts.add((r, low))
        return {c for c in range(len(self.cols)) if reaches_low({c})}


class ShiftChainWiring(_Model):
    """Four 74HC165 in a chain, each input pulled up and closed to ground by a reed.

    Inputs are numbered in the order they are shifted out (0 = H of the first chip).
    SER of the last chip is tied high (``ser_high``). Faults: :meth:`stick`,
    ``data_stuck_low`` (a broken or shorted data line), ``clock_broken``.
    """

    BITS = 32

    def __init__(self, load: int, clock: int, data: int, *, ser_high: bool = True) -> None:
        super().__init__()
        self.load, self.clock, self.data = load, clock, data
        self.ser_high = ser_high
        self.closed: set[int] = set()  # input indices whose switch is closed
        self.stuck: dict[int, bool] = {}
        self.data_stuck_low = False
        self.clock_broken = False
        self._reg = (1 << self.BITS) - 1
        self.loads = 0
        self.clocks = 0

    def set_occupancy(self, mask: int, squares: Sequence[int] | None = None) -> None:
        """Close the switches of the squares in ``mask``; ``squares`` is the chain order."""
        order = list(squares) if squares is not None else list(range(1, self.BITS + 1))
        with self.lock:
            self.closed = {i for i, sq in enumerate(order) if mask >> (sq - 1) & 1}
            self._reload_if_loading()
            self.update()

    def stick(self, index: int, closed: bool | None) -> None:
        with self.lock:
            if closed is None:
                self.stuck.pop(index, None)
            else:
                self.stuck[index] = closed
            self._reload_if_loading()
            self.update()

    def _levels(self) -> int:
        closed = set(self.closed)
        for i, c in self.stuck.items():
            (closed.add if c else closed.discard)(i)
        levels = (1 << self.BITS) - 1
        for i in closed:
            levels &= ~(1 << i)
        return levels

    def _load_low(self) -> bool:
        pin = self.pins.get(self.load)
        return pin is not None and pin.function == "output" and not pin.state

    def _reload_if_loading(self) -> None:
        if self._load_low():
            self._reg = self._levels()

    def output_changed(self, number: int, level: bool) -> None:
        with self.lock:
            self._output_changed(number, level)

    def _output_changed(self, number: int, level: bool) -> None:
        if number == self.load and not level:
            self.loads += 1
            self._reg = self._levels()  # SH/LD low: parallel load (asynchronous)
        elif number == self.clock and level and not self._load_low() and not self.clock_broken:
            self.clocks += 1
            ser = 1 if self.ser_high else 0
            self._reg = (self._reg >> 1) | (ser << (self.BITS - 1))
        self.update()

    def update(self) -> None:
        low = self.data_stuck_low or not (self._reg & 1)
        self._drive_input(self.data, low)
