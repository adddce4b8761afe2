"""CPU cost of the display and the game clock: per frame drawn, and per main-loop step.

1. One display frame: laying a screen out and drawing it (Pillow), then sending it
   through luma's SSD1306 driver code (the I2C write replaced by a bus that takes the
   bytes), for a screen with both clocks running and a message, and for one without a
   clock. The frames are drawn in the painter's own thread, off the main loop.
2. The main loop's step, in its own thread's CPU time (``time.thread_time``), for the
   plain two-player board (the baseline, as ``bench/app.py`` measures it), the same game
   with the board's clock running (``--clock``) and the display attached (the painter
   thread drawing as it would on a board), and a referee game with its clock, without
   and with the display: the ratios are what the clock and display add.

    .venv/bin/python bench/board.py            # about 20 s
    .venv/bin/python bench/board.py --steps 20000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crownhead.firmware.app.application import App  # noqa: E402
from crownhead.firmware.app.settings import AppSettings  # noqa: E402
from crownhead.firmware.app.hardware import open_hardware  # noqa: E402
from crownhead.firmware.app.players import Thinker  # noqa: E402
from crownhead.firmware.config import default_config  # noqa: E402
from crownhead.firmware.display.panel import BoardPanel, Painter  # noqa: E402
from crownhead.firmware.simulator.hands import Hands  # noqa: E402
from crownhead.firmware.display.render import Screen, draw, layout  # noqa: E402
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings  # noqa: E402
from crownhead.firmware.gameclock import TimeControl  # noqa: E402
from crownhead.firmware.storage.store import GameStore  # noqa: E402
from crownhead.hal.clock import VirtualClock  # noqa: E402
from crownhead.hal.luma_display import LumaDisplay  # noqa: E402

STEP_MS = 10


class Bus:
    """Takes the bytes luma's I2C interface writes (no hardware)."""

    def write_i2c_block_data(self, address: int, mode: int, data: list[int]) -> None:
        pass


def frame_cost(screen: Screen, frames: int) -> tuple[float, float]:
    """Median CPU microseconds of (layout + draw) and of (layout + draw + luma send)."""
    display = LumaDisplay("ssd1306", bus=Bus())
    draw_runs, send_runs = [], []
    for _ in range(5):
        started = time.process_time()
        for i in range(frames):
            draw(layout(screen, i * 1000))
        draw_runs.append((time.process_time() - started) / frames * 1e6)
        started = time.process_time()
        for i in range(frames):
            display.show(draw(layout(screen, i * 1000)))
        send_runs.append((time.process_time() - started) / frames * 1e6)
    display.close()
    return statistics.median(draw_runs), statistics.median(send_runs)


def make_app(state: Path, *, refereed: bool, clocked: bool = False) -> tuple[App, VirtualClock]:
    """A board at rest after a move; ``refereed``: a referee game with its clock,
    ``clocked``: a two-player game with the board's clock (``--clock``)."""
    clock = VirtualClock()
    hardware = open_hardware(default_config(), clock)
    referee = Referee(RefereeSettings(clock=TimeControl.parse("3600"))) if refereed else None
    app = App(
        hardware,
        clock=clock,
        settings=AppSettings(
            mode="referee" if refereed else "play",
            clock=TimeControl.parse("3600") if clocked else None,
        ),
        store=GameStore(state),
        thinker=Thinker(background=False),
        referee=referee,
    )
    app.start()
    Hands(app).act_text("11-15")  # a move made: White's clock runs (when there is one)
    app.run_for(1000)
    return app, clock


def step_cost(app: App, clock: VirtualClock, steps: int) -> float:
    runs = []
    for _ in range(5):
        started = time.thread_time()
        for _ in range(steps):
            clock.advance(STEP_MS)
            app.step()
        runs.append((time.thread_time() - started) / steps * 1e6)
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    clocked = Screen(
        turn="White to move", message="caution: forced capture", black_ms=297_700, white_ms=300_000, running="white"
    )
    plain = Screen(turn="Black to move", message="crown 1")
    clocked_draw, clocked_send = frame_cost(clocked, args.frames)
    plain_draw, plain_send = frame_cost(plain, args.frames)
    with (
        tempfile.TemporaryDirectory() as a,
        tempfile.TemporaryDirectory() as b,
        tempfile.TemporaryDirectory() as c,
        tempfile.TemporaryDirectory() as d,
    ):
        base_app, base_clock = make_app(Path(a), refereed=False)
        base = step_cost(base_app, base_clock, args.steps)
        play_app, play_clock = make_app(Path(d), refereed=False, clocked=True)
        play_painter = Painter(LumaDisplay("ssd1306", bus=Bus()), play_clock, background=True)
        play_panel = BoardPanel(play_painter).attach(play_app)
        play_with_parts = step_cost(play_app, play_clock, args.steps)
        play_panel.close()
        play_app.close()
        ref_app, ref_clock = make_app(Path(c), refereed=True)
        refereed = step_cost(ref_app, ref_clock, args.steps)
        ref_app.close()
        app, clock = make_app(Path(b), refereed=True)
        painter = Painter(LumaDisplay("ssd1306", bus=Bus()), clock, background=True)
        panel = BoardPanel(painter).attach(app)
        with_parts = step_cost(app, clock, args.steps)
        frames = painter.frames
        panel.close()
        app.close()
        base_app.close()
    print(f"python {sys.version.split()[0]}, one step every {STEP_MS} ms of virtual time")
    print(
        f"display frame, clocks running:  {clocked_draw:7.0f} us CPU to draw, {clocked_send:7.0f} us with luma's SSD1306 send"
    )
    print(f"display frame, no clock:        {plain_draw:7.0f} us CPU to draw, {plain_send:7.0f} us with the send")
    print(f"main-loop step, today's board (baseline): {base:7.1f} us CPU")
    print(
        f"main-loop step, two players, board clock running + display: {play_with_parts:7.1f} us CPU "
        f"({play_with_parts / base:.2f}x the baseline)"
    )
    print(f"main-loop step, referee clock running:            {refereed:7.1f} us CPU ({refereed / base:.2f}x)")
    print(
        f"main-loop step, referee clock running + display: {with_parts:7.1f} us CPU "
        f"({with_parts / base:.2f}x the baseline, {with_parts / refereed:.2f}x the refereed game without "
        f"the display; {frames} frames drawn by the painter thread)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
