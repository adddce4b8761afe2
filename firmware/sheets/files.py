"""From PDN text to the PDF of its sheets, and the problems to tell the person.

>>> pdf, problems = sheets_from_pdn('[Black "Ana"][White "Ben"] 1. 11-15 23-18 2. 16-20 *', "x.pdn")
>>> pdf[:5], problems
(b'%PDF-', ['x.pdn:1: game 1, ply 3, 16-20: no piece on 16 (the sheet shows the 2 moves read before it)'])
"""

from __future__ import annotations

from firmware.sheets.model import SheetGame, match_of
from firmware.sheets.pdf import game_sheets, match_sheet
from rules import WCDF, Rules
from rules.pdn import read_games

__all__ = ["SheetError", "sheets_from_pdn"]


class SheetError(ValueError):
    """A request the file cannot answer (no games, no game N); the message says which."""


def sheets_from_pdn(
    text: str,
    source: str,
    *,
    game: int | None = None,
    match: bool = False,
    count_draws: bool = False,
    paper: str = "letter",
    rules: Rules = WCDF,
) -> tuple[bytes, list[str]]:
    """The PDF for the games of ``text`` (all, or game number ``game``; with ``match``,
    the match sheet of the games between the players of the first game, or of game
    ``game``), and one message for each game that did not replay."""
    games = [SheetGame.from_pdn(g) for g in read_games(text, source, rules=rules)]
    if not games:
        raise SheetError(f"{source}: no games in the file")
    if game is not None and not 1 <= game <= len(games):
        raise SheetError(f"{source}: there is no game {game} (the file has {len(games)})")
    if match:
        focus = game - 1 if game is not None else 0
        try:
            played, chosen = match_of(games, focus=focus, count_draws=count_draws)
        except ValueError as exc:
            raise SheetError(f"{source}: {exc}") from None
        pdf = match_sheet(played, chosen, paper)
        shown = chosen
    else:
        shown = [games[game - 1]] if game is not None else games
        pdf = game_sheets(shown, paper)
    problems = [
        f"{g.error} (the sheet shows the {len(g.moves)} {'move' if len(g.moves) == 1 else 'moves'} read before it)"
        for g in shown
        if g.error is not None
    ]
    return pdf, problems
