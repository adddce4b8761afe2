"""The display beside the board: drawn by luma's own code on its dummy device (only the
I2C write is absent), asserting what the image holds; faults, rate and change."""

from __future__ import annotations

import errno
import time
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.display.panel import BoardPanel, Painter
from crownhead.firmware.display.render import (
    HEIGHT,
    WIDTH,
    Item,
    Screen,
    clock_face,
    draw,
    fit,
    layout,
    shorten,
    text_width,
)
from crownhead.firmware.events import Side
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.clock import MonotonicClock, VirtualClock
from crownhead.hal.luma_display import LumaDisplay
from crownhead.sim.display import SimDisplay
from helpers.rig import Rig, referee_rig


def dummy_display() -> LumaDisplay:
    return LumaDisplay("ssd1306", device_factory=lambda: dummy(width=128, height=64, mode="1"))


def shown(display: LumaDisplay) -> Image.Image:
    """The picture luma's dummy device holds now."""
    assert display.device is not None
    return display.device.image.copy()


def items_of(screen: Screen, now: int) -> list[Item]:
    return layout(screen, now)


def assert_holds(image: Image.Image, items: list[Item], *texts: str) -> None:
    """The image is exactly these items, each of ``texts`` is one of them, none is cut."""
    assert image.size == (WIDTH, HEIGHT)
    assert ImageChops.difference(image.convert("1"), draw(items)).getbbox() is None
    lines = [item.text for item in items]
    for text in texts:
        assert text in lines, f"{text!r} not among {lines}"
    for item in items:
        if item.x >= 0:  # not scrolling: the whole line is on the screen
            assert item.x + text_width(item.text, item.size) <= WIDTH and item.y + item.size <= HEIGHT, item
        # Every line leaves pixels lit where it stands.
        box = (max(0, item.x), item.y, min(WIDTH, item.x + text_width(item.text, item.size)), item.y + item.size)
        assert image.crop(box).getbbox() is not None, item


def rig_with_display(tmp_path: Path, **kwargs: object) -> tuple[Rig, LumaDisplay, BoardPanel]:
    rig = Rig(tmp_path, **kwargs)  # type: ignore[arg-type]
    display = dummy_display()
    panel = BoardPanel(Painter(display, rig.clock, max_fps=4, background=False)).attach(rig.app)
    return rig, display, panel


def test_whose_move_and_the_short_message_on_luma_dummy_device(tmp_path: Path) -> None:
    rig, display, panel = rig_with_display(tmp_path)
    rig.wait(200)
    screen = panel._screen
    assert screen is not None and screen.turn == "Black to move" and not screen.has_clock
    assert_holds(shown(display), items_of(screen, rig.clock.now_ms()), "Black to move")
    rig.do("11-15")
    Hands(rig.app).act_text("22")  # White lifts a man and puts it down on 13: put it back
    Hands(rig.app).act_text("13")
    rig.wait(1500)
    screen = panel._screen
    assert screen is not None and screen.message == "put back 22"
    assert_holds(shown(display), items_of(screen, rig.clock.now_ms()), "White to move", "put back 22")
    panel.close()


def test_crowning_is_asked_in_short(tmp_path: Path) -> None:
    from crownhead.rules import Position

    start = Position.from_fen("B:W32:B26")
    rig, display, panel = rig_with_display(tmp_path, board=start, settings=AppSettings(start=start))
    rig.wait(500)
    rig.do("26-31")
    screen = panel._screen
    assert screen is not None and screen.message == "crown 31"
    assert_holds(shown(display), items_of(screen, rig.clock.now_ms()), "crown 31")
    panel.close()


def test_both_clocks_large_the_running_one_lit_and_the_result(tmp_path: Path) -> None:
    board = referee_rig(tmp_path, RefereeSettings(clock=TimeControl.parse("300")))
    display = dummy_display()
    panel = BoardPanel(Painter(display, board.clock, background=False)).attach(board.app)
    board.app.run_for(500)
    screen = panel._screen
    # Before Black's first lift the clock waits: shown, not running.
    assert (
        screen is not None
        and screen.has_clock
        and screen.paused
        and (screen.black_ms, screen.white_ms) == (300_000, 300_000)
    )
    board.script("lift 11\nwait 2000\nplace 15\nwait 1000\n")
    screen = panel._screen
    assert screen is not None and screen.running is Side.WHITE and not screen.paused
    drawn = panel.painter._last_frame  # as last drawn
    assert drawn is not None
    items = items_of(screen, drawn)
    black, white = screen.times(drawn)
    assert black == 300_000 - 2300  # Black's time ran from its lift to the move settled
    assert [i.text for i in items[:2]] == [clock_face(black), clock_face(white)]
    assert [i.inverted for i in items[:2]] == [False, True]  # White's clock runs: lit box
    assert items[0].size >= 20  # large
    assert_holds(shown(display), items, "White to move")
    # The clock redraws once a second while it runs, not more.
    frames = panel.painter.frames
    board.app.run_for(5000)
    assert 4 <= panel.painter.frames - frames <= 6
    Hands(board.app).act_text("hold white_resign")
    board.app.run_for(500)
    screen = panel._screen
    assert screen is not None and screen.result == "Black wins, resigned" and screen.running is None
    assert_holds(shown(display), items_of(screen, panel.painter._last_frame), "Black wins, resigned")
    panel.close()
    board.app.close()


