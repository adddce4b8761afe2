"""Text from outside quoted in an error message: enough of it to find it, never all of it.

A bad FEN of 90 KB given on the command line is named with its first characters and its
length, not echoed whole (issue 54).
"""

from __future__ import annotations

__all__ = ["EXCERPT", "excerpt"]

#: Characters of a bad input (a FEN, a part of one) quoted in an error.
EXCERPT = 40


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text`` quoted for an error message: its first ``limit`` characters, and its length
    when it is longer.

    >>> excerpt("W:W18:B14"), excerpt("X" * 90_000, 4)
    ("'W:W18:B14'", "'XXXX...' (90,000 characters)")
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '...'!r} ({len(text):,} characters)"
