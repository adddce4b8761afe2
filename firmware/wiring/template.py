"""The drill template: the 32 dark squares' centres with their reed and LED holes, at 1:1.

:func:`template_svg` draws it in millimetres (an SVG whose width and height are given in
``mm``, so it prints at its true size); :func:`template_pdf` tiles the same drawing on
A4 or Letter sheets for a home printer, each sheet with its place in the grid, an
overlap to glue along with alignment marks in it, and a 50 mm bar to check the print
scale.

Square labels are centred on their squares, half a square below the centre in the PDF
and the SVG alike, so that a test (or a builder with a ruler) can measure the spacing
from the text.

The reed holes are drilled from below, so each comes in two: seen from above (``side
="top"``), and the underside (``side="underside"``), mirrored left to right, for a
print taped face up on the underside of the board turned over sideways (rank 8 still
at the top, file a now on the right). A top-side print taped face up underneath would
put every hole under a light square.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple
from datetime import datetime, timezone

from crownhead.firmware.wiring.geometry import BoardGeometry
from crownhead.squares import square_name

__all__ = [
    "PAPERS",
    "SIDES",
    "template_svg",
    "template_pdf",
    "tiles",
    "seam_marks",
    "Mark",
    "draw_mark",
    "hole_positions",
]

#: Paper sizes, portrait, in mm.
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: The two faces a template is printed for: seen from above, and the underside (mirrored).
SIDES = ("top", "underside")
MARGIN_MM = 10.0  # most printers cannot print nearer the edge
HEADER_MM = 16.0  # the sheet's title, its place and the scale bar
OVERLAP_MM = 12.0  # each sheet repeats this much of its neighbours: glue along it
MARK_MM = 4.0  # the alignment marks in the overlaps: a diamond with a cross (draw_mark)
LABEL_BELOW = 0.5  # square labels: this fraction of a square below the centre, less a little
_FIXED_DATE = datetime(2025, 1, 1, tzinfo=timezone.utc)  # the same bytes on every run


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


#: A sans-serif character's width, on average, as a fraction of the font size (an
#: estimate on the generous side: the tests hold every text to it).
CHAR_EM = 0.55


def _fit(text: str, size: float, width: float) -> str:
    """The font size, at most ``size``, at which ``text`` fits in ``width`` mm."""
    return _fmt(min(size, math.floor(width / (len(text) * CHAR_EM) * 10) / 10))


def _label_y(g: BoardGeometry, cy: float) -> float:
    return cy + g.square_mm * LABEL_BELOW - 4.0


def _check_side(side: str) -> bool:
    """True for the underside; one clear error for anything but the two sides."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, got {side!r}")
    return side == "underside"


def hole_positions(g: BoardGeometry, side: str = "top") -> dict[int, tuple[tuple[float, float], tuple[float, float]]]:
    """Square -> (reed hole centre, LED hole centre) on the ``side`` template, in mm
    from its top-left corner: the underside's are the top's mirrored left to right.

    >>> top, under = hole_positions(BoardGeometry()), hole_positions(BoardGeometry(), "underside")
    >>> top[1][0], under[1][0]
    ((95.0, 45.0), (345.0, 45.0))
    """
    mirror = _check_side(side)
    out = {}
    for sq in range(1, 33):
        (cx, cy), (lx, ly) = g.centre(sq), g.led_centre(sq)
        if mirror:
            cx, lx = g.size_mm - cx, g.size_mm - lx
        out[sq] = ((cx, cy), (lx, ly))
    return out


def _title(g: BoardGeometry, side: str) -> str:
    if side == "underside":
        return (
            f"UNDERSIDE drill template: {_fmt(g.square_mm)} mm squares, seen from below. Turn the board over "
            "left to right (rank 8 stays at the top, file a is on the right) and tape this sheet face up on it."
        )
    return f"Crownhead drill template: {_fmt(g.square_mm)} mm squares, seen from above (rank 8 at the top)."


def template_svg(g: BoardGeometry, side: str = "top") -> bytes:
    """The template of ``side`` as SVG, 1 unit = 1 mm, sized in mm."""
    mirror = _check_side(side)
    size = g.size_mm
    top = 18.0  # room for the title above the board
    height = size + top + 14.0
    title = f"{_title(g, side)} Print at 100 % (actual size)."
    legend = (
        f"+ reed switch, upright: {_fmt(g.reed_hole_mm)} mm hole at the centre. "
        f"o LED: {_fmt(g.led_hole_mm)} mm hole, {_fmt(g.led_offset_mm)} mm towards White."
    )
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(size)}mm" height="{_fmt(height)}mm" '
        f'viewBox="0 {_fmt(-top)} {_fmt(size)} {_fmt(height)}" font-family="sans-serif">',
        f"<title>Crownhead drill template, {_fmt(g.square_mm)} mm squares"
        f"{', UNDERSIDE (mirrored)' if mirror else ''}</title>",
        f'<text x="2" y="{_fmt(-10)}" font-size="{_fit(title, 4 if mirror else 5, size - 4)}">{title}</text>',
        f'<text x="2" y="{_fmt(-4)}" font-size="{_fit(legend, 3.5, size - 4)}">{legend}</text>',
        f'<rect x="0" y="0" width="{_fmt(size)}" height="{_fmt(size)}" fill="none" stroke="#000" stroke-width="0.3"/>',
    ]
    b, s = g.border_mm, g.square_mm
    for row in range(8):
        for col in range(8):
            dark = (row + col) % 2 == 1
            at = 7 - col if mirror else col
            out.append(
                f'<rect x="{_fmt(b + at * s)}" y="{_fmt(b + row * s)}" width="{_fmt(s)}" height="{_fmt(s)}" '
                f'fill="{"#e4e4e4" if dark else "none"}" stroke="#888" stroke-width="0.2"/>'
            )
    arm = min(6.0, s / 8)
    holes = hole_positions(g, side)
    for sq in range(1, 33):
        (cx, cy), (lx, ly) = holes[sq]
        out.append(f'<g id="square-{sq}">')
        out.append(
            f'<path d="M{_fmt(cx - arm)} {_fmt(cy)}H{_fmt(cx + arm)}M{_fmt(cx)} {_fmt(cy - arm)}V{_fmt(cy + arm)}" '
            'stroke="#000" stroke-width="0.2"/>'
        )
        out.append(
            f'<circle class="reed" cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(g.reed_hole_mm / 2)}" '
            'fill="none" stroke="#000" stroke-width="0.3"/>'
        )
        out.append(
            f'<circle class="led" cx="{_fmt(lx)}" cy="{_fmt(ly)}" r="{_fmt(g.led_hole_mm / 2)}" '
            'fill="none" stroke="#c00" stroke-width="0.3"/>'
        )
        out.append(
            f'<text class="label" x="{_fmt(cx)}" y="{_fmt(_label_y(g, cy))}" font-size="3.5" '
            f'text-anchor="middle">{sq} {square_name(sq)}</text>'
        )
        out.append("</g>")
    # A 100 mm bar under the board: measure it to check the print.
    y = size + 8.0
    out.append(
        f'<path d="M0 {_fmt(y)}H100M0 {_fmt(y - 2)}V{_fmt(y + 2)}M100 {_fmt(y - 2)}V{_fmt(y + 2)}" stroke="#000" stroke-width="0.4"/>'
    )
    out.append(f'<text x="104" y="{_fmt(y + 1.2)}" font-size="3.5">100 mm: measure it, it must be 100 mm</text>')
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()


def tiles(g: BoardGeometry, paper: str) -> tuple[int, int, float, float]:
    """(columns, rows, window width, window height) of the sheets for ``paper``."""
    width, height = PAPERS[paper]
    win_w = width - 2 * MARGIN_MM
    win_h = height - 2 * MARGIN_MM - HEADER_MM
    cols = max(1, math.ceil((g.size_mm - OVERLAP_MM) / (win_w - OVERLAP_MM)))
    rows = max(1, math.ceil((g.size_mm - OVERLAP_MM) / (win_h - OVERLAP_MM)))
    return cols, rows, win_w, win_h


def sheet_name(row: int, col: int) -> str:
    return f"{'ABCDEFGH'[row]}{col + 1}"


class Mark(NamedTuple):
    """An alignment mark at (x, y) in template mm, named by the two sheets it joins; in
    a strip running ``down`` the sheets (between two columns) or across them."""

    x: float
    y: float
    name: str
    down: bool


