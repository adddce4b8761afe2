"""Issue 55: the board's games on PlayStrategy taken with its buttons and its page's desk
(:class:`~crownhead.firmware.online.desk.OnlineDesk`), through the local stand-in server
(tests/helpers/playstrategy.py): a challenge accepted with the draw button and played,
one declined with resign, a seek made and cancelled with the claim button, the page's
requests, the server's clocks, players and chat for the page, and the game under way
joined again by itself after a power cut."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.online.client import Backoff, Client
from crownhead.firmware.online.desk import OnlineDesk, kept_game, parse_clock
from crownhead.firmware.online.game import online_settings
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


@pytest.fixture
def online_rig(make_rig: Callable[..., Rig]) -> Callable[..., Rig]:
    def make(*args: Any, keep: bool = False) -> Rig:
        return make_rig(*args, settings=online_settings(AppSettings(sim_keep_game=keep), None))  # as run --online

    return make


def open_desk(rig: Rig, server: Server, state: Path) -> OnlineDesk:
    client = Client(ALICE, server.url, timeout_s=10, rate_limit_s=0.05)
    return OnlineDesk(client, "alice", state, backoff=Backoff(0.02, 0.2)).attach(rig.app)


def until(rig: Rig, holds: Callable[[], Any]) -> None:
    """Steps of the board (20 virtual ms each) until ``holds``, the network answering."""

    def step() -> bool:
        rig.app.run_for(20)
        return bool(holds())

    assert wait_for(step, 20.0), "the board never got there"


def answer(desk: OnlineDesk, rig: Rig, what: str, data: object = None) -> dict[str, Any]:
    """The desk's answer to a page's request, the board stepping until it is given."""
    future = desk.ask(what, data)
    assert future is not None
    until(rig, future.done)
    return future.result()


def test_a_challenge_accepted_with_the_draw_button_is_played_and_shown(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    rig = online_rig()
    desk = open_desk(rig, server, tmp_path)
    try:
        until(rig, lambda: desk.state == "idle")  # no game of Alice's under way
        server.challenge("bob", "alice", {"clock.limit": "900", "clock.increment": "10"})
        until(rig, lambda: desk.challenges)
        said = "PlayStrategy: Bob (1620) challenges you, english 15+10; the draw button accepts it, resign declines it"
        assert [e for e in rig.events if e.kind == "alert"][-1].to_json()["message"] == said  # said, and shown
        assert rig.app.view().message == said
        assert desk.status()["challenges"][0]["name"] == "Bob"
        rig.app.press("draw")  # accepts it: the challenger, Bob, is p1 (Black)
        until(rig, lambda: desk.game is not None and desk.game.mine is WHITE)
        gid = desk.game.game_id
        assert server.games[gid].p1 == "bob" and kept_game(tmp_path) == gid
        assert rig.app.analysis_refused is not None  # no engine help: not on this path either
        rig.do("h", wait=300)
        assert rig.app.hint is None
        server.play(gid, "bob", "11-15")
        until(rig, lambda: rig.app.expected is not None)
        rig.follow()
        rig.do("22-18")
        until(rig, lambda: server.games[gid].ucis == ["2218", "1115"])
        server.say(gid, "bob", "<b>hi</b>")
        until(rig, lambda: desk.status()["game"]["chat"])
        game = desk.status()["game"]
        assert game["black"] == {"name": "Bob", "rating": 1620, "ms": 900_000}
        assert game["white"]["name"] == "Alice" and game["white"]["rating"] == 1500
        assert game["mine"] == "white" and game["running"] == "black" and game["id"] == gid
        assert game["chat"] == [{"user": "Bob", "text": "<b>hi</b>"}]  # the page puts it in as text
        assert answer(desk, rig, "chat", "good luck")["state"] == "playing"
        until(rig, lambda: server.games[gid].chat[-1]["text"] == "good luck")
        refused = answer(desk, rig, "seek", {"clock": "10+5"})
        assert refused["error"] == "refused" and "plays PlayStrategy game" in refused["message"]
        assert "only before the game's second move" in answer(desk, rig, "abort", True)["message"]
        rig.app.press("white_resign")
        rig.app.press("white_resign")
        until(rig, lambda: desk.game is None)  # over on the server and the board: let go
        assert desk.state == "idle" and server.games[gid].status == "resign"
        assert rig.app.game.result.score == "1-0"
        assert not rig.app.session.held  # the board plays on its own again
        until(rig, lambda: rig.store.game_files())
        (kept,) = rig.store.game_files()
        text = kept.read_text()
        assert '[Event "PlayStrategy game"]' in text and f'[Site "{server.url}"]' in text and gid in text
        assert rig.app.settings.site != server.url  # a game on the board alone is not the server's
    finally:
        desk.close()


def test_a_challenge_declined_with_resign_and_a_seek_made_and_cancelled_with_claim(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    rig = online_rig()
    desk = open_desk(rig, server, tmp_path)
    try:
        until(rig, lambda: desk.state == "idle")
        ch = server.challenge("bob", "alice", {})
        until(rig, lambda: desk.challenges)
        # A game under way on the board keeps its buttons: draw offers a draw there.
        rig.do("11-15")
        rig.app.press("black_draw")
        rig.wait(100)
        assert rig.app.snapshot.offer is not None and desk.challenges
        rig.do("n", wait=100)  # a new game: the board is free again
        rig.follow()
        rig.app.press("resign")
        until(rig, lambda: server.challenges[ch["id"]]["status"] == "declined")
        assert not desk.challenges and not server.games and not rig.app.game.is_over
        server.seeking = None  # nobody to pair with yet
        rig.app.press("claim")
        until(rig, lambda: desk.state == "seeking")
        until(rig, lambda: any(r[1] == "/api/board/seek" for r in server.requests))
        rig.app.press("claim")  # again: cancelled
        until(rig, lambda: server.seeks_cancelled == 1)
        assert desk.state == "idle" and not server.games
        server.seeking = "bob"
        status = answer(desk, rig, "seek", {"clock": "15+10"})
        assert status["state"] == "seeking"
        until(rig, lambda: desk.game is not None and desk.game.mine is BLACK)
        (gid,) = server.games
        assert server.games[gid].initial_ms == 15 * 60_000 and server.games[gid].increment_ms == 10_000
        for bad, words in (
            (("seek", {"clock": "fast"}), "clock: MIN+INC"),
            (("seek", {"variant": "russian"}), "russian is not played online from this board"),
            (("accept", "c999"), "no such challenge"),
            (("challenge", {"user": "bob carol"}), "letters, digits"),
            (("cancel", True), "no seek or challenge under way"),
        ):
            refused = answer(desk, rig, *bad)
            assert refused["error"] == "refused" and words in refused["message"], refused
        # Aborted from the page before the second move: over there and here, let go.
        assert answer(desk, rig, "abort", True)["message"] == f"aborting PlayStrategy game {gid}"
        until(rig, lambda: desk.game is None)
        assert server.games[gid].status == "aborted" and rig.app.game.is_over
        assert answer(desk, rig, "abort", True)["message"] == "abort: no game on PlayStrategy under way"
    finally:
        desk.close()


def test_a_power_cut_mid_game_comes_back_to_the_game_with_no_command(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    """The board is switched off mid-game; switched on again with its desk (``crownhead
    run --online``, no game named), it joins the game under way by itself, from the
    server's full state, and lights the move made meanwhile."""
    rig = online_rig()
    desk = open_desk(rig, server, tmp_path)
    until(rig, lambda: desk.state == "idle")
    answer(desk, rig, "seek", {"clock": "10+5"})
    until(rig, lambda: desk.game is not None and desk.game.mine is BLACK)
    (gid,) = server.games
    rig.do("11-15")
    until(rig, lambda: len(server.games[gid].ucis) == 1)
    desk.close()
    rig.close()  # the power goes
    server.play(gid, "bob", "23-19")  # made on the site meanwhile
    again = online_rig(keep=True)  # the same state directory, the pieces standing as they were
    desk = open_desk(again, server, tmp_path)  # nothing asked: no game named, no button
    try:
        until(again, lambda: again.app.expected is not None)
        assert desk.game is not None and desk.game.game_id == gid and desk.state == "playing"
        assert again.app.expected.pdn(full=True) == "23-19"  # the server's move, lit
        again.follow()
        again.do("8-11")
        until(again, lambda: len(server.games[gid].ucis) == 3)
        assert [m.pdn(full=True) for m in again.app.game.moves] == ["11-15", "23-19", "8-11"]
    finally:
        desk.close()


