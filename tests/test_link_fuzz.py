"""Fuzzing the link over a real serial line: random bytes, random command lines, random
lines from a make-believe second board. Seeded, a fixed number of iterations.

What must hold: no exception escapes (no ``internal`` error, nothing logged as an error),
every line gets exactly the answers the protocol promises (one per non-blank command
line, none for another board's event lines), no line from the board is longer than the
limit, and a rejected command changes nothing.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.link.protocol import COMMANDS, MAX_LINE
from crownhead.rules import Position
from helpers.cable import HostedBoard, snapshot

SEED = 20240611
QUERIES = {"hello", "fen", "pdn", "moves", "help"}

WORDS = list(COMMANDS) + ["PLAY", "Fen", "quit", "exit", "rm", "sh", "load", "save", "open", "", "x" * 30]
ARGS = [
    "11-15",
    "9-13",
    "22-18",
    "15x24",
    "15x24x31",
    "2x11x18",
    "32-28",
    "1-5",
    "11",
    "-",
    "x",
    "11--15",
    "33-1",
    "on",
    "off",
    "ON",
    "maybe",
    "play",
    "referee",
    "casual",
    "0",
    "1",
    "5",
    "3",
    "174",
    "175",
    "99999999",
    "-1",
    "1-0",
    "0-1",
    "1/2-1/2",
    "2-0",
    "*",
    "forfeit",
    "time",
    "agreement",
    "Resign",
    "x" * 40,
    "B:W21-32:B1-12",
    "W:WK10,22:B5,6",
    "B:W18,22:B14",
    "B:W99:B1",
    "W:B:W",
    "B:WK1:BK32",
    "../../etc/passwd",
    "/dev/ttyS0",
    "$(reboot)",
    "`id`",
    ";",
    "Ann;Bo",
    "Zoë;Łukasz",
    "a;b;c",
    " ; ",
    "😀" * 10 + ";x",
]


#: Well-formed arguments per command, so that half the commands reach the game's own checks.
SHAPED = {
    "play": ["11-15", "9-13", "10-14", "22-18", "23-19", "24-20", "15x22", "18x11", "6-10", "2x11x18", "26x17"],
    "new": ["", "B:W21-32:B1-12", "W:WK10,22:B5,6", "B:W6,7,14,15:B2", "B:W18,22:B14", "W:W32:B1"],
    "ballot": ["1", "3", "5", "13", "100", "156", "174", "200"],
    "result": ["1-0 forfeit", "0-1 time", "1/2-1/2 agreement", "0-1 resign"],
    "mode": ["play", "referee"],
    "hint": ["on", "off"],
    "names": ["Ann;Bo", "Zoë Brook;Łukasz", "A;B"],
    "pdn": ["", "0", "50", "100000"],
}


def random_command(rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        word = rng.choice(["play"] * 6 + list(SHAPED) + ["fen", "moves", "hello", "help"])
        arg = rng.choice(SHAPED.get(word, [""]))
        return f"{word} {arg}".strip().encode("utf-8") + b"\n"
    words = [rng.choice(WORDS)] + [rng.choice(ARGS) for _ in range(rng.choice((0, 0, 1, 1, 1, 2, 3)))]
    text = rng.choice((" ", "  ", "\t")).join(words)
    if rng.random() < 0.1:
        text = " " + text + " "
    data = text.encode("utf-8")
    if rng.random() < 0.1:
        i = rng.randrange(len(data) + 1)
        data = data[:i] + bytes([rng.randrange(256)]) + data[i:]
    if b"\n" in data:
        data = data.replace(b"\n", b"")
    return data + (b"\r\n" if rng.random() < 0.2 else b"\n")


def random_bytes(rng: random.Random) -> bytes:
    size = rng.choice((0, 1, 3, 20, 200, 1000, 1022, 1023, 1024, 1500, 4000))
    alphabet = rng.choice((bytes(range(256)), b'fen play 11-15\r\t {}"', b"\x00\xff\xfe\x80\xc3"))
    data = bytes(rng.choice(alphabet) for _ in range(size)).replace(b"\n", b" ")
    return data + b"\n"


def random_peer_line(rng: random.Random) -> bytes:
    kind = rng.choice(
        ("move", "takeback", "game-over", "hello", "state", "reply", "warning", "crown", "new-game", "zzz")
    )
    obj: dict[str, Any] = {"t": rng.randrange(10**6), "event": kind}
    values = [
        None,
        True,
        -1,
        0,
        1,
        2,
        7,
        10**9,
        2.5,
        "x",
        "black",
        "white",
        "1-0",
        "resign",
        [],
        [11, 15],
        [9, 14],
        [22, 18],
        [11, 15, 19],
        [0, 40],
        ["11"],
        {"a": 1},
        "1-abc",
        "B:W21-32:B1-12",
        "W:W18:B1",
    ]
    for key in rng.sample(
        [
            "ply",
            "side",
            "move",
            "path",
            "captures",
            "result",
            "reason",
            "state",
            "game",
            "start",
            "fen",
            "last",
            "cause",
            "plays",
            "cmd",
        ],
        rng.randrange(0, 8),
    ):
        obj[key] = rng.choice(values)
    if kind in ("hello", "state") and rng.random() < 0.5:
        state = {
            "game": f"{rng.randrange(5)}-{rng.randrange(16**4):x}",
            "start": Position.start().fen(),
            "fen": rng.choice((Position.start().fen(), "W:W18,21-32:B1-12", "B:W9:B1")),
            "ply": rng.choice((0, 1, 2, 50)),
            "last": rng.choice((None, {"ply": 1, "side": "black", "move": "11-15", "path": [11, 15], "captures": []})),
        }
        if kind == "hello":
            obj["state"] = state
        else:
            obj.update(state)
    if kind == "move" and rng.random() < 0.5:
        obj.update(
            {
                "ply": rng.choice((1, 2)),
                "side": rng.choice(("black", "white")),
                "path": rng.choice(([11, 15], [22, 18], [9, 14], [24, 20])),
                "captures": [],
            }
        )
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5).encode("utf-8") + b"\n"


def expected_answers(line: bytes) -> tuple[int, str]:
    """The answers the protocol promises for one line (with its \\n), worked out on its own,
    and what the line is: ``blank``, ``peer`` (another board's event) or ``command``."""
    body = line[:-1]
    if len(line) > MAX_LINE:
        return 1, "command"  # too-long
    if body.endswith(b"\r"):
        body = body[:-1]
    if all(b in b" \t" for b in body):
        return 0, "blank"
    try:
        obj = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return 1, "command"
    if body.lstrip(b" \t").startswith(b"{") and isinstance(obj, dict) and isinstance(obj.get("event"), str):
        return 0, "peer"  # never answered
    return 1, "command"


@pytest.fixture
def errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[list[logging.LogRecord]]:
    caplog.set_level(logging.ERROR, logger="firmware")
    yield caplog.records


def run_fuzz(
    rig: HostedBoard, rng: random.Random, iterations: int, makers: list, errors_logged: list
) -> dict[str, int]:
    host, board = rig.host, rig.board
    host.sync()
    host.since()
    counts = {"lines": 0, "answers": 0, "rejected": 0, "accepted": 0}
    for i in range(iterations):
        if i % 10 == 9:
            if board.game.is_over and not board.app.resuming and board.app.tracker.setting_up is None:
                host.request("new")  # keep a game going, so that moves can be asked for
            board.follow(wait=400)  # now and then the hands do what the lights ask
            host.sync()
            host.since()
        line = rng.choice(makers)(rng)
        want, what = expected_answers(line)
        before = snapshot(board)
        host.write(line)
        # A sentinel behind every line: whatever came before it is that line's answer.
        host.send("fen")
        answers = [
            host.wait_for(lambda d: d["event"] in ("reply", "error"), f"answer to {line[:40]!r}")
            for _ in range(want + 1)
        ]
        assert answers[-1].get("cmd") == "fen" and answers[-1]["ok"], (line[:60], answers)
        mine = answers[:-1]
        counts["lines"] += 1
        counts["answers"] += len(mine)
        for answer in mine:
            assert answer.get("code") != "internal", (line[:60], answer)
        if what != "peer" and all(a["event"] == "error" or a.get("cmd") in QUERIES for a in mine):
            assert snapshot(board) == before, (line[:60], mine)
        counts[what] = counts.get(what, 0) + 1
        counts["rejected"] += sum(a["event"] == "error" for a in mine)
        counts["accepted"] += sum(a["event"] == "reply" for a in mine)
        host.pump()
        extra = [d for d in host.since() if d["event"] in ("reply", "error")]
        assert not extra, (line[:60], extra)
    assert not errors_logged, [r.getMessage() for r in errors_logged]
    assert max(len(raw) + 1 for raw in host.raw) <= MAX_LINE
    assert board.app.tracker.position == board.game.position
    return counts


def test_random_commands_and_bytes_get_exactly_their_answers_and_rejects_change_nothing(
    tmp_path: Path, errors_logged: list
) -> None:
    rig = HostedBoard(tmp_path)
    try:
        counts = run_fuzz(rig, random.Random(SEED), 300, [random_command, random_command, random_bytes], errors_logged)
        assert counts["rejected"] > 150 and counts["accepted"] > 20  # both kinds were exercised
    finally:
        rig.close()


def test_random_lines_from_a_second_board_are_never_answered_and_never_break_it(
    tmp_path: Path, errors_logged: list
) -> None:
    rig = HostedBoard(tmp_path, plays="black")
    try:
        counts = run_fuzz(
            rig, random.Random(SEED + 1), 250, [random_peer_line, random_peer_line, random_command], errors_logged
        )
        assert counts["lines"] == 250 and counts["answers"] < 250
        # Whatever the make-believe board said, this one still plays: Black moves here.
        board = rig.board
        if board.app.tracker.setting_up is not None or board.game.is_over:
            rig.host.request("new")
            board.follow()
        assert rig.host.request("fen")["ok"]
    finally:
        rig.close()


@pytest.mark.slow
def test_long_fuzz(tmp_path: Path, errors_logged: list) -> None:
    for seed in range(5):
        (tmp_path / str(seed)).mkdir()
        rig = HostedBoard(tmp_path / str(seed), plays="black" if seed % 2 else "both")
        try:
            run_fuzz(rig, random.Random(seed), 2000, [random_command, random_bytes, random_peer_line], errors_logged)
        finally:
            rig.close()
