"""PDN: read and write games of English checkers (Portable Draughts Notation).

Reading is lenient the way real files need: ``x`` written on plain moves, ``:`` as a
separator, leading zeros, multi-captures written by their two ends or by their full
path, comments in braces, skipped variations, NAGs and ``!``/``?`` marks, CRLF line ends
and a byte-order mark. A game that cannot be replayed carries a :class:`PdnError` (file,
game, ply, move, reason) and the reader goes on with the next game: a malformed game
never stops the file.

>>> games = list(read_games('''
... [Event "Demo"]
... [Black "Ann"]
... [White "Bob"]
... 1. 11-15 23-18 {a sharp reply} 2. 8-11 27x23 1/2-1/2
... [Event "Broken"]
... 1. 11-15 22-18 2. 15x22 26x17 3. 16-20 *
... ''', "demo.pdn"))
>>> [str(m) for m in games[0].moves], games[0].comments, games[0].result
(['11-15', '23-18', '8-11', '27-23'], {2: ['a sharp reply']}, '1/2-1/2')
>>> print(games[1].error)
demo.pdn:7: game 2, ply 5, 16-20: no piece on 16

Writing uses the short form ``11x18`` unless two capture routes share their ends, then
the full path ``11x18x25``:

>>> print(write_game(games[0].game(), tags=games[0].tags, comments=games[0].comments))
[Event "Demo"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[Black "Ann"]
[White "Bob"]
[Result "1/2-1/2"]
<BLANKLINE>
1. 11-15 23-18 {a sharp reply} 2. 8-11 27-23 1/2-1/2
<BLANKLINE>
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import IO, Protocol

from crownhead.rules import movegen
from crownhead.rules.game import BLACK_WINS, DRAW, UNFINISHED, WHITE_WINS, Game, Result
from crownhead.rules.move import Move
from crownhead.rules.position import Color, FenError, Position
from crownhead.rules.quoting import excerpt
from crownhead.rules.settings import WCDF, Rules
from crownhead.squares import Square, parse_square, square_name
from crownhead.rules.variants import gametype_tag, notation, numeric_fen, variant_for_gametype, variant_tag

#: Results as written at the end of a game's moves; ``1-0`` means Black (who moves first) won.
RESULTS = (BLACK_WINS, WHITE_WINS, DRAW, UNFINISHED)
#: Other spellings of a result seen in PDN files (international-draughts scoring, ``½``).
_RESULT_ALIASES = {"2-0": BLACK_WINS, "0-2": WHITE_WINS, "1-1": DRAW, "½-½": DRAW}
#: The seven-tag roster, written first and always (``?`` when unknown).
ROSTER = ("Event", "Site", "Date", "Round", "Black", "White", "Result")
_ROSTER_DEFAULTS = {"Date": "????.??.??"}
#: PDN GameType of English checkers; the reader refuses games of other types.
ENGLISH_GAME_TYPE = "21"
#: The game a PDN file is in where its tags name none: English checkers under WCDF rules,
#: GameType 21 being the standard's default. The one default of the rules a reader
#: assumes (a caller who knows better, ``--variant``, passes its own).
UNTAGGED = WCDF
#: Longest line written, so that the text fits an 80-column screen.
LINE_WIDTH = 79
#: The comment :func:`write_game` writes after an illegal move that stood (WCDF 1.26).
CONDONED_NOTE = "illegal move; it stood, answered without objection (WCDF 1.26)"
#: A caller's own comment citing this needs no :data:`CONDONED_NOTE` beside it.
_CONDONED_CITE = "WCDF 1.26"
#: Plies the look-ahead may replay after each route of an ambiguous capture (this bounds
#: the branching at later ambiguous captures; real games need a few hundred at most).
LOOKAHEAD_BUDGET = 20_000
#: The longest tag, comment or other piece of text read in one (a real game's longest, an
#: annotator's comment, is a few KiB): a longer one is the game's error and is skipped,
#: so that a file's size never decides how much the reader holds.
MAX_TOKEN = 64 * 1024
#: Plies of one game read at most (the longest real games have a few hundred); the
#: rest of a longer game is not read, and the game fails saying so.
MAX_PLIES = 2_000
#: Tags and comments of one game kept at most (real games: a dozen tags, a comment a move).
MAX_TAGS = 200
MAX_COMMENTS = MAX_PLIES
#: Characters read from a file at a time: the reader holds about this much of it.
CHUNK = 1024 * 1024


class PdnError(ValueError):
    """Why a game in a PDN file could not be read or replayed, and where.

    ``game`` and ``ply`` count from 1; ``ply`` and ``move`` are None when the problem is
    not a move (a bad FEN or tag). Printed as ``file:line: game N, ply P, MOVE: reason``.
    """

    def __init__(
        self,
        file: str,
        game: int,
        ply: int | None,
        move: str | None,
        reason: str,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.game = game
        self.ply = ply
        self.move = move
        self.reason = reason
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        what = f"game {self.game}"
        if self.ply is not None:
            what += f", ply {self.ply}"
        if self.move is not None:
            what += f", {self.move if len(self.move) <= 40 else self.move[:40] + '...'}"
        return f"{where}: {what}: {self.reason}"

    def __repr__(self) -> str:
        return (
            f"PdnError(file={self.file!r}, game={self.game}, ply={self.ply}, "
            f"move={self.move!r}, reason={self.reason!r}, line={self.line})"
        )


@dataclass(frozen=True, slots=True)
class PdnNote:
    """Something the reader decided about the layout of a file that a person checking
    the file should know, though nothing is lost and no game failed.

    The one kind so far: a game that ends on the line where the next game begins
    (``14-9 0-1[Event "..."]``), read as two games. Printed as ``file:line: note: text``.
    """

    file: str
    line: int
    game: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: note: {self.text}"


@dataclass
class PdnGame:
    """One game read from PDN.

    ``moves`` are the moves that replayed; when ``error`` is set they stop just before
    the move that failed. ``comments`` maps a ply to the comments written after that ply
    (0: before the first move). ``result`` is the result written after the moves, else
    the ``Result`` tag, else ``*``.
    """

    tags: dict[str, str]
    start: Position
    moves: list[Move]
    comments: dict[int, list[str]]
    result: str
    error: PdnError | None = None
    number: int = 1
    source: str = "<string>"
    line: int = 1
    rules: Rules = UNTAGGED
    #: Each replayed move as it was written in the file.
    move_texts: list[str] = field(default_factory=list)
    #: How the reader split this game from the next when they share a line.
    notes: list[PdnNote] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def tag(self, name: str, default: str | None = None) -> str | None:
        """A tag by name, ignoring case (files write both ``SetUp`` and ``Setup``)."""
        return _tag(self.tags, name, default)

    @property
    def positions(self) -> list[Position]:
        """The start position and the position after each replayed move."""
        out = [self.start]
        for move in self.moves:
            out.append(out[-1].apply(move, self.rules))
        return out

    def game(self) -> Game:
        """The replayed moves as a :class:`~crownhead.rules.game.Game`.

        A recorded ``1-0``, ``0-1`` or ``1/2-1/2`` that the board cannot see (a
        resignation, an agreed draw...) is declared with reason ``recorded``; a game
        with an error stops before the failing move and declares nothing.
        """
        game = Game(self.start, self.rules)
        for move in self.moves:
            game.play(move)
        if self.error is None and self.result in (BLACK_WINS, WHITE_WINS, DRAW):
            if game.result is None:
                game.declare(self.result, "recorded")
        return game

    def pdn(self) -> str:
        """This game written back as PDN (the replayed moves, tags and comments)."""
        result = self.result if self.error is None else UNFINISHED
        return _write(self.start, self.moves, self.rules, self.tags, self.comments, result)


# -- reading ------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<tag>\[[ \t]*(?P<tag_name>[A-Za-z0-9_]+)[ \t]*"(?P<tag_value>[^"\\\n]*+(?:\\.[^"\\\n]*+)*+)"[ \t]*\])
    | (?P<loose_tag>\[[ \t]*(?P<loose_name>[A-Za-z0-9_]+)[ \t]*"(?P<loose_value>[^\n]*)"[ \t]*\]
      (?=[ \t]*(?:\n|$)))
    | (?P<bad_tag>\[[^\]\n]*\]?)
    | (?P<result>(?:1/2-1/2|½-½|1-0|0-1|2-0|0-2|1-1)(?![\d/-])|\*)
    | (?P<number>[0-9]+(?:\.+|…))
    | (?P<move>[0-9]+(?:[-xX:][0-9]+)+|[a-hA-H][1-8](?:[-xX:][a-hA-H][1-8])+)(?P<mark>[!?]{1,2})?
      (?P<glued>[^\s{}()\[\];*!?0-9][^\s{}()\[\];]*)?
    | (?P<nag>\$[0-9]+|[!?]{1,2})
    | (?P<open>\()
    | (?P<close>\))
    | ;(?P<line_comment>[^\n]*)
    | (?P<other>[^\s{}()\[\];]+|\S)
    """,
    re.VERBOSE,
)
# A line that starts a tag: where an unclosed comment is taken to end.
_TAG_LINE = re.compile(r"\n[ \t]*\[[A-Za-z0-9_]+[ \t]*\"")
_SQUARES = re.compile(r"[a-hA-H][1-8]|[0-9]+")
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")


