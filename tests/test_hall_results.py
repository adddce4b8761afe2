"""Every finished game reaches the hall exactly once: through a broker that was away, a
hall that was, and a board whose power was cut (issue 40, items 16 and 17).

On both brokers as shipped (the embedded one, and a real Mosquitto where Debian's
``mosquitto`` is installed), with the real board publisher, the real hall listener and
the board's record of results on disk.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.events import GameOver, MoveMade, NewGame
from crownhead.firmware.hall.board import BoardPublisher
from crownhead.firmware.hall.hall import Hall, HallListener
from crownhead.firmware.hall.pairings import read_pairings
from crownhead.firmware.hall.results import ResultRecord
from crownhead.firmware.hall.settings import HallSettings
from crownhead.rules import WCDF, BLACK, Game

from helpers.hallnet import started_broker, Broker
from helpers.net import WAIT_S, wait_for

REPO = Path(__file__).resolve().parents[1]
PAIRINGS = "round,board,black,white\n1,table-1,Ann,Bob\n"


@pytest.fixture(params=["embedded", "mosquitto"])
def broker(request: Any, tmp_path: Path) -> Iterator[Broker]:
    b = started_broker(request.param, tmp_path)
    yield b
    b.close()


class Following:
    """A hall with round 1 paired (``table-1``: Ann - Bob), following ``broker``."""

    def __init__(self, broker: Broker, state_dir: Path) -> None:
        self.hall = Hall("club", str(state_dir), pairings=read_pairings(PAIRINGS))
        self.listener = HallListener(self.hall, broker.url("hall"))
        self.listener.start()
        assert self.listener.subscribed.wait(WAIT_S)

    def games(self) -> list[tuple[str, str, str, str]]:
        return [(g.black, g.white, g.result, g.reason) for g in self.hall.standings.games()]

    def close(self) -> None:
        self.listener.close()
        self.hall.close()


@pytest.fixture
def hall(broker: Broker, tmp_path: Path) -> Iterator[Following]:
    following = Following(broker, tmp_path / "hall")
    yield following
    following.close()


class SimBoard:
    """A board as the main loop drives its publisher: each event, then a poll that
    refreshes the retained state (``board_state``'s keys, the game played by the rules core)."""

    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher
        publisher._state_source = self.state  # the board's state is this one's game
        self.game = Game(None, WCDF)
        self.names = ("?", "?")
        self.game_id = "none"
        self.result: tuple[str, str] | None = None

    def state(self) -> dict[str, Any]:
        game = self.game
        return {
            "event": None,
            "round": None,
            "game_id": self.game_id,
            "fen": game.position.fen(),
            "ply": game.ply,
            "turn": "black" if game.turn is BLACK else "white",
            "black": self.names[0],
            "white": self.names[1],
            "result": self.result[0] if self.result else None,
            "reason": self.result[1] if self.result else None,
            "clocks": None,
            "match": None,
            "status": "",
            "moves": [m.pdn() for m in game.moves],
            "start": game.start.fen(),
            "condoned": [],
        }

    def _step(self, event: Any) -> None:
        self.publisher.sink(event)
        self.publisher.poll(0)

    def begin(self, game_id: str, black: str, white: str) -> None:
        self.game, self.names, self.game_id, self.result = Game(None, WCDF), (black, white), game_id, None
        self._step(NewGame(0, fen=self.game.position.fen()))

    def moves(self, count: int) -> None:
        for _ in range(count):
            move = self.game.legal_moves()[0]
            side = "black" if self.game.turn is BLACK else "white"
            self.game.play(move)
            self._step(
                MoveMade(0, ply=self.game.ply, side=side, move=move.pdn(), path=move.path, captures=move.captures)
            )

    def over(self, result: str, reason: str) -> None:
        self.result = (result, reason)
        self._step(GameOver(0, result=result, reason=reason))


class Clock:
    """Seconds for the publisher's resending, moved by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_result_finished_while_the_broker_is_away_reaches_the_hall_once(
    broker: Broker, hall: Following, tmp_path: Path
) -> None:
    clock = Clock()
    publisher = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), dict, clock=clock)
    board = SimBoard(publisher)
    try:
        board.begin("g1", "Ann", "Bob")
        board.moves(8)
        assert wait_for(lambda: len(hall.hall.boards()[0]["moves"]) == 8)
        broker.kill()
        board.over("0-1", "resign")  # Black resigns while the broker is away...
        board.begin("g2", "Bob", "Ann")  # ...and the next game begins
        board.moves(2)
        broker.start()
        # The embedded broker kept no session for the hall: what the board sent before the
        # hall subscribed again reached nobody, and the board sends its result again
        # until the hall acknowledges it.
        assert wait_for(lambda: hall.listener.subscribed.is_set() and publisher.connected)
        assert wait_for(lambda: publisher.pending == 0)
        clock.now += 31
        assert wait_for(lambda: hall.games() == [("Ann", "Bob", "0-1", "resign")]), hall.hall.standings.disputed()
        assert wait_for(lambda: publisher.results.unacknowledged() == [])
        assert hall.hall.standings.disputed() == []
        # Acknowledged, it is not sent again; the next game goes on.
        clock.now += 31
        board.moves(1)
        assert publisher.flush(WAIT_S)
        assert wait_for(lambda: len(hall.hall.boards()[0]["moves"]) == 3)
        assert hall.games() == [("Ann", "Bob", "0-1", "resign")]
    finally:
        publisher.close(flush_s=0)


def test_the_hall_counts_a_result_heard_twice_once_and_acknowledges_each() -> None:
    h = Hall("club", pairings=read_pairings(PAIRINGS))
    acks: list[tuple[str, bytes]] = []
    h.on_ack = lambda board, payload: acks.append((board, payload))
    record = ResultRecord(None)
    sim = SimBoard.__new__(SimBoard)
    sim.game, sim.names, sim.game_id, sim.result = Game(None, WCDF), ("Ann", "Bob"), "g1", None
    h.receive("crownhead/club/table-1/state", json.dumps(sim.state()).encode())  # seen to begin
    for _ in range(4):
        sim.game.play(sim.game.legal_moves()[0])
    sim.result = ("1-0", "resign")
    message = json.dumps(record.add(sim.state()).message()).encode()
    for _ in range(3):
        h.receive("crownhead/club/table-1/result", message)
    assert [(g.black, g.white, g.result) for g in h.standings.games()] == [("Ann", "Bob", "1-0")]
    assert acks == [("table-1", json.dumps({"journal": record.journal, "seq": 1}).encode())] * 3
    # A result the hall cannot read is counted as rejected and acknowledged never.
    before = h.rejected
    h.receive("crownhead/club/table-1/result", b'{"journal": "x", "seq": "one", "state": {}}')
    assert h.rejected == before + 1 and len(acks) == 3


def test_a_result_without_a_game_id_is_judged_as_the_game_the_hall_saw_begin() -> None:
    # crownhead replay's games have no id: the result, which comes before the final
    # state, is the game the hall saw begin, counted, never shown disputed meanwhile.
    h = Hall("club", pairings=read_pairings(PAIRINGS))
    sim = SimBoard.__new__(SimBoard)
    sim.game, sim.names, sim.game_id, sim.result = Game(None, WCDF), ("Ann", "Bob"), None, None
    h.receive("crownhead/club/table-1/state", json.dumps(sim.state()).encode())
    for _ in range(3):
        sim.game.play(sim.game.legal_moves()[0])
    sim.result = ("0-1", "resign")
    h.receive("crownhead/club/table-1/result", json.dumps(ResultRecord(None).add(sim.state()).message()).encode())
    assert [(g.black, g.result) for g in h.standings.games()] == [("Ann", "0-1")]
    assert h.standings.disputed() == []


BOARD_PROCESS = textwrap.dedent(
    """
    import sys, time
    from crownhead.firmware.events import GameOver, MoveMade, NewGame
    from crownhead.firmware.hall.board import BoardPublisher
    from crownhead.firmware.hall.settings import HallSettings
    from crownhead.rules import WCDF, Game

    url, results = sys.argv[1], sys.argv[2]
    game = Game(None, WCDF)
    over = []

    def state():
        return {"game_id": "g7", "round": None, "black": "Ann", "white": "Bob", "ply": game.ply,
                "fen": game.position.fen(), "start": game.start.fen(), "condoned": [],
                "moves": [m.pdn() for m in game.moves],
                "result": over[0] if over else None, "reason": "resign" if over else None}

    publisher = BoardPublisher(HallSettings(url, "club", "table-1"), state, results=results)
    publisher.sink(NewGame(0, fen=game.position.fen()))
    publisher.poll(0)
    for ply in range(1, 7):
        move = game.legal_moves()[0]
        side = str(game.turn)
        game.play(move)
        publisher.sink(MoveMade(0, ply=ply, side=side, move=move.pdn(), path=move.path, captures=move.captures))
        publisher.poll(0)
    publisher.flush(60)
    print("played", flush=True)
    sys.stdin.readline()  # the broker goes away
    over.append("1-0")
    publisher.sink(GameOver(0, result="1-0", reason="resign"))
    publisher.poll(0)
    print("over", flush=True)
    time.sleep(600)  # killed here, the game-over never sent
    """
)


def test_a_result_survives_the_boards_power_cut_while_the_broker_is_away(
    broker: Broker, hall: Following, tmp_path: Path
) -> None:
    results = tmp_path / "board" / "mqtt-club-table-1-results.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", BOARD_PROCESS, broker.url("table-1"), str(results)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        assert child.stdout.readline() == "played\n"
        assert wait_for(lambda: len(hall.hall.boards()[0]["moves"]) == 6)
        broker.kill()
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline() == "over\n"
        child.send_signal(signal.SIGKILL)  # the power is cut
        child.wait(WAIT_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(WAIT_S)
    assert hall.games() == []
    assert wait_for(lambda: not hall.listener.subscribed.is_set())
    broker.start()
    assert wait_for(lambda: hall.listener.subscribed.is_set())
    # The board starts again: its finished game is reported from its record on disk.
    again = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), dict, results=results)
    try:
        assert wait_for(lambda: hall.games() == [("Ann", "Bob", "1-0", "resign")]), hall.hall.standings.disputed()
        assert wait_for(lambda: again.results.unacknowledged() == [])
    finally:
        again.close(flush_s=0)
    assert ResultRecord(results).unacknowledged() == []
    # Started once more, it has nothing to send again; the hall still counts the game once.
    third = BoardPublisher(HallSettings(broker.url("table-1"), "club", "table-1"), dict, results=results)
    try:
        assert wait_for(lambda: third.connected)
        assert third.results.unacknowledged() == []
    finally:
        third.close(flush_s=0)
    assert hall.games() == [("Ann", "Bob", "1-0", "resign")]


def test_a_boards_game_over_keeps_the_finished_game_with_its_result(tmp_path: Path) -> None:
    from crownhead.firmware.hall.board import board_state
    from crownhead.firmware.referee.settings import RefereeSettings
    from crownhead.firmware.simulator.hands import Hands
    from helpers.rig import referee_rig

    board = referee_rig(tmp_path, RefereeSettings(black="Ann", white="Bob", round="1"))
    results = tmp_path / "results.json"
    publisher = BoardPublisher(
        HallSettings("mqtt://127.0.0.1:1", "club", "table-1"),
        connect=False,
        results=results,
    )
    publisher.attach(board.app)
    try:
        board.script("lift 11\nwait 100\nplace 15\nwait 1000\n")
        for _ in range(2):  # resign, and confirm
            Hands(board.app).act_text("resign")
            board.app.run_for(100)
        (kept,) = ResultRecord(results).unacknowledged()  # on disk, as the game ended
        assert (kept.seq, kept.state["result"], kept.state["moves"]) == (1, "1-0", ["11-15"])
        assert kept.state["game_id"] == board_state(board.app.snapshot)["game_id"]
    finally:
        board.app.close()
