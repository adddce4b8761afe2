"""The 8 x 4 diode matrix backend on gpiozero's MockFactory, wired by a model of the board."""

from __future__ import annotations

import random
import time

import pytest
from gpiozero.pins.mock import MockFactory

from crownhead.firmware.diagnostics.selftest import Selftest
from crownhead.firmware.config import default_config
from crownhead.firmware.app.hardware import open_hardware
from crownhead.hal.clock import MonotonicClock, VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.hal.matrix import MatrixSensors
from crownhead.hal.sensors import SensorEvent, Sensors, mask_of, squares_of
from crownhead.sim.gpio_models import MatrixWiring

ROWS = [4, 17, 27, 22, 5, 6, 13, 19]
COLS = [23, 24, 25, 12]


def make(diodes: bool = True, clock: VirtualClock | None = None) -> tuple[MatrixWiring, MatrixSensors]:
    wiring = MatrixWiring(ROWS, COLS, diodes=diodes)
    factory = MockFactory(pin_class=wiring.pin_class())
    sensors = MatrixSensors(ROWS, COLS, clock or VirtualClock(), settle_us=0, pin_factory=factory)
    return wiring, sensors


def test_implements_sensors() -> None:
    _, sensors = make()
    assert isinstance(sensors, Sensors)
    sensors.close()


def test_each_switch_is_its_own_square() -> None:
    wiring, sensors = make()
    for sq in range(1, 33):
        wiring.set_occupancy(mask_of([sq]))
        assert squares_of(sensors.scan_once()) == [sq]
    sensors.close()


def test_random_occupancies_read_back_exactly() -> None:
    rng = random.Random(20240601)
    wiring, sensors = make()
    for _ in range(300):
        mask = rng.getrandbits(32) & rng.getrandbits(32)  # ~8 pieces, like a real game
        if rng.random() < 0.2:
            mask = rng.getrandbits(32)  # and some crowded boards
        wiring.set_occupancy(mask)
        assert sensors.scan_once() == mask
    wiring.set_occupancy((1 << 32) - 1)
    assert sensors.scan_once() == (1 << 32) - 1
    sensors.close()


def test_no_ghost_with_diodes_but_a_ghost_without() -> None:
    # Three corners of a rectangle: rows 0 and 1, columns 0 and 1 -> squares 1, 2, 5.
    three = mask_of([1, 2, 5])
    wiring, sensors = make(diodes=True)
    wiring.set_occupancy(three)
    assert sensors.scan_once() == three
    # The same matrix without diodes shows the fourth corner (square 6): the model is
    # electrically honest, so the check above means something.
    bare, bare_sensors = make(diodes=False)
    bare.set_occupancy(three)
    assert squares_of(bare_sensors.scan_once()) == [1, 2, 5, 6]
    sensors.close()
    bare_sensors.close()


def watch_rows(wiring: MatrixWiring) -> list[tuple[int, bool]]:
    """(rows low, any row driven high) at every change the wiring sees from now on."""
    seen: list[tuple[int, bool]] = []
    original = wiring._update

    def watch() -> None:
        lows = sum(1 for r in range(8) if wiring._row_low(r))
        seen.append((lows, any(wiring.row_driven_high(r) for r in range(8))))
        original()

    wiring._update = watch  # type: ignore[method-assign]
    return seen


def test_one_row_low_at_a_time_the_others_released_never_driven_high() -> None:
    wiring, sensors = make()
    seen = watch_rows(wiring)
    wiring.set_occupancy(mask_of(range(1, 33)))
    sensors.scan_once()
    assert max(low for low, _ in seen) == 1 and sum(1 for low, _ in seen if low) >= 8
    assert not any(high for _, high in seen)
    # After a scan every row is released: an input held up by its pull-up.
    assert {wiring.pins[p].function for p in ROWS} == {"input"}
    assert {wiring.pins[p].pull for p in ROWS} == {"up"}
    sensors.close()


def test_a_reversed_diode_never_joins_two_row_pins() -> None:
    """Square 5's diode in backwards and a piece on square 1 of the same column: a row
    idling high (row 1) would feed row 0, pulled low, through both diodes, with only the
    two pin drivers to limit the current."""
    wiring, sensors = make()
    wiring.reverse_diode(5)
    wiring.set_occupancy(mask_of([1, 5]))
    for _ in range(3):
        assert squares_of(sensors.scan_once()) == [1]  # square 5's own diode blocks it
    assert wiring.shorts == set()
    sensors.close()


def test_events_after_the_baseline() -> None:
    clock = VirtualClock(500)
    wiring, sensors = make(clock=clock)
    wiring.set_occupancy(mask_of([3]))
    sensors.scan_once()  # baseline: pieces already there are not events
    assert sensors.poll() == [] and sensors.snapshot() == mask_of([3])
    clock.advance(4)
    wiring.set_occupancy(mask_of([4]))
    sensors.scan_once()
    assert sensors.poll() == [SensorEvent(3, False, 504), SensorEvent(4, True, 504)]
    assert sensors.poll() == []
    sensors.close()


