"""How a game was being played, kept in its record so that a restart resumes it the same way.

The game record (``current.json``, :class:`~crownhead.firmware.storage.store.GameRecord`) keeps the
mode (``play``, ``computer``, ``referee``) and, in ``settings``, what goes with it::

    "mode": "computer",
    "settings": {
      "hints": true,
      "machine": {"side": "white", "opponent": "engine", "level": 3, "seed": null,
                  "name": "Crownhead engine (level 3)"},
      "clock": "300+5"
    }

``machine`` is there in computer mode; ``referee`` in referee mode, with the referee's
settings (style, time control, ballot, event, site, round, names) and, in ``game``, its
state of the game (cautions, each side's time left, the ballot, the notes: see
:mod:`crownhead.firmware.referee.snapshot`); ``clock`` is the time control of a two-player or
computer game's board clock. The rules (variant, house rules) are fields of the record
itself. A record without ``settings`` (written before they were kept) is a two-player
game with hints as configured.

Everything is checked before it is used: a mode or a setting that is not one is
reported once, naming the file and the key, and the game resumes as a two-player game
with its moves, never refused.

>>> from crownhead.rules import WHITE
>>> kept = mode_settings("computer", hints=False, machine=(WHITE, MachineSpec("engine", 3), "Crownhead engine (level 3)"))
>>> stored, problem = read_settings("computer", kept, "current.json")
>>> stored.side, stored.machine, stored.hints, problem
(<Color.WHITE: 1>, MachineSpec(opponent='engine', level=3, seed=None), False, None)
>>> read_settings("computer", {**kept, "machine": {**kept["machine"], "level": 11}}, "current.json")[1]
"current.json: 'settings.machine.level' must be 1-10 or null, got 11; the game resumes as a two-player game"
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crownhead.firmware.app.players import MachineSpec
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.files import printable
from crownhead.firmware.gameclock import ClockSpecError, TimeControl
from crownhead.firmware.referee.settings import STYLES, RefereeSettings, parse_ballot
from crownhead.firmware.referee.snapshot import SnapshotError, check_snapshot
from crownhead.firmware.tracking.policy import MODES
from crownhead.firmware.storage.store import GameRecord
from crownhead.rules import BLACK, WHITE, Color, Rules

__all__ = [
    "StoredMode",
    "mode_settings",
    "read_settings",
    "RESUMABLE",
    "Comeback",
    "comeback",
    "offer_text",
    "kept_offer",
]

#: What ``AppSettings.given`` may name: settings chosen for this start (command-line
#: options) that win over the resumed game's own.
RESUMABLE = frozenset(
    {
        "mode",
        "hints",
        "names",
        "rules",
        "clock",
        "computer_plays",
        "opponent",
        "level",
        "seed",
        "referee_style",
        "ballot",
        "ballot_seed",
        "event",
        "site",
        "round",
    }
)

#: The referee's settings a record keeps (not ``record_dir``: a path of the machine
#: it ran on, which stays as configured), with the option that gives each one.
REFEREE_KEYS = {
    "style": "referee_style",
    "clock": "clock",
    "ballot": "ballot",
    "deck": "ballot",
    "seed": "ballot_seed",
    "event": "event",
    "site": "site",
    "round": "round",
    "black": "names",
    "white": "names",
}
_KEYS = ("hints", "machine", "referee", "clock")
_MACHINE_KEYS = ("side", "opponent", "level", "seed", "name")
_SEED = 2**63
_MAX_TAG = 200


class _Bad(ValueError):
    """A setting that is not one: the key (dotted, from ``settings``) and the problem."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"'settings.{key}' {problem}")


