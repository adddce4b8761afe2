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

from firmware.wiring.geometry import BoardGeometry
from firmware.wiring.schematic import CONSOLE_PINS, SEP, pin_plan
from squares import square_name

__all__ = ["cable_plan", "wire_length_mm", "stripboard_svg", "PITCH_MM", "STRIPS", "CELL_HOLES"]

PITCH_MM = 2.54  # stripboard: 0.1 inch between holes and between strips
#: The cell's strips, top to bottom (each a copper track along the rank).
STRIPS = ("ROW", "COL", "MID", "+5V", "DIN", "DOUT", "GND")
CELL_HOLES = 12  # holes along each strip
SLACK = 1.15
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


def _row_end(r: int) -> int:
    """The square of row ``r`` nearest the bay (the a-file side)."""
    return 4 * r + 1


def _col_end(c: int) -> int:
    """The square of column ``c`` in rank 1, where its column wire comes in."""
    return 29 + c


def _roles(option: str) -> list[tuple[str, str]]:
    """(pin as the schematics name it, role) in pin-plan order."""
    out = []
    for label in pin_plan(option).values():
        pin, role = label.split(SEP, 1)
        out.append((pin, role))
    return out


def cable_plan(option: str, g: BoardGeometry, *, led_map: str = "row-major", origin: str = "a8") -> str:
    """The cable plan of ``option`` as Markdown."""
    from hal.pixelmap import build_pixel_map

    controller = {"gpio": "Raspberry Pi", "shift": "Raspberry Pi", "pico": "Raspberry Pi Pico"}[option]
    head = _header(g)
    bay = (-g.bay_mm / 2, g.size_mm / 2 + 30)  # the bay's own parts: level shifter, buttons
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
                    f"COL strip of square {sq} ({square_name(sq)})",
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
                    "the chain's connector, at chip 1 (beside ranks 8 and 7)",
                    colour,
                    wire_length_mm(head, (g.border_mm / 2, g.border_mm + g.square_mm)),
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
                    "white, in the 3-core LED cable",
                    wire_length_mm(bay, _cell_edge(g, sq)),
                )
            )
        elif role.startswith("button"):
            series = "1 kΩ in series (the UART's pin), then " if pin.split(" ", 1)[0] in CONSOLE_PINS else ""
            rows.append(
                (
                    role,
                    pin,
                    f"{series}its push button on the bay's top panel (the other contact to ground)",
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
    pixels = build_pixel_map(32, led_map, origin).describe()
    first = next(s for s in range(1, 33) if square_name(s) == pixels[0])
    last = next(s for s in range(1, 33) if square_name(s) == pixels[-1])
    supply = "the Pico's VBUS (pin 40) through the fuse" if option == "pico" else "the 5 V supply through the fuse"
    for end, sq in (("first", first), ("last", last)):
        rows.append(
            (
                f"+5 V to the {end} LED",
                supply,
                f"+5V strip of square {sq} ({square_name(sq)})",
                "red, 22 AWG",
                wire_length_mm(bay, _cell_edge(g, sq)),
            )
        )
        rows.append(
            (
                f"ground to the {end} LED",
                "ground in the bay",
                f"GND strip of square {sq} ({square_name(sq)})",
                "black, 22 AWG",
                wire_length_mm(bay, _cell_edge(g, sq)),
            )
        )
    if option == "shift":
        for what, colour in (("3.3 V to the chain", "orange"), ("ground to the chain", "black")):
            rows.append(
                (
                    what,
                    "Pi pin 1 (3.3 V)" if "3.3" in what else "Pi pin 6 (ground)",
                    "the chain's connector, at chip 1",
                    colour,
                    wire_length_mm(head, (g.border_mm / 2, g.border_mm + g.square_mm)),
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
        "each route and cut to that.",
        "",
        "| signal | from | to | colour | length (mm, *estimate*) |",
        "|---|---|---|---|---:|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {n} |" for a, b, c, d, n in rows]
    chain = " -> ".join(pixels[:6]) + " ... " + pixels[-1]
    jump = 2 * s - CELL_HOLES * PITCH_MM
    back = 7 * s  # a row-major chain goes back across the board at each rank's end
    lines += [
        "",
        "## On the board, cell to cell",
        "",
        "| bus | from | to | length (mm, *estimate*) |",
        "|---|---|---|---:|",
        f"| ROW, +5V, GND | one cell | the next cell of the rank (two squares on) | {wire_length_mm((0, 0), (jump, 0))} |",
        f"| COL | one cell | the cell of the same column in the next rank | {wire_length_mm((0, 0), (s, s))} |",
        f"| DOUT -> DIN | one cell | the next pixel's cell ({led_map} from {origin}: {chain}) | "
        f"{wire_length_mm((0, 0), (jump, 0))} along a rank, "
        + (
            f"{wire_length_mm((0, 0), (back, s))} back across the board at each rank's end |"
            if led_map == "row-major"
            else f"{wire_length_mm((0, 0), (s, s))} at each rank's end |"
        ),
        "",
        "Label both ends of every wire with its signal (`row 3`, `col 1`, `LED +5V`).",
    ]
    if led_map == "row-major":
        lines.append(
            f'A serpentine chain (`lights.map = "serpentine"`, `LED_MAP = "serpentine"` on a Pico) '
            f"saves the seven {wire_length_mm((0, 0), (back, s))} mm data wires back across the board."
        )
    return "\n".join(lines) + "\n"


def stripboard_svg(g: BoardGeometry) -> bytes:
    """One square's cell on stripboard (copper side down, seen from the component side):
    the reed switch standing at the square's centre, its diode, the LED's four wires, and
    the strips the row, column, power and data buses run along from cell to cell."""
    p = PITCH_MM
    holes, strips = CELL_HOLES, len(STRIPS)
    left, top = 30.0, 24.0  # room for the labels
    width, height = left + holes * p + 125.0, top + strips * p + 40.0

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
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width)}mm" height="{fmt(height)}mm" '
        f'viewBox="0 0 {fmt(width)} {fmt(height)}" font-family="sans-serif">',
        "<title>Crownhead: one square's cell on stripboard</title>",
        f'<text x="2" y="6" font-size="4">One square\'s cell on 0.1" stripboard ({holes} holes x {strips} strips, '
        f"{fmt(holes * p)} x {fmt(strips * p)} mm): make 32.</text>",
        '<text x="2" y="11" font-size="3">Component side up, strips run along the rank. No track cuts: '
        "each strip is one net. The reed stands at the square's centre.</text>",
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
    # The diode: anode in MID, band (cathode) in ROW.
    out.append(
        f'<rect x="{fmt(hx(9) - 0.9)}" y="{fmt(hy(0.3))}" width="1.8" height="{fmt(1.4 * p)}" fill="#f4c7a1" stroke="#333" stroke-width="0.2"/>'
    )
    out.append(f'<rect class="band" x="{fmt(hx(9) - 0.9)}" y="{fmt(hy(0.3))}" width="1.8" height="0.6" fill="#111"/>')
    pad("diode", "anode", anode)
    pad("diode", "cathode (band)", cathode)
    out.append(f'<text x="{fmt(hx(9) + 2)}" y="{fmt(hy(-1.2))}" font-size="2.6">1N4148, band to ROW</text>')
    # The LED: a round WS2812B board glued beside the strips, four wires to them.
    lx, ly = hx(3.5), hy(strips + 3.2)
    out.append(
        f'<circle class="led" cx="{fmt(lx)}" cy="{fmt(ly)}" r="5" fill="#fff" stroke="#c00" stroke-width="0.35"/>'
    )
    out.append(
        f'<text x="{fmt(lx + 7)}" y="{fmt(ly + 1)}" font-size="2.6">WS2812B (round board, facing up), '
        f"{fmt(g.led_offset_mm)} mm from the reed towards White</text>"
    )
    for lead, at in led.items():
        out.append(
            f'<path d="M{fmt(hx(at[0]))} {fmt(hy(at[1]))}L{fmt(lx + (at[0] - 3.5) * 1.6)} {fmt(ly - 4)}" stroke="#c00" stroke-width="0.25"/>'
        )
        pad("led", lead, at)
    # The buses leaving the cell.
    notes = [
        ("ROW", f"to the next cell of the rank ({fmt(2 * g.square_mm - holes * p)} mm jumper) and on to the row wire"),
        ("COL", f"to this column's cell in the next rank (~{fmt(math.hypot(g.square_mm, g.square_mm))} mm)"),
        ("+5V", "and GND: from cell to cell along the rank, fed at both ends of the chain"),
        ("DIN", "from the previous pixel's DOUT"),
        ("DOUT", "to the next pixel's DIN (chain order: lights.map)"),
    ]
    for name, text in notes:
        k = STRIPS.index(name)
        out.append(f'<text x="{fmt(left + holes * p + 2)}" y="{fmt(hy(k) + 1)}" font-size="2.4">{text}</text>')
    out.append(
        f'<text x="2" y="{fmt(height - 3)}" font-size="2.6">Check every diode before wiring the rows: '
        "0.6 V from COL (red) to ROW (black) with a magnet on the reed, open the other way.</text>"
    )
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()
