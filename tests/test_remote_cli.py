"""``crownhead remote invite`` and ``join``, and ``crownhead run --remote``, as processes
through a real Mosquitto on loopback: the invitation's colours, names, rules, clock and
ballot reach the other board, and a board process's move reaches the other board."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.cli import build_parser
from crownhead.firmware.remote.board import remote_link, remote_settings
from crownhead.firmware.remote.invite import Agreement
from crownhead.rules import Move

from helpers.hallnet import MOSQUITTO, Mosquitto, NO_MOSQUITTO, PASSWD, running_mosquitto
from helpers.net import WAIT_S
from helpers.rig import Rig

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)

ACCOUNTS = ["alice", "bob"]


def crownhead(*args: str, **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "crownhead.firmware.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ACCOUNTS) as broker:
        yield broker


def a_journal_empty(state_dir: Path, code: str) -> bool:
    data = json.loads((state_dir / "remote" / f"{code}.journal.json").read_text())
    return data["pending"] == [] and data["seq"] > 0


def invite_and_join(tmp_path: Path, mosquitto: Mosquitto, *extra: str) -> str:
    return invite_and_join_printed(tmp_path, mosquitto, *extra)[0]


def invite_and_join_printed(tmp_path: Path, mosquitto: Mosquitto, *extra: str) -> tuple[str, str, str]:
    """The game's code (without its dash), and what invite and join printed."""
    inviter = crownhead(
        "remote",
        "invite",
        "--broker",
        mosquitto.url("alice"),
        "--state-dir",
        str(tmp_path / "a"),
        "--wait-s",
        "60",
        *extra,
    )
    assert inviter.stdout is not None
    first = inviter.stdout.readline()
    assert first.startswith("game code: "), first + (inviter.stderr.read() if inviter.stderr else "")
    code = first.split(": ", 1)[1].strip()
    joined = subprocess.run(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "remote",
            "join",
            code.upper(),
            "--broker",
            mosquitto.url("bob"),
        ]
        + ["--state-dir", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert joined.returncode == 0, joined.stderr
    out, err = inviter.communicate(timeout=WAIT_S)
    assert inviter.returncode == 0, err
    assert "bob the other side" in out and "alice the other side" in joined.stdout
    return code.replace("-", ""), out, joined.stdout


def test_the_printed_run_command_runs_as_printed(tmp_path: Path, mosquitto: Mosquitto) -> None:
    # Its --state-dir left out, `crownhead run --remote CODE` looked in the default state
    # directory, found no agreement and failed (issue 51, item 8).
    folder = tmp_path / "a home"  # (a space: the line is quoted as a shell reads it)
    code, invited, joined = invite_and_join_printed(folder, mosquitto)
    for printed, home in ((invited, folder / "a"), (joined, folder / "b")):
        (line,) = [line for line in printed.splitlines() if line.startswith("now: ")]
        words = shlex.split(line.removeprefix("now: "))
        assert words[0] == "crownhead"
        args = build_parser().parse_args(words[1:])
        assert (args.command, args.remote, Path(args.state_dir)) == ("run", code, home)
        assert Agreement.load(Path(args.state_dir), args.remote).invitation.code == code


def test_an_invitation_carries_colours_names_rules_clock_and_ballot(tmp_path: Path, mosquitto: Mosquitto) -> None:
    code = invite_and_join(
        tmp_path,
        mosquitto,
        "--plays",
        "white",
        "--black",
        "Ann",
        "--white",
        "Bo",
        "--clock",
        "600+5",
        "--ballot",
        "5",
        "--huffing",
        "--grace-s",
        "90",
    )
    a, b = Agreement.load(tmp_path / "a", code), Agreement.load(tmp_path / "b", code)
    assert a.invitation == b.invitation
    assert (a.me, a.peer, a.plays, b.me, b.peer, b.plays) == ("alice", "bob", "white", "bob", "alice", "black")
    inv = b.invitation
    assert (inv.black, inv.white, inv.clock, inv.ballot, inv.game_rules().huffing, inv.grace_s) == (
        "Ann",
        "Bo",
        "600+5",
        5,
        True,
        90,
    )
    assert (tmp_path / "b" / "remote" / f"{code}.json").stat().st_mode & 0o077 == 0  # the password is in it
    settings = remote_settings(b, Rig(None, start=False).app.settings)
    assert settings.start == inv.start() and str(settings.clock) == str(inv.time_control())


def test_join_refuses_a_code_nobody_offered_and_a_plain_broker_elsewhere(tmp_path: Path, mosquitto: Mosquitto) -> None:
    url = mosquitto.url("bob")
    run = [sys.executable, "-m", "crownhead.firmware.cli", "remote", "join"]
    bad = subprocess.run(run + ["zz9", "--broker", url], capture_output=True, text=True, timeout=WAIT_S)
    assert bad.returncode == 2 and "6 letters and digits" in bad.stderr
    none = subprocess.run(
        run + ["abcdef", "--broker", url, "--wait-s", "2", "--state-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert none.returncode == 2 and "no invitation to game abcdef" in none.stderr
    far = subprocess.run(
        run + ["abcdef", "--broker", "mqtt://bob:pw@broker.example"], capture_output=True, text=True, timeout=WAIT_S
    )
    assert far.returncode == 2 and "use mqtts://" in far.stderr and "pw" not in far.stderr


def test_a_board_process_moves_and_the_board_far_away_shows_it(tmp_path: Path, mosquitto: Mosquitto) -> None:
    code = invite_and_join(tmp_path, mosquitto)  # alice plays Black
    agreement = Agreement.load(tmp_path / "b", code)
    rig = Rig(tmp_path / "b", settings=remote_settings(agreement, Rig(None, start=False).app.settings), start=False)
    link = remote_link(agreement, rig.clock, tmp_path / "b")
    rig.connect(link.transport, link.settings)
    rig.app.start()
    end = time.monotonic() + WAIT_S
    while not link.transport.connected:
        rig.wait(20)
        assert time.monotonic() < end, "bob's board did not reach the broker"
    script = tmp_path / "black.txt"
    script.write_text("lift 11\nplace 15\nwait 1000\n")
    board_a = crownhead(
        "run",
        "--headless",
        "--hal",
        "sim",
        "--log",
        "json",
        "--state-dir",
        str(tmp_path / "a"),
        "--remote",
        code,
        "--script",
        str(script),
    )
    while board_a.poll() is None:  # bob's board runs meanwhile: it takes alice's lines and acknowledges them
        rig.wait(20)
        time.sleep(0.005)
        assert time.monotonic() < end, "alice's board did not end"
    out, err = board_a.communicate()
    assert board_a.returncode == 0, err
    assert a_journal_empty(tmp_path / "a", code), "alice's board ended with lines bob had not acknowledged"
    moves = [json.loads(line) for line in out.splitlines() if '"event":"move"' in line]
    assert [m["move"] for m in moves] == ["11-15"]
    # Alice's board is switched on again (its pieces standing), as a board runs: the two
    # boards compare their games (the names each gave the game settled now that both
    # hear each other) and bob's board shows the move.
    board_a = crownhead(
        "run",
        "--headless",
        "--hal",
        "sim",
        "--sim-keep-game",
        "--state-dir",
        str(tmp_path / "a"),
        "--remote",
        code,
    )
    try:
        while rig.app.tracker.expected != Move((11, 15)):
            rig.wait(20)
            time.sleep(0.005)
            assert board_a.poll() is None, board_a.communicate()[1]
            assert time.monotonic() < end, "bob's board never showed alice's move"
    finally:
        board_a.terminate()
        out, err = board_a.communicate(timeout=WAIT_S)
    # Stopped cleanly, or by the signal itself when it came before the board had started.
    assert board_a.returncode in (0, -signal.SIGTERM), err
    rig.follow(wait=600)
    assert rig.game.ply == 1
    # Alice's board is off: nothing takes bob's last lines (they stay in his journal), so
    # the close does not wait the 5 s a board gives the other to take them.
    link.transport.close(flush_s=0)  # type: ignore[call-arg]
    link.close()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"invite": {}, "me": "a", "peer": "b", "broker": "mqtts://a:p@h"}, 'no "invitation"'),
        ({"invitation": {"v": 1}}, 'no "me", "peer", "broker"'),
        ([1, 2], "not an agreement"),
    ],
)
def test_an_agreement_file_with_the_wrong_keys_says_which(tmp_path: Path, body: object, expected: str) -> None:
    # Issue 54: the error was a bare 'invitation' (a KeyError's text).
    path = Agreement.path(tmp_path, "kq7m4z")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(body))
    with pytest.raises(ValueError) as caught:
        Agreement.load(tmp_path, "kq7m4z")
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and expected in message, message
    assert message != f"{path}: 'invitation'"
