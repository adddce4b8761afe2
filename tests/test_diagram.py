"""The board diagram (firmware/diagram.py) and ``crownhead diagram``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.diagram import ROLE_MARKS, board_svg, square_at_xy, square_xy
from crownhead.rules import Position

SVG = "{http://www.w3.org/2000/svg}"


def squares_of(svg: str) -> dict[int, ET.Element]:
    root = ET.fromstring(svg)
    return {int(g.get("data-square")): g for g in root.iter(f"{SVG}g") if g.get("data-square")}


def test_the_start_position_well_formed_with_the_contract() -> None:
    svg = board_svg(Position.start(), size=360)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.get("width") == "360" and root.get("viewBox") == "0 0 800 800"
    squares = squares_of(svg)
    assert sorted(squares) == list(range(1, 33))
    pieces = {n: [p.get("data-piece") for p in g.iter(f"{SVG}g") if p.get("data-piece")] for n, g in squares.items()}
    assert all(pieces[n] == ["b"] for n in range(1, 13))
    assert all(pieces[n] == [] for n in range(13, 21))
    assert all(pieces[n] == ["w"] for n in range(21, 33))


def test_kings_roles_and_flip() -> None:
    position = Position.from_fen("W:WK10,22:B5,K6")
    svg = board_svg(position, roles={22: "move-from", 18: "move-to", 6: "error"})
    squares = squares_of(svg)
    assert [p.get("data-piece") for p in squares[10].iter(f"{SVG}g") if p.get("data-piece")] == ["W"]
    assert [p.get("data-piece") for p in squares[6].iter(f"{SVG}g") if p.get("data-piece")] == ["B"]
    assert squares[22].get("data-role") == "move-from" and squares[18].get("data-role") == "move-to"
    assert squares[1].get("data-role") is None
    # A king carries a crown, drawn as a shape: it reads as a king without colour.
    assert "polygon" in ET.tostring(squares[10]).decode()
    # Every role has a mark of its family, not only a colour.
    marks = {g.get("data-mark") for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("data-mark")}
    assert marks == {"ring", "dot", "alert"}
    flipped = squares_of(board_svg(position, flipped=True))
    assert flipped[1].get("transform") == "translate(600,700)" and flipped[32].get("transform") == "translate(100,0)"


def test_geometry_round_trips() -> None:
    for flipped in (False, True):
        for square in range(1, 33):
            x, y = square_xy(square, flipped)
            assert square_at_xy(x + 50, y + 50, flipped) == square


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="40 is not a square"):
        board_svg({40: "b"})
    with pytest.raises(ValueError, match="'x' is not a piece"):
        board_svg({4: "x"})
    with pytest.raises(ValueError, match="size"):
        board_svg(None, size=4)
    assert set(ROLE_MARKS) >= {"touched", "missing", "extra", "crown", "capture", "error"}


def test_the_title_is_escaped() -> None:
    svg = board_svg(None, title="<Ann & Bo>")
    assert "<title>&lt;Ann &amp; Bo&gt;</title>" in svg
    ET.fromstring(svg)


def test_the_diagram_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "--fen", "W:WK10,22:B5,6", "--flip", "--size", "240"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    root = ET.fromstring(out)
    assert root.get("width") == "240" and root.get("data-flipped") == "true"
    assert len(re.findall(r'data-piece="[bwBW]"', out)) == 4
    assert main(["diagram", "--fen", "nonsense"]) == 2
    assert "--fen" in capsys.readouterr().err
    assert main(["diagram", "--size", "3"]) == 2
    assert "--size" in capsys.readouterr().err
