"""An MQTT broker inside the hall's process (amqtt), so that one laptop is a whole club setup.

It is as closed as the shipped Mosquitto configuration (``deploy/mosquitto``):

- every client logs in with an account of :class:`~crownhead.firmware.hall.accounts.Accounts`
  (made at the hall's first start); a client without one, or with a wrong password, is
  refused before the broker looks at anything else it sent;
- a client's id is its account (Mosquitto's ``use_username_as_clientid``): a board that
  names another's id, or the hall's, gets its own, so it can neither disconnect them
  nor take their session; an account's new connection ends its old one first (MQTT
  3.1.4-2), as Mosquitto does;
- what each account may publish, subscribe to and receive is the shipped ACL's
  (:mod:`crownhead.firmware.hall.acl`), its last will and retained messages included;
- a packet is at most :data:`MAX_PACKET` bytes (Mosquitto's ``max_packet_size``): a
  client sending a larger one is disconnected before the broker reads it; a client that
  does not log in within :data:`CONNECT_TIMEOUT_S` is disconnected; at most
  :data:`MAX_WAITING` wait to log in (:data:`MAX_WAITING_PER_ADDRESS` from one address)
  and :data:`MAX_CONNECTIONS` are served at once.

amqtt by itself does none of the first three (it drops a session named by a newcomer before it
checks the newcomer's password, keeps an account's old connection open beside its new
one, and sends a client that logs in the retained messages of everyone's subscriptions),
so clients do not reach it directly: the hall accepts every connection at its own
:class:`Door`, which reads the CONNECT, checks the account, gives the client its
account's id and hands the connection to amqtt through amqtt's public API for
connections made outside it (an ``external`` listener and ``Broker.external_connected``),
reading and writing through adapters of its own. amqtt's authentication plugin (its
public plugin API) applies the same accounts inside.

The ACL is the door's alone, applied to every packet as it passes (:class:`Checks`): a
publish the account may not write is acknowledged and dropped (as Mosquitto and amqtt
do), a subscription it may not make is answered ``0x80``, and an account holds at most
:data:`MAX_FILTERS` subscriptions. amqtt is given no topic plugin on purpose: its
broadcast loop iterates the broker's subscriptions across each topic plugin's check,
and a check is an ``await`` that lets other clients run, so a subscription made
meanwhile (a board subscribing many filters, or only reconnecting) ended the loop with
``RuntimeError: dictionary changed size during iteration`` and the message was lost
(amqtt 0.12.1; docs/hall.md, *The embedded broker's subscriptions*, has a reproduction).
Without a topic plugin the loop does not yield. amqtt walks the same table across awaits
when a client connects too (the retained messages of every subscription), where a
subscription made meanwhile ended the newcomer's connection: the table is iterated as a
snapshot (:class:`_Subscriptions`).
``tests/test_hall_security.py`` probes both brokers alike.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

# The plugins below are amqtt's classes: this module is imported only by a hall that runs
# its own broker (``crownhead hall`` without ``--broker``).
from amqtt.plugins.base import BaseAuthPlugin

from crownhead.firmware.hall.accounts import Accounts
from crownhead.firmware.hall.acl import Acl, shipped_acl
from crownhead.firmware.pages.serving import Connections, client_key

__all__ = ["EmbeddedBroker", "MAX_PACKET", "MAX_FILTERS", "Guard", "Door", "Checks", "Connect", "ProtocolError"]

log = logging.getLogger(__name__)

#: The largest packet a client may send (a board's largest, its state, is a few KiB).
MAX_PACKET = 64 * 1024
#: Seconds a client has, once connected, to log in.
CONNECT_TIMEOUT_S = 10.0
#: Clients served at once (200 boards, the hall, the arbiter, and room to spare).
MAX_CONNECTIONS = 1024
#: Connections not logged in yet, at most, in all and from one address (an IPv6 client
#: by its /64): a crowd that connects and says nothing cannot keep a board out.
MAX_WAITING = 128
MAX_WAITING_PER_ADDRESS = 16
#: Seconds an account's new connection waits for amqtt to be done with its old one.
HANDOVER_S = 5.0
#: The broker's one listener, the door's (amqtt wants one called so).
LISTENER = "default"
#: Subscriptions an account holds at most (a board needs two: its commands and the hall's
#: acknowledgements; the hall one, the arbiter two); more are answered ``0x80``.
MAX_FILTERS = 16


@dataclass(frozen=True)
class Guard:
    """Who may connect (``accounts``) and do what (``acl``); ``max_packet`` bytes a packet."""

    accounts: Accounts
    acl: Acl
    max_packet: int = MAX_PACKET

    def admits(self, username: str | None, password: Any, client_id: str, will_topic: str | None) -> str | None:
        """None when the client may connect, else why not."""
        if not self.accounts.check(username, password):
            return "no account, or a wrong password"
        assert username is not None
        if will_topic is not None and not self.acl.allows(username, username, "write", will_topic):
            return f"its last will names {will_topic!r}, a topic it may not write"
        return None


class EmbeddedBroker:
    """amqtt's broker on ``host:port`` with ``accounts`` and the shipped ACL (``acl``),
    run in its own thread with its own event loop."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        *,
        accounts: Accounts,
        acl: Acl | None = None,
        max_packet: int = MAX_PACKET,
    ) -> None:
        self.host, self.port = host, port
        self.guard = Guard(accounts, acl if acl is not None else shipped_acl(), max_packet)
        self._loop = asyncio.new_event_loop()
        self._broker: Any = None
        self._server: asyncio.Server | None = None
        #: Where clients come in (set once the broker runs).
        self.door: Door | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mqtt-broker", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        # amqtt's plugin style of configuration: only the plugins named here are loaded.
        # Ours decide who is in and what each may do; amqtt's event and packet loggers and
        # its $SYS topics are left out. Its one listener is the door's.
        config = {
            "listeners": {LISTENER: {"type": "external"}},
            # No topic plugin: the door applies the ACL (see the module's docstring).
            "plugins": {f"{__name__}._AccountPlugin": {"guard": self.guard}},
        }
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        try:
            from amqtt.broker import Broker

            self._broker = Broker(config, loop=self._loop)
            # amqtt iterates its table of subscriptions across awaits in two more places
            # (a client's connection, publishing the retained messages of every
            # subscription); a subscription made meanwhile ended that client's connection
            # with "dictionary changed size during iteration". Iterated as a snapshot, it
            # cannot (see _Subscriptions).
            self._broker._subscriptions = _Subscriptions(self._broker._subscriptions)
            self._loop.run_until_complete(self._broker.start())
            self._loop.run_until_complete(self._listen())
        except BaseException as exc:  # reported by start() in the caller's thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()

    async def _listen(self) -> None:
        self.door = Door(self._broker, self.guard, LISTENER)
        self._server = await asyncio.start_server(self.door, self.host, self.port, reuse_address=True, backlog=256)
        if self.port == 0:
            self.port = int(self._server.sockets[0].getsockname()[1])

    def start(self, timeout_s: float = 10.0) -> None:
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise RuntimeError(f"the embedded MQTT broker did not start on {self.host}:{self.port}")
        if self._error is not None:
            raise RuntimeError(f"the embedded MQTT broker cannot listen on {self.host}:{self.port}: {self._error}")

    def close(self) -> None:
        if self._broker is not None and self._loop.is_running():
            fut = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
            try:
                fut.result(timeout=5)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        if self.door is not None:
            self.door.close_all()
        await self._broker.shutdown()


