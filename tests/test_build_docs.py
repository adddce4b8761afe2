"""docs/build.md: its figures come from the code, its commands and links exist."""

from __future__ import annotations

import re
from pathlib import Path

from crownhead.firmware.cli import build_parser
from crownhead.hal.lights import estimate_current_ma

DOCS = Path(__file__).resolve().parents[1] / "docs"
BUILD = (DOCS / "build.md").read_text()


def _white(pixels: int) -> dict:
    if pixels == 32:
        return {s: (255, 255, 255) for s in range(1, 33)}
    return {(r, c): (255, 255, 255) for r in range(8) for c in range(8)}


def test_power_table_is_the_code_estimate() -> None:
    rows = re.findall(r"^\| (32|64) \| ([\d.]+)(?: \(default\))? \| (\d+) mA \|", BUILD, re.M)
    assert len(rows) == 5
    for pixels, cap, ma in rows:
        assert round(estimate_current_ma(_white(int(pixels)), float(cap), int(pixels))) == int(ma)


def test_relative_links_exist() -> None:
    for doc in ("build.md", "hardware.md"):
        text = (DOCS / doc).read_text()
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (DOCS / target).exists(), f"{doc}: link to missing {target}"


def test_anchors_exist() -> None:
    hardware = (DOCS / "hardware.md").read_text()
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", hardware, re.M)
    }
    for anchor in re.findall(r"\(hardware\.md#([^)]+)\)", BUILD):
        assert anchor in headings, anchor


def test_every_crownhead_command_named_exists() -> None:
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    named = set(re.findall(r"`crownhead ([a-z]+)", BUILD))
    assert named and named <= commands, named - commands


def test_estimates_are_marked_and_measurable() -> None:
    assert "*estimate*" in BUILD
    section = BUILD.split("## Figures to measure on a real board", 1)[1]
    assert section.count("\n| ") >= 5 and "crownhead" in section


def test_the_nearest_other_square_is_the_diagonal_one_and_the_edges_are_tested() -> None:
    """The sensing check names the distance to the nearest other playing square (the
    diagonal neighbour, from the geometry) and tests the piece at its square's edges."""
    import math

    from crownhead.firmware.wiring.geometry import BoardGeometry

    g = BoardGeometry()
    diagonal = math.dist(g.centre(1), g.centre(5))
    assert f"{diagonal:.1f}" == "70.7" and f"{diagonal:.1f} mm" in BUILD
    assert "50 mm away" not in BUILD
    assert "in each corner" in BUILD and "edge" in BUILD


def test_the_parts_list_has_prices_and_a_total() -> None:
    """Issue 52, finding 16: roughly 160-250 EUR/USD, tools excluded; the rows add up."""
    section = BUILD.split("### What it costs", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \| (\d+) \| (\d+) \|$", section, re.M)
    assert len(rows) >= 10
    total = re.search(r"^\| \*\*total\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \|$", section, re.M)
    assert total is not None
    low, high = int(total.group(1)), int(total.group(2))
    assert (sum(int(r[1]) for r in rows), sum(int(r[2]) for r in rows)) == (low, high)
    assert 150 <= low <= 170 and 240 <= high <= 260
    assert "tools are not included" in section


def test_the_load_switch_is_said_to_be_surface_mount() -> None:
    assert "TPS22918" in BUILD and "surface-mount only" in BUILD


def test_the_separate_led_supply_is_keyed_protected_and_checked() -> None:
    """Finding 6: a keyed jack, protection after the polyfuse, a polarity check."""
    parts = BUILD.split("## 2. Parts list", 1)[1]
    assert "keyed DC jack" in parts and "**after the polyfuse**" in parts
    checklist = BUILD.split("**Before the first power-up**", 1)[1].split("## 6.", 1)[0]
    assert "**+5 V, not -5 V**" in checklist
    assert checklist.index("+5 V, not -5 V") < checklist.index("then connect the LED supply")


def test_the_parts_list_has_a_speaker() -> None:
    """Finding 1: the voice needs a speaker; the parts list had none."""
    assert re.search(r"^\| optional 1 \| speaker", BUILD, re.M)
