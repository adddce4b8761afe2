"""Two boards far apart agree besides the moves: draw offers, takeback requests, the clock.

Each board is a :class:`helpers.rig.Rig` whose link is the
:class:`~crownhead.firmware.remote.link.RemoteLink` of a game far apart, on a
:class:`~crownhead.firmware.remote.transport.RemoteTransport` through a real Mosquitto on loopback
(the shipped configuration and ACL). Board A's people play Black, board B's White. Each
board runs on its own virtual clock: a line "delivered late" is one the other board
takes only after its clock has gone on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.rules import BLACK, WHITE, Move

from helpers.games import random_game
from helpers.hallnet import MOSQUITTO, Mosquitto, NO_MOSQUITTO, PASSWD, running_mosquitto
from helpers.remote import step_until
from helpers.rig import Rig

CODE = "p4rt3y"

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)


class Board:
    """One home's board: an application whose link is the game's :class:`RemoteLink`."""

    def __init__(
        self,
        folder: Path,
        broker: Mosquitto,
        me: str,
        peer: str,
        plays: str,
        settings: AppSettings,
        private: tuple[str, str] | None = None,
    ) -> None:
        self.me = me
        self.rig = Rig(folder / "state", settings=settings, board=settings.start, start=False)
        self.transport = RemoteTransport(
            BrokerUrl.parse(broker.url(me)),
            CODE,
            peer,
            folder / "journal.json",
            self.rig.clock,
            resend_ms=2000,
            private=private,
        )
        self.link = RemoteLink(self.transport, LinkConfig(plays=plays))
        self.link.attach(self.rig.app)
        self.rig.link, self.rig.transport = self.link, self.transport
        self.rig.app.start()

    @property
    def game(self):  # noqa: ANN201
        return self.rig.game

    def notices(self) -> list[str]:
        return [e.to_json()["message"] for e in self.rig.events if e.kind == "notice"]

    def left(self) -> dict[object, int]:
        """Each side's time left as of its last move (the record both boards keep)."""
        keeper = self.rig.app.board_clock
        assert keeper is not None
        return keeper.clock.saved()[0]


class Pair:
    def __init__(
        self, tmp_path: Path, broker: Mosquitto, settings: AppSettings = AppSettings(), *, private: bool = False
    ) -> None:
        pair = ("alice", "bob") if private else None
        self.a = Board(tmp_path / "a", broker, "alice", "bob", "black", settings, pair)
        self.b = Board(tmp_path / "b", broker, "bob", "alice", "white", settings, pair)
        self.wait(
            lambda: self.a.link.game_id == self.b.link.game_id and self.a.link.peer_lines > 0 < self.b.link.peer_lines,
            "the boards agree on the game",
        )

    def wait(self, pred, what: str, boards: tuple[Board, ...] | None = None, step_ms: int = 20) -> None:  # noqa: ANN001
        """Step ``boards`` (both by default), virtual time passing slowly, until ``pred()``."""
        step_until(pred, what, [board.rig for board in boards or (self.a, self.b)], step_ms)

    def play(self, move: Move) -> None:
        mover, other = (self.a, self.b) if self.a.game.turn is BLACK else (self.b, self.a)
        ply = mover.game.ply + 1
        mover.rig.do(move.pdn(full=True), wait=600)
        assert mover.game.ply == ply
        self.wait(lambda: other.rig.app.tracker.expected == move, f"{other.me} shows {move}")
        other.rig.follow(wait=600)
        assert other.game.ply == ply

    def close(self) -> None:
        for board in (self.a, self.b):
            board.transport.close(flush_s=0)
            board.rig.close()


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ["alice", "bob"]) as broker:
        yield broker