def _tag(tags: Mapping[str, str], name: str, default: str | None = None) -> str | None:
    lowered = name.lower()
    for key, value in tags.items():
        if key.lower() == lowered:
            return value
    return default


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _clean_comment(text: str) -> str:
    return " ".join(text.split())


class _Window:
    """The text being read, a window of it at a time (about :data:`CHUNK` characters):
    what is read is dropped, what follows is read when the reader needs it, so the
    reader's memory does not grow with the file. Line ends are made ``\n`` as they come.
    """

    def __init__(self, read: Callable[[int], str]) -> None:
        self._read = read
        self.buf = ""
        self.eof = False
        self._cr = False  # a \r ended the last chunk: its \n may begin the next
        self._at = 0  # an offset in buf...
        self._line = 1  # ...and its line

    def fill(self, i: int, need: int | None = None) -> int:
        """Make sure ``need`` characters (by default :data:`MAX_TOKEN` and two) from ``i``
        on are in :attr:`buf` (or the rest of the text); returns ``i``'s offset
        afterwards (what came before it is dropped)."""
        need = MAX_TOKEN + 2 if need is None else need
        if self.eof or len(self.buf) - i >= need:
            return i
        # The character before ``i`` is kept: whether ``i`` begins a line is still known.
        keep = i - 1 if i > 0 else 0
        self._line = self.line(keep)
        self._at = 0
        parts = [self.buf[keep:]]
        size = len(parts[0])
        i -= keep
        # A chunk more than needed: the next refill comes a chunk later, not a token later.
        while not self.eof and size - i < need + CHUNK:
            chunk = self._read(CHUNK)
            if not chunk:
                self.eof = True
                chunk = "\n" if self._cr else ""  # a last lone \r ends a line
                self._cr = False
            elif self._cr:
                chunk = "\r" + chunk
                self._cr = False
            if chunk.endswith("\r"):
                self._cr, chunk = True, chunk[:-1]
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
            parts.append(chunk)
            size += len(chunk)
        self.buf = "".join(parts)
        return i

    def line(self, offset: int) -> int:
        """The line of ``offset`` in :attr:`buf` (offsets mostly grow: counted from the last)."""
        if offset >= self._at:
            self._line += self.buf.count("\n", self._at, offset)
        else:
            self._line -= self.buf.count("\n", offset, self._at)
        self._at = offset
        return self._line

    def skip_to(self, i: int, pattern: re.Pattern[str]) -> int:
        """The offset of the next match of ``pattern`` from ``i`` (the end of the text if
        none), reading on and dropping what is passed over."""
        while True:
            found = pattern.search(self.buf, i)
            if found is not None and (self.eof or found.end() < len(self.buf)):
                return found.start()
            if self.eof:
                return len(self.buf)
            # Keep a few characters: a match may begin before the window's end.
            start = max(i, len(self.buf) - 64)
            i = self.fill(start, len(self.buf) - start + CHUNK)