class _Subscriptions(dict[str, Any]):
    """amqtt's table of subscriptions (topic filter -> subscribers), iterated as a
    snapshot: a subscription added while amqtt walks the table (across an ``await``)
    changes the table, not the walk.

    >>> table = _Subscriptions({"a": [1]})
    >>> for name in table:
    ...     table["b"] = [2]  # a plain dict would raise RuntimeError here
    >>> sorted(table), [k for k, _ in table.items()]
    (['a', 'b'], ['a', 'b'])
    """

    def __iter__(self) -> Any:
        return iter(list(super().__iter__()))

    def keys(self) -> Any:
        return list(super().keys())

    def values(self) -> Any:
        return list(super().values())

    def items(self) -> Any:
        return list(super().items())


# -- the door: every client passes it before amqtt sees a byte of it ---------------------

#: CONNACK return codes (MQTT 3.1.1, 3.2.2.3).
_UNACCEPTABLE_PROTOCOL = 1
_UNAVAILABLE = 3
_NOT_AUTHORIZED = 5
#: Packet types (the high four bits of a packet's first byte).
_CONNECT, _PUBLISH, _PUBREL, _SUBSCRIBE, _SUBACK, _UNSUBSCRIBE = 1, 3, 6, 8, 9, 10
#: A SUBACK's code for a subscription refused.
_REFUSED = 0x80


