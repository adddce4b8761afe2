"""Fuzzing every reader of outside input: no exception but the project's own clear errors,
memory bounded, time linear.

The readers: the saved-game reader (:meth:`GameRecord.from_json` and the replay of the
record), the configuration loader (:func:`parse_config_text`), the PDN reader
(:func:`crownhead.rules.pdn.read_games`), the replay script parser (:func:`parse_script`) and the
link's line parser (:class:`LineReader` and :func:`parse_line`).

The regular run tries a few hundred inputs per reader; ``-m slow`` tries thousands.
Memory: the peak Python allocation (tracemalloc) while reading the worst shapes of input
found (deep nesting, long runs of one token, long numbers, many escapes) stays within
:data:`BYTES_PER_BYTE` times the input's size plus 1 MB, and the inputs themselves are
capped by the file size limits (``crownhead.firmware.files``) or the line limit of the link. Time:
reading eight times the input takes less than :data:`LINEAR_SLACK` times eight as long.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import crownhead.firmware.app.application  # noqa: F401 - registers the [play], [store], ... sections
import crownhead.firmware.link.host  # noqa: F401 - registers [link]
import crownhead.firmware.referee.arbiter  # noqa: F401 - registers [referee]
from crownhead.firmware.simulator.script import ScriptError, parse_script
from crownhead.firmware.config import ConfigError, parse_config_text
from crownhead.firmware.link.protocol import COMMANDS, MAX_LINE, LineReader, LinkError, parse_line
from crownhead.firmware.storage.store import GameRecord, StoreError, pdn_text
from crownhead.rules import WCDF, Game
from crownhead.rules.pdn import read_games

#: Peak bytes allocated per byte of input, at most (the measured worst is well below).
BYTES_PER_BYTE = 64
#: Eight times the input may take at most this many times eight as long.
LINEAR_SLACK = 3

FAST = settings(max_examples=150)
SLOW = settings(max_examples=3000)


def _game_json(**changes: Any) -> dict[str, Any]:
    game = Game(None, WCDF)
    for text in ("11-15", "23-19", "8-11", "22-17"):
        game.play_text(text)
    data = json.loads(
        GameRecord.new(black="Ann", now="2026-01-01T10:00:00+00:00", rules=WCDF).with_game(game).to_json()
    )
    data.update(changes)
    return data


VALID = _game_json()
KEYS = sorted(VALID)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
move_texts = st.sampled_from(
    [
        "11-15",
        "23-19",
        "8-11",
        "22-17",
        "15x22",
        "huff 9",
        "huff 99",
        "force",
        "9-14",
        "11-15x",
        "٣-٤",
        "1" * 30 + "-2",
        "",
    ]
)
records = st.one_of(
    st.text(max_size=200),
    json_values.map(json.dumps),
    st.dictionaries(st.sampled_from(KEYS + ["colour"]), json_values, max_size=6).map(
        lambda d: json.dumps({**VALID, **d})
    ),
    st.lists(move_texts, max_size=8).map(lambda m: json.dumps({**VALID, "moves": m})),
    st.lists(move_texts, max_size=8).map(lambda m: json.dumps({**VALID, "history": m})),
    st.tuples(st.sampled_from(KEYS), st.text(max_size=30)).map(lambda kv: json.dumps({**VALID, kv[0]: kv[1]})),
)


def check_record(text: str) -> None:
    try:
        record = GameRecord.from_json(text, "current.json")
        game = record.to_game()
    except StoreError as exc:
        assert str(exc).startswith(("current.json", "game ")), exc
        return
    # A record that is accepted is one the board can keep: its PDN is whole and clean.
    pdn = pdn_text(record.with_game(game) if not record.finished else record)
    for line in pdn.splitlines():
        assert "\x1b" not in line and "\r" not in line
    assert pdn.count("[Result ") == 1


@FAST
@given(records)
def test_fuzz_saved_game_reader(text: str) -> None:
    check_record(text)


@pytest.mark.slow
@SLOW
@given(records)
def test_fuzz_saved_game_reader_long(text: str) -> None:
    check_record(text)


# -- the configuration loader -------------------------------------------------------------------

SECTIONS = [
    "board",
    "sensors",
    "matrix",
    "shift",
    "serial",
    "lights",
    "buttons",
    "sim",
    "play",
    "store",
    "link",
    "referee",
    "palette",
    "nope",
]
toml_values = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=20).map(json.dumps),
    st.sampled_from(
        [
            "true",
            "false",
            "[]",
            "[1, 2]",
            '["a"]',
            "{a = 1}",
            "inf",
            "nan",
            "'lit'",
            '"""multi\nline"""',
            "1979-05-27",
            "0x1F",
            "1_000",
            "9" * 30,
            "[[[[[[1]]]]]]",
            '"\\u001b"',
            '"a\\nb"',
        ]
    ),
)
toml_lines = st.one_of(
    st.sampled_from(SECTIONS).map(lambda s: f"[{s}]"),
    st.tuples(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_.", min_size=1, max_size=14), toml_values).map(
        lambda kv: f"{kv[0]} = {kv[1]}"
    ),
    st.text(max_size=30),
)
configs = st.one_of(
    st.binary(max_size=300),
    st.lists(toml_lines, max_size=12).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")),
)


def check_config(raw: bytes) -> None:
    try:
        parse_config_text(raw, "config.toml")
    except ConfigError as exc:
        assert str(exc).startswith("config.toml"), exc


@FAST
@given(configs)
def test_fuzz_config_loader(raw: bytes) -> None:
    check_config(raw)


@pytest.mark.slow
@SLOW
@given(configs)
def test_fuzz_config_loader_long(raw: bytes) -> None:
    check_config(raw)


# -- the PDN reader ------------------------------------------------------------------------------

pdn_tokens = st.sampled_from(
    [
        "1.",
        "2.",
        "1...",
        "11-15",
        "23-19",
        "8-11",
        "22-17",
        "15x22",
        "22x15",
        "9-14",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "{",
        "}",
        "{a comment}",
        "(",
        ")",
        '[Event "x"]',
        '[FEN "W:W18:B14"]',
        '[SetUp "1"]',
        '[GameType "25"]',
        '[Result "banana"]',
        '[Event "a\\"b"]',
        "[",
        "]",
        "$1",
        "!",
        "?!",
        ";",
        "%",
        "\n",
        " ",
        "\r",
        "\ufeff",
        "½-½",
        "c3-d4",
        "a1xh8",
        "٣-٤",
        "1" * 40 + "-2",
        "33-1",
        "0-0",
        '[Black "' + "x" * 200 + '"]',
        "\\",
        '"',
    ]
)
pdns = st.one_of(st.text(max_size=300), st.lists(pdn_tokens, max_size=40).map(" ".join))


def check_pdn(text: str) -> None:
    for game in read_games(text, "f.pdn"):  # a bad game is carried, never raised
        if game.error is not None:
            assert str(game.error).startswith("f.pdn")
        game.pdn()


@FAST
@given(pdns)
def test_fuzz_pdn_reader(text: str) -> None:
    check_pdn(text)


@pytest.mark.slow
@SLOW
@given(pdns)
def test_fuzz_pdn_reader_long(text: str) -> None:
    check_pdn(text)


# -- the replay script parser --------------------------------------------------------------------

script_words = st.sampled_from(
    [
        "lift",
        "place",
        "wait",
        "press",
        "LIFT",
        "hop",
        "#",
        "11",
        "32",
        "33",
        "0",
        "-5",
        "²",
        "٣",
        "1" * 30,
        "new",
        "a" * 40,
        "",
        "\t",
        "\u2028",
        "9" * 10,
    ]
)
scripts = st.one_of(
    st.text(max_size=200), st.lists(st.lists(script_words, max_size=4).map(" ".join), max_size=10).map("\n".join)
)


def check_script(text: str) -> None:
    try:
        parse_script(text)
    except ScriptError as exc:
        assert str(exc).startswith("line ")


@FAST
@given(scripts)
def test_fuzz_script_parser(text: str) -> None:
    check_script(text)


@pytest.mark.slow
@SLOW
@given(scripts)
def test_fuzz_script_parser_long(text: str) -> None:
    check_script(text)


# -- the link's line parser ------------------------------------------------------------------------

link_words = st.sampled_from(
    sorted(COMMANDS)
    + [
        "computer",
        "white",
        "{",
        "}",
        '"event"',
        ":",
        "11-15",
        "²",
        "٣",
        "1" * 30,
        "5",
        "1-0",
        ";",
        "\r",
        "\t",
        "\x00",
        "\xff",
        "[" * 50,
    ]
)
link_bytes = st.one_of(
    st.binary(max_size=2 * MAX_LINE),
    st.lists(link_words, max_size=8).map(lambda w: " ".join(w).encode("utf-8")),
    json_values.map(lambda v: json.dumps({"event": "move", "v": v}).encode()),
)


def check_link(data: bytes) -> None:
    reader = LineReader()
    for item in reader.feed(data + b"\n"):
        if isinstance(item, LinkError):
            continue
        assert len(item) < MAX_LINE
        try:
            parse_line(item)
        except LinkError as exc:
            assert exc.code in ("bad-encoding", "bad-json", "unknown-command", "bad-argument"), exc
    assert len(reader.partial) < MAX_LINE


@FAST
@given(link_bytes)
def test_fuzz_link_line_parser(data: bytes) -> None:
    check_link(data)


@pytest.mark.slow
@SLOW
@given(link_bytes)
def test_fuzz_link_line_parser_long(data: bytes) -> None:
    check_link(data)


# -- memory bounded, time linear -----------------------------------------------------------------

#: The worst shapes of input found for each reader, as a function of a size n (about n bytes).
WORST: dict[str, tuple[Callable[[Any], None], Callable[[int], Any]]] = {
    "saved game, deep": (check_record, lambda n: "[" * n + "]" * n),
    "saved game, many moves": (check_record, lambda n: json.dumps({**VALID, "moves": ["11-15"] * (n // 9)})),
    "saved game, long name": (check_record, lambda n: json.dumps({**VALID, "black": "\\" * n})),
    "config, deep": (check_config, lambda n: ("a = " + "[" * (n // 2) + "]" * (n // 2)).encode()),
    "config, many keys": (
        check_config,
        lambda n: "[play]\n".encode() + b"".join(f"k{i} = 1\n".encode() for i in range(n // 8)),
    ),
    "config, long number": (check_config, lambda n: b"[sensors]\ndebounce_ms = " + b"9" * n),
    "pdn, long tag": (check_pdn, lambda n: '[Event "' + '\\"' * (n // 2) + '"]\n1. 11-15 *'),
    "pdn, deep variations": (check_pdn, lambda n: "1. 11-15 " + "(" * (n // 2) + ")" * (n // 2) + " *"),
    "pdn, many games": (check_pdn, lambda n: "1. 11-15 23-19 * " * (n // 17)),
    "pdn, unclosed comments": (check_pdn, lambda n: "{ " * (n // 2)),
    "pdn, long square": (check_pdn, lambda n: "1. " + "1" * n + "-15 *"),
    "script, many lines": (check_script, lambda n: "lift 11\n" * (n // 8)),
    "script, long number": (check_script, lambda n: "wait " + "9" * n),
    "link, one long line": (check_link, lambda n: b"{" * n),
}


def _peak(check: Callable[[Any], None], data: Any) -> int:
    tracemalloc.start()
    try:
        check(data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _seconds(check: Callable[[Any], None], data: Any) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        check(data)
        best = min(best, time.perf_counter() - started)
    return best


def _bounded(shape: str, n: int) -> None:
    check, make = WORST[shape]
    data = make(n)
    check(data)  # once untraced: caches (compiled patterns) are no input's cost
    peak = _peak(check, data)
    assert peak <= BYTES_PER_BYTE * len(data) + 1_000_000, f"{shape}: {peak} bytes for {len(data)}"


@pytest.mark.parametrize("shape", list(WORST))
def test_memory_is_bounded_by_the_input(shape: str) -> None:
    _bounded(shape, 20_000)


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(WORST))
def test_memory_is_bounded_by_a_large_input(shape: str) -> None:
    _bounded(shape, 400_000)


@pytest.mark.slow  # timings: not in the regular run, which other jobs share the machine with
@pytest.mark.parametrize("shape", list(WORST))
def test_time_is_linear_in_the_input(shape: str) -> None:
    check, make = WORST[shape]
    small, large = make(50_000), make(400_000)
    seen = []
    # On a shared machine one measurement can be disturbed: the best of three trials
    # counts. A quadratic reader fails them all (64 times as long for 8 times the input).
    for _ in range(3):
        # Below 2 ms a timer says little; a quadratic reader still fails.
        t_small = max(_seconds(check, small), 0.002)
        t_large = _seconds(check, large)
        seen.append(f"{t_small:.4f} s for n, {t_large:.4f} s for 8n")
        if t_large <= LINEAR_SLACK * 8 * t_small:
            return
    raise AssertionError(f"{shape}: " + "; ".join(seen))
