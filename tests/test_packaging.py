"""Installed as one package, ``crownhead``: no bare folder name in site-packages or in an import.

The checkout's folders (``rules/``, ``hal/``, ``sim/``, ``squares/``, ``firmware/``) install
as ``crownhead.rules`` and so on (setup.py's ``package_dir``). Three of the bare names
belong to other projects on the package index (``rules``, a Django authorization library;
``squares``; ``hal``): installed as top-level packages, either project overwrote the
other's files. These tests hold the tree, the running program and the built wheel to the
one name.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import crownhead
from crownhead import extras

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("squares", "rules", "hal", "sim", "firmware")
#: The MicroPython programs that run on the Pico, not in the package.
PICO = REPO / "firmware" / "mcu" / "pico"


def _sources() -> Iterator[Path]:
    for top in (*FOLDERS, "crownhead", "tests", "bench"):
        for path in sorted((REPO / top).rglob("*.py")):
            if PICO not in path.parents and "node_modules" not in path.parts:
                yield path
    yield REPO / "conftest.py"
    yield REPO / "setup.py"


def test_no_import_names_a_bare_folder() -> None:
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names if n.split(".")[0] in FOLDERS]
    assert found == []


def test_no_string_names_a_module_by_its_folder() -> None:
    """Logger names, resources, ``-m`` and patch targets: each under ``crownhead.``."""
    quoted = re.compile(rf"""["']({"|".join(FOLDERS)})\.(\w+)""")
    found = []
    for path in _sources():
        # The script that made the move names the old names; the architecture's checks
        # speak of modules by their folders (rules.game for crownhead.rules.game).
        if path.name in ("rename_imports.py", "test_architecture.py"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in quoted.finditer(line):
                top, part = m[1], m[2]
                if (REPO / top / part).is_dir() or (REPO / top / f"{part}.py").is_file():
                    found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def test_every_module_is_loaded_once_under_its_installed_name() -> None:
    """A second copy under the folder's name would hold second copies of every class."""
    import crownhead.firmware.cli  # noqa: F401 - every module the board has, as a running board

    assert not [name for name in sys.modules if name.split(".")[0] in FOLDERS]
    assert crownhead.firmware.cli.__name__ == "crownhead.firmware.cli"


def test_the_version_is_the_installed_one() -> None:
    from importlib import metadata

    assert crownhead.__version__ == metadata.version("crownhead")
    done = subprocess.run(
        [sys.executable, "-m", "crownhead", "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == f"crownhead {crownhead.__version__}"


def test_logger_names_are_under_crownhead() -> None:
    literal = re.compile(r"""getLogger\(\s*["']([^"']+)["']""")
    names = {m[1] for path in _sources() for m in literal.finditer(path.read_text(encoding="utf-8"))}
    assert "crownhead.rules.engine" in names
    assert [n for n in names if n.split(".")[0] in FOLDERS] == []


def test_the_install_hint_names_this_environment_s_pip_and_the_checkout() -> None:
    command = extras.install_command("web")
    assert command.startswith(f"{sys.executable} -m pip install")
    # The suite runs from an editable install of this checkout.
    assert extras.checkout() == REPO
    assert f"{REPO}[web]" in command


def test_the_extra_s_requirements_come_from_the_installed_metadata() -> None:
    assert any(r.startswith("starlette") for r in extras.requirements_of("web"))
    assert extras.requirements_of("no-such-extra") == []


# -- the wheel and the sdist ------------------------------------------------------------


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel ``python -m build`` makes (the wheel built from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    # From a copy of the tree as git has it, as a clean clone would build: the build writes
    # its staging folders beside the sources, where another worker may be building too.
    tree = tmp_path_factory.mktemp("tree")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("crownhead-*.whl")
    return wheel


def test_the_wheel_installs_one_top_level_name(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as z:
        names = z.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert z.read(top_level).decode().split() == ["crownhead"]
        entry = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "crownhead = crownhead.firmware.cli:main" in entry
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"crownhead"}


def test_the_wheel_carries_the_package_s_data_and_the_native_core(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as z:
        names = set(z.namelist())
    for wanted in (
        "crownhead/py.typed",
        "crownhead/rules/py.typed",
        "crownhead/rules/engine/_native.pyi",
        "crownhead/firmware/web/static/index.html",
        "crownhead/firmware/hall/hall.html",
        "crownhead/firmware/hall/crownhead.acl",
        "crownhead/firmware/voice/lang/en.toml",
        "crownhead/firmware/mcu/pico/crownhead_board.py",
        "crownhead/firmware/mcu/pico/main.py",
    ):
        assert wanted in names
    assert any(n.startswith("crownhead/firmware/coach/problems/") and n.endswith(".pdn") for n in names)
    assert sum(n.startswith("crownhead/firmware/egdb/tables/") for n in names) == len(
        list((REPO / "firmware" / "egdb" / "tables").iterdir())
    )
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert f"crownhead/rules/engine/_native{suffix}" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith("conftest.py")]


def test_the_sdist_carries_the_c_source(dist: Path) -> None:
    import tarfile

    (sdist,) = dist.glob("crownhead-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert {"rules/engine/_native.c", "setup.py", "pyproject.toml", "crownhead/__init__.py"} <= names


def _fresh_venv(where: Path, *, beside: Path | None = None) -> Path:
    """A new venv; with ``beside``, that directory's packages are on its path as plain
    entries (its .pth files, the editable install's finder among them, are not run)."""
    venv.EnvBuilder(with_pip=beside is None).create(where)
    python = where / "bin" / "python"
    if beside is not None:
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        Path(site, "zz_dependencies.pth").write_text(f"{beside}\n", encoding="utf-8")
    return python


def _install_wheel(python: Path, wheel: Path, *, deps: bool) -> None:
    pip = [sys.executable, "-m", "pip", "--python", str(python)] if not deps else [str(python), "-m", "pip"]
    command = [*pip, "install", "--quiet", *(() if deps else ("--no-deps",)), str(wheel)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


def _crownhead(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CROWNHEAD_ENGINE")}
    command = [str(python.parent / "crownhead"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def _plays(python: Path, cwd: Path) -> None:
    """perft, a headless game on the simulator and an analysis, with no checkout near."""
    perft = _crownhead(python, cwd, "perft", "--depth", "5")
    assert perft.returncode == 0 and perft.stdout.split() == ["7361"], perft.stderr
    script = cwd / "game.txt"
    script.write_text("lift 11\nwait 300\nplace 15\nwait 2000\n", encoding="utf-8")
    state = cwd / "state"
    run = _crownhead(python, cwd, "run", "--headless", "--hal", "sim", "--log", "json", "--script", str(script),
                     "--state-dir", str(state))  # fmt: skip
    assert run.returncode == 0, run.stderr
    moves = [json.loads(line) for line in run.stdout.splitlines() if '"event":"move"' in line.replace(" ", "")]
    assert [m["move"] for m in moves] == ["11-15"]
    analyse = _crownhead(python, cwd, "analyse", "--depth", "6")
    assert analyse.returncode == 0, analyse.stderr
    assert json.loads(analyse.stdout)["move"]
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import crownhead.rules.engine.native as n, crownhead; print(crownhead.__file__); print(n.describe())",
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
    ).stdout
    assert str(REPO) not in where and "native search core (C)" in where


def test_the_wheel_plays_in_a_fresh_venv_with_no_checkout_beside_it(dist: Path, tmp_path: Path) -> None:
    # The dependencies come from this suite's environment, on the path as plain entries:
    # the check runs without the network, and sees the wheel's crownhead and no other.
    python = _fresh_venv(tmp_path / "venv", beside=Path(sysconfig.get_paths()["purelib"]))
    _install_wheel(python, _wheel(dist), deps=False)
    _plays(python, tmp_path)


@pytest.mark.slow
def test_the_index_s_rules_and_squares_install_beside_crownhead(dist: Path, tmp_path: Path) -> None:
    """The index's ``rules`` (a Django authorization library) and ``squares`` beside the
    wheel, in either order: both keep their files. Needs the package index (slow)."""
    python = _fresh_venv(tmp_path / "venv")
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "rules", "squares"], capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"the package index cannot be reached: {done.stderr.strip()[-300:]}")
    _install_wheel(python, _wheel(dist), deps=True)
    _plays(python, tmp_path)
    theirs = subprocess.run(
        [str(python), "-c", "import rules, squares; print(rules.__file__, squares.__file__); import rules.predicates"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert theirs.returncode == 0, theirs.stderr
    assert "/site-packages/rules/__init__.py" in theirs.stdout and "/site-packages/squares/__init__.py" in theirs.stdout
    # Uninstalling ours leaves theirs whole.
    subprocess.run([str(python), "-m", "pip", "uninstall", "--yes", "--quiet", "crownhead"], check=True, timeout=300)
    again = subprocess.run([str(python), "-c", "import rules.predicates, squares"], cwd=tmp_path, timeout=60)
    assert again.returncode == 0


def test_the_native_core_names_itself_as_installed() -> None:
    """The C extension sets its own module and type names: they follow the package's."""
    native = pytest.importorskip("crownhead.rules.engine._native", reason="the native core is not built here")
    assert native.__name__ == "crownhead.rules.engine._native"
    assert native.Searcher.__module__ == "crownhead.rules.engine._native"
