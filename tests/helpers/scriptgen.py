"""Event scripts for the tracker tests: real games made by messy human hands.

Every game of ``../shared/data/tinsley.pdn`` that replays becomes a replay script with
random but human orders (see :func:`crownhead.firmware.simulator.hands.human_actions`): captured pieces
taken off before, between or after the landings, touch-downs on landing squares, slides,
switch bounces shorter than the debounce, pauses of 100-2000 ms inside moves, thinking
time between moves and a few replies started under 150 ms after the move before.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from crownhead.firmware.simulator.hands import Action, HumanStyle, game_actions
from crownhead.rules import WCDF, Move, Position
from crownhead.rules.pdn import read_games

from helpers import DATA

TINSLEY = DATA / "tinsley.pdn"


@dataclass(frozen=True)
class ScriptedGame:
    number: int  #: game number in the file, from 1
    start: Position
    moves: tuple[Move, ...]
    final: Position


@lru_cache(maxsize=1)
def tinsley_games() -> tuple[ScriptedGame, ...]:
    """The replayable Tinsley games (the one with a transcription error left out)."""
    games = []
    for g in read_games(TINSLEY.read_bytes(), TINSLEY.name):
        if g.error is not None:
            continue
        positions = g.positions
        games.append(ScriptedGame(g.number, g.start, tuple(g.moves), positions[-1]))
    return tuple(games)


def crowning_flags(start: Position, moves: tuple[Move, ...]) -> list[tuple[Move, bool]]:
    out = []
    pos = start
    for m in moves:
        after = pos.apply(m, WCDF)
        crowns = not pos.kings & (1 << (m.start - 1)) and bool(after.kings & (1 << (m.end - 1)))
        out.append((m, crowns))
        pos = after
    return out


def game_script(game: ScriptedGame, seed: int, style: HumanStyle = HumanStyle()) -> list[Action]:
    """The hand actions of one game for one seed (deterministic)."""
    rng = random.Random(f"{game.number}/{seed}")
    return game_actions(crowning_flags(game.start, game.moves), rng, style)


def sample(count: int, seed: int) -> Iterator[ScriptedGame]:
    """``count`` games spread over the file, always including the longest one."""
    games = tinsley_games()
    rng = random.Random(seed)
    chosen = set(rng.sample(range(len(games)), min(count, len(games))))
    chosen.add(max(range(len(games)), key=lambda i: len(games[i].moves)))
    for i in sorted(chosen):
        yield games[i]
