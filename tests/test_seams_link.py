"""The host link and referee mode together: a side played over the link, the names, the
configured referee, a result that comes too late, and who asks for the balloted moves.

The host here is the test itself, on an in-memory line transport (the serial code has its
own tests over ptys in ``test_link_host``): each command goes in, the board steps once,
and the one answer comes out.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.app.application import App
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.cli import main
from crownhead.firmware.cli import run as run_command
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.protocol import LinkError
from crownhead.firmware.referee.arbiter import RefereeSettings
from crownhead.firmware.simulator.hands import Hands
from crownhead.rules import BLACK, RUSSIAN, WHITE, Move, Position
from crownhead.squares import bit

from helpers.rig import Rig


class Wire:
    """A :class:`~crownhead.firmware.link.transport.LineTransport` in memory: lines in, lines out."""

    def __init__(self) -> None:
        self.inbox: deque[bytes | LinkError] = deque()
        self.sent: list[dict[str, Any]] = []
        self._fresh: str | None = "connect"

    def take_fresh(self) -> str | None:
        fresh, self._fresh = self._fresh, None
        return fresh

    def resume(self, *first: bytes) -> None:
        for line in first:
            self.send(line)

    def send(self, line: bytes) -> bool:
        self.sent.append(json.loads(line))
        return True

    def receive(self, limit: int) -> list[bytes | LinkError]:
        out: list[bytes | LinkError] = []
        while self.inbox and len(out) < limit:
            out.append(self.inbox.popleft())
        return out

    def close(self) -> None:
        pass


def wired_board(
    tmp: Path,
    *,
    mode: str = "play",
    plays: str = "both",
    start: Position | None = None,
    referee: RefereeSettings | None = None,
    configured: RefereeSettings | None = None,
) -> Rig:
    """The application on the simulated board with a link to the test (the host) on a :class:`Wire`."""
    rig = Rig(
        tmp / "state",
        board=start,
        settings=AppSettings(mode=mode, start=start),
        referee=referee,
        referee_settings=configured,
        start=False,
    )
    rig.connect(Wire(), LinkConfig(plays=plays))
    rig.app.start()
    return rig


def ask(board: Rig, line: str) -> dict[str, Any]:
    """Send a command and return its one answer (a reply or an error)."""
    board.transport.inbox.append(line.encode())
    before = len(board.transport.sent)
    board.step()
    answers = [d for d in board.transport.sent[before:] if d["event"] in ("reply", "error")]
    assert len(answers) == 1, answers
    return answers[0]


# -- (a) a side played over the link, in referee mode too --------------------------------------


def test_in_referee_mode_a_move_for_the_linked_side_is_refused_and_no_offence(tmp_path: Path) -> None:
    board = wired_board(tmp_path, mode="referee", plays="black", referee=RefereeSettings())
    board.do("11-15")
    assert board.game.ply == 1
    # A hand at Black's board moves White's man: refused, not accepted and left standing.
    board.do("22-18")
    assert board.game.ply == 1 and [m["move"] for m in board.of_kind("move")] == ["11-15"]
    warning = board.of_kind("warning")[-1]
    assert "the other end of the link: wait" in warning["message"]
    # Nothing done here with White's pieces is White's offence: its player is not here.
    board.follow()  # the hands put the man back
    Hands(board.app).act_text("30")  # lift a White piece that cannot move, then put it back
    board.app.run_for(500)
    Hands(board.app).act_text("30")
    board.app.run_for(500)
    assert not board.of_kind("caution") and board.app.referee is not None and board.app.referee.cautions(WHITE) == 0
    # White's move from the host is shown, and made.
    assert ask(board, "play 22-18")["ok"]
    assert board.app.tracker.expected == Move((22, 18))
    board.follow()
    assert [m.pdn() for m in board.game.moves] == ["11-15", "22-18"]


# -- (b) names reach the tournament record ---------------------------------------------------


def test_names_from_the_host_reach_the_referees_record_and_the_next_games(tmp_path: Path) -> None:
    record = tmp_path / "record"
    board = wired_board(tmp_path, mode="referee", referee=RefereeSettings(record_dir=str(record)))
    referee = board.app.referee
    assert referee is not None and referee.names == ("?", "?")
    assert ask(board, "names Ann;Bob")["ok"]
    assert referee.names == ("Ann", "Bob")
    pdn = referee.pdn(board.app.session)
    assert '[Black "Ann"]' in pdn and '[White "Bob"]' in pdn
    board.do("11-15")
    live = (record / "live.pdn").read_text()
    assert '[Black "Ann"]' in live and '[White "Bob"]' in live
    # The next game of the pair: colours reversed, on the board and in the record.
    assert ask(board, "result 1/2-1/2 agreement")["ok"]
    assert ask(board, "new")["ok"]
    board.follow()
    assert referee.names == ("Bob", "Ann")
    assert (board.app.players[BLACK].name, board.app.players[WHITE].name) == ("Bob", "Ann")


# -- (c) `mode referee` gets the configured referee ------------------------------------------


def test_mode_referee_from_the_host_uses_the_configured_referee(tmp_path: Path) -> None:
    record = tmp_path / "record"
    configured = RefereeSettings(
        style="record",
        clock=TimeControl.parse("300+5"),
        event="Club final",
        black="Ann",
        white="Bob",
        record_dir=str(record),
    )
    board = wired_board(tmp_path, configured=configured)
    assert board.app.referee is None
    assert ask(board, "mode referee")["ok"]
    referee = board.app.referee
    assert referee is not None and referee.settings.style == "record" and referee.style == "record"
    assert board.app.clock_state(board.clock.now_ms())[:2] == (300_000, 300_000)
    assert referee.names == ("Ann", "Bob") and board.app.players[BLACK].name == "Ann"
    assert '[Event "Club final"]' in (record / "live.pdn").read_text()
    # Back and forth before the first move: the same arbiter, its session going on.
    assert ask(board, "mode play")["ok"] and board.app.referee is None
    assert ask(board, "mode referee")["ok"] and board.app.referee is referee and referee.games == 2


def test_mode_referee_takes_the_boards_own_names_over_the_configured_ones(tmp_path: Path) -> None:
    board = wired_board(tmp_path, configured=RefereeSettings(black="Ann", white="Bob"))
    assert ask(board, "names Cy;?")["ok"]
    assert ask(board, "mode referee")["ok"]
    assert board.app.referee is not None and board.app.referee.names == ("Cy", "Bob")
    assert board.app.record is not None and (board.app.record.black, board.app.record.white) == ("Cy", "Bob")


def test_crownhead_run_hands_the_referee_section_to_a_board_started_in_play_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: list[App] = []

    class Watched(App):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(run_command, "App", Watched)
    config = tmp_path / "c.toml"
    config.write_text('[referee]\nstyle = "record"\nclock = "300+5"\nevent = "Open"\n')
    script = tmp_path / "script.txt"
    script.write_text("wait 100\n")
    state = tmp_path / "state"
    assert main(["run", "--script", str(script), "--config", str(config), "--state-dir", str(state)]) == 0
    (app,) = made
    assert app.referee is None and app.mode.name == "play"
    settings = app.referee_settings
    assert (settings.style, str(settings.clock), settings.event) == ("record", "300+5", "Open")
    assert settings.record_dir == str(state / "referee")


# -- (d) a result the game has overtaken ----------------------------------------------------


def test_a_result_that_comes_after_the_game_ended_is_reported_as_refused(tmp_path: Path) -> None:
    start = Position.from_fen("B:W18:B14")  # 14x23 takes White's last piece
    board = wired_board(tmp_path, mode="referee", start=start, referee=RefereeSettings())
    Hands(board.app).act_text("14x23")
    board.app.run_for(100)  # the capture stands on the board, not yet settled
    assert board.game.ply == 0
    # The arbiter's decision arrives once the capture is due, before the board's next step:
    # the referee accepts the capture first, and it ends the game.
    now = board.clock.now_ms() + 400
    board.transport.inbox.append(b"result 0-1 forfeit")
    before = len(board.transport.sent)
    events = board.link.poll(now)
    (answer,) = [d for d in board.transport.sent[before:] if d["event"] in ("reply", "error")]
    assert answer["event"] == "error" and answer["code"] == "not-now"
    assert answer["message"] == "the game had already ended: 1-0 (no-moves); 0-1 was not applied"
    result = board.game.result
    assert result is not None and (result.score, result.reason) == ("1-0", "no-moves")
    assert [e.kind for e in events if e.kind in ("move", "game-over")] == ["move", "game-over"]


def test_a_result_is_applied_while_the_game_goes_on(tmp_path: Path) -> None:
    board = wired_board(tmp_path, mode="referee", referee=RefereeSettings())
    board.do("11-15")
    reply = ask(board, "result 0-1 forfeit")
    assert reply["ok"] and (reply["result"], reply["reason"]) == ("0-1", "forfeit")
    result = board.game.result
    assert result is not None and (result.score, result.reason) == ("0-1", "forfeit")
    assert ask(board, "result 1-0 time")["code"] == "not-now"


# -- (e) in referee mode only the referee asks for the balloted moves ------------------------


def test_a_ballot_chosen_in_play_mode_is_handed_to_the_referee(tmp_path: Path) -> None:
    board = wired_board(tmp_path, configured=RefereeSettings())
    assert ask(board, "ballot 5")["ok"]
    assert board.app.tracker.expected == Move((9, 13))
    assert ask(board, "mode referee")["ok"]
    referee = board.app.referee
    assert referee is not None and referee.ballot is not None and referee.ballot.number == 5
    assert board.link.requests.ballot is None  # the link no longer plays it
    assert [b["number"] for b in board.of_kind("ballot")] == [5]
    for move in ("9-13", "22-18", "6-9"):
        assert str(board.app.tracker.expected) == move
        assert str(referee.ballot_move(board.game)) == move
        assert board.link.requests.expect is None  # the expectation is the referee's alone
        board.follow()
    assert [m.pdn() for m in board.game.moves] == ["9-13", "22-18", "6-9"]
    assert board.app.tracker.expected is None and '[Ballot "5"]' in referee.pdn(board.app.session)


def test_a_referees_ballot_goes_on_under_the_link_in_play_mode(tmp_path: Path) -> None:
    board = wired_board(tmp_path, mode="referee", referee=RefereeSettings(ballot=5))
    assert board.app.tracker.expected == Move((9, 13))
    assert ask(board, "mode play")["ok"] and board.app.referee is None
    assert board.link.requests.ballot is not None and board.link.requests.ballot[0] == 5
    for move in ("9-13", "22-18", "6-9"):
        assert str(board.app.tracker.expected) == move
        board.follow()
    assert [m.pdn() for m in board.game.moves] == ["9-13", "22-18", "6-9"]


def test_a_host_move_cannot_override_the_referees_ballot(tmp_path: Path) -> None:
    board = wired_board(tmp_path, mode="referee", referee=RefereeSettings(ballot=5))
    error = ask(board, "play 11-15")
    assert error["code"] == "illegal-move" and error["message"] == "the ballot's move 1 is 9-13"
    assert board.app.tracker.expected == Move((9, 13))
    assert ask(board, "play 9-13")["ok"]
    board.follow()
    assert str(board.app.tracker.expected) == "22-18"


def test_lifting_a_linked_sides_piece_lights_it_to_be_put_back(tmp_path: Path) -> None:
    board = wired_board(tmp_path, plays="white")
    Hands(board.app).act_text("9")  # Black is played over the link: a hand lifts Black's man
    board.app.run_for(100)
    tracker = board.app.tracker
    assert tracker.touched is None and tracker.roles == {9: "missing"}
    assert tracker.board == Position.start().occupied & ~bit(9)
    assert (
        board.app.view().prompt == "Black's moves come from the other end of the link: wait until the board shows one."
    )


def test_the_other_boards_russian_capture_is_followed_under_russian_rules(tmp_path: Path) -> None:
    # White's man on 9 jumps 6 to the king row at 2 and, a king there under Russian rules,
    # jumps on over 7 to 11. Read by English rules the man would stay a man on 11, and
    # the other board's state after the move would look like another game.
    start = Position.from_fen("W:W9:B6,7,32")
    capture = Move((9, 2, 11), (6, 7))
    after = start.apply(capture, RUSSIAN)
    assert after.fen() == "B:WK11:B32"
    board = Rig(tmp_path / "state", board=start, settings=AppSettings(start=start, rules=RUSSIAN), start=False)
    board.connect(Wire(), LinkConfig(plays="black"))
    board.app.start()
    assert board.link is not None and board.game.ply == 0
    state = {
        "t": 0,
        "event": "state",
        "game": str(board.link.game_id),
        "start": start.fen(),
        "fen": after.fen(),
        "ply": 1,
        "last": {"ply": 1, "side": "white", "path": [9, 2, 11], "captures": [6, 7]},
    }
    board.transport.inbox.append(json.dumps(state).encode())
    board.step()
    board.app.run_for(100)
    notices = [e.to_json()["message"] for e in board.events if e.kind == "notice"]
    assert notices == []
    assert board.app.tracker.expected == capture  # shown on the lights, to be made here


# -- (f) the view is the snapshot's --------------------------------------------------------------


def test_the_view_of_a_resumed_referee_game_shows_it_as_the_board_does(tmp_path: Path) -> None:
    """The link's view is drawn from the step's snapshot, as the board's screen is: while a
    saved referee game (game 2, colours reversed) is set up to resume, the names stand on
    their colours and the cautions are the saved game's."""
    from helpers.rig import referee_rig, second_refereed_game_under_way

    settings = RefereeSettings(black="Ann", white="Bob", clock=TimeControl.parse("60"), record_dir=str(tmp_path / "r"))
    second_refereed_game_under_way(tmp_path, settings).close()
    again = referee_rig(tmp_path, settings)  # the board is not as saved: it is set up first
    try:
        again.connect(Wire())
        again.wait(500)
        assert again.app.resuming
        view = ask(again, "view")
        shown = again.app.view()
        assert view["names"] == ["Bob", "Ann"] and shown.black.startswith("Bob")
        assert view["target"] == again.app.game.position.fen() and view["resuming"]
        assert view["ply"] == 2 and shown.status == "Resuming a game: Black to move, move 2"
        assert view["board"] == "".join(shown.pieces.get(square, ".")[:1] or "." for square in range(1, 33))
    finally:
        again.close()
