"""The native search core (:file:`rules/engine/_native.c`), when it was built.

``pip install`` compiles it with the system compiler (setup.py, an optional extension):
where there is no compiler the install still succeeds and the engine searches in pure
Python, which is also the reference the native core is tested against (the same move
generation, evaluation, ordering and tree, so the same move, score and node count at a
fixed depth). :func:`choose` turns the core off for the engines made after it; the
``crownhead`` command and the test suite call it with ``CROWNHEAD_ENGINE`` from the
environment (``python`` forces the fallback; this package reads no environment).

The core holds no weights or keys of its own: they are handed over here, from
:mod:`crownhead.rules.engine.evaluation` and :mod:`crownhead.rules.engine.zobrist`, so both searches read
one source.

>>> describe().startswith(("native search core", "pure-Python search"))
True
>>> choose("fast")
Traceback (most recent call last):
    ...
ValueError: CROWNHEAD_ENGINE is native or python, not 'fast'
"""

from __future__ import annotations

import weakref
from types import ModuleType

from crownhead.rules.engine.egdb import WON, EndgameProbe, EndgameTables
from crownhead.rules.engine.evaluation import native_weights
from crownhead.rules.engine.zobrist import KING_SQUARE, MAN_SQUARE, SIDE

#: The environment variable the ``crownhead`` command and the tests pass to :func:`choose`.
ENV = "CROWNHEAD_ENGINE"


_built: ModuleType | None
try:
    import crownhead.rules.engine._native as _native
except ImportError as error:  # not built: no compiler at install time, or a source tree
    _built = None
    # Why it was not built is the installation's to tell (crownhead.extras.native_cause):
    # finding out looks at the machine, which the rules core never does.
    _missing = f"the native search core was not built ({error})"
else:
    _native.set_keys(MAN_SQUARE, KING_SQUARE, SIDE)
    _native.set_weights(native_weights())
    _built = _native
    _missing = ""

_wanted = True


def built() -> bool:
    """Whether the native core was compiled at install time."""
    return _built is not None


def module() -> ModuleType | None:
    """The compiled core whatever :func:`choose` said (tests compare it with Python)."""
    return _built


def choose(name: str | None) -> None:
    """``python`` searches in Python from now on; ``native`` (or empty, or None) with the
    core where it was built."""
    global _wanted
    which = (name or "native").strip().lower()
    if which not in ("native", "python"):
        raise ValueError(f"{ENV} is native or python, not {name!r}")
    _wanted = which == "native"


def wanted() -> bool:
    """Whether the native core is to be used where it was built (see :func:`choose`)."""
    return _wanted


def core() -> ModuleType | None:
    """The native module to search with, or None for the pure-Python search."""
    return _built if _wanted else None


def reload_weights() -> None:
    """Hand the evaluation's weights to the core again (after changing them in
    :mod:`crownhead.rules.engine.evaluation`, as the tuning bench does)."""
    if _built is not None:
        _built.set_weights(native_weights())


_probes: weakref.WeakKeyDictionary[EndgameTables, object] = weakref.WeakKeyDictionary()


def probe_of(egdb: EndgameProbe | None) -> object | None:
    """The native core's probe of ``egdb`` (made once per set of tables, kept while it
    lives), which the native search calls without leaving C but to read a block it has
    not read yet; None where the core is not built or ``egdb`` is not
    :class:`~crownhead.rules.engine.egdb.EndgameTables` over tables it can read
    (:meth:`~crownhead.rules.engine.egdb.EndgameTables.blocks`): the search then calls
    ``egdb.value`` back, as before."""
    if _built is None or not isinstance(egdb, EndgameTables) or not 0 < egdb.pieces <= 6:
        return None
    made = _probes.get(egdb)
    if made is None:
        blocks = egdb.blocks()
        if blocks is None:
            return None
        tables = weakref.ref(egdb)

        def fallback(own: int, opp: int, kings: int, black: bool) -> int | None:
            # A block the core could not read: the Python probe drops the table and
            # reports it, once (the core holds the tables weakly, so they can go).
            alive = tables()
            return alive.value(own, opp, kings, black) if alive is not None else None

        made = _probes[egdb] = _built.Probe(egdb.pieces, blocks, fallback, WON)
    return made


def describe() -> str:
    """One line on which search runs, and why (said once at start by the board)."""
    if _built is None:
        return f"pure-Python search: {_missing}"
    if not _wanted:
        return f"pure-Python search: {ENV}=python"
    return "native search core (C), built at install"


__all__ = [
    "ENV",
    "built",
    "choose",
    "core",
    "describe",
    "module",
    "probe_of",
    "reload_weights",
    "wanted",
]
