"""What to type to add one of Crownhead's optional extras to the installation that runs.

Crownhead is not on a package index, so ``pip install 'crownhead[web]'`` would fetch
nothing (or a stranger's package of that name). The command that works depends on how
this copy was installed: from a checkout (``pip install -e .``, what ``make`` and
docs/install.md do), the venv's pip on that checkout; from a wheel, the extra's own
requirements, read from the installed metadata. Either way it names the interpreter that
is running, so the extra lands in the environment that needs it (on Raspberry Pi OS,
pip refuses the system's Python outside a venv).

Imports nothing of the package: the hardware layer and the commands both use it.
"""

from __future__ import annotations

import shlex
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["checkout", "install_command", "requirements_of"]


def checkout() -> Path | None:
    """The checkout this copy runs from (an editable install), or None for a wheel's copy."""
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "rules").is_dir() and (root / "firmware").is_dir():
        return root
    return None


def requirements_of(extra: str) -> list[str]:
    """The requirements the installed metadata lists for ``extra`` (markers dropped), in order."""
    try:
        listed = metadata.requires("crownhead") or []
    except metadata.PackageNotFoundError:
        return []
    found = []
    for line in listed:
        requirement, _, marker = line.partition(";")
        if f'extra == "{extra}"' in marker or f"extra == '{extra}'" in marker:
            found.append(requirement.strip().replace(" ", ""))
    return found


def install_command(extra: str) -> str:
    """The shell command that adds ``extra`` to the environment this program runs in."""
    python = shlex.quote(sys.executable)
    root = checkout()
    if root is not None:
        return f"{python} -m pip install -e {shlex.quote(f'{root}[{extra}]')}"
    wanted = requirements_of(extra)
    if not wanted:
        return f"{python} -m pip install the '{extra}' extra's packages (see pyproject.toml)"
    return f"{python} -m pip install " + " ".join(shlex.quote(r) for r in wanted)