@dataclass
class _Draft:
    """The raw parts of one game, gathered before it is replayed."""

    line: int
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)  # lower-case name -> line
    # (text, line) of every move written in the main line.
    moves: list[tuple[str, int]] = field(default_factory=list)
    comments: dict[int, list[str]] = field(default_factory=dict)
    result: str | None = None
    # The first problem found while reading: (moves read before it, or None when it is
    # not among the moves, as a bad tag; the text; the reason; the line).
    problem: tuple[int | None, str | None, str, int] | None = None
    movetext: bool = False  # anything of the move section seen (moves, numbers, result)
    end_line: int = 0  # the line of the last thing of the move section (0: none yet)
    # (line, text) of each note about how this game was told from the next.
    notes: list[tuple[int, str]] = field(default_factory=list)
    depth: int = 0  # open variations
    variation_at: tuple[int, int] = (0, 0)  # (moves read, line) where the outer one opened

    def fail(self, text: str | None, reason: str, line: int, index: int | None = -1) -> None:
        """Note a problem; ``index`` -1 means here among the moves, None not a move."""
        if self.problem is None:
            self.problem = (len(self.moves) if index == -1 else index, text, reason, line)

    comment_count: int = 0

    def comment(self, text: str, line: int) -> None:
        cleaned = _clean_comment(text)
        if not cleaned:
            return
        self.comment_count += 1
        if self.comment_count > MAX_COMMENTS:
            self.fail(None, f"more than {MAX_COMMENTS:,} comments: no real game has as many", line, None)
            return
        self.comments.setdefault(len(self.moves), []).append(cleaned)

    def tag(self, name: str, value: str, line: int) -> None:
        if len(self.tags) >= MAX_TAGS and name not in self.tags:
            self.fail(None, f"more than {MAX_TAGS} tags: no real game has as many", line, None)
            return
        self.tags[name] = value
        self.tag_lines[name.lower()] = line

    def move(self, text: str, line: int) -> None:
        if len(self.moves) >= MAX_PLIES:
            # The rest of the game is not kept: its size is no longer the file's to decide.
            reason = f"more than {MAX_PLIES:,} plies: no real game has as many; the rest of the game is not read"
            self.fail(None, reason, line, None)
            return
        self.moves.append((text, line))

    @property
    def empty(self) -> bool:
        return not (self.tags or self.moves or self.comments or self.movetext or self.problem)


def read_games(
    text: str | bytes | IO[str] | IO[bytes],
    source: str | None = None,
    *,
    rules: Rules = UNTAGGED,
) -> Iterator[PdnGame]:
    """The games of a PDN text or stream, one by one, ``rules`` the rules of a game whose
    tags name none (:func:`game_rules`; by default the standard's, :data:`UNTAGGED`).

    ``source`` names the file in error reports (a stream's own ``name`` by default).
    Games that cannot be replayed are yielded too, with :attr:`PdnGame.error` set, so a
    caller sees every game of the file. A stream is read a window at a time (a binary
    one decoded as :func:`decode` would decode it whole): memory stays flat whatever the
    file's size; what no real game has (a tag or comment over :data:`MAX_TOKEN`
    characters, over :data:`MAX_PLIES` plies) is the game's error and is not kept.

    >>> [g.result for g in read_games("1. 11-15 * 1. 9-14 22-18 0-1")]
    ['*', '0-1']
    """
    if isinstance(text, str):
        read = _reading(text)
    elif isinstance(text, bytes):
        read = _reading(decode(text))
    else:
        source = source or getattr(text, "name", None)
        read = _text_reader(text)
    yield from _read_text(_Window(_without_bom(read)), source or "<string>", rules)


def _reading(text: str) -> Callable[[int], str]:
    """Read ``text`` as a stream is read, ``size`` characters at a time."""
    at = 0

    def read(size: int) -> str:
        nonlocal at
        part = text[at : at + size]
        at += len(part)
        return part

    return read


def _text_reader(stream: IO[str] | IO[bytes]) -> Callable[[int], str]:
    """Reading ``stream`` as text: a binary one decoded in the encoding :func:`decode`
    would choose for the whole of it (found by a first pass when it can seek back)."""
    if isinstance(stream.read(0), str):
        return stream.read  # type: ignore[return-value]
    binary: IO[bytes] = stream  # type: ignore[assignment]
    try:
        start = binary.tell()
        encoding = _encoding_of(binary, start)
        binary.seek(start)
    except (OSError, ValueError, AttributeError):
        return _reading(decode(binary.read()))
    reader = codecs.getincrementaldecoder(encoding)(errors="strict")

    def read(size: int) -> str:
        while True:  # a chunk may end inside a character: read on until text comes
            data = binary.read(size)
            text = reader.decode(data, final=not data)
            if text or not data:
                return text

    return read


def _encoding_of(binary: IO[bytes], start: int) -> str:
    """The encoding :func:`decode` would choose for ``binary`` from ``start`` (read through)."""
    for encoding in ("utf-8-sig", "cp1252"):
        checker = codecs.getincrementaldecoder(encoding)(errors="strict")
        binary.seek(start)
        try:
            while data := binary.read(CHUNK):
                checker.decode(data)
            checker.decode(b"", final=True)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"


def _without_bom(read: Callable[[int], str]) -> Callable[[int], str]:
    """``read``, with byte-order marks at the text's start left out (as :func:`decode` does)."""
    started = False

    def reading(size: int) -> str:
        nonlocal started
        chunk = read(size)
        while not started and chunk:
            chunk = chunk.lstrip("\ufeff")
            if chunk:
                started = True
            else:
                chunk = read(size)
        return chunk

    return reading


