"""Nothing lost at any instant, shown by trying every instant (issue 51).

A scripted game between two homes (:mod:`helpers.sweep`: both boards wired as ``run
--remote`` wires them, their transports stepped without threads on an in-process broker,
the virtual clock) is cut into instants: every app step that did anything, every journal
write and publish, every message the broker takes or hands on, every connect, every
thing the people do. The game has captures, a double jump that crowns, a takeback asked
and agreed, a draw offered and declined by the next move, and a resignation.

For each instant in turn the sweep kills board A, board B or the broker there (and
starts it again at once: a board from its state directory, its pieces standing as they
stood), and, for each message step, drops or repeats that message; the people then
follow their lights and the script to the end. Each run must end with both boards
holding the same record and result, every move once, nobody asked to set up a new game,
and every request put on the board it was meant for (the script waits for it there: a
request lost leaves the game stuck, and the run fails).

``test_every_instant_holds`` (slow) tries them all and prints the figure; the default
run tries a sample (every instant of a few kinds, spread over the game).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.simulator.hands import Hands
from crownhead.rules import Move
from crownhead.rules.pdn import read_game

from helpers.games import random_game
from helpers.hallnet import MOSQUITTO, NO_MOSQUITTO, PASSWD, running_mosquitto
from helpers.sweep import Fault, Home, World, lights_ask

#: The game (Black at board A, White at board B): captures, White's double jump 18x11x2
#: crowning on 2, Black's 12-16 taken back (asked and agreed) and 10-15 played instead,
#: White's draw offer after 2-7 declined by Black's 3x10, and White resigning.
SCRIPT: tuple[tuple[str, str, str], ...] = (
    ("move", "black", "9-13"),
    ("move", "white", "24-20"),
    ("move", "black", "6-9"),
    ("move", "white", "22-18"),
    ("move", "black", "2-6"),
    ("move", "white", "28-24"),
    ("move", "black", "11-15"),
    ("move", "white", "18x11x2"),
    ("move", "black", "12-16"),
    ("ask", "black", ""),
    ("agree", "white", ""),
    ("move", "black", "10-15"),
    ("move", "white", "2-7"),
    ("draw", "white", ""),
    ("move", "black", "3x10"),
    ("resign", "white", ""),
)
FINAL = ("9-13", "24-20", "6-9", "22-18", "2-6", "28-24", "11-15", "18x11x2", "10-15", "2-7", "3x10")
#: Rounds a run may take (a run without faults takes a few hundred).
MAX_ROUNDS = 6000


def _before(i: int) -> tuple[str, ...]:
    """The moves standing before the script's ``i``-th step."""
    moves: list[str] = []
    for kind, _, text in SCRIPT[:i]:
        if kind == "move":
            moves.append(text)
        elif kind == "agree":
            moves.pop()
    return tuple(moves)