class ProtocolError(ValueError):
    """A client's bytes are not the MQTT the broker speaks."""


def _length_bytes(n: int) -> bytes:
    """MQTT's remaining length: seven bits a byte, the high bit saying that more follow.

    >>> [_length_bytes(n).hex() for n in (0, 127, 128, 16_383)]
    ['00', '7f', '8001', 'ff7f']
    """
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(data: bytes, at: int) -> tuple[bytes, int]:
    """The length-prefixed field at ``at``, and where the next one begins."""
    if at + 2 > len(data):
        raise ProtocolError("a field runs past the packet's end")
    size = int.from_bytes(data[at : at + 2], "big")
    if at + 2 + size > len(data):
        raise ProtocolError("a field runs past the packet's end")
    return data[at + 2 : at + 2 + size], at + 2 + size


def _text(data: bytes, at: int) -> tuple[str, int]:
    raw, at = _field(data, at)
    try:
        return raw.decode("utf-8"), at
    except UnicodeDecodeError:
        raise ProtocolError("a name that is not UTF-8") from None


@dataclass(frozen=True)
class Connect:
    """What a client's CONNECT packet says (MQTT 3.1.1), and the same packet with another
    client id.

    >>> asked = Connect(4, 0xC2, 30, "hall", None, None, "table-2", b"pw")
    >>> given = Connect.parse(asked.packet("table-2")[2:])
    >>> given.client_id, given.username, given.password, given.clean_session
    ('table-2', 'table-2', b'pw', True)
    """

    level: int
    flags: int
    keep_alive: int
    client_id: str
    will_topic: str | None
    will_message: bytes | None
    username: str | None
    password: bytes | None

    @property
    def clean_session(self) -> bool:
        return bool(self.flags & 0x02)

    @classmethod
    def parse(cls, body: bytes) -> Connect:
        """The CONNECT whose variable header and payload are ``body``; ProtocolError if
        they are none."""
        name, at = _text(body, 0)
        if at + 4 > len(body):
            raise ProtocolError("a CONNECT cut short")
        level, flags, keep_alive = body[at], body[at + 1], int.from_bytes(body[at + 2 : at + 4], "big")
        if name not in ("MQTT", "MQIsdp") or flags & 0x01:
            raise ProtocolError(f"not an MQTT CONNECT (protocol {name!r}, flags {flags:#04x})")
        client_id, at = _text(body, at + 4)
        will_topic = username = None
        will_message = password = None
        if flags & 0x04:
            will_topic, at = _text(body, at)
            will_message, at = _field(body, at)
        if flags & 0x80:
            username, at = _text(body, at)
        if flags & 0x40:
            password, at = _field(body, at)
        if at != len(body):
            raise ProtocolError("bytes after the CONNECT's last field")
        return cls(level, flags, keep_alive, client_id, will_topic, will_message, username, password)

    def packet(self, client_id: str) -> bytes:
        """This CONNECT as a packet, with ``client_id`` for its own."""

        def field(data: bytes) -> bytes:
            return len(data).to_bytes(2, "big") + data

        body = field(b"MQTT") + bytes([self.level, self.flags]) + self.keep_alive.to_bytes(2, "big")
        body += field(client_id.encode("utf-8"))
        if self.will_topic is not None and self.will_message is not None:
            body += field(self.will_topic.encode("utf-8")) + field(self.will_message)
        if self.username is not None:
            body += field(self.username.encode("utf-8"))
        if self.password is not None:
            body += field(self.password)
        return bytes([_CONNECT << 4]) + _length_bytes(len(body)) + body