def read_game(
    text: str | bytes | IO[str] | IO[bytes], source: str | None = None, *, rules: Rules = UNTAGGED
) -> PdnGame | None:
    """The first game of a PDN text, or None when there is none."""
    return next(read_games(text, source, rules=rules), None)


def decode(data: bytes) -> str:
    """PDN bytes as text: UTF-8 (with or without BOM), else Windows-1252 as older files
    are, else Latin-1 (which takes any byte)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            return data.decode("latin-1")


#: Where the rest of an overlong piece of text ends: the next space, or line.
_SPACE = re.compile(r"\s")
_LINE_END = re.compile(r"\n")
#: The end of an overlong comment: its ``}``, or a tag line (where an unclosed one ends).
_COMMENT_END = re.compile(r"\}|\n[ \t]*\[[A-Za-z0-9_]+[ \t]*\"")


def _read_text(window: _Window, source: str, rules: Rules) -> Iterator[PdnGame]:
    number = 0
    draft = _Draft(line=1)

    def finish(line: int | None = None, follows: str = "") -> Iterator[PdnGame]:
        """End the current game; ``follows`` names what starts the next one on ``line``."""
        nonlocal number, draft
        if not draft.empty:
            number += 1
            if line is not None and draft.end_line == line:
                # A game run into the next one on the same line: reading it as two games
                # loses nothing, but whoever checks the file should see the split.
                ends = (
                    "ends with its result and" if draft.result is not None else "has no result and after its last move"
                )
                draft.notes.append(
                    (
                        line,
                        f"game {number} {ends} a new game's {follows} on the same line; "
                        f"read as games {number} and {number + 1}",
                    )
                )
            if draft.depth:
                index, line = draft.variation_at
                draft.fail("(", "a variation opened with ( is never closed", line, index)
            yield _build(draft, source, number, rules)
        draft = _Draft(line=1)

    i = 0
    while True:
        i = window.fill(i)
        text = window.buf
        n = len(text)
        if i >= n:
            break
        char = text[i]
        if char == "{":
            i = _comment(window, i, draft)
            continue
        if char == "%" and (i == 0 or text[i - 1] == "\n"):
            # PGN escape: the whole line is for another program.
            i = window.skip_to(i, _LINE_END)
            continue
        match = _TOKEN.match(text, i)
        assert match is not None  # the last alternatives match any character
        kind = match.lastgroup
        line = window.line(match.start())
        if kind != "space" and match.end() - match.start() > MAX_TOKEN:
            # Longer than any real game's tag, comment or move (the window holds
            # MAX_TOKEN characters more: one cut at its end is as long): the game's
            # error, skipped, never kept.
            if char == "[" and (draft.movetext or draft.depth):
                yield from finish(line, "tags follow")
            if draft.empty:
                draft.line = line
            what = "a tag" if char == "[" else "a comment" if char == ";" else "text"
            reason = f"{what} longer than {MAX_TOKEN:,} characters: no real game has one"
            draft.fail(None, reason, line, None)
            i = window.skip_to(i, _LINE_END if char in "[;" else _SPACE)
            continue
        i = match.end()
        if kind == "space":
            continue
        if kind == "glued" or kind == "mark":
            kind = "move"
        if kind in ("tag", "loose_tag", "bad_tag"):
            if draft.movetext or draft.depth:
                yield from finish(line, "tags follow")
            if draft.empty:
                draft.line = line
            if kind == "tag":
                draft.tag(match["tag_name"], _unescape(match["tag_value"]), line)
            elif kind == "loose_tag":
                # Quotes left unescaped inside the value (``[Event "The "Big" one"]``).
                draft.tag(match["loose_name"], match["loose_value"], line)
            else:
                reason = f'bad tag {excerpt(match.group().strip())}: a tag is written [Name "value"]'
                draft.fail(None, reason, line, None)
            continue
        if kind == "line_comment":
            if draft.depth == 0:
                draft.comment(match["line_comment"], line)
            continue
        if draft.result is not None and kind in ("number", "move", "result", "open"):
            # Moves after a result without tags in between: a new game without tags.
            yield from finish(line, "moves follow, without tags,")
        if draft.empty:
            draft.line = line
        draft.end_line = line
        if kind == "open":
            if draft.depth == 0:
                draft.variation_at = (len(draft.moves), line)
            draft.depth += 1
            draft.movetext = True
            continue
        if kind == "close":
            if draft.depth == 0:
                draft.fail(")", "a ) closes a variation that was never opened", line)
            else:
                draft.depth -= 1
            continue
        if draft.depth:
            continue  # inside a variation: skipped
        draft.movetext = True
        if kind == "number" or kind == "nag":
            continue
        if kind == "result":
            result = match.group()
            draft.result = _RESULT_ALIASES.get(result, result)
            continue
        if kind == "move":
            draft.move(match["move"], line)
            if match["glued"]:
                # Text run into a move (``8-11Redoverstepped...``): kept as a comment.
                draft.comment(match["glued"], line)
            continue
        draft.fail(match.group(), f"unexpected text {excerpt(match.group())} among the moves", line)
    yield from finish()


def _comment(window: _Window, i: int, draft: _Draft) -> int:
    """Read the comment opening at ``i`` into ``draft``; the offset after it. One not
    closed before the next tag line ends there (the game fails); one longer than
    :data:`MAX_TOKEN` characters is the game's error and is skipped."""
    text = window.buf
    bound = min(len(text), i + 1 + MAX_TOKEN)
    close = text.find("}", i + 1, bound)
    found = _TAG_LINE.search(text, i + 1, close if close != -1 else bound)
    line = window.line(i)
    if draft.empty:
        draft.line = line
    if found is not None or (close == -1 and window.eof and bound == len(text)):
        draft.fail("{", "a comment opened with { is never closed", line)
        return found.start() if found is not None else len(text)
    if close == -1:
        draft.fail(None, f"a comment longer than {MAX_TOKEN:,} characters: no real game has one", line, None)
        end = window.skip_to(i + 1, _COMMENT_END)
        return end + 1 if window.buf[end : end + 1] == "}" else end
    if draft.depth == 0:
        draft.comment(text[i + 1 : close], line)
    if draft.movetext:
        draft.end_line = window.line(close)
    return close + 1