@dataclass
class People:
    """The people at both boards: they do what the lights ask, else the script's next step
    once both boards stand still on the same game (and the request it answers is shown)."""

    i: int = 0
    pressed: tuple[int, int] | None = None  # (script step, the board's run) of a press awaiting its answer
    done: bool = False

    def __call__(self, world: World) -> bool:
        a, b = world.homes
        if all(kept(home) for home in world.homes) and not (a.transport.pending or b.transport.pending):
            self.done = True  # the game is over and filed away on both boards
            return False
        for home in world.homes:
            if lights_ask(home.app):
                Hands(home.app).follow()
                return True
        if self.done or a.moves() != b.moves() or a.app.resuming or b.app.resuming:
            return False
        if a.transport.pending or b.transport.pending:
            return False
        if self.i == len(SCRIPT) or a.app.game.is_over:
            return False
        now = a.moves()
        if SCRIPT[self.i][0] == "agree" and now == _before(self.i + 1):
            self.i, self.pressed = self.i + 1, None  # taken back on both boards
        if now != _before(self.i):
            # A step undone by a power cut (the board's people put the pieces back as its
            # lights asked): the people go back to the step that stands now.
            back = [j for j in range(self.i, -1, -1) if _before(j) == now]
            if not back:
                return False
            self.i, self.pressed = back[0], None
        kind, side, text = SCRIPT[self.i]
        home = world.home(side)
        app = home.app
        if kind == "move":
            if self._awaited(home):
                return False
            Hands(app).act_text(text)
            self.i += 1
            return True
        if kind == "ask":
            if self._answered(home, "asked White to take back"):
                self.i += 1
                return False
        elif kind == "agree":
            if not any("Black asks to take back" in n for n in home.notices(home.starts)):
                return False  # not shown (yet): nothing to agree to
        elif kind == "draw":
            if app.session.draw_offer is not None:
                self.i += 1
                return False
        if self.pressed is not None and self.pressed == (self.i, home.starts):
            return False  # pressed: the board answers at its next steps
        self.pressed = (self.i, home.starts)
        button = {"ask": "takeback", "agree": "takeback", "draw": f"{side}_draw", "resign": f"{side}_resign"}[kind]
        home.rig.sim.press(button, long=kind == "resign")
        return True

    def _answered(self, home: Home, words: str) -> bool:
        return self.pressed is not None and any(words in n for n in home.notices(home.starts))

    def _awaited(self, decider: Home) -> bool:
        """The next move declines an offer: not before the board meant for it shows it."""
        if self.i == 0 or SCRIPT[self.i - 1][0] != "draw":
            return False
        offer = decider.app.session.draw_offer
        return offer is None


def play(folder: Path, fault: Fault | None = None) -> World:
    people = People()
    return finish(World(folder, people, fault), people)


def finish(world: World, people: People) -> World:
    """Step ``world`` until the people have played the script through, and check it."""
    try:
        while not people.done:
            world.round()
            assert world.rounds < MAX_ROUNDS, _stuck(world, people)
        # A last few rounds: anything still to cross crosses (nothing must change).
        for _ in range(40):
            world.round()
        _check(world)
    finally:
        world.close()
    return world


def _stuck(world: World, people: People) -> str:
    lines = [f"{world.fault}: stuck at the script's step {people.i} {SCRIPT[min(people.i, len(SCRIPT) - 1)]}"]
    for home in world.homes:
        lines.append(
            f"  {home.side}: moves {home.moves()} over={home.app.game.is_over} resuming={home.app.resuming} "
            f"pending={home.transport.pending} offer={home.app.session.draw_offer} "
            f"notices={home.notices()[-4:]}"
        )
    return "\n".join(lines)


def kept(home: Home) -> list[Any]:
    """The games the board has filed away (each finished game's PDN)."""
    folder = home.folder / "games"
    games = [_read_kept(path) for path in sorted(folder.glob("*.pdn"))] if folder.exists() else []
    return [game for game in games if game is not None]


_READ: dict[tuple[str, int, int, int], Any] = {}


