"""Event sinks: the log lines every event becomes (``crownhead run --log json|text``).

A sink is any ``Callable[[Event], None]``; the application gives it every event, the
tracker's and its own, after the game has been saved.

>>> from crownhead.firmware.events import MoveMade
>>> lines = []
>>> text_sink(lines.append)(MoveMade(1500, 1, "black", "11-15", (11, 15), ()))
>>> lines
['     1.500  move 1: black 11-15\\n']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crownhead.firmware.app.players import called
from crownhead.firmware.events import (
    Alert,
    BoardWarning,
    ComputerMove,
    Crowned,
    Event,
    GameOver,
    GameSaved,
    GameStarted,
    MatchScore,
    MoveMade,
    NewGame,
    Notice,
    ProblemReport,
    TakenBack,
    event_line,
)

__all__ = ["Sink", "describe_event", "json_sink", "text_sink"]

Sink = Callable[[Event], None]


def describe_event(event: Event) -> str:
    """One readable line for an event (the ``--log text`` format)."""
    if isinstance(event, MoveMade):
        return f"move {event.ply}: {event.side} {event.move}"
    if isinstance(event, BoardWarning):
        return f"warning {event.code}: {event.message}"
    if isinstance(event, Crowned):
        return f"crown the man on {event.square}"
    if isinstance(event, TakenBack):
        return f"move {event.ply} taken back"
    if isinstance(event, GameOver):
        return f"game over: {event.result} ({event.reason})"
    if isinstance(event, NewGame):
        return f"new game from {event.fen}"
    if isinstance(event, GameStarted):
        how = "resumed" if event.resumed else "new"
        return f"game {event.id} {how} at ply {event.ply}"
    if isinstance(event, ComputerMove):
        who = called(event.player, event.side)
        named = f"{who} ({event.side})" if who != event.side else who
        return f"{named} plays {event.move}: make it on the board"
    if isinstance(event, GameSaved):
        return f"game saved ({event.result}) as {event.path}"
    if isinstance(event, (Notice, Alert)):
        return event.message
    if isinstance(event, MatchScore):
        of = f" of {event.games}" if event.games else ""
        score = f"{event.first} {event.marks[0]}, {event.second} {event.marks[1]}"
        if event.cause == "game-start":
            return f"match {event.id}: game {event.number}{of} begins, {event.black} has Black; {score}"
        end = f"; {event.winner} takes the match" if event.winner else ("; the match is drawn" if event.over else "")
        return f"match {event.id}: after game {event.number}{of}, {score}{end}"
    if isinstance(event, ProblemReport):
        return _problem_line(event)
    data = event.to_json()
    return f"{data.pop('event')} " + " ".join(f"{k}={v}" for k, v in data.items() if k != "t")


def _problem_line(event: ProblemReport) -> str:
    record = f"level {event.level}, streak {event.streak} (best {event.best_streak})"
    if event.cause == "begin":
        return f"problem {event.id} ({event.title}): {event.task}; {record}"
    if event.cause == "hint":
        return f"problem {event.id}: hint {event.hint}"
    if event.cause == "verdict":
        return f"problem {event.id} {event.status}: {event.reason}; {record}"
    return f"the problems are left; {record}"


def json_sink(write: Callable[[str], Any], flush: Callable[[], Any] | None = None) -> Sink:
    """A sink writing each event as one JSON line (flushed, so a crash loses nothing said)."""

    def sink(event: Event) -> None:
        write(event_line(event) + "\n")
        if flush is not None:
            flush()

    return sink


def text_sink(write: Callable[[str], Any], flush: Callable[[], Any] | None = None) -> Sink:
    """A sink writing each event as a readable line with its time in seconds."""

    def sink(event: Event) -> None:
        write(f"{event.t / 1000:10.3f}  {describe_event(event)}\n")
        if flush is not None:
            flush()

    return sink
