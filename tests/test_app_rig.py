"""A whole board application on the simulated board and a virtual clock, for the app tests.

The ``test_app*`` modules import :class:`Rig` from here; the tests at the end check the
rig itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from firmware.app.application import App, AppSettings
from firmware.config import default_config
from firmware.events import Event
from firmware.app.hardware import open_hardware
from firmware.app.leds import LedSettings, Palette
from firmware.app.players import Player, Thinker
from firmware.storage.store import GameStore
from firmware.simulator.hands import Hands
from hal.clock import VirtualClock
from rules import Position

PAL = Palette()
BACKGROUND = LedSettings().background


def dim(rgb: tuple[int, int, int], factor: float = BACKGROUND) -> tuple[int, int, int]:
    """A colour at the background level, as the policy dims kings and the last move."""
    return tuple(0 if c == 0 else max(1, int(c * factor + 0.5)) for c in rgb)  # type: ignore[return-value]


def tokens(position: Position) -> dict[int, str]:
    return {s: p.symbol for s, p in position.pieces().items()}


class Rig:
    """An :class:`App` with its simulated board, clock, state directory and event log."""

    def __init__(
        self,
        state: Path | None,
        *,
        board: Position | Mapping[int, str] | None = None,
        settings: AppSettings = AppSettings(),
        leds: LedSettings | None = None,
        players: Mapping[Any, Player] | None = None,
        thinker: Thinker | None = None,
        start: bool = True,
    ) -> None:
        self.clock = VirtualClock()
        self.hw = open_hardware(default_config(), self.clock)
        self.sim = self.hw.sim
        assert self.sim is not None
        if board is not None:
            self.sim.set_position(tokens(board) if isinstance(board, Position) else dict(board))
        self.events: list[Event] = []
        self.store = GameStore(state) if state is not None else None
        self.app = App(
            self.hw,
            clock=self.clock,
            settings=settings,
            leds=leds,
            store=self.store,
            players=players,
            thinker=thinker or Thinker(background=False),
            sinks=[self.events.append],
        )
        if start:
            self.app.start()

    # -- acting -----------------------------------------------------------------------------

    def do(self, text: str, wait: int = 1000) -> list[Event]:
        """Type ``text`` into the simulator, then let ``wait`` ms of virtual time pass."""
        Hands(self.app).act_text(text)
        return self.app.run_for(wait)

    def wait(self, ms: int) -> list[Event]:
        return self.app.run_for(ms)

    # -- looking ----------------------------------------------------------------------------

    @property
    def lit(self) -> dict[Any, tuple[int, int, int]]:
        """What the simulated LEDs show now."""
        return dict(self.sim.lights.current)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.events if e.kind == kind]

    def moves(self) -> list[str]:
        return [e["move"] for e in self.of_kind("move")]

    def frames_between(self, t0: int, t1: int) -> list[dict[Any, tuple[int, int, int]]]:
        return [f.frame for f in self.sim.lights.frames if t0 <= f.t_ms <= t1]

    def close(self) -> None:
        self.app.close()


# -- the rig itself ---------------------------------------------------------------------------


def test_rig_starts_a_game_on_the_start_position(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert [e["event"] for e in (x.to_json() for x in rig.events)] == ["new-game", "game-start"]
    assert rig.lit == {}
    assert rig.app.view().status == "Black to move, move 1"
    rig.close()


def test_rig_dim_matches_policy() -> None:
    from firmware.app.leds import LedPolicy

    assert LedPolicy().frame({5: "king"}, now_ms=0)[5] == dim(PAL.king)
