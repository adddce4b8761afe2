"""Never a wrong state at the seams (issue 50): the seats, the names and the mode belong to
the game's session, and entering or leaving a mode (the computer's side, the problems, a
game tried again, a match game) sets them all at once and gives back what was there.

Each test names the item of the issue it reproduces; each failed before its fix.
"""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.players import Computer, Human
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl, clock_text
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.storage.store import GameFile
from crownhead.firmware.web.bridge import PageHub, WebLink
from crownhead.rules import BLACK, WHITE, Game, Move, Position
from helpers.rig import MakeRig, Rig, second_refereed_game_under_way

ENGINE = "Crownhead engine (level 1)"


def _first_mover(position: Position, game: Game) -> Move:
    return position.legal_moves(game.rules)[0]


def _paged(rig: Rig) -> WebLink:
    """The pages' link on ``rig``'s application (not yet started): ``answer("state", t)``
    is what ``GET /api/state`` returns."""
    link = WebLink(PageHub())
    link.attach(rig.app)
    return link


# -- item 13: the clock on the terminal in every timed game --------------------------------


def test_item13_a_timed_two_player_game_shows_its_clock_on_the_terminal(make_rig: MakeRig) -> None:
    # Before: only the page showed it; the terminal's lines had the names alone.
    rig = make_rig(settings=AppSettings(black_name="Ann", white_name="Bob", clock=TimeControl.parse("300+5")))
    rig.do("11-15")
    state = rig.app.clock_state(rig.clock.now_ms())
    assert state is not None
    view = rig.app.view()
    assert view.black == f"Ann  {clock_text(state.black_ms)}"
    assert view.white == f"Bob  {clock_text(state.white_ms)}"


def test_item13_an_untimed_game_shows_the_names_alone(make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(black_name="Ann", white_name="Bob"))
    rig.do("11-15")
    assert (rig.app.view().black, rig.app.view().white) == ("Ann", "Bob")


# -- item 10: /api/state names the game's players; no hints under a referee ----------------


def test_item10_the_state_reports_no_hints_in_referee_mode(tmp_path: Path) -> None:
    rig = Rig(
        tmp_path,
        settings=AppSettings(mode="referee", start=Position.start()),
        board=Position.start(),
        referee=RefereeSettings(),
        start=False,
    )
    link = _paged(rig)
    try:
        rig.app.start()
        rig.wait(500)
        assert link.answer("state", rig.clock.now_ms())["hints"] is False
        assert link.identity()["hints"] is False
    finally:
        rig.close()


def test_item10_the_state_names_the_second_games_players_after_a_restart(tmp_path: Path) -> None:
    # Game 2 of the pair: Bob has Black. The board is restarted with the names given as
    # the run command gives them (--black Ann --white Bob): they are game 1's colours.
    referee = RefereeSettings(black="Ann", white="Bob")
    second_refereed_game_under_way(tmp_path, referee).close()
    settings = AppSettings(
        mode="referee", sim_keep_game=True, black_name="Ann", white_name="Bob", given=frozenset({"names"})
    )
    again = Rig(tmp_path / "state", settings=settings, referee=referee, start=False)
    link = _paged(again)
    try:
        again.app.start()
        again.wait(2000)
        assert not again.app.resuming and again.game.ply == 2
        state = link.answer("state", again.clock.now_ms())
        assert (state["black"], state["white"]) == ("Bob", "Ann")
        assert (again.app.view().black.split()[0], again.app.view().white.split()[0]) == ("Bob", "Ann")
        assert (again.app.players[BLACK].name, again.app.players[WHITE].name) == ("Bob", "Ann")
    finally:
        again.close()


# -- item 5: the person keeps their name when the computer changes colour -------------------


def _computer_game(make_rig: MakeRig) -> Rig:
    """Computer mode as ``crownhead run --mode computer --black Ann --level 1`` starts it:
    the settings name each side's player, the machine's side under the machine's name."""
    players = {BLACK: Human("Ann"), WHITE: Computer(_first_mover, ENGINE)}
    settings = AppSettings(mode="computer", black_name="Ann", white_name=ENGINE, auto_crown=True)
    return make_rig(settings=settings, players=players)


