"""Moves as hand actions: the lifts, placements and pauses a person makes on the board.

Used to perform a move on the simulated board (the interactive simulator's ``11-15``
typed on the keyboard) and to generate the messy, human test scripts that the tracker
must read exactly.

>>> from rules import Move
>>> [str(a) for a in plain_actions(Move((15, 24, 31), (19, 28)))]
['lift 15', 'place 24', 'lift 24', 'place 31', 'lift 19', 'lift 28']
>>> print(script_text(spaced(plain_actions(Move((11, 15))), 300)))
lift 11
wait 300
place 15
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules import Move

__all__ = [
    "Action",
    "HumanStyle",
    "plain_actions",
    "spaced",
    "human_actions",
    "game_action_chunks",
    "game_actions",
    "script_text",
]


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a script: ``lift``/``place`` a square, ``wait`` ms, ``press`` a button.

    ``line`` is the script line it came from (0 when it was made by a program).
    """

    verb: str
    arg: int | str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.verb} {self.arg}"


def lift(square: int) -> Action:
    return Action("lift", square)


def place(square: int) -> Action:
    return Action("place", square)


def wait(ms: int) -> Action:
    return Action("wait", int(ms))


def plain_actions(move: Move) -> list[Action]:
    """The simplest way to make ``move``: lift, touch down on every landing, take off captures."""
    out = [lift(move.start)]
    for square in move.path[1:-1]:
        out += [place(square), lift(square)]
    out.append(place(move.end))
    out += [lift(c) for c in move.captures]
    return out


def spaced(actions: Iterable[Action], ms: int) -> list[Action]:
    """``actions`` with a ``wait ms`` between each two."""
    out: list[Action] = []
    for a in actions:
        if out:
            out.append(wait(ms))
        out.append(a)
    return out


def script_text(actions: Iterable[Action]) -> str:
    """A replay script, one action a line."""
    return "\n".join(str(a) for a in actions)


@dataclass(frozen=True, slots=True)
class HumanStyle:
    """How messy the generated hands are. Times in milliseconds.

    ``bounce_ms`` must stay below the debouncer's time so a bounce never shows.
    """

    pause_ms: tuple[int, int] = (100, 2000)  #: pauses inside a move
    short_pause_ms: tuple[int, int] = (100, 700)  #: most pauses are short
    long_pause_chance: float = 0.15
    slide_chance: float = 0.25  #: plain moves slid (end covered before start uncovered)
    slide_overlap_ms: tuple[int, int] = (5, 60)
    bounce_chance: float = 0.15  #: a switch chatters when a piece lands or leaves
    bounce_ms: int = 8  #: total chatter time, below the debounce time
    touch_down_chance: float = 0.6  #: a multi-jump touches down on a landing square
    crown_swap_chance: float = 0.4  #: a crowned man is lifted and replaced by a king


def _pause(rng: random.Random, style: HumanStyle) -> Action:
    lo, hi = style.pause_ms if rng.random() < style.long_pause_chance else style.short_pause_ms
    return wait(rng.randint(lo, hi))


def _bounce(square: int, occupied_after: bool, style: HumanStyle) -> list[Action]:
    """A chatter of the switch on ``square`` just after it changed to ``occupied_after``."""
    half = max(1, style.bounce_ms // 3)
    flip, back = (lift, place) if occupied_after else (place, lift)
    return [wait(half), flip(square), wait(half), back(square)]


def human_actions(move: Move, rng: random.Random, style: HumanStyle = HumanStyle(), crowns: bool = False) -> list[Action]:
    """``move`` made the way a person might: any order of captures, touch-downs, slides, bounces.

    Captured pieces come off before the jumper is lifted, while it is in the hand, while it
    stands on a landing square or after it has arrived, in random order. The result ends
    with the move's last switch change (no trailing wait).
    """
    out: list[Action] = []

    def act(action: Action) -> None:
        if out:
            out.append(_pause(rng, style))
        out.append(action)
        if action.verb in ("lift", "place") and rng.random() < style.bounce_chance:
            out.extend(_bounce(int(action.arg), action.verb == "place", style))

    if not move.captures:
        if rng.random() < style.slide_chance:
            out.append(place(move.end))
            out.append(wait(rng.randint(*style.slide_overlap_ms)))
            out.append(lift(move.start))
        else:
            act(lift(move.start))
            act(place(move.end))
    else:
        landings = move.path[1:]
        touch = [rng.random() < style.touch_down_chance for _ in landings[:-1]] + [True]
        # Slot 0: before the lift; 1: in the hand before any landing; j + 1: after
        # touching down on landing j (0-based). Only slots that happen are used.
        slots = [0, 1] + [j + 2 for j, t in enumerate(touch) if t]
        removal: dict[int, list[int]] = {}
        captures = list(move.captures)
        rng.shuffle(captures)
        for c in captures:
            removal.setdefault(rng.choice(slots), []).append(c)
        for c in removal.get(0, []):
            act(lift(c))
        act(lift(move.start))
        for c in removal.get(1, []):
            act(lift(c))
        for j, square in enumerate(landings):
            if not touch[j]:
                continue
            act(place(square))
            for c in removal.get(j + 2, []):
                act(lift(c))
            if j < len(landings) - 1:
                act(lift(square))
    if crowns and rng.random() < style.crown_swap_chance:
        act(lift(move.end))
        act(place(move.end))
    return out


def game_action_chunks(
    moves: Sequence[tuple[Move, bool]],
    rng: random.Random,
    style: HumanStyle = HumanStyle(),
    fast_reply_chance: float = 0.08,
    fast_reply_ms: tuple[int, int] = (40, 149),
    think_ms: tuple[int, int] = (300, 2500),
) -> list[list[Action]]:
    """A whole game of ``(move, crowns)`` made by two people, one list of actions per move.

    Each list but the first starts with the thinking time before the move. Now and then
    the reply starts within ``fast_reply_ms`` of the last switch change of the move
    before, much faster than the tracker's settle time.
    """
    chunks: list[list[Action]] = []
    for move, crowns in moves:
        chunk: list[Action] = []
        if chunks:
            if rng.random() < fast_reply_chance:
                chunk.append(wait(rng.randint(*fast_reply_ms)))
            else:
                chunk.append(wait(rng.randint(*think_ms)))
        chunk.extend(human_actions(move, rng, style, crowns))
        chunks.append(chunk)
    return chunks


def game_actions(
    moves: Sequence[tuple[Move, bool]],
    rng: random.Random,
    style: HumanStyle = HumanStyle(),
    **options: object,
) -> list[Action]:
    """:func:`game_action_chunks` as one script."""
    return [a for chunk in game_action_chunks(moves, rng, style, **options) for a in chunk]  # type: ignore[arg-type]