def test_stuck_switch_is_reported_whatever_stands_there() -> None:
    wiring, sensors = make()
    wiring.stick(12, True)
    wiring.set_occupancy(0)
    assert squares_of(sensors.scan_once()) == [12]
    wiring.set_occupancy(mask_of([11]))
    assert squares_of(sensors.scan_once()) == [11, 12]
    wiring.stick(12, None)
    wiring.stick(20, False)
    wiring.set_occupancy(mask_of([20]))
    assert sensors.scan_once() == 0
    sensors.close()


def test_diagnose_finds_a_shorted_column() -> None:
    wiring, sensors = make()
    wiring.set_occupancy(mask_of(range(1, 33)))  # switches do not fool the idle check
    assert sensors.diagnose() == []
    wiring.short_column(1)
    faults = sensors.diagnose()
    assert len(faults) == 1 and "column 1 (GPIO24)" in faults[0]
    assert "shorted to ground" in faults[0] and "diode" not in faults[0]
    sensors.close()


def test_diagnose_names_a_grounded_row_not_a_diode() -> None:
    """A reversed diode cannot pull a column low with no row selected (it would rather
    pull it up); a row wire touching ground under a piece can, and the message says so."""
    wiring, sensors = make()
    wiring.reverse_diode(6)
    wiring.set_occupancy(mask_of([6]))
    assert sensors.diagnose() == []
    wiring.ground_row(2)
    wiring.set_occupancy(mask_of([6, 11]))  # square 11: row 2, column 2
    (fault,) = sensors.diagnose()
    assert fault.startswith("matrix column 2 (GPIO25) reads low with no row selected")
    assert "row wire touches ground" in fault
    sensors.close()


def test_scan_rate_is_measured_on_the_clock() -> None:
    clock = VirtualClock()
    _wiring, sensors = make(clock=clock)
    assert sensors.scan_rate == 0.0
    for _ in range(251):
        sensors.scan_once()
        clock.advance(4)
    assert sensors.scan_rate == pytest.approx(250.0)
    sensors.close()


def test_bad_pins() -> None:
    with pytest.raises(ValueError):
        MatrixSensors(ROWS[:7], COLS, VirtualClock(), pin_factory=MockFactory())
    with pytest.raises(ValueError):
        MatrixSensors(ROWS, [23, 24, 25, 4], VirtualClock(), pin_factory=MockFactory())
    factory = MockFactory()
    with pytest.raises(HardwareError, match="matrix pins"):
        MatrixSensors(ROWS[:7] + [99], COLS, VirtualClock(), pin_factory=factory)
    # The pins claimed before the failure were released again.
    MatrixSensors(ROWS, COLS, VirtualClock(), pin_factory=factory).close()


def test_background_thread_smoke() -> None:
    wiring, sensors = make(clock=MonotonicClock())  # type: ignore[arg-type]
    sensors.scan_hz = 1000
    wiring.set_occupancy(mask_of([1]))
    sensors.start()
    try:
        assert sensors.running and sensors.snapshot() == mask_of([1])
        wiring.set_occupancy(mask_of([1, 32]))
        deadline = time.monotonic() + 60  # a bound on a failure only
        while sensors.snapshot() != mask_of([1, 32]) and time.monotonic() < deadline:
            time.sleep(0.002)
        assert sensors.snapshot() == mask_of([1, 32])
        assert [e.square for e in sensors.poll()] == [32]
    finally:
        sensors.close()
    assert not sensors.running


class WiringHand:
    """A person at a real (mock-wired) board: moves magnets over the switches."""

    def __init__(self, wiring: MatrixWiring) -> None:
        self.wiring = wiring
        self.pieces: set[int] = {1, 2, 3}

    def _apply(self) -> None:
        self.wiring.set_occupancy(mask_of(self.pieces))

    def say(self, text: str) -> None:
        pass

    def request_clear(self) -> None:
        self.pieces.clear()
        self._apply()

    def request_place(self, square: int) -> None:
        self.pieces.add(square)
        self._apply()

    def request_lift(self, square: int) -> None:
        self.pieces.discard(square)
        self._apply()

    def dark_squares(self, colour, rgb, squares):
        return set()


def test_selftest_on_the_gpio_matrix_reports_the_stuck_switch() -> None:
    clock = VirtualClock()
    wiring = MatrixWiring(ROWS, COLS)
    wiring.stick(12, True)
    wiring.stick(7, False)
    config = default_config().replace("lights", backend="none").replace("buttons", backend="none")
    hw = open_hardware(
        config,
        clock,
        hal="gpio",
        start=False,
        pin_factory=MockFactory(pin_class=wiring.pin_class()),
    )
    sensors = hw.sensors
    assert isinstance(sensors, MatrixSensors)

    def idle(ms: int) -> None:  # the scan thread's job, done by hand on the virtual clock
        clock.advance(ms)
        sensors.scan_once()

    sensors.scan_once()
    result = Selftest(hw, WiringHand(wiring), idle=idle, timeout_ms=500, leds=False).run()
    hw.close()
    assert len(result.faults) == 2
    assert "square 12 (h6): reads occupied with the board cleared" in result.faults[0]
    assert "square 7 (e7): switch never closed" in result.faults[1]
