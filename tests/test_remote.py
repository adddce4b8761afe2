"""Two boards, two homes: a game between two whole board applications through a real
Mosquitto on loopback (the shipped configuration and ACL, see ``helpers/hallnet.py``).

Board A's people play Black, board B's White; each board is a :class:`helpers.rig.Rig`
whose link runs on a :class:`~crownhead.firmware.remote.transport.RemoteTransport`. The broker is
killed and started again mid-game, a board is closed mid-move and built again from its
state directory and journal, and messages are injected twice and out of order: both
boards end on the same moves and result.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.snapshot import Away
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.hall.acl import shipped_acl
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.board import Absence
from crownhead.firmware.remote.invite import Invitation, publish
from crownhead.firmware.remote.journal import Journal, Line
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.firmware.remote.wire import game_topic
from crownhead.hal.clock import VirtualClock
from crownhead.rules import BLACK, WHITE, Move

from helpers.games import random_game
from helpers.hallnet import Embedded, Mosquitto, REPO, needs_mosquitto, running_mosquitto
from helpers.net import WAIT_S, wait_for
from helpers.remote import Listener, publish_as, step_until
from helpers.rig import Rig

CODE = "k7qm2x"
ACCOUNTS = ["alice", "bob", "mallory"]


def test_the_shipped_acl_lets_a_board_write_only_its_own_topics_of_a_game() -> None:
    acl = shipped_acl()  # what the embedded broker enforces, and Mosquitto reads
    for kind in ("lines", "ack", "status", "invite"):
        assert acl.allows("alice", "alice", "write", game_topic(CODE, "alice", kind))
        assert not acl.allows("mallory", "mallory", "write", game_topic(CODE, "alice", kind))
    assert acl.allows("bob", "bob", "subscribe", f"crownhead/remote/{CODE}/alice/lines")
    assert not acl.allows("bob", "bob", "subscribe", "crownhead/#")
    assert not acl.allows("alice", "alice", "write", f"crownhead/remote/{CODE}/alice/lines/x")
    assert not acl.allows(None, "x", "read", game_topic(CODE, "alice", "lines"))


def test_a_broker_off_this_machine_needs_tls_and_every_board_an_account(tmp_path: Path) -> None:
    clock = Rig(None, start=False).clock
    with pytest.raises(ValueError, match="use mqtts://"):
        RemoteTransport(BrokerUrl.parse("mqtt://a:pw@broker.example"), CODE, "b", tmp_path / "j", clock, start=False)
    with pytest.raises(ValueError, match="account and password"):
        RemoteTransport(BrokerUrl.parse("mqtts://broker.example"), CODE, "b", tmp_path / "j", clock, start=False)
    with pytest.raises(ValueError, match="account of its own"):
        RemoteTransport(BrokerUrl.parse("mqtt://a:pw@127.0.0.1"), CODE, "a", tmp_path / "j", clock, start=False)
    waived = RemoteTransport(
        BrokerUrl.parse("mqtt://a:pw@broker.example"), CODE, "b", tmp_path / "j", clock, insecure=True, start=False
    )
    assert waived.url.host == "broker.example"


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ACCOUNTS) as broker:
        yield broker


class Home:
    """One board in its home: an application, its state directory and its journal."""

    def __init__(
        self,
        folder: Path,
        broker: Mosquitto,
        me: str,
        peer: str,
        plays: str,
        settings: AppSettings,
        *,
        grace_s: int = 60,
        away: str = "stop",
    ) -> None:
        self.folder, self.broker, self.me, self.peer, self.plays = folder, broker, me, peer, plays
        self.settings, self.grace_s, self.away = settings, grace_s, away
        self.open()

    def open(self) -> None:
        self.rig = Rig(self.folder / "state", settings=self.settings, start=False)
        url = BrokerUrl.parse(self.broker.url(self.me))
        self.transport = RemoteTransport(
            url,
            CODE,
            self.peer,
            self.folder / "journal.json",
            self.rig.clock,
            resend_ms=2000,
            cafile=getattr(self.broker, "cafile", None),
        )
        link = self.rig.connect(self.transport, LinkConfig(plays=self.plays), RemoteLink)  # as `run --remote` builds it
        assert isinstance(link, RemoteLink)
        link.away_clock = self.away
        self.absence = Absence(self.transport, self.grace_s, self.away, link)
        self.absence.attach(self.rig.app)
        self.rig.app.start()

    def notices(self) -> list[str]:
        return [e.to_json()["message"] for e in self.rig.events if e.kind == "notice"]

    def close(self, flush_s: float = 0.5) -> None:
        self.transport.close(flush_s=flush_s)
        self.rig.close()

    @property
    def game(self):  # noqa: ANN201
        return self.rig.game


class Homes:
    def __init__(
        self, tmp_path: Path, broker: Mosquitto, settings: AppSettings = AppSettings(), **absence: Any
    ) -> None:
        self.a = Home(tmp_path / "a", broker, "alice", "bob", "black", settings, **absence)
        self.b = Home(tmp_path / "b", broker, "bob", "alice", "white", settings, **absence)
        self.wait(
            lambda: (
                self.a.rig.link.game_id == self.b.rig.link.game_id
                and self.a.rig.link.peer_lines > 0
                and self.b.rig.link.peer_lines > 0
            ),
            "the boards agree on the game",
        )

    def wait(self, pred, what: str, step_ms: int = 20) -> None:  # noqa: ANN001
        """Step both boards (virtual time passing slowly, for resends) until ``pred()``."""
        step_until(pred, what, (self.a.rig, self.b.rig), step_ms)

    def play(self, move: Move) -> None:
        mover, other = (self.a, self.b) if self.a.game.turn is BLACK else (self.b, self.a)
        ply = mover.game.ply + 1
        mover.rig.do(move.pdn(full=True), wait=600)
        assert mover.game.ply == ply, f"{move} was not accepted on the mover's board"
        self.wait(lambda: other.rig.app.tracker.expected == move, f"{other.me} shows {move}")
        other.rig.follow(wait=600)
        assert other.game.ply == ply

    def same(self) -> None:
        a, b = self.a.game, self.b.game
        assert a.moves == b.moves and a.start == b.start and a.result == b.result

    def close(self) -> None:
        for home in (self.a, self.b):
            home.close(flush_s=0)


class Intruder(Listener):
    """A third account on the broker: it reads the game's lines (which the ACL lets any
    account do) and tries to write both boards' topics; it hears its own messages only if
    the broker took them."""

    def __init__(self, port: int, account: str, homes: Homes) -> None:
        super().__init__(port, account, [game_topic(CODE, board, "lines") for board in ("alice", "bob")])
        journal = homes.a.transport.journal
        forged = Journal(None, stream=journal.stream)
        forged.seq, forged.hash = journal.seq, journal.hash
        line = forged.add(json.dumps({"t": 1, "event": "game-over", "result": "1-0", "reason": "resign"}))
        self.forged = json.dumps(line.to_json(line.n)).encode()
        for board in ("alice", "bob"):
            for kind in ("lines", "ack"):
                self.client.publish(game_topic(CODE, board, kind), self.forged, qos=1).wait_for_publish(5)


class Recorder(Listener):
    """A third account that reads board A's lines (as the ACL lets any account)."""

    def __init__(self, port: int, account: str) -> None:
        super().__init__(port, account, [game_topic(CODE, "alice", "lines")])


