"""What a screen shows of the board: one :class:`BoardView` of plain values.

The terminal simulator draws it (:func:`crownhead.firmware.simulator.tui.render`), the host link
sends its status and prompt in its ``state``, the hall shows its status. The prompts
say what the board waits for, in words for the person at it ("(f does it)" is the
terminal's key that does it for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from crownhead.firmware.app.players import called
from crownhead.firmware.app.guidance import rank_squares
from crownhead.firmware.app.setup import setup_text, takeback_text
from crownhead.firmware.app.snapshot import Away, Seat, Snapshot, shown_tokens
from crownhead.firmware.events import ClockState
from crownhead.firmware.gameclock import clock_text
from crownhead.hal.lights import FrameKey
from crownhead.rules import BLACK, WHITE, Color, Position
from crownhead.rules.game import reason_words

__all__ = ["BoardView", "MessageLine", "away_text", "board_view"]


@dataclass(frozen=True)
class BoardView:
    """Everything the terminal simulator shows, as plain values (see :func:`crownhead.firmware.simulator.tui.render`)."""

    pieces: Mapping[int, str]
    lit: Mapping[FrameKey, tuple[int, int, int]]
    blinking: frozenset[int]
    status: str
    mode_text: str
    black: str
    white: str
    moves: tuple[str, ...]
    first_mover_white: bool = False
    #: The number of the game's first move: 1, or the move of a kept game it was tried
    #: again from (a game from move 6 numbers its moves from 6, as the review did).
    first_number: int = 1
    warning: str = ""
    prompt: str = ""
    hand: tuple[str, ...] = ()
    message: str = ""
    #: The match under way and its score, one line (empty without a match).
    match: str = ""
    #: What the simulated display beside the board shows, line by line ("" without one).
    display: tuple[str, ...] = ()
    #: Where a browser reaches the board's web page, and the PIN its commands need (a PIN
    #: made by the board; words for one set in the configuration; "" for none needed).
    page_urls: tuple[str, ...] = ()
    page_pin: str = ""
    #: The board's buttons that do nothing in this game (no hint or takeback under a
    #: referee, no force without huffing): the terminal's key line leaves them out.
    unused: frozenset[str] = frozenset()
    #: What a game far apart waits for, with the grace period's time left ("" for nothing).
    away: str = ""


class MessageLine:
    """What the board says on the terminal's message line and every page.

    A message is about the moment it was said: when the game moves on (a move, a
    takeback), ends or a new one is set up, :meth:`forget` drops it, unless it was said
    in that same step (the step's own news: "the resignation is taken back"). One said
    ``until`` a time goes by itself then (a resign prompt), so the loop steps at that
    time.

    >>> line = MessageLine()
    >>> line.step(0); line.say("Black: press resign again within 3 s", until=3000); line.forget()
    >>> line.text
    'Black: press resign again within 3 s'
    >>> line.step(3000); line.text
    ''
    """

    def __init__(self) -> None:
        self.text = ""
        #: When :attr:`text` goes by itself (the board's ms), or None.
        self.until: int | None = None
        self._said_now = False  # said in the step under way

    def step(self, now: int) -> None:
        """A step of the application begins at ``now``."""
        self._said_now = False
        if self.until is not None and now >= self.until:
            self.text, self.until = "", None

    def say(self, text: str, *, until: int | None = None) -> None:
        self.text, self.until, self._said_now = text, until, True

    def forget(self) -> None:
        """The game has moved on: what was said before this step is old news."""
        if not self._said_now:
            self.text, self.until = "", None


def side_text(seat: Seat, clock: ClockState | None, color: Color) -> str:
    """``Ann  1:29:55  1 caution``: a player as the simulator's screen shows them, with
    their time in a timed game (every mode's: the page is not the only place a clock
    shows) and their cautions under a referee (none in another mode).

    >>> side_text(Seat("Ann", 1), ClockState(5_395_000, 5_400_000, None, False, None), BLACK)
    'Ann  1:29:55  1 caution'
    >>> side_text(Seat("Ann"), None, BLACK)
    'Ann'
    """
    parts = [seat.name]
    if clock is not None:
        parts.append(clock_text(clock.black_ms if color is BLACK else clock.white_ms))
    if seat.cautions:
        parts.append(f"{seat.cautions} caution{'s' if seat.cautions > 1 else ''}")
    return "  ".join(parts)


def away_text(away: Away | None, far: str = "") -> str:
    """What a game far apart waits for, in words (``far``: the side played far away).

    >>> away_text(Away("the other board (home-b)", 272, "stop"))
    'the other board (home-b) is out of reach: the game waits, the clock stopped; 4:32 of the grace period left'
    >>> away_text(Away("the other board (home-b)", 0, "run"), "White")
    'the other board (home-b) is out of reach past the grace period: the clock runs, and White loses on time here if its time runs out'
    """
    if away is None:
        return ""
    if away.grace_s > 0:
        waits = "the clock stopped" if away.clock == "stop" else "the clock runs"
        left = f"{away.grace_s // 60}:{away.grace_s % 60:02d}"
        return f"{away.who} is out of reach: the game waits, {waits}; {left} of the grace period left"
    if away.clock == "run" and far and away.who != "the broker":
        return (
            f"{away.who} is out of reach past the grace period: the clock runs, and {far} loses on time here"
            " if its time runs out"
        )
    waits = "the clock stopped" if away.clock == "stop" else "the clock runs"
    return f"{away.who} is out of reach past the grace period: the game is kept ({waits}) until it is back"


def board_view(snap: Snapshot) -> BoardView:
    """What the terminal simulator shows of ``snap``, in words: a pure function of the
    snapshot (what the board shows besides the game is its :attr:`~Snapshot.shown`).

    >>> from crownhead.rules import Position, WCDF
    >>> from crownhead.firmware.app.snapshot import Shown, standing
    >>> start = Position.start()
    >>> pieces, strays = standing(start, start.occupied)
    >>> snap = Snapshot(start, start.occupied, pieces, strays, 0, None, {}, (), None, None, None, None, None,
    ...                 WCDF, (), {BLACK: Seat("Ann"), WHITE: Seat("Bo")}, shown=Shown(mode="Two players"))
    >>> view = board_view(snap)
    >>> view.status, view.black, view.mode_text
    ('Black to move, move 1', 'Ann', 'Two players, hints off')
    """
    shown = snap.shown
    pieces: Mapping[int, str] = shown_tokens(snap, shown.tokens)
    result = snap.result
    setup = snap.setup
    turn = snap.turn.name.title()
    first = shown.first_number
    # The move under way, counted from the game's first move's number.
    number = first + (snap.ply + (1 if shown.white_began else 0)) // 2
    if snap.resuming:
        status = f"Resuming a game: {turn} to move, move {number}"
    elif setup is not None and setup.cause == "new-game":
        status = "New game: set up the pieces"
    elif result is not None and shown.verdict:
        # A problem's game: the verdict stays in sight, the result beside it.
        status = f"{shown.verdict} ({_winner_words(result.score)})"
    elif result is not None:
        status = f"Game over: {_result_words(result.score, result.reason, snap.position)}"
    else:
        status = f"{turn} to move, move {number}"
        if shown.hint is not None:
            status += f"; hint: {shown.hint.pdn()}"
    condition = snap.condition
    warning_text = ""
    if condition is not None:
        warning_text = condition.message[:1].upper() + condition.message[1:]
    hints = "hints on" if shown.hints_shown else "hints off"
    mode = f"Computer plays {shown.machine}" if shown.machine else shown.mode
    return BoardView(
        pieces=pieces,
        lit=dict(shown.frame),
        blinking=shown.blinking,
        status=status,
        mode_text=f"{mode}, {hints}",
        black=side_text(snap.seats[BLACK], snap.clock, BLACK),
        white=side_text(snap.seats[WHITE], snap.clock, WHITE),
        moves=tuple(m.pdn() for m in snap.moves),
        first_mover_white=shown.white_began,
        first_number=first,
        warning=warning_text,
        prompt=_prompt(snap),
        hand=shown.hand,
        message=shown.message,
        match=shown.match,
        display=shown.display,
        page_urls=shown.page_urls,
        page_pin=shown.page_pin,
        away=away_text(snap.away, _far_side(snap)),
        unused=frozenset(
            name
            for name, useful in (
                ("hint", not shown.referee_lights),
                ("takeback", shown.takeback),
                ("force", snap.rules.huffing),
                ("clock", snap.clock is not None),
            )
            if not useful
        ),
    )


def _prompt(snap: Snapshot) -> str:
    """What the board waits for, in words for the person at it ("" for nothing)."""
    setup = snap.setup
    turn = snap.turn.name.title()
    # The rank the lights show, when a set-up is lit a rank at a time.
    rank = ""
    if setup is not None and setup.rank is not None:
        squares = rank_squares(setup.rank)
        rank = f" rank {setup.rank} ({squares[0]}-{squares[-1]}) now:"
    if snap.resuming and setup is not None:
        return (
            f"Set up {setup_text(setup.position)}:{rank} where the lights ask (f does it), or n for a new game instead."
        )
    if setup is not None and setup.cause == "new-game":
        return (
            f"Set up {setup_text(setup.position)}:{rank} put pieces on the blue squares and take"
            " them off the orange ones (f does it)."
        )
    if snap.undone and (what := takeback_text(snap.position, snap.undone, snap.rules, snap.board)):
        taken = " ".join(m.pdn() for m in snap.undone)
        return f"Take back {taken}: {what} (f does it)."
    if setup is not None and setup.cause == "restore":
        return f"Put the board back to: {setup_text(setup.position)} (f does it)."
    if snap.crown is not None:
        return f"Crown the man on {snap.crown}: put a king on it (f does it)."
    if snap.expected is not None:
        who = called(snap.seats[snap.turn].name, turn)
        return f"{who} plays {snap.expected.pdn()}: make it on the board (f does it)."
    if snap.touched is not None:
        piece = snap.pieces.get(snap.touched)
        name = "king" if piece is not None and piece.king else "man"
        return (
            f"Touch-move: the {name} on {snap.touched} was touched, so it must be played;"
            " a move with another piece is an illegal move."
        )
    if snap.shown.thinking == "machine":
        return f"{called(snap.seats[snap.turn].name, turn)} is thinking..."
    if snap.shown.thinking == "hint":
        return "Looking for a hint..."
    if snap.seats[snap.turn].held_by and snap.result is None:
        return f"{turn}'s moves come from {snap.seats[snap.turn].held_by}: wait until the board shows one."
    return ""


def _far_side(snap: Snapshot) -> str:
    """The side whose moves come from the board far away ("" if none)."""
    for color, seat in snap.seats.items():
        if seat.held_by:
            return color.name.title()
    return ""


def _winner_words(score: str) -> str:
    return {"1-0": "Black wins", "0-1": "White wins"}.get(score, "a draw")


def _result_words(score: str, reason: str, final: Position) -> str:
    why = reason_words(score, reason, final)
    if score == "1-0":
        return f"Black wins ({why})"
    if score == "0-1":
        return f"White wins ({why})"
    return f"draw ({why})"
