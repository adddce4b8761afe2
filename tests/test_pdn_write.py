"""PDN writing: notation, numbering, tags, comments, wrapping and round trips."""

from __future__ import annotations

import random

import pytest

from crownhead.rules import BLACK, WCDF, WHITE, Game, Position
from crownhead.rules.pdn import LINE_WIDTH, move_text, read_game, read_games, write_game, write_games

from helpers.games import random_game


def play(*moves: str, start: Position | None = None) -> Game:
    game = Game(start, WCDF)
    for text in moves:
        game.play_text(text)
    return game


def movetext(pdn: str) -> str:
    """The move section: everything after the blank line that ends the tags."""
    return pdn.split("\n\n", 1)[1]


def test_short_form_and_full_path_only_when_routes_share_their_ends() -> None:
    diamond = Position.from_fen("B:W6,7,14,15,30:B2,12")
    game = Game(diamond, WCDF)
    route = next(m for m in diamond.legal_moves(WCDF) if m.path == (2, 11, 18))
    game.play(route)
    assert move_text(diamond, route, WCDF) == "2x11x18"
    game.play_text("30-26")
    assert movetext(write_game(game)) == "1. 2x11x18 30-26 *\n"
    # a double jump without a rival route is written by its ends
    pos = Position.from_fen("B:W6,14:B1")
    (jump,) = pos.legal_moves(WCDF)
    assert jump.path == (1, 10, 17) and move_text(pos, jump, WCDF) == "1x17"


def test_tags_in_standard_order_with_defaults_and_setup_last() -> None:
    start = Position.from_fen("W:W22,24,27,32:B7,10,15,20")
    game = play("27-23", "20x27", start=start)
    pdn = write_game(
        game,
        tags={
            "Annotator": "X",
            "White": "Bob",
            "FEN": "stale",
            "Event": "Club",
            "Setup": "1",
            "Black": "Ann",
            "GameType": "21",
        },
    )
    head = pdn.split("\n\n")[0].splitlines()
    assert head == [
        '[Event "Club"]',
        '[Site "?"]',
        '[Date "????.??.??"]',
        '[Round "?"]',
        '[Black "Ann"]',
        '[White "Bob"]',
        '[Result "*"]',
        '[Annotator "X"]',
        '[GameType "21"]',
        '[SetUp "1"]',
        '[FEN "W:W22,24,27,32:B7,10,15,20"]',
    ]


def test_no_fen_for_the_start_position_even_when_tags_carry_one() -> None:
    pdn = write_game(play("11-15"), tags={"FEN": "B:W21-32:B1-12", "SetUp": "1"})
    assert "FEN" not in pdn and "SetUp" not in pdn


def test_white_to_move_first_is_numbered_with_an_ellipsis() -> None:
    start = Position.from_fen("W:W22,24,27,32:B7,10,15,20")
    game = play("27-23", "20x27", "23-18", "27-31", start=start)
    assert movetext(write_game(game)) == "1... 27-23 2. 20x27 23-18 3. 27-31 *\n"


def test_comments_and_continuation_numbers() -> None:
    game = play("11-15", "23-18", "8-11", "27-23")
    pdn = write_game(
        game,
        comments={0: "Old 14th?", 1: ["best", "by  test"], 2: "", 4: "a {b} c"},
    )
    assert movetext(pdn) == ("{Old 14th?} 1. 11-15 {best} {by test} 1... 23-18 2. 8-11 27-23 {a (b) c} *\n")
    again = read_game(pdn)
    assert again is not None
    assert again.comments == {0: ["Old 14th?"], 1: ["best", "by test"], 4: ["a (b) c"]}


def test_comments_past_the_last_move_are_written_at_the_end() -> None:
    pdn = write_game(play("11-15"), comments={5: "later"})
    assert movetext(pdn) == "1. 11-15 {later} *\n"
    with pytest.raises(ValueError, match="ply -1"):
        write_game(play("11-15"), comments={-1: "before the start"})


