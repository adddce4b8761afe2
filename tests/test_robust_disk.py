"""The board starts and plays whatever the state directory holds or cannot do.

Full, read-only, missing, not creatable: the board plays, says once that games are not
being kept and why, keeps trying, and loses nothing it accepted while the disk worked.
The full and read-only cases mount a real tmpfs (root only: CI runs the suite as root);
elsewhere they skip, saying so.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crownhead.firmware.storage.store import GameRecord, GameStore
from crownhead.rules import WCDF, Game
from helpers.rig import Rig

ROOT = Path(__file__).resolve().parent.parent


def _mount(point: Path, size_kb: int) -> None:
    point.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(point)],
        check=True,
        capture_output=True,
    )


def _can_mount() -> str | None:
    """None when this process can mount a tmpfs, else why not."""
    if not sys.platform.startswith("linux"):
        return "tmpfs mounts are Linux only"
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs the suite as root)"
    return None


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 256 KB tmpfs, unmounted afterwards."""
    why = _can_mount()
    if why is not None:
        pytest.skip(why)
    point = tmp_path / "mnt"
    try:
        _mount(point, 256)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {getattr(exc, 'stderr', b'') or exc!s}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False, capture_output=True)


def fill(point: Path) -> Path:
    """Fill the filesystem to the last byte; the filler file, to delete to free it."""
    filler = point / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 4096, 512, 1):  # down to the last byte
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def free(point: Path) -> None:
    (point / "filler").unlink()


def remount(point: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(point)], check=True, capture_output=True)


def notices(rig: Rig) -> list[str]:
    return [e["message"] for e in rig.of_kind("notice")]


def not_kept(rig: Rig) -> list[str]:
    return [n for n in notices(rig) if n.startswith("games are not being kept")]


def saved_moves(state: Path) -> tuple[str, ...]:
    return tuple(json.loads((state / "current.json").read_text(encoding="utf-8"))["moves"])


# -- a full disk ---------------------------------------------------------------------------------


def test_a_full_disk_mid_game_is_said_once_and_nothing_accepted_is_lost(small_fs: Path) -> None:
    state = small_fs / "state"
    rig = Rig(state)
    rig.do("11-15")
    rig.do("23-19")
    assert saved_moves(state) == ("11-15", "23-19")
    fill(small_fs)
    for move in ("8-11", "22-17", "9-13"):
        rig.do(move)
    assert rig.moves() == ["11-15", "23-19", "8-11", "22-17", "9-13"]  # the board plays on
    said = not_kept(rig)
    assert len(said) == 1 and "No space left on device" in said[0]
    assert saved_moves(state) == ("11-15", "23-19")  # what the disk took is still there
    free(small_fs)
    rig.do("17-14")  # it keeps trying: the next save takes every move
    assert saved_moves(state) == ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14")
    assert notices(rig)[-1] == f"games are kept again in {state}"
    rig.close()
    assert notices(rig)[-1] == "stopped: the game is saved and the LEDs are off"


def test_stopping_on_a_full_disk_does_not_claim_the_game_is_saved(small_fs: Path) -> None:
    state = small_fs / "state"
    rig = Rig(state)
    rig.do("11-15")
    fill(small_fs)
    rig.do("23-19")
    rig.close()
    last = notices(rig)[-1]
    assert "NOT saved" in last and "No space left on device" in last
    assert "the game is saved" not in last


def test_a_full_disk_with_a_resume_pending_and_new_pressed(small_fs: Path) -> None:
    state = small_fs / "state"
    first = Rig(state)
    first.do("11-15")
    first.do("23-19")
    first.close()
    fill(small_fs)
    rig = Rig(state)
    rig.do("n", wait=2000)  # new instead of the resume: the old game cannot be put away now
    assert rig.of_kind("game-start")[-1]["resumed"] is False
    assert len(not_kept(rig)) == 1
    assert saved_moves(state) == ("11-15", "23-19")  # the old game is still on disk, whole
    rig.do("9-14")
    free(small_fs)
    rig.do("22-18")
    saved = rig.of_kind("game-saved")
    assert [s["result"] for s in saved] == ["*"]
    assert "11-15" in Path(saved[0]["path"]).read_text(encoding="utf-8")  # put away at last
    assert saved_moves(state) == ("9-14", "22-18")
    rig.close()


