"""Issue 55: ``crownhead online`` against the local stand-in server: login keeps the
token 0600 and never prints it, a seek finds a game, a challenge, ``run --online``
refuses without a login."""

from __future__ import annotations

import io
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.online.token import token_path
from helpers.playstrategy import Server

TOKEN = "lip_alicetoken123"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def login(monkeypatch: pytest.MonkeyPatch, server: Server, state: Path, token: str = TOKEN) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(token + "\n"))
    return main(["online", "login", "--server", server.url, "--token-stdin", "--state-dir", str(state)])


def test_login_seek_and_logout(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert login(monkeypatch, server, tmp_path) == 0
    out = capsys.readouterr()
    assert "as Alice" in out.out and TOKEN not in out.out + out.err
    assert stat.S_IMODE(token_path(tmp_path).stat().st_mode) == 0o600
    assert TOKEN not in (tmp_path / "online" / "account.json").read_text()
    assert main(["online", "seek", "--clock", "3+0", "--state-dir", str(tmp_path)]) == 2
    assert "rapid or slower" in capsys.readouterr().err
    assert main(["online", "seek", "--clock", "10+5", "--state-dir", str(tmp_path)]) == 0
    (gid,) = server.games
    assert f"crownhead online play {gid}" in capsys.readouterr().out
    assert main(["online", "challenge", "bob", "--state-dir", str(tmp_path)]) == 0
    challenge = server.challenge("bob", "alice", {})
    assert main(["online", "accept", challenge["id"], "--state-dir", str(tmp_path)]) == 0
    assert main(["online", "logout", "--state-dir", str(tmp_path)]) == 0
    assert not token_path(tmp_path).exists()


def test_a_bad_token_is_not_kept(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert login(monkeypatch, server, tmp_path, "lip_wrongtoken99") == 2
    err = capsys.readouterr().err
    assert "did not take the token" in err and "lip_wrongtoken99" not in err
    assert not token_path(tmp_path).exists()


def test_run_online_needs_a_login(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--online", "g0000001", "--headless", "--hal", "sim", "--state-dir", str(tmp_path)]) == 2
    assert "crownhead online login" in capsys.readouterr().err
    # With no game named (the page's and the buttons' games) too, and in the play mode only.
    assert main(["run", "--online", "--headless", "--hal", "sim", "--state-dir", str(tmp_path)]) == 2
    assert "--online: not logged in: run 'crownhead online login' first" in capsys.readouterr().err
    assert main(["run", "--online", "--mode", "computer", "--headless", "--hal", "sim"]) == 2
    assert "no --remote, and the play mode" in capsys.readouterr().err


def test_play_goes_back_to_the_last_game(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a power cut ``crownhead online play last`` goes back to the game kept."""
    import crownhead.firmware.cli as cli

    assert main(["online", "play", "--state-dir", str(tmp_path), "last"]) == 2
    assert "give its GAMEID" in capsys.readouterr().err
    (tmp_path / "online").mkdir()
    (tmp_path / "online" / "game.json").write_text('{"id": "g0000042"}')
    ran: list[list[str]] = []
    real = cli.main
    monkeypatch.setattr(cli, "main", lambda argv: ran.append(list(argv)) or 0)
    assert real(["online", "play", "--state-dir", str(tmp_path), "last", "--hal", "sim"]) == 0
    assert ran == [["run", "--online", "g0000042", "--state-dir", str(tmp_path), "--hal", "sim"]]


def test_a_seek_does_not_take_a_game_already_under_way(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert login(monkeypatch, server, tmp_path) == 0
    old = server.new_game("alice", "bob")  # told on the event stream as it opens
    assert main(["online", "seek", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    new = max(server.games)
    assert new != old.id and f"online play {new}" in out


def test_a_challenge_from_a_friend_is_shown_and_accepted(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crownhead.firmware.online.client import Client

    assert login(monkeypatch, server, tmp_path) == 0
    sent = Client("lip_bobtoken12345", server.url).challenge("alice", 15, 10)["challenge"]
    capsys.readouterr()
    assert main(["online", "watch", "--count", "1", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"challenge {sent['id']} from Bob (1620): english 15+10" in out
    assert f"crownhead online accept {sent['id']}" in out
    assert main(["online", "accept", sent["id"], "--state-dir", str(tmp_path)]) == 0


def test_abort_before_the_second_move(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert login(monkeypatch, server, tmp_path) == 0
    game = server.new_game("alice", "bob")
    server.play(game.id, "alice", "11-15")
    server.play(game.id, "bob", "23-19")
    assert main(["online", "abort", game.id, "--state-dir", str(tmp_path)]) == 2
    assert "can no longer be aborted" in capsys.readouterr().err
    other = server.new_game("alice", "bob")
    assert main(["online", "abort", other.id, "--state-dir", str(tmp_path)]) == 0
    assert server.games[other.id].status == "aborted"


def test_pool_and_russian_are_refused_and_say_why(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server's pool and Russian draw by counts the board's rules do not keep: no seek
    or challenge in them goes to the server (docs/online.md)."""
    assert login(monkeypatch, server, tmp_path) == 0
    capsys.readouterr()
    before = len(server.requests)
    for variant in ("pool", "russian"):
        assert main(["online", "seek", "--variant", variant, "--state-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert f"{variant} is not played online from this board: PlayStrategy's" in err and "draw" in err
        assert main(["online", "challenge", "bob", "--variant", variant, "--state-dir", str(tmp_path)]) == 2
        assert "is not played online" in capsys.readouterr().err
    assert len(server.requests) == before
