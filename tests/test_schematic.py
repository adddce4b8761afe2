"""The wiring schematics in docs/schematics are drawn from the pin plans in the code, and
a drawing whose pins differ from the code's is caught."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("schemdraw", reason="schemdraw is not installed (pip install schemdraw)")

from crownhead.firmware.cli import main  # noqa: E402
from crownhead.firmware.mcu import load_firmware  # noqa: E402
from crownhead.firmware.wiring import schematic  # noqa: E402
from crownhead.firmware.wiring.schematic import OPTIONS, check_all, draw, labels_in_svg, pin_plan  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs"
SCHEMATICS = DOCS / "schematics"


@pytest.mark.parametrize("option", OPTIONS)
def test_committed_drawing_has_exactly_the_codes_pins(option: str) -> None:
    svg = (SCHEMATICS / f"{option}.svg").read_bytes()
    assert labels_in_svg(svg) == pin_plan(option)


def test_committed_drawings_are_what_the_generator_draws_today() -> None:
    problems = check_all(SCHEMATICS)
    assert problems == [], "run `crownhead schematic` and commit docs/schematics: " + "; ".join(problems)


def test_plans_cover_every_pin_the_software_uses() -> None:
    from crownhead.firmware.config.hardware import used_pins

    for option in ("gpio", "shift"):
        assert set(pin_plan(option)) == {f"GPIO{p}" for _, p in used_pins(schematic._pi_config(), option)}
    fw = load_firmware()
    pico = set(fw.ROW_PINS) | set(fw.COL_PINS) | {fw.LED_PIN} | {p for _, p in fw.BUTTON_PINS}
    assert set(pin_plan("pico")) == {f"GP{p}" for p in pico}
    assert "GPIO17 (pin 11) · matrix row 1 (rank 7)" in pin_plan("gpio").values()
    assert "GPIO27 (pin 13) · 74HC165 QH (data)" in pin_plan("shift").values()


def test_a_drawing_with_other_pins_fails(tmp_path: Path) -> None:
    for option in OPTIONS:
        shutil.copy(SCHEMATICS / f"{option}.svg", tmp_path)
    edited = (tmp_path / "gpio.svg").read_text().replace("GPIO17 (pin 11)", "GPIO9 (pin 21)")
    (tmp_path / "gpio.svg").write_text(edited)
    assert check_all(tmp_path) == [f"{tmp_path / 'gpio.svg'}: its pins are not the pin plan in the code"]


def test_firmware_pins_changed_without_redrawing_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = load_firmware()
    moved = SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if k.isupper()})
    moved.ROW_PINS = (3, 2) + tuple(real.ROW_PINS[2:])  # two row wires swapped
    monkeypatch.setattr("crownhead.firmware.mcu.load_firmware", lambda: moved)
    assert check_all(SCHEMATICS) == [f"{SCHEMATICS / 'pico.svg'}: its pins are not the pin plan in the code"]
    redrawn = labels_in_svg(draw("pico"))
    assert redrawn["GP3"] == "GP3 (pin 5) · matrix row 0 (rank 8)"


def test_labels_must_be_unambiguous(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="labelled twice"):
        labels_in_svg(b"<text>GP3 (pin 5) \xc2\xb7 a</text><text>GP3 (pin 5) \xc2\xb7 b</text>")
    for option in OPTIONS:
        shutil.copy(SCHEMATICS / f"{option}.svg", tmp_path)
    text = (tmp_path / "pico.svg").read_text().replace("GP3 (pin 5)", "GP2 (pin 4)")
    (tmp_path / "pico.svg").write_text(text)
    assert "is labelled twice" in check_all(tmp_path)[0]


def test_command_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schematic", "--check", "--out", str(tmp_path)]) == 1
    assert "missing" in capsys.readouterr().out
    assert main(["schematic", "--out", str(tmp_path)]) == 0
    assert {"gpio.svg", "pico.svg", "shift.svg"} <= {p.name for p in tmp_path.iterdir()}
    assert main(["schematic", "--check", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "pico.svg").read_bytes() == (SCHEMATICS / "pico.svg").read_bytes()


def test_docs_show_every_drawing() -> None:
    text = (DOCS / "build.md").read_text() + (DOCS / "hardware.md").read_text()
    for option in OPTIONS:
        assert f"schematics/{option}.svg" in text
    assert schematic.TITLES.keys() == set(OPTIONS)


def _texts(svg: bytes) -> list[tuple[float, float, str]]:
    """Every text of a drawing: (x, y, what it says)."""
    import xml.etree.ElementTree as ET

    out = []
    for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"):
        out.append((float(t.get("x", "0")), float(t.get("y", "0")), "".join(t.itertext()).strip()))
    return out


@pytest.mark.parametrize("option", OPTIONS)
def test_every_button_has_its_1_kohm_in_the_drawing(option: str) -> None:
    """A static discharge on a button's cable goes into the GPIO: every button gets 1 kOhm
    in series (GPIO14/15 had it for the UART only), drawn on the button's own line."""
    texts = _texts(draw(option))
    resistors = [(x, y) for x, y, text in texts if text == "1 kΩ"]
    buttons = [y for _, y, text in texts if " · button " in text]
    assert len(buttons) == sum(" · button " in label for label in pin_plan(option).values()) > 0
    for y in buttons:
        near = [r for r in resistors if abs(r[1] - y) < 28]  # the rows are 57.6 apart
        assert len(near) == 1, (option, y, near)


