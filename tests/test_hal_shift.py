"""Four chained 74HC165 on gpiozero's MockFactory, driven by a model of the chips."""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory

from crownhead.hal.clock import VirtualClock
from crownhead.hal.errors import HardwareError
from crownhead.hal.sensors import SensorEvent, mask_of, squares_of
from crownhead.hal.shift import ShiftRegisterSensors
from crownhead.sim.gpio_models import ShiftChainWiring

LOAD, CLK, DATA = 4, 17, 27


def make(clock: VirtualClock | None = None, **kwargs) -> tuple[ShiftChainWiring, ShiftRegisterSensors]:
    wiring = ShiftChainWiring(LOAD, CLK, DATA)
    factory = MockFactory(pin_class=wiring.pin_class())
    sensors = ShiftRegisterSensors(LOAD, CLK, DATA, clock or VirtualClock(), settle_us=0, pin_factory=factory, **kwargs)
    return wiring, sensors


def test_random_occupancies_read_back_exactly() -> None:
    rng = random.Random(7)
    wiring, sensors = make()
    for _ in range(200):
        mask = rng.getrandbits(32)
        wiring.set_occupancy(mask)
        assert sensors.scan_once() == mask
        assert sensors.last_check == 0xFF  # SER tied high shifts in ones after the chain
    sensors.close()


def test_bit_order_first_bit_is_square_1() -> None:
    wiring, sensors = make()
    for sq in (1, 8, 9, 32):
        wiring.set_occupancy(mask_of([sq]))
        levels, _check = sensors.read_chain()
        assert levels == ((1 << 32) - 1) & ~(1 << (sq - 1))  # active low
    sensors.close()


def test_one_load_and_forty_clocks_per_scan() -> None:
    wiring, sensors = make()
    sensors.scan_once()
    assert (wiring.loads, wiring.clocks) == (1, 40)
    sensors.close()


def test_remapped_chain_order() -> None:
    order = list(range(32, 0, -1))  # the chain wired from square 32 down
    wiring, sensors = make(squares=order)
    wiring.set_occupancy(mask_of([1, 30]), squares=order)
    assert squares_of(sensors.scan_once()) == [1, 30]
    # Raw bit 0 now belongs to square 32.
    wiring.set_occupancy(0)
    wiring.closed = {0}
    assert squares_of(sensors.scan_once()) == [32]
    sensors.close()


def test_events_and_stuck_input() -> None:
    clock = VirtualClock(100)
    wiring, sensors = make(clock=clock)
    sensors.scan_once()
    wiring.stick(11, True)  # input 11 = square 12
    clock.advance(3)
    sensors.scan_once()
    assert sensors.poll() == [SensorEvent(12, True, 103)]
    wiring.set_occupancy(mask_of([12]))
    wiring.set_occupancy(0)
    assert squares_of(sensors.scan_once()) == [12]
    sensors.close()


@pytest.mark.parametrize("fault", ["data_stuck_low", "clock_broken"])
def test_diagnose_catches_a_broken_chain(fault: str) -> None:
    wiring, sensors = make()
    wiring.set_occupancy(mask_of([1, 2]))
    assert sensors.diagnose() == []
    setattr(wiring, fault, True)
    wiring.set_occupancy(mask_of([1, 2]))
    faults = sensors.diagnose()
    assert len(faults) == 1 and "shift register chain" in faults[0] and "GPIO27" in faults[0]
    sensors.close()


def test_check_bits_can_be_disabled() -> None:
    wiring, sensors = make(check_bits=0)
    wiring.data_stuck_low = True
    wiring.update()
    assert sensors.diagnose() == []
    assert wiring.clocks == 0
    sensors.close()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        ShiftRegisterSensors(4, 4, 5, VirtualClock(), pin_factory=MockFactory())
    with pytest.raises(ValueError):
        ShiftRegisterSensors(4, 5, 6, VirtualClock(), squares=[1] * 32, pin_factory=MockFactory())
    with pytest.raises(HardwareError):
        ShiftRegisterSensors(4, 5, 99, VirtualClock(), pin_factory=MockFactory())
