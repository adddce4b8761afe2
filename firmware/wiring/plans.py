"""The cable plans and the stripboard cell, from the pin plans and the board's geometry.

:func:`cable_plan` lists every wire of a wiring option: what it carries, the controller
pin it starts at (the same net labels as the schematics), where it ends on the board,
its colour and its length. Lengths are *estimates* from :class:`BoardGeometry`: the
controller sits in the bay beside the a-file edge, its header in the middle of the
bay; wires run along the frame and between the cells at right angles, plus 15 % slack,
rounded up to 10 mm. :func:`stripboard_svg` draws one square's cell on 0.1 inch
stripboard, with the strips its buses run along.

>>> plan = cable_plan("gpio", BoardGeometry())
>>> [line for line in plan.splitlines() if "row 0 (rank 8)" in line][0].split(" | ")[1:4]
['GPIO4 (pin 7)', 'ROW strip of square 1 (b8)', 'brown (conductor 1 of the row ribbon)']
"""

from __future__ import annotations

import math
from typing import NamedTuple

from crownhead.firmware.wiring.geometry import BoardGeometry
from crownhead.firmware.wiring.schematic import CONSOLE_PINS, SEP, SHIFT_INPUT_PINS, pin_plan
from crownhead.squares import square_name

__all__ = [
    "cable_plan",
    "power_wires",
    "PowerWire",
    "reed_input",
    "wire_length_mm",
    "stripboard_svg",
    "PITCH_MM",
    "STRIPS",
    "CELL_HOLES",
    "LADDER_AWG",
    "JUMPER_AWG",
]

PITCH_MM = 2.54  # stripboard: 0.1 inch between holes and between strips
#: The cell's strips, top to bottom (each a copper track along the rank). +5V is last,
#: beside DOUT only: a solder bridge from +5V to ROW, COL or MID would put 5 V on a GPIO
#: (through the 1N4148 into a row pin, or straight into a column).
STRIPS = ("ROW", "COL", "MID", "GND", "DIN", "DOUT", "+5V")
CELL_HOLES = 12  # holes along each strip
SLACK = 1.15
#: The +5 V and ground ladders down both edges and their feeds carry up to half the LEDs'
#: current each (1 A at full brightness): 22 AWG (0.34 mm²). The jumpers between the
#: cells of a rank carry at most that rank's four LEDs (240 mA): 24 AWG (0.2 mm²).
LADDER_AWG = 22
JUMPER_AWG = 24
SIGNAL_AWG = "26-28"
#: The 74HC165's parallel inputs A-H: their DIP-16 pins.
RIBBON = ("brown", "red", "orange", "yellow", "green", "blue", "violet", "grey", "white", "black")


def wire_length_mm(a: tuple[float, float], b: tuple[float, float]) -> int:
    """A wire from ``a`` to ``b`` routed at right angles, +15 %, rounded up to 10 mm."""
    run = abs(a[0] - b[0]) + abs(a[1] - b[1])
    return int(math.ceil(run * SLACK / 10.0) * 10)


def _header(g: BoardGeometry) -> tuple[float, float]:
    """The controller's header: the middle of the bay left of the board (x < 0)."""
    return (-g.bay_mm / 2, g.size_mm / 2)


def _cell_edge(g: BoardGeometry, square: int) -> tuple[float, float]:
    """Where the buses leave a square's cell, on its side towards the bay."""
    x, y = g.centre(square)
    return (x - CELL_HOLES * PITCH_MM / 2, y)


def _cell_far_edge(g: BoardGeometry, square: int) -> tuple[float, float]:
    """The side of a square's cell away from the bay (towards the h-file edge)."""
    x, y = g.centre(square)
    return (x + CELL_HOLES * PITCH_MM / 2, y)


def _row_end(r: int) -> int:
    """The square of row ``r`` nearest the bay (the a-file side)."""
    return 4 * r + 1


def _col_end(c: int) -> int:
    """The square of column ``c`` in rank 1, where its column wire comes in."""
    return 29 + c


