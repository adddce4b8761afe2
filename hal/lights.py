"""LEDs under the squares: the :class:`Lights` interface and the backend-independent parts.

A *frame* is the whole picture at once: ``{square: (r, g, b)}`` for the dark squares
1-32; squares absent are off. Boards with an LED under every square (64 pixels) also
accept light squares as ``(row, col)`` cells (row 0 = rank 8, col 0 = file a); a
32-LED board ignores those, so one LED policy serves both. A dark square given as a
cell is the same as its number.

Colours are logical (0-255 per channel). The brightness cap is applied by each
backend on the way out, never by the code that composes frames, so a policy can use
full-scale colours and the power budget is enforced in one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from crownhead.hal.clock import Clock
from crownhead.hal.device import Closeable, Device
from crownhead.squares import Cell, cell_to_square

__all__ = [
    "RGB",
    "Cell",
    "FrameKey",
    "Frame",
    "Lights",
    "normalize_frame",
    "scale_rgb",
    "FrameLimiter",
    "NullLights",
    "DEFAULT_BRIGHTNESS",
    "MA_PER_CHANNEL",
    "MA_IDLE_PER_PIXEL",
    "estimate_current_ma",
]

RGB = tuple[int, int, int]
FrameKey = int | Cell
Frame = dict[FrameKey, RGB]

# Default cap: with it, even all 64 pixels at full white stay under ~450 mA, which a
# Pi's 5 V rail can spare (see docs/hardware.md, "Power budget").
DEFAULT_BRIGHTNESS = 0.1
# WS2812B: about 20 mA per channel at full duty, about 1 mA per pixel when dark.
MA_PER_CHANNEL = 20.0
MA_IDLE_PER_PIXEL = 1.0


@runtime_checkable
class Lights(Closeable, Protocol):
    """The LEDs under the board."""

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        """Display a whole frame; squares absent from it are off."""
        ...

    def off(self) -> None:
        """All LEDs off."""
        ...

    def close(self) -> None:
        """Turn the LEDs off and release the hardware. Idempotent."""
        ...


def _check_rgb(key: object, rgb: object) -> RGB:
    if (
        not isinstance(rgb, tuple | list)
        or len(rgb) != 3
        or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in rgb)
    ):
        raise ValueError(f"colour for {key!r} must be (r, g, b) with ints 0-255, got {rgb!r}")
    return (rgb[0], rgb[1], rgb[2])


def normalize_frame(frame: Mapping[FrameKey, RGB]) -> Frame:
    """Validate a frame and bring dark squares given as cells to their numbers.

    Raises ValueError for a key that is not a square 1-32 or a cell on the board, or a
    colour that is not three ints 0-255: a bad frame is a bug in the caller, and it
    fails the same way on every backend. Black entries are dropped (black is off).
    """
    out: Frame = {}
    for key, rgb in frame.items():
        colour = _check_rgb(key, rgb)
        norm: FrameKey
        if isinstance(key, int) and not isinstance(key, bool):
            if not 1 <= key <= 32:
                raise ValueError(f"square must be 1-32, got {key}")
            norm = key
        elif (
            isinstance(key, tuple)
            and len(key) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in key)
        ):
            row, col = key
            if not (0 <= row < 8 and 0 <= col < 8):
                raise ValueError(f"cell off the board: {key!r}")
            sq = cell_to_square(row, col)
            norm = sq if sq is not None else (row, col)
        else:
            raise ValueError(f"frame key must be a square 1-32 or a (row, col) cell, got {key!r}")
        if colour != (0, 0, 0):
            out[norm] = colour
    return out


def scale_rgb(rgb: RGB, brightness: float) -> RGB:
    """Apply a brightness cap the way adafruit_pixelbuf does (truncating)."""
    return (int(rgb[0] * brightness), int(rgb[1] * brightness), int(rgb[2] * brightness))


def estimate_current_ma(frame: Mapping[FrameKey, RGB], brightness: float, pixels: int) -> float:
    """Rough WS2812B supply current for a frame on a strip of ``pixels`` LEDs."""
    lit = sum(sum(scale_rgb(rgb, brightness)) for rgb in frame.values())
    return pixels * MA_IDLE_PER_PIXEL + lit / 255.0 * MA_PER_CHANNEL


class NullLights(Device):
    """A board without LEDs: accepts and validates frames, shows nothing."""

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        normalize_frame(frame)

    def off(self) -> None:
        pass


class FrameLimiter(Device):
    """Rate-limits another :class:`Lights`: at most ``max_fps`` frames reach it.

    A burst of frames is merged: while the strip is "busy" only the newest frame is
    kept and it goes out as soon as the interval has passed, either from the next
    :meth:`show` or from :meth:`flush`, which the main loop calls (at the latest at
    :meth:`next_deadline`). A frame equal to what is already shown is not resent,
    which keeps an idle board from spending bus time (and serial bandwidth) at all.
    """

    def __init__(self, lights: Lights, clock: Clock, max_fps: float = 30) -> None:
        if not max_fps > 0:
            raise ValueError(f"max_fps must be > 0, got {max_fps!r}")
        self.inner = lights
        self.clock = clock
        self.interval_ms = max(1, math.ceil(1000 / max_fps))
        self._last_sent_at: int | None = None
        self._shown: Frame | None = None
        self._pending: Frame | None = None
        self.sent = 0  # frames that reached the backend
        self.merged = 0  # frames replaced by a newer one before going out

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        new = normalize_frame(frame)
        if self._pending is not None:
            self.merged += 1
        self._pending = new
        self.flush(self.clock.now_ms())

    def off(self) -> None:
        self.show({})

    def flush(self, now_ms: int | None = None) -> bool:
        """Send the pending frame if its time has come; True if something was sent."""
        if self._pending is None:
            return False
        if self._pending == self._shown:
            self._pending = None
            return False
        now = self.clock.now_ms() if now_ms is None else now_ms
        if self._last_sent_at is not None and now - self._last_sent_at < self.interval_ms:
            return False
        frame, self._pending = self._pending, None
        self.inner.show(frame)
        self._shown = frame
        self._last_sent_at = now
        self.sent += 1
        return True

    def next_deadline(self) -> int | None:
        """When :meth:`flush` will send the pending frame; None if nothing waits."""
        if self._pending is None:
            return None
        if self._last_sent_at is None:
            return self.clock.now_ms()
        return self._last_sent_at + self.interval_ms

    @property
    def current(self) -> Frame:
        """The newest frame asked for (pending or shown)."""
        if self._pending is not None:
            return dict(self._pending)
        return dict(self._shown or {})

    def _release(self) -> None:
        # The backend turns itself off on close; a pending frame is moot then.
        self._pending = None
        self.inner.close()
