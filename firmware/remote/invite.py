"""What two boards agree before a game far apart: the invitation and its answer.

The inviting board publishes an :class:`Invitation` (retained) on its ``invite`` topic of
a new game code (:mod:`crownhead.firmware.remote.wire`); the people at the other board give the
code to ``crownhead remote join``, which reads it and answers on its own ``invite``
topic. Colours, names, rules, clock and ballot travel in the invitation, so both boards
play the same game; each then keeps an :class:`Agreement` (the invitation, which side it
plays, the other board, the broker) in its state directory for ``crownhead run --remote``.

>>> inv = Invitation("k7qm2x", "home-a", "black", black="Ann", white="Bo", clock="600+5", ballot=5)
>>> Invitation.from_json(inv.to_json()) == inv
True
>>> inv.plays("home-a"), inv.plays("home-b")
('black', 'white')
>>> inv.start().fen()  # the ballot's three moves are made: the game starts after them
'W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,11,12,13'
>>> Invitation.from_json({"v": 1, "code": "k7qm2x", "host": "home-a", "host_plays": "red"})
Traceback (most recent call last):
...
ValueError: invitation: host_plays must be black or white, got 'red'
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from crownhead.firmware.files import FileRefused, atomic_write, check_json_depth, parse_json, read_bytes
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.hall.topics import BrokerUrl, check_name
from crownhead.firmware.link.protocol import MAX_NAME
from crownhead.firmware.remote.transport import check_broker
from crownhead.firmware.remote.wire import PRIVATE_ROOT, ROOT, check_code, game_topic, show_code, topic_board
from crownhead.rules import Position, Rules
from crownhead.rules.ballots import ballot as acf_ballot

__all__ = [
    "AWAY_CLOCKS",
    "PLAYING",
    "Agreement",
    "Invitation",
    "accept",
    "await_guest",
    "fetch",
    "playing",
    "publish",
    "set_playing",
    "withdraw",
]

_VERSION = 1
#: What the clock does while a board is away: it stops, or it runs (see Invitation.away).
AWAY_CLOCKS = ("stop", "run")
MAX_INVITATION = 4096
#: Invitations to one code taken at most (more boards offering it are not counted).
MAX_OFFERS = 8
#: How long a board joining waits, after the first invitation to the code, for the others
#: the broker keeps (all sent at once as the board subscribes): two boards offering one
#: code are refused (see :func:`fetch`).
SETTLE_S = 0.5


def _name(value: object, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_NAME or not value.isprintable():
        raise ValueError(f"invitation: {what} must be a name of 1-{MAX_NAME} printable characters")
    return value


def _guest(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError("invitation: guest must be a board's account name")
    return value


@dataclass(frozen=True)
class Invitation:
    """A game offered by board ``host`` (its account), which plays ``host_plays``."""

    code: str
    host: str
    host_plays: str
    black: str | None = None
    white: str | None = None
    rules: dict[str, Any] = field(default_factory=lambda: Rules().options())
    clock: str | None = None
    ballot: int | None = None
    #: How long a board may be away before the other says it is late.
    grace_s: int = 300
    #: What the clock does while a board is away (:data:`AWAY_CLOCKS`): ``stop``: nobody's
    #: time runs; ``run``: the absent side's time runs, and once its board is away past
    #: the grace period the other board calls its flag.
    away: str = "stop"
    #: A private game: the other board's account, the only one (with the arbiter's) that
    #: may read it; None: any account of the broker may watch.
    guest: str | None = None

    def __post_init__(self) -> None:
        check_code(self.code)
        check_name(self.host, "board")
        if self.host_plays not in ("black", "white"):
            raise ValueError(f"invitation: host_plays must be black or white, got {self.host_plays!r}")
        _name(self.black, "black")
        _name(self.white, "white")
        Rules.from_options(self.rules)
        if self.clock is not None:
            TimeControl.parse(self.clock)
        if self.ballot is not None:
            acf_ballot(self.ballot)
        if type(self.grace_s) is not int or not 10 <= self.grace_s <= 86_400:
            raise ValueError("invitation: grace_s must be 10-86400 seconds")
        if self.away not in AWAY_CLOCKS:
            raise ValueError(
                f"invitation: away must be {' or '.join(AWAY_CLOCKS)} (what the clock does), got {self.away!r}"
            )
        if self.guest is not None:
            check_name(self.guest, "board")
            if self.guest == self.host:
                raise ValueError("invitation: the guest is another board than the host")

    @property
    def private(self) -> tuple[str, str] | None:
        """The two boards of a private game (the inviting one first), or None."""
        return (self.host, self.guest) if self.guest is not None else None

    def plays(self, board: str) -> str:
        """The side ``board`` plays: the host's, or the other."""
        other = "white" if self.host_plays == "black" else "black"
        return self.host_plays if board == self.host else other

    def game_rules(self) -> Rules:
        return Rules.from_options(self.rules)

    def start(self) -> Position:
        """Where the game starts: after the ballot's moves, if there is a ballot."""
        if self.ballot is None:
            return Position.start(self.game_rules())
        return acf_ballot(self.ballot).position(self.game_rules())

    def time_control(self) -> TimeControl | None:
        return TimeControl.parse(self.clock) if self.clock else None

    def to_json(self) -> dict[str, Any]:
        return {"v": _VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: object) -> Invitation:
        if not isinstance(data, dict) or data.get("v") != _VERSION:
            raise ValueError("invitation: not an invitation of this version")
        try:
            rules = data.get("rules", Rules().options())
            ballot = data.get("ballot")
            if ballot is not None and type(ballot) is not int:
                raise ValueError("invitation: ballot must be a number")
            clock = data.get("clock")
            if clock is not None and not isinstance(clock, str):
                raise ValueError("invitation: clock must be a time control such as 600+5")
            return cls(
                code=str(data.get("code")),
                host=str(data.get("host")),
                host_plays=str(data.get("host_plays")),
                black=data.get("black"),
                white=data.get("white"),
                rules=dict(rules) if isinstance(rules, dict) else {"?": rules},
                clock=clock,
                ballot=ballot,
                grace_s=data.get("grace_s", 300),
                away=data.get("away", "stop"),
                guest=_guest(data.get("guest")),
            )
        except (TypeError, KeyError) as exc:
            raise ValueError(f"invitation: {exc}") from None


