"""The interactive simulator: the simulated board in a terminal, played with mouse or keys.

A thin view over :class:`~crownhead.firmware.app.application.App`. Everything a test needs to check is pure and
needs no terminal: :func:`render` turns a :class:`~crownhead.firmware.app.view.BoardView` into a
:class:`Screen` (characters plus a colour style per cell), :func:`square_at` maps a mouse
click to a square, :func:`parse_input` reads what the person typed. Only :func:`main`
touches curses.

Layout (80x24 or larger): the board on the left, from Black's side (square 1 top left)
as on a diagram, each dark square showing its number, its piece and its LED colour as
the cell's background (``*`` marks a lit LED and ``!`` a blinking warning, for terminals
without colour); game status, warning and the move list on the right, as wide and as
tall as the terminal; the message wrapped across the whole width above the input line,
and the keys at the bottom. A piece and a square's number always stand out from the
LED colour under them (:data:`MIN_CONTRAST`, in the colours the terminal really draws:
:func:`terminal_rgb`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.simulator.keys import (
    KEYS,
    HandMove,
    InputError,
    Press,
    Quit,
    Toggle,
    Typed,
    key_action,
    parse_input,
)

if TYPE_CHECKING:
    import curses

    from crownhead.firmware.app.application import App
    from crownhead.firmware.app.view import BoardView

__all__ = [
    "WIDTH",
    "HEIGHT",
    "KEYS",
    "Style",
    "Screen",
    "Toggle",
    "HandMove",
    "Press",
    "Quit",
    "InputError",
    "parse_input",
    "key_action",
    "render",
    "square_at",
    "cell_origin",
    "main",
    "NoTerminalError",
    "MIN_CONTRAST",
    "contrast",
    "terminal_rgb",
]

WIDTH, HEIGHT = 80, 24
CELL_W, CELL_H = 5, 2
BOARD_TOP, BOARD_LEFT = 2, 3
PANEL_LEFT = BOARD_LEFT + 8 * CELL_W + 2
PANEL_WIDTH = WIDTH - PANEL_LEFT - 1

RGB = tuple[int, int, int]

WOOD: RGB = (110, 70, 35)  # a dark square whose LED is off
LIGHT: RGB = (200, 190, 160)  # a light square (no LED on a 32-LED board)
PANEL: RGB | None = None  # the terminal's own background


#: The least contrast ratio (WCAG's, 3:1 for bold text) between a piece or a square's
#: number and the square's colour, in true colour, 256 colours and 8 colours alike.
MIN_CONTRAST = 3.0

#: What an 8-colour terminal draws for colour 0-7 (xterm's defaults).
BASIC_COLOURS: tuple[RGB, ...] = (
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
)


def colour_index(rgb: RGB, count: int) -> int:
    """The terminal colour drawn for ``rgb`` with ``count`` colours (256: xterm's 6x6x6
    cube; fewer: the nearest basic colour by channel thresholds)."""
    if count >= 256:
        r, g, b = (min(5, (v + 25) // 51) for v in rgb)
        return 16 + 36 * r + 6 * g + b
    r, g, b = (1 if v >= 100 else 0 for v in rgb)
    return r + 2 * g + 4 * b


def terminal_rgb(rgb: RGB, count: int | None) -> RGB:
    """The colour a terminal of ``count`` colours shows for ``rgb`` (None: true colour).

    >>> terminal_rgb((250, 250, 240), 256), terminal_rgb((255, 120, 0), 8)
    ((255, 255, 255), (205, 205, 0))
    """
    if count is None:
        return rgb
    index = colour_index(rgb, count)
    if count >= 256:
        levels = (0, 95, 135, 175, 215, 255)
        cube = index - 16
        return levels[cube // 36], levels[cube // 6 % 6], levels[cube % 6]
    return BASIC_COLOURS[index]


def _luminance(rgb: RGB) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG's contrast ratio of two colours, 1 (none) to 21 (black on white).

    >>> round(contrast((255, 255, 255), (0, 0, 0)), 1), contrast((9, 9, 9), (9, 9, 9))
    (21.0, 1.0)
    """
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _stands_out(fg: RGB, bg: RGB) -> bool:
    """Whether ``fg`` on ``bg`` is readable in true colour, 256 and 8 colours."""
    return all(contrast(terminal_rgb(fg, n), terminal_rgb(bg, n)) >= MIN_CONTRAST for n in (None, 256, 8))


