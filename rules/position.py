"""Positions: immutable values on integer bitboards, with FEN in its PDN form.

>>> pos = Position.start()
>>> pos.turn.name, len(pos.legal_moves(WCDF))
('BLACK', 7)
>>> after = pos.play(pos.parse_move("11-15", WCDF), WCDF)
>>> after.fen()
'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15'
>>> Position.from_fen(after.fen()) == after
True
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from crownhead.rules import movegen, variants
from crownhead.rules.move import AmbiguousMoveError, IllegalMoveError, Move
from crownhead.rules.quoting import excerpt
from crownhead.rules.settings import WCDF, Crowning, Rules
from crownhead.squares import FULL, Square, bit, check_square, iter_squares, mask_of
from crownhead.rules.move import BLACK_CROWN_ROW, WHITE_CROWN_ROW


class Color(enum.IntEnum):
    """Black (the dark side, "Red" in WCDF wording) moves first."""

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        return "B" if self is Color.BLACK else "W"

    @property
    def crown_row(self) -> int:
        """The bitboard of the row where this side's men are crowned."""
        return BLACK_CROWN_ROW if self is Color.BLACK else WHITE_CROWN_ROW

    def __str__(self) -> str:
        return self.name.lower()


BLACK = Color.BLACK
WHITE = Color.WHITE


class Piece(NamedTuple):
    color: Color
    king: bool = False

    @property
    def symbol(self) -> str:
        """``b``/``w`` for men, ``B``/``W`` for kings."""
        letter = "b" if self.color is Color.BLACK else "w"
        return letter.upper() if self.king else letter

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        if symbol not in ("b", "w", "B", "W"):
            raise ValueError(f"{symbol!r} is not a piece (b, w, B or W)")
        return cls(Color.BLACK if symbol.lower() == "b" else Color.WHITE, symbol.isupper())


class FenError(ValueError):
    """A FEN string that does not describe a position."""