def _read_kept(path: Path) -> Any:
    """A kept game's PDN read once for each version of the file (the people ask after the
    files at every round: read each time, they were a third of the sweep's time). A file is
    only ever replaced whole, so a new version has a new inode."""
    stat = path.stat()
    key = (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _READ:
        if len(_READ) > 10_000:
            _READ.clear()
        _READ[key] = read_game(path.read_text())
    return _READ[key]


def _check(world: World) -> None:
    a, b = world.homes
    for home in world.homes:
        # The record kept: the game once, every move once, its result.
        games = kept(home)
        assert len(games) == 1, (str(world.fault), home.side, "games kept", len(games))
        (game,) = games
        texts = tuple(m.pdn(full=True) for m in game.moves)
        assert texts == FINAL and game.result == "1-0", (str(world.fault), home.side, texts, game.result)
        if home.moves() == FINAL:  # (a board switched on after the game ended begins the next)
            result = home.app.game.result
            assert result is not None and (result.score, result.reason) == ("1-0", "resign"), (str(world.fault), result)
        assert home.transport.pending == 0, (str(world.fault), home.side)
        # Nobody asked to set up a new game while the game was under way.
        kinds = [e.kind for _, e in home.events]
        over = kinds.index("game-over") if "game-over" in kinds else len(kinds)
        during = [e.to_json() for _, e in home.events[kinds.index("move") : over]]
        asked = [e for e in during if e.get("event") == "new-game" or e.get("cause") == "new-game"]
        assert not asked, (str(world.fault), home.side, "a new game mid-game", asked)
    # Every request shown where it was meant: the draw offer and the takeback request.
    assert any("Black asks to take back" in n for n in b.notices()), (str(world.fault), "no request shown")
    assert any(e.kind == "draw-offer" for _, e in a.events), (str(world.fault), "no offer shown")


def faults(plain: World) -> list[Fault]:
    """Every fault the sweep tries on the game ``plain`` played without one."""
    out = [Fault("kill", target, at) for target in ("a", "b", "broker") for at in range(1, plain.instants + 1)]
    out += [Fault(what, "message", at) for what in ("drop", "repeat") for at in range(1, plain.messages + 1)]
    return out


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A folder in memory where the machine has one (``/dev/shm``), and no ``fsync``: the
    sweep kills boards between steps, in process, so what counts is the order of what is
    written, never the disk's cache (the real processes below have their disk)."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(dir=shm, prefix="crownhead-sweep-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def sweep(folder: Path, every: int = 1) -> tuple[int, list[str]]:
    """Play the game without a fault, then with every ``every``-th fault of :func:`faults`
    (in their order: kills of A, of B, of the broker at each instant, then each message
    dropped, then repeated); the number tried and the failures."""
    tried = faults(play(folder / "plain"))[::every]
    failed: list[str] = []
    for n, fault in enumerate(tried):
        try:
            play(folder / str(n), fault)
        except AssertionError as exc:
            failed.append(f"{fault}: {' '.join(str(exc).split())[:600]}")
        shutil.rmtree(folder / str(n), ignore_errors=True)
    return len(tried), failed


def test_the_scripted_game_plays_through_without_a_fault(quick: Path) -> None:
    world = play(quick)
    assert world.instants > 100 and world.messages > 20


def test_a_takeback_agreed_while_the_asking_board_is_off_is_made_there_when_it_is_back(quick: Path) -> None:
    """(Found by the sweep.) White agrees to take back Black's 12-16; Black's board goes
    off before the takeback reaches it and comes back: it forgot it asked. It takes the
    move back all the same (the other board takes back this side's move only when asked),
    and White's board does not show 12-16 again from its greeting (which still has it)."""
    people = People()
    world = World(quick, people)
    while not (people.i >= 10 and world.b.app.game.ply == 8 and world.a.app.game.ply == 9):
        world.round()
        assert world.rounds < MAX_ROUNDS, _stuck(world, people)
    world.a.kill()
    finish(world, people)


def test_a_request_shown_on_a_board_that_goes_off_before_it_is_answered_is_shown_again(quick: Path) -> None:
    """(Found by the sweep.) Black asks to take 12-16 back; White's board shows the
    request and goes off before its people answer. Back, it had forgotten the request
    (its takeback button then said only Black may ask): Black's board sends a standing
    request (and draw offer) again at each greeting, and White's board asks its people
    again; a board that shows one already does not show it twice."""
    people = People()
    world = World(quick, people)
    while not any("Black asks to take back" in n for n in world.b.notices()):
        world.round()
        assert world.rounds < MAX_ROUNDS, _stuck(world, people)
    world.b.kill()
    finish(world, people)
    assert [run for run, e in world.b.events if e.kind == "takeback-asked"] == [1, 2]  # (said once a run)


def test_a_board_off_as_the_game_ends_does_not_end_its_next_game_with_the_last_one_s_result(quick: Path) -> None:
    """(Found by the sweep.) White resigns; Black's board ends the game, files it, and
    goes off before its journal says it took White's line. Back, it begins the next
    game, and White's line comes again: it ended that new game too (a second game filed,
    without a move). The next game is named a serial further: the line is not about it.
    And White's board, off as it filed the game, before its worker wrote the
    resignation's line to the journal, lost the line: Black's board never heard the
    game ended. A line is on disk before the board's step that sent it ends."""
    for target in ("a", "b"):
        people = People()
        world = World(quick / f"plain-{target}", people)
        while not kept(getattr(world, target)):
            world.round()
            assert world.rounds < MAX_ROUNDS, _stuck(world, people)
        world.close()
        ended = world.instants  # the round in which the game ended on that board ends here
        for at in range(ended - 6, ended):  # the board off at each instant of that round
            world = play(quick / f"{target}{at}", Fault("kill", target, at))
            home = getattr(world, target)
            assert not (home.app.game.is_over and home.moves() != FINAL), at


#: The default run's sample: every so many of the faults (ten runs: with the rest, ~20 s).
SAMPLE_EVERY = int(os.environ.get("CROWNHEAD_SWEEP_EVERY", "190"))


def test_a_sample_of_the_instants_holds(quick: Path) -> None:
    tried, failed = sweep(quick, SAMPLE_EVERY)
    assert tried >= 10 and not failed, "\n".join(failed)


@pytest.mark.slow
def test_every_instant_holds(quick: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole sweep; its figure goes in docs/remote.md."""
    start = time.monotonic()
    tried, failed = sweep(quick)
    with capsys.disabled():
        print(f"\nremote sweep: {tried - len(failed)} of {tried} instants held ({time.monotonic() - start:.0f} s)")
    assert not failed, "\n".join(failed[:20])


# -- two real board processes and Mosquitto --------------------------------------------------


def _shown(board: Any, move: Move) -> bool:
    return move.start in board.view()["roles"].get("move-from", [])


@pytest.mark.slow
@pytest.mark.skipif(MOSQUITTO is None or PASSWD is None, reason=NO_MOSQUITTO)
def test_every_move_s_instants_hold_with_two_board_processes_and_mosquitto(tmp_path: Path) -> None:
    """The smaller sweep: two ``crownhead run --remote`` processes and Mosquitto play six
    moves; at each of each move's instants (saved on the mover's board, shown on the
    other, made there) the next of board A, board B and the broker is killed (SIGKILL)
    and started again (a board with its pieces standing), the people following their
    lights. Both boards end with the same record, each move once."""
    from test_remote_boards import Match, _clocks, _texts

    moves = random_game(8).moves[:6]
    targets = ["a", "b", "broker"]
    kills = 0
    with running_mosquitto(tmp_path / "broker", ["alice", "bob"]) as mosquitto:
        match = Match(tmp_path, mosquitto, moves, keepalive_s=1)
        try:

            def kill() -> None:
                nonlocal kills
                target = targets[kills % 3]
                kills += 1
                if target == "broker":
                    mosquitto.kill()
                    mosquitto.start()
                    return
                board = match.a if target == "a" else match.b
                board.kill()
                board.start()

            for n in range(len(moves)):
                other = match.move()  # instant 1: saved on the mover's board
                kill()
                match.settled()  # (the line crosses once the killed one is back)
                other.wait(lambda o=other, m=moves[n]: _shown(o, m) or o.view()["resuming"], "the move shown")
                kill()  # instant 2: shown on the other board, not made yet
                match.follow(other)  # instant 3: made there
                kill()
            reply = match.a.command("resign black")
            assert reply.get("ok"), reply
            match.settled()
            for board in (match.a, match.b):
                board.wait(lambda b=board: any(b.state_dir.glob("games/*.pdn")), "the game kept")
                (pdn,) = board.state_dir.glob("games/*.pdn")
                game = read_game(pdn.read_text())
                assert game is not None and game.ok and game.result == "0-1"
                assert _texts(game.moves) == _texts(moves)  # every move once, in order
                assert not any("another game" in n or "new game" in n for n in board.notices()), board.notices()
            assert _clocks(match.a) == _clocks(match.b)
            assert kills == 3 * len(moves)
        finally:
            match.close()
