"""A phone is enough for the other side: a game between a board and a phone's page.

Board A (its people play Black) is a :class:`helpers.rig.Rig` on its virtual clock, its
link the game's :class:`~crownhead.firmware.remote.link.RemoteLink` through a real Mosquitto on
loopback. The other side is a board of no hardware as ``crownhead run --remote CODE
--phone --web ...`` runs it: the simulated board, its hands following the lights
(:class:`~crownhead.firmware.remote.phone.PhoneHands`), its own account on the broker, its web
server with a PIN, its main loop in a thread on the real clock. The player plays White
in Debian's chromium (Playwright) on the page ``/phone``: logs in, taps moves (a capture
among them), asks to take a move back (board A's people agree), offers a draw that board
A's people decline by playing on, claims a draw (refused, in words) and resigns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.players import Thinker
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.pages.serving import Limits
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.remote.phone import PhoneHands
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.firmware.web.bridge import PageHub, WebLink
from crownhead.firmware.web.server import WebServer
from crownhead.hal.clock import MonotonicClock
from crownhead.rules import Move

from helpers.hallnet import MOSQUITTO, NO_MOSQUITTO, PASSWD, Mosquitto
from helpers.net import WAIT_S
from helpers.rig import Rig
from helpers.web import request

CODE = "ph9n3x"
PIN = "4812"

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)


class Phone:
    """The phone's side: a board of no hardware, served on 127.0.0.1 with a PIN."""

    def __init__(self, folder: Path, broker: Mosquitto) -> None:
        clock = MonotonicClock()
        self.rig = Rig(folder / "state", clock=clock, thinker=Thinker(background=True), start=False)
        self.app = self.rig.app
        self.transport = RemoteTransport(
            BrokerUrl.parse(broker.url("bob")), CODE, "alice", folder / "journal.json", clock, resend_ms=2000
        )
        self.link = RemoteLink(self.transport, LinkConfig(plays="white"))
        self.link.attach(self.app)
        self.hands = PhoneHands().attach(self.app)
        self.web_link = WebLink(PageHub(rate=1000.0, burst=1000))
        self.web_link.attach(self.app, hands=Hands(self.app))  # as `crownhead run` opens the pages
        self.server = WebServer(
            self.web_link,
            pin=PIN,
            store=self.rig.store,
            clock=clock,
            phone="white",
            limits=Limits(ws_bytes_s=64 << 20, ws_frames_s=1_000_000),
        )
        self.server.start()
        self.app.start()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.app.run, args=(self._stop,), name="phone-main-loop", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self.app.wake()
        self._thread.join(timeout=WAIT_S)
        self.transport.close(flush_s=0)
        self.rig.close()
        self.server.close()


class BoardA:
    def __init__(self, folder: Path, broker: Mosquitto) -> None:
        self.rig = Rig(folder / "state", start=False)
        self.transport = RemoteTransport(
            BrokerUrl.parse(broker.url("alice")), CODE, "bob", folder / "journal.json", self.rig.clock, resend_ms=2000
        )
        self.link = RemoteLink(self.transport, LinkConfig(plays="black"))
        self.link.attach(self.rig.app)
        self.rig.app.start()

    def until(self, pred, what: str) -> None:  # noqa: ANN001
        """Step board A (its virtual time passing slowly) until ``pred()``: the phone's
        board runs by itself meanwhile."""
        end = time.monotonic() + WAIT_S
        while not pred():
            self.rig.app.run_for(20)
            assert time.monotonic() < end, f"{what}: not within {WAIT_S} s"
            time.sleep(0.005)

    def close(self) -> None:
        self.transport.close(flush_s=0)
        self.rig.close()


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[BoardA, Phone]]:
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Mosquitto(folder, users=["alice", "bob"])
    broker.start()
    a = BoardA(tmp_path / "a", broker)
    phone = Phone(tmp_path / "phone", broker)
    try:
        a.until(
            lambda: a.link.game_id == phone.link.game_id and a.link.peer_lines > 0 < phone.link.peer_lines,
            "the two agree on the game",
        )
        yield a, phone
    finally:
        phone.close()
        a.close()
        broker.close()


