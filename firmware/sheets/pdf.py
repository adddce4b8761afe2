"""Score sheets as PDF, drawn with fpdf2 (pure Python): game sheets, match sheets, blank sheets.

A game sheet is laid out as a checkers score sheet: the header (event, site, date,
round, the players and their colours, ballot and opening, time control), the moves
numbered in Black and White columns (with each side's time left when the record has
clock times), the result, a diagram of the final position drawn from the position
itself, the cautions, signature lines and the notes. A game longer than the first
page's grid goes on over further pages; no move is ever cut or shortened. A match
sheet lists the games of a match: who had Black, the result, each player's mark, the
running score and the winner.

>>> from crownhead.rules.pdn import read_game
>>> from crownhead.firmware.sheets.model import SheetGame
>>> game = SheetGame.from_pdn(read_game('[Black "Ana"][White "Ben"] 1. 11-15 23-18 1-0'))
>>> game_sheets([game], paper="a4")[:5]
b'%PDF-'
"""

from __future__ import annotations

import datetime as _dt
import re
import os
from collections.abc import Sequence

from fpdf import FPDF
from fpdf.enums import MethodReturnValue

from crownhead.firmware.sheets.model import PAPERS, SheetGame, printable, result_words, sentence
from crownhead.rules import BLACK, WHITE, Color, Position
from crownhead.rules.match import Match, points_text
from crownhead.squares import file_of, row_of
from crownhead.rules.variants import SUMMARIES, rules_for

__all__ = ["PAPERS", "game_sheets", "match_sheet", "blank_sheet"]

MARGIN = 12.0
ROW = 5.2  # height of a move row, mm
FIRST_PAGE_ROWS = 25
#: The header row of the move grid, mm.
GRID_HEADER = 5.0
#: The final position, the result and the signatures below the grid, mm.
BLOCK = 66.0
#: Characters of one text measured for a field at most (a page's width holds fewer).
MAX_SHOWN = 400
#: A line of the notes, mm.
NOTE_LINE = 3.8
MIN_FONT = 5.0
GREY = (110, 110, 110)
DARK_SQUARE = (165, 165, 165)
RED = (170, 20, 20)


