"""Keeping games: atomic saves, resume records, finished games as PDN, the lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import crownhead.firmware.files as files_mod
from crownhead.firmware.files import atomic_write, default_state_dir
from crownhead.firmware.storage import store as store_mod
from crownhead.firmware.storage.store import (
    GameFile,
    GameRecord,
    GameStore,
    StoreError,
    StoreLockedError,
    pdn_text,
)
from crownhead.rules import WCDF, Game, Position, Rules

from helpers.games import random_game


def replay_pdn_moves(text: str, start: Position | None = None) -> Game:
    """Replay the movetext of a PDN file with the rules core (an independent reader)."""
    game = Game(start, WCDF)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("["))
    for token in body.split():
        if token[0].isdigit() and ("-" in token or "x" in token) and token not in ("1-0", "0-1", "1/2-1/2"):
            game.play_text(token)
    return game


# -- where the state lives ---------------------------------------------------------------


def test_state_dir_prefers_writable_system_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = tmp_path / "var-lib-crownhead"
    monkeypatch.setattr(files_mod, "SYSTEM_STATE_DIR", system)
    env = {"HOME": str(tmp_path / "home")}
    assert default_state_dir(env) == tmp_path / "home" / ".local" / "state" / "crownhead"
    system.mkdir()
    assert default_state_dir(env) == system


def test_state_dir_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files_mod, "SYSTEM_STATE_DIR", tmp_path / "absent")
    assert default_state_dir({"XDG_STATE_HOME": "/x/state", "HOME": "/h"}) == Path("/x/state/crownhead")
    # A relative XDG value is invalid by the spec and ignored.
    assert default_state_dir({"XDG_STATE_HOME": "rel", "HOME": "/h"}) == Path("/h/.local/state/crownhead")


def test_state_dir_skips_unwritable_system_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = tmp_path / "ro"
    system.mkdir()
    monkeypatch.setattr(files_mod, "SYSTEM_STATE_DIR", system)
    # Simulated rather than chmod: root (as in CI containers) may write anywhere.
    monkeypatch.setattr(store_mod.os, "access", lambda path, mode: Path(path) != system)
    assert default_state_dir({"HOME": "/h"}) == Path("/h/.local/state/crownhead")


# -- atomic writes -------------------------------------------------------------------------


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    atomic_write(target, "one")
    atomic_write(target, "two")
    assert target.read_text() == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]


def test_atomic_write_failure_keeps_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.json"
    atomic_write(target, "old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_mod.os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]


def test_atomic_write_fsyncs_file_and_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.exists(f"/proc/self/fd/{fd}") else "?")
        real_fsync(fd)

    monkeypatch.setattr(store_mod.os, "fsync", spy)
    atomic_write(tmp_path / "g.json", "x")
    assert len(synced) == 2
    assert synced[-1] == str(tmp_path)  # the directory, after the rename


# -- the game in progress ------------------------------------------------------------------


def test_save_and_load_current_round_trip(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "state")
    assert store.load_current() is None
    game = random_game(7, plies=40)
    record = GameRecord.new(black="Ann", white="Bob", now="2026-03-01T10:20:30+01:00", rules=WCDF).with_game(game)
    store.save_current(record)
    loaded = store.load_current()
    assert loaded == record
    assert loaded is not None
    assert loaded.to_game().moves == game.moves
    assert loaded.to_game().position == game.position
    assert record.id.startswith("20260301-102030-")


def test_record_keeps_start_position_and_rules(tmp_path: Path) -> None:
    start = Position.from_fen("W:W18,K32:B5,14")
    rules = Rules(men_capture_backward=True)
    game = Game(start, rules)
    game.play(game.legal_moves()[0])
    store = GameStore(tmp_path)
    store.save_current(GameRecord.new(start=start, rules=rules).with_game(game))
    loaded = store.load_current()
    assert loaded is not None and loaded.start == start and loaded.rules == rules
    assert loaded.to_game().position == game.position


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": 99, "id": "a", "started": "b"}', "unknown format 99"),
        ('{"format": 1, "id": "a", "started": "b", "colour": 1}', "unknown key 'colour'"),
        ('{"format": 1, "id": "a", "started": "b", "moves": [1]}', "'moves' must be a list"),
        ('{"format": 1, "id": "a", "started": "b", "moves": ["11-15", "11-15"]}', r"move 2 \(11-15\) does not replay"),
    ],
)
def test_bad_current_file_is_refused_naming_it(tmp_path: Path, content: str, message: str) -> None:
    store = GameStore(tmp_path)
    store.current_path.write_text(content)
    with pytest.raises(StoreError, match=message) as info:
        store.load_current()
    if "replay" not in message:
        assert str(store.current_path) in str(info.value)
    # Nothing is deleted: the file is put aside for a person to look at.
    aside = store.set_aside()
    assert aside is not None and aside.read_text() == content
    assert store.load_current() is None


def test_finished_record_with_declared_result_replays(tmp_path: Path) -> None:
    game = random_game(3, plies=10)
    game.resign()
    record = GameRecord.new(rules=WCDF).with_game(game)
    assert (record.result, record.reason) == (game.result.score, "resign")
    again = record.to_game()
    assert again.result == game.result


# -- finished games ------------------------------------------------------------------------


def test_finish_writes_pdn_with_the_required_tags(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    game = random_game(11, plies=200)
    assert game.is_over
    record = GameRecord.new(
        black="Ann",
        white="Crownhead engine",
        event="Home game",
        site="Kitchen table",
        now="2026-05-04T20:00:00+00:00",
        rules=WCDF,
    ).with_game(game)
    store.save_current(record)
    path = store.finish(record)
    assert not store.current_path.exists()
    text = path.read_text()
    tags = GameFile.read(path).tags
    # The seven-tag roster, as every PDN writer of the project writes it (Round unknown).
    assert list(tags)[:7] == ["Event", "Site", "Date", "Round", "Black", "White", "Result"]
    assert tags["Event"] == "Home game" and tags["Site"] == "Kitchen table"
    assert tags["Date"] == "2026.05.04"
    assert tags["Black"] == "Ann" and tags["White"] == "Crownhead engine"
    assert tags["Result"] == game.result.score
    assert text.rstrip().endswith(game.result.score)
    replayed = replay_pdn_moves(text)
    assert replayed.moves == game.moves
    assert all(len(line) <= 79 for line in text.splitlines())
    assert GameFile.read(path).plies == game.ply


def test_crash_while_finishing_leaves_the_finished_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GameStore(tmp_path)
    game = random_game(5, plies=200)
    store.save_current(GameRecord.new(rules=WCDF).with_game(Game(None, WCDF)))  # the game in progress, as saved
    record = GameRecord.new(rules=WCDF).with_game(game)
    real = store_mod.atomic_write

    def power_cut(path: Path, text: str) -> None:
        if path.suffix == ".pdn":
            raise OSError(5, "Input/output error")
        real(path, text)

    monkeypatch.setattr(store_mod, "atomic_write", power_cut)
    with pytest.raises(StoreError):
        store.finish(record)
    monkeypatch.undo()
    left = store.load_current()
    assert left is not None and left.finished and left.moves == record.moves
    store.finish(left)
    assert not store.current_path.exists() and len(store.game_files()) == 1


def test_finish_needs_a_result(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a record with a result"):
        GameStore(tmp_path).finish(GameRecord.new(rules=WCDF))


def test_finish_is_idempotent(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    record = GameRecord.new(rules=WCDF).with_game(random_game(5, plies=200))
    first = store.finish(record)
    second = store.finish(record)
    assert first == second and len(store.game_files()) == 1


def test_pdn_from_a_set_up_position_with_white_to_move(tmp_path: Path) -> None:
    start = Position.from_fen("W:W21,22,23:B9,10,11")
    game = random_game(2, plies=6, start=start)
    record = GameRecord.new(start=start, rules=WCDF).with_game(game)
    text = pdn_text(record)
    tags = GameFile.read(_write(tmp_path, text)).tags
    assert tags["SetUp"] == "1" and tags["FEN"] == start.fen()
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1... ")
    assert replay_pdn_moves(text, start).moves == game.moves


def test_pdn_writes_ambiguous_capture_in_full() -> None:
    start = Position.from_fen("B:W17,18,25,26,32:B14")
    game = Game(start, WCDF)
    game.play_text("14x23x30")
    text = pdn_text(GameRecord.new(start=start, rules=WCDF).with_game(game))
    assert "14x23x30" in text
    assert replay_pdn_moves(text, start).moves == game.moves
    # An unambiguous capture keeps the short form.
    game2 = Game(Position.from_fen("B:W18:B14"), WCDF)
    game2.play_text("14x23")
    assert "1. 14x23 1-0" in pdn_text(GameRecord.new(start=game2.start, rules=WCDF).with_game(game2))


def test_pdn_escapes_quotes_in_tags(tmp_path: Path) -> None:
    record = GameRecord.new(black='Ann "the Wall" Lee', rules=WCDF)
    path = _write(tmp_path, pdn_text(record))
    assert GameFile.read(path).tags["Black"] == 'Ann "the Wall" Lee'


def test_list_and_export(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    games = []
    for i, seed in enumerate((21, 22, 23)):
        game = random_game(seed, plies=200)
        games.append(game)
        store.finish(GameRecord.new(now=f"2026-01-0{i + 1}T09:00:00+00:00", rules=WCDF).with_game(game))
    listed = store.list_games()
    assert [g.tags["Date"] for g in listed] == ["2026.01.01", "2026.01.02", "2026.01.03"]
    assert [g.plies for g in listed] == [g.ply for g in games]
    exported = store.export()
    assert exported.count('[Event "') == 3
    chunks = exported.split('[Event "')[1:]
    for chunk, game in zip(chunks, games):
        assert replay_pdn_moves('[Event "' + chunk).moves == game.moves


def test_abandoned_game_keeps_its_moves(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    game = random_game(9, plies=12)
    path = store.finish(GameRecord.new(rules=WCDF).with_game(game).abandoned())
    tags = GameFile.read(path).tags
    assert tags["Result"] == "*" and tags["Termination"] == "abandoned"
    assert replay_pdn_moves(path.read_text()).moves == game.moves


# -- the lock ------------------------------------------------------------------------------


def test_lock_refuses_a_second_holder(tmp_path: Path) -> None:
    first = GameStore(tmp_path)
    first.acquire()
    code = (
        "import sys; from crownhead.firmware.storage.store import GameStore, StoreLockedError\n"
        "try:\n    GameStore(sys.argv[1]).acquire()\nexcept StoreLockedError as e:\n"
        "    print(e); sys.exit(3)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 3, out.stderr
    assert f"pid {os.getpid()}" in out.stdout and str(tmp_path) in out.stdout
    first.release()
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_acquire_removes_temporaries_left_by_a_crash(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save_current(GameRecord.new(rules=WCDF))
    (tmp_path / ".current.json.abc123.tmp").write_text('{"half')
    (tmp_path / "games" / ".x.pdn.def.tmp").write_text("[Event")
    store.acquire()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["current.json", "lock"]
    store.release()


def test_lock_in_same_process_second_store(tmp_path: Path) -> None:
    a, b = GameStore(tmp_path), GameStore(tmp_path)
    a.acquire()
    with pytest.raises(StoreLockedError):
        b.acquire()
    a.release()
    b.acquire()
    b.release()


def test_unwritable_state_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot create the state directory"):
        GameStore(blocker / "state").save_current(GameRecord.new(rules=WCDF))


def test_a_file_where_the_games_folder_belongs_is_named_not_the_state_directory(tmp_path: Path) -> None:
    # Issue 54: the state directory is fine; its "games" is a file.
    (tmp_path / "games").write_text("")
    with pytest.raises(StoreError) as caught:
        GameStore(tmp_path).save_current(GameRecord.new(rules=WCDF))
    message = str(caught.value)
    assert f"{tmp_path / 'games'} is not a folder" in message
    assert "cannot create the state directory" not in message


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.pdn"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "times",
    [{"1": [1, 2]}, [[1, 598_000]], [[2, 598_000, 2_000], [1, 598_000, 2_000]], [[1, 598_000, -5]], [[1, "9:58", 2]]],
)
def test_a_bad_times_entry_names_the_problem(times: object) -> None:
    data = json.loads(GameRecord.new(rules=WCDF).with_game(Game(None, WCDF)).to_json())
    data["times"] = times
    with pytest.raises(StoreError, match="'times' must be a list of \\[ply, time left ms, time used ms\\]"):
        GameRecord.from_json(json.dumps(data), "current.json")


def test_a_record_without_times_reads_as_before() -> None:
    data = json.loads(GameRecord.new(rules=WCDF).with_game(Game(None, WCDF)).to_json())
    del data["times"]  # written before the field existed
    assert GameRecord.from_json(json.dumps(data)).times == ()
