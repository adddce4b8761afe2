"""The shape of the code: no import cycles, no reaching into another module's privates,
and ``firmware``'s packages importing only the layers below them (``firmware.LAYERS``).

Every import counts, wherever it is written: at the top, inside a function, under
``if TYPE_CHECKING:``, relative or absolute, and a literal ``importlib.import_module(...)``.
Nothing is exempt; a new package goes into ``firmware.LAYERS`` (see
``docs/architecture.md``) before anything may import it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from crownhead import firmware
from crownhead.firmware import config

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("squares", "rules", "hal", "sim", "firmware")


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    module: str  #: the module imported (a submodule when ``from pkg import sub`` names one)
    names: tuple[str, ...] = ()  #: the names taken from it (``from module import a, b``)


def short(module: str) -> str:
    """One of our modules by its folder's name, as this file speaks of them: the installed
    ``crownhead.rules.game`` is ``rules.game`` here."""
    return module.removeprefix("crownhead.")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


@cache
def tree_of(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once for every rule below (each walks the
    firmware's modules again: parsed each time, they took seconds of the suite's CPU)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True, scope="module")
def _forget_the_trees() -> Iterator[None]:
    """The trees are let go after this module (about 90 MB)."""
    yield
    tree_of.cache_clear()


def imports_of(name: str, source: str, known: set[str], is_package: bool = False) -> Iterator[Import]:
    """Every import of the project's own modules in ``source`` (the module ``name``)."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if short(alias.name).split(".")[0] in PACKAGES:
                    yield Import(name, node.lineno, short(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.module == "crownhead" and not node.level:  # from crownhead import rules
                for alias in node.names:
                    if alias.name in PACKAGES:
                        yield Import(name, node.lineno, alias.name)
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = short(node.module or "")
            if target.split(".")[0] not in PACKAGES:
                continue
            plain = []
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    yield Import(name, node.lineno, sub)
                else:
                    plain.append(alias.name)
            if plain or not node.names:
                yield Import(name, node.lineno, target, tuple(plain))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and short(node.args[0].value).split(".")[0] in PACKAGES
        ):
            yield Import(name, node.lineno, short(node.args[0].value))


@cache
def all_imports() -> tuple[Import, ...]:
    """Every import of the project's own modules (read once: every rule below walks them)."""
    found = modules()
    known = set(found)
    out: list[Import] = []
    for name, path in found.items():
        out += imports_of(name, path.read_text(encoding="utf-8"), known, path.name == "__init__.py")
    return tuple(out)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def compiled_modules() -> set[str]:
    """Modules built from C sources in the packages (rules/engine/_native.c): they import
    nothing of ours, so they are leaves of the graph, not their package."""
    return {
        ".".join(path.relative_to(REPO).with_suffix("").parts)
        for package in PACKAGES
        for path in (REPO / package).rglob("*.c")
    }


def graph(found: tuple[Import, ...]) -> dict[str, set[str]]:
    known = set(modules())
    compiled = compiled_modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for imp in found:
        target = imp.module
        if target in compiled:
            continue
        while target not in known and "." in target:
            target = target.rpartition(".")[0]  # ``import a.b.c`` of a name, not a module
        if target in known and target != imp.importer:
            edges[imp.importer].add(target)
    return edges


def layer_of(module: str) -> int | None:
    """The tier of a ``firmware`` module (``firmware`` itself: None, it only documents)."""
    parts = short(module).split(".")
    if parts[0] != "firmware" or len(parts) < 2:
        return None
    for tier, names in enumerate(firmware.LAYERS):
        if parts[1] in names:
            return tier
    raise AssertionError(f"{module}: firmware.{parts[1]} is in no layer: add it to firmware.LAYERS")


# -- the checker itself ------------------------------------------------------------------


def test_the_checker_sees_every_kind_of_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import crownhead.rules.game\n"
        "from . import table\n"
        "from .huffing import HuffingRule\n"
        "from crownhead.firmware.events import _private\n"
        "from crownhead import squares\n"
        "if TYPE_CHECKING:\n"
        "    from crownhead.firmware.app.application import App\n"
        "def f():\n"
        "    from crownhead.firmware.link import host\n"
        "    importlib.import_module('crownhead.firmware.simulator.tui')\n"
    )
    known = {"firmware.tracking.table", "firmware.tracking.huffing", "firmware.link.host"}
    found = {(i.module, i.names) for i in imports_of("firmware.tracking.tracker", source, known)}
    assert found == {
        ("rules.game", ()),
        ("squares", ()),
        ("firmware.tracking.table", ()),
        ("firmware.tracking.huffing", ("HuffingRule",)),
        ("firmware.events", ("_private",)),
        ("firmware.app.application", ("App",)),
        ("firmware.link.host", ()),
        ("firmware.simulator.tui", ()),
    }


def test_the_checker_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_every_firmware_package_has_a_layer_and_a_map() -> None:
    children = {
        p.stem if p.is_file() else p.name
        for p in (REPO / "firmware").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }
    placed = {name for tier in firmware.LAYERS for name in tier}
    assert children - placed == set(), "add these to firmware.LAYERS"
    for tier in firmware.LAYERS:
        for name in tier:
            init = REPO / "firmware" / name / "__init__.py"
            if init.exists():
                assert (ast.get_docstring(tree_of(init)) or "").strip(), f"firmware/{name}: no map"


# -- the rules ---------------------------------------------------------------------------


