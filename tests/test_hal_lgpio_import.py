"""lgpio is imported from a writable directory, so gpiozero does not silently fall back
to a pin library that cannot work (systemd's "/" or another user's home as the current
directory)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from crownhead.hal.lgpio_import import import_lgpio, writable_directory

# A stand-in for lgpio with its troublesome habit: at import it creates its FIFO in the
# current directory, and fails where it cannot.
FAKE = """
import os
CREATED_IN = os.getcwd()
open(".lgd-nfy0", "x").close()
"""


@pytest.fixture
def fake_lgpio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "fake_lgpio.py").write_text(FAKE)
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.delitem(sys.modules, "fake_lgpio", raising=False)
    yield "fake_lgpio"
    sys.modules.pop("fake_lgpio", None)


def test_imported_from_the_state_directory_and_cwd_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_lgpio: str
) -> None:
    locked = tmp_path / "root"  # stands for "/" under systemd
    state = tmp_path / "state"
    locked.mkdir()
    state.mkdir()
    monkeypatch.chdir(locked)
    used = import_lgpio(
        module=fake_lgpio,
        writable=lambda p: Path(p) != locked,
        environ={"STATE_DIRECTORY": f"{state}:{tmp_path / 'other'}"},
    )
    assert used == str(state)
    assert sys.modules[fake_lgpio].CREATED_IN == str(state)
    assert (state / ".lgd-nfy0").exists() and not (locked / ".lgd-nfy0").exists()
    assert os.getcwd() == str(locked)


def test_nothing_happens_where_the_current_directory_is_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_lgpio: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert import_lgpio(module=fake_lgpio, writable=lambda p: True) is None
    assert fake_lgpio not in sys.modules  # gpiozero imports it itself, as usual


def test_not_installed_or_already_imported_is_left_alone() -> None:
    assert import_lgpio(module="no_such_lgpio_module", writable=lambda p: False) is None
    assert import_lgpio(module="os", writable=lambda p: False) is None


def test_a_failing_import_is_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_lgpio: str) -> None:
    target = tmp_path / "t"
    target.mkdir()
    (target / ".lgd-nfy0").touch()  # the fake then fails with FileExistsError
    monkeypatch.chdir(tmp_path)
    used = import_lgpio(
        module=fake_lgpio,
        writable=lambda p: Path(p) == target,
        environ={"RUNTIME_DIRECTORY": str(target)},
    )
    assert used == str(target) and os.getcwd() == str(tmp_path)


def test_writable_directory_order(tmp_path: Path) -> None:
    state, run = str(tmp_path / "s"), str(tmp_path / "r")
    env = {"STATE_DIRECTORY": state, "RUNTIME_DIRECTORY": run}
    assert writable_directory(env, lambda p: True) == state
    assert writable_directory(env, lambda p: p == run) == run
    assert writable_directory({}, lambda p: True) is not None  # the temporary directory
    assert writable_directory(env, lambda p: False) is None


def test_every_gpio_backend_prepares_lgpio_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero.pins.mock import MockFactory

    import crownhead.hal.lgpio_import  # noqa: F401 - loads hal.lgpio_import
    from crownhead import hal
    from crownhead.hal.clock import VirtualClock
    from crownhead.hal.gpio_buttons import GpioButtons
    from crownhead.hal.matrix import MatrixSensors
    from crownhead.hal.shift import ShiftRegisterSensors

    calls: list[str] = []
    monkeypatch.setattr(hal.lgpio_import, "import_lgpio", lambda: calls.append("x"))
    clock = VirtualClock()
    factory = MockFactory()
    GpioButtons({"new": 16}, clock, pin_factory=factory).close()
    rows, cols = [4, 17, 27, 22, 5, 6, 13, 19], [23, 24, 25, 12]
    MatrixSensors(rows, cols, clock, pin_factory=factory).close()
    ShiftRegisterSensors(4, 17, 27, clock, pin_factory=factory).close()
    assert len(calls) == 3
