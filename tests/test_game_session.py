"""One owner of the game: the session (firmware.tracking.session) holds the record, the
offers, the resignations, the result and the held sides; trackers read the board and
ask it; the application owns one for the whole run and every tracker it follows (a mode
switched, a saved game resumed, the rules changed, the referee's tracker after an
illegal move stood) reads that same session, so nothing of the game is copied.
"""

from __future__ import annotations

from crownhead.firmware.app.players import Human, RandomMover
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.tracking.follower import Follower
from crownhead.firmware.tracking.session import GameSession
from crownhead.firmware.tracking.tracker import Tracker
from crownhead.rules import WCDF, BLACK, WHITE, Game, Position, Rules
from crownhead.squares import bit

from helpers.rig import MakeRig, Rig


def test_every_change_of_the_game_changes_the_revision() -> None:
    session = GameSession(Game(None, WCDF))
    seen = [session.revision]

    def changed() -> bool:
        seen.append(session.revision)
        return seen[-1] != seen[-2]

    game = session.game
    session.play(game.position.moves_matching("11-15", WCDF)[0])
    assert changed() and game.ply == 1
    session.offer_draw(WHITE, 10)
    assert changed() and session.draw_offer == (WHITE, 1)
    session.hold(BLACK, "the other board")
    assert changed() and session.held == {BLACK: "the other board"}
    session.hold(BLACK, "the other board")  # the same hold again: nothing changed
    assert not changed()
    session.undo()
    assert changed() and game.ply == 0 and session.draw_offer is None  # the offer lapsed
    session.resign(WHITE, 20)
    assert changed() and session.resign_asked(30) == (WHITE, 3020)
    session.resign(WHITE, 40)
    assert changed() and game.result is not None and game.result.reason == "resign"
    assert session.reopen(50) and changed() and not game.is_over
    session.declare("1-0", "forfeit", 60)
    assert changed() and session.declare("0-1", "time", 70) == [] and not changed()
    session.begin(Position.start())
    assert changed() and session.game is not game and session.held == {BLACK: "the other board"}


def test_a_tracker_commits_its_moves_into_its_session() -> None:
    session = GameSession(Game(None, WCDF))
    tracker = Tracker(session)
    board = tracker.position.occupied
    tracker.update(board & ~bit(11) | bit(15), 0)
    tracker.tick(500)
    assert tracker.game is session.game and [m.pdn() for m in session.game.moves] == ["11-15"]


def test_a_hold_set_on_the_session_is_seen_by_its_tracker_at_once() -> None:
    session = GameSession(Game(None, WCDF))
    tracker = Tracker(session)
    board = tracker.position.occupied
    roles_before = tracker.roles  # read (and cached) before the hold
    session.hold(BLACK, "the other board")  # nobody tells the tracker
    assert tracker.held == {BLACK: "the other board"}
    # Black's pieces are no longer the hands' to move: a lift is no touch, it is to go back.
    tracker.update(board & ~bit(11), 0)
    assert tracker.roles.get(11) == "missing" and roles_before != tracker.roles
    (warning,) = tracker.tick(300)
    assert warning.message.startswith("black's moves come from the other board")


def test_a_result_declared_on_the_session_ends_the_warnings_and_the_reading_of_moves() -> None:
    session = GameSession(Game(None, WCDF))
    tracker = Tracker(session)
    board = tracker.position.occupied
    tracker.update(board & ~bit(11) | bit(19), 0)  # 11-19 is no move
    tracker.tick(1000)
    assert [w.code for w in tracker.warnings] == ["illegal-move"]
    session.declare("0-1", "forfeit", 1000)  # an arbiter, a page: nobody tells the tracker
    assert tracker.warnings == () and tracker.roles.get(19) != "extra"
    tracker.update(board & ~bit(11) | bit(15), 1010)
    assert tracker.tick(2000) == [] and session.game.ply == 0