async def read_connect(reader: asyncio.StreamReader, limit: int) -> Connect:
    """A client's first packet, which must be a CONNECT of at most ``limit`` bytes
    (ProtocolError otherwise; IncompleteReadError if the client leaves first)."""
    first = await reader.readexactly(1)
    if first[0] != _CONNECT << 4:
        raise ProtocolError("the first packet is not a CONNECT")
    length = shift = 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
        if shift >= 28:
            raise ProtocolError("a packet length of more than four bytes")
    if length > limit:
        raise ProtocolError(f"a CONNECT of {length} bytes, more than {limit}")
    return Connect.parse(await reader.readexactly(length))


def take_packet(buffer: bytearray) -> bytes | None:
    """The first whole packet in ``buffer``, taken out of it; None while it is incomplete.

    >>> buffer = bytearray(bytes([0x30, 2]) + b"ab" + bytes([0xD0]))
    >>> take_packet(buffer), take_packet(buffer), bytes(buffer)
    (b'0\\x02ab', None, b'\\xd0')
    """
    length = shift = 0
    for i in range(1, min(len(buffer), 5)):
        byte = buffer[i]
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            end = i + 1 + length
            if len(buffer) < end:
                return None
            packet = bytes(buffer[:end])
            del buffer[:end]
            return packet
    return None


def publish_topic(packet: bytes) -> str | None:
    """The topic of a whole PUBLISH packet (None if it cannot be read).

    >>> publish_topic(bytes([0x30, 7, 0, 3]) + b"a/b" + b"hi")
    'a/b'
    """
    at = 1
    while at < len(packet) and packet[at] & 0x80:
        at += 1
    try:
        topic, _ = _text(packet, at + 1)
    except ProtocolError:
        return None
    return topic


def _connack(code: int) -> bytes:
    return bytes([0x20, 2, 0, code])


def _packet(first: int, body: bytes) -> bytes:
    return bytes([first]) + _length_bytes(len(body)) + body


def _body_at(packet: bytes) -> int:
    """Where a whole packet's variable header begins (after its remaining length)."""
    at = 1
    while at < len(packet) and packet[at] & 0x80:
        at += 1
    return at + 1


