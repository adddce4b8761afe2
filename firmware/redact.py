"""Secrets kept out of every answer, page and log line: one list of secret keys, and the
password of any URL.

What the board shows of its configuration (the web page's status, a log line, an error)
goes through :func:`redacted`: a value under a secret key (``pin``, ``password``,
``token``...) is shown as ``(set)`` when set, and a URL's password (``mqtt://board:pw@hall``)
as ``***``, the user name kept so that one can still tell which account it is. The
board's log handler carries :class:`RedactingFilter`, so a line that names a URL never
names its password, whoever wrote it.

>>> redacted({"url": "mqtt://board:s3cret@hall.local:1883", "password": "s3cret", "pin": "", "port": 8080})
{'url': 'mqtt://board:***@hall.local:1883', 'password': '(set)', 'pin': '', 'port': 8080}
>>> redact_text("cannot reach https://u:p%40ss@example.org/x and mqtt://plain@host")
'cannot reach https://u:***@example.org/x and mqtt://plain@host'
>>> redact_text("mqtt://u:p@ss@host:1883 ftp://a:b@c")
'mqtt://u:***@host:1883 ftp://a:***@c'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["SECRET_KEYS", "SHOWN", "is_secret_key", "redact_text", "redacted", "RedactingFilter"]

#: Keys whose value is a secret wherever they stand (a config section's field, a table in
#: it, a JSON answer); a key ending in ``_`` and one of these (``api_key``, ``mqtt_password``)
#: is one too.
SECRET_KEYS = frozenset({"pin", "password", "passwd", "passphrase", "secret", "token", "key", "psk", "credentials"})
#: What a secret that is set is shown as (an empty one is shown empty: "not set" is no secret).
SHOWN = "(set)"

# scheme://user:password@ -> the password; a user without a password shows as it is.
# (A password is cut at its URL's last "@": one written with a bare "@" hides whole.)
_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/@]*):(?P<password>[^\s/]*)@")


def is_secret_key(key: str) -> bool:
    """Whether a value under ``key`` is a secret.

    >>> is_secret_key("pin"), is_secret_key("mqtt_password"), is_secret_key("public_view")
    (True, True, False)
    """
    name = key.lower()
    return name in SECRET_KEYS or name.rsplit("_", 1)[-1] in SECRET_KEYS


def redact_text(text: str) -> str:
    """``text`` with the password of every URL in it shown as ``***``."""
    if "://" not in text:
        return text
    return _URL_PASSWORD.sub(lambda m: f"{m['head']}:***@", text)


def redacted(value: Any, key: str = "") -> Any:
    """``value`` (JSON-like: mappings, lists, text, numbers) with every secret hidden: the
    value of a secret key as :data:`SHOWN`, URL passwords in any text as ``***``."""
    if key and is_secret_key(key) and not isinstance(value, (Mapping, list, tuple)):
        return SHOWN if value not in ("", None, False) else value
    if isinstance(value, Mapping):
        return {k: redacted(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redacted(v, key) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


class RedactingFilter(logging.Filter):
    """A log filter that takes URL passwords out of every record (its message and its
    arguments): put on a handler, no line it writes names one."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad record is the handler's to report
            return True
        if "://" in message:
            record.msg = redact_text(message)
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text and "://" in record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True
