"""The master games' book (rules/engine/masters.py) is what bench/book.py makes of the
published games: rebuilt from ../shared/data and compared, where the data is at hand."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_book_is_what_the_games_give(shared_data: Path) -> None:
    sys.path.insert(0, str(REPO))
    from bench import book

    counts, files = book.gather(shared_data, 12)
    assert "tinsley.pdn" in files
    text = book.render(counts, files, 12, 2)
    assert (REPO / "rules" / "engine" / "masters.py").read_text(encoding="utf-8") == text