class Checks:
    r"""The ACL on one account's packets as they pass the door, both ways.

    From the client (:meth:`inbound`): a PUBLISH to a topic the account may not write is
    dropped and acknowledged by the door (PUBACK, or PUBREC and later PUBCOMP), so the
    client goes on; a SUBSCRIBE keeps only the filters the account may subscribe to,
    within ``max_filters`` held (``filters``, the account's, kept across its connections
    while its session is), and the others are answered ``0x80`` in amqtt's SUBACK
    (:meth:`outbound`) or, when none is left, in the door's own.

    >>> from crownhead.firmware.hall.acl import shipped_acl
    >>> sent = []
    >>> checks = Checks("table-1", shipped_acl(), sent.append, set(), max_filters=1)
    >>> def subscribe(pid, *filters):
    ...     body = pid.to_bytes(2, "big") + b"".join(len(f).to_bytes(2, "big") + f.encode() + b"\x01" for f in filters)
    ...     return _packet(0x82, body)
    >>> checks.inbound(subscribe(7, "crownhead/club/table-2/cmd")), sent  # another board's: refused by the door
    (None, [b'\x90\x03\x00\x07\x80'])
    >>> passed = checks.inbound(subscribe(8, "crownhead/club/table-2/cmd", "crownhead/club/table-1/cmd"))
    >>> passed == subscribe(8, "crownhead/club/table-1/cmd")  # only its own passes to amqtt...
    True
    >>> checks.outbound(bytes([0x90, 3, 0, 8, 1]))  # ...and amqtt's answer gets the refusal back
    b'\x90\x04\x00\x08\x80\x01'
    >>> checks.inbound(subscribe(9, "crownhead/other/table-1/cmd")), sent[-1]  # past its one filter
    (None, b'\x90\x03\x00\t\x80')
    """

    def __init__(
        self, account: str, acl: Acl, answer: Any, filters: set[str], *, max_filters: int = MAX_FILTERS
    ) -> None:
        self.account = account
        self.acl = acl
        self._answer = answer  # writes a whole packet to the client
        self.filters = filters
        self.max_filters = max_filters
        self._refusals: dict[bytes, list[bool]] = {}
        self._dropped_qos2: set[bytes] = set()
        #: Publishes dropped and subscriptions refused.
        self.dropped = 0
        self.refused = 0

    def inbound(self, packet: bytes) -> bytes | None:
        """``packet`` as amqtt may have it (maybe with fewer filters), or None: the door
        answered it."""
        kind, at = packet[0] >> 4, _body_at(packet)
        if kind == _PUBLISH:
            return self._publish(packet, at)
        if kind == _PUBREL and packet[at : at + 2] in self._dropped_qos2:
            self._dropped_qos2.discard(packet[at : at + 2])
            self._answer(_packet(0x70, packet[at : at + 2]))  # PUBCOMP
            return None
        if kind == _SUBSCRIBE:
            return self._subscribe(packet, at)
        if kind == _UNSUBSCRIBE:
            at += 2
            while at < len(packet):
                name, at = _text(packet, at)
                self.filters.discard(name)
        return packet

    def _publish(self, packet: bytes, at: int) -> bytes | None:
        topic, after = _text(packet, at)
        if self.acl.allows(self.account, self.account, "write", topic):
            return packet
        self.dropped += 1
        log.info("mqtt broker: %s may not write %r: dropped", self.account, topic)
        qos = (packet[0] >> 1) & 0x03
        pid = packet[after : after + 2]
        if qos == 1:
            self._answer(_packet(0x40, pid))  # PUBACK
        elif qos == 2:
            self._dropped_qos2.add(pid)
            self._answer(_packet(0x50, pid))  # PUBREC
        return None

    def _subscribe(self, packet: bytes, at: int) -> bytes | None:
        pid, at = packet[at : at + 2], at + 2
        kept, mask = b"", []
        while at < len(packet):
            name, end = _text(packet, at)
            if end >= len(packet):
                raise ProtocolError("a SUBSCRIBE filter without its QoS")
            allowed = self.acl.allows(self.account, self.account, "subscribe", name) and (
                name in self.filters or len(self.filters) < self.max_filters
            )
            if allowed:
                self.filters.add(name)
                kept += packet[at : end + 1]
            else:
                self.refused += 1
            mask.append(allowed)
            at = end + 1
        if all(mask):
            return packet
        log.info("mqtt broker: %s: %d subscriptions refused", self.account, mask.count(False))
        if not any(mask):
            self._answer(_packet(0x90, pid + bytes([_REFUSED]) * len(mask)))  # SUBACK
            return None
        self._refusals[pid] = mask
        return _packet(packet[0], pid + kept)

    def outbound(self, packet: bytes) -> bytes:
        """amqtt's ``packet`` to the client, a SUBACK given back the door's refusals."""
        if packet[0] >> 4 != _SUBACK:
            return packet
        at = _body_at(packet)
        pid = packet[at : at + 2]
        mask = self._refusals.pop(pid, None)
        if mask is None:
            return packet
        codes = iter(packet[at + 2 :])
        merged = bytes(next(codes, _REFUSED) if allowed else _REFUSED for allowed in mask)
        return _packet(packet[0], pid + merged)