class Position(NamedTuple):
    """A position: where the men and kings of each side stand, and who is to move.

    Bitboards hold bit ``s - 1`` for square ``s``; ``kings`` marks the kings of both sides.
    Being a tuple, a position is immutable, hashable and compares by value; the hash is
    stable from run to run.
    """

    black: int
    white: int
    kings: int
    turn: Color = Color.BLACK

    # -- construction ---------------------------------------------------------------

    @classmethod
    def start(cls, rules: Rules = WCDF) -> Position:
        """The starting position: Black on 1-12, White on 21-32, Black to move.

        Under rules where White moves first (Russian draughts) White is to move.
        """
        turn = Color.WHITE if rules.first_mover == "white" else Color.BLACK
        return cls(0x00000FFF, 0xFFF00000, 0, turn)

    @classmethod
    def empty(cls, turn: Color = Color.BLACK) -> Position:
        return cls(0, 0, 0, turn)

    @classmethod
    def from_pieces(cls, pieces: dict[Square, Piece | str], turn: Color = Color.BLACK) -> Position:
        """A position from ``{square: piece}``; pieces may be given by symbol."""
        black = white = kings = 0
        for square, piece in pieces.items():
            check_square(square)
            if isinstance(piece, str):
                piece = Piece.from_symbol(piece)
            b = bit(square)
            if piece.color is Color.BLACK:
                black |= b
            else:
                white |= b
            if piece.king:
                kings |= b
        return cls(black, white, kings, Color(turn))

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """Parse a PDN FEN such as ``B:W21-32:B1-12`` (kings as ``K5``)."""
        return parse_fen(fen)

    # -- reading --------------------------------------------------------------------

    @property
    def occupied(self) -> int:
        return self.black | self.white

    @property
    def empty_squares(self) -> int:
        return ~(self.black | self.white) & FULL

    def pieces_of(self, color: Color) -> int:
        return self.black if color is Color.BLACK else self.white

    def men_of(self, color: Color) -> int:
        return self.pieces_of(color) & ~self.kings

    def kings_of(self, color: Color) -> int:
        return self.pieces_of(color) & self.kings

    def piece_at(self, square: Square) -> Piece | None:
        b = bit(check_square(square))
        if self.black & b:
            return Piece(Color.BLACK, bool(self.kings & b))
        if self.white & b:
            return Piece(Color.WHITE, bool(self.kings & b))
        return None

    def pieces(self) -> dict[Square, Piece]:
        """Every piece on the board, by square."""
        out: dict[Square, Piece] = {}
        for s in iter_squares(self.black):
            out[s] = Piece(Color.BLACK, bool(self.kings & bit(s)))
        for s in iter_squares(self.white):
            out[s] = Piece(Color.WHITE, bool(self.kings & bit(s)))
        return dict(sorted(out.items()))

    def count(self, color: Color) -> int:
        return self.pieces_of(color).bit_count()

    # -- moves ----------------------------------------------------------------------

    def _sides(self) -> tuple[int, int, bool]:
        if self.turn == Color.BLACK:
            return self.black, self.white, True
        return self.white, self.black, False

    def legal_moves(self, rules: Rules) -> list[Move]:
        """Every legal move; each capture route is its own move.

        With compulsory captures (the default) only captures are legal when one exists.
        """
        own, opp, black = self._sides()
        if not rules.fast_path:
            return [Move(path, caps) for path, caps in variants.legal_routes(own, opp, self.kings, black, rules)]
        routes = movegen.capture_routes(own, opp, self.kings, black, rules.men_capture_backward)
        moves = [Move(path, caps) for path, caps in routes]
        if moves and rules.must_capture:
            return moves
        for frm, to in movegen.quiet_moves(own, opp, self.kings, black):
            moves.append(Move((frm.bit_length(), to.bit_length())))
        return moves

    def captures(self, rules: Rules) -> list[Move]:
        """The capture routes available to the side to move."""
        own, opp, black = self._sides()
        if not rules.fast_path:
            return [Move(path, caps) for path, caps in variants.capture_routes(own, opp, self.kings, black, rules)]
        return [
            Move(path, caps)
            for path, caps in movegen.capture_routes(own, opp, self.kings, black, rules.men_capture_backward)
        ]

    def capture_available(self, rules: Rules) -> bool:
        own, opp, black = self._sides()
        if not rules.fast_path:
            return variants.capture_available(own, opp, self.kings, black, rules)
        return bool(movegen.jumpers(own, opp, self.kings, black, rules.men_capture_backward))

    def movable_pieces(self, rules: Rules) -> int:
        """Bitboard of the squares whose piece has a legal move now."""
        return mask_of(m.start for m in self.legal_moves(rules))

    def has_legal_move(self, rules: Rules) -> bool:
        own, opp, black = self._sides()
        if not rules.fast_path:
            return variants.has_legal_move(own, opp, self.kings, black, rules)
        return bool(
            movegen.jumpers(own, opp, self.kings, black, rules.men_capture_backward)
            or movegen.count_quiet(own, opp, self.kings, black)
        )

    def is_legal(self, move: Move, rules: Rules) -> bool:
        return move in self.legal_moves(rules)

    def play(self, move: Move, rules: Rules) -> Position:
        """The position after a legal move; raises :class:`IllegalMoveError` otherwise."""
        if move not in self.legal_moves(rules):
            raise IllegalMoveError(f"{move.pdn(full=True)} is not legal in {self.fen()}")
        return self.apply(move, rules)

    def apply(self, move: Move, rules: Rules) -> Position:
        """The position after ``move`` without checking that it is legal.

        ``rules`` matter only where a man crowned mid-capture goes on jumping (Russian
        draughts): it is then a king even though its move ends off the king row. They
        have no default: nothing checks the move against them, so English rules taken
        by default would make a Russian capture's king a man without a word.
        """
        frm, to = bit(move.start), bit(move.end)
        taken = mask_of(move.captures)
        mover = Color(self.turn)
        own, opp = (self.black, self.white) if mover is Color.BLACK else (self.white, self.black)
        own = (own & ~frm) | to
        opp &= ~taken
        kings = self.kings & ~taken
        if (
            kings & frm
            or to & mover.crown_row
            or (
                rules.crowning is Crowning.CONTINUES_AS_KING
                and move.captures
                and mask_of(move.path[1:]) & mover.crown_row
            )
        ):
            kings = (kings & ~frm) | to
        black, white = (own, opp) if mover is Color.BLACK else (opp, own)
        return Position(black, white, kings, mover.opponent)

    def crowns(self, move: Move, rules: Rules) -> bool:
        """Whether ``move`` crowns a man (under ``rules``: see :func:`crownhead.rules.variants.crowns`)."""
        if not rules.fast_path:
            return variants.crowns(move.path, bool(self.kings & bit(move.start)), self.turn is Color.BLACK, rules)
        return not self.kings & bit(move.start) and bool(bit(move.end) & self.turn.crown_row)

    def parse_move(self, text: str, rules: Rules) -> Move:
        """The legal move written ``text`` in PDN (``11-15``, ``15x31``, ``15x24x31``).

        Lenient the way real files are: ``x`` on plain moves, ``:`` as a separator,
        leading zeros. Raises :class:`IllegalMoveError` or :class:`AmbiguousMoveError`.
        """
        matches = self.moves_matching(text, rules)
        if not matches:
            raise IllegalMoveError(f"{text} is not legal in {self.fen()}")
        if len(matches) > 1:
            routes = ", ".join(m.pdn(full=True) for m in matches)
            raise AmbiguousMoveError(f"{text} fits several capture routes: {routes}")
        return matches[0]

    def moves_matching(self, text: str, rules: Rules) -> list[Move]:
        """All legal moves that PDN text could mean (more than one when ambiguous)."""
        squares = parse_move_squares(text)
        found = []
        for move in self.legal_moves(rules):
            if move.start != squares[0] or move.end != squares[-1]:
                continue
            if len(squares) > 2 and tuple(squares) != move.path:
                continue
            found.append(move)
        return found

    # -- notation -------------------------------------------------------------------

    def fen(self) -> str:
        """The PDN FEN, White's pieces first as in ``B:W21,...,32:B1,...,12``."""

        def side(mask: int) -> str:
            return ",".join(("K" if self.kings & bit(s) else "") + str(s) for s in iter_squares(mask))

        return f"{self.turn.letter}:W{side(self.white)}:B{side(self.black)}"

    def diagram(self, names: bool = False) -> str:
        """An 8x8 text diagram from Black's side (square 1 top left): b w B W and ``.``."""
        rows = []
        for row in range(8):
            cells = []
            for col in range(8):
                if (row + col) % 2 == 0:
                    cells.append(" ")
                    continue
                square = row * 4 + col // 2 + 1
                piece = self.piece_at(square)
                cells.append(piece.symbol if piece else ".")
            label = f"{8 - row} " if names else ""
            rows.append(label + " ".join(cells))
        if names:
            rows.append("  a b c d e f g h")
        rows.append(f"{self.turn.name.title()} to move")
        return "\n".join(rows)

    def __str__(self) -> str:
        return self.diagram()


