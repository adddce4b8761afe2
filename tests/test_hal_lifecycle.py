"""One lifecycle for every hardware part, as every gpiozero device has: ``close`` is
idempotent and releases once, ``closed`` says so, and each part is a context manager."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

from crownhead import hal, sim
from crownhead.hal.buttons import Buttons, NullButtons
from crownhead.hal.buzzer import Buzzer, NullBuzzer
from crownhead.hal.clock import VirtualClock
from crownhead.hal.device import Closeable, Device
from crownhead.hal.display import Display, NullDisplay
from crownhead.hal.lights import FrameLimiter, Lights, NullLights
from crownhead.hal.sensors import Sensors
from crownhead.sim.board import SimBoard
from crownhead.sim.buzzer import SimBuzzer
from crownhead.sim.display import SimDisplay

REPO = Path(__file__).resolve().parents[1]
INTERFACES = (Sensors, Lights, Buttons, Display, Buzzer)
#: Parts with a ``close`` that are not a hal interface: the simulator's pseudo-terminal
#: stands for a cable, not for a part of the board.
NOT_PARTS = {
    "crownhead.sim.serial_board.PtyEndpoint",
    "crownhead.sim.serial_board.BoardEmulator",
    "crownhead.sim.gpio_models._WiredPin",  # a gpiozero mock pin: gpiozero's lifecycle
}


def _classes() -> list[type]:
    found = []
    for package in (hal, sim):
        for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and callable(getattr(cls, "close", None)):
                    found.append(cls)
    return found


def test_every_part_with_a_close_is_a_device() -> None:
    parts = [c for c in _classes() if f"{c.__module__}.{c.__qualname__}" not in NOT_PARTS]
    assert len(parts) >= 15
    # The interfaces themselves (protocols) are the promise, not a part.
    parts = [c for c in parts if c not in INTERFACES and c is not Closeable]
    assert [c.__qualname__ for c in parts if not issubclass(c, Device)] == []


def test_every_interface_promises_the_lifecycle() -> None:
    for interface in INTERFACES:
        assert Closeable in interface.__mro__
        members = set(dir(interface))
        assert {"closed", "close", "__enter__", "__exit__"} <= members, interface


def test_the_once_only_rule_lives_in_one_place() -> None:
    """No backend keeps a closed flag of its own (each kept one, and each had to get the
    idempotence right again)."""
    where = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in ("hal", "sim")
        for path in sorted((REPO / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bself\._closed\s*=|\bself\.closed\s*=\s*(True|False)", line)
    ]
    assert where == ["hal/device.py:66"]


def test_close_releases_once_and_with_closes() -> None:
    released = []

    class Part(Device):
        def _release(self) -> None:
            released.append(1)

    with Part() as part:
        assert not part.closed
    assert part.closed and released == [1]
    part.close()
    part.close()
    assert released == [1]


def _open_parts() -> list[Closeable]:
    clock = VirtualClock()
    board = SimBoard(clock)
    return [
        board.sensors,
        board.lights,
        board.buttons,
        NullLights(),
        NullButtons(),
        NullDisplay(),
        NullBuzzer(),
        SimDisplay(),
        SimBuzzer(clock),
        FrameLimiter(NullLights(), clock),
    ]


@pytest.mark.parametrize("index", range(len(_open_parts())))
def test_each_part_has_the_same_lifecycle(index: int) -> None:
    part = _open_parts()[index]
    assert isinstance(part, Closeable)
    assert not part.closed
    with part as same:
        assert same is part
    assert part.closed
    part.close()  # idempotent
    assert part.closed


def test_the_simulated_lights_go_dark_once_on_close() -> None:
    board = SimBoard(VirtualClock())
    board.lights.show({11: (255, 0, 0)})
    board.lights.close()
    board.lights.close()
    assert board.lights.sent == {} and len(board.lights.frames) == 2


def test_a_frame_limiter_closes_the_lights_it_wraps() -> None:
    inner = NullLights()
    with FrameLimiter(inner, VirtualClock()):
        pass
    assert inner.closed
