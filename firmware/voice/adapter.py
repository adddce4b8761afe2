"""The one module of the voice that reads the application: events and the game, as utterances.

:class:`Narrator` hears every event (the tracker's, the referee's, the clock's, the
application's) and says what it means as :class:`~crownhead.firmware.voice.utterance.Utterance`
values. The game it speaks of is the one it is shown (:meth:`Narrator.see`): the
board's snapshot after each step that changed it, or in a replay the game as the
replayed board left it (:class:`Seen`). It keeps no game of its own: a move it hears is
said from the event, a position, the last moves or the move taken back are read from
what it was shown. It answers the requests too (the last move, the last few, the
position, a square, whose turn and the clocks). :class:`BoardVoice` joins it to a
running board (:class:`VoicedBoard`, which the application is): an output hearing the
events and the snapshot, polled for the clock's last minute and the speaker's
troubles, and the ``speak`` button (short: the last move, whose turn and the clocks;
twice: the last five moves; long: the position).

The catalogue, the queue and the speaker know nothing of events: when the events
change shape, only this module does.

>>> from crownhead.firmware.events import MoveMade
>>> from crownhead.rules import WCDF, Game
>>> game = Game(Position.start(WCDF), WCDF)
>>> narrator = Narrator(Seen.of(game))
>>> _ = game.play_text("11-15")
>>> narrator.see(Seen.of(game))
>>> [u.key for u in narrator.hear(MoveMade(0, 1, "black", "11-15", (11, 15), ()))]
['move']
>>> narrator.square(15).mapping["piece"]
'black-man'
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from crownhead.firmware.events import (
    Alert,
    BallotDrawn,
    BoardWarning,
    Caution,
    Claim,
    ClockReport,
    ComputerMove,
    Condoned,
    Crowned,
    DrawClaimable,
    DrawDeclined,
    DrawLapsed,
    DrawOffer,
    Event,
    Flag,
    ForcedJump,
    Forfeit,
    GameOver,
    GameStarted,
    HuffTakenBack,
    Huffed,
    Lights,
    MissedJump,
    MoveMade,
    NewGame,
    Notice,
    Reopened,
    ResignAsked,
    SetUp,
    SetUpRank,
    Spoken,
    Side,
    TakebackAsked,
    TakenBack,
)
from crownhead.firmware.app.snapshot import Shown, Snapshot
from crownhead.firmware.events import ClockState
from crownhead.firmware.voice.catalogue import Sentence
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.firmware.voice.utterance import Utterance
from crownhead.hal.buttons import ButtonEvent
from crownhead.rules import Color, Game, Move, Position, Rules

if TYPE_CHECKING:
    from crownhead.firmware.app.outputs import Output
    from crownhead.firmware.voice.speaker import Speaker

__all__ = [
    "Narrator",
    "BoardVoice",
    "GameShown",
    "Seen",
    "VoicedBoard",
    "SPEAK_BUTTON",
    "REPEAT_MS",
    "LAST_MOVES",
    "spoken_replay",
]

log = logging.getLogger(__name__)

U = Utterance.of

#: The button asking the board to speak (short, twice, long: see the module docstring).
SPEAK_BUTTON = "speak"
#: A second short press within this long asks for the last moves.
REPEAT_MS = 2000
#: How many moves "the last moves" says.
LAST_MOVES = 5

_SIDES = ("black", "white")


def _side(color: Color) -> str:
    return "black" if color is Color.BLACK else "white"


def _move_utterance(kind: str, side: str, path: tuple[int, ...], captures: tuple[int, ...], **extra: str) -> Utterance:
    computer = "player" in extra
    if not captures:
        return U(kind, "computer-move" if computer else "move", side=side, start=path[0], end=path[-1], **extra)
    if len(path) == 2:
        key = "computer-jump" if computer else "jump"
        if computer:
            return U(kind, key, side=side, start=path[0], landings=path[1:], captures=captures, **extra)
        return U(kind, key, side=side, start=path[0], end=path[-1], captures=captures)
    key = "computer-jump" if computer else "multi-jump"
    return U(kind, key, side=side, start=path[0], landings=path[1:], captures=captures, **extra)


def _moved_word(position: Position, move: Move, rules: Rules) -> str:
    """The code of the piece a takeback puts back (``moved.*`` in the catalogues): its
    colour and kind, ``*-crowned`` for a man the move crowned (a king stands there now)."""
    piece = position.piece_at(move.path[0])
    if piece is None:
        return "other"
    colour = _side(piece.color)
    if piece.king:
        return f"{colour}-king"
    landed = position.apply(move, rules).piece_at(move.path[-1])
    return f"{colour}-crowned" if landed is not None and landed.king else f"{colour}-man"


def _captured_word(position: Position, captures: Sequence[int]) -> str:
    """The code of the pieces a jump took (``captured.*``): their colour, men or kings,
    one or more (``white-men``); ``white-pieces`` for men and kings together."""
    pieces = [p for p in (position.piece_at(s) for s in captures) if p is not None]
    colours = {p.color for p in pieces}
    if len(colours) != 1 or len(pieces) != len(captures):
        return "other"
    colour = _side(colours.pop())
    kinds = {p.king for p in pieces}
    if len(kinds) > 1:
        return f"{colour}-pieces"
    king = kinds.pop()
    if len(pieces) == 1:
        return f"{colour}-king" if king else f"{colour}-man"
    return f"{colour}-kings" if king else f"{colour}-men"


class GameShown(Protocol):
    """The game as the narrator is shown it: the board's :class:`~crownhead.firmware.app.snapshot.Snapshot`
    is one, a replay's :class:`Seen` another."""

    @property
    def position(self) -> Position: ...
    @property
    def moves(self) -> Sequence[Move]: ...
    @property
    def rules(self) -> Rules: ...


