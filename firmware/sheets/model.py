"""What a score sheet shows, taken from a game read from PDN (no drawing here).

>>> from crownhead.rules.pdn import read_game
>>> game = read_game('''[Event "Club night"][Black "Ana"][White "Ben"]
... 1. 9-13 {[%clk 0:04:58]} 22-18 {[%clk 0:04:55] caution to white, illegal move} 2. 6-9 1-0''')
>>> sheet = SheetGame.from_pdn(game)
>>> sheet.black, sheet.white, sheet.result, [m.text for m in sheet.moves]
('Ana', 'Ben', '1-0', ['9-13', '22-18', '6-9'])
>>> sheet.moves[1].clock, sheet.notes, sheet.cautions
('0:04:55', [(2, 'caution to white, illegal move')], {'black': 0, 'white': 1})
>>> timed = SheetGame.from_pdn(read_game('1. 9-13 {[%clk 0:09:58] [%emt 0:00:07]} *'))
>>> timed.moves[0].clock, timed.notes  # the time the move took is no note
('0:09:58', [])
>>> sheet.opening
'Dreaded Edinburgh (9-13 22-18 6-9)'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from crownhead.rules import BLACK, WHITE, Color, Position, Rules
from crownhead.rules.ballots import BALLOTS
from crownhead.rules.game import BLACK_WINS, DRAW, UNFINISHED, WHITE_WINS, reason_words
from crownhead.rules.match import Match, match_from_games
from crownhead.rules.pdn import PdnGame
from crownhead.rules.pdn import move_text

#: Paper names as the commands take them -> fpdf2's page formats (here, where a
#: command finds them without loading fpdf2).
PAPERS = {"letter": "Letter", "a4": "A4"}

__all__ = ["PAPERS", "SheetMove", "SheetGame", "result_words", "match_of", "printable", "sentence"]

_CLOCK = re.compile(r"\[%clk\s+([0-9:.]{1,12})\]")
#: Any other embedded command of a comment (``[%emt 0:00:04]``: the time the move took):
#: data for programs, no note for people.
_COMMAND = re.compile(r"\[%[A-Za-z]{1,16}\s+[^\]\[]{0,40}\]")
_CAUTION = re.compile(r"\bcaution to (black|white)\b", re.IGNORECASE)
#: Longest note printed on a sheet (a book's long annotations are cut, with a mark).
MAX_NOTE = 400


def printable(text: str) -> str:
    """``text`` in the characters the sheet's fonts have (Latin-1): accents kept where
    Latin-1 has them, others reduced to their base letter, the rest shown as ``?``.

    >>> printable("Łukasz Żółw ½ ✓")
    'Lukasz Zólw ½ ?'
    """
    out = []
    for ch in text:
        if ch in "\t\n":
            out.append(" ")
        elif ord(ch) < 32 or 127 <= ord(ch) < 160:
            continue  # control characters print as nothing
        elif ord(ch) < 256:
            out.append(ch)
        else:
            base = unicodedata.normalize("NFKD", ch).encode("latin-1", "ignore").decode("latin-1")
            base = "".join(c for c in base if not unicodedata.combining(c))
            out.append(base or _FOLD.get(ch, "?"))
    return "".join(out)


#: Letters without a decomposition that a reader still recognises.
_FOLD = {
    "Ł": "L",
    "ł": "l",
    "Ø": "O",
    "ø": "o",
    "Đ": "D",
    "đ": "d",
    "ı": "i",
    "–": "-",
    "—": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "…": "...",
}


def result_words(result: str, black: str, white: str, reason: str = "", final: Position | None = None) -> str:
    """The result as a sentence: who won, with which colour (the colour alone for a
    player whose name is not known), and why (``reason``, the PDN's ``Termination``; the
    ``final`` position tells a side without a move from one without pieces).

    >>> result_words("0-1", "Ana", "Ben")
    'Ben (White) wins'
    >>> result_words("0-1", "?", "?", "resign")
    'White wins (resignation)'
    >>> result_words("1-0", "Ana", "", "no-moves", Position.from_fen("W:W:B23"))
    'Ana (Black) wins (White has no pieces left)'
    """
    why = f" ({reason_words(result, reason, final)})" if reason else ""
    if result == BLACK_WINS:
        return f"{_named(black, 'Black')} wins{why}"
    if result == WHITE_WINS:
        return f"{_named(white, 'White')} wins{why}"
    if result == DRAW:
        return f"Drawn{why}"
    return "Not finished"


def _named(name: str, side: str) -> str:
    return f"{name} ({side})" if name not in ("", "?") else side


def sentence(text: str) -> str:
    """A note as a sentence, beginning with a capital: ``white resigns`` -> ``White resigns``.

    >>> sentence("white resigns"), sentence("17-10 stood")
    ('White resigns', '17-10 stood')
    """
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class SheetMove:
    """One ply as the sheet writes it, and the mover's time left after it (if recorded)."""

    ply: int
    text: str
    clock: str | None = None


