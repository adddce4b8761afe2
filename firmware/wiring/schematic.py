"""SVG schematics of the three wiring options, drawn with schemdraw from the pin plans.

Every connection to the controller is a net label of the form
``GPIO17 (pin 11) · matrix row 1 (rank 7)`` (``GP3 (pin 5) · ...`` on a Pico): the pin
as the code has it, the header pin it is on, and what it is for. :func:`pin_plan` gives
the same labels straight from the code, and :func:`labels_in_svg` reads them back
from a drawing, so a test can compare the two.

>>> plan = pin_plan("gpio")
>>> plan["GPIO4"]
'GPIO4 (pin 7) · matrix row 0 (rank 8)'
>>> pin_plan("pico")["GP16"]
'GP16 (pin 21) · LED data'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from crownhead.firmware.files import atomic_write

#: The 74HC165's parallel inputs and their DIP-16 pin numbers.
SHIFT_INPUT_PINS = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}

__all__ = ["OPTIONS", "TITLES", "pin_plan", "draw", "labels_in_svg", "write_all", "check_all"]

OPTIONS = ("gpio", "shift", "pico")
TITLES = {
    "gpio": "Crownhead: 8 x 4 diode matrix on the Raspberry Pi's GPIO (board.backend = gpio)",
    "shift": "Crownhead: four 74HC165 shift registers on the Raspberry Pi (board.backend = shift)",
    "pico": "Crownhead: a Raspberry Pi Pico scans the board, USB to the Pi (board.backend = serial)",
}
SEP = " · "
_RANKS = "87654321"


def _pi_header(gpio: int) -> int:
    """The 40-pin header pin of BCM ``gpio`` (gpiozero's board data; all 40-pin Pis agree)."""
    return _pi_headers()[gpio]


@functools.cache
def _pi_headers() -> dict[int, int]:
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    try:
        out = {}
        for gpio in range(28):
            for header, info in factory.board_info.find_pin(f"GPIO{gpio}"):
                if header.name == "J8":
                    out[gpio] = int(info.number)
        return out
    finally:
        factory.close()


def _role(key: str) -> str:
    """What a configuration key's pin is for, in words."""
    m = re.fullmatch(r"matrix\.rows\[(\d)\]", key)
    if m:
        r = int(m.group(1))
        return f"matrix row {r} (rank {_RANKS[r]})"
    m = re.fullmatch(r"matrix\.cols\[(\d)\]", key)
    if m:
        return f"matrix col {m.group(1)}"
    m = re.fullmatch(r"buttons\.pins\.(\w+)", key)
    if m:
        return f"button {m.group(1)}"
    fixed = {
        "shift.load_pin": "74HC165 SH/LD",
        "shift.clock_pin": "74HC165 CLK",
        "shift.data_pin": "74HC165 QH (data)",
        "lights.data_pin": "LED data",
    }
    # A pin another part of the board claims (a display, a buzzer...): its key says it.
    return fixed.get(key, key)


def pin_plan(option: str) -> dict[str, str]:
    """Pin name -> net label, for every pin ``option`` uses, straight from the code."""
    if option == "pico":
        from crownhead.firmware.mcu import PICO_HEADER, load_firmware

        fw = load_firmware()
        pins: list[tuple[str, int]] = []
        pins += [(f"matrix.rows[{r}]", gp) for r, gp in enumerate(fw.ROW_PINS)]
        pins += [(f"matrix.cols[{c}]", gp) for c, gp in enumerate(fw.COL_PINS)]
        pins.append(("lights.data_pin", fw.LED_PIN))
        pins += [(f"buttons.pins.{name}", gp) for name, gp in fw.BUTTON_PINS]
        return {f"GP{gp}": f"GP{gp} (pin {PICO_HEADER[gp]}){SEP}{_role(key)}" for key, gp in pins}
    if option not in ("gpio", "shift"):
        raise ValueError(f"unknown wiring option {option!r} (choose from {', '.join(OPTIONS)})")
    from crownhead.firmware.config.hardware import used_pins

    out = {}
    seen: dict[str, int] = {}
    for key, gpio in used_pins(_pi_config(), option):
        role = _role(key)
        if key == "display.port":  # the I2C bus: SDA first, then SCL
            role = ("OLED SDA", "OLED SCL")[seen.get(key, 0)] + " (optional display, I2C)"
        elif key == "buzzer.pin":
            role = "buzzer (optional)"
        seen[key] = seen.get(key, 0) + 1
        out[f"GPIO{gpio}"] = f"GPIO{gpio} (pin {_pi_header(gpio)}){SEP}{role}"
    return out


def _pi_config() -> Any:
    """The default configuration, with the optional parts it knows switched on so that
    the drawing shows where they go."""
    from crownhead.firmware.config import ConfigError, default_config

    config = default_config()
    for section, changes in (("display", {"driver": "ssd1306"}), ("buzzer", {"kind": "passive"})):
        if section in config.sections:
            try:
                config = config.replace(section, **changes)
            except ConfigError:
                pass  # the part does not fit beside the defaults: left out of the drawing
    return config


def _by_role(plan: dict[str, str], prefix: str) -> list[str]:
    return [label for label in plan.values() if label.split(SEP, 1)[1].startswith(prefix)]


# -- drawing ---------------------------------------------------------------------------------


@contextmanager
def _drawing() -> Iterator[Any]:
    import schemdraw

    from schemdraw.backends import svg

    schemdraw.use("svg")
    # Text as <text> elements, not glyph paths (with ziamath installed schemdraw would
    # draw paths): the labels stay readable, searchable and checkable in the file.
    svg.config.text = "text"
    drawing = schemdraw.Drawing(show=False, canvas="svg")
    drawing.config(unit=2, fontsize=11, lw=1.2, font="sans-serif")
    yield drawing


def _tag(d: Any, xy: tuple[float, float], text: str, *, left: bool = True) -> None:
    """A net label ending at ``xy``: the wire goes off to the controller pin it names."""
    import schemdraw.elements as elm

    d.add(elm.Tag(width=len(text) * 0.19 + 0.6).at(xy).theta(180 if left else 0).label(text, fontsize=10))


def _text(
    d: Any,
    xy: tuple[float, float],
    text: str,
    size: float = 10,
    halign: Literal["left", "center", "right"] = "left",
    wrap: int = 0,
) -> None:
    """A note at ``xy``; ``wrap``: at most that many characters a line (a long note
    would run off the drawing's edge, which schemdraw does not widen for it)."""
    import textwrap

    import schemdraw.elements as elm

    if wrap:
        text = textwrap.fill(text, wrap)
    d.add(elm.Label().at(xy).label(text, fontsize=size, halign=halign))


def _matrix(d: Any, rows: list[str], cols: list[str], x0: float, y0: float) -> None:
    """The 8 x 4 matrix: column -> reed switch -> diode (band towards the row) -> row."""
    import schemdraw.elements as elm

    from crownhead.squares import square_name

    w, h = 5.0, 2.4
    right = x0 + 4 * w + 0.5
    for r in range(8):
        y = y0 - r * h
        d.add(elm.Line().at((x0, y)).to((right, y)))
        _tag(d, (x0, y), rows[r])
    top = y0 + 1.6
    for c in range(4):
        x = x0 + 1.0 + c * w
        d.add(elm.Line().at((x, top)).to((x, y0 - 7 * h + 1.2)))
        # Column c's label sits higher than every column left of it: no label crosses a wire.
        d.add(elm.Line().at((x, top)).to((x, top + 0.6 + 0.9 * c)))
        _tag(d, (x, top + 0.6 + 0.9 * c), cols[c])
        for r in range(8):
            y = y0 - r * h
            sq = 4 * r + c + 1
            start = (x, y + 1.2)
            d.add(elm.Dot(radius=0.08).at(start))
            d.add(elm.SwitchReed().at(start).right().length(1.9).scale(0.7))
            d.add(elm.Diode().right().length(1.6).scale(0.7))
            end = d.here
            d.add(elm.Line().down().to((end[0], y)))
            d.add(elm.Dot(radius=0.08))
            _text(d, (start[0] + 0.2, y + 1.75), f"{sq} {square_name(sq)}", size=8)
    # The column pull-ups, at the header: the same nets, by their labels. The internal
    # pull-ups (about 50 kOhm) alone are weak for 0.3-0.6 m of column wire.
    px = right + 9.0
    _text(d, (px - 7.0, top + 1.6), "Column pull-ups, at the header:", size=10)
    for c in range(4):
        y = top - 0.4 - c * 1.6
        d.add(elm.Resistor().at((px, y)).right().length(2.4).scale(0.8).label("10 kΩ", fontsize=9))
        d.add(elm.Vdd().label("3.3 V", fontsize=9))
        _tag(d, (px, y), cols[c])
    _text(
        d,
        (px - 7.0, top - 0.4 - 4 * 1.6),
        "10 kΩ from each column to 3.3 V, never to 5 V (nor VBUS or VSYS on a Pico): the inputs are not 5 V tolerant",
        size=8,
        wrap=56,
    )


def _leds(d: Any, data_label: str, x0: float, y0: float, option: str) -> float:
    """Data pin -> 74AHCT125 gate 1 -> 330 ohm -> DIN of pixel 0; the chip's other three
    gates tied off and its 100 nF; the LEDs fed through a fuse (to every rank, by the
    ladders the cable plans list), or from a supply of their own. Returns the lowest y
    used."""
    import schemdraw.elements as elm

    pico = option == "pico"
    supply = "5 V (VBUS)" if pico else "5 V"
    ic = d.add(
        elm.Ic(
            pins=[
                # Listed bottom to top: 1A last, on top, so that the data line's label
                # comes in above the tie of the other inputs, which never crosses it.
                elm.IcPin(name="4A", pin="12", side="L"),
                elm.IcPin(name="4OE", pin="13", side="L"),
                elm.IcPin(name="3A", pin="9", side="L"),
                elm.IcPin(name="3OE", pin="10", side="L"),
                elm.IcPin(name="2A", pin="5", side="L"),
                elm.IcPin(name="2OE", pin="4", side="L"),
                elm.IcPin(name="1OE", pin="1", side="L"),
                elm.IcPin(name="1A", pin="2", side="L"),
                elm.IcPin(name="GND", pin="7", side="B"),
                elm.IcPin(name="1Y", pin="3", side="R"),
                elm.IcPin(name="2Y", pin="6", side="R"),
                elm.IcPin(name="3Y", pin="8", side="R"),
                elm.IcPin(name="4Y", pin="11", side="R"),
                elm.IcPin(name="VCC", pin="14", side="T"),
            ],
            size=(3.6, 6.8),
            pinspacing=0.8,
            edgepadH=0.4,
        )
        .right()
        .at((x0, y0))
        .anchor("1A")
        .label("74AHCT125", loc="bottom", fontsize=10)
    )
    a = ic.absanchors
    _tag(d, a["1A"], data_label)
    # Enable gate 1 (OE low); every unused input and OE to ground, so none floats.
    tie_x = a["1A"][0] - 0.9
    for name in ("1OE", "2OE", "2A", "3OE", "3A", "4OE", "4A"):
        d.add(elm.Line().at(a[name]).to((tie_x, a[name][1])))
        d.add(elm.Dot(radius=0.06))
    ys = [a[name][1] for name in ("1OE", "2OE", "2A", "3OE", "3A", "4OE", "4A")]
    d.add(elm.Line().at((tie_x, max(ys))).to((tie_x, min(ys) - 0.5)))
    d.add(elm.Ground())
    _text(d, (tie_x - 0.3, min(ys) - 0.2), "unused gates: inputs and OE to ground", size=8, halign="right")
    for name in ("2Y", "3Y", "4Y"):
        d.add(elm.Line().at(a[name]).right().length(0.4))
        _text(d, d.here, "n.c.", size=8)
    d.add(elm.Line().at(a["GND"]).down().length(0.4))
    d.add(elm.Ground())
    d.add(elm.Line().at(a["VCC"]).up().length(0.6))
    vcc = d.here
    d.add(elm.Vdd().label("5 V", fontsize=10))
    d.add(elm.Line().at(vcc).right().length(1.6))
    d.add(elm.Capacitor().down().length(1.6).label("100 nF", loc="bottom", fontsize=9))
    d.add(elm.Ground())
    d.add(elm.Resistor().at(a["1Y"]).right().length(3).label("330 Ω", fontsize=10))
    _text(d, (a["1Y"][0] + 0.4, a["1Y"][1] - 0.7), "at pixel 0's DIN", size=8)
    din = d.here
    first = d.add(
        elm.Ic(
            pins=[
                elm.IcPin(name="DIN", side="L"),
                elm.IcPin(name="DOUT", side="R"),
                elm.IcPin(name="", anchorname="+5V", side="T"),
                elm.IcPin(name="", anchorname="GND", side="B"),
            ],
            size=(3.4, 1.6),
        )
        .right()
        .at(din)
        .anchor("DIN")
        .label("pixel 0 (first)", loc="bottom", fontsize=9)
    )
    f = first.absanchors
    d.add(elm.Line().at(f["DOUT"]).right().length(1.0))
    _text(d, (f["DOUT"][0] + 1.1, f["DOUT"][1] + 0.35), "... 30 more ...", size=9)
    last = d.add(
        elm.Ic(
            pins=[
                elm.IcPin(name="DIN", side="L"),
                elm.IcPin(name="DOUT", side="R"),
                elm.IcPin(name="", anchorname="+5V", side="T"),
                elm.IcPin(name="", anchorname="GND", side="B"),
            ],
            size=(3.4, 1.6),
        )
        .right()
        .at((f["DOUT"][0] + 5.0, f["DOUT"][1]))
        .anchor("DIN")
        .label("pixel 31 (last)", loc="bottom", fontsize=9)
    )
    l = last.absanchors
    d.add(elm.Line().at((f["DOUT"][0] + 4.0, f["DOUT"][1])).to(l["DIN"]))
    # The +5 V feed: a fuse at the supply, then the ladders to every rank (the cable plans).
    rail = f["+5V"][1] + 3.0
    src = (f["+5V"][0] - 2.9, rail)
    d.add(elm.Vdd().at(src).label(supply, fontsize=10))
    fuse = "F1 polyfuse 0.5 A hold" if pico else "F1 polyfuse 0.75 A hold"
    d.add(elm.Fuse().at(src).right().length(1.8).label(fuse, loc="bottom", fontsize=9))
    d.add(elm.Line().to((f["+5V"][0], rail)))
    d.add(elm.Dot())
    d.add(elm.Line().down().to(f["+5V"]))
    d.add(elm.Line().at((f["+5V"][0], rail)).to((l["+5V"][0], rail)))
    d.add(elm.Line().down().to(l["+5V"]))
    _text(
        d,
        ((f["+5V"][0] + l["+5V"][0]) / 2, rail + 0.45),
        "+5 V and ground to every rank, from both edges (the ladders in the cable plan)",
        size=9,
        halign="center",
    )
    gnd = f["GND"][1] - 1.2
    for anchor in (f["GND"], l["GND"]):
        d.add(elm.Line().at(anchor).to((anchor[0], gnd)))
    d.add(elm.Line().at((f["GND"][0], gnd)).to((l["GND"][0], gnd)))
    d.add(elm.Ground().at((f["GND"][0], gnd)))
    # The bulk capacitor at pixel 0 (to its own ground, clear of the data line): sized
    # for what may charge it.
    cx = f["+5V"][0] + 2.6
    d.add(elm.Dot().at((cx, rail)))
    if pico:
        d.add(elm.Capacitor().at((cx, rail)).down().length(1.0).label("10 µF", loc="bottom", fontsize=9))
        d.add(elm.Ground())
        note = (
            "VBUS: 10 µF at most (USB allows 10 µF at plug-in; 1000 µF there can brown out the Pi's port). "
            "F1: 0.5 A hold (e.g. Bourns MF-R050). The firmware holds the LEDs' average to 200 mA (LED_BUDGET_MA); "
            "their PWM peaks go higher. Brighter, or a port that browns out: a 5 V supply of its own (build.md)."
        )
    else:
        d.add(elm.Capacitor(polar=True).at((cx, rail)).down().length(1.0).label("1000 µF", loc="bottom", fontsize=9))
        d.add(elm.Ground())
        note = "1000 µF, 10 V at pixel 0. F1: 0.75 A hold (e.g. Bourns MF-R075) on the Pi's 5 V pins."
    _text(d, (x0 - 9.0, gnd - 1.6), note, size=9, wrap=300)
    _separate_supply(d, l["DOUT"][0] + 3.0, rail, pico)
    return gnd - 1.6


def _separate_supply(d: Any, x: float, y: float, pico: bool) -> None:
    """The LEDs' own 5 V supply, drawn beside the feed it replaces: the keyed DC jack
    (centre positive), its fuse, and the 1N5822 after the fuse, band to +5 V. A supply
    plugged in backwards drives current through the diode and trips the fuse before any
    LED sees -5 V (build.md)."""
    import schemdraw.elements as elm

    instead = "VBUS and F1" if pico else "the Pi's 5 V and F1"
    _text(
        d,
        (x, y + 1.9),
        f"Or the LEDs' own 5 V supply (a brightness cap above 0.1), instead of {instead}:",
        size=9,
        wrap=48,
    )
    _text(d, (x + 0.2, y + 0.6), "J1 keyed DC jack, 5.5 x 2.1 mm, centre +", size=8)
    # schemdraw's jack: the contacts face right, the tip (the barrel's centre pin) 1.0
    # above the sleeve.
    jack = d.add(elm.AudioJack().right().at((x + 2.6, y)).anchor("tip"))
    j = jack.absanchors
    d.add(elm.Fuse().at(j["tip"]).right().length(2.4).label("F2", loc="bottom", fontsize=9))
    d.add(elm.Line().right().length(1.0))
    node = d.here
    gnd = y - 2.6
    d.add(elm.Line().at(j["sleeve"]).to((j["sleeve"][0], gnd)))
    d.add(elm.Line().to((node[0], gnd)))
    d.add(elm.Ground().at((node[0] - 1.6, gnd)))
    # Drawn from ground up: the band (the cathode) is at the top, on the fused +5 V.
    d.add(elm.Schottky().at((node[0], gnd)).up().to(node).label("D1 1N5822", loc="bottom", fontsize=8))
    d.add(elm.Dot().at(node))
    d.add(elm.Dot().at((node[0], gnd)))
    d.add(elm.Line().at(node).right().length(3.2).label("+5 V ladders", fontsize=9))
    d.add(elm.Line().at((node[0], gnd)).right().length(3.2).label("GND ladders", fontsize=9))
    note = (
        "F2: a polyfuse held above the supply's worst case (hardware.md); D1 after it, "
        "band to +5 V: a plug wired backwards trips F2 before any LED sees -5 V. "
        + ("1000 µF at pixel 0 (not on VBUS); " if pico else "")
        + "The grounds joined; never the LEDs from both supplies at once."
    )
    _text(d, (x, gnd - 1.6), note, size=8, wrap=56)


def _buttons(d: Any, labels: list[str], x0: float, y0: float) -> None:
    """Each button from its pin to ground through 1 kOhm; the internal pull-up holds the
    pin high. The resistor takes a static discharge on the button's cable (it reaches
    the pin otherwise), and on the serial console's pins (GPIO14/15) it also keeps a
    press from shorting the UART's driven output."""
    import schemdraw.elements as elm

    for i, label in enumerate(labels):
        y = y0 - i * 1.6
        pin = label.split(" ", 1)[0]
        d.add(elm.Resistor().at((x0, y)).right().length(1.8).scale(0.8).label("1 kΩ", fontsize=9))
        d.add(elm.Button().right().length(1.8).scale(0.8))
        d.add(elm.Line().down().length(0.4))
        d.add(elm.Ground())
        if pin in CONSOLE_PINS:
            _text(
                d,
                (x0 + 5.0, y - 0.2),
                "1 kΩ: also the UART's pin; with the serial console on, a press would short its driven output",
                size=8,
            )
        _tag(d, (x0, y), label)
    _text(
        d,
        (x0 + 5.0, y0 + 0.6),
        "1 kΩ in series with every button, in the bay (ESD on the cable); optional 100 nF from the pin to ground beside it",
        size=8,
    )


#: The Pi's UART pins (TX, RX): the serial console's, when it is on.
CONSOLE_PINS = ("GPIO14", "GPIO15")


def _others(d: Any, labels: list[str], x0: float, y0: float) -> float:
    """Pins other parts of the board claim: the optional OLED on I2C and the buzzer are
    drawn; anything else is a named wire. Returns the lowest y used."""
    import schemdraw.elements as elm

    y = y0
    sda = [v for v in labels if "OLED SDA" in v]
    scl = [v for v in labels if "OLED SCL" in v]
    if sda and scl:
        oled = d.add(
            elm.Ic(
                pins=[
                    elm.IcPin(name="SCL", side="L"),
                    elm.IcPin(name="SDA", side="L"),
                    elm.IcPin(name="GND", side="R"),
                    elm.IcPin(name="VCC", side="R"),
                ],
                size=(3.6, 2.0),
                pinspacing=0.8,
            )
            .right()
            .at((x0 + 1.0, y))
            .anchor("SDA")
            .label("SSD1306 / SH1106\n128 x 64 OLED, I2C", loc="bottom", fontsize=9)
        )
        a = oled.absanchors
        d.add(elm.Line().at(a["SDA"]).left().length(1.0))
        _tag(d, d.here, sda[0])
        d.add(elm.Line().at(a["SCL"]).left().length(1.0))
        _tag(d, d.here, scl[0])
        d.add(elm.Line().at(a["VCC"]).right().length(0.6))
        d.add(elm.Vdd().label("3.3 V", fontsize=10))
        d.add(elm.Line().at(a["GND"]).right().length(0.6))
        d.add(elm.Line().down().length(0.3))
        d.add(elm.Ground())
        _text(
            d,
            (x0 + 9.0, y),
            "I2C address 0x3C (0x3D with the module's jumper; printed 0x78/0x7A, the 8-bit write address). "
            "The Pi's 1.8 kΩ pull-ups on GPIO2/3 hold the bus; the module's own are in parallel",
            size=8,
        )
        y -= 3.6
    for label in labels:
        if label in sda or label in scl:
            continue
        if "buzzer" in label:
            y -= 3.6  # room above for the buzzer and its diode
            # An NPN switch: one pin cannot drive a magnetic buzzer's 16-42 ohm coil, and
            # the coil's kick when it switches off goes into the flyback diode.
            d.add(elm.Resistor().at((x0, y)).right().length(2.2).scale(0.8).label("1 kΩ", fontsize=9))
            q = d.add(
                elm.BjtNpn(circle=True)
                .right()
                .anchor("base")
                .label("Q1 BC337\n(TO-92: C B E)", loc="right", fontsize=8)
            )
            qa = q.absanchors
            d.add(elm.Line().at(qa["emitter"]).down().length(0.4))
            d.add(elm.Ground())
            d.add(elm.Line().at(qa["collector"]).up().length(0.4))
            node = d.here
            d.add(elm.RBox().up().length(2.0).label("buzzer", loc="top", fontsize=9))
            top = d.here
            d.add(elm.Line().up().length(0.4))
            d.add(elm.Vdd().label("5 V", fontsize=9))
            d.add(elm.Line().at(node).right().length(1.8))
            d.add(elm.Diode().up().length(2.0).label("1N4148", loc="bottom", fontsize=8))  # band up, at 5 V
            d.add(elm.Line().to(top))
            d.add(elm.Dot(radius=0.06).at(node))
            d.add(elm.Dot(radius=0.06).at(top))
            _tag(d, (x0, y), label)
            _text(
                d,
                (x0 + 9.0, y - 0.6),
                "magnetic buzzer (5 V, coil 40 Ω or more) or 5 V active buzzer; "
                "flyback diode across it, band to 5 V. Q1 BC337: flat face towards you, leads down, "
                "collector left, base middle, emitter right (a 2N4401 is E B C: turn it round). "
                "A piezo disc (e.g. TDK PS1240P02BT) may go on the pin through 100 Ω instead.",
                size=8,
                wrap=64,
            )
            y -= 4.0
            continue
        d.add(elm.Line().at((x0, y)).right().length(2))
        _tag(d, (x0, y), label)
        _text(d, (x0 + 2.2, y), "to " + label.split(SEP, 1)[1], size=9)
        y -= 1.2
    return y


def _shift_chain(d: Any, plan: dict[str, str], x0: float, y0: float) -> None:
    """Chip 4 on the left shifts into chip 3 ... chip 1, whose QH goes to the Pi."""
    import schemdraw.elements as elm

    load = _by_role(plan, "74HC165 SH/LD")[0]
    clock = _by_role(plan, "74HC165 CLK")[0]
    data = _by_role(plan, "74HC165 QH")[0]
    letters = "HGFEDCBA"
    previous_qh: tuple[float, float] | None = None
    for k, chip in enumerate((4, 3, 2, 1)):
        x = x0 + k * 13.0
        first = 8 * (chip - 1) + 1
        # The DIP pin number where the symbol shows pin numbers (H is pin 6, A pin 11);
        # the square an input reads is written above its pin, as "sq N".
        pins = [elm.IcPin(name=letters[i], side="T", pin=str(SHIFT_INPUT_PINS[letters[i]])) for i in range(8)]
        pins += [  # left side, listed bottom to top
            elm.IcPin(name="CLK INH", side="L", pin="15"),
            elm.IcPin(name="CLK", side="L", pin="2"),
            elm.IcPin(name="SH/LD", side="L", pin="1"),
            elm.IcPin(name="SER", side="L", pin="10"),
            elm.IcPin(name="QH", side="R", pin="9"),
            elm.IcPin(name="GND", side="B", pin="8"),
            elm.IcPin(name="VCC", side="R", pin="16"),
        ]
        ic = d.add(
            elm.Ic(pins=pins, size=(7.0, 3.6), pinspacing=0.8, edgepadW=0.4)
            .right()
            .at((x, y0))
            .label(f"74HC165 #{chip}: squares {first}-{first + 7}", loc="bottom", fontsize=10)
        )
        a = ic.absanchors
        for i in range(8):
            pin_x, pin_y = a[letters[i]]
            _text(d, (pin_x, pin_y + 1.0), f"sq {first + i}", size=8, halign="center")
        if previous_qh is None:
            d.add(elm.Line().at(a["SER"]).left().length(0.8))
            d.add(elm.Vdd().label("3.3 V", fontsize=10))
        else:
            d.add(elm.Wire("z", k=2.2).at(previous_qh).to(a["SER"]))
        for name in ("SH/LD", "CLK"):
            d.add(elm.Line().at(a[name]).left().length(0.8))
            _text(d, d.here, name, size=8, halign="right")
        d.add(elm.Line().at(a["CLK INH"]).left().length(0.5))
        d.add(elm.Line().down().length(0.3))
        d.add(elm.Ground())
        d.add(elm.Line().at(a["GND"]).down().length(0.4))
        d.add(elm.Ground())
        # VCC to 3.3 V with its 100 nF right at the chip.
        d.add(elm.Line().at(a["VCC"]).right().length(0.5))
        d.add(elm.Line().up().length(1.2))
        vcc = d.here
        d.add(elm.Vdd().label("3.3 V", fontsize=9))
        d.add(elm.Line().at(vcc).right().length(0.9))
        d.add(elm.Capacitor().down().length(1.1).label("100 nF", loc="bottom", fontsize=8))
        d.add(elm.Ground())
        previous_qh = a["QH"]
    assert previous_qh is not None
    d.add(elm.Line().at(previous_qh).right().length(1.0))
    _tag(d, d.here, data, left=False)
    # SH/LD and CLK: one net each, to every chip.
    _tag(d, (x0, y0 - 4.6), load)
    d.add(elm.Line().at((x0, y0 - 4.6)).right().length(2))
    _text(d, d.here, "SH/LD of all four chips (pin 1)", size=9)
    _tag(d, (x0, y0 - 5.6), clock)
    d.add(elm.Line().at((x0, y0 - 5.6)).right().length(2))
    _text(d, d.here, "CLK of all four chips (pin 2)", size=9)
    # One input in detail; the other 31 are the same.
    detail_x, detail_y = x0, y0 + 6.0
    _text(
        d,
        (detail_x, detail_y + 3.4),
        'every input A-H of every chip (32 in all; "sq N" above an input: the square it reads):',
        size=10,
    )
    d.add(elm.Vdd().at((detail_x + 1, detail_y + 2.4)).label("3.3 V", fontsize=10))
    d.add(elm.Resistor().at((detail_x + 1, detail_y + 2.4)).down().length(1.8).label("10 kΩ", fontsize=10))
    node = d.here
    d.add(elm.Dot())
    d.add(elm.Line().right().length(1.2))
    _text(d, d.here, "to the input (closed = low = occupied)", size=9)
    d.add(elm.SwitchReed().at(node).down().length(1.8).label("reed", loc="bottom", fontsize=9))
    d.add(elm.Ground())
    _text(
        d,
        (detail_x + 14, detail_y + 2.2),
        "VCC (pin 16) to 3.3 V, GND (pin 8) to ground, 100 nF between them at each chip.",
        size=9,
    )
    _text(
        d,
        (detail_x + 14, detail_y + 1.4),
        "The Pi reads H of chip 1 first: the n-th bit (from 0) is square n + 1.",
        size=9,
    )
    _text(
        d,
        (detail_x + 14, detail_y + 0.6),
        "8 more bits follow, shifted in from SER of chip 4: ones, or QH or the chain is broken. "
        "A broken CLK or SH/LD reads as an empty board instead (bring-up step 2 finds it).",
        size=9,
    )


def draw(option: str) -> bytes:
    """The schematic of ``option`` as SVG bytes (deterministic for a given pin plan)."""
    return _draw(option, tuple(pin_plan(option).items()))


@functools.lru_cache(maxsize=16)
def _draw(option: str, plan_items: tuple[tuple[str, str], ...]) -> bytes:
    return bytes(_compose(option, dict(plan_items)).get_imagedata("svg"))


def _compose(option: str, plan: dict[str, str]) -> Any:
    """The schemdraw drawing of ``option`` (its elements placed: the tests follow its wires)."""
    import schemdraw.elements as elm

    with _drawing() as d:
        _text(d, (-9.0, 5.5), TITLES[option], size=14)
        note = {
            "gpio": "Net labels name the Pi's BCM GPIO and its header pin. Columns have 10 kΩ pull-ups to 3.3 V besides the Pi's internal ones, rows the internal ones; one row is pulled low at a time, the others released (never driven high).",
            "shift": "Net labels name the Pi's BCM GPIO and its header pin. Power the 74HC165s from 3.3 V so that QH is safe for the Pi.",
            "pico": "Net labels name the Pico's GP pin and its header pin. USB to the Pi carries protocol v1 and powers the Pico (VBUS, pin 40). Columns have 10 kΩ pull-ups to 3V3 OUT (pin 36). Rows are open-drain: pulled low one at a time, never driven high.",
        }[option]
        _text(d, (-9.0, 4.5), note, size=10)
        if option in ("gpio", "pico"):
            _matrix(d, _by_role(plan, "matrix row"), _by_role(plan, "matrix col"), 0.0, -2.0)
            bottom = -2.0 - 7 * 2.4 - 3.0
        else:
            _shift_chain(d, plan, 0.0, -6.0)
            bottom = -6.0 - 8.0
        _text(d, (-9.0, bottom + 1.2), "LEDs (one under each dark square, daisy-chained):", size=10)
        low = _leds(d, _by_role(plan, "LED data")[0], 0.0, bottom - 7.0, option)
        buttons = _by_role(plan, "button")
        # The buttons' heading below the LEDs' note, never across it.
        top = low - 2.2
        _text(d, (-9.0, top + 1.0), "Buttons (each through 1 kΩ to ground; internal pull-up):", size=10)
        _buttons(d, buttons, 0.0, top)
        known = ("matrix", "74HC165", "LED data", "button")
        others = [v for v in plan.values() if not v.split(SEP, 1)[1].startswith(known)]
        y = top - len(buttons) * 1.6 - 0.8
        if others:
            _text(d, (-9.0, y), "Other parts on the controller's pins:", size=10)
            y = _others(d, others, 0.0, y - 1.4)
        if option == "pico":
            _text(
                d,
                (-9.0, y - 0.6),
                "USB (micro-USB on a Pico, USB-C on some clones) to the Raspberry Pi: serial protocol v1, 5 V for the Pico and the LEDs (see the power budget).",
                size=10,
            )
        d.add(elm.Gap().at((-9.5, y - 1.4)).right().length(0.1))
    return d


_LABEL = re.compile(r"((?:GPIO|GP)\d+) \(pin \d+\) · [^<]*")


def labels_in_svg(svg: bytes) -> dict[str, str]:
    """The net labels of a drawing, pin name -> label (each pin must appear once).

    >>> labels_in_svg('<text>GP3 (pin 5) · matrix row 1 (rank 7)</text>'.encode())
    {'GP3': 'GP3 (pin 5) · matrix row 1 (rank 7)'}
    """
    import html

    text = html.unescape(svg.decode("utf-8"))
    out: dict[str, str] = {}
    for m in _LABEL.finditer(text):
        label = m.group(0).strip()
        if m.group(1) in out and out[m.group(1)] != label:
            raise ValueError(f"pin {m.group(1)} is labelled twice: {out[m.group(1)]!r} and {label!r}")
        out[m.group(1)] = label
    return out


def svg_path(directory: Path, option: str) -> Path:
    return directory / f"{option}.svg"


def write_all(directory: Path) -> list[Path]:
    """Draw every option into ``directory`` (``docs/schematics``); returns the files."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for option in OPTIONS:
        path = svg_path(directory, option)
        atomic_write(path, draw(option), private=False)
        paths.append(path)
    return paths


def check_all(directory: Path) -> list[str]:
    """What is out of date in ``directory``: one line per drawing that differs or is missing."""
    problems = []
    for option in OPTIONS:
        path = svg_path(directory, option)
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        on_disk = path.read_bytes()
        try:
            labels = labels_in_svg(on_disk)
        except ValueError as exc:
            problems.append(f"{path}: {exc}")
            continue
        if labels != pin_plan(option):
            problems.append(f"{path}: its pins are not the pin plan in the code")
        elif on_disk != draw(option):
            problems.append(f"{path}: differs from a fresh drawing")
    return problems
