"""The terminal simulator: the pure screen model, input parsing, and the real thing in tmux."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crownhead.firmware.app.view import BoardView
from crownhead.firmware.simulator.tui import (
    BOARD_LEFT,
    BOARD_TOP,
    HEIGHT,
    WIDTH,
    HandMove,
    InputError,
    Press,
    Quit,
    Toggle,
    cell_origin,
    key_action,
    parse_input,
    render,
    square_at,
)
from helpers.rig import PAL, MakeRig

REPO = Path(__file__).resolve().parents[1]


def view(**changes: object) -> BoardView:
    base = dict(
        pieces={s: "b" for s in range(1, 13)} | {s: "w" for s in range(21, 33)},
        lit={},
        blinking=frozenset(),
        status="Black to move, move 1",
        mode_text="Two players, hints on",
        black="Ann",
        white="Bob",
        moves=(),
    )
    base.update(changes)
    return BoardView(**base)  # type: ignore[arg-type]


# -- geometry and input ------------------------------------------------------------------------


def test_every_square_cell_maps_back_to_its_square() -> None:
    for square in range(1, 33):
        top, left = cell_origin(square)
        for dr in range(2):
            for dc in range(5):
                assert square_at(top + dr, left + dc) == square
    assert square_at(BOARD_TOP, BOARD_LEFT) is None  # a8 is a light square
    assert square_at(0, 0) is None and square_at(BOARD_TOP + 16, BOARD_LEFT) is None
    assert square_at(BOARD_TOP, BOARD_LEFT + 40) is None


def test_square_one_is_top_left_dark_square() -> None:
    assert cell_origin(1) == (BOARD_TOP, BOARD_LEFT + 5)  # b8
    assert cell_origin(5) == (BOARD_TOP + 2, BOARD_LEFT)  # a7
    assert cell_origin(32) == (BOARD_TOP + 14, BOARD_LEFT + 30)  # g1


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("11", Toggle(11)),
        (" 7 ", Toggle(7)),
        ("11-15", HandMove("11-15")),
        ("15x24x31", HandMove("15x24x31")),
        ("15 x 24", HandMove("15x24")),
        ("new", Press("new")),
        ("f", Press("follow")),
        ("q", Quit()),
        ("", None),
    ],
)
def test_parse_input(text: str, action: object) -> None:
    assert parse_input(text) == action


@pytest.mark.parametrize(
    ("text", "message"), [("33", "no square 33"), ("11-40", "no square 40"), ("hello", "type a square")]
)
def test_parse_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_input(text)


def test_single_keys() -> None:
    assert key_action("n") == Press("new") and key_action("t") == Press("takeback")
    assert key_action("q") == Quit() and key_action("x") is None and key_action("1") is None


def test_every_board_button_has_a_key_shown_on_the_key_line() -> None:
    from crownhead.hal.buttons import BUTTON_NAMES

    assert key_action("j") == Press("force") and key_action("d") == Press("draw")
    assert parse_input("force") == Press("force") and parse_input("draw") == Press("draw")
    letters = "abcdefghijklmnopqrstuvwxyz"
    keyed = {action.name for key in letters + letters.upper() if isinstance(action := key_action(key), Press)}
    # One button per side (black, white) is typed: "black" (short), "hold black" (long).
    assert set(BUTTON_NAMES) - {"black", "white"} <= keyed
    assert parse_input("black") == Press("black") and parse_input("hold white") == Press("white", long=True)
    assert key_action("b") == Press("black_draw") and key_action("W") == Press("white_resign")
    assert "b/w: Black/White draw  B/W: resign" in render(view()).line(HEIGHT - 2)
    bottom = render(view()).line(HEIGHT - 1)
    assert len(bottom) < WIDTH  # curses cannot write the last cell of the last row
    for key, help_text in (("n", "new"), ("d", "draw"), ("j", "jump"), ("a", "adjust"), ("q", "quit")):
        assert f"{key} {help_text}" in bottom


def test_force_key_makes_the_huffing_player_take_the_jump(make_rig: MakeRig) -> None:
    from crownhead.firmware.app.settings import AppSettings
    from crownhead.rules import Rules

    rig = make_rig(settings=AppSettings(rules=Rules(huffing=True)))
    for move in ("11-15", "22-18", "9-13"):  # Black skips the jump 15x22
        rig.do(move)
    assert rig.of_kind("missed-jump")[-1]["squares"] == [15]
    rig.do("j")
    assert rig.of_kind("force-jump") == [
        {"t": rig.of_kind("force-jump")[0]["t"], "event": "force-jump", "ply": 3, "side": "black", "move": "9-13"}
    ]


def test_draw_key_offers_and_accepts_in_referee_mode(make_rig: MakeRig) -> None:
    from crownhead.firmware.app.settings import AppSettings

    rig = make_rig(settings=AppSettings(mode="referee"))
    rig.do("11-15")
    rig.do("d")  # someone offers with the shared button: the board cannot tell who
    rig.do("d")
    assert [(e["ply"], e["side"]) for e in rig.of_kind("draw-offer")] == [(1, ""), (1, "")]
    assert rig.of_kind("game-over") == [] and "shared button" in rig.app.view().message
    rig.do("b")  # Black offers with the move made
    assert "White accepts" in rig.app.view().message
    rig.do("w")  # White agrees before replying
    assert [(e["result"], e["reason"]) for e in rig.of_kind("game-over")] == [("1/2-1/2", "agreement")]
    rig.close()


# -- rendering -----------------------------------------------------------------------------------


def test_render_start_position() -> None:
    screen = render(view(), typed="11-1")
    lines = screen.text().splitlines()
    assert len(lines) == HEIGHT and all(len(line) <= WIDTH for line in lines)
    top, left = cell_origin(1)
    assert lines[top][left : left + 2] == "1 "
    assert lines[top + 1][left : left + 5] == " (b) "
    top, left = cell_origin(32)
    assert lines[top][left : left + 2] == "32" and lines[top + 1][left : left + 5].strip() == "(w)"
    top, left = cell_origin(15)
    assert lines[top + 1][left : left + 5].strip() == ""
    text = screen.text()
    assert "Black to move, move 1" in text and "Black: Ann" in text and "White: Bob" in text
    assert "> 11-1_" in text
    assert "a    b    c    d    e    f    g    h" in text


def test_render_leds_as_backgrounds_and_marks() -> None:
    screen = render(view(lit={11: PAL.touched, 15: PAL.target, 20: (0, 20, 14)}, blinking=frozenset({9})))
    top, left = cell_origin(15)
    assert screen.styles[top][left].bg == PAL.target
    assert screen.chars[top][left + 4] == "*"
    top, left = cell_origin(20)
    assert screen.chars[top][left + 4] == "."  # lit dimly (a king, the last move)
    assert max(screen.styles[top][left].bg) >= 100  # raised so a screen shows it
    top, left = cell_origin(9)
    assert screen.chars[top][left + 4] == "!"  # blinking warning, even in its dark half
    top, left = cell_origin(14)
    assert screen.chars[top][left + 4] == " "


def test_render_kings_warning_prompt_and_moves() -> None:
    moves = ("11-15", "23-19", "8-11", "22-17", "9-13", "17x10", "7x14")
    screen = render(
        view(
            pieces={5: "B", 28: "W"},
            moves=moves,
            warning="Touch-move: the man on 22 was touched first and must be played",
            prompt="Random mover plays 24-20: make it on the board (f does it).",
            hand=("w",),
        )
    )
    text = screen.text()
    top, left = cell_origin(5)
    assert screen.line(top + 1)[left : left + 5] == " [B] "
    assert "Touch-move: the man on 22" in text and "must be played" in text
    assert "In hand: w" in text
    assert "  1. 11-15    23-19" in text and "  4. 7x14" in text


def test_move_list_keeps_the_latest_moves() -> None:
    moves = tuple(f"{i}-{i + 4}" for i in range(1, 29)) * 3
    text = render(view(moves=moves)).text()
    last_number = (len(moves) + 1) // 2
    assert f"{last_number:>3}. " in text and "  1. " not in text


def test_white_first_move_list() -> None:
    text = render(view(moves=("22-18", "11-15"), first_mover_white=True)).text()
    assert "  1. ...    22-18" in text and "  2. 11-15" in text


def test_small_terminal_gets_a_message() -> None:
    text = render(view(), width=60, height=20).text()
    assert "needs an 80x24 terminal (this one is 60x20)" in text.replace("\n", " ")


def test_runs_group_equal_styles() -> None:
    screen = render(view(lit={1: PAL.target}))
    row, col = cell_origin(1)
    runs = screen.runs(row)
    assert "".join(text for _, text, _ in runs) == "".join(screen.chars[row])
    assert any(style.bg == PAL.target and text.startswith("1 ") for _, text, style in runs)


def test_render_from_a_running_app(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("11-15")
    rig.do("22", wait=100)
    screen = render(rig.app.view())
    top, left = cell_origin(15)
    assert screen.line(top + 1)[left : left + 5].strip() == "(b)"
    top, left = cell_origin(22)
    assert screen.styles[top][left].bg == PAL.touched
    assert "  1. 11-15" in screen.text() and "In hand: w" in screen.text()


def test_act_reports_problems_on_the_screen(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("13-17")
    assert rig.app.view().message == "there is no piece on 13 to move"
    rig.do("10x19")
    assert "no piece" not in rig.app.view().message


# -- a real terminal -------------------------------------------------------------------------------


def test_no_terminal_is_one_clear_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crownhead.firmware.cli", "run", "--state-dir", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "needs a terminal" in out.stderr and "--headless" in out.stderr


TMUX = shutil.which("tmux")


class Tmux:
    """One detached tmux session of 80x24 running a command; the pane is read as text."""

    def __init__(self, name: str, command: list[str], cwd: Path) -> None:
        self.name = name
        env = {**os.environ, "TERM": "xterm-256color"}
        subprocess.run(
            [TMUX, "-L", name, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(cwd), *command],
            check=True,
            env=env,
            timeout=120,
        )

    def send(self, *keys: str, literal: bool = False) -> None:
        args = [TMUX, "-L", self.name, "send-keys", "-t", self.name] + (["-l"] if literal else []) + list(keys)
        subprocess.run(args, check=True, timeout=120)

    def capture(self) -> str:
        return subprocess.run(
            [TMUX, "-L", self.name, "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout

    def wait_for(self, predicate: object, timeout: float = 120.0) -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.capture()
            if predicate(screen):  # type: ignore[operator]
                return screen
            time.sleep(0.1)
        raise AssertionError("the screen never showed what was expected:\n" + screen)

    def alive(self) -> bool:
        out = subprocess.run([TMUX, "-L", self.name, "has-session", "-t", self.name], capture_output=True, timeout=120)
        return out.returncode == 0

    def kill(self) -> None:
        subprocess.run([TMUX, "-L", self.name, "kill-server"], capture_output=True, timeout=120)


def cell_text(screen: str, square: int, line: int) -> str:
    top, left = cell_origin(square)
    rows = screen.splitlines()
    return rows[top + line][left : left + 5] if top + line < len(rows) else ""


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (see docs/simulator.md for the manual check)")
def test_simulator_in_a_real_terminal(tmp_path: Path) -> None:
    name = f"crownhead-test-{os.getpid()}"
    crownhead = str(Path(sys.executable).with_name("crownhead"))
    command = [crownhead, "run", "--state-dir", str(tmp_path / "state")]
    tmux = Tmux(name, command, REPO)
    try:
        screen = tmux.wait_for(lambda s: "Black to move, move 1" in s)
        assert cell_text(screen, 11, 1).strip() == "(b)" and cell_text(screen, 15, 1).strip() == ""
        # A whole move typed on the keyboard.
        tmux.send("11-15")
        tmux.send("Enter")
        screen = tmux.wait_for(lambda s: "1. 11-15" in s and "White to move" in s)
        assert cell_text(screen, 15, 1).strip() == "(b)" and cell_text(screen, 11, 1).strip() == ""
        assert cell_text(screen, 15, 0).endswith(".")  # the last move, lit dimly
        # A click on square 22 (X10 mouse report: button 1 press then release).
        top, left = cell_origin(22)
        press = "\x1b[M" + chr(32 + 0) + chr(32 + left + 2) + chr(32 + top + 1)
        release = "\x1b[M" + chr(32 + 3) + chr(32 + left + 2) + chr(32 + top + 1)
        tmux.send(press + release, literal=True)
        # Lifted: in the hand, and its LED lit (white: the touched piece).
        tmux.wait_for(lambda s: "In hand: w" in s and cell_text(s, 22, 0).rstrip().endswith("*"))
        tmux.send("18")
        tmux.send("Enter")
        screen = tmux.wait_for(lambda s: "11-15    22-18" in s)
        tmux.send("q")
        end = time.monotonic() + 120  # a bound on a failure only
        while tmux.alive() and time.monotonic() < end:
            time.sleep(0.1)
        assert not tmux.alive()
    finally:
        tmux.kill()
    saved = (tmp_path / "state" / "current.json").read_text()
    assert '"11-15"' in saved and '"22-18"' in saved


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (see docs/simulator.md for the manual check)")
def test_sigterm_in_the_simulator_saves_and_restores_the_terminal(tmp_path: Path) -> None:
    name = f"crownhead-term-{os.getpid()}"
    crownhead = str(Path(sys.executable).with_name("crownhead"))
    tmux = Tmux(name, [crownhead, "run", "--state-dir", str(tmp_path / "state")], REPO)
    try:
        tmux.wait_for(lambda s: "Black to move, move 1" in s)
        tmux.send("9-14")
        tmux.send("Enter")
        tmux.wait_for(lambda s: "1. 9-14" in s)
        pid = int(
            subprocess.run(
                [TMUX, "-L", name, "display", "-p", "-t", name, "#{pane_pid}"],
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            ).stdout
        )
        os.kill(pid, 15)
        end = time.monotonic() + 120  # a bound on a failure only
        while tmux.alive() and time.monotonic() < end:
            time.sleep(0.1)
        assert not tmux.alive()  # the program ended on SIGTERM (the session closes with it)
    finally:
        tmux.kill()
    assert '"9-14"' in (tmp_path / "state" / "current.json").read_text()


def test_render_shows_the_match() -> None:
    text = render(view(match="Match, game 2 of 4: Ana 1, Ben 0")).text()
    assert "Match, game 2 of 4: Ana 1, Ben 0" in text
    assert "Match" not in render(view()).text()


def test_the_simulated_display_is_shown_beside_the_board(tmp_path: Path) -> None:
    screen = render(view(display=("4:57", "4:59", "White to move", "put back 22")))
    text = screen.text()
    assert "[4:57 | 4:59 | White to move | put" in text and "back 22]" in text  # wrapped in the panel
    assert "[" not in render(view()).text().split("Moves:")[0].split("Bob")[1]  # none without one


# -- a newcomer's walkthrough: width, contrast, empty hands -----------------------------------------

LONG_MESSAGE = (
    "White claims a draw: refused, no move of White's makes a position stand a third time, and 12 of the 80"
    " plies of the forty-move rule have passed without a man moving or a capture; play goes on"
)


def screen_words(text: str) -> list[str]:
    return " ".join(text.split()).split()


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40)])
def test_a_long_message_uses_the_width_and_wraps_never_cut(width: int, height: int) -> None:
    screen = render(view(message=LONG_MESSAGE, moves=("11-15", "23-19") * 20), width=width, height=height)
    lines = [screen.line(r) for r in range(height)]
    # The message ends on the line above the input line, wrapped at the terminal's width.
    input_row = next(r for r, line in enumerate(lines) if line.startswith(" > "))
    # At 80x24 the line of help above the keys gives way to a third line of message.
    assert input_row == (height - 2 if height == 24 else height - 3)
    rows = []
    r = input_row - 1
    while r >= 0 and lines[r].startswith(" ") and not lines[r].startswith("  ") and lines[r].strip():
        rows.insert(0, lines[r].strip())
        if " ".join(rows) == LONG_MESSAGE:
            break
        r -= 1
    assert " ".join(rows) == LONG_MESSAGE
    assert max(len(row) for row in rows) > 79 or width == 80
    assert all(len(row) <= width - 2 for row in rows)
    # The panel (status, moves) stands above the message, on the same columns as before.
    assert "Black to move, move 1" in screen.text() and " 20. 11-15" in screen.text()


def test_a_wide_terminal_shows_more_of_the_move_list() -> None:
    moves = tuple(f"{i}-{i + 4}" for i in range(1, 29)) * 2
    narrow = render(view(moves=moves)).text()
    tall = render(view(moves=moves), width=120, height=40).text()
    assert "  1. " not in narrow and "  1. 1-5" in tall


def test_every_piece_stands_out_from_every_led_colour_in_every_terminal() -> None:
    from crownhead.firmware.app.leds import Palette
    from crownhead.firmware.simulator.tui import MIN_CONTRAST, contrast, terminal_rgb
    from helpers.rig import dim

    palette = Palette()
    colours = {
        (role, level): rgb if level == "full" else dim(rgb)
        for role in Palette.__dataclass_fields__
        for level in ("full", "dim")
        for rgb in [palette.colour(role.replace("_", "-"))]
    }
    problems = []
    for (role, level), rgb in colours.items():
        for token in ("b", "w", "B", "W", None):
            pieces = {15: token} if token else {}
            screen = render(view(pieces=pieces, lit={15: rgb}))
            top, left = cell_origin(15)
            for row, col in ((top, left), (top + 1, left + 2)):  # the number, the piece
                style = screen.styles[row][col]
                if row == top + 1 and token is None:
                    continue
                assert style.fg is not None and style.bg is not None
                for count in (None, 256, 8):
                    ratio = contrast(terminal_rgb(style.fg, count), terminal_rgb(style.bg, count))
                    if ratio < MIN_CONTRAST:
                        problems.append((role, level, token, row - top, count, round(ratio, 2)))
            # The piece's own colour is kept: white pieces white, black ones black.
            if token:
                assert screen.styles[top + 1][left + 2].fg == ((0, 0, 0) if token.lower() == "b" else (255, 255, 255))
    assert problems == []


def test_an_empty_square_clicked_with_an_empty_hand_gets_no_phantom_piece(make_rig: MakeRig) -> None:
    rig = make_rig()
    rig.do("15")  # nothing in the hand, nothing wanted there
    assert 15 not in rig.sim.pieces and rig.sim.hand == []
    assert rig.app.view().message == "there is no piece in the hand to put on 15: lift one first"
    rig.do("11-15")
    rig.do("22")
    assert rig.app.view().hand == ("w",)  # the next click still lifts
    rig.do("18")
    assert [m.pdn() for m in rig.app.game.moves] == ["11-15", "22-18"]


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (see docs/simulator.md for the manual check)")
def test_on_a_network_address_the_terminal_shows_where_the_page_is_and_its_pin(tmp_path: Path) -> None:
    name = f"crownhead-web-{os.getpid()}"
    crownhead = str(Path(sys.executable).with_name("crownhead"))
    state = tmp_path / "state"
    tmux = Tmux(name, [crownhead, "run", "--web", "0.0.0.0:0", "--state-dir", str(state)], REPO)
    try:
        screen = tmux.wait_for(lambda s: "Black to move, move 1" in s and "Web page:" in s)
        line = screen.splitlines()[1]
        pin = (state / "web-pin").read_text().strip()
        assert line.startswith(" Web page: http://") and line.endswith(f"PIN {pin}"), line
        assert "0.0.0.0" not in screen  # an address a phone can use, never the wildcard
        tmux.send("q")
    finally:
        tmux.kill()


def test_the_page_line_keeps_the_first_address_and_the_pin_in_the_width() -> None:
    urls = ("http://192.168.178.120:8080/", "http://10.11.12.13:8080/", "http://crownhead-club-board.local:8080/")
    line = render(view(page_urls=urls, page_pin="482913")).line(1)
    assert line == " Web page: http://192.168.178.120:8080/ or http://10.11.12.13:8080/  PIN 482913"
    wide = render(view(page_urls=urls, page_pin="482913"), width=140, height=30).line(1)
    assert "crownhead-club-board.local" in wide and wide.endswith("PIN 482913")
