"""The PDN reader on large files (issue 54): read a window at a time, memory flat
whatever the file's size; what no real game has (a tag or comment of more than
``MAX_TOKEN`` characters, a game of more than ``MAX_PLIES`` plies) is the game's one
error, naming the file and the line, never held in memory. Bounds are injected small
here, inputs are a few MB: these tests take seconds (bench/pdn_large.py measures the
60 MB file).
"""

from __future__ import annotations

import io
import random
import tracemalloc
from pathlib import Path

import pytest

import crownhead.rules.pdn as pdn
from crownhead.firmware.cli import main
from crownhead.rules import WCDF, Game
from crownhead.rules.pdn import _plain_move, read_games


SHORT = '[Event "Club {n}"]\n[Black "Ann"]\n[White "Bob"]\n[Result "*"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n\n'


def _games(source: object, name: str = "x.pdn") -> list[tuple[object, ...]]:
    return [
        (
            g.number,
            g.line,
            dict(g.tags),
            [str(m) for m in g.moves],
            g.comments,
            g.result,
            str(g.error),
            list(map(str, g.notes)),
        )
        for g in read_games(source, name)  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("name", ["tinsley.pdn", "oca-2.0.pdn", "inferno.pdn", "principles-of-strategy.pdn"])
def test_a_file_read_through_a_window_of_a_few_characters_gives_the_same_games(
    name: str, monkeypatch: pytest.MonkeyPatch, shared_data: Path
) -> None:
    data = (shared_data / name).read_bytes()[:80_000]
    whole = _games(data)
    # A window of 5 characters (read 3 at a time) splits every token, comment and line end.
    monkeypatch.setattr(pdn, "CHUNK", 3)
    monkeypatch.setattr(pdn, "MAX_TOKEN", max(len(line) for line in data.decode("latin-1").splitlines()) + 1)
    assert _games(io.BytesIO(data)) == whole


def test_cp1252_and_line_ends_split_between_chunks_read_as_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '[Event "Caf\xe9 \u201copen\u201d"]\r\n[Black "Zo\xeb"]\r\n\r\n1. 11-15 {\xa0note} 23-19 *\r\n'
    data = text.encode("cp1252")
    whole = _games(data)
    monkeypatch.setattr(pdn, "CHUNK", 1)
    assert _games(io.BytesIO(data)) == whole
    assert whole[0][2]["Event"] == "Café “open”"
    utf8 = ("\ufeff" + text.replace("\xa0", "é")).encode("utf-8")
    assert _games(io.BytesIO(utf8))[0][2]["Black"] == "Zoë"


def test_a_tag_longer_than_any_real_one_is_the_games_one_error_and_is_never_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdn, "MAX_TOKEN", 1000)
    text = SHORT.format(n=1) + '[Event "' + "x" * 50_000 + '"]\n[Black "Cy"]\n\n1. 9-14 *\n' + SHORT.format(n=3)
    games = list(read_games(io.BytesIO(text.encode()), "big.pdn"))
    assert [g.number for g in games] == [1, 2, 3]
    assert str(games[1].error) == "big.pdn:8: game 2: a tag longer than 1,000 characters: no real game has one"
    assert "Event" not in games[1].tags and games[1].tags["Black"] == "Cy"
    assert games[0].error is None and games[2].error is None
    # A comment as long fails the same way; the moves after it are read.
    long_comment = "1. 11-15 {" + "y" * 50_000 + "} 23-19 *\n"
    game = next(read_games(long_comment, "c.pdn"))
    assert str(game.error) == "c.pdn:1: game 1: a comment longer than 1,000 characters: no real game has one"
    assert game.comments == {}


def test_a_game_of_more_plies_than_any_real_one_fails_and_its_rest_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdn, "MAX_PLIES", 10)
    shuffle = " ".join(f"{n}. 1-5 32-27 {n + 1}. 5-1 27-32" for n in range(1, 100, 2))  # kings to and fro: 200 plies
    game = next(read_games(f'[FEN "B:WK32:BK1"]\n{shuffle} *\n', "long.pdn"))
    assert str(game.error) == (
        "long.pdn:2: game 1: more than 10 plies: no real game has as many; the rest of the game is not read"
    )
    assert len(game.moves) == 10


def test_checking_a_file_of_2_5_mb_holds_a_small_part_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Games of many tags and one move: bytes that cost little to replay.
    monkeypatch.setattr(pdn, "CHUNK", 64 * 1024)
    monkeypatch.setattr(pdn, "MAX_TOKEN", 4096)
    tags = "".join(f'[Note{t} "{"n" * 60}"]\n' for t in range(12))
    path = tmp_path / "many.pdn"
    with path.open("w") as out:
        n = 0
        while out.tell() < 2_500_000:
            n += 1
            out.write(f'[Event "Club {n}"]\n{tags}\n1. 11-15 *\n\n')
    small = tmp_path / "small.pdn"
    small.write_text(SHORT.format(n=0))
    assert main(["pdn", "check", "-q", str(small)]) == 0  # the command's modules imported
    tracemalloc.start()
    try:
        assert main(["pdn", "check", "-q", str(path)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The window, the binary buffer and one game: well under a MB (the file whole: 2.5,
    # and as much again decoded).
    assert peak < 1_500_000, f"peak {peak / 1e6:.1f} MB reading a 2.5 MB file"


def test_a_27_mb_like_single_line_reads_at_the_pace_of_its_games(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every game on one line (0.7 MB of it): games split at their results, a window at a time.
    monkeypatch.setattr(pdn, "CHUNK", 4096)
    line = " ".join(f'[Event "g{n}"] 1. 11-15 23-19 1-0' for n in range(20_000))
    games = 0
    for game in read_games(io.BytesIO(line.encode()), "line.pdn"):
        games += 1
        assert game.error is None and game.line == 1
    assert games == 20_000


def test_the_plain_move_path_agrees_with_every_legal_move() -> None:
    rng = random.Random(5)
    for _ in range(8):  # some 450 positions, kings and jumps among them
        game = Game(None, WCDF)
        for _ in range(60):
            position = game.position
            legal = position.legal_moves(WCDF)
            for start in range(1, 33):
                for end in range(1, 33):
                    found = _plain_move(position, start, end, WCDF)
                    if found is not None:
                        assert found == [m for m in legal if m.start == start and m.end == end]
            if not legal:
                break
            game.play(rng.choice(legal))
