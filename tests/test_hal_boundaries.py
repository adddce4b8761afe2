"""The layering: ``hal`` and ``sim`` know nothing of the game or the application, and
hardware libraries are imported only when a backend that needs them is opened."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN = ("rules", "firmware")
# Importing any of these at module level would make a development machine (or the
# simulator) need the Pi's libraries, or pay their import time for nothing.
LAZY = ("gpiozero", "serial", "board", "neopixel", "adafruit_blinka", "lgpio", "digitalio")


def imported_modules(source: str) -> set[str]:
    """Every module an import statement (anywhere, functions included) or a literal
    ``import_module("...")`` / ``__import__("...")`` call names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "crownhead":
            found.update(f"crownhead.{alias.name}" for alias in node.names)  # from crownhead import rules
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def folder(module: str) -> str:
    """The folder of one of our modules (``crownhead.rules.game``: ``rules``), or the top
    name of anything else."""
    return module.removeprefix("crownhead.").split(".")[0]


def sources() -> list[Path]:
    return sorted(p for pkg in ("hal", "sim") for p in (REPO / pkg).rglob("*.py"))


def test_the_checker_sees_every_kind_of_import() -> None:
    text = (
        "import crownhead.rules.game\n"
        "from crownhead.firmware import app\n"
        "from crownhead import rules\n"
        "def f():\n"
        "    from crownhead.rules.position import Position\n"
        "    importlib.import_module('crownhead.firmware.tracking.tracker')\n"
        "    __import__('crownhead.rules')\n"
        "from . import sibling\n"
    )
    assert imported_modules(text) == {
        "crownhead.rules.game",
        "crownhead.firmware",
        "crownhead.rules",
        "crownhead.rules.position",
        "crownhead.firmware.tracking.tracker",
    }
    assert {folder(m) for m in imported_modules(text)} == {"rules", "firmware"}


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_hal_and_sim_import_nothing_of_rules_or_firmware(path: Path) -> None:
    bad = sorted(m for m in imported_modules(path.read_text()) if folder(m) in FORBIDDEN)
    assert not bad, f"{path.relative_to(REPO)} imports {', '.join(bad)}"


def _loaded_after_importing(modules: list[str]) -> set[str]:
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print('\\n'.join(sorted({n.removeprefix('crownhead.').split('.')[0] for n in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    return set(out.split())


def test_importing_every_hal_and_sim_module_loads_no_game_and_no_hardware_library() -> None:
    modules = [
        ".".join(("crownhead", *p.relative_to(REPO).with_suffix("").parts)).removesuffix(".__init__") for p in sources()
    ]
    # The gpiozero mock-pin models exist to run the GPIO backends without a Pi; they
    # are the one module that needs gpiozero itself.
    plain = [m for m in modules if m != "crownhead.sim.gpio_models"]
    loaded = _loaded_after_importing(plain)
    assert not loaded & set(FORBIDDEN)
    assert not loaded & set(LAZY), f"imported at module level: {sorted(loaded & set(LAZY))}"
    assert not _loaded_after_importing(["crownhead.sim.gpio_models"]) & set(FORBIDDEN)
