"""The line protocol between the Pi and a serial-scanned board (protocol version 1).

Text lines, ASCII, ended by ``\\n`` (a ``\\r`` before it is ignored), at most
:data:`MAX_LINE` bytes. Fields are separated by single spaces. A line may end with
``*HH``: the XOR of every byte before the ``*``, as two hex digits (NMEA style). When
present it must match; the Pi always sends it, a person typing in a terminal may omit
it. Full specification with examples: docs/hardware.md, "Serial line protocol".

Board -> Pi::

    HELLO <version> <firmware>   after reset/USB connect, and in answer to HELLO
    OCC <8 hex digits>           raw occupancy (bit s-1 = square s): on every change,
                                 in answer to OCC?, and at least once a second
    BTN <name>                   a button wired to the board was pressed
    ERR <code> <text...>         the board could not handle a line from the Pi
    FAULT <code> <text...>       a wiring fault the board's own check found, with
                                 every heartbeat while it lasts; FAULT none when
                                 it clears (a board may never send one)

Pi -> board::

    HELLO <version>              sent on connect
    OCC?                         asks for an OCC report now
    LED <192 hex digits>         a frame: 32 x RRGGBB for squares 1..32, brightness
                                 already applied; the board shows it as is

Error codes: ``bad-line`` (not ASCII / no such command / wrong field count),
``bad-checksum``, ``bad-arg``, ``too-long``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "PROTOCOL_VERSION",
    "MAX_LINE",
    "ProtocolError",
    "Hello",
    "Occupancy",
    "ButtonPress",
    "BoardError",
    "BoardFault",
    "OccupancyQuery",
    "LedFrame",
    "BoardMessage",
    "HostMessage",
    "checksum",
    "encode_line",
    "split_line",
    "parse_board_line",
    "parse_host_line",
    "encode_occupancy",
    "encode_led",
    "LineBuffer",
]

PROTOCOL_VERSION = 1
MAX_LINE = 256

_HEX8 = re.compile(r"[0-9A-Fa-f]{8}")
_HEX192 = re.compile(r"[0-9A-Fa-f]{192}")
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_CODE = re.compile(r"[a-z][a-z0-9-]{0,31}")


class ProtocolError(ValueError):
    """A line that does not follow the protocol. ``code`` is the ERR code to answer with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Hello:
    version: int
    firmware: str = ""


@dataclass(frozen=True)
class Occupancy:
    mask: int


@dataclass(frozen=True)
class ButtonPress:
    name: str


@dataclass(frozen=True)
class BoardError:
    code: str
    text: str


@dataclass(frozen=True)
class BoardFault:
    """A wiring fault the board's own check found (``code`` ``none``: it has cleared)."""

    code: str
    text: str


@dataclass(frozen=True)
class OccupancyQuery:
    pass


@dataclass(frozen=True)
class LedFrame:
    colours: tuple[tuple[int, int, int], ...]  # 32 entries, square 1 first


BoardMessage = Hello | Occupancy | ButtonPress | BoardError | BoardFault
HostMessage = Hello | OccupancyQuery | LedFrame


def checksum(body: str) -> str:
    value = 0
    for b in body.encode("ascii"):
        value ^= b
    return f"{value:02X}"


def encode_line(body: str) -> bytes:
    """``body`` with its checksum and newline, ready to write."""
    line = f"{body}*{checksum(body)}\n".encode("ascii")
    if len(line) > MAX_LINE:
        raise ValueError(f"line too long ({len(line)} bytes)")
    return line


