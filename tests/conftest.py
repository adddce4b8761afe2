"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The read-only reference material lives in a `shared` folder beside the checkout.
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"


@pytest.fixture
def shared_data() -> Path:
    """The real games, problems and ballots of ../shared/data (skips when absent)."""
    if not DATA.is_dir():
        pytest.skip(f"reference data not found beside the checkout ({DATA.name} in ../shared)")
    return DATA