_MOVE_RE = re.compile(r"^\s*([0-9]{1,2})(?:\s*[-x:]\s*([0-9]{1,2}))+\s*$", re.IGNORECASE)


def parse_move_squares(text: str) -> list[Square]:
    """The squares named in a PDN move: ``11-15`` -> [11, 15], ``9x18x27`` -> [9, 18, 27]."""
    if not _MOVE_RE.match(text):
        raise ValueError(f"{text!r} is not a move (write it like 11-15 or 15x24)")
    squares = [int(t) for t in re.findall(r"[0-9]+", text)]
    for s in squares:
        if not 1 <= s <= 32:
            raise ValueError(f"{text!r} names square {s}, which is not on the board (1-32)")
    return squares


def _digits(text: str) -> bool:
    """1-4 ASCII digits (leading zeros allowed): a square number as a FEN may write it."""
    return 0 < len(text) <= 4 and text.isascii() and text.isdigit()


def _parse_fen_side(text: str, fen: str) -> Iterator[tuple[Square, bool]]:
    for written in text.split(","):
        token = written.strip().rstrip(".").strip()
        if not token:
            continue
        king = token[0] in "Kk"
        if king:
            token = token[1:].strip()
        if "-" in token:
            lo_text, _, hi_text = (t.strip() for t in token.partition("-"))
            if king and hi_text[:1] in ("K", "k"):
                hi_text = hi_text[1:].strip()  # ``K5-K7``: the K written on both ends
            # A square is a number of at most 2 digits (a longer one is no square, and
            # Python refuses to read numbers of thousands of digits).
            if not (_digits(lo_text) and _digits(hi_text)) or max(len(lo_text), len(hi_text)) > 3:
                raise FenError(f"bad range {excerpt(written.strip())} in FEN {excerpt(fen)}")
            # A range may be written high to low, like the unsorted squares around it.
            lo, hi = sorted((int(lo_text), int(hi_text)))
            if not (1 <= lo and hi <= 32):
                raise FenError(f"range {excerpt(written.strip())} is not within 1-32 in FEN {excerpt(fen)}")
            for s in range(lo, hi + 1):
                yield s, king
        else:
            if not _digits(token) or len(token) > 3:
                raise FenError(f"bad square {excerpt(written.strip())} in FEN {excerpt(fen)}")
            s = int(token)
            if not 1 <= s <= 32:
                raise FenError(f"square {s} is not on the board (1-32) in FEN {excerpt(fen)}")
            yield s, king


