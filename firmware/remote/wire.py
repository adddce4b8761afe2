"""The wire of a game between two boards far apart: its topics on a broker, its code.

A game has a short code (:func:`new_code`), and each board publishes under its own broker
account, which is the board's name, as in a hall (docs/hall.md):

* ``crownhead/remote/CODE/BOARD/lines``: the board's lines for the other (QoS 1), each
  with its sequence number and the hash of the stream so far (:mod:`crownhead.firmware.remote.journal`);
* ``crownhead/remote/CODE/BOARD/ack``: retained, the last of the other's lines this board
  has taken (so a board that comes back knows what to send again);
* ``crownhead/remote/CODE/BOARD/status``: retained, ``online`` or ``offline`` (the last will);
* ``crownhead/remote/CODE/BOARD/invite``: retained, the invitation (the inviting board only).

The shipped ACL (``crownhead.acl``) lets an account write only under its own name and
read the games' topics: nobody else can write a board's moves. A private game (the
invitation names the other board's account) lives under
``crownhead/private/HOST/GUEST/CODE/BOARD/``: only those two accounts (and the arbiter's)
may read it.

>>> game_topic("k7qm2x", "home-a", "lines")
'crownhead/remote/k7qm2x/home-a/lines'
>>> check_code("K7QM-2X")
'k7qm2x'
>>> check_code("k7q")
Traceback (most recent call last):
...
ValueError: game code 'k7q': 6 letters and digits (as the inviting board printed it)
>>> len(new_code()), set(new_code()) <= set(ALPHABET)
(6, True)
"""

from __future__ import annotations

import re
import secrets

__all__ = [
    "ALPHABET",
    "KINDS",
    "PRIVATE_ROOT",
    "ROOT",
    "check_code",
    "game_topic",
    "new_code",
    "show_code",
    "topic_board",
]

ROOT = "crownhead/remote"
#: Where a private game lives: under its two boards' names, which the ACL binds readers to.
PRIVATE_ROOT = "crownhead/private"
#: What a board publishes about a game (see the module's text).
KINDS = ("lines", "ack", "status", "invite")
#: The code's letters: no 0/o, 1/l/i, which people misread off a screen or a phone call.
ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
_CODE = re.compile(f"[{ALPHABET}]{{6}}")


def new_code() -> str:
    """A fresh game code: 6 characters, 31**6 (about 900 million) of them."""
    return "".join(secrets.choice(ALPHABET) for _ in range(6))


def show_code(code: str) -> str:
    """The code as people read it out: ``k7q-m2x``."""
    return f"{code[:3]}-{code[3:]}"


def check_code(text: str) -> str:
    """The code in ``text`` (any case, a dash or spaces allowed), else ValueError. An
    invitation's link gives its code, whatever host and port it names (the link opens
    the inviting board's name, which the joining home's board may not have: the code is
    what counts, pasted into any board's page or ``crownhead remote join``).

    >>> check_code("K7Q-M2X"), check_code("http://crownhead.local:8080/#join=k7q-m2x")
    ('k7qm2x', 'k7qm2x')
    """
    given = text.strip()
    if "#join=" in given:
        given = given.rsplit("#join=", 1)[1]
    code = re.sub(r"[\s-]", "", given).lower()[:32]
    if not _CODE.fullmatch(code):
        raise ValueError(f"game code {text[:32]!r}: 6 letters and digits (as the inviting board printed it)")
    return code


def game_topic(code: str, board: str, kind: str, private: tuple[str, str] | None = None) -> str:
    """The topic of ``kind`` (see :data:`KINDS`) that ``board`` publishes for game ``code``;
    ``private``: the game's two boards (the inviting one first), whose topics only they
    and the arbiter may read (the ACL's ``crownhead/private/HOST/GUEST/...`` lines).

    >>> game_topic("k7qm2x", "home-b", "lines", ("home-a", "home-b"))
    'crownhead/private/home-a/home-b/k7qm2x/home-b/lines'
    """
    if private is None:
        return f"{ROOT}/{code}/{board}/{kind}"
    host, guest = private
    return f"{PRIVATE_ROOT}/{host}/{guest}/{code}/{board}/{kind}"


def topic_board(topic: str) -> str:
    """The board that publishes ``topic`` (a game's, public or private).

    >>> topic_board("crownhead/remote/k7qm2x/home-a/invite"), topic_board("crownhead/private/a/b/k7qm2x/b/invite")
    ('home-a', 'b')
    """
    parts = topic.split("/")
    return parts[5] if topic.startswith(PRIVATE_ROOT + "/") else parts[3]