def seam_marks(g: BoardGeometry, paper: str) -> list[Mark]:
    """Two alignment marks in the middle of every overlap strip, so that both sheets
    print each at the same place of the board (where a strip is blank paper, they are
    all there is to align by). Each lies on a line between two squares (or in the
    frame), never inside a square, and clear of every reed and LED hole of both sides'
    templates, near a quarter and three quarters along its strip."""
    cols, rows, win_w, win_h = tiles(g, paper)
    step_x, step_y = win_w - OVERLAP_MM, win_h - OVERLAP_MM
    s, b = g.square_mm, g.border_mm
    holes = [
        (centre, diameter)
        for side in SIDES
        for reed, led in hole_positions(g, side).values()
        for centre, diameter in ((reed, g.reed_hole_mm), (led, g.led_hole_mm))
    ]
    lines = [b + k * s for k in range(9)]  # the squares' edges, across and down the board
    # The frame's middle, and blank paper beyond the board where a sheet reaches past it.
    frame = [b / 2, g.size_mm - b / 2] + [g.size_mm + 10 * k for k in range(1, 30)]

    def clear(x: float, y: float) -> bool:
        return all(math.dist((x, y), c) >= MARK_MM / 2 + d / 2 + 1 for c, d in holes)

    def place(lo: float, hi: float, wanted: float, fixed: float, down: bool, taken: list[float]) -> float:
        room = MARK_MM + 3  # the mark and its name inside the shared part of both sheets
        spots = [
            v
            for v in lines + frame
            if lo + room <= v <= hi - room
            and all(abs(v - t) > 2 * room for t in taken)
            and clear(*((fixed, v) if down else (v, fixed)))
        ]
        if not spots:
            raise ValueError(f"no clear place for an alignment mark between {lo:g} and {hi:g} mm")
        return min(spots, key=lambda v: (abs(v - wanted), v))

    marks = []
    for r in range(rows):
        for c in range(cols):
            # The part of this sheet no other row (column) of sheets prints: a mark there
            # is on exactly the two sheets it names.
            top = r * step_y + (OVERLAP_MM if r > 0 else 0.0)
            bottom = r * step_y + win_h - (OVERLAP_MM if r + 1 < rows else 0.0)
            left = c * step_x + (OVERLAP_MM if c > 0 else 0.0)
            right = c * step_x + win_w - (OVERLAP_MM if c + 1 < cols else 0.0)
            if c + 1 < cols:  # the strip shared with the sheet to the right
                x = (c + 1) * step_x + OVERLAP_MM / 2
                taken: list[float] = []
                for f in (0.25, 0.75):
                    y = place(top, bottom, r * step_y + f * win_h, x, True, taken)
                    taken.append(y)
                    marks.append(Mark(x, y, f"{sheet_name(r, c)}|{sheet_name(r, c + 1)}", True))
            if r + 1 < rows:  # the strip shared with the sheet below
                y = (r + 1) * step_y + OVERLAP_MM / 2
                taken = []
                for f in (0.25, 0.75):
                    x = place(left, right, c * step_x + f * win_w, y, False, taken)
                    taken.append(x)
                    marks.append(Mark(x, y, f"{sheet_name(r, c)}|{sheet_name(r + 1, c)}", False))
    return marks


def draw_mark(pdf: Any, px: float, py: float) -> None:
    """An alignment mark: a diamond with a cross through it, unlike a hole (a circle
    with a cross), so that no one drills it."""
    h = MARK_MM / 2
    pdf.polygon([(px, py - h), (px + h, py), (px, py + h), (px - h, py)])
    pdf.line(px - MARK_MM, py, px + MARK_MM, py)
    pdf.line(px, py - MARK_MM, px, py + MARK_MM)


