"""Rewrite imports of the bare folder names to the installed package's names (one-off, kept).

Crownhead's folders (``rules/``, ``hal/``, ``sim/``, ``squares/``, ``firmware/``) are
installed as subpackages of one package, ``crownhead``. This script made the commit that
moved every import to those names, and it can be run again on a branch begun before it:
it is idempotent, and its output depends on nothing but each file's text.

What it rewrites, in every tracked ``*.py`` file:

* ``from rules.x import y`` becomes ``from crownhead.rules.x import y``;
* ``import rules.x as y`` becomes ``import crownhead.rules.x as y``; ``import rules``
  becomes ``from crownhead import rules``;
* a quoted string that names a module, ``"firmware.cli"`` or
  ``"firmware.config.hardware:BoardConfig"``, gains the ``crownhead.`` prefix (only where
  the name's second part is a real module or package in that folder, so a config key such
  as ``"sim.swap"`` or a file name such as ``"rules.md"`` is left alone);
* a reST role or literal in a docstring, ``:mod:`firmware.files``` or
  ````firmware.files````, the same way.

Run from the checkout's root: ``python bench/rename_imports.py [files...]``; it prints the
files it changed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TOPS = ("rules", "hal", "sim", "squares", "firmware")
_TOP = "|".join(TOPS)

_PROMPT = r"[ \t]*(?:(?:>>>|\.\.\.)[ \t]+)?"
_FROM = re.compile(rf"^({_PROMPT}from\s+)({_TOP})(\.[\w.]+)?(\s+import\b)", re.MULTILINE)
_IMPORT_AS = re.compile(rf"^({_PROMPT}import\s+)({_TOP})(\.[\w.]+)(\s+as\s+\w+)", re.MULTILINE)
_IMPORT_DOTTED = re.compile(rf"^({_PROMPT}import[ \t]+)({_TOP})(\.[\w.]+)([ \t]*(?:#.*)?)$", re.MULTILINE)
_IMPORT_BARE = re.compile(rf"^({_PROMPT})import[ \t]+({_TOP})([ \t]*(?:#.*)?)$", re.MULTILINE)
_IMPORT_LINE = re.compile(rf"^{_PROMPT}import\s.*$", re.MULTILINE)
_QUOTED = re.compile(rf"""(?<![\w.])(["'])({_TOP})\.(\w+)([\w.:]*)\1""")
_LITERAL = re.compile(rf"(?<![\w.])(``)({_TOP})\.(\w+)([\w.:]*)``")
_ROLE = re.compile(rf"(:(?:mod|class|func|meth|data|attr|exc|obj):`~?)({_TOP})((?:\.\w+)*)`")


def _is_module(root: Path, top: str, part: str) -> bool:
    folder = root / top
    return (folder / part / "__init__.py").is_file() or (folder / f"{part}.py").is_file() or part == "__init__"


def rewrite(text: str, root: Path) -> str:
    """The text with every import of a bare folder name moved under ``crownhead``."""
    text = _FROM.sub(lambda m: f"{m[1]}crownhead.{m[2]}{m[3] or ''}{m[4]}", text)
    text = _IMPORT_AS.sub(lambda m: f"{m[1]}crownhead.{m[2]}{m[3]}{m[4]}", text)
    bound: set[str] = set()

    def dotted(m: re.Match[str]) -> str:
        line = f"{m[1]}crownhead.{m[2]}{m[3]}{m[4]}"
        # `import firmware.voice` followed by `firmware.voice.x`: the name `firmware` is
        # still wanted, now bound to the subpackage, and the import loads the submodule.
        if re.search(rf"(?<![\w.\"'`]){m[2]}\.", _IMPORT_LINE.sub("", text)):
            indent = re.match(r"[ \t]*", m[1])[0]  # type: ignore[index]
            comment = m[4] if "#" in m[4] else f"  # noqa: F401 - loads {m[2]}{m[3]}"
            line = f"{m[1]}crownhead.{m[2]}{m[3]}{comment}"
            if m[2] not in bound and not re.search(rf"^import {m[2]}\b", text, re.MULTILINE):
                bound.add(m[2])
                line += f"\n{indent}from crownhead import {m[2]}"
        return line

    text = _IMPORT_DOTTED.sub(dotted, text)
    text = _IMPORT_BARE.sub(lambda m: f"{m[1]}from crownhead import {m[2]}{m[3]}", text)

    def quoted(m: re.Match[str]) -> str:
        if not _is_module(root, m[2], m[3]):
            return m[0]
        return f"{m[1]}crownhead.{m[2]}.{m[3]}{m[4]}{m[1]}"

    text = _QUOTED.sub(quoted, text)
    text = _LITERAL.sub(quoted, text)
    return _ROLE.sub(lambda m: f"{m[1]}crownhead.{m[2]}{m[3]}`", text)


def main(argv: list[str]) -> int:
    root = Path.cwd()
    names = (
        argv or subprocess.run(["git", "ls-files", "*.py"], capture_output=True, text=True, check=True).stdout.split()
    )
    for name in names:
        path = root / name
        if not path.is_file() or name == "bench/rename_imports.py":
            continue
        old = path.read_text(encoding="utf-8")
        new = rewrite(old, root)
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
