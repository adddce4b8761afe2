"""The rules core stands alone: pure Python, no I/O, nothing of hal, sim or firmware
(only the board's squares, the ``squares`` module below it and the hardware alike).

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

from crownhead import rules

PACKAGE = Path(rules.__file__).resolve().parent
OTHER_LAYERS = {"hal", "sim", "firmware"}
# Modules that read or write files, the console, processes or the network.
IO_MODULES = {
    "builtins",
    "fileinput",
    "glob",
    "io",
    "logging",
    "os",
    "pathlib",
    "select",
    "shutil",
    "socket",
    "sqlite3",
    "subprocess",
    "sys",
    "tempfile",
    "serial",
    "urllib",
    "http",
}
IO_CALLS = {"open", "print", "input", "breakpoint", "exec", "eval", "__import__"}


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = ("crownhead", *path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            # Relative imports stay inside the package.
            found.append((node.lineno, "crownhead.rules" if node.level else node.module or ""))
    return found


def test_the_package_has_the_modules_the_checks_look_at() -> None:
    names = {_module_name(p) for p in _sources()}
    assert {
        "crownhead.rules",
        "crownhead.rules.movegen",
        "crownhead.rules.position",
        "crownhead.rules.game",
        "crownhead.rules.pdn",
        "crownhead.rules.variants",
        "crownhead.rules.perft",
    } <= names


@pytest.mark.parametrize("path", _sources(), ids=_module_name)
def test_imports_only_the_standard_library_and_rules(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for line, name in _imports(tree):
        # Our own modules by their folder: crownhead.rules.game is rules' own.
        top = name.removeprefix("crownhead.").split(".")[0]
        where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
        assert top not in OTHER_LAYERS, where
        assert top in ("rules", "squares") or top in sys.stdlib_module_names, where
        assert top not in IO_MODULES, where + " (the rules core does no I/O)"


@pytest.mark.parametrize("path", _sources(), ids=_module_name)
def test_calls_nothing_that_does_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    calls = [
        (node.lineno, node.func.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IO_CALLS
    ]
    assert calls == [], f"{path.relative_to(PACKAGE.parent)}: {calls}"


_PROBE = """
import importlib, json, sys
names = json.loads(sys.argv[1])
loaded = set()
for name in names:
    # Each module imported first, with nothing of the package loaded before it.
    for key in [k for k in sys.modules if k == "crownhead.rules" or k.startswith("crownhead.rules.")]:
        del sys.modules[key]
    importlib.import_module(name)
    loaded |= set(sys.modules)
print(json.dumps(sorted(loaded)))
"""


def test_every_module_imports_alone_and_pulls_in_no_other_layer() -> None:
    names = sorted({_module_name(p) for p in _sources()})
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(names)],
        capture_output=True,
        text=True,
        check=False,
        cwd=PACKAGE.parent,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert [m for m in loaded if m.removeprefix("crownhead.").split(".")[0] in OTHER_LAYERS] == []
    assert [m for m in loaded if m.split(".")[0] in OTHER_LAYERS | {"rules", "squares"}] == []
    assert set(names) <= set(loaded)


def test_the_public_names_are_the_modules_own() -> None:
    from crownhead import squares
    from crownhead.rules import game, move, pdn, position, settings, variants

    homes = (game, move, pdn, position, settings, squares, variants)
    assert sorted(rules.__all__) == sorted(set(rules.__all__))
    for name in rules.__all__:
        value = getattr(rules, name)
        assert any(getattr(home, name, None) is value for home in homes), name
    # ``crownhead.rules.perft`` is the module (perft, divide), not shadowed by a function.
    perft_module = importlib.import_module("crownhead.rules.perft")
    assert rules.perft is perft_module and callable(perft_module.divide)
    # The names users need most are there.
    for name in (
        "Crowning",
        "Huff",
        "JumpForced",
        "HistoryEntry",
        "read_games",
        "write_game",
        "PdnGame",
        "PdnError",
        "PdnNote",
        "RUSSIAN",
        "POOL",
    ):
        assert name in rules.__all__, name


def _module_graph(texts: dict[str, tuple[str, bool]] | None = None) -> dict[str, set[str]]:
    """Module -> the rules modules it imports anywhere: at the top, inside functions and
    under ``if TYPE_CHECKING``. ``from package import name`` counts as importing the
    submodule when ``name`` is one, else the package itself. ``texts`` (name -> source,
    is a package) stands in for the package's files."""
    if texts is None:
        texts = {_module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in _sources()}
    graph: dict[str, set[str]] = {}
    for name, (text, is_package) in texts.items():
        package = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(text, name)):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in texts else base)
        graph[name] = {t for t in targets if t in texts and t != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_between_modules_even_inside_functions() -> None:
    # A package's __init__ gathers its modules; a module importing its own package back
    # (``from rules import Position`` inside rules/) would close a loop through it.
    graph = _module_graph()
    assert graph["crownhead.rules.engine.search"] >= {"crownhead.rules.engine.general", "crownhead.rules.engine.result"}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_check_sees_imports_inside_functions_and_type_checking() -> None:
    search = "from crownhead.rules.engine import general\n"
    hidden = {
        "in a function": "def search():\n    from crownhead.rules.engine.search import SearchResult\n",
        "under TYPE_CHECKING": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from crownhead.rules.engine.search import Engine\n"
        ),
        "relative": "from .search import Engine\n",
    }
    for how, general in hidden.items():
        graph = _module_graph(
            {
                "crownhead.rules.engine": ("", True),
                "crownhead.rules.engine.search": (search, False),
                "crownhead.rules.engine.general": (general, False),
            }
        )
        assert _cycle(graph) == [
            "crownhead.rules.engine.general",
            "crownhead.rules.engine.search",
            "crownhead.rules.engine.general",
        ], how
    graph = _module_graph(
        {"crownhead.rules.engine.search": (search, False), "crownhead.rules.engine.general": ("import math\n", False)}
    )
    assert _cycle(graph) is None