@dataclass(frozen=True, slots=True)
class Seen:
    """A game as it stood (a replay shows the narrator one after each step of the board)."""

    position: Position
    moves: tuple[Move, ...]
    rules: Rules

    @classmethod
    def of(cls, game: Game) -> Seen:
        return cls(game.position, tuple(game.moves), game.rules)


def _mover(game: GameShown, index: int) -> str:
    """The side that made ``game.moves[index]`` (sides alternate up to the side to move)."""
    back = len(game.moves) - index  # moves from that one to the position, itself included
    color = game.position.turn if back % 2 == 0 else game.position.turn.opponent
    return _side(color)


class Narrator:
    """Events in, utterances out, about the game it is shown (see the module)."""

    def __init__(self, game: GameShown) -> None:
        #: The game as last shown (:meth:`see`).
        self.game = game
        # The game as shown before it: what a takeback took back.
        self._before: GameShown | None = None
        self._hint: tuple[int, ...] | None = None
        self._clock_said: dict[Side, int] = {}

    def see(self, game: GameShown) -> None:
        """The game as it stands now (shown before the events that brought it there)."""
        self._before, self.game = self.game, game

    @property
    def position(self) -> Position:
        return self.game.position

    # -- events -------------------------------------------------------------------------

    def hear(self, event: Event) -> list[Utterance]:
        """What to say about ``event`` (often nothing: the lights, a save)."""
        match event:
            case MoveMade():
                self._hint = None
                return [_move_utterance("move", event.side, event.path, event.captures)]
            case ComputerMove():
                return [_move_utterance("move", event.side, event.path, event.captures, player=event.player)]
            case TakenBack():
                return self._takeback(event)
            case GameOver():
                return self._over(event)
            case NewGame():
                return self._new_game(event)
            case GameStarted():
                return self._started(event)
            case SetUp():
                return self._setup(event)
            case SetUpRank():
                return self._setup_rank(event)
            case BoardWarning():
                return self._warning(event)
            case Lights():
                return self._lights(event)
            case ClockReport():
                return self.clock(event.black, event.white, event.running)
            case Condoned():
                self._reset()
                return [U("ruling", "condoned", side=event.side, move=(event.move,))]
            case Huffed():
                return [U("ruling", "huff", side=event.side, square=event.square)]
            case Crowned():
                return [U("guidance", "crowned", square=event.square)]
            case MissedJump():
                return [U("ruling", "missed-jump", side=event.side, squares=tuple(event.squares))]
            case HuffTakenBack():
                return [U("ruling", "huff-takeback", square=event.square)]
            case ForcedJump():
                return [U("ruling", "force-jump", side=event.side, move=(event.move,))]
            case DrawOffer():
                return [U("offer", "draw-offer", side=event.side) if event.side else U("offer", "draw-offer-anyone")]
            case TakebackAsked():
                return [U("offer", "takeback-asked", side=event.side, move=(event.move,))]
            case DrawLapsed():
                return [U("offer", "draw-lapsed", side=event.side) if event.side else U("offer", "draw-lapsed-anyone")]
            case DrawDeclined():
                return [U("offer", "draw-declined", side=event.side)]
            case Claim():
                if event.valid:
                    return [U("ruling", "claim-accepted", side=event.side, reason=event.reason)]
                return [U("ruling", "claim-refused", side=event.side)]
            case ResignAsked():
                return [U("offer", "resign-confirm", side=event.side)]
            case Reopened():
                return [U("offer", "reopened-draw" if event.reason == "agreement" else "reopened")]
            case Caution():
                return [U("ruling", "caution", side=event.side, offence=event.code)]
            case Forfeit():
                return [U("ruling", "forfeit", side=event.side, offence=event.code)]
            case DrawClaimable():
                return [U("ruling", "draw-claimable", side=event.side, reason=event.reason)]
            case BallotDrawn():
                return [U("guidance", "ballot", number=event.number, moves=tuple(event.moves))]
            case Flag():
                return [U("clock", "flag", side=event.side)]
            case Alert():
                return [U("info", "notice", message=event.message)]
        return []

    def _reset(self) -> None:
        """A game begins (or goes on from another position): nothing said before counts."""
        self._hint = None
        self._clock_said = {}

    def _turn_of(self, fen: str) -> str:
        """The side to move in ``fen`` (the game shown, if it cannot be read)."""
        try:
            return _side(Position.from_fen(fen).turn)
        except ValueError:
            log.warning("voice: cannot read the position %r", fen)
            return _side(self.game.position.turn)

    def _takeback(self, event: TakenBack) -> list[Utterance]:
        """What goes back where, as the lights ask it: the piece from where it stands now
        to where it came from and, for a jump, the pieces it took (their colour, men or
        kings) back on their squares: said as a plain move, a jump taken back left a
        blind player guessing what to put back."""
        before = self._before
        if before is None or not 1 <= event.ply <= len(before.moves):
            return [U("move", "takeback-ply", ply=event.ply)]
        move = before.moves[event.ply - 1]
        side = _mover(before, event.ply - 1)
        start, end = move.path[0], move.path[-1]
        played_from = self._position_before(before, event.ply)
        moved = _moved_word(played_from, move, before.rules) if played_from is not None else "other"
        if not move.captures:
            return [U("move", "takeback", side=side, start=start, end=end, moved=moved)]
        captured = _captured_word(played_from, move.captures) if played_from is not None else "other"
        return [
            U(
                "move",
                "takeback-jump",
                side=side,
                start=start,
                end=end,
                moved=moved,
                captured=captured,
                captures=tuple(move.captures),
            )
        ]

    def _position_before(self, before: GameShown, ply: int) -> Position | None:
        """The position ply ``ply`` of ``before`` was played from: the game shown now is
        ``before`` with that ply and any after it taken back (None if it is not)."""
        game = self.game
        kept = len(game.moves)
        if kept > ply - 1 or tuple(game.moves) != tuple(before.moves[:kept]):
            return None
        position = game.position
        for move in before.moves[kept : ply - 1]:
            position = position.apply(move, before.rules)
        return position

    def _over(self, event: GameOver) -> list[Utterance]:
        if event.result == "1-0":
            return [U("result", "win", side="black", reason=event.reason)]
        if event.result == "0-1":
            return [U("result", "win", side="white", reason=event.reason)]
        if event.result == "1/2-1/2":
            return [U("result", "draw", reason=event.reason)]
        return [U("result", "game-over")]

    def _new_game(self, event: NewGame) -> list[Utterance]:
        self._reset()
        return [U("info", "new-game", side=self._turn_of(event.fen))]

    def _started(self, event: GameStarted) -> list[Utterance]:
        if not event.resumed:
            return []  # the new-game event says it
        self._reset()
        return [U("info", "resumed", moves=event.ply // 2 + 1, side=self._turn_of(event.fen))]

    def _setup(self, event: SetUp) -> list[Utterance]:
        try:
            target = Position.from_fen(event.fen)
        except ValueError:
            target = None
        if event.cause == "restore":
            return self._put_right(event.wrong, target) or [U("guidance", "setup-restore")]
        head = U("guidance", "setup-resume" if event.cause == "resume" else "setup")
        lines = self._lines(event.black, event.black_kings, event.white, event.white_kings, "guidance")
        wrong = tuple(event.wrong)
        occupied = len(event.black) + len(event.white)
        # The few squares still wrong, when most stand right (an empty board is all wrong).
        tail = [U("guidance", "setup-wrong", squares=wrong)] if 0 < len(wrong) < max(occupied, 1) / 2 else []
        return [head, *lines, *tail]

    def _setup_rank(self, event: SetUpRank) -> list[Utterance]:
        """The rank the lights show: what it must hold, what comes off, what to change."""
        head = U("guidance", "setup-rank", rank=event.rank, first=event.first, last=event.last)
        out = [head]
        for side, men, kings in (("black", event.black, event.black_kings), ("white", event.white, event.white_kings)):
            if men:
                out.append(U("guidance", "setup-men", side=side, squares=men))
            if kings:
                out.append(U("guidance", "setup-kings", side=side, squares=kings))
        if event.empty:
            out.append(U("guidance", "setup-take-off", squares=event.empty, n=len(event.empty)))
        if event.change:
            out.append(U("guidance", "setup-change", squares=event.change, n=len(event.change)))
        return out

    def _lines(
        self,
        black: Iterable[int],
        black_kings: Iterable[int],
        white: Iterable[int],
        white_kings: Iterable[int],
        kind: str,
    ) -> list[Utterance]:
        """Each side's men, then its kings, a sentence each (a line at a time)."""
        out = []
        for side, all_pieces, kings in (("black", black, black_kings), ("white", white, white_kings)):
            crowned = set(kings)
            men = tuple(s for s in sorted(all_pieces) if s not in crowned)
            if men:
                out.append(U(kind, "setup-men", side=side, squares=men))
            if crowned:
                out.append(U(kind, "setup-kings", side=side, squares=tuple(sorted(crowned))))
            if not men and not crowned:
                out.append(U(kind, "setup-none", side=side))
        return out

    def _put_right(self, squares: Iterable[int], target: Position | None) -> list[Utterance]:
        """Put back on the squares the game has a piece on, take off the others."""
        wanted = target if target is not None else self.position
        squares = tuple(squares)
        fill = tuple(s for s in squares if wanted.piece_at(s) is not None)
        empty = tuple(s for s in squares if wanted.piece_at(s) is None)
        if fill and empty:
            return [U("warning", "warning.out-of-sync", fill=fill, empty=empty)]
        if fill:
            return [U("warning", "warning.put-back", squares=fill)]
        if empty:
            return [U("warning", "warning.take-off", squares=empty)]
        return []

    def _warning(self, event: BoardWarning) -> list[Utterance]:
        # Told to the side to move, in its own language where it has one.
        side = (("side", _side(self.position.turn)),)
        return [Utterance(u.kind, u.key, u.args + side) for u in self._warning_of(event)]

    def _warning_of(self, event: BoardWarning) -> list[Utterance]:
        code, squares = event.code, tuple(event.squares)
        if code == "illegal-move":
            if not squares:
                return [U("warning", "warning.illegal-move-bare")]
            piece = self.position.piece_at(squares[0])
            return [
                U("warning", "warning.illegal-move", square=squares[0], piece="king" if piece and piece.king else "man")
            ]
        if code == "out-of-sync":
            return self._put_right(squares, None) or [U("warning", "warning.out-of-sync-squares", squares=squares)]
        if not squares:
            return [U("warning", "warning.illegal-move-bare")]
        if code in ("touch-move", "unplayable-piece"):
            return [U("warning", f"warning.{code}", square=squares[0])]
        if code in ("forced-capture", "continue-capture"):
            return [U("warning", f"warning.{code}", squares=squares)]
        if code == "remove-captured":
            return [U("warning", "warning.remove-captured", squares=squares, n=len(squares))]
        return [U("warning", "warning.other", squares=squares)]

    def _lights(self, event: Lights) -> list[Utterance]:
        roles = event.as_dict()
        start = [s for s, r in roles.items() if r == "hint-from"]
        end = [s for s, r in roles.items() if r == "hint-to"]
        if len(start) != 1 or len(end) != 1:
            self._hint = None if not start else self._hint
            return []
        game = self.game
        candidates = [m for m in game.position.legal_moves(game.rules) if m.start == start[0] and m.end == end[0]]
        if not candidates:
            return []
        return self.hint(candidates[0])

    @property
    def hint_shown(self) -> tuple[int, ...] | None:
        """The path of the hint last said (None: none shown)."""
        return self._hint

    def hint(self, move: Move | None) -> list[Utterance]:
        """The hint's move, said once while it is shown (None: no hint shown now)."""
        if move is None or move.path == self._hint:
            self._hint = None if move is None else self._hint
            return []
        self._hint = move.path
        if move.captures:
            return [U("guidance", "hint-jump", start=move.start, landings=move.path[1:])]
        return [U("guidance", "hint", start=move.start, end=move.end)]

    def clock(self, black_ms: int, white_ms: int, running: Side | None) -> list[Utterance]:
        """The running side's last minute and last ten seconds, said once each."""
        left = None if running is None else black_ms if running is Side.BLACK else white_ms
        if running is None or left is None or left <= 0:
            return []
        said = self._clock_said.get(running, 2)
        if left <= 10_000 and said > 0:
            self._clock_said[running] = 0
            return [U("clock", "clock-seconds", side=running)]
        if 10_000 < left <= 60_000 and said > 1:
            self._clock_said[running] = 1
            return [U("clock", "clock-minute", side=running)]
        if left > 60_000:
            self._clock_said[running] = 2  # time added: the warnings may come again
        return []

    # -- requests -----------------------------------------------------------------------

    def last_move(self) -> list[Utterance]:
        said = self._said_moves(1)
        return said or [U("answer", "no-move-yet")]

    def last_moves(self, count: int = LAST_MOVES) -> list[Utterance]:
        said = self._said_moves(count)
        if not said:
            return [U("answer", "no-move-yet")]
        return [U("answer", "last-moves", n=len(said)), *said]

    def _said_moves(self, count: int) -> list[Utterance]:
        """The last ``count`` moves of the game shown, oldest first, as answers."""
        game = self.game
        moves = game.moves
        first = max(len(moves) - count, 0) if count > 0 else len(moves)
        return [
            _move_utterance("answer", _mover(game, i), moves[i].path, moves[i].captures)
            for i in range(first, len(moves))
        ]

    def read_position(self, position: Position | None = None) -> list[Utterance]:
        """Each side's men and kings by square, then whose turn."""
        pos = position if position is not None else self.position

        def of(color: Color, king: bool) -> list[int]:
            return [s for s, p in sorted(pos.pieces().items()) if p.color is color and p.king is king]

        black_kings, white_kings = of(Color.BLACK, True), of(Color.WHITE, True)
        lines = self._lines(
            of(Color.BLACK, False) + black_kings,
            black_kings,
            of(Color.WHITE, False) + white_kings,
            white_kings,
            "answer",
        )
        return [U("answer", "position"), *lines, U("answer", "to-move", side=_side(pos.turn))]

    def square(self, square: int, position: Position | None = None) -> Utterance:
        """What stands on ``square``."""
        pos = position if position is not None else self.position
        piece = pos.piece_at(square)
        if piece is None:
            return U("answer", "square-empty", square=square)
        return U(
            "answer", "square-piece", square=square, piece=f"{_side(piece.color)}-{'king' if piece.king else 'man'}"
        )

    def turn(self, clocks: tuple[int, int] | None = None, position: Position | None = None) -> list[Utterance]:
        """Whose turn, and both clocks when there is one."""
        pos = position if position is not None else self.position
        out = [U("answer", "to-move", side=_side(pos.turn))]
        if clocks is not None:
            out.append(U("answer", "clocks", black="black", white="white", black_ms=clocks[0], white_ms=clocks[1]))
        return out


class VoicedBoard(Protocol):
    """What the voice asks of the running board, its port (the application is one): the
    clock as it stands and its time, joining it (it is then given the snapshots, the
    events and the button presses first), being woken, and a word on its message line.
    The game and the hint it reads from the snapshots it is given, never from the board."""

    @property
    def clock(self) -> _Clock: ...

    def clock_state(self, now: int) -> ClockState | None: ...
    def add_output(self, output: Output, *, first: bool = False) -> Output: ...
    def wake(self) -> None: ...
    def say(self, message: str, *, until: int | None = None) -> None: ...


class _Clock(Protocol):
    def now_ms(self) -> int: ...


class BoardVoice:
    """The voice of a running board: its events said, its ``speak`` button answered; one
    of its outputs (:class:`~crownhead.firmware.app.outputs.Output`: it hears each step's snapshot,
    then its events).

    ``speaker`` is None where no engine could be opened (or none is wanted: a page's
    live region alone): the board plays on silently and says once, on its message line,
    ``missing`` (what to install). ``emit``: every sentence also becomes a ``spoken``
    event, which the pages read out.
    """

    def __init__(
        self, speaker: Speaker | None, phrasebook: Phrasebook, missing: str = "", *, emit: bool = False
    ) -> None:
        self.speaker = speaker
        #: Every sentence is also an event (``spoken``) for the pages' live regions.
        self.emit = emit
        self._unsent: list[Sentence] = []
        self.phrasebook = phrasebook
        #: The narrator, from the board's first snapshot on (nothing is said before it).
        self.narrator: Narrator | None = None
        self.missing = missing
        self.board: VoicedBoard | None = None
        #: What the board showed besides the game, as the last snapshot had it (the hint).
        self._shown: Shown | None = None
        self._told_missing = False
        self._requests: list[tuple[str, int]] = []
        self._last_short: int | None = None
        #: The last sentences said, newest last (what a page's live region or a test reads).
        self.said: deque[Sentence] = deque(maxlen=200)
        #: Sentences said since the start (``said`` keeps the last 200 of them).
        self.said_count = 0

    def attach(self, board: VoicedBoard) -> BoardVoice:
        self.board = board
        # Heard as every output is, and closed with the board (the speaker's thread).
        # It polls (:meth:`poll`) and hears the presses first (:meth:`on_press`); stepped
        # when something is due (its deadline) or the speaker has news (it wakes the
        # loop): the loop may sleep between.
        board.add_output(self)
        if self.speaker is not None:
            self.speaker.notify = board.wake
        return self

    # -- the output ---------------------------------------------------------------------

    def snapshot(self, snapshot: Snapshot) -> None:
        self._shown = snapshot.shown
        if self.narrator is None:
            self.narrator = Narrator(snapshot)
        else:
            self.narrator.see(snapshot)

    def _narrator(self) -> Narrator | None:
        """The narrator, made from the first snapshot the voice was given (one joining a
        board already started is given the last one at once)."""
        return self.narrator

    def _hint(self) -> Move | None:
        """The engine's move the hint button shows, as the last snapshot has it."""
        return self._shown.hint if self._shown is not None else None

    def events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.sink(event)

    #: Its poll needs no step but those it asks for (see firmware.app.outputs.BoardPort).
    wakes = True

    def deadline(self) -> int | None:
        return self.next_deadline()

    def poll(self, now: int) -> list[Event]:
        return self.source(now)

    def next_deadline(self) -> int | None:
        """Now, when a request, a sentence for the pages or a new hint waits; else when
        the running side's clock reaches its last minute or last ten seconds."""
        board = self.board
        if board is None:
            return None
        now = board.clock.now_ms()
        hint = self._hint()
        narrator = self._narrator()
        shown = narrator.hint_shown if narrator is not None else None
        if self._requests or self._unsent or (hint is not None and hint.path != shown):
            return now
        state = board.clock_state(now)
        if state is None:
            return None
        black, white, running, paused, flag = state
        left = black if running == "black" else white if running == "white" else None
        if left is None or paused or flag or left <= 0:
            return None
        for mark in (60_000, 10_000):
            if left > mark:
                return now + left - mark
        return None

    def say(self, utterances: Iterable[Utterance]) -> list[Sentence]:
        sentences = self.phrasebook.sentences(utterances)
        self.said.extend(sentences)
        self.said_count += len(sentences)
        if self.emit:
            self._unsent.extend(sentences)
            del self._unsent[:-64]
        if self.speaker is not None:
            for sentence in sentences:
                self.speaker.say(sentence)
        return sentences

    def sink(self, event: Event) -> None:
        narrator = self._narrator()
        if narrator is not None:
            self.say(narrator.hear(event))

    def said_since(self, count: int) -> list[Sentence]:
        """The sentences said after the first ``count`` (as many as are kept)."""
        new = self.said_count - count
        return list(self.said)[-new:] if new > 0 else []

    def on_press(self, press: ButtonEvent) -> bool | None:
        """The ``speak`` button: answered here (False: the tracker never sees it)."""
        if press.name != SPEAK_BUTTON:
            return None
        if press.long:
            self.ask("position", press.t_ms)
        elif self._last_short is not None and press.t_ms - self._last_short <= REPEAT_MS:
            self._last_short = None
            self.ask("moves", press.t_ms)
        else:
            self._last_short = press.t_ms
            self.ask("last", press.t_ms)
        return False

    def ask(self, request: str, square: int = 0) -> None:
        """Answer ``request`` at the next step: ``last`` (the last move, whose turn, the
        clocks), ``moves`` (the last five), ``position``, ``square`` (what stands on
        ``square``), ``turn`` (whose turn and the clocks). ValueError for another."""
        if request not in ("last", "moves", "position", "square", "turn"):
            raise ValueError(f"no request {request!r} (last, moves, position, square, turn)")
        if request == "square" and not 1 <= square <= 32:
            raise ValueError(f"no square {square} (1-32)")
        del self._requests[:-8]  # a flood of presses asks for no more than this
        self._requests.append((request, square))

    def answer(self, request: str, square: int, now: int) -> list[Utterance]:
        """The utterances answering a request, read from the game as the last step left it."""
        narrator, board = self._narrator(), self.board
        if narrator is None or board is None:
            return []
        state = board.clock_state(now)
        clocks = (state[0], state[1]) if state is not None else None
        if request == "last":
            return narrator.last_move() + narrator.turn(clocks)
        if request == "moves":
            return narrator.last_moves()
        if request == "position":
            return narrator.read_position()
        if request == "square":
            return [narrator.square(square)]
        return narrator.turn(clocks)

    def source(self, now: int) -> list[Event]:
        out: list[Event] = []
        troubles: list[str] = []
        if self.speaker is None and self.missing and not self._told_missing:
            self._told_missing = True
            troubles.append(f"The board cannot speak: {self.missing}")
        board, narrator = self.board, self._narrator()
        state = board.clock_state(now) if board is not None else None
        if state is not None and narrator is not None:
            black, white, running, paused, _flag = state
            if not paused:
                self.say(narrator.clock(black, white, running))
        if board is not None and narrator is not None:
            # The hint is the board's (no event tells of it): said when it is found.
            self.say(narrator.hint(self._hint()))
        requests, self._requests = self._requests, []
        for request, square in requests:
            self.say(self.answer(request, square, now))
        if self.speaker is not None:
            troubles += self.speaker.poll()
        for message in troubles:
            out.append(Notice(now, message))  # the log, and the pages open now
            if board is not None:
                # Where the player looks: the terminal's message line and every page's
                # (a page opened later too); a notice alone reached only the log.
                board.say(message)
        unsent, self._unsent = self._unsent, []
        out += [Spoken(now, s.text, s.lang, s.kind) for s in unsent]
        return out

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close()


def spoken_replay(
    events: Iterable[Event], phrasebook: Phrasebook, narrator: Narrator
) -> Iterable[tuple[int, Sentence]]:
    """Every sentence the board would say for a replay's events, with the event's time."""
    for event in events:
        for sentence in phrasebook.sentences(narrator.hear(event)):
            yield event.t, sentence
