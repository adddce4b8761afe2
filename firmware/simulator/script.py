"""Replay scripts: hand actions (``lift``, ``place``, ``wait``, ``press``, ``hold`` - a
long press) run on the simulated board.

A script drives the simulated board through the same debouncer, controller, follower
and tracker as the hardware, on a virtual clock, starting with the position already standing on the
board, and yields every event; the last one is the ``final`` event. ``crownhead replay``
prints them as JSON Lines; the format is documented in ``docs/replay.md``.

>>> actions = parse_script("lift 11\\nwait 400\\nplace 15\\n")
>>> from crownhead.rules import WCDF
>>> [e.to_json()["event"] for e in replay(actions, position=None, rules=WCDF)]
['move', 'final']
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from crownhead.firmware.tracking.controller import Controller
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.events import Event, Final
from crownhead.rules.pdn import MAX_PLIES as PDN_MAX_PLIES
from crownhead.firmware.files import SCRIPT_LIMIT, FileRefused, is_ascii_digits, read_text
from crownhead.firmware.simulator.hands import Action
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.tracking.tracker import Tracker, TrackerSettings
from crownhead.hal.buttons import BUTTON_NAMES
from crownhead.hal.clock import VirtualClock
from crownhead.hal.debounce import DEFAULT_DEBOUNCE_MS, Debouncer
from crownhead.rules import Game, Position, Rules
from crownhead.sim.board import SimBoard, SimError

__all__ = [
    "Action",
    "ScriptError",
    "parse_script",
    "iter_script",
    "script_buttons",
    "read_script",
    "MAX_WAIT_MS",
    "replay",
    "iter_replay",
]

#: Virtual time a replay may run on after the script before it is taken to be stuck.
_RUN_ON_LIMIT = 10_000


class ScriptError(ValueError):
    """A script line that cannot be run; ``line`` counts from 1."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


_BUTTON = re.compile(r"[a-z][a-z0-9_-]{0,31}")
#: The longest single wait a script may ask for: a day of virtual time.
MAX_WAIT_MS = 86_400_000
#: Plies a replayed game may reach: as many as a PDN game may have (no real game has
#: more; each ply costs a longer game's bookkeeping, so an endless shuffle of kings in a
#: script within its size would run for minutes).
MAX_PLIES = PDN_MAX_PLIES


