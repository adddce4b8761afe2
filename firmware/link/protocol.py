"""The host link's wire format: bytes in, commands out; JSON lines back (no I/O, no game).

One message per line, UTF-8, ended by ``\\n`` (a ``\\r`` before it is ignored). A line is
at most :data:`MAX_LINE` bytes *including* its line ending, in both directions: the
board never sends a longer line, and a longer one from the host is answered with a
``too-long`` error and otherwise ignored. The full protocol, with a transcript, is in
``docs/protocol.md``.

Host to board, a line is either a short text command (``fen``, ``play 11-15``, ...) or,
from another board, one of its JSON event objects (a line starting with ``{``):

>>> parse_line(b"play 11-15\\r")
Command(name='play', args=('11-15',))
>>> parse_line(b'{"event":"move","ply":1}')
PeerMessage(data={'event': 'move', 'ply': 1})
>>> parse_line(b"fly away")
Traceback (most recent call last):
...
crownhead.firmware.link.protocol.LinkError: unknown-command: unknown command 'fly' (try help)

Board to host, every line is one JSON object with ``"event"`` first after ``"t"``:

>>> encode_message({"t": 0, "event": "reply", "cmd": "fen", "ok": True, "fen": "B:W21-32:B1-12"})
b'{"t":0,"event":"reply","cmd":"fen","ok":true,"fen":"B:W21-32:B1-12"}\\n'
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from crownhead.firmware.events import Event, event_line
from crownhead.rules.settings import HOUSE_RULES

__all__ = [
    "PROTOCOL_VERSION",
    "button_names",
    "MAX_LINE",
    "ERROR_CODES",
    "COMMANDS",
    "LinkError",
    "Command",
    "PeerMessage",
    "encode_event",
    "LineReader",
    "decode_line",
    "parse_command",
    "parse_line",
    "encode_message",
    "fits",
    "fit_hello",
    "fit_match",
    "MAX_NAME",
    "RESULTS",
]

#: Bumped when a change would break an existing host.
PROTOCOL_VERSION = 1
#: The longest line either side may send, in bytes, ``\n`` (and ``\r``) included.
MAX_LINE = 1024
#: The longest player name ``names`` accepts, in characters.
MAX_NAME = 40
#: What ``result`` accepts: Black won, White won, a draw.
RESULTS = ("1-0", "0-1", "1/2-1/2")

#: Every error code a reply may carry, with what it means (docs/protocol.md lists them).
ERROR_CODES: dict[str, str] = {
    "too-long": f"the line was longer than {MAX_LINE} bytes; it was ignored",
    "bad-encoding": "the line is not UTF-8 text (binary data or control characters)",
    "bad-json": 'a line starting with { is not a JSON object with an "event"',
    "unknown-command": "no such command",
    "bad-argument": "the command's arguments are missing, extra or malformed",
    "illegal-move": "the move is not legal in the game's position",
    "ambiguous-move": "several capture routes fit the move: give every landing square",
    "wrong-side": "that side is not played from this end of the link",
    "not-now": "the command does not fit the game's state (over, setting up, ...)",
    "read-only": "the link is configured read-only (link.control = false)",
    "internal": "the board failed to handle the line (a bug: please report it)",
    "forbidden": "this end may watch but not change the game: log in with the board's PIN first",
}


class LinkError(Exception):
    """A line or command the board rejects; becomes one ``error`` reply.

    ``code`` is a key of :data:`ERROR_CODES`; ``cmd`` the command word, when known.
    """

    def __init__(self, code: str, message: str, cmd: str | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown link error code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.cmd = cmd

    def reply(self, t: int) -> dict[str, Any]:
        """The error reply object."""
        out: dict[str, Any] = {"t": t, "event": "error", "code": self.code, "message": self.message}
        if self.cmd is not None:
            out["cmd"] = self.cmd
        return out


@dataclass(frozen=True, slots=True)
class Command:
    """A host command with its arguments checked for shape (not yet against the game)."""

    name: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class PeerMessage:
    """A JSON event object from the board at the other end of the link."""

    data: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.data.get("event"))


# -- lines ---------------------------------------------------------------------------


class LineReader:
    """Cuts a byte stream into lines of at most :data:`MAX_LINE` bytes.

    :meth:`feed` returns each complete line (without its ``\\n``) and, for a line that
    grows past the limit, one :class:`LinkError` ``too-long`` as soon as that is known;
    the rest of that line, up to its ``\\n``, is dropped. Memory stays bounded whatever
    arrives.

    >>> reader = LineReader()
    >>> reader.feed(b"fen\\nmov")
    [b'fen']
    >>> reader.feed(b"es\\r\\n")
    [b'moves\\r']
    >>> [type(x).__name__ for x in reader.feed(b"x" * 2000 + b"\\nhello\\n")]
    ['LinkError', 'bytes']
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes | LinkError]:
        out: list[bytes | LinkError] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            chunk = data[start:] if nl < 0 else data[start:nl]
            if self._skipping:
                if nl >= 0:
                    self._skipping = False
            else:
                self._buf += chunk
                # The line, its \n included, must fit: len(content) + 1 <= max_line.
                if len(self._buf) >= self.max_line:
                    self._buf.clear()
                    out.append(_too_long(self.max_line))
                    if nl < 0:
                        self._skipping = True
                elif nl >= 0:
                    out.append(bytes(self._buf))
                    self._buf.clear()
            if nl < 0:
                return out
            start = nl + 1

    def reset(self) -> bytes:
        """Forget a partial line (after a disconnect); returns what was dropped."""
        partial = bytes(self._buf)
        self._buf.clear()
        self._skipping = False
        return partial

    @property
    def partial(self) -> bytes:
        return bytes(self._buf)