def _build(draft: _Draft, source: str, number: int, rules: Rules) -> PdnGame:
    result = draft.result or _result_tag(draft.tags)
    game = PdnGame(
        tags=draft.tags,
        start=Position.start(rules),
        moves=[],
        comments=draft.comments,
        result=result,
        number=number,
        source=source,
        line=draft.line,
        rules=rules,
        notes=[PdnNote(source, line, number, text) for line, text in draft.notes],
    )

    def error(ply: int | None, move: str | None, reason: str, line: int | None) -> PdnError:
        return PdnError(source, number, ply, move, reason, line)

    try:
        rules = game_rules(draft.tags, rules)
    except ValueError as exc:
        where = "gametype" if _tag(draft.tags, "GameType") else "variant"
        game.error = error(None, None, str(exc), draft.tag_lines.get(where, draft.line))
        return game
    game.rules = rules
    game.start = Position.start(rules)
    fen = _tag(draft.tags, "FEN")
    setup = _tag(draft.tags, "SetUp")
    if fen is not None and fen.strip():
        try:
            # Russian files name FEN squares a1-h8; numbers pass through unchanged.
            game.start = Position.from_fen(numeric_fen(fen))
        except (FenError, ValueError) as exc:
            game.error = error(None, None, str(exc), draft.tag_lines.get("fen", draft.line))
            return game
    elif setup is not None and setup.strip() == "1":
        line = draft.tag_lines.get("setup", draft.line)
        game.error = error(None, None, "SetUp is 1 but there is no FEN tag", line)
        return game

    # Moves after a problem among them are not trusted: the replay stops there.
    limit = len(draft.moves)
    if draft.problem is not None and draft.problem[0] is not None:
        limit = draft.problem[0]
    texts = [text for text, _ in draft.moves[:limit]]
    moves, failed = replay(game.start, texts, rules)
    game.moves = moves
    game.move_texts = texts[: len(moves)]
    if failed is not None:
        index, reason = failed
        text, line = draft.moves[index]
        game.error = error(index + 1, text, reason, line)
    elif draft.problem is not None:
        at, problem_text, problem, problem_line = draft.problem
        game.error = error(None if at is None else at + 1, problem_text, problem, problem_line)
    return game


def game_rules(tags: Mapping[str, str], rules: Rules = UNTAGGED) -> Rules:
    """The rules a game is played under: its ``GameType`` (and ``Variant``) tag, else ``rules``.

    ``rules`` (e.g. from ``--variant`` and the house-rule options) apply to games without
    a GameType, and to games of the same variant (so house rules carry over); a game
    tagged as another game this board plays gets that game's rules. Raises ValueError
    for a game this board does not play (GameType 20, international draughts).

    >>> game_rules({"GameType": "25,W,8,8,A0,0"}).variant
    'russian'
    >>> game_rules({}, Rules(huffing=True)).huffing
    True
    """
    game_type = (_tag(tags, "GameType") or "").strip()
    variant = _tag(tags, "Variant")
    if not game_type.split(",")[0].strip():
        if variant is not None and variant.strip():
            tagged = variant_for_gametype(ENGLISH_GAME_TYPE, variant)
            return rules if tagged.variant == rules.variant else tagged
        return rules
    tagged = variant_for_gametype(game_type, variant)
    if tagged.variant == "english" and variant is None and rules.variant == "giveaway":
        return rules  # giveaway has no GameType of its own: 21 fits it too
    return rules if tagged.variant == rules.variant else tagged


def _result_tag(tags: Mapping[str, str]) -> str:
    value = (_tag(tags, "Result") or "").strip()
    value = _RESULT_ALIASES.get(value, value)
    return value if value in RESULTS else UNFINISHED


# -- replaying ----------------------------------------------------------------------------

Squares = tuple[Square, ...]


def _parse(text: str) -> Squares | str:
    """The squares of a move text, or why it names none on the board.

    Squares are numbers (``11-15``) or, as Russian PDN writes them, a1-h8 (``c3-d4``).
    """
    squares = []
    for token in _SQUARES.findall(text):
        if token.isdigit():
            # [0-9] only; thousands of digits would make int() raise, not name the square.
            square = int(token) if len(token) <= 4 else 0
            if not 1 <= square <= 32:
                if square == 0 and len(token) > 4:
                    return f"square {token[:8]}... is not on the board (1-32)"
                return f"square {square} is not on the board (1-32)"
        else:
            try:
                square = parse_square(token.lower())
            except ValueError as exc:
                return str(exc)
        squares.append(square)
    return tuple(squares)


def _is_subsequence(short: Squares, long: Squares) -> bool:
    it = iter(long)
    return all(square in it for square in short)


def candidates(position: Position, squares: Sequence[Square], rules: Rules) -> list[Move]:
    """The legal moves that a written move could mean.

    Two squares match by start and end; a longer path matches the route with exactly
    that path, else the routes that pass through the named squares in that order.
    Routes that lead to the same position (a king's loop taken either way round) are
    one choice, so only the first of them is kept.
    """
    start, end = squares[0], squares[-1]
    plain = _plain_move(position, start, end, rules) if len(squares) == 2 else None
    if plain is not None:
        return plain
    found = [m for m in position.legal_moves(rules) if m.start == start and m.end == end]
    if len(squares) > 2 and found:
        exact = [m for m in found if m.path == tuple(squares)]
        found = exact or [m for m in found if _is_subsequence(tuple(squares), m.path)]
    if len(found) > 1:
        seen: dict[Position, Move] = {}
        for move in found:
            seen.setdefault(position.apply(move, rules), move)
        found = list(seen.values())
    return found


