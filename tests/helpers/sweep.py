"""Two homes, one broker, one thread: the world of ``tests/test_remote_sweep.py`` (issue 51).

Everything a game between homes does is cut here into *steps* run one at a time, in a
fixed order, on the virtual clock:

* an **app** step: a board's main loop runs :data:`STEP_MS` of virtual time (it may move,
  light, take the other's lines, add lines to its journal in memory);
* a **work** step: a board's transport worker (:meth:`RemoteTransport.work
  <crownhead.firmware.remote.transport.RemoteTransport.work>`) writes its journal and publishes what is due;
* a **message** step: the broker takes one message published (routes it to the
  sessions subscribed, keeps it if retained) or hands one queued message to its board;
* a **connect** step: a board (re)connects to the broker, says ``online``, subscribes;
* a **people** step: the people at one board do what its lights ask, or the next thing
  the script says.

A step that changed anything is an *instant*; the boundaries between instants are where
the sweep stops the world (kills a board or the broker and starts it again) and the
message steps are the ones it drops or repeats.

:class:`FakeBroker` is faithful in what the boards rely on: retained messages (given to
each subscription), persistent sessions (a board's subscriptions and the QoS-1 messages
for it kept while it is away, in order, given again after it comes back if it died
before taking them), a last will said when a board dies. Restarted, it keeps nothing
(Mosquitto without persistence, the worst case).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import Event
from crownhead.firmware.remote.board import Absence, remote_link, remote_settings
from crownhead.firmware.remote.invite import Agreement, Invitation
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.clock import VirtualClock

from helpers.rig import Rig

__all__ = ["CODE", "FakeBroker", "FakeClient", "Home", "STEP_MS", "World", "lights_ask"]

CODE = "sw33pz"
#: Virtual time an app step runs.
STEP_MS = 100


class _Ok:
    is_failure = False


class _Sent:
    def wait_for_publish(self, timeout: float | None = None) -> None:
        return None

    def is_published(self) -> bool:
        return True


@dataclass
class _Message:
    topic: str
    payload: bytes
    retain: bool = False


@dataclass
class _Session:
    subs: set[str] = field(default_factory=set)
    queue: deque[_Message] = field(default_factory=deque)
    client: FakeClient | None = None


class FakeClient:
    """What :class:`RemoteTransport` asks of its MQTT client, on a :class:`FakeBroker`."""

    def __init__(self, broker: FakeBroker, client_id: str, transport: RemoteTransport) -> None:
        self.broker, self.client_id, self.transport = broker, client_id, transport
        self.will = _Message(transport._topic["status"], b"offline", retain=True)
        self.connected = False

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> _Sent:
        if self.connected:  # (sent while away: the transport publishes it again later)
            self.broker.inflight.append(_Message(topic, bytes(payload), retain))
        return _Sent()

    def subscribe(self, topics: list[tuple[str, int]]) -> None:
        self.broker.subscribe(self, [t for t, _ in topics])
        self.transport._on_subscribe(self, None, 1, [_Ok()], None)

    def disconnect(self) -> None:
        self.broker.leave(self, will=False)

    def loop_stop(self) -> None:
        return None


class FakeBroker:
    """A broker in one thread: nothing moves until a step says so (see the module)."""

    def __init__(self) -> None:
        self.retained: dict[str, bytes] = {}
        self.sessions: dict[str, _Session] = {}
        self.inflight: deque[_Message] = deque()  # published, not yet taken by the broker

    def connect(self, client: FakeClient) -> None:
        session = self.sessions.setdefault(client.client_id, _Session())
        if session.client is not None and session.client is not client:
            self.leave(session.client, will=False)  # taken over (the board restarted)
        session.client, client.connected = client, True
        client.transport._on_connect(client, None, None, _Ok(), None)

    def subscribe(self, client: FakeClient, topics: list[str]) -> None:
        session = self.sessions[client.client_id]
        for topic in topics:
            session.subs.add(topic)
            if topic in self.retained:
                session.queue.append(_Message(topic, self.retained[topic], True))

    def leave(self, client: FakeClient, *, will: bool) -> None:
        """``client`` goes (``will``: without saying so, its last will published)."""
        session = self.sessions.get(client.client_id)
        if session is not None and session.client is client:
            session.client = None
        was, client.connected = client.connected, False
        if was and will:
            self.route(client.will)

    def route(self, message: _Message) -> None:
        if message.retain:
            self.retained[message.topic] = message.payload
        for session in self.sessions.values():
            if message.topic in session.subs:
                session.queue.append(_Message(message.topic, message.payload))

    def crash(self) -> list[FakeClient]:
        """The broker stops and starts again, empty: every board's connection drops."""
        clients = [s.client for s in self.sessions.values() if s.client is not None]
        self.retained.clear()
        self.sessions.clear()
        self.inflight.clear()
        for client in clients:
            client.connected = False
            client.transport._on_disconnect(client, None, None, "broker restarted", None)
        return clients

    def deliveries(self) -> list[tuple[_Session, FakeClient]]:
        return [(s, s.client) for s in self.sessions.values() if s.queue and s.client is not None]


