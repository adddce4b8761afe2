"""``crownhead schematic``: draw the wiring schematics from the pin plans in the code.

Writes ``gpio.svg``, ``shift.svg`` and ``pico.svg`` (default: ``docs/schematics`` of the
checkout); ``--check`` writes nothing and exits 1 when a drawing there is missing, out
of date, or names pins other than the code's.
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
        from firmware.wiring.schematic import check_all, write_all
    except ImportError as exc:  # pragma: no cover - schemdraw missing
        print(f"crownhead schematic: {exc} (pip install schemdraw)", file=sys.stderr)
        return 2
    try:
        import schemdraw  # noqa: F401
    except ImportError:
        print("crownhead schematic: schemdraw is not installed (pip install schemdraw)", file=sys.stderr)
        return 2
    directory = Path(args.out)
    if args.check:
        problems = check_all(directory)
        for problem in problems:
            print(problem, file=out)
        if not problems:
            print(f"{directory}: every schematic matches the pin plans in the code", file=out)
        return 1 if problems else 0
    for path in write_all(directory):
        print(path, file=out)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schematic",
        help="draw the wiring schematics (SVG) from the pin plans in the code",
        description="Draw one SVG schematic per wiring option (Pi GPIO matrix, 74HC165 "
        "chain, Pico over USB) from the pins the software uses.",
    )
    parser.add_argument(
        "--out", default=str(DEFAULT_DIR), metavar="DIR", help="where to write (default: docs/schematics under the current directory)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the drawings in DIR are out of date"
    )
    parser.set_defaults(func=run)
