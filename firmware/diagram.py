"""Checkers diagrams as SVG: one drawing for the web page, the docs and score sheets.

A pure library (no I/O, no game logic beyond square numbers), modelled on python-chess's
``chess.svg.board``: :func:`board_svg` takes a position (a :class:`crownhead.rules.Position` or a
``{square: "b"|"w"|"B"|"W"}`` mapping) and returns the SVG text of the board, Black at
the top unless ``flipped``.

The drawing is also a testable contract (``docs/web.md``): each dark square is a
``<g>`` with ``data-square="N"`` (its PDN number), each piece carries ``data-piece``
with its FEN letter, and each lit square ``data-role`` with the LED role shown on it.
Roles are drawn in the palette's colour *and* as a mark (ring, dot, cross, crown...),
so the picture reads without colour.

>>> from crownhead.rules import Position
>>> svg = board_svg(Position.start(), size=200)
>>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
>>> svg.count('data-piece="b"'), svg.count('data-piece="w"'), svg.count("data-square=")
(12, 12, 32)
>>> 'data-role="move-from"' in board_svg({11: "b"}, roles={11: "move-from"})
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = [
    "board_svg",
    "component_templates",
    "piece_svg",
    "role_mark",
    "ROLE_MARKS",
    "DEFAULT_ROLE_COLOURS",
    "square_xy",
    "square_at_xy",
    "CELL",
]

#: The side of one cell in the SVG's own units (the ``viewBox`` is ``8 * CELL`` wide).
CELL = 100
_MARGIN = 0

RGB = tuple[int, int, int]

#: A mark per LED role, by family, so that roles read without colour: ``ring`` a piece
#: moves or is held, ``dot`` a piece goes here, ``cross`` a piece leaves, ``crown`` crown
#: this man, ``frame`` the last move, ``alert`` something is wrong, ``path`` a square
#: passed over.
ROLE_MARKS: dict[str, str] = {
    "touched": "ring",
    "move-from": "ring",
    "must-capture": "ring",
    "hint-from": "ring",
    "target": "dot",
    "next-jump": "dot",
    "missing": "dot",
    "move-to": "dot",
    "hint-to": "dot",
    "move-path": "path",
    "hint-path": "path",
    "capture": "cross",
    "remove": "cross",
    "extra": "cross",
    "huff": "cross",
    "hint-capture": "cross",
    "crown": "crown",
    "king": "none",
    "last-from": "frame",
    "last-to": "frame",
    "error": "alert",
}

#: The LED palette's default colours (``crownhead.firmware.app.leds.Palette``), repeated here so
#: that the diagram stays a library of its own; a caller passes the configured palette.
DEFAULT_ROLE_COLOURS: dict[str, RGB] = {
    "touched": (255, 255, 255),
    "target": (0, 120, 255),
    "capture": (255, 100, 0),
    "must-capture": (255, 200, 0),
    "huff": (255, 100, 0),
    "next-jump": (0, 120, 255),
    "remove": (255, 100, 0),
    "missing": (0, 120, 255),
    "extra": (255, 100, 0),
    "crown": (0, 255, 180),
    "move-from": (255, 200, 0),
    "move-path": (0, 60, 160),
    "move-to": (0, 120, 255),
    "error": (255, 30, 0),
    "king": (0, 255, 180),
    "last-from": (255, 255, 255),
    "last-to": (255, 255, 255),
    "hint-from": (255, 255, 255),
    "hint-path": (0, 60, 160),
    "hint-to": (0, 120, 255),
    "hint-capture": (255, 100, 0),
}

_STYLE = (
    ".light{fill:#f0d9b5}.dark{fill:#8a6a4a}"
    ".num{font:600 15px sans-serif;fill:#f4e8d8;opacity:.75}"
    ".p-b{fill:#26221f;stroke:#000;stroke-width:3}.p-w{fill:#f7f3e8;stroke:#3a3026;stroke-width:3}"
    ".p-rim-b{fill:none;stroke:#5a524a;stroke-width:3}.p-rim-w{fill:none;stroke:#b8ab92;stroke-width:3}"
    ".k-b{fill:#e8c45a;stroke:#000;stroke-width:1.5}.k-w{fill:#b08a1e;stroke:#3a3026;stroke-width:1.5}"
    ".mark{fill:none;stroke:#111;stroke-width:5}.mark-fill{fill:#111}"
    ".halo{fill:none;stroke:#fff;stroke-width:9;opacity:.8}"
)


class _HasPieces(Protocol):
    def pieces(self) -> Mapping[int, Any]: ...


def square_xy(square: int, flipped: bool = False) -> tuple[int, int]:
    """The top-left corner of ``square``'s cell in SVG units (square 1 top left of b8).

    >>> square_xy(1), square_xy(5), square_xy(32), square_xy(1, flipped=True)
    ((100, 0), (0, 100), (600, 700), (600, 700))
    """
    if not 1 <= square <= 32:
        raise ValueError(f"square must be 1-32, got {square!r}")
    row, k = divmod(square - 1, 4)
    col = 2 * k + (1 if row % 2 == 0 else 0)
    if flipped:
        row, col = 7 - row, 7 - col
    return _MARGIN + col * CELL, _MARGIN + row * CELL


def square_at_xy(x: float, y: float, flipped: bool = False) -> int | None:
    """The dark square under the point ``(x, y)`` of the drawing, or None.

    >>> square_at_xy(150, 50), square_at_xy(50, 50), square_at_xy(650, 750, flipped=True)
    (1, None, 1)
    """
    col, row = int((x - _MARGIN) // CELL), int((y - _MARGIN) // CELL)
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2 == 0:
        return None
    if flipped:
        row, col = 7 - row, 7 - col
    return row * 4 + col // 2 + 1


def _pieces(position: _HasPieces | Mapping[int, str] | None) -> dict[int, str]:
    if position is None:
        return {}
    if isinstance(position, Mapping):
        items = position.items()
    else:
        items = position.pieces().items()
    out: dict[int, str] = {}
    for square, piece in items:
        symbol = piece if isinstance(piece, str) else piece.symbol
        if symbol not in ("b", "w", "B", "W"):
            raise ValueError(f"square {square}: {symbol!r} is not a piece (b, w, B or W)")
        if not isinstance(square, int) or not 1 <= square <= 32:
            raise ValueError(f"{square!r} is not a square (1-32)")
        out[square] = symbol
    return out


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def piece_svg(symbol: str) -> str:
    """The drawing of one piece in a cell at the origin: a ``<g>`` with ``data-piece``.

    Kings carry a crown, so a king reads as one in black and white too.

    >>> piece_svg("W")[:40]
    '<g class="piece" data-piece="W"><circle '
    """
    if symbol not in ("b", "w", "B", "W"):
        raise ValueError(f"{symbol!r} is not a piece (b, w, B or W)")
    side = symbol.lower()
    c = CELL // 2
    parts = [
        f'<g class="piece" data-piece="{symbol}">',
        f'<circle class="p-{side}" cx="{c}" cy="{c}" r="{CELL * 0.38:g}"/>',
        f'<circle class="p-rim-{side}" cx="{c}" cy="{c}" r="{CELL * 0.27:g}"/>',
    ]
    if symbol.isupper():
        # A three-pointed crown inside the rim.
        s = CELL / 100
        points = [(-20, 10), (-20, -12), (-10, 0), (0, -16), (10, 0), (20, -12), (20, 10)]
        path = " ".join(f"{c + x * s:g},{c + y * s:g}" for x, y in points)
        parts.append(f'<polygon class="k-{side}" points="{path}"/>')
    parts.append("</g>")
    return "".join(parts)


def role_mark(role: str, colour: RGB | None = None) -> str:
    """The overlay of one LED role in a cell at the origin: a tinted square and a mark.

    >>> role_mark("capture").count("<line")
    2
    """
    rgb = colour if colour is not None else DEFAULT_ROLE_COLOURS.get(role, (255, 0, 255))
    mark = ROLE_MARKS.get(role, "frame")
    c = CELL // 2
    fill = _hex(rgb)
    out = [f'<g class="role" data-mark="{mark}">']
    if mark == "frame":
        out.append(
            f'<rect x="4" y="4" width="{CELL - 8}" height="{CELL - 8}" fill="none" stroke="{fill}" stroke-width="8" stroke-dasharray="14 8"/>'
        )
    elif mark != "none":
        out.append(f'<rect x="0" y="0" width="{CELL}" height="{CELL}" fill="{fill}" fill-opacity="0.45"/>')
    if mark == "ring":
        out.append(f'<circle class="halo" cx="{c}" cy="{c}" r="{CELL * 0.44:g}"/>')
        out.append(f'<circle class="mark" cx="{c}" cy="{c}" r="{CELL * 0.44:g}"/>')
    elif mark == "dot":
        out.append(f'<circle cx="{c}" cy="{c}" r="{CELL * 0.12:g}" fill="#111" stroke="#fff" stroke-width="3"/>')
    elif mark == "path":
        out.append(f'<circle cx="{c}" cy="{c}" r="{CELL * 0.07:g}" fill="#fff" stroke="#111" stroke-width="3"/>')
    elif mark == "cross":
        a, b = CELL * 0.2, CELL * 0.8
        for x1, y1, x2, y2 in ((a, a, b, b), (a, b, b, a)):
            out.append(
                f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="#111" stroke-width="9" stroke-linecap="round"/>'
            )
    elif mark == "crown":
        s = CELL / 100
        points = [(-30, 22), (-30, -18), (-15, 2), (0, -28), (15, 2), (30, -18), (30, 22)]
        path = " ".join(f"{c + x * s:g},{c + y * s:g}" for x, y in points)
        out.append(f'<polygon points="{path}" fill="none" stroke="#111" stroke-width="6"/>')
    elif mark == "alert":
        out.append(
            f'<rect x="6" y="6" width="{CELL - 12}" height="{CELL - 12}" fill="none" stroke="#111" stroke-width="8"/>'
        )
        out.append(
            f'<text x="{c}" y="{c + 14}" text-anchor="middle" font="bold 40px sans-serif" font-size="44" font-weight="bold" fill="#111">!</text>'
        )
    out.append("</g>")
    return "".join(out)


def board_svg(
    position: _HasPieces | Mapping[int, str] | None = None,
    *,
    flipped: bool = False,
    size: int | None = 400,
    roles: Mapping[int, str] | None = None,
    colours: Mapping[str, RGB] | None = None,
    numbers: bool = True,
    title: str | None = None,
) -> str:
    """The SVG text of a checkers board with ``position``'s pieces.

    ``flipped``: White's side at the top (as Black sees the board). ``size``: the width
    and height in pixels (None: no size, the drawing fills its box). ``roles``: the LED
    role lit on each square (``{11: "move-from", 15: "move-to"}``), drawn in ``colours``
    (role -> RGB, default the LED palette's) with a mark per role family
    (:data:`ROLE_MARKS`). ``numbers``: the square numbers in the dark squares.
    ``title``: an accessible name for the drawing.
    """
    pieces = _pieces(position)
    lit = dict(roles or {})
    for square in lit:
        if not isinstance(square, int) or not 1 <= square <= 32:
            raise ValueError(f"{square!r} is not a square (1-32)")
    palette = dict(DEFAULT_ROLE_COLOURS)
    if colours:
        palette.update(colours)
    extent = 8 * CELL + 2 * _MARGIN
    dims = f' width="{int(size)}" height="{int(size)}"' if size is not None else ""
    if size is not None and not 16 <= int(size) <= 10_000:
        raise ValueError(f"size must be 16-10000 pixels, got {size}")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="crownhead-board" viewBox="0 0 {extent} {extent}"{dims}'
        f' data-flipped="{"true" if flipped else "false"}" role="img">',
    ]
    if title is not None:
        out.append(f"<title>{_escape(title)}</title>")
    out.append(f"<style>{_STYLE}</style>")
    out.append(f'<rect class="light" x="{_MARGIN}" y="{_MARGIN}" width="{8 * CELL}" height="{8 * CELL}"/>')
    for square in range(1, 33):
        x, y = square_xy(square, flipped)
        role = lit.get(square)
        attrs = f' data-role="{_escape(role)}"' if role is not None else ""
        out.append(f'<g class="square" data-square="{square}" transform="translate({x},{y})"{attrs}>')
        out.append(f'<rect class="dark" width="{CELL}" height="{CELL}"/>')
        if numbers:
            out.append(f'<text class="num" x="6" y="18">{square}</text>')
        symbol = pieces.get(square)
        if symbol is not None:
            out.append(piece_svg(symbol))
        if role is not None:
            # Over the piece, as the LED shines through it: the mark stays visible.
            out.append(role_mark(role, palette.get(role)))
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def component_templates(colours: Mapping[str, RGB] | None = None) -> str:
    """Every piece and role mark as the board component of a page clones them
    (``firmware/web/static/board.js``): one ``<svg data-template-piece="X">`` per piece, one
    ``<svg data-template-role="ROLE">`` per role, for a page's ``<template id="templates">``.

    >>> t = component_templates()
    >>> t.count("data-template-piece="), t.count("data-template-role=") == len(ROLE_MARKS)
    (4, True)
    """
    pieces = "".join(f'<svg data-template-piece="{s}">{piece_svg(s)}</svg>' for s in ("b", "w", "B", "W"))
    roles = "".join(
        f'<svg data-template-role="{_escape(r)}">{role_mark(r, (colours or {}).get(r))}</svg>'
        for r in sorted(ROLE_MARKS)
    )
    return pieces + roles


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )
