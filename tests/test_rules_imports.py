"""The rules core stands alone: pure Python, no I/O, nothing of hal, sim or firmware.

Checked twice, from the source text (every import statement and call under ``rules/``)
and by importing every module of the package in a fresh interpreter, each one first in
turn, so that an import cycle which only bites in some import order shows up too.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rules

PACKAGE = Path(rules.__file__).resolve().parent
OTHER_LAYERS = {"hal", "sim", "firmware"}
# Modules that read or write files, the console, processes or the network.
IO_MODULES = {
    "builtins", "fileinput", "glob", "io", "logging", "os", "pathlib", "select", "shutil",
    "socket", "sqlite3", "subprocess", "sys", "tempfile", "serial", "urllib", "http",
}
IO_CALLS = {"open", "print", "input", "breakpoint", "exec", "eval", "__import__"}


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            # Relative imports stay inside the package.
            found.append((node.lineno, "rules" if node.level else node.module or ""))
    return found


def test_the_package_has_the_modules_the_checks_look_at() -> None:
    names = {_module_name(p) for p in _sources()}
    assert {"rules", "rules.movegen", "rules.position", "rules.game", "rules.pdn",
            "rules.variants", "rules.perft"} <= names


@pytest.mark.parametrize("path", _sources(), ids=_module_name)
def test_imports_only_the_standard_library_and_rules(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for line, name in _imports(tree):
        top = name.split(".")[0]
        where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
        assert top not in OTHER_LAYERS, where
        assert top == "rules" or top in sys.stdlib_module_names, where
        assert top not in IO_MODULES, where + " (the rules core does no I/O)"


@pytest.mark.parametrize("path", _sources(), ids=_module_name)
def test_calls_nothing_that_does_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    calls = [
        (node.lineno, node.func.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in IO_CALLS
    ]
    assert calls == [], f"{path.relative_to(PACKAGE.parent)}: {calls}"


_PROBE = """
import importlib, json, sys
names = json.loads(sys.argv[1])
loaded = set()
for name in names:
    # Each module imported first, with nothing of the package loaded before it.
    for key in [k for k in sys.modules if k == "rules" or k.startswith("rules.")]:
        del sys.modules[key]
    importlib.import_module(name)
    loaded |= set(sys.modules)
print(json.dumps(sorted(loaded)))
"""


def test_every_module_imports_alone_and_pulls_in_no_other_layer() -> None:
    names = sorted({_module_name(p) for p in _sources()})
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(names)],
        capture_output=True, text=True, check=False, cwd=PACKAGE.parent,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert [m for m in loaded if m.split(".")[0] in OTHER_LAYERS] == []
    assert set(names) <= set(loaded)


def test_the_public_names_are_the_modules_own() -> None:
    from rules import game, move, pdn, position, settings, squares, variants

    homes = (game, move, pdn, position, settings, squares, variants)
    assert sorted(rules.__all__) == sorted(set(rules.__all__))
    for name in rules.__all__:
        value = getattr(rules, name)
        assert any(getattr(home, name, None) is value for home in homes), name
    # ``rules.perft`` is the module (perft, divide), not shadowed by a function.
    perft_module = importlib.import_module("rules.perft")
    assert rules.perft is perft_module and callable(perft_module.divide)
    # The names users need most are there.
    for name in ("Crowning", "Huff", "JumpForced", "HistoryEntry", "read_games",
                 "write_game", "PdnGame", "PdnError", "PdnNote", "RUSSIAN", "POOL"):
        assert name in rules.__all__, name
