"""Two board processes far apart (issue 44): two real ``crownhead run --remote CODE``, each
with its own state directory, play a whole game through a real Mosquitto on loopback (the
shipped configuration and ACL), driven from outside through their pages' WebSockets
(``hands`` for the mover's people, ``follow`` for the people making the other side's move
as the lights ask), through every fault the issue names:

* the broker killed (SIGKILL; its persistence as last saved) and started again mid-game,
  a move made while it is down;
* one board's line held (nothing crosses, the bytes wait and arrive late; the
  keep-alives time out) while its people move: both boards must say so within the
  keep-alive's bound and stop the clock, and go on when it is mended;
* a board killed (SIGKILL) with its move in its journal only (its line cut), switched on
  again before its line is back; the other killed with that board's next move half made
  (a piece in its people's hand) and switched on with its pieces in the start position:
  it says the saved game is to be set up, and its people set it up;
* copies of every line both boards sent, published again later, twice, in reverse order,
  from each board's own account (a broker or a bridge delivering late and twice).

Both boards end on the same record (the PDN each keeps: the very moves played and the
result), each move made once since each board's last start, every line acknowledged.
The regular test holds the line 2 s with the keep-alive set to 1 s (``[remote]
keepalive_s``) and ends the game by resignation; the slow one (``-m slow``) holds it 30 s
with the keep-alive as shipped and plays a random game to its end.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.remote.settings import RemoteConfig
from crownhead.firmware.remote.wire import game_topic
from crownhead.rules import Move
from crownhead.rules.pdn import read_game

from helpers.games import random_game
from helpers.hallnet import MOSQUITTO, Mosquitto, NO_MOSQUITTO, PASSWD, running_mosquitto
from helpers.remote import BoardProcess, Listener, Proxy, agree, publish_as

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)

CODE = "k7qm2x"
ACCOUNTS = ["alice", "bob", "mallory"]


class Match:
    """Board A (alice, Black) and board B (bob, White), each on its own line (a proxy) to
    the broker; the names and a clock of 600+5 agreed."""

    def __init__(self, tmp_path: Path, broker: Mosquitto, moves: list[Move], keepalive_s: int | None) -> None:
        self.broker, self.moves = broker, moves
        self.lines = {board: Proxy(broker.port) for board in ("alice", "bob")}
        agree(
            (tmp_path / "a", tmp_path / "b"),
            ("alice", "bob"),
            lambda me: self.lines[me].url(me),
            CODE,
            clock="600+5",
            black="Ann",
            white="Bo",
        )
        config = None
        if keepalive_s is not None:
            config = tmp_path / "config.toml"
            config.write_text(f"[remote]\nkeepalive_s = {keepalive_s}\n")
        self.a = BoardProcess(tmp_path / "a", CODE, config=config)
        self.b = BoardProcess(tmp_path / "b", CODE, config=config)
        self.a.start(wait=False)
        self.b.start()
        self.a.started()
        self.ply = 0
        self.settled()

    def line(self, board: BoardProcess) -> Proxy:
        return self.lines["alice" if board is self.a else "bob"]

    def boards(self) -> tuple[BoardProcess, BoardProcess]:
        """The board whose people move next, and the other."""
        return (self.a, self.b) if self.ply % 2 == 0 else (self.b, self.a)

    def settled(self) -> None:
        """Both boards have said hello and every line is acknowledged."""
        for board in (self.a, self.b):
            board.wait(lambda b=board: _journal_done(b), "every line acknowledged")

    def move(self) -> BoardProcess:
        """The next move made at its board (accepted there); the board that follows it."""
        mover, other = self.boards()
        move = self.moves[self.ply]
        mover.hands(move.pdn(full=True))
        self.ply += 1
        mover.wait(lambda: _game_moves(mover)[: self.ply] == _texts(self.moves[: self.ply]), f"{move} made")
        return other

    def follow(self, board: BoardProcess) -> None:
        """``board``'s people make the other board's move as its lights show it."""
        move = self.moves[self.ply - 1].pdn()

        def made() -> bool:
            if _game_moves(board)[: self.ply] == _texts(self.moves[: self.ply]):
                return True
            board.command("follow")  # what the lights ask: the move once shown, a set-up, ...
            time.sleep(0.05)
            return False

        board.wait(made, f"{board.state_dir.name} makes {move} from across")

    def play(self) -> None:
        self.follow(self.move())

    def close(self) -> None:
        for board in (self.a, self.b):
            if board.process is not None and board.process.poll() is None:
                board.stop()
        for line in self.lines.values():
            line.close()


def _texts(moves: list[Move]) -> list[str]:
    return [m.pdn(full=True) for m in moves]


def _journal_done(board: BoardProcess) -> bool:
    try:
        journal = board.journal()
    except (OSError, ValueError):
        return False
    return journal["seq"] > 0 and journal["pending"] == [] and journal["peer"]["taken"] > 0


def _clocks(board: BoardProcess) -> list[str]:
    """Each move's clock in the board's kept PDN: ``[%clk 0:09:58] [%emt 0:00:02]``."""
    (pdn,) = board.state_dir.glob("games/*.pdn")
    return [" ".join(found.split()) for found in re.findall(r"\[%clk\s+[^]]*\]\s+\[%emt\s+[^]]*\]", pdn.read_text())]


def _game_moves(board: BoardProcess) -> list[str]:
    """The moves of the board's game as it saved them (with each move): the game in
    progress, else the one it kept last."""
    try:
        return [str(m) for m in board.game()["moves"]]
    except FileNotFoundError:
        kept = sorted(board.state_dir.glob("games/*.pdn"), key=lambda p: p.stat().st_mtime)
        game = read_game(kept[-1].read_text()) if kept else None
        return [m.pdn(full=True) for m in game.moves] if game is not None else []
    except (OSError, ValueError, KeyError):
        return []


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ACCOUNTS) as broker:
        yield broker


def _away(board: BoardProcess, since: int = 0) -> bool:
    """Whether the board said (after its first ``since`` notices) that a line is down."""
    return any("out of reach" in n for n in board.notices()[since:])


def _back(board: BoardProcess, since: int = 0) -> bool:
    return any("is back after" in n for n in board.notices()[since:])


def play_through_every_fault(
    tmp_path: Path, mosquitto: Mosquitto, moves: list[Move], *, cut_s: float, keepalive_s: int | None
) -> Match:
    """The game of ``moves`` between two board processes through every fault (the
    module's text); a line held for ``cut_s``, the boards' keep-alive ``keepalive_s``
    (None: as shipped)."""
    match = Match(tmp_path, mosquitto, moves, keepalive_s)
    listener = Listener(mosquitto.port, "mallory", [game_topic(CODE, board, "lines") for board in ("alice", "bob")])
    try:
        match.play()
        # The broker goes down (killed) and the side to move moves meanwhile.
        mosquitto.kill()
        other = match.move()
        mosquitto.start()
        match.follow(other)
        # The line of the board to move goes dead without a word (held: nothing crosses);
        # its people move. Both boards notice within the keep-alive's bound (the board by
        # its own, the other as the broker gives up on it) and stop the clock.
        mover, _ = match.boards()
        held = match.line(mover)
        said = {board: len(board.notices()) for board in (match.a, match.b)}
        held.hold()
        since = time.monotonic()
        other = match.move()
        bound = 2 * (keepalive_s or RemoteConfig().keepalive_s) + 4  # (and room for a busy machine)
        for board in (match.a, match.b):
            left = max(0.0, since + bound - time.monotonic())
            board.wait(lambda b=board: _away(b, said[b]), "the dead line noticed", timeout_s=left)
        for board in (match.a, match.b):
            board.wait(lambda b=board: b.view()["clock"]["paused"], "the clock stopped")
            # Both boards count the grace period down on their pages (the view's `away`).
            board.wait(lambda b=board: "of the grace period left" in b.view()["away"], "the grace counted down")
        time.sleep(max(0.0, since + cut_s - time.monotonic()))
        held.mend()
        match.follow(other)
        for board in (match.a, match.b):
            board.wait(lambda b=board: _back(b, said[b]), "the line back, said")
            board.wait(lambda b=board: not b.view()["clock"]["paused"], "the clock going again")
            assert board.view()["away"] == ""
        # A's line is cut and its people move: the move is in A's journal alone when the
        # power goes (SIGKILL). A comes back with the line and the other board has the move.
        if match.boards()[0] is match.b:
            match.play()
        match.line(match.a).cut()
        move = moves[match.ply]
        match.move()
        match.a.wait(
            lambda: any(f'"{move.pdn()}"' in x[3] for x in match.a.journal()["pending"]), "A's line journalled"
        )
        match.a.kill()
        match.a.start()  # before the line is back (a router slower to start than the board)
        time.sleep(0.5)
        match.line(match.a).mend()
        match.follow(match.b)
        # Board B is switched off with A's next move half made (the piece in its people's
        # hand) and comes back with its pieces as they were at the start (it was moved
        # off its table): it says the saved game is to be set up, and its people do so.
        match.play()  # B's move, made on A
        match.move()  # A's
        start = moves[match.ply - 1].start
        match.b.wait(lambda: start in match.b.view()["roles"].get("move-from", []), "B shows A's move")
        lifted = match.b.command(f"touch {start}")
        assert lifted.get("ok") and lifted.get("hand"), lifted
        match.b.kill()
        match.b.start(keep_game=False)
        match.b.wait(lambda: match.b.view()["resuming"], "B asks for its saved game's pieces")
        assert any("it resumes when its position stands on the board" in n for n in match.b.notices())
        match.follow(match.b)
        # Copies of every line both boards sent so far, again, twice and in reverse order.
        copies: dict[str, list[bytes]] = {"alice": [], "bob": []}
        for topic, payload in list(listener.messages):
            copies[topic.split("/")[3]].append(payload)
        assert copies["alice"] and copies["bob"]
        for board, payloads in copies.items():
            publish_as(mosquitto.port, board, game_topic(CODE, board, "lines"), payloads[::-1] * 2)
        while match.ply < len(moves):
            match.play()
    except BaseException:
        match.close()
        raise
    finally:
        listener.close()
    return match


def check_same_record(match: Match, result: str) -> None:
    match.settled()
    files = []
    for board in (match.a, match.b):
        board.wait(lambda b=board: any(b.state_dir.glob("games/*.pdn")), "the game kept")
        (pdn,) = board.state_dir.glob("games/*.pdn")
        game = read_game(pdn.read_text())
        assert game is not None and game.ok
        files.append(game)
    a, b = files
    assert _texts(a.moves) == _texts(b.moves) == _texts(match.moves)
    assert a.result == b.result == result
    assert (a.tags["Black"], a.tags["White"]) == (b.tags["Black"], b.tags["White"]) == ("Ann", "Bo")  # as agreed
    # The same record of each move's time (time left and time used, each side's as its own
    # board measured it), whatever the boards went through.
    clocks = [_clocks(board) for board in (match.a, match.b)]
    assert clocks[0] == clocks[1] and len(clocks[0]) == len(match.moves), clocks
    for board in (match.a, match.b):
        assert not any("refused" in line for line in board.log), board.log
        assert not any("out of step" in n or "another game" in n for n in board.notices())
        # Since its last start the board made each move once, in order, and took none back.
        plies = [e["ply"] for e in board.events if e.get("event") in ("move", "takeback")]
        assert plies and plies == list(range(plies[0], len(match.moves) + 1)), plies


def test_two_board_processes_play_a_game_through_a_broker_restart_kills_a_cut_and_copies(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    moves = random_game(8).moves[:8]
    match = play_through_every_fault(tmp_path, mosquitto, moves, cut_s=2, keepalive_s=1)
    try:
        reply = match.a.command("resign black")  # Black (A) to move resigns: the game ends on both boards
        assert reply.get("ok"), reply
        check_same_record(match, "0-1")
    finally:
        match.close()


@pytest.mark.slow
def test_two_board_processes_play_a_whole_game_through_a_30_s_outage(tmp_path: Path, mosquitto: Mosquitto) -> None:
    game = random_game(8)
    match = play_through_every_fault(tmp_path, mosquitto, game.moves, cut_s=30, keepalive_s=None)
    try:
        assert game.result is not None
        check_same_record(match, game.result.score)
    finally:
        match.close()


def test_a_board_killed_after_the_first_move_resumes_its_game_and_shows_the_next(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """(Issue 51.) White's board is killed (SIGKILL) a second after Black's first move
    was made there, switched on again with the same command (its people set the saved
    game up), and plays on: Black's next move reaches it. (It said "the other board
    started a new game: press new here to join it", and never showed Black's moves,
    though its link acknowledged them.)"""
    moves = [Move((11, 15)), Move((23, 19)), Move((8, 11))]
    match = Match(tmp_path, mosquitto, moves, keepalive_s=1)
    try:
        match.play()  # 11-15 on A, made on B
        time.sleep(1.0)
        match.b.kill()
        match.b.start(keep_game=False)  # its pieces as they stood at the start: set up again
        match.b.wait(
            lambda: match.b.command("follow").get("ok") is not None and not match.b.view().get("resuming"),
            "B's people set the saved game up",
        )
        match.play()  # 23-19 on B, made on A
        match.play()  # 8-11 on A, made on B
        assert _game_moves(match.a) == _game_moves(match.b) == _texts(moves)
        assert not any("started a new game" in n for n in match.b.notices()), match.b.notices()
    finally:
        match.close()
