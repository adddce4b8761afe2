# Crownhead board firmware for a Raspberry Pi Pico or Pico 2 (RP2040 / RP2350).
#
# Targets MicroPython 1.29 (the rp2 port's RPI_PICO and RPI_PICO2 builds; any 1.22 or
# later has everything used here). It scans the 32 reed switches of the 8 x 4 diode
# matrix, drives the 32 WS2812B LEDs with MicroPython's `neopixel` module, reads the
# buttons and speaks serial protocol version 1 over the USB serial port, as
# docs/hardware.md ("Serial line protocol") specifies. The Pi debounces the switches;
# this board reports them raw, on every change and once a second as a heartbeat.
#
# The same file runs on CPython in the project's tests, with stand-ins for machine.Pin,
# neopixel and the USB stream only: so it uses nothing MicroPython lacks (no f-strings,
# no typing, no dataclasses, no stdlib beyond sys/select/time/machine/micropython) and
# keeps every number it changes in the loop below 2**30: on the Pico (a 32-bit
# MicroPython) a bigger int is a heap allocation, which the locked heap turns into a
# MemoryError. So 32-bit masks live in bytes, and counters wrap before 2**30.
#
# Copy it to the Pico with `crownhead mcu install`, together with main.py.

# -- the pin plan: the one table to change for a different wiring (GP numbers) -----------

FIRMWARE = "crownhead-pico 1.0"
# Matrix rows 0-7 = ranks 8-1 (row 0 holds squares 1-4). Open-drain: one row at a time
# is pulled low, the others are released (inputs with the pull-up), never driven high:
# a reversed diode then cannot join a high row to the low one through two diodes with
# nothing but the pin drivers to limit the current. The diode's band faces the row line.
ROW_PINS = (2, 3, 4, 5, 6, 7, 8, 9)
# Matrix columns 0-3 = the dark squares of a rank from the a-file side. Inputs with the
# RP2040's internal pull-up; a closed switch on the selected row pulls its column low.
COL_PINS = (10, 11, 12, 13)
# WS2812B data line, through a 74AHCT125 level shifter and a 330 ohm resistor.
LED_PIN = 16
LED_COUNT = 32
# How the LED chain runs under the 32 dark squares, as lights.map and lights.origin on
# the Pi: pixel 0 under the dark square nearest LED_ORIGIN (a8, h8, a1 or h1), then
# along that rank; "row-major" starts every rank from the same side (a wire runs back
# across the board after each rank), "serpentine" runs every second rank back the
# other way (the short way to lay one chain).
LED_MAP = "row-major"
LED_ORIGIN = "a8"
# What the LEDs may draw on average from the Pico's VBUS (the Pi's USB port), in mA at
# the WS2812B data sheet's 20 mA per channel at full duty and 1 mA per dark LED: a frame
# that asks for more is dimmed to fit, whatever the Pi sends. The port gives 500 mA,
# MicroPython asks it for 250 mA, the Pico takes about 25 mA: 200 leaves room. It is an
# average: each LED's PWM switches its full current on and off, and where the phases
# line up the peaks reach 60 mA an LED (about 1.9 A for 32). The Pi's default
# brightness cap (0.1) asks 220 mA for all white, dimmed to this. Raise it only with the
# LEDs on a 5 V supply of their own (docs/build.md, "Power supply").
LED_BUDGET_MA = 200
# Push buttons, each from its pin to ground (internal pull-up); names as the Pi knows them.
BUTTON_PINS = (
    ("new", 18),
    ("hint", 19),
    ("takeback", 20),
    ("claim", 21),
    ("resign", 22),
    ("adjust", 26),
    ("draw", 27),
    ("force", 28),
    # One button per side: a press offers (or accepts) a draw for that side. The Pi
    # learns presses only, not their length, so these never resign.
    ("black", 14),
    ("white", 15),
)

# -- timing -------------------------------------------------------------------------------

HEARTBEAT_MS = 1000  # an OCC report at least this often (the Pi drops the link after 3 s)
CHECK_MS = 1000  # the idle-column wiring check, this often whatever the reports do
SETTLE_US = 10  # after selecting a row, before reading the columns
BUTTON_STABLE_MS = 20  # a button level must hold this long to count
WATCHDOG_MS = 2000  # the chip resets when the loop stalls this long (rp2: at most 8388)
RATE_WINDOW_MS = 1000  # the scan rate in HELLO is counted over windows this long
READ_CHUNKS = 8  # at most 8 x 64 bytes from the Pi per round (two whole LED frames)

