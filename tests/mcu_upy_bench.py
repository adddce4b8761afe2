"""The board firmware on the real MicroPython interpreter (the unix port), for
tests/test_mcu_micropython.py. Run as ``micropython tests/mcu_upy_bench.py PICO_DIR``.

Written for MicroPython: no annotations, no f-strings, no CPython-only modules. The
stand-ins here (a matrix, a stream, a NeoPixel) allocate nothing when the firmware
calls them, so that ``micropython.heap_lock()`` around the firmware's scan and report
tests the firmware's own code. Each result is printed as one line for the test to
check: ``OCC <line>``, ``RX <line>``, ``LED <hex>``, ``STEPS <n>``, ``SCANS <n>``,
``DRIVEN-HIGH <n>``, ``OK``. ``PICO_DIR --main OCC [GROUNDED]`` runs the firmware's own
``main()`` instead, on this process's stdin and stdout.

It runs on any MicroPython: the 64-bit unix port, and the 32-bit builds the Pico's
integer width needs (a unix port built with ``-m32``, or the WebAssembly port through
``tests/micropython32/run.mjs``).
"""

import sys


class Matrix:
    """The 8 x 4 diode matrix: a column reads low when a closed switch joins it to a
    row driven low. Occupancy in 4 bytes, byte i bit k = square 8 i + k + 1."""

    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols
        self.occ = bytearray(4)
        self.row_low = bytearray(8)
        # Columns whose wire touches ground (bit c = column c): low whatever the rows do.
        self.grounded = 0
        # Times a row pin was driven high as a push-pull output: a reversed diode would
        # then join that row's driver to the low row's through two diodes.
        self.driven_high = 0

    def column_low(self, c):
        if self.grounded >> c & 1:
            return True
        for r in range(8):
            if self.row_low[r]:
                sq = 4 * r + c
                if self.occ[sq >> 3] & (1 << (sq & 7)):
                    return True
        return False


def make_pin_class(matrix):
    rows = matrix.rows
    cols = matrix.cols

    class Pin:
        IN = 0
        OUT = 1
        OPEN_DRAIN = 2
        PULL_UP = 1
        PULL_DOWN = 2

        def __init__(self, id, mode=-1, pull=-1, value=None):
            self.id = id
            self.row = -1
            self.col = -1
            for i in range(len(rows)):
                if rows[i] == id:
                    self.row = i
            for i in range(len(cols)):
                if cols[i] == id:
                    self.col = i
            self.level = 1
            self.mode = Pin.IN
            self.init(mode, pull, value=value)

        def init(self, mode=-1, pull=-1, value=None):
            if mode != -1:
                self.mode = mode
            if value is not None:
                self.value(value)

        def value(self, x=None):
            if x is None:
                if self.col >= 0:
                    return 0 if matrix.column_low(self.col) else 1
                return self.level
            self.level = 1 if x else 0
            if self.row >= 0:
                # Open-drain: 1 releases the row (an input). A push-pull output drives it.
                matrix.row_low[self.row] = 0 if x else 1
                if x and self.mode == Pin.OUT:
                    matrix.driven_high += 1
            return None

    return Pin


class Stream:
    """Bytes in from a queue; bytes out into a preallocated buffer (no allocation)."""

    def __init__(self):
        self.incoming = bytearray()
        self.out = bytearray(8192)
        self.n = 0

    def readinto(self, buf):
        n = min(len(buf), len(self.incoming))
        for i in range(n):
            buf[i] = self.incoming[i]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data):
        for i in range(len(data)):
            self.out[self.n + i] = data[i]
        self.n += len(data)
        return len(data)

    def lines(self):
        text = bytes(self.out[: self.n])
        self.n = 0
        return [x for x in text.split(b"\n") if x]


class NeoPixel:
    ORDER = (1, 0, 2, 3)
    sent = []

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def fill(self, v):
        for i in range(self.n):
            for k in range(self.bpp):
                self.buf[i * self.bpp + self.ORDER[k]] = v[k]

    def write(self):
        NeoPixel.sent.append(bytes(self.buf))


class Ticks:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def hexs(data):
    return "".join("%02X" % b for b in data)