def _too_long(limit: int) -> LinkError:
    return LinkError("too-long", f"a line may be at most {limit} bytes with its newline; this one was ignored")


def decode_line(raw: bytes) -> str:
    """The text of a received line: UTF-8, no control characters (a tab counts as a space).

    Raises :class:`LinkError` ``bad-encoding``.
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LinkError("bad-encoding", f"not UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})") from None
    text = text.replace("\t", " ")
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in ("Cc", "Cs", "Cn") or ch in "\u2028\u2029\ufeff":
            raise LinkError("bad-encoding", f"control or unassigned character U+{ord(ch):04X} at character {i}")
    return text


# -- commands ------------------------------------------------------------------------

_REASON = re.compile(r"[a-z][a-z0-9-]{0,31}")
_MOVE = re.compile(r"[0-9]{1,2}(?:[-x:][0-9]{1,2}){1,12}", re.IGNORECASE)


def _ascii_digits(word: str, most: int) -> bool:
    # isdigit() alone passes "²" and "٣", which int() then refuses or reads.
    return 0 < len(word) <= most and word.isascii() and word.isdigit()


def _show(text: str, limit: int = 24) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _no_args(name: str, rest: str) -> tuple[Any, ...]:
    if rest:
        raise LinkError("bad-argument", f"{name} takes no argument, got {_show(rest)}", name)
    return ()


def _one_word(name: str, rest: str, what: str) -> str:
    words = rest.split()
    if len(words) != 1:
        got = "nothing" if not words else f"{len(words)} words"
        raise LinkError("bad-argument", f"{name} needs {what}, got {got}", name)
    return words[0]


def _pdn(name: str, rest: str) -> tuple[Any, ...]:
    if not rest:
        return (0,)
    word = _one_word(name, rest, "an optional character offset")
    if not _ascii_digits(word, 7):
        raise LinkError("bad-argument", f"pdn takes a character offset (0, 1, ...), got {_show(word)}", name)
    return (int(word),)


def _new(name: str, rest: str) -> tuple[Any, ...]:
    if not rest:
        return (None,)
    return (_one_word(name, rest, "an optional FEN (no spaces)"),)


_GAME_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,80}")


def _again(name: str, rest: str) -> tuple[Any, ...]:
    """``GAME PLY [computer|play]``: a kept game's number or name, the plies before the position."""
    words = rest.split()
    if not 2 <= len(words) <= 3:
        raise LinkError("bad-argument", "again needs GAME PLY [computer|play], e.g. again 3 17 computer", name)
    game, ply = words[0], words[1]
    if not _GAME_NAME.fullmatch(game):
        raise LinkError("bad-argument", f"{_show(game)} is not a kept game's number or name", name)
    if not (ply.isascii() and ply.isdigit() and len(ply) <= 5):
        raise LinkError("bad-argument", f"the ply is a number of plies, 0 or more, got {_show(ply)}", name)
    opponent = words[2].lower() if len(words) == 3 else "computer"
    if opponent not in ("computer", "play"):
        raise LinkError("bad-argument", f"the opponent is computer or play, got {_show(words[2])}", name)
    return (game, int(ply), opponent)