PROTOCOL_VERSION = 1
MAX_LINE = 256  # bytes before the newline

_HEX = b"0123456789ABCDEF"
_SPACE = 32
_STAR = 42
_CR = 13
_NL = 10
_TICKS_HALF = 1 << 29  # MicroPython's ticks wrap at 2**30
_TICKS_MASK = (1 << 30) - 1
# The largest small int of a 32-bit MicroPython: one more would be allocated.
SMALL_INT_MAX = (1 << 30) - 1
_MA_PER_CHANNEL = 20
_MA_IDLE = 1

# The watchdog's CTRL register and its ENABLE bit (RP2040 and RP2350 datasheets,
# "Watchdog"): cleared when someone interrupts the firmware for the REPL (mpremote
# does, to copy files), since MicroPython's WDT cannot be stopped otherwise.
_WATCHDOG_CTRL = {"RP2040": 0x40058000, "RP2350": 0x400D8000}
_WATCHDOG_ENABLE = 1 << 30


def ticks_diff(a, b):
    """``a - b`` for tick counts that wrap at 2**30, as ``time.ticks_diff`` computes it.

    Every step stays inside the small ints (``a - b + 2**29`` would not, for ticks
    more than six days apart): it runs under the locked heap."""
    d = a - b
    if d >= _TICKS_HALF:
        return d - _TICKS_HALF - _TICKS_HALF
    if d < -_TICKS_HALF:
        return d + _TICKS_HALF + _TICKS_HALF
    return d


def count_up(n):
    """``n + 1``, or 0 after :data:`SMALL_INT_MAX`: a count that never leaves the small
    ints (``(n + 1) & SMALL_INT_MAX`` would allocate ``n + 1`` first)."""
    if n >= SMALL_INT_MAX:
        return 0
    return n + 1


