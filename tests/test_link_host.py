"""A host computer and a board over a real serial line (a pty pair, pyserial at both ends).

Every command, every error, a whole game relayed move by move, a host playing one side,
the cable pulled mid-game, a flood, a host that stops reading.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.link.protocol import COMMANDS, ERROR_CODES, MAX_LINE
from crownhead.firmware.simulator.hands import Hands
from crownhead.rules import WCDF, Game, Move, Position
from crownhead.rules.pdn import read_game
from helpers.games import random_game
from helpers.cable import TIMEOUT_S, Host, HostedBoard, NullModem, plugged_in, snapshot, unplugged

START = Position.start().fen()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[HostedBoard]:
    r = HostedBoard(tmp_path)
    yield r
    r.close()


# -- greeting and commands -------------------------------------------------------------------


def test_the_board_greets_with_its_version_configuration_and_state(rig: HostedBoard) -> None:
    hello = rig.hello
    assert hello["cause"] == "connect" and hello["protocol"] == 1 and hello["version"]
    assert {k: hello[k] for k in ("plays", "mode", "hints", "control", "variant", "max_line")} == {
        "plays": "both",
        "mode": "play",
        "hints": True,
        "control": True,
        "variant": "english",
        "max_line": MAX_LINE,
    }
    state = hello["state"]
    assert (state["fen"], state["start"], state["ply"], state["turn"], state["last"]) == (
        START,
        START,
        0,
        "black",
        None,
    )
    assert state["game"] == str(rig.board.link.game_id) and rig.board.link.game_id.serial == 1


def test_every_command_gets_one_reply(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    reply = host.request("hello")
    assert reply["cmd"] == "hello" and reply["ok"] and reply["state"]["ply"] == 0
    assert host.request("fen") == {
        "t": 0,
        "event": "reply",
        "cmd": "fen",
        "ok": True,
        "fen": START,
        "ply": 0,
        "turn": "black",
        "setup": None,
    }
    assert host.request("moves")["moves"] == ["9-13", "10-14", "11-15", "12-16", "9-14", "10-15", "11-16"]
    first = host.request("help")
    rest = host.request(f"help {first['next']}") if first["next"] is not None else {"commands": [], "next": None}
    assert rest["next"] is None
    assert len(first["commands"]) + len(rest["commands"]) == len(COMMANDS)

    reply = host.request("names Zoë Brook;Łukasz")
    assert (reply["black"], reply["white"], reply["saved"]) == ("Zoë Brook", "Łukasz", True)
    assert board.app.players[board.game.turn].name == "Zoë Brook"
    assert json.loads(board.store.current_path.read_text(encoding="utf-8"))["black"] == "Zoë Brook"

    assert host.request("hint off") == {
        "t": 0,
        "event": "reply",
        "cmd": "hint",
        "ok": True,
        "hints": False,
        "shown": False,
    }
    assert not board.app.policy.hints_shown
    host.request("hint on")
    assert host.request("mode referee")["mode"] == "referee"
    assert board.app.tracker.mode == "referee" and board.app.policy.referee
    assert board.app.referee is not None and board.app.follower.judge is board.app.referee  # the arbiter judges
    host.request("mode play")
    assert board.app.tracker.mode == "play" and not board.app.policy.referee and board.app.referee is None

    # ballot: its three moves are shown one after the other for the players to make.
    reply = host.request("ballot 5")
    assert (reply["number"], reply["name"], reply["moves"]) == (5, "Dreaded Edinburgh", ["9-13", "22-18", "6-9"])
    for text in reply["moves"]:
        host.pump()
        assert board.app.tracker.expected.pdn() == text
        board.follow()
        assert host.event("move")["move"] == text
    host.pump()
    assert board.app.tracker.expected is None

    # play: shown on the LEDs, made by the board's hands, reported as a move.
    reply = host.request("play 24-19")
    assert reply == {
        "t": reply["t"],
        "event": "reply",
        "cmd": "play",
        "ok": True,
        "ply": 4,
        "side": "white",
        "move": "24-19",
        "path": [24, 19],
        "captures": [],
    }
    roles = board.app.tracker.roles
    assert (roles[24], roles[19]) == ("move-from", "move-to")
    board.follow()
    assert host.event("move") | {"t": 0} == {
        "t": 0,
        "event": "move",
        "ply": 4,
        "side": "white",
        "move": "24-19",
        "path": [24, 19],
        "captures": [],
    }

    # pdn: the record so far, tags from the game record.
    reply = host.request("pdn")
    assert (reply["offset"], reply["next"], reply["ply"]) == (0, None, 4)
    pdn = read_game(reply["pdn"])
    assert [m.pdn() for m in pdn.game().moves] == ["9-13", "22-18", "6-9", "24-19"]
    assert pdn.tag("Black") == "Zoë Brook"

    # result: an arbiter's decision ends the game; the record is written.
    reply = host.request("result 1/2-1/2 agreement")
    assert (reply["result"], reply["reason"]) == ("1/2-1/2", "agreement")
    assert host.event("game-over") | {"t": 0} == {
        "t": 0,
        "event": "game-over",
        "result": "1/2-1/2",
        "reason": "agreement",
    }
    saved = host.event("game-saved")
    assert Path(saved["path"]).is_file() and board.game.result.score == "1/2-1/2"

    # new: with a FEN; the board guides the set-up, and the game starts when it stands.
    reply = host.request("new W:WK10,22:B5,6")
    assert (reply["fen"], reply["ready"]) == ("W:WK10,22:B5,6", False)
    assert host.request("fen")["setup"] == "W:WK10,22:B5,6"
    board.follow()
    assert host.event("new-game")["fen"] == "W:WK10,22:B5,6"
    state = host.event("state")
    assert (state["cause"], state["fen"], state["ply"], state["turn"]) == ("new-game", "W:WK10,22:B5,6", 0, "white")
    assert host.request("moves")["moves"] == ["10x1"]  # a capture is compulsory
    reply = host.request("new")
    assert reply["fen"] == START


def test_pdn_of_a_long_game_comes_in_pieces_that_fit_a_line(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    moves = random_game(2).moves
    for move in moves[:90]:
        board.do(move.pdn(full=True), wait=400)
    host.request("names " + "é" * 40 + ";" + "ß" * 40)
    text, offset, pieces = "", 0, 0
    while offset is not None:
        reply = host.request(f"pdn {offset}")
        assert reply["offset"] == offset and reply["ply"] == 90
        text += reply["pdn"]
        offset = reply["next"]
        pieces += 1
    assert pieces >= 2 and len(text) == reply["size"]
    assert read_game(text).game().moves == moves[:90]
    assert all(len(raw) + 1 <= MAX_LINE for raw in host.raw)


# -- errors ----------------------------------------------------------------------------------

ERRORS: list[tuple[bytes, str]] = [
    (b"x" * 3000 + b"\n", "too-long"),
    (b"\xff\xfe\xfd\n", "bad-encoding"),
    (b"fen\x00\n", "bad-encoding"),
    (b"{not json\n", "bad-json"),
    (b'{"no":"event"}\n', "bad-json"),
    (b"launch missiles\n", "unknown-command"),
    (b"cat /etc/passwd\n", "unknown-command"),
    (b"play\n", "bad-argument"),
    (b"play 22-18 11-15\n", "bad-argument"),
    (b"hint maybe\n", "bad-argument"),
    (b"pdn 99999\n", "bad-argument"),
    (b"new B:W99:B1\n", "bad-argument"),
    (b"new ../../etc/passwd\n", "bad-argument"),
    (b"ballot 999\n", "bad-argument"),
    (b"ballot 3\n", "bad-argument"),  # barred: never played
    (b"names ;\n", "bad-argument"),
    (b"result 3-0 time\n", "bad-argument"),
    (b"play 22-18\n", "illegal-move"),
    (b"play 11-18\n", "illegal-move"),
    (b"PLAY 9-14\r\n", None),  # a good command among the bad, upper case and CRLF: accepted
]


def test_every_error_gets_one_error_reply_and_changes_nothing(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    host.sync()
    for raw, code in ERRORS:
        before = snapshot(board)
        host.write(raw)
        answer = host.wait_for(lambda d: d["event"] in ("reply", "error"), f"answer to {raw[:20]!r}")
        if code is None:
            assert answer["ok"]
            continue
        assert answer["event"] == "error" and answer["code"] == code, (raw[:40], answer)
        assert answer["message"] and code in ERROR_CODES
        assert snapshot(board) == before, raw[:40]
    host.sync()
    assert host.since("reply") == [] and host.since("error") == []  # one answer each, no more


def test_errors_that_depend_on_the_game(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    # Two capture routes with the same ends: the move must name its landing squares.
    host.request("new B:W6,7,14,15:B2")
    board.follow()
    host.event("new-game")
    before = snapshot(board)
    reply = host.request("play 2x18")
    assert reply["code"] == "ambiguous-move" and "2x9x18" in reply["message"] and "2x11x18" in reply["message"]
    assert snapshot(board) == before
    assert host.request("play 2x11x18")["ok"]
    board.follow()
    host.event("move")
    # After the first move: no ballot, no change of mode.
    for line, code in [("ballot 5", "not-now"), ("mode referee", "not-now")]:
        before = snapshot(board)
        assert host.request(line)["code"] == code
        assert snapshot(board) == before
    # A game that is over takes no move and no second result.
    host.request("result 0-1 resign")
    host.event("game-over")
    for line in ("play 6-9", "result 1-0 forfeit", "ballot 5"):
        before = snapshot(board)
        assert host.request(line)["code"] == "not-now"
        assert snapshot(board) == before


def test_in_referee_mode_ballot_and_result_go_through_the_referee(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    assert host.request("mode referee")["ok"]
    reply = host.request("ballot 5")
    assert reply["moves"] == ["9-13", "22-18", "6-9"]
    drawn = host.event("ballot")  # the referee's own event: it plays and records the ballot
    assert drawn["number"] == 5
    assert board.app.tracker.expected.pdn() == "9-13"
    board.follow()
    assert host.event("move")["move"] == "9-13"
    host.request("result 0-1 time")
    over = host.event("game-over")
    assert (over["result"], over["reason"]) == ("0-1", "time")
    record = board.app.referee.pdn(board.app.session)
    assert '[Ballot "5"]' in record and '[Termination "time"]' in record and '[Result "0-1"]' in record
    assert host.request("mode play")["ok"]  # after the game


def test_a_failing_command_costs_one_internal_error_reply(rig: HostedBoard, monkeypatch: pytest.MonkeyPatch) -> None:
    import crownhead.firmware.link.host  # noqa: F401 - loads firmware.link.host
    from crownhead import firmware
    from crownhead.firmware.link.commands import TABLE, Handler

    def broken(link: Any, now: int) -> dict[str, Any]:
        raise RuntimeError("bug")

    monkeypatch.setattr(firmware.link.host, "TABLE", {**TABLE, "moves": Handler(broken)})
    assert rig.host.request("moves")["code"] == "internal"
    assert rig.host.request("fen")["ok"]


def test_a_read_only_link_answers_questions_and_refuses_changes(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, control=False)
    try:
        assert rig.hello["control"] is False
        for line in ("hello", "fen", "moves", "pdn", "help"):
            assert rig.host.request(line)["ok"]
        for line in ("play 11-15", "new", "hint off", "mode referee", "names a;b", "ballot 5", "result 1-0 time"):
            before = snapshot(rig.board)
            reply = rig.host.request(line)
            assert reply["code"] == "read-only" and reply["cmd"] == line.split()[0]
            assert snapshot(rig.board) == before
    finally:
        rig.close()


def test_a_resuming_board_reports_the_saved_game_and_waits_for_its_pieces(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path)
    for text in ("11-15", "23-19", "8-11"):
        rig.board.do(text)
    rig.close()
    rig = HostedBoard(tmp_path)  # the same state directory: the saved game is offered
    try:
        assert rig.board.app.resuming
        state = rig.hello["state"]
        assert state["ply"] == 3 and state["last"]["move"] == "8-11" and state["setup"] is True
        assert rig.host.request("fen")["ply"] == 3
        assert read_game(rig.host.request("pdn")["pdn"]).game().ply == 3
        for line in ("play 22-18", "mode referee", "ballot 5"):
            before = snapshot(rig.board)
            assert rig.host.request(line)["code"] == "not-now"
            assert snapshot(rig.board) == before
        rig.board.follow()
        assert rig.host.event("game-start")["resumed"] is True
        assert rig.host.request("play 22-18")["ok"]
    finally:
        rig.close()


def test_new_from_the_host_gives_up_a_saved_game_as_the_boards_button_does(tmp_path: Path) -> None:
    from crownhead.firmware.storage.store import GameStore

    rig = HostedBoard(tmp_path)
    for text in ("11-15", "23-19", "8-11"):
        rig.board.do(text)
    rig.close()
    rig = HostedBoard(tmp_path)
    try:
        assert rig.board.app.resuming
        reply = rig.host.request("new")  # the pieces stand at the start: the new game is on
        assert reply["ok"] and reply["ready"] is True
        assert rig.host.event("game-start")["resumed"] is False
        assert not rig.board.app.resuming and rig.board.app.game.ply == 0
        assert rig.host.request("mode referee")["ok"]  # the first move is not made yet
        (kept,) = GameStore(tmp_path / "state").game_files()
        assert "8-11" in kept.read_text() and '[Result "*"]' in kept.read_text()
    finally:
        rig.close()


# -- whole games -----------------------------------------------------------------------------


def test_a_whole_game_is_relayed_move_by_move(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    moves = random_game(2).moves
    replica = Game(None, WCDF)
    for move in moves:
        board.do(move.pdn(full=True), wait=600)
        event = host.event("move")
        # The host rebuilds the game from the events alone.
        assert event["ply"] == replica.ply + 1 and event["side"] == str(replica.turn)
        played = Move(tuple(event["path"]), tuple(event["captures"]))
        assert played == move
        replica.play(played)
    over = host.event("game-over")
    assert (over["result"], over["reason"]) == (replica.result.score, replica.result.reason) == ("1-0", "no-moves")
    crowns = [e for e in host.lines if e["event"] == "crown"]
    assert len(crowns) == 8
    assert not [e for e in host.lines if e["event"] == "warning"]
    assert host.request("fen")["fen"] == replica.position.fen()
    text, offset = "", 0
    while offset is not None:
        reply = host.request(f"pdn {offset}")
        text, offset = text + reply["pdn"], reply["next"]
    record = read_game(text)
    assert record.game().moves == moves and record.tag("Result") == "1-0"


def test_the_host_plays_white_and_the_board_shows_each_move(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, plays="black")
    host, board = rig.host, rig.board
    try:
        assert rig.hello["plays"] == "black"
        moves = random_game(8).moves
        for move in moves:
            if board.game.turn.name == "BLACK":
                before = snapshot(board)
                reply = host.request(f"play {move.pdn(full=True)}")
                assert reply["code"] == "wrong-side"  # Black is played at the board
                assert snapshot(board) == before
                board.do(move.pdn(full=True), wait=600)
            else:
                assert board.app.tracker.expected is None
                reply = host.request(f"play {move.pdn(full=True)}")
                assert reply["ok"] and reply["path"] == list(move.path)
                assert board.app.tracker.expected == move
                board.follow(wait=600)
            assert host.event("move")["path"] == list(move.path)
        assert host.event("game-over")["result"] == "0-1"
        assert board.game.moves == moves
    finally:
        rig.close()


def test_a_move_made_at_the_board_for_the_hosts_side_is_refused(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, plays="black")
    host, board = rig.host, rig.board
    try:
        board.do("11-15")
        host.event("move")
        board.do("23-19")  # White's move, but White is played by the host
        warning = host.event("warning")  # never a move: the board holds White for the host
        assert warning["squares"] == [23, 19] and "the other end of the link: wait" in warning["message"]
        assert board.game.ply == 1 and not [d for d in host.lines if d["event"] in ("takeback", "notice")]
        assert board.app.tracker.roles == {23: "missing", 19: "extra"}
        board.follow()  # the hands put the piece back where the lights say
        assert board.app.tracker.warning is None
        assert host.request("play 22-18")["ok"]
        board.follow()
        assert host.event("move")["move"] == "22-18"
    finally:
        rig.close()


# -- the cable -------------------------------------------------------------------------------


def test_the_link_drops_and_comes_back_mid_game(rig: HostedBoard) -> None:
    host, board, cable = rig.host, rig.board, rig.cable
    for text in ("11-15", "23-19"):
        board.do(text)
        host.event("move")
    host.write(b"fe")  # half a line when the cable goes
    cable.unplug()
    unplugged([board])
    board.do("8-11")  # made while nobody hears it
    board.do("22-17")
    assert board.transport.drops == 1 and not board.transport.connected
    cable.replug()
    host.reopen()
    plugged_in([board], 2)  # the board retries every reconnect_ms (500) of its clock
    hello = host.event("hello")
    assert hello["cause"] == "connect" and board.transport.connects == 2
    state = hello["state"]
    assert (state["ply"], state["fen"], state["last"]["move"]) == (4, board.game.position.fen(), "22-17")
    # The half line from before the drop was not glued to what follows.
    host.write(b"n\n")
    assert host.wait_for(lambda d: d["event"] == "error", "error")["code"] == "unknown-command"
    assert host.request("fen")["ply"] == 4
    board.do("9-13")
    assert host.event("move")["ply"] == 5


def test_a_flood_of_lines_does_not_stall_the_board(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    host.sync()
    first = board.link.commands + board.link.errors  # the sentinel's among them
    flood = b"".join(b"fen\n" if i % 3 else b"garbage %d\n" % i for i in range(3000))
    host.write(flood)
    # The board keeps playing with its timing while the flood is being answered.
    Hands(board.app).act_text("11-15")
    handled_per_step = []
    last = board.link.commands + board.link.errors
    answered = 0
    deadline = time.monotonic() + TIMEOUT_S  # a bound on a failure only
    while board.link.commands + board.link.errors < first + 3000:
        board.step()
        now = board.link.commands + board.link.errors
        handled_per_step.append(now - last)
        last = now
        # The host takes in each step's answers before the next step: a host that reads
        # what it is sent. (Were the serial threads starved of the processor meanwhile,
        # answers would pile up into an overrun, which is another test's.)
        while answered < now - first:
            assert time.monotonic() < deadline, f"{answered} of 3000 lines answered"
            answered += sum(e["event"] in ("reply", "error") for e in host.pump(step=False))
        if board.clock.now_ms() < 2000:
            board.clock.advance(10)
    assert max(handled_per_step) <= board.link.lines_per_step
    board.wait(1000)
    host.sync()  # every answer in: the sentinel's comes after them
    moves = [e for e in host.lines if e["event"] == "move"]
    # Accepted settle_ms (300) after the hands stopped, exactly as without a flood.
    assert [(e["t"], e["move"]) for e in moves] == [(330, "11-15")]
    answers = [e for e in host.lines if e["event"] in ("reply", "error")]
    assert len(answers) == 3000
    assert sum(e["event"] == "error" for e in answers) == 1000


def test_a_host_that_stops_reading_gets_the_state_again_after_an_overrun(rig: HostedBoard) -> None:
    host, board = rig.host, rig.board
    host.sync()
    # Replies pile up in the cable, then in the board's queue, while the host reads nothing.
    host.write(b"help\n" * 300)
    # The board's reader thread takes the lines from the pty as fast as the machine lets
    # it: step until the outbox overflows, bounded in real time only should it never.
    deadline = time.monotonic() + TIMEOUT_S
    while not board.transport.overruns and time.monotonic() < deadline:
        board.step()
    assert board.transport.overruns >= 1
    host.event("overrun")
    hello = host.wait_for(lambda d: True, "the line after the overrun")
    assert hello["event"] == "hello" and hello["cause"] == "overrun"
    host.sync()  # the answers to the lines still waiting (or another overrun)
    assert host.request("fen")["ok"]  # and the link goes on


def test_no_board_line_is_longer_than_the_limit_even_with_long_names(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path)
    try:
        host, board = rig.host, rig.board
        host.request("names " + "😀" * 40 + ";" + "😀" * 40)
        kings = "W:W" + ",".join(f"K{s}" for s in range(17, 33)) + ":B" + ",".join(f"K{s}" for s in range(1, 17))
        host.request("new " + kings)  # 32 kings: the longest position there is
        for line in ("hello", "fen", "moves", "help", "pdn"):
            assert host.request(line)["ok"]
        host.request("new W:WK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12:BK21,K22,K23,K24,K25,K26,K27,K28,K29,K30,K31,K32")
        board.follow()
        host.event("new-game")
        for line in ("hello", "fen", "moves", "help", "pdn"):
            assert host.request(line)["ok"]
        board.do("12-16")
        host.sync()
        assert max(len(raw) + 1 for raw in host.raw) <= MAX_LINE
        assert all(json.loads(raw) for raw in host.raw)
    finally:
        rig.close()


# -- the command line ------------------------------------------------------------------------


def _crownhead(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "CROWNHEAD_CONFIG": str(cwd / "none.toml")},
    )


def test_crownhead_run_with_a_link_sends_the_game_to_the_host(tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("")
    cable = NullModem(tmp_path)
    host = Host(cable.b)
    try:
        script = tmp_path / "game.script"
        script.write_text("lift 11\nwait 200\nplace 15\nwait 1000\nlift 22\nwait 200\nplace 18\nwait 1000\n")
        done = _crownhead(
            "run",
            "--headless",
            "--hal",
            "sim",
            "--link",
            cable.a,
            "--script",
            str(script),
            "--state-dir",
            str(tmp_path / "state"),
            "--log",
            "json",
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        # The board has gone: its last line says so, and everything before it is in.
        host.wait_for(lambda d: d["event"] == "notice" and d["message"].startswith("stopped"), "the board's last line")
        kinds = [d["event"] for d in host.lines]
        assert kinds[0] == "hello" and host.lines[0]["state"]["ply"] == 0
        assert [d["move"] for d in host.lines if d["event"] == "move"] == ["11-15", "22-18"]
        # The link saw what the headless log saw.
        logged = [json.loads(line) for line in done.stdout.splitlines()]
        assert [d for d in logged if d["event"] == "move"] == [d for d in host.lines if d["event"] == "move"]
    finally:
        host.close()
        cable.close()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--link", "sokcet://host:1"], "link.port: pyserial knows no sokcet:// ports"),
        (["--link-plays", "black"], "--link-plays needs a link"),
        (["--link", "loop://", "--link-plays", "white", "--mode", "computer", "--opponent", "random"], "choose one"),
    ],
)
def test_crownhead_run_link_mistakes_are_one_line_and_exit_code_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "none.toml").write_text("")
    done = _crownhead("run", "--headless", "--hal", "sim", "--state-dir", str(tmp_path / "state"), *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_link_cannot_take_the_serial_boards_own_port(tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("")
    (tmp_path / "board.toml").write_text('[board]\nbackend = "serial"\n[serial]\nport = "/dev/ttyACM0"\n')
    done = _crownhead(
        "run",
        "--headless",
        "--config",
        str(tmp_path / "board.toml"),
        "--link",
        "/dev/ttyACM0",
        "--state-dir",
        str(tmp_path / "state"),
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "cannot share /dev/ttyACM0" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_per_side_draw_and_resign_commands(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path)
    host, board = rig.host, rig.board
    try:
        assert host.request("draw black")["draw"] == "offered"
        assert host.event("draw-offer")["side"] == "black"
        assert host.request("draw black")["draw"] == "offered"  # the same side: no agreement
        assert not board.game.is_over
        assert host.request("draw white")["draw"] == "agreed"
        over = host.event("game-over")
        assert (over["result"], over["reason"]) == ("1/2-1/2", "agreement")
        assert host.request("resign white")["code"] == "not-now"
        assert host.request("draw grey")["code"] == "bad-argument"
    finally:
        rig.close()


def test_a_linked_side_speaks_only_for_itself(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, plays="black")
    host, board = rig.host, rig.board
    try:
        assert host.request("resign black")["code"] == "wrong-side"  # Black is played here
        assert host.request("draw black")["code"] == "wrong-side"
        assert not board.game.is_over
        assert host.request("resign white") == {
            "t": 0,
            "event": "reply",
            "cmd": "resign",
            "ok": True,
            "side": "white",
            "result": "1-0",
        } | {"t": host.lines[-1]["t"]}
        assert board.game.result is not None and board.game.result.reason == "resign"
    finally:
        rig.close()
