"""One frozen snapshot of the game per step: what every output draws from.

The board senses only occupancy; what stands where comes from the game the application
follows. :class:`Snapshot` puts the two together once per step: the pieces standing on
the board as the game knows them (colour and king), the squares whose piece the game
does not know (a piece on its way, an extra piece), the side to move, the last move (and
every move, with the rules they were played under), the lights' roles, the board's conditions as typed values with their squares, the clock
(running or paused), the standing draw offer, the seats, the result, the roles the
LEDs light and what else the board shows (:class:`Shown`: its message, the hint, the
machine thinking, the mode, the page's addresses, the simulated board's pieces and
hand), and a revision number that changes whenever anything but a running clock's time
does. The terminal,
the page's view, the display and the records read this, never the tracker nor the
application, so a screen cannot show a man where the game has a king, nor show one
step's game with another step's lights.

>>> from crownhead.rules import Position
>>> start = Position.from_fen("B:WK32:BK1,5")
>>> shown = standing(start, start.occupied | 1 << 8)   # a piece nobody knows on 9
>>> sorted((s, p.symbol) for s, p in shown[0].items()), sorted(shown[1])
([(1, 'B'), (5, 'b'), (32, 'W')], [9])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crownhead.firmware.events import ClockState
from crownhead.rules import Color, Move, Piece, Position, Rules
from crownhead.rules.game import Result
from crownhead.rules.match import Match
from crownhead.squares import iter_squares

if TYPE_CHECKING:  # the analysis brings the engine: a snapshot only holds its result
    from crownhead.firmware.app.analysis import Analysis

__all__ = [
    "Away",
    "Condition",
    "Offer",
    "Seat",
    "Setup",
    "Sheet",
    "Shown",
    "Snapshot",
    "match_link_state",
    "standing",
    "shown_tokens",
]


@dataclass(frozen=True, slots=True)
class Condition:
    """Something on the board a person must put right, as a value: ``code`` (one of
    :data:`~crownhead.firmware.events.WARNING_CODES`), the squares it is about, the squares to put a
    piece back on and to take one off (from the lights' roles, never from the wording),
    and the sentence the board says."""

    code: str
    squares: tuple[int, ...]
    message: str
    put_back: tuple[int, ...] = ()
    take_off: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Offer:
    """A standing draw offer: by ``side`` (None: the shared button, nobody known) at ``ply``."""

    side: Color | None
    ply: int


@dataclass(frozen=True, slots=True)
class Seat:
    """A side's player: name, cautions (referee mode), who makes its moves elsewhere ("" if
    made at the board)."""

    name: str
    cautions: int = 0
    held_by: str = ""


@dataclass(frozen=True, slots=True)
class Setup:
    """A position being set up: ``cause`` is ``new-game``, ``resume`` or ``restore``;
    ``rank`` the rank the lights show now (1-8: :mod:`crownhead.firmware.app.guidance`), or None
    when every square is lit at once."""

    cause: str
    position: Position
    rank: int | None = None


@dataclass(frozen=True, slots=True)
class Away:
    """What a game far apart waits for (docs/remote.md): ``who`` is out of reach (the
    broker, the other board), with ``grace_s`` whole seconds of its grace period left (0:
    past it); ``clock`` is what the clock does meanwhile, as the invitation chose:
    ``stop`` (nobody's time runs) or ``run`` (the absent side's time runs, and it may
    lose on time). Set on the application by whoever watches the line (its ``away``)."""

    who: str
    grace_s: int
    clock: str = "stop"


@dataclass(frozen=True, slots=True)
class Sheet:
    """The game on the board as its score sheet has it, as values: what a record of it
    (the hall's retained state, its PDN) is written from without the game itself.

    ``start`` and ``moves`` from the game's start, ``positions`` the position before each
    move and after the last (a huff changes one: they are not replayed), ``condoned`` the
    plies of the illegal moves that stood, ``result`` the game's (declared, or no moves
    left), ``black``/``white`` the names it is played under (the referee's in referee
    mode), ``event``/``round`` as the referee tags it (None: none given; the round of
    ``ROUND.K``) and ``game_id`` the game's id on this board. Unlike :attr:`Snapshot.moves`
    it is the game's all through a new game's set-up (the game put away, until the new
    one begins). It reads as the game does for :func:`~crownhead.rules.pdn.write_game`.

    >>> from crownhead.rules import Position, WCDF
    >>> start = Position.start()
    >>> sheet = Sheet(start, (Move((11, 15)),), (start, start.play(Move((11, 15)), WCDF)), frozenset(), WCDF, None)
    >>> sheet.ply, sheet.position.turn.name
    (1, 'WHITE')
    """

    start: Position
    moves: tuple[Move, ...]
    positions: tuple[Position, ...]
    condoned: frozenset[int]
    rules: Rules
    result: Result | None
    black: str = "Black"
    white: str = "White"
    event: str | None = None
    round: str | None = None
    game_id: str | None = None

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def ply(self) -> int:
        return len(self.moves)


@dataclass(frozen=True, slots=True)
class Shown:
    """What the board shows besides the game, as the step left it: everything an output
    (a screen, a page, the display) draws that is not the game itself, so that it needs
    no application to ask. ``frame`` is the LEDs' colours as lit; ``blinking`` the squares
    that blink; ``message`` the board's message line; ``hint`` the engine's hint shown;
    ``thinking`` ``machine`` (the computer chooses its move), ``hint`` (the hint's search)
    or ""; ``mode`` the mode's title; ``machine`` the colour the computer plays ("" for
    none); ``hints_shown``/``hints_on`` the hint lights; ``referee_lights``, ``takeback``,
    ``referee_mode`` what the mode allows; ``match`` the match's line; ``display`` the
    simulated display's lines; ``page_urls``/``page_pin`` the board's page; ``first_number``
    the number of the game's first move and ``white_began`` whether White made it;
    ``verdict`` a problem's verdict ("" for none); ``tokens`` and ``hand`` the simulated
    board's pieces and hand (None and () on a real board); ``brightness`` in percent.
    ``match_state`` is the match being played (a value: ``rules.match.Match``), or None.
    ``frame`` and ``brightness`` alone changing make no new revision (see :meth:`Snapshot.same_as`)."""

    frame: Mapping[Any, tuple[int, int, int]] = field(default_factory=dict)
    blinking: frozenset[int] = frozenset()
    message: str = ""
    hint: Move | None = None
    thinking: str = ""
    mode: str = ""
    machine: str = ""
    hints_shown: bool = False
    hints_on: bool = False
    referee_lights: bool = False
    takeback: bool = True
    referee_mode: bool = False
    match: str = ""
    display: tuple[str, ...] = ()
    page_urls: tuple[str, ...] = ()
    page_pin: str = ""
    first_number: int = 1
    white_began: bool = False
    verdict: str = ""
    tokens: Mapping[int, str] | None = None
    hand: tuple[str, ...] = ()
    brightness: int = 100
    match_state: Match | None = None


@dataclass(frozen=True)
class Snapshot:
    """The game as one step left it (see the module)."""

    position: Position
    board: int
    pieces: Mapping[int, Piece]
    strays: frozenset[int]
    ply: int
    last_move: Move | None
    roles: Mapping[int, str]
    conditions: tuple[Condition, ...]
    clock: ClockState | None
    offer: Offer | None
    result: Result | None
    setup: Setup | None
    expected: Move | None
    #: The rules of the game (what its moves are checked and applied by).
    rules: Rules
    #: The game's moves from its start, first played first (:attr:`ply` of them): the
    #: last few are what a voice says when asked, the one taken back what it names.
    moves: tuple[Move, ...]
    seats: Mapping[Color, Seat] = field(default_factory=dict)
    resign_asked: Color | None = None
    resuming: bool = False
    #: The man just crowned that still stands uncrowned on the board (the crowning
    #: prompt), or None: none once a king stands there or the game is over.
    crown: int | None = None
    #: The piece touched this turn that must be played (touch-move, when the mode holds
    #: to it), once it stands back on its square, or None.
    touched: int | None = None
    #: The moves taken back whose pieces the board still shows (first played first), from
    #: :attr:`position`: what to put back, while the board does not show the game.
    undone: tuple[Move, ...] = ()
    #: The engine's live analysis of :attr:`position` so far, when it is on (see
    #: :mod:`crownhead.firmware.app.analysis`), or None.
    analysis: Analysis | None = None
    #: A game far apart waiting for the broker or the other board, or None.
    away: Away | None = None
    #: The roles the LEDs light in this step (:attr:`roles` after the LED policy: a hint
    #: hidden, a blinking square in its dark phase left out), the step's frame shown.
    lit: Mapping[int, str] = field(default_factory=dict)
    #: What the board shows besides the game (see :class:`Shown`).
    shown: Shown = field(default_factory=Shown)
    #: The game as its score sheet has it (see :class:`Sheet`), or None (a snapshot
    #: made by hand without one).
    sheet: Sheet | None = None
    revision: int = 0

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def condition(self) -> Condition | None:
        """The most urgent condition, or None."""
        return self.conditions[0] if self.conditions else None

    def same_as(self, other: Snapshot | None) -> bool:
        """Whether ``other`` shows the same game: all but the revision and a running
        clock's milliseconds (which change every step without anything happening)."""
        if other is None:
            return False
        return _key(self) == _key(other)

    def then(self, previous: Snapshot | None) -> Snapshot:
        """This snapshot numbered after ``previous``: the same revision if nothing changed.

        Numbered in place (it is new: nobody holds it yet), since a step makes one."""
        if previous is None:
            revision = 1
        else:
            revision = previous.revision if self.same_as(previous) else previous.revision + 1
        object.__setattr__(self, "revision", revision)
        return self


