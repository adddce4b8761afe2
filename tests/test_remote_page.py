"""A game far apart taken from the board's page (issue 44): invite, join, leave.

In one process first: two board applications (:class:`helpers.rig.Rig`, each on its
virtual clock), each with the :class:`~crownhead.firmware.remote.page.FarDesk` that ``crownhead
run --web`` gives its page, through a real Mosquitto on loopback (the shipped
configuration and ACL): board A invites, board B joins the code, both switch into the
game far apart as ``crownhead run --remote CODE`` starts it, a move crosses, and A
leaves once the game is over. Then the same from outside: two real board processes
(``crownhead run --headless --hal sim --web 127.0.0.1:0`` with ``[remote] broker``),
their pages in Debian's chromium (Playwright): A's page invites (the code, the link and
its QR code shown), B's page opens the link's ``#join=CODE`` and joins; both play, and
A's page leaves the game once it is over. Last, a board started again (``crownhead run``
without ``--remote``) goes back to the game far apart its page took.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.players import Computer, Human, Thinker
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.remote.board import Absence
from crownhead.firmware.remote.invite import playing
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.page import FarDesk
from crownhead.firmware.remote.settings import RemoteConfig
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.firmware.web.bridge import PageHub, WebLink
from crownhead.firmware.web.far import qr_svg
from crownhead.firmware.web.server import WebServer
from crownhead.firmware.simulator.hands import Hands
from crownhead.hal.clock import MonotonicClock
from crownhead.rules import BLACK, WHITE, Move

from helpers.hallnet import MOSQUITTO, NO_MOSQUITTO, PASSWD, Mosquitto, running_mosquitto
from helpers.net import WAIT_S
from helpers.remote import BoardProcess, step_until
from helpers.rig import Rig
from helpers.web import request

needs_mosquitto = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)


def _answer(desk: FarDesk, rig: Rig, what: str, data: object = None) -> dict[str, Any]:
    """``desk``'s answer to a page's request, its board stepping until it is given."""
    future = desk.ask(what, data)
    assert future is not None
    rig.wait_for(future.done, f"the answer to {what}")
    return future.result()


def _callbacks(rig: Rig) -> dict[str, int]:
    """How many parts ``rig``'s application holds (every part joins as an output)."""
    app = rig.app
    return {"outputs": len(list(app.outputs))}


class Home:
    """A board application with its page's desk (no page server: the desk is asked directly)."""

    def __init__(self, folder: Path, broker: Mosquitto, me: str, **rig: Any) -> None:
        self.folder = folder
        self.config = RemoteConfig(broker=broker.url(me), resend_ms=1000, wait_s=60)
        self.rig = Rig(folder, start=False, **rig)
        self.desk = FarDesk(self.rig.app, self.rig.clock, folder, self.config).attach(self.rig.app)
        self.rig.app.start()

    def close(self) -> None:
        self.desk.close()
        if self.desk.link is not None:
            self.desk.link.transport.close(flush_s=0)  # type: ignore[call-arg]
        self.rig.close()


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ["alice", "bob"]) as broker:
        yield broker