@dataclass(frozen=True)
class StoredMode:
    """The mode a game record says the game was played in (two players when it says none)."""

    mode: str = "play"
    #: Hint lights on or off; None: as configured.
    hints: bool | None = None
    #: Computer mode: the machine's side, which machine, and its name.
    side: Color | None = None
    machine: MachineSpec | None = None
    machine_name: str | None = None
    #: Referee mode: the referee's settings (fields of RefereeSettings) and its game state.
    referee: dict[str, Any] = field(default_factory=dict)
    referee_game: dict[str, Any] | None = None
    #: The board clock's time control of a two-player or computer game.
    clock: TimeControl | None = None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _object(value: object, key: str, keys: tuple[str, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(key, f"must be a JSON object, got {_shown(value)}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise _Bad(_join(key, _shown(unknown[0]).strip("'")), "is not a setting the board keeps")
    missing = [k for k in required if k not in value]
    if missing:
        raise _Bad(_join(key, missing[0]), "is missing")
    return value


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _text(value: object, key: str, longest: int = _MAX_TAG) -> str:
    if not isinstance(value, str) or not value or len(value) > longest or not printable(value):
        raise _Bad(key, f"must be a string of 1-{longest} printable characters, got {_shown(value)}")
    return value


def _seed(value: object, key: str) -> int | None:
    if value is not None and (type(value) is not int or not -_SEED <= value < _SEED):
        raise _Bad(key, f"must be a whole number or null, got {_shown(value)}")
    return value


def _control(value: object, key: str) -> TimeControl | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 64:
        raise _Bad(key, f"must be a time control like 300+5 or null, got {_shown(value)}")
    try:
        return TimeControl.parse(value)
    except ClockSpecError as exc:
        raise _Bad(key, f"is not a time control: {exc}") from None


def _machine(value: object) -> tuple[Color, MachineSpec, str]:
    data = _object(value, "machine", _MACHINE_KEYS, _MACHINE_KEYS)
    side = data["side"]
    if side not in ("black", "white"):
        raise _Bad("machine.side", f"must be black or white, got {_shown(side)}")
    opponent = data["opponent"]
    if opponent not in ("engine", "random"):
        raise _Bad("machine.opponent", f"must be engine or random, got {_shown(opponent)}")
    level = data["level"]
    if level is not None and (type(level) is not int or not 1 <= level <= 10):
        raise _Bad("machine.level", f"must be 1-10 or null, got {_shown(level)}")
    spec = MachineSpec(opponent, level, _seed(data["seed"], "machine.seed"))
    return BLACK if side == "black" else WHITE, spec, _text(data["name"], "machine.name")


def _referee(value: object) -> tuple[dict[str, Any], dict[str, Any] | None]:
    keys = (*REFEREE_KEYS, "game")
    data = _object(value, "referee", keys, keys)
    style = data["style"]
    if style not in STYLES:
        raise _Bad("referee.style", f"must be {' or '.join(STYLES)}, got {_shown(style)}")
    ballot = data["ballot"]
    if ballot is not None:
        if type(ballot) is not int:
            raise _Bad("referee.ballot", f"must be an ACF ballot number or null, got {_shown(ballot)}")
        try:
            parse_ballot(ballot)
        except ValueError as exc:
            raise _Bad("referee.ballot", f"is not one: {exc}") from None
    if type(data["deck"]) is not bool or (data["deck"] and ballot is not None):
        raise _Bad("referee.deck", f"must be true or false (false with a ballot number), got {_shown(data['deck'])}")
    fields: dict[str, Any] = {
        "style": style,
        "clock": _control(data["clock"], "referee.clock"),
        "ballot": ballot,
        "deck": data["deck"],
        "seed": _seed(data["seed"], "referee.seed"),
    }
    for key in ("event", "site", "round", "black", "white"):
        fields[key] = _text(data[key], f"referee.{key}")
    game = data["game"]
    if game is not None:
        try:
            game = check_snapshot(game)
        except SnapshotError as exc:
            raise _Bad("referee.game", f"cannot be used: {exc}") from None
    return fields, game


def read_settings(mode: str, settings: Mapping[str, Any], where: str) -> tuple[StoredMode, str | None]:
    """The stored mode of a record with ``mode`` and ``settings`` (read from ``where``),
    and None; or a two-player mode and the one message saying which key was wrong."""
    try:
        return _read(mode, settings), None
    except _Bad as exc:
        return StoredMode(), f"{where}: {exc}; the game resumes as a two-player game"
    except ValueError as exc:  # the mode itself
        return StoredMode(), f"{where}: {exc}; the game resumes as a two-player game"


def _read(mode: str, settings: Mapping[str, Any]) -> StoredMode:
    if mode not in MODES:
        raise ValueError(f"'mode' must be one of {', '.join(MODES)}, got {_shown(mode)}")
    data = _object(dict(settings), "", _KEYS) if settings else {}
    hints = data.get("hints")
    if hints is not None and type(hints) is not bool:
        raise _Bad("hints", f"must be true or false, got {_shown(hints)}")
    stored = StoredMode(mode=mode, hints=hints, clock=_control(data.get("clock"), "clock"))
    if mode == "computer":
        if "machine" not in data:
            raise _Bad("machine", "is missing (computer mode needs the machine's side)")
        side, spec, name = _machine(data["machine"])
        stored = StoredMode(mode, hints, side, spec, name, clock=stored.clock)
    elif "machine" in data:
        raise _Bad("machine", f"belongs to computer mode, not {mode}")
    if mode == "referee":
        if "referee" not in data:
            raise _Bad("referee", "is missing (referee mode needs the referee's settings)")
        fields, game = _referee(data["referee"])
        stored = StoredMode(mode, hints, referee=fields, referee_game=game)
    elif "referee" in data:
        raise _Bad("referee", f"belongs to referee mode, not {mode}")
    if mode == "referee" and "clock" in data:
        raise _Bad("clock", "is the board clock of two-player and computer games (a referee keeps its own)")
    return stored


def mode_settings(
    mode: str,
    *,
    hints: bool,
    machine: tuple[Color, MachineSpec, str] | None = None,
    referee: RefereeSettings | None = None,
    referee_game: Mapping[str, Any] | None = None,
    clock: TimeControl | None = None,
) -> dict[str, Any]:
    """The ``settings`` a record keeps for a game played in ``mode`` (see the module)."""
    out: dict[str, Any] = {"hints": hints}
    if mode == "computer" and machine is not None:
        side, spec, name = machine
        out["machine"] = {
            "side": str(side),
            "opponent": spec.opponent,
            "level": spec.level,
            "seed": spec.seed,
            "name": name,
        }
    if mode == "referee" and referee is not None:
        out["referee"] = {
            "style": referee.style,
            "clock": str(referee.clock) if referee.clock is not None else None,
            "ballot": referee.ballot,
            "deck": referee.deck,
            "seed": referee.seed,
            **{key: getattr(referee, key) or "?" for key in ("event", "site", "round", "black", "white")},
            "game": dict(referee_game) if referee_game is not None else None,
        }
    if mode != "referee" and clock is not None:
        out["clock"] = str(clock)
    return out


@dataclass(frozen=True)
class Comeback:
    """How a resumed game goes on: as its record says, but for what was given for this
    start (:attr:`AppSettings.given <firmware.app.settings.AppSettings.given>`)."""

    mode: str
    #: What is said of it, with the log level: a record that cannot be used, a mode asked for.
    said: tuple[tuple[int, str], ...] = ()
    #: Hint lights on or off; None: as they are.
    hints: bool | None = None
    #: The record's rules, when the games after it follow them; None: as they are.
    rules: Rules | None = None
    #: The board clock's time control from now on.
    clock: TimeControl | None = None
    #: Referee mode resumed as referee mode: the referee's settings to take, and its game.
    referee: dict[str, Any] | None = None
    referee_game: dict[str, Any] | None = None
    #: Computer mode: the machine's side, which machine, and its name (None: its own).
    machine: tuple[Color, MachineSpec, str | None] | None = None


def comeback(record: GameRecord, settings: AppSettings, mode: str, where: str) -> Comeback | None:
    """How the game of ``record`` (read from ``where``) resumes, the board being in ``mode``;
    None for a record written before modes were kept (it resumes as configured). A
    record whose mode or settings are not ones resumes as a two-player game, said once."""
    problem = record.damaged
    stored: StoredMode | None = None
    said: list[tuple[int, str]] = []
    if problem is None and record.settings:
        stored, problem = read_settings(record.mode, record.settings, where)
    if problem is not None:
        said.append((logging.ERROR, problem))
        stored = StoredMode()
    if stored is None:
        return None
    given = settings.given
    chosen = mode if "mode" in given else stored.mode
    if chosen != stored.mode:
        said.append(
            (
                logging.WARNING,
                f"the game resumes in {chosen} mode, as asked (--mode); it was saved in {stored.mode} mode",
            )
        )
    referee = None
    if chosen == "referee" and stored.mode == "referee":
        referee = {key: value for key, value in stored.referee.items() if REFEREE_KEYS[key] not in given}
    machine = _machine_back(settings, stored) if chosen == "computer" else None
    return Comeback(
        chosen,
        tuple(said),
        hints=stored.hints if "hints" not in given else None,
        # The games after it are played under its rules too, as before the restart.
        rules=record.rules if "rules" not in given and "fen" not in given and record.rules != settings.rules else None,
        clock=settings.clock if "clock" in given or stored.mode == "referee" else stored.clock,
        referee=referee,
        referee_game=stored.referee_game if referee is not None else None,
        machine=machine,
    )


def _machine_back(settings: AppSettings, stored: StoredMode) -> tuple[Color, MachineSpec, str | None]:
    """The machine of a game resumed in computer mode: its side, which machine and its
    name as the record keeps them, but for what was given for this start."""
    given = settings.given
    side, spec, name = settings.machine_side, settings.machine, None
    if stored.mode == "computer" and stored.side is not None and stored.machine is not None:
        if "computer_plays" not in given:
            side = stored.side
        spec = MachineSpec(
            settings.machine.opponent if "opponent" in given else stored.machine.opponent,
            settings.machine.level if "level" in given else stored.machine.level,
            settings.machine.seed if "seed" in given else stored.machine.seed,
        )
        if spec == stored.machine and "names" not in given:
            name = stored.machine_name
    return side, spec, name


def offer_text(offer: tuple[Color | None, int] | None) -> str | None:
    """The standing draw offer (:attr:`GameSession.draw_offer
    <firmware.tracking.session.GameSession.draw_offer>`) as a record keeps it: the side
    that made it, ``""`` for a shared button's, None without one.

    >>> offer_text((BLACK, 3)), offer_text((None, 3)), offer_text(None)
    ('black', '', None)
    """
    if offer is None:
        return None
    side = offer[0]
    return str(side) if side is not None else ""


def kept_offer(record: GameRecord) -> tuple[Color | None, int] | None:
    """The draw offer standing when ``record``'s game was saved, as the session keeps
    one (side, ply: the game's ply then), None without one (the inverse of
    :func:`offer_text`): it goes on standing when the game resumes.

    >>> from crownhead.rules import WCDF
    >>> record = GameRecord("g", "2026-01-01T10:00:00", moves=("11-15",), rules=WCDF, offer="white")
    >>> kept_offer(record)
    (<Color.WHITE: 1>, 1)
    """
    if record.offer is None:
        return None
    side = {"black": BLACK, "white": WHITE}.get(record.offer)
    return side, len(record.moves)