class PowerWire(NamedTuple):
    """A +5 V and ground pair: from ``start`` to ``end`` (``"bay"``, where the fuse and
    ground are, or a square whose cell's +5V and GND strips it lands on)."""

    what: str
    start: int | str
    end: int | str
    awg: int
    length_mm: int


def power_wires(g: BoardGeometry) -> list[PowerWire]:
    """Every +5 V / ground pair from the bay to the 32 cells: a ladder down each edge of
    the board (the a-file edge and the h-file edge), joined to the end cells of every
    rank, fed from the bay in the middle of each; the cells of a rank joined cell to
    cell. The data wire between ranks carries no power: without the ladders only the
    ranks fed directly would light.

    >>> wires = power_wires(BoardGeometry())
    >>> [(w.start, w.end) for w in wires if w.what.startswith("feed")]
    [('bay', 13), ('bay', 16)]
    >>> sum(w.what == "rank jumper" for w in wires)
    24
    """
    fuse = _bay(g)
    wires = [
        PowerWire("feed of the a-file ladder", "bay", 13, LADDER_AWG, wire_length_mm(fuse, _cell_edge(g, 13))),
        # Across the board between ranks 5 and 4, half a square from the reeds either side.
        PowerWire("feed of the h-file ladder", "bay", 16, LADDER_AWG, wire_length_mm(fuse, _cell_far_edge(g, 16))),
    ]
    for side, end, edge in (("a-file", 1, _cell_edge), ("h-file", 4, _cell_far_edge)):
        for r in range(7):
            a, b = 4 * r + end, 4 * r + 4 + end
            wires.append(PowerWire(f"ladder, {side} edge", a, b, LADDER_AWG, wire_length_mm(edge(g, a), edge(g, b))))
    jump = wire_length_mm((0, 0), (2 * g.square_mm - CELL_HOLES * PITCH_MM, 0))
    for r in range(8):
        for k in range(1, 4):
            wires.append(PowerWire("rank jumper", 4 * r + k, 4 * r + k + 1, JUMPER_AWG, jump))
    return wires


def reed_input(square: int) -> tuple[int, str, int]:
    """(chip 1-4, input letter, DIP pin) of the 74HC165 input square ``square`` is wired
    to, in the default shift-out order (the n-th bit read is square n + 1, chip 1's H
    first).

    >>> reed_input(1), reed_input(8), reed_input(9)
    ((1, 'H', 6), (1, 'A', 11), (2, 'H', 6))
    """
    chip, k = divmod(square - 1, 8)
    letter = "HGFEDCBA"[k]
    return chip + 1, letter, SHIFT_INPUT_PINS[letter]


def _chip_at(g: BoardGeometry, chip: int) -> tuple[float, float]:
    """Where 74HC165 ``chip`` (1-4) sits: on the frame at the a-file edge, between the
    two ranks it reads (chip 1 beside ranks 8 and 7)."""
    return (g.border_mm / 2, g.border_mm + (2 * chip - 1) * g.square_mm)


def _bay(g: BoardGeometry) -> tuple[float, float]:
    """The bay's own parts (level shifter, resistors, fuse, buttons' ends)."""
    return (-g.bay_mm / 2, g.size_mm / 2 + 30)


def _strips(square: int) -> str:
    return f"+5V and GND strips of square {square} ({square_name(square)})"


def _roles(option: str) -> list[tuple[str, str]]:
    """(pin as the schematics name it, role) in pin-plan order."""
    out = []
    for label in pin_plan(option).values():
        pin, role = label.split(SEP, 1)
        out.append((pin, role))
    return out