_PROBLEM_ID = re.compile(r"[a-z][a-z0-9]{0,20}(-[a-z0-9]{1,12}){1,2}")


def _problem(name: str, rest: str) -> tuple[Any, ...]:
    """``next``, ``off`` or a problem's id (``gem-12``, ``borderclassics-a-1``)."""
    word = _one_word(name, rest, "next, off or a problem's id like gem-12").lower()
    if word not in ("next", "off") and not _PROBLEM_ID.fullmatch(word):
        raise LinkError(
            "bad-argument", f"problem takes next, off or a problem's id like gem-12, got {_show(word)}", name
        )
    return (word,)


def _play(name: str, rest: str) -> tuple[Any, ...]:
    word = _one_word(name, rest, "a move like 11-15 or 15x24x31")
    if not _MOVE.fullmatch(word):
        raise LinkError("bad-argument", f"{_show(word)} is not a move (write it like 11-15 or 15x24x31)", name)
    return (word,)


def _choice(*choices: str) -> Callable[[str, str], tuple[Any, ...]]:
    def parse(name: str, rest: str) -> tuple[Any, ...]:
        word = _one_word(name, rest, " or ".join(choices)).lower()
        if word not in choices:
            raise LinkError("bad-argument", f"{name} takes {' or '.join(choices)}, got {_show(word)}", name)
        return (word,)

    return parse


def _names(name: str, rest: str) -> tuple[Any, ...]:
    parts = rest.split(";")
    if len(parts) != 2:
        raise LinkError("bad-argument", "names needs BLACK;WHITE (two names separated by ;)", name)
    names = tuple(" ".join(p.split()) for p in parts)
    for side, value in zip(("Black", "White"), names):
        if not value:
            raise LinkError("bad-argument", f"{side}'s name is empty", name)
        if len(value) > MAX_NAME:
            raise LinkError("bad-argument", f"{side}'s name is longer than {MAX_NAME} characters", name)
        if any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in value):
            raise LinkError("bad-argument", f"{side}'s name has a character that cannot be printed", name)
    return names


def _ballot(name: str, rest: str) -> tuple[Any, ...]:
    word = _one_word(name, rest, "an ACF ballot number")
    if not _ascii_digits(word, 4):
        raise LinkError("bad-argument", f"ballot takes an ACF ballot number, got {_show(word)}", name)
    return (int(word),)


def _square(name: str, rest: str) -> tuple[Any, ...]:
    word = _one_word(name, rest, "a square 1-32")
    if not _ascii_digits(word, 2) or not 1 <= int(word) <= 32:
        raise LinkError("bad-argument", f"{name} takes a square 1-32, got {_show(word)}", name)
    return (int(word),)


#: The buttons ``press`` may name: those a board may have (``crownhead.hal.buttons``).
def button_names() -> tuple[str, ...]:
    from crownhead.hal.buttons import BUTTON_NAMES

    return BUTTON_NAMES


def _press(name: str, rest: str) -> tuple[Any, ...]:
    words = rest.split()
    if not 1 <= len(words) <= 2 or (len(words) == 2 and words[1].lower() != "long"):
        raise LinkError("bad-argument", "press needs a button name and optionally long, e.g. press hint", name)
    button = words[0].lower()
    if button not in button_names():
        raise LinkError("bad-argument", f"no button {_show(button)} (buttons: {', '.join(button_names())})", name)
    return (button, len(words) == 2)


def _brightness(name: str, rest: str) -> tuple[Any, ...]:
    word = _one_word(name, rest, "a percentage 0-100")
    if not _ascii_digits(word, 3) or int(word) > 100:
        raise LinkError("bad-argument", f"brightness takes a percentage 0-100, got {_show(word)}", name)
    return (int(word),)


def _mode(name: str, rest: str) -> tuple[Any, ...]:
    words = rest.lower().split()
    if not words or words[0] not in ("play", "referee", "computer"):
        raise LinkError("bad-argument", "mode takes play, referee or computer SIDE [LEVEL]", name)
    if words[0] != "computer":
        if len(words) != 1:
            raise LinkError(
                "bad-argument", f"mode {words[0]} takes nothing more, got {_show(' '.join(words[1:]))}", name
            )
        return (words[0],)
    if len(words) not in (2, 3) or words[1] not in ("black", "white"):
        raise LinkError(
            "bad-argument", "mode computer needs the machine's side (black or white) and optionally a level 1-10", name
        )
    level = None
    if len(words) == 3:
        if not _ascii_digits(words[2], 2) or not 1 <= int(words[2]) <= 10:
            raise LinkError("bad-argument", f"the level is 1-10, got {_show(words[2])}", name)
        level = int(words[2])
    return ("computer", words[1], level)


