"""The event every part speaks: an immutable value with its time, printed as one JSON line.

Every event is an immutable value with the virtual or real time ``t`` (milliseconds on
the injected clock) at which it happened, and ``to_json()`` gives exactly the object
printed by ``crownhead replay`` (see ``docs/replay.md``); :func:`event_from_json` reads
it back. A new kind of event is one more subclass with a ``kind`` and its fields, in a
module of :mod:`firmware.events`; it is found by :func:`event_from_json` without further
registration::

    @dataclass(frozen=True, slots=True)
    class Caution(Event):
        kind: ClassVar[str] = "caution"
        side: str
        count: int
        code: str
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

__all__ = ["Event", "EVENT_KINDS", "event_from_json"]

#: ``kind`` -> event class, filled in as subclasses are defined.
EVENT_KINDS: dict[str, type[Event]] = {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


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

    def to_json(self) -> dict[str, Any]:
        """The replay output object: ``t``, ``event``, then the fields in order."""
        out: dict[str, Any] = {"t": self.t, "event": self.kind}
        for f in fields(self):
            if f.name != "t":
                out[f.name] = _jsonable(getattr(self, f.name))
        return out


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
            raise ValueError(f"{kind} event without {f.name!r}")
        value = obj[f.name]
        if f.name == "roles" and isinstance(value, Mapping):
            value = tuple(sorted((int(s), r) for s, r in value.items()))
        elif isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return cls(**values)