def _plain_move(position: Position, start: Square, end: Square, rules: Rules) -> list[Move] | None:
    """The candidates of a move written by two squares where no capture stands (most
    moves of a file), found without listing every legal move: replaying a database goes
    with its plies, not with their moves' count. None: not that case, list them."""
    if not rules.fast_path:
        return None
    own, opp, black = position._sides()
    if movegen.jumpers(own, opp, position.kings, black, rules.men_capture_backward):
        return None
    frm, to = 1 << (start - 1), 1 << (end - 1)
    if not own & frm or (own | opp) & to:
        return []
    steps = 0
    if black or position.kings & frm:
        steps |= movegen.step_sw(frm) | movegen.step_se(frm)
    if not black or position.kings & frm:
        steps |= movegen.step_nw(frm) | movegen.step_ne(frm)
    return [Move((start, end))] if steps & to else []


def replay(start: Position, texts: Sequence[str], rules: Rules) -> tuple[list[Move], tuple[int, str] | None]:
    """Replay written moves: the moves, and ``(index, reason)`` of the first that fails.

    A short capture that fits routes leading to different positions is resolved by
    look-ahead: each route is tried and the written moves that follow are replayed
    after it (branching again at any later ambiguous capture, and counting the best
    branch). The route after which the most following moves replay is chosen when it is
    the only one to reach that count; a tie is reported as ambiguous. At most
    :data:`LOOKAHEAD_BUDGET` plies are replayed after each route.

    >>> moves, failed = replay(Position.start(), ["11-15", "22-18", "9-13"], WCDF)
    >>> [str(m) for m in moves], failed
    (['11-15', '22-18'], (2, 'a capture is compulsory: 15x22'))
    """
    parsed = [_parse(t) for t in texts]
    moves: list[Move] = []
    position = start
    for index, squares in enumerate(parsed):
        if isinstance(squares, str):
            return moves, (index, squares)
        found = candidates(position, squares, rules)
        if not found:
            return moves, (index, explain_illegal(position, squares, rules))
        if len(found) > 1:
            reach = []
            cut_short = False
            for route in found:
                budget = [LOOKAHEAD_BUDGET]  # each route gets its own
                after = position.apply(route, rules)
                reach.append(_reach(after, parsed, index + 1, rules, budget))
                cut_short = cut_short or budget[0] <= 0
            best = max(reach)
            chosen = [m for m, r in zip(found, reach) if r == best]
            if len(chosen) > 1:
                routes = ", ".join(m.pdn(full=True) for m in chosen)
                if cut_short:
                    why = f"the look-ahead stopped after {LOOKAHEAD_BUDGET} plies"
                elif best == len(parsed) - index - 1:
                    why = "the rest of the game replays after each route"
                elif best == 0:
                    why = "the next move replays after neither route"
                else:
                    why = f"the next {best} moves replay after each route, the one after does not"
                return moves, (index, f"ambiguous: {texts[index]} fits {routes}; {why}")
            found = chosen
        move = found[0]
        moves.append(move)
        position = position.apply(move, rules)
    return moves, None


def _reach(position: Position, parsed: Sequence[Squares | str], index: int, rules: Rules, budget: list[int]) -> int:
    """How many of the written moves from ``index`` on replay (the best branch counts)."""
    count = 0
    while index + count < len(parsed) and budget[0] > 0:
        budget[0] -= 1
        squares = parsed[index + count]
        if isinstance(squares, str):
            break
        found = candidates(position, squares, rules)
        if not found:
            break
        if len(found) > 1:
            after = index + count + 1
            return count + 1 + max(_reach(position.apply(m, rules), parsed, after, rules, budget) for m in found)
        position = position.apply(found[0], rules)
        count += 1
    return count


def _must_capture(rules: Rules) -> bool:
    # Under huffing a skipped jump is legal, so "captures_compulsory" alone is not enough.
    return bool(getattr(rules, "must_capture", rules.captures_compulsory))


def explain_illegal(position: Position, squares: Sequence[Square], rules: Rules) -> str:
    """Why no legal move fits the written squares, in the words of the game.

    >>> explain_illegal(Position.start(), (22, 18), WCDF)
    "the piece on 22 is white's, but black is to move"
    """
    legal = position.legal_moves(rules)
    side = str(position.turn)
    if not legal:
        return f"{side} has no legal move: the game is already over"
    start, end = squares[0], squares[-1]
    piece = position.piece_at(start)
    if piece is None:
        return f"no piece on {start}"
    if piece.color != position.turn:
        return f"the piece on {start} is {piece.color}'s, but {side} is to move"
    name = f"{side} {'king' if piece.king else 'man'} on {start}"
    must_capture = _must_capture(rules) and legal[0].is_capture
    own = [m for m in legal if m.start == start]
    if must_capture and not any(m.end == end for m in own):
        texts = ", ".join(move_text(position, m, rules, numbers=True) for m in legal)
        return f"a capture is compulsory: {texts}"
    if not own:
        return f"the {name} cannot move"
    if any(m.end == end for m in own):
        path = "-".join(str(s) for s in squares)
        return f"no capture route of the {name} passes through {path}"
    texts = ", ".join(move_text(position, m, rules, numbers=True) for m in own)
    return f"the {name} cannot go to {end}; it can play {texts}"


# -- writing ------------------------------------------------------------------------------


