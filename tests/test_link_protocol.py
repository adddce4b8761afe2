"""The link's wire format without any I/O: lines, decoding, command grammar, JSON out, config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.config import ConfigError, load_config
from crownhead.firmware.link.host import GameId
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.protocol import (
    COMMANDS,
    ERROR_CODES,
    MAX_LINE,
    Command,
    LineReader,
    LinkError,
    PeerMessage,
    decode_line,
    encode_message,
    parse_command,
    parse_line,
)

# -- lines ----------------------------------------------------------------------------------


def test_lines_are_cut_at_newlines_across_chunks() -> None:
    reader = LineReader()
    assert reader.feed(b"he") == []
    assert reader.feed(b"llo\nfen\r\nmo") == [b"hello", b"fen\r"]
    assert reader.partial == b"mo"
    assert reader.feed(b"ves\n\n") == [b"moves", b""]


def test_a_line_of_exactly_the_limit_passes_and_one_more_byte_does_not() -> None:
    reader = LineReader()
    longest = b"x" * (MAX_LINE - 1)  # with its \n: MAX_LINE bytes
    assert reader.feed(longest + b"\n") == [longest]
    out = reader.feed(b"y" * MAX_LINE + b"\nfen\n")
    assert [type(x) for x in out] == [LinkError, bytes]
    assert out[0].code == "too-long" and out[1] == b"fen"
    # With \r\n the \r counts: 1022 characters + \r\n is the longest such line.
    assert reader.feed(b"z" * (MAX_LINE - 2) + b"\r\n") == [b"z" * (MAX_LINE - 2) + b"\r"]
    assert isinstance(reader.feed(b"z" * (MAX_LINE - 1) + b"\r\n")[0], LinkError)


def test_an_overlong_line_is_reported_once_as_soon_as_known_and_skipped_to_its_end() -> None:
    reader = LineReader()
    out = reader.feed(b"a" * 5000)
    assert len(out) == 1 and out[0].code == "too-long"
    assert reader.partial == b""  # memory stays bounded
    assert reader.feed(b"b" * 100_000) == []
    assert reader.feed(b"tail\nfen\n") == [b"fen"]


def test_reset_forgets_a_partial_line() -> None:
    reader = LineReader()
    reader.feed(b"play 11-")
    assert reader.reset() == b"play 11-"
    assert reader.feed(b"15\n") == [b"15"]
    reader.feed(b"q" * 2000)
    reader.reset()
    assert reader.feed(b"fen\n") == [b"fen"]  # no longer skipping


# -- decoding ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [b"\xff\xfe", b"fen\x00", b"f\x1ben", b"\x7f", "fen\u0085".encode(), b"\xed\xa0\x80", "a\u2028b".encode()],
)
def test_binary_and_control_characters_are_bad_encoding(raw: bytes) -> None:
    with pytest.raises(LinkError) as info:
        decode_line(raw)
    assert info.value.code == "bad-encoding"


def test_utf8_text_tabs_and_a_final_cr_are_fine() -> None:
    assert decode_line("names Zoë;Łukasz\r".encode()) == "names Zoë;Łukasz"
    assert decode_line(b"play\t11-15") == "play 11-15"


# -- the command grammar -------------------------------------------------------------------

GOOD = {
    "hello": Command("hello"),
    "FEN": Command("fen"),
    "pdn": Command("pdn", (0,)),
    "pdn 250": Command("pdn", (250,)),
    "moves": Command("moves"),
    "new": Command("new", (None,)),
    "new B:W21-32:B1-12": Command("new", ("B:W21-32:B1-12",)),
    "again 3 17": Command("again", ("3", 17, "computer")),
    "AGAIN 20261204-101500-1a2b 0 Play": Command("again", ("20261204-101500-1a2b", 0, "play")),
    "problem next": Command("problem", ("next",)),
    "problem Gem-12": Command("problem", ("gem-12",)),
    "problem borderclassics-a-1": Command("problem", ("borderclassics-a-1",)),
    "problem off": Command("problem", ("off",)),
    "problems": Command("problems"),
    "play 11-15": Command("play", ("11-15",)),
    "play 15x24x31": Command("play", ("15x24x31",)),
    "hint ON": Command("hint", ("on",)),
    "hint off": Command("hint", ("off",)),
    "mode referee": Command("mode", ("referee",)),
    "mode play": Command("mode", ("play",)),
    "names Ann Lee;Bo": Command("names", ("Ann Lee", "Bo")),
    "names  Zoë ;  Łukasz  Nowak ": Command("names", ("Zoë", "Łukasz Nowak")),
    "ballot 5": Command("ballot", (5,)),
    "result 1/2-1/2 agreement": Command("result", ("1/2-1/2", "agreement")),
    "result 0-1 Forfeit": Command("result", ("0-1", "forfeit")),
    "help": Command("help", (0,)),
    "help 12": Command("help", (12,)),
    "mode computer white": Command("mode", ("computer", "white", None)),
    "mode Computer BLACK 7": Command("mode", ("computer", "black", 7)),
    "referee clock=300+5; event = Club  Open ;round=3": Command(
        "referee", ((("clock", "300+5"), ("event", "Club Open"), ("round", "3")),)
    ),
    "history": Command("history", (0,)),
    "history 20": Command("history", (20,)),
    "view": Command("view"),
    "watch on": Command("watch", ("on",)),
    "press hint": Command("press", ("hint", False)),
    "press Resign long": Command("press", ("resign", True)),
    "brightness 40": Command("brightness", (40,)),
    "touch 32": Command("touch", (32,)),
    "hands 11-15": Command("hands", ("11-15",)),
    "follow": Command("follow"),
    "rules Russian": Command("rules", ("russian", ())),
    "rules english huffing captures-optional": Command("rules", ("english", ("huffing", "captures-optional"))),
    "draw White": Command("draw", ("white",)),
    "resign black": Command("resign", ("black",)),
}


@pytest.mark.parametrize("text", list(GOOD))
def test_good_commands_parse(text: str) -> None:
    assert parse_command(text) == GOOD[text]


def test_every_command_is_covered_by_the_grammar_test() -> None:
    assert {c.name for c in GOOD.values()} == set(COMMANDS)


BAD = {
    "fly": "unknown-command",
    "hello there": "bad-argument",
    "fen 1": "bad-argument",
    "pdn x": "bad-argument",
    "pdn 1 2": "bad-argument",
    "pdn -1": "bad-argument",
    "moves all": "bad-argument",
    "new a b": "bad-argument",
    "again": "bad-argument",
    "again 3": "bad-argument",
    "again 3 x": "bad-argument",
    "again ../x 3": "bad-argument",
    "again 3 4 referee": "bad-argument",
    "again 3 4 play more": "bad-argument",
    "problem": "bad-argument",
    "problem ../x": "bad-argument",
    "problem 12": "bad-argument",
    "problem gem-12 gem-13": "bad-argument",
    "problems all": "bad-argument",
    "play": "bad-argument",
    "play 11-15 22-18": "bad-argument",
    "play eleven": "bad-argument",
    "play 11": "bad-argument",
    "play 111-15": "bad-argument",
    "hint": "bad-argument",
    "hint maybe": "bad-argument",
    "draw": "bad-argument",
    "resign both": "bad-argument",
    "mode casual": "bad-argument",
    "names Ann": "bad-argument",
    "names Ann;": "bad-argument",
    "names ;Bo": "bad-argument",
    "names a;b;c": "bad-argument",
    "names " + "x" * 41 + ";Bo": "bad-argument",
    "ballot": "bad-argument",
    "ballot five": "bad-argument",
    "ballot 12345": "bad-argument",
    "result 1-0": "bad-argument",
    "result 2-0 forfeit": "bad-argument",
    "result 1-0 lost on time": "bad-argument",
    "result 1-0 f@ult": "bad-argument",
    "help me": "bad-argument",
    "mode computer": "bad-argument",
    "mode computer red": "bad-argument",
    "mode computer white 11": "bad-argument",
    "mode play white": "bad-argument",
    "referee": "bad-argument",
    "referee clock": "bad-argument",
    "referee colour=red": "bad-argument",
    "referee round=1;round=2": "bad-argument",
    "history -1": "bad-argument",
    "view all": "bad-argument",
    "watch maybe": "bad-argument",
    "press": "bad-argument",
    "press eject": "bad-argument",
    "press hint short": "bad-argument",
    "brightness 101": "bad-argument",
    "brightness dim": "bad-argument",
    "touch 0": "bad-argument",
    "touch 33": "bad-argument",
    "touch x": "bad-argument",
    "hands": "bad-argument",
    "hands e2e4": "bad-argument",
    "follow me": "bad-argument",
    "rules": "bad-argument",
    "rules chess": "bad-argument",
    "rules english flying-men": "bad-argument",
    "rules english huffing huffing": "bad-argument",
}


@pytest.mark.parametrize("text", list(BAD))
def test_bad_commands_name_the_problem(text: str) -> None:
    with pytest.raises(LinkError) as info:
        parse_command(text)
    assert info.value.code == BAD[text]
    assert info.value.message
    if BAD[text] == "bad-argument":
        assert info.value.cmd == text.split()[0].lower()


def test_an_unknown_command_echoes_only_a_short_part_of_itself() -> None:
    with pytest.raises(LinkError) as info:
        parse_command("x" * 900)
    assert len(info.value.message) < 80


def test_lines_from_another_board_are_json_objects_with_an_event() -> None:
    assert parse_line(b'{"event":"move","ply":3}') == PeerMessage({"event": "move", "ply": 3})
    assert parse_line(b"   ") is None and parse_line(b"\r") is None
    for raw in (b"{", b'{"ply":3}', b'{"event":5}', b"{]", b"{" * 600 + b"}" * 600):
        with pytest.raises(LinkError) as info:
            parse_line(raw)
        assert info.value.code == "bad-json"


# -- messages out --------------------------------------------------------------------------


def test_messages_are_one_compact_utf8_line_within_the_limit() -> None:
    line = encode_message({"t": 5, "event": "reply", "cmd": "names", "ok": True, "black": "Zoë\n"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"t": 5, "event": "reply", "cmd": "names", "ok": True, "black": "Zoë\n"}
    with pytest.raises(ValueError):
        encode_message({"event": "x", "pad": "y" * MAX_LINE})


def test_error_replies_carry_a_known_code() -> None:
    assert LinkError("not-now", "the game is over", "play").reply(7) == {
        "t": 7,
        "event": "error",
        "code": "not-now",
        "message": "the game is over",
        "cmd": "play",
    }
    with pytest.raises(ValueError):
        LinkError("oops", "no such code")
    assert "too-long" in ERROR_CODES and "internal" in ERROR_CODES


# -- configuration and game ids --------------------------------------------------------------


def test_the_link_section_loads_and_bad_values_name_their_key(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[link]\nport = "socket://localhost:7000"\nplays = "white"\ncontrol = false\n')
    config = load_config(str(good))
    assert config.get(LinkConfig) == LinkConfig(port="socket://localhost:7000", plays="white", control=False)
    for body, key in [
        ('plays = "red"', "link.plays"),
        ("baudrate = 1234", "link.baudrate"),
        ("reconnect_ms = 5", "link.reconnect_ms"),
        ("lines_per_step = 0", "link.lines_per_step"),
        ('port = "sokcet://host:1"', "link.port"),
        ('prot = "/dev/ttyGS0"', "link.prot"),
    ]:
        bad = tmp_path / "bad.toml"
        bad.write_text(f"[link]\n{body}\n")
        with pytest.raises(ConfigError) as info:
            load_config(str(bad))
        assert key in str(info.value) and "bad.toml" in str(info.value)


def test_game_ids_order_by_serial_then_tag() -> None:
    assert GameId.parse("10-00") > GameId.parse("9-ff")
    assert GameId.parse("3-ab") > GameId.parse("3-aa")
    assert GameId.new(4).serial == 4 and GameId.parse(str(GameId.new(4))).serial == 4
    for bad in ("3", "x-ab", "3-XY", 3, None, "1-" + "a" * 17):
        with pytest.raises(ValueError):
            GameId.parse(bad)
