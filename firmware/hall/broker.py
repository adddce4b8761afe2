"""An MQTT broker inside the hall's process (amqtt), so that one laptop is a whole club setup.

It is as closed as the shipped Mosquitto configuration (``deploy/mosquitto``):

- every client logs in with an account of :class:`~firmware.hall.accounts.Accounts`
  (made at the hall's first start); a client without one, or with a wrong password, is
  refused before the broker looks at anything else it sent;
- a client's id is its account (Mosquitto's ``use_username_as_clientid``): a board that
  names another's id, or the hall's, gets its own, so it can neither disconnect them
  nor take their session;
- what each account may publish, subscribe to and receive is the shipped ACL's
  (:mod:`firmware.hall.acl`), its last will included;
- a packet is at most :data:`MAX_PACKET` bytes (Mosquitto's ``max_packet_size``): a
  client sending a larger one is disconnected before the broker reads it; a client that
  does not log in within :data:`CONNECT_TIMEOUT_S` is disconnected; at most
  :data:`MAX_CONNECTIONS` are served at once.

amqtt has no option for the first two, so :class:`_HallBroker` reads the CONNECT packet
itself (the one method of amqtt's broker it replaces; amqtt is pinned to the version
whose method it follows, and ``tests/test_hall_security.py`` probes both brokers alike).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Any

# The plugins below are amqtt's classes: this module is imported only by a hall that runs
# its own broker (``crownhead hall`` without ``--broker``).
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from firmware.hall.accounts import Accounts
from firmware.hall.acl import Acl, shipped_acl

__all__ = ["EmbeddedBroker", "MAX_PACKET", "Guard"]

log = logging.getLogger(__name__)

#: The largest packet a client may send (a board's largest, its state, is a few KiB).
MAX_PACKET = 64 * 1024
#: Seconds a client has, once connected, to log in.
CONNECT_TIMEOUT_S = 10.0
#: Clients served at once (200 boards, the hall, the arbiter, and room to spare).
MAX_CONNECTIONS = 1024


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
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mqtt-broker", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        # amqtt's plugin style of configuration: only the plugins named here are loaded.
        # Ours decide who is in and what each may do; amqtt's event and packet loggers and
        # its $SYS topics are left out.
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}",
                                      "max_connections": MAX_CONNECTIONS}},
            "plugins": {
                f"{__name__}._AccountPlugin": {"guard": self.guard},
                f"{__name__}._AclPlugin": {"guard": self.guard},
            },
        }
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        try:
            self._broker = _broker_class()(config, loop=self._loop)
            self._broker.guard = self.guard
            self._loop.run_until_complete(self._broker.start())
        except BaseException as exc:  # reported by start() in the caller's thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()

    def start(self, timeout_s: float = 10.0) -> None:
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise RuntimeError(f"the embedded MQTT broker did not start on {self.host}:{self.port}")
        if self._error is not None:
            raise RuntimeError(f"the embedded MQTT broker cannot listen on {self.host}:{self.port}: {self._error}")

    def close(self) -> None:
        if self._broker is not None and self._loop.is_running():
            fut = asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop)
            try:
                fut.result(timeout=5)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


class PacketTooLarge(Exception):
    """A client sent a packet larger than the broker takes: its connection ends."""


# -- amqtt's side --------------------------------------------------------------------------

_CLASSES: dict[str, Any] = {}


def _broker_class() -> Any:
    if "broker" in _CLASSES:
        return _CLASSES["broker"]
    from amqtt.broker import Broker
    from amqtt.errors import AMQTTError, MQTTError, NoDataError
    from amqtt.mqtt.connack import NOT_AUTHORIZED, ConnackPacket
    from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler

    class BoundedReader:
        """A client's stream that refuses to read a packet larger than ``limit`` bytes:
        the connection ends before anything is allocated for it."""

        def __init__(self, reader: Any, limit: int) -> None:
            self._reader = reader
            self._limit = limit

        async def read(self, n: int = -1) -> bytes:
            if n < 0 or n > self._limit:
                # Not an error amqtt reads past (it would take the rest for packets):
                # it ends the client's connection.
                raise PacketTooLarge(f"a packet of {n} bytes, more than {self._limit}")
            data: bytes = await self._reader.read(n)
            return data

        def feed_eof(self) -> None:
            self._reader.feed_eof()

    class HallBroker(Broker):
        guard: Guard

        async def _client_connected(self, listener_name: str, reader: Any, writer: Any) -> None:
            await super()._client_connected(listener_name, BoundedReader(reader, self.guard.max_packet), writer)

        async def _initialize_client_session(
            self, reader: Any, writer: Any, remote_address: str, remote_port: int
        ) -> tuple[Any, Any]:
            # As amqtt 0.12's own, but the client logs in first and its id becomes its
            # account's, before any session is looked up, deleted or taken over.
            try:
                handler, session = await asyncio.wait_for(
                    BrokerProtocolHandler.init_from_connect(reader, writer, self.plugins_manager), CONNECT_TIMEOUT_S
                )
            except (AMQTTError, MQTTError, NoDataError, TimeoutError, PacketTooLarge) as exc:
                await writer.close()
                raise AMQTTError(f"{remote_address}:{remote_port}: no CONNECT ({exc or type(exc).__name__})") from None
            will = session.will_topic if session.will_flag else None
            refused = self.guard.admits(session.username, session.password, session.client_id, will)
            if refused is not None:
                log.info("mqtt broker: %s:%s (user %r) refused: %s", remote_address, remote_port, session.username, refused)
                await ConnackPacket.build(0, NOT_AUTHORIZED).to_stream(writer)
                await writer.close()
                raise MQTTError(f"{remote_address}:{remote_port} refused: {refused}")
            session.client_id = session.username
            if session.clean_session:
                await self._delete_session(session.client_id)
                session.parent = 0
            elif session.client_id in self._sessions:
                existing, _ = self._sessions[session.client_id]
                for name in ("will_flag", "will_message", "will_topic", "will_qos", "keep_alive", "username", "password"):
                    setattr(existing, name, getattr(session, name))
                session = existing
                session.parent = 1
            else:
                session.parent = 0
            return handler, session

    _CLASSES["broker"] = HallBroker
    return HallBroker


@dataclass
class _PluginConfig:
    guard: Any = None


class _AccountPlugin(BaseAuthPlugin):
    """Admits a client whose account and password match and whose id is its account."""

    Config = _PluginConfig

    async def authenticate(self, *, session: Any) -> bool:
        guard: Guard = self.config.guard
        return bool(guard.accounts.check(session.username, session.password) and session.client_id == session.username)


class _AclPlugin(BaseTopicPlugin):
    """What a client may publish, subscribe to and receive: the shipped ACL."""

    Config = _PluginConfig

    async def topic_filtering(self, *, session: Any = None, topic: str | None = None, action: Any = None) -> bool:
        guard: Guard = self.config.guard
        if session is None or topic is None or action is None:
            return False
        kind = {"publish": "write", "subscribe": "subscribe", "receive": "read"}.get(str(action.value).lower())
        return kind is not None and guard.acl.allows(session.username, session.client_id, kind, topic)
