"""Who plays each side: a person at the board, or a computer that chooses moves; and the
engine's move the hint button shows (:class:`Hints`).

A computer player is any ``choose(position, game) -> Move`` function with a name. The
board shows the chosen move on its LEDs and waits for a person to make it by hand, so a
computer never moves pieces itself.

>>> from crownhead.rules import WCDF, Game
>>> mover = RandomMover(seed=1)
>>> game = Game(None, WCDF)
>>> mover.choose(game.position, game) in game.legal_moves()
True
>>> Human("Ann").is_human, mover.is_human
(True, False)
"""

from __future__ import annotations

import concurrent.futures
import importlib
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from crownhead.firmware.events import Event, Notice
from crownhead.rules import Color, Game, Move, Position
from crownhead.rules.game import Huff, JumpForced

__all__ = [
    "ChooseFn",
    "Player",
    "Human",
    "Computer",
    "MachineSpec",
    "RandomMover",
    "machine_player",
    "PlayerError",
    "EngineUnavailable",
    "engine_player",
    "Thinker",
    "Hints",
    "LEVEL_MARGIN",
    "draw_answer",
    "copy_game",
    "called",
]

ChooseFn = Callable[[Position, Game], Move]

#: The names PDN and the board give a player nobody named.
_UNNAMED = frozenset({"", "?", "-"})


def called(name: str, side: str) -> str:
    """What to call a player on a screen: the name, or the side (``side``, as it is to
    be shown) when nobody gave one, since "? plays 11-15" tells a newcomer nothing.

    >>> called("Ann", "Black"), called("?", "Black"), called(" ", "white")
    ('Ann', 'Black', 'white')
    """
    return side if name.strip() in _UNNAMED else name


class PlayerError(RuntimeError):
    """A computer player failed or chose a move that is not legal."""


class EngineUnavailable(PlayerError):
    """The engine package (``crownhead.rules.engine``) is not installed in this checkout."""


