"""Spectators: a game between two boards far apart watched on the hall's page.

Two board applications play through a real Mosquitto on loopback (the shipped
configuration and ACL) as in ``test_remote_offers.py``; a hall on the same broker, with
its own account (which the ACL lets read the boards' topics, ``crownhead/+/+/+``, and the
public games far apart, ``crownhead/remote/#``), follows the game from the boards' lines:
the names of the invitation, each board's side, the moves (a capture among them), a
takeback agreed, the result. Its page shows it in Debian's chromium (Playwright).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.hall.farapart import FarGames
from crownhead.firmware.remote.invite import Invitation
from crownhead.firmware.remote.wire import game_topic
from crownhead.rules import Move

from helpers.hallnet import Mosquitto, needs_mosquitto, running_mosquitto
from helpers.net import WAIT_S, wait_for
from test_hall import RunningHall
from test_remote_offers import CODE, Pair


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ["alice", "bob", "hall"]) as broker:
        yield broker


def far_game(hall: RunningHall) -> dict[str, Any] | None:
    games = json.loads(hall.get("/api/far"))
    return games[0] if games else None


@needs_mosquitto
def test_the_hall_s_page_shows_a_game_far_apart_as_it_is_played(
    browser: Any, tmp_path: Path, mosquitto: Mosquitto
) -> None:
    hall = RunningHall(mosquitto)  # type: ignore[arg-type]
    pair = Pair(tmp_path, mosquitto)
    try:
        # The invitation the inviting board left on the broker (retained): the names.
        invitation = Invitation(CODE, "alice", "black", black="Ann <b>", white="Bo")
        pair.a.transport._client.publish(
            game_topic(CODE, "alice", "invite"), json.dumps(invitation.to_json()).encode(), qos=1, retain=True
        ).wait_for_publish(WAIT_S)
        # The hall has it (retained): the hall hears the game's topics from now on. The
        # boards' lines are not kept for a listener that comes later, so a move made before
        # the hall's subscription stood would never reach it.
        assert wait_for(lambda: (g := far_game(hall)) is not None and g["black"] == "Ann <b>")
        moves = [Move((11, 15)), Move((22, 18)), Move((15, 22), (18,)), Move((25, 18), (22,))]
        for move in moves:
            pair.play(move)
        assert wait_for(lambda: (g := far_game(hall)) is not None and len(g["moves"]) == 4)
        game = far_game(hall)
        assert game is not None
        assert (game["black"], game["white"], game["boards"]) == ("Ann <b>", "Bo", {"alice": "black", "bob": "white"})
        assert game["moves"] == ["11-15", "22-18", "15x22", "25x18"]
        assert game["fen"] == "B:W18,21,23,24,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12"
        page = browser.new_page()
        page.goto(hall.web + "/")
        card = page.locator(f"[data-far='{CODE}']")
        card.wait_for()
        assert "Ann <b> - Bo" in card.inner_text() and "4 moves, last 25x18" in card.inner_text()
        assert card.locator("[data-square='18'] [data-piece='w']").count() == 1
        assert card.locator("[data-square='22'] [data-piece]").count() == 0
        # White asks to take its capture back, Black agrees: the hall follows.
        pair.b.rig.sim.press("takeback")
        pair.b.rig.wait(600)
        pair.wait(lambda: any("asks to take back" in n for n in pair.a.notices()), "A is asked")
        pair.a.rig.sim.press("takeback")
        pair.a.rig.wait(100)
        pair.a.rig.follow()
        pair.wait(lambda: pair.b.game.ply == 3, "B takes it back too")
        pair.b.rig.follow()
        assert wait_for(lambda: (g := far_game(hall)) is not None and len(g["moves"]) == 3)
        pair.b.rig.sim.press("white_resign", long=True)
        pair.b.rig.wait(100)
        assert wait_for(lambda: (g := far_game(hall)) is not None and g["result"] == "1-0")
        page.wait_for_selector(f"[data-far='{CODE}'] .turn:has-text('1-0 (resign)')")
        page.close()
    finally:
        pair.close()
        hall.close()


def test_what_is_not_a_game_far_apart_is_ignored_and_the_games_are_bounded() -> None:
    far = FarGames()
    for code, board, kind, payload in [
        ("k7q", "a", "lines", b"{}"),
        ("k7qm2x", "a b", "lines", b"{}"),
        ("k7qm2x", "a", "status", b"online"),
        ("k7qm2x", "a", "lines", b"[1]"),
        ("k7qm2x", "a", "lines", b"x" * 10_000),
        # Nested past Python's recursion limit, outside and inside: a message no board
        # sends, which must not stop the hall hearing the next.
        ("k7qm2x", "a", "lines", b"[" * 3000),
        ("k7qm2x", "a", "lines", json.dumps({"line": "[" * 3000}).encode()),
    ]:
        far.receive(code, board, kind, payload)
    assert far.rejected == 7
    line = json.dumps({"event": "move", "ply": 1, "side": "black", "move": "<script>"})
    far.receive("k7qm2x", "a", "lines", json.dumps({"line": line}).encode())
    assert far.games()[0]["moves"] == []  # not a move: never shown
    for n in range(40):
        code = f"{n:02d}".translate(str.maketrans("0123456789", "23456789ab")) + "zzzz"
        far.receive(code, "a", "lines", json.dumps({"line": "{}"}).encode())
    assert len(far.games()) == 32
