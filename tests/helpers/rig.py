"""The one harness for a whole board application: simulated board, virtual clock, events.

Every application-level test builds its board with :class:`Rig`: play, computer, hint,
referee and link tests alike (the ``make_rig`` fixture of ``conftest.py`` builds rigs and closes
them after the test). Nothing here sleeps: virtual time passes only when a test says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from crownhead.firmware.app.application import App
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.hardware import open_hardware
from crownhead.firmware.app.leds import LedSettings, Palette
from crownhead.firmware.app.players import Human, Player, RandomMover, Thinker
from crownhead.firmware.config import default_config
from crownhead.firmware.events import Event
from crownhead.firmware.link.host import Link
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.simulator.script import parse_script
from crownhead.firmware.storage.store import GameStore
from crownhead.hal.clock import Clock, VirtualClock
from crownhead.rules import BLACK, WHITE, Game, Position

PAL = Palette()
BACKGROUND = LedSettings().background


def dim(rgb: tuple[int, int, int], factor: float = BACKGROUND) -> tuple[int, int, int]:
    """A colour at the background level, as the policy dims kings and the last move."""
    return tuple(0 if c == 0 else max(1, int(c * factor + 0.5)) for c in rgb)  # type: ignore[return-value]


def tokens(position: Position) -> dict[int, str]:
    """The pieces of ``position`` as the simulator's tokens (``b``, ``w``, ``B``, ``W``)."""
    return {s: p.symbol for s, p in position.pieces().items()}


