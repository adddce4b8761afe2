"""The web server without a browser: the state API, the PIN, origins, hostile input.

A real server (uvicorn in its thread) beside a real app on the simulated board, spoken
to over HTTP (urllib) and WebSockets (the websockets library).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.link.protocol import Command
from crownhead.firmware.web.auth import COOKIE, FREE_TRIES
from crownhead.firmware.web.server import WebServer
from crownhead.firmware.web.settings import WebConfig, parse_listen
from crownhead.firmware.config import ConfigError, default_config
from crownhead.hal.clock import VirtualClock
from helpers.web import WAIT_S, LiveBoard, Socket, request

pytest.importorskip("websockets")

START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


@pytest.fixture
def board(tmp_path: Path):
    with LiveBoard(tmp_path) as live:
        yield live


def test_state_is_the_links_state_json(board: LiveBoard) -> None:
    state = board.state()
    assert state["protocol"] == 1 and state["control"] is True
    assert state["state"]["fen"] == START and state["state"]["ply"] == 0 and state["state"]["turn"] == "black"
    assert set(state["state"]) >= {
        "game",
        "start",
        "fen",
        "ply",
        "turn",
        "last",
        "result",
        "reason",
        "setup",
        "waiting",
    }
    assert state["black"] == "?" and state["clock"] is None
    with Socket(board.ws_url) as ws:
        hello = ws.next()
        assert hello["event"] == "hello" and hello["state"]["fen"] == START
        assert ws.command("hands 11-15")["ok"]
        move = ws.until(lambda m: m.get("event") == "move")
        assert move["move"] == "11-15"
    state = board.state()
    assert state["state"]["ply"] == 1 and state["state"]["last"]["move"] == "11-15"


def test_security_headers_and_the_page(board: LiveBoard) -> None:
    status, headers, body = board.get("/")
    assert status == 200
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    page = body.decode()
    assert page.count("data-square=") == 64  # the board and its flipped twin (a template)
    assert "<!--" not in page.split("<body>")[1].split("<template")[0] or "<!--BOARD-->" not in page
    assert board.get("/static/app.js")[0] == 200 and board.get("/static/../settings.py")[0] == 404


def test_loopback_server_refuses_other_host_names(board: LiveBoard) -> None:
    # A DNS-rebinding page would reach 127.0.0.1 under its own name.
    status, _headers, _body = board.get("/api/state", headers={"Host": "evil.example:80"})
    assert status == 421
    assert board.get("/api/state", headers={"Host": f"localhost:{board.server.port}"})[0] == 200


def test_cross_origin_websocket_refused(board: LiveBoard) -> None:
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as info:
        Socket(board.ws_url, origin="http://evil.example")
    assert info.value.response.status_code == 403
    with Socket(board.ws_url, origin=f"http://127.0.0.1:{board.server.port}") as ws:
        assert ws.next()["event"] == "hello"


def test_wrong_pin_refused_and_rate_limited(tmp_path: Path) -> None:
    clock = VirtualClock()
    with LiveBoard(tmp_path, pin="2468", server_clock=clock) as board:
        login = board.url + "api/login"

        def attempt(pin: str) -> tuple[int, dict[str, str], dict[str, object]]:
            status, headers, body = request(
                login,
                method="POST",
                data=json.dumps({"pin": pin}).encode(),
                headers={"Content-Type": "application/json"},
            )
            return status, headers, json.loads(body)

        # On this machine watching is open; commands need the PIN.
        assert board.get("/api/state")[0] == 200
        with Socket(board.ws_url) as ws:
            ws.next()
            assert ws.command("new")["code"] == "forbidden"
        for _ in range(FREE_TRIES - 1):
            assert attempt("0000")[0] == 403
        status, _h, body = attempt("1357")
        assert status == 403 and body["error"] == "wrong-pin"
        # Now even the right PIN must wait.
        status, headers, body = attempt("2468")
        assert status == 429 and body["error"] == "too-many-tries" and int(headers["retry-after"]) >= 1
        clock.advance(1500)
        status, headers, body = attempt("2468")
        assert status == 200 and body["ok"] is True
        cookie = headers["set-cookie"]
        assert (
            f"{COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        )
        token = cookie.split(";")[0]
        assert board.get("/api/me", headers={"Cookie": token})[2] == b'{"view":true,"control":true,"login":true}'
        assert json.loads(board.get("/api/me", headers={"Cookie": f"{COOKIE}=forged"})[2])["control"] is False
        with Socket(board.ws_url, additional_headers={"Cookie": f"{COOKIE}=forged"}) as ws:
            ws.next()
            assert ws.command("touch 11")["code"] == "forbidden"
        with Socket(board.ws_url, additional_headers={"Cookie": token}) as ws:
            ws.next()
            assert ws.command("touch 11")["ok"]


def test_commands_need_the_pin_off_loopback_rules(tmp_path: Path) -> None:
    # public_view: anyone watches; commands need the session.
    with LiveBoard(tmp_path, pin="2468", public_view=True) as board:
        with Socket(board.ws_url) as ws:
            assert ws.next()["event"] == "hello"
            assert ws.command("fen")["ok"]
            error = ws.command("new")
            assert error["event"] == "error" and error["code"] == "forbidden"
            assert ws.command("touch 11")["code"] == "forbidden"
        status, headers, _ = request(board.url + "api/login", method="POST", data=b'{"pin":"2468"}')
        assert status == 200
        token = headers["set-cookie"].split(";")[0]
        with Socket(board.ws_url, additional_headers={"Cookie": token}) as ws:
            assert ws.next()["event"] == "hello"
            assert ws.command("touch 11")["ok"]


def test_a_network_address_needs_a_pin(board: LiveBoard) -> None:
    from crownhead.firmware.web.server import ServerError

    with pytest.raises(ServerError, match="PIN"):
        WebServer(board.link, host="0.0.0.0", port=0)


def test_web_config_and_listen_errors() -> None:
    assert parse_listen("9000") == ("127.0.0.1", 9000)
    with pytest.raises(ConfigError, match=r"web.*listen"):
        default_config().replace("web", listen="host:port")
    with pytest.raises(ConfigError, match=r"pin"):
        default_config().replace("web", pin="12")
    assert default_config().get(WebConfig).listen == ""


def _garbage(rng: random.Random) -> str | bytes:
    kind = rng.randrange(8)
    if kind == 0:
        return b"\xff" + bytes(
            rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randrange(0, 60))
        )
    if kind == 1:
        return "x" * rng.randrange(1000, 3000)
    if kind == 2:
        return json.dumps({"event": rng.choice(["move", "hello", "state", "x"]), "ply": rng.randrange(-5, 99)})
    if kind == 3:
        return "{" + "[" * rng.randrange(1, 2000)
    if kind == 4:
        word = rng.choice(
            ["play", "touch", "press", "mode", "names", "referee", "hands", "brightness", "new", "ballot", "result"]
        )
        junk = "".join(rng.choice("0123456789x-;=<>&\"' abcZ\u00e9\u202e") for _ in range(rng.randrange(0, 30)))
        return f"{word} {junk}x;y;z" if word == "names" else f"{word} {junk}!"
    if kind == 5:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 40))) + "\u0000"
    if kind == 6:
        return "play " + "-".join(str(rng.randrange(33, 99)) for _ in range(rng.randrange(2, 5)))
    return rng.choice(
        ["castle e1g1", "<script>alert(1)</script>", "DROP TABLE games", "touch 0", "press eject", "\t\tfly"]
    )


def test_three_thousand_random_messages_change_nothing(tmp_path: Path) -> None:
    # (tests/test_link_fuzz.py sends the link many more; this is the page's socket path.)
    rng = random.Random(15)
    with LiveBoard(tmp_path, lines_per_step=256) as board:
        before = board.state()
        with Socket(board.ws_url, max_size=None) as ws:
            ws.next()
            sent = 0
            for i in range(3_000):
                message = _garbage(rng)
                if isinstance(message, str) and ("\n" in message or "\r" in message or not message.strip()):
                    continue
                ws.send(message)
                sent += 1
            ws.send("fen")
            errors = 0
            while True:
                m = ws.next()
                if m.get("event") == "error":
                    errors += 1
                    assert m["code"] in (
                        "too-long",
                        "bad-encoding",
                        "bad-json",
                        "unknown-command",
                        "bad-argument",
                        "illegal-move",
                        "not-now",
                    )
                elif m.get("event") == "reply" and m.get("cmd") == "fen":
                    break
                else:
                    assert m.get("event") == "view", m  # nothing else happened
            assert errors == sent
        after = board.state()
        assert after["state"] == before["state"] and after["black"] == before["black"]
        assert board.app.sim is not None and len(board.app.sim.pieces) == 24 and not board.app.sim.hand


def test_games_list_replay_download_and_sheet(board: LiveBoard) -> None:
    with Socket(board.ws_url) as ws:
        ws.next()
        assert ws.command("names Ann <b>;Bo")["ok"]
        for move in ("11-15", "23-19"):
            assert ws.command(f"hands {move}")["ok"]
            ws.until(lambda m: m.get("event") == "move" and m["move"] == move)
        assert ws.command("result 0-1 resign")["ok"]
        ws.until(lambda m: m.get("event") == "game-saved")
    status, _h, body = board.get("/api/games")
    games = json.loads(body)["games"]
    assert status == 200 and len(games) == 1
    game = games[0]
    assert game["tags"]["Black"] == "Ann <b>" and game["result"] == "0-1" and game["plies"] == 2
    replay = json.loads(board.get(f"/api/games/{game['id']}")[2])
    assert replay["moves"] == ["11-15", "23-19"] and len(replay["fens"]) == 3
    assert replay["fens"][0] == START and replay["fens"][2].startswith("B:W")
    status, headers, pdn = board.get(f"/api/games/{game['id']}.pdn")
    assert status == 200 and "attachment" in headers["content-disposition"]
    assert b"1. 11-15 23-19" in pdn and b'[Result "0-1"]' in pdn
    status, _h, everything = board.get("/api/games.pdn")
    assert status == 200 and everything.strip() == pdn.strip()
    status, headers, pdf = board.get(f"/api/games/{game['id']}.pdf?paper=a4")
    assert status == 200 and headers["content-type"] == "application/pdf" and pdf.startswith(b"%PDF")
    for bad in ("../../etc/passwd", "nope", "%2e%2e"):
        assert board.get(f"/api/games/{bad}.pdn")[0] == 404


def test_status_page_data(tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="secret-pin") as board:
        status, _h, body = board.get("/api/status")
        data = json.loads(body)
        assert status == 200 and data["backend"] == "sim" and data["version"]
        assert data["web"]["pin"] == "set" and data["config"]["board"]["backend"] == "sim"
        assert b"secret-pin" not in body


def test_run_web_refuses_a_taken_port_and_a_bad_address(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from crownhead.firmware.cli import main

    script = tmp_path / "script.txt"
    script.write_text("wait 10\n")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        code = main(
            [
                "run",
                "--headless",
                "--hal",
                "sim",
                "--script",
                str(script),
                "--state-dir",
                str(tmp_path / "s"),
                "--web",
                f"127.0.0.1:{port}",
            ]
        )
        assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        taken.close()
    code = main(["run", "--headless", "--hal", "sim", "--script", str(script), "--web", "here:there"])
    err = capsys.readouterr().err
    assert code == 2 and "listen" in err and err.count("\n") == 1


def test_run_web_serves_while_the_board_runs(tmp_path: Path) -> None:
    import subprocess

    from helpers.web import page_url, request, run_command

    proc = subprocess.Popen(
        run_command(tmp_path, "127.0.0.1:0"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        url = page_url(proc.stderr, [])
        assert url.startswith("http://127.0.0.1:")
        status, _h, body = request(url + "api/state")
        assert status == 200 and json.loads(body)["state"]["ply"] == 0
    finally:
        proc.terminate()
        out, _err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0 and "stopped" in out


def test_a_huge_login_body_is_cut_short(tmp_path: Path) -> None:
    with LiveBoard(tmp_path, pin="2468") as board:
        status, _h, body = request(board.url + "api/login", method="POST", data=b'{"pin":"' + b"9" * 200_000 + b'"}')
        assert status == 413
        # Nested past Python's recursion limit within the length allowed: refused, not a 500.
        status, _h, body = request(board.url + "api/login", method="POST", data=b"[" * 1020)
        assert status == 400 and b"pin" in body
        status, _h, _b = request(board.url + "api/diagram.svg?fen=" + "B" * 5000)
        assert status == 400
        status, headers, svg = request(board.url + "api/diagram.svg?fen=W:WK10:B5&flip=1")
        assert status == 200 and headers["content-type"].startswith("image/svg+xml") and b'data-piece="W"' in svg


def test_the_view_carries_the_match_line(tmp_path: Path) -> None:
    from crownhead.firmware.app.settings import AppSettings
    from crownhead.firmware.app.settings import MatchConfig

    settings = AppSettings(
        auto_crown=True,
        black_name="Ana",
        white_name="Ben",
        match=MatchConfig(always=True, games=2, black_name="Ana", white_name="Ben"),
    )
    with LiveBoard(tmp_path, settings=settings) as board:
        with Socket(board.ws_url) as ws:
            ws.next()
            view = ws.command("view")
            assert view["match"].startswith("Match, game 1 of 2") and "Ana" in view["match"]


def test_a_pin_is_made_once_and_kept(tmp_path: Path) -> None:
    import stat

    from crownhead.firmware.web.auth import stored_pin

    pin, made = stored_pin(tmp_path / "state")
    assert made and len(pin) == 6 and pin.isdigit()
    path = tmp_path / "state" / "web-pin"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stored_pin(tmp_path / "state") == (pin, False)


def test_rules_of_the_next_game_from_the_socket(board: LiveBoard) -> None:
    with Socket(board.ws_url) as ws:
        ws.next()
        reply = ws.command("rules russian")
        assert reply["ok"] and reply["variant"] == "russian"
        # The pieces stand where Russian draughts starts too: the new game begins at once.
        assert any(m.get("event") == "new-game" and m["fen"].startswith("W:") for m in ws.seen) or ws.until(
            lambda m: m.get("event") == "new-game"
        )["fen"].startswith("W:")
        state = board.state()
        assert state["variant"] == "russian" and state["state"]["turn"] == "white"
        ws.seen.clear()
        assert ws.command("rules english captures-optional")["ok"]
        assert any(m.get("event") == "new-game" for m in ws.seen) or ws.until(lambda m: m.get("event") == "new-game")
        state = board.state()
        assert state["rules"] != "WCDF" and "captures" in state["rules"] and state["state"]["turn"] == "black"
        assert ws.command("hands 11-15")["ok"]
        ws.until(lambda m: m.get("event") == "move")
        error = ws.command("rules english")
        assert error["event"] == "error" and error["code"] == "not-now"
        assert ws.command("rules chess")["code"] == "bad-argument"


def test_one_page_cannot_blind_the_others(board: LiveBoard) -> None:
    with Socket(board.ws_url) as quiet, Socket(board.ws_url) as other:
        quiet.next()
        other.next()
        assert quiet.command("watch off")["watching"] is True
        assert quiet.command("hands 11-15")["ok"]
        other.until(lambda m: m.get("event") == "view" and m["board"][14] == "b")


@pytest.mark.slow
def test_a_page_that_does_not_read_is_dropped_and_the_board_goes_on(board: LiveBoard) -> None:
    """Slow: the kernel's socket buffers on loopback take megabytes before the page's
    queue fills (about a minute)."""
    import time

    with Socket(board.ws_url, max_queue=4) as stuck, Socket(board.ws_url) as other:
        other.next()
        # Ask for megabytes of replies and read none of them.
        for _ in range(12_000):
            stuck.send("help")
        deadline = time.monotonic() + 120
        while board.server.hub.pages > 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert board.server.hub.pages == 1
        assert board.app.steps > 0 and board._thread.is_alive()
        assert other.command("hands 11-15")["ok"]
        other.until(lambda m: m.get("event") == "move")


def test_a_full_page_queue_disconnects_that_page_only(board: LiveBoard) -> None:
    import asyncio

    from crownhead.firmware.web.server import PAGE_QUEUE

    server = board.server
    with Socket(board.ws_url) as slow, Socket(board.ws_url) as fine:
        slow.next()
        fine.next()
        ids = sorted(server._queues)
        slow_id = ids[0]

        async def flood() -> None:
            # As if the slow page's sender were stuck: its queue is full when the next
            # line for every page comes; that page is dropped, the other gets the line.
            queue = server._queues[slow_id]
            while not queue.full():
                queue.put_nowait('{"event":"filler"}')
            with server.hub._lock:
                server.hub._outbox.append((tuple(ids), b'{"event":"notice","message":"to all"}\n'))
            server._deliver()

        assert server._loop is not None
        asyncio.run_coroutine_threadsafe(flood(), server._loop).result(WAIT_S)
        assert slow_id not in server._queues and len(server._queues) == 1
        fine.until(lambda m: m.get("event") == "notice" and m["message"] == "to all")
        assert fine.command("hands 11-15")["ok"]
        fine.until(lambda m: m.get("event") == "move")
        assert PAGE_QUEUE >= 64


def test_status_shows_the_last_selftest(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from crownhead.firmware.cli import main
    from crownhead.firmware.storage.selftest import SELFTEST_FILE

    with LiveBoard(tmp_path) as board:

        def selftest() -> dict[str, Any]:
            status, _h, body = board.get("/api/status")
            assert status == 200
            return json.loads(body)["selftest"]

        assert selftest() == {"state": "never run"}
        assert main(["selftest", "--hal", "sim", "--sim-stuck", "7", "--no-leds", "--state-dir", str(tmp_path)]) == 1
        failed = selftest()
        assert failed["state"] == "failed" and failed["backend"] == "sim" and failed["time"].endswith("Z")
        assert len(failed["faults"]) == 1 and "square 7" in failed["faults"][0] and "FAULTS (1):" in failed["lines"]
        (tmp_path / SELFTEST_FILE).write_text('{"format": "crownhead-selftest", "version": 1, "time": ')
        with caplog.at_level(logging.WARNING, logger="crownhead.firmware.web.server"):
            assert selftest() == {"state": "unreadable"}
            assert selftest() == {"state": "unreadable"}
        logged = [r.getMessage() for r in caplog.records if "self-test" in r.getMessage()]
        assert len(logged) == 1 and f"{SELFTEST_FILE}: not JSON" in logged[0]  # once, naming the file
        assert board.state()["state"]["ply"] == 0  # the rest goes on
        assert main(["selftest", "--hal", "sim", "--squares", "1-4", "--no-leds", "--state-dir", str(tmp_path)]) == 0
        assert selftest()["state"] == "passed"


# -- what the server answers without the main loop, and what it costs the main loop ------


@pytest.fixture
def kept(tmp_path: Path):
    """A live board whose pages' answers are kept until the board changes, however long
    the test takes on a busy machine: how long they are kept at most (KEEP_MS, on the
    board's clock) is tested on its own, below, without a real clock."""
    with LiveBoard(tmp_path, keep_ms=3_600_000) as live:
        yield live


def greeted(ws: Socket) -> None:
    """Wait for the greeting and the first view sent to every page: that view forgets
    what was kept (the board's first view, with nothing to compare it to), so a count of
    what reached the main loop starts after it."""
    ws.until(lambda m: m.get("event") == "view")


def test_a_question_answered_once_is_answered_again_without_the_main_loop(kept: LiveBoard) -> None:
    board = kept
    with Socket(board.ws_url) as ws:
        greeted(ws)
        first = ws.command("fen")
        handled = board.link.commands
        answered = board.hub.answered
        again = ws.command("fen")
        assert board.link.commands == handled and board.hub.answered == answered + 1
        assert {k: v for k, v in again.items() if k != "t"} == {k: v for k, v in first.items() if k != "t"}
        for question in ("moves", "hello", "history 0", "pdn"):
            one, two = ws.command(question), ws.command(question)
            assert {k: v for k, v in one.items() if k != "t"} == {k: v for k, v in two.items() if k != "t"}, question
        assert board.link.commands == handled + 4  # each asked of the main loop once
        # The board changes: what was kept is forgotten, the answer is the new one.
        assert ws.command("hands 11-15")["ok"]
        ws.until(lambda m: m.get("event") == "move")
        after = ws.command("fen")
        assert after["ply"] == 1 and after["fen"] != first["fen"]
        assert ws.command("moves")["turn"] == "white"


def test_a_refused_command_is_refused_alike_until_the_board_changes(kept: LiveBoard) -> None:
    board = kept
    with Socket(board.ws_url) as ws:
        greeted(ws)
        first = ws.command("play 22-18")  # White's man, Black to move
        assert first["event"] == "error" and first["code"] == "illegal-move"
        handled, refused = board.link.commands, board.hub.refused
        again = ws.command("play 22-18")
        assert {k: v for k, v in again.items() if k != "t"} == {k: v for k, v in first.items() if k != "t"}
        assert board.link.commands == handled and board.hub.refused == refused + 1
        assert ws.command("hands 11-15")["ok"]  # a change: the same line is looked at afresh
        ws.until(lambda m: m.get("event") == "move")
        third = ws.command("play 22-18")  # White to move now: the move is lit for White
        assert third["event"] == "reply" and third["ok"] and board.link.commands == handled + 2


def test_a_pages_lines_are_answered_in_the_order_it_sent_them(board: LiveBoard) -> None:
    with Socket(board.ws_url) as ws:
        ws.next()
        ws.command("fen")  # kept: the next `fen` could be answered by the server at once
        # Sent together: the command waits for the main loop, so the questions after it
        # do too, and come back after its reply, in order.
        ws.send("hands 11-15\nfen\ncastle\nhelp")
        answers = [ws.until(lambda m: m.get("event") in ("reply", "error")) for _ in range(4)]
        assert [a.get("cmd", a.get("code")) for a in answers] == ["hands", "fen", "unknown-command", "help"]
        # The same line answered by the server alone gets the same error.
        local = ws.command("castle")
        assert {k: v for k, v in local.items() if k != "t"} == {k: v for k, v in answers[2].items() if k != "t"}


def test_an_idle_board_wakes_the_server_for_nothing(board: LiveBoard) -> None:
    import time

    with Socket(board.ws_url) as ws:
        ws.next()
        ws.until(lambda m: m.get("event") == "view")
        rounds = board.server.rounds
        steps = board.app.steps
        time.sleep(1.5)  # the main loop steps meanwhile (at least every App.run's idle_ms)
        assert board.app.steps > steps + 5
        assert board.server.rounds == rounds  # not one wake-up: nothing was sent
        ws.send("hands 11-15")
        ws.until(lambda m: m.get("event") == "move")
        assert board.server.rounds > rounds


def test_the_main_loop_takes_page_lines_at_its_rate() -> None:
    from crownhead.firmware.web.bridge import PageHub

    now = [0]
    hub = PageHub(rate=10, burst=3)
    hub.now = lambda: now[0]
    # Six pages, a command each (one page's next line waits for its first: see below).
    pages = [hub.join(control=True) for _ in range(6)]
    for n, page in enumerate(pages):
        assert page is not None
        assert hub.put(page, f"hands 11-{15 + n}".encode()) == (True, [])
    taken = [hub.receive(8) for _ in range(3)]
    assert [len(t) for t in taken] == [3, 0, 0]  # the burst, then nothing at the same time
    now[0] = 250  # a quarter of a second: 2.5 more
    assert len(hub.receive(8)) == 2
    now[0] = 10_000  # a long quiet: never more than the burst at once
    assert len(hub.receive(8)) == 1  # what was left


def test_a_full_inbox_holds_the_page_back_and_drops_nothing() -> None:
    from crownhead.firmware.web.bridge import PageHub

    hub = PageHub(inbox_lines=2)
    woken = []
    hub.make_room = lambda: woken.append(True)
    first, second, third = (hub.join(control=True) for _ in range(3))
    assert first is not None and second is not None and third is not None
    assert hub.put(first, b"hands 11-15") == (True, [])
    assert hub.put(second, b"hands 9-14") == (True, [])
    assert hub.put(third, b"hands 10-15") == (False, []) and hub.held(third)
    assert hub.receive(1) == [Command("hands", ("11-15",))] and woken == [True]
    assert not hub.held(third)
    assert hub.put(third) == (True, [])  # the one that waited goes in now
    assert hub.receive(8) == [Command("hands", ("9-14",)), Command("hands", ("10-15",))]


def test_an_answer_is_kept_for_keep_ms_at_most() -> None:
    # A change that no event tells of (a serial link's command) is seen within KEEP_MS.
    from crownhead.firmware.web.bridge import KEEP_MS, PageHub

    now = [1000]
    hub = PageHub()
    hub.now = lambda: now[0]
    page = hub.join(control=True)
    assert page is not None
    hub.take_fresh()
    hub.resume()
    hub.keep(Command("fen"), {"event": "reply", "cmd": "fen", "ok": True, "fen": "B:W21:B1", "ply": 0}, 1000)
    now[0] = 1000 + KEEP_MS
    done, answers = hub.put(page, b"fen")
    assert done and len(answers) == 1 and json.loads(answers[0])["t"] == 1000 + KEEP_MS
    now[0] += 1
    assert hub.put(page, b"fen") == (True, []) and hub.receive(8) == [Command("fen")]


def test_the_view_is_kept_as_it_is_sent() -> None:
    # A page that has the view may ask for it at once: the view is kept before the server
    # can be woken with it (it was kept after, and a quick page's `view` reached the main
    # loop in between).
    from crownhead.firmware.web.bridge import VIEW, PageHub

    hub = PageHub()
    hub.now = lambda: 5
    page = hub.join(control=True)
    assert page is not None
    hub.take_fresh()
    asked: list[bool] = []

    def wake() -> None:
        for targets, line in hub.take():
            if line and b'"view"' in line:
                asked.append(hub.put(page, b"view")[1] != [])

    hub.wake = wake
    hub.resume()
    hub.send(
        b'{"t":5,"event":"view","brightness":40}\n',
        display_only=True,
        keep=(VIEW, {"event": "reply", "cmd": "view", "ok": True, "brightness": 40}, 5),
    )
    assert asked == [True]


def test_a_pages_lines_after_its_command_wait_for_it_and_then_for_nothing() -> None:
    # A page's command goes to the main loop; its next lines wait in the server until it
    # is answered, then those the server can answer from what is kept are answered there.
    from crownhead.firmware.web.bridge import PageHub

    hub = PageHub()
    page = hub.join(control=True)
    assert page is not None
    hub.take_fresh()
    hub.resume()
    hub.keep(Command("fen"), {"event": "reply", "cmd": "fen", "ok": True, "fen": "B:W21:B1", "ply": 0}, 0)
    assert hub.put(page, b"brightness 40\nfen\ncastle\nhands 11-15") == (False, [])
    assert hub.held(page)
    assert hub.receive(8) == [Command("brightness", (40,))]
    assert hub.receive(8) == []  # the rest waits in the server, not in the main loop's inbox
    hub.send(b'{"event":"reply","cmd":"brightness","ok":true}\n')
    hub.changed(display_only=True)  # the lights alone: the kept fen stands
    hub.done()
    hub.current = None
    for targets, line in hub.take():
        if not line:
            hub.settle(targets[0])
    assert not hub.held(page)
    done, answers = hub.put(page)
    assert done  # every line dealt with: two answered here, the last queued for the main loop
    assert [json.loads(a).get("cmd", json.loads(a).get("code")) for a in answers] == ["fen", "unknown-command"]
    assert json.loads(answers[0])["fen"] == "B:W21:B1"
    assert hub.receive(8) == [Command("hands", ("11-15",))]


def test_a_change_of_the_lights_alone_forgets_only_the_view(kept: LiveBoard) -> None:
    board = kept
    with Socket(board.ws_url) as ws:
        greeted(ws)
        fen = ws.command("fen")
        assert ws.command("view")["brightness"] != 40
        assert ws.command("brightness 40")["ok"]
        ws.until(lambda m: m.get("event") == "view" and m["brightness"] == 40)
        handled = board.link.commands
        assert {k: v for k, v in ws.command("fen").items() if k != "t"} == {k: v for k, v in fen.items() if k != "t"}
        assert ws.command("view")["brightness"] == 40
        assert board.link.commands == handled  # both answered by the server from what it kept
        # A change of the game forgets everything.
        assert ws.command("hands 11-15")["ok"]
        ws.until(lambda m: m.get("event") == "move")
        assert ws.command("fen")["ply"] == 1


def test_the_view_after_a_brightness_is_the_view_drawn_afresh(tmp_path: Path) -> None:
    # After a display command alone, the link sends the last view with what the command
    # set (and the clock as it is then) instead of drawing it all again: it must be the
    # same as the view drawn afresh, a running clock included. Virtual time, no server.
    from crownhead.firmware.app.settings import AppSettings
    from crownhead.firmware.gameclock import TimeControl
    from crownhead.firmware.simulator.hands import Hands
    from crownhead.firmware.web.bridge import PageHub, WebLink
    from helpers.rig import Rig

    rig = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("60")), start=False)
    hub = PageHub()
    link = WebLink(hub)
    link.attach(rig.app)
    rig.app.start()
    page = hub.join(control=True)
    assert page is not None
    rig.wait(100)
    Hands(rig.app).act_text("11")  # Black lifts: Black's time runs
    rig.wait(1500)

    def views() -> list[dict[str, Any]]:
        out = []
        for targets, line in hub.take():
            if not line:
                hub.settle(targets[0])
            elif b'"event":"view"' in line:
                out.append(json.loads(line))
        return out

    views()
    drawn: list[int] = []
    draw = link.presenter.body
    link.presenter.body = lambda now: drawn.append(now) or draw(now)  # type: ignore[method-assign]
    for percent in (40, 60, 50):
        rig.wait(260)  # within the same second as the last view, or not
        done, answers = hub.put(page, f"brightness {percent}".encode())
        assert done and json.loads(answers[0])["brightness"] == percent  # answered at once
        rig.app.step()
        sent = views()
        assert sent, percent
        view = sent[-1]
        now = view.pop("t")
        view.pop("event")
        assert view["brightness"] == percent and view["clock"]["running"] == "black"
        assert view == draw(now)
        assert hub.put(page) == (True, [])
    # Drawn afresh only at a new second (the view's safety net), not for a brightness.
    assert len(drawn) == 1
    rig.close()