def test_an_illegal_move_that_stood_is_read_on_by_the_same_tracker_and_session() -> None:
    start = Position.from_fen("B:W15,23,32:B10,1")
    session = GameSession(Game(start, WCDF), start=start)
    session.hold(WHITE, "nobody")  # held, then given back: the session remembers both
    session.release(WHITE)
    first = Tracker(session, mode="referee")
    follower = Follower(first, Referee(RefereeSettings(style="record")))
    follower.begin(0)
    board = start.occupied
    # 10x19 and the jumper left on 19 (the chain unfinished); White answers 23x16.
    steps = [(0, 10, False), (100, 19, True), (200, 15, False), (700, 23, False), (900, 16, True), (1000, 19, False)]
    events = []
    for t, square, put in steps:
        board = board | bit(square) if put else board & ~bit(square)
        events += follower.update(board, t)
    events += follower.tick(1600)
    assert [e.kind for e in events if e.kind in ("condoned", "move")] == ["move", "condoned", "move"]
    # No second tracker: the session took the move in, the one tracker read on from it.
    assert follower.tracker is first and first.session is session
    assert [m.pdn() for m in session.game.moves] == ["10x19", "23x16"] and session.new_start == start


def _same_session(rig: Rig, session: GameSession) -> None:
    app = rig.app
    assert app.session is session and app.tracker.session is session
    assert app.controller.follower is app.follower and app.follower.tracker is app.tracker


def test_the_application_keeps_one_session_through_modes_rules_and_takebacks(make_rig: MakeRig) -> None:
    rig = make_rig()
    app = rig.app
    session = app.session
    _same_session(rig, session)
    rig.do("11-15")
    rig.do("22-18")
    game = session.game
    record = [m.pdn() for m in game.moves]
    assert record == ["11-15", "22-18"] and rig.game is game
    rig.do("takeback")
    rig.follow()
    _same_session(rig, session)
    assert session.game is game and [m.pdn() for m in game.moves] == record[:1]
    app.declare("1/2-1/2", "agreement", rig.clock.now_ms())
    rig.wait(100)
    tracker = app.tracker
    app.set_mode("referee")
    rig.wait(100)
    _same_session(rig, session)
    # The same tracker reads on under the new mode; the referee is the follower's judge.
    assert app.tracker is tracker and app.follower.judge is app.referee is not None
    assert session.game is game and game.result is not None
    app.set_mode("play")
    app.set_rules(Rules(huffing=True))  # a new game of another variant, in the same session
    _same_session(rig, session)
    assert session.game.rules.huffing and app.tracker.game is session.game


def test_a_hold_is_seen_by_every_tracker_the_application_follows(make_rig: MakeRig) -> None:
    rig = make_rig()
    app = rig.app
    app.hold(WHITE, "the other end of the link")
    # No step ran: the tracker sees it, because the hold lives only in the session.
    assert app.tracker.held == {WHITE: "the other end of the link"}
    rig.do("11-15")
    app.declare("0-1", "agreement", rig.clock.now_ms())
    rig.wait(100)
    app.set_mode("referee")
    assert app.tracker.held == {WHITE: "the other end of the link"}
    app.set_mode("computer", computer=(BLACK, RandomMover(seed=1)))
    # The machine's side is held under its name, the link's side still the link's.
    assert app.tracker.held == {WHITE: "the other end of the link", BLACK: "Random mover (test player)"}
    app.set_mode("play")
    assert app.tracker.held == {WHITE: "the other end of the link"}
    app.release(WHITE)
    assert app.tracker.held == {} and app.session.held == {}


def test_a_machine_given_up_for_a_person_is_no_longer_held(make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(mode="computer"), players={BLACK: RandomMover(seed=2), WHITE: Human("Ann")})
    app = rig.app
    assert app.tracker.held == {BLACK: "Random mover (test player)"}
    app.players[BLACK] = RandomMover(seed=3)
    app.modes.seats.name(BLACK, "Robot")
    assert app.session.held == {BLACK: "Robot"}
    app.modes.seats.people_back()
    assert app.session.held == {}


def test_the_snapshot_is_built_again_only_when_something_it_shows_changed(make_rig: MakeRig) -> None:
    rig = make_rig()
    app = rig.app
    rig.wait(100)
    idle = app.snapshot
    rig.wait(500)  # fifty steps, nothing happens
    assert app.snapshot is idle
    app.hold(WHITE, "the other board")  # the session changed: the next step shows it
    rig.step()
    held = app.snapshot
    assert held is not idle and held.revision == idle.revision + 1
    assert held.seats[WHITE].held_by == "the other board"
    rig.sim.lift(11)  # the board changed: the tracker's version moved
    rig.wait(100)
    lifted = app.snapshot
    assert lifted is not held and lifted.revision > held.revision and 11 not in lifted.pieces
    rig.wait(500)
    assert app.snapshot is lifted