def _key(snapshot: Snapshot) -> tuple[Any, ...]:
    clock = snapshot.clock
    times = None if clock is None else (clock.side, clock.paused, clock.flag)
    if clock is not None and clock.paused:
        times = (*times, clock.black_ms, clock.white_ms)  # type: ignore[misc]
    return (
        snapshot.position,
        snapshot.board,
        snapshot.strays,
        snapshot.ply,
        snapshot.last_move,
        dict(snapshot.roles),
        snapshot.conditions,
        times,
        snapshot.offer,
        snapshot.result,
        snapshot.setup,
        snapshot.expected,
        snapshot.rules,
        snapshot.moves,
        dict(snapshot.seats),
        snapshot.resign_asked,
        snapshot.resuming,
        snapshot.crown,
        snapshot.touched,
        snapshot.undone,
        snapshot.analysis,
        snapshot.away,
        dict(snapshot.lit),
        snapshot.sheet,
        # The LEDs' colours and brightness are how, not what, the board shows: a blink
        # or a new brightness alone is no new snapshot (the step hands it over all the
        # same: firmware.app.outputs.SteppedOutput).
        replace(snapshot.shown, frame={}, brightness=0),
    )


@lru_cache(maxsize=64)
def standing(target: Position, board: int) -> tuple[Mapping[int, Piece], frozenset[int]]:
    """The pieces on the occupied squares of ``board`` as ``target`` (the game's position,
    or the one being set up) has them, and the occupied squares ``target`` has no piece on
    (kept for the board's last few: most steps nothing changed)."""
    pieces: dict[int, Piece] = {}
    strays: set[int] = set()
    for square in iter_squares(board):
        piece = target.piece_at(square)
        if piece is None:
            strays.add(square)
        else:
            pieces[square] = piece
    return MappingProxyType(pieces), frozenset(strays)


