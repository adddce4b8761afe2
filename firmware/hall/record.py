"""One board as the hall keeps it: what it last said, bounded, and what the hall saw of its game.

A board's messages are data from the network: the hall keeps only the keys it shows,
each of a bounded kind and length (:func:`clean_state`), a game's moves as at most
:data:`~crownhead.firmware.hall.judge.MAX_PLIES` move texts of the shape PDN writes them, and its
last :data:`MAX_ALERTS` alerts, each a few short fields. Whatever a board sends, it holds
a few tens of KiB of the hall's memory and of an ``/api/boards`` answer.

>>> kept = clean_state({"ply": 2, "black": "A" * 999, "moves": ["11-15", "23-19"], "extra": "?" * 10**6})
>>> kept["moves"], len(kept["black"]), "extra" in kept
(['11-15', '23-19'], 80, False)
>>> clean_state({"moves": ["11-15", "x" * 999]})["moves"] is None  # not a game's moves: none kept
True
>>> alert({"event": "caution", "side": "black", "message": "touch-move " * 1000})["message"][-3:]
'...'
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from crownhead.firmware.hall.judge import MAX_PLIES

__all__ = ["BoardRecord", "Witness", "clean_state", "alert", "checked_move", "MAX_ALERTS", "PENDING"]

#: Alerts kept for a board (the newest).
MAX_ALERTS = 20
#: A move as PDN writes it: squares 1-32 joined by ``-`` or ``x`` (a capture route of at
#: most 12 jumps).
_MOVE = re.compile(r"[0-9]{1,2}(?:[-x][0-9]{1,2}){1,12}")
_SIDES = ("black", "white")
_RESULTS = ("1-0", "0-1", "1/2-1/2")
#: A game the hall saw begin whose id the board has not told yet.
PENDING = "\x00pending"
#: Games a board played before its current one whose beginning the hall remembers (a
#: result sent late, after the next game began, is still judged as seen).
MAX_SEEN = 8


def _text(value: Any, limit: int) -> str | None:
    """``value`` if it is text, cut to ``limit`` characters (with ``...``); else None."""
    if not isinstance(value, str):
        return None
    return value if len(value) <= limit else value[: limit - 3] + "..."


def _count(value: Any, limit: int) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit else None


def checked_move(value: Any) -> str | None:
    """``value`` if it is a move as PDN writes it, else None."""
    return value if isinstance(value, str) and _MOVE.fullmatch(value) else None


def clean_state(body: dict[str, Any]) -> dict[str, Any]:
    """The keys of a board's state the hall uses, each bounded; the rest is dropped."""
    moves = body.get("moves")
    kept_moves = None
    if isinstance(moves, list) and len(moves) <= MAX_PLIES:
        texts = [checked_move(m) for m in moves]
        if all(t is not None for t in texts):
            kept_moves = [t for t in texts if t is not None]
    clocks = body.get("clocks")
    if isinstance(clocks, dict) and all(_count(clocks.get(s), 10**10) is not None for s in _SIDES):
        clocks = {s: clocks[s] for s in _SIDES}
    else:
        clocks = None
    match = body.get("match")
    if not isinstance(match, dict) or len(json.dumps(match)) > 2048:
        match = None
    condoned = body.get("condoned")
    if not (isinstance(condoned, list) and len(condoned) <= MAX_PLIES and all(_count(c, MAX_PLIES) for c in condoned)):
        condoned = []
    result = body.get("result")
    return {
        "event": _text(body.get("event"), 80),
        "round": _text(body.get("round"), 20) if not isinstance(body.get("round"), int) else str(body["round"]),
        "game_id": _text(body.get("game_id"), 100),
        "fen": _text(body.get("fen"), 200),
        "start": _text(body.get("start"), 200),
        "ply": _count(body.get("ply"), MAX_PLIES),
        "turn": body.get("turn") if body.get("turn") in _SIDES else None,
        "black": _text(body.get("black"), 80),
        "white": _text(body.get("white"), 80),
        "result": result if result in _RESULTS else None,
        "reason": _text(body.get("reason"), 40),
        "clocks": clocks,
        "match": match,
        "status": _text(body.get("status"), 200),
        "moves": kept_moves,
        "condoned": condoned,
        "pdn": _text(body.get("pdn"), 48 * 1024),
    }


def alert(event: dict[str, Any]) -> dict[str, Any]:
    """An alert event (a caution, forfeit, claim, flag) as the hall keeps it: a few short fields."""
    kept: dict[str, Any] = {"event": _text(event.get("event"), 20)}
    for key in ("side", "code", "offence", "reason", "message", "move"):
        value = _text(event.get(key), 200)
        if value is not None:
            kept[key] = value
    t = _count(event.get("t"), 10**12)
    if t is not None:
        kept["t"] = t
    return kept


