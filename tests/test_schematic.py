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
