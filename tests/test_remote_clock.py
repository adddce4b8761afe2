"""The clock of a game between homes (issue 51, item 7): both boards end with the same
clocks, every move's time used counts the thinking before an outage, and the PDN names
the time control.

The boards are those of ``test_remote_offers.py`` (each on its own virtual clock, a line
"delivered late" taken after the other board's clock went on) and of ``test_remote.py``
(with the absence watcher, for the broker killed mid-move), through a real Mosquitto.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.remote.invite import Agreement, Invitation
from crownhead.rules import BLACK, WHITE, Move
from crownhead.rules.pdn import read_games

from helpers.hallnet import MOSQUITTO, NO_MOSQUITTO, PASSWD, Mosquitto, running_mosquitto
from helpers.remote import Proxy, step_until
from test_remote import ACCOUNTS, Home, Homes
from test_remote_identity import Board as BoardOn
from test_remote_identity import _heard as heard
from test_remote_identity import _made_there as made_there
from test_remote_offers import Board, Pair

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)

CLOCK = AppSettings(clock=TimeControl.parse("600+5"))


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ACCOUNTS) as broker:
        yield broker


def final_clock(board: Board) -> dict[object, int]:
    """Each side's time left as the board's clock shows it now."""
    keeper = board.rig.app.board_clock
    assert keeper is not None
    return keeper.clock.snapshot(board.rig.clock.now_ms())


def kept_pdn(board: Board) -> str:
    (pdn,) = Path(board.rig.store.games_dir).glob("*.pdn")
    return pdn.read_text()


@pytest.mark.parametrize("on_its_move", [True, False], ids=["on-its-move", "on-white-s-move"])
def test_both_boards_end_with_the_same_clocks(tmp_path: Path, mosquitto: Mosquitto, on_its_move: bool) -> None:
    pair = Pair(tmp_path, mosquitto, CLOCK)
    try:
        a, b = pair.a, pair.b
        pair.play(Move((11, 15)))
        # White thinks 7 s on board B; board A hears of it 5 s late and takes 3 s to make it:
        # Black's clock starts 8 s later on A than on B.
        b.rig.script("lift 22\nwait 7000\nplace 18\nwait 600")
        a.rig.clock.advance(5_000)
        pair.wait(lambda: a.rig.app.tracker.expected == Move((22, 18)), "A shows White's move", boards=(a,))
        a.rig.wait(3_000)
        a.rig.follow(wait=600)
        started = final_clock(a)[BLACK]  # Black's clock starts on A
        if not on_its_move:
            (capture,) = a.game.legal_moves()
            pair.play(capture)  # (Black's capture: White's clock runs, later on B than on A)
            started = final_clock(b)[WHITE]  # White's clock starts on B
        # Black thinks 4 s and resigns on board A; board B hears it 6 s late.
        a.rig.wait(4_000)
        a.rig.sim.press("black_resign", long=True)
        a.rig.wait(100)
        assert a.game.is_over
        b.rig.clock.advance(6_000)
        pair.wait(lambda: b.game.is_over, "B hears Black resigned", boards=(b,))
        pair.wait(lambda: a.transport.pending == 0 == b.transport.pending, "every line acknowledged")
        for board in (a, b):
            board.rig.wait(500)
        ended = final_clock(a)
        assert final_clock(b) == ended
        # Each side's time as its own board measured it, the running side's to the end of
        # the game there: none of the seconds the lines spent crossing.
        for board in (a, b):
            keeper = board.rig.app.board_clock
            assert keeper is not None and keeper.clock.stopped
        # Both boards' PDN name the game's time control.
        for board in (a, b):
            (game,) = read_games(kept_pdn(board), "kept")
            assert game.tags["TimeControl"] == "600+5"
        if on_its_move:
            assert started - 5_000 < ended[BLACK] <= started - 4_000  # its 4 s on A, and the resign's press
        else:
            assert started - 9_000 < ended[WHITE] <= started - 6_000  # the 6 s until B heard of it
    finally:
        pair.close()


def test_a_move_s_time_used_counts_its_thinking_before_an_outage(tmp_path: Path, mosquitto: Mosquitto) -> None:
    homes = Homes(tmp_path, mosquitto, CLOCK)
    try:
        homes.play(Move((11, 15)))
        b = homes.b
        # White thinks 10 s on board B, the broker goes for 30 s (the clock stops), and
        # White thinks 5 s more: its move took 15 s of its time, not the 5 s after.
        b.rig.script("lift 22\nwait 10000")
        mosquitto.kill()
        homes.wait(lambda: homes.a.absence.state == b.absence.state == "the broker", "both see the broker go")
        keeper = b.rig.app.board_clock
        assert keeper is not None and keeper.clock.paused
        # Its 10 s, and the steps until the broker was missed, charged to it:
        before = 600_000 - keeper.clock.snapshot(b.rig.clock.now_ms())[WHITE]
        assert before >= 10_000
        for home in (homes.a, b):
            home.rig.app.run_for(30_000)
        mosquitto.start()
        homes.wait(lambda: homes.a.absence.state == b.absence.state == "here", "both see the broker back")
        b.rig.script("wait 5000\nplace 18\nwait 600")
        homes.wait(lambda: homes.a.rig.app.tracker.expected == Move((22, 18)), "A shows White's move")
        homes.a.rig.follow(wait=600)
        for home in (homes.a, b):  # (A keeps White's move as B measured it)
            record = home.rig.app.record
            assert record is not None
            (_ply, _left, used) = record.times[1]
            assert before + 5_000 <= used < before + 6_500, record.times
    finally:
        homes.close()


def test_a_move_s_time_used_counts_its_thinking_before_its_board_was_switched_off(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    # The boards wired as `crownhead run --remote` wires them.
    inv = Invitation("hm3s2y", "alice", "black", clock="600+5")
    a = BoardOn(tmp_path / "a", Agreement(inv, "alice", "bob", mosquitto.url("alice"))).on()
    b = BoardOn(tmp_path / "b", Agreement(inv, "bob", "alice", mosquitto.url("bob"))).on()
    try:
        heard(a, b)
        made_there(a, b, "11-15")
        # White thinks 10 s on board B, which then loses its power (its clock saved every
        # 5 s), is switched on again and set up; White thinks 5 s more and moves.
        b.live.script("lift 22\nwait 10500")
        b.live.app.clock_saver.flush()
        b.off()
        b.on()
        b.live.follow(wait=600)  # B's people set the saved game up (White's man back on 22)
        heard(a, b)
        b.live.script("lift 22\nwait 5000\nplace 18\nwait 600")
        step_until(lambda: a.live.app.tracker.expected == Move((22, 18)), "A shows White's move", [a.live, b.live])
        a.live.follow(wait=600)
        for board in (a, b):  # (A keeps White's move as B measured it)
            record = board.live.app.record
            assert record is not None
            (_ply, _left, used) = record.times[1]
            assert 15_000 <= used < 16_500, record.times
    finally:
        for board in (a, b):
            if board.rig is not None:
                board.off()


def test_with_the_clock_running_a_move_made_far_away_after_the_flag_there_leaves_the_boards_in_step(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    # `--away run`: White's board loses its line; its people move in time by its clock,
    # but the other board, where White's time ran out first (its clock started as Black's
    # move was made there, before White's people made it on theirs), calls White's flag
    # once White's board has been away past its grace. Before, the boards ended out of
    # step: the game over on one, going on on the other. The invitation's word stands on
    # both: White lost on time (its move, which could not cross, is taken back).
    proxy = Proxy(mosquitto.port)
    settings = AppSettings(clock=TimeControl.parse("30"))
    a = Home(tmp_path / "a", mosquitto, "alice", "bob", "black", settings, grace_s=10, away="run")
    b = Home(tmp_path / "b", proxy, "bob", "alice", "white", settings, grace_s=10, away="run")  # type: ignore[arg-type]
    both = (a.rig, b.rig)
    try:
        step_until(lambda: a.rig.link.game_id == b.rig.link.game_id and b.rig.link.peer_lines > 0, "agreed", both)
        a.rig.do("11-15", wait=600)
        step_until(lambda: b.rig.app.tracker.expected == Move((11, 15)), "B shows 11-15", both)
        b.rig.wait(5_000)  # B's people take 5 s to make it: White's clock starts 5 s later there
        b.rig.follow(wait=600)
        proxy.cut()
        step_until(
            lambda: a.absence.state.startswith("the other board") and b.absence.state == "the broker", "the cut", both
        )
        b.rig.script("lift 22\nwait 24000\nplace 18\nwait 600")  # in time on B's clock
        assert b.rig.game.moves == [Move((11, 15)), Move((22, 18))] and not b.rig.game.is_over
        a.rig.app.run_for(40_000)  # White away past its grace, its time out on A's clock
        result = a.rig.game.result
        assert result is not None and (result.score, result.reason) == ("1-0", "time")
        proxy.mend()
        step_until(lambda: a.absence.state == b.absence.state == "here", "the line back", both)
        step_until(lambda: b.rig.game.is_over, "B takes White's flag", both)
        b.rig.follow(wait=600)  # (B's people put White's man back as the lights ask)
        step_until(lambda: a.transport.pending == 0 == b.transport.pending, "every line acknowledged", both)
        for home in (a, b):
            home.rig.app.run_for(600)
        assert a.rig.game.moves == b.rig.game.moves == [Move((11, 15))]
        assert a.rig.game.result == b.rig.game.result
        assert any("White lost on time while this board was out of reach" in n for n in b.notices())
        assert any("22-18 came after the flag there: it is taken back" in n for n in b.notices())
        clocks = [home.rig.app.board_clock.clock.snapshot(home.rig.clock.now_ms()) for home in (a, b)]  # type: ignore[union-attr]
        assert clocks[0] == clocks[1] and clocks[0][WHITE] == 0, clocks
    finally:
        for home in (a, b):
            home.close(flush_s=0)
        proxy.close()
