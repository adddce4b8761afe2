"""Shared test set-up: the Blinka environment, the Hypothesis profile and the fixtures.

The helpers themselves (the application rig, random games, serial cables) live in the
``helpers`` package beside this file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# Blinka picks its board when it is first imported, and these must be set by then: its
# OS-agnostic generic board makes ``board``, ``digitalio`` and ``neopixel`` the real modules
# on a machine that is not a Raspberry Pi, and the dependency check must not offer to
# pip-install platform packages mid-test. Set here, once, before any test module loads.
os.environ.setdefault("BLINKA_OS_AGNOSTIC", "1")
os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from helpers import DATA  # noqa: E402
from helpers.cable import NullModem  # noqa: E402
from helpers.rig import Rig  # noqa: E402

# One Hypothesis profile for every property test. The checks are CPU-bound and the suite
# shares a small machine, so no per-example deadline and no "too slow" health check (both
# are about the machine's load, not the code). Derandomized: each run draws the same
# examples, so a red run is red again on rerun; HYPOTHESIS_PROFILE=explore draws fresh
# examples (and keeps the failures it finds) when hunting for bugs.
settings.register_profile(
    "crownhead",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    parent=settings.get_profile("crownhead"),
    derandomize=False,
    database=settings.get_profile("default").database,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "crownhead"))

# CROWNHEAD_ENGINE=python runs the whole suite on the pure-Python search, as the
# crownhead command does (rules.engine reads no environment of its own).
from crownhead.rules.engine import native  # noqa: E402

native.choose(os.environ.get(native.ENV))


@pytest.fixture(params=["native", "python"])
def engine_both_ways(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test with the native search core and again with the pure-Python search
    (chosen when an Engine is made); the native run skips, saying why, where the core
    was not built."""
    from crownhead.rules.engine import native

    if request.param == "native" and not native.built():
        pytest.skip(native.describe())
    was = native.wanted()
    native.choose(request.param)
    yield str(request.param)
    native.choose("native" if was else "python")


@pytest.fixture
def shared_data() -> Path:
    """The real games, problems and ballots of ../shared/data (skips when absent)."""
    if not DATA.is_dir():
        pytest.skip(f"reference data not found beside the checkout ({DATA.name} in ../shared)")
    return DATA


@pytest.fixture
def neopixel_wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """The bytes each NeoPixel transmit puts on the data line.

    Everything above the wire is the real ``neopixel.NeoPixel`` and ``adafruit_pixelbuf``
    code on Blinka's generic board; only its final byte transmit is replaced by this
    recorder. GPIO18 and GPIO10 (PWM and SPI data pins) map to the generic board's pixel pin.
    """
    import board
    from adafruit_blinka.microcontroller.generic_agnostic_board import neopixel as generic

    assert board.board_id == "OS_AGNOSTIC_BOARD", "Blinka was imported before BLINKA_OS_AGNOSTIC was set"
    sent: list[bytes] = []
    monkeypatch.setattr(generic, "neopixel_write", lambda pin, buf: sent.append(bytes(buf)))
    monkeypatch.setattr(board, "D18", board.NEOPIXEL, raising=False)
    monkeypatch.setattr(board, "D10", board.NEOPIXEL, raising=False)
    yield sent


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """Builds application rigs (:class:`helpers.rig.Rig`) and closes them after the test.

    ``make_rig(**options)`` keeps the store in ``tmp_path``; ``make_rig(state, **options)``
    puts it elsewhere (None: no store).
    """
    rigs: list[Rig] = []

    def make(state: Path | None = tmp_path, **options: Any) -> Rig:
        rig = Rig(state, **options)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.close()


@pytest.fixture
def cable(tmp_path: Path) -> Iterator[NullModem]:
    """A null-modem cable between two serial device files in ``tmp_path``."""
    modem = NullModem(tmp_path)
    yield modem
    modem.close()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless chromium for the whole run (Debian's, through Playwright): started
    once per worker, not once per test module (about a second each). Tests take it
    through ``browser``."""
    from helpers.web import CHROMIUM_FLAGS, chromium_path

    path = chromium_path()
    if path is None:
        pytest.skip("no chromium browser installed (apt-get install chromium); the page's browser tests need one")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright Python package is not installed (pip install -e '.[dev]')")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="crownhead-chromium-") as profile:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile,
                executable_path=path,
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport={"width": 1000, "height": 900},
                timeout=120_000,  # starting chromium on a very busy machine
            )
            # Every wait of every page: a bound on a failure only.
            context.set_default_timeout(120_000)
            try:
                yield context
            finally:
                context.close()


@pytest.fixture(scope="module")
def browser(chromium: Any) -> Iterator[Any]:
    """The headless chromium for a test module, as if started for it: no cookies from
    another module's boards (every board is on 127.0.0.1, and a host's cookies go to all
    its ports), and the pages the module left open closed after it."""
    chromium.clear_cookies()
    before = set(chromium.pages)
    try:
        yield chromium
    finally:
        for page in chromium.pages:
            if page not in before:
                page.close()
        chromium.clear_cookies()