class _Doc(FPDF):
    """A document of score sheets: fixed margins, page numbers in the footer."""

    def __init__(self, paper: str, title: str) -> None:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
        super().__init__(orientation="portrait", unit="mm", format=PAPERS[paper])
        self.set_margins(MARGIN, MARGIN, MARGIN)
        self.set_auto_page_break(True, margin=MARGIN + 4)
        self.alias_nb_pages()
        self.set_title(printable(title))
        self.set_creator("crownhead")
        # A fixed date keeps the file the same for the same game (no wall clock in it).
        self.set_creation_date(_dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc))
        self.footer_text = ""

    @property
    def width(self) -> float:
        return float(self.w) - 2 * MARGIN

    @property
    def bottom(self) -> float:
        return float(self.h) - MARGIN - 4

    def footer(self) -> None:
        self.set_xy(MARGIN, self.h - MARGIN)
        self.set_font("Helvetica", "", 7)
        self.set_text_color(*GREY)
        self.cell(self.width / 2, 4, printable(self.footer_text))
        self.cell(self.width / 2, 4, f"page {self.page_no()} of {{nb}}", align="R")
        self.set_text_color(0, 0, 0)

    # -- text that fits ----------------------------------------------------------------

    def fit(self, text: str, width: float, size: float, style: str = "", *, cut: bool = True) -> tuple[str, float]:
        """``text`` and the font size at which it fits ``width``: shrunk down to
        :data:`MIN_FONT`, then (``cut``) shortened with an ellipsis. Without ``cut`` the
        text is never shortened (moves): the caller makes room."""
        # No field is wider than a page: a few hundred characters are all that can show
        # (a 60 KB tag is not measured whole, nor cut a character at a time).
        text = printable(text if not cut or len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "...")
        while size > MIN_FONT:
            self.set_font("Helvetica", style, size)
            if self.get_string_width(text) <= width:
                return text, size
            size -= 0.5
        self.set_font("Helvetica", style, MIN_FONT)
        if not cut:
            return text, MIN_FONT
        while text and self.get_string_width(text + "...") > width:
            text = text[:-1]
        return text + "...", MIN_FONT

    def put(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        text: str,
        size: float = 10,
        style: str = "",
        align: str = "L",
        *,
        cut: bool = True,
        color: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        fitted, fsize = self.fit(text, w - 1.0, size, style, cut=cut)
        self.set_font("Helvetica", style, fsize)
        self.set_text_color(*color)
        self.set_xy(x, y)
        self.cell(w, h, fitted, align=align)
        self.set_text_color(0, 0, 0)

    def field(self, x: float, y: float, w: float, label: str, value: str, h: float = 9.5) -> None:
        """A labelled box of the header: the label small at the top, the value below."""
        self.set_draw_color(0, 0, 0)
        self.set_line_width(0.25)
        self.rect(x, y, w, h)
        self.put(x + 0.6, y + 0.3, w - 1, 3.2, label.upper(), 6, color=GREY)
        self.put(x + 0.6, y + 3.6, w - 1, h - 4.2, value, 10.5)

    def title_line(self, title: str, subtitle: str) -> float:
        y = MARGIN
        self.put(MARGIN, y, self.width * 0.62, 9, title, 16, "B")
        self.put(MARGIN + self.width * 0.62, y + 1.5, self.width * 0.38, 6, subtitle, 8, align="R", color=GREY)
        self.set_line_width(0.6)
        self.line(MARGIN, y + 10, MARGIN + self.width, y + 10)
        self.set_line_width(0.25)
        return y + 12


# -- the diagram -------------------------------------------------------------------------


def _diagram(pdf: _Doc, x: float, y: float, size: float, position: Position | None) -> None:
    """An 8x8 board from Black's side down (square 1 top left of the dark squares, as
    checkers books print it) with the pieces of ``position`` (None: an empty board)."""
    s = size / 8
    pdf.set_line_width(0.2)
    pdf.set_draw_color(0, 0, 0)
    for row in range(8):
        for col in range(8):
            if (row + col) % 2:
                pdf.set_fill_color(*DARK_SQUARE)
            else:
                pdf.set_fill_color(255, 255, 255)
            pdf.rect(x + col * s, y + row * s, s, s, style="F")
    pieces = position.pieces() if position is not None else {}
    for square in range(1, 33):
        col, row = file_of(square), row_of(square)
        sx, sy = x + col * s, y + row * s
        pdf.set_font("Helvetica", "", 4.5)
        pdf.set_text_color(40, 40, 40)
        pdf.set_xy(sx + 0.2, sy + 0.2)
        pdf.cell(s * 0.45, 1.8, str(square))
        piece = pieces.get(square)
        if piece is None:
            continue
        d = s * 0.68
        px, py = sx + (s - d) / 2, sy + (s - d) / 2 + s * 0.06
        black = piece.color is BLACK
        pdf.set_line_width(0.3)
        pdf.set_fill_color(*((20, 20, 20) if black else (255, 255, 255)))
        pdf.ellipse(px, py, d, d, style="DF")
        if piece.king:
            # A crowned piece: a ring inside and a K, in the piece's opposite colour.
            ink = (255, 255, 255) if black else (20, 20, 20)
            pdf.set_draw_color(*ink)
            inner = d * 0.72
            pdf.ellipse(px + (d - inner) / 2, py + (d - inner) / 2, inner, inner, style="D")
            pdf.set_draw_color(0, 0, 0)
            pdf.set_font("Helvetica", "B", s * 1.3)
            pdf.set_text_color(*ink)
            pdf.set_xy(px, py)
            pdf.cell(d, d, "K", align="C")
    pdf.set_text_color(0, 0, 0)
    pdf.set_line_width(0.5)
    pdf.rect(x, y, size, size)
    pdf.set_line_width(0.25)


# -- game sheets -------------------------------------------------------------------------


def _fields(pdf: _Doc, y: float, game: SheetGame | None) -> float:
    """The header boxes; ``game`` None: a blank sheet. Returns the y below them."""
    w = pdf.width
    x = MARGIN
    get = (lambda name: game.tag(name)) if game is not None else (lambda name: "")
    h = 9.5
    pdf.field(x, y, w * 0.5, "Event", get("Event"))
    pdf.field(x + w * 0.5, y, w * 0.3, "Site", get("Site"))
    pdf.field(x + w * 0.8, y, w * 0.2, "Round", get("Round"))
    y += h
    black = game.black if game is not None else ""
    white = game.white if game is not None else ""
    pdf.field(x, y, w * 0.4, "Black (moves first)" if game is None or game.first_mover is BLACK else "Black", black)
    pdf.field(
        x + w * 0.4,
        y,
        w * 0.4,
        "White (moves first)" if game is not None and game.first_mover is WHITE else "White",
        white,
    )
    pdf.field(x + w * 0.8, y, w * 0.2, "Date", get("Date"))
    # The colour of each side, as a piece beside the name.
    for i, color in enumerate((BLACK, WHITE)):
        cx = x + w * 0.4 * (i + 1) - 6
        pdf.set_fill_color(*((20, 20, 20) if color is BLACK else (255, 255, 255)))
        pdf.ellipse(cx, y + 2.5, 4.5, 4.5, style="DF")
    y += h
    opening = game.opening if game is not None else ""
    control = get("TimeControl")
    match = game.match_label if game is not None else ""
    pdf.field(x, y, w * 0.5, "Ballot and opening", opening)
    pdf.field(x + w * 0.5, y, w * 0.3, "Match", match)
    pdf.field(x + w * 0.8, y, w * 0.2, "Time control", control)
    return y + h + 2.5


class _Grid:
    """The moves table: groups of columns (No., first mover, second mover, and each
    side's time left when the record has times), ``rows`` numbered rows a page."""

    def __init__(self, pdf: _Doc, game: SheetGame | None) -> None:
        self.pdf = pdf
        self.game = game
        self.clocked = game is not None and game.clocked
        self.groups = 3 if self.clocked else 4
        gap = 2.5
        self.group_w = (pdf.width - gap * (self.groups - 1)) / self.groups
        self.gap = gap
        self.num_w = 8.0
        self.clock_w = 11.0 if self.clocked else 0.0
        self.move_w = (self.group_w - self.num_w - 2 * self.clock_w) / 2
        first = game.first_mover if game is not None else BLACK
        self.sides: tuple[Color, Color] = (first, first.opponent)
        self.offset = 0 if game is None or game.start.turn is first else 1

    def plies(self) -> int:
        if self.game is None:
            return 0
        return len(self.game.moves) + (1 if self.game.failed else 0)

    def numbers(self) -> int:
        """Move numbers the game needs (a move number is a row: both sides' moves)."""
        return (self.plies() + self.offset + 1) // 2

    def cell_text(self, number: int, column: int) -> tuple[str, str | None, bool]:
        """(move, time left, the move that failed) for move ``number``, column 0 or 1."""
        game = self.game
        if game is None:
            return "", None, False
        ply = 2 * (number - 1) + column + 1 - self.offset
        if ply < 1:
            return ("..." if number == 1 and column == 0 else ""), None, False
        if ply <= len(game.moves):
            move = game.moves[ply - 1]
            return move.text, move.clock, False
        if ply == len(game.moves) + 1 and game.failed:
            return game.failed, None, True
        return "", None, False

    def draw(self, y: float, first: int, rows: int) -> float:
        """Rows ``first``.. (move numbers) down the groups from ``y``; returns the y below."""
        pdf = self.pdf
        header = GRID_HEADER
        side_names = [("Black" if c is BLACK else "White") for c in self.sides]
        for g in range(self.groups):
            gx = MARGIN + g * (self.group_w + self.gap)
            pdf.set_fill_color(225, 225, 225)
            pdf.set_line_width(0.25)
            pdf.rect(gx, y, self.group_w, header, style="DF")
            cols = [("No.", self.num_w)]
            for name in side_names:
                cols.append((name, self.move_w))
                if self.clocked:
                    cols.append(("time", self.clock_w))
            cx = gx
            for label, cw in cols:
                pdf.put(cx, y, cw, header, label, 7, "B", align="C")
                cx += cw
            for r in range(rows):
                number = first + g * rows + r
                ry = y + header + r * ROW
                if r % 2:
                    pdf.set_fill_color(244, 244, 244)
                    pdf.rect(gx, ry, self.group_w, ROW, style="F")
                pdf.put(gx, ry, self.num_w, ROW, f"{number}.", 8, "B", align="R")
                cx = gx + self.num_w
                for column in (0, 1):
                    text, clock, failed = self.cell_text(number, column)
                    if text:
                        # Never cut a move: it shrinks to fit its column instead.
                        pdf.put(
                            cx,
                            ry,
                            self.move_w,
                            ROW,
                            text + ("?" if failed else ""),
                            9.5,
                            "B" if failed else "",
                            align="C",
                            cut=False,
                            color=RED if failed else (0, 0, 0),
                        )
                    cx += self.move_w
                    if self.clocked:
                        if clock:
                            pdf.put(cx, ry, self.clock_w, ROW, clock, 7, align="C", color=GREY)
                        cx += self.clock_w
            # The ruling of the group.
            pdf.set_draw_color(0, 0, 0)
            pdf.set_line_width(0.25)
            bottom = y + header + rows * ROW
            pdf.rect(gx, y, self.group_w, bottom - y)
            pdf.set_draw_color(150, 150, 150)
            pdf.set_line_width(0.1)
            for r in range(1, rows):
                pdf.line(gx, y + header + r * ROW, gx + self.group_w, y + header + r * ROW)
            cx = gx + self.num_w
            for _ in range(2):
                pdf.line(cx, y, cx, bottom)
                if self.clocked:
                    pdf.line(cx + self.move_w, y, cx + self.move_w, bottom)
                cx += self.move_w + self.clock_w
            pdf.set_draw_color(0, 0, 0)
        return y + header + rows * ROW


def _side_of_ply(game: SheetGame, ply: int) -> Color:
    return game.start.turn if ply % 2 else game.start.turn.opponent


def _move_label(game: SheetGame, grid: _Grid, ply: int) -> str:
    """``12.`` or ``12...``: where a note goes in the numbered moves."""
    if ply == 0:
        return "Before the first move"
    number = (ply + grid.offset + 1) // 2
    second = (ply + grid.offset) % 2 == 0
    text = game.moves[ply - 1].text if ply <= len(game.moves) else ""
    return f"{number}.{'..' if second else ''} {text}".rstrip()


def _outcome(pdf: _Doc, x: float, y: float, w: float, game: SheetGame | None) -> float:
    """The result, the match, cautions, times and signatures beside the diagram."""
    if game is None:
        pdf.field(x, y, w * 0.45, "Result (1-0, 0-1, 1/2-1/2)", "")
        pdf.field(x + w * 0.45, y, w * 0.55, "Won by / drawn by", "")
        y += 12
        pdf.field(x, y, w * 0.5, "Cautions to Black", "")
        pdf.field(x + w * 0.5, y, w * 0.5, "Cautions to White", "")
        y += 12
    else:
        words = result_words(game.result, game.black, game.white, game.tag("Termination"), game.final)
        pdf.field(x, y, w * 0.3, "Result", game.result if game.result != "*" else "* (unfinished)")
        pdf.field(x + w * 0.3, y, w * 0.7, "Outcome", words)
        y += 12
        cautions = game.cautions
        refereed = bool(game.tag("Refereeing")) or any(cautions.values())
        if refereed:
            pdf.put(x, y, w, 5, f"Cautions: Black {cautions['black']}, White {cautions['white']}", 9)
            y += 5.5
        if game.clocked:
            pdf.put(x, y, w, 5, "Time left: " + _time_left(game), 9)
            y += 5.5
        pdf.put(
            x,
            y,
            w,
            5,
            f"{len(game.moves)} {'ply' if len(game.moves) == 1 else 'plies'} recorded"
            + (f"; {os.path.basename(game.source)}, game {game.number}" if game.source else ""),
            8,
            color=GREY,
        )
        y += 7
    for label in ("Black's signature", "White's signature", "Referee"):
        y += 7
        pdf.set_line_width(0.2)
        pdf.line(x + 28, y, x + w, y)
        pdf.put(x, y - 4.5, 28, 4.5, label, 7, color=GREY)
    return y + 3


def _time_left(game: SheetGame) -> str:
    """Each side's time left as the record last gives it (``Black 0:04:58 (after ply 3)``);
    a side that lost on time had none left, whatever it had after its last move."""
    last: dict[Color, tuple[int, str]] = {}
    for move in game.moves:
        if move.clock:
            last[_side_of_ply(game, move.ply)] = (move.ply, move.clock)
    flagged = _lost_on_time(game)
    parts = []
    for side in (BLACK, WHITE):
        name = "Black" if side is BLACK else "White"
        if side is flagged:
            # Zero in the record's own shape (0:00:00 beside 0:04:58).
            zero = re.sub(r"[0-9]", "0", next(iter(last.values()))[1]) if last else "0:00"
            parts.append(f"{name} {zero} (lost on time)")
        elif side in last:
            ply, clock = last[side]
            parts.append(f"{name} {clock} (after ply {ply})")
    return ", ".join(parts)


def _lost_on_time(game: SheetGame) -> Color | None:
    """The side whose flag fell (the record's ``Termination`` is ``time``), if one did."""
    if game.tag("Termination").lower() != "time":
        return None
    return {"1-0": WHITE, "0-1": BLACK}.get(game.result)


def _rules_line(game: SheetGame | None) -> str:
    """The game played, as the sheet's subtitle: ``English draughts, WCDF rules``."""
    if game is None or game.rules == rules_for("english"):
        return "English draughts (checkers), WCDF rules"
    rules = game.rules
    name = SUMMARIES.get(rules.variant, rules.variant).split(":")[0].split(",")[0]
    if rules == rules_for(rules.variant):
        return name
    return f"{name}; {rules.describe()}"


def _game_pages(pdf: _Doc, game: SheetGame | None) -> None:
    pdf.footer_text = (
        "Checkers score sheet"
        if game is None
        else f"{game.black} v {game.white}" + (f" - {game.tag('Event')}" if game.tag("Event") else "")
    )
    pdf.add_page()
    y = pdf.title_line("CHECKERS SCORE SHEET", _rules_line(game))
    y = _fields(pdf, y, game)
    grid = _Grid(pdf, game)
    rows = FIRST_PAGE_ROWS
    if game is not None and game.error:
        pdf.set_draw_color(*RED)
        pdf.set_line_width(0.5)
        text = (
            f"This game could not be replayed: {game.error}. The sheet shows the "
            f"{len(game.moves)} moves read before it"
            + (f" and, marked ?, the move that does not fit ({game.failed})" if game.failed else "")
            + "; the diagram is the position before that move."
        )
        pdf.set_xy(MARGIN, y)
        pdf.set_font("Helvetica", "B", 8.5)
        pdf.set_text_color(*RED)
        pdf.multi_cell(pdf.width, 4, printable(text), border=1)
        pdf.set_text_color(0, 0, 0)
        pdf.set_draw_color(0, 0, 0)
        y = pdf.get_y() + 2
        rows = FIRST_PAGE_ROWS - 4
    if game is not None and game.notes:
        # The notes go on the first page under the diagram when the grid can spare the
        # rows for them and still hold every move (a second page for two lines is waste).
        below = y + GRID_HEADER + BLOCK + 6 + _notes_height(pdf, game, grid)
        fit = int((pdf.bottom - below) // ROW)
        if -(-grid.numbers() // grid.groups) <= fit < rows:
            rows = fit
    y = grid.draw(y, 1, rows)
    done = rows * grid.groups
    needed = grid.numbers()
    while done < needed:
        pdf.add_page()
        left = needed - done
        capacity_rows = int((pdf.bottom - MARGIN - 17) // ROW)
        rows_here = min(capacity_rows, -(-left // grid.groups))
        last = done + rows_here * grid.groups
        y = pdf.title_line(
            f"Score sheet, continued: {game.black} v {game.white}" if game else "", f"moves {done + 1} to {last}"
        )
        y = grid.draw(y, done + 1, rows_here)
        done += rows_here * grid.groups
    block = BLOCK
    if y + 4 + block > pdf.bottom:
        pdf.add_page()
        y = MARGIN
    y += 4
    size, x = 56.0, MARGIN
    if game is not None and game.start != Position.start(game.rules):
        size = 46.0  # two diagrams side by side, the FEN under the first
        x = _starting_position(pdf, x, y, size, game)
    label = "Final position" if game is not None else "Final position (mark the pieces)"
    if game is not None:
        to_move = "Black" if game.final.turn is BLACK else "White"
        label += f", {to_move} to move" if game.result == "*" else f" ({game.result})"
    pdf.put(x, y, size, 4, label, 8 if size > 50 else 7, "B")
    pdf.put(x, y + 4, size, 3, "Black's side", 6, align="C", color=GREY)
    _diagram(pdf, x, y + 7, size, game.final if game is not None else None)
    pdf.put(x, y + 7 + size, size, 3, "White's side", 6, align="C", color=GREY)
    _outcome(pdf, x + size + 8, y + 4, pdf.width - (x - MARGIN) - size - 8, game)
    y += block + 2
    if game is not None and game.notes:
        _notes(pdf, y, game, grid)


def _starting_position(pdf: _Doc, x: float, y: float, size: float, game: SheetGame) -> float:
    """A game from a set position (a problem, an adjourned game) begins where no reader of
    its moves could guess: its diagram and FEN, left of the final position. Returns the x
    right of it."""
    to_move = "Black" if game.start.turn is BLACK else "White"
    pdf.put(x, y, size, 4, f"Starting position (set up), {to_move} to move", 7, "B")
    pdf.put(x, y + 4, size, 3, "Black's side", 6, align="C", color=GREY)
    _diagram(pdf, x, y + 7, size, game.start)
    pdf.put(x, y + 7 + size, size, 3, "White's side", 6, align="C", color=GREY)
    pdf.set_xy(x, y + 10 + size)
    pdf.set_font("Helvetica", "", 6)
    pdf.multi_cell(size, 2.6, f"FEN {game.start.fen()}")
    return x + size + 6


def _note_lines(game: SheetGame, grid: _Grid) -> list[str]:
    """Each note as printed: where it was made, then the note as a sentence."""
    return [printable(f"{_move_label(game, grid, ply)}: {sentence(text)}") for ply, text in game.notes]


def _notes_height(pdf: _Doc, game: SheetGame, grid: _Grid) -> float:
    """How tall the notes print: their heading and every line they wrap to."""
    pdf.set_font("Helvetica", "", 8)
    lines = 0
    for text in _note_lines(game, grid):
        wrapped = pdf.multi_cell(pdf.width, NOTE_LINE, text, dry_run=True, output=MethodReturnValue.LINES)
        assert isinstance(wrapped, list)
        lines += len(wrapped)
    return 6 + lines * NOTE_LINE


def _notes(pdf: _Doc, y: float, game: SheetGame, grid: _Grid) -> None:
    if y + 12 > pdf.bottom:
        pdf.add_page()
        y = MARGIN
    pdf.put(MARGIN, y, pdf.width, 5, "Notes", 10, "B")
    pdf.set_xy(MARGIN, y + 6)
    pdf.set_font("Helvetica", "", 8)
    for text in _note_lines(game, grid):
        pdf.set_x(MARGIN)
        pdf.multi_cell(pdf.width, NOTE_LINE, text)


def game_sheets(games: Sequence[SheetGame], paper: str = "letter") -> bytes:
    """One PDF with a score sheet for each game (each begins on a new page)."""
    title = "Checkers score sheet" if len(games) != 1 else f"{games[0].black} v {games[0].white}"
    pdf = _Doc(paper, title)
    for game in games:
        _game_pages(pdf, game)
    return bytes(pdf.output())


def blank_sheet(paper: str = "letter") -> bytes:
    """A score sheet to fill in by hand, for a game played without the board."""
    pdf = _Doc(paper, "Checkers score sheet")
    _game_pages(pdf, None)
    return bytes(pdf.output())


# -- match sheets ------------------------------------------------------------------------


def match_sheet(
    match: Match | None,
    games: Sequence[SheetGame] = (),
    paper: str = "letter",
    *,
    title: str = "",
    blank_games: int = 12,
) -> bytes:
    """The match sheet: game by game who had Black, the result, each player's mark, the
    running score and the winner; ``games`` (the match's games, in order) give the
    header's event, site and dates. ``match`` None: a blank match sheet of
    ``blank_games`` rows, to mark by hand as seed 000's score sheet is."""
    name = f"Match {match.title}" if match is not None else "Checkers match score sheet"
    pdf = _Doc(paper, name)
    pdf.footer_text = name
    pdf.add_page()
    y = pdf.title_line("CHECKERS MATCH SCORE SHEET", "Colours swap after every game")
    w = pdf.width
    first = games[0] if games else None
    dates = sorted({g.tag("Date") for g in games if g.tag("Date")})
    pdf.field(MARGIN, y, w * 0.55, "Event", title or (first.tag("Event") if first else ""))
    pdf.field(MARGIN + w * 0.55, y, w * 0.45, "Site", first.tag("Site") if first else "")
    y += 9.5
    pdf.field(
        MARGIN,
        y,
        w * 0.55,
        "Players (Black in game 1 first)",
        f"{match.first} v {match.second}" if match is not None else "",
    )
    pdf.field(
        MARGIN + w * 0.55,
        y,
        w * 0.45,
        "Dates",
        dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else ""),
    )
    y += 9.5
    if match is None:
        played, scoring = "", "A win is a mark for the winner; a drawn game gives neither player a mark"
    else:
        # Of how many the players agreed to play; an open-ended match has no such number.
        played = f"{len(match.counted)} of {match.games} played" if match.games else f"{len(match.counted)} played"
        scoring = (
            "Wins, draws and losses: a win is 1 point, a draw 1/2 (1923 Standard Laws)"
            if match.count_draws
            else "Wins: a win is a mark; a drawn game gives neither player a mark"
        )
    pdf.field(MARGIN, y, w * 0.25, "Games", played)
    pdf.field(MARGIN + w * 0.25, y, w * 0.75, "Scoring", scoring)
    y += 13
    names = (match.first, match.second) if match is not None else ("Player 1", "Player 2")
    cols = [
        ("Game", 13.0),
        ("Black", 0.0),
        ("White", 0.0),
        ("Result", 18.0),
        ("Winner", 0.0),
        (names[0], 17.0),
        (names[1], 17.0),
        ("Score", 20.0),
    ]
    fixed = sum(c for _, c in cols)
    flex = (w - fixed) / 3
    cols = [(label, c or flex) for label, c in cols]
    row = 7.0

    def header(y: float) -> float:
        pdf.set_fill_color(225, 225, 225)
        x = MARGIN
        for label, cw in cols:
            pdf.set_line_width(0.25)
            pdf.rect(x, y, cw, row, style="DF")
            pdf.put(x, y, cw, row, label, 8, "B", align="C")
            x += cw
        return y + row

    def cells_row(y: float, cells: Sequence[str]) -> None:
        x = MARGIN
        for (label, cw), text in zip(cols, cells):
            pdf.rect(x, y, cw, row)
            pdf.put(
                x,
                y,
                cw,
                row,
                text,
                9.5,
                "B" if label in names else "",
                align="L" if label in ("Black", "White", "Winner") else "C",
            )
            x += cw

    y = header(y)
    rows: list[list[str]] = []
    if match is None:
        rows = [[str(n)] + [""] * 7 for n in range(1, blank_games + 1)]
    else:
        a = b = 0  # running score in halves (draws count) or wins
        for game in match.played:
            mark_a = mark_b = ""
            if game.finished:
                if game.drawn:
                    if match.count_draws:
                        a, b, mark_a, mark_b = a + 1, b + 1, "½", "½"
                    else:
                        mark_a = mark_b = "-"
                elif game.winner == names[0]:
                    a += 2 if match.count_draws else 1
                    mark_a, mark_b = "1", ("0" if match.count_draws else "")
                else:
                    b += 2 if match.count_draws else 1
                    mark_a, mark_b = ("0" if match.count_draws else ""), "1"
            score = f"{_pts(a, match)} - {_pts(b, match)}" if game.finished else "not counted"
            winner = game.winner or ("Drawn" if game.drawn else "Unfinished")
            rows.append(
                [
                    f"{game.number}" + ("" if game.finished else "*"),
                    game.black,
                    game.white,
                    game.result,
                    winner,
                    mark_a,
                    mark_b,
                    score,
                ]
            )
    for cells in rows:
        if y + row > pdf.bottom:
            pdf.add_page()
            y = header(MARGIN)
        cells_row(y, cells)
        y += row
    # Totals.
    x = MARGIN
    pdf.set_fill_color(235, 235, 235)
    total_w = sum(cw for _, cw in cols[:5])
    pdf.rect(x, y, total_w, row, style="DF")
    pdf.put(x, y, total_w, row, "Total", 9.5, "B", align="R")
    x += total_w
    for i, (_, cw) in enumerate(cols[5:7]):
        pdf.rect(x, y, cw, row, style="DF")
        if match is not None:
            pdf.put(x, y, cw, row, match.marks(match.standings[i]), 10, "B", align="C")
        x += cw
    pdf.rect(x, y, cols[7][1], row, style="DF")
    y += row + 6
    if y + 60 > pdf.bottom:
        pdf.add_page()
        y = MARGIN
    if match is None:
        pdf.put(MARGIN, y, w, 8, "Winner of the match:", 12, "B")
        pdf.set_line_width(0.2)
        pdf.line(MARGIN + 50, y + 6.5, MARGIN + w * 0.7, y + 6.5)
        y += 10
        pdf.put(
            MARGIN,
            y,
            w,
            5,
            "Swap colours after each game. Count the marks at the end: most wins takes the match.",
            8.5,
            color=GREY,
        )
        y += 5
        signatures = ["Player 1's signature", "Player 2's signature", "Referee"]
    else:
        sa, sb = match.standings
        pdf.put(MARGIN, y, w, 8, f"Match score: {match.score_text()}", 14, "B")
        y += 8
        pdf.put(MARGIN, y, w, 7, match.verdict(), 11)
        y += 8
        for standing in (sa, sb):
            pdf.put(
                MARGIN,
                y,
                w,
                5,
                f"{standing.name}: {_count(standing.wins, 'win')}, {_count(standing.draws, 'draw')}, "
                f"{_count(standing.losses, 'loss')} ({standing.points} "
                f"{'point' if standing.halves == 2 else 'points'} with a draw worth 1/2)",
                9,
                color=GREY,
            )
            y += 5
        if any(not g.finished for g in match.played):
            pdf.put(
                MARGIN,
                y,
                w,
                5,
                "* an unfinished game: not counted, and played again with the same colours.",
                8,
                color=GREY,
            )
            y += 5
        signatures = [f"{match.first}'s signature", f"{match.second}'s signature", "Referee"]
    y += 4
    for label in signatures:
        y += 9
        pdf.set_line_width(0.2)
        pdf.line(MARGIN + 45, y, MARGIN + w * 0.7, y)
        pdf.put(MARGIN, y - 4.5, 45, 4.5, label, 8, color=GREY)
    return bytes(pdf.output())


def _pts(value: int, match: Match) -> str:
    return points_text(value) if match.count_draws else str(value)


def _count(n: int, word: str) -> str:
    plural = word + ("es" if word.endswith("s") else "s")
    return f"{n} {word if n == 1 else plural}"
