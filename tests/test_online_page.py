"""Issue 55: games on PlayStrategy from the board's page, in a real browser (Debian's
chromium through Playwright) against the local stand-in server
(tests/helpers/playstrategy.py): a real board process (``crownhead run --headless --hal
sim --web 127.0.0.1:0 --online``, no game named) shows a challenge sent to it, its page
accepts it, shows the players, their ratings, the server's clocks and the chat (a line
with markup shown as text), sends a line typed there; the game is played by the
simulated hands; the board is killed mid-game (a power cut) and started again with the
same command, and goes back to the game by itself, the move made meanwhile lit. And the
page's API: the PIN first, one request a body."""

from __future__ import annotations

import io
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.online.client import Client
from crownhead.firmware.online.desk import OnlineDesk
from crownhead.firmware.web.bridge import PageHub, WebLink
from crownhead.firmware.web.server import WebServer
from crownhead.hal.clock import MonotonicClock
from helpers.net import WAIT_S
from helpers.playstrategy import Server
from helpers.remote import BoardProcess
from helpers.rig import Rig
from helpers.web import request

ALICE = "lip_alicetoken123"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def _login(monkeypatch: pytest.MonkeyPatch, server: Server, state: Path) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(ALICE + "\n"))
    assert main(["online", "login", "--server", server.url, "--token-stdin", "--state-dir", str(state)]) == 0


def _state(page: Any) -> str:
    return str(page.evaluate("() => document.querySelector('#online').dataset.state || ''"))


def _wait_state(page: Any, state: str) -> None:
    page.wait_for_function(
        f"() => document.querySelector('#online').dataset.state === {json.dumps(state)}", timeout=WAIT_S * 1000
    )


def test_a_challenge_accepted_on_the_page_is_played_and_a_power_cut_comes_back_to_it(
    tmp_path: Path, server: Server, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    _login(monkeypatch, server, state)
    board = BoardProcess(state, None, extra=("--online",)).start()
    pages = []
    try:
        page = browser.new_page()
        pages.append(page)
        page.goto(board.page)
        page.wait_for_selector("#connection[data-state=live]")
        _wait_state(page, "idle")  # no game of Alice's under way
        challenge = server.challenge("bob", "alice", {"clock.limit": "900", "clock.increment": "10"})
        item = f"#online-challenges li[data-challenge={json.dumps(challenge['id'])}]"
        page.wait_for_selector(item, timeout=WAIT_S * 1000)
        assert "Bob (1620) challenges you: english 15+10" in page.inner_text(item)
        page.click(f"{item} button[data-answer=accept]")
        _wait_state(page, "playing")
        (gid,) = server.games
        assert server.games[gid].p1 == "bob"  # the challenger plays Black; the board White
        page.wait_for_function("() => document.querySelector('#online-black .online-clock').textContent === '15:00'")
        assert page.inner_text("#online-black .online-name") == "Black: Bob"
        assert page.inner_text("#online-black .online-rating") == "(1620)"
        assert page.inner_text("#online-white .online-name") == "White: Alice (you)"
        assert page.is_visible("#online-abort")  # before the second move only
        # A chat line with markup is shown as the text it is; one typed on the page is sent.
        server.say(gid, "bob", "<b>hi</b> & <img src=x onerror=alert(1)>")
        page.wait_for_function("() => document.querySelector('#online-chat').textContent.includes('<b>hi</b>')")
        assert page.evaluate("() => document.querySelectorAll('#online-chat b, #online-chat img').length") == 0
        page.fill("#online-chat-text", "good luck")
        page.click("#online-chat-form button[type=submit]")
        board.wait(lambda: [c["text"] for c in server.games[gid].chat][-1:] == ["good luck"], "the line sent")
        # Bob's move is lit on the board and made by its hands; the board answers.
        server.play(gid, "bob", "11-15")
        board.wait(lambda: board.view()["roles"].get("move-from") == [11], "11-15 lit")
        board.command("follow")
        board.wait(lambda: board.moves() == ["11-15"], "11-15 made on the board")
        board.hands("23-19")
        board.wait(lambda: len(server.games[gid].ucis) == 2, "23-19 sent to the server")
        page.wait_for_function("() => document.querySelector('#online-black').hasAttribute('data-running')")
        assert not page.is_visible("#online-abort")
        # The power goes; Bob moves meanwhile; the same command again, nothing typed.
        board.kill()
        server.play(gid, "bob", "8-11")
        board.start()
        board.wait(lambda: board.view()["roles"].get("move-from") == [8], "8-11 lit after the restart")
        board.command("follow")
        board.wait(lambda: board.moves()[-1:] == ["8-11"], "8-11 made on the board")
        board.hands("22-18")
        board.wait(lambda: len(server.games[gid].ucis) == 4, "22-18 sent to the server")
        page.goto(board.page)
        _wait_state(page, "playing")
        assert gid in page.inner_text("#online-status")
    finally:
        for page in pages:
            page.close()
        if board.process is not None and board.process.poll() is None:
            board.stop()


def test_the_page_s_online_api_needs_the_pin_and_one_request(tmp_path: Path, server: Server) -> None:
    clock = MonotonicClock()
    rig = Rig(tmp_path, clock=clock, start=False)
    desk = OnlineDesk(Client(ALICE, server.url, timeout_s=10), "alice", tmp_path).attach(rig.app)
    web_link = WebLink(PageHub())
    web_link.attach(rig.app)
    web = WebServer(web_link, pin="2468", store=rig.store, clock=clock, online=desk)
    web.start()
    rig.app.start()
    stop = threading.Event()
    loop = threading.Thread(target=rig.app.run, args=(stop,), daemon=True)
    loop.start()
    try:
        status, _headers, body = request(web.url + "api/online")
        assert status == 403 and b"PIN" in body
        status, headers, _body = request(web.url + "api/login", method="POST", data=b'{"pin": "2468"}')
        cookie = {"Cookie": headers["set-cookie"].split(";", 1)[0]}
        status, _headers, body = request(web.url + "api/online", headers=cookie)
        assert status == 200 and json.loads(body)["state"] in ("connecting", "idle")
        status, _headers, body = request(
            web.url + "api/online", method="POST", data=b'{"seek": {}, "chat": "x"}', headers=cookie
        )
        assert status == 400 and b"send one of" in body
        status, _headers, body = request(
            web.url + "api/online", method="POST", data=b'{"seek": {"clock": "3+0x"}}', headers=cookie
        )
        assert status == 409 and "MIN+INC" in json.loads(body)["message"]
    finally:
        stop.set()
        rig.app.wake()
        loop.join(WAIT_S)
        desk.close()
        web.close()
        rig.close()