def test_no_import_cycles() -> None:
    found = cycles(graph(all_imports()))
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_private_names_across_modules() -> None:
    bad = []
    for imp in all_imports():
        private = [n for n in imp.names if n.startswith("_") and not n.startswith("__")]
        if private:
            bad.append(f"{imp.importer}:{imp.line}: from {imp.module} import {', '.join(private)}")
        # A private module (cli/_common.py) is for its own package only.
        owner = imp.module.split(".")
        for i, part in enumerate(owner):
            if part.startswith("_") and not part.startswith("__"):
                package = ".".join(owner[:i])
                if not (imp.importer == package or imp.importer.startswith(package + ".")):
                    bad.append(f"{imp.importer}:{imp.line}: imports {imp.module}")
    assert bad == []


def test_no_private_attributes_of_other_modules() -> None:
    """``module._name`` through an imported module is reaching in, like ``from m import _name``."""
    bad = []
    for name, path in modules().items():
        tree = tree_of(path)
        aliases: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in PACKAGES}
            elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in PACKAGES):
                aliases |= {a.asname or a.name for a in node.names}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.value.id[:1].islower()  # a module, not a class of this project
            ):
                bad.append(f"{name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert bad == []


def test_firmware_packages_import_only_the_layers_below() -> None:
    bad = []
    for imp in all_imports():
        mine = layer_of(imp.importer)
        theirs = layer_of(imp.module)
        if mine is None or theirs is None:
            continue
        same_package = imp.importer.split(".")[1] == imp.module.split(".")[1]
        if theirs > mine or (theirs == mine and not same_package):
            bad.append(f"{imp.importer}:{imp.line}: imports {imp.module}")
    assert bad == []


def test_the_squares_import_nothing_of_ours() -> None:
    """``squares`` is below both the rules core and the hardware layer: it stands alone."""
    bad = [f"{imp.importer}:{imp.line}: imports {imp.module}" for imp in all_imports() if imp.importer == "squares"]
    assert bad == []
    assert "squares" in modules() and not any(name.endswith(".squares") for name in modules())


def test_rules_hal_and_sim_import_no_firmware() -> None:
    bad = [
        f"{imp.importer}:{imp.line}: imports {imp.module}"
        for imp in all_imports()
        if imp.importer.split(".")[0] != "firmware" and imp.module.split(".")[0] == "firmware"
    ]
    assert bad == []


def test_the_tracking_package_knows_nothing_above_it() -> None:
    above = {"app", "link", "simulator", "diagnostics", "cli", "referee"}
    bad = [
        f"{imp.importer}: {imp.module}"
        for imp in all_imports()
        if imp.importer.startswith("firmware.tracking")
        and imp.module.split(".")[1:2]
        and imp.module.split(".")[1] in above
    ]
    assert bad == []


# -- configuration sections --------------------------------------------------------------


def test_every_section_is_listed_in_one_place() -> None:
    """Each ``@config_section("name")`` in the code is the class the list names."""
    declared = {}
    for name, path in modules().items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.ClassDef):
                for deco in node.decorator_list:
                    if (
                        isinstance(deco, ast.Call)
                        and getattr(deco.func, "id", None) == "config_section"
                        and isinstance(deco.args[0], ast.Constant)
                    ):
                        declared[deco.args[0].value] = f"{name}:{node.name}"
    assert declared == {name: short(where) for name, where in config.BUILTIN_SECTIONS.items()}


def test_a_valid_file_loads_whatever_was_imported() -> None:
    """In a fresh interpreter that imported only the config loader, every section loads."""
    tables = ", ".join(f"{name!r}: {{}}" for name in config.BUILTIN_SECTIONS)
    code = f"import sys\nfrom crownhead.firmware.config import parse_config\nprint(sorted(parse_config({{{tables}}}).sections))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == str(sorted(config.BUILTIN_SECTIONS))


def loaded_by(code: str) -> list[str]:
    """The modules a fresh interpreter loads for ``code`` after ``import crownhead.firmware.config as c``."""
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import crownhead.firmware.config as c\n"
        f"{code}\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return out.stdout.split()


def libraries(modules: list[str]) -> set[str]:
    """The libraries among ``modules`` that are neither Python's own nor this project's."""
    names = {m.split(".")[0] for m in modules}
    return {n for n in names if n not in sys.stdlib_module_names and n not in PACKAGES and n != "crownhead"}


def test_the_defaults_import_nothing_above_the_configuration() -> None:
    """``default_config()`` (and reading the board's hardware sections) loads no module of a
    tier above the loader's own: not the application, the link, the page or an MQTT client."""
    loaded = loaded_by("config = c.default_config()\nconfig.board, config.lights, config.sim")
    top = layer_of("firmware.config")
    assert [m for m in loaded if (layer_of(m) or 0) > top] == []
    assert libraries(loaded) == set()


#: The modules a section's module must never load: the packages' working parts.
HEAVY = (
    "firmware.app.application",
    "firmware.link.host",
    "firmware.hall.board",
    "firmware.web.server",
    "firmware.referee.arbiter",
    "firmware.tracking.tracker",
)


def test_every_section_lives_in_a_light_module() -> None:
    """Loading every section (as a configuration file does) imports no library beyond
    Python's own and none of the packages' working parts, only their settings."""
    loaded = loaded_by("c.sections()")
    assert libraries(loaded) == set()
    assert [m for m in loaded if short(m) in HEAVY] == []
    for name, where in config.BUILTIN_SECTIONS.items():
        module = short(where.partition(":")[0])
        assert module.endswith(".settings") or module == "firmware.config.hardware", f"[{name}] lives in {module}"


