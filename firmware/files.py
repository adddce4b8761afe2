"""The board's files: read under one rule (nothing read can hang or exhaust it), and
written under another (a file is replaced whole or not at all).

Every file the board reads (the saved game, finished records, the configuration, PDN
files, replay scripts) goes through :func:`read_bytes` or :func:`read_text`:

* a regular file only (or ``/dev/null``, read as empty): a FIFO would block the start,
  ``/dev/zero`` (or a symlink to it) would never end. The file is opened without blocking and checked on the open file
  descriptor, so nothing can be swapped in between the check and the read;
* at most ``limit`` bytes: one byte more and the file is refused, having read no more
  than that;
* nesting bounded: :func:`check_json_depth` and :func:`check_toml_depth` refuse a text
  nested deeper than a real file ever is before a recursive parser sees it;
* numbers are ASCII digits with a length limit (:func:`ascii_int`).

Every refusal is one :class:`FileRefused` whose message names the file and the problem.

Every file the board writes (the game in progress and finished games, the match, the
clock, the referee's records, score sheets, endgame tables, the hall's standings) goes
through :func:`atomic_file` or :func:`atomic_write`: a temporary file of its own beside
the real one, flushed to the disk, renamed over it and the directory flushed, so that a
power cut leaves the old file or the new one, never half of one. A file that cannot be
used is kept, renamed aside (:func:`move_aside`), never deleted; the games live in
:func:`default_state_dir`.

>>> ascii_int("0042", 4, "a square")
42
>>> ascii_int("\\u00b2", 4, "a square")
Traceback (most recent call last):
...
ValueError: a square must be 1-4 ASCII digits, got '²'
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import io
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "FileRefused",
    "read_bytes",
    "open_bytes",
    "read_text",
    "check_json_depth",
    "parse_json",
    "check_toml_depth",
    "ascii_int",
    "is_ascii_digits",
    "int_argument",
    "printable",
    "CONFIG_LIMIT",
    "RECORD_LIMIT",
    "PDN_LIMIT",
    "SCRIPT_LIMIT",
    "MAX_DEPTH",
    "SYSTEM_STATE_DIR",
    "default_state_dir",
    "atomic_file",
    "atomic_write",
    "fsync_dir",
    "move_aside",
]

#: Where a Pi keeps its games (systemd's ``StateDirectory=crownhead`` creates it).
SYSTEM_STATE_DIR = Path("/var/lib/crownhead")

#: The size caps, in bytes. A configuration is a page of text; a saved game of the longest
#: game played (a few hundred moves) is a few kilobytes; PDN databases run to megabytes.
CONFIG_LIMIT = 256 * 1024
RECORD_LIMIT = 1024 * 1024
PDN_LIMIT = 64 * 1024 * 1024
SCRIPT_LIMIT = 4 * 1024 * 1024
#: The deepest nesting a JSON or TOML file the board reads may have (real ones: 4).
MAX_DEPTH = 32


class FileRefused(ValueError):
    """A file that is not read: not a regular file, too large, nested too deeply, unreadable.

    ``path`` names the file; ``str()`` is the whole message, the path first.
    """

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _is_devnull(info: os.stat_result) -> bool:
    if not stat.S_ISCHR(info.st_mode):
        return False
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return stat.S_ISCHR(null.st_mode) and null.st_rdev == info.st_rdev


class _Bounded(io.RawIOBase):
    """A regular file's descriptor read to at most ``limit`` bytes (a file growing while
    it is read is refused at the cap), seekable: a reader may pass over it twice."""

    def __init__(self, fd: int, path: str | os.PathLike[str], limit: int) -> None:
        self._fd, self._path, self._limit = fd, path, limit

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return os.lseek(self._fd, offset, whence)

    def tell(self) -> int:
        return os.lseek(self._fd, 0, os.SEEK_CUR)

    def readinto(self, buffer: Any) -> int:
        at = self.tell()
        try:
            data = os.read(self._fd, min(len(buffer), self._limit + 1 - at))
        except OSError as exc:
            raise FileRefused(self._path, f"cannot read: {exc.strerror or exc}") from None
        if at + len(data) > self._limit:
            raise FileRefused(self._path, f"is more than the {self._limit} bytes a file of its kind may have")
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


@contextlib.contextmanager
def open_bytes(path: str | os.PathLike[str], limit: int) -> Iterator[BinaryIO]:
    """The regular file ``path`` open for reading, under :func:`read_bytes`' rules (at
    most ``limit`` bytes, refused as one :class:`FileRefused`), to be read a part at a
    time: a large file (a PDN database) is never held whole."""
    fd = _open_checked(path, limit)
    if fd is None:
        yield io.BytesIO(b"")
        return
    with io.BufferedReader(_Bounded(fd, path, limit), 64 * 1024) as handle:
        yield handle


def _open_checked(path: str | os.PathLike[str], limit: int) -> int | None:
    """A descriptor of the regular file ``path`` of at most ``limit`` bytes (None: it is
    ``/dev/null``, read as empty); FileNotFoundError or one :class:`FileRefused`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise FileRefused(path, "is a directory, not a file") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO nobody writes to on some systems
            raise FileRefused(path, "is not a regular file") from None
        raise FileRefused(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if _is_devnull(info):
            os.close(fd)
            return None
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(path, f"is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise FileRefused(path, f"is {info.st_size} bytes, more than the {limit} a file of its kind may have")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The content of the regular file ``path``, at most ``limit`` bytes.

    FileNotFoundError passes through (a missing file often just means "none yet");
    every other problem is a :class:`FileRefused`.
    """
    fd = _open_checked(path, limit)
    if fd is None:
        return b""  # /dev/null: "no input", as a shell script passes it
    try:
        chunks: list[bytes] = []
        size = 0
        while True:
            # A file growing while it is read stops at the cap just the same.
            chunk = os.read(fd, min(65536, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise FileRefused(path, f"is more than the {limit} bytes a file of its kind may have")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(path, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], limit: int) -> str:
    """:func:`read_bytes` decoded as UTF-8 (:class:`FileRefused` naming the byte if not)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(path, f"is not UTF-8 text (byte {exc.start})") from None


def check_json_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    """ValueError if arrays and objects in the JSON ``text`` nest deeper than ``max_depth``.

    One pass, no recursion; brackets inside strings do not count. The text need not be
    valid JSON (the parser says what else is wrong).

    >>> check_json_depth('{"a": [[1, "]]]"]]}', 3)
    >>> check_json_depth("[" * 40, 32)
    Traceback (most recent call last):
    ...
    ValueError: nested more than 32 deep (at character 32)
    """
    depth = 0
    in_string = False
    escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise ValueError(f"nested more than {max_depth} deep (at character {i})")
        elif ch in "]}":
            depth -= 1


def parse_json(data: bytes | str, max_depth: int = MAX_DEPTH) -> object:
    """A JSON text the board is given (a file it kept, a message): UTF-8, nested at most
    ``max_depth`` deep; ValueError saying what is wrong, never a RecursionError.

    >>> parse_json(b'{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_json(b"[" * 40)
    Traceback (most recent call last):
    ...
    ValueError: nested more than 32 deep (at character 32)
    >>> parse_json(b"{nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON (Expecting property name...)
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        check_json_depth(text, max_depth)
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None


_DIGITS = frozenset("0123456789_")
#: The most digits a number in a configuration may have.
MAX_NUMBER = 64


def check_toml_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    """ValueError naming the line if arrays and inline tables in ``text`` nest too deeply,
    or a number outside a string has more than :data:`MAX_NUMBER` digits.

    Strings (basic, literal, multi-line) and comments are skipped; a table header
    (``[a.b]``, ``[[a]]``) counts as one level. The text need not be valid TOML.

    >>> check_toml_depth('a = [[1], {b = "[[["}]  # [[[[', 2)
    >>> check_toml_depth("a = " + "[" * 9, 8)
    Traceback (most recent call last):
    ...
    ValueError: line 1: nested more than 8 deep
    """
    depth = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        elif ch in "\"'":
            triple = text.startswith(ch * 3, i)
            quote = ch * 3 if triple else ch
            j = i + len(quote)
            while j < n:
                if ch == '"' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    break
                if text[j] == "\n":
                    if not triple:
                        break  # an unclosed one-line string: the parser says so
                    line += 1
                j += 1
            i = j + len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise ValueError(f"line {line}: nested more than {max_depth} deep")
        elif ch in "]}":
            depth = max(depth - 1, 0)
        elif ch in _DIGITS:
            # A number of thousands of digits costs the parser megabytes, then int()
            # refuses it: no setting has more than a handful.
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
                if j - i > MAX_NUMBER:
                    raise ValueError(f"line {line}: a number of more than {MAX_NUMBER} digits")
            i = j
            continue
        i += 1


def is_ascii_digits(text: str, max_digits: int) -> bool:
    """Whether ``text`` is 1 to ``max_digits`` of the digits 0-9 (no sign, no other digits).

    >>> is_ascii_digits("15", 2), is_ascii_digits("٣", 2), is_ascii_digits("123", 2)
    (True, False, False)
    """
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


def ascii_int(text: str, max_digits: int, what: str = "a number") -> int:
    """``int(text)`` for 1 to ``max_digits`` ASCII digits; ValueError naming ``what`` if not."""
    if not is_ascii_digits(text, max_digits):
        shown = text if len(text) <= 24 else text[:24] + "..."
        raise ValueError(f"{what} must be 1-{max_digits} ASCII digits, got {shown!r}")
    return int(text)


def int_argument(text: str) -> int:
    """An ``argparse`` type for whole numbers: ASCII digits with an optional ``-``, at most
    18 of them (``type=int`` takes ``٣`` and raises on thousands of digits).

    >>> int_argument("42"), int_argument("-1")
    (42, -1)
    >>> int_argument("²")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number (ASCII digits), got '²'
    """
    import argparse

    digits = text[1:] if text.startswith("-") else text
    if not is_ascii_digits(digits, 18):
        shown = text if len(text) <= 24 else text[:24] + "..."
        raise argparse.ArgumentTypeError(f"expected a whole number (ASCII digits), got {shown!r}")
    return int(text)


def printable(text: str) -> bool:
    """Whether ``text`` has no control (a tab is one), surrogate or line-breaking character.

    >>> printable("Ann Lee"), printable("Ann\\nLee"), printable("\\x1b[2J")
    (True, False, False)
    """
    for ch in text:
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0 or ch in "\u2028\u2029\ufeff" or 0xD800 <= code < 0xE000:
            return False
    return True


# -- writing -------------------------------------------------------------------------------


def default_state_dir(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """``/var/lib/crownhead`` when it exists and is writable, else the user's state dir.

    The user's state directory is ``$XDG_STATE_HOME/crownhead`` or
    ``~/.local/state/crownhead`` (the XDG base directory default).
    """
    env = os.environ if env is None else env
    if SYSTEM_STATE_DIR.is_dir() and os.access(SYSTEM_STATE_DIR, os.W_OK | os.X_OK):
        return SYSTEM_STATE_DIR
    xdg = env.get("XDG_STATE_HOME", "")
    # The spec says relative values are invalid and must be ignored.
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "crownhead"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "crownhead"


def fsync_dir(directory: Path) -> None:
    """Flush ``directory`` itself to the disk: the names in it (a rename, a new file)."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def move_aside(path: Path) -> Path:
    """Rename ``path`` to ``<stem>-<date>-<time>.bad`` beside it (``-2``, ``-3``... when
    taken) and return the new path: a file that cannot be used is kept, never deleted,
    as a person may want what it holds. Raises :class:`OSError` when it cannot be renamed.
    """
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}-{stamp}.bad")
    n = 1
    while os.path.lexists(target):
        n += 1
        target = path.with_name(f"{path.stem}-{stamp}-{n}.bad")
    os.replace(path, target)
    fsync_dir(path.parent)
    return target


@contextlib.contextmanager
def atomic_file(path: Path, *, private: bool = True) -> Iterator[BinaryIO]:
    """A file to write in place of ``path``, put there whole or not at all (see the module):
    when the block ends it is flushed, renamed over ``path`` and the directory flushed; on
    an error it goes and ``path`` is as it was. ``private``: readable by its owner only,
    as a temporary file is made; else as any file the user writes (0666 less the umask).
    """
    directory = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        if not private:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


def atomic_write(path: Path, data: str | bytes, *, private: bool = True) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, its newlines as they are):
    :func:`atomic_file` for a whole file at once.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "note.txt"
    ...     atomic_write(path, "one"); atomic_write(path, "two")
    ...     path.read_text(), [p.name for p in path.parent.iterdir()]
    ('two', ['note.txt'])
    """
    with atomic_file(path, private=private) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