@dataclass
class Witness:
    """What the hall saw of a board's game: whether it saw it begin, in which round (the
    hall's current round then), from which position, and its id once the board told it."""

    started: bool = False
    game_id: str | None = None
    round: str | None = None
    start: str | None = None
    ply: int = 0


@dataclass
class BoardRecord:
    """One board as the hall knows it."""

    name: str
    online: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    events: int = 0
    alerts: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ALERTS))
    witness: Witness = field(default_factory=Witness)
    #: The hall's word on the board's result: None (no result), ``counted`` or ``disputed``.
    verdict: str | None = None
    #: Why a result is disputed.
    why: str | None = None
    #: The games the hall saw begin, by id, the newest last (at most :data:`MAX_SEEN`).
    seen: dict[str, Witness] = field(default_factory=dict)
    #: The board's finished games of its current game's round before the one its state
    #: shows (a pair's first game once the return game begins), oldest first, each a row
    #: of the round's results (:func:`round_row`) with its PDN; at most :data:`MAX_SEEN`.
    earlier: list[dict[str, Any]] = field(default_factory=list)

    def remember(self, witness: Witness) -> None:
        """Keep that the hall saw ``witness``'s game begin (it is the board's game now)."""
        assert witness.game_id is not None
        self.seen.pop(witness.game_id, None)
        self.seen[witness.game_id] = witness
        while len(self.seen) > MAX_SEEN:
            del self.seen[next(iter(self.seen))]

    def round_of_game(self) -> str | None:
        """The round of the game the board's state shows: the one it began in as the hall
        saw it, else the one the board says."""
        return self.witness.round if self.witness.started and self.witness.round else self.state.get("round")

    def keep_finished(self, new: dict[str, Any]) -> None:
        """Keep the finished game the board's state showed if ``new`` (its next state) is
        another game: the round's results list it still (called before ``new`` replaces it)."""
        old = self.state
        if old.get("result") is None or not _another_game(old, new):
            return
        row = round_row(self.name, old, self.round_of_game(), self.verdict, self.why)
        row["pdn"] = old.get("pdn")
        # A round's games only: a board's list begins again with each round.
        kept = [g for g in self.earlier if g["round"] == row["round"]]
        if row["game_id"] is not None:
            kept = [g for g in kept if g["game_id"] != row["game_id"]]
        self.earlier = [*kept, row][-MAX_SEEN:]

    def earlier_rows(self) -> list[dict[str, Any]]:
        """The board's finished games of its current game's round before that game."""
        round_now = self.round_of_game()
        return [{k: v for k, v in g.items() if k != "pdn"} for g in self.earlier if g["round"] == round_now]

    def earlier_pdn(self) -> list[str]:
        round_now = self.round_of_game()
        return [g["pdn"] for g in self.earlier if g["round"] == round_now and isinstance(g["pdn"], str)]

    def summary(self) -> dict[str, Any]:
        s = self.state
        return {
            "name": self.name,
            "online": self.online,
            "event": s.get("event"),
            "round": s.get("round"),
            "fen": s.get("fen"),
            "ply": s.get("ply") if s.get("ply") is not None else len(self.moves),
            "black": s.get("black"),
            "white": s.get("white"),
            "clocks": s.get("clocks"),
            "result": s.get("result"),
            "reason": s.get("reason"),
            "status": s.get("status"),
            "match": s.get("match"),
            "moves": list(self.moves),
            "alerts": list(self.alerts),
            "verdict": self.verdict,
            "why": self.why,
            "earlier": self.earlier_rows(),
        }


def _another_game(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether the state ``new`` is of another game than ``old`` (by id; games without
    one by their players, or by moves that do not go on from ``old``'s)."""
    if old.get("game_id") != new.get("game_id"):
        return True
    if old.get("game_id") is not None:
        return False
    if (old.get("black"), old.get("white")) != (new.get("black"), new.get("white")):
        return True
    old_moves, new_moves = old.get("moves") or [], new.get("moves") or []
    return len(new_moves) < len(old_moves) or new_moves[: len(old_moves)] != old_moves


def round_row(
    board: str, state: dict[str, Any], round_: str | None, verdict: str | None, why: str | None
) -> dict[str, Any]:
    """One line of the round's results: a board's finished game as ``/api/boards``,
    ``/results.csv`` and the page's *This round* table show it."""
    return {
        "name": board,
        "game_id": state.get("game_id"),
        "round": round_,
        "black": state.get("black"),
        "white": state.get("white"),
        "result": state.get("result"),
        "reason": state.get("reason"),
        "ply": state.get("ply"),
        "verdict": verdict,
        "why": why,
    }
