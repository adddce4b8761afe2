"""Pieces put back after the takeback button (issue 50, "Never a wrong state at the seams").

What testers met with two moves taken back: put back last move first, the board warned
"11-15 takes no piece; put the piece on 22 back" while the man from 18 was in the hand (a
piece soon stood on 22), and across a capture with crowning "22x31 takes the piece on 26,
not the one on 9; put it back"; put back first move first, it said "11-18 is not a legal
move; put the man back on 11" and then "put a piece on 15; take the piece off 11": it
asked for the move just taken back to be made again. A board part-way back is now read
against the positions on the way back (the game's, the ones taken back): guided, never
warned about, never read as a move.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import BoardWarning, MoveMade, TakenBack
from crownhead.firmware.tracking.tracker import Tracker, TrackerSettings
from crownhead.rules import WCDF, Game, Move, Position, Rules
from crownhead.rules.variants import GIVEAWAY, POOL, RUSSIAN
from crownhead.squares import bit, iter_squares
from helpers.games import random_game
from helpers.rig import MakeRig, Rig, machine_rig

RULES: dict[str, Rules] = {"english": WCDF, "russian": RUSSIAN, "pool": POOL, "giveaway": GIVEAWAY}
#: Two opening plies in each rule set (White begins the Russian game).
OPENING: dict[str, tuple[str, str]] = {
    "english": ("11-15", "22-18"),
    "russian": ("22-18", "11-15"),
    "pool": ("11-15", "22-18"),
    "giveaway": ("11-15", "22-18"),
}
#: Black's man captures 26 and is crowned on 31; White answers 9-5.
CROWNING = Position.from_fen("B:W26,9:B22")
#: Long enough for any warning about a board to be due (settle and patience).
WAIT = 3000


def played(make_rig: MakeRig, rules: Rules, start: Position | None, moves: list[str]) -> Rig:
    """A rig on ``rules`` from ``start`` with ``moves`` made by hand (a man crowned by hand
    as the board asks), then both plies taken back with the button."""
    rig = make_rig(board=start, settings=AppSettings(rules=rules, start=start))
    for text in moves:
        rig.do(text)
        if rig.app.tracker.crowned is not None:
            rig.do("f")  # the king put on the man just crowned
    assert rig.moves() == moves
    rig.do("t", wait=500)
    rig.do("t", wait=500)
    assert rig.game.ply == len(moves) - 2 and not rig.of_kind("warning")
    return rig


def put_back(rig: Rig, steps: list[tuple[str, int]]) -> list[str]:
    """Lift and place pieces as ``steps`` say, each standing long enough for a warning;
    the view's prompt after each step."""
    prompts = []
    for verb, square in steps:
        rig.script(f"{verb} {square}\nwait {WAIT}")
        prompts.append(rig.app.view().prompt)
    return prompts


def undo_steps(text: str) -> list[tuple[str, int]]:
    """The hands taking ``text`` (a plain move) back: the piece lifted and put back."""
    start, end = map(int, text.split("-"))
    return [("lift", end), ("place", start)]


def assert_put_back_quietly(rig: Rig, moves: list[str]) -> None:
    """No warning, no move read, no more takebacks; the game and board as they were
    before ``moves``."""
    assert rig.of_kind("warning") == []
    assert rig.moves() == moves and [e["ply"] for e in rig.of_kind("takeback")] == [len(moves), len(moves) - 1]
    assert rig.app.tracker.board_matches and rig.game.ply == len(moves) - 2
    assert rig.app.view().prompt == "" or "Take back" not in rig.app.view().prompt


@pytest.mark.parametrize("name", list(RULES))
def test_two_moves_put_back_last_move_first_warn_nothing(make_rig: MakeRig, name: str) -> None:
    first, second = OPENING[name]
    rig = played(make_rig, RULES[name], None, [first, second])
    prompts = put_back(rig, undo_steps(second) + undo_steps(first))
    assert_put_back_quietly(rig, [first, second])
    # Once the later move stands put back, the guidance names only the earlier one.
    start, end = first.split("-")
    assert prompts[1] == f"Take back {first} {second}: put the man on {end} back on {start} (f does it)."


