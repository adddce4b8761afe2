"""A board without the page or the hall: their libraries are extras, and without them the
board runs, and asking for the page or the hall says what to install."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The libraries of the ``web`` and ``hall`` extras (and uvicorn's own h11).
OPTIONAL = ("starlette", "uvicorn", "wsproto", "h11", "paho", "amqtt")
# A fresh interpreter in which the optional libraries cannot be imported, as on a board
# installed without the extras; it runs `crownhead` with the arguments it is given.
WITHOUT = (
    "import sys\n"
    f"for name in {OPTIONAL!r}:\n"
    "    sys.modules[name] = None\n"
    "from crownhead.firmware.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"loaded = sorted(n for n in sys.modules if n.split('.')[0] in {OPTIONAL!r} and sys.modules[n] is not None)\n"
    "print('loaded:', loaded, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def crownhead_without_extras(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT, *argv], capture_output=True, text=True, cwd=REPO, timeout=120)


def requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_page_and_the_hall_are_extras_that_make_installs() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    base = requirement_names(project["dependencies"])
    extras = {name: requirement_names(reqs) for name, reqs in project["optional-dependencies"].items()}
    assert base.isdisjoint({"starlette", "uvicorn", "wsproto", "paho-mqtt", "amqtt"})
    assert {"starlette", "uvicorn", "wsproto"} <= extras["web"]
    assert {"paho-mqtt", "amqtt"} <= extras["hall"]
    # `make run` and `make test` install everything they use.
    assert "pip install --quiet -e '.[web,hall,dev]'" in (REPO / "Makefile").read_text()


def test_a_board_without_the_extras_plays(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("lift 11\nwait 300\nplace 15\nwait 800\n")
    done = crownhead_without_extras(
        "run", "--headless", "--script", str(script), "--state-dir", str(tmp_path / "s"), "--log", "json"
    )
    assert done.returncode == 0, done.stderr
    assert '"move":"11-15"' in done.stdout
    assert "loaded: []" in done.stderr


def test_asking_for_the_page_or_the_hall_without_them_says_what_to_install(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("wait 100\n")
    board = ["run", "--headless", "--script", str(script), "--state-dir", str(tmp_path / "s")]
    page = crownhead_without_extras(*board, "--web", "127.0.0.1:0")
    assert page.returncode == 2
    # The command that works here: this environment's pip, on the checkout it runs from.
    assert (
        f"the web page needs starlette, which is not installed: install it with {sys.executable} -m pip install -e"
        f" '{REPO}[web]'" in page.stderr
    )
    reporting = crownhead_without_extras(*board, "--mqtt", "mqtt://127.0.0.1:1")
    assert reporting.returncode == 2
    assert f"-m pip install -e '{REPO}[hall]'" in reporting.stderr
    hall = crownhead_without_extras("hall", "--listen", "127.0.0.1:0", "--web", "127.0.0.1:0")
    assert hall.returncode == 2
    assert "the tournament hall (MQTT) needs paho" in hall.stderr and "Traceback" not in hall.stderr
