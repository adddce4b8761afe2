"""The ``[remote]`` configuration section: how a board keeps its line to the broker of a
game far apart (``crownhead run --remote CODE``).

Light on purpose: the configuration loader names this module (see
:data:`crownhead.firmware.config.BUILTIN_SECTIONS`), so it imports no MQTT client.

>>> RemoteConfig().keepalive_s, RemoteConfig().resend_ms, RemoteConfig().broker
(5, 3000, '')
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.firmware.config import FieldError, config_section

__all__ = ["RemoteConfig"]


@config_section("remote")
@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """``keepalive_s``: the MQTT keep-alive. A line gone dead without a word (a home's
    internet down, a router's table lost) is noticed only by it: the board within twice
    this, the broker (which then tells the other board) within one and a half times; until
    then both boards' clocks run; a board that lost the broker tries again at most this
    far apart. ``resend_ms``: how long a line waits for the other
    board's acknowledgement before it is sent again.

    ``broker``: this board's account on the broker of its games far apart, for the
    board's page to invite and join (``mqtts://BOARD:PASSWORD@host``; empty: the page
    cannot), with ``cafile`` (the broker's CA, if the system does not trust it) and
    ``insecure`` (a broker on another machine without TLS, as ``--insecure``);
    ``wait_s``: how long an invitation made on the page waits for the other board."""

    keepalive_s: int = 5
    resend_ms: int = 3000
    broker: str = ""
    cafile: str = ""
    insecure: bool = False
    wait_s: int = 600

    def validate(self) -> None:
        if not 1 <= self.keepalive_s <= 600:
            raise FieldError("keepalive_s", f"must be within 1-600 seconds, got {self.keepalive_s}")
        if not 100 <= self.resend_ms <= 600_000:
            raise FieldError("resend_ms", f"must be within 100-600000, got {self.resend_ms}")
        if self.broker:
            from crownhead.firmware.hall.topics import BrokerUrl  # no MQTT client: a URL's parts

            try:
                url = BrokerUrl.parse(self.broker)
            except ValueError as exc:
                raise FieldError("broker", str(exc)) from None
            if url.username is None or url.password is None:
                raise FieldError(
                    "broker", f"{url}: give the board's account and password (mqtts://BOARD:PASSWORD@host)"
                )
        if not 10 <= self.wait_s <= 86_400:
            raise FieldError("wait_s", f"must be within 10-86400 seconds, got {self.wait_s}")