def test_a_flood_of_display_commands_costs_the_main_loop_a_few_frames(tmp_path: Path) -> None:
    # A slider dragged, or a hostile page: every line is answered at once, in order, by
    # the server's thread; the main loop applies the last value at most every DISPLAY_MS,
    # and every page ends with the last value asked. Virtual time, no server.
    from crownhead.firmware.web.bridge import DISPLAY_MS, PageHub, WebLink
    from helpers.rig import Rig

    rig = Rig(tmp_path, start=False)
    hub = PageHub(rate=1000, burst=1000)
    link = WebLink(hub)
    link.attach(rig.app)
    rig.app.start()
    pages = [hub.join(control=True) for _ in range(10)]
    assert all(page is not None for page in pages)
    sender = pages[0]
    assert sender is not None
    applied: list[float] = []
    set_brightness = rig.app.set_brightness
    rig.app.set_brightness = lambda fraction: applied.append(fraction) or set_brightness(fraction)  # type: ignore[method-assign]
    views: dict[int, list[int]] = {}

    def drain() -> None:
        for targets, line in hub.take():
            if not line:
                hub.settle(targets[0])
            elif b'"event":"view"' in line:
                for target in targets:
                    views.setdefault(target, []).append(json.loads(line)["brightness"])

    rig.wait(100)
    drain()
    # A burst in one message: 30 replies at once, in order; the page's view says the last.
    done, answers = hub.put(sender, "\n".join(f"brightness {n}" for n in range(1, 31)).encode())
    assert done and [json.loads(a)["brightness"] for a in answers] == list(range(1, 31))
    done, answers = hub.put(sender, b"view")
    if answers:  # kept from the last view: what the page set shows in it already
        assert json.loads(answers[0])["brightness"] == 30
    rig.app.step()
    drain()
    assert applied == [0.30]
    # Then a line every 10 ms for two seconds, the board stepping between: the last value
    # asked is applied a quarter of a second later at most, once per quarter at most.
    start = rig.clock.now_ms()
    for n in range(200):
        assert hub.put(sender, f"brightness {n % 100}".encode())[0]
        rig.wait(10)
    drain()
    elapsed = rig.clock.now_ms() - start
    assert len(applied) <= 1 + elapsed // DISPLAY_MS + 1
    rig.wait(DISPLAY_MS + 20)
    drain()
    assert applied[-1] == 0.99 and rig.app.policy.settings.brightness == 0.99
    assert {page.id: views[page.id][-1] for page in pages if page is not None} == {
        page.id: 99 for page in pages if page is not None
    }
    assert link.commands == 0 and hub.answered == 231  # none of them reached the main loop as a line
    rig.close()