#: What ``referee`` may set, before a game.
REFEREE_KEYS = ("style", "clock", "event", "site", "round")


def _referee(name: str, rest: str) -> tuple[Any, ...]:
    """``key=value;key=value``: values may hold spaces, not ``;``."""
    if not rest:
        raise LinkError("bad-argument", f"referee needs KEY=VALUE;... (keys: {', '.join(REFEREE_KEYS)})", name)
    out: dict[str, str] = {}
    for part in rest.split(";"):
        key, eq, value = part.partition("=")
        key, value = key.strip().lower(), " ".join(value.split())
        if not eq or key not in REFEREE_KEYS:
            raise LinkError(
                "bad-argument", f"{_show(part.strip())} is not KEY=VALUE with a key of {', '.join(REFEREE_KEYS)}", name
            )
        if key in out:
            raise LinkError("bad-argument", f"{key} is given twice", name)
        if len(value) > MAX_NAME or any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in value):
            raise LinkError("bad-argument", f"{key}: at most {MAX_NAME} printable characters", name)
        out[key] = value
    return (tuple(out.items()),)


#: ``rules`` options: the house rules of ``crownhead run`` (``--men-capture-backward``...).
RULE_OPTIONS = tuple(rule.name for rule in HOUSE_RULES)


def _rules(name: str, rest: str) -> tuple[Any, ...]:
    from crownhead.rules.variants import names as variant_names

    words = rest.lower().split()
    if not words or words[0] not in variant_names():
        raise LinkError(
            "bad-argument", f"rules needs a variant ({', '.join(variant_names())}) and optionally house rules", name
        )
    options = words[1:]
    for option in options:
        if option not in RULE_OPTIONS:
            raise LinkError("bad-argument", f"no house rule {_show(option)} (known: {', '.join(RULE_OPTIONS)})", name)
    if len(set(options)) != len(options):
        raise LinkError("bad-argument", "a house rule is given twice", name)
    return (words[0], tuple(options))


def _result(name: str, rest: str) -> tuple[Any, ...]:
    words = rest.split()
    if len(words) != 2:
        raise LinkError("bad-argument", "result needs RESULT REASON, e.g. result 1-0 forfeit", name)
    score, reason = words[0], words[1].lower()
    if score not in RESULTS:
        raise LinkError("bad-argument", f"{_show(score)} is not a result ({', '.join(RESULTS)})", name)
    if not _REASON.fullmatch(reason):
        raise LinkError("bad-argument", f"the reason is one word of a-z, 0-9 and -, got {_show(reason)}", name)
    return (score, reason)


#: Command word -> (argument parser, one-line help). The order is the order of ``help``.
COMMANDS: dict[str, tuple[Callable[[str, str], tuple[Any, ...]], str]] = {
    "hello": (_no_args, "hello: who the board is, its configuration and the game's state"),
    "fen": (_no_args, "fen: the position of the game"),
    "pdn": (_pdn, "pdn [OFFSET]: the game so far as PDN, in pieces that fit a line"),
    "moves": (_no_args, "moves: the legal moves of the side to move"),
    "new": (_new, "new [FEN]: set up a new game (the start position by default)"),
    "again": (_again, "again GAME PLY [computer|play]: a kept game tried again from the position after PLY plies"),
    "problem": (
        _problem,
        "problem next|ID|off: the problem mode: the next problem at your level, problem ID, or leave",
    ),
    "problems": (_no_args, "problems: the problem mode: the problem, its verdict, the level, streak and record"),
    "play": (_play, "play MOVE: show MOVE on the board and wait for it to be made"),
    "hint": (_choice("on", "off"), "hint on|off: hint lights"),
    "mode": (
        _mode,
        "mode play|referee|computer SIDE [LEVEL]: two players, the referee, or the machine on SIDE; before a game",
    ),
    "rules": (_rules, "rules VARIANT [OPTION...]: the game and house rules of the next games; a new game is set up"),
    "referee": (_referee, "referee KEY=VALUE;...: the referee's style, clock, event, site, round for the next games"),
    "names": (_names, "names BLACK;WHITE: the players' names for the record"),
    "ballot": (_ballot, "ballot N: play ACF 3-move ballot N from the start"),
    "result": (_result, "result RESULT REASON: an arbiter's decision, e.g. result 0-1 forfeit"),
    "history": (_pdn, "history [PLY]: the moves from ply PLY on (0: all), as many as fit a line"),
    "view": (_no_args, "view: what the board shows: pieces, lit squares, status line, clocks"),
    "watch": (_choice("on", "off"), "watch on|off: a view event whenever what the board shows changes"),
    "press": (_press, "press BUTTON [long]: press one of the board's buttons (new, hint, takeback, ...)"),
    "brightness": (_brightness, "brightness PERCENT: the LEDs' brightness, 0-100"),
    "touch": (_square, "touch SQUARE: simulated board only: lift the piece there, or put the one in hand down"),
    "hands": (_play, "hands MOVE: simulated board only: the hands make MOVE on the board"),
    "follow": (_no_args, "follow: simulated board only: the hands do what the lights ask"),
    "draw": (_choice("black", "white"), "draw black|white: that side offers a draw, or accepts the other's offer"),
    "resign": (_choice("black", "white"), "resign black|white: that side resigns"),
    "help": (_pdn, "help [N]: the commands (from the N-th on, as many as fit a line)"),
}