def move_text(position: Position, move: Move, rules: Rules, *, numbers: bool = False) -> str:
    """A move as it is written: ``11x18``, or the whole path when another legal route has
    the same ends; in the variant's notation (``c3:e5`` in Russian draughts) unless
    ``numbers`` asks for square numbers whatever the variant (what event lines and the
    link carry). The one move text: PDN files, sheets, records and lines all use it.

    >>> pos = Position.from_fen("B:W6,7,14,15:B2")
    >>> sorted(move_text(pos, m, WCDF) for m in pos.legal_moves(WCDF))
    ['2x11x18', '2x9x18']
    >>> from crownhead.rules.variants import RUSSIAN
    >>> move_text(Position.start(RUSSIAN), Move((22, 18)), RUSSIAN)
    'c3-d4'
    """
    full = move.is_capture and any(
        other != move and other.start == move.start and other.end == move.end for other in position.legal_moves(rules)
    )
    if numbers or notation(rules) == "numeric":
        return move.pdn(full)
    squares = move.path if full else (move.start, move.end)
    return (":" if move.is_capture else "-").join(square_name(s) for s in squares)


def line_text(position: Position, moves: Sequence[Move], rules: Rules) -> tuple[str, ...]:
    """A line of moves from ``position`` as it is written, as far as its moves are legal
    (an engine's expected line may run into a move its table mistook).

    >>> line_text(Position.start(), [Move((11, 15)), Move((23, 19)), Move((1, 5))], WCDF)
    ('11-15', '23-19')
    """
    out: list[str] = []
    for move in moves:
        if move not in position.legal_moves(rules):
            break
        out.append(move_text(position, move, rules))
        position = position.apply(move, rules)
    return tuple(out)


class Recorded(Protocol):
    """What :func:`write_game` reads of a game: a :class:`~crownhead.rules.game.Game`, or a
    value holding its record (a board's snapshot's sheet, written with no game at hand)."""

    @property
    def start(self) -> Position: ...

    @property
    def moves(self) -> Sequence[Move]: ...

    @property
    def rules(self) -> Rules: ...

    @property
    def condoned(self) -> Set[int]: ...

    @property
    def result(self) -> Result | None: ...


def write_game(
    game: Recorded,
    tags: Mapping[str, str] | None = None,
    comments: Mapping[int, str | Sequence[str]] | None = None,
    result: str | None = None,
) -> str:
    """A game as PDN text.

    ``comments`` maps a ply to the comment(s) written after it (0: before the first
    move). The result is ``result`` if given, else the game's result, else the
    ``Result`` tag, else ``*``. Tags come in the standard order (Event, Site, Date,
    Round, Black, White, Result, then the others as given) followed by ``SetUp`` and
    ``FEN`` when the game does not start from the start position; a ``FEN`` among
    ``tags`` is replaced by the game's own start.

    An illegal move that stood (:meth:`~crownhead.rules.game.Game.condone`) is written as it was
    played, followed by :data:`CONDONED_NOTE` unless a comment given for that ply already
    cites WCDF 1.26 (a referee's note saying more). A reader replaying the text by the
    rules stops at that move and says why: the record does not pass it off as legal.

    >>> game = Game(Position.from_fen("B:W30:B14,9"), WCDF)
    >>> _ = game.condone(Move((14, 10)))
    >>> write_game(game).splitlines()[-1]
    '1. 14-10 {illegal move; it stood, answered without objection (WCDF 1.26)} *'
    """
    tags = dict(tags or {})
    if result is None:
        if game.result is not None:
            result = game.result.score
        else:
            result = _result_tag(tags)
    notes: dict[int, str | Sequence[str]] = dict(comments or {})
    for ply in sorted(game.condoned):
        given = notes.get(ply) or []
        given = [given] if isinstance(given, str) else list(given)
        if not any(_CONDONED_CITE in text for text in given):
            notes[ply] = [CONDONED_NOTE, *given]
    return _write(game.start, game.moves, game.rules, tags, notes, result)


def fen_text(position: Position, rules: Rules) -> str:
    """The FEN of ``position``, with a1-h8 square names where the variant writes them.

    >>> from crownhead.rules.variants import RUSSIAN
    >>> fen_text(Position.from_fen("W:WK29,22:B1"), RUSSIAN)
    'W:Wc3,Ka1:Bb8'
    """
    fen = position.fen()
    if notation(rules) == "numeric":
        return fen
    return re.sub(r"(?<=[WBK,])(\d+)", lambda m: square_name(int(m.group(1))), fen)


def write_games(games: Iterable[PdnGame]) -> str:
    """Several games read by :func:`read_games`, written one after another."""
    return "\n".join(g.pdn() for g in games)


def tag_value(value: str) -> str:
    r"""A tag's value as written between its quotes: one line, ``\`` and ``"`` escaped
    (what the reader undoes).

    >>> print(tag_value('Ann "The Rock" O\\Neil'))
    Ann \"The Rock\" O\\Neil
    """
    value = " ".join(value.splitlines())
    return value.replace("\\", "\\\\").replace('"', '\\"')


