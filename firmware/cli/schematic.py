"""``crownhead schematic``: draw the build files from the pin plans in the code.

Writes the schematics (``gpio.svg``, ``shift.svg``, ``pico.svg``), the drill template
(``drill-template.svg`` and PDFs tiled for A4 and Letter at 1:1), ``stripboard.svg``
and the cable plans (``cables-*.md``) into ``--out`` (default: ``docs/schematics`` of
the checkout), for squares of ``--square-mm`` (50). ``--check`` writes nothing and
exits 1 when a file there is missing, out of date, or names pins other than the code's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

__all__ = ["register", "run", "DEFAULT_DIR"]

DEFAULT_DIR = Path("docs") / "schematics"  # run from the checkout


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        from crownhead.firmware.wiring.geometry import BoardGeometry
        from crownhead.firmware.wiring.kit import check_all, write_all
    except ImportError as exc:  # pragma: no cover - schemdraw missing
        print(f"crownhead schematic: {exc} (pip install schemdraw)", file=sys.stderr)
        return 2
    try:
        import schemdraw  # noqa: F401
    except ImportError:
        print("crownhead schematic: schemdraw is not installed (pip install schemdraw)", file=sys.stderr)
        return 2
    directory = Path(args.out)
    try:
        geometry = BoardGeometry.for_square(args.square_mm)
    except ValueError as exc:
        print(f"crownhead schematic: --square-mm: {exc}", file=sys.stderr)
        return 2
    if args.check:
        problems = check_all(directory, geometry)
        for problem in problems:
            print(problem, file=out)
        if not problems:
            print(f"{directory}: every build file matches the pin plans in the code", file=out)
        return 1 if problems else 0
    for path in write_all(directory, geometry):
        print(path, file=out)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schematic",
        help="draw the schematics, drill template, stripboard cell and cable plans",
        description="Draw the build files from the pins the software uses and the board's "
        "dimensions: one SVG schematic per wiring option (Pi GPIO matrix, 74HC165 chain, "
        "Pico over USB), the drill template at 1:1 (SVG, and PDF tiled on A4 and Letter), "
        "one square's cell on stripboard, and a cable plan per wiring option.",
    )
    parser.add_argument(
        "--square-mm",
        type=float,
        default=50.0,
        metavar="MM",
        help="the board's square size in mm (default 50): the template's hole spacing and the wire lengths",
    )
    parser.add_argument(
        "--out",
        default=str(DEFAULT_DIR),
        metavar="DIR",
        help="where to write (default: docs/schematics under the current directory)",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the drawings in DIR are out of date"
    )
    parser.set_defaults(func=run)