@pytest.mark.parametrize("option", ["gpio", "pico"])
def test_matrix_columns_have_their_10_kohm_pull_ups_to_3_3_v(option: str) -> None:
    texts = [text for _, _, text in _texts(draw(option))]
    assert texts.count("10 kΩ") == 4
    assert any("never to 5 V" in text for text in texts)


# -- issue 52: every note inside its drawing, no wire through a label, pin numbers --------------

SVG_NS = "{http://www.w3.org/2000/svg}"
#: A sans-serif character's average width as a fraction of the font size, on the
#: generous side (the template's own estimate, template.CHAR_EM).
CHAR_EM = 0.55


def _text_lines(root: object) -> list[tuple[float, float, float, float, str]]:
    """Every line of text of an SVG: (left, right, y, size, text), by the width estimate."""
    found = []
    for t in root.iter(f"{SVG_NS}text"):  # type: ignore[attr-defined]
        size = float(t.get("font-size", "10"))
        anchor = t.get("text-anchor", "start")
        y = float(t.get("y", "0"))
        parts = [(t.get("x"), t.text or "")] + [
            (sp.get("x") or t.get("x"), sp.text or "") for sp in t.iter(f"{SVG_NS}tspan")
        ]
        for x, text in parts:
            if not text.strip():
                continue
            width = len(text) * size * CHAR_EM
            left = float(x or 0) - {"start": 0.0, "middle": width / 2, "end": width}[anchor]
            found.append((left, left + width, y, size, text))
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in SCHEMATICS.glob("*.svg")))
def test_every_note_lies_inside_its_drawing(name: str) -> None:
    """Finding 11: the buzzer's note in gpio.svg and "the inputs are not 5 V tolerant" in
    pico.svg ran off the drawing's right edge."""
    import xml.etree.ElementTree as ET

    root = ET.parse(SCHEMATICS / name).getroot()
    x0, _, width, _ = (float(v) for v in root.get("viewBox", "").split())
    for left, right, _, _, text in _text_lines(root):
        assert left >= x0 - 0.01 and right <= x0 + width + 0.01, (name, text, right - (x0 + width))


def _segments(root: object) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    import re

    lines = []
    for path in root.iter(f"{SVG_NS}path"):  # type: ignore[attr-defined]
        points = [(float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+),(-?[\d.]+)", path.get("d", ""))]
        lines += list(zip(points, points[1:]))
    return lines


@pytest.mark.parametrize("option", OPTIONS)
def test_the_tie_of_the_unused_gates_crosses_no_label(option: str) -> None:
    """Finding 12: the ground tie of the 74AHCT125's unused inputs ran down through the
    LED data line's label. No vertical wire crosses the row of that label's tag, from
    its left end to the chip's pin."""
    import xml.etree.ElementTree as ET

    root = ET.parse(SCHEMATICS / f"{option}.svg").getroot()
    (left, right, y, size, _) = next(t for t in _text_lines(root) if t[4].endswith("· LED data"))
    centre = (left + right) / 2

    def corners(polygon: object) -> list[tuple[float, float]]:
        return [(float(a), float(b)) for a, b in (pt.split(",") for pt in polygon.get("points", "").split())]  # type: ignore[attr-defined]

    tag = next(
        c
        for c in map(corners, root.iter(f"{SVG_NS}polygon"))
        if len(c) == 5
        and min(x for x, _ in c) <= centre <= max(x for x, _ in c)
        and min(v for _, v in c) <= y + size <= max(v for _, v in c)
    )
    xs, ys = [x for x, _ in tag], [v for _, v in tag]
    row, tip = (min(ys) + max(ys)) / 2, max(xs)  # the tag points right, at the chip's 1A
    for (ax, ay), (bx, by) in _segments(root):
        if abs(ax - bx) < 0.01 and min(ay, by) < row < max(ay, by):
            assert not min(xs) <= ax < tip, (option, ax, ay, by)


def test_the_shift_chips_show_their_pin_numbers_and_the_squares_above() -> None:
    """Finding 13: the 74HC165s' input pins were numbered with squares (1-32). The pin
    numbers are the DIP's (A = 11 ... H = 6); "sq N" above each input names its square."""
    import xml.etree.ElementTree as ET

    root = ET.parse(SCHEMATICS / "shift.svg").getroot()
    words = [t[4] for t in _text_lines(root)]
    for square in range(1, 33):
        assert words.count(f"sq {square}") == 1, square
    for pin in (3, 4, 5, 6, 11, 12, 13, 14):
        assert words.count(str(pin)) >= 4, pin  # once on each chip
    for square in (17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32):
        assert str(square) not in words, square  # no pin of a 74HC165 is numbered above 16


# -- the separate LED supply: its jack and its diode drawn as symbols -----------------------------

Point = tuple[float, float]


def _on(p: Point, a: Point, b: Point) -> bool:
    """Whether ``p`` lies on the straight wire from ``a`` to ``b``."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    inside = min(ax, bx) - 1e-6 <= px <= max(ax, bx) + 1e-6 and min(ay, by) - 1e-6 <= py <= max(ay, by) + 1e-6
    return abs(cross) < 1e-6 and inside


def _nets(drawing: object) -> object:
    """The drawing's wires joined into nets: returns net(point), the number of the net a
    point lies on, or None where no wire passes."""
    import schemdraw.elements as elm

    wires: list[tuple[Point, Point]] = [
        (tuple(e.absanchors["start"]), tuple(e.absanchors["end"]))  # type: ignore[misc]
        for e in drawing.elements  # type: ignore[attr-defined]
        if type(e) is elm.Line
    ]
    parent = list(range(len(wires)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, (a, b) in enumerate(wires):
        for j, (c, e) in enumerate(wires[:i]):
            if any(_on(p, c, e) for p in (a, b)) or any(_on(p, a, b) for p in (c, e)):
                parent[root(i)] = root(j)

    def net(p: object) -> int | None:
        x, y = p  # type: ignore[misc]
        found = {root(i) for i, (a, b) in enumerate(wires) if _on((float(x), float(y)), a, b)}
        assert len(found) <= 1, (p, found)
        return found.pop() if found else None

    return net


@pytest.mark.parametrize("option", OPTIONS)
def test_the_led_supplys_jack_and_diode_are_drawn_as_symbols(option: str) -> None:
    """The fourth pass's leftover: the separate LED supply's keyed DC jack and its 1N5822
    were words in a note. Now each is a symbol, wired as build.md says: the jack's centre
    pin (tip) through the fuse F2 to +5 V, the diode after the fuse from ground (its
    anode: schemdraw draws it from start to end, the band at the end) to the fused +5 V,
    and the jack's sleeve on that ground."""
    import schemdraw.elements as elm

    drawing = schematic._compose(option, pin_plan(option))
    elements = drawing.elements
    jacks = [e for e in elements if isinstance(e, elm.AudioJack)]
    diodes = [e for e in elements if isinstance(e, elm.Schottky)]
    assert len(jacks) == 1 and len(diodes) == 1, (option, jacks, diodes)
    tip, sleeve = (tuple(jacks[0].absanchors[k]) for k in ("tip", "sleeve"))
    fuse = next(e for e in elements if isinstance(e, elm.Fuse) and tuple(e.absanchors["start"]) == tip)
    anode, band = diodes[0].absanchors["start"], diodes[0].absanchors["end"]
    net = _nets(drawing)
    assert net(band) is not None and net(band) == net(fuse.absanchors["end"])
    assert net(band) != net(tip), "the diode must sit after the fuse, not across the jack"
    assert net(anode) is not None and net(anode) == net(sleeve)
    assert any(net(e.absanchors["start"]) == net(anode) for e in elements if isinstance(e, elm.Ground))
    labels = {label.label for e in (jacks[0], diodes[0], fuse) for label in e._userlabels}
    assert "D1 1N5822" in labels and "F2" in labels, labels