class PdnExporter:
    """The one PDN writer: a walk over a game visits its tags, then its moves and
    comments in order, then its result, and this writes them (the way python-chess's
    PGN exporter is a visitor its games accept).

    What differs between the writers (a board's record with its huffs and forced jumps,
    a referee's notes, a hall's state) is what they visit, never how it is written: the
    tag order and escapes, the move numbers, the notation of the variant, comments and
    the line width are all here.

    >>> out = PdnExporter(Position.start(), WCDF)
    >>> out.visit_tags({"Black": 'Ann "A" B', "Event": "Club"}, "*")
    >>> out.visit_move(Position.start(), Move((11, 15)))
    >>> out.visit_comment("a {sharp} move")
    >>> out.visit_result("*")
    >>> print(out.text())  # doctest: +NORMALIZE_WHITESPACE
    [Event "Club"] [Site "?"] [Date "????.??.??"] [Round "?"] [Black "Ann \\"A\\" B"]
    [White "?"] [Result "*"]
    <BLANKLINE>
    1. 11-15 {a (sharp) move} *
    """

    def __init__(self, start: Position, rules: Rules, *, width: int = LINE_WIDTH) -> None:
        self.start = start
        self.rules = rules
        self.width = width
        self._head: list[str] = []
        self._tokens: list[str] = []
        # Each move number starts with the first mover's move (White's in Russian draughts).
        self._first = Color.WHITE if rules.first_mover == "white" else Color.BLACK
        self._first_to_move = start.turn is self._first
        self._number = 1
        self._after_comment = True

    def visit_tags(self, tags: Mapping[str, str], result: str) -> None:
        """The tag pairs: the seven-tag roster first (``?`` when unknown), ``result`` as
        ``Result``, the others as given; the variant's ``GameType`` (and ``Variant``),
        and ``SetUp`` and ``FEN`` when the game starts elsewhere, from the game itself."""
        result = _checked_result(result)
        ordered: dict[str, str] = {}
        for name in ROSTER:
            value = _tag(tags, name)
            ordered[name] = value if value is not None else _ROSTER_DEFAULTS.get(name, "?")
        ordered["Result"] = result
        roster = {name.lower() for name in ROSTER}
        for name, value in tags.items():
            if name.lower() not in roster and name.lower() not in ("setup", "fen"):
                ordered[name] = value
        rules = self.rules
        if rules.variant != "english":
            for name in [n for n in ordered if n.lower() in ("gametype", "variant")]:
                del ordered[name]
            ordered["GameType"] = gametype_tag(rules)
            tag = variant_tag(rules)
            if tag is not None:
                ordered["Variant"] = tag
        if self.start != Position.start(rules):
            ordered["SetUp"] = "1"
            ordered["FEN"] = fen_text(self.start, rules)
        for name in ordered:
            if not _TAG_NAME.fullmatch(name):
                raise ValueError(f"tag name {name!r}: use letters, digits and _ only")
        self._head = [f'[{name} "{tag_value(value)}"]' for name, value in ordered.items()]

    def visit_move(self, position: Position, move: Move) -> None:
        """A move made in ``position``, numbered, in the variant's notation."""
        self.visit_move_as_written(move_text(position, move, self.rules))

    def visit_move_as_written(self, text: str) -> None:
        """A move kept only as its text (a record that no longer replays is still written
        move by move, never dropped)."""
        if self._first_to_move:
            self._tokens.append(f"{self._number}.")
        else:
            if self._after_comment:
                self._tokens.append(f"{self._number}...")
            self._number += 1
        self._tokens.append(text)
        self._first_to_move = not self._first_to_move
        self._after_comment = False

    def visit_nag(self, glyph: str | int) -> None:
        """An annotation of the move just visited: ``!``, ``?``, ``!!``, ``??``, ``!?`` or
        ``?!`` written on the move (``12-16?``), or a numeric glyph (``$14``) after it.

        >>> out = PdnExporter(Position.start(), WCDF)
        >>> out.visit_move(Position.start(), Move((12, 16))); out.visit_nag("?"); out.visit_nag(14)
        >>> out.text().splitlines()[-1]
        '1. 12-16? $14'
        """
        if not self._tokens or self._after_comment:
            raise ValueError("an annotation follows a move")
        if isinstance(glyph, int):
            if not 0 <= glyph <= 255:
                raise ValueError(f"a numeric annotation glyph is 0 to 255, not {glyph}")
            self._tokens.append(f"${glyph}")
        elif glyph in ("!", "?", "!!", "??", "!?", "?!"):
            self._tokens[-1] += glyph
        else:
            raise ValueError(f"{glyph!r} is no annotation (!, ?, !!, ??, !?, ?! or a number)")

    def visit_comment(self, text: str) -> None:
        """A comment where the walk is. A comment cannot hold a closing brace (PDN has no
        escape for it): braces are written as parentheses."""
        words = _clean_comment(text.replace("{", "(").replace("}", ")")).split()
        if words:
            words[0] = "{" + words[0]
            words[-1] = words[-1] + "}"
            self._tokens.extend(words)
            self._after_comment = True

    def visit_result(self, result: str) -> None:
        self._tokens.append(_checked_result(result))

    def text(self) -> str:
        """The game's PDN: the tags, a blank line, the moves wrapped at ``width`` columns."""
        body: list[str] = []
        line = ""
        for token in self._tokens:
            if line and len(line) + 1 + len(token) > self.width:
                body.append(line)
                line = token
            else:
                line = f"{line} {token}" if line else token
        body.append(line)
        return "\n".join(self._head) + "\n\n" + "\n".join(body) + "\n"


def _checked_result(result: str) -> str:
    result = _RESULT_ALIASES.get(result, result)
    if result not in RESULTS:
        raise ValueError(f"{result!r} is not a result (1-0, 0-1, 1/2-1/2 or *)")
    return result


def _write(
    start: Position,
    moves: Sequence[Move],
    rules: Rules,
    tags: Mapping[str, str],
    comments: Mapping[int, str | Sequence[str]],
    result: str,
) -> str:
    """The walk over a game's moves with comments by ply."""
    for ply in comments:
        if ply < 0:
            raise ValueError(f"comment at ply {ply}: plies count from 0 (before the first move)")
    out = PdnExporter(start, rules)
    out.visit_tags(tags, result)

    def comment(ply: int) -> None:
        found = comments.get(ply)
        for text in [found] if isinstance(found, str) else found or ():
            out.visit_comment(text)

    comment(0)
    position = start
    for ply, move in enumerate(moves, 1):
        out.visit_move(position, move)
        position = position.apply(move, rules)
        comment(ply)
    for ply in sorted(p for p in comments if p > len(moves)):
        comment(ply)
    out.visit_result(result)
    return out.text()


__all__ = [
    "CONDONED_NOTE",
    "LOOKAHEAD_BUDGET",
    "PdnError",
    "PdnGame",
    "PdnNote",
    "PdnExporter",
    "Recorded",
    "RESULTS",
    "candidates",
    "decode",
    "explain_illegal",
    "fen_text",
    "game_rules",
    "line_text",
    "move_text",
    "read_game",
    "read_games",
    "replay",
    "tag_value",
    "write_game",
    "write_games",
]