@pytest.mark.parametrize("name", list(RULES))
def test_two_moves_put_back_first_move_first_ask_for_no_move_again(make_rig: MakeRig, name: str) -> None:
    first, second = OPENING[name]
    rig = played(make_rig, RULES[name], None, [first, second])
    prompts = put_back(rig, undo_steps(first) + undo_steps(second))
    assert_put_back_quietly(rig, [first, second])
    # The earlier move stands put back: the guidance names only the later one.
    start, end = second.split("-")
    assert prompts[1] == f"Take back {first} {second}: put the man on {end} back on {start} (f does it)."


@pytest.mark.parametrize("name", list(RULES))
def test_a_capture_with_crowning_taken_back_with_its_answer_warns_nothing(make_rig: MakeRig, name: str) -> None:
    rig = played(make_rig, RULES[name], CROWNING, ["22x31", "9-5"])
    # The answer first, then the king off 31, the man on 22 and the captured man on 26.
    put_back(rig, [("lift", 5), ("place", 9), ("lift", 31), ("place", 22), ("place", 26)])
    assert_put_back_quietly(rig, ["22x31", "9-5"])
    assert rig.app.view().pieces == {22: "b", 26: "w", 9: "w"}


@pytest.mark.parametrize("name", list(RULES))
def test_a_capture_with_crowning_put_back_first_move_first(make_rig: MakeRig, name: str) -> None:
    rig = played(make_rig, RULES[name], CROWNING, ["22x31", "9-5"])
    prompts = put_back(rig, [("place", 26), ("lift", 31), ("place", 22), ("lift", 5), ("place", 9)])
    assert_put_back_quietly(rig, ["22x31", "9-5"])
    # The words follow the board: the captured man back is not asked for again, the king
    # goes back as a man, and once the capture stands put back only the answer is named.
    assert prompts[:3] == [
        "Take back 22x31 9-5: put the man on 5 back on 9; then the piece crowned on 31 back on 22 as a man (f does it).",
        "Take back 22x31 9-5: put the man on 5 back on 9; then the piece crowned on 31 back on 22 as a man (f does it).",
        "Take back 22x31 9-5: put the man on 5 back on 9 (f does it).",
    ]


def test_the_computers_answer_and_the_persons_move_put_back_in_either_order(tmp_path: Path) -> None:
    # In a game against the computer one press takes back two plies: the person's move too.
    for order in ("first move first", "last move first"):
        rig = machine_rig(tmp_path / order.replace(" ", "-"))
        try:
            rig.do("11-15")
            rig.do("f")  # the machine's answer, made by hand as the lights ask
            answer = rig.moves()[1]
            rig.do("t", wait=500)
            steps = [undo_steps("11-15"), undo_steps(answer)]
            put_back(rig, steps[0] + steps[1] if order == "first move first" else steps[1] + steps[0])
            assert_put_back_quietly(rig, ["11-15", answer])
            assert rig.app.tracker.expected is None and len(rig.of_kind("computer-move")) == 1
        finally:
            rig.close()


# -- every order, in every rule set (the tracker alone) ---------------------------------------


def orders(shown: int, target: int) -> Iterator[list[tuple[bool, int]]]:
    """Every order of putting ``shown`` right into ``target`` a square at a time (a piece
    lifted, or put down from the hand or from beside the board): (put down, square)."""
    changes = [(bool(target & bit(s)), s) for s in iter_squares(shown ^ target)]
    for order in permutations(changes):
        yield list(order)