@pytest.fixture
def homes(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[Homes]:
    h = Homes(tmp_path, mosquitto)
    yield h
    h.close()


@needs_mosquitto
def test_mosquitto_refuses_a_third_account_writing_the_game(mosquitto: Mosquitto, homes: Homes) -> None:
    moves = random_game(3).moves
    homes.play(moves[0])
    intruder = Intruder(mosquitto.port, "mallory", homes)
    try:
        homes.play(moves[1])  # the game goes on: the intruder hears its lines...
        assert wait_for(lambda: len(intruder.heard) >= 1)
    finally:
        intruder.close()
    assert intruder.forged not in intruder.heard  # ...but the broker took none of its own
    assert not homes.a.game.is_over and not homes.b.game.is_over
    assert homes.a.transport.refused == homes.b.transport.refused == 0
    homes.same()


@needs_mosquitto
def test_a_whole_game_through_a_broker_restart_a_board_restart_and_injected_copies(
    mosquitto: Mosquitto, homes: Homes
) -> None:

    moves = random_game(8).moves
    third = len(moves) // 3
    recorder = Recorder(mosquitto.port, "mallory")
    for move in moves[:third]:
        homes.play(move)
    # (Closed before the broker goes: closed after, it waited out its client's second
    # before trying the broker again.)
    recorder.close()
    # The broker goes down; the side to move moves meanwhile; the broker comes back.
    mosquitto.kill()
    mover = homes.a if homes.a.game.turn is BLACK else homes.b
    other = homes.b if mover is homes.a else homes.a
    mover.rig.do(moves[third].pdn(full=True), wait=600)
    assert other.game.ply == third
    mosquitto.start()
    homes.wait(lambda: other.rig.app.tracker.expected == moves[third], "the move made while the broker was down")
    other.rig.follow(wait=600)
    # Every message of A's so far (a third account may read them) again, twice, in
    # reverse order, later in the game: nothing changes.
    copies = list(recorder.heard)[::-1]
    assert copies
    for move in moves[third + 1 : 2 * third]:
        homes.play(move)
    # Board B goes away in the middle of a move (its piece lifted) and comes back from
    # its state directory and journal.
    mover = homes.a if homes.a.game.turn is BLACK else homes.b
    if mover is homes.b:
        homes.play(moves[2 * third])
        start = 2 * third + 1
    else:
        start = 2 * third
    homes.a.rig.do(moves[start].pdn(full=True), wait=600)  # A (Black) moves
    homes.wait(lambda: homes.b.rig.app.tracker.expected == moves[start], "B shows A's move")
    homes.b.rig.script(f"lift {moves[start].path[0]}\nwait 100")  # B's hand on the piece
    homes.b.close(flush_s=0)  # the power goes
    homes.b.open()
    homes.b.rig.follow(wait=600)  # B's people set up the saved game, as its lights ask
    homes.wait(lambda: homes.b.rig.app.tracker.expected == moves[start], "B, back, shows A's move")
    homes.b.rig.follow(wait=600)
    # Copies of old lines from A's account (a broker delivering late) are dropped.
    publish_as(mosquitto.port, "alice", game_topic(CODE, "alice", "lines"), copies * 2)
    homes.wait(lambda: homes.b.transport.duplicates >= len(copies) * 2, "B drops every copy")
    for move in moves[start + 1 :]:
        homes.play(move)
    homes.wait(lambda: homes.a.game.is_over and homes.b.game.is_over, "both games over")
    homes.same()
    assert homes.b.transport.refused == 0
    files = [next(Path(home.rig.store.games_dir).glob("*.pdn")).read_text() for home in (homes.a, homes.b)]
    assert files[0].split("\n\n", 1)[1] == files[1].split("\n\n", 1)[1]  # the same moves and result


@needs_mosquitto
def test_a_cut_of_30_s_and_a_board_away_past_its_grace_are_shown_and_stop_the_clock(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    homes = Homes(tmp_path, mosquitto, AppSettings(clock=TimeControl.parse("600+5")))
    try:
        moves = random_game(5).moves
        for move in moves[:3]:
            homes.play(move)
        clock = homes.b.rig.app.board_clock
        assert clock is not None and clock.clock.running is not None and not clock.clock.paused
        mosquitto.kill()
        # Both see it go (a board's line to the broker notices in real time, not in the
        # virtual time run below).
        homes.wait(lambda: homes.a.absence.state == homes.b.absence.state == "the broker", "both see the broker go")
        assert clock.clock.paused
        left = clock.clock.saved()
        assert homes.b.rig.app.snapshot.away == Away("the broker", 60, "stop")
        for home in (homes.a, homes.b):
            home.rig.app.run_for(30_000)  # 30 s without the broker: nobody's time runs
        assert clock.clock.saved() == left
        # Both boards count the grace period down, on every screen and page.
        for home in (homes.a, homes.b):
            assert home.rig.app.snapshot.away == Away("the broker", 30, "stop")
            assert home.rig.app.view().away == (
                "the broker is out of reach: the game waits, the clock stopped; 0:30 of the grace period left"
            )
        mosquitto.start()
        homes.wait(lambda: homes.a.absence.state == homes.b.absence.state == "here", "both see the broker back")
        assert not clock.clock.paused and homes.b.rig.app.snapshot.away is None
        assert any("the broker is out of reach" in n for n in homes.b.notices())
        assert any("the broker is back after 3" in n for n in homes.b.notices()), homes.b.notices()
        homes.play(moves[3])
        # B goes (its owner switched it off): A says so, and after the grace says it is late.
        homes.b.close()
        homes.wait(lambda: homes.a.absence.state.startswith("the other board"), "A sees B go")
        homes.a.rig.app.run_for(61_000)
        assert any("longer than the grace period (60 s)" in n for n in homes.a.notices())
        assert homes.a.rig.app.snapshot.away == Away("the other board (bob)", 0, "stop")
        assert "past the grace period: the game is kept (the clock stopped)" in homes.a.rig.app.view().away
        a_clock = homes.a.rig.app.board_clock
        assert a_clock is not None and a_clock.clock.paused
        assert not homes.a.game.is_over
        homes.b.open()
        homes.b.rig.follow(wait=600)  # B's people set up the saved game
        homes.wait(lambda: homes.a.absence.state == "here", "A sees B back")
        homes.play(moves[4])
        homes.same()
    finally:
        homes.close()


@needs_mosquitto
def test_with_the_clock_running_a_board_away_past_its_grace_loses_on_time(tmp_path: Path, mosquitto: Mosquitto) -> None:
    homes = Homes(tmp_path, mosquitto, AppSettings(clock=TimeControl.parse("30")), grace_s=10, away="run")
    try:
        for move in random_game(8).moves[:3]:
            homes.play(move)
        a = homes.a.rig.app
        clock = a.board_clock
        assert clock is not None
        # White's board goes (switched off) while White is to move: its time runs on.
        homes.b.close()
        homes.wait(lambda: homes.a.absence.state.startswith("the other board"), "A sees B go")
        assert not clock.clock.paused and a.snapshot.away == Away("the other board (bob)", 10, "run")
        assert "the game waits, the clock runs; 0:10 of the grace period left" in a.view().away
        white = clock.clock.remaining(WHITE, homes.a.rig.clock.now_ms())
        homes.a.rig.app.run_for(5_000)
        assert clock.clock.remaining(WHITE, homes.a.rig.clock.now_ms()) == white - 5_000
        assert a.snapshot.away == Away("the other board (bob)", 5, "run") and not a.game.is_over
        homes.a.rig.app.run_for(5_000)  # past the grace: White may lose on time here
        assert a.snapshot.away == Away("the other board (bob)", 0, "run")
        assert "White loses on time here if its time runs out" in a.view().away
        assert any("the clock runs, and White loses on time here" in n for n in homes.a.notices())
        homes.a.rig.app.run_for(30_000)
        result = homes.a.game.result
        assert result is not None and (result.score, result.reason) == ("1-0", "time")
        # White's board comes back: it takes the other board's word for its flag.
        homes.b.open()
        homes.b.rig.follow(wait=600)  # its people set up the saved game
        homes.wait(lambda: homes.b.game.is_over, "B hears White lost on time")
        result = homes.b.game.result
        assert result is not None and (result.score, result.reason) == ("1-0", "time")
        assert homes.b.game.moves == homes.a.game.moves
        assert any("White lost on time while this board was out of reach" in n for n in homes.b.notices())
    finally:
        homes.close()


def test_an_invitation_says_what_the_clock_does_while_a_board_is_away() -> None:
    assert Invitation("k7qm2x", "home-a", "black").away == "stop"
    inv = Invitation("k7qm2x", "home-a", "black", away="run", grace_s=30)
    assert Invitation.from_json(inv.to_json()) == inv
    with pytest.raises(ValueError, match="away must be stop or run"):
        Invitation("k7qm2x", "home-a", "black", away="pause")


@needs_mosquitto
def test_a_board_coming_online_gets_what_was_sent_before_at_once(tmp_path: Path, mosquitto: Mosquitto) -> None:
    recorder = Recorder(mosquitto.port, "mallory")
    a = Home(tmp_path / "a", mosquitto, "alice", "bob", "black", AppSettings())
    b = None
    try:
        end = time.monotonic() + WAIT_S
        while not recorder.heard:  # A's hello went out, to nobody yet
            a.rig.app.run_for(1)  # (virtual time: far from A's resend)
            assert time.monotonic() < end
            time.sleep(0.002)
        resends = a.transport.resends
        # B's first connection: the broker had no session of B's to keep A's lines in.
        b = Home(tmp_path / "b", mosquitto, "bob", "alice", "white", AppSettings())
        while b.rig.link.peer_lines == 0:
            for home in (a, b):
                home.rig.app.run_for(1)  # (virtual time: far from A's resend)
            assert time.monotonic() < end, "B never heard A's hello"
            time.sleep(0.002)
        assert a.transport.resends == resends  # sent again as B came online, not at the resend
    finally:
        recorder.close()
        for home in (a, b):
            if home is not None:
                home.close(flush_s=0)


@needs_mosquitto
def test_a_board_that_died_while_the_broker_was_down_is_said_to_be_away(homes: Homes, mosquitto: Mosquitto) -> None:
    homes.play(random_game(3).moves[0])

    def a_says(text: str) -> None:
        end = time.monotonic() + WAIT_S
        while not any(text in n for n in homes.a.notices()):
            homes.a.rig.app.run_for(500)
            assert time.monotonic() < end, f"A never said {text!r}: {homes.a.notices()}"
            time.sleep(0.005)

    mosquitto.kill()
    homes.wait(lambda: not (homes.a.transport.connected or homes.b.transport.connected), "both lose the broker")
    # A's main loop sees the broker gone before it comes back (a board steps every 10 ms;
    # stepped only here, A would otherwise miss an outage shorter than B's closing).
    a_says("the broker is out of reach")
    homes.b.close(flush_s=0)  # B's power goes meanwhile: its last will cannot go out
    mosquitto.start()  # (it has B "online", retained, for good)
    a_says("the broker is back")
    a_says("the other board (bob) is out of reach")  # it never answered A's greeting
    clock = homes.a.rig.app.board_clock
    assert homes.a.absence.state == "the other board (bob)" and (clock is None or clock.clock.paused)
    homes.b.open()
    homes.b.rig.follow(wait=600)
    homes.wait(lambda: homes.a.absence.state == "here", "A sees B back")
    assert any("the other board (bob) is back" in n for n in homes.a.notices())


def test_a_journal_comes_back_from_disk_and_a_damaged_one_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "journal.json"
    journal = Journal(path)
    for text in ("one", "two", "three"):
        journal.add(text)
    journal.acked(1)
    journal.save()
    back = Journal.load(path)
    assert (back.stream, back.seq, back.hash, [x.text for x in back.pending]) == (
        journal.stream,
        3,
        journal.hash,
        ["two", "three"],
    )
    assert back.add("four").before == journal.hash  # the stream goes on unbroken
    path.write_text(path.read_text().replace('"two"', '"TWO"'))  # a line no longer matching its hash
    fresh = Journal.load(path)
    assert fresh.seq == 0 and fresh.stream != journal.stream
    assert [p.name for p in tmp_path.iterdir() if p.name != "journal.json"], "the damaged journal is kept aside"


def test_a_late_copy_from_a_stream_left_behind_is_a_duplicate_after_a_restart_too(tmp_path: Path) -> None:
    old, into = Journal(None, stream="old1"), Journal(tmp_path / "journal.json", stream="b2")
    first = old.add("one")  # sent alone: its oldest kept line is itself
    into.take(first)
    new = Journal(None, stream="new1")  # the other board lost its journal: a new stream
    assert into.check(new.add("hello"), low=1) == "join"
    into.take(new.pending[0])
    # A copy of the old stream's line, late (a broker's redelivery): not joined again,
    # which would hand the board its lines a second time and lose its place in the new one.
    assert into.check(first, low=1) == "duplicate"
    into.save()
    assert Journal.load(tmp_path / "journal.json").check(first, low=1) == "duplicate"


def test_a_gap_the_sender_can_no_longer_fill_is_skipped_and_a_forged_hash_refused() -> None:
    out, into = Journal(None, stream="a1"), Journal(None, stream="b2")
    lines = [out.add(f"line {i}") for i in range(1, 6)]
    into.take(lines[0])
    out.acked(3)  # (as if acknowledged by a board that then lost them)
    assert into.check(lines[4], low=out.low) == "skip"
    assert into.check(lines[1], low=1) == "take"
    forged = dict(lines[1].to_json(1), line="something else")
    with pytest.raises(ValueError, match="hash does not follow"):
        Line.from_json(forged)


@needs_mosquitto
def test_a_message_nested_too_deep_is_refused_and_the_board_hears_on(tmp_path: Path, mosquitto: Mosquitto) -> None:
    transport = RemoteTransport(
        BrokerUrl.parse(mosquitto.url("alice")), CODE, "bob", tmp_path / "j.json", VirtualClock()
    )
    try:
        assert wait_for(lambda: transport.connected)  # subscribed to bob's lines
        # A message nested too deep, and a line nested too deep in a well-formed message:
        # either ended the client's network thread (a RecursionError), and nothing more came.
        deep = Journal(None, stream="d33p").add("[" * 1400)
        hello = Journal(None, stream="b0b").add(json.dumps({"t": 1, "event": "hello"}))
        payloads = [b"[" * 1500, json.dumps(deep.to_json(1)).encode(), json.dumps(hello.to_json(1)).encode()]
        publish_as(mosquitto.port, "bob", game_topic(CODE, "bob", "lines"), payloads)
        heard: list[bytes] = []
        assert wait_for(lambda: heard.extend(transport.receive(1)) or heard)  # the line after them
        assert heard == [hello.text.encode()] and transport.refused == 2
    finally:
        transport.close(flush_s=0)


@needs_mosquitto
def test_a_resignation_and_a_takeback_cross_the_broker(homes: Homes) -> None:
    moves = random_game(8).moves
    homes.play(moves[0])
    # A asks to take its move back (the button); B agrees (its button): both take it back.
    homes.a.rig.sim.press("takeback")
    homes.a.rig.wait(600)
    homes.wait(lambda: any("asks to take back" in n for n in homes.b.notices()), "B is asked")
    assert homes.a.game.ply == homes.b.game.ply == 1
    homes.b.rig.sim.press("takeback")
    homes.b.rig.wait(100)
    homes.b.rig.follow()  # B's hands put the piece back
    homes.wait(lambda: homes.a.game.ply == 0, "A takes the move back")
    # B hears of it before A plays again: a line A sent before its takeback (its state
    # answering B's) may show B the move taken back, until A's takeback line comes.
    sent = homes.a.transport.journal.seq
    homes.wait(lambda: homes.b.transport.journal.taken >= sent, "B hears A's takeback")
    homes.a.rig.follow()
    for move in moves[:3]:
        homes.play(move)
    homes.b.rig.sim.press("resign", long=True)  # White to move resigns
    homes.b.rig.wait(100)
    homes.wait(lambda: homes.a.game.is_over, "A's game over")
    homes.same()
    result = homes.a.game.result
    assert result is not None and (result.score, result.reason) == ("1-0", "resign")


def certificates_as_the_docs_make_them(folder: Path, broker: str) -> None:
    """Run docs/remote.md's commands that make a CA and the broker's certificate."""
    text = (REPO / "docs" / "remote.md").read_text()
    block = text[text.index("BROKER=home-a.example") :].split("```", 1)[0]
    script = block.replace("BROKER=home-a.example", f"BROKER={broker}")
    done = subprocess.run(["sh", "-e", "-c", script], cwd=folder, capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    os.chmod(folder / "server.key", 0o600)


@needs_mosquitto
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_two_homes_play_over_tls_with_the_certificates_the_docs_make(tmp_path: Path) -> None:
    folder = tmp_path / "broker"
    folder.mkdir()
    certificates_as_the_docs_make_them(folder, "localhost")
    broker = Mosquitto(folder, users=ACCOUNTS, tls=folder)
    broker.start()
    try:
        # Without the home's CA a board does not trust the broker: nothing is sent.
        untrusted = BrokerUrl.parse(broker.url("alice"))
        with pytest.raises(ConnectionError, match="certificate verify failed"):
            publish(untrusted, Invitation(CODE, "alice", "black"), timeout_s=WAIT_S)
        homes = Homes(tmp_path, broker)
        try:
            assert homes.a.transport.url.tls
            for move in random_game(4).moves[:2]:
                homes.play(move)
            homes.same()
        finally:
            homes.close()
    finally:
        broker.close()


def test_the_embedded_broker_carries_a_game_and_refuses_a_third_account(tmp_path: Path) -> None:
    pytest.importorskip("amqtt")
    broker = Embedded(users=ACCOUNTS)
    broker.start()
    homes = Homes(tmp_path, broker)  # type: ignore[arg-type]
    try:
        moves = random_game(4).moves
        homes.play(moves[0])
        intruder = Intruder(broker.port, "mallory", homes)
        try:
            homes.play(moves[1])
            assert wait_for(lambda: len(intruder.heard) >= 1)
        finally:
            intruder.close()
        assert intruder.forged not in intruder.heard
        for move in moves[2:4]:
            homes.play(move)
        assert not homes.b.game.is_over and homes.b.transport.refused == 0
        homes.same()
    finally:
        homes.close()
        broker.close()