def _behind(fg: RGB, bg: RGB) -> RGB:
    """``bg`` (an LED's colour), or as little darker or lighter as makes ``fg`` stand out
    on it: the hue stays, so the square still shows its role."""
    away: RGB = (0, 0, 0) if _luminance(fg) > 0.2 else (255, 255, 255)
    for step in range(11):
        f = step / 10
        shade: RGB = tuple(round(c + (a - c) * f) for c, a in zip(bg, away))  # type: ignore[assignment]
        if _stands_out(fg, shade):
            return shade
    return away


def _number_fg(bg: RGB) -> RGB:
    """Black or light grey for a square's number, whichever reads better on ``bg``."""
    dark, light = (0, 0, 0), (230, 230, 230)
    worst = {
        fg: min(contrast(terminal_rgb(fg, n), terminal_rgb(bg, n)) for n in (None, 256, 8)) for fg in (dark, light)
    }
    return dark if worst[dark] >= worst[light] else light


class Style(NamedTuple):
    fg: RGB | None = None
    bg: RGB | None = None
    bold: bool = False


PLAIN = Style()


class Screen:
    """A grid of characters, each with a :class:`Style`; ``text()`` is what a capture shows."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.width, self.height = width, height
        self.chars = [[" "] * width for _ in range(height)]
        self.styles = [[PLAIN] * width for _ in range(height)]

    def put(self, row: int, col: int, text: str, style: Style = PLAIN) -> None:
        if not 0 <= row < self.height:
            return
        for i, ch in enumerate(text):
            c = col + i
            if 0 <= c < self.width:
                self.chars[row][c] = ch
                self.styles[row][c] = style

    def fill(self, row: int, col: int, width: int, style: Style) -> None:
        self.put(row, col, " " * width, style)

    def line(self, row: int) -> str:
        return "".join(self.chars[row]).rstrip()

    def text(self) -> str:
        return "\n".join(self.line(r) for r in range(self.height))

    def runs(self, row: int) -> list[tuple[int, str, Style]]:
        """The row as ``(col, text, style)`` runs of equal style (what curses draws)."""
        out: list[tuple[int, str, Style]] = []
        start = 0
        for c in range(1, self.width + 1):
            if c == self.width or self.styles[row][c] != self.styles[row][start]:
                out.append((start, "".join(self.chars[row][start:c]), self.styles[row][start]))
                start = c
        return out


# -- geometry ------------------------------------------------------------------------------


def cell_origin(square: int) -> tuple[int, int]:
    """Screen ``(row, col)`` of the top-left corner of a dark square's cell."""
    r, k = divmod(square - 1, 4)
    c = 2 * k + (1 if r % 2 == 0 else 0)
    return BOARD_TOP + r * CELL_H, BOARD_LEFT + c * CELL_W


def square_at(row: int, col: int) -> int | None:
    """The dark square under screen position ``(row, col)``, None elsewhere (a click)."""
    r, dr = divmod(row - BOARD_TOP, CELL_H)
    c, dc = divmod(col - BOARD_LEFT, CELL_W)
    if row < BOARD_TOP or col < BOARD_LEFT or not (0 <= r < 8 and 0 <= c < 8):
        return None
    if (r + c) % 2 == 0:
        return None
    return r * 4 + c // 2 + 1


# -- rendering -----------------------------------------------------------------------------


def _piece_label(token: str | None) -> str:
    if token is None:
        return ""
    if token.isupper():
        return f"[{token}]"  # a king: two men stacked, drawn with square brackets
    return f"({token})"


def _piece_fg(token: str | None) -> RGB:
    return (0, 0, 0) if token is not None and token.lower() == "b" else (255, 255, 255)


