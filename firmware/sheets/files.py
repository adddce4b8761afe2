"""From PDN text to the PDF of its sheets, and the problems to tell the person.

>>> from crownhead.rules import WCDF
>>> pdf, problems = sheets_from_pdn('[Black "Ana"][White "Ben"] 1. 11-15 23-18 2. 16-20 *', "x.pdn", rules=WCDF)
>>> pdf[:5], problems
(b'%PDF-', ['x.pdn:1: game 1, ply 3, 16-20: no piece on 16 (the sheet shows the 2 moves read before it)'])
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

from crownhead.firmware.files import atomic_write
from crownhead.firmware.sheets.model import SheetGame, match_of
from crownhead.rules import Rules
from crownhead.rules.pdn import decode, read_games

__all__ = ["SheetError", "sheets_from_pdn", "read_pdn_file", "write_pdf_file", "MAX_PDN_BYTES", "MAX_SHEETS"]

#: Largest PDN file read (a sheet is for people: the biggest real collections are a few MB).
MAX_PDN_BYTES = 64 * 1024 * 1024
#: Games printed in one PDF at most (a sheet is one to a few pages a game).
MAX_SHEETS = 2_000


class SheetError(ValueError):
    """A request the file cannot answer (no games, no game N); the message says which."""


def sheets_from_pdn(
    text: str | IO[bytes],
    source: str,
    *,
    game: int | None = None,
    match: bool = False,
    count_draws: bool = False,
    paper: str = "letter",
    rules: Rules,
) -> tuple[bytes, list[str]]:
    """The PDF for the games of ``text`` (a PDN text, or a binary stream read a part at a
    time: all games, or game number ``game``; with ``match``, the match sheet of the games
    between the players of the first game, or of game ``game``), and one message for
    each game that did not replay. More than :data:`MAX_SHEETS` games to print is one
    :class:`SheetError`: no one prints thousands of pages by accident."""
    # fpdf2 (and the NumPy and fontTools it loads) only when a sheet is drawn: every
    # crownhead command imports this module, the board's `run` included.
    from crownhead.firmware.sheets.pdf import game_sheets, match_sheet

    games, count = _sheet_games(text, source, game, match, rules)
    if not count:
        raise SheetError(f"{source}: no games in the file")
    if game is not None and not 1 <= game <= count:
        raise SheetError(f"{source}: there is no game {game} (the file has {count})")
    if match:
        focus = game - 1 if game is not None else 0
        try:
            played, chosen = match_of(games, focus=focus, count_draws=count_draws)
        except ValueError as exc:
            raise SheetError(f"{source}: {exc}") from None
        pdf = match_sheet(played, chosen, paper)
        shown = chosen
    else:
        shown = games
        pdf = game_sheets(shown, paper)
    problems = [
        f"{g.error} (the sheet shows the {len(g.moves)} {'move' if len(g.moves) == 1 else 'moves'} read before it)"
        for g in shown
        if g.error is not None
    ]
    return pdf, problems


def _sheet_games(
    text: str | IO[bytes], source: str, game: int | None, match: bool, rules: Rules
) -> tuple[list[SheetGame], int]:
    """The games a sheet needs, and how many the file has: game ``game`` alone, else (and
    for a match, whose games are anywhere in the file) every game, at most :data:`MAX_SHEETS`."""
    kept: list[SheetGame] = []
    count = 0
    for pdn in read_games(text, source, rules=rules):
        count += 1
        if game is not None and not match and count != game:
            continue  # counted only: the file's size decides no memory
        if len(kept) >= MAX_SHEETS:
            raise SheetError(
                f"{source}: more than {MAX_SHEETS:,} games to print (a sheet each); give --game N, or split the file"
            )
        kept.append(SheetGame.from_pdn(pdn))
    return kept, count


def read_pdn_file(name: str) -> str:
    """The text of a PDN file (UTF-8, else the older files' Windows-1252); SheetError in one line."""
    if os.path.isdir(name):
        raise SheetError(f"cannot read {name}: it is a directory")
    try:
        # A regular file only: a FIFO or /dev/zero would hang or never end.
        with open(name, "rb", opener=_nonblocking) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) and name != os.devnull:
                raise SheetError(f"cannot read {name}: it is not a regular file")
            data = handle.read(MAX_PDN_BYTES + 1)
    except OSError as exc:
        raise SheetError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_PDN_BYTES:
        raise SheetError(f"{name} is larger than {MAX_PDN_BYTES // (1024 * 1024)} MB; split it")
    return decode(data)


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def write_pdf_file(output: str, data: bytes) -> None:
    """Write ``data`` to ``output`` atomically (temporary file, fsync, rename): a PDF
    reader never sees half a file. SheetError in one line when it cannot be written."""
    path = Path(output)
    if path.is_dir():
        raise SheetError(f"{path} is a directory; give a file name")
    try:
        # A sheet is as readable as any file the user writes.
        atomic_write(path, data, private=False)
    except OSError as exc:
        raise SheetError(f"cannot write {path}: {exc.strerror or exc}") from None
