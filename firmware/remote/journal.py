"""What a board keeps on disk of a game's stream of lines, so that nothing is lost, doubled
or reordered when the connection, the broker or the board itself goes away.

Each line a board sends the other gets the next sequence number of its *stream* (a
random id, new with a new journal) and the hash of the stream so far, chained line after
line; it is kept here until the other board acknowledges it, and sent again until then.
Of the other board's stream the journal keeps the last line taken and the hash there:

* a line numbered at or below it is a duplicate (a resend, or a message the broker
  delivered twice), and is dropped;
* a line further on waits (:data:`MAX_EARLY` at most) for the ones before it;
* a line whose hash does not follow from the one before it and its text is refused;
* a new stream (the other board lost its journal) is joined at its oldest line, and the
  stream it replaces is never joined again: a late copy of one of its lines is a
  duplicate too (:data:`MAX_LEFT` streams are remembered).

>>> out, into = Journal(None, stream="a1"), Journal(None, stream="b2")
>>> first, second = out.add("one"), out.add("two")
>>> into.check(second, low=1)  # the first is still on its way
'early'
>>> into.check(first, low=1), into.take(first), into.check(second, low=1)
('join', None, 'take')
>>> into.take(second); into.check(first, low=1)
'duplicate'
>>> out.acked(2), len(out.pending)
(True, 0)
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crownhead.firmware.files import FileRefused, atomic_write, check_json_depth, move_aside, read_bytes

__all__ = ["Journal", "Line", "MAX_PENDING", "MAX_EARLY", "chain"]

log = logging.getLogger(__name__)

#: Lines kept for a board that is away: a whole game is a few hundred; past this the
#: oldest go (the other board then catches up from the state, see ``skip``).
MAX_PENDING = 4000
#: Lines from beyond a gap held while the gap is filled.
MAX_EARLY = 256
#: The other board's streams left behind that are remembered (one a lost journal).
MAX_LEFT = 16
#: The journal file's bound: every pending line at its longest, and room.
MAX_FILE = MAX_PENDING * 1400 + 4096
_VERSION = 1


def chain(previous: str, line: str) -> str:
    """The stream's hash after ``line``, from the hash before it.

    >>> chain("a1", "one")
    '4931cec286b4bb6f'
    """
    return hashlib.sha256(f"{previous}\n{line}".encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a stream: its stream, number, the hash before and after it, its text."""

    stream: str
    n: int
    before: str
    after: str
    text: str

    def to_json(self, low: int) -> dict[str, Any]:
        """The message on the wire; ``low`` is the oldest line the sender still keeps."""
        return {"s": self.stream, "n": self.n, "p": self.before, "h": self.after, "a": low, "line": self.text}

    @classmethod
    def from_json(cls, data: object) -> tuple[Line, int]:
        """A line and the sender's oldest kept number from a message; ValueError naming the fault."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        s, n, p, h, a, text = (data.get(k) for k in ("s", "n", "p", "h", "a", "line"))
        if not (isinstance(s, str) and 1 <= len(s) <= 32 and s.isalnum()):
            raise ValueError("no stream id")
        if type(n) is not int or type(a) is not int or not 1 <= a <= n <= 10**9:
            raise ValueError("bad sequence numbers")
        if not (isinstance(p, str) and isinstance(h, str) and len(p) <= 32 and len(h) == 16):
            raise ValueError("bad hashes")
        if not isinstance(text, str) or len(text) > 1400:
            raise ValueError("no line")
        line = cls(s, n, p, h, text)
        if chain(p, text) != h:
            raise ValueError(f"line {n}: its hash does not follow from its text")
        return line, a


class Journal:
    """This board's stream (lines not yet acknowledged) and its place in the other's.

    ``path`` None keeps it in memory only (tests, doctests). :meth:`save` writes it whole
    (atomically); :meth:`load` reads it back, a damaged file set aside and a new journal
    begun.
    """

    def __init__(self, path: Path | None, *, stream: str | None = None) -> None:
        self.path = path
        self.stream = stream or secrets.token_hex(4)
        self.seq = 0
        self.hash = self.stream
        self.pending: deque[Line] = deque()
        self.peer_stream: str | None = None
        self.taken = 0
        self.peer_hash = ""
        #: The other board's streams this one followed before its current one, the latest last.
        self.left: deque[str] = deque(maxlen=MAX_LEFT)
        #: Lines of this stream dropped unacknowledged (more than MAX_PENDING waiting).
        self.lost = 0
        #: The name of the game in play (a :class:`~crownhead.firmware.link.parts.GameId`'s
        #: text), so that a board switched on again resumes that very game, not a new one.
        self.game: str | None = None

    # -- this board's stream ---------------------------------------------------------------

    def add(self, text: str) -> Line:
        """Give ``text`` the next number; kept until :meth:`acked`."""
        line = Line(self.stream, self.seq + 1, self.hash, chain(self.hash, text), text)
        self.seq, self.hash = line.n, line.after
        self.pending.append(line)
        if len(self.pending) > MAX_PENDING:
            self.pending.popleft()
            self.lost += 1
        return line

    @property
    def low(self) -> int:
        """The oldest line still kept (the next one when none is)."""
        return self.pending[0].n if self.pending else self.seq + 1

    def acked(self, n: int) -> bool:
        """The other board has taken every line up to ``n``; True if that freed any."""
        freed = False
        while self.pending and self.pending[0].n <= n:
            self.pending.popleft()
            freed = True
        return freed

    # -- the other board's stream -------------------------------------------------------

    def check(self, line: Line, low: int) -> str:
        """What to do with ``line`` from the other board (``low``: the oldest it keeps):
        ``take`` it (next in order), drop a ``duplicate``, hold it as ``early``, ``join``
        a new stream at it, or ``skip`` to it (the lines before are gone for good)."""
        if line.stream != self.peer_stream:
            if line.stream in self.left:
                return "duplicate"  # a late copy from a stream left behind: joined again, its lines came twice
            return "join" if line.n == low else "early"
        if line.n <= self.taken:
            return "duplicate"
        if line.n == self.taken + 1:
            return "take" if line.before == self.peer_hash else "skip"
        return "skip" if low > self.taken + 1 else "early"

    def take(self, line: Line) -> None:
        """``line`` was handed to the board: the stream continues after it."""
        if self.peer_stream is not None and line.stream != self.peer_stream:
            self.left.append(self.peer_stream)
        self.peer_stream, self.taken, self.peer_hash = line.stream, line.n, line.after

    # -- on disk ------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        data = {
            "v": _VERSION,
            "stream": self.stream,
            "seq": self.seq,
            "hash": self.hash,
            "lost": self.lost,
            "game": self.game,
            "pending": [[x.n, x.before, x.after, x.text] for x in self.pending],
            "peer": {"stream": self.peer_stream, "taken": self.taken, "hash": self.peer_hash, "left": list(self.left)},
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()

    def save(self, data: bytes | None = None) -> None:
        """Write the journal (``data``: a snapshot :meth:`to_bytes` took under a lock)."""
        if self.path is not None:
            atomic_write(self.path, data if data is not None else self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> Journal:
        """The journal at ``path``; a new one if there is none, or it cannot be read (set aside)."""
        if not path.exists():
            return cls(path)
        try:
            text = read_bytes(path, MAX_FILE).decode("utf-8")
            check_json_depth(text)
            return cls._from(path, json.loads(text))
        except (FileRefused, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            aside = move_aside(path)
            log.error("remote: the journal %s cannot be read (%s): set aside as %s, a new one begun", path, exc, aside)
            return cls(path)

    @classmethod
    def _from(cls, path: Path, data: Any) -> Journal:
        if not isinstance(data, dict) or data.get("v") != _VERSION:
            raise ValueError("not a journal of this version")
        journal = cls(path, stream=str(data["stream"]))
        journal.seq, journal.hash, journal.lost = int(data["seq"]), str(data["hash"]), int(data["lost"])
        game = data.get("game")  # (not in a journal written before it was kept)
        journal.game = game if isinstance(game, str) else None
        for n, before, after, text in data["pending"]:
            line = Line(journal.stream, int(n), str(before), str(after), str(text))
            if chain(line.before, line.text) != line.after:
                raise ValueError(f"line {n} does not match its hash")
            journal.pending.append(line)
        peer = data["peer"]
        journal.peer_stream = peer["stream"] if isinstance(peer["stream"], str) else None
        journal.taken, journal.peer_hash = int(peer["taken"]), str(peer["hash"])
        left = peer.get("left", [])  # (not in a journal written before it was kept)
        if not isinstance(left, list) or not all(isinstance(x, str) for x in left):
            raise ValueError("peer.left must be a list of stream ids")
        journal.left.extend(left[-MAX_LEFT:])
        return journal
