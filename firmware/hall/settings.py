"""The ``[mqtt]`` configuration section: where a board reports to a hall.

Light on purpose: the configuration loader names this module (see
:data:`crownhead.firmware.config.BUILTIN_SECTIONS`), so it imports no MQTT client.

>>> HallSettings("mqtt://board:secret@hall.local", "club", "table-1").validate().host
'hall.local'
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from crownhead.firmware.config import FieldError, config_section
from crownhead.firmware.hall.topics import BrokerUrl, check_name

__all__ = ["HallSettings"]


@config_section("mqtt")
@dataclass(frozen=True, slots=True)
class HallSettings:
    """Where a board reports (``crownhead run --mqtt URL``): the ``[mqtt]`` section.

    ``url``: ``mqtt://[user[:password]@]host[:port]`` or ``mqtts://...`` (TLS); empty: no
    hall. ``username``/``password``: the board's broker account, if not in the URL.
    ``cafile``: with ``mqtts://``, the CA certificate. ``hall``, ``board``: the names in
    the topics. ``commands``: take the host link's commands from the hall on the
    board's ``cmd`` topic (needs a broker account). ``max_queue``: events kept while the
    broker is away.
    """

    url: str = ""
    hall: str = "hall"
    board: str = "board"
    cafile: str | None = None
    max_queue: int = 10_000
    username: str = ""
    password: str = ""
    commands: bool = False

    def validate(self) -> BrokerUrl | None:
        """The broker's URL with the account applied (None: no hall); FieldError naming the key."""
        for key in ("hall", "board"):
            try:
                check_name(getattr(self, key), key)
            except ValueError as exc:
                raise FieldError(key, str(exc)) from None
        if not 10 <= self.max_queue <= 1_000_000:
            raise FieldError("max_queue", f"must be within 10-1000000, got {self.max_queue}")
        if not self.url:
            if self.commands:
                raise FieldError("commands", "commands from the hall need a broker: set url")
            return None
        try:
            url = BrokerUrl.parse(self.url)
        except ValueError as exc:
            raise FieldError("url", str(exc)) from None
        if self.username:
            url = replace(url, username=self.username, password=self.password or None)
        if self.commands and url.username is None:
            raise FieldError(
                "commands", "commands from the hall need the board's broker account (username and password)"
            )
        return url
