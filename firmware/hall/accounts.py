"""The embedded broker's accounts: made at the hall's first start, kept in its state directory.

``crownhead hall`` without ``--broker`` runs a broker of its own, and nobody may use it
without an account: ``hall`` (the hall itself, which reads every board), ``arbiter``
(who sends the boards commands) and one per board the hall knows, named as the board.
Each gets a random password the first time the hall meets it; they are kept, one line
``NAME PASSWORD`` each, in ``hall-NAME-accounts.txt`` in the hall's state directory,
readable by its owner only, and the hall prints the new ones where the arbiter sees
them. What each account may do is the shipped ACL's (:mod:`crownhead.firmware.hall.acl`).

>>> accounts = Accounts({"hall": "x7", "table-1": "k2"})
>>> accounts.check("table-1", "k2"), accounts.check("table-1", "x7"), accounts.check(None, None)
(True, False, False)
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from crownhead.firmware.files import FileRefused, atomic_write, read_bytes
from crownhead.firmware.hall.topics import check_name

__all__ = ["Accounts", "HALL", "ARBITER", "RESERVED", "accounts_file"]

#: The hall's own account: it reads every board and writes only the acknowledgements of their results.
HALL = "hall"
#: The arbiter's account: the only one that may write a board's ``cmd`` topic.
ARBITER = "arbiter"
#: Names that are accounts of their own, never a board's.
RESERVED = (HALL, ARBITER)
#: The file's cap when it is read back (a line is about 40 bytes).
MAX_BYTES = 1024 * 1024
_MAX_PASSWORD = 128


def accounts_file(state_dir: str | os.PathLike[str], hall: str) -> Path:
    """Where the hall called ``hall`` keeps its broker's accounts in ``state_dir``."""
    return Path(state_dir) / f"hall-{hall}-accounts.txt"


@dataclass
class Accounts:
    """User names and their passwords (kept in ``path``, None: in memory only)."""

    passwords: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    def check(self, user: str | None, password: str | bytes | None) -> bool:
        """Whether ``user`` gave its password (compared in constant time)."""
        if user is None or password is None:
            return False
        expected = self.passwords.get(user)
        given = password.encode() if isinstance(password, str) else bytes(password)
        return expected is not None and hmac.compare_digest(expected.encode(), given)

    def url(self, user: str, host: str, port: int) -> str:
        """The broker URL with ``user``'s account (passwords are URL-safe as made)."""
        where = f"[{host}]" if ":" in host else host
        return f"mqtt://{user}:{self.passwords[user]}@{where}:{port}"

    @classmethod
    def open(cls, path: Path | None, boards: Iterable[str] = ()) -> tuple[Accounts, list[str]]:
        """The accounts in ``path`` with one made for ``hall``, ``arbiter`` and each of
        ``boards`` that has none yet (the file written again, owner-only, when any was
        made); and the names of those made. ValueError naming the file and line of a file
        that cannot be read: it is left as it is."""
        accounts = cls(path=path)
        if path is not None:
            accounts.passwords = _read(path)
        made = []
        for name in [*RESERVED, *boards]:
            if name not in accounts.passwords:
                accounts.passwords[name] = secrets.token_urlsafe(12)
                made.append(name)
        if made and path is not None:
            accounts.save()
        return accounts, made

    def save(self) -> None:
        if self.path is None:
            return
        lines = [
            "# The broker accounts of a Crownhead hall (docs/hall.md): NAME PASSWORD, one a line.",
            "# 'hall' is the hall itself, 'arbiter' sends boards commands, every other is a board's.",
            *(f"{name} {password}" for name, password in self.passwords.items()),
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, "\n".join(lines) + "\n", private=True)  # readable by its owner only


def _read(path: Path) -> dict[str, str]:
    try:
        data = read_bytes(path, MAX_BYTES)
    except FileNotFoundError:
        return {}
    except FileRefused as exc:
        raise ValueError(str(exc)) from None
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    passwords: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if len(words) != 2:
            raise ValueError(f"{path}:{number}: expected 'NAME PASSWORD'")
        name, password = words
        try:
            check_name(name, "account")
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        if len(password) > _MAX_PASSWORD or not password.isprintable():
            raise ValueError(
                f"{path}:{number}: the password of {name!r} is not up to {_MAX_PASSWORD} printable characters"
            )
        if name in passwords:
            raise ValueError(f"{path}:{number}: {name!r} is listed twice")
        passwords[name] = password
    return passwords