def main(pico_dir, script):
    import micropython

    sys.path.insert(0, pico_dir)
    import crownhead_board as fw

    matrix = Matrix(fw.ROW_PINS, fw.COL_PINS)
    stream = Stream()
    ticks = Ticks()
    commands = [c for c in script.split("\n") if c]
    if commands and commands[0].startswith("ticks "):
        ticks.now = int(commands.pop(0)[6:])  # where the clock starts, before the board
    board = fw.Board(
        make_pin_class(matrix),
        NeoPixel,
        stream,
        ticks,
        heap_lock=micropython.heap_lock,
        heap_unlock=micropython.heap_unlock,
    )
    board.boot()
    steps = 0
    # The script: lines of "occ <8 hex>", "send <text>", "wait <ms>", "step <n>",
    # "scans <n>" (set the firmware's scan count), "ticks <n>" (set the clock),
    # "ground <c>" / "unground <c>" (column c's wire on ground, or free again).
    for command in commands:
        verb, _, arg = command.partition(" ")
        if verb == "occ":
            value = int(arg, 16)
            for i in range(4):
                matrix.occ[i] = (value >> (8 * i)) & 0xFF
        elif verb == "send":
            stream.incoming += arg.encode() + b"\n"
        elif verb == "raw":
            stream.incoming += bytes(int(arg[i : i + 2], 16) for i in range(0, len(arg), 2))
        elif verb == "wait":
            ticks.now = (ticks.now + int(arg)) & ((1 << 30) - 1)
        elif verb == "ticks":
            ticks.now = int(arg)
        elif verb == "scans":
            board.scans = int(arg)
        elif verb == "ground":
            matrix.grounded |= 1 << int(arg)
        elif verb == "unground":
            matrix.grounded &= ~(1 << int(arg))
        elif verb == "step":
            for _ in range(int(arg)):
                board.step()
                steps += 1
        for line in stream.lines():
            print("RX " + line.decode())
    for frame in NeoPixel.sent:
        print("LED " + hexs(frame))
    print("STEPS %d" % steps)
    print("SCANS %d" % board.scans)
    print("DRIVEN-HIGH %d" % matrix.driven_high)
    print("MAXSIZE %d" % sys.maxsize)
    print("OK")


class _Module:
    pass


class _Mem32:
    def __init__(self):
        self.words = {}

    def __getitem__(self, address):
        return self.words.get(address, 0)

    def __setitem__(self, address, value):
        self.words[address] = value


def install_standins(occupancy, grounded=0):
    """``machine`` and ``neopixel`` for the firmware's own ``main()``: the matrix holds
    ``occupancy``, the columns of the mask ``grounded`` on ground; LED frames go to
    stderr as ``LED <hex>`` lines."""
    rows = (2, 3, 4, 5, 6, 7, 8, 9)  # checked against the firmware's table below
    cols = (10, 11, 12, 13)
    matrix = Matrix(rows, cols)
    matrix.grounded = grounded
    for i in range(4):
        matrix.occ[i] = (occupancy >> (8 * i)) & 0xFF

    class WDT:
        def __init__(self, id=0, timeout=5000):
            if not 1 <= timeout <= 8388:
                raise ValueError("timeout")
            self.timeout = timeout

        def feed(self):
            pass

    def bitstream(pin, encoding, timing, buf):
        sys.stderr.write("LED " + hexs(buf) + "\n")

    machine = _Module()
    machine.Pin = make_pin_class(matrix)
    machine.WDT = WDT
    machine.mem32 = _Mem32()
    machine.bitstream = bitstream

    class Pixels(NeoPixel):
        def write(self):
            bitstream(self.pin, 0, (400, 850, 800, 450), self.buf)

    neopixel = _Module()
    neopixel.NeoPixel = Pixels
    sys.modules["machine"] = machine
    sys.modules["neopixel"] = neopixel
    return rows, cols


def run_main(pico_dir, occupancy, grounded=0):
    """The firmware's own main(): USB is this process's stdin and stdout."""
    rows, cols = install_standins(occupancy, grounded)
    sys.path.insert(0, pico_dir)
    import crownhead_board

    if crownhead_board.ROW_PINS != rows or crownhead_board.COL_PINS != cols:
        raise SystemExit("the bench's matrix pins are not the firmware's")
    crownhead_board.main()


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[2] == "--main":
        # PICO_DIR --main OCCUPANCY [GROUNDED]: hex masks of squares and of columns.
        run_main(sys.argv[1], int(sys.argv[3], 16), int(sys.argv[4], 16) if len(sys.argv) > 4 else 0)
    else:
        main(sys.argv[1], sys.stdin.read())