def test_a_running_clock_keeps_the_snapshots_revision_and_shows_its_time(make_rig: MakeRig) -> None:
    rig = make_rig(settings=AppSettings(clock=TimeControl.parse("60")))
    app = rig.app
    rig.do("11-15")  # White's time runs from Black's move
    before = app.snapshot
    rig.wait(1000)
    after = app.snapshot
    assert before.clock is not None and after.clock is not None and not after.clock.paused
    assert after.revision == before.revision and after.clock.white_ms == before.clock.white_ms - 1000
    assert after.position is before.position and after.roles is before.roles  # nothing else built again


def test_the_referees_draw_offers_and_claims_are_the_sessions() -> None:
    session = GameSession(Game(None, WCDF))
    referee = Referee(RefereeSettings())
    follower = Follower(Tracker(session, mode="referee"), referee)
    follower.begin(0)
    follower.press("black_draw", 10)
    assert session.draw_offer == (BLACK, 0)
    (refused, *_) = follower.press("claim", 20)  # Black, to move, has no draw to claim
    assert refused.kind == "claim" and not session.game.is_over
    events = follower.press("white_draw", 30)
    assert [e.kind for e in events] == ["game-over"] and session.game.result is not None
    assert session.game.result.reason == "agreement"
    assert referee.state is not None
    notes = referee.state.record.notes[0]
    assert "draw offered by black" in notes and "draw agreed (WCDF 1.32)" in notes
    assert refused.to_json()["message"] in notes  # the session's words, recorded as said


def test_a_resumed_game_becomes_the_sessions_record_and_its_holds_stay(make_rig: MakeRig) -> None:
    first = make_rig()
    for move in ("11-15", "23-19"):
        first.do(move)
    first.close()
    rig = make_rig()
    app = rig.app
    session = app.session
    app.hold(WHITE, "the other board")  # held while the saved game is set up
    rig.do("f")  # the hands put the pieces where the lights ask: the game resumes
    assert rig.of_kind("game-start")[-1]["resumed"] is True
    _same_session(rig, session)
    assert [m.pdn() for m in session.game.moves] == ["11-15", "23-19"] and app.game is session.game
    assert app.tracker.held == {WHITE: "the other board"}


def test_the_session_says_a_saved_game_resumed_and_begins_it_once(make_rig: MakeRig) -> None:
    # The set-up of a saved game's position resumes that game, said by the session in one
    # step (GameSession.begin): it was begun as a new game, then replaced by the saved
    # one, the session counting two games, and the application cleared its flag on
    # hearing the new-game.
    first = make_rig()
    for move in ("11-15", "23-19"):
        first.do(move)
    first.close()
    rig = make_rig()
    app, session = rig.app, rig.app.session
    assert app.resuming and session.saved is app.game and not session.resumed
    number = session.number
    rig.do("f")
    assert session.number == number + 1 and session.resumed and session.saved is None
    assert not app.resuming and [m.pdn() for m in session.game.moves] == ["11-15", "23-19"]
    assert rig.of_kind("new-game") == [] and rig.of_kind("game-start")[-1]["resumed"] is True


def test_a_saved_game_resumes_on_its_set_up_without_a_new_clock_or_game() -> None:
    saved = Game(None, WCDF)
    for move in ("11-15", "23-19"):
        saved.play_text(move)
    control = TimeControl.parse("60")
    for waiting, resumes in ((saved, True), (None, False)):
        session = GameSession(Game(saved.position, WCDF), time_control=control)
        session.new_clock(0)
        clock = session.clock
        session.resume_when_set_up(saved)
        session.resume_when_set_up(waiting)  # None: given up for a new game
        follower = Follower(Tracker(session, board=saved.position.occupied))
        events = follower.new_game(saved.position, 100)  # the position stands already
        assert [e.kind for e in events] == (["new-game"] if resumes else ["new-game", "clock"])
        assert session.resumed is resumes and (session.game is saved) is resumes
        assert session.game.ply == (2 if resumes else 0) and (session.clock is clock) is resumes
