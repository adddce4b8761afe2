"""Match play in the whole application on the simulated board: colours, score, power cuts, modes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.settings import MatchConfig
from crownhead.firmware.app.players import Human, Player, RandomMover
from crownhead.firmware.cli import main
from crownhead.firmware.events import Event
from crownhead.firmware.referee.arbiter import Referee, RefereeSettings
from crownhead.firmware.storage.matches import MatchStore, new_match
from crownhead.firmware.storage.store import GameFile, GameStore
from crownhead.rules import BLACK, WHITE, Color
from crownhead.rules.pdn import read_games

from helpers.rig import Rig


class MatchBoard(Rig):
    """The application rig with a state directory, and a way to agree a draw."""

    def __init__(
        self,
        state: Path,
        *,
        settings: AppSettings = AppSettings(),
        players: dict[Color, Player] | None = None,
        referee: Referee | None = None,
        keep: bool = False,
    ) -> None:
        self._declare: str | None = None
        if keep:
            settings = replace(settings, sim_keep_game=True)
        super().__init__(state, settings=settings, players=players, referee=referee, start=False)
        self.app.add_output(Poller(self._source))
        self.app.start()
        self.app.run_for(1000)

    def _source(self, now: int) -> list[Event]:
        if self._declare is None:
            return []
        score, self._declare = self._declare, None
        return self.app.declare(score, "agreement", now)

    def play(self, *texts: str) -> None:
        """The hands make each of ``texts`` (moves, buttons), a second apart."""
        for text in texts:
            self.do(text)

    def agree_draw(self) -> None:
        self._declare = "1/2-1/2"
        self.app.run_for(100)

    def new_game(self) -> None:
        self.play("n", "f")

    def names(self) -> tuple[str, str]:
        view = self.app.view()
        return view.black, view.white


def test_the_seed_match_on_the_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    match = new_match("Ana", "Ben", games=4)
    MatchStore(state).save(match)
    board = MatchBoard(state)
    assert board.names() == ("Ana", "Ben")
    assert board.app.view().match == "Match, game 1 of 4: Ana 0, Ben 0"
    board.play("11-15", "hold resign")  # White (Ben) resigns: Ana wins game 1 with Black
    board.new_game()
    assert board.names() == ("Ben", "Ana")  # colours swap after every game
    board.play("11-15", "hold resign")  # White (Ana) resigns: Ben wins game 2 with Black
    board.new_game()
    assert board.names() == ("Ana", "Ben")
    board.play("9-13")
    board.agree_draw()  # game 3 is drawn: no mark for either
    board.new_game()
    assert board.names() == ("Ben", "Ana")
    board.play("hold resign")  # Black (Ben) resigns at once: Ana wins game 4 with White
    results = [e for e in board.of_kind("match") if e["cause"] == "result"]
    assert [(e["number"], e["black"], e["marks"]) for e in results] == [
        (1, "Ana", ["1", "0"]),
        (2, "Ben", ["1", "1"]),
        (3, "Ana", ["1", "1"]),
        (4, "Ben", ["2", "1"]),
    ]
    assert results[-1]["over"] is True and results[-1]["winner"] == "Ana"
    starts = [e for e in board.of_kind("match") if e["cause"] == "game-start"]
    assert [(e["number"], e["black"]) for e in starts] == [(1, "Ana"), (2, "Ben"), (3, "Ana"), (4, "Ben")]
    assert board.app.view().match == "Match over: Ana takes the match, 2 games to 1"
    status = board.app.matches.status()
    assert status is not None and status["text"] == "Ana 2, Ben 1" and status["winner"] == "Ana"
    # The next game is no game of the match.
    board.new_game()
    assert len([e for e in board.of_kind("match") if e["cause"] == "game-start"]) == 4
    board.play("11-15", "hold resign")
    board.app.close()

    files = GameStore(state).game_files()
    tagged = [GameFile.read(p).tags for p in files]
    assert [(t.get("Match"), t.get("Round"), t["Black"], t["Result"]) for t in tagged] == [
        (match.id, "1", "Ana", "1-0"),
        (match.id, "2", "Ben", "1-0"),
        (match.id, "3", "Ana", "1/2-1/2"),
        (match.id, "4", "Ben", "0-1"),
        (None, "?", "Ben", "1-0"),  # no game of a match: its Round unknown, as PDN writes it
    ]
    # The tags are plain PDN: pdn check replays every game.
    assert main(["pdn", "check", *map(str, files)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "5 games, 5 replayed, 0 failed"
    # crownhead games says which match each game belongs to.
    assert main(["games", "--state-dir", str(state)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(f"{match.id} game {n}" in lines[n] for n in range(1, 5)) and match.id not in lines[5]
    # crownhead match and its sheet.
    assert main(["match", "--state-dir", str(state)]) == 0
    assert "Score: Ana 2, Ben 1. Ana takes the match, 2 games to 1." in capsys.readouterr().out
    out = tmp_path / "match.pdf"
    assert main(["match", "sheet", "--state-dir", str(state), "-o", str(out)]) == 0
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() for page in PdfReader(out).pages)
    assert "Match score: Ana 2, Ben 1" in text and "Ana takes the match, 2 games to 1" in text
    capsys.readouterr()
    # Without -o the sheet is written here, named after the match, and the command says where.
    monkeypatch.chdir(tmp_path)
    assert main(["match", "sheet", "--state-dir", str(state)]) == 0
    assert capsys.readouterr().out == f"the match sheet is in {match.id}.pdf\n"
    assert PdfReader(tmp_path / f"{match.id}.pdf").pages


def test_the_match_resumes_after_a_power_cut(tmp_path: Path) -> None:
    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=2))
    board = MatchBoard(state)
    board.play("11-15", "hold resign")
    board.new_game()
    board.play("11-15")
    board.app.close()  # the power goes in game 2

    again = MatchBoard(state, keep=True)
    assert again.of_kind("game-start")[-1]["resumed"] is True
    assert again.names() == ("Ben", "Ana")
    assert again.app.view().match == "Match, game 2 of 2: Ana 1, Ben 0"
    again.play("22-18", "hold resign")  # Black (Ben) resigns
    (result,) = [e for e in again.of_kind("match") if e["cause"] == "result"]
    assert result["number"] == 2 and result["marks"] == ["2", "0"] and result["winner"] == "Ana"
    again.app.close()


def test_a_result_written_just_before_a_power_cut_is_counted(tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = MatchStore(state)
    store.save(new_match("Ana", "Ben", games=4))
    before = store.load()
    board = MatchBoard(state)
    board.play("11-15", "hold resign")
    board.app.close()
    assert before is not None and len(store.load().played) == 1
    store.save(before)  # as if the power went after the PDN was written, before the match file

    again = MatchBoard(state)
    assert any("taken into the score after a restart" in e["message"] for e in again.of_kind("notice"))
    assert again.app.matches.status()["text"] == "Ana 1, Ben 0"
    assert again.names() == ("Ben", "Ana")
    again.app.close()


def test_against_the_computer_the_machine_changes_colour_too(tmp_path: Path) -> None:
    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Computer", games=2))
    players: dict[Color, Player] = {BLACK: Human("Ana"), WHITE: RandomMover(3)}
    board = MatchBoard(state, settings=AppSettings(mode="computer"), players=players)
    assert board.app.players[WHITE].is_human is False
    board.play("hold resign")  # Ana resigns for her own side
    board.new_game()
    assert board.app.players[BLACK].is_human is False and board.app.players[WHITE].name == "Ana"
    assert board.of_kind("computer-move")  # the machine, now Black, moved first
    board.play("f", "hold resign")  # its move made on the board, Ana resigns again
    board.app.close()
    games = [GameFile.read(p).tags for p in GameStore(state).game_files()]
    assert [(t["Black"], t["White"], t["Result"]) for t in games] == [
        ("Ana", "Computer", "0-1"),
        ("Computer", "Ana", "1-0"),
    ]
    assert MatchStore(state).load().score_text() == "Ana 0, Computer 2"


def test_in_referee_mode_each_ballot_is_played_twice_with_colours_reversed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ann", "Bob", games=4))
    referee = Referee(RefereeSettings(deck=True, seed=11, record_dir=str(tmp_path / "record")))
    board = MatchBoard(state, settings=AppSettings(mode="referee"), referee=referee)
    ballots = []
    for game in range(4):
        ballots.append(referee.ballot.number if referee.ballot else None)
        assert board.names()[0].startswith(("Ann", "Bob"))
        board.play("hold resign")  # the side to move resigns before the ballot is played
        if game < 3:
            board.new_game()
    board.app.close()
    assert ballots[0] is not None and ballots[0] == ballots[1] and ballots[2] == ballots[3] != ballots[0]
    match = MatchStore(state).load()
    assert [g.black for g in match.played] == ["Ann", "Bob", "Ann", "Bob"]
    assert [g.ballot for g in match.played] == ballots
    assert [pair for pair, _ in match.ballots] == [1, 2]
    texts = [p.read_text() for p in GameStore(state).game_files()]
    assert [read_games(t).__next__().tags["Black"] for t in texts] == ["Ann", "Bob", "Ann", "Bob"]
    # The referee's own records name the match too (their Round is the referee's).
    records = sorted((tmp_path / "record").glob("game-*.pdn"))
    tags = [next(read_games(p.read_text())).tags for p in records]
    assert [(t["Match"], t["MatchGame"], t["Black"]) for t in tags] == [
        (match.id, str(n), black) for n, black in zip(range(1, 5), ["Ann", "Bob", "Ann", "Bob"])
    ]


def test_the_match_section_begins_matches_by_itself(tmp_path: Path) -> None:
    state = tmp_path / "state"
    settings = AppSettings(black_name="Ana", white_name="Ben", match=MatchConfig(always=True, games=2))
    board = MatchBoard(state, settings=settings, players={BLACK: Human("Ana"), WHITE: Human("Ben")})
    board.play("11-15", "hold resign")
    board.new_game()
    board.play("11-15", "hold resign")  # Ben wins game 2: the match is over, level
    assert board.app.view().match == "Match over: The match is drawn, 1 game each"
    board.new_game()  # a new match begins with the next game
    starts = [e for e in board.of_kind("match") if e["cause"] == "game-start"]
    assert len({e["id"] for e in starts}) == 2 and starts[-1]["number"] == 1
    board.app.close()
    assert len(MatchStore(state).archived()) == 1


def test_the_link_state_and_event_carry_the_match(tmp_path: Path) -> None:
    from crownhead.firmware.link.protocol import encode_message

    state = tmp_path / "state"
    long_a, long_b = "Á" * 40, "Ø" * 40
    MatchStore(state).save(new_match(long_a, long_b, games=3))
    board = MatchBoard(state)
    board.play("11-15", "hold resign")
    link_state = board.app.matches.link_state()
    assert link_state is not None
    assert link_state["players"] == [long_a, long_b] and link_state["marks"] == ["1", "0"]
    assert link_state["next"] == {"number": 2, "black": 1} and link_state["winner"] is None
    # Even with the longest names, the match event is one line of the link.
    for event in board.of_kind("match"):
        assert len(encode_message(event)) <= 1024
    board.app.close()


def test_the_text_log_says_what_the_match_did(tmp_path: Path) -> None:
    from crownhead.firmware.app.sinks import describe_event

    state = tmp_path / "state"
    MatchStore(state).save(new_match("Ana", "Ben", games=1, now="2026-11-30T20:15:00+00:00"))
    board = MatchBoard(state)
    board.play("11-15", "hold resign")
    board.app.close()
    lines = [describe_event(e) for e in board.events if e.kind == "match"]
    assert lines == [
        "match 20261130-201500-Ana-Ben: game 1 of 1 begins, Ana has Black; Ana 0, Ben 0",
        "match 20261130-201500-Ana-Ben: after game 1 of 1, Ana 1, Ben 0; Ana takes the match",
    ]


def test_crownhead_run_plays_the_match_of_the_match_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[match]\nalways = true\ngames = 2\nblack_name = "Ana"\nwhite_name = "Ben"\n')
    script = tmp_path / "script.txt"
    script.write_text("lift 11\nwait 300\nplace 15\nwait 800\nhold resign\nwait 500\n")
    state = tmp_path / "state"
    args = ["run", "--script", str(script), "--state-dir", str(state), "--log", "json", "--config", str(config)]
    assert main(args) == 0
    import json

    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    matches = [e for e in events if e["event"] == "match"]
    assert [(e["cause"], e["number"], e["black"], e["marks"]) for e in matches] == [
        ("game-start", 1, "Ana", ["0", "0"]),
        ("result", 1, "Ana", ["1", "0"]),
    ]
    # The next run goes on with game 2, Ben with Black (a game without a move put away
    # by `new` is no game: game 2 begins again).
    script.write_text("wait 500\npress new\nwait 500\n")
    assert main(args) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["number"], e["black"]) for e in events if e["event"] == "match"] == [(2, "Ben"), (2, "Ben")]


def test_a_refereed_game_of_the_match_keeps_its_tags_through_a_power_cut(tmp_path: Path) -> None:
    state, record = tmp_path / "state", tmp_path / "record"
    match = new_match("Ann", "Bob", games=2)
    MatchStore(state).save(match)
    board = MatchBoard(
        state, settings=AppSettings(mode="referee"), referee=Referee(RefereeSettings(record_dir=str(record)))
    )
    board.play("11-15")
    board.app.close()  # the power goes during game 1

    again = MatchBoard(
        state, settings=AppSettings(mode="referee"), referee=Referee(RefereeSettings(record_dir=str(record))), keep=True
    )
    assert again.of_kind("game-start")[-1]["resumed"] is True and again.names()[0].startswith("Ann")
    again.play("22-18", "hold resign")  # Black (Ann) resigns (a long press: a single one asks first)
    again.app.close()
    (path,) = record.glob("game-*.pdn")
    tags = next(read_games(path.read_text())).tags
    assert (tags["Match"], tags["MatchGame"], tags["Black"], tags["Result"]) == (match.id, "1", "Ann", "0-1")
    assert MatchStore(state).load().score_text() == "Ann 0, Bob 1"
