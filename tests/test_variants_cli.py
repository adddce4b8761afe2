"""Variants on every command that plays: pdn check, replay, analyse, run and the store.

(``perft`` and ``moves`` with ``--variant`` are in ``tests/test_variants.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.storage.store import GameFile, GameRecord, GameStore, StoreError, pdn_text
from crownhead.rules import WCDF, Game, Move, Position, Rules
from crownhead.rules.pdn import read_games, write_game
from crownhead.rules.settings import Crowning
from crownhead.rules.variants import GIVEAWAY, POOL, RUSSIAN

HOUSE_RULE_FLAGS = (
    "--men-capture-backward",
    "--captures-optional",
    "--keep-jumping-after-crowning",
    "--kings-capture-first",
    "--huffing",
)


def output(capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    out, err = capsys.readouterr()
    return out.splitlines(), err


@pytest.mark.parametrize(
    "argv",
    [
        ["perft", "--depth", "1"],
        ["moves"],
        ["pdn", "check", "F"],
        ["replay", "S"],
        ["run"],
        ["analyse", "--depth", "1"],
    ],
)
def test_every_command_that_plays_takes_the_variant_and_every_rule_option(argv: list[str]) -> None:
    from crownhead.firmware.cli import build_parser

    args = build_parser().parse_args([*argv, "--variant", "pool", *HOUSE_RULE_FLAGS])
    from crownhead.firmware.cli._common import rules_from_args

    rules = rules_from_args(args)
    assert rules == POOL.with_options(
        captures_compulsory=False,
        crowning=Crowning.CONTINUES_AS_KING,
        kings_capture_first=True,
        huffing=True,
    )


# -- pdn check ------------------------------------------------------------------------------

RUSSIAN_PDN = """\
[Event "Russian game"]
[White "Ann"]
[Black "Bob"]
[GameType "25,W,8,8,A0,0"]

1. c3-d4 f6-e5 2. d4:f6 g7:e5 3. b2-c3 h8-g7 4. c3-d4 e5:c3 5. d2:b4 *
"""

POOL_PDN = """\
[Event "Pool game"]
[GameType "23"]

1. 11-15 24-20 2. 15-18 22x15 3. 10x19 23x16 4. 12x19 *
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_pdn_check_reads_the_gametype_of_each_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    russian = write(tmp_path, "russian.pdn", RUSSIAN_PDN)
    pool = write(tmp_path, "pool.pdn", POOL_PDN)
    # No --variant: each game's GameType gives its rules (and Russian's a1-h8 squares).
    assert main(["pdn", "check", "-v", russian, pool]) == 0
    lines, err = output(capsys)
    assert err == ""
    assert lines == [
        f"{russian}:1: game 1: 9 plies, *",
        f"{russian}: 1 games, 1 replayed, 0 failed",
        f"{pool}:1: game 1: 7 plies, *",
        f"{pool}: 1 games, 1 replayed, 0 failed",
        "2 games, 2 replayed, 0 failed",
    ]
    (game,) = read_games(RUSSIAN_PDN)
    assert game.rules == RUSSIAN and game.start.turn.name == "WHITE"
    assert [m.pdn() for m in game.moves][:3] == ["22-18", "11-15", "18x11"]


def test_pdn_check_without_a_gametype_uses_the_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    untagged = write(tmp_path, "r.pdn", RUSSIAN_PDN.replace('[GameType "25,W,8,8,A0,0"]\n', ""))
    assert main(["pdn", "check", untagged]) == 0
    lines, _ = output(capsys)
    assert lines[-1] == "1 games, 0 replayed, 1 failed"  # read as English: Black first
    assert main(["pdn", "check", "--variant", "russian", untagged]) == 0
    assert output(capsys)[0] == ["1 games, 1 replayed, 0 failed"]


def test_pdn_check_refuses_a_game_the_board_does_not_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "intl.pdn", '[Event "x"]\n[GameType "20"]\n1. 32-28 *\n')
    assert main(["pdn", "check", path]) == 0
    lines, _ = output(capsys)
    assert lines == [
        f"{path}:2: game 1: GameType 20 is not a game this board plays; it plays 21 (english), 23 (pool), 25 (russian)",
        "1 games, 0 replayed, 1 failed",
    ]