@dataclass(frozen=True)
class Agreement:
    """What a board keeps of a game far apart: the invitation, itself, the other board and
    the broker (its URL with the board's password: the file is private)."""

    invitation: Invitation
    me: str
    peer: str
    broker: str
    cafile: str | None = None
    insecure: bool = False

    @property
    def plays(self) -> str:
        return self.invitation.plays(self.me)

    @staticmethod
    def path(state_dir: Path, code: str) -> Path:
        return state_dir / "remote" / f"{check_code(code)}.json"

    def journal(self, state_dir: Path) -> Path:
        return state_dir / "remote" / f"{self.invitation.code}.journal.json"

    def save(self, state_dir: Path) -> Path:
        path = self.path(state_dir, self.invitation.code)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "invitation": self.invitation.to_json(),
            "me": self.me,
            "peer": self.peer,
            "broker": self.broker,
            "cafile": self.cafile,
            "insecure": self.insecure,
        }
        atomic_write(path, json.dumps(data, indent=1) + "\n", private=True)
        return path

    @classmethod
    def load(cls, state_dir: Path, code: str) -> Agreement:
        """The agreement on game ``code``; ValueError saying what to do if there is none."""
        path = cls.path(state_dir, code)
        if not path.exists():
            raise ValueError(
                f"no game {code} in {path.parent}: run 'crownhead remote invite' or 'crownhead remote join {code}' first"
            )
        try:
            text = read_bytes(path, 16 * 1024).decode("utf-8")
            check_json_depth(text)
            data = json.loads(text)
            _check_agreement_keys(data)
            cafile = data.get("cafile")
            agreement = cls(
                Invitation.from_json(data["invitation"]),
                str(data["me"]),
                str(data["peer"]),
                str(data["broker"]),
                cafile if isinstance(cafile, str) else None,
                data.get("insecure") is True,
            )
        except (FileRefused, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: {exc}") from None
        BrokerUrl.parse(agreement.broker)
        return agreement


#: The keys every agreement file has (``cafile`` and ``insecure`` may be missing).
_AGREEMENT_KEYS = ("invitation", "me", "peer", "broker")


def _check_agreement_keys(data: object) -> None:
    """ValueError naming what an agreement file lacks (a file of another kind, or edited)."""
    if not isinstance(data, dict):
        raise ValueError(f"not an agreement of crownhead remote (a JSON object with {', '.join(_AGREEMENT_KEYS)})")
    missing = [key for key in _AGREEMENT_KEYS if key not in data]
    if missing:
        listed = ", ".join(f'"{key}"' for key in missing)
        raise ValueError(
            f"not an agreement of crownhead remote: no {listed}; "
            f"run 'crownhead remote invite' or 'crownhead remote join' again"
        )


# -- over the broker (each call bounded by timeout_s) -------------------------------------


def _client(url: BrokerUrl, cafile: str | None) -> Any:
    import ssl

    import paho.mqtt.client as mqtt

    check_broker(url, insecure=True)  # the caller has checked TLS (check_broker): the account here
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{url.username}", clean_session=True)
    client.username_pw_set(url.username, url.password)
    if url.tls:
        client.tls_set_context(ssl.create_default_context(cafile=cafile))
    return client


def _connect(client: Any, url: BrokerUrl, timeout_s: float) -> None:
    ready = threading.Event()
    failure: list[str] = []

    def on_connect(c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            failure.append(str(reason))
        ready.set()

    client.on_connect = on_connect
    try:
        client.connect(url.host, url.port, keepalive=15)
    except OSError as exc:
        raise ConnectionError(f"cannot reach the broker {url}: {exc}") from None
    client.loop_start()
    if not ready.wait(timeout_s) or failure:
        client.loop_stop()
        raise ConnectionError(f"the broker {url} did not let the board in: {failure[0] if failure else 'no answer'}")


def publish(url: BrokerUrl, invitation: Invitation, *, cafile: str | None = None, timeout_s: float = 30) -> None:
    """Put ``invitation`` on the broker (retained, until the game's end or a new one)."""
    client = _client(url, cafile)
    _connect(client, url, timeout_s)
    try:
        payload = json.dumps(invitation.to_json()).encode()
        where = game_topic(invitation.code, invitation.host, "invite", invitation.private)
        info = client.publish(where, payload, qos=1, retain=True)
        info.wait_for_publish(timeout_s)
        if not info.is_published():
            raise ConnectionError(f"the broker {url} did not take the invitation")
    finally:
        client.disconnect()
        client.loop_stop()


def _watch(
    url: BrokerUrl,
    code: str,
    cafile: str | None,
    timeout_s: float,
    want: Any,
    topics: list[str] | None = None,
    stop: threading.Event | None = None,
    settle_s: float = 0.0,
) -> list[Any]:
    """The messages on the game's ``invite`` topics (``topics``: those, else the public
    game's) that ``want`` turns into values: the first, and those that come within
    ``settle_s`` after it (the broker sends every retained one at once); none after
    ``timeout_s``, or at once when ``stop`` is set. At most :data:`MAX_OFFERS`."""
    client = _client(url, cafile)
    found: list[Any] = []
    lock = threading.Lock()
    first = threading.Event()

    def on_message(c: Any, u: Any, message: Any) -> None:
        if len(message.payload) > MAX_INVITATION:
            return
        board = topic_board(message.topic)
        try:
            # Bounded nesting: a RecursionError would end the client's network thread.
            data = parse_json(bytes(message.payload))
            value = want(board, data)
        except ValueError:
            return
        if value is not None:
            with lock:
                if len(found) < MAX_OFFERS:
                    found.append(value)
            first.set()

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    client.on_message = on_message
    end = time.monotonic() + timeout_s
    _connect(client, url, timeout_s)
    try:
        client.subscribe([(t, 1) for t in topics or [f"{ROOT}/{check_code(code)}/+/invite"]])
        while not first.wait(min(0.2, max(0.0, end - time.monotonic()))):
            if time.monotonic() >= end or stopped():
                break
        settled = time.monotonic() + settle_s
        while first.is_set() and not stopped() and (left := settled - time.monotonic()) > 0:
            threading.Event().wait(min(0.05, left))
    finally:
        client.disconnect()
        client.loop_stop()
    with lock:
        return list(found)


@dataclass(frozen=True)
class _Taken:
    """Another board's answer to a public invitation: the game is its."""

    board: str


def fetch(
    url: BrokerUrl,
    code: str,
    *,
    cafile: str | None = None,
    timeout_s: float = 30,
    stop: threading.Event | None = None,
    host: str | None = None,
) -> Invitation:
    """The invitation to game ``code``; ValueError if none came within ``timeout_s`` (or
    before ``stop`` was set), or if two boards offer it. ``host``: the inviting board's
    account, when its people said it: only its invitation is taken.

    A public invitation is on a topic every account of the broker reads, and any account
    may offer a game of its own under the code it read there (to be joined in place of
    the board that invited): the invitations that come with the first (the broker sends
    every retained one at once) are compared, and two boards offering one code refused."""

    def want(board: str, data: object) -> Invitation | _Taken | None:
        if isinstance(data, dict) and "host_plays" in data:
            invitation = Invitation.from_json(data)
            ours = invitation.guest is None or invitation.guest == url.username
            named = host is None or invitation.host == host
            return invitation if invitation.host == board and invitation.code == code and ours and named else None
        if isinstance(data, dict) and data.get("accept") == code and data.get("board") == board != url.username:
            return _Taken(board)  # another board's answer, kept beside the invitation
        return None

    # A public game's invitation, or a private one to this board's account.
    topics = [f"{ROOT}/{code}/+/invite", f"{PRIVATE_ROOT}/+/{url.username}/{code}/+/invite"]
    heard: list[Invitation | _Taken] = _watch(url, code, cafile, timeout_s, want, topics, stop, SETTLE_S)
    found = [x for x in heard if isinstance(x, Invitation)]
    takers = sorted({x.board for x in heard if isinstance(x, _Taken)} - {x.host for x in found})
    if found and takers:
        # The inviting board plays the first board that answered: this one would wait
        # for a game that never comes (and play nobody), saying it joined.
        raise ValueError(
            f"game {show_code(code)} was taken already by {', '.join(takers)}: ask {found[-1].host} for a new "
            "invitation (crownhead remote invite)"
        )
    if not found:
        raise ValueError(f"no invitation to game {code} on {url} (the code mistyped, or the invitation withdrawn)")
    hosts = sorted({invitation.host for invitation in found})
    if len(hosts) > 1:
        raise ValueError(
            f"game {show_code(code)} is offered by {len(hosts)} boards ({', '.join(hosts)}): any account of the "
            "broker reads a public invitation and may offer its code too. Join naming the inviting board's "
            f"account (crownhead remote join {show_code(code)} --host ACCOUNT), or ask for a private invitation "
            f"to this board's account ({url.username})"
        )
    return found[-1]


def accept(url: BrokerUrl, invitation: Invitation, *, cafile: str | None = None, timeout_s: float = 30) -> None:
    """Answer ``invitation`` as the board of ``url``'s account (retained on its ``invite`` topic)."""
    assert url.username is not None
    if url.username == invitation.host:
        raise ValueError(f"this board ({url.username}) sent the invitation: join from the other board's account")
    if invitation.guest is not None and url.username != invitation.guest:
        raise ValueError(f"game {invitation.code} is private to {invitation.guest}: join from that board's account")
    client = _client(url, cafile)
    _connect(client, url, timeout_s)
    try:
        payload = json.dumps({"v": _VERSION, "accept": invitation.code, "board": url.username}).encode()
        client.publish(
            game_topic(invitation.code, url.username, "invite", invitation.private), payload, qos=1, retain=True
        ).wait_for_publish(timeout_s)
    finally:
        client.disconnect()
        client.loop_stop()


def await_guest(
    url: BrokerUrl,
    invitation: Invitation,
    *,
    cafile: str | None = None,
    timeout_s: float = 600,
    stop: threading.Event | None = None,
) -> str | None:
    """The board that accepted ``invitation`` (waiting up to ``timeout_s``, or until
    ``stop`` is set), or None: a private invitation's guest only; a public invitation's
    first board to accept, whichever account of the broker it is (docs/remote.md)."""

    def want(board: str, data: object) -> str | None:
        if isinstance(data, dict) and data.get("accept") == invitation.code and board != invitation.host:
            if invitation.guest is not None and board != invitation.guest:
                return None
            return board if data.get("board") == board else None
        return None

    topics = None
    if invitation.private is not None:
        topics = [game_topic(invitation.code, "+", "invite", invitation.private)]
    found: list[str] = _watch(url, invitation.code, cafile, timeout_s, want, topics, stop)
    return found[0] if found else None


def withdraw(url: BrokerUrl, invitation: Invitation, *, cafile: str | None = None, timeout_s: float = 30) -> None:
    """Take ``invitation`` off the broker (its retained message cleared): nobody can join
    it any more."""
    client = _client(url, cafile)
    _connect(client, url, timeout_s)
    try:
        where = game_topic(invitation.code, invitation.host, "invite", invitation.private)
        client.publish(where, b"", qos=1, retain=True).wait_for_publish(timeout_s)
    finally:
        client.disconnect()
        client.loop_stop()


#: Where a board keeps the game far apart it plays since its page took it (so that it
#: goes back to it when it starts again: ``crownhead run`` without ``--remote``).
PLAYING = "playing.json"


def playing(state_dir: Path) -> str | None:
    """The code of the game far apart the board's page took and the board plays, or None."""
    path = state_dir / "remote" / PLAYING
    try:
        data = parse_json(read_bytes(path, 1024))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return check_code(str(data["code"]))
    except FileNotFoundError:
        return None
    except (FileRefused, OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        logging.getLogger(__name__).warning("remote: %s cannot be read (%s): the board starts as configured", path, exc)
        return None


def set_playing(state_dir: Path, code: str | None) -> None:
    """Note (``code``) or forget (None) the game far apart the board plays."""
    path = state_dir / "remote" / PLAYING
    if code is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"code": check_code(code)}) + "\n")