def lights_ask(app: Any) -> bool:
    """Whether the board's lights ask its people for anything (as :meth:`Hands.follow` reads them)."""
    tracker = app.tracker
    if tracker.expected is not None and tracker.board_matches:
        return True
    sim = app.sim
    for s, role in tracker.roles.items():
        if role in ("missing", "extra", "remove"):
            return True
        if role == "error" and s not in sim.pieces and tracker.position.piece_at(s) is not None:
            return True
        if role == "crown" and sim.pieces.get(s, "").islower():
            return True
    target = app.setup_target()
    if target is not None:
        for s, piece in target[1].pieces().items():
            token = sim.pieces.get(s)
            if token is not None and token in "bwBW" and token != piece.symbol and tracker.roles.get(s) is None:
                return True
    return False


class Home:
    """One home's board, wired as ``crownhead run --remote CODE`` wires it, its transport
    run by the world's steps (no threads) on the :class:`FakeBroker`."""

    def __init__(self, world: World, folder: Path, agreement: Agreement) -> None:
        self.world, self.folder, self.agreement = world, folder, agreement
        agreement.save(folder)
        self.starts = 0
        #: Every event of every run of the board, and the run it came in.
        self.events: list[tuple[int, Event]] = []
        self.rig: Rig
        self.on(None)

    @property
    def side(self) -> str:
        return self.agreement.plays

    def on(self, pieces: dict[int, str] | None, now: int = 0) -> None:
        self.starts += 1
        run = self.starts
        settings = remote_settings(self.agreement, AppSettings(mode="play"))
        self.rig = Rig(
            self.folder,
            settings=settings,
            board=pieces,
            clock=VirtualClock(now),
            start=False,
            sinks=[lambda e: self.events.append((run, e))],
        )
        link = remote_link(self.agreement, self.rig.clock, self.folder, start=False)
        transport = link.transport
        assert isinstance(transport, RemoteTransport)
        self.client = FakeClient(self.world.broker, self.agreement.me, transport)
        transport._client = self.client  # type: ignore[assignment]
        absence = Absence(transport, self.agreement.invitation.grace_s, self.agreement.invitation.away, link)
        absence.attach(self.rig.app)
        link.attach(self.rig.app)
        self.rig.link, self.rig.transport = link, transport
        self.rig.app.start()

    def kill(self) -> None:
        """The power goes: nothing more is saved or said; the pieces stay where they stand."""
        pieces, now = dict(self.rig.sim.pieces), self.rig.clock.now_ms()
        self.world.broker.leave(self.client, will=True)
        assert self.rig.store is not None
        self.rig.store.release()  # (the process's lock goes with it)
        self.on(pieces, now)

    @property
    def app(self) -> Any:
        return self.rig.app

    @property
    def link(self) -> RemoteLink:
        link = self.rig.link
        assert isinstance(link, RemoteLink)
        return link

    @property
    def transport(self) -> RemoteTransport:
        transport = self.rig.transport
        assert isinstance(transport, RemoteTransport)
        return transport

    def moves(self) -> tuple[str, ...]:
        return tuple(m.pdn(full=True) for m in self.app.game.moves)

    def notices(self, run: int | None = None) -> list[str]:
        return [str(e.to_json()["message"]) for r, e in self.events if e.kind == "notice" and (run is None or r == run)]

    def close(self) -> None:
        self.rig.close()


