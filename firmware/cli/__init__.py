"""The ``crownhead`` command line: one thin module per subcommand, argument parsing and wiring only.

Each public module in this package defines ``register(subparsers)`` and is a subcommand;
the libraries it wires together live in the other ``firmware`` packages. This is the
only package that may import all of them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

import crownhead
from crownhead.firmware.cli._common import missing_extra


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def commands() -> list[str]:
    """The commands' names: each is the module that registers it (tests/test_cli_lazy.py)."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command, or only the one named.

    A command run imports its own module alone: importing every command's module took
    half of ``crownhead analyse``'s 300 ms (its time budget counts from the start of the
    process), and on a Pi, seconds before any command began. The configuration's sections
    are listed in one place, whatever is imported (``crownhead.firmware.config``).
    """
    parser = _Parser(
        prog="crownhead",
        description="The software inside an electronic checkers board.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {crownhead.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = [only] if only is not None else commands()
    for name in names:
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Anything else (no command, --help, a misspelt command) gets the whole parser.
    parser = build_parser(argv[0] if argv and argv[0] in commands() else None)
    args = parser.parse_args(argv)
    choice = os.environ.get("CROWNHEAD_ENGINE")
    if choice:  # the engine imported only when asked: most commands never search
        from crownhead.rules.engine import native

        try:
            native.choose(choice)
        except ValueError as exc:
            parser.error(str(exc))
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        # A part whose library is an optional extra this installation has not.
        message = missing_extra(exc)
        if message is None:
            raise
        print(f"crownhead: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `crownhead moves | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0
