"""Where the parts meet: an illegal move that stood, through the game, the PDN writer, the
store and a power cut; a side whose moves are made elsewhere (a computer, the other end of
the link), held by the tracker, the referee and the application.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.players import Computer, Human, Thinker
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.storage.store import GameRecord, GameStore, StoreError, pdn_text
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.tracker import Tracker
from crownhead.rules import WCDF, BLACK, WHITE, Game, Move, Position
from crownhead.rules.game import GameOverError
from crownhead.rules.pdn import CONDONED_NOTE, read_game, write_game
from crownhead.squares import bit
from helpers.rig import PAL, Rig

# Black's man on 14 moves backward to 10 (illegal); White answers 30-26.
STOOD = Position.from_fen("B:W30:B14,9")
STOOD_SCRIPT = "lift 14\nwait 200\nplace 10\nwait 1000\nlift 30\nwait 200\nplace 26\nwait 1000\n"


# -- Game.condone ----------------------------------------------------------------------------


def test_condone_goes_on_from_the_board_and_keeps_the_counts() -> None:
    game = Game(Position.from_fen("B:WK32:BK5,9"), WCDF)
    game.play_text("9-13")
    game.play_text("32-27")
    assert game.quiet_plies == 1
    # A king goes two squares without a capture: illegal, and it stands. A king's move is
    # no progress for the forty-move rule, whether legal or not.
    after = game.condone(Move((5, 14)))
    assert after == game.position == Position.from_fen("W:WK27:B13,K14")
    assert game.condoned == {3} and game.ply == 3 and game.quiet_plies == 2
    assert game.repetitions() == 1 and game.history[-1] == Move((5, 14))
    # A man moving backward is progress (a man moved), however illegal.
    game.play_text("27-24")
    assert game.quiet_plies == 3
    game.condone(Move((13, 9)))
    assert game.condoned == {3, 5} and game.quiet_plies == 0
    assert game.position == Position.from_fen("W:WK24:B9,K14")
    # Undo takes condoned moves back like any other, and forgets them.
    game.undo()
    assert game.condoned == {3} and game.position == Position.from_fen("B:WK24:B13,K14")
    assert game.quiet_plies == 3
    game.undo()
    game.undo()
    assert not game.condoned and game.position == Position.from_fen("B:WK27:BK5,13")
    assert game.repetitions() == 1 and game.quiet_plies == 1


def test_condoned_moves_count_for_repetition() -> None:
    game = Game(Position.from_fen("B:WK32:BK1"), WCDF)
    # The king hops 1 -> 10 -> 1 (illegal: no capture), White's king shuffles 32-27-32.
    for _ in range(2):
        game.condone(Move((1, 10)))
        game.play_text("32-27")
        game.condone(Move((10, 1)))
        game.play_text("27-32")
    assert game.repetitions() == 3 and game.condoned == {1, 3, 5, 7}
    # Counted, but no claim: neither king's legal moves (1-5, 1-6) would repeat a position.
    assert game.repeating_moves() == [] and game.draw_claim() is None
    game.condone(Move((1, 10)))  # the hop again: 27-32 would now repeat a third time
    assert game.repeating_moves() == [Move((32, 27))] and game.draw_claim() == "repetition"


def test_condone_crowns_and_captures_what_the_board_shows() -> None:
    game = Game(Position.from_fen("B:W27,19:B22"), WCDF)
    game.condone(Move((22, 31), (27,)))  # a capture that jumps nothing between: illegal
    assert game.position == Position.from_fen("W:W19:BK31")
    assert game.history == [Move((22, 31), (27,))]


@pytest.mark.parametrize(
    "fen, move, words",
    [
        ("B:W30:B14,9", Move((15, 10)), "there is no black piece on 15"),
        ("B:W30:B14,9", Move((30, 25)), "there is no black piece on 30"),
        ("B:W30:B14,9", Move((14, 9)), "square 9 is occupied"),
        ("B:W30:B14,9", Move((14, 10), (29,)), "no white piece on 29 to capture"),
        ("B:W30:B14,9", Move((14, 10), (30, 30)), "captured twice"),
        ("B:W30:B14,9", Move((14, 18)), "14-18 is a legal move"),
        ("B:W30:B14,9", Move((14, 40)), "squares 1-32"),
    ],
)
def test_condone_refuses_what_no_board_shows_and_legal_moves(fen: str, move: Move, words: str) -> None:
    game = Game(Position.from_fen(fen), WCDF)
    with pytest.raises(ValueError, match=words):
        game.condone(move)
    assert game.ply == 0 and not game.condoned and game.position == Position.from_fen(fen)


def test_condone_after_the_game_is_refused() -> None:
    game = Game(Position.from_fen("B:W30:B14,9"), WCDF)
    game.resign()
    with pytest.raises(GameOverError):
        game.condone(Move((14, 10)))


# -- the PDN writer --------------------------------------------------------------------------


def _stood_game() -> Game:
    game = Game(STOOD, WCDF)
    game.condone(Move((14, 10)))
    game.play_text("30-26")
    return game


def test_write_game_marks_a_condoned_move_and_a_reader_stops_there() -> None:
    text = write_game(_stood_game())
    assert "1. 14-10 {" + CONDONED_NOTE + "} 1... 30-26 *" in " ".join(text.split())
    read = read_game(text)
    assert read.error is not None and read.error.ply == 1 and read.error.move == "14-10"


def test_write_game_leaves_the_mark_to_a_note_that_cites_the_rule() -> None:
    note = "illegal move by black (backward-man); it stands (WCDF 1.26)"
    text = " ".join(write_game(_stood_game(), comments={1: ["[%clk 0:05:00]", note]}).split())
    assert CONDONED_NOTE not in text and "{[%clk 0:05:00]} {" + note + "}" in text
    # A comment at that ply that does not cite the rule gets the mark beside it.
    text = " ".join(write_game(_stood_game(), comments={1: "well played"}).split())
    assert "14-10 {" + CONDONED_NOTE + "} {well played}" in text


# -- the store -------------------------------------------------------------------------------


def test_a_record_keeps_condoned_moves_and_replays_them(tmp_path: Path) -> None:
    game = Game(Position.from_fen("B:W27,30:B9,14,18"), WCDF)
    game.condone(Move((14, 10)))
    game.play_text("27-23")
    game.condone(Move((18, 22), (23,)))  # "jumps" 23 to a square beside it
    store = GameStore(tmp_path)
    store.save_current(GameRecord.new(start=game.start, rules=WCDF).with_game(game))
    data = json.loads(store.current_path.read_text())
    assert data["condoned"] == [{"ply": 1, "captures": []}, {"ply": 3, "captures": [23]}]
    again = store.load_current().to_game()  # type: ignore[union-attr]
    assert again.moves == game.moves and again.condoned == {1, 3} and again.position == game.position
    text = " ".join(pdn_text(store.load_current().abandoned()).split())  # type: ignore[union-attr]
    assert f"1. 14-10 {{{CONDONED_NOTE}}} 1... 27-23 2. 18x22 {{{CONDONED_NOTE}}} *" in text


def test_a_record_without_condoned_moves_reads_as_before(tmp_path: Path) -> None:
    record = GameRecord.new(rules=WCDF).with_game(Game(None, WCDF))
    data = json.loads(record.to_json())
    del data["condoned"]  # written before the field existed
    assert GameRecord.from_json(json.dumps(data)).condoned == ()


@pytest.mark.parametrize(
    "condoned, words",
    [
        ({"ply": 1}, "'condoned' must be a list"),
        ([{"ply": 0, "captures": []}], "'condoned' must be a list"),
        ([{"ply": 1, "captures": [33]}], "captures must be squares 1-32"),
        ([{"ply": 1, "captures": []}, {"ply": 5, "captures": []}], "'condoned' names ply 5, but the game has 2 moves"),
        (
            [{"ply": 1, "captures": []}, {"ply": 2, "captures": []}],
            "move 2 \\(30-26\\) does not replay: 30-26 is a legal move",
        ),
        ([], "move 1 \\(14-10\\) does not replay"),
    ],
)
def test_a_bad_condoned_entry_names_the_problem(tmp_path: Path, condoned: Any, words: str) -> None:
    store = GameStore(tmp_path)
    data = json.loads(GameRecord.new(start=STOOD, rules=WCDF).with_game(_stood_game()).to_json())
    data["condoned"] = condoned
    store.current_path.parent.mkdir(parents=True, exist_ok=True)
    store.current_path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match=words):
        store.load_current()


def stood_board(tmp: Path, *, keep: bool = False) -> Rig:
    """The application in referee mode (record style) from ``STOOD``; ``keep``: after a power cut."""
    return Rig(
        tmp / "state",
        board=None if keep else STOOD,
        settings=AppSettings(mode="referee", start=STOOD, sim_keep_game=keep),
        referee=RefereeSettings(style="record", record_dir=str(tmp / "record")),
    )


def test_a_game_with_an_illegal_move_that_stood_survives_a_power_cut(tmp_path: Path) -> None:
    board = stood_board(tmp_path)
    board.script(STOOD_SCRIPT)
    assert [c["move"] for c in board.of_kind("condoned")] == ["14-10"]
    assert board.app.game.condoned == {1} and board.app.game.ply == 2
    board.app.close()  # the power goes

    again = stood_board(tmp_path, keep=True)
    start = again.of_kind("game-start")[-1]
    assert start["resumed"] is True and start["ply"] == 2  # not set aside as unreadable
    assert not list((tmp_path / "state").glob("current-*.bad"))
    game = again.app.game
    assert [m.pdn() for m in game.moves] == ["14-10", "30-26"] and game.condoned == {1}
    assert game.position == Position.from_fen("B:W26:B9,10")
    # The referee goes on with the same game, and the record says both things.
    assert again.referee is not None
    pdn = " ".join(again.referee.pdn(again.app.session).split())
    assert "it stands, white answered without objection (WCDF 1.26)" in pdn and "game resumed" in pdn
    again.do("10-15")
    assert [m.pdn() for m in again.app.game.moves] == ["14-10", "30-26", "10-15"]
    again.app.close()
    saved = GameStore(tmp_path / "state").load_current()
    assert saved is not None and saved.condoned == ((1, ()),) and saved.moves == ("14-10", "30-26", "10-15")


# -- a side held: its moves are made elsewhere -----------------------------------------------


def test_a_held_side_moves_only_as_shown() -> None:
    tracker = Tracker(Game(None, WCDF))
    tracker.session.hold(WHITE, "the engine")  # the session's: the tracker reads it
    assert tracker.held == {WHITE: "the engine"}
    board = tracker.position.occupied
    tracker.update(board & ~bit(11) | bit(15), 0)
    assert [e.kind for e in tracker.tick(300)] == ["move"]
    board = tracker.position.occupied
    # A hand lifts White's man: no touch (touch-move is the player's, and it plays elsewhere).
    tracker.update(board & ~bit(22), 400)
    assert tracker.touched is None and tracker.roles.get(22) == "missing"
    (warning,) = tracker.tick(700)
    assert warning.code == "out-of-sync"
    assert warning.message == "white's moves come from the engine: wait until the board shows one; put a piece on 22"
    tracker.update(board, 800)
    assert tracker.warning is None and tracker.game.ply == 1
    # The move shown is accepted, and no other.
    tracker.expect(Move((22, 18)))
    tracker.update(board & ~bit(22) | bit(18), 900)
    assert [e.kind for e in tracker.tick(1200)] == ["move"]
    tracker.session.release(WHITE)
    assert tracker.held == {}


def test_a_held_sides_move_is_not_corrected_but_may_be_taken_back() -> None:
    tracker = Tracker(Game(None, WCDF))
    tracker.session.hold(BLACK, "the host")
    tracker.expect(Move((11, 15)))
    start = tracker.position.occupied
    tracker.update(start & ~bit(11) | bit(15), 0)
    tracker.tick(300)
    assert tracker.game.ply == 1
    # Redoing that move as 11-16 (a correction in casual play) is not the hands' to do.
    tracker.update(start & ~bit(11) | bit(16), 400)
    tracker.tick(2000)
    assert tracker.game.moves == [Move((11, 15))] and tracker.warning is not None
    # The position before it restored: taken back as in casual play.
    tracker.update(start, 2100)
    assert [e.kind for e in tracker.tick(2400)] == ["takeback"]


def test_a_strict_referee_does_not_judge_a_held_side_here() -> None:
    referee = Referee(RefereeSettings())
    follower = Follower(Tracker(Game(None, WCDF), mode="referee"), referee)
    follower.begin(0)
    follower.session.hold(WHITE, "the other end of the link")
    board = follower.game.position.occupied
    follower.update(board & ~bit(11) | bit(15), 100)
    follower.tick(400)
    board = follower.game.position.occupied
    events = follower.update(board & ~bit(30), 500)  # White's 30 cannot move: an offence, at a board
    events += follower.tick(900)
    assert referee.cautions(WHITE) == 0 and not [e for e in events if e.kind in ("caution", "forfeit")]
    follower.update(board, 1000)
    # Black's pieces moved while White is to move are Black's offence, held side or not.
    events = follower.update(board & ~bit(15) | bit(19), 1100) + follower.tick(1500)
    assert [e.kind for e in events if e.kind == "caution"] == ["caution"] and referee.cautions(BLACK) == 1


def test_the_machine_side_is_held_while_it_thinks(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(position: Position, game: Game) -> Move:
        release.wait(120)  # the test releases it; a bound on a failure only
        return position.legal_moves(WCDF)[0]

    start = Position.from_fen("W:W22,31:B18,1")  # White (the machine) must capture 22x15
    players = {BLACK: Human("Ann"), WHITE: Computer(slow, "Slow engine")}
    rig = Rig(
        tmp_path,
        board=start,
        settings=AppSettings(mode="computer", start=start),
        players=players,
        thinker=Thinker(background=True),
    )
    try:
        assert "thinking" in rig.app.view().prompt
        # No must-capture hint on the machine's pieces: nothing there is a person's to do.
        assert PAL.must_capture not in rig.lit.values()
        rig.do("22x15", wait=400)  # a person makes the machine's capture for it
        assert rig.moves() == [] and rig.app.tracker.game.ply == 0
        assert "Slow engine: wait" in rig.of_kind("warning")[-1]["message"]
        release.set()
        rig.wait_for(lambda: bool(rig.of_kind("computer-move")), "the engine's move")
        assert rig.of_kind("computer-move")[0]["move"] == "22x15"
        # The machine chose the move the board already shows: now it is its move.
        rig.wait(400)
        assert rig.moves() == ["22x15"] and rig.app.tracker.warning is None
    finally:
        release.set()
        rig.close()


def test_referee_names_set_after_a_game_are_the_next_games() -> None:
    referee = Referee(RefereeSettings(black="Ann", white="Bob"))
    referee.set_names("Cy", "Di")  # no game refereed yet: the first game's players
    follower = Follower(Tracker(Game(None, WCDF), mode="referee"), referee)
    follower.begin(0)
    assert referee.names == ("Cy", "Di")
    follower.declare("1-0", "forfeit", 100)
    referee.set_names("Ed", "Flo", follower)  # game 1 is over: these play game 2, as named
    assert referee.names == ("Cy", "Di")  # the record of game 1 keeps its players
    follower.new_game(None, 200)
    assert referee.games == 2 and referee.names == ("Ed", "Flo")
    follower.declare("0-1", "forfeit", 300)
    follower.new_game(None, 400)
    assert referee.names == ("Flo", "Ed")  # colours reversed for game 3