@needs_mosquitto
def test_a_board_s_page_invites_the_other_joins_and_both_play_the_game_far_apart(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    a, b = Home(tmp_path / "a", mosquitto, "alice"), Home(tmp_path / "b", mosquitto, "bob")
    try:
        both = [a.rig, b.rig]
        before = _callbacks(a.rig)
        status = _answer(
            a.desk, a.rig, "invite", {"plays": "white", "black": "Ann", "white": "Bo", "clock": "300+5", "grace_s": 60}
        )
        # The invitation goes to the broker from a worker of its own, which may have put it
        # there (and said "waiting") by the time the answer is read: a busy machine's order.
        assert status["state"] in ("inviting", "waiting") and status["game"]["host_plays"] == "white", status
        code = status["code"]
        step_until(lambda: a.desk.status()["state"] == "waiting", "the invitation on the broker", both)
        # B's page joins; a wrong code first is said in words.
        refused = _answer(b.desk, b.rig, "join", "k7q")
        assert refused["error"] == "refused" and "6 letters and digits" in refused["message"]
        assert _answer(b.desk, b.rig, "join", status["shown"])["state"] == "joining"
        step_until(lambda: a.desk.status()["state"] == b.desk.status()["state"] == "playing", "both play", both)
        # Both boards switched into the agreed game: names, colours, clock, the other side held.
        for home, side in ((a, "white"), (b, "black")):
            app = home.rig.app
            assert app.settings.far_apart and str(app.settings.clock) == "300+5"
            assert playing(home.folder) == code
            assert home.desk.link is not None and home.desk.link.plays == side
        assert [s.name for s in a.rig.app.snapshot.seats.values()] == ["Ann", "Bo"]
        assert _answer(a.desk, a.rig, "invite", {})["message"].startswith(f"this board plays game {status['shown']}")
        # The boards set up their pieces and play: Black (B) moves, A shows it.
        for rig in both:
            rig.follow(wait=600)
        step_until(lambda: a.desk.link.game_id == b.desk.link.game_id, "the boards agree on the game", both)
        b.rig.do("11-15", wait=600)
        step_until(lambda: a.rig.app.tracker.expected == Move((11, 15)), "A shows 11-15", both)
        a.rig.follow(wait=600)
        assert a.rig.game.moves == b.rig.game.moves == [Move((11, 15))]
        # A game under way is not left; one over is.
        assert "under way" in _answer(a.desk, a.rig, "leave")["message"]
        b.rig.sim.press("black_resign", long=True)  # Black resigns on its own board
        b.rig.wait(100)
        step_until(lambda: a.rig.game.is_over, "A hears Black resigned", both)
        left = _answer(a.desk, a.rig, "leave")
        assert left["state"] == "idle" and playing(a.folder) is None
        assert not a.rig.app.settings.far_apart and a.rig.app.away is None
        assert _callbacks(a.rig) == before  # nothing of the game left on the board
        # A plays on its own: both sides' moves are made at the board again.
        a.rig.do("n", wait=100)
        a.rig.follow(wait=600)
        a.rig.do("11-15", wait=600)
        a.rig.do("22-18", wait=600)
        assert len(a.rig.game.moves) == 2
    finally:
        a.close()
        b.close()


@needs_mosquitto
def test_leaving_a_game_far_apart_gives_back_the_mode_the_board_was_in(tmp_path: Path, mosquitto: Mosquitto) -> None:
    """Issue 50: the board played the computer (level 3 on White, Ann on Black) before the
    game far apart; once that game is left, the next game is that one again."""
    level3 = "Crownhead engine (level 3)"
    machine = Computer(lambda position, game: position.legal_moves(game.rules)[0], level3)
    settings = AppSettings(mode="computer", black_name="Ann")
    a = Home(tmp_path / "a", mosquitto, "alice", settings=settings, players={BLACK: Human("Ann"), WHITE: machine})
    b = Home(tmp_path / "b", mosquitto, "bob")
    try:
        both = [a.rig, b.rig]
        status = _answer(a.desk, a.rig, "invite", {"plays": "white", "black": "Cy", "white": "Di", "grace_s": 60})
        step_until(lambda: a.desk.status()["state"] == "waiting", "the invitation on the broker", both)
        assert _answer(b.desk, b.rig, "join", status["shown"])["state"] == "joining"
        step_until(lambda: a.desk.status()["state"] == b.desk.status()["state"] == "playing", "both play", both)
        assert a.rig.app.mode.name == "play" and [s.name for s in a.rig.app.snapshot.seats.values()] == ["Cy", "Di"]
        for rig in both:
            rig.follow(wait=600)
        step_until(lambda: a.desk.link.game_id == b.desk.link.game_id, "the boards agree on the game", both)
        b.rig.do("11-15", wait=600)
        step_until(lambda: a.rig.app.expected == Move((11, 15)), "A shows 11-15", both)
        a.rig.follow(wait=600)
        b.rig.sim.press("black_resign", long=True)  # Black resigns on its own board
        b.rig.wait(100)
        step_until(lambda: a.rig.game.is_over, "A hears Black resigned", both)
        assert _answer(a.desk, a.rig, "leave")["state"] == "idle"
        # The game far apart stays on the board; the next one is the computer's, as before.
        assert a.rig.app.mode.name == "play"
        a.rig.do("n", wait=100)
        app = a.rig.app
        assert app.setting_up is not None and app.mode.name == "computer"
        assert (app.players[BLACK].name, app.players[WHITE].name) == ("Ann", level3) and app.players[WHITE] is machine
        assert (app.view().black, app.view().white) == ("Ann", level3)
    finally:
        a.close()
        b.close()


def test_a_page_needs_the_pin_and_a_broker_to_play_far_apart(tmp_path: Path) -> None:
    clock = MonotonicClock()
    rig = Rig(tmp_path, clock=clock, thinker=Thinker(background=True), start=False)
    desk = FarDesk(rig.app, clock, tmp_path, RemoteConfig()).attach(rig.app)
    web_link = WebLink(PageHub())
    web_link.attach(rig.app, hands=Hands(rig.app))
    server = WebServer(web_link, pin="2468", store=rig.store, clock=clock, far=desk)
    server.start()
    rig.app.start()
    import threading

    stop = threading.Event()
    loop = threading.Thread(target=rig.app.run, args=(stop,), daemon=True)
    loop.start()
    try:
        status, _headers, body = request(server.url + "api/far")
        assert status == 403 and b"PIN" in body
        status, _headers, _body = request(server.url + "api/far/qr.svg")
        assert status == 403
        status, headers, _body = request(server.url + "api/login", method="POST", data=b'{"pin": "2468"}')
        cookie = headers["set-cookie"].split(";", 1)[0]
        status, _headers, body = request(server.url + "api/far", headers={"Cookie": cookie})
        assert status == 200 and json.loads(body)["state"] == "idle"
        invite = json.dumps({"invite": {"plays": "black"}}).encode()
        status, _headers, body = request(server.url + "api/far", method="POST", data=invite, headers={"Cookie": cookie})
        assert status == 409 and "set [remote] broker" in json.loads(body)["message"]
        status, _headers, body = request(
            server.url + "api/far", method="POST", data=b'{"invite": {}, "join": "x"}', headers={"Cookie": cookie}
        )
        assert status == 400
        status, _headers, _body = request(server.url + "api/far/qr.svg", headers={"Cookie": cookie})
        assert status == 404  # no invitation, no link
    finally:
        stop.set()
        rig.app.wake()
        loop.join(WAIT_S)
        server.close()
        rig.close()


def _config(folder: Path, broker: Mosquitto, me: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder.parent / f"{me}.toml"
    path.write_text(f'[remote]\nbroker = "{broker.url(me)}"\nresend_ms = 1000\n')
    return path


def _far_state(page: Any) -> str:
    return str(page.evaluate("() => document.querySelector('#far').dataset.state || ''"))


@needs_mosquitto
def test_two_board_processes_take_a_game_far_apart_from_their_pages_in_a_real_browser(
    tmp_path: Path, mosquitto: Mosquitto, browser: Any
) -> None:
    a = BoardProcess(tmp_path / "a", None, config=_config(tmp_path / "a", mosquitto, "alice"))
    b = BoardProcess(tmp_path / "b", None, config=_config(tmp_path / "b", mosquitto, "bob"))
    a.start(wait=False)
    b.start()
    a.started()
    pages = []
    try:
        assert a.socket is not None and b.socket is not None
        url_a, url_b = a.page, b.page
        # Board A's page invites: Black here, names, a clock.
        page_a = browser.new_page()
        pages.append(page_a)
        page_a.goto(url_a)
        page_a.wait_for_selector("#connection[data-state=live]")
        page_a.click("#far summary")
        page_a.select_option("#far-plays", "black")
        page_a.fill("#far-black", "Ann")
        page_a.fill("#far-white", "Bo")
        page_a.fill("#far-clock", "300+5")
        page_a.click("#far-invite-form button[type=submit]")
        page_a.wait_for_function("() => document.querySelector('#far').dataset.state === 'waiting'")
        shown = page_a.inner_text("#far-code")
        assert len(shown) == 7 and shown[3] == "-", shown
        link = page_a.get_attribute("#far-link", "href")
        assert link == url_a.rstrip("/") + f"/#join={shown}"
        # The QR code of the link, drawn (an SVG image the page loaded).
        page_a.wait_for_function("() => document.querySelector('#far-qr').naturalWidth > 0")
        status, headers, svg = request(url_a + "api/far/qr.svg")
        assert status == 200 and headers["content-type"].startswith("image/svg+xml") and svg == qr_svg(link)
        # A's page is served on 127.0.0.1: it says plainly that another home cannot open it.
        assert "the other home cannot open this link" in page_a.inner_text("#far-link-note")
        # Board B's page, on a phone, opens the link (its own address, as another home's
        # board of the same name is reached): the invitation's terms come first, at the
        # top of the page, its Join button on the first screen (issue 51, item 8).
        page_b = browser.new_page()
        page_b.set_viewport_size({"width": 390, "height": 844})
        pages.append(page_b)
        page_b.goto(url_b + f"#join={shown}")
        page_b.wait_for_selector("#connection[data-state=live]")
        assert page_b.input_value("#far-join-code") == shown
        page_b.wait_for_function("() => document.querySelector('#far-card').dataset.state === 'found'")
        terms = page_b.inner_text("#far-card-terms")
        for term in (
            "alice plays Black, this board White",
            "Black Ann, White Bo",
            "clock 300+5",
            "no ballot",
            "public",
        ):
            assert term in terms, terms
        join = page_b.locator("#far-card-join")
        box = join.bounding_box()
        assert box is not None and join.is_enabled() and page_b.evaluate("() => window.scrollY") == 0
        assert 0 <= box["y"] and box["y"] + box["height"] <= 844, box  # within the first screen
        assert not (tmp_path / "b" / "remote" / f"{shown.replace('-', '')}.json").exists()  # not joined yet
        page_b.bring_to_front()
        join.click()
        for page in (page_a, page_b):
            page.wait_for_function(
                "() => document.querySelector('#far').dataset.state === 'playing'", timeout=WAIT_S * 1000
            )
        code = shown.replace("-", "")
        for board in (a, b):
            assert playing(board.state_dir) == code
            board.code = code
        # Both play it: the agreed names and clock; A's people set up and move, B's make it.
        for board in (a, b):
            board.wait(lambda bd=board: bd.view()["names"] == ["Ann", "Bo"], "the agreed names")
            assert board.view()["clock"] is not None
        a.command("follow")
        b.command("follow")
        a.hands("11-15")
        b.wait(lambda: b.view()["roles"].get("move-from") == [11], "B shows 11-15")
        b.command("follow")
        b.wait(lambda: [str(m) for m in b.game()["moves"]] == ["11-15"], "B made 11-15")
        # Black resigns on A; A's page leaves the game: the board plays on its own.
        assert a.command("resign black").get("ok")
        page_a.on("dialog", lambda dialog: dialog.accept())
        page_a.bring_to_front()  # chromium draws the front page only: a click behind waits on frames
        page_a.click("#far-leave")
        page_a.wait_for_function("() => document.querySelector('#far').dataset.state === 'idle'")
        assert playing(a.state_dir) is None
    finally:
        for page in pages:
            page.close()
        for board in (a, b):
            if board.process is not None and board.process.poll() is None:
                board.stop()


@needs_mosquitto
def test_a_phone_s_page_shows_the_terms_of_a_pasted_link_of_any_host_and_cancels_the_join(
    tmp_path: Path, mosquitto: Mosquitto, browser: Any
) -> None:
    from crownhead.firmware.remote.invite import Invitation, publish

    # Alice's invitation, on the broker (as her page or `crownhead remote invite` puts it).
    invitation = Invitation("x7qm2k", "alice", "white", black="Ann", white="Bo", clock="600+5", ballot=87)
    publish(BrokerUrl.parse(mosquitto.url("alice")), invitation)
    b = BoardProcess(tmp_path / "b", None, config=_config(tmp_path / "b", mosquitto, "bob"))
    b.start()
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.goto(b.page)
        page.wait_for_selector("#connection[data-state=live]")
        # The link names the inviting board's page (another host and port than this
        # board's): pasted under the header's Join a game, its code is what counts.
        page.wait_for_selector("#far-join-nav:not([hidden])")
        page.click("#far-join-nav")
        page.fill("#far-card-code", "http://crownhead.local:8080/#join=x7q-m2k")
        page.click("#far-card-form button[type=submit]")
        page.wait_for_function("() => document.querySelector('#far-card').dataset.state === 'found'")
        terms = page.inner_text("#far-card-terms")
        for term in ("alice plays White, this board Black", "clock 600+5", "ballot 87", "public"):
            assert term in terms, terms
        box = page.locator("#far-card-join").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844 and page.evaluate("() => window.scrollY") == 0
        # Cancel: nothing is joined, the board plays on its own.
        page.bring_to_front()
        page.click("#far-card-cancel")
        page.wait_for_function("() => document.querySelector('#far').dataset.state === 'idle'")
        assert page.locator("#far-card").is_hidden()
        assert not (tmp_path / "b" / "remote" / "x7qm2k.json").exists()
        assert "given up" in page.inner_text("#far-status")
        # The form under Game far apart, further down, shows the same card at the top.
        page.evaluate("() => { document.querySelector('#far').open = true; }")
        page.fill("#far-join-code", "X7Q-M2K")
        page.click("#far-join-form button[type=submit]")
        page.wait_for_function("() => document.querySelector('#far-card').dataset.state === 'found'")
        assert page.evaluate("() => window.scrollY") == 0 and "ballot 87" in page.inner_text("#far-card-terms")
        page.click("#far-card-cancel")
        page.wait_for_function("() => document.querySelector('#far').dataset.state === 'idle'")
        assert not (tmp_path / "b" / "remote" / "x7qm2k.json").exists()
    finally:
        page.close()
        if b.process is not None and b.process.poll() is None:
            b.stop()


@pytest.mark.slow  # the board waits 5 s at its end for a board that never comes
@needs_mosquitto
def test_a_board_started_again_goes_back_to_the_game_far_apart_its_page_took(
    tmp_path: Path, mosquitto: Mosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    from crownhead.firmware.cli import main
    from crownhead.firmware.remote.invite import Agreement, Invitation, set_playing
    from crownhead.firmware.storage.store import GameStore

    state = tmp_path / "state"
    invitation = Invitation("k7qm2x", "alice", "black", black="Ann", white="Bo", clock="300+5")
    Agreement(invitation, "bob", "alice", mosquitto.url("bob")).save(state)
    set_playing(state, "k7qm2x")
    script = tmp_path / "script.txt"
    script.write_text("wait 100\n")
    run = ["run", "--headless", "--hal", "sim", "--script", str(script), "--state-dir", str(state), "--log", "json"]
    assert main(run) == 0
    capsys.readouterr()
    record = GameStore(state).load_current()
    assert record is not None and (record.black, record.white) == ("Ann", "Bo")  # the agreed game
    assert record.settings.get("clock") == "300+5", record.settings
    # Started with a link of another kind, it says why it does not go back to it.
    (state / "current.json").unlink()
    assert main([*run, "--link", "loop://"]) == 0
    assert (
        "the game far apart k7qm2x is not resumed: this board starts with a link on loop://" in capsys.readouterr().err
    )
    record = GameStore(state).load_current()
    assert record is not None and record.black == "?"


def test_games_far_apart_taken_and_left_again_and_again_leave_nothing_on_the_board(tmp_path: Path) -> None:
    rig = Rig(tmp_path, start=False)
    rig.app.start()
    before = _callbacks(rig)
    url = BrokerUrl.parse("mqtt://alice:pw@127.0.0.1:1")
    for n in range(3):
        # What the page's desk does as a game begins and is left (never connecting here).
        transport = RemoteTransport(url, "k7qm2x", "bob", tmp_path / f"{n}.journal.json", rig.clock, start=False)
        link = RemoteLink(transport, LinkConfig(plays="black"))
        absence = Absence(transport, 60, "stop", link)
        absence.attach(rig.app)
        link.attach(rig.app)
        rig.wait(100)
        assert _callbacks(rig) != before
        link.detach()
        absence.detach()
        assert _callbacks(rig) == before, n
        link.transport.close(flush_s=0)  # type: ignore[call-arg]
    rig.do("11-15", wait=600)  # the board plays on its own
    rig.close()


def test_a_page_s_request_whose_worker_fails_at_once_is_shown_failed(tmp_path: Path) -> None:
    # No broker where the desk's account points: the worker fails as soon as it starts.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rig = Rig(tmp_path, start=False)

    def page_address() -> str:
        # Called as the page's status is set in the main loop: a worker started before it
        # (the request's status set after the worker) would be done by now.
        for thread in threading.enumerate():
            if thread.name == "crownhead-far-page":
                thread.join(WAIT_S)
        return "http://crownhead.local:8080/"

    config = RemoteConfig(broker=f"mqtt://alice:pw@127.0.0.1:{port}")
    desk = FarDesk(rig.app, rig.clock, tmp_path, config, page_address=page_address).attach(rig.app)
    rig.app.start()
    try:
        for what, data in (("invite", {"plays": "black"}), ("join", "k7q-m2x")):
            # (The answer is the status as the main loop answered: the worker may be done.)
            assert _answer(desk, rig, what, data)["state"] in ("inviting", "joining", "failed")
            for thread in threading.enumerate():
                if thread.name == "crownhead-far-page":
                    thread.join(WAIT_S)
            status = desk.status()
            assert status["state"] == "failed" and "cannot reach the broker" in status["message"], status
    finally:
        desk.close()
        rig.close()


@needs_mosquitto
def test_a_join_cancelled_on_the_page_is_given_up_not_failed(tmp_path: Path, mosquitto: Mosquitto) -> None:
    b = Home(tmp_path / "b", mosquitto, "bob")
    try:
        assert _answer(b.desk, b.rig, "join", "k7q-m2x")["state"] == "joining"  # a game nobody offers
        assert _answer(b.desk, b.rig, "cancel")["state"] == "joining"
        step_until(lambda: b.desk.status()["state"] != "joining", "the join given up", [b.rig])
        status = b.desk.status()
        assert status["state"] == "idle" and status["message"] == "joining game k7q-m2x given up", status
    finally:
        b.close()


@needs_mosquitto
def test_the_invitation_s_link_names_the_page_s_network_address_or_says_the_other_home_cannot_open_it(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    config = RemoteConfig(broker=mosquitto.url("alice"), wait_s=60)
    for address, note in (
        ("http://192.168.1.20:8080/", None),
        ("http://board-a.local:8080/", None),
        ("http://127.0.0.1:8080/", "this board's page is served on this machine only (127.0.0.1)"),
        ("http://localhost:8080/", "the other home cannot open this link"),
    ):
        folder = tmp_path / address.split("//")[1].split(":")[0]
        rig = Rig(folder, start=False)
        desk = FarDesk(rig.app, rig.clock, folder, config, page_address=lambda a=address: a).attach(rig.app)
        rig.app.start()
        try:
            _answer(desk, rig, "invite", {"plays": "black"})
            step_until(lambda d=desk: d.status()["state"] == "waiting", "the invitation on the broker", [rig])
            status = desk.status()
            assert status["link"] == f"{address}#join={status['shown']}", status
            if note is None:
                assert status["link_note"] is None
            else:
                assert note in status["link_note"]
            _answer(desk, rig, "cancel")
        finally:
            desk.close()
            rig.close()


@needs_mosquitto
def test_a_page_reached_by_another_name_gets_a_link_with_that_name_not_127_0_0_1(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    # The board's page served on 127.0.0.1 behind a proxy the other home reaches by a name
    # (`web.hosts`): the link and its QR code name the address the page is reached at.
    clock = MonotonicClock()
    rig = Rig(tmp_path, clock=clock, thinker=Thinker(background=True), start=False)
    config = RemoteConfig(broker=mosquitto.url("alice"), wait_s=60)
    web_link = WebLink(PageHub())
    web_link.attach(rig.app, hands=Hands(rig.app))
    desk = FarDesk(rig.app, clock, tmp_path, config).attach(rig.app)
    server = WebServer(web_link, store=rig.store, clock=clock, far=desk, hosts=("board.example",))
    server.start()
    desk.page_address = lambda: server.url
    rig.app.start()
    stop = threading.Event()
    loop = threading.Thread(target=rig.app.run, args=(stop,), daemon=True)
    loop.start()
    try:
        invite = json.dumps({"invite": {"plays": "black"}}).encode()
        status, _headers, body = request(server.url + "api/far", method="POST", data=invite)
        assert status == 200, body
        shown = json.loads(body)["shown"]
        by_name = {"Host": "board.example:8443"}
        status, _headers, body = request(server.url + "api/far", headers=by_name)
        far = json.loads(body)
        assert (far["link"], far["link_note"]) == (f"http://board.example:8443/#join={shown}", None)
        status, _headers, svg = request(server.url + "api/far/qr.svg", headers=by_name)
        assert status == 200 and svg == qr_svg(far["link"])
        # Reached on this machine, the page names 127.0.0.1 and says the other home cannot open it.
        status, _headers, body = request(server.url + "api/far")
        far = json.loads(body)
        assert far["link"] == f"{server.url}#join={shown}" and "cannot open this link" in far["link_note"]
        request(server.url + "api/far", method="POST", data=b'{"cancel": true}')
    finally:
        stop.set()
        rig.app.wake()
        loop.join(WAIT_S)
        desk.close()
        server.close()
        rig.close()
