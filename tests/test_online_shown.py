"""Issue 55: a game on PlayStrategy as the board shows and says it: the server's clocks
on the board's own game clock (so the display on luma's dummy device, the terminal's
view and the page show them, and the voice warns of a side's last minute), never a
flag of the board's own, the players with their ratings on the message line, and a
chat line from the opponent on the message line, the display and spoken."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from luma.core.device import dummy

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.display.panel import BoardPanel, Painter
from crownhead.firmware.display.render import clock_face, layout
from crownhead.firmware.online.client import Backoff, Client
from crownhead.firmware.online.game import OnlineGame, online_settings
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.hal.luma_display import LumaDisplay
from crownhead.rules import BLACK, WHITE
from helpers.net import wait_for
from helpers.playstrategy import Server
from helpers.rig import Rig

ALICE = "lip_alicetoken123"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def until(rig: Rig, holds: Callable[[], Any]) -> None:
    def step() -> bool:
        rig.app.run_for(20)
        return bool(holds())

    assert wait_for(step, 20.0), "the board never got there"


def test_the_server_s_clocks_names_and_chat_on_the_display_the_terminal_and_the_voice(
    server: Server, make_rig: Callable[..., Rig]
) -> None:
    server.next_p1 = "alice"
    list(Client(ALICE, server.url, timeout_s=10).seek(10, 5))
    (gid,) = server.games
    rig = make_rig(start=False, settings=online_settings(AppSettings(), "http://127.0.0.1"))
    voice = BoardVoice(None, Phrasebook("en")).attach(rig.app)
    display = LumaDisplay("ssd1306", device_factory=lambda: dummy(width=128, height=64, mode="1"))
    panel = BoardPanel(Painter(display, rig.clock, background=False)).attach(rig.app)
    rig.app.start()
    online = OnlineGame(
        Client(ALICE, server.url, timeout_s=10, rate_limit_s=0.05), gid, "alice", backoff=Backoff(0.02, 0.2)
    ).attach(rig.app)
    try:
        until(rig, lambda: online.mine is BLACK)
        assert str(rig.app.settings.clock) == "600+5"  # the board's clock under the server's control
        assert "Black Alice (1500) 10:00, White Bob (1620) 10:00" in rig.app.view().message
        # The server says Black has 65 s after 11-15, and White 2:03 after 22-18.
        server.games[gid].times["p1"] = 65_000
        rig.do("11-15")
        until(rig, lambda: len(server.games[gid].ucis) == 1)
        server.games[gid].times["p2"] = 123_000
        server.play(gid, "bob", "22-18")
        until(rig, lambda: rig.app.expected is not None)
        rig.follow()  # made here: White's time is the server's
        now = rig.clock.now_ms()
        state = rig.app.clock_state(now)
        assert state is not None and state.white_ms == 123_000 and state.side == "black"
        assert state.black_ms <= 65_000
        view = rig.app.view()
        assert "2:03" in view.white and "1:0" in view.black  # the terminal's side lines
        panel.refresh(now)
        screen = panel._screen
        assert screen is not None and screen.white_ms == 123_000
        assert clock_face(123_000) in [item.text for item in layout(screen, now)]  # on the display
        mark = voice.said_count
        rig.wait(8000)  # Black's time runs below a minute: the voice says so
        assert "Black: one minute left." in [s.text for s in voice.said_since(mark)]
        # The board's own clock calls no flag: the server does.
        timer = rig.app.board_clock
        assert timer is not None and timer.called_elsewhere == frozenset({BLACK, WHITE})
        rig.wait(70_000)
        assert not rig.app.game.is_over
        # A chat line: the message line, the display (in a few words) and the voice.
        mark = voice.said_count
        server.say(gid, "bob", "nice trap")
        until(rig, lambda: rig.app.view().message == "chat Bob: nice trap")
        rig.wait(200)
        assert any("chat Bob: nice trap" in s.text for s in voice.said_since(mark))
        panel.refresh(rig.clock.now_ms())
        assert panel._screen is not None and panel._screen.message == "a chat line: see the page"
        server.flag(gid, "p1")  # the server's flag ends it
        until(rig, lambda: rig.app.game.is_over)
        assert rig.app.game.result.reason == "time" and rig.app.game.result.score == "0-1"
    finally:
        online.close()
        panel.close()