def cable_plan(option: str, g: BoardGeometry, *, led_map: str = "row-major", origin: str = "a8") -> str:
    """The cable plan of ``option`` as Markdown."""
    from crownhead.hal.pixelmap import build_pixel_map

    controller = {"gpio": "Raspberry Pi", "shift": "Raspberry Pi", "pico": "Raspberry Pi Pico"}[option]
    matrix = option != "shift"
    head = _header(g)
    bay = _bay(g)
    three_v3 = "3V3 OUT (pin 36)" if option == "pico" else "Pi pin 1 (3.3 V)"
    rows: list[tuple[str, str, str, str, int]] = []  # signal, from, to, colour, length
    for pin, role in _roles(option):
        if role.startswith("matrix row"):
            r = int(role.split()[2])
            sq = _row_end(r)
            rows.append(
                (
                    role,
                    pin,
                    f"ROW strip of square {sq} ({square_name(sq)})",
                    f"{RIBBON[r]} (conductor {r + 1} of the row ribbon)",
                    wire_length_mm(head, _cell_edge(g, sq)),
                )
            )
        elif role.startswith("matrix col"):
            c = int(role.split()[2])
            sq = _col_end(c)
            rows.append(
                (
                    role,
                    pin,
                    f"COL strip of square {sq} ({square_name(sq)}); its 10 kΩ pull-up at the header",
                    f"{RIBBON[c]} (conductor {c + 1} of the column ribbon)",
                    wire_length_mm(head, _cell_edge(g, sq)),
                )
            )
        elif role.startswith("74HC165"):
            colour = {"SH/LD": "violet", "CLK": "yellow", "QH (data)": "green"}[role.split(" ", 1)[1]]
            rows.append(
                (
                    role,
                    pin,
                    "chip 1 (on the frame at the a-file edge, between ranks 8 and 7)",
                    colour,
                    wire_length_mm(head, _chip_at(g, 1)),
                )
            )
        elif role == "LED data":
            pixel0 = build_pixel_map(32, led_map, origin).describe()[0]
            rows.append(
                (
                    role,
                    pin,
                    "74AHCT125 1A (in the bay); 1Y through 330 Ω to DIN of pixel 0",
                    "white (short: in the bay)",
                    wire_length_mm(head, bay),
                )
            )
            sq = next(s for s in range(1, 33) if square_name(s) == pixel0)
            rows.append(
                (
                    "LED data, to the board",
                    "74AHCT125 1Y (330 Ω at the far end)",
                    f"DIN strip of square {sq} ({pixel0}), pixel 0",
                    "white, beside the LED power pair",
                    wire_length_mm(bay, _cell_edge(g, sq)),
                )
            )
        elif role.startswith("button"):
            why = "the UART's pin, and ESD" if pin.split(" ", 1)[0] in CONSOLE_PINS else "ESD"
            rows.append(
                (
                    role,
                    pin,
                    f"1 kΩ in series ({why}; in the bay), then its push button on the bay's top panel "
                    "(the other contact to ground)",
                    "white (ground: black)",
                    wire_length_mm(head, bay),
                )
            )
        elif "OLED" in role:
            colour = "blue" if "SDA" in role else "yellow"
            rows.append(
                (
                    role,
                    pin,
                    f"the display's {'SDA' if 'SDA' in role else 'SCL'} (bay top panel)",
                    colour,
                    wire_length_mm(head, bay),
                )
            )
        elif "buzzer" in role:
            rows.append((role, pin, "1 kΩ to the NPN driver's base (in the bay)", "green", wire_length_mm(head, bay)))
        else:
            rows.append((role, pin, "see the schematic", "any", wire_length_mm(head, bay)))
    if matrix:
        for c in range(4):
            rows.append(
                (
                    f"pull-up, col {c}",
                    three_v3 + ", never 5 V" + (", VBUS or VSYS" if option == "pico" else ""),
                    f"10 kΩ to the col {c} wire, at the header (in the bay)",
                    "orange",
                    wire_length_mm(head, bay),
                )
            )
    if option == "shift":
        for what, colour in (("3.3 V to the chain", "orange"), ("ground to the chain", "black")):
            rows.append(
                (
                    what,
                    "Pi pin 1 (3.3 V)" if "3.3" in what else "Pi pin 6 (ground)",
                    "chip 1 (on the frame at the a-file edge, between ranks 8 and 7)",
                    colour,
                    wire_length_mm(head, _chip_at(g, 1)),
                )
            )
        for chip in range(1, 4):
            rows.append(
                (
                    f"the chain, chip {chip} to chip {chip + 1}",
                    f"chip {chip}: SH/LD, CLK, 3.3 V, ground; its SER (pin 10)",
                    f"chip {chip + 1}: SH/LD, CLK, 3.3 V, ground; its QH (pin 9)",
                    "violet, yellow, orange, black; green",
                    wire_length_mm(_chip_at(g, chip), _chip_at(g, chip + 1)),
                )
            )
    if option == "pico":
        rows.append(
            (
                "USB to the Raspberry Pi",
                "the Pico's micro-USB socket",
                "a USB port of the Pi",
                "a data-capable USB cable",
                1000,
            )
        )

    s = g.square_mm
    lines = [
        f"# Cable plan: {option} ({controller}), {s:g} mm squares",
        "",
        f"Drawn by `crownhead schematic` from the pin plan in the code and a {s:g} mm board "
        f"({g.size_mm:g} mm with its frame; the controller in an {g.bay_mm:g} mm bay beside the "
        "a-file edge). **Every length is an estimate**: the route at right angles plus 15 % "
        "slack, rounded up to 10 mm. For other squares run "
        f"`crownhead schematic --out DIR --square-mm N`; on the real board lay a string along "
        f"each route and cut to that. Signal wires are {SIGNAL_AWG} AWG.",
        "",
        "| signal | from | to | colour | length (mm, *estimate*) |",
        "|---|---|---|---|---:|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {n} |" for a, b, c, d, n in rows]
    lines += [
        "",
        "Every button's 1 kΩ sits in the bay, at the button cable's end; a 100 nF ceramic from "
        "each button's pin to ground beside it (optional) takes the rest of a static discharge.",
    ]
    lines += _power_section(option, g)
    if option == "shift":
        lines += _shift_section(g)
    pixels = build_pixel_map(32, led_map, origin).describe()
    chain = " -> ".join(pixels[:6]) + " ... " + pixels[-1]
    jump = 2 * s - CELL_HOLES * PITCH_MM
    back = 7 * s  # a row-major chain goes back across the board at each rank's end
    lines += [
        "",
        "## On the board, cell to cell",
        "",
        "| bus | from | to | length (mm, *estimate*) |",
        "|---|---|---|---:|",
    ]
    if matrix:
        lines += [
            f"| ROW | one cell | the next cell of the rank (two squares on) | {wire_length_mm((0, 0), (jump, 0))} |",
            f"| COL | one cell | the cell of the same column in the next rank | {wire_length_mm((0, 0), (s, s))} |",
        ]
    lines += [
        f"| DOUT -> DIN | one cell | the next pixel's cell ({led_map} from {origin}: {chain}) | "
        f"{wire_length_mm((0, 0), (jump, 0))} along a rank, "
        + (
            f"{wire_length_mm((0, 0), (back, s))} back across the board at each rank's end |"
            if led_map == "row-major"
            else f"{wire_length_mm((0, 0), (s, s))} at each rank's end |"
        ),
        "",
        "Label both ends of every wire with its signal ("
        + ("`row 3`, `col 1`, " if matrix else "`sq 12`, ")
        + "`LED +5V`).",
    ]
    if led_map == "row-major":
        lines.append(
            f'A serpentine chain (`lights.map = "serpentine"`, `LED_MAP = "serpentine"` on a Pico) '
            f"saves the seven {wire_length_mm((0, 0), (back, s))} mm data wires back across the board."
        )
    return "\n".join(lines) + "\n"