def pixel_map(layout, origin):
    """Pixel of each dark square: entry ``s - 1`` is the pixel under square ``s``, for a
    32-LED chain laid as :data:`LED_MAP`/:data:`LED_ORIGIN` say (the same orders as
    ``crownhead.hal.pixelmap`` on the Pi)."""
    if layout not in ("row-major", "serpentine"):
        raise ValueError("LED_MAP must be row-major or serpentine")
    if origin not in ("a8", "h8", "a1", "h1"):
        raise ValueError("LED_ORIGIN must be a8, h8, a1 or h1")
    out = bytearray(32)
    rows = range(8) if origin[1] == "8" else range(7, -1, -1)
    pixel = 0
    i = 0
    for row in rows:
        left_to_right = origin[0] == "a"
        if layout == "serpentine" and i % 2:
            left_to_right = not left_to_right
        for k in range(8):
            col = k if left_to_right else 7 - k
            if (row + col) % 2:  # a dark square (b8 is square 1)
                out[row * 4 + col // 2] = pixel
                pixel += 1
        i += 1
    return out


def checksum(data, end):
    """XOR of ``data[0:end]`` (the protocol's NMEA-style checksum), as an int."""
    value = 0
    for i in range(end):
        value ^= data[i]
    return value


def encode_line(text):
    """``text`` with ``*HH`` and the newline, as bytes (set-up time only: it allocates)."""
    body = text.encode()
    c = checksum(body, len(body))
    return body + b"*" + bytes((_HEX[c >> 4], _HEX[c & 15], _NL))


def _hex_value(b):
    if 48 <= b <= 57:
        return b - 48
    if 65 <= b <= 70:
        return b - 55
    if 97 <= b <= 102:
        return b - 87
    return -1


class Matrix:
    """The 8 x 4 diode matrix. :meth:`scan` fills a 4-byte occupancy without allocating:
    byte ``i`` bit ``k`` is square ``8 i + k + 1``."""

    def __init__(self, pin_class, rows=ROW_PINS, cols=COL_PINS, settle_us=SETTLE_US, sleep_us=None):
        # Released (value 1) = an input held up by the pull-up; value 0 pulls the row low.
        self.rows = [pin_class(n, pin_class.OPEN_DRAIN, pin_class.PULL_UP, value=1) for n in rows]
        self.cols = [pin_class(n, pin_class.IN, pin_class.PULL_UP) for n in cols]
        self.settle_us = settle_us
        self._sleep_us = sleep_us

    def scan(self, occ):
        rows = self.rows
        cols = self.cols
        sleep_us = self._sleep_us
        settle = self.settle_us
        for r in range(8):
            row = rows[r]
            row.value(0)
            if sleep_us is not None and settle:
                sleep_us(settle)
            bits = 0
            for c in range(4):
                if not cols[c].value():
                    bits |= 1 << c
            row.value(1)
            i = r >> 1
            if r & 1:
                occ[i] = (occ[i] & 0x0F) | (bits << 4)
            else:
                occ[i] = (occ[i] & 0xF0) | bits

    def idle_low(self):
        """Columns reading low with every row released, as a mask (bit c = column c): no
        switch can pull a column low then, so the column is shorted to ground, or a row
        is stuck low (shorted to ground) under a closed switch. (A reversed diode
        cannot: with no row low it has nothing to conduct into.) Allocates nothing.

        The rows are released at the end of every scan; called before the next one,
        the columns have had a whole round of the loop to rise."""
        rows = self.rows
        for r in range(8):
            rows[r].value(1)
        cols = self.cols
        low = 0
        for c in range(4):
            if not cols[c].value():
                low |= 1 << c
        return low

    def columns_idle_low(self):
        """:meth:`idle_low` as a list of column numbers (allocates: not in the loop)."""
        low = self.idle_low()
        return [c for c in range(4) if low >> c & 1]


class Buttons:
    """Push buttons to ground. :meth:`poll` returns the index of a new press or -1."""

    def __init__(self, pin_class, table=BUTTON_PINS, stable_ms=BUTTON_STABLE_MS):
        self.names = [name for name, _ in table]
        self.pins = [pin_class(n, pin_class.IN, pin_class.PULL_UP) for _, n in table]
        self.stable_ms = stable_ms
        count = len(table)
        self._level = bytearray(b"\x01" * count)  # last level read (1 = released)
        self._stable = bytearray(b"\x01" * count)  # the debounced level
        self._since = [0] * count  # when the level last changed (ticks)

    def poll(self, now):
        pressed = -1
        for i in range(len(self.pins)):
            level = self.pins[i].value()
            if level != self._level[i]:
                self._level[i] = level
                self._since[i] = now
            elif level != self._stable[i] and ticks_diff(now, self._since[i]) >= self.stable_ms:
                self._stable[i] = level
                if not level and pressed < 0:
                    pressed = i
        return pressed


class Board:
    """The firmware: one :meth:`step` per round of the main loop.

    ``pin_class`` is ``machine.Pin``; ``neopixel_class`` is ``neopixel.NeoPixel``;
    ``usb`` has ``readinto(buf)`` (what has arrived, without waiting; returns a count)
    and ``write(buf)``; ``ticks_ms`` is ``time.ticks_ms``; ``sleep_us`` is
    ``time.sleep_us``; ``wdt`` is a ``machine.WDT`` or None. ``heap_lock`` and
    ``heap_unlock`` (``micropython.heap_lock``/``heap_unlock``) are wrapped around the
    scan and its report, which allocate nothing: on the board a locked heap proves it
    (an allocation would raise MemoryError, and the watchdog restarts the firmware).
    """

    def __init__(
        self,
        pin_class,
        neopixel_class,
        usb,
        ticks_ms,
        sleep_us=None,
        wdt=None,
        buttons=BUTTON_PINS,
        firmware=FIRMWARE,
        heap_lock=None,
        heap_unlock=None,
    ):
        self.usb = usb
        self._heap_lock = heap_lock
        self._heap_unlock = heap_unlock
        self.ticks_ms = ticks_ms
        self.wdt = wdt
        self.firmware = firmware
        self.matrix = Matrix(pin_class, sleep_us=sleep_us)
        self.buttons = Buttons(pin_class, buttons)
        self.pixels = neopixel_class(pin_class(LED_PIN, pin_class.OUT), LED_COUNT)
        self._order = self.pixels.ORDER
        self._pixel_of = pixel_map(LED_MAP, LED_ORIGIN)
        # The most channel units (0-255 each) a frame may add up to within the budget.
        self._budget = (LED_BUDGET_MA - _MA_IDLE * LED_COUNT) * 255 // _MA_PER_CHANNEL
        self.pixels.fill((0, 0, 0))
        self.pixels.write()
        # Everything the scan loop touches exists before it runs.
        self._scan = bytearray(4)
        self._sent = bytearray(4)
        self._occ_line = bytearray(b"OCC 00000000*00\n")
        self._btn_lines = [encode_line("BTN " + name) for name in self.buttons.names]
        self._rx = bytearray(64)
        self._line = bytearray(MAX_LINE)
        self._len = 0
        self._overflow = False
        self._fields = [0] * 6  # start/end of the first three fields
        now = ticks_ms()
        self._reported_at = now
        self._window_start = now
        self._window_scans = 0
        self.scan_rate = 0  # full scans per second over the last window
        self.scans = 0
        self.errors = 0
        # The wiring fault the last idle check found (a mask of columns low with no row
        # selected) and the FAULT line for each mask, made now: the check runs under
        # the locked heap.
        self.fault = 0
        self._checked_at = now
        self._fault_lines = [fault_line(mask) for mask in range(16)]
        self._errors = {
            "bad-line": encode_line("ERR bad-line not a protocol line"),
            "bad-command": encode_line("ERR bad-line unknown command"),
            "bad-fields": encode_line("ERR bad-line wrong number of fields"),
            "bad-ascii": encode_line("ERR bad-line not ASCII or control characters"),
            "bad-checksum": encode_line("ERR bad-checksum checksum does not match the line"),
            "bad-version": encode_line("ERR bad-arg HELLO version must be a number"),
            "bad-led": encode_line("ERR bad-arg LED needs 192 hex digits (32 x RRGGBB)"),
            "too-long": encode_line("ERR too-long line longer than 256 bytes"),
        }

    # -- start-up ---------------------------------------------------------------------------

    def boot(self):
        """What the board says after reset or USB connect: HELLO, a FAULT line if a
        column is low with no row selected, and the occupancy."""
        self.send_hello()
        self.check_columns()
        self.matrix.scan(self._scan)
        self._report()

    def check_columns(self):
        """The wiring check the Pi's own matrix makes: every column must read high
        while no row is selected. A column low then (shorted to ground, or a row wire
        on ground under a closed switch) would show its squares occupied for ever; the
        Pi hears ``FAULT col-low ...`` instead, once a second while it lasts (with
        pieces moving too: the check keeps its own time, not the heartbeat's), and
        ``FAULT none`` once when it clears. Allocates nothing."""
        self._checked_at = self.ticks_ms()
        low = self.matrix.idle_low()
        if low or self.fault:
            self.usb.write(self._fault_lines[low])
        self.fault = low

    def hello_line(self):
        return encode_line(
            "HELLO %d %s scan_hz=%d" % (PROTOCOL_VERSION, self.firmware, self.scan_rate)
        )

    def send_hello(self):
        self.usb.write(self.hello_line())

    # -- the loop -----------------------------------------------------------------------------

    def step(self):
        """Read the Pi, scan, report, buttons, watchdog. Returns nothing; never blocks."""
        self.read_host()
        if self._heap_lock is None:
            self.scan_and_report()
        else:
            self._heap_lock()
            try:
                self.scan_and_report()
            finally:
                self._heap_unlock()
        pressed = self.buttons.poll(self.ticks_ms())
        if pressed >= 0:
            self.usb.write(self._btn_lines[pressed])
        if self.wdt is not None:
            self.wdt.feed()

    def scan_and_report(self):
        """One full scan, and an OCC line if it changed or the heartbeat is due.

        Allocates nothing (checked under ``micropython.heap_lock`` in the tests).
        """
        scan = self._scan
        if ticks_diff(self.ticks_ms(), self._checked_at) >= CHECK_MS:
            self.check_columns()  # once a second, before the scan: the rows released since the last
        self.matrix.scan(scan)
        self.scans = count_up(self.scans)  # 2**30 scans is 40 days at 313 a second
        self._window_scans += 1
        now = self.ticks_ms()
        elapsed = ticks_diff(now, self._window_start)
        if elapsed >= RATE_WINDOW_MS:
            self.scan_rate = (self._window_scans * 1000) // elapsed
            self._window_scans = 0
            self._window_start = now
        sent = self._sent
        if (
            scan[0] != sent[0]
            or scan[1] != sent[1]
            or scan[2] != sent[2]
            or scan[3] != sent[3]
            or ticks_diff(now, self._reported_at) >= HEARTBEAT_MS
        ):
            self._report()

    def _report(self):
        scan = self._scan
        line = self._occ_line
        for j in range(4):
            b = scan[3 - j]
            line[4 + 2 * j] = _HEX[b >> 4]
            line[5 + 2 * j] = _HEX[b & 15]
            self._sent[3 - j] = b
        c = checksum(line, 12)
        line[13] = _HEX[c >> 4]
        line[14] = _HEX[c & 15]
        self.usb.write(line)
        self._reported_at = self.ticks_ms()

    # -- lines from the Pi -------------------------------------------------------------------

    def read_host(self):
        """Handle what the Pi has sent, at most READ_CHUNKS x 64 bytes a round: a flood of
        input must not keep the loop from scanning and feeding the watchdog."""
        rx = self._rx
        for _ in range(READ_CHUNKS):
            n = self.usb.readinto(rx)
            for i in range(n):
                self._byte(rx[i])
            if n < len(rx):
                break

    def _byte(self, b):
        if b == _NL:
            if self._overflow:
                self._overflow = False
                self._len = 0
                self._error("too-long")
                return
            length = self._len
            self._len = 0
            self.handle_line(self._line, length)
            return
        if self._overflow:
            return
        if self._len >= MAX_LINE:
            # The rest of this line is dropped, never buffered: bounded memory.
            self._overflow = True
            return
        self._line[self._len] = b
        self._len += 1

    def _error(self, key):
        self.errors = count_up(self.errors)
        self.usb.write(self._errors[key])

    def handle_line(self, buf, n):
        """One line (without its newline) from the Pi, checked exactly as
        ``crownhead.hal.serial_protocol.parse_host_line`` checks it."""
        blank = True
        for i in range(n):
            b = buf[i]
            if b != _SPACE and not (9 <= b <= 13):
                blank = False
                break
        if blank:
            return  # a bare newline is no command and no error
        if buf[n - 1] == _CR:
            n -= 1
        star = -1
        for i in range(n):
            b = buf[i]
            if b >= 127 or b < 32:
                self._error("bad-ascii")
                return
            if b == _STAR:
                star = i
        if star >= 0:
            if n - star != 3:
                self._error("bad-checksum")
                return
            c = checksum(buf, star)
            hi = _hex_value(buf[star + 1])
            lo = _hex_value(buf[star + 2])
            if hi < 0 or lo < 0 or (hi << 4 | lo) != c:
                self._error("bad-checksum")
                return
            n = star
        # Fields: runs of non-space bytes; the first three are remembered.
        fields = self._fields
        count = 0
        i = 0
        while i < n:
            while i < n and buf[i] == _SPACE:
                i += 1
            if i >= n:
                break
            start = i
            while i < n and buf[i] != _SPACE:
                i += 1
            if count < 3:
                fields[2 * count] = start
                fields[2 * count + 1] = i
            count += 1
        if count == 0:
            self._error("bad-line")
            return
        s, e = fields[0], fields[1]
        if _is(buf, s, e, b"OCC?"):
            if count != 1:
                self._error("bad-fields")
                return
            self._report()
        elif _is(buf, s, e, b"HELLO"):
            if count != 2:
                self._error("bad-fields")
                return
            for i in range(fields[2], fields[3]):
                if not 48 <= buf[i] <= 57:
                    self._error("bad-version")
                    return
            self.send_hello()
        elif _is(buf, s, e, b"LED"):
            if count != 2:
                self._error("bad-fields")
                return
            s, e = fields[2], fields[3]
            if e - s != 6 * LED_COUNT:
                self._error("bad-led")
                return
            for i in range(s, e):
                if _hex_value(buf[i]) < 0:
                    self._error("bad-led")
                    return
            self._show(buf, s)
        else:
            self._error("bad-command")

    def _show(self, buf, s):
        """Decode 32 x RRGGBB (squares 1-32) into the NeoPixel buffer, each square at its
        pixel, dimmed to :data:`LED_BUDGET_MA` if it asks for more, and send it."""
        pixels = self.pixels
        out = pixels.buf
        order = self._order
        bpp = pixels.bpp
        pixel_of = self._pixel_of
        total = 0
        for sq in range(LED_COUNT):
            base = s + 6 * sq
            at = pixel_of[sq] * bpp
            for k in range(3):
                value = _hex_value(buf[base + 2 * k]) << 4 | _hex_value(buf[base + 2 * k + 1])
                out[at + order[k]] = value
                total += value
        budget = self._budget
        if total > budget:
            for i in range(LED_COUNT * bpp):
                out[i] = out[i] * budget // total
        pixels.write()

    # -- leaving the loop -------------------------------------------------------------------

    def all_dark(self):
        self.pixels.fill((0, 0, 0))
        self.pixels.write()


def fault_line(low):
    """The FAULT line for a mask of columns low with no row selected (set-up time only:
    it allocates). ``FAULT none`` for 0."""
    if not low:
        return encode_line("FAULT none")
    cols = [c for c in range(4) if low >> c & 1]
    names = " ".join(str(c) for c in cols)
    pins = " ".join("GP%d" % COL_PINS[c] for c in cols)
    verb = "reads" if len(cols) == 1 else "read"
    return encode_line(
        "FAULT col-low matrix column%s %s (%s) %s low with no row selected: "
        "shorted to ground, or a row wire on ground under a closed switch"
        % ("" if len(cols) == 1 else "s", names, pins, verb)
    )


def _is(buf, s, e, word):
    if e - s != len(word):
        return False
    for i in range(len(word)):
        if buf[s + i] != word[i]:
            return False
    return True


class UsbStream:
    """The USB serial port as MicroPython offers it: ``sys.stdin``/``sys.stdout``.

    ``readinto`` returns at once with whatever has arrived (``select.poll`` says when a
    byte is waiting; ``ipoll`` reuses its result, so polling allocates nothing).
    """

    def __init__(self, sys_module, select_module):
        self._in = sys_module.stdin.buffer
        self._out = sys_module.stdout.buffer
        self._poll = select_module.poll()
        self._poll.register(sys_module.stdin, select_module.POLLIN)
        self._one = bytearray(1)

    def _waiting(self):
        for _ in self._poll.ipoll(0):
            return True
        return False

    def readinto(self, buf):
        n = 0
        one = self._one
        while n < len(buf) and self._waiting():
            if not self._in.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def write(self, data):
        self._out.write(data)


def chip_name(machine_text):
    """``RP2040`` or ``RP2350`` from ``sys.implementation._machine``; None otherwise."""
    for name in _WATCHDOG_CTRL:
        if name in machine_text:
            return name
    return None


def stop_watchdog(mem32, chip):
    """Clear the watchdog's ENABLE bit so that an interrupted firmware stays interrupted."""
    address = _WATCHDOG_CTRL.get(chip)
    if address is not None:
        mem32[address] &= ~_WATCHDOG_ENABLE


def main():
    """Run the board until interrupted (Ctrl-C from the REPL or mpremote).

    The watchdog starts inside the ``try``: a Ctrl-C at any moment after it started
    (even while the board is being set up) stops it again, so the REPL that is left is
    usable and not reset two seconds later under mpremote's feet. The Pi recognises
    that REPL on the line and restarts the firmware (``crownhead.hal.serial_board``).
    """
    import machine
    import micropython
    import neopixel
    import select
    import sys
    import time

    chip = chip_name(sys.implementation._machine)
    board = None
    try:
        usb = UsbStream(sys, select)
        wdt = machine.WDT(timeout=WATCHDOG_MS)
        board = Board(
            machine.Pin,
            neopixel.NeoPixel,
            usb,
            time.ticks_ms,
            time.sleep_us,
            wdt,
            heap_lock=micropython.heap_lock,
            heap_unlock=micropython.heap_unlock,
        )
        board.boot()
        while True:
            board.step()
    except KeyboardInterrupt:
        stop_watchdog(machine.mem32, chip)
        if board is not None:
            board.all_dark()