def test_display_commands_from_a_page_that_may_not_change_the_board(tmp_path: Path) -> None:
    from crownhead.firmware.link.settings import LinkConfig
    from crownhead.firmware.web.bridge import PageHub, WebLink
    from helpers.rig import Rig

    rig = Rig(tmp_path, start=False)
    hub = PageHub()
    WebLink(hub).attach(rig.app)
    watcher = hub.join(control=False)
    assert watcher is not None
    done, answers = hub.put(watcher, b"brightness 10")
    assert done and json.loads(answers[0])["code"] == "forbidden"
    assert hub.take_display(10**6) == []
    # A read-only link (link.control = false) leaves them to the main loop, which refuses them.
    read_only = PageHub()
    WebLink(read_only, LinkConfig(control=False))
    page = read_only.join(control=True)
    assert page is not None
    assert read_only.put(page, b"brightness 10") == (True, [])
    assert read_only.receive(8) == [Command("brightness", (10,))]
    rig.close()


def test_an_idle_board_with_its_pages_sleeps_until_something_is_due(board: LiveBoard) -> None:
    # On the simulated board, with only the pages' link (which the server wakes), the main
    # loop sleeps until its next deadline (at most App.run's idle_ms) instead of stepping
    # every 10 ms; a page's command still wakes it at once.
    import time

    from crownhead.firmware.app.loop import IDLE_MS

    assert board.app.sleeps_until_due()
    with Socket(board.ws_url) as ws:
        greeted(ws)
        steps = board.app.steps
        time.sleep(1.0)
        # An upper bound: a busy machine steps less, never more.
        assert board.app.steps - steps <= 1000 // IDLE_MS + 5
        assert ws.command("hands 11-15")["ok"]
        ws.until(lambda m: m.get("event") == "move")
    # A part that polls without waking the loop makes it look every poll_ms again.
    board.app.add_output(Poller(lambda now: []))
    assert not board.app.sleeps_until_due()