def test_tag_values_are_escaped() -> None:
    pdn = write_game(play("11-15"), tags={"Event": 'The "Big" one \\ two', "Site": "a\nb"})
    assert '[Event "The \\"Big\\" one \\\\ two"]' in pdn
    assert '[Site "a b"]' in pdn
    again = read_game(pdn)
    assert again is not None and again.tags["Event"] == 'The "Big" one \\ two'
    with pytest.raises(ValueError, match="tag name 'Bad name'"):
        write_game(play("11-15"), tags={"Bad name": "x"})


def test_result_from_argument_game_or_tag() -> None:
    game = play("11-15")
    assert movetext(write_game(game)).endswith(" *\n")
    assert movetext(write_game(game, tags={"Result": "1-0"})).endswith(" 1-0\n")
    game.resign()  # White, to move, resigns: the game's result wins over the tag
    assert movetext(write_game(game, tags={"Result": "1/2-1/2"})).endswith(" 1-0\n")
    assert movetext(write_game(game, result="0-1")).endswith(" 0-1\n")
    assert '[Result "0-1"]' in write_game(game, result="0-1")
    with pytest.raises(ValueError, match="not a result"):
        write_game(game, result="2-1")


def test_lines_fit_80_columns() -> None:
    rng = random.Random(7)
    game = Game(None, WCDF)
    while not game.is_over and game.ply < 150:
        game.play(rng.choice(game.legal_moves()))
    comments = {ply: "a rather long comment that will need wrapping " * 2 for ply in (3, 40, 41)}
    comments[10] = "x" * 100  # one word longer than a line stands alone
    pdn = write_game(game, tags={"Event": "Wrap"}, comments=comments)
    lines = movetext(pdn).splitlines()
    assert len(lines) > 5
    assert all(len(line) <= LINE_WIDTH for line in lines if "xxxx" not in line)
    assert any(line == "{" + "x" * 100 + "}" for line in lines)
    again = read_game(pdn)
    assert again is not None and again.moves == game.moves and again.error is None


def test_a_game_with_an_error_is_written_up_to_the_failing_move() -> None:
    (pdn_game,) = read_games('[Event "e"]\n1. 11-15 23-18 2. 30-26 1-0')
    assert pdn_game.error is not None
    text = pdn_game.pdn()
    assert movetext(text) == "1. 11-15 23-18 *\n"


def test_round_trip_of_a_game_with_every_feature() -> None:
    text = (
        '[Event "All"]\n[Black "A"]\n[White "B"]\n[Result "0-1"]\n[Extra "e"]\n'
        '[FEN "B:W6,7,14,15,30:B2,12"]\n'
        "{intro} 1. 2x18 {the diamond} 14-9 2. 12-16 (2. 18-22 9-5) 30-26 $1 0-1"
    )
    first = read_game(text)
    assert first is not None and first.error is None
    written = first.pdn()
    second = read_game(written)
    assert second is not None and second.error is None
    assert second.moves == first.moves and second.start == first.start
    assert second.comments == first.comments == {0: ["intro"], 1: ["the diamond"]}
    assert second.result == "0-1"
    for name, value in first.tags.items():
        if name != "FEN":
            assert second.tags[name] == value
    assert second.pdn() == written


def test_write_games_separates_games_by_a_blank_line() -> None:
    games = list(read_games("1. 11-15 * 1. 9-14 1-0"))
    text = write_games(games)
    assert text.count('[Event "?"]') == 2 and '*\n\n[Event "?"]' in text
    assert [g.moves for g in read_games(text)] == [g.moves for g in games]


def test_random_games_round_trip_even_with_rival_capture_routes() -> None:
    rng = random.Random(2024)
    full_paths = 0
    for index in range(300):
        if index % 2:
            start = Position.start()
        else:  # crowded boards with kings, where rival routes with the same ends are common
            squares = rng.sample(range(1, 33), rng.randint(8, 20))
            start = Position.from_pieces({s: rng.choice("bwBW") for s in squares}, rng.choice([BLACK, WHITE]))
        game = random_game(rng, 60, start=start)
        text = write_game(game)
        back = read_game(text)
        assert back is not None and back.error is None, text
        assert back.start == game.start and back.moves == game.moves
        full_paths += sum(len(t.split("x")) > 2 for t in back.move_texts)
    assert full_paths > 0  # some captures had to be written with their full path
