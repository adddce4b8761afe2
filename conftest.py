"""The docstring examples, collected from the package's folders under their installed names.

The folders (``rules/``, ``firmware/`` ...) install as ``crownhead.rules``,
``crownhead.firmware`` ... (setup.py's ``package_dir``). pytest's own doctest collection
would import ``rules/game.py`` as ``rules.game``, a second copy of every class beside
``crownhead.rules.game``'s, where an ``isinstance`` or an enum compared across the two
fails, so the examples are collected here instead: each module imported once, by the name
the installed package gives it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.doctest import DoctestModule

ROOT = Path(__file__).resolve().parent

#: The folders that install as subpackages of crownhead, and crownhead's own.
FOLDERS = ("crownhead", "squares", "rules", "hal", "sim", "firmware")

#: MicroPython programs for the Pico: they import `machine`, and run on MicroPython in
#: tests/test_mcu_firmware.py instead.
collect_ignore = ["firmware/mcu/pico"]


def installed_name(path: Path) -> str | None:
    """The module name under which ``path`` is installed (``rules/game.py`` is
    ``crownhead.rules.game``), or None outside the package."""
    try:
        parts = list(path.resolve().relative_to(ROOT).with_suffix("").parts)
    except ValueError:
        return None
    if not parts or parts[0] not in FOLDERS:
        return None
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] != "crownhead":
        parts.insert(0, "crownhead")
    return ".".join(parts)


class InstalledDoctestModule(DoctestModule):
    """pytest's doctest collector, importing the module by its installed name."""

    def _getobj(self) -> ModuleType:
        name = installed_name(self.path)
        assert name is not None, self.path
        return importlib.import_module(name)


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Our folders as plain directories: pytest's ``Package`` imports each ``__init__.py``
    under the folder's name (``rules``, a second copy of the package) to look for its
    set-up functions; the examples in it are collected by :func:`pytest_collect_file`."""
    if installed_name(path / "__init__.py") is None or not (path / "__init__.py").is_file():
        return None
    return pytest.Dir.from_parent(parent, path=path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # __main__.py runs the command when imported, as pytest's own doctest collection knows.
    if file_path.suffix != ".py" or file_path.name in ("conftest.py", "__main__.py"):
        return None
    if installed_name(file_path) is None:
        return None
    return InstalledDoctestModule.from_parent(parent, path=file_path)
