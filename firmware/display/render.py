"""What the board's display shows, laid out and drawn: pure functions of a :class:`Screen`.

The layout is a list of :class:`Item` (text, position, font size, inverted); :func:`draw`
turns it into a 1-bit Pillow image. Text is chosen to fit, never cut: a line too wide
for the largest font is tried in smaller ones, then shortened by rule
(:func:`shorten`), and only then scrolled (a marquee that shows every character in turn).

>>> screen = Screen(turn="Black to move", message="crown 1")
>>> [(item.text, item.size) for item in layout(screen, 0)]
[('Black to move', 16), ('crown 1', 13)]
>>> image = draw(layout(screen, 0))
>>> image.size, image.mode, image.getbbox() is not None
((128, 64), '1', True)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from crownhead.firmware.events import Side

__all__ = ["Screen", "Item", "layout", "draw", "fit", "shorten", "clock_face", "selftest_pattern", "WIDTH", "HEIGHT"]

WIDTH, HEIGHT = 128, 64
#: Pixels a scrolling line moves per step, and how long a step lasts.
SCROLL_PX, SCROLL_MS = 4, 250
#: Blank pixels between the end of a scrolling line and its start coming round again.
SCROLL_GAP = 24
MESSAGE_SIZES = (13, 12, 11, 10)
LINE_SIZES = (16, 14, 13, 12, 11, 10)
CLOCK_SIZES = (24, 22, 20, 18, 16, 14)


@dataclass(frozen=True)
class Screen:
    """Everything the display shows, as plain values.

    ``black_ms``/``white_ms`` are the clocks as read at ``clock_at`` (None: no clock);
    the ``running`` side's time goes down from there as the display redraws. ``flag``:
    the side whose flag fell. ``score``: the match score, once match play fills it in.
    ``since``: when the message appeared (a scrolling line starts from its beginning).
    """

    turn: str = ""
    message: str = ""
    result: str = ""
    score: str = ""
    black_ms: int | None = None
    white_ms: int | None = None
    running: Side | None = None
    clock_at: int = 0
    paused: bool = False
    flag: Side | None = None
    since: int = 0

    @property
    def has_clock(self) -> bool:
        return self.black_ms is not None and self.white_ms is not None

    def times(self, now_ms: int) -> tuple[int, int]:
        """Black's and White's time left at ``now_ms``."""
        black, white = self.black_ms or 0, self.white_ms or 0
        if not self.paused and not self.flag:
            gone = max(0, now_ms - self.clock_at)
            if self.running == "black":
                black -= gone
            elif self.running == "white":
                white -= gone
        return max(0, black), max(0, white)


@dataclass(frozen=True)
class Item:
    """One line of text at ``(x, y)`` (its top-left) in font ``size``; ``inverted``: lit box, dark text."""

    text: str
    x: int
    y: int
    size: int
    inverted: bool = False
    width: int = 0  #: the box an inverted item fills (0: the text's own width)


@functools.lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own scalable font (no font file to install)."""
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=1024)
def text_width(text: str, size: int) -> int:
    return int(ImageDraw.Draw(Image.new("1", (1, 1))).textlength(text, font=font(size)))


def clock_face(ms: int) -> str:
    """A clock as the display shows it: ``M:SS``, or ``H:MM:SS`` from an hour up.

    >>> clock_face(299_000), clock_face(3_725_000), clock_face(-1)
    ('4:59', '1:02:05', '0:00')
    """
    seconds = max(0, ms) // 1000
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


#: Shortening rules, applied in turn until a line fits: (pattern, replacement).
_RULES: tuple[tuple[str, str], ...] = (
    (r"\s*\([^)]*\)", ""),  # asides in brackets
    (r"\bput the (man|king|piece|pieces) back on\b", "put back"),
    (r"\b(the|a|an)\s+", ""),
    (r"\bcaution\b", "caut."),
    (r"\bcapture\b", "capt."),
    (r"\bBlack\b", "B"),
    (r"\bWhite\b", "W"),
    (r"\bagreement\b", "agreed"),
    (r"\bresignation\b", "resigned"),
)


def shorten(text: str, width: int, size: int) -> str | None:
    """``text`` shortened by the rules above until it fits ``width`` at ``size``; None if it never does.

    >>> shorten("White wins (resignation)", 40, 10)
    'W wins'
    """
    current = text
    for pattern, replacement in _RULES:
        current = " ".join(re.sub(pattern, replacement, current).split())
        if text_width(current, size) <= width:
            return current
    return None


