"""The Pico firmware over days and through faults: its counters past 2**30 on a 32-bit
MicroPython with the heap locked, a Ctrl-C at any moment of its start, the current its
LEDs may draw from USB, and the order of its LED chain."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.mcu import FIRMWARE_DIR, load_firmware
from crownhead.firmware.mcu.standins import WATCHDOG_CTRL, WATCHDOG_ENABLE, Bench, BytesStream, decode_grb
from crownhead.hal.clock import VirtualClock
from crownhead.hal.lights import estimate_current_ma
from crownhead.hal.pixelmap import LAYOUTS, ORIGINS, build_pixel_map
from crownhead.hal.sensors import mask_of
from crownhead.hal.serial_protocol import encode_led, parse_board_line
from crownhead.sim.gpio_models import MatrixWiring

FW = load_firmware()
HERE = Path(__file__).resolve().parent
BENCH = HERE / "mcu_upy_bench.py"
WASM_DIR = HERE / "micropython32"
WASM_PACKAGE = WASM_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
#: Where the tests look for a 32-bit build of MicroPython's unix port (else on PATH as
#: ``micropython32``).
MICROPYTHON32_ENV = "CROWNHEAD_MICROPYTHON32"
BUILD_32 = (
    "build one with gcc-multilib: git clone https://github.com/micropython/micropython && "
    "make -C micropython/ports/unix MICROPY_PY_FFI=0 MICROPY_PY_SSL=0 MICROPY_PY_BTREE=0 "
    "FROZEN_MANIFEST= CFLAGS_EXTRA=-m32 LDFLAGS_EXTRA=-m32, then set "
    f"{MICROPYTHON32_ENV} to micropython/ports/unix/build-standard/micropython"
)
SMALL_INT_MAX = (1 << 30) - 1


def make_board(clock: VirtualClock | None = None) -> tuple[Any, MatrixWiring, Bench, BytesStream]:
    clock = clock or VirtualClock()
    wiring = MatrixWiring(FW.ROW_PINS, FW.COL_PINS)
    bench = Bench(wiring, clock)
    usb = BytesStream()
    board = FW.Board(bench.machine.Pin, bench.neopixel.NeoPixel, usb, clock.now_ms)
    return board, wiring, bench, usb


# -- counters that run for days ---------------------------------------------------------------


def test_count_up_wraps_before_a_32_bit_micropython_would_allocate() -> None:
    assert FW.SMALL_INT_MAX == SMALL_INT_MAX
    assert FW.count_up(0) == 1 and FW.count_up(SMALL_INT_MAX - 1) == SMALL_INT_MAX
    assert FW.count_up(SMALL_INT_MAX) == 0


@pytest.mark.parametrize(
    "a, b", [(5, 3), (3, 5), (2, 2**30 - 3), (2**30 - 3, 2), (2**29, 0), (0, 2**29), (2**30 - 1, 0)]
)
def test_ticks_diff_is_micropythons(a: int, b: int) -> None:
    # time.ticks_diff: the signed difference, modulo 2**30, in [-2**29, 2**29).
    expected = ((a - b + 2**29) % 2**30) - 2**29
    assert FW.ticks_diff(a, b) == expected


def test_scan_count_wraps_past_2_to_the_30() -> None:
    board, wiring, _, usb = make_board()
    wiring.set_occupancy(mask_of([3]))
    board.boot()
    board.scans = SMALL_INT_MAX - 2
    for _ in range(5):
        board.step()
    assert board.scans == 2  # ..., 2**30 - 1, 0, 1, 2: never 2**30
    masks = [m.mask for m in map(parse_board_line, usb.take().split(b"\n")[:-1]) if hasattr(m, "mask")]
    assert masks == [mask_of([3])]


def micropython32(kind: str) -> list[str]:
    """The command that runs the bench on a 32-bit MicroPython of ``kind``, or a skip."""
    if kind == "unix-m32":
        path = os.environ.get(MICROPYTHON32_ENV) or shutil.which("micropython32")
        if not path:
            pytest.skip(f"no 32-bit MicroPython unix port ({MICROPYTHON32_ENV} is not set): {BUILD_32}")
        probe = subprocess.run(
            [path, "-c", "import sys; print(sys.maxsize)"], capture_output=True, text=True, timeout=60
        )
        if probe.stdout.strip() != str(2**31 - 1):
            pytest.fail(f"{path} is not a 32-bit MicroPython (sys.maxsize {probe.stdout.strip()!r}): {BUILD_32}")
        return [path, str(BENCH), str(FIRMWARE_DIR)]
    node = shutil.which("node")
    if node is None:
        pytest.skip(
            "Node.js is not installed (apt-get install nodejs npm): it runs MicroPython's 32-bit WebAssembly port"
        )
    if not WASM_PACKAGE.is_dir():
        pytest.skip(
            "MicroPython's WebAssembly port is not installed: npm ci --prefix tests/micropython32 "
            "(make test does it where npm is installed)"
        )
    return [node, str(WASM_DIR / "run.mjs"), str(FIRMWARE_DIR), str(BENCH)]


@pytest.mark.parametrize("kind", ["unix-m32", "wasm32"])
def test_on_a_32_bit_micropython_past_2_to_the_30_scans_and_the_tick_wrap(kind: str) -> None:
    """The Pico's integer width: small ints end at 2**30. At 2,400 scans a second the
    scan count reaches that after five days; one more step there must not allocate (the
    heap is locked around the scan: an allocation is a MemoryError, the loop dies, the
    watchdog resets the Pico and the game loses its board). The clock's own wrap at
    2**30 ms (12 days) is crossed on the way."""
    command = micropython32(kind)
    script = [
        f"ticks {2**30 - 2500}",  # the clock wraps 2.5 s into the run
        "step 3",
        "occ 0000F00F",
        f"scans {SMALL_INT_MAX - 4}",
        "step 10",  # ..., 2**30 - 1, then 0 ... 5
        *(["wait 250", "step 2"] * 20),  # 5 s, a heartbeat a second across the wrap
        "send OCC?",
        "step 1",
        f"ticks {2**29 + 3000}",  # ticks half a period apart: ticks_diff must not allocate
        "step 2",
    ]
    proc = subprocess.run(command, input="\n".join(script), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-500:]
    out = proc.stdout.splitlines()
    assert out[-1] == "OK"
    assert f"MAXSIZE {2**31 - 1}" in out, "not a 32-bit MicroPython"
    assert "SCANS 48" in out and "DRIVEN-HIGH 0" in out
    occ = [parse_board_line(x[3:].encode()) for x in out if x.startswith("RX OCC")]
    # At boot, the change, five heartbeats (one a second, across the wrap), OCC?.
    assert [m.mask for m in occ] == [0] + [0xF00F] * 7


@pytest.mark.parametrize("kind", ["unix", "unix-m32", "wasm32"])
def test_on_micropython_a_grounded_column_is_a_fault_under_the_locked_heap(kind: str) -> None:
    """The column check runs inside the locked heap once a second: on MicroPython itself
    (the Pico's 32-bit integers too) a grounded column is a FAULT line at boot and with
    every heartbeat, and FAULT none once when the wire is free again."""
    if kind == "unix":
        path = shutil.which("micropython") or str(Path(sys.executable).with_name("micropython"))
        if not Path(path).exists():
            pytest.skip("the MicroPython interpreter (unix port) is not installed")
        command = [path, str(BENCH), str(FIRMWARE_DIR)]
    else:
        command = micropython32(kind)
    script = ["ground 3", "step 2", *(["wait 500", "step 1"] * 4), "unground 3", *(["wait 500", "step 1"] * 4)]
    proc = subprocess.run(command, input="\n".join(script), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-500:]
    out = proc.stdout.splitlines()
    assert out[-1] == "OK"
    got = [parse_board_line(x[3:].encode()) for x in out if x.startswith("RX ")]
    faults = [(m.code, m.text.split(":")[0]) for m in got if type(m).__name__ == "BoardFault"]
    low = ("col-low", "matrix column 3 (GP13) reads low with no row selected")
    # The wire goes to ground after boot: at the heartbeats 1 s and 2 s in, cleared at
    # 3 s, and silent at 4 s.
    assert faults == [low, low, ("none", "")]


# -- Ctrl-C while the firmware starts -------------------------------------------------------------


class Interrupted(Exception):
    pass


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.data = bytearray(data)
        self.buffer = self

    def readinto(self, buf: bytearray) -> int:
        if not self.data:
            return 0
        buf[0] = self.data.pop(0)
        return 1


class _Stdout:
    def __init__(self) -> None:
        self.buffer = self
        self.written = bytearray()

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)


def run_main(monkeypatch: pytest.MonkeyPatch, interrupt_at: int) -> tuple[Bench, bool]:
    """The firmware's own ``main()`` on the bench's ``machine``, with a Ctrl-C arriving at
    the ``interrupt_at``-th call into the chip (a pin made, the watchdog started, a byte
    read or written). Returns the bench and whether the interrupt escaped ``main()``."""
    clock = VirtualClock()
    wiring = MatrixWiring(FW.ROW_PINS, FW.COL_PINS)
    bench = Bench(wiring, clock)
    calls = [0]

    def tick() -> None:
        calls[0] += 1
        if calls[0] == interrupt_at:
            raise KeyboardInterrupt
        if calls[0] > 400:  # the loop ran long enough: stop it as Ctrl-C would
            raise KeyboardInterrupt

    machine = bench.machine
    pin_class, wdt_class = machine.Pin, machine.WDT

    class Pin(pin_class):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            tick()
            super().__init__(*args, **kwargs)

    class WDT(wdt_class):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            tick()
            super().__init__(*args, **kwargs)

    fake_machine = types.ModuleType("machine")
    fake_machine.Pin, fake_machine.WDT, fake_machine.mem32 = Pin, WDT, machine.mem32  # type: ignore[attr-defined]
    fake_micropython = types.ModuleType("micropython")
    fake_micropython.heap_lock = fake_micropython.heap_unlock = lambda: None  # type: ignore[attr-defined]

    class Poll:
        def register(self, stream: Any, mask: int) -> None:
            pass

        def ipoll(self, timeout: int) -> list[int]:
            tick()
            return [1] if stdin.data else []

    fake_select = types.ModuleType("select")
    fake_select.poll, fake_select.POLLIN = Poll, 1  # type: ignore[attr-defined]
    stdin, stdout = _Stdin(b"OCC?\n"), _Stdout()
    monkeypatch.setitem(sys.modules, "machine", fake_machine)
    monkeypatch.setitem(sys.modules, "micropython", fake_micropython)
    monkeypatch.setitem(sys.modules, "neopixel", bench.neopixel)
    monkeypatch.setitem(sys.modules, "select", fake_select)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys.implementation, "_machine", "Raspberry Pi Pico with RP2040", raising=False)
    monkeypatch.setattr("time.ticks_ms", clock.now_ms, raising=False)
    monkeypatch.setattr("time.sleep_us", lambda us: None, raising=False)
    escaped = False
    try:
        load_firmware().main()
    except KeyboardInterrupt:
        escaped = True
    finally:
        monkeypatch.undo()
    return bench, escaped


def test_ctrl_c_at_any_moment_leaves_the_watchdog_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C (0x03 on the USB line) is a KeyboardInterrupt wherever the firmware is.
    Whenever it comes, the watchdog must end up stopped: otherwise it resets the Pico
    two seconds into the REPL that mpremote (or a person) is using."""
    bench, escaped = run_main(monkeypatch, 0)  # never interrupted before the loop runs
    assert not escaped and bench.watchdog is not None
    ctrl = WATCHDOG_CTRL["RP2040"]
    for at in range(1, 60):
        bench, escaped = run_main(monkeypatch, at)
        if bench.watchdog is not None:
            assert not bench.mem32[ctrl] & WATCHDOG_ENABLE, f"Ctrl-C at call {at}: the watchdog still runs"
        assert not escaped, f"Ctrl-C at call {at} escaped main()"


# -- the LED budget on USB power ------------------------------------------------------------------


def test_a_frame_brighter_than_the_usb_budget_is_dimmed_to_fit() -> None:
    board, _, bench, usb = make_board()
    white = [(255, 255, 255)] * 32
    usb.incoming += encode_led(white)
    board.step()
    shown = decode_grb(bench.frames(FW.LED_PIN)[-1])
    drawn = estimate_current_ma(dict(enumerate(shown, start=1)), 1.0, 32)
    assert FW.LED_BUDGET_MA - 10 <= drawn <= FW.LED_BUDGET_MA
    assert len(set(shown)) == 1  # dimmed evenly: still white
    # The Pi's default cap makes all-white (25, 25, 25): 220 mA, more than the 200 mA
    # the USB port's share allows, so it is dimmed too.
    assert FW.LED_BUDGET_MA == 200
    capped = [(25, 25, 25)] * 32
    usb.incoming += encode_led(capped)
    board.step()
    shown = decode_grb(bench.frames(FW.LED_PIN)[-1])
    assert shown != capped and estimate_current_ma(dict(enumerate(shown, start=1)), 1.0, 32) <= FW.LED_BUDGET_MA
    # Play at the default cap (a few lit squares, the rest dark) is shown as sent.
    play = [(25, 25, 25) if sq in (9, 14, 18, 23) else (0, 0, 0) for sq in range(1, 33)]
    usb.incoming += encode_led(play)
    board.step()
    assert decode_grb(bench.frames(FW.LED_PIN)[-1]) == play


# -- the LED chain order -------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("origin", ORIGINS)
def test_pixel_map_is_the_pis(layout: str, origin: str) -> None:
    table = FW.pixel_map(layout, origin)
    pi = build_pixel_map(32, layout, origin)
    assert list(table) == [pi.pixel_of(sq) for sq in range(1, 33)]


def test_serpentine_chain_shows_each_square_at_its_pixel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FW, "LED_MAP", "serpentine")
    board, _, bench, usb = make_board()
    colours = [(sq, 0, 0) for sq in range(1, 33)]  # red = square number
    usb.incoming += encode_led(colours)
    board.step()
    pixels = decode_grb(bench.frames(FW.LED_PIN)[-1])
    # Rank 8 runs b8 -> h8 (squares 1-4), rank 7 back g7 -> a7 (squares 8, 7, 6, 5).
    assert [p[0] for p in pixels[:8]] == [1, 2, 3, 4, 8, 7, 6, 5]


def test_a_wrong_map_name_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="LED_MAP"):
        FW.pixel_map("zigzag", "a8")
    with pytest.raises(ValueError, match="LED_ORIGIN"):
        FW.pixel_map("serpentine", "b8")