def games_to_take_back(rules: Rules, plies: int) -> Iterator[Game]:
    """Games of ``plies`` plies or more, to take that many back: the opening, a crowning
    capture and its answer, and a few random games (captures, kings, flying kings); each
    with five squares to put right or fewer (120 orders at most)."""
    opening = Game(None, rules)
    for _ in range(plies):
        opening.play(opening.legal_moves()[0])
    crowning = Game(CROWNING, rules)
    for text in ("22x31", "9-5", "31-27")[: max(plies, 2)]:
        crowning.play(crowning.position.parse_move(text, rules))
    games = [opening, crowning] + [random_game(seed, plies=40, rules=rules) for seed in range(3)]
    for game in games:
        if game.ply >= plies and (game.positions[-1 - plies].occupied ^ game.position.occupied).bit_count() <= 5:
            yield game


def replayed(game: Game) -> Game:
    """A game of its own with the moves of ``game``."""
    again = Game(game.start, game.rules)
    for move in game.moves:
        again.play(move)
    return again


@pytest.mark.parametrize("plies", [1, 2, 3])
@pytest.mark.parametrize("name", list(RULES))
def test_every_order_of_putting_back_warns_nothing_and_reads_no_move(name: str, plies: int) -> None:
    rules = RULES[name]
    checked = 0
    for game in games_to_take_back(rules, plies):
        moves: list[Move] = list(game.moves)
        shown, target = game.position.occupied, game.positions[-1 - plies].occupied
        for order in orders(shown, target):
            tracker = Tracker(replayed(game), TrackerSettings())
            now = 0
            taken = [e.kind for _ in range(plies) for e in tracker.take_back(now)]
            assert taken == ["takeback"] * plies
            board, events = shown, []
            for put, square in order:
                now += WAIT
                board = board | bit(square) if put else board & ~bit(square)
                events += tracker.update(board, now) + tracker.tick(now + WAIT - 1)
                if board != target:
                    # Guidance only: what to fill and to empty (and the kings standing).
                    assert set(tracker.roles.values()) <= {"missing", "extra", "king"}, (order, tracker.roles)
            said = [e for e in events if isinstance(e, (BoardWarning, MoveMade, TakenBack))]
            assert said == [], (name, [m.pdn() for m in moves], order, said)
            assert tracker.game.moves == moves[:-plies] and tracker.board_matches
            checked += 1
    assert checked >= 6


def on_the_way(board: int, boards: list[int]) -> bool:
    """Whether each square of ``board`` stands as on one of ``boards``."""
    anywhere = everywhere = boards[0]
    for other in boards[1:]:
        anywhere, everywhere = anywhere | other, everywhere & other
    return not board & ~anywhere and not everywhere & ~board


@pytest.mark.parametrize("name", list(RULES))
def test_a_second_press_while_pieces_go_back_keeps_the_way_back(name: str) -> None:
    # One ply taken back and its pieces part-way back, then the press for the ply before:
    # what was on the way back for the first press stays on the way back for both.
    rules = RULES[name]
    checked = 0
    for game in list(games_to_take_back(rules, 2))[:2]:  # the opening and the crowning
        shown, middle, target = (game.positions[i].occupied for i in (-1, -2, -3))
        for order in orders(shown, target):
            boards = [shown]
            for put, square in order:
                boards.append(boards[-1] | bit(square) if put else boards[-1] & ~bit(square))
            # The second press after `press` steps, while the board is on the way back of the first.
            for press in range(len(order)):
                if not on_the_way(boards[press], [shown, middle]):
                    break
                tracker = Tracker(replayed(game), TrackerSettings())
                now, events = 0, tracker.take_back(0)
                for step, board in enumerate(boards[1:]):
                    if step == press:
                        events += tracker.take_back(now)
                    now += WAIT
                    events += tracker.update(board, now) + tracker.tick(now + WAIT - 1)
                said = [e for e in events if isinstance(e, (BoardWarning, MoveMade))]
                assert said == [], (name, order, press, said)
                assert [e.kind for e in events].count("takeback") == 2, (order, press)
                assert tracker.game.moves == game.moves[:-2] and tracker.board_matches, (order, press)
                checked += 1
    assert checked >= 24
