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
import shutil
import sys
import sysconfig
from pathlib import Path

__all__ = ["build_cause", "checkout", "install_command", "native_cause", "requirements_of"]


def checkout() -> Path | None:
    """The checkout this copy runs from (an editable install), or None for a wheel's copy."""
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "rules").is_dir() and (root / "firmware").is_dir():
        return root
    return None


def requirements_of(extra: str) -> list[str]:
    """The requirements the installed metadata lists for ``extra`` (markers dropped), in order."""
    # Imported here: importlib.metadata (and the email package under it) cost every command
    # 40 ms of its start, and this is read only when an extra is missing.
    from importlib import metadata

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


def build_cause(headers: bool, compiler: bool) -> str:
    """Why ``pip install`` built no core, from what this machine lacks: the Python headers
    (``Python.h``, Debian's ``python3-dev``) or a C compiler (``build-essential``). The
    build needs both; a compiler without the headers fails just as surely.

    >>> build_cause(headers=False, compiler=True)
    'the Python headers (Python.h) are missing: sudo apt-get install python3-dev, then reinstall'
    >>> build_cause(headers=True, compiler=False)
    'no C compiler: sudo apt-get install build-essential, then reinstall'
    """
    wanted = [name for name, have in (("python3-dev", headers), ("build-essential", compiler)) if not have]
    if not headers and not compiler:
        return f"neither the Python headers (Python.h) nor a C compiler: sudo apt-get install {' '.join(wanted)}, then reinstall"
    if not headers:
        return "the Python headers (Python.h) are missing: sudo apt-get install python3-dev, then reinstall"
    if not compiler:
        return "no C compiler: sudo apt-get install build-essential, then reinstall"
    return "the headers and a compiler are here: reinstall (pip install -e) and read the build's output"


def native_cause() -> str:
    """:func:`build_cause` for this interpreter: its include directory and its compiler
    (said where the board searches in pure Python because the native core was not built)."""
    include = sysconfig.get_paths().get("include", "")
    headers = bool(include) and (Path(include) / "Python.h").is_file()
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    compiler = bool(cc) and shutil.which(cc[0]) is not None
    return build_cause(headers, compiler)