def test_item5_the_person_keeps_their_name_when_the_computer_switches_sides(make_rig: MakeRig) -> None:
    rig = _computer_game(make_rig)
    rig.wait(500)
    # Switch sides before the first move (the page's and the link's `mode computer black 1`).
    rig.app.set_mode("computer", rig.clock.now_ms(), computer=(BLACK, Computer(_first_mover, ENGINE)))
    rig.wait(100)
    assert (rig.app.players[BLACK].name, rig.app.players[WHITE].name) == (ENGINE, "Ann")
    view = rig.app.view()
    assert (view.black, view.white) == (ENGINE, "Ann") and view.mode_text.startswith("Computer plays Black")
    # The game's record (and so its kept PDN) names them as they play.
    rig.follow()  # the machine's first move, made by hand
    rig.do("hold resign")  # Ann (White, to move) resigns
    assert rig.game.is_over
    assert rig.app.record is not None and (rig.app.record.black, rig.app.record.white) == (ENGINE, "Ann")
    store = rig.store
    assert store is not None
    (kept,) = [GameFile.read(p).tags for p in store.game_files()]
    assert (kept["Black"], kept["White"]) == (ENGINE, "Ann")
    # Back to two people: each colour has the name it had.
    rig.app.set_mode("play", rig.clock.now_ms())
    assert (rig.app.players[BLACK].name, rig.app.players[WHITE].name) == ("?", "Ann")


def test_item5_a_game_tried_again_on_the_other_colour_names_the_person(make_rig: MakeRig) -> None:
    from crownhead.firmware.app.tryagain import Retry, begin

    rig = _computer_game(make_rig)
    rig.wait(500)
    # White to move: the person takes White, the machine Black (the page's Try again).
    position = Position.from_fen("W:W21,22,23:B9,10,11")
    retry = Retry("20261207-101500-1a2b", 5, position, rig.game.rules, 9)
    begin(rig.app, retry, "computer", rig.clock.now_ms(), Computer(_first_mover, "Crownhead engine"))
    rig.wait(100)
    rig.follow()
    assert (rig.app.players[BLACK].name, rig.app.players[WHITE].name) == ("Crownhead engine", "Ann")
    assert rig.app.record is not None and (rig.app.record.black, rig.app.record.white) == ("Crownhead engine", "Ann")


# -- item 8: leaving the problems gives back the mode the player left ------------------------

LEVEL3 = "Crownhead engine (level 3)"


def _before_problems(make_rig: MakeRig) -> tuple[Rig, Computer]:
    """Computer mode, the machine at level 3 on White against Ann; the problem mode made
    at the first question (as the page and the link make it), its defender a random mover."""
    from crownhead.firmware.app.problems import ProblemCoach
    from crownhead.firmware.egdb import load_probe

    machine = Computer(_first_mover, LEVEL3)
    players = {BLACK: Human("Ann"), WHITE: machine}
    rig = make_rig(
        settings=AppSettings(mode="computer", black_name="Ann", auto_crown=True), players=players, start=False
    )
    defender = "Crownhead engine (problems)"
    ProblemCoach(None, load_probe(), defender=lambda: Computer(_first_mover, defender), active=False).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    return rig, machine


def _seats(rig: Rig) -> tuple[str, str, str]:
    return rig.app.mode.name, rig.app.players[BLACK].name, rig.app.players[WHITE].name


def test_item8_the_next_game_after_the_problems_is_the_mode_left(make_rig: MakeRig) -> None:
    rig, machine = _before_problems(make_rig)
    rig.app.start_problem("beginner-1", rig.clock.now_ms())  # White to play: the defender has Black
    rig.wait(100)
    rig.follow()
    assert _seats(rig) == ("computer", "Crownhead engine (problems)", "Ann")
    rig.app.leave_problems(rig.clock.now_ms())
    rig.wait(100)
    # The game on the board stays the problem's ...
    assert _seats(rig) == ("computer", "Crownhead engine (problems)", "Ann")
    # ... and the next one is the game the player left: Ann on Black against level 3.
    rig.do("n")
    assert rig.app.setting_up is not None
    assert _seats(rig) == ("computer", "Ann", LEVEL3) and rig.app.players[WHITE] is machine
    assert (rig.app.view().black, rig.app.view().white) == ("Ann", LEVEL3)
    rig.follow()
    assert rig.app.record is not None and (rig.app.record.black, rig.app.record.white) == ("Ann", LEVEL3)
    assert rig.app.view().mode_text.startswith("Computer plays White")


def test_item8_a_mode_chosen_in_the_problems_is_not_undone(make_rig: MakeRig) -> None:
    rig, _machine = _before_problems(make_rig)
    rig.app.start_problem("beginner-1", rig.clock.now_ms())
    rig.wait(100)
    rig.follow()
    rig.app.set_mode("play", rig.clock.now_ms())  # two people now: the problems are left
    rig.wait(100)
    assert rig.app.problems is not None and not rig.app.problems.active
    rig.do("n")
    assert rig.app.setting_up is not None and _seats(rig)[0] == "play"


