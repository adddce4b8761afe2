"""One rule for every file the board reads, each fault enumerated for each kind of file.

The kinds: the saved game (``current.json``), finished records (``games/*.pdn``), the
configuration, PDN files, replay scripts. The faults: a FIFO (would hang), a symlink to
``/dev/zero`` (would never end), a file over the size cap (a sparse file: nothing is
written), nesting beyond any real file, bytes that are not UTF-8, a directory in the
file's place. A saved game that fails is moved aside (``*.bad``, named in one notice) and
the board starts a new game; the others are refused with one message naming the file.
Every case runs under a deadline, so a reader that hangs fails instead of hanging.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.config import ConfigError, load_config
from crownhead.firmware.files import CONFIG_LIMIT, PDN_LIMIT, RECORD_LIMIT, SCRIPT_LIMIT, FileRefused, read_bytes
from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.firmware.simulator.hands import Hands
from crownhead.rules import WCDF, Game
from helpers.rig import Rig

FAULTS = ("fifo", "dev-zero", "too-large", "deep", "not-utf8", "directory")
DEADLINE_S = 20.0


def within(func: Callable[[], Any], seconds: float = DEADLINE_S) -> Any:
    """``func()``, failing the test if it has not returned within ``seconds`` (a hang)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still reading after {seconds} s: the reader hangs"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def make_fault(path: Path, fault: str, limit: int, deep: str) -> None:
    """Put ``fault`` where the file ``path`` belongs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fault == "fifo":
        os.mkfifo(path)
    elif fault == "dev-zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero on this system")
        path.symlink_to("/dev/zero")
    elif fault == "too-large":
        with open(path, "wb") as f:
            f.truncate(limit + 1)  # sparse: one byte over the cap without writing it
    elif fault == "deep":
        path.write_text(deep, encoding="utf-8")
    elif fault == "not-utf8":
        path.write_bytes(b"\xff\xfe\x00garbage\x80\n")
    elif fault == "directory":
        path.mkdir()
    else:  # pragma: no cover
        raise ValueError(fault)


# -- the shared reader -------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["fifo", "dev-zero", "too-large", "directory"])
def test_the_reader_refuses_what_is_no_regular_file_within_the_cap(tmp_path: Path, fault: str) -> None:
    path = tmp_path / "file"
    make_fault(path, fault, 1000, "")
    with pytest.raises(FileRefused) as info:
        within(lambda: read_bytes(path, 1000))
    assert str(path) in str(info.value)


def test_the_reader_stops_at_the_cap_of_a_growing_file(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_bytes(b"x" * 10)
    assert read_bytes(path, 10) == b"x" * 10
    path.write_bytes(b"x" * 11)
    with pytest.raises(FileRefused, match="more than the 10"):
        read_bytes(path, 10)


def test_dev_null_reads_as_empty() -> None:
    assert read_bytes(os.devnull, 10) == b""


# -- the saved game: moved aside, the board starts a new game -----------------------------------

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def _starts_fresh(state: Path) -> Rig:
    """The board starts on ``state``: one notice names current.json and where it was kept;
    a new game begins and its first move is saved."""
    rig = within(lambda: Rig(state))
    notices = [e["message"] for e in rig.of_kind("notice")]
    kept = [n for n in notices if "current.json" in n and "was kept as" in n]
    assert len(kept) == 1, notices
    bad = list(state.glob("current-*.bad"))
    assert len(bad) == 1 and str(bad[0]) in kept[0]
    assert rig.of_kind("game-start")[-1]["resumed"] is False
    rig.do("11-15")
    assert rig.store.load_current().moves == ("11-15",)
    return rig


@pytest.mark.parametrize("fault", FAULTS)
def test_a_bad_saved_game_file_is_moved_aside_and_the_board_starts(tmp_path: Path, fault: str) -> None:
    make_fault(tmp_path / "current.json", fault, RECORD_LIMIT, DEEP_JSON)
    _starts_fresh(tmp_path).close()


def _record(**fields: Any) -> str:
    game = Game(None, WCDF)
    game.play_text("11-15")
    data = json.loads(GameRecord.new(now="2026-01-01T10:00:00+00:00", rules=WCDF).with_game(game).to_json())
    data.update(fields)
    return json.dumps(data)


BAD_FIELDS = {
    "black is a number": {"black": 5},
    "white is a list": {"white": ["a"]},
    "result is not a result": {"result": "banana", "reason": "x"},
    "id escapes games/": {"id": "../../escaped"},
    "id is absolute": {"id": "/tmp/x"},
    "extra holds a list (finished)": {"result": "1-0", "reason": "resign", "extra": {"Annotator": ["a"]}},
    "extra replaces Result": {"extra": {"Result": "banana"}},
    "name with a newline": {"black": 'Ann\n[Result "banana"]'},
    "name with ESC": {"white": "\x1b[2Jbob"},
    "event is null": {"event": None},
    "reason is a table": {"result": "1-0", "reason": {"a": 1}},
    "moves hold a number": {"moves": [1]},
    "a huff of a square off the board": {"history": ["11-15", "huff 99"]},
    "format is true": {"format": True},
    "rules option of the wrong type": {"flying_kings": "yes"},
    "start_fen is a number": {"start_fen": 12},
}


# A mode (or its settings) that is not one loses only how the game was played: the game
# resumes with two players (tests/test_resume.py), so it is not among these.


@pytest.mark.parametrize("fields", BAD_FIELDS.values(), ids=list(BAD_FIELDS))
def test_a_saved_game_field_of_the_wrong_type_or_shape_is_refused(tmp_path: Path, fields: dict[str, Any]) -> None:
    (tmp_path / "current.json").write_text(_record(**fields), encoding="utf-8")
    rig = _starts_fresh(tmp_path)
    rig.do("n", wait=2000)  # new: a resumed "black": 5 used to crash here
    rig.close()
    assert not list((tmp_path.parent).glob("escaped*")) and not list(tmp_path.glob("escaped*"))
    for pdn in (tmp_path / "games").glob("*.pdn"):
        assert "banana" not in pdn.read_text(encoding="utf-8")


def test_the_id_cannot_name_a_file_outside_games(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "state")
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.resign()
    record = GameRecord.new(rules=WCDF).with_game(game)
    from dataclasses import replace

    from crownhead.firmware.storage.store import StoreError

    with pytest.raises(StoreError, match="cannot name a file"):
        store.finish(replace(record, id="../../escaped"))
    assert not (tmp_path / "escaped.pdn").exists()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_bad_match_file_is_moved_aside_and_the_board_starts(tmp_path: Path, fault: str) -> None:
    make_fault(tmp_path / "match.json", fault, RECORD_LIMIT, DEEP_JSON)
    rig = within(lambda: Rig(tmp_path))
    notices = [e["message"] for e in rig.of_kind("notice")]
    kept = [n for n in notices if "match.json" in n and "was kept as" in n]
    assert len(kept) == 1, notices
    assert len(list(tmp_path.glob("match-*.bad"))) == 1
    rig.do("11-15")
    assert rig.store.load_current().moves == ("11-15",)
    rig.close()


# -- finished records: one bad file hides nothing ------------------------------------------------


@pytest.mark.parametrize("fault", ["fifo", "dev-zero", "too-large", "not-utf8", "directory"])
def test_one_bad_game_file_hides_no_other(tmp_path: Path, fault: str, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    store = GameStore(state)
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.resign()
    good = store.finish(GameRecord.new(black="Ann", now="2026-01-01T10:00:00+00:00", rules=WCDF).with_game(game))
    make_fault(state / "games" / "20260101-999999-bad.pdn", fault, RECORD_LIMIT, "")
    assert within(lambda: main(["games", "--state-dir", str(state)])) == 1
    captured = capsys.readouterr()
    assert good.name in captured.out and "Ann" in captured.out
    assert "20260101-999999-bad.pdn" in captured.err and "left out" in captured.err
    out = tmp_path / "all.pdn"
    assert within(lambda: main(["games", "export", "--state-dir", str(state), "-o", str(out)])) == 1
    assert out.read_text(encoding="utf-8").count("[Event ") == 1
    assert "20260101-999999-bad.pdn" in capsys.readouterr().err


# -- the configuration: one clear error naming the file ------------------------------------------

DEEP_TOML = "a = " + "[" * 500 + "]" * 500 + "\n"


@pytest.mark.parametrize("fault", FAULTS)
def test_a_bad_configuration_file_is_one_clear_error(tmp_path: Path, fault: str) -> None:
    path = tmp_path / "config.toml"
    make_fault(path, fault, CONFIG_LIMIT, DEEP_TOML)
    with pytest.raises(ConfigError) as info:
        within(lambda: load_config(path))
    assert str(info.value).startswith(str(path))
    assert "Traceback" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\ufeff[board]\nbackend = 'sim'\n", "byte-order mark (BOM)"),
        ('[play]\nblack_name = "Ann\\n[Result \\"banana\\"]"\n', "play.black_name: has a control character (U+000A)"),
        ('[play]\nevent = "\\u001b[2J"\n', "play.event: has a control character (U+001B)"),
        ('[play]\nsite = "a\\u0000b"\n', "play.site: has a control character (U+0000)"),
        ("[sensors]\ndebounce_ms = " + "9" * 4301 + "\n", "a number of more than 64 digits"),
        ("[sensors]\ndebounce_ms = 99999999999999999999\n", "sensors.debounce_ms"),
        ('[play]\nsite = "' + "x" * 2000 + '"\n', "play.site: is longer than 1024 characters"),
    ],
    ids=["bom", "newline-in-name", "esc-in-event", "nul-in-site", "4301-digits", "huge-int", "long-string"],
)
def test_configuration_values_that_would_break_what_is_written_later(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value) and str(path) in str(info.value)


# -- PDN files and replay scripts: one clear error naming the file ----------------------------------


@pytest.mark.parametrize("fault", ["fifo", "dev-zero", "too-large", "directory"])
def test_a_bad_pdn_file_is_one_clear_error(tmp_path: Path, fault: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.pdn"
    make_fault(path, fault, PDN_LIMIT, "")
    assert within(lambda: main(["pdn", "check", str(path)])) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"crownhead pdn check: cannot read {path}") and len(err.splitlines()) == 1


def test_a_pdn_file_of_deep_nesting_and_huge_values_reads_in_bounded_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Variations nested 100,000 deep, a tag value of 4 MB, a square of 4,301 digits.
    path = tmp_path / "games.pdn"
    path.write_text(
        '[Event "'
        + "e" * 4_000_000
        + '"]\n1. 11-15 '
        + "(" * 100_000
        + "22-18"
        + ")" * 100_000
        + " 23-19 2. "
        + "1" * 4301
        + "-22 *\n",
        encoding="utf-8",
    )
    assert within(lambda: main(["pdn", "check", str(path)])) == 0
    err = capsys.readouterr()
    assert "not on the board" in err.out + err.err


@pytest.mark.parametrize("fault", ["fifo", "dev-zero", "too-large", "not-utf8", "directory"])
@pytest.mark.parametrize("command", ["replay", "run"])
def test_a_bad_script_file_is_one_clear_error(
    tmp_path: Path, fault: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "script.txt"
    make_fault(path, fault, SCRIPT_LIMIT, "")
    argv = (
        ["replay", str(path)]
        if command == "replay"
        else ["run", "--hal", "sim", "--headless", "--state-dir", str(tmp_path / "state"), "--script", str(path)]
    )
    assert within(lambda: main(argv)) == 2
    err = capsys.readouterr().err
    assert f"cannot read {path}" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "line",
    ["lift ²", "place ٣", "wait ³", "wait " + "9" * 4301, "lift " + "1" * 4301, "wait 86400001", "press " + "a" * 40],
)
def test_script_numbers_are_ascii_digits_with_a_length_limit(line: str) -> None:
    from crownhead.firmware.simulator.script import ScriptError, parse_script

    with pytest.raises(ScriptError) as info:
        parse_script(line)
    assert info.value.line == 1 and len(str(info.value)) < 120


def test_a_script_waiting_while_a_warning_blinks_keeps_the_frames_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each blink is a frame; the simulator used to keep every frame it was ever shown
    # (50 MB a line of a long wait). A smaller cap here keeps the test quick.
    from crownhead.firmware.simulator.script import parse_script
    from crownhead.sim.board import SimLights

    assert SimLights.KEEP == 10_000
    monkeypatch.setattr(SimLights, "KEEP", 300)
    rig = Rig(None)
    Hands(rig.app).run_script(parse_script("lift 11\nwait 400\nplace 20\nwait 1000\n"))  # 11-20: a warning blinks
    assert rig.of_kind("warning")
    Hands(rig.app).run_script(parse_script("wait 600000\n"))  # ten minutes: thousands of frames shown
    frames = rig.sim.lights.frames
    assert len(frames) == 300 and frames[-1].t_ms >= 600_000 and frames[0].t_ms > 500_000
    rig.close()
