"""Loopback ports and real-time waits for the tests that run servers (hall, brokers)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Real seconds a test waits for something over the network before it fails: a bound on
#: a failure only, generous enough for a very busy machine.
WAIT_S = 120.0


def wait_for(predicate: Callable[[], object], timeout_s: float = WAIT_S) -> bool:
    """Poll ``predicate`` until it holds; the bound is in real time, and only fails a test."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())