def parse_fen(fen: str) -> Position:
    """Parse a PDN FEN; tolerant of unsorted squares, ranges, spaces and a trailing ``.``."""
    text = fen.strip().strip('"').strip()
    if text.endswith("."):
        text = text[:-1]
    parts = [p.strip() for p in text.split(":")]
    if not parts or parts[0].upper() not in ("B", "W"):
        raise FenError(f"FEN {excerpt(fen)} must start with the side to move, B or W")
    turn = Color.BLACK if parts[0].upper() == "B" else Color.WHITE
    black = white = kings = 0
    seen: set[str] = set()
    for part in parts[1:]:
        if not part:
            continue
        color = part[0].upper()
        if color not in ("B", "W"):
            raise FenError(f"FEN {excerpt(fen)}: {excerpt(part)} should start with B or W")
        if color in seen:
            raise FenError(f"FEN {excerpt(fen)} lists {color} twice")
        seen.add(color)
        for square, king in _parse_fen_side(part[1:], fen):
            b = bit(square)
            if (black | white) & b:
                raise FenError(f"FEN {excerpt(fen)} puts two pieces on square {square}")
            if color == "B":
                black |= b
            else:
                white |= b
            if king:
                kings |= b
    return Position(black, white, kings, turn)


def positions_of(moves: Iterable[Move], rules: Rules, start: Position | None = None) -> list[Position]:
    """The positions a sequence of moves passes through under ``rules``, starting position included."""
    pos = start or Position.start(rules)
    out = [pos]
    for move in moves:
        pos = pos.apply(move, rules)
        out.append(pos)
    return out


__all__ = [
    "AmbiguousMoveError",
    "BLACK",
    "Color",
    "FenError",
    "IllegalMoveError",
    "Move",
    "Piece",
    "Position",
    "WHITE",
    "parse_fen",
    "parse_move_squares",
    "positions_of",
]