def fit(text: str, width: int, sizes: tuple[int, ...]) -> tuple[str, int, bool]:
    """``(text, size, scrolls)``: the largest size at which ``text`` fits whole; else the
    text shortened by rule at the smallest size; else the whole text, scrolling."""
    for size in sizes:
        if text_width(text, size) <= width:
            return text, size, False
    smallest = sizes[-1]
    short = shorten(text, width, smallest)
    if short is not None:
        return short, smallest, False
    return text, smallest, True


def _line(text: str, y: int, sizes: tuple[int, ...], now_ms: int, since: int) -> Item:
    fitted, size, scrolls = fit(text, WIDTH, sizes)
    if not scrolls:
        return Item(fitted, (WIDTH - text_width(fitted, size)) // 2, y, size)
    span = text_width(fitted, size) + SCROLL_GAP
    offset = (max(0, now_ms - since) // SCROLL_MS * SCROLL_PX) % span
    return Item(fitted, -offset, y, size)


def layout(screen: Screen, now_ms: int) -> list[Item]:
    """The lines of ``screen`` at ``now_ms`` (clocks run, long lines scroll)."""
    items: list[Item] = []
    if screen.has_clock:
        black, white = screen.times(now_ms)
        faces = (clock_face(black), clock_face(white))
        size = next(s for s in CLOCK_SIZES if max(text_width(f, s) for f in faces) <= WIDTH // 2 - 4)
        for i, (side, face) in enumerate(zip(("black", "white"), faces)):
            x0 = i * (WIDTH // 2)
            running = screen.running == side and not screen.paused and not screen.flag
            x = x0 + (WIDTH // 2 - text_width(face, size)) // 2
            items.append(Item(face, x, 0, size, inverted=running, width=WIDTH // 2 - 2))
        status = screen.result or screen.turn
        if screen.flag:
            status = screen.result or f"{screen.flag.title()}'s flag fell"
        elif screen.paused:
            status = f"paused - {status}" if status else "paused"
        y = size + 6
        if status:
            items.append(_line(status, y, MESSAGE_SIZES, now_ms, screen.since))
        bottom = screen.message or screen.score
        if bottom:
            items.append(_line(bottom, HEIGHT - 14, MESSAGE_SIZES, now_ms, screen.since))
        return items
    status = screen.result or screen.turn
    if status:
        items.append(_line(status, 2, LINE_SIZES, now_ms, screen.since))
    if screen.message:
        items.append(_line(screen.message, 26, MESSAGE_SIZES, now_ms, screen.since))
    if screen.score:
        items.append(_line(screen.score, HEIGHT - 14, MESSAGE_SIZES, now_ms, screen.since))
    return items


def next_change(screen: Screen, now_ms: int) -> int | None:
    """When the picture changes by itself next (a running clock's second, a scroll step)."""
    times = []
    if screen.has_clock and screen.running and not screen.paused and not screen.flag:
        black, white = screen.times(now_ms)
        left = black if screen.running == "black" else white
        if left > 0:
            times.append(now_ms + (left % 1000 or 1000))
    if any(item.x < 0 or item.x + text_width(item.text, item.size) > WIDTH for item in layout(screen, now_ms)):
        times.append(now_ms + SCROLL_MS - max(0, now_ms - screen.since) % SCROLL_MS)
    return min(times) if times else None


def draw(items: list[Item], size: tuple[int, int] = (WIDTH, HEIGHT)) -> Image.Image:
    """The 1-bit picture of ``items``."""
    image = Image.new("1", size, 0)
    pen = ImageDraw.Draw(image)
    for item in items:
        f = font(item.size)
        if item.inverted:
            w = item.width or text_width(item.text, item.size)
            x0 = item.x - (w - text_width(item.text, item.size)) // 2
            pen.rectangle((x0, item.y, x0 + w - 1, item.y + item.size + 2), fill=1)
            pen.text((item.x, item.y), item.text, font=f, fill=0)
        else:
            pen.text((item.x, item.y), item.text, font=f, fill=1)
            if item.x < 0:  # scrolling: the start comes round again after the gap
                span = text_width(item.text, item.size) + SCROLL_GAP
                pen.text((item.x + span, item.y), item.text, font=f, fill=1)
    return image


def selftest_pattern(width: int = WIDTH, height: int = HEIGHT) -> Image.Image:
    """``crownhead selftest``'s picture: a frame, a checkerboard (every pixel row and
    column is exercised) and the words SELF TEST."""
    image = Image.new("1", (width, height), 0)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, width - 1, height - 1), outline=1)
    for row in range(4):
        for col in range(8):
            if (row + col) % 2:
                pen.rectangle((4 + col * 8, 4 + row * 8, 11 + col * 8, 11 + row * 8), fill=1)
    pen.text((72, 8), "SELF", font=font(14), fill=1)
    pen.text((72, 26), "TEST", font=font(14), fill=1)
    pen.text((6, 44), "crownhead", font=font(13), fill=1)
    return image