@dataclass
class _Live:
    """An account's connection, served by amqtt until ``ended``."""

    writer: asyncio.StreamWriter
    ended: asyncio.Event = field(default_factory=asyncio.Event)


class Door:
    """Where every client of the embedded broker comes in, before amqtt reads a byte of it:

    - a client has :data:`CONNECT_TIMEOUT_S` to log in; at most :data:`MAX_WAITING` do at
      once, :data:`MAX_WAITING_PER_ADDRESS` from one address (when all are taken, the
      longest-waiting of the address with the most waiting is closed for a newcomer);
    - its CONNECT must name an account with its password (and a last will its account
      may write), else it is answered *not authorized* and closed;
    - its id becomes its account, and the account's earlier connection, if any, is
      closed and done with (its last will said) before amqtt sees the new one: a board
      back after its network went away replaces its stale connection (MQTT 3.1.4-2);
    - a packet over the guard's ``max_packet`` ends the connection before it is read;
    - amqtt sends it only messages its account may read;
    - at most :data:`MAX_CONNECTIONS` connections are served at once.

    amqtt serves each connection through its public API for connections made outside it
    (``Broker.external_connected`` on an ``external`` listener, with reader and writer
    adapters): nothing of amqtt's own is replaced.
    """

    def __init__(self, broker: Any, guard: Guard, listener: str) -> None:
        self.broker = broker
        self.guard = guard
        self.listener = listener
        self.waiting = Connections(MAX_WAITING, MAX_WAITING_PER_ADDRESS, 1.0, asyncio.get_running_loop().time)
        self.live: dict[str, _Live] = {}
        self._open: set[asyncio.WriteTransport] = set()  # every connection, logged in or not
        self._handover: dict[str, asyncio.Lock] = {}
        #: Each account's subscriptions, as its session keeps them (a clean session's
        #: begin anew): bounded by :data:`MAX_FILTERS`.
        self.filters: dict[str, set[str]] = {}
        #: Connections turned away at the door (no account, a wrong password, no CONNECT
        #: in time, too many), and messages withheld from accounts that may not read them.
        self.refused = 0
        self.withheld = 0
        #: Subscriptions refused (the ACL's, or past :data:`MAX_FILTERS`).
        self.refused_filters = 0

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.add(writer.transport)
        try:
            await self._serve(reader, writer)
        finally:
            self._open.discard(writer.transport)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername") or ("?", 0)
        who = f"{peer[0]}:{peer[1]}"
        transport = writer.transport
        key = client_key(str(peer[0]))
        if not self.waiting.admits(key):
            self.refused += 1
            transport.abort()
            return
        self.waiting.make_room()
        if self.waiting.full:
            self.refused += 1
            transport.abort()
            return
        self.waiting.made(transport, key)
        try:
            connect = await asyncio.wait_for(read_connect(reader, self.guard.max_packet), CONNECT_TIMEOUT_S)
        except (TimeoutError, ProtocolError, asyncio.IncompleteReadError, OSError) as exc:
            self.refused += 1
            log.info("mqtt broker: %s sent no CONNECT (%s)", who, exc or type(exc).__name__)
            transport.abort()
            return
        finally:
            self.waiting.lost(transport)
        if connect.level != 4:
            await self._refuse(
                writer, _UNACCEPTABLE_PROTOCOL, who, f"MQTT protocol level {connect.level}, not 4 (3.1.1)"
            )
            return
        refused = self.guard.admits(connect.username, connect.password, connect.client_id, connect.will_topic)
        if refused is not None:
            await self._refuse(writer, _NOT_AUTHORIZED, who, f"(user {connect.username!r}) {refused}")
            return
        account = connect.username
        assert account is not None
        if len(self.live) >= MAX_CONNECTIONS and account not in self.live:
            await self._refuse(writer, _UNAVAILABLE, who, f"{MAX_CONNECTIONS} clients are served already")
            return
        me = _Live(writer)
        async with self._handover.setdefault(account, asyncio.Lock()):
            old = self.live.get(account)
            if old is not None:
                # Its network went away, or it is a second client with the same account:
                # the old connection ends, and amqtt is done with it (its last will said),
                # before the new one begins.
                log.info("mqtt broker: %s logs in as %r again: its earlier connection is closed", who, account)
                old.writer.transport.abort()
                try:
                    await asyncio.wait_for(old.ended.wait(), HANDOVER_S)
                except TimeoutError:
                    log.warning("mqtt broker: %r's earlier connection did not end in %.0f s", account, HANDOVER_S)
            self.live[account] = me
        reader_class, writer_class = _adapters()
        may_read = self._reader_of(account)
        if connect.clean_session or account not in self.filters:
            self.filters[account] = set()
        checks = Checks(account, self.guard.acl, writer.write, self.filters[account])
        out = writer_class(writer, may_read, checks, f"{who} ({account})")
        try:
            await self.broker.external_connected(
                reader_class(
                    connect.packet(account), reader, writer, checks, self.guard.max_packet, f"{who} ({account})"
                ),
                out,
                self.listener,
            )
        except Exception:  # noqa: BLE001 - one client's end is no reason to stop the broker
            log.exception("mqtt broker: %s (%s) ended with an error", who, account)
        finally:
            self.withheld += out.withheld + checks.dropped
            self.refused_filters += checks.refused
            if self.live.get(account) is me:
                del self.live[account]
            me.ended.set()
            if not transport.is_closing():
                transport.abort()

    def _reader_of(self, account: str) -> Any:
        acl = self.guard.acl

        def may_read(topic: str) -> bool:
            return acl.allows(account, account, "read", topic)

        return may_read

    async def _refuse(self, writer: asyncio.StreamWriter, code: int, who: str, why: str) -> None:
        self.refused += 1
        log.info("mqtt broker: %s refused: %s", who, why)
        try:
            writer.write(_connack(code))
            await asyncio.wait_for(writer.drain(), 1.0)
        except (OSError, TimeoutError):
            pass
        writer.transport.abort()

    def close_all(self) -> None:
        """End every connection (the broker stops), those still logging in too."""
        for transport in list(self._open):
            transport.abort()


