"""Who may do what on the hall's broker: Mosquitto's ACL lines, read and enforced here too.

The hall ships one ACL (``crownhead.acl`` beside this module, the file Mosquitto is given:
``deploy/mosquitto/crownhead.acl`` is the same file). The embedded broker
(:mod:`crownhead.firmware.hall.broker`) reads it with :func:`read_acl` and asks :meth:`Acl.allows`
before every publish, subscription and delivery, as Mosquitto does, so the two brokers
cannot drift apart. The lines understood are Mosquitto's: ``user NAME``, then ``topic
[read|write|readwrite|deny] TOPIC`` for that user; ``pattern [read|write|readwrite|deny]
TOPIC`` for every user, with ``%u`` standing for the user name and ``%c`` for the client id.

>>> acl = shipped_acl()
>>> acl.allows("table-1", "table-1", "write", "crownhead/club/table-1/state")
True
>>> acl.allows("table-1", "table-1", "write", "crownhead/club/table-1/cmd")  # only the arbiter commands
False
>>> acl.allows("table-1", "table-1", "write", "crownhead/club/table-2/state")
False
>>> acl.allows("arbiter", "arbiter", "write", "crownhead/club/table-1/cmd")
True
>>> acl.allows("hall", "hall", "subscribe", "crownhead/club/+/+"), acl.allows("table-1", "table-1", "subscribe", "crownhead/#")
(True, False)
>>> acl.allows(None, "x", "read", "crownhead/club/table-1/state")  # no account, nothing
False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

__all__ = ["Acl", "AclError", "read_acl", "shipped_acl", "topic_matches", "filter_within", "SHIPPED_ACL"]

#: The ACL file shipped with the hall (package data; ``deploy/mosquitto/crownhead.acl``).
SHIPPED_ACL = "crownhead.acl"
_ACCESS = {"read": {"read"}, "write": {"write"}, "readwrite": {"read", "write"}, "deny": {"deny"}}
#: More lines than a hall's ACL ever has: a bound on what is read.
MAX_LINES = 10_000


class AclError(ValueError):
    """An ACL line that cannot be read, named by its line number."""


@dataclass(frozen=True, slots=True)
class _Rule:
    access: frozenset[str]
    topic: str


@dataclass
class Acl:
    """The rules of an ACL file: per user, and patterns for all users."""

    users: dict[str, list[_Rule]] = field(default_factory=dict)
    patterns: list[_Rule] = field(default_factory=list)

    def allows(self, user: str | None, client_id: str, action: str, topic: str) -> bool:
        """Whether ``user`` (None: a client without an account, who may do nothing)
        connected as ``client_id`` may ``action`` (``read`` a message published on
        ``topic``, ``write`` to it, ``subscribe`` to the filter ``topic``). A ``deny``
        line that matches wins over any grant, as in Mosquitto."""
        if user is None:
            return False
        wanted = "write" if action == "write" else "read"
        rules = [(r.access, r.topic) for r in self.users.get(user, [])]
        if not any(c in user + client_id for c in "/+#"):  # as Mosquitto: no wildcard smuggled into a pattern
            rules += [(r.access, r.topic.replace("%u", user).replace("%c", client_id)) for r in self.patterns]
        match = filter_within if action == "subscribe" else topic_matches
        granted = False
        for access, allowed in rules:
            if "deny" in access:
                if match(topic, allowed):
                    return False
            elif wanted in access and match(topic, allowed):
                granted = True
        return granted


def read_acl(text: str, source: str = "acl") -> Acl:
    """An :class:`Acl` from the text of a Mosquitto ACL file; :class:`AclError` naming the
    line of a line it cannot read."""
    acl = Acl()
    user: str | None = None
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise AclError(f"{source}: more than {MAX_LINES} lines")
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split(None, 2)
        kind = words[0]
        if kind == "user" and len(words) == 2:
            user = words[1]
            acl.users.setdefault(user, [])
            continue
        if kind in ("topic", "pattern") and len(words) >= 2:
            if len(words) == 3 and words[1] in _ACCESS:
                access, name = words[1], words[2]
            else:
                access, name = "readwrite", line.split(None, 1)[1]
            rule = _Rule(frozenset(_ACCESS[access]), name.strip())
            if kind == "pattern":
                acl.patterns.append(rule)
            elif user is None:
                pass  # Mosquitto's lines for clients without an account: none may do anything here
            else:
                acl.users[user].append(rule)
            continue
        raise AclError(
            f"{source}:{number}: {line!r}: expected 'user NAME', 'topic [ACCESS] TOPIC' or 'pattern [ACCESS] TOPIC'"
        )
    return acl


def shipped_acl() -> Acl:
    """The ACL shipped with the hall, as the embedded broker enforces it."""
    text = resources.files("crownhead.firmware.hall").joinpath(SHIPPED_ACL).read_text(encoding="utf-8")
    return read_acl(text, SHIPPED_ACL)


def topic_matches(topic: str, allowed: str) -> bool:
    """Whether the topic name ``topic`` is one the filter ``allowed`` names (``+`` one
    level, ``#`` the rest).

    >>> topic_matches("crownhead/club/t1/event", "crownhead/+/t1/#"), topic_matches("crownhead/club", "crownhead/+/+")
    (True, False)
    """
    want, have = allowed.split("/"), topic.split("/")
    for i, level in enumerate(want):
        if level == "#":
            return True
        if i >= len(have) or (level != "+" and level != have[i]):
            return False
    return len(have) == len(want)


def filter_within(wanted: str, allowed: str) -> bool:
    """Whether every topic the subscription filter ``wanted`` names is one ``allowed`` names.

    >>> filter_within("crownhead/club/+/+", "crownhead/#"), filter_within("crownhead/#", "crownhead/+/t1/cmd")
    (True, False)
    """
    want, have = allowed.split("/"), wanted.split("/")
    for i, level in enumerate(want):
        if level == "#":
            return True
        if i >= len(have) or have[i] == "#":
            return False
        if level != "+" and (have[i] == "+" or level != have[i]):
            return False
    return len(have) == len(want)