def _visible(rgb: RGB) -> RGB:
    # A dim LED is plainly visible under a real board but near-black on a screen:
    # keep the hue, raise the level so a dimmed king or last move can be seen.
    peak = max(rgb)
    if peak == 0 or peak >= 110:
        return rgb
    f = 110 / peak
    return (min(255, int(rgb[0] * f)), min(255, int(rgb[1] * f)), min(255, int(rgb[2] * f)))


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        while len(w) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(w[:width])
            w = w[width:]
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return lines


#: The last screen row the board uses (its file letters); the message may go below it.
BOARD_BOTTOM = BOARD_TOP + 8 * CELL_H


def render(view: BoardView, typed: str = "", width: int = WIDTH, height: int = HEIGHT) -> Screen:
    """The whole screen for ``view`` with ``typed`` on the input line."""
    screen = Screen(width, height)
    if width < WIDTH or height < HEIGHT:
        msg = f"Crownhead needs an {WIDTH}x{HEIGHT} terminal (this one is {width}x{height})."
        for i, line in enumerate(_wrap(msg, max(10, width - 1))):
            screen.put(i, 0, line)
        return screen
    panel_width = width - PANEL_LEFT - 1
    title = "Crownhead - simulated board"
    screen.put(0, 1, title, Style(bold=True))
    screen.put(0, PANEL_LEFT, view.mode_text[:panel_width])
    if view.page_urls:
        screen.put(1, 1, _page_line(view, width - 2))
    _render_board(screen, view)
    # The message across the whole width, wrapped, ending above the input line; it may
    # take the rows below the board (the panel giving way to it), and on a small terminal
    # the line of help above the keys.
    message = _wrap(view.message, width - 2)
    help_line = len(message) <= height - 3 - (BOARD_BOTTOM + 1)
    input_row = height - 3 if help_line else height - 2
    room = input_row - (BOARD_BOTTOM + 1)
    if len(message) > room:
        message = message[: room - 1] + [_last_line(" ".join(message[room - 1 :]), width - 2)]
    top = input_row - len(message)
    for i, line in enumerate(message):
        screen.put(top + i, 1, line)
    _render_panel(screen, view, panel_width, min(top, input_row - 1) - 1)
    screen.put(input_row, 1, "> " + typed[-(width - 6) :] + "_", Style(bold=True))
    keys = "  ".join(f"{k} {text}" for k, name, text in KEYS if name != "follow" and text and name not in view.unused)
    if help_line:
        screen.put(height - 2, 1, _help_line(view))
    screen.put(height - 1, 1, keys)
    return screen


def _help_line(view: BoardView) -> str:
    """The line of help above the keys: typing, follow, the per-side buttons, and ``k``
    for the clock when the game has one (the key line below has no room left for it)."""
    buttons = "f follow  b/w: Black/White draw  B/W: resign"
    if "clock" in view.unused:
        return f"Click/type a square, or 11-15.  {buttons}"
    return f"Type a square or 11-15.  {buttons}  k clock"


def _page_line(view: BoardView, width: int) -> str:
    """Where the web page is and its PIN, in ``width``: the addresses that fit (the first
    always), then the PIN."""
    pin = f"  PIN {view.page_pin}" if view.page_pin else ""
    urls = list(view.page_urls)
    while len(urls) > 1 and len("Web page: " + " or ".join(urls) + pin) > width:
        urls.pop()
    return _last_line("Web page: " + " or ".join(urls) + pin, width)