def split_line(raw: bytes) -> list[str]:
    """Check a received line (without its ``\\n``) and return its fields."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError("bad-line", f"not ASCII: {raw[:40]!r}") from None
    if not text.isprintable():
        raise ProtocolError("bad-line", f"control characters in line: {text[:40]!r}")
    star = text.rfind("*")
    if star >= 0:
        body, given = text[:star], text[star + 1 :]
        if len(given) != 2 or given.upper() != checksum(body):
            raise ProtocolError("bad-checksum", f"checksum {given!r} does not match line {body[:40]!r}")
        text = body
    # Senders use single spaces; a receiver tolerating runs of them costs nothing.
    fields = text.split()
    if not fields:
        raise ProtocolError("bad-line", "empty line")
    return fields


def _expect(fields: list[str], count: int) -> None:
    if len(fields) != count:
        raise ProtocolError("bad-line", f"{fields[0]} takes {count - 1} field(s), got {len(fields) - 1}")


def _hello(fields: list[str], board: bool) -> Hello:
    if len(fields) < 2 or (not board and len(fields) != 2):
        raise ProtocolError("bad-line", "HELLO needs a protocol version")
    if not fields[1].isdigit():
        raise ProtocolError("bad-arg", f"HELLO version must be a number, got {fields[1]!r}")
    return Hello(int(fields[1]), " ".join(fields[2:]))


def parse_board_line(raw: bytes) -> BoardMessage:
    """Parse a line the board sent. Raises :class:`ProtocolError`."""
    fields = split_line(raw)
    cmd = fields[0]
    if cmd == "OCC":
        _expect(fields, 2)
        if not _HEX8.fullmatch(fields[1]):
            raise ProtocolError("bad-arg", f"OCC needs 8 hex digits, got {fields[1][:20]!r}")
        return Occupancy(int(fields[1], 16))
    if cmd == "HELLO":
        return _hello(fields, board=True)
    if cmd == "BTN":
        _expect(fields, 2)
        if not _NAME.fullmatch(fields[1]):
            raise ProtocolError("bad-arg", f"bad button name {fields[1][:20]!r}")
        return ButtonPress(fields[1])
    if cmd == "ERR":
        if len(fields) < 2 or not _CODE.fullmatch(fields[1]):
            raise ProtocolError("bad-line", "ERR needs a code")
        return BoardError(fields[1], " ".join(fields[2:]))
    if cmd == "FAULT":
        if len(fields) < 2 or not _CODE.fullmatch(fields[1]):
            raise ProtocolError("bad-line", "FAULT needs a code")
        return BoardFault(fields[1], " ".join(fields[2:]))
    raise ProtocolError("bad-line", f"unknown message {cmd[:20]!r}")


def parse_host_line(raw: bytes) -> HostMessage:
    """Parse a line the Pi sent (used by board firmware and the emulator)."""
    fields = split_line(raw)
    cmd = fields[0]
    if cmd == "OCC?":
        _expect(fields, 1)
        return OccupancyQuery()
    if cmd == "HELLO":
        return _hello(fields, board=False)
    if cmd == "LED":
        _expect(fields, 2)
        if not _HEX192.fullmatch(fields[1]):
            raise ProtocolError("bad-arg", "LED needs 192 hex digits (32 x RRGGBB)")
        data = bytes.fromhex(fields[1])
        return LedFrame(tuple((data[i], data[i + 1], data[i + 2]) for i in range(0, 96, 3)))
    raise ProtocolError("bad-line", f"unknown command {cmd[:20]!r}")


def encode_occupancy(mask: int) -> bytes:
    return encode_line(f"OCC {mask:08X}")


def encode_led(colours: Sequence[tuple[int, int, int]]) -> bytes:
    if len(colours) != 32:
        raise ValueError("an LED frame has 32 colours")
    return encode_line("LED " + "".join(f"{r:02X}{g:02X}{b:02X}" for r, g, b in colours))


class LineBuffer:
    """Reassembles lines from a byte stream.

    A line longer than :data:`MAX_LINE` is not buffered without bound: the bytes up to
    the next newline are dropped and that line is reported as ``None`` so the caller
    can count/log it.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        self._buf += data
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) > MAX_LINE:
                    self._buf.clear()
                    self._overflow = True
                return out
            line = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            if self._overflow or len(line) > MAX_LINE:
                self._overflow = False
                out.append(None)
            else:
                out.append(line)

    def reset(self) -> bytes:
        """Drop a partial line (after a disconnect) and return what was dropped."""
        partial = bytes(self._buf)
        self._buf.clear()
        self._overflow = False
        return partial

    @property
    def partial(self) -> bytes:
        return bytes(self._buf)
