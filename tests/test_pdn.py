"""PDN reading: tags, move numbers, comments, variations, results, leniency and errors."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crownhead.rules import WCDF, Game, Move, Position, Rules
from crownhead.rules.pdn import PdnError, candidates, explain_illegal, read_game, read_games, replay

START = Position.start()


def only(text: str, **kwargs: object) -> object:
    games = list(read_games(text, "t.pdn", **kwargs))  # type: ignore[arg-type]
    assert len(games) == 1, [g.tags for g in games]
    return games[0]


def texts(game: object) -> list[str]:
    return [m.pdn(full=True) for m in game.moves]  # type: ignore[attr-defined]


# -- tags ---------------------------------------------------------------------------------


def test_tags_are_kept_in_file_order_with_escapes_undone() -> None:
    game = only('[Event "Club \\"open\\" 2024"]\n[White "B\\\\C"]\n[Black "Ann"]\n[Result "1-0"]\n1. 11-15 *')
    assert list(game.tags) == ["Event", "White", "Black", "Result"]
    assert game.tags["Event"] == 'Club "open" 2024'
    assert game.tags["White"] == "B\\C"
    assert game.tag("event") == 'Club "open" 2024'
    assert game.tag("Round") is None


def test_fen_tag_sets_the_start_and_setup_spelling_does_not_matter() -> None:
    for setup in ("SetUp", "Setup", "setup"):
        game = only(f'[{setup} "1"]\n[FEN "W:W32,27,24,22:B20,15,10,7"]\n1. 27-23 20x27 *')
        assert game.start == Position.from_fen("W:W22,24,27,32:B7,10,15,20")
        assert texts(game) == ["27-23", "20x27"]
        assert game.error is None


def test_fen_tag_with_unsorted_squares_and_trailing_dot() -> None:
    game = only('[FEN "W:W29,25,21,18,15:B13,8,6,5,4."]\n1. 21-17 13x22 *')
    assert game.start.fen() == "W:W15,18,21,25,29:B4,5,6,8,13"
    assert len(game.moves) == 2


def test_a_game_of_only_tags_and_a_result_is_a_position() -> None:
    game = only('[Event "Problem 1"]\n[FEN "B:W21,K5:BK17,K14."]\n1-0')
    assert game.moves == [] and game.error is None and game.result == "1-0"
    assert game.start.kings.bit_count() == 3


# -- move numbers, marks and comments -----------------------------------------------------


def test_move_numbers_of_both_forms_and_glued_to_the_move() -> None:
    game = only("1. 11-15 1... 23-18 2.8-11 2...27-23 3…4-8 *")
    assert texts(game) == ["11-15", "23-18", "8-11", "27-23", "4-8"] and game.error is None
    # a number without its dot is not a move number
    game = only("1. 11-15 23-18 2 8-11 *")
    assert texts(game) == ["11-15", "23-18"]
    assert game.error is not None and game.error.reason == "unexpected text '2' among the moves"
    game = only("1. 11-15 23-18 2... 8-11 3. 27-23 *")
    assert texts(game) == ["11-15", "23-18", "8-11", "27-23"]


def test_move_numbers_are_not_checked_against_the_side_to_move() -> None:
    # Problem books number White's first move "1." (tricks-traps-and-shots.pdn does).
    game = only('[FEN "W:W32,27,24,22:B20,15,10,7"]\n1. 27-23 20x27 2. 23-18 27-31 *')
    assert game.error is None and len(game.moves) == 4


def test_nags_and_marks_are_tolerated() -> None:
    game = only("1. 11-15! 23-18? 2. 8-11!? $14 27-23 $2 3. 4-8?! 23-19!! *")
    assert texts(game) == ["11-15", "23-18", "8-11", "27-23", "4-8", "23-19"]
    assert game.error is None


def test_comments_are_kept_with_the_move_they_follow() -> None:
    game = only(
        "{Before any move} 1. 11-15 {Black opens;\n  the Old Fourteenth?} 23-18 "
        "2. 8-11 {one} {two} 27-23 ; rest of line\n 3. 4-8 *"
    )
    assert game.comments == {
        0: ["Before any move"],
        1: ["Black opens; the Old Fourteenth?"],
        3: ["one", "two"],
        4: ["rest of line"],
    }
    assert len(game.moves) == 5


def test_comments_after_the_result_stay_with_the_game() -> None:
    games = list(read_games('1. 11-15 23-18 1-0 {Black wins later}\n[Event "B"]\n1. 9-14 *'))
    assert [g.comments for g in games] == [{2: ["Black wins later"]}, {}]


def test_text_run_into_a_move_is_kept_as_a_comment() -> None:
    # tinsley.pdn writes "8-11Redoversteppedthetimecontrolonthismove."
    game = only("1. 11-15 23-18 2. 8-11Redoverstepped. 0-1")
    assert texts(game) == ["11-15", "23-18", "8-11"]
    assert game.comments == {3: ["Redoverstepped."]}
    assert game.error is None and game.result == "0-1"


def test_percent_escape_lines_are_ignored() -> None:
    game = only("% made by a program\n1. 11-15 23-18 *")
    assert len(game.moves) == 2 and game.error is None


# -- variations ---------------------------------------------------------------------------


def test_variations_are_skipped_even_nested_and_with_comments_holding_parens() -> None:
    game = only(
        "1. 11-15 23-18 (22-18 {a comment with ) in it} 15x22 (9-14 32x1) 25x18) 2. 8-11 (9-14 (10-14)) 27-23 *"
    )
    assert texts(game) == ["11-15", "23-18", "8-11", "27-23"]
    assert game.comments == {} and game.error is None


def test_an_unclosed_variation_is_reported_and_the_next_game_read() -> None:
    games = list(read_games('1. 11-15 23-18 (22-18 15x22\n[Event "next"]\n1. 9-14 *', "v.pdn"))
    assert len(games) == 2
    error = games[0].error
    assert error is not None and "never closed" in error.reason
    assert (error.ply, error.move, error.line) == (3, "(", 1)
    assert texts(games[0]) == ["11-15", "23-18"]
    assert games[1].error is None and games[1].tags == {"Event": "next"}


def test_a_stray_closing_paren_is_reported() -> None:
    game = only("1. 11-15 ) 23-18 *")
    assert game.error is not None and "never opened" in game.error.reason
    # moves after a problem are not trusted: the replay stops there
    assert (game.error.ply, game.error.move) == (2, ")") and texts(game) == ["11-15"]


# -- results and game boundaries ----------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "result"),
    [
        ("1-0", "1-0"),
        ("0-1", "0-1"),
        ("1/2-1/2", "1/2-1/2"),
        ("*", "*"),
        ("2-0", "1-0"),
        ("0-2", "0-1"),
        ("1-1", "1/2-1/2"),
    ],
)
def test_results(written: str, result: str) -> None:
    game = only(f"1. 11-15 23-18 {written}")
    assert game.result == result and len(game.moves) == 2


def test_result_comes_from_the_tag_when_the_moves_have_none() -> None:
    assert only('[Result "0-1"]\n1. 11-15 23-18').result == "0-1"
    assert only("1. 11-15 23-18").result == "*"
    # the written result wins over the tag
    assert only('[Result "0-1"]\n1. 11-15 23-18 1-0').result == "1-0"


def test_several_games_in_a_file_with_and_without_tags() -> None:
    text = (
        '[Event "one"]\n1. 11-15 23-18 1/2-1/2\n\n'
        '[Event "two"]\n1. 9-14 22-17\n'  # no result: the next tag ends the game
        '[Event "three"]\n1. 10-14 0-1[Event "four"]\n1. 12-16 *\n'  # tag glued to a result
        "1. 11-16 24-20 1-0\n"  # moves after a result: a game without tags
    )
    games = list(read_games(text, "many.pdn"))
    assert [g.tags.get("Event") for g in games] == ["one", "two", "three", "four", None]
    assert [g.number for g in games] == [1, 2, 3, 4, 5]
    assert [g.line for g in games] == [1, 4, 6, 7, 9]
    assert [len(g.moves) for g in games] == [2, 2, 1, 1, 2]
    assert [g.result for g in games] == ["1/2-1/2", "*", "0-1", "*", "1-0"]
    assert all(g.error is None for g in games)
    assert {g.source for g in games} == {"many.pdn"}
    # Only the game whose end shares a line with the next game's start gets a note.
    assert [[str(n) for n in g.notes] for g in games] == [
        [],
        [],
        [
            "many.pdn:7: note: game 3 ends with its result and a new game's tags follow on "
            "the same line; read as games 3 and 4"
        ],
        [],
        [],
    ]


@pytest.mark.parametrize(
    ("text", "note"),
    [
        # after a result: the next game's tags, or its moves without tags
        (
            '1. 11-15 1-0 [Event "b"] 1. 9-14 *',
            "game 1 ends with its result and a new game's tags follow on the same line",
        ),
        (
            "1. 11-15 * 1. 9-14 *",
            "game 1 ends with its result and a new game's moves follow, without tags, on the same line",
        ),
        # no result: the tags after the last move
        (
            '1. 11-15 23-18 [Event "b"]\n1. 9-14 *',
            "game 1 has no result and after its last move a new game's tags follow on the same line",
        ),
        # a comment after the result still counts as the end of the game
        (
            '1. 11-15 1-0 {won on time} [Event "b"]\n1. 9-14 *',
            "game 1 ends with its result and a new game's tags follow on the same line",
        ),
    ],
)
def test_a_game_run_into_the_next_on_one_line_is_noted(text: str, note: str) -> None:
    first, second = read_games(text, "runin.pdn")
    assert first.error is None and second.error is None
    assert [(n.file, n.line, n.game, n.text) for n in first.notes] == [
        ("runin.pdn", 1, 1, note + "; read as games 1 and 2")
    ]
    assert second.notes == []


def test_games_on_lines_of_their_own_get_no_note() -> None:
    text = '[Event "a"]\n1. 11-15 1-0 {a comment}\n[Event "b"]\n1. 9-14 *\n1. 10-14 *\n'
    games = list(read_games(text))
    assert len(games) == 3 and all(g.notes == [] for g in games)


def test_an_empty_text_has_no_games() -> None:
    assert list(read_games("")) == []
    assert list(read_games("\n\n  \n")) == []
    assert read_game("") is None


# -- encodings and streams ----------------------------------------------------------------


def test_crlf_bom_and_bytes() -> None:
    text = '[Event "crlf"]\r\n1. 11-15 {two\r\nlines} 23-18\r\n2. 8-11 *\r\n'
    for data in (text, "\ufeff" + text, text.encode("utf-8-sig"), text.encode("utf-8")):
        game = only(data)  # type: ignore[arg-type]
        assert game.tags == {"Event": "crlf"}
        assert texts(game) == ["11-15", "23-18", "8-11"]
        assert game.comments == {1: ["two lines"]}


def test_latin1_bytes_are_read() -> None:
    game = only('[White "Müller"]\n1. 11-15 *'.encode("cp1252"))  # type: ignore[arg-type]
    assert game.tags["White"] == "Müller"


def test_streams_name_the_source() -> None:
    stream = io.StringIO("1. 11-15 32-28 *")
    stream.name = "stream.pdn"  # type: ignore[misc]
    game = next(read_games(stream))
    assert game.error is not None and game.error.file == "stream.pdn"
    assert next(read_games(io.BytesIO(b"1. 11-15 *"))).source == "<string>"


# -- lenient move text --------------------------------------------------------------------


def test_x_on_plain_moves_colon_and_leading_zeros() -> None:
    game = only("1. 11x15 23:18 2. 08-11 27X23 3. 4-08 *")
    assert texts(game) == ["11-15", "23-18", "8-11", "27-23", "4-8"]


def test_a_capture_written_with_a_dash() -> None:
    game = only("1. 11-15 22-18 2. 15-22 *")
    assert texts(game) == ["11-15", "22-18", "15x18x22"][:2] + ["15x22"]
    assert game.moves[2] == Move((15, 22), (18,))


def test_multi_capture_by_its_ends_by_its_full_path_or_by_some_landings() -> None:
    fen = '[FEN "B:W6,14,22,23:BK1"]\n'
    pos = Position.from_fen("B:W6,14,22,23:BK1")
    assert [m.pdn(full=True) for m in pos.legal_moves(WCDF)] == ["1x10x17x26x19"]
    for written in ("1x19", "1x10x17x26x19", "1x17x19", "1x10x26x19", "1:10:17:26:19"):
        game = only(fen + written + " *")
        assert texts(game) == ["1x10x17x26x19"], written
    game = only(fen + "1x24x19 *")
    assert game.error is not None
    assert game.error.reason == "no capture route of the black king on 1 passes through 1-24-19"


def test_square_off_the_board() -> None:
    game = only("1. 11-15 23-33 *")
    assert game.error is not None
    assert (game.error.ply, game.error.move) == (2, "23-33")
    assert game.error.reason == "square 33 is not on the board (1-32)"


# -- ambiguous short captures -------------------------------------------------------------

# Black's man on 2 can take 6 and 14 (2x9x18) or 7 and 15 (2x11x18): "2x18" fits both.
DIAMOND = '[FEN "B:W6,7,14,15:B2"]\n'


def test_an_ambiguous_capture_is_resolved_by_the_next_move() -> None:
    game = only(DIAMOND + "1. 2x18 14-9 *")  # only 2x11x18 leaves a man on 14
    assert texts(game) == ["2x11x18", "14-9"] and game.error is None
    game = only(DIAMOND + "1. 2x18 7-2 2. 18-23 15-10 *")  # 7 remains only after 2x9x18
    assert texts(game) == ["2x9x18", "7-2", "18-23", "15-10"] and game.error is None


def test_an_ambiguous_capture_at_the_end_of_a_game_is_reported() -> None:
    game = only(DIAMOND + "1. 2x18 1-0")
    assert game.error is not None
    assert (game.error.ply, game.error.move) == (1, "2x18")
    assert game.error.reason == ("ambiguous: 2x18 fits 2x9x18, 2x11x18; the rest of the game replays after each route")
    assert game.moves == []


def test_an_ambiguous_capture_followed_by_a_move_neither_route_allows() -> None:
    game = only(DIAMOND + "1. 2x18 10-6 *")
    assert game.error is not None and game.error.ply == 1
    assert game.error.reason.endswith("the next move replays after neither route")


def test_the_longer_replay_wins_even_when_the_game_fails_later() -> None:
    # After 2x9x18 the men on 7 and 15 remain: 7-2 replays, then 30-26 fails (no piece).
    game = only(DIAMOND + "1. 2x18 7-2 2. 18-23 30-26 *")
    assert texts(game) == ["2x9x18", "7-2", "18-23"]
    assert game.error is not None and (game.error.ply, game.error.move) == (4, "30-26")
    assert game.error.reason == "no piece on 30"


# After 2x9x18 White's 30x14 is ambiguous too (30x21x14 or 30x23x14); after 2x11x18 White
# can only play 30x21 or 30x23.
NESTED = '[FEN "B:W6,7,14,15,28,30:B2,4,17,25,26"]\n'


@pytest.mark.parametrize(
    ("written", "replayed"),
    [
        ("2x18 30x14 26-31", ["2x9x18", "30x21x14", "26-31"]),  # 26 survives 30x21x14 only
        ("2x18 30x14 17-22", ["2x9x18", "30x23x14", "17-22"]),  # 17 survives 30x23x14 only
        ("2x18 30x21", ["2x11x18", "30x21"]),
    ],
)
def test_nested_ambiguous_captures_are_resolved_together(written: str, replayed: list[str]) -> None:
    game = only(NESTED + written + " *")
    assert texts(game) == replayed and game.error is None


def test_a_nested_ambiguity_left_open_is_reported_where_it_stays_open() -> None:
    game = only(NESTED + "2x18 30x14 *")
    assert texts(game) == ["2x9x18"]
    assert game.error is not None and (game.error.ply, game.error.move) == (2, "30x14")
    assert "fits 30x21x14, 30x23x14" in game.error.reason


def test_routes_that_lead_to_the_same_position_are_not_ambiguous() -> None:
    # The king on 2 takes all four men round the loop either way: one position after.
    pos = Position.from_fen("B:W6,7,14,15:BK2")
    assert len(pos.legal_moves(WCDF)) == 2
    assert len(candidates(pos, (2, 2), WCDF)) == 1
    game = only('[FEN "B:W6,7,14,15:BK2"]\n1. 2x2 1-0')
    assert game.error is None and game.moves[0].captured_mask.bit_count() == 4
    assert game.game().result is not None and game.game().result.reason == "no-moves"


def test_replay_function() -> None:
    moves, failed = replay(START, ["11-15", "22-18", "15x22", "25x18", "9-13"], WCDF)
    assert len(moves) == 5 and failed is None
    moves, failed = replay(START, ["11-15", "22-18", "9-13"], WCDF)
    assert len(moves) == 2 and failed == (2, "a capture is compulsory: 15x22")


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "squares", "reason"),
    [
        ("B:W21-32:B1-12", (13, 17), "no piece on 13"),
        ("B:W21-32:B1-12", (22, 18), "the piece on 22 is white's, but black is to move"),
        ("B:W21-32:B1-12", (1, 5), "the black man on 1 cannot move"),
        ("B:W21-32:B1-12", (9, 18), "the black man on 9 cannot go to 18; it can play 9-13, 9-14"),
        ("B:W18:B15,9", (9, 13), "a capture is compulsory: 15x22"),
        ("W:W18,K1:B15,9", (1, 5), "a capture is compulsory: 18x11"),
        ("W:W32:B28,K27,23", (32, 28), "white has no legal move: the game is already over"),
    ],
)
def test_illegal_moves_are_explained(fen: str, squares: tuple[int, ...], reason: str) -> None:
    assert explain_illegal(Position.from_fen(fen), squares, WCDF) == reason


def test_with_captures_optional_a_plain_move_is_allowed() -> None:
    text = '[FEN "B:W18:B15,9"]\n1. 9-13 *'
    assert only(text).error is not None
    game = only(text, rules=Rules(captures_compulsory=False))
    assert game.error is None and texts(game) == ["9-13"]


def test_error_names_file_line_game_ply_and_move() -> None:
    text = '[Event "a"]\n1. 11-15 23-18 *\n\n[Event "b"]\n1. 11-15 23-18\n2. 8-11 32-28 *\n'
    games = list(read_games(text, "games.pdn"))
    assert games[0].error is None
    error = games[1].error
    assert isinstance(error, PdnError) and isinstance(error, ValueError)
    assert (error.file, error.game, error.ply, error.move, error.line) == ("games.pdn", 2, 4, "32-28", 6)
    assert error.reason == "the white man on 32 cannot move"
    assert str(error) == "games.pdn:6: game 2, ply 4, 32-28: the white man on 32 cannot move"
    assert texts(games[1]) == ["11-15", "23-18", "8-11"]
    assert games[1].move_texts == ["11-15", "23-18", "8-11"]


def test_garbage_among_the_moves_is_reported_at_its_ply() -> None:
    games = list(read_games('1. 11-15 hello 23-18 *\n[Event "ok"]\n1. 9-14 *', "g.pdn"))
    assert str(games[0].error) == "g.pdn:1: game 1, ply 2, hello: unexpected text 'hello' among the moves"
    # the moves before the garbage are kept, the game is not replayed past it
    assert texts(games[0]) == ["11-15"]
    assert games[1].error is None


def test_an_earlier_illegal_move_is_reported_before_later_garbage() -> None:
    game = only("1. 11-15 22-17 2. 13-17 hello *")
    assert game.error is not None and (game.error.ply, game.error.move) == (3, "13-17")
    assert game.error.reason == "no piece on 13"


def test_a_bad_tag_is_reported_but_the_moves_are_kept() -> None:
    games = list(read_games('[Event "a"]\n[Black Ann]\n1. 11-15 *\n[Event "b"]\n1. 9-14 *', "b.pdn"))
    assert len(games) == 2
    error = games[0].error
    assert error is not None and error.ply is None and error.line == 2
    assert str(error) == ("b.pdn:2: game 1: bad tag '[Black Ann]': a tag is written [Name \"value\"]")
    assert texts(games[0]) == ["11-15"]
    assert games[1].error is None


def test_an_unclosed_comment_ends_at_the_next_tag_line() -> None:
    text = '[Event "a"]\n1. 11-15 {oops 23-18\n2. 8-11 *\n\n[Event "b"]\n1. 9-14 {fine} *\n'
    games = list(read_games(text, "c.pdn"))
    assert len(games) == 2
    assert games[0].error is not None and games[0].error.line == 2
    assert games[0].error.reason == "a comment opened with { is never closed"
    assert games[1].error is None and games[1].comments == {1: ["fine"]}


def test_a_truncated_file_reports_its_last_game() -> None:
    games = list(read_games('[Event "a"]\n1. 11-15 23-18 *\n[Event "b"]\n1. 11-15 23-1', "t.pdn"))
    assert games[0].error is None
    assert games[1].error is not None and games[1].error.reason.startswith("the white man on 23")
    games = list(read_games('[Event "a"]\n1. 11-15 *\n[Event "b', "t.pdn"))
    assert len(games) == 2 and games[1].error is not None and "bad tag" in games[1].error.reason


def test_bad_fen_setup_without_fen_and_other_game_types() -> None:
    games = list(
        read_games(
            '[FEN "B:W21-32:B1-12:X"]\n1. 11-15 *\n'
            '[Event "2"]\n[SetUp "1"]\n1. 11-15 *\n'
            '[Event "3"]\n[GameType "20"]\n1. 32-28 *\n'
            '[GameType "21"]\n1. 11-15 *\n',
            "f.pdn",
        )
    )
    assert [g.error.reason if g.error else None for g in games] == [
        "FEN 'B:W21-32:B1-12:X': 'X' should start with B or W",
        "SetUp is 1 but there is no FEN tag",
        "GameType 20 is not a game this board plays; it plays 21 (english), 23 (pool), 25 (russian)",
        None,
    ]
    assert [g.error.line for g in games[:3]] == [1, 4, 7]
    assert str(games[0].error) == "f.pdn:1: game 1: FEN 'B:W21-32:B1-12:X': 'X' should start with B or W"


# -- to a Game ----------------------------------------------------------------------------


def test_game_declares_a_recorded_result_the_board_cannot_see() -> None:
    pdn = only("1. 11-15 23-18 2. 8-11 0-1")
    game = pdn.game()
    assert isinstance(game, Game) and game.moves == pdn.moves
    assert game.result is not None and (game.result.score, game.result.reason) == ("0-1", "recorded")
    assert pdn.positions == game.positions


def test_game_keeps_the_board_result_and_declares_nothing_for_an_unfinished_game() -> None:
    # Black takes White's last piece: the board's own result, not a recorded one.
    pdn = only('[FEN "B:W18:B15"]\n1. 15x22 1-0')
    result = pdn.game().result
    assert result is not None and (result.score, result.reason) == ("1-0", "no-moves")
    assert only("1. 11-15 *").game().result is None
    broken = only("1. 11-15 32-28 1-0")
    assert broken.game().result is None and broken.game().ply == 1


def test_a_tag_with_unescaped_quotes_is_read_when_it_fills_its_line() -> None:
    game = only('[Event "The "Big" one"]\n[Site "x"]\n1. 11-15 *')
    assert game.tags == {"Event": 'The "Big" one', "Site": "x"} and game.error is None
    # followed by moves on the same line it cannot be told apart: reported, moves kept
    game = only('[Event "The "Big" one"] 1. 11-15 *')
    assert game.error is not None and game.error.reason.startswith("bad tag")
    assert texts(game) == ["11-15"]


def test_the_look_ahead_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import crownhead.rules.pdn  # noqa: F401 - loads rules.pdn
    from crownhead import rules

    monkeypatch.setattr(rules.pdn, "LOOKAHEAD_BUDGET", 1)
    assert texts(only(DIAMOND + "1. 2x18 14-9 *")) == ["2x11x18", "14-9"]
    monkeypatch.setattr(rules.pdn, "LOOKAHEAD_BUDGET", 0)  # no look-ahead: undecided
    game = only(DIAMOND + "1. 2x18 14-9 *")
    assert game.error is not None
    assert game.error.reason == ("ambiguous: 2x18 fits 2x9x18, 2x11x18; the look-ahead stopped after 0 plies")


PIECES_OF_PDN = [
    '[Event "e"]',
    '[FEN "B:W21-32:B1-12"]',
    '[FEN "W:W1"]',
    "[Bad tag",
    "{",
    "}",
    "(",
    ")",
    "1.",
    "2...",
    "11-15",
    "23x18",
    "15x22",
    "9:14",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "$3",
    "!?",
    "\n",
    " ",
    "\r\n",
    ";c\n",
    "%x\n",
    "x",
    "0-1[Event",
    "33-1",
    "\ufeff",
    "ü",
    '"',
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(PIECES_OF_PDN), max_size=40), st.text(max_size=20))
def test_any_text_is_read_without_raising(pieces: list[str], noise: str) -> None:
    text = " ".join(pieces) + noise
    for game in read_games(text, "fuzz.pdn"):
        assert game.number >= 1
        if game.error is not None:
            assert str(game.error).startswith("fuzz.pdn")
        # whatever was read replays and writes back
        assert game.positions[-1] == game.game().position
        assert read_game(game.pdn()) is not None