def _last_line(text: str, width: int) -> str:
    """``text`` on one line of ``width``, ending in an ellipsis when it does not fit."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "\u2026"


def _render_board(screen: Screen, view: BoardView) -> None:
    for r in range(8):
        screen.put(BOARD_TOP + r * CELL_H, 1, str(8 - r))
        for c in range(8):
            top, left = BOARD_TOP + r * CELL_H, BOARD_LEFT + c * CELL_W
            if (r + c) % 2 == 0:
                for dr in range(CELL_H):
                    screen.fill(top + dr, left, CELL_W, Style(bg=LIGHT))
                continue
            square = r * 4 + c // 2 + 1
            lit = view.lit.get(square)
            bg = _visible(lit) if lit else WOOD
            token = view.pieces.get(square)
            # For terminals without colour: ! blinks (a warning), * is lit, . is lit dimly.
            mark = "!" if square in view.blinking else ("*" if lit and max(lit) >= 100 else "." if lit else " ")
            screen.put(top, left, f"{square:<2}  {mark}", Style(_number_fg(bg), bg))
            label = _piece_label(token)
            fg = _piece_fg(token)
            # The piece keeps its colour; the LED's colour under it gives way if it must.
            screen.put(top + 1, left, f"{label:^{CELL_W}}", Style(fg, _behind(fg, bg) if token else bg, bold=True))
    screen.put(BOARD_TOP + 8 * CELL_H, BOARD_LEFT, "".join(f"{f:^{CELL_W}}" for f in "abcdefgh"))


def _render_panel(screen: Screen, view: BoardView, panel_width: int = PANEL_WIDTH, bottom: int = 19) -> None:
    """The status, players, warning, prompt, hand and moves beside the board, rows
    ``BOARD_TOP`` to ``bottom``."""
    rows: list[tuple[str, Style]] = []
    # Wrapped, never cut: "Resuming a game: White to move, move 16" is wider than the panel.
    rows.extend((line, Style(bold=True)) for line in _wrap(view.status, panel_width))
    rows.append((f"Black: {view.black}", PLAIN))
    rows.append((f"White: {view.white}", PLAIN))
    if view.match:
        rows.extend((line, Style(bold=True)) for line in _wrap(view.match, panel_width))
    if view.away:
        # A game far apart waits for the broker or the other board: the grace left.
        rows.extend((line, Style(bold=True)) for line in _wrap(view.away, panel_width))
    if view.display:
        # The simulated display beside the board ([display] driver set): its lines.
        rows.extend(
            (line, Style((255, 255, 255), (20, 20, 60)))
            for line in _wrap("[" + " | ".join(view.display) + "]", panel_width)
        )
    for line in _wrap(view.warning, panel_width) if view.warning else []:
        rows.append((line, Style((255, 255, 255), (170, 40, 0), bold=True)))
    for line in _wrap(view.prompt, panel_width) if view.prompt else []:
        rows.append((line, Style(bold=True)))
    if view.hand:
        rows.append((f"In hand: {' '.join(view.hand)}", PLAIN))
    rows.append(("Moves:", Style(bold=True)))
    move_lines = _move_lines(view)
    room = max(0, bottom - BOARD_TOP + 1 - len(rows))
    if len(move_lines) > room:
        move_lines = move_lines[len(move_lines) - room :]
    rows.extend((line, PLAIN) for line in move_lines)
    for i, (text, style) in enumerate(rows[: bottom - BOARD_TOP + 1]):
        screen.put(BOARD_TOP + i, PANEL_LEFT, text[:panel_width], style)


def _move_lines(view: BoardView) -> list[str]:
    lines = []
    number = view.first_number
    moves = list(view.moves)
    i = 0
    if view.first_mover_white and moves:
        lines.append(f"{number:>3}. ...    {moves[0]}")
        number, i = number + 1, 1
    while i < len(moves):
        pair = moves[i : i + 2]
        lines.append(f"{number:>3}. {pair[0]:<8}" + (f" {pair[1]}" if len(pair) > 1 else ""))
        number += 1
        i += 2
    return lines


# -- curses --------------------------------------------------------------------------------


class NoTerminalError(RuntimeError):
    """The simulator was started without an interactive terminal."""


def check_terminal() -> None:
    """Raise :class:`NoTerminalError` with advice when there is no usable terminal."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise NoTerminalError(
            "the interactive simulator needs a terminal (stdin/stdout is not a tty); "
            "use --headless to run without the screen"
        )
    term = os.environ.get("TERM", "")
    if not term or term == "dumb":
        raise NoTerminalError(
            f"the interactive simulator needs a terminal type with cursor control (TERM={term or 'unset'}); "
            "set TERM (e.g. xterm-256color) or use --headless"
        )


