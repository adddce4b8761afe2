"""Issue 55: a game on PlayStrategy played on the simulated board, through the local
stand-in server (tests/helpers/playstrategy.py): the far side's moves lit and made by the
simulated hands, the board's moves sent in the server's notation, a draw, a resignation,
a refused move, a dropped stream, a power cut, a time forfeit."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.online.client import Backoff, Client
from crownhead.firmware.online.game import OnlineGame, online_settings
from crownhead.rules import BLACK, WHITE
from helpers.net import wait_for
from helpers.playstrategy import Server
from helpers.rig import Rig, tokens

ALICE = "lip_alicetoken123"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def start_game(server: Server, p1: str = "alice") -> str:
    """Alice's seek paired with Bob's; ``p1`` moves first (Black)."""
    server.next_p1 = p1
    list(Client(ALICE, server.url, timeout_s=10).seek(10, 5))
    return max(server.games)


def join(rig: Rig, server: Server, gid: str) -> OnlineGame:
    online = OnlineGame(
        Client(ALICE, server.url, timeout_s=10, rate_limit_s=0.05), gid, "alice", backoff=Backoff(0.02, 0.2)
    )
    online.attach(rig.app)
    return online


def until(rig: Rig, holds: Callable[[], Any]) -> None:
    """Steps of the board (20 virtual ms each) until ``holds``, the network answering."""

    def step() -> bool:
        rig.app.run_for(20)
        return bool(holds())

    assert wait_for(step, 20.0), "the board never got there"


def ucis(server: Server, gid: str) -> list[str]:
    return list(server.games[gid].ucis)


@pytest.fixture
def online_rig(make_rig: Callable[..., Rig]) -> Callable[..., Rig]:
    def make(*args: Any, keep: bool = False) -> Rig:
        return make_rig(*args, settings=online_settings(AppSettings(sim_keep_game=keep), "http://127.0.0.1"))

    return make


def test_a_game_both_ways_with_a_draw_agreed(server: Server, online_rig: Callable[..., Rig]) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    assert "Bob (1620)" in online.status_line and "Alice (1500)" in online.status_line
    assert "10:00" in online.status_line
    rig.do("11-15")
    until(rig, lambda: ucis(server, gid) == ["2218"])  # PDN 11-15 in the server's numbers
    server.play(gid, "bob", "23-19")
    until(rig, lambda: rig.app.expected is not None)
    assert rig.app.expected.pdn(full=True) == "23-19"  # lit as the computer's move is
    rig.follow()
    assert rig.app.game.ply == 2
    server.say(gid, "bob", "good luck")
    until(rig, lambda: any("chat Bob: good luck" in s for s in online.said))
    rig.do("9-14")
    until(rig, lambda: len(ucis(server, gid)) == 3)
    server.offer_draw(gid, "bob")
    until(rig, lambda: rig.app.snapshot.offer is not None)
    rig.app.press("black_draw")  # accepted at the board
    until(rig, lambda: server.games[gid].status == "draw")
    until(rig, lambda: rig.app.game.is_over)
    assert rig.app.game.result.score == "1/2-1/2"
    assert not [r for r in server.requests if "/chat" in r[1]]  # no chat sent unless typed
    online.close()


def test_the_board_resigns_and_the_game_is_kept_with_the_servers_tags(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    rig.do("11-15")
    until(rig, lambda: len(ucis(server, gid)) == 1)
    server.play(gid, "bob", "22-18")
    until(rig, lambda: rig.app.expected is not None)
    rig.follow()
    server.offer_draw(gid, "bob")
    until(rig, lambda: rig.app.snapshot.offer is not None)
    rig.do("15x22")  # a move declines it
    until(rig, lambda: any(r[1].endswith("/draw/no") for r in server.requests))
    until(rig, lambda: len(ucis(server, gid)) == 3)
    rig.app.press("black_resign")
    rig.app.press("black_resign")  # the second press confirms
    until(rig, lambda: server.games[gid].status == "resign")
    assert server.games[gid].winner == "p2"
    until(rig, lambda: rig.app.game.is_over)
    assert rig.app.game.result.score == "0-1"
    until(rig, lambda: rig.store.game_files())
    (kept,) = rig.store.game_files()
    text = kept.read_text()
    for tag in (
        f'[Site "{server.url}"]',
        '[Event "PlayStrategy game"]',
        '[Black "Alice"]',
        '[White "Bob"]',
        f'[GameId "{gid}"]',
        '[BlackElo "1500"]',
        '[WhiteElo "1620"]',
        '[TimeControl "600+5"]',
        '[Result "0-1"]',
    ):
        assert tag in text
    # replayable by `crownhead pdn check`
    from crownhead.firmware.cli import main

    assert main(["pdn", "check", str(kept)]) == 0
    online.close()


def test_a_move_the_server_refuses_is_said_and_taken_back(server: Server, online_rig: Callable[..., Rig]) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    server.refuse_next = "Piece on 22 cannot move to 18"
    rig.do("11-15")
    until(rig, lambda: any("refused" in s for s in online.said))
    assert any("PlayStrategy refused 11-15: Piece on 22 cannot move to 18" in s for s in online.said)
    until(rig, lambda: rig.app.game.ply == 0)
    rig.follow()  # the hands put the piece back as the lights show
    rig.do("10-14")
    until(rig, lambda: ucis(server, gid) == ["2319"])
    online.close()


def test_a_dropped_stream_is_resumed_from_the_servers_state(server: Server, online_rig: Callable[..., Rig]) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    rig.do("11-15")
    until(rig, lambda: len(ucis(server, gid)) == 1)
    server.limit = 2  # and the server asks to wait, twice, when the board comes back
    server.drop_streams()
    until(rig, lambda: not online.connected)
    server.play(gid, "bob", "23-19")  # made while the board was away
    until(rig, lambda: online.connected and rig.app.expected is not None)
    assert rig.app.expected.pdn(full=True) == "23-19"
    assert any("out of reach" in s for s in online.said) and any("is back" in s for s in online.said)
    rig.follow()
    rig.do("8-11")
    until(rig, lambda: len(ucis(server, gid)) == 3)
    online.close()


def test_a_power_cut_comes_back_to_the_same_game(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    gid = start_game(server, p1="bob")  # Alice plays White this time
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is WHITE)
    server.play(gid, "bob", "11-15")
    until(rig, lambda: rig.app.expected is not None)
    rig.follow()
    rig.do("23-19")
    until(rig, lambda: len(ucis(server, gid)) == 2)
    online.close()
    rig.close()  # the power goes
    server.play(gid, "bob", "8-11")
    again = online_rig(keep=True)  # the same state directory, the pieces standing as they were
    online = join(again, server, gid)
    until(again, lambda: again.app.expected is not None)
    assert again.app.expected.pdn(full=True) == "8-11"
    again.follow()
    assert again.app.game.ply == 3
    again.do("22-18")
    until(again, lambda: len(ucis(server, gid)) == 4)
    online.close()


def test_a_time_forfeit_on_the_server_ends_the_game(server: Server, online_rig: Callable[..., Rig]) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    rig.do("11-15")
    until(rig, lambda: len(ucis(server, gid)) == 1)
    server.flag(gid, "p2")
    until(rig, lambda: rig.app.game.is_over)
    assert rig.app.game.result.score == "1-0" and rig.app.game.result.reason == "time"
    online.close()


def test_no_engine_help_while_an_online_game_runs(server: Server, online_rig: Callable[..., Rig]) -> None:
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    assert rig.app.analysis_refused is not None and "far apart" in rig.app.analysis_refused
    assert rig.app.set_analysis(True) is not None
    rig.do("h", wait=600)  # the hint key says why not
    assert rig.app.hint is None
    said = [e.to_json().get("message") for e in rig.events if e.kind == "notice"]
    assert "no hint in a game far apart: neither side gets the engine's help" in said
    import time

    began = time.monotonic()
    online.close()  # the game's stream cut: its reader does not wait for the next line
    assert time.monotonic() - began < 3.0


TRANSCRIPT = Path(__file__).parent / "transcripts" / "playstrategy_game_stream.ndjson"


def test_a_stream_transcript_played_on_the_board(online_rig: Callable[..., Rig]) -> None:
    """A game stream as the source's ``BotJsonView`` writes it (keep-alive lines, a chat
    line, a capture, the game resigned there), fed to the board as the reader thread
    does: the board plays Black's moves, lights White's, and ends as the server did.
    (Written from the source, not recorded from the live server: docs/online.md.)"""
    import json

    rig = online_rig()
    online = OnlineGame(Client(ALICE, "http://127.0.0.1:1"), "Xq7bLr2K", "alice", start=False).attach(rig.app)
    lines = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    mine = {1: "9-13", 3: "13x22"}
    for obj in lines:
        online._inbox.put(("data", obj))
        rig.app.run_for(100)
        ply = len(online.server_moves)
        if rig.app.expected is not None:
            rig.follow()
        if ply + 1 in mine and rig.app.game.ply == ply:
            rig.do(mine[ply + 1])
    assert [m.pdn(full=True) for m in rig.app.game.moves] == ["9-13", "22-17", "13x22", "25x18"]
    assert rig.app.game.result.score == "1-0" and rig.app.game.result.reason == "resign"
    assert any("chat Carol: hi from the site" in s for s in online.said)
    assert "White Carol (1733) 14:47" in online.status_line
    sent = []
    while not online._outbox.empty():
        sent.append(online._outbox.get())
    assert sent == [("move", (1, ["2420"])), ("move", (3, ["2011"]))]


def test_a_multi_jump_goes_to_the_server_jump_by_jump(server: Server, online_rig: Callable[..., Rig]) -> None:
    """The board's double jump 7x14x21 is sent as two requests, in the server's numbers;
    and the board's own draw offer, accepted there, ends the game drawn."""
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    line = ["9-13", "21-17", "6-9", "24-20", "10-15", "23-19", "15x24", "28x19", "11-15", "19x10"]
    for ply, move in enumerate(line, 1):
        if ply % 2:  # Black: the person at the board
            rig.do(move)
            until(rig, lambda p=ply: len(server.games[gid].ucis) >= p)
        else:
            server.play(gid, "bob", move)
            until(rig, lambda: rig.app.expected is not None)
            rig.follow()
    rig.do("7x14x21")
    until(rig, lambda: ucis(server, gid)[-2:] == ["2619", "1912"])  # 7x14, then 14x21
    assert len(ucis(server, gid)) == 12
    assert not [s for s in online.said if "cannot read" in s]  # the half-sent capture is no error
    rig.app.press("black_draw")  # offered at the board...
    until(rig, lambda: server.games[gid].draw["p1"])
    server.offer_draw(gid, "bob")  # ...and accepted there
    until(rig, lambda: rig.app.game.is_over)
    assert rig.app.game.result.score == "1/2-1/2"
    online.close()