def tap(page: Any, square: int) -> None:
    page.click(f'#board [data-square="{square}"]')


def test_a_game_between_a_board_and_a_phone_page_in_a_real_browser(browser: Any, game: tuple[BoardA, Phone]) -> None:
    a, phone = game
    assert request(phone.server.url + "phone")[0] == 200
    page = browser.new_page()
    page.goto(phone.server.url + "phone")
    page.wait_for_selector("#connection[data-state=live]")
    # White's men at the bottom (the board as drawn: Black's begin at the top); the pieces as they stand.
    assert page.locator("#board svg").get_attribute("data-flipped") != "true"
    assert page.locator('#board [data-square="21"] [data-piece="w"]').count() == 1
    assert "White" in page.inner_text("#my-name")

    def shown(script: str, what: str) -> None:
        """Board A steps (it answers the phone's board) until the page shows ``script``."""
        a.until(lambda: page.evaluate(f"() => !!({script})"), what)

    def board_a_plays(text: str) -> None:
        ply = a.rig.game.ply + 1
        a.rig.do(text, wait=600)
        assert a.rig.game.ply == ply
        shown(f"window.crownheadPhone.ply === {ply} && window.crownheadPhone.turn === 'white'", f"the phone has {text}")

    def phone_plays(start: int, end: int, move: Move) -> None:
        ply = a.rig.game.ply + 1
        tap(page, start)
        page.wait_for_selector(f'#board [data-square="{end}"].may-go')
        tap(page, end)
        a.until(lambda: a.rig.app.tracker.expected == move, f"board A shows {move}")
        a.rig.follow(wait=600)  # A's people make the phone's move, as the lights show it
        assert a.rig.game.ply == ply

    board_a_plays("11-15")  # made on the phone's board by its hands
    page.wait_for_selector('#board [data-square="15"] [data-piece="b"]')
    assert "Your move" in page.inner_text("#turn")
    # Not logged in: a tap plays nothing, the page says why.
    tap(page, 22)
    assert "Log in" in page.inner_text("#page-message")
    # What the page shows just after it lets a socket go (seen as soon as the close call
    # returns, before the browser can tell it the socket closed): never live on one that
    # is not open, where a tapped move would be lost.
    page.evaluate(
        """() => {
        const close = WebSocket.prototype.close;
        window.afterClose = [];
        WebSocket.prototype.close = function (...args) {
          close.apply(this, args);
          queueMicrotask(() => {
            const socket = window.crownheadPhone.socket;
            window.afterClose.push({
              state: document.querySelector('#connection').dataset.state,
              open: !!socket && socket.readyState === WebSocket.OPEN,
            });
          });
        };
      }"""
    )
    page.fill("#pin", PIN)
    page.click("#login button[type=submit]")
    shown(
        "document.querySelector('#connection').dataset.state === 'live' && window.crownheadPhone.control "
        "&& window.crownheadPhone.turn === 'white'",
        "the page may play",
    )
    after_close = page.evaluate("window.afterClose")
    assert after_close and all(seen["state"] != "live" or seen["open"] for seen in after_close), after_close
    # Only the rules' legal moves are offered: 21 may go to 17 only, 29 nowhere.
    tap(page, 21)
    assert page.locator("#board .may-go").count() == 1
    assert page.locator('#board [data-square="17"].may-go').count() == 1
    tap(page, 29)
    assert "No move from 29" in page.inner_text("#page-message")
    assert page.locator("#board .may-go").count() == 0
    phone_plays(22, 18, Move((22, 18)))
    board_a_plays("15x22")  # Black's capture: the phone's hands take White's man off
    page.wait_for_selector('#board [data-square="22"] [data-piece="b"]')
    assert page.locator('#board [data-square="18"] [data-piece]').count() == 0
    phone_plays(25, 18, Move((25, 18), (22,)))  # White's capture, tapped on the phone
    page.wait_for_selector('#board [data-square="22"]:not(:has([data-piece]))')
    board_a_plays("8-11")
    phone_plays(29, 25, Move((29, 25)))
    # White asks from the phone to take 29-25 back; Black agrees on board A (its takeback
    # button): both boards take it back, the phone's hands put the man back on 29.
    page.click("#takeback")
    shown("document.querySelector('#notice').textContent.includes('asked Black to take back')", "the page asked")
    a.until(lambda: any("White asks to take back" in n for n in notices(a)), "board A is asked")
    a.rig.sim.press("takeback")
    a.rig.wait(100)
    a.rig.follow(wait=600)  # A's people put White's man back, as the lights show it
    assert a.rig.game.ply == 5
    shown("window.crownheadPhone.ply === 5 && window.crownheadPhone.turn === 'white'", "the phone took it back")
    page.wait_for_selector('#board [data-square="29"] [data-piece="w"]')
    phone_plays(29, 25, Move((29, 25)))
    # White offers a draw from the phone; Black declines it by playing on.
    page.click("#draw")
    a.until(lambda: a.rig.app.session.draw_offer is not None, "board A has White's offer")
    shown("document.querySelector('#offer').textContent.includes('You offered a draw')", "the page says so")
    board_a_plays("4-8")
    assert page.inner_text("#offer") == "" and a.rig.game.result is None
    # White claims a draw from the phone: refused (no repetition, no forty moves), in words.
    page.click("#claim")
    shown("document.querySelector('#notice').textContent.includes('White claims a draw: refused')", "the refusal")
    # White resigns from the phone (after the page's question): the game ends on both.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    a.until(lambda: a.rig.game.is_over, "board A hears White resigned")
    result = a.rig.game.result
    assert result is not None and (result.score, result.reason) == ("1-0", "resign")
    shown("!document.querySelector('#result').hidden", "the page shows the result")
    assert "1-0 (resignation)" in page.inner_text("#result") and "over" in page.inner_text("#turn")
    assert phone.app.game.moves == a.rig.game.moves
    assert [m.pdn(full=True) for m in a.rig.game.moves] == [
        "11-15",
        "22-18",
        "15x22",
        "25x18",
        "8-11",
        "29-25",
        "4-8",
    ]
    page.close()