def _power_section(option: str, g: BoardGeometry) -> list[str]:
    """The +5 V / ground pairs, every one (what :func:`power_wires` lists)."""
    supply = "the fuse on the Pico's VBUS (pin 40)" if option == "pico" else "the fuse on the 5 V supply"
    lines = [
        "",
        "## Power: +5 V and ground to every cell",
        "",
        "The LED data wire between ranks carries no power: +5 V and ground reach each rank "
        "from a ladder down each edge of the board (a red and black pair, soldered to the +5V "
        "and GND strips of every rank's end cell), both ladders fed from the bay. Within a "
        "rank the cells are joined cell to cell.",
        "",
        "| wire | from | to | colour, gauge | length (mm, *estimate*) |",
        "|---|---|---|---|---:|",
    ]
    jumpers = [w for w in power_wires(g) if w.what == "rank jumper"]
    for w in power_wires(g):
        if w.what == "rank jumper":
            continue
        start = f"{supply} and ground, in the bay" if w.start == "bay" else _strips(int(w.start))
        lines.append(
            f"| +5V and GND, {w.what} | {start} | {_strips(int(w.end))} | red + black pair, {w.awg} AWG | {w.length_mm} |"
        )
    lines.append(
        f"| +5V and GND, rank jumpers ({len(jumpers) // 8} a rank, {len(jumpers)} in all) | "
        "+5V and GND strips of each cell | +5V and GND strips of the next cell of its rank | "
        f"red + black, {jumpers[0].awg} AWG | {jumpers[0].length_mm} |"
    )
    # The wording of build.md's checklist: +5 V to a signal wire reads open; +5 V to GND
    # does not with the LEDs soldered (they draw a little at rest), it only shows no short.
    signals = "the chain's 3.3 V, SH/LD, CLK and QH wires" if option == "shift" else "every ROW and COL wire"
    board = "the Pi" if option == "shift" else "the Pi or the Pico"
    lines += [
        "",
        f"Before {board} is connected: an ohmmeter from +5 V to {signals} must read open "
        "(more than 100 kΩ), or a short would put 5 V on a GPIO; from +5 V to GND it shows "
        "no short (well above 100 Ω; with the LEDs soldered it does not read open).",
    ]
    return lines