def test_nothing_is_redrawn_without_a_change(tmp_path: Path) -> None:
    rig, display, panel = rig_with_display(tmp_path)
    rig.wait(1000)
    frames = panel.painter.frames
    rig.wait(60_000)
    assert panel.painter.frames == frames
    rig.do("11-15")
    assert panel.painter.frames == frames + 1
    panel.close()


def test_at_most_max_fps_frames_however_often_the_screen_changes() -> None:
    clock = VirtualClock()
    display = SimDisplay()
    painter = Painter(display, clock, max_fps=4, background=False)
    for i in range(100):
        painter.set(Screen(turn="Black to move", message=f"put back {i}"))
        painter.pump()
        clock.advance(10)  # a new screen every 10 ms for a second
    assert 4 <= display.frames <= 5
    clock.advance(250)
    painter.pump()  # the last screen is drawn once its turn comes
    assert display.lines == ("Black to move", "put back 99")


@pytest.mark.parametrize(
    "message",
    [
        "caution: forced capture",
        "put back 22",
        "crown 1",
        "white offers a draw",
        "black resigns? again",
        "no draw to claim",
    ],
)
def test_the_usual_messages_fit_whole(message: str) -> None:
    text, size, scrolls = fit(message, WIDTH, (13, 12, 11, 10))
    assert text == message and not scrolls and text_width(text, size) <= WIDTH


def test_a_long_line_is_shortened_by_rule_never_cut() -> None:
    long = "Game over: White wins (resignation)"
    text, size, scrolls = fit(long, 100, (13, 12, 11, 10))
    assert not scrolls and text == shorten(long, 100, 10) and text_width(text, size) <= 100
    assert "(" not in text and text.startswith("Game over")  # the aside went, nothing was cut mid-word


def test_a_line_too_long_for_any_rule_scrolls_through_every_character() -> None:
    message = "Crownhead engine (level 3) declines the draw: white is better (+0.35), play on"
    screen = Screen(turn="Black to move", message=message, since=0)
    first, later = layout(screen, 0)[1], layout(screen, 1000)[1]
    assert first.text == later.text == message  # the whole text, moving
    assert later.x < first.x <= 0
    images = [draw(layout(screen, t)) for t in (0, 1000)]
    assert ImageChops.difference(images[0], images[1]).getbbox() is not None


class Bus:
    """An I2C bus for luma's i2c interface: the display answers, or (unplugged) not."""

    def __init__(self) -> None:
        self.plugged = True
        self.writes = 0

    def write_i2c_block_data(self, address: int, mode: int, data: list[int]) -> None:
        if not self.plugged:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.writes += 1


