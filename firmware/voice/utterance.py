"""What the board wants to say, before it is put into words: an :class:`Utterance`.

An utterance is a catalogue key and its arguments, with the kind of thing it is (a
move, a warning...), which decides how urgent it is and whether the settings let it be
spoken. Only :mod:`crownhead.firmware.voice.adapter` makes them from the application's events;
the catalogue, the queue and the speaker know nothing else about the game.

>>> u = Utterance.of("move", "move", side="black", start=11, end=15)
>>> u.kind, u.key, u.get("start"), u.side
('move', 'move', 11, 'black')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

__all__ = ["Arg", "KINDS", "Utterance", "spoken_kinds", "SPEAK_CHOICES"]

#: An argument: a number (a square, a count, milliseconds), a word's code (a side, a
#: reason), free text (a player's name), or squares (a path, the captures).
Arg = Union[int, str, tuple[int, ...], tuple[str, ...]]

#: The kinds of utterance, in the ``kind`` field of ``sentences.jsonl``:
#: ``move`` (a move made, the machine's, a takeback), ``warning`` (what the lights warn
#: of), ``guidance`` (what to do next: crown, set up), ``ruling`` (the referee's),
#: ``clock``, ``offer`` (draws, resignations), ``result``, ``info`` (a game begun, a
#: notice) and ``answer`` (to a request: the last move, the position...).
KINDS: tuple[str, ...] = ("move", "warning", "guidance", "ruling", "clock", "offer", "result", "info", "answer")

#: What ``[voice] speak`` may be.
SPEAK_CHOICES: tuple[str, ...] = ("all", "moves", "warnings", "off")

_SPOKEN: dict[str, frozenset[str]] = {
    "all": frozenset(KINDS),
    # A request is always answered: the person asked.
    "moves": frozenset({"move", "result", "answer"}),
    "warnings": frozenset({"warning", "guidance", "ruling", "clock", "answer"}),
    "off": frozenset(),
}


def spoken_kinds(speak: str) -> frozenset[str]:
    """The kinds said under ``[voice] speak``; ValueError naming the choices.

    >>> sorted(spoken_kinds("moves"))
    ['answer', 'move', 'result']
    """
    try:
        return _SPOKEN[speak]
    except KeyError:
        raise ValueError(f"speak must be one of {', '.join(SPEAK_CHOICES)}, not {speak!r}") from None


@dataclass(frozen=True, slots=True)
class Utterance:
    """One sentence to say: ``kind`` (in :data:`KINDS`), the catalogue ``key`` and its ``args``."""

    kind: str
    key: str
    args: tuple[tuple[str, Arg], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown utterance kind {self.kind!r} (known: {', '.join(KINDS)})")

    @classmethod
    def of(cls, kind: str, key: str, **args: Arg) -> Utterance:
        return cls(kind, key, tuple(args.items()))

    @property
    def mapping(self) -> Mapping[str, Arg]:
        return dict(self.args)

    def get(self, name: str, default: Arg | None = None) -> Arg | None:
        for key, value in self.args:
            if key == name:
                return value
        return default

    @property
    def side(self) -> str:
        """The side the sentence is about ("" if none): per-side languages choose by it."""
        side = self.get("side", "")
        return side if isinstance(side, str) else ""