def test_a_full_disk_with_a_finished_record_pending_starts(small_fs: Path) -> None:
    state = small_fs / "state"
    store = GameStore(state)
    game = Game(None, WCDF)
    game.play_text("11-15")
    game.resign()
    record = GameRecord.new(rules=WCDF).with_game(game)
    store.save_current(record)  # as if the power went between "game over" and the PDN
    fill(small_fs)
    for _ in range(2):  # every launch starts, not only the first
        rig = Rig(state)
        assert rig.of_kind("game-start")[-1]["resumed"] is False
        assert len(not_kept(rig)) == 1
        assert not rig.of_kind("game-saved")
        rig.close()
        assert json.loads(store.current_path.read_text(encoding="utf-8"))["result"] == record.result
    rig = Rig(state)
    free(small_fs)
    rig.do("11-15")
    saved = rig.of_kind("game-saved")
    assert len(saved) == 1 and Path(saved[0]["path"]) == store.game_path(record)
    assert saved_moves(state) == ("11-15",)
    rig.close()


# -- a read-only disk ---------------------------------------------------------------------------


def test_a_read_only_state_directory_plays_and_says_why_once(small_fs: Path) -> None:
    state = small_fs / "state"
    first = Rig(state)
    first.do("11-15")
    first.close()
    remount(small_fs, "ro")
    rig = Rig(state, board=None)  # the lock cannot be taken: the board starts all the same
    said = not_kept(rig)
    assert len(said) == 1 and "Read-only file system" in said[0]
    assert rig.app.resuming  # the saved game is read and offered all the same
    rig.do("n", wait=2000)
    rig.do("11-15")
    rig.do("23-19")
    assert rig.moves()[-2:] == ["11-15", "23-19"] and len(not_kept(rig)) == 1
    remount(small_fs, "rw")
    rig.do("8-11")  # writable again: the lock is taken, the abandoned game and this one kept
    assert saved_moves(state) == ("11-15", "23-19", "8-11")
    assert [s["result"] for s in rig.of_kind("game-saved")] == ["*"]
    rig.close()
    assert notices(rig)[-1] == "stopped: the game is saved and the LEDs are off"


def test_a_corrupt_saved_game_on_a_read_only_disk_is_left_as_it_is(small_fs: Path) -> None:
    state = small_fs / "state"
    state.mkdir()
    (state / "current.json").write_text('{"format": 1, "id": "x", "started": "y", "black": 5}')
    remount(small_fs, "ro")
    rig = Rig(state)
    assert rig.of_kind("game-start")[-1]["resumed"] is False
    assert any("'black' must be a string" in n and "moved aside when it can be" in n for n in notices(rig))
    rig.do("11-15")
    rig.close()
    assert "NOT saved" in notices(rig)[-1]
    remount(small_fs, "rw")
    assert '"black": 5' in (state / "current.json").read_text()  # untouched, not overwritten


def test_a_corrupt_match_file_on_a_read_only_disk_is_left_as_it_is(small_fs: Path) -> None:
    state = small_fs / "state"
    state.mkdir()
    (state / "match.json").write_text("[" * 100_000)
    remount(small_fs, "ro")
    rig = Rig(state)  # used to stop at the start: the bad file could not be renamed
    assert any("match.json" in n and "no match is under way" in n for n in notices(rig))
    rig.do("11-15")
    assert rig.moves() == ["11-15"]
    rig.close()


def test_run_headless_on_a_read_only_state_directory(small_fs: Path, tmp_path: Path) -> None:
    state = small_fs / "state"
    state.mkdir()
    remount(small_fs, "ro")
    script = tmp_path / "script.txt"
    script.write_text("lift 11\nwait 400\nplace 15\nwait 1000\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crownhead.firmware.cli",
            "run",
            "--hal",
            "sim",
            "--headless",
            "--state-dir",
            str(state),
            "--script",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split(None, 1)[1] for line in done.stdout.splitlines()]  # without the time
    said = [line for line in lines if line.startswith("games are not being kept")]
    assert len(said) == 1 and "Read-only file system" in said[0]
    assert "move 1: black 11-15" in lines
    assert "NOT saved" in lines[-1]


# -- missing, not creatable (no mount needed) -------------------------------------------------


def test_a_missing_state_directory_is_created(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "a" / "b" / "state")
    rig.do("11-15")
    assert saved_moves(tmp_path / "a" / "b" / "state") == ("11-15",)
    assert not not_kept(rig)
    rig.close()


def test_a_state_directory_that_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    rig = Rig(tmp_path / "file" / "state")
    said = not_kept(rig)
    assert len(said) == 1 and "Not a directory" in said[0]
    rig.do("11-15")
    rig.do("23-19")
    assert rig.moves() == ["11-15", "23-19"] and len(not_kept(rig)) == 1
    rig.close()
    assert "NOT saved" in notices(rig)[-1]


def test_a_store_less_board_does_not_claim_to_save(tmp_path: Path) -> None:
    rig = Rig(None)
    rig.do("11-15")
    rig.close()
    assert notices(rig)[-1] == "stopped: the LEDs are off (this board keeps no games)"