class _Colours:
    """Maps RGB styles to curses colour pairs, using 256 colours when the terminal has them."""

    def __init__(self, curses_mod: ModuleType) -> None:
        self.curses = curses_mod
        c = self.curses
        self.enabled = c.has_colors()
        self.pairs: dict[tuple[int, int], int] = {}
        if self.enabled:
            c.start_color()
            try:
                c.use_default_colors()
                self.default = -1
            except c.error:
                self.default = 0
            self.count = c.COLORS
            self.max_pairs = c.COLOR_PAIRS

    def _index(self, rgb: RGB | None, background: bool) -> int:
        if rgb is None:
            return self.default
        return colour_index(rgb, self.count)

    def attr(self, style: Style) -> int:
        c = self.curses
        attr = c.A_BOLD if style.bold else 0
        if not self.enabled:
            return attr | (c.A_REVERSE if style.bg not in (None, WOOD, LIGHT) else 0)
        key = (self._index(style.fg, False), self._index(style.bg, True))
        pair = self.pairs.get(key)
        if pair is None:
            if len(self.pairs) + 1 >= self.max_pairs:
                return attr
            pair = len(self.pairs) + 1
            c.init_pair(pair, key[0], key[1])
            self.pairs[key] = pair
        return attr | c.color_pair(pair)


def _draw(stdscr: curses.window, screen: Screen, colours: _Colours) -> None:
    for row in range(screen.height):
        for col, text, style in screen.runs(row):
            if row == screen.height - 1 and col + len(text) >= screen.width:
                text = text[: screen.width - col - 1]  # curses cannot write the last cell
            if text:
                try:
                    stdscr.addstr(row, col, text, colours.attr(style))
                except Exception:  # noqa: BLE001 - a resize in the middle of a draw
                    pass


def main(app: App, should_stop: Callable[[], bool] = lambda: False) -> int:
    """Run the simulator in the terminal until the person quits; returns an exit code."""
    check_terminal()
    import curses

    try:
        return curses.wrapper(_loop, app, should_stop)
    except curses.error as exc:
        raise NoTerminalError(f"the terminal cannot run the simulator ({exc}); use --headless") from exc


def _loop(stdscr: curses.window, app: App, should_stop: Callable[[], bool]) -> int:
    import curses

    curses.curs_set(0)
    curses.mousemask(curses.BUTTON1_CLICKED | curses.BUTTON1_PRESSED)
    curses.mouseinterval(0)
    stdscr.keypad(True)
    colours = _Colours(curses)
    typed = ""
    shown: str | None = None
    hands = Hands(app)
    while not should_stop():
        now = app.clock.now_ms()
        app.step(now)
        height, width = stdscr.getmaxyx()
        screen = render(app.view(), typed, width, height)
        key_frame = screen.text() + repr([screen.runs(r) for r in range(screen.height)])
        if key_frame != shown:
            stdscr.erase()
            _draw(stdscr, screen, colours)
            stdscr.refresh()
            shown = key_frame
        deadline = app.next_deadline()
        wait = 50 if deadline is None else max(1, min(50, deadline - app.clock.now_ms()))
        stdscr.timeout(wait)
        try:
            key = stdscr.get_wch()
        except curses.error:
            continue  # timeout: nothing typed
        action: Typed | None = None
        if key == curses.KEY_MOUSE:
            try:
                _, mx, my, _, _ = curses.getmouse()
            except curses.error:
                continue
            square = square_at(my, mx)
            if square is not None:
                action = Toggle(square)
        elif key in ("\n", "\r", curses.KEY_ENTER):
            try:
                action = parse_input(typed)
            except InputError as exc:
                app.say(str(exc))
            typed = ""
        elif key in (curses.KEY_BACKSPACE, "\b", "\x7f"):
            typed = typed[:-1]
        elif key == "\x1b":
            typed = ""
        elif key == curses.KEY_RESIZE:
            shown = None
        elif isinstance(key, str) and key.isprintable():
            if not typed and (key_action(key) or key_action(key.lower())) is not None:
                action = key_action(key) or key_action(key.lower())
            elif len(typed) < 40:
                typed += key
        if isinstance(action, Quit):
            return 0
        if action is not None:
            hands.act(action)
    return 0
