"""The match over the host link: in the state, as events, and always within a line."""

from __future__ import annotations

import json
from pathlib import Path

from crownhead.firmware.link.protocol import MAX_LINE
from crownhead.firmware.storage.matches import MatchStore, new_match
from helpers.cable import HostedBoard


def test_the_host_sees_the_match_in_the_state_and_as_events(tmp_path: Path) -> None:
    MatchStore(tmp_path / "state").save(new_match("Ana", "Ben", games=4, now="2026-11-30T20:15:00+00:00"))
    rig = HostedBoard(tmp_path)
    try:
        host, board = rig.host, rig.board
        match = rig.hello["state"]["match"]
        assert match == {
            "id": "20261130-201500-Ana-Ben",
            "players": ["Ana", "Ben"],
            "games": 4,
            "played": 0,
            "marks": ["0", "0"],
            "count_draws": False,
            "over": False,
            "winner": None,
            "next": {"number": 1, "black": 0},
        }
        board.do("11-15")
        assert host.request("result 1-0 forfeit")["ok"]
        host.sync()
        event = host.event("match")
        while event["cause"] != "result":
            event = host.event("match")
        assert event["marks"] == ["1", "0"] and event["number"] == 1 and event["black"] == "Ana"
        assert host.request("hello")["state"]["match"]["next"] == {"number": 2, "black": 1}
    finally:
        rig.close()


def test_no_line_is_too_long_with_the_longest_names_and_position(tmp_path: Path) -> None:
    MatchStore(tmp_path / "state").save(new_match("😀" * 40, "🙂" * 40, games=1000, count_draws=True))
    rig = HostedBoard(tmp_path)
    try:
        host, board = rig.host, rig.board
        host.request("names " + "😀" * 40 + ";" + "🙂" * 40)
        kings = "W:W" + ",".join(f"K{s}" for s in range(17, 33)) + ":B" + ",".join(f"K{s}" for s in range(1, 17))
        host.request("new " + kings)
        for line in ("hello", "fen", "moves", "pdn"):
            assert host.request(line)["ok"]
        board.follow()
        host.sync()
        assert host.request("hello")["state"]["match"]["marks"] == ["0", "0"]
        assert max(len(raw) + 1 for raw in host.raw) <= MAX_LINE
        assert all(json.loads(raw) for raw in host.raw)
    finally:
        rig.close()
