"""The buzzer: patterns on gpiozero's MockFactory pins over virtual time, and when the
board plays them (a caution, the machine's move, a flag about to fall and fallen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from crownhead.firmware.config import default_config
from crownhead.firmware.display.panel import attach_board_parts
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.sound.player import PATTERNS, BoardSound, SoundPlayer
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.buzzer import GpioBuzzer
from crownhead.hal.clock import VirtualClock
from crownhead.sim.buzzer import SimBuzzer

from helpers.rig import Rig, machine_rig, referee_rig


def pin_states(pattern: str, kind: str = "passive", volume: float = 0.5) -> list[tuple[int, object, object]]:
    """(time, pin state, frequency) at every millisecond the pin changes, over the pattern."""
    factory = MockFactory(pin_class=MockPWMPin) if kind == "passive" else MockFactory()
    clock = VirtualClock()
    buzzer = GpioBuzzer(18, kind, volume=volume, pin_factory=factory)
    player = SoundPlayer(buzzer, clock)
    pin = factory.pin(18)
    out: list[tuple[int, object, object]] = []
    player.play(pattern)
    total = sum(ms for _hz, ms in PATTERNS[pattern]) + 50
    for t in range(total):
        clock.set(t)
        player.update()
        state = (pin.state, getattr(pin, "frequency", None) if pin.state else None)
        if not out or out[-1][1:] != state:
            out.append((t, *state))
    buzzer.close()
    return out


def test_a_passive_piezo_plays_the_caution_pattern_on_the_pin() -> None:
    assert pin_states("illegal") == [(0, 0.25, 220), (150, 0, None), (230, 0.25, 220), (380, 0, None)]


def test_volume_is_the_duty_cycle_and_zero_is_silent() -> None:
    assert pin_states("machine", volume=1.0)[0] == (0, 0.5, 880)
    assert pin_states("machine", volume=0.0) == [(0, 0, None)]


def test_an_active_buzzer_is_on_and_off() -> None:
    assert pin_states("game-over", kind="active") == [(0, True, None), (600, False, None)]
    # Its pattern is told apart by rhythm: "flag" has three sounds.
    assert [state for _t, state, _f in pin_states("flag", kind="active")] == [True, False, True, False, True, False]


def test_the_patterns_are_distinct() -> None:
    assert len({steps for steps in PATTERNS.values()}) == len(PATTERNS) == 5


def test_silent_by_default_in_the_simulator(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    assert attach_board_parts(rig.app, default_config()) == []
    sounding = default_config().replace("sim", sound=True)
    (part,) = attach_board_parts(rig.app, sounding)
    assert isinstance(part, BoardSound)


def _sound(app) -> tuple[BoardSound, SimBuzzer]:  # type: ignore[no-untyped-def]
    buzzer = SimBuzzer(app.clock)
    return BoardSound(SoundPlayer(buzzer, app.clock)).attach(app), buzzer


def test_a_wrong_move_and_the_machines_move_sound(tmp_path: Path) -> None:
    rig = machine_rig(tmp_path)
    sound, buzzer = _sound(rig.app)
    rig.do("11-15")
    assert sound.player.played == ["machine"]
    Hands(rig.app).act_text("22")  # a White man moved where the machine did not say
    Hands(rig.app).act_text("13")
    rig.wait(1500)
    assert sound.player.played[-1] == "illegal"
    # The tones follow the pattern on the buzzer, each at its time.
    hz = [h for _t, h in buzzer.tones if h is not None]
    assert hz[:2] == [880, 1175] and hz[-2:] == [220, 220]


def test_the_last_ten_seconds_tick_and_the_fallen_flag_sounds(tmp_path: Path) -> None:
    board = referee_rig(tmp_path, RefereeSettings(clock=TimeControl.parse("15")))
    sound, buzzer = _sound(board.app)
    board.script("lift 11\nwait 100\nplace 15\nwait 1000\n")  # White's clock runs
    assert "flag-near" not in sound.player.played
    board.app.run_for(20_000)
    played = sound.player.played
    assert played.count("flag-near") == 10 and played[-1] == "flag"  # not game-over as well
    ticks = [t for t, h in buzzer.tones if h == 1760]
    assert [b - a for a, b in zip(ticks, ticks[1:])] == [1000] * 9  # once a second
    flag = [e for e in board.events if e.kind == "flag"]
    assert flag and ticks[-1] < flag[0].t <= ticks[-1] + 1000
    board.app.close()


@pytest.mark.parametrize("kind", ["passive", "active"])
def test_close_silences_and_releases_the_pin(kind: str) -> None:
    factory = MockFactory(pin_class=MockPWMPin) if kind == "passive" else MockFactory()
    buzzer = GpioBuzzer(18, kind, pin_factory=factory)
    buzzer.tone(440)
    buzzer.close()
    assert not factory.pin(18).state
    GpioBuzzer(18, kind, pin_factory=factory).close()  # the pin is free again