@dataclass
class Fault:
    """What the sweep does: ``kill`` ``a``, ``b`` or ``broker`` once ``at`` instants have
    passed, or ``drop``/``repeat`` the ``at``-th message step."""

    what: str
    target: str
    at: int

    def __str__(self) -> str:
        return f"{self.what} {self.target} at {self.at}"


class World:
    """Two :class:`Home` s and a :class:`FakeBroker`, stepped one step at a time; ``people``
    act at each round (see ``tests/test_remote_sweep.py``)."""

    def __init__(self, folder: Path, people: Callable[[World], bool], fault: Fault | None = None) -> None:
        self.broker = FakeBroker()
        inv = Invitation(CODE, "alice", "black", clock="600+5")
        self.a = Home(self, folder / "a", Agreement(inv, "alice", "bob", "mqtt://alice:alice-pw@127.0.0.1"))
        self.b = Home(self, folder / "b", Agreement(inv, "bob", "alice", "mqtt://bob:bob-pw@127.0.0.1"))
        self.people = people
        self.fault = fault
        self.instants = 0
        self.messages = 0
        self.fired = False
        self.rounds = 0

    @property
    def homes(self) -> tuple[Home, Home]:
        return self.a, self.b

    def home(self, side: str) -> Home:
        return self.a if side == self.a.side else self.b

    # -- the steps ------------------------------------------------------------------------

    def _instant(self) -> None:
        self.instants += 1
        fault = self.fault
        if fault is not None and fault.what == "kill" and not self.fired and self.instants == fault.at:
            self.fired = True
            if fault.target == "broker":
                self.broker.crash()
            else:
                (self.a if fault.target == "a" else self.b).kill()

    def _message_fault(self) -> str | None:
        """``drop`` or ``repeat`` if the fault is for this message step."""
        self.messages += 1
        fault = self.fault
        if fault is not None and fault.what != "kill" and not self.fired and self.messages == fault.at:
            self.fired = True
            return fault.what
        return None

    def round(self) -> None:
        """Each step once, in a fixed order (each ends an instant if it did anything)."""
        self.rounds += 1
        for home in self.homes:
            journal = home.transport.journal
            before = (journal.seq, journal.taken, journal.game)
            events = home.app.run_for(STEP_MS)
            if events or (journal.seq, journal.taken, journal.game) != before:
                self._instant()
        for home in self.homes:
            if home.transport.work():
                self._instant()
        for _ in range(len(self.broker.inflight)):
            if not self.broker.inflight:
                break  # (the broker restarted meanwhile: they went with it)
            message = self.broker.inflight.popleft()
            fault = self._message_fault()
            for _ in range({"drop": 0, "repeat": 2}.get(fault or "", 1)):
                self.broker.route(message)
            self._instant()
        for session, client in self.broker.deliveries():
            if session.client is not client or not session.queue:
                continue  # (a fault meanwhile)
            message = session.queue.popleft()
            fault = self._message_fault()
            for _ in range({"drop": 0, "repeat": 2}.get(fault or "", 1)):
                client.transport._on_message(client, None, message)
            self._instant()
        for home in self.homes:
            if not home.client.connected:
                self.broker.connect(home.client)
                self._instant()
        if self.people(self):
            self._instant()

    def hands(self, home: Home) -> Hands:
        return Hands(home.app)

    def close(self) -> None:
        for home in self.homes:
            home.close()
