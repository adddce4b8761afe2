"""Two homes, one game whatever instant a board dies or comes online (issue 51).

Each board is a :class:`helpers.rig.Rig` wired as ``crownhead run --remote CODE`` wires it
(:func:`~crownhead.firmware.cli.remote.remote_board` on the agreement kept in its state
directory), through a real Mosquitto on loopback. The game's name must come from the
invitation, the same on both boards, so that neither takes the other's for a new game:
a board that starts late, or starts again, resumes the very game and takes the lines it
missed. The random part of a name is made to fall the worst way (the board coming
online drawing the greater one), so that nothing here depends on luck.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import crownhead.firmware.link.parts as link_parts
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.cli.remote import remote_board
from crownhead.firmware.remote.board import remote_settings
from crownhead.firmware.remote.invite import Agreement, Invitation
from crownhead.firmware.remote.journal import Journal
from crownhead.rules import Move

from helpers.hallnet import MOSQUITTO, Mosquitto, NO_MOSQUITTO, PASSWD, running_mosquitto
from helpers.remote import step_until
from helpers.rig import Rig

pytestmark = pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)

CODE = "hm3s2x"


class Board:
    """One home's board as ``run --remote`` builds it, switched off and on at will."""

    def __init__(self, folder: Path, agreement: Agreement) -> None:
        self.folder, self.agreement = folder, agreement
        agreement.save(folder)
        self.rig: Rig | None = None

    def on(self) -> Board:
        settings = remote_settings(self.agreement, AppSettings(mode="play"))
        self.rig = Rig(self.folder, settings=settings, start=False)
        link, self.absence = remote_board(self.agreement, self.rig.app, self.rig.clock, self.folder)
        link.attach(self.rig.app)
        self.rig.link, self.rig.transport = link, link.transport
        self.rig.app.start()
        return self

    def off(self) -> None:
        """The power goes: nothing more crosses, nothing is said."""
        assert self.rig is not None
        self.rig.transport.close(flush_s=0)
        self.rig.close()
        self.rig = None

    @property
    def live(self) -> Rig:
        assert self.rig is not None
        return self.rig

    def notices(self) -> list[str]:
        return [e.to_json()["message"] for e in self.live.events if e.kind == "notice"]


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    with running_mosquitto(tmp_path / "broker", ["alice", "bob"]) as broker:
        yield broker


@pytest.fixture
def boards(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[Board, Board]]:
    inv = Invitation(CODE, "alice", "black", clock="600+5")
    a = Board(tmp_path / "a", Agreement(inv, "alice", "bob", mosquitto.url("alice")))
    b = Board(tmp_path / "b", Agreement(inv, "bob", "alice", mosquitto.url("bob")))
    yield a, b
    for board in (a, b):
        if board.rig is not None:
            board.off()


def _worst_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every random part of a game's name drawn from now on is the greatest there is."""

    class Greatest:
        @staticmethod
        def token_hex(n: int) -> str:
            return "f" * (2 * n)

    monkeypatch.setattr(link_parts, "secrets", Greatest)


def _rigs(*boards: Board) -> list[Rig]:
    return [board.live for board in boards]


def _made_there(mover: Board, other: Board, text: str) -> None:
    """``text`` made on ``mover``; ``other`` shows it and its people make it."""
    mover.live.do(text, wait=600)
    move = mover.live.game.moves[-1]
    assert move.pdn(full=True) == text, f"{text} was not accepted on the mover's board"
    step_until(lambda: other.live.app.tracker.expected == move, f"the other board shows {text}", _rigs(mover, other))
    other.live.follow(wait=600)
    assert other.live.game.moves[-1] == move


def _heard(a: Board, b: Board) -> None:
    step_until(
        lambda: (
            a.live.link is not None
            and b.live.link is not None
            and a.live.link.peer_lines > 0
            and b.live.link.peer_lines > 0
            and a.live.link.game_id == b.live.link.game_id
        ),
        "the boards hear each other and name the game alike",
        _rigs(a, b),
    )


def test_black_moves_before_the_other_board_is_online_and_the_move_reaches_it(
    boards: tuple[Board, Board], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = boards
    a.on()
    a.live.do("11-15", wait=600)  # Black moves; White's board is still off
    assert a.live.game.ply == 1
    _worst_names(monkeypatch)  # the board coming online draws the greatest name
    b.on()
    step_until(lambda: b.live.app.tracker.expected == Move((11, 15)), "B shows 11-15", _rigs(a, b))
    b.live.follow(wait=600)
    assert a.live.game.ply == b.live.game.ply == 1, a.notices()
    assert not any("New game" in n for n in a.notices()), a.notices()
    _made_there(b, a, "23-19")
    assert a.live.link is not None and b.live.link is not None
    assert a.live.link.game_id == b.live.link.game_id


def test_a_board_switched_off_and_on_again_resumes_its_game_and_takes_the_move_it_missed(
    boards: tuple[Board, Board], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = boards
    a.on()
    b.on()
    _heard(a, b)
    _made_there(a, b, "11-15")
    b.live.app.run_for(1000)
    b.off()  # White's board dies about a second after the move
    _worst_names(monkeypatch)
    b.on()
    b.live.follow(wait=600)  # its people set the saved game up, as the lights ask
    step_until(lambda: b.live.link is not None and b.live.link.peer_lines > 0, "B hears A again", _rigs(a, b))
    assert b.live.game.ply == 1 and not b.live.app.resuming
    _made_there(b, a, "23-19")
    _made_there(a, b, "8-11")  # B shows it (its link acknowledged it) and its people make it
    assert a.live.game.moves == b.live.game.moves
    assert not any("started a new game" in n for n in b.notices()), b.notices()
    assert not b.live.game.is_over and not a.live.game.is_over


def test_a_journal_keeps_the_name_of_the_game_in_play(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.json")
    journal.game = "1-abc123"
    journal.save()
    assert Journal.load(tmp_path / "j.json").game == "1-abc123"