def test_item8_the_next_game_after_a_game_tried_again_is_the_mode_left(make_rig: MakeRig) -> None:
    from crownhead.firmware.app.tryagain import Retry, begin

    rig, machine = _before_problems(make_rig)
    # Tried again with a friend from a kept game's position (White to move): two people.
    position = Position.from_fen("W:W21,22,23:B9,10,11")
    begin(rig.app, Retry("20261207-101500-1a2b", 5, position, rig.game.rules, 9), "play", rig.clock.now_ms())
    rig.wait(100)
    rig.follow()
    assert rig.app.mode.name == "play" and rig.app.setting_up is None
    rig.do("22-18")
    # The next game is the one the player left: Ann on Black against level 3, as it was.
    rig.do("n")
    assert rig.app.setting_up is not None
    assert _seats(rig) == ("computer", "Ann", LEVEL3) and rig.app.players[WHITE] is machine
    rig.follow()
    assert rig.app.record is not None and (rig.app.record.black, rig.app.record.white) == ("Ann", LEVEL3)
    assert rig.app.view().mode_text.startswith("Computer plays White")


def test_item8_a_mode_chosen_in_a_game_tried_again_is_not_undone(make_rig: MakeRig) -> None:
    from crownhead.firmware.app.tryagain import Retry, begin

    rig, _machine = _before_problems(make_rig)
    position = Position.from_fen("W:W21,22,23:B9,10,11")
    begin(rig.app, Retry("20261207-101500-1a2b", 5, position, rig.game.rules, 9), "play", rig.clock.now_ms())
    rig.wait(100)
    rig.follow()
    rig.app.set_mode("referee", rig.clock.now_ms())  # chosen before its first move: it stays
    rig.do("n")
    assert rig.app.setting_up is not None and rig.app.mode.name == "referee"


# -- item 6: a new game's set-up shows the game to come, not the one put away ---------------


def _shown(rig: Rig, link: WebLink) -> tuple[tuple[str, str], tuple[str, ...], int, list[str]]:
    """What the terminal and the pages show: the names, the move list, the ply, the view's names."""
    view = rig.app.view()
    body = link.view(rig.clock.now_ms())
    names = (view.black.split("  ")[0], view.white.split("  ")[0])
    return names, view.moves, body["ply"], body["names"]


def test_item6_a_new_games_set_up_shows_no_moves_of_the_game_put_away(tmp_path: Path) -> None:
    rig = Rig(tmp_path, settings=AppSettings(black_name="Ann", white_name="Bob"), start=False)
    link = _paged(rig)
    try:
        rig.app.start()
        rig.do("11-15")
        rig.do("22-18")
        rig.do("n")
        assert rig.app.setting_up is not None
        assert _shown(rig, link) == (("Ann", "Bob"), (), 0, ["Ann", "Bob"])
        assert rig.app.view().status == "New game: set up the pieces"
    finally:
        rig.close()


def test_item6_a_referees_next_game_shows_its_players_while_it_is_set_up(tmp_path: Path) -> None:
    rig = Rig(
        tmp_path,
        settings=AppSettings(mode="referee", start=Position.start()),
        board=Position.start(),
        referee=RefereeSettings(black="Ann", white="Bob"),
        start=False,
    )
    link = _paged(rig)
    try:
        rig.app.start()
        rig.wait(500)
        rig.do("11-15")
        rig.do("hold resign")  # White (Bob) resigns game 1
        rig.do("n")
        assert rig.app.setting_up is not None
        # Game 2 of the pair: the colours reversed.
        assert _shown(rig, link) == (("Bob", "Ann"), (), 0, ["Bob", "Ann"])
        rig.follow()
        assert _shown(rig, link)[0] == ("Bob", "Ann")
    finally:
        rig.close()


def test_item6_a_match_games_set_up_shows_its_players(tmp_path: Path) -> None:
    from crownhead.firmware.storage.matches import MatchStore, new_match

    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=4))
    rig = Rig(state, start=False)
    link = _paged(rig)
    try:
        rig.app.start()
        rig.follow()
        assert _shown(rig, link)[0] == ("Ana", "Ben")
        rig.do("11-15")
        rig.do("hold resign")  # White (Ben) resigns game 1
        rig.do("n")
        assert rig.app.setting_up is not None
        assert _shown(rig, link) == (("Ben", "Ana"), (), 0, ["Ben", "Ana"])
        state = link.answer("state", rig.clock.now_ms())
        assert (state["black"], state["white"], state["state"]["ply"]) == ("Ben", "Ana", 0)
        rig.follow()
        assert _shown(rig, link)[0] == ("Ben", "Ana")
    finally:
        rig.close()


# -- item 12: a restart between the two games of a pair goes on with the pair ----------------