def test_an_unplugged_display_is_reported_once_and_used_again_when_back(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    bus = Bus()
    display = LumaDisplay("sh1106", bus=bus)  # luma's real SH1106 driver over the bus
    panel = BoardPanel(Painter(display, rig.clock, retry_ms=2000, background=False)).attach(rig.app)
    rig.wait(200)
    assert display.frames == 1 and bus.writes > 0
    bus.plugged = False
    rig.do("11-15")
    rig.do("22-18")
    rig.do("15x22")
    notices = [e.message for e in rig.events if e.kind == "notice" and "display" in e.message]  # type: ignore[attr-defined]
    assert len(notices) == 1 and "cannot be reached" in notices[0] and "0x3C" in notices[0]
    assert rig.moves() == ["11-15", "22-18", "15x22"]  # the game went on
    bus.plugged = True
    rig.do("25x18", wait=3000)
    notices = [e.message for e in rig.events if e.kind == "notice" and "display" in e.message]  # type: ignore[attr-defined]
    assert len(notices) == 2 and "answers again" in notices[1]
    assert display.frames >= 2 and panel._screen is not None and panel._screen.turn == "Black to move"
    panel.close()


def test_the_painter_thread_draws_off_the_main_loop() -> None:
    display = SimDisplay()
    painter = Painter(display, MonotonicClock(), max_fps=10, background=True)
    try:
        painter.set(Screen(turn="White to move", message="crown 1"))
        deadline = time.monotonic() + 60  # a bound on a failure only
        while display.frames == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert display.lines == ("White to move", "crown 1")
    finally:
        painter.close()


def test_the_match_score_is_on_the_display(tmp_path: Path) -> None:
    from crownhead.firmware.config import default_config
    from crownhead.firmware.display.panel import attach_board_parts

    rig = Rig(tmp_path, start=False)
    config = default_config().replace("display", driver="ssd1306")
    from crownhead.firmware.app.hardware import open_hardware

    hardware = open_hardware(config, rig.clock)
    rig.app.hardware = hardware  # a board with a (simulated) display
    (panel,) = [p for p in attach_board_parts(rig.app, config, background=False) if isinstance(p, BoardPanel)]
    rig.app.hardware = rig.hw
    rig.app.start()
    rig.wait(300)
    assert panel.painter.frames >= 1 and panel._screen is not None and panel._screen.score == ""
    panel.score = lambda: "Match, game 2 of 4: Ana 1, Ben 0"
    rig.do("11-15")
    screen = panel._screen
    assert screen is not None and screen.score.startswith("Match, game 2")
    assert isinstance(hardware.display, SimDisplay)
    assert any(line.startswith("Match") for line in hardware.display.lines)  # whole, or scrolling
    panel.close()
    hardware.close()


def test_a_claim_refused_in_play_mode_is_said_on_the_display_until_the_next_move(tmp_path: Path) -> None:
    rig, display, panel = rig_with_display(tmp_path)
    rig.do("11-15")
    rig.app.press("claim")  # as a page or a host does: no simulator words to help
    rig.wait(300)
    screen = panel._screen
    assert screen is not None and screen.message == "no draw to claim"
    assert_holds(shown(display), items_of(screen, rig.clock.now_ms()), "no draw to claim")
    rig.do("22-18")
    screen = panel._screen
    assert screen is not None and screen.message == ""
    panel.close()


def test_a_pin_lockout_is_said_on_the_display_the_terminal_and_the_pages(tmp_path: Path) -> None:
    # Someone on the network guesses the page's PIN: the gate locks logins out and tells
    # the board (through the pages' link, in the main loop's next step).
    from crownhead.firmware.app.sinks import text_sink
    from crownhead.firmware.web.auth import GLOBAL_TRIES, Gate
    from crownhead.firmware.web.bridge import PageHub, WebLink

    rig, display, panel = rig_with_display(tmp_path, start=False)
    said: list[str] = []
    rig.app.add_sink(text_sink(said.append))
    hub = PageHub()
    WebLink(hub).attach(rig.app)
    rig.app.start()
    gate = Gate("24682468", rig.clock, on_lockout=hub.alert)
    for i in range(GLOBAL_TRIES):
        assert gate.login(f"192.0.2.{i}", "0000")[0] == "wrong"
    assert gate.login("192.0.2.200", "24682468")[0] == "locked"
    rig.wait(300)
    screen = panel._screen
    assert screen is not None and screen.message == "someone is guessing the page's PIN"
    assert_holds(shown(display), items_of(screen, rig.clock.now_ms()), "someone is guessing the page's PIN")
    assert any("logins are refused for 5 minutes" in line for line in said)  # the terminal, the journal
    assert "someone is guessing" in rig.app.message  # the terminal simulator's and the pages' message line
    panel.close()


def test_an_alert_is_shown_by_its_code_whatever_its_sentence(tmp_path: Path) -> None:
    # The display said the words before the alert's first colon: a sentence worded
    # otherwise (another language, no colon) came out whole or cut wrongly.
    from crownhead.firmware.web.bridge import PageHub, WebLink

    rig, display, panel = rig_with_display(tmp_path, start=False)
    hub = PageHub()
    WebLink(hub).attach(rig.app)
    rig.app.start()
    hub.alert("pin-guessing", "Logins are refused for 5 minutes: 10 wrong PINs in 60 s")
    rig.wait(300)
    screen = panel._screen
    assert screen is not None and screen.message == "someone is guessing the page's PIN"
    assert "Logins are refused" in rig.app.message  # the sentence, whole, for the people
    panel.close()


def test_before_the_first_move_the_display_says_where_the_page_is_and_its_pin(tmp_path: Path) -> None:
    rig, display, panel = rig_with_display(tmp_path)
    rig.app.page_urls = ("http://192.168.1.20:8080/", "http://board.local:8080/")
    rig.app.page_pin = "482913"
    rig.wait(300)
    screen = panel._screen
    assert screen is not None and screen.message == "192.168.1.20:8080 PIN 482913"
    rig.do("11-15")
    screen = panel._screen
    assert screen is not None and screen.message == ""
    panel.close()
