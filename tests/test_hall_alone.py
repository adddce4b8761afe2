"""The hall's reporter alone (issue 50): the board's retained state is a pure function of
the snapshot it is handed (its game's :class:`~crownhead.firmware.app.snapshot.Sheet`,
what it shows, its clock), with no application, and it changes in the step the LEDs do."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from test_outputs_alone import Port, made

from crownhead.firmware.app.snapshot import Sheet, Shown, Snapshot, match_link_state
from crownhead.firmware.app.view import board_view
from crownhead.firmware.events import ClockState, GameOver
from crownhead.firmware.hall.board import BoardPublisher, board_state
from crownhead.firmware.hall.settings import HallSettings
from crownhead.hal.clock import VirtualClock
from crownhead.rules import BLACK, WCDF, WHITE, Game, Move
from crownhead.rules.game import Result
from crownhead.rules.match import Match
from crownhead.rules.pdn import CONDONED_NOTE, write_game
from crownhead.squares import bit
from helpers.rig import Rig

#: A broker nobody listens on: the publisher is never connected (nothing is sent).
NOWHERE = "mqtt://127.0.0.1:1"


def _refereed() -> tuple[Game, Snapshot]:
    """A refereed game by hand: 11-15, then White's 22-13 that stood, then Black resigned."""
    game = Game(None, WCDF)
    game.play(Move((11, 15)))
    game.condone(Move((22, 13)))  # no legal move: it stood (WCDF 1.26)
    result = Result("0-1", "resign")
    sheet = Sheet(
        game.start,
        tuple(game.moves),
        tuple(game.positions),
        game.condoned,
        WCDF,
        result,
        "Ann",
        "Bo",
        "Club night",
        "3",
        "20261208-1",
    )
    match = Match.new("Ann", "Bo", games=2)
    snap = made(
        game.position,
        ply=2,
        moves=tuple(game.moves),
        last_move=game.moves[-1],
        result=result,
        clock=ClockState(59_000, 61_000, "black", False, None),
        sheet=sheet,
        shown=Shown(mode="Referee", referee_mode=True, match_state=match),
    )
    return game, snap


def test_the_halls_state_is_drawn_from_a_hand_built_snapshot() -> None:
    game, snap = _refereed()
    tags = {"Event": "Club night", "Black": "Ann", "White": "Bo", "Round": "3"}
    state = board_state(snap)
    assert state == {
        "event": "Club night",
        "round": "3",
        "game_id": "20261208-1",
        "fen": game.position.fen(),
        "ply": 2,
        "turn": "black",
        "black": "Ann",
        "white": "Bo",
        "result": "0-1",
        "reason": "resign",
        "clocks": {"black": 59_000, "white": 61_000},
        "match": match_link_state(Match.new("Ann", "Bo", games=2)),
        "status": board_view(snap).status,
        "moves": ["11-15", "22-13"],
        "start": game.start.fen(),
        "condoned": [2],
        "pdn": write_game(game, tags, result="0-1"),
    }
    assert state["status"].startswith("Game over") and CONDONED_NOTE in state["pdn"]
    assert state["match"]["players"] == ["Ann", "Bo"]


def test_a_snapshot_without_a_sheet_is_its_position_under_its_seats_names() -> None:
    state = board_state(made(clock=ClockState(1, 2, "black", False, None)))
    assert (state["black"], state["white"], state["ply"], state["moves"], state["result"]) == ("Ann", "Bo", 0, [], None)
    assert state["clocks"] is None and state["match"] is None  # a clock is reported in referee mode only
    assert state["status"] == "Black to move, move 1" and state["pdn"].endswith("*\n")


def test_the_reporter_takes_the_snapshot_it_is_handed_and_keeps_its_result() -> None:
    """Joined to a bare port (no application), the reporter's retained state is the
    snapshot's; a game's end keeps that state as the game's result."""
    port = Port(VirtualClock())
    publisher = BoardPublisher(HallSettings(NOWHERE, "club", "t1"), connect=False)
    publisher.attach(port)
    assert publisher.retained is None  # no snapshot yet: nothing to tell
    _, snap = _refereed()
    port.outputs.snapshot(snap)
    assert publisher.retained is not None
    assert json.loads(publisher.retained) == board_state(snap)
    port.outputs.events([GameOver(10, "0-1", "resign")])
    (kept,) = publisher.results.unacknowledged()
    assert (kept.state["result"], kept.state["moves"], kept.state["game_id"]) == (
        "0-1",
        ["11-15", "22-13"],
        "20261208-1",
    )


def test_the_halls_state_changes_in_the_step_the_leds_do(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "state")
    publisher = BoardPublisher(HallSettings(NOWHERE, "club", "t1"), connect=False)
    publisher.attach(rig.app)
    try:
        rig.app.run_for(500)
        assert publisher.retained is not None and json.loads(publisher.retained)["ply"] == 0
        rig.sim.lift(11)
        rig.app.run_for(300)
        rig.sim.place(15)
        for _ in range(200):  # step by step until the move is heard
            lit = dict(rig.lit)
            heard = len(rig.events)
            due = rig.app.next_deadline()
            assert due is not None
            rig.clock.set(max(due, rig.clock.now_ms()))
            rig.app.step()
            if any(e.kind == "move" for e in rig.events[heard:]):
                break
        else:
            raise AssertionError("no move")
        assert dict(rig.lit) != lit  # the LEDs show the move in this step...
        assert publisher.retained is not None
        state = json.loads(publisher.retained)  # ...and so does the hall's state, not a step late
        assert (state["ply"], state["moves"], state["turn"]) == (1, ["11-15"], "white")
        assert state == board_state(rig.app.snapshot)
        assert (state["black"], state["white"]) == (
            rig.app.snapshot.seats[BLACK].name,
            rig.app.snapshot.seats[WHITE].name,
        )
    finally:
        rig.close()


def test_a_snapshot_that_changes_nothing_the_state_says_sends_nothing() -> None:
    """A piece lifted changes the snapshot, not the state: nothing new for the broker; the
    clocks of a refereed game are news."""
    port = Port(VirtualClock())
    publisher = BoardPublisher(HallSettings(NOWHERE, "club", "t1"), connect=False)
    publisher.attach(port)
    snap = made(revision=1)
    port.outputs.snapshot(snap)
    first = publisher.retained
    assert first is not None and publisher.pending == 1  # the state waits for the broker
    port.outputs.snapshot(replace(snap, board=snap.board & ~bit(11), revision=2))  # 11 in hand
    assert publisher.retained is first and publisher.pending == 1
    timed = replace(snap, clock=ClockState(60_000, 60_000, None, True, None), shown=Shown(referee_mode=True))
    port.outputs.snapshot(replace(timed, revision=3))
    assert publisher.retained is not None and json.loads(publisher.retained)["clocks"] == {
        "black": 60_000,
        "white": 60_000,
    }
