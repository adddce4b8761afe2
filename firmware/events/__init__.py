"""Everything the board tells the world, each kind one :class:`Event` subclass.

Every event is an immutable value with the virtual or real time ``t`` (milliseconds on
the injected clock) at which it happened, and ``to_json()`` gives exactly the object
printed by ``crownhead replay`` (see ``docs/replay.md``); :func:`event_from_json` reads
any of them back, whatever else was imported, and :func:`event_line` writes one as the
line of JSON every output sends (the one place that does). A side is a
:class:`~crownhead.firmware.events.side.Side`, a string that knows its colour:

>>> MoveMade(1000, ply=1, side="black", move="11-15", path=(11, 15), captures=()).to_json()
{'t': 1000, 'event': 'move', 'ply': 1, 'side': 'black', 'move': '11-15', 'path': [11, 15], 'captures': []}
>>> event_from_json({"t": 5, "event": "crown", "square": 30})
Crowned(t=5, square=30)

The kinds, one module each: :mod:`~crownhead.firmware.events.board` (the tracker's: moves,
warnings, crownings, takebacks, the lights), :mod:`~crownhead.firmware.events.referee` (cautions,
forfeits, ballots...), :mod:`~crownhead.firmware.events.clock` (a flag, the clocks' times) and
:mod:`~crownhead.firmware.events.app` (a game begun or saved, the machine's move, a match's
score, a problem); :mod:`~crownhead.firmware.events.base` is the base class, the reader and the writer,
:mod:`~crownhead.firmware.events.side` the side. A new kind goes
into one of them (see :mod:`~crownhead.firmware.events.base`).
"""

from __future__ import annotations

from crownhead.firmware.events.app import ComputerMove, GameSaved, GameStarted, MatchScore, ProblemReport, Spoken
from crownhead.firmware.events.base import EVENT_KINDS, Event, event_from_json, event_line
from crownhead.firmware.events.board import (
    ALERT_CODES,
    WARNING_CODES,
    Alert,
    BoardWarning,
    Claim,
    Crowned,
    DrawDeclined,
    DrawLapsed,
    DrawOffer,
    Final,
    ForcedJump,
    GameOver,
    HuffTakenBack,
    Huffed,
    Lights,
    MissedJump,
    MoveMade,
    NewGame,
    Notice,
    Reopened,
    ResignAsked,
    SetUp,
    SetUpRank,
    TakebackAsked,
    TakenBack,
)
from crownhead.firmware.events.clock import ClockReport, ClockState, Flag
from crownhead.firmware.events.referee import OFFENCE_CODES, BallotDrawn, Caution, Condoned, DrawClaimable, Forfeit
from crownhead.firmware.events.side import Side

__all__ = [
    "Event",
    "EVENT_KINDS",
    "event_from_json",
    "event_line",
    "Side",
    "WARNING_CODES",
    "ALERT_CODES",
    "MoveMade",
    "BoardWarning",
    "Crowned",
    "TakenBack",
    "GameOver",
    "NewGame",
    "SetUp",
    "SetUpRank",
    "MissedJump",
    "Huffed",
    "HuffTakenBack",
    "ForcedJump",
    "DrawOffer",
    "DrawDeclined",
    "DrawLapsed",
    "TakebackAsked",
    "Claim",
    "ResignAsked",
    "Reopened",
    "Lights",
    "Final",
    "Notice",
    "Alert",
    "OFFENCE_CODES",
    "Caution",
    "Forfeit",
    "DrawClaimable",
    "BallotDrawn",
    "Condoned",
    "Flag",
    "ClockReport",
    "ClockState",
    "GameStarted",
    "ComputerMove",
    "GameSaved",
    "MatchScore",
    "ProblemReport",
    "Spoken",
]