def match_link_state(match: Match | None) -> dict[str, Any] | None:
    """The match as the host link's and the hall's state give it: each name once
    (``players``), the others as an index into it, so that the state fits one line.

    >>> match_link_state(Match.new("Ana", "Ben", games=2))["next"]
    {'number': 1, 'black': 0}
    """
    if match is None:
        return None
    players = [match.first, match.second]
    a, b = match.standings
    black = match.colours()[0]
    winner = match.winner
    return {
        "id": match.id,
        "players": players,
        "games": match.games,
        "played": len(match.counted),
        "marks": [match.marks(a), match.marks(b)],
        "count_draws": match.count_draws,
        "over": match.over,
        "winner": players.index(winner) if winner is not None else None,
        "next": None if match.over else {"number": match.number, "black": players.index(black)},
    }


def shown_tokens(snapshot: Snapshot, tokens: Mapping[int, str] | None = None) -> dict[int, str]:
    """What a screen draws on each occupied square: the game's piece (``b``, ``w``, ``B``,
    ``W``), and for a square whose piece the game does not know, the simulated board's token
    (``tokens``) or ``?``."""
    shown = {square: piece.symbol for square, piece in snapshot.pieces.items()}
    for square in snapshot.strays:
        shown[square] = (tokens or {}).get(square, "?")
    if snapshot.crown is not None and snapshot.crown in shown:
        shown[snapshot.crown] = shown[snapshot.crown].lower()  # a man until it is crowned
    return dict(sorted(shown.items()))