def test_house_rules_carry_over_to_games_of_the_same_variant() -> None:
    # A skipped jump: illegal in English, legal with --huffing, and the GameType 21 tag
    # keeps the huffing rules; a Russian-tagged game gets plain Russian rules.
    text = '[GameType "21"]\n[FEN "B:W14,30:B9,11"]\n1. 11-15 *\n'
    (game,) = read_games(text)
    assert game.error is not None and "compulsory" in game.error.reason
    (game,) = read_games(text, rules=Rules(huffing=True))
    assert game.error is None and game.rules.huffing
    (game,) = read_games(RUSSIAN_PDN, rules=Rules(huffing=True))
    assert game.rules == RUSSIAN
    (game,) = read_games('[Variant "giveaway"]\n1. 11-15 *\n')
    assert game.rules == GIVEAWAY


@pytest.mark.parametrize("rules", [RUSSIAN, POOL, GIVEAWAY], ids=lambda r: r.variant)
def test_written_variant_games_read_back(rules: Rules) -> None:
    game = Game(None, rules)
    position = game.position
    for _ in range(30):  # the first legal move each time, a deterministic game
        moves = sorted(game.legal_moves(), key=lambda m: (m.path, m.captures))
        if not moves:
            break
        game.play(moves[-1])
    text = write_game(game)
    assert (
        f'[GameType "{ {"russian": "25,W,8,8,A0,0", "pool": "23,B,8,8,N1,0"}.get(rules.variant, "21,B,8,8,N1,0") }"]'
        in text
    )
    if rules is GIVEAWAY:
        assert '[Variant "giveaway"]' in text
    if rules is RUSSIAN:
        body = text.split("\n\n")[1]
        assert body.startswith("1. ") and body.split()[1][0] in "abcdefgh"  # c3-d4, a1-h8
    (back,) = read_games(text)
    assert back.error is None and back.rules == rules
    assert back.moves == game.moves and back.start == position


def test_a_set_up_russian_game_writes_its_fen_a1_h8(tmp_path: Path) -> None:
    start = Position.from_fen("W:WK29:B15")
    game = Game(start, RUSSIAN)
    game.play_text("29x4")
    text = write_game(game)
    assert '[FEN "W:WKa1:Be5"]' in text and "1. a1:h8" in text
    (back,) = read_games(text)
    assert back.start == start and back.moves == game.moves


# -- replay ---------------------------------------------------------------------------------


def test_replay_russian_white_moves_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = write(
        tmp_path,
        "s.txt",
        "lift 22\nwait 300\nplace 18\nwait 1000\nlift 11\nwait 300\nplace 15\n"
        "wait 1000\nlift 18\nwait 300\nplace 11\nlift 15\n",
    )
    assert main(["replay", script, "--variant", "russian"]) == 0
    lines, err = output(capsys)
    assert err == ""
    events = [json.loads(line) for line in lines]
    assert [(e["event"], e.get("side"), e.get("move")) for e in events] == [
        ("move", "white", "22-18"),
        ("move", "black", "11-15"),
        ("move", "white", "18x11"),
        ("final", None, None),
    ]
    assert events[-1]["fen"] == "B:W11,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12"
    # The same hands under English rules: Black is to move, 22-18 is White's piece.
    assert main(["replay", script]) == 0
    lines, _ = output(capsys)
    assert json.loads(lines[0])["event"] == "warning"