def test_item12_a_board_restarted_between_the_games_of_a_pair_plays_the_second(tmp_path: Path) -> None:
    referee = RefereeSettings(black="Ann", white="Bob", record_dir=str(tmp_path / "referee"))
    settings = AppSettings(mode="referee", start=Position.start())
    rig = Rig(tmp_path / "state", settings=settings, board=Position.start(), referee=referee)
    rig.wait(500)
    rig.do("11-15")
    rig.do("hold resign")  # White (Bob) resigns game 1
    assert rig.game.is_over
    rig.close()
    again = Rig(tmp_path / "state", settings=settings, board=Position.start(), referee=referee)
    try:
        again.wait(500)
        # The second game of the pair: Bob has Black now, on the screen and in the record.
        view = again.app.view()
        assert (view.black.split()[0], view.white.split()[0]) == ("Bob", "Ann")
        again.do("11-15")
        assert again.app.record is not None and (again.app.record.black, again.app.record.white) == ("Bob", "Ann")
        # ... and the pair is done: the third game is the first's colours again.
        again.do("hold resign")
        again.do("n")
        again.follow()
        view = again.app.view()
        assert (view.black.split()[0], view.white.split()[0]) == ("Ann", "Bob")
    finally:
        again.close()


def test_item12_new_players_after_a_restart_begin_a_new_pair(tmp_path: Path) -> None:
    referee = RefereeSettings(black="Ann", white="Bob", record_dir=str(tmp_path / "referee"))
    settings = AppSettings(mode="referee", start=Position.start())
    rig = Rig(tmp_path / "state", settings=settings, board=Position.start(), referee=referee)
    rig.wait(500)
    rig.do("11-15")
    rig.do("hold resign")
    rig.close()
    others = RefereeSettings(black="Cleo", white="Dan", record_dir=str(tmp_path / "referee"))
    again = Rig(tmp_path / "state", settings=settings, board=Position.start(), referee=others)
    try:
        again.wait(500)
        view = again.app.view()
        assert (view.black.split()[0], view.white.split()[0]) == ("Cleo", "Dan")
    finally:
        again.close()


def test_item6_a_match_against_the_computer_seats_the_machine_for_the_set_up(tmp_path: Path) -> None:
    from crownhead.firmware.app.players import RandomMover
    from crownhead.firmware.storage.matches import MatchStore, new_match

    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Computer", games=2))
    players = {BLACK: Human("Ana"), WHITE: RandomMover(3)}
    rig = Rig(state, settings=AppSettings(mode="computer", auto_crown=True), players=players)
    try:
        rig.follow()
        rig.do("11-15")
        rig.follow()  # the machine's answer, made by hand
        rig.do("hold resign")  # Ana resigns game 1
        rig.do("n")
        assert rig.app.setting_up is not None
        # The machine has Black in game 2: the seats, the mode's words and the held side say so.
        view = rig.app.view()
        assert (view.black, view.white) == (RandomMover.NAME, "Ana")
        assert view.mode_text.startswith("Computer plays Black")
        assert set(rig.app.tracker.held) == {BLACK}
    finally:
        rig.close()


def test_item8_problems_left_during_their_set_up_come_back_at_the_next_game(make_rig: MakeRig) -> None:
    rig, machine = _before_problems(make_rig)
    rig.app.start_problem("beginner-1", rig.clock.now_ms())
    rig.wait(100)
    rig.app.leave_problems(rig.clock.now_ms())  # before the problem's pieces stand
    rig.wait(100)
    assert _seats(rig) == ("computer", "Crownhead engine (problems)", "Ann")
    rig.follow()  # the problem's position stands: its game is the one on the board
    assert _seats(rig) == ("computer", "Crownhead engine (problems)", "Ann")
    rig.do("n")
    assert rig.app.setting_up is not None and _seats(rig) == ("computer", "Ann", LEVEL3)
    assert rig.app.players[WHITE] is machine


def test_item10_a_match_game_resumed_names_its_players_while_it_is_set_up(tmp_path: Path) -> None:
    from crownhead.firmware.storage.matches import MatchStore, new_match

    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=4))
    rig = Rig(state)
    rig.follow()
    rig.do("11-15")
    rig.do("hold resign")  # Ben resigns game 1
    rig.do("n")
    rig.follow()
    rig.do("11-15")  # game 2: Ben has Black
    rig.close()
    settings = AppSettings(black_name="Ana", white_name="Ben", given=frozenset({"names"}))
    again = Rig(state, settings=settings, start=False)
    link = _paged(again)
    try:
        again.app.start()
        again.wait(500)
        assert again.app.resuming  # the pieces stand as at the start: game 2's are put back
        state_now = link.answer("state", again.clock.now_ms())
        assert (state_now["black"], state_now["white"]) == ("Ben", "Ana")
        assert (again.app.view().black, again.app.view().white) == ("Ben", "Ana")
    finally:
        again.close()
