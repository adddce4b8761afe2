"""A read-only link stays read-only: forged other-board lines change nothing; numbers are ASCII.

The same forged lines are sent to a link that may control the board first, to show that
they are lines a board does act on: only ``control = false`` makes them harmless.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.link.protocol import LinkError, parse_line
from helpers.cable import HostedBoard, snapshot


def _forged(rig: HostedBoard, serial_step: int) -> list[str]:
    """A hello from "another board" playing black on this game, then its game-over; and a
    state line of a newer game (higher serial) hardly begun."""
    board = rig.board
    game_id = board.link.game_id
    start = board.app.game.start.fen()
    state = {
        "game": str(game_id),
        "start": start,
        "fen": board.app.game.position.fen(),
        "ply": board.app.game.ply,
        "turn": "white",
        "last": None,
        "result": None,
        "reason": None,
        "setup": False,
        "waiting": None,
    }
    newer = dict(state, game=f"{game_id.serial + serial_step}-abcdef", ply=0, fen=start)
    return [
        json.dumps({"t": 1, "event": "hello", "cause": "connect", "plays": "white", "state": state}),
        json.dumps({"t": 2, "event": "game-over", "result": "1-0", "reason": "resign"}),
        json.dumps({"t": 3, "event": "state", "cause": "new-game", **newer}),
    ]


def _play_forged(rig: HostedBoard) -> None:
    rig.board.do("11-15")
    rig.host.sync()
    for line in _forged(rig, 5):
        rig.host.send(line)
        rig.host.sync()
    rig.board.wait(2000)
    rig.host.sync()


def test_forged_peer_lines_do_change_a_controlling_link(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, plays="black")
    try:
        before = snapshot(rig.board)
        _play_forged(rig)
        assert snapshot(rig.board) != before  # the lines are ones a board follows
    finally:
        rig.close()


def test_a_read_only_link_ignores_every_other_board_line(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path, plays="black", control=False)
    try:
        rig.board.do("11-15")
        rig.host.sync()
        before = snapshot(rig.board)
        games = sorted((tmp_path / "state" / "games").glob("*.pdn"))
        for line in _forged(rig, 5):
            rig.host.send(line)
            rig.host.sync()
        rig.board.wait(2000)
        rig.host.sync()
        assert snapshot(rig.board) == before
        assert rig.board.app.game.result is None and rig.board.app.game.ply == 1
        assert sorted((tmp_path / "state" / "games").glob("*.pdn")) == games  # no PDN written
        notices = [e.to_json()["message"] for e in rig.board.events if e.kind == "notice"]
        assert sum("read-only link ignores" in n for n in notices) == 1  # said once
    finally:
        rig.close()


@pytest.mark.parametrize(
    "line",
    [
        "pdn ²",
        "pdn ٣",
        "ballot ²",
        "ballot ١٢",
        "pdn " + "9" * 4301,
        "ballot " + "1" * 4301,
        "touch ²",
        "touch " + "1" * 4301,
        "brightness ³",
        "brightness " + "9" * 4301,
        "mode computer white ²",
        "mode computer white " + "1" * 4301,
    ],
)
def test_link_numbers_are_ascii_digits_with_a_length_limit(line: str) -> None:
    with pytest.raises(LinkError) as info:
        parse_line(line.encode())
    assert info.value.code == "bad-argument"


def test_a_non_ascii_digit_gets_bad_argument_not_internal(tmp_path: Path) -> None:
    rig = HostedBoard(tmp_path)
    try:
        for line in ("pdn ²", "ballot ²", "play ١١-١٥"):
            reply: dict[str, Any] = rig.host.request(line)
            assert reply["event"] == "error" and reply["code"] == "bad-argument", reply
    finally:
        rig.close()