def test_replay_flying_king_and_men_capturing_backward(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Pool: the king on a1 crosses the board taking e5 and lands on h8; then Black's man
    # on b4 (17) takes c5 (14) backward, landing on d6 (10).
    script = write(
        tmp_path, "p.txt", "lift 29\nwait 300\nplace 4\nlift 15\nwait 1000\nlift 17\nwait 300\nplace 10\nlift 14\n"
    )
    assert main(["replay", script, "--variant", "pool", "--fen", "W:WK29,14:B15,17"]) == 0
    events = [json.loads(line) for line in output(capsys)[0]]
    assert [(e["event"], e.get("path"), e.get("captures")) for e in events] == [
        ("move", [29, 4], [15]),
        ("move", [17, 10], [14]),
        ("final", None, None),
    ]


# -- analyse --------------------------------------------------------------------------------


def analyse(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["analyse", *argv]) == 0
    lines, err = output(capsys)
    assert err == "" and len(lines) == 1
    return json.loads(lines[0])


@pytest.mark.parametrize(
    ("variant", "extra"),
    [
        ("russian", []),
        ("pool", []),
        ("giveaway", []),
        ("english", ["--kings-capture-first"]),
        ("english", ["--keep-jumping-after-crowning"]),
        ("english", ["--huffing"]),
    ],
)
def test_analyse_returns_a_legal_move_of_the_variant(
    capsys: pytest.CaptureFixture[str], variant: str, extra: list[str]
) -> None:
    from crownhead.firmware.cli import build_parser
    from crownhead.firmware.cli._common import rules_from_args

    rules = rules_from_args(build_parser().parse_args(["analyse", "--variant", variant, *extra]))
    line = analyse(capsys, "--variant", variant, *extra, "--depth", "4")
    move = Move(tuple(line["path"]), tuple(line["captures"]))  # type: ignore[arg-type]
    assert move in Position.start(rules).legal_moves(rules)
    assert line["depth"] == 4


def test_analyse_flying_king_capture_from_afar(capsys: pytest.CaptureFixture[str]) -> None:
    # Russian: the white king on a1 takes c3 and must land on e5 to go on over d6.
    line = analyse(capsys, "--variant", "russian", "--fen", "W:WKa1:Bc3,d6", "--depth", "3")
    assert line["path"] in ([29, 15, 1], [29, 15, 6])
    assert line["captures"] == [22, 10] and line["score"] == 10000 - 1


def test_analyse_giveaway_turns_the_result_around(capsys: pytest.CaptureFixture[str]) -> None:
    # White has no piece: in giveaway checkers that is a win for White, not a loss.
    line = analyse(capsys, "--variant", "giveaway", "--fen", "W:W:B1", "--depth", "2")
    assert line["move"] is None and line["score"] == 10000
    line = analyse(capsys, "--fen", "W:W:B1", "--depth", "2")
    assert line["move"] is None and line["score"] == -10000
    # Black's last man can be given away at once (the jump is forced for White).
    line = analyse(capsys, "--variant", "giveaway", "--fen", "B:W22,30:B14,1", "--depth", "4")
    assert line["move"] in ("14-17", "14-18") and line["score"] > 0


def test_analyse_under_huffing_takes_the_jump(capsys: pytest.CaptureFixture[str]) -> None:
    line = analyse(capsys, "--huffing", "--fen", "B:W14,22,30:B1,5,9,11", "--depth", "3")
    assert line["move"] == "9x25"


# -- run and the store ----------------------------------------------------------------------


def run_script(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *argv: str) -> list[dict]:
    script = write(tmp_path, "run.txt", text)
    code = main(["run", "--script", script, "--state-dir", str(tmp_path / "state"), "--log", "json", *argv])
    assert code == 0
    return [json.loads(line) for line in output(capsys)[0]]


def test_run_plays_russian_and_the_game_resumes_russian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = run_script(tmp_path, capsys, "lift 22\nwait 300\nplace 18\nwait 800\n", "--variant", "russian")
    assert [(e["side"], e["move"]) for e in events if e["event"] == "move"] == [("white", "22-18")]
    record = GameStore(tmp_path / "state").load_current()
    assert record is not None and record.rules == RUSSIAN and record.start_fen is None
    # Resumed without --variant: the saved rules go on (Black's capture backward is legal
    # only in Russian... here simply Black's reply, then White's capture).
    events = run_script(
        tmp_path,
        capsys,
        "lift 11\nwait 300\nplace 15\nwait 800\nlift 18\nwait 300\nplace 11\nlift 15\nwait 800\n",
        "--sim-keep-game",
    )
    assert [e["move"] for e in events if e["event"] == "move"] == ["11-15", "18x11"]
    record = GameStore(tmp_path / "state").load_current()
    assert record is not None and record.moves == ("22-18", "11-15", "18x11") and record.rules == RUSSIAN


def test_run_with_huffing_saves_the_huff_and_resumes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 1. 11-15 22-18 and Black plays 12-16 instead of 15x22: White huffs the man on 15
    # (which White could also capture, so the huff is told after patience_ms).
    script = (
        "lift 11\nwait 300\nplace 15\nwait 800\nlift 22\nwait 300\nplace 18\nwait 800\n"
        "lift 12\nwait 300\nplace 16\nwait 1000\nlift 15\nwait 3000\n"
    )
    events = run_script(tmp_path, capsys, script, "--huffing")
    told = [e["event"] for e in events if e["event"] in ("move", "missed-jump", "huff")]
    assert told == ["move", "move", "move", "missed-jump", "huff"]
    record = GameStore(tmp_path / "state").load_current()
    assert record is not None and record.rules.huffing
    assert record.history == ("11-15", "22-18", "12-16", "huff 15")
    assert record.to_game().position.fen() == "W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,16"
    events = run_script(tmp_path, capsys, "lift 24\nwait 300\nplace 20\nwait 800\n", "--sim-keep-game")
    assert [e["move"] for e in events if e["event"] == "move"] == ["24-20"]
    record = GameStore(tmp_path / "state").load_current()
    assert record is not None and record.history == ("11-15", "22-18", "12-16", "huff 15", "24-20")


def test_record_keeps_every_rule_option(tmp_path: Path) -> None:
    assert list(GameRecord.new(rules=WCDF).rules.option_names()) == Rules().option_names()
    rules = POOL.with_options(kings_capture_first=True, huffing=True, captures_compulsory=False)
    game = Game(None, rules)
    game.play(game.legal_moves()[0])
    store = GameStore(tmp_path)
    store.save_current(GameRecord.new(rules=rules).with_game(game))
    data = json.loads(store.current_path.read_text())
    assert {k: data[k] for k in Rules().option_names()} == {
        "men_capture_backward": True,
        "captures_compulsory": False,
        "flying_kings": True,
        "crowning": "continues-as-man",
        "kings_capture_first": True,
        "huffing": True,
        "first_mover": "black",
        "giveaway": False,
        "variant": "pool",
    }
    loaded = store.load_current()
    assert loaded is not None and loaded.rules == rules and loaded.to_game().position == game.position


def test_record_of_a_forced_jump_replays(tmp_path: Path) -> None:
    game = Game(Position.from_fen("B:W14,22,30:B1,5,9,11"), Rules(huffing=True))
    game.play_text("11-15")
    game.force_jump()
    record = GameRecord.new(start=game.start, rules=game.rules).with_game(game)
    assert record.history == ("11-15", "force") and record.moves == ()
    back = record.to_game()
    assert back.jump_required and back.legal_moves() == game.legal_moves()
    game.play_text("9x25")
    text = pdn_text(GameRecord.new(start=game.start, rules=game.rules).with_game(game))
    assert "{11-15 taken back: a jump is required} 1. 9x25" in text
    (read,) = read_games(text)
    assert read.error is None and read.moves == game.moves


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"crowning": "sideways"}, "bad rules: crowning 'sideways' is not one of"),
        ({"huffing": "yes"}, "'huffing' must be a boolean"),
        ({"variant": 3}, "'variant' must be a string"),
        ({"history": ["11-15", "huff 5"]}, r"history entry 2 \(huff 5\) does not replay"),
        ({"history": ["11-16"]}, "'history' does not give the moves in 'moves'"),
        ({"history": "11-15"}, "'history' must be a list"),
    ],
)
def test_bad_rule_options_and_history_are_named(tmp_path: Path, change: dict, message: str) -> None:
    game = Game(Position.from_fen("B:W14,22,30:B1,5,9,11"), Rules(huffing=True))
    game.play_text("11-15")
    store = GameStore(tmp_path)
    store.save_current(GameRecord.new(start=game.start, rules=game.rules).with_game(game))
    data = json.loads(store.current_path.read_text())
    data.update(change)
    store.current_path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match=message):
        store.load_current()


def test_finished_russian_game_file(tmp_path: Path) -> None:
    game = Game(None, RUSSIAN)
    for text in ("22-18", "11-15", "18x11", "8x15"):
        game.play_text(text)
    game.resign()
    store = GameStore(tmp_path)
    path = store.finish(GameRecord.new(rules=RUSSIAN, now="2026-05-04T10:00:00+00:00").with_game(game))
    listed = GameFile.read(path)
    assert listed.tags["GameType"] == "25,W,8,8,A0,0" and listed.plies == 4
    text = path.read_text()
    assert "1. c3-d4 f6-e5 2. d4:f6 g7:e5" in text
    (read,) = read_games(text)
    assert read.error is None and read.rules == RUSSIAN and read.moves == game.moves
