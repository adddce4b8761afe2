"""Events as values: sides typed (``Side``), every event written as JSON in one place
(``event_line``), the replay's bytes as ``docs/replay.md`` has them."""

from __future__ import annotations

import pytest

from crownhead.firmware.events import (
    Alert,
    Caution,
    ClockReport,
    ClockState,
    DrawOffer,
    Flag,
    MoveMade,
    Notice,
    Side,
    event_from_json,
    event_line,
)
from crownhead.firmware.link.protocol import encode_event
from crownhead.rules import BLACK, WHITE

#: Lines as ``crownhead replay`` printed them before sides were typed: the contract.
LINES = [
    '{"t":730,"event":"move","ply":1,"side":"black","move":"11-15","path":[11,15],"captures":[]}',
    '{"t":5,"event":"draw-offer","ply":3,"side":""}',
    '{"t":5,"event":"draw-offer","ply":3,"side":"white"}',
    '{"t":9,"event":"clock","black":59000,"white":60000,"running":""}',
    '{"t":9,"event":"clock","black":59000,"white":60000,"running":"white"}',
    '{"t":1330,"event":"caution","side":"black","count":1,"code":"touch-move","message":"the man on 9"}',
    '{"t":2,"event":"claim","valid":false,"reason":"none","side":"white","message":"no draw to claim"}',
    '{"t":0,"event":"flag","side":"white"}',
]


@pytest.mark.parametrize("line", LINES)
def test_a_line_read_and_written_again_is_the_same_bytes(line: str) -> None:
    import json

    event = event_from_json(json.loads(line))
    assert event_line(event) == line
    assert encode_event(event) == (line + "\n").encode()


def test_a_side_is_a_value_that_knows_its_colour() -> None:
    move = event_from_json(
        {"t": 1, "event": "move", "ply": 1, "side": "white", "move": "22-18", "path": [22, 18], "captures": []}
    )
    assert isinstance(move, MoveMade) and move.side is Side.WHITE and move.side.color is WHITE
    assert move.side == "white" and f"{move.side}" == "white" and move.side.opponent is Side.BLACK
    assert Side.of(BLACK) is Side.BLACK
    # Built from a name, as the tracker's tests and old lines give it: the Side at once.
    assert Caution(0, "black", 1, "touch-move", "").side is Side.BLACK


def test_nobody_is_none_in_the_value_and_empty_in_json() -> None:
    offer = DrawOffer(5, 3)
    assert offer.side is None and offer.to_json()["side"] == ""
    assert event_from_json({"t": 5, "event": "draw-offer", "ply": 3, "side": ""}) == offer
    paused = ClockState(59_000, 60_000, Side.WHITE, True, None).report(9)
    assert isinstance(paused, ClockReport) and paused.running is None
    running = ClockState(59_000, 60_000, Side.WHITE, False, None).report(9)
    assert running.running is Side.WHITE


@pytest.mark.parametrize(
    "obj",
    [
        {"t": 0, "event": "flag", "side": "red"},
        {"t": 0, "event": "flag", "side": ""},  # a flag falls for somebody
        {"t": 0, "event": "flag", "side": ["black"]},
        {"t": 0, "event": "claim", "valid": True, "reason": "none", "side": 1, "message": ""},
    ],
)
def test_a_name_that_is_no_side_is_refused_naming_it(obj: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=f"{obj['event']} event: a side is black or white"):
        event_from_json(obj)


def test_the_log_escapes_what_the_link_sends_as_utf8() -> None:
    notice = Notice(1, "José's board")
    assert event_line(notice) == '{"t":1,"event":"notice","message":"Jos\\u00e9\'s board"}'
    assert encode_event(notice) == '{"t":1,"event":"notice","message":"José\'s board"}\n'.encode()


def test_an_alert_says_what_it_is_about_by_its_code() -> None:
    alert = Alert(3, "pin-guessing", "someone is guessing the page's PIN: 10 wrong PINs")
    assert event_line(alert) == (
        '{"t":3,"event":"alert","code":"pin-guessing","message":"someone is guessing the page\'s PIN: 10 wrong PINs"}'
    )
    assert event_from_json(alert.to_json()) == alert


def test_an_event_too_long_for_a_line_of_the_link_is_refused() -> None:
    with pytest.raises(ValueError, match="notice message of"):
        encode_event(Notice(0, "x" * 2000))
    assert Flag(0, Side.BLACK).to_json() == {"t": 0, "event": "flag", "side": "black"}
