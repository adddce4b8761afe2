"""Moves as hand actions: the lifts, placements and pauses a person makes on the board.

Used to perform a move on the simulated board (the interactive simulator's ``11-15``
typed on the keyboard) and to generate the messy, human test scripts that the tracker
must read exactly.

>>> from crownhead.rules import Move
>>> [str(a) for a in plain_actions(Move((15, 24, 31), (19, 28)))]
['lift 15', 'place 24', 'lift 24', 'place 31', 'lift 19', 'lift 28']
>>> print(script_text(spaced(plain_actions(Move((11, 15))), 300)))
lift 11
wait 300
place 15
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, Unpack

from crownhead.squares import square_to_cell
from crownhead.rules import Move
from crownhead.rules.position import parse_move_squares
from crownhead.firmware.gameclock import clock_text
from crownhead.firmware.simulator.keys import HandMove, Press, Toggle, Typed, parse_input
from crownhead.sim.board import SimBoard, SimError

if TYPE_CHECKING:
    from crownhead.firmware.app.application import App
    from crownhead.firmware.events import Event

__all__ = [
    "Action",
    "Hands",
    "HumanStyle",
    "plain_actions",
    "spaced",
    "human_actions",
    "game_action_chunks",
    "game_actions",
    "script_text",
    "button_words",
]

#: How long the words after a press of ``clock`` stay (the board's ms): long enough to
#: read, gone before their times are far from the clock's.
CLOCK_WORDS_MS = 5_000


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a script: ``lift``/``place`` a square, ``wait`` ms, ``press`` a button.

    ``line`` is the script line it came from (0 when it was made by a program).
    """

    verb: str
    arg: int | str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.verb} {self.arg}"


def lift(square: int) -> Action:
    return Action("lift", square)


def place(square: int) -> Action:
    return Action("place", square)


def wait(ms: int) -> Action:
    return Action("wait", int(ms))


def plain_actions(move: Move) -> list[Action]:
    """The simplest way to make ``move``: lift, touch down on every landing, take off captures."""
    out = [lift(move.start)]
    for square in move.path[1:-1]:
        out += [place(square), lift(square)]
    out.append(place(move.end))
    out += [lift(c) for c in move.captures]
    return out


def spaced(actions: Iterable[Action], ms: int) -> list[Action]:
    """``actions`` with a ``wait ms`` between each two."""
    out: list[Action] = []
    for a in actions:
        if out:
            out.append(wait(ms))
        out.append(a)
    return out


def script_text(actions: Iterable[Action]) -> str:
    """A replay script, one action a line."""
    return "\n".join(str(a) for a in actions)


@dataclass(frozen=True, slots=True)
class HumanStyle:
    """How messy the generated hands are. Times in milliseconds.

    ``bounce_ms`` must stay below the debouncer's time so a bounce never shows.
    """

    pause_ms: tuple[int, int] = (100, 2000)  #: pauses inside a move
    short_pause_ms: tuple[int, int] = (100, 700)  #: most pauses are short
    long_pause_chance: float = 0.15
    slide_chance: float = 0.25  #: plain moves slid (end covered before start uncovered)
    slide_overlap_ms: tuple[int, int] = (5, 60)
    bounce_chance: float = 0.15  #: a switch chatters when a piece lands or leaves
    bounce_ms: int = 8  #: total chatter time, below the debounce time
    touch_down_chance: float = 0.6  #: a multi-jump touches down on a landing square
    crown_swap_chance: float = 0.4  #: a crowned man is lifted and replaced by a king


def _pause(rng: random.Random, style: HumanStyle) -> Action:
    lo, hi = style.pause_ms if rng.random() < style.long_pause_chance else style.short_pause_ms
    return wait(rng.randint(lo, hi))


