"""The event every part speaks: an immutable value with its time, printed as one JSON line.

Every event is an immutable value with the virtual or real time ``t`` (milliseconds on
the injected clock) at which it happened, and ``to_json()`` gives exactly the object
printed by ``crownhead replay`` (see ``docs/replay.md``); :func:`event_from_json` reads
it back, and :func:`event_line` is the one place an event becomes a line of JSON (the
replay's and the log's, the link's, the hall's). A new kind of event is one more subclass
with a ``kind`` and its fields, in a module of :mod:`crownhead.firmware.events`; it is found by
:func:`event_from_json` without further registration::

    @dataclass(frozen=True, slots=True)
    class Caution(Event):
        kind: ClassVar[str] = "caution"
        side: Side
        count: int
        code: str

A side is a :class:`~crownhead.firmware.events.side.Side` (``side: Side | None`` where nobody may be
named: ``""`` in JSON). Built from its name (``"black"``, as tests and old lines give it)
it is read as the :class:`Side` at once, and a name that is no side is refused:

>>> from crownhead.firmware.events import Flag
>>> Flag(0, "white").side is Side.WHITE
True
>>> Flag(0, "red")
Traceback (most recent call last):
ValueError: flag event: a side is black or white, got 'red'
>>> event_line(Flag(7, Side.WHITE))
'{"t":7,"event":"flag","side":"white"}'
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from crownhead.firmware.events.side import Side

__all__ = ["Event", "EVENT_KINDS", "event_from_json", "event_line"]

#: ``kind`` -> event class, filled in as subclasses are defined.
EVENT_KINDS: dict[str, type[Event]] = {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Side):
        return value.value
    return value


#: Each event class's fields that hold a side (see :func:`_sides`), found once.
_SIDES: dict[type, dict[str, bool]] = {}


def _sides(cls: type[Event]) -> dict[str, bool]:
    """The fields of ``cls`` that hold a side: name -> whether it may be nobody (None)."""
    known = _SIDES.get(cls)
    if known is not None:
        return known
    out: dict[str, bool] = {}
    for name, hint in typing.get_type_hints(cls).items():
        if hint is Side:
            out[name] = False
        elif isinstance(hint, types.UnionType) and Side in hint.__args__:
            out[name] = type(None) in hint.__args__
    _SIDES[cls] = out
    return out


@dataclass(frozen=True, slots=True)
class Event:
    """Something the board reports, at time ``t`` in milliseconds."""

    kind: ClassVar[str] = ""
    t: int

    def __init_subclass__(cls) -> None:
        # No zero-argument super() here: dataclass(slots=True) rebuilds the class, which
        # breaks its __class__ cell; object.__init_subclass__ takes nothing anyway.
        kind = cls.__dict__.get("kind")
        if kind:
            if kind in EVENT_KINDS and EVENT_KINDS[kind] is not cls:
                # Dataclass(slots=True) re-creates the class: the new one replaces the old.
                if EVENT_KINDS[kind].__qualname__ != cls.__qualname__:
                    raise TypeError(f"two event classes for kind {kind!r}")
            EVENT_KINDS[kind] = cls

    def __post_init__(self) -> None:
        # A side given by its name is the Side (None for nobody, "" in JSON).
        for name, optional in _sides(type(self)).items():
            value = getattr(self, name)
            if isinstance(value, Side) or (value is None and optional):
                continue
            if optional and value == "":
                object.__setattr__(self, name, None)
                continue
            try:
                object.__setattr__(self, name, Side.read(value))
            except ValueError as exc:
                raise ValueError(f"{self.kind} event: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The replay output object: ``t``, ``event``, then the fields in order (a side by
        its name, nobody as ``""``)."""
        out: dict[str, Any] = {"t": self.t, "event": self.kind}
        sides = _sides(type(self))
        for f in fields(self):
            if f.name != "t":
                value = getattr(self, f.name)
                out[f.name] = "" if value is None and f.name in sides else _jsonable(value)
        return out


def event_line(
    event: Event,
    *,
    ascii: bool = True,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> str:
    """``event`` as one line of JSON, without its newline: the one way every event is
    written. ``ascii`` (``crownhead replay``, ``--log json``) escapes
    every other character (``\\u00e9``), as ``docs/replay.md`` has it; the link and the
    hall send UTF-8 (``ascii=False``), whose lines are counted in bytes. ``before``: fields
    put ahead of the event's own (the arbiter log's wall time and game number); ``after``:
    fields put after them (a game far apart's move times); the event's fields win a
    clash of names.

    >>> from crownhead.firmware.events.clock import Flag
    >>> event_line(Flag(7, Side.WHITE), before={"game": 2})
    '{"game":2,"t":7,"event":"flag","side":"white"}'
    >>> event_line(Flag(7, Side.WHITE), after={"left": 5, "side": "x"})
    '{"t":7,"event":"flag","side":"white","left":5}'
    """
    values = event.to_json()
    if before is not None:
        values = {**before, **values}
    if after is not None:
        values = {**values, **{k: v for k, v in after.items() if k not in values}}
    return json.dumps(values, separators=(",", ":"), ensure_ascii=ascii)


def event_from_json(obj: Mapping[str, Any]) -> Event:
    """The event a replay output object describes (the inverse of ``to_json``).

    Raises ``ValueError`` naming the problem for an unknown kind or missing field.
    """
    kind = obj.get("event")
    cls = EVENT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event {kind!r}")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in obj:
            if f.default is not MISSING:
                continue  # a field added later: a line written before it has its default
            raise ValueError(f"{kind} event without {f.name!r}")
        value = obj[f.name]
        if f.name == "roles" and isinstance(value, Mapping):
            value = tuple(sorted((int(s), r) for s, r in value.items()))
        elif isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return cls(**values)
