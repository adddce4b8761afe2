"""The side an event is about, as a value: :class:`Side`.

A :class:`Side` is a string (``Side.BLACK == "black"``), so events read and print as the
names ``docs/replay.md`` documents, and it knows its colour in the rules
(:attr:`Side.color`), so nobody parses ``"black"`` back into a colour:

>>> from crownhead.rules import WHITE
>>> Side.of(WHITE), Side.WHITE.color is WHITE, Side.BLACK.opponent
('white', True, 'white')
>>> Side.read("red")
Traceback (most recent call last):
ValueError: a side is black or white, got 'red'
"""

from __future__ import annotations

import enum

from crownhead.rules import BLACK, WHITE, Color

__all__ = ["Side"]


class Side(enum.StrEnum):
    """Black or White, as the events name them."""

    BLACK = "black"
    WHITE = "white"

    def __repr__(self) -> str:
        # An event's repr shows the side as its JSON does ("side='black'"), as before sides
        # were typed: the doctests and logs that print events read the same.
        return repr(self.value)

    @classmethod
    def of(cls, color: Color) -> Side:
        """The side of the rules' ``color``."""
        return cls.BLACK if color is BLACK else cls.WHITE

    @classmethod
    def read(cls, value: object) -> Side:
        """The side named ``value`` (``"black"`` or ``"white"``); ValueError naming it otherwise."""
        try:
            if isinstance(value, str):
                return cls(value)
        except ValueError:
            pass
        raise ValueError(f"a side is black or white, got {str(value)[:40]!r}") from None

    @property
    def color(self) -> Color:
        """The rules' colour of this side."""
        return BLACK if self is Side.BLACK else WHITE

    @property
    def opponent(self) -> Side:
        return Side.WHITE if self is Side.BLACK else Side.BLACK