def documented_imports() -> dict[str, set[str]]:
    """docs/architecture.md's table: package -> the packages it imports (``firmware.`` dropped)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("| package | imports |") :].split("\n\n", 1)[0].splitlines()[2:]
    documented: dict[str, set[str]] = {}
    for row in table:
        packages, imports = (cell.strip() for cell in row.strip("|").split("|"))
        if imports == "everything":
            continue
        named = re.sub(r"\([^)]*\)", "", imports.split(";")[0])
        for package in re.findall(r"`([^`]+)`", packages):
            documented[package.removeprefix("firmware.")] = set(re.findall(r"`([^`]+)`", named))
    return documented


def test_the_documented_imports_are_the_imports() -> None:
    def package(module: str) -> str | None:
        parts = module.split(".")
        return parts[0] if parts[0] != "firmware" else (parts[1] if len(parts) > 1 else None)

    actual: dict[str, set[str]] = {}
    for imp in all_imports():
        importer, imported = package(imp.importer), package(imp.module)
        if importer is not None and imported is not None and importer != imported:
            actual.setdefault(importer, set()).add(imported)
    documented = documented_imports()
    every = {name for tier in firmware.LAYERS for name in tier} | set(PACKAGES) - {"firmware"}
    assert every - set(documented) == {"cli"}, "docs/architecture.md: packages missing from the table"
    wrong = {
        name: {"documented": sorted(documented[name]), "imports": sorted(actual.get(name, set()))}
        for name in documented
        if documented[name] != actual.get(name, set())
    }
    assert wrong == {}


def drawn_tiers() -> list[tuple[str, ...]]:
    """docs/architecture.md's drawing: the packages of each tier, top first (a tier's line
    names them joined by `` · ``, then two spaces and what they are)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text.split("```text\n", 1)[1].split("```", 1)[0]
    tiers = []
    for line in drawing.splitlines():
        if line[:1] == " " and line[1:2].isalpha():
            tiers.append(tuple(line.strip().split("  ", 1)[0].split(" · ")))
    return tiers


def test_the_drawing_is_the_layers() -> None:
    """The tiers drawn, top to bottom, are ``firmware.LAYERS`` (then rules, hal and sim,
    then the squares below them all)."""
    *firmware_tiers, bottom, squares = drawn_tiers()
    assert firmware_tiers[::-1] == list(firmware.LAYERS)
    assert bottom[0].startswith("rules") and squares == ("squares",)


# -- events ------------------------------------------------------------------------------


def test_every_event_is_defined_in_the_events_package() -> None:
    """Each kind of event lives in ``crownhead.firmware.events``, so that a reader of the events
    (``event_from_json``) knows them all, whatever else was imported."""
    elsewhere = []
    for name, path in modules().items():
        if name == "firmware.events" or name.startswith("firmware.events."):
            continue
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "Event" for b in node.bases):
                elsewhere.append(f"{name}:{node.lineno}: {node.name}")
    assert elsewhere == []


def test_every_event_is_read_with_nothing_else_imported() -> None:
    code = (
        "from crownhead.firmware.events import EVENT_KINDS, event_from_json\n"
        "print(event_from_json({'t': 0, 'event': 'flag', 'side': 'white'}))\n"
        "print(' '.join(sorted(EVENT_KINDS)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    first, kinds = out.stdout.splitlines()
    assert first == "Flag(t=0, side='white')"
    import crownhead.firmware.cli  # noqa: F401 - every module the board has, as a running board

    from crownhead.firmware.events import EVENT_KINDS

    assert kinds.split() == sorted(EVENT_KINDS)


# -- one owner of the game (issue 38): outputs draw from the snapshot ------------------------

#: The board's outputs: they hear events and read the application's snapshot.
OUTPUTS = (
    "firmware.display",
    "firmware.sound",
    "firmware.web",
    "firmware.hall",
    "firmware.link",
    "firmware.app.view",
    "firmware.app.sinks",
    "firmware.app.outputs",
    "firmware.simulator.tui",
    "firmware.voice",
    "firmware.remote",
    "firmware.online",
)
_MATCHING = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _output_modules() -> dict[str, Path]:
    return {n: p for n, p in modules().items() if any(n == o or n.startswith(o + ".") for o in OUTPUTS)}


def _mentions_message(node: ast.AST) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Attribute) and part.attr == "message":
            return True
        if isinstance(part, ast.Constant) and part.value == "message":
            return True
    return False


def test_no_output_reads_the_tracker() -> None:
    """An output reads the game from the snapshot (or the application's commands), never
    from the tracker, which may be replaced, or the referee judging it, at any step; nor a
    private attribute by its name (``getattr(app, "_started")``)."""
    bad = []
    for name, path in _output_modules().items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.Attribute) and node.attr == "tracker":
                bad.append(f"{name}:{node.lineno}: .tracker")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and str(node.args[1].value).startswith("_")
                and not str(node.args[1].value).startswith("__")
            ):
                bad.append(f"{name}:{node.lineno}: {ast.unparse(node)}")  # a private by its name
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                bad += [
                    f"{name}:{node.lineno}: imports {n}" for n in names if n.startswith("firmware.tracking.tracker")
                ]
    assert bad == []


