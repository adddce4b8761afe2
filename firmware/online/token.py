"""The personal API token of ``crownhead online login``: one file in the state directory,
readable by its owner only (0600, written whole or not at all), never logged or shown.

A token is made on the server's site (playstrategy.org: Preferences, API access tokens)
with the scope ``board:play`` ("Play games with the board API").
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from crownhead.firmware.files import atomic_write

__all__ = ["TokenError", "forget_token", "load_token", "save_token", "token_path"]

#: What a token may be made of (lichess-style tokens: letters, digits, ``_``).
_TOKEN = re.compile(r"[A-Za-z0-9_\-]{8,128}")


class TokenError(ValueError):
    """No token, a token file others can read, or something that is not a token."""


def token_path(state_dir: Path) -> Path:
    return state_dir / "online" / "token"


def save_token(state_dir: Path, token: str) -> Path:
    """Keep ``token`` (0600) and return where."""
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        raise TokenError("that is not an API token (letters, digits and _ only, 8 to 128 of them)")
    path = token_path(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, token + "\n", private=True)
    os.chmod(path, 0o600)
    return path


def load_token(state_dir: Path) -> str:
    """The token kept; TokenError if there is none or others may read it."""
    path = token_path(state_dir)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise TokenError("no token: run 'crownhead online login' first") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenError(f"{path} may be read by others: chmod 600 it, or log in again")
    token = path.read_text(encoding="utf-8").strip()
    if not _TOKEN.fullmatch(token):
        raise TokenError(f"{path} holds no token: log in again")
    return token


def forget_token(state_dir: Path) -> bool:
    """Delete the token kept; whether there was one."""
    try:
        token_path(state_dir).unlink()
    except FileNotFoundError:
        return False
    return True