class Rig:
    """An :class:`App` with its simulated board, clock, state directory and event log.

    ``state`` is the store's directory (None: no store). ``board`` sets the pieces on the
    simulated board (it does not tell the application: ``settings.start`` does that).
    ``referee`` puts a :class:`Referee` (or one with those settings) in charge (``settings.mode``
    should then be ``"referee"``); ``referee_settings`` are the configured ones the
    application uses when a referee is asked for later. ``clock`` replaces the virtual
    clock (a live board runs on the real one). ``sinks`` receive every event besides
    :attr:`events`, which ``record=False`` leaves empty (a run of hours must not keep
    them). With ``start=False`` the
    application is built but not started, so that a test (or :meth:`connect`) can change
    it first.
    """

    def __init__(
        self,
        state: Path | None,
        *,
        board: Position | Mapping[int, str] | None = None,
        settings: AppSettings = AppSettings(),
        leds: LedSettings | None = None,
        players: Mapping[Any, Player] | None = None,
        thinker: Thinker | None = None,
        referee: RefereeSettings | Referee | None = None,
        referee_settings: RefereeSettings | None = None,
        clock: Clock | None = None,
        sinks: Iterable[Callable[[Event], None]] = (),
        record: bool = True,
        start: bool = True,
    ) -> None:
        self.clock: Any = clock if clock is not None else VirtualClock()
        self.hw = open_hardware(default_config(), self.clock)
        sim = self.hw.sim
        assert sim is not None
        self.sim = sim
        if board is not None:
            self.sim.set_position(tokens(board) if isinstance(board, Position) else dict(board))
        self.events: list[Event] = []
        self.store = GameStore(state) if state is not None else None
        self.referee = Referee(referee) if isinstance(referee, RefereeSettings) else referee
        self.link: Link | None = None
        self.transport: Any = None
        self.app = App(
            self.hw,
            clock=self.clock,
            settings=settings,
            leds=leds,
            store=self.store,
            players=players,
            thinker=thinker or Thinker(background=False),
            sinks=([self.events.append] if record else []) + list(sinks),
            referee=self.referee,
            referee_settings=referee_settings,
        )
        if start:
            self.app.start()

    def connect(self, transport: Any, config: LinkConfig = LinkConfig(), kind: type[Link] = Link) -> Link:
        """Put a host link (a ``kind``) on ``transport`` into the application (before it starts)."""
        self.transport = transport
        self.link = kind(transport, config)
        self.link.attach(self.app)
        return self.link

    # -- acting -----------------------------------------------------------------------------

    def do(self, text: str, wait: int = 1000) -> list[Event]:
        """The simulator's hands make ``text`` (a move, a button), then ``wait`` virtual ms pass."""
        Hands(self.app).act_text(text)
        return self.app.run_for(wait)

    def follow(self, wait: int = 1000) -> list[Event]:
        """The hands do what the lights ask (the move shown, a set-up), then time passes."""
        Hands(self.app).follow()
        return self.app.run_for(wait)

    def script(self, text: str) -> list[Event]:
        """Perform a replay script (``lift 11``, ``wait 200``, ...) on the simulated board."""
        return Hands(self.app).run_script(parse_script(text))

    def wait(self, ms: int) -> list[Event]:
        """Let ``ms`` of virtual time pass, the main loop stepping as it does on the board."""
        return self.app.run_for(ms)

    def wait_for(self, done: Callable[[], bool], what: str, step_ms: int = 20, timeout_s: float = 60.0) -> None:
        """Let virtual time pass ``step_ms`` at a time until ``done()``.

        For answers that come from a worker thread (a computer player thinking in the
        background): the thread runs in real time, so the loop yields the processor
        between steps, and ``timeout_s`` seconds of real time bound only a failure, however
        busy the machine.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            self.app.run_for(step_ms)
            if done():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout_s} s of real time")
            time.sleep(0.002)

    def step(self) -> list[Event]:
        """One turn of the main loop, without moving the clock on."""
        return self.app.step()

    # -- looking ----------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.app.game

    @property
    def lit(self) -> dict[Any, tuple[int, int, int]]:
        """What the simulated LEDs show now."""
        return dict(self.sim.lights.current)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """The events of ``kind`` so far, as their JSON objects."""
        return [e.to_json() for e in self.events if e.kind == kind]

    def moves(self) -> list[str]:
        return [e["move"] for e in self.of_kind("move")]

    def frames_between(self, t0: int, t1: int) -> list[dict[Any, tuple[int, int, int]]]:
        return [f.frame for f in self.sim.lights.frames if t0 <= f.t_ms <= t1]

    def close(self) -> None:
        try:
            self.app.close()
        finally:
            if self.link is not None:
                self.link.close()


def referee_rig(
    tmp: Path,
    settings: RefereeSettings,
    *,
    leds: LedSettings | None = None,
    mode: str = "referee",
    board: Position | None = None,
    keep: bool = False,
) -> Rig:
    """The application with a referee on ``settings`` (in ``mode``; none in another mode).

    The store is ``tmp/state``. ``board`` is the start position, on the simulated board
    and in the game; ``keep`` leaves the simulated board as the saved game left it, as
    after a power cut.
    """
    return Rig(
        tmp / "state",
        board=board,
        settings=AppSettings(mode=mode, start=board, sim_keep_game=keep),
        leds=leds,
        referee=settings if mode == "referee" else None,
    )


def second_refereed_game_under_way(tmp: Path, settings: RefereeSettings) -> Rig:
    """A referee's rig (``tmp/state``) whose game 1 Black resigned after 11-15 and whose
    game 2 (colours reversed) is two plies in, the clock running: for a power cut there."""
    rig = referee_rig(tmp, settings, board=Position.start())
    rig.wait(500)
    rig.do("11-15")
    rig.do("hold resign")
    rig.wait(500)
    rig.do("n")
    rig.do("f")
    rig.wait(1500)
    rig.do("11-15")
    rig.do("22-18")
    rig.wait(3000)
    return rig


#: The computer mode the machine tests play in: Ann (a person) has Black.
COMPUTER = AppSettings(mode="computer", auto_crown=True)


def machine_rig(tmp_path: Path, seed: int = 3, **kwargs: Any) -> Rig:
    """The application in computer mode: Ann plays Black, a seeded random mover White."""
    players = {BLACK: Human("Ann"), WHITE: RandomMover(seed)}
    return Rig(tmp_path, settings=kwargs.pop("settings", COMPUTER), players=players, **kwargs)


#: The type of the ``make_rig`` fixture: ``make_rig(**options)`` or ``make_rig(state, **options)``.
MakeRig = Callable[..., Rig]
