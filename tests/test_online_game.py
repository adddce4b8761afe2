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
from crownhead.firmware.online.game import OnlineGame
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


def start_game(server: Server, p1: str = "alice") -> str:
    """Alice's seek paired with Bob's; ``p1`` moves first (Black)."""
    server.next_p1 = p1
    list(Client(ALICE, server.url, timeout_s=10).seek(10, 5))
    return max(server.games)


def join(rig: Rig, server: Server, gid: str) -> OnlineGame:
    online = OnlineGame(Client(ALICE, server.url, timeout_s=10), gid, "alice", backoff=Backoff(0.02, 0.2))
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
    def make(*args: Any) -> Rig:
        return make_rig(*args, settings=AppSettings(far_apart=True))

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