def template_pdf(g: BoardGeometry, paper: str = "a4", side: str = "top") -> bytes:
    """The template of ``side`` tiled over sheets of ``paper`` (``a4`` or ``letter``), 1:1."""
    from fpdf import FPDF

    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    mirror = _check_side(side)
    holes = hole_positions(g, side)
    width, height = PAPERS[paper]
    cols, rows, win_w, win_h = tiles(g, paper)
    pdf = FPDF(unit="mm", format=(width, height))
    pdf.set_creation_date(_FIXED_DATE)
    pdf.set_auto_page_break(False)
    pdf.set_title(
        f"Crownhead drill template, {_fmt(g.square_mm)} mm squares ({paper}){', UNDERSIDE' if mirror else ''}"
    )
    s, b = g.square_mm, g.border_mm
    for r in range(rows):
        for c in range(cols):
            ox = c * (win_w - OVERLAP_MM)  # the window's top-left, in template mm
            oy = r * (win_h - OVERLAP_MM)
            x0, y0 = MARGIN_MM, MARGIN_MM + HEADER_MM  # where the window is on the sheet
            pdf.add_page()
            sheet = sheet_name(r, c)
            pdf.set_font("helvetica", size=9)
            pdf.set_xy(MARGIN_MM, MARGIN_MM)
            pdf.cell(
                0,
                4,
                f"Crownhead drill template{' UNDERSIDE (mirrored)' if mirror else ''}, {_fmt(s)} mm squares - "
                f"sheet {sheet} (rows A-{'ABCDEFGH'[rows - 1]}, columns 1-{cols}), {paper.upper()}",
            )
            pdf.set_xy(MARGIN_MM, MARGIN_MM + 4.5)
            if mirror:
                pdf.cell(
                    0,
                    4,
                    "Seen from below: board turned over left to right, file a on the right; tape face up. "
                    "Print at 100 %. Bar: 50 mm.",
                )
            else:
                pdf.cell(0, 4, "Print at 100 % / actual size, never 'fit to page'. The bar must measure 50 mm.")
            pdf.set_line_width(0.4)
            bar_y = MARGIN_MM + 12
            pdf.line(MARGIN_MM, bar_y, MARGIN_MM + 50, bar_y)
            pdf.line(MARGIN_MM, bar_y - 1.5, MARGIN_MM, bar_y + 1.5)
            pdf.line(MARGIN_MM + 50, bar_y - 1.5, MARGIN_MM + 50, bar_y + 1.5)
            pdf.set_xy(MARGIN_MM + 53, bar_y - 2)
            pdf.cell(0, 4, "50 mm")
            if cols * rows > 1:
                pdf.set_xy(MARGIN_MM + 68, bar_y - 2)
                pdf.cell(0, 4, "Lay the next sheet's edge on the dashed line, its marks on these; tape.")
            pdf.set_line_width(0.2)
            pdf.set_dash_pattern(dash=1.5, gap=1.5)
            pdf.rect(x0, y0, win_w, win_h)
            if c + 1 < cols:  # where the next sheet to the right starts
                pdf.line(x0 + win_w - OVERLAP_MM, y0, x0 + win_w - OVERLAP_MM, y0 + win_h)
            if r + 1 < rows:
                pdf.line(x0, y0 + win_h - OVERLAP_MM, x0 + win_w, y0 + win_h - OVERLAP_MM)
            pdf.set_dash_pattern()

            def at(x: float, y: float) -> tuple[float, float]:
                return x0 + x - ox, y0 + y - oy

            with pdf.rect_clip(x=x0, y=y0, w=win_w, h=win_h):
                pdf.set_draw_color(0)
                pdf.set_line_width(0.3)
                pdf.rect(*at(0, 0), g.size_mm, g.size_mm)
                pdf.set_line_width(0.2)
                for row in range(8):
                    for col in range(8):
                        px, py = at(b + (7 - col if mirror else col) * s, b + row * s)
                        if (row + col) % 2:
                            pdf.set_fill_color(228)
                            pdf.rect(px, py, s, s, style="DF")
                        else:
                            pdf.rect(px, py, s, s)
                arm = min(6.0, s / 8)
                pdf.set_font("helvetica", size=10)
                for sq in range(1, 33):
                    cx, cy = at(*holes[sq][0])
                    lx, ly = at(*holes[sq][1])
                    pdf.set_draw_color(0)
                    pdf.line(cx - arm, cy, cx + arm, cy)
                    pdf.line(cx, cy - arm, cx, cy + arm)
                    pdf.set_line_width(0.3)
                    pdf.circle(x=cx, y=cy, radius=g.reed_hole_mm / 2)
                    pdf.set_draw_color(200, 0, 0)
                    pdf.circle(x=lx, y=ly, radius=g.led_hole_mm / 2)
                    pdf.set_draw_color(0)
                    pdf.set_line_width(0.2)
                    label = f"{sq} {square_name(sq)}"
                    w = pdf.get_string_width(label)
                    pdf.text(cx - w / 2, _label_y(g, cy - y0 + oy) + y0 - oy, label)
                pdf.set_font("helvetica", size=7)
                for mark in seam_marks(g, paper):
                    if sheet not in mark.name.split("|"):
                        continue  # another seam's mark: this sheet does not print it
                    px, py = at(mark.x, mark.y)
                    draw_mark(pdf, px, py)
                    # The name where the 12 mm strip has room for it on both sheets.
                    if mark.down:
                        pdf.text(px - pdf.get_string_width(mark.name) / 2, py + MARK_MM + 2.5, mark.name)
                    else:
                        pdf.text(px + MARK_MM + 0.5, py + 1.0, mark.name)
    return bytes(pdf.output())