def read_script(name: str) -> str:
    """The text of the script file ``name`` (``-``: standard input), at most
    :data:`~crownhead.firmware.files.SCRIPT_LIMIT` bytes of UTF-8; :class:`~crownhead.firmware.files.FileRefused` if not.
    """
    if name != "-":
        try:
            return read_text(name, SCRIPT_LIMIT)
        except FileNotFoundError:
            raise FileRefused(name, "no such file") from None
    data = sys.stdin.buffer.read(SCRIPT_LIMIT + 1)
    if len(data) > SCRIPT_LIMIT:
        raise FileRefused("<stdin>", f"is more than the {SCRIPT_LIMIT} bytes a script may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused("<stdin>", f"is not UTF-8 text (byte {exc.start})") from None


def _shown(text: str) -> str:
    return repr(text if len(text) <= 24 else text[:24] + "...")


#: A line of a script and its end, as ``str.splitlines`` splits them.
_LINE = re.compile(r"([^\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*)(\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|$)")


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as ``text.splitlines()`` gives them, one at a time (a 4 MB
    script's 400,000 lines are never a list)."""
    at = 0
    while at < len(text):
        line = _LINE.match(text, at)
        assert line is not None  # any text matches
        yield line.group(1)
        at = line.end()


def parse_script(text: str | Iterable[str]) -> list[Action]:
    """The actions of a script; raises :class:`ScriptError` naming the first bad line."""
    return list(iter_script(text))


def script_buttons(text: str | Iterable[str]) -> tuple[str, ...]:
    """The board's buttons for the script (:func:`iter_replay`'s ``buttons``), every line
    checked (:class:`ScriptError` naming the first bad one) and none kept."""
    return _button_names(iter_script(text))


def iter_script(text: str | Iterable[str]) -> Iterator[Action]:
    """The actions of a script one by one; :class:`ScriptError` at the first bad line."""
    lines = _lines(text) if isinstance(text, str) else iter(text)
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        verb = words[0].lower()
        if verb not in ("lift", "place", "wait", "press", "hold"):
            raise ScriptError(
                number, f"unknown action {_shown(words[0])} (lift S, place S, wait MS, press NAME, hold NAME)"
            )
        if len(words) != 2:
            raise ScriptError(number, f"{verb} takes exactly one argument, got {len(words) - 1}")
        arg = words[1]
        # ASCII digits only, and few of them: int() takes other scripts' digits ("²"
        # passes isdigit() and then fails) and refuses thousands of digits.
        if verb in ("lift", "place"):
            if not is_ascii_digits(arg, 2) or not 1 <= int(arg) <= 32:
                raise ScriptError(number, f"{verb} needs a square 1-32, got {_shown(arg)}")
            yield Action(verb, int(arg), number)
        elif verb == "wait":
            if not (arg.isascii() and arg.isdigit()):
                raise ScriptError(number, f"wait needs whole milliseconds >= 0, got {_shown(arg)}")
            if not is_ascii_digits(arg, 9) or int(arg) > MAX_WAIT_MS:
                raise ScriptError(number, f"wait may be at most {MAX_WAIT_MS} ms (a day), got {_shown(arg)}")
            yield Action(verb, int(arg), number)
        else:
            name = arg.lower()
            if not name.isascii() or not _BUTTON.fullmatch(name):
                raise ScriptError(number, f"{verb} needs a button name, got {_shown(arg)}")
            yield Action(verb, name, number)


def _tokens(position: Position) -> dict[int, str]:
    return {square: piece.symbol for square, piece in position.pieces().items()}


def iter_replay(
    actions: Iterable[Action],
    position: Position | None,
    rules: Rules,
    mode: str = "play",
    settings: TrackerSettings = TrackerSettings(),
    *,
    lights: bool = False,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    referee: RefereeSettings | None = None,
    seen: Callable[[Game], None] | None = None,
    buttons: Sequence[str] | None = None,
) -> Iterator[Event]:
    """Run ``actions`` and yield the events as they happen, ``final`` last.

    ``seen``, if given, is shown the game the board follows after each step, before
    that step's events (as a board's outputs are shown its snapshot: a voice reads the
    position there).

    With ``referee`` settings (``referee`` mode only) a :class:`~crownhead.firmware.referee.arbiter.Referee`
    judges the game from the first instant (the follower's judge): cautions, claims, the
    ballot, the clock (the session's, under the referee's time control), as ``crownhead
    replay --mode referee`` does. Without them the tracker runs alone under its
    ``referee`` policy (touch-move enforced, no takeback, no hints).

    ``buttons``: the board's buttons (:func:`script_buttons`), so that ``actions`` may be
    an iterator read as the replay goes (a long script never held as a list); without
    them they are found from ``actions``, listed first.

    Raises :class:`ScriptError` for an action the board does not allow (lifting from an
    empty square, placing on an occupied one), after the events before it.
    """
    if buttons is None:
        actions = list(actions)
        buttons = _button_names(actions)
    start = position if position is not None else Position.start(rules)
    clock = VirtualClock(0)
    board = SimBoard(clock, pieces=_tokens(start), buttons=tuple(buttons))
    if referee is not None and mode != "referee":
        raise ValueError(f"referee settings need the referee mode, not {mode!r}")
    session = GameSession(Game(start, rules), time_control=referee.clock if referee is not None else None)
    tracker = Tracker(session, settings, mode)
    follower = Follower(tracker, Referee(referee) if referee is not None else None)
    debouncer = Debouncer(debounce_ms, initial=board.sensors.snapshot())
    controller = Controller(board.sensors, board.buttons, follower, debouncer, clock, lights=lights)

    def pending() -> int | None:
        times = [t for t in (controller.next_deadline(), board.next_event_ms()) if t is not None]
        return min(times) if times else None

    def shown(events: list[Event]) -> list[Event]:
        if seen is not None:
            seen(tracker.game)
        return events

    def run_to(target: int) -> Iterator[Event]:
        while True:
            due = pending()
            if due is None or due > target:
                break
            clock.set(max(due, clock.now_ms()))
            yield from shown(controller.step())
        clock.set(max(target, clock.now_ms()))
        yield from shown(controller.step())

    if referee is not None:
        yield from shown(follower.begin(0))  # the clock starts, the ballot is drawn
    yield from shown(controller.step())
    for action in actions:
        if action.verb == "wait":
            yield from run_to(clock.now_ms() + int(action.arg))
            _check_plies(tracker.game, action)
            continue
        try:
            if action.verb == "lift":
                board.lift(int(action.arg))
            elif action.verb == "place":
                square = int(action.arg)
                board.place(square, None if board.hand else "?")
            else:
                board.press(str(action.arg), long=action.verb == "hold")
        except SimError as exc:
            raise ScriptError(action.line, f"{action}: {exc}") from None
        yield from shown(controller.step())
        _check_plies(tracker.game, action)
    follower.clock_deadline = False  # run on for the board, not until a flag falls
    limit = clock.now_ms() + _RUN_ON_LIMIT
    while (due := pending()) is not None:
        if due > limit:
            raise RuntimeError(f"the replay is still busy {_RUN_ON_LIMIT} ms after the script ended")
        yield from run_to(due)
    yield Final(clock.now_ms(), tracker.position.fen(), tracker.game.ply)


def _check_plies(game: Game, action: Action) -> None:
    if game.ply > MAX_PLIES:
        raise ScriptError(action.line, f"the game passes {MAX_PLIES:,} plies: no real game has as many")


def _button_names(actions: Iterable[Action]) -> tuple[str, ...]:
    """The board's buttons: the usual ones and any other the script presses."""
    names = list(BUTTON_NAMES)
    for a in actions:
        if a.verb in ("press", "hold") and a.arg not in names:
            names.append(str(a.arg))
    return tuple(names)


def replay(
    actions: Sequence[Action],
    position: Position | None,
    rules: Rules,
    mode: str = "play",
    settings: TrackerSettings = TrackerSettings(),
    *,
    lights: bool = False,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    referee: RefereeSettings | None = None,
) -> list[Event]:
    """Every event of :func:`iter_replay` as a list."""
    return list(
        iter_replay(actions, position, rules, mode, settings, lights=lights, debounce_ms=debounce_ms, referee=referee)
    )