def _bounce(square: int, occupied_after: bool, style: HumanStyle) -> list[Action]:
    """A chatter of the switch on ``square`` just after it changed to ``occupied_after``."""
    half = max(1, style.bounce_ms // 3)
    flip, back = (lift, place) if occupied_after else (place, lift)
    return [wait(half), flip(square), wait(half), back(square)]


def human_actions(
    move: Move, rng: random.Random, style: HumanStyle = HumanStyle(), crowns: bool = False
) -> list[Action]:
    """``move`` made the way a person might: any order of captures, touch-downs, slides, bounces.

    Captured pieces come off before the jumper is lifted, while it is in the hand, while it
    stands on a landing square or after it has arrived, in random order. The result ends
    with the move's last switch change (no trailing wait).
    """
    out: list[Action] = []

    def act(action: Action) -> None:
        if out:
            out.append(_pause(rng, style))
        out.append(action)
        if action.verb in ("lift", "place") and rng.random() < style.bounce_chance:
            out.extend(_bounce(int(action.arg), action.verb == "place", style))

    if not move.captures:
        if rng.random() < style.slide_chance:
            out.append(place(move.end))
            out.append(wait(rng.randint(*style.slide_overlap_ms)))
            out.append(lift(move.start))
        else:
            act(lift(move.start))
            act(place(move.end))
    else:
        landings = move.path[1:]
        touch = [rng.random() < style.touch_down_chance for _ in landings[:-1]] + [True]
        # Slot 0: before the lift; 1: in the hand before any landing; j + 1: after
        # touching down on landing j (0-based). Only slots that happen are used.
        slots = [0, 1] + [j + 2 for j, t in enumerate(touch) if t]
        removal: dict[int, list[int]] = {}
        captures = list(move.captures)
        rng.shuffle(captures)
        for c in captures:
            removal.setdefault(rng.choice(slots), []).append(c)
        for c in removal.get(0, []):
            act(lift(c))
        act(lift(move.start))
        for c in removal.get(1, []):
            act(lift(c))
        for j, square in enumerate(landings):
            if not touch[j]:
                continue
            act(place(square))
            for c in removal.get(j + 2, []):
                act(lift(c))
            if j < len(landings) - 1:
                act(lift(square))
    if crowns and rng.random() < style.crown_swap_chance:
        act(lift(move.end))
        act(place(move.end))
    return out


def game_action_chunks(
    moves: Sequence[tuple[Move, bool]],
    rng: random.Random,
    style: HumanStyle = HumanStyle(),
    fast_reply_chance: float = 0.08,
    fast_reply_ms: tuple[int, int] = (40, 149),
    think_ms: tuple[int, int] = (300, 2500),
) -> list[list[Action]]:
    """A whole game of ``(move, crowns)`` made by two people, one list of actions per move.

    Each list but the first starts with the thinking time before the move. Now and then
    the reply starts within ``fast_reply_ms`` of the last switch change of the move
    before, much faster than the tracker's settle time.
    """
    chunks: list[list[Action]] = []
    for move, crowns in moves:
        chunk: list[Action] = []
        if chunks:
            if rng.random() < fast_reply_chance:
                chunk.append(wait(rng.randint(*fast_reply_ms)))
            else:
                chunk.append(wait(rng.randint(*think_ms)))
        chunk.extend(human_actions(move, rng, style, crowns))
        chunks.append(chunk)
    return chunks


class Pace(TypedDict, total=False):
    """The pace options of :func:`game_action_chunks`."""

    fast_reply_chance: float
    fast_reply_ms: tuple[int, int]
    think_ms: tuple[int, int]


def game_actions(
    moves: Sequence[tuple[Move, bool]],
    rng: random.Random,
    style: HumanStyle = HumanStyle(),
    **options: Unpack[Pace],
) -> list[Action]:
    """:func:`game_action_chunks` as one script."""
    return [a for chunk in game_action_chunks(moves, rng, style, **options) for a in chunk]


# -- the simulator's hands at an application -------------------------------------------------


def _count(n: int, noun: str) -> str:
    """``1 square``, ``2 squares``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def button_words(name: str) -> str:
    """A board button's name as people say it.

    >>> button_words("black_draw"), button_words("takeback"), button_words("white")
    ("Black's draw button", 'the takeback button', "White's button")
    """
    side, _, action = name.partition("_")
    if side in ("black", "white"):
        return f"{side.title()}'s {action + ' ' if action else ''}button"
    return f"the {name} button"


class Hands:
    """The simulator's hands at the board of ``app``: they lift, place, make whole moves
    and do what the lights ask, on the simulated board (``app.sim``), then step the app.

    What a person types in the terminal simulator (:mod:`crownhead.firmware.simulator.tui`) and a
    ``crownhead run --script`` comes here; the application itself only reads the board.
    Raises :class:`~crownhead.sim.board.SimError` on real hardware.

    >>> from crownhead.hal.clock import VirtualClock
    >>> from crownhead.firmware.config import default_config
    >>> from crownhead.firmware.app.application import App
    >>> from crownhead.firmware.app.hardware import open_hardware
    >>> clock = VirtualClock()
    >>> app = App(open_hardware(default_config(), clock), clock=clock)
    >>> app.start()
    >>> Hands(app).act_text("11-15")
    >>> [e.to_json()["move"] for e in app.run_for(1000) if e.kind == "move"]
    ['11-15']
    >>> app.close()
    """

    def __init__(self, app: App) -> None:
        self.app = app

    def run_script(self, actions: Sequence[Action]) -> list[Event]:
        """Virtual time: perform script ``actions`` (lift/place/wait/press) on the simulated board."""
        sim = self._board()
        events: list[Event] = []
        for action in actions:
            if action.verb == "wait":
                events += self.app.run_for(int(action.arg))
                continue
            if action.verb == "lift":
                sim.lift(int(action.arg))
            elif action.verb == "place":
                square = int(action.arg)
                sim.place(square, None if sim.hand else self.token_for(square))
            elif action.verb in ("press", "hold"):
                sim.press(str(action.arg), long=action.verb == "hold")
            else:
                raise ValueError(f"unknown action {action.verb!r}")
            events += self.app.step()
        events += self.app.settle()
        return events

    def _board(self) -> SimBoard:
        if self.app.sim is None:
            raise SimError("there is no simulated board (this is real hardware: use your hands)")
        return self.app.sim

    def token_for(self, square: int) -> str:
        """The piece a hand puts on an empty ``square``: what the game wants there, or
        what stood there before the last move (a move taken back by hand); ``?`` for none."""
        tracker = self.app.tracker
        target = tracker.setting_up or tracker.position
        piece = target.piece_at(square) or tracker.position.piece_at(square)
        positions = tracker.game.positions
        if piece is None and len(positions) > 1:
            piece = positions[-2].piece_at(square)
        return piece.symbol if piece is not None else "?"

    def act(self, action: Typed) -> None:
        """Perform a simulator action (toggle, whole move, button) and step the application."""
        try:
            if isinstance(action, Toggle):
                self.toggle(action.square)
            elif isinstance(action, HandMove):
                self.hand_move(action.text)
            elif isinstance(action, Press):
                if action.name == "follow":
                    self.follow()
                else:
                    self._board().press(action.name, long=action.long)
                    self.app.say(f"held {button_words(action.name)}" if action.long else self._press_words(action.name))
            else:
                raise ValueError(f"unknown action {action!r}")
        except (SimError, ValueError) as exc:
            self.app.say(str(exc))
        self.app.step()
        if isinstance(action, Press) and action.name == "clock" and not action.long:
            # What the press did, as the page shows it: only for a while, since its
            # times stand still while the clock runs (a stale "clock running" line).
            self.app.say(self._clock_words(), until=self.app.clock.now_ms() + CLOCK_WORDS_MS)

    def _clock_words(self) -> str:
        """The game clock after a press of ``clock``: running for whom, or paused."""
        clock = self.app.snapshot.clock
        if clock is None:
            return "clock: this game has no clock (--clock)"
        times = f"Black {clock_text(clock.black_ms)}, White {clock_text(clock.white_ms)}"
        if clock.flag:
            return f"clock: {clock.flag.title()}'s flag has fallen ({times})"
        if clock.side is None:
            return f"clock stopped: the game is over ({times})"
        if clock.paused:
            return f"clock paused ({times}): press clock again to go on"
        return f"clock running: {clock.side.title()}'s time ({times})"

    def _press_words(self, name: str) -> str:
        """What a button pressed in the simulator will do, or why it does nothing now (a
        refused claim is said by the board itself, as for every press of the button)."""
        game = self.app.tracker.game
        mode = self.app.mode
        if name == "takeback" and not mode.takeback:
            return "takeback: not in a refereed game, where a move made stands (the referee rules on a wrong one)"
        if name == "hint" and mode.referee_lights:
            return "hint: not in a refereed game, where the board shows no moves"
        if name == "force" and not game.rules.huffing:
            return "force: only under huffing (--huffing), where it makes a missed jump be taken"
        if name == "adjust":
            return "adjust: straighten pieces now; touching one is no touch-move until the next move"
        return f"pressed {button_words(name)}"

    def act_text(self, text: str) -> None:
        """Type ``text`` into the simulator (a square, a move, or a key name)."""
        action = parse_input(text)
        if action is not None:
            self.act(action)

    def _bounce(self, squares: Iterable[int]) -> None:
        if self.app.settings.hand_bounces and self.app.sim is not None:
            for square in dict.fromkeys(squares):
                self.app.sim.bounce(square, times=self.app.settings.hand_bounces)

    def toggle(self, square: int) -> None:
        sim = self._board()
        if square in sim.pieces:
            token = sim.lift(square)
            self.app.say(f"lifted {token} from {square}")
        else:
            token = sim.hand[-1] if sim.hand else self.token_for(square)
            if self.app.tracker.roles.get(square) == "crown" and token == token.lower() and token in sim.hand:
                # The man just crowned, lifted and put back: the hands put a king there.
                sim.hand.remove(token)
                token = token.upper()
            if token == "?":
                # A person puts down only a piece they hold (or one the board asks for).
                raise SimError(f"there is no piece in the hand to put on {square}: lift one first")
            sim.place(square, token)
            self.app.say(f"put {token} on {square}")
        self._bounce([square])

    def hand_move(self, text: str) -> None:
        sim = self._board()
        move = self.resolve(text)
        start = move.start
        if start not in sim.pieces:
            raise SimError(f"there is no piece on {start} to move")
        for s in move.path[1:]:
            if s in sim.pieces and s != start:
                raise SimError(f"square {s} is occupied; {text} cannot be made")
        touched: list[int] = []
        for action in plain_actions(move):
            square = int(action.arg)
            if action.verb == "lift":
                if square in sim.pieces:
                    sim.lift(square)
            else:
                sim.place(square)
            touched.append(square)
        # Captured pieces leave the hand: they are off the board for good.
        for _ in move.captures:
            if len(sim.hand) > 0:
                sim.hand.pop()
        self._bounce(touched)
        self.app.say(f"made {move.pdn(full=True)}")

    def resolve(self, text: str) -> Move:
        """The move ``text`` means here: a legal move if one fits, else the hands' literal path."""
        position = self.app.tracker.position
        rules = self.app.tracker.game.rules
        try:
            matches = position.moves_matching(text, rules)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            routes = ", ".join(m.pdn(full=True) for m in matches)
            raise ValueError(f"{text} fits several capture routes ({routes}): type every landing square")
        # Not legal: the hands still do what was typed (the board will say what is wrong).
        squares = parse_move_squares(text)
        captures = []
        if "x" in text.lower():
            for a, b in zip(squares, squares[1:]):
                (ra, ca), (rb, cb) = square_to_cell(a), square_to_cell(b)
                if abs(ra - rb) == 2 and abs(ca - cb) == 2:
                    mid = (ra + rb) // 2 * 4 + (ca + cb) // 2 // 2 + 1
                    if self.app.sim is not None and mid in self.app.sim.pieces:
                        captures.append(mid)
        return Move(tuple(squares), tuple(captures))

    def follow(self) -> None:
        """The simulator's hands do what the lights ask: the machine's move, a setup, removals."""
        sim = self._board()
        tracker = self.app.tracker
        roles = tracker.roles
        if tracker.expected is not None and tracker.board_matches:
            self.hand_move(tracker.expected.pdn(full=True))
            return
        # After a caution the square to put the piece back on blinks as an error.
        fill = sorted(
            s
            for s, r in roles.items()
            if r == "missing" or (r == "error" and s not in sim.pieces and tracker.position.piece_at(s) is not None)
        )
        empty = sorted(s for s, r in roles.items() if r in ("extra", "remove"))
        # Setting up, the hands put the right piece on a square already full (the king
        # of the last game stood where a man begins this one): identity is the game's.
        target = self.app.setup_target()
        wrong: dict[int, str] = {}
        if target is not None:
            for s, piece in target[1].pieces().items():
                token = sim.pieces.get(s)
                if token is not None and s not in empty and token in "bwBW" and token != piece.symbol:
                    wrong[s] = piece.symbol
        # A crowning prompt stays lit until the reply starts: crown only a man still uncrowned.
        crown = [s for s, r in roles.items() if r == "crown" and sim.pieces.get(s, "").islower()]
        for s, symbol in wrong.items():
            sim.crown(s, symbol)  # swapped in place: the switch stays closed
        if fill or empty:
            for s in empty:
                if s in sim.pieces:
                    sim.lift(s)
                    sim.hand.pop()
            for s in fill:
                if s not in sim.pieces:
                    sim.place(s, self.token_for(s))
            self._bounce(fill + empty)
            self.app.say(
                f"filled {_count(len(fill), 'square')} and emptied {_count(len(empty), 'square')} as the lights asked"
            )
        elif wrong:
            self.app.say(f"put the right pieces on {_count(len(wrong), 'square')} as the set-up asks")
        elif crown:
            for s in crown:
                sim.crown(s)
            self.app.say("crowned")
        else:
            self.app.say("the lights ask for nothing the simulator's hands can do")