def test_a_capture_refused_half_way_is_put_back_and_its_rest_sent(
    server: Server, online_rig: Callable[..., Rig]
) -> None:
    """The server takes 7x14 of 7x14x21 and answers 400 to 14x21: the board says so,
    guides the pieces back to the position before the capture, and the capture made
    again sends only the jump the server still needs."""
    gid = start_game(server)
    rig = online_rig()
    online = join(rig, server, gid)
    until(rig, lambda: online.mine is BLACK)
    line = ["9-13", "21-17", "6-9", "24-20", "10-15", "23-19", "15x24", "28x19", "11-15", "19x10"]
    for ply, move in enumerate(line, 1):
        if ply % 2:
            rig.do(move)
            until(rig, lambda p=ply: len(server.games[gid].ucis) >= p)
        else:
            server.play(gid, "bob", move)
            until(rig, lambda: rig.app.expected is not None)
            rig.follow()
    before = rig.app.game.position
    server.refuse_uci["1912"] = "Piece on 19 cannot move to 12"
    rig.do("7x14x21")
    until(rig, lambda: any("refused the next" in s for s in online.said))
    (said,) = [s for s in online.said if "refused the next" in s]
    assert said.startswith("PlayStrategy took its first jump of 7x14x21 and refused the next: Piece on 19")
    until(rig, lambda: rig.app.game.ply == 10)
    rig.follow()  # the hands put the pieces back as the lights show
    shown = rig.app.simulated()
    assert rig.app.game.position == before and shown is not None
    assert shown[0] == tokens(before)  # the pieces stand as before the capture
    assert ucis(server, gid)[-1] == "2619" and online.pending == [7, 14]  # the server holds the first jump
    rig.do("7x14x21")  # made again: only 14x21 goes
    until(rig, lambda: len(ucis(server, gid)) == 12)
    assert ucis(server, gid)[-2:] == ["2619", "1912"]
    until(rig, lambda: not online.pending and len(online.server_moves) == 11)
    assert [m.pdn(full=True) for m in online.server_moves] == [m.pdn(full=True) for m in rig.app.game.moves]
    online.close()
