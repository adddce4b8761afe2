"""An MQTT broker inside the hall's process (amqtt), so that one laptop is a whole club setup.

It listens on loopback unless told otherwise and lets anyone connect: for a hall on a
network, with passwords and ACLs, run Mosquitto (docs/hall.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

__all__ = ["EmbeddedBroker"]


class EmbeddedBroker:
    """amqtt's broker on ``host:port``, run in its own thread with its own event loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host, self.port = host, port
        self._loop = asyncio.new_event_loop()
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mqtt-broker", daemon=True)

    def _run(self) -> None:
        from amqtt.broker import Broker

        asyncio.set_event_loop(self._loop)
        # amqtt's plugin style of configuration: only the plugins named here are loaded.
        # Anyone may connect (anonymous authentication) and no topic plugin filters what
        # a client publishes or subscribes to; amqtt's event and packet loggers and its
        # $SYS topics are left out.
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        try:
            self._broker = Broker(config, loop=self._loop)
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