def parse_command(text: str) -> Command:
    """A command from a decoded line; raises :class:`LinkError` naming what is wrong.

    >>> parse_command("names  Ann Lee ; Bo")
    Command(name='names', args=('Ann Lee', 'Bo'))
    >>> parse_command("result 1-0 forfeit")
    Command(name='result', args=('1-0', 'forfeit'))
    """
    stripped = text.strip()
    word, _, rest = stripped.partition(" ")
    name = word.lower()
    entry = COMMANDS.get(name)
    if entry is None:
        raise LinkError("unknown-command", f"unknown command {_show(word)} (try help)")
    parser, _help = entry
    return Command(name, parser(name, rest.strip()))


def parse_line(raw: bytes) -> Command | PeerMessage | None:
    """What a received line says: a command, a peer's event, or None for a blank line.

    Blank lines are no command and get no reply (a person pressing Enter, a keep-alive).
    """
    text = decode_line(raw)
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            raise LinkError("bad-json", f"not JSON: {str(exc)[:80]}") from None
        if not isinstance(data, dict) or not isinstance(data.get("event"), str):
            raise LinkError("bad-json", 'a JSON line must be an object with an "event" string')
        return PeerMessage(data)
    return parse_command(stripped)


# -- messages out --------------------------------------------------------------------


def encode_message(obj: Mapping[str, Any]) -> bytes:
    """One JSON line, UTF-8, ``\\n``-terminated; ValueError if longer than :data:`MAX_LINE`."""
    return _one_line(json.dumps(obj, separators=(",", ":"), ensure_ascii=False), obj.get("event"))


def encode_event(event: Event, after: Mapping[str, Any] | None = None) -> bytes:
    """The line of ``event``: its JSON as every output writes it
    (:func:`crownhead.firmware.events.event_line`), in UTF-8, with the fields ``after`` (if any)
    after its own; ValueError if longer than :data:`MAX_LINE`.

    >>> from crownhead.firmware.events import Crowned
    >>> encode_event(Crowned(5, 30))
    b'{"t":5,"event":"crown","square":30}\\n'
    """
    return _one_line(event_line(event, ascii=False, after=after), event.kind)


def _one_line(text: str, what: object) -> bytes:
    line = (text + "\n").encode("utf-8")
    if len(line) > MAX_LINE:
        raise ValueError(f"{what} message of {len(line)} bytes is longer than a line may be")
    return line


def fits(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` encodes to one line within :data:`MAX_LINE`."""
    try:
        encode_message(obj)
    except ValueError:
        return False
    return True


def fit_hello(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` (a hello, or the reply to one) with the players' names shortened until
    it fits one line.

    Only extreme cases need it (40 four-byte characters per name and a position of 32
    kings); the names are whole in the game record.
    """
    while not fits(message) and (message.get("black") or message.get("white")):
        for side in ("black", "white"):
            message[side] = message[side][: max(len(message[side]) - 8, 0)]
    fit_match(message, message.get("state"))
    return message


def fit_match(message: dict[str, Any], state: Mapping[str, Any] | None) -> None:
    """The match players' names in ``state`` shortened until ``message`` fits one line
    (a long match id, four-byte characters and a position of 32 kings need it)."""
    match = state.get("match") if state is not None else None
    while match and not fits(message) and any(match["players"]):
        match["players"] = [name[: max(len(name) - 8, 0)] for name in match["players"]]