def _shift_section(g: BoardGeometry) -> list[str]:
    """Where the four chips sit and the 32 wires from the reeds to their inputs."""
    lines = [
        "",
        "## The chips and the 32 reed wires",
        "",
        "No rows or columns on this wiring: each reed goes from its own 74HC165 input to ground. In "
        "each cell as stripboard.svg draws it, without the diode, the reed's lower lead is on "
        "the second strip (its input wire's) and its upper lead bent into GND; the first and "
        "third strips stay empty. The 10 kΩ pull-up of each input (to 3.3 V) sits at its chip.",
        "",
        "| chip | squares | where it sits |",
        "|---|---|---|",
    ]
    for chip in range(1, 5):
        _, y = _chip_at(g, chip)
        ranks = f"ranks {10 - 2 * chip} and {9 - 2 * chip}"
        lines.append(
            f"| chip {chip} | {8 * chip - 7}-{8 * chip} ({ranks}) | on the frame at the a-file edge, "
            f"between {ranks}: {y:g} mm from the board's top edge |"
        )
    lines += [
        "",
        "| wire | from | to | length (mm, *estimate*) |",
        "|---|---|---|---:|",
    ]
    for sq in range(1, 33):
        chip, letter, pin = reed_input(sq)
        lines.append(
            f"| reed of square {sq} ({square_name(sq)}) | its cell's input strip | "
            f"chip {chip} input {letter} (pin {pin}), 10 kΩ to 3.3 V there | "
            f"{wire_length_mm(_cell_edge(g, sq), _chip_at(g, chip))} |"
        )
    return lines