@dataclass
class SheetGame:
    """A game as its score sheet shows it (see the module docstring).

    ``error`` says why the moves stop early (the game did not replay); ``failed`` is
    the move text that did not fit, printed after the moves that did.
    """

    tags: dict[str, str]
    rules: Rules
    start: Position
    final: Position
    moves: list[SheetMove]
    result: str
    notes: list[tuple[int, str]] = field(default_factory=list)
    number: int = 1
    source: str = ""
    error: str | None = None
    failed: str | None = None

    @classmethod
    def from_pdn(cls, game: PdnGame) -> SheetGame:
        position = game.start
        moves: list[SheetMove] = []
        clocks: dict[int, str] = {}
        notes: list[tuple[int, str]] = []
        for ply, texts in sorted(game.comments.items()):
            for text in texts:
                match = _CLOCK.search(text)
                if match:
                    clocks[ply] = match.group(1)
                rest = _COMMAND.sub("", _CLOCK.sub("", text)).strip()
                if rest:
                    notes.append((ply, rest if len(rest) <= MAX_NOTE else rest[: MAX_NOTE - 1] + "…"))
        for ply, move in enumerate(game.moves, 1):
            moves.append(SheetMove(ply, move_text(position, move, game.rules), clocks.get(ply)))
            position = position.apply(move, game.rules)
        failed = None
        if game.error is not None and game.error.move is not None:
            failed = game.error.move
        return cls(
            tags=dict(game.tags),
            rules=game.rules,
            start=game.start,
            final=position,
            moves=moves,
            result=game.result if game.error is None else UNFINISHED,
            notes=notes,
            number=game.number,
            source=game.source,
            error=str(game.error) if game.error is not None else None,
            failed=failed,
        )

    def tag(self, name: str, default: str = "") -> str:
        lowered = name.lower()
        for key, value in self.tags.items():
            if key.lower() == lowered:
                value = value.strip()
                return default if value in ("", "?", "????.??.??") else value
        return default

    @property
    def black(self) -> str:
        return self.tag("Black", "?")

    @property
    def white(self) -> str:
        return self.tag("White", "?")

    @property
    def first_mover(self) -> Color:
        return WHITE if self.rules.first_mover == "white" else BLACK

    @property
    def opening(self) -> str:
        """The ballot and opening: the ballot only when one was drawn or set (the
        ``Ballot`` tag a referee writes); else the opening's name when the first three
        moves are a named ACF opening (a casual game plays openings, not ballots)."""
        number = self.tag("Ballot")
        name = self.tag("Opening")
        moves = self.tag("BallotMoves")
        if number:
            label = f"ACF ballot {number}"
            if name:
                label += f", {name}"
            return label + (f" ({moves})" if moves else "")
        if name:
            return name
        if self.rules.variant != "english" or self.start != Position.start(self.rules) or len(self.moves) < 3:
            return ""
        first = tuple(m.text for m in self.moves[:3])
        for ballot in BALLOTS:
            if ballot.moves == first and ballot.name:
                return f"{ballot.name} ({' '.join(ballot.moves)})"
        return ""

    @property
    def cautions(self) -> dict[str, int]:
        counts = {"black": 0, "white": 0}
        for _, text in self.notes:
            for side in _CAUTION.findall(text):
                counts[side.lower()] += 1
        return counts

    @property
    def clocked(self) -> bool:
        return any(m.clock for m in self.moves)

    @property
    def match_label(self) -> str:
        """The match the game belongs to (its ``Match`` tag) and its game number in it."""
        name = self.tag("Match")
        if not name:
            return ""
        number = self.tag("MatchGame") or self.tag("Round")
        return f"{name}, game {number}" if number else name


def match_of(games: list[SheetGame], *, focus: int = 0, count_draws: bool = False) -> tuple[Match, list[SheetGame]]:
    """The match of ``games`` (a file's games): those between the two players of game
    ``focus`` (an index), in file order, with the games they are; when that game has a
    ``Match`` tag (the board's games), only the games of that match. The match is over:
    the file's games are all it has."""
    if not games:
        raise ValueError("no games")
    a, b = games[focus].black, games[focus].white
    tagged = games[focus].tag("Match")
    # Games the board kept say which match they belong to; others are grouped by players.
    chosen = [g for g in games if {g.black, g.white} == {a, b} and (not tagged or g.tag("Match") == tagged)]
    # The first of the chosen games names the players in its colours: Black first.
    players = (chosen[0].black, chosen[0].white)
    if players[0] == players[1]:
        raise ValueError(f"game {games[focus].number}: Black and White have the same name ({players[0]!r})")
    match = match_from_games(
        [(g.black, g.white, g.result, str(g.number)) for g in chosen],
        players=players,
        count_draws=count_draws,
    )
    # The file holds the match as played: its games are all there are.
    return match.finished_now(), chosen