def test_the_hub_says_when_the_main_loop_must_step() -> None:
    from crownhead.firmware.web.bridge import PageHub

    now = [0]
    hub = PageHub(rate=10, burst=1)
    hub.now = lambda: now[0]
    woken: list[str] = []
    hub.wake_board = lambda: woken.append("board")
    assert hub.next_deadline(0) is None
    page, other = hub.join(control=True), hub.join(control=True)
    assert page is not None and other is not None and woken == ["board", "board"]
    assert hub.next_deadline(0) == 0  # pages to greet
    hub.take_fresh()
    hub.resume()
    assert hub.next_deadline(0) is None
    hub.put(page, b"hands 11-15")
    hub.put(other, b"hands 22-18")
    assert woken == ["board"] * 4 and hub.next_deadline(0) == 0
    assert len(hub.receive(8)) == 1  # the burst spent: the next line in 100 ms
    assert hub.next_deadline(0) == 100


# -- one page shell and one policy for the board's page and the hall ----------------------


def test_the_handlers_live_at_module_level() -> None:
    # A handler nested in WebServer.asgi is rebuilt at each call and cannot be read,
    # tested or reused on its own; the routes are the module's.
    import ast
    import inspect
    import textwrap

    from crownhead.firmware.web import server

    tree = ast.parse(textwrap.dedent(inspect.getsource(server.WebServer.asgi)))
    nested = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert nested == ["asgi"]
    assert {route.path for route in server._ROUTES} >= {"/", "/ws", "/api/status", "/api/login"}