# -- amqtt's side --------------------------------------------------------------------------

_CLASSES: dict[str, Any] = {}


def _adapters() -> tuple[Any, Any]:
    """The door's reader and writer for amqtt (subclasses of amqtt's adapter classes, its
    public API for a connection made outside it), made the first time they are needed."""
    if "adapters" not in _CLASSES:
        from amqtt.adapters import ReaderAdapter, WriterAdapter

        class DoorReader(ReaderAdapter):
            """The client's stream as amqtt reads it: the CONNECT the door passes on first,
            then the client's packets, each read whole and passed through the account's
            :class:`Checks`; a packet over ``limit`` ends the connection before anything
            is read for it."""

            def __init__(
                self,
                first: bytes,
                reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter,
                checks: Checks,
                limit: int,
                who: str,
            ) -> None:
                self._ready = bytearray(first)
                self._reader = reader
                self._writer = writer
                self._checks = checks
                self._limit = limit
                self._who = who
                self._ended = False

            async def read(self, n: int = -1) -> bytes:
                if n < 0 or n > self._limit + 5:
                    self._end(f"a read of {n} bytes")
                while len(self._ready) < n and not self._ended:
                    packet = await self._packet()
                    if packet is not None:
                        self._ready += packet
                data = bytes(self._ready[:n])
                del self._ready[:n]
                return data  # short only at the end of the stream, as amqtt expects

            async def _packet(self) -> bytes | None:
                """The client's next packet as amqtt may have it (None: none, or the door answered it)."""
                try:
                    header = bytearray(await self._reader.readexactly(1))
                    length = shift = 0
                    while True:
                        byte = (await self._reader.readexactly(1))[0]
                        header.append(byte)
                        length |= (byte & 0x7F) << shift
                        shift += 7
                        if not byte & 0x80:
                            break
                        if shift >= 28:
                            self._end("a packet length of more than four bytes")
                            return None
                    if length > self._limit:
                        self._end(f"a packet of {length} bytes, more than {self._limit}")
                        return None
                    packet = bytes(header) + await self._reader.readexactly(length)
                except (asyncio.IncompleteReadError, OSError):
                    self._ended = True  # the client left: amqtt reads the end of the stream
                    return None
                try:
                    return self._checks.inbound(packet)
                except ProtocolError as exc:
                    self._end(str(exc))
                    return None

            def _end(self, why: str) -> None:
                log.info("mqtt broker: %s disconnected: %s", self._who, why)
                self._ended = True
                self._writer.transport.abort()

            def feed_eof(self) -> None:
                self._reader.feed_eof()

        class DoorWriter(WriterAdapter):
            """What amqtt sends the client: every message one its account may read (amqtt
            sends a client that logs in the retained messages of everyone's subscriptions;
            those its account may not read are withheld here)."""

            def __init__(self, writer: asyncio.StreamWriter, may_read: Any, checks: Checks, who: str) -> None:
                self._writer = writer
                self._may_read = may_read
                self._checks = checks
                self._who = who
                self._out = bytearray()
                self.closed = False
                self.withheld = 0

            def write(self, data: bytes) -> None:
                if self.closed:
                    return
                self._out += data
                while (packet := take_packet(self._out)) is not None:
                    if packet[0] >> 4 == _PUBLISH:
                        topic = publish_topic(packet)
                        if topic is None or not self._may_read(topic):
                            if not (packet[0] >> 1) & 0x03:
                                self.withheld += 1
                                continue
                            # One amqtt would wait for the client to acknowledge: it is
                            # not sent either, and the connection ends.
                            log.error(
                                "mqtt broker: a message on %r for %s, who may not read it: disconnected",
                                topic,
                                self._who,
                            )
                            self.closed = True
                            self._writer.transport.abort()
                            return
                    self._writer.write(self._checks.outbound(packet))

            async def drain(self) -> None:
                if not self.closed:
                    await self._writer.drain()

            def get_peer_info(self) -> tuple[str, int] | None:
                peer = self._writer.get_extra_info("peername")
                return (str(peer[0]), int(peer[1])) if peer and len(peer) >= 2 else None

            def get_ssl_info(self) -> Any:
                return None

            async def close(self) -> None:
                if self.closed:
                    return
                self.closed = True
                try:
                    await asyncio.wait_for(self._writer.drain(), 1.0)
                    self._writer.close()
                except (OSError, TimeoutError):
                    self._writer.transport.abort()  # a client that reads nothing holds nothing

        _CLASSES["adapters"] = (DoorReader, DoorWriter)
    adapters: tuple[Any, Any] = _CLASSES["adapters"]
    return adapters


@dataclass
class _PluginConfig:
    guard: Any = None


class _AccountPlugin(BaseAuthPlugin):
    """Admits a client whose account and password match and whose id is its account."""

    Config = _PluginConfig

    async def authenticate(self, *, session: Any) -> bool:
        guard: Guard = self.config.guard
        return bool(guard.accounts.check(session.username, session.password) and session.client_id == session.username)