@runtime_checkable
class Player(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def is_human(self) -> bool: ...


@dataclass(frozen=True)
class Human:
    """A person at the board: their moves come from the board's switches."""

    name: str = "?"

    @property
    def is_human(self) -> bool:
        return True


@dataclass(frozen=True)
class MachineSpec:
    """Which machine plays, as a game record keeps it to make the same one again after a
    restart: the engine at ``level`` (None: full strength), or the random test player.

    >>> machine_player(MachineSpec("random", seed=4)).spec
    MachineSpec(opponent='random', level=None, seed=4)
    """

    opponent: str = "engine"
    level: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.opponent not in ("engine", "random"):
            raise ValueError(f"the machine is the engine or random, got {self.opponent!r}")
        if self.level is not None and not 1 <= self.level <= 10:
            raise ValueError(f"the engine's level is 1-10, got {self.level}")


class Computer:
    """A machine player around a ``choose(position, game) -> Move`` function.

    :meth:`choose` checks the answer: a move that is not legal in the position is a
    :class:`PlayerError` naming the player, never something the board would ask a
    person to make. ``spec`` says which machine it is (None: one made in code, which
    a restart cannot make again).
    """

    def __init__(self, choose: ChooseFn, name: str, spec: MachineSpec | None = None) -> None:
        self._choose = choose
        self.name = name
        self.spec = spec

    @property
    def is_human(self) -> bool:
        return False

    def choose(self, position: Position, game: Game) -> Move:
        legal = _legal(position, game)
        if not legal:
            raise PlayerError(f"{self.name} was asked to move in a position without legal moves")
        try:
            move = self._choose(position, game)
        except PlayerError:
            raise
        except Exception as exc:  # an engine bug must not take the board down
            raise PlayerError(f"{self.name} failed: {type(exc).__name__}: {exc}") from exc
        if move not in legal:
            shown = move.pdn(full=True) if isinstance(move, Move) else repr(move)
            raise PlayerError(f"{self.name} chose {shown}, which is not legal in {position.fen()}")
        return move

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomMover(Computer):
    """Plays a uniformly random legal move: a test partner, not an opponent.

    Named so that no one mistakes it for the engine in a game record.
    """

    NAME = "Random mover (test player)"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        super().__init__(self._pick, self.NAME, MachineSpec("random", seed=seed))

    def _pick(self, position: Position, game: Game) -> Move:
        return self._rng.choice(_legal(position, game))


class _EngineObject(Protocol):
    """What :func:`engine_player` needs of an engine module's ``Engine`` instance: a search
    whose result has a ``move`` (the module is found at run time, so its result's type is
    not known here)."""

    def search(self, position: Position, **limits: Any) -> Any: ...


def engine_player(
    module: str = "crownhead.rules.engine",
    *,
    level: int | None = None,
    movetime_ms: int | None = None,
    seed: int | None = None,
    egdb: object | None = None,
) -> Computer:
    """The engine as a player.

    ``module`` either defines ``choose(position, game) -> Move``, or (as ``crownhead.rules.engine``
    does) an ``Engine(rules, seed=...)`` class whose ``search(position, history=...,
    strength=..., movetime_ms=...)`` returns a result with a ``move``. ``level`` (1-10)
    is the engine's playing strength, ``movetime_ms`` its time per move. One engine is
    kept for the whole game, so what it learnt in one search helps the next. ``egdb``
    (endgame databases, see :func:`crownhead.firmware.egdb.load_probe`) is handed to the engine
    class as ``egdb=`` when given. Raises
    :class:`EngineUnavailable`, with a message saying what to do, when there is no engine.
    """
    try:
        engine = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            raise EngineUnavailable(
                f"the engine ({module}) is not installed; play two people at the board "
                "(--mode play) or use --opponent random for a random-move test player"
            ) from exc
        raise
    name = str(getattr(engine, "NAME", None) or "Crownhead engine")
    if level is not None:
        name += f" (level {level})"
    limits: dict[str, object] = {}
    if level is not None:
        limits["strength"] = level
    elif module == "crownhead.rules.engine":
        limits["book"] = True  # full strength opens with the master games' moves
    if movetime_ms is not None:
        limits["movetime_ms"] = movetime_ms
    choose = getattr(engine, "choose", None)
    if callable(choose):

        def call(position: Position, game: Game) -> Move:
            return choose(position, game, **limits) if limits else choose(position, game)

        return Computer(call, name, MachineSpec("engine", level, seed))
    engine_class = getattr(engine, "Engine", None)
    if engine_class is None:
        raise EngineUnavailable(f"{module} has neither a choose(position, game) function nor an Engine class")
    engines: dict[object, _EngineObject] = {}
    # A cancelled search cannot be interrupted: the next one waits for it rather than
    # sharing the engine's tables with it.
    lock = threading.Lock()

    def search(position: Position, game: Game) -> Move:
        with lock:
            found = engines.get(game.rules)
            if found is None:
                extra = {"egdb": egdb} if egdb is not None else {}
                found = engines[game.rules] = engine_class(game.rules, seed=seed, **extra)
            result = found.search(position, history=game.positions[:-1], **limits)
            return result.move

    return Computer(search, name, MachineSpec("engine", level, seed))


def machine_player(spec: MachineSpec, egdb: object | None = None) -> Computer:
    """The machine ``spec`` names: the engine (with the endgame databases ``egdb``) or the
    random mover. Raises :class:`EngineUnavailable` when the engine is not installed."""
    if spec.opponent == "random":
        return RandomMover(spec.seed)
    return engine_player(level=spec.level, seed=spec.seed, egdb=egdb)


def _legal(position: Position, game: Game) -> list[Move]:
    """The moves allowed in ``position``: only jumps after a forced jump (huffing)."""
    return game.legal_moves() if position == game.position else position.legal_moves(game.rules)


def copy_game(game: Game) -> Game:
    """An independent copy of ``game``, for a player thinking while the board plays on."""
    copy = Game(game.start, game.rules)
    for entry in game.history:  # moves, and under huffing the huffs and forced jumps
        if isinstance(entry, Huff):
            copy.huff(entry.square)
        elif isinstance(entry, JumpForced):
            copy.force_jump()
        else:
            copy.play(entry)
    copy.declared = game.declared
    return copy


class Thinker:
    """Runs a computer player's choice without stalling the board's main loop.

    With ``background=True`` the choice runs in a worker thread and :meth:`poll` returns
    None until it is ready; with ``background=False`` (tests, scripted runs) it runs at
    once inside :meth:`start`, which keeps everything deterministic.
    """

    def __init__(self, background: bool = True) -> None:
        self.background = background
        self._future: concurrent.futures.Future[Move] | None = None
        self._key: tuple[int, Position] | None = None

    @property
    def busy(self) -> bool:
        return self._future is not None

    def thinking_about(self, game: Game) -> bool:
        """Whether the pending choice is for ``game``'s current position."""
        return self._key == (game.ply, game.position)

    def start(self, player: Computer, game: Game) -> None:
        """Begin choosing a move for the side to move in ``game``."""
        self.cancel()
        snapshot = copy_game(game)
        self._key = (game.ply, game.position)
        if not self.background:
            future: concurrent.futures.Future[Move] = concurrent.futures.Future()
            try:
                future.set_result(player.choose(snapshot.position, snapshot))
            except Exception as exc:
                future.set_exception(exc)
            self._future = future
            return
        future = concurrent.futures.Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(player.choose(snapshot.position, snapshot))
            except BaseException as exc:
                future.set_exception(exc)

        # A daemon thread, not an executor: a search in progress must never hold up
        # the shutdown of the board (SIGTERM turns the LEDs off and exits at once).
        threading.Thread(target=work, name="crownhead-player", daemon=True).start()
        self._future = future

    def poll(self) -> Move | None:
        """The chosen move once ready (then the thinker is idle again); raises its error."""
        future = self._future
        if future is None or not future.done():
            return None
        self._future = None
        self._key = None
        return future.result()

    def cancel(self) -> None:
        """Forget a pending choice (a takeback or new game made it moot)."""
        if self._future is not None:
            self._future.cancel()
        self._future = None
        self._key = None

    def close(self) -> None:
        self.cancel()


#: Centi-men within which the engine calls a position level (a tenth of a man).
LEVEL_MARGIN = 10


def draw_answer(game: Game, side: Color, *, depth: int = 4, movetime_ms: int = 200) -> tuple[bool, int]:
    """Whether the engine playing ``side`` accepts a draw offer now, and its score for ``side``.

    It accepts when a short search (``depth`` plies, at most ``movetime_ms``) says the
    game is level (within :data:`LEVEL_MARGIN`) or worse for it. Short enough to run in
    the main loop (a few milliseconds on a PC at depth 4).

    >>> from crownhead.rules import BLACK, WCDF, WHITE, Game, Position
    >>> lost = Game(Position.from_fen("W:W31:B1,2,3"), WCDF)
    >>> draw_answer(lost, WHITE)[0], draw_answer(lost, BLACK)[0]   # White accepts, Black not
    (True, False)
    """
    from crownhead.rules.engine import Engine

    result = Engine(game.rules).search(game.position, depth=depth, movetime_ms=movetime_ms, history=game.positions[:-1])
    score = result.score if game.turn == side else -result.score
    return score <= LEVEL_MARGIN, score


class Hints:
    """The engine's move the hint button asks for, found for the person to move.

    ``player`` finds it (default: the engine at ``movetime_ms``, made at the first hint);
    ``thinker`` runs it, apart from the machine's own so that a hint never disturbs the
    machine's thinking. The move found is kept with the (ply, position) it is for, and
    shown while that is the game's.
    """

    def __init__(self, player: Computer | None, thinker: Thinker, movetime_ms: int) -> None:
        self.player = player
        self.thinker = thinker
        self.movetime_ms = movetime_ms
        #: The hint button asked for the engine's move this turn.
        self.wanted = False
        self._found: tuple[tuple[int, Position], Move] | None = None
        self._failed = False

    def move(self, game: Game) -> Move | None:
        """The move found, while it is still ``game``'s turn's."""
        if self._found is None:
            return None
        key, move = self._found
        return move if key == (game.ply, game.position) else None

    def forget(self) -> None:
        """The turn changed or a game began: the hint is moot, and so is its search."""
        self.wanted = False
        self._found = None
        self.thinker.cancel()

    def find(self, game: Game, allowed: bool, at_rest: bool, now: int, out: list[Event]) -> None:
        """Start, poll or drop the search for the hinted move. ``allowed``: a person is to
        move in a game under way; ``at_rest``: no piece is in hand (a piece in hand is
        the player's choice, and the revealed hints show where it can go)."""
        if not self.wanted and not self.thinker.busy:
            return
        if not allowed:
            self.forget()
            return
        if self.wanted and self.move(game) is not None:
            self.wanted = False  # pressed again: the move found stands
        if self.wanted and not self.thinker.thinking_about(game):
            self.wanted = False
            if not at_rest:
                return
            if not game.legal_moves():
                return
            player = self._engine(now, out)
            if player is None:
                return
            self._found = None
            self.thinker.start(player, game)
        try:
            move = self.thinker.poll()
        except PlayerError as exc:
            out.append(Notice(now, f"no hint: {exc}"))
            return
        if move is not None:
            self._found = ((game.ply, game.position), move)

    def _engine(self, now: int, out: list[Event]) -> Computer | None:
        """The hint's player, made at the first hint; None (said once) without an engine."""
        if self.player is None and not self._failed:
            try:
                self.player = engine_player(movetime_ms=self.movetime_ms)
            except EngineUnavailable as exc:
                self._failed = True
                out.append(Notice(now, f"the hint button shows the legal moves only: {exc}"))
        return self.player