def test_the_board_page_and_the_hall_share_one_shell_and_one_policy(board: LiveBoard) -> None:
    from crownhead.firmware.hall.hall import Hall, HallServer
    from crownhead.firmware.hall.hall import page_html as hall_page
    from crownhead.firmware.pages import SECURITY_HEADERS, fill_shell
    from crownhead.firmware.web.server import page_html

    hall = HallServer(Hall("club"), "127.0.0.1", 0)
    hall.start()
    try:
        host, port = hall.address
        _s, hall_headers, _b = request(f"http://{host}:{port}/")
    finally:
        hall.close()
    _s, board_headers, _b = board.get("/")
    for name, value in SECURITY_HEADERS.items():
        assert board_headers[name.lower()] == value and hall_headers[name.lower()] == value, name
    # Both shells are filled by the one function: the same board and templates.
    filled = fill_shell("<!--BOARD-->|<!--FLIPPED-->|<!--TEMPLATES-->").split("|")
    for page in (hall_page(), page_html()):
        assert all(part in page for part in filled)
    # Nothing else in the code spells out a policy of its own.
    repo = Path(__file__).resolve().parents[1] / "firmware"
    spelled = [str(p.relative_to(repo)) for p in repo.rglob("*.py") if "default-src" in p.read_text(encoding="utf-8")]
    assert spelled == ["pages/__init__.py"]


def test_the_page_has_an_icon_and_asks_for_no_missing_one(board: LiveBoard) -> None:
    # Issue 54, item 10: every page load asked for /favicon.ico and got a 404 (in red in
    # the browser's console, where a newcomer looking for a fault looks first).
    status, headers, body = board.get("/favicon.ico")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml") and body.startswith(b"<svg")
    assert '<link rel="icon" href="/favicon.ico"' in board.get("/")[2].decode()