@pytest.fixture
def pair(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[Pair]:
    p = Pair(tmp_path, mosquitto)
    yield p
    p.close()


def test_a_draw_offered_on_one_board_is_put_to_the_other_and_agreed_there(pair: Pair) -> None:
    moves = random_game(6).moves
    pair.play(moves[0])
    # White (board B) moves and offers a draw at once; board A has not made the move yet.
    pair.b.rig.do(moves[1].pdn(full=True), wait=600)
    pair.b.rig.sim.press("white_draw")
    pair.b.rig.wait(100)
    assert pair.b.rig.app.session.draw_offer == (WHITE, 2)
    pair.wait(lambda: pair.a.rig.app.tracker.expected == moves[1], "A shows White's move", boards=(pair.a, pair.b))
    assert pair.a.rig.app.session.draw_offer is None  # about the position after the move: not yet
    pair.a.rig.follow(wait=600)  # A's people make White's move: now the offer stands there
    pair.wait(lambda: pair.a.rig.app.session.draw_offer == (WHITE, 2), "A has White's offer")
    pair.a.rig.sim.press("black_draw")  # Black accepts, on its own board
    pair.a.rig.wait(100)
    pair.wait(lambda: pair.b.game.is_over, "B's game over")
    for board in (pair.a, pair.b):
        result = board.game.result
        assert result is not None and (result.score, result.reason) == ("1/2-1/2", "agreement")
    assert pair.a.game.moves == pair.b.game.moves


def test_a_draw_offer_is_declined_by_the_next_move(pair: Pair) -> None:
    moves = random_game(6).moves
    pair.a.rig.sim.press("black_draw")  # Black offers before its first move...
    pair.a.rig.wait(100)
    pair.wait(lambda: pair.b.rig.app.session.draw_offer == (BLACK, 0), "B has Black's offer")
    pair.play(moves[0])
    pair.play(moves[1])  # ...White plays on
    for board in (pair.a, pair.b):
        assert board.rig.app.session.draw_offer is None and not board.game.is_over
    pair.b.rig.sim.press("white_draw")  # an offer of White's own now, not an acceptance
    pair.b.rig.wait(100)
    pair.wait(lambda: pair.a.rig.app.session.draw_offer == (WHITE, 2), "A has White's offer")
    assert not pair.a.game.is_over and not pair.b.game.is_over


def test_a_takeback_is_asked_for_and_made_on_both_boards_only_when_agreed(pair: Pair) -> None:
    moves = random_game(8).moves
    pair.play(moves[0])
    pair.play(moves[1])
    # Black (A) asks to take its move back: nothing is taken back until White agrees.
    pair.play(moves[2])
    pair.a.rig.sim.press("takeback")
    pair.a.rig.wait(600)
    assert pair.a.game.ply == 3
    pair.wait(lambda: any("asks to take back" in n for n in pair.b.notices()), "B is asked")
    assert pair.b.game.ply == 3
    assert any("asked White to take back" in n for n in pair.a.notices())
    pair.b.rig.sim.press("takeback")  # White agrees
    pair.b.rig.wait(100)
    assert pair.b.game.ply == 2
    pair.b.rig.follow()  # B's hands put Black's man back
    pair.wait(lambda: pair.a.game.ply == 2, "A takes the move back too")
    pair.a.rig.follow()
    assert pair.a.game.moves == pair.b.game.moves == list(moves[:2])
    # White asks to take its move back, Black refuses by playing on: nothing is taken back.
    pair.play(moves[2])
    pair.play(moves[3])
    pair.b.rig.sim.press("takeback")
    pair.b.rig.wait(600)
    pair.wait(lambda: any(n.startswith("White asks to take back") for n in pair.a.notices()), "A is asked")
    pair.play(moves[4])
    pair.wait(lambda: any("Black played on: the takeback was refused" in n for n in pair.b.notices()), "B is told")
    assert pair.a.game.moves == pair.b.game.moves == list(moves[:5])


def test_a_takeback_request_from_the_other_board_is_spoken_by_the_voice(pair: Pair) -> None:
    from crownhead.firmware.voice.adapter import BoardVoice
    from crownhead.firmware.voice.phrases import Phrasebook

    # Said on the screen and the page, and by the voice too (a blind player at board B
    # must hear that White is asked), in the board's language.
    voice = BoardVoice(None, Phrasebook("en")).attach(pair.b.rig.app)
    pair.play(Move((11, 15)))
    mark = voice.said_count
    pair.a.rig.sim.press("takeback")
    pair.a.rig.wait(600)
    pair.wait(lambda: any("asks to take back" in n for n in pair.b.notices()), "B is asked")
    pair.b.rig.wait(100)
    said = [s.text for s in voice.said_since(mark)]
    assert "Black asks to take back 11 15. Press takeback to agree, or play on to refuse." in said, said
    (asked,) = pair.b.rig.of_kind("takeback-asked")
    assert (asked["ply"], asked["side"], asked["move"]) == (1, "black", "11-15")


def test_each_side_s_time_is_its_own_board_s_and_both_keep_the_same_record(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    pair = Pair(tmp_path, mosquitto, AppSettings(clock=TimeControl.parse("600+5")))
    try:
        moves = random_game(4).moves
        a, b = pair.a, pair.b
        # Black thinks 3 s on board A (its clock starts with the first lift: lift, 3 s, place).
        b_before = b.rig.clock.now_ms()
        start, end = moves[0].path[0], moves[0].path[-1]
        a.rig.script(f"lift {start}\nwait 3000\nplace {end}\nwait 600")
        assert a.game.ply == 1
        black_left = a.left()[BLACK]
        assert a.link.times() == {"left": black_left, "used": 605_000 - black_left}  # what its move line carries
        # So does the link's state (a greeting's last move), for a board that took the line but not its time.
        last = a.link.state()["last"]
        assert last["ply"] == 1 and {"left": last["left"], "used": last["used"]} == a.link.times()
        assert 605_000 - 3_000 - 1_000 < black_left < 605_000 - 3_000  # 3 s and the switches settling
        # The move reaches board B 5 s late, and B's people take 4 s to make it there:
        # 9 s on B's clock that are nobody's.
        b.rig.clock.advance(5_000)
        pair.wait(lambda: b.rig.app.tracker.expected == moves[0], "B shows Black's move", boards=(b,))
        b.rig.wait(4_000)
        b.rig.follow(wait=600)
        assert b.game.ply == 1 and b.rig.clock.now_ms() - b_before > 9_000
        assert b.left() == a.left()  # Black's time as board A measured it, White's untouched
        # White thinks 7 s on board B; board A hears of it 6 s late and takes 2 s to make it.
        start, end = moves[1].path[0], moves[1].path[-1]
        b.rig.script(f"lift {start}\nwait 7000\nplace {end}\nwait 600")
        white_left = b.left()[WHITE]
        assert 605_000 - 7_000 - 1_000 < white_left < 605_000 - 7_000
        a.rig.clock.advance(6_000)
        pair.wait(lambda: a.rig.app.tracker.expected == moves[1], "A shows White's move", boards=(a,))
        a.rig.wait(2_000)
        a.rig.follow(wait=600)
        assert a.left() == b.left() == {BLACK: black_left, WHITE: white_left}
        # Both boards show the same times while Black's clock runs again.
        for board in (a, b):
            state = board.rig.app.clock_state(board.rig.clock.now_ms())
            assert state is not None and state[1] == white_left
        # The record: each board's saved game has the same times, each move's as its
        # mover's board measured it (not the 9 s and 8 s the moves took to be made far away).
        pair.play(moves[2])
        pair.play(moves[3])
        assert a.left() == b.left()
        times = a.rig.app.record.times
        assert times == b.rig.app.record.times == tuple(b.rig.store.load_current().times)
        assert [t[0] for t in times] == [1, 2, 3, 4]
        assert times[0][1:] == (black_left, 605_000 - black_left) and 3_000 <= times[0][2] < 4_000
        assert times[1][1:] == (white_left, 605_000 - white_left) and 7_000 <= times[1][2] < 8_000
        # The game ends: both boards keep the same PDN, each move with its clock.
        a.rig.sim.press("black_resign", long=True)
        a.rig.wait(100)
        pair.wait(lambda: b.game.is_over, "B's game over")
        pdns = [next(Path(board.rig.store.games_dir).glob("*.pdn")).read_text() for board in (a, b)]
        assert pdns[0].split("\n\n", 1)[1] == pdns[1].split("\n\n", 1)[1]
        assert f"{moves[0].pdn()} {{[%clk 0:{(black_left // 1000) // 60:02d}:{black_left // 1000 % 60:02d}]" in pdns[0]
        assert len(re.findall(r"\{\[%clk \d:\d\d:\d\d\]\s+\[%emt\s+0:00:0\d\]\}", pdns[0])) == 4, pdns[0]
    finally:
        pair.close()


def test_a_draw_claimed_on_one_board_ends_the_game_on_both(tmp_path: Path, mosquitto: Mosquitto) -> None:
    from crownhead.rules import Position

    pair = Pair(tmp_path, mosquitto, AppSettings(start=Position.from_fen("B:WK32:BK1")))
    try:
        for text in ["1-6", "32-27", "6-1", "27-32"] * 2:
            (move,) = [m for m in pair.a.game.legal_moves() if m.pdn(full=True) == text]
            pair.play(move)
        # The position has come three times: Black, to move, claims on board A.
        pair.a.rig.sim.press("claim")
        pair.a.rig.wait(100)
        pair.wait(lambda: pair.b.game.is_over, "B's game over")
        for board in (pair.a, pair.b):
            result = board.game.result
            assert result is not None and (result.score, result.reason) == ("1/2-1/2", "repetition")
    finally:
        pair.close()


def test_a_side_resigns_only_on_its_own_board(tmp_path: Path, mosquitto: Mosquitto) -> None:
    pair = Pair(tmp_path, mosquitto, AppSettings(clock=TimeControl.parse("20")))
    try:
        a, b = pair.a, pair.b
        # Board B's people press Black's resign and draw buttons: Black plays far away.
        b.rig.sim.press("black_resign", long=True)
        b.rig.sim.press("black_draw")
        b.rig.wait(100)
        assert not b.game.is_over and b.rig.app.session.draw_offer is None
        assert any("Black plays at the board far away" in n for n in b.notices())
        # Board B resigns for Black all the same (as a page's `resign black` would): board
        # A refuses the other board's word for its own side's resignation.
        b.link.emit(b.rig.app.resign(BLACK, confirmed=True))
        b.rig.wait(100)
        assert b.game.is_over
        pair.wait(lambda: any("the other board says Black resigned" in n for n in a.notices()), "A refuses it")
        assert not a.game.is_over
    finally:
        pair.close()


def test_a_side_s_flag_falls_on_its_own_board_only(tmp_path: Path, mosquitto: Mosquitto) -> None:
    pair = Pair(tmp_path, mosquitto, AppSettings(clock=TimeControl.parse("20")))
    try:
        a, b = pair.a, pair.b
        pair.play(Move((11, 15)))
        # White's 20 s run out on board A's clock (its move has not come): A calls no flag,
        # White's time is board B's to keep.
        a.rig.clock.advance(25_000)
        a.rig.step()
        state = a.rig.app.clock_state(a.rig.clock.now_ms())
        assert state is not None and state[1] < 0  # White's time on A's clock: gone
        a.rig.wait(1_000)
        assert not a.game.is_over and a.rig.app.next_deadline() != a.rig.app.board_clock.clock.flag_due()
        b.rig.script("lift 22\nwait 100")  # White starts thinking on B: its clock runs there
        b.rig.wait(21_000)
        assert b.game.result is not None and (b.game.result.score, b.game.result.reason) == ("1-0", "time")
        pair.wait(lambda: a.game.is_over, "A hears White lost on time")
        assert a.game.result is not None and (a.game.result.score, a.game.result.reason) == ("1-0", "time")
    finally:
        pair.close()


def test_a_game_over_far_apart_is_final_on_both_boards(pair: Pair) -> None:
    # White (board B) resigns; its takeback then reopened the game on board B alone (on
    # one board it takes a resignation back): the other board kept the win.
    pair.play(Move((11, 15)))
    pair.b.rig.sim.press("white_resign", long=True)
    pair.b.rig.wait(100)
    pair.wait(lambda: pair.a.game.is_over, "A hears White resigned")
    pair.b.rig.sim.press("takeback")
    pair.b.rig.wait(600)
    pair.a.rig.sim.press("takeback")  # nor is it taken back by the winner's board
    pair.a.rig.wait(600)
    pair.wait(lambda: pair.a.transport.pending == 0 == pair.b.transport.pending, "every line acknowledged")
    for board in (pair.a, pair.b):
        result = board.game.result
        assert result is not None and (result.score, result.reason) == ("1-0", "resign")
        assert board.game.moves == [Move((11, 15))]
        assert any("White resigned: in a game far apart a resignation is final" in n for n in board.notices())


def test_a_takeback_asked_before_the_other_board_made_the_move_is_put_there_once_it_has(pair: Pair) -> None:
    """(Issue 51.) A side asks right after its own move, before the people far away made
    it: the other board puts the request to them once they have made the move, on its
    screen too (not in its log only), and its takeback button agrees, never asking back
    to take the asker's move back on its behalf."""
    move = random_game(4).moves[0]
    pair.a.rig.do(move.pdn(full=True), wait=600)  # Black moves...
    pair.a.rig.sim.press("takeback")  # ...and asks at once to take it back
    pair.a.rig.wait(100)
    assert pair.a.game.ply == 1
    pair.wait(lambda: pair.b.rig.app.tracker.expected == move, "B shows Black's move")
    pair.wait(lambda: pair.b.link.peer_lines >= 3, "B has the request too", step_ms=50)
    assert not any("asks to take back" in n for n in pair.b.notices())  # not before the move is made there
    pair.b.rig.follow(wait=600)  # B's people make Black's move
    assert pair.b.game.ply == 1
    pair.wait(lambda: any("Black asks to take back" in n for n in pair.b.notices()), "B is asked")
    assert "Black asks to take back" in pair.b.rig.app.view().message  # on its screen and pages
    pair.b.rig.sim.press("takeback")  # White agrees
    pair.b.rig.wait(100)
    assert not any("asked Black to take back" in n for n in pair.b.notices()), pair.b.notices()
    assert pair.b.game.ply == 0
    pair.b.rig.follow()  # B's hands put Black's man back
    pair.wait(lambda: pair.a.game.ply == 0, "A takes the move back too")


def test_a_board_asks_to_take_back_its_own_side_s_move_only(pair: Pair) -> None:
    move = random_game(4).moves[0]
    pair.play(move)  # Black's move, made on both
    pair.b.rig.sim.press("takeback")  # White asks nothing of Black's move
    pair.b.rig.wait(100)
    assert pair.b.game.ply == 1
    assert not any("asked Black to take back" in n for n in pair.b.notices()), pair.b.notices()
    assert any("only Black may ask to take it back" in n for n in pair.b.notices()), pair.b.notices()


def test_a_side_s_own_resignation_echoed_back_is_no_news_on_its_board(pair: Pair) -> None:
    """(Issue 51.) White resigns on its own board (the phone's page, or a board): the
    other board ends the game and its game-over line comes back; White's board must not
    then say the game goes on, as if the other board claimed White's resignation."""
    pair.play(random_game(4).moves[0])
    b = pair.b
    b.rig.sim.press("white_resign", long=True)
    b.rig.wait(100)
    if not b.game.is_over:  # a confirmation asked for: pressed again
        b.rig.sim.press("white_resign", long=True)
        b.rig.wait(100)
    assert b.game.is_over
    pair.wait(lambda: pair.a.game.is_over, "A hears White resigned")
    pair.wait(lambda: b.link.peer_lines >= pair.a.transport.journal.seq, "B has every line of A's", step_ms=50)
    b.rig.wait(1000)
    assert not any("the game goes on here" in n for n in b.notices()), b.notices()
    assert "goes on" not in b.rig.app.view().message