def test_a_clock_is_minutes_and_an_increment() -> None:
    assert parse_clock("10+5") == (10, 5) and parse_clock(" 30 ") == (30, 0)
    for bad in ("10+", "+5", "ten", "1+2+3", 10):
        with pytest.raises(ValueError, match="MIN\\+INC"):
            parse_clock(bad)


def test_a_friend_challenged_by_name_declines_then_accepts_on_the_site(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    rig = online_rig()
    desk = open_desk(rig, server, tmp_path)
    try:
        until(rig, lambda: desk.state == "idle")

        def challenge() -> str:
            before = set(server.challenges)
            status = answer(desk, rig, "challenge", {"user": "bob", "clock": "15+10"})
            assert status["state"] == "challenging" and status["message"] == "challenging bob to English 15+10"
            until(rig, lambda: set(server.challenges) - before)
            (cid,) = set(server.challenges) - before
            assert server.challenges[cid]["challenger"]["id"] == "alice"
            assert server.challenges[cid]["timeControl"]["show"] == "15+10"
            return cid

        assert server._answer("bob", challenge(), "decline") is None  # Bob declines on the site
        until(rig, lambda: desk.state == "idle")
        assert desk.message == "PlayStrategy: your challenge was declined"
        challenge()
        assert answer(desk, rig, "cancel", True)["message"] == "the board no longer waits for the challenge"
        assert server._answer("bob", challenge(), "accept") is None  # accepted: the challenger plays Black
        until(rig, lambda: desk.game is not None and desk.game.mine is BLACK)
        until(rig, lambda: str(rig.app.settings.clock) == "900+10")
    finally:
        desk.close()


def test_a_game_that_starts_during_a_game_on_the_board_waits_for_its_end(
    server: Server, online_rig: Callable[..., Rig], tmp_path: Path
) -> None:
    rig = online_rig()
    desk = open_desk(rig, server, tmp_path)
    try:
        until(rig, lambda: desk.state == "idle")
        rig.do("11-15")
        rig.do("22-18")  # two people at the board, a game of its own
        game = server.new_game("bob", "alice")  # accepted on the site meanwhile
        until(rig, lambda: desk.state == "waiting")
        assert desk.game is None and desk.message.startswith(f"PlayStrategy game {game.id} started: finish")
        assert [m.pdn(full=True) for m in rig.app.game.moves] == ["11-15", "22-18"]  # nothing taken back
        rig.app.press("black_resign", long=True)  # the board's game ends
        until(rig, lambda: desk.game is not None and desk.game.mine is WHITE)
        until(rig, lambda: rig.app.setting_up is not None)
        rig.follow()  # the hands set the pieces up for the server's game
        until(rig, lambda: rig.app.game.ply == 0 and rig.app.record_tags().get("GameId") == game.id)
        server.play(game.id, "bob", "9-14")
        until(rig, lambda: rig.app.expected is not None)
        assert rig.app.expected.pdn(full=True) == "9-14"
    finally:
        desk.close()
