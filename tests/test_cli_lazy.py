"""A command imports its own module alone: ``crownhead perft`` on a Pi starts in a
fraction of the time it took when every command's module (the board's whole application
among them) was imported first."""

from __future__ import annotations

import argparse
import subprocess
import sys

from crownhead.firmware.cli import build_parser, commands


def _choices(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_each_command_is_the_module_that_registers_it() -> None:
    assert _choices(build_parser()) == set(commands())
    for name in commands():
        assert _choices(build_parser(name)) == {name}


PROBE = """
import sys
from crownhead.firmware.cli import main
assert main(sys.argv[1:]) == 0
print(sorted(m for m in sys.modules if m.startswith("crownhead.firmware.") and m.count(".") == 2))
"""


def _firmware_packages(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.splitlines()[-1])  # a list of names, printed by PROBE


def test_a_command_imports_its_own_module_and_what_it_uses() -> None:
    loaded = _firmware_packages("perft", "--depth", "2")
    assert "crownhead.firmware.cli" in loaded
    for never in ("crownhead.firmware.app", "crownhead.firmware.web", "crownhead.firmware.hall"):
        assert never not in loaded, loaded


def test_help_and_a_misspelt_command_still_list_every_command() -> None:
    shown = subprocess.run([sys.executable, "-m", "crownhead", "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and all(name in shown.stdout for name in commands())
    typo = subprocess.run([sys.executable, "-m", "crownhead", "pertf"], capture_output=True, text=True, timeout=120)
    assert typo.returncode == 2 and "invalid choice: 'pertf'" in typo.stderr and "perft" in typo.stderr