def test_no_output_parses_the_boards_words() -> None:
    """The squares of a warning are in the snapshot's conditions: no output matches a
    pattern against a message (the display regex-parsed "put the man back on 22")."""
    bad = []
    for name, path in _output_modules().items():
        for node in ast.walk(tree_of(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MATCHING
                and any(_mentions_message(arg) for arg in node.args)
            ):
                bad.append(f"{name}:{node.lineno}: {ast.unparse(node)[:60]}")
    assert bad == []


#: The words a person reads: a message, a warning's, an analysis's ``words``.
_WORDS = {"message", "words"}


def _mentions_words(node: ast.AST) -> bool:
    return any(
        (isinstance(part, ast.Attribute) and part.attr in _WORDS)
        or (isinstance(part, ast.Constant) and part.value in _WORDS)
        for part in ast.walk(node)
    )


def test_no_output_or_app_code_cuts_words_apart() -> None:
    """What an event or an analysis says is in its typed fields: neither the outputs nor
    the application, the referee or the voice cut a sentence apart for a piece of it (the
    app read a forfeit's offence as its message up to "; ", and the display's analysis
    brief as its words up to ":")."""
    scope = ("firmware.app", "firmware.referee", "firmware.voice", *OUTPUTS)
    bad = []
    for name, path in modules().items():
        if not any(name == s or name.startswith(s + ".") for s in scope):
            continue
        for node in ast.walk(tree_of(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MATCHING | {"partition", "rpartition", "rsplit"}
                and (_mentions_words(node.func.value) or any(_mentions_words(arg) for arg in node.args))
            ):
                bad.append(f"{name}:{node.lineno}: {ast.unparse(node)[:60]}")
    assert bad == []
    cut = 'str(data.get("message", "")).split("; ")[0]'
    assert any(
        _mentions_words(n.func.value)
        for n in ast.walk(ast.parse(cut))
        if isinstance(n, ast.Call) and n.func.attr == "split"
    )  # type: ignore[attr-defined]


def test_one_clock_state_and_one_claim_handler() -> None:
    """The game clock's state is named (``ClockState``), not a 5-tuple in signatures, its
    rules are one class's (``GameTimer``) and it has one owner, the session, which makes
    the clock of each game (the referee kept a clock of its own beside the board clock);
    a claim, a draw offer (and its lapse) and a resignation are ruled on in one place, the game session
    (``crownhead.firmware.tracking.session``: a referee records what it rules)."""
    unnamed, decisions, clocks, timers = [], [], [], []
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        if "tuple[int, int, str, bool, str]" in text:
            unnamed.append(name)
        for node in ast.walk(tree_of(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("Claim", "DrawOffer", "DrawLapsed", "ResignAsked", "Reopened")
            ):
                decisions.append(name)
            if isinstance(node, ast.Call) and "GameClock" in ast.unparse(node.func):
                clocks.append(name)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "GameTimer":
                timers.append(name)
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "GameTimer" for b in node.bases):
                timers.append(name)  # a clock of one's own, however it is made
    assert unnamed == []
    assert set(decisions) == {"firmware.tracking.session"}
    assert set(clocks) == {"firmware.tracking.timer"}
    assert set(timers) == {"firmware.tracking.session"}


def test_no_subclass_reaches_into_a_base_of_another_package() -> None:
    """A class of one package built on a class of another overrides and calls only its
    public members: the pages' and the hall's links give the link a policy
    (``crownhead.firmware.link.policy``) instead of overriding its private methods."""
    import importlib
    import inspect

    bad = []
    for name, path in _output_modules().items():
        module = importlib.import_module(f"crownhead.{name}")
        package = name.split(".")[1]
        tree = tree_of(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            cls = getattr(module, node.name, None)
            if not inspect.isclass(cls):
                continue
            foreign = [b for b in cls.__mro__[1:] if short(b.__module__).startswith("firmware.")]
            foreign = [b for b in foreign if short(b.__module__).split(".")[1] != package]
            for base in foreign:
                privates = {n for n in dir(base) if n.startswith("_") and not n.startswith("__")}
                privates |= _instance_privates(base)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in privates:
                        bad.append(f"{name}.{node.name}.{item.name} overrides {base.__qualname__}'s")
                for part in ast.walk(node):
                    if (
                        isinstance(part, ast.Attribute)
                        and isinstance(part.value, ast.Name)
                        and part.value.id == "self"
                        and part.attr in privates
                    ):
                        bad.append(f"{name}:{part.lineno}: self.{part.attr} of {base.__qualname__}")
    assert bad == []


def _instance_privates(cls: type) -> set[str]:
    """The private attributes a class declares or gives its instances (``self._x = ...``,
    ``_x: int`` in its body), which ``dir`` of the class does not list."""
    import inspect
    import textwrap

    names: set[str] = set()
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(cls)))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_the_checker_sees_a_private_attribute_of_an_instance() -> None:
    class Base:
        _kept: int

        def __init__(self) -> None:
            self._moves: list[int] = []

    assert _instance_privates(Base) == {"_kept", "_moves"}


#: Private attributes of another's object an output may touch, each with its reason.
FOREIGN_PRIVATES = {
    # amqtt iterates its table of subscriptions across awaits: the embedded broker gives it
    # a table iterated as a snapshot (a bug of the library, see firmware/hall/broker.py).
    ("firmware.hall", "_subscriptions"),
}


def _privates_defined(package: str) -> set[str]:
    """The private names a package defines: ``self._x = ...``, ``def _x``, ``_x = ...``."""
    names: set[str] = set()
    for name, path in modules().items():
        if not (name == package or name.startswith(package + ".")):
            continue
        for node in ast.walk(tree_of(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _reached_privates(tree: ast.AST) -> Iterator[ast.Attribute]:
    """Every ``x._name`` in ``tree`` but an object's own (``self._x``, ``cls._x``)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            yield node


def test_no_output_reaches_a_private_attribute() -> None:
    """An output reads other objects through what they declare (the snapshot, the link's
    board, a policy), never through a private attribute of another package's object
    (``app._snapshot``, ``link._pdn_cache``): its own, or its package's objects' only."""
    bad = []
    defined: dict[str, set[str]] = {}
    for name, path in _output_modules().items():
        package = ".".join(name.split(".")[:2])
        if package not in defined:
            defined[package] = _privates_defined(package)
        for node in _reached_privates(tree_of(path)):
            if node.attr not in defined[package] and (package, node.attr) not in FOREIGN_PRIVATES:
                bad.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert bad == []


def test_the_checker_sees_a_private_attribute_reached() -> None:
    tree = ast.parse("def f(app):\n    return app._snapshot, self._mine, app.board._lock\n")
    assert sorted(ast.unparse(n) for n in _reached_privates(tree)) == ["app._snapshot", "app.board._lock"]
    assert "_pdn_cache" in _privates_defined("firmware.link") and "_pdn_cache" not in _privates_defined("firmware.web")


#: ``to_json`` of what is no event, written where it is, each with its reason.
NOT_EVENTS = {
    # An invitation to a game far apart is a retained document on the broker, no event.
    ("firmware.remote.invite", "invitation.to_json()"),
    # A numbered wire line of a game far apart wraps the link's line (already written by
    # event_line) with its sequence number: an envelope, no event.
    ("firmware.remote.transport", "line.to_json(low)"),
}


def _writes_event_json(node: ast.AST, module: str = "") -> bool:
    """``json.dumps(... x.to_json() ...)``: an event's JSON written by hand (but for the
    :data:`NOT_EVENTS` of ``module``)."""
    return (
        isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "dumps")
            or ast.unparse(node.func).split(".")[-1] == "encode_message"
        )
        and any(
            isinstance(part, ast.Call)
            and isinstance(part.func, ast.Attribute)
            and part.func.attr == "to_json"
            and (module, ast.unparse(part)) not in NOT_EVENTS
            for arg in node.args
            for part in ast.walk(arg)
        )
    )


def test_every_event_is_written_in_one_place() -> None:
    """An event becomes JSON in one place, ``crownhead.firmware.events.event_line`` (the link's
    ``encode_event`` sends it): the replay, the logs, the link and the hall write the same
    bytes for the same event, and none of them builds the line itself."""
    writers = dict(_output_modules())
    writers["firmware.cli.replay"] = REPO / "firmware" / "cli" / "replay.py"
    # The referee's arbiter log is an output too: its lines are the replay's, with the
    # wall time and the game number ahead.
    writers["firmware.referee.record"] = REPO / "firmware" / "referee" / "record.py"
    bad = [
        f"{name}:{node.lineno}: {ast.unparse(node)[:60]}"
        for name, path in writers.items()
        for node in ast.walk(tree_of(path))
        if _writes_event_json(node, name)
    ]
    assert bad == []
    assert _writes_event_json(ast.parse('json.dumps(event.to_json(), separators=(",", ":"))').body[0].value)  # type: ignore[attr-defined]
    # A game far apart's move line with its times was written so.
    assert _writes_event_json(ast.parse("encode_message({**event.to_json(), **times})").body[0].value)  # type: ignore[attr-defined]


def test_the_hall_hears_an_events_kind_from_the_event() -> None:
    """The hall's publisher is handed the event with its line (``send_event``): it never
    reads an event back out of a line's bytes (it parsed every line of its link to find
    the kind, and a game's end). The only JSON it reads is the hall's acknowledgement."""
    tree = tree_of(REPO / "firmware" / "hall" / "board.py")
    readers = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and ast.unparse(node.func) in (
                    "json.loads",
                    "parse_json",
                    "event_from_json",
                ):
                    readers.append(function.name)
    assert readers == ["_on_message"]
    assert not any(
        imp.module == "firmware.events" and "event_from_json" in imp.names
        for imp in all_imports()
        if imp.importer == "firmware.hall.board"
    )


def test_the_network_outputs_hold_no_application() -> None:
    """The link, the pages' link and the hall's reporter know the application by the
    interfaces they declare (``LinkedBoard``, ``PageBoard``), the snapshot and the outputs'
    protocol, never by its class (the pages' link held the whole ``App`` and read its parts)."""
    bad = [
        f"{imp.importer}:{imp.line}: imports {imp.module}"
        for imp in all_imports()
        if imp.importer.split(".")[1:2] in (["web"], ["link"], ["hall"])
        and imp.module.startswith("firmware.app.")
        and imp.module not in ("firmware.app.snapshot", "firmware.app.outputs", "firmware.app.view")
    ]
    assert bad == []


def _looks_up_a_built_name(node: ast.AST) -> bool:
    """``getattr(x, f"_cmd_{name}")``: a member found by a name made at run time."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
        and len(node.args) > 1
        and isinstance(node.args[1], (ast.JoinedStr, ast.BinOp))
    )


def test_the_links_commands_are_one_table() -> None:
    """A command is carried out through the link's table (``crownhead.firmware.link.commands.TABLE``,
    the protocol's commands each with its handler), never by a method found by a name
    built from the command's word (the link looked up ``_cmd_<name>``)."""
    from crownhead.firmware.link.commands import CONTROL_COMMANDS, DISPLAY_COMMANDS, TABLE
    from crownhead.firmware.link.protocol import COMMANDS

    bad = [
        f"{name}:{node.lineno}: {ast.unparse(node)}"
        for name, path in _output_modules().items()
        for node in ast.walk(tree_of(path))
        if _looks_up_a_built_name(node)
    ]
    assert bad == []
    assert set(TABLE) == set(COMMANDS) and DISPLAY_COMMANDS <= CONTROL_COMMANDS
    assert _looks_up_a_built_name(ast.parse('getattr(self, f"_cmd_{name}")').body[0].value)  # type: ignore[attr-defined]


#: Calls whose rules keep a default (docs/rules.md says why), with how many positional
#: arguments come before the rules.
_RULES_DEFAULTED = {"Position.start": 0, "Engine": 0, "OpeningBook": 0, "best_move": 1, "square_text": 1}


def _leaves_the_rules(node: ast.AST) -> bool:
    """A call of :data:`_RULES_DEFAULTED` that gives no rules."""
    if not isinstance(node, ast.Call):
        return False
    name = ast.unparse(node.func)
    before = _RULES_DEFAULTED.get(name)
    return before is not None and len(node.args) <= before and not any(k.arg == "rules" for k in node.keywords)


def test_the_firmware_names_the_rules_of_every_rules_call() -> None:
    """Where a rules call keeps a default (a start position, the engine), the firmware
    still names the rules it plays by: a default of English rules made the link apply a
    Russian capture without its crowning."""
    bad = [
        f"{name}:{node.lineno}: {ast.unparse(node)[:60]}"
        for name, path in modules().items()
        if name.startswith("firmware.")
        for node in ast.walk(tree_of(path))
        if _leaves_the_rules(node)
    ]
    assert bad == []
    assert _leaves_the_rules(ast.parse("Engine(egdb=probe)").body[0].value)  # type: ignore[attr-defined]
    assert not _leaves_the_rules(ast.parse("Position.start(game.rules)").body[0].value)  # type: ignore[attr-defined]


# -- one owner of the game: the session; the tracker reads; the referee rules -----------------

#: The methods of :class:`crownhead.rules.Game` that change a record.
_RECORD_CHANGES = {"play", "play_text", "undo", "condone", "huff", "force_jump", "declare", "resign", "claim_draw"}


def _followed_game_changes(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a function changes a game it reached as an attribute (``self.game.play``,
    ``game = self.host.game; game.huff(...)``, ``stand(self.game, move)``, ``x.game.declared
    = ...``): the game a board follows, as opposed to a ``Game(...)`` of its own."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        aliases = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "game"
            for target in node.targets
            if isinstance(target, ast.Name)
        }

        def followed(node: ast.AST) -> bool:
            return (isinstance(node, ast.Attribute) and node.attr == "game") or (
                isinstance(node, ast.Name) and node.id in aliases
            )

        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in _RECORD_CHANGES and followed(func.value):
                    found.append((node.lineno, ast.unparse(node)))
                elif isinstance(func, ast.Name) and func.id == "stand" and any(followed(a) for a in node.args):
                    found.append((node.lineno, ast.unparse(node)))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "declared" and followed(target.value):
                        found.append((node.lineno, ast.unparse(node)))
    return found


#: The packages that handle the game a board follows (the coach's problems and the
#: storage keep games of their own).
_FOLLOWING = (
    "tracking",
    "referee",
    "app",
    "link",
    "web",
    "hall",
    "display",
    "sound",
    "voice",
    "simulator",
    "remote",
    "online",
)


def test_only_the_session_changes_the_record() -> None:
    """The game a board follows changes in one place, the session (a move, a takeback, a
    huff, a forced jump, an illegal move that stood, a result): the tracker, its turn
    rules, the follower, the referee and the application ask it (huffing changed the game
    itself and then told the session, the referee stood an illegal move on the game)."""
    bad = []
    for name, path in modules().items():
        if name.split(".")[1:2] not in [[p] for p in _FOLLOWING] or name == "firmware.tracking.session":
            continue
        bad += [f"{name}:{line}: {text}" for line, text in _followed_game_changes(tree_of(path))]
    assert bad == []
    # The check sees the old ways.
    old = (
        "def _huff(self, square, now):\n    game = self.host.game\n    game.huff(square)\n"
        "def _condone(self, cand):\n    stand(self.game, cand.move)\n"
        "def reopen(self):\n    self.tracker.game.declared = None\n"
    )
    assert [line for line, _ in _followed_game_changes(ast.parse(old))] == [3, 5, 7]


def test_the_board_reader_does_not_decide_what_a_takeback_means() -> None:
    """A resignation taken back is the session's to reopen, asked by the follower, which
    drives the session; the tracker, a board reader, only takes a move back and reads the
    board again when the session's revision moves (the tracker reopened a resigned game)."""
    where = []
    for name, path in modules().items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "reopen":
                if "session" in ast.unparse(node.func.value):
                    where.append(name)
    assert where == ["firmware.tracking.follower"]


def test_only_the_session_says_a_saved_game_resumed() -> None:
    """Whether the set-up standing on the board resumes the saved game or begins a new one
    is the session's to say (``GameSession.begin``, ``saved``, ``resumed``): no flag of
    the follower's or the application's is set, or cleared on hearing a ``new-game``
    (the follower kept one, the application cleared it on the event)."""
    flags = []
    for name, path in modules().items():
        for node in ast.walk(tree_of(path)):
            targets = list(node.targets) if isinstance(node, ast.Assign) else []
            targets += [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            flags += [
                f"{name}:{node.lineno}"
                for t in targets
                if isinstance(t, ast.Attribute) and t.attr in ("resuming", "_resuming")
            ]
    assert flags == []


def test_only_app_follow_makes_the_followed_tracker() -> None:
    """The application follows one tracker, made and replaced in one place, ``App.follow``
    (its table's: ``firmware.app.table``), through one follower made with the application
    (the referee made a second tracker
    after an illegal move stood, and the followed tracker was replaced, the controller
    rewired, in four places). Only ``crownhead replay``, which has no application, makes
    its own board's tracker and follower."""
    where: dict[str, list[str]] = {"Tracker": [], "Follower": []}
    for name, path in modules().items():
        if not name.startswith("firmware.") or name == "firmware.simulator.script":
            continue
        for function in ast.walk(tree_of(path)):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                made = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
                if made in where:
                    where[made].append(f"{name}.{function.name}")
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and target.attr in ("tracker", "_tracker"):
                            where["Tracker"].append(f"{name}.{function.name}")
    assert where == {
        # Made and given to the follower in App.follow; a follower takes the one it is made with.
        "Tracker": [
            "firmware.app.table.follow",
            "firmware.app.table.follow",
            "firmware.tracking.follower.__init__",
        ],
        "Follower": ["firmware.app.table.__init__"],
    }


def _reachable(obj: object, seen: set[int] | None = None) -> Iterator[object]:
    """Every object held by ``obj``: its attributes, dataclass fields, items, recursively."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool, type(None))):
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, dict):
        parts: list[object] = [*obj.keys(), *obj.values()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        parts = list(obj)
    else:
        parts = list(getattr(obj, "__dict__", {}).values())
        parts += [getattr(obj, s) for s in getattr(type(obj), "__slots__", ()) if hasattr(obj, s)]
    for part in parts:
        if callable(part) and not hasattr(part, "__dict__"):
            continue  # a function or a bound method: no state of its own
        yield from _reachable(part, seen)


def test_the_referee_holds_nothing_of_the_game() -> None:
    """The referee is a policy the follower consults: after a refereed game with a caution,
    a ballot, a clock and an illegal move that stood, nothing it holds is a game, the
    session, its clock, a tracker or the follower (it held the tracker, the game and its
    own clock, and made a tracker of its own)."""
    from crownhead.firmware.gameclock import TimeControl
    from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
    from crownhead.firmware.tracking.follower import Follower
    from crownhead.firmware.tracking.session import GameSession
    from crownhead.firmware.tracking.timer import GameTimer
    from crownhead.firmware.tracking.tracker import Tracker
    from crownhead.rules import WCDF, Game, Position
    from crownhead.squares import bit

    start = Position.from_fen("B:W15,23,32:B10,1")
    session = GameSession(Game(start, WCDF), start=start, time_control=TimeControl.parse("60"))
    tracker = Tracker(session, mode="referee")
    referee = Referee(RefereeSettings(style="record", clock=TimeControl.parse("60")))
    follower = Follower(tracker, referee)
    events = follower.begin(0)
    board = start.occupied
    # 10x19 and the jumper left on 19 (the chain unfinished); White answers 23x16: it stands.
    steps = [(0, 10, False), (100, 19, True), (200, 15, False), (700, 23, False), (900, 16, True), (1000, 19, False)]
    for t, square, put in steps:
        board = board | bit(square) if put else board & ~bit(square)
        events += follower.update(board, t)
    events += follower.tick(1600)
    assert "condoned" in [e.kind for e in events] and session.clock is not None
    held = [
        type(o).__name__
        for o in _reachable(referee)
        if isinstance(o, (Game, GameSession, GameTimer, Tracker, Follower))
    ]
    assert held == []
    assert referee.judges(session) and referee.state is not None and referee.state.record.notes


#: The outputs that read nothing of the application but through its port
#: (``firmware.app.outputs.BoardPort``): what they show comes from the snapshots and
#: events they are given (issue 50).
PORT_ONLY_OUTPUTS = (
    "firmware/display/panel.py",
    "firmware/sound/player.py",
    "firmware/link/view.py",
    "firmware/voice/adapter.py",
    "firmware/web/far.py",
)

#: The output packages every module of which reads nothing of the application but
#: through its port: the hall's (its reporter's retained state is the snapshot's, its
#: commands go through the link; the hall's own server holds no board).
PORT_ONLY_PACKAGES = ("firmware/hall",)


def _port_only() -> list[str]:
    """:data:`PORT_ONLY_OUTPUTS` and every module of :data:`PORT_ONLY_PACKAGES`."""
    packaged = [str(p.relative_to(REPO)) for d in PORT_ONLY_PACKAGES for p in sorted((REPO / d).glob("*.py"))]
    return [*PORT_ONLY_OUTPUTS, *packaged]


#: What an output may ask of the board (the members of ``BoardPort``).
PORT_MEMBERS = frozenset({"clock", "clock_state", "wake", "say", "add_output", "remove_output"})

#: The names an output holds the board by.
_BOARD_NAMES = frozenset({"app", "board", "port"})

#: Functions of those modules that wire the board's parts rather than show anything
#: (``attach_board_parts`` opens the display and the buzzer of the hardware).
_WIRING = frozenset({"attach_board_parts"})


def _holds_the_board(node: ast.AST) -> bool:
    """``app``, ``self.app``, ``self.board``, ``self.link.app``: the application itself
    (not ``request.app``: the web framework's application a request came to)."""
    if isinstance(node, ast.Name):
        return node.id in _BOARD_NAMES
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "request":
        return False
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _BOARD_NAMES
        and isinstance(node.value, (ast.Name, ast.Attribute))
    )


def test_the_outputs_read_the_application_only_through_the_port() -> None:
    """The display, the buzzer, the link's view, the voice, the pages' feed of the games
    far apart and the hall's reporter read the game from the snapshots they are handed; of
    the application they use only the port (the time, the game clock at an instant, a
    wake-up, a word on the message line, joining): never ``app.snapshot``, ``app.referee``,
    ``app.lit_roles``, ``board.hint``, ``app.game``, ``getattr(app, ...)``."""
    bad = []
    for relative in _port_only():
        tree = tree_of(REPO / relative)
        skipped: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in _WIRING:
                skipped |= {id(n) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Attribute) and _holds_the_board(node.value) and node.attr not in PORT_MEMBERS:
                bad.append(f"{relative}:{node.lineno}: reads .{node.attr} of the application")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and _holds_the_board(node.args[0])
            ):
                bad.append(f"{relative}:{node.lineno}: {node.func.id} on the application")
    assert bad == []


#: What each output still reads of the application besides its port (issue 50): the
#: link's command table and parts use the application's commands through ``LinkedBoard``
#: (a command channel by design), the pages' link and the status page their
#: ``PageBoard``, the pages' live analysis its switch; some names are another object's
#: called ``board`` (a line's relay, a serial port). A read not listed here fails: take
#: it from the snapshot, or ask it through the port. ``firmware.remote`` and
#: ``firmware.online`` are left out while they are reworked; the display, the buzzer, the
#: link's view, the voice, the feed of the games far apart and the hall read nothing
#: (:data:`PORT_ONLY_OUTPUTS`, :data:`PORT_ONLY_PACKAGES`).
OUTPUT_READS: dict[str, frozenset[str]] = {
    "firmware/web/analysis.py": frozenset({"analysis_refused", "analysis_wanted", "set_analysis", "getattr"}),
    "firmware/web/bridge.py": frozenset({"hardware", "snapshot", "started", "steps", "getattr"}),
    "firmware/web/server.py": frozenset({"review_refused", "state"}),
    "firmware/web/settings.py": frozenset({"isascii", "isdigit", "startswith"}),
    "firmware/link/commands.py": frozenset(
        {
            "ballot",
            "ballot_move",
            "change_referee",
            "computer_player",
            "first_number",
            "game",
            "give_up_resume",
            "leave_problems",
            "new_game",
            "players",
            "problem_state",
            "referee_mode",
            "resign",
            "resuming",
            "set_ballot",
            "set_mode",
            "set_rules",
            "setting_up",
            "start_problem",
            "try_again",
        }
    ),
    "firmware/link/host.py": frozenset(
        {
            "expected",
            "game",
            "hold",
            "matches",
            "mode",
            "players",
            "policy",
            "record_tags",
            "release",
            "resuming",
            "setting_up",
            "snapshot",
            "started",
        }
    ),
    "firmware/link/peer.py": frozenset({"game", "new_game", "resuming", "setting_up", "take_back"}),
    "firmware/link/relay.py": frozenset({"connected", "holding", "receive", "resume", "send", "take_fresh"}),
    "firmware/link/requests.py": frozenset(
        {"ballot_move", "declare", "expected", "game", "referee_mode", "resuming", "setting_up", "show_move"}
    ),
    "firmware/link/settings.py": frozenset({"split"}),
    "firmware/link/transport.py": frozenset({"close", "in_waiting", "read", "write", "getattr"}),
    "firmware/simulator/tui.py": frozenset({"next_deadline", "step", "view"}),
}

#: The output packages the rule above leaves out for now (see :data:`OUTPUT_READS`).
_REWORKED = ("firmware.remote", "firmware.online")


def _application_reads(tree: ast.AST) -> set[str]:
    """The attributes read of what a module holds the board by (``app``, ``board``,
    ``port``) beyond the port, and ``getattr`` on it; wiring functions left out."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in _WIRING:
            skipped |= {id(n) for n in ast.walk(node)}
    reads: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Attribute) and _holds_the_board(node.value) and node.attr not in PORT_MEMBERS:
            reads.add(node.attr)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
            and _holds_the_board(node.args[0])
        ):
            reads.add("getattr")
    return reads


def test_no_output_reads_more_of_the_application_than_it_did() -> None:
    """Every output module (:data:`OUTPUTS`) reads of the application only its port and
    what :data:`OUTPUT_READS` lists for it: a new read of the application fails here."""
    new = []
    for name, path in sorted(_output_modules().items()):
        if any(name == r or name.startswith(r + ".") for r in _REWORKED):
            continue
        relative = str(path.relative_to(REPO))
        extra = _application_reads(tree_of(path)) - OUTPUT_READS.get(relative, frozenset())
        new += [f"{relative}: reads .{attr} of the application" for attr in sorted(extra)]
    assert new == []


def test_the_checker_sees_a_new_read_of_the_application() -> None:
    tree = ast.parse("def f(self, app):\n    return app.tracker, self.board.hint, app.clock, getattr(app, 'x')\n")
    assert _application_reads(tree) == {"tracker", "hint", "getattr"}


#: The most lines ``firmware/app/application.py`` (the main loop) may have: its parts are
#: modules of their own (the table, the recorder, the machine's seat, the snapshot maker,
#: the table of event handlers), never mixins redeclaring its state (issue 50: 1,301 lines).
MAX_APPLICATION_LINES = 500


def test_the_application_is_its_loop_and_its_parts_are_modules() -> None:
    path = REPO / "firmware" / "app" / "application.py"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_APPLICATION_LINES, f"{lines} lines"
    # A class of firmware/app that declares attributes without setting them (a mixin
    # typing itself by another's state) is what the table replaced.
    bare = []
    for part in sorted((REPO / "firmware" / "app").glob("*.py")):
        for node in ast.walk(tree_of(part)):
            if isinstance(node, ast.ClassDef) and not _is_declaration(node):
                bare += [
                    f"{part.name}:{item.lineno} {node.name}.{ast.unparse(item.target)}"
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and item.value is None
                ]
    assert bare == []


def _is_declaration(node: ast.ClassDef) -> bool:
    """A protocol, a dataclass, a named tuple or a typed dict: its annotations are its fields."""
    bases = {ast.unparse(b) for b in node.bases}
    decorators = {ast.unparse(d).split("(")[0] for d in node.decorator_list}
    return bool(
        bases & {"Protocol", "NamedTuple", "TypedDict"}
        or "dataclass" in decorators
        or any(b.startswith("Protocol") or b.endswith("Protocol") for b in bases)
    )
