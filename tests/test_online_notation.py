"""Issue 55: the server's move notation and the board's PDN squares, the token kept 0600,
the HTTP client against the local stand-in server (tests/helpers/playstrategy.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from crownhead.firmware.online.client import Backoff, Client, RateLimited, Refused
from crownhead.firmware.online.notation import (
    NotationError,
    color_of,
    moves_from_server,
    parse_uci,
    pdn_square,
    player_of,
    server_square,
    to_server,
)
from crownhead.firmware.online.token import TokenError, load_token, save_token
from crownhead.rules import BLACK, WCDF, WHITE, Game, Move, Position
from helpers.playstrategy import Server


def test_every_square_goes_there_and_back() -> None:
    for s in range(1, 33):
        assert pdn_square(server_square(s)) == s
    with pytest.raises(ValueError):
        server_square(0)


def test_the_start_position_as_the_library_has_it() -> None:
    """strategygames' English starts from Russian's position, p1 (Black, who moves first)
    on its squares 21-32: PDN's 1-12, where Black stands."""
    start = Position.start(WCDF)
    black = {s for s, p in start.pieces().items() if p.symbol == "b"}
    assert {server_square(s) for s in black} == set(range(21, 33))
    assert player_of(BLACK) == "p1" and color_of("p2") is WHITE


def test_a_move_and_a_multi_jump_jump_by_jump() -> None:
    assert to_server(Move((11, 15), ())) == ["2218"]  # Black's first move, 11-15
    (jump,) = Position.from_fen("B:W15,23:B11").legal_moves(WCDF)
    assert jump.path == (11, 18, 27)
    assert to_server(jump) == ["2215", "1506"]  # one request a jump
    assert moves_from_server(["2215", "1506"], WCDF, Position.from_fen("B:W15,23:B11")) == [jump]
    assert moves_from_server(["221506"], WCDF, Position.from_fen("B:W15,23:B11")) == [jump]
    with pytest.raises(NotationError, match="not finished"):
        moves_from_server(["2215"], WCDF, Position.from_fen("B:W15,23:B11"))
    assert moves_from_server(["2215"], WCDF, Position.from_fen("B:W15,23:B11"), unfinished=True) == []


def test_whole_games_go_there_and_back() -> None:
    """Random games written jump by jump, or a capture in one, read back the same."""
    import random

    rng = random.Random(55)
    for _ in range(30):
        game = Game(None, WCDF)
        while not game.is_over and game.ply < 120:
            game.play(rng.choice(game.legal_moves()))
        moves = list(game.moves)
        one_by_one = [u for m in moves for u in to_server(m)]
        assert moves_from_server(one_by_one, WCDF) == moves
        joined = [u[:2] + "".join(x[2:] for x in to_server(m)) for m in moves for u in to_server(m)[:1]]
        assert moves_from_server(joined, WCDF) == moves


def test_a_move_not_legal_is_named() -> None:
    with pytest.raises(NotationError):
        moves_from_server(["2214"], WCDF)  # PDN 11-19 is no move
    with pytest.raises(NotationError):
        parse_uci("22x17")


def test_the_token_is_kept_for_its_owner_only(tmp_path: Path) -> None:
    path = save_token(tmp_path, "lip_alicetoken123")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_token(tmp_path) == "lip_alicetoken123"
    path.chmod(0o644)
    with pytest.raises(TokenError, match="read by others"):
        load_token(tmp_path)
    with pytest.raises(TokenError):
        save_token(tmp_path, "no spaces allowed here")


def test_the_client_never_shows_the_token_nor_talks_plain_http_far() -> None:
    client = Client("lip_alicetoken123", "http://127.0.0.1:1")
    assert "lip_" not in repr(client)
    with pytest.raises(ValueError, match="https"):
        Client("lip_alicetoken123", "http://playstrategy.org")


@pytest.fixture
def server() -> Server:
    s = Server()
    yield s
    s.close()


def test_the_client_against_the_server(server: Server) -> None:
    alice = Client("lip_alicetoken123", server.url, timeout_s=10)
    assert alice.account()["id"] == "alice"
    with pytest.raises(Refused, match="Missing scope"):
        Client("lip_readonly12345", server.url).game_stream("g0000001").__next__()
    with pytest.raises(Refused, match="rapid or slower"):
        next(iter(alice.seek(3, 0)))
    server.next_p1 = "alice"
    list(alice.seek(10, 5))  # paired with Bob's seek: the answer ends
    gid = next(iter(server.games))
    stream = alice.game_stream(gid)
    full = next(stream)
    assert full["type"] == "gameFull" and full["p1"]["id"] == "alice" and full["variant"]["key"] == "english"
    assert full["state"]["moves"] == ""
    alice.move(gid, "2218")
    assert next(stream)["moves"] == "2218"
    with pytest.raises(Refused, match="Not your turn"):
        alice.move(gid, "2318")
    server.limit = 1
    with pytest.raises(RateLimited) as limited:
        alice.account()
    assert limited.value.wait_s == 60


def test_backoff_grows_to_its_bound_and_starts_again() -> None:
    b = Backoff(1, 8)
    assert [b.next() for _ in range(5)] == [1, 2, 4, 8, 8]
    b.reset()
    assert b.next() == 1
