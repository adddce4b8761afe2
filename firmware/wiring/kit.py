"""Every build file, from the pin plans and the board's geometry: what
``crownhead schematic --out DIR`` writes and what ``--check`` compares.

* ``gpio.svg``, ``shift.svg``, ``pico.svg``: the schematics (:mod:`.schematic`);
* ``drill-template.svg`` and ``drill-template-a4.pdf`` / ``-letter.pdf``: the holes at
  1:1 seen from above, and ``drill-template-underside*`` the same mirrored, for the
  underside the reed holes are drilled from (:mod:`.template`);
* ``stripboard.svg``: one square's cell (:mod:`.plans`);
* ``cables-gpio.md``, ``cables-shift.md``, ``cables-pico.md``: the cable plans.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from crownhead.firmware.files import atomic_write
from crownhead.firmware.wiring.geometry import BoardGeometry

__all__ = ["build_files", "write_all", "check_all"]


def _led_chain(option: str) -> tuple[str, str]:
    """How the LED chain runs for ``option``: the Pico firmware's table, or the Pi's
    configuration defaults."""
    if option == "pico":
        from crownhead.firmware.mcu import load_firmware

        fw = load_firmware()
        return fw.LED_MAP, fw.LED_ORIGIN
    from crownhead.firmware.config import default_config

    lights = default_config().lights
    return (lights.map if isinstance(lights.map, str) else "row-major"), lights.origin


def build_files(g: BoardGeometry) -> dict[str, Callable[[], bytes]]:
    """File name -> a function making its bytes, in the order they are written."""
    from crownhead.firmware.wiring import plans, schematic, template

    files: dict[str, Callable[[], bytes]] = {}
    for option in schematic.OPTIONS:
        files[f"{option}.svg"] = partial(schematic.draw, option)
    files["drill-template.svg"] = partial(template.template_svg, g)
    files["drill-template-underside.svg"] = partial(template.template_svg, g, "underside")
    for paper in template.PAPERS:
        files[f"drill-template-{paper}.pdf"] = partial(template.template_pdf, g, paper)
        files[f"drill-template-underside-{paper}.pdf"] = partial(template.template_pdf, g, paper, "underside")
    files["stripboard.svg"] = partial(plans.stripboard_svg, g)
    for option in schematic.OPTIONS:
        led_map, origin = _led_chain(option)
        files[f"cables-{option}.md"] = partial(_cable_plan, option, g, led_map, origin)
    return files


def _cable_plan(option: str, g: BoardGeometry, led_map: str, origin: str) -> bytes:
    from crownhead.firmware.wiring import plans

    return plans.cable_plan(option, g, led_map=led_map, origin=origin).encode()


def write_all(directory: Path, g: BoardGeometry | None = None) -> list[Path]:
    """Write every build file into ``directory``; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in build_files(g or BoardGeometry()).items():
        path = directory / name
        atomic_write(path, make(), private=False)
        paths.append(path)
    return paths


def check_all(directory: Path, g: BoardGeometry | None = None) -> list[str]:
    """What is out of date in ``directory``: one line per file that differs or is missing
    (a schematic naming pins other than the code's says so)."""
    from crownhead.firmware.wiring import schematic

    problems = schematic.check_all(directory)
    for name, make in build_files(g or BoardGeometry()).items():
        if name.endswith(".svg") and name[:-4] in schematic.OPTIONS:
            continue  # checked above, pin by pin
        path = directory / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_bytes() != make():
            problems.append(f"{path}: differs from a fresh drawing")
    return problems