def stripboard_svg(g: BoardGeometry) -> bytes:
    """One square's cell on stripboard (copper side down, seen from the component side):
    the reed switch standing at the square's centre, its diode standing beside it, the
    LED's four wires, and the strips the row, column, power and data buses run along from
    cell to cell."""
    p = PITCH_MM
    holes, strips = CELL_HOLES, len(STRIPS)
    left, top = 30.0, 24.0  # room for the labels
    width, height = left + holes * p + 125.0, top + strips * p + 40.0
    full = height + 4.0  # the last note's second line

    def hx(i: float) -> float:
        return left + (i + 0.5) * p

    def hy(k: float) -> float:
        return top + (k + 0.5) * p

    def fmt(v: float) -> str:
        return f"{v:.2f}".rstrip("0").rstrip(".")

    reed = (6, STRIPS.index("COL"))
    reed_return = (6, STRIPS.index("MID"))
    anode = (9, STRIPS.index("MID"))
    cathode = (9, STRIPS.index("ROW"))
    led = {
        "+5V": (2, STRIPS.index("+5V")),
        "DIN": (3, STRIPS.index("DIN")),
        "DOUT": (4, STRIPS.index("DOUT")),
        "GND": (5, STRIPS.index("GND")),
    }
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width)}mm" height="{fmt(full)}mm" '
        f'viewBox="0 0 {fmt(width)} {fmt(full)}" font-family="sans-serif">',
        "<title>Crownhead: one square's cell on stripboard</title>",
        f'<text x="2" y="6" font-size="4">One square\'s cell on 0.1" stripboard ({holes} holes x {strips} strips, '
        f"{fmt(holes * p)} x {fmt(strips * p)} mm):</text>",
        '<text x="2" y="11" font-size="3">make 32. Component side up, strips run along the rank.</text>',
        '<text x="2" y="15" font-size="3">No track cuts: each strip is one net. The reed stands at the square\'s centre.</text>',
    ]
    for k, name in enumerate(STRIPS):
        out.append(
            f'<rect class="strip" data-net="{name}" x="{fmt(left)}" y="{fmt(hy(k) - 0.9)}" width="{fmt(holes * p)}" '
            f'height="1.8" fill="#e8b27a" stroke="none"/>'
        )
        out.append(f'<text x="{fmt(left - 2)}" y="{fmt(hy(k) + 1)}" font-size="2.6" text-anchor="end">{name}</text>')
        for i in range(holes):
            out.append(
                f'<circle class="hole" cx="{fmt(hx(i))}" cy="{fmt(hy(k))}" r="0.5" fill="#fff" stroke="#555" stroke-width="0.1"/>'
            )

    def pad(part: str, lead: str, at: tuple[int, int]) -> None:
        out.append(
            f'<circle class="lead" data-part="{part}" data-lead="{lead}" data-net="{STRIPS[at[1]]}" '
            f'cx="{fmt(hx(at[0]))}" cy="{fmt(hy(at[1]))}" r="0.7" fill="#333"/>'
        )

    # The reed: upright, its lower lead in COL, its upper lead bent down into MID.
    out.append(
        f'<circle cx="{fmt(hx(reed[0]))}" cy="{fmt(hy(reed[1]))}" r="1.3" fill="none" stroke="#06c" stroke-width="0.35"/>'
    )
    out.append(
        f'<path d="M{fmt(hx(reed[0]) + 1.3)} {fmt(hy(reed[1]))}L{fmt(hx(reed_return[0]) + 1.3)} {fmt(hy(reed_return[1]))}L{fmt(hx(reed_return[0]))} {fmt(hy(reed_return[1]))}" fill="none" stroke="#06c" stroke-width="0.3"/>'
    )
    pad("reed", "lower (glass end)", reed)
    pad("reed", "upper, bent down", reed_return)
    out.append(
        f'<text x="{fmt(hx(reed[0]) - 2)}" y="{fmt(hy(-1.2))}" font-size="2.6" text-anchor="middle">reed (upright)</text>'
    )
    # The diode stands upright: a DO-35 lying flat needs 0.3" between its holes, and ROW
    # and MID are 0.2" apart. Its body stands on the ROW hole, band down; the anode lead
    # comes back over the top into MID.
    out.append(
        f'<circle class="diode-body" cx="{fmt(hx(cathode[0]))}" cy="{fmt(hy(cathode[1]))}" r="1.0" '
        'fill="#f4c7a1" stroke="#333" stroke-width="0.2"/>'
    )
    out.append(
        f'<circle class="band" cx="{fmt(hx(cathode[0]))}" cy="{fmt(hy(cathode[1]))}" r="1.0" '
        'fill="none" stroke="#111" stroke-width="0.5"/>'
    )
    out.append(
        f'<path d="M{fmt(hx(cathode[0]) + 1.0)} {fmt(hy(cathode[1]))}L{fmt(hx(anode[0]) + 1.0)} {fmt(hy(anode[1]))}'
        f'L{fmt(hx(anode[0]))} {fmt(hy(anode[1]))}" fill="none" stroke="#333" stroke-width="0.3"/>'
    )
    pad("diode", "anode", anode)
    pad("diode", "cathode (band)", cathode)
    out.append(
        f'<text x="{fmt(hx(9) + 2)}" y="{fmt(hy(-1.2))}" font-size="2.6">1N4148 upright, band down in ROW</text>'
    )
    # The LED: a round WS2812B board glued face up under its hole in the board's top,
    # where the drill template puts it: straight towards White from the reed (down the
    # drawing, across the strips), led_offset_mm away. It lies above the cell's lower
    # edge; four wires go down to the strips.
    lx, ly = hx(reed[0]), hy(reed[1]) + g.led_offset_mm
    out.append(
        f'<circle class="led" cx="{fmt(lx)}" cy="{fmt(ly)}" r="5" fill="#fff" fill-opacity="0.6" stroke="#c00" '
        'stroke-width="0.35" stroke-dasharray="1 0.6"/>'
    )
    out.append(
        f'<text x="{fmt(lx + 6)}" y="{fmt(ly + 2)}" font-size="2.6">WS2812B, round board facing up, glued under its hole in the top:</text>'
    )
    out.append(
        f'<text x="{fmt(lx + 6)}" y="{fmt(ly + 5.5)}" font-size="2.6">{fmt(g.led_offset_mm)} mm from the reed towards White, '
        "as on the drill template</text>"
    )
    for lead, at in led.items():
        out.append(
            f'<path d="M{fmt(hx(at[0]))} {fmt(hy(at[1]))}L{fmt(lx + (at[0] - 3.5) * 1.6)} {fmt(ly + 4)}" stroke="#c00" stroke-width="0.25"/>'
        )
        pad("led", lead, at)
    # The buses leaving the cell.
    notes = [
        ("ROW", f"to the next cell of the rank ({fmt(2 * g.square_mm - holes * p)} mm jumper) and on to the row wire"),
        ("COL", f"to this column's cell in the next rank (~{fmt(math.hypot(g.square_mm, g.square_mm))} mm)"),
        (
            "GND",
            f"and +5V: cell to cell along the rank ({JUMPER_AWG} AWG); end cells on the edge ladders ({LADDER_AWG} AWG)",
        ),
        ("+5V", "last, beside DOUT only: never next to ROW, COL or MID"),
        ("DIN", "from the previous pixel's DOUT"),
        ("DOUT", "to the next pixel's DIN (chain order: lights.map)"),
    ]
    for name, text in notes:
        k = STRIPS.index(name)
        out.append(f'<text x="{fmt(left + holes * p + 2)}" y="{fmt(hy(k) + 1)}" font-size="2.4">{text}</text>')
    out.append(
        f'<text x="2" y="{fmt(height - 7)}" font-size="2.6">Check every diode before wiring the rows: '
        "0.6 V from COL (red) to ROW (black) with a magnet on the reed, open the other way.</text>"
    )
    out.append(
        f'<text x="2" y="{fmt(height - 3)}" font-size="2.6">Before power, with no Pi or Pico connected: '
        "an ohmmeter from +5V to every ROW and COL wire reads open;</text>"
    )
    out.append(
        f'<text x="2" y="{fmt(height + 1)}" font-size="2.6">from +5V to GND it shows no short '
        "(with the LEDs soldered it does not read open).</text>"
    )
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()