def notices(board: BoardA) -> list[str]:
    return [str(e.to_json().get("message")) for e in board.rig.events if e.kind == "notice"]


@pytest.mark.slow  # three board processes started (about 10 s)
def test_run_phone_serves_the_phone_s_page_for_the_agreed_side(tmp_path: Path) -> None:
    import subprocess
    import sys

    from crownhead.firmware.remote.invite import Agreement, Invitation

    from helpers.web import page_url

    state = tmp_path / "state"
    invitation = Invitation(CODE, "alice", "black", black="Ann", white="Bo")
    # No broker needed to serve the page: the board's link keeps trying meanwhile.
    Agreement(invitation, "bob", "alice", "mqtt://bob:pw@127.0.0.1:9").save(state)
    run = [sys.executable, "-m", "crownhead.firmware.cli", "run", "--headless", "--state-dir", str(state)]
    refused = subprocess.run(run + ["--phone", "--web", "127.0.0.1:0"], capture_output=True, text=True, timeout=WAIT_S)
    assert refused.returncode != 0 and "--remote CODE and --web" in refused.stderr
    refused = subprocess.run(
        run + ["--remote", CODE, "--phone", "--hal", "gpio", "--web", "127.0.0.1:0"],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert refused.returncode != 0 and "simulated board" in refused.stderr
    proc = subprocess.Popen(
        run + ["--remote", CODE, "--phone", "--web", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        url = page_url(proc.stderr, lines)
        line = proc.stderr.readline()
        assert "the phone's page (white plays there) is at " + url + "phone" in line, line
        status, _headers, body = request(url + "phone")
        assert status == 200 and b'data-plays="white"' in body and b"/static/phone.js" in body
        assert request(url + "static/phone.js")[0] == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=WAIT_S)
