"""Frames, the frame limiter, pixel maps and the square geometry they rest on."""

from __future__ import annotations

import pytest

from crownhead.hal.clock import MonotonicClock, VirtualClock
from crownhead.hal.lights import (
    DEFAULT_BRIGHTNESS,
    FrameLimiter,
    Lights,
    NullLights,
    estimate_current_ma,
    normalize_frame,
    scale_rgb,
)
from crownhead.hal.pixelmap import build_pixel_map, cell_order
from crownhead.hal.sensors import diff_events, mask_of, squares_of
from crownhead.squares import cell_to_square, neighbours, parse_cell, square_name, square_to_cell


class Recorder:
    def __init__(self) -> None:
        self.frames: list[dict] = []
        self.closed = False

    def show(self, frame):
        self.frames.append(dict(frame))

    def off(self):
        self.show({})

    def close(self):
        self.closed = True


# -- geometry ----------------------------------------------------------------------


def test_pdn_numbering() -> None:
    names = {1: "b8", 4: "h8", 5: "a7", 8: "g7", 9: "b6", 29: "a1", 32: "g1"}
    for sq, name in names.items():
        assert square_name(sq) == name
        assert cell_to_square(*parse_cell(name)) == sq
    for sq in range(1, 33):
        assert cell_to_square(*square_to_cell(sq)) == sq
    assert cell_to_square(0, 0) is None  # a8 is light
    assert cell_to_square(7, 0) == 29  # a1 is dark


def test_neighbours_are_the_diagonals() -> None:
    assert neighbours(1) == [5, 6]
    assert neighbours(18) == [14, 15, 22, 23]
    assert neighbours(29) == [25]


def test_masks() -> None:
    assert mask_of([1, 32]) == 0x80000001
    assert squares_of(0x80000001) == [1, 32]
    assert diff_events(mask_of([1, 2]), mask_of([2, 3]), 7)[0].square == 1
    with pytest.raises(ValueError):
        mask_of([0])
    with pytest.raises(ValueError):
        squares_of(1 << 32)


def test_virtual_clock_refuses_to_go_back() -> None:
    c = VirtualClock(10)
    assert c.advance(5) == 15
    c.set(20)
    with pytest.raises(ValueError):
        c.set(19)
    with pytest.raises(ValueError):
        c.advance(-1)
    m = MonotonicClock()
    a = m.now_ms()
    assert 0 <= a <= m.now_ms()


# -- frames ------------------------------------------------------------------------


def test_normalize_frame() -> None:
    frame = normalize_frame({1: (1, 2, 3), (7, 0): (4, 5, 6), (0, 0): (7, 8, 9), 2: (0, 0, 0)})
    # (7, 0) is a1 = square 29; (0, 0) is the light square a8; black is dropped.
    assert frame == {1: (1, 2, 3), 29: (4, 5, 6), (0, 0): (7, 8, 9)}


@pytest.mark.parametrize(
    "frame",
    [
        {0: (1, 1, 1)},
        {33: (1, 1, 1)},
        {(8, 0): (1, 1, 1)},
        {"a1": (1, 1, 1)},
        {1: (256, 0, 0)},
        {1: (1, 1)},
        {1: (1.0, 2, 3)},
        {True: (1, 1, 1)},
    ],
)
def test_bad_frames_fail_on_every_backend(frame: dict) -> None:
    for lights in (NullLights(), FrameLimiter(Recorder(), VirtualClock())):
        with pytest.raises(ValueError):
            lights.show(frame)


def test_scale_and_current() -> None:
    assert scale_rgb((255, 128, 10), 0.1) == (25, 12, 1)
    assert scale_rgb((255, 255, 255), 1.0) == (255, 255, 255)
    white64 = {sq: (255, 255, 255) for sq in range(1, 33)}
    white64.update({(r, c): (255, 255, 255) for r in range(8) for c in range(8) if (r + c) % 2 == 0})
    # The default cap keeps a full-white 64-LED board within a Pi's spare 5 V budget.
    assert estimate_current_ma(white64, DEFAULT_BRIGHTNESS, 64) < 500
    assert estimate_current_ma({}, 1.0, 32) == 32


def test_backends_implement_the_protocol() -> None:
    assert isinstance(NullLights(), Lights)
    assert isinstance(FrameLimiter(Recorder(), VirtualClock()), Lights)


# -- frame limiter -------------------------------------------------------------------


def test_first_frame_goes_out_at_once_then_bursts_merge() -> None:
    clock = VirtualClock(1000)
    rec = Recorder()
    lim = FrameLimiter(rec, clock, max_fps=25)  # 40 ms apart
    lim.show({1: (9, 9, 9)})
    assert rec.frames == [{1: (9, 9, 9)}]
    for i in range(10):  # a burst within the interval: only the newest survives
        clock.advance(1)
        lim.show({2: (i, 0, 0)})
    assert len(rec.frames) == 1
    assert lim.next_deadline() == 1040
    assert lim.flush(1039) is False
    clock.set(1040)
    assert lim.flush() is True
    assert rec.frames[-1] == {2: (9, 0, 0)}
    assert lim.merged == 9 and lim.sent == 2
    assert lim.next_deadline() is None


def test_unchanged_frame_is_not_resent() -> None:
    clock = VirtualClock()
    rec = Recorder()
    lim = FrameLimiter(rec, clock, max_fps=30)
    lim.show({5: (1, 2, 3)})
    clock.advance(100)
    lim.show({5: (1, 2, 3)})
    lim.show({(1, 0): (1, 2, 3)})  # the same square as a cell
    assert rec.frames == [{5: (1, 2, 3)}]
    lim.off()
    assert rec.frames[-1] == {}
    assert lim.current == {}


def test_limiter_rate_is_bounded_under_a_flood() -> None:
    clock = VirtualClock()
    rec = Recorder()
    lim = FrameLimiter(rec, clock, max_fps=30)
    for t in range(2000):  # a frame every millisecond for two seconds
        clock.set(t)
        lim.show({1 + t % 32: (255, 0, 0)})
    lim.flush(clock.now_ms() + 100)
    assert 60 <= len(rec.frames) <= 61
    assert rec.frames[-1] == {1 + 1999 % 32: (255, 0, 0)}


def test_limiter_close_closes_the_backend() -> None:
    rec = Recorder()
    lim = FrameLimiter(rec, VirtualClock())
    lim.close()
    assert rec.closed
    with pytest.raises(ValueError):
        FrameLimiter(rec, VirtualClock(), max_fps=0)


# -- pixel maps ------------------------------------------------------------------------


def test_row_major_32_is_square_order() -> None:
    pm = build_pixel_map(32, "row-major", "a8")
    assert [pm.pixel_of(sq) for sq in range(1, 33)] == list(range(32))
    assert pm.pixel_of((0, 0)) is None


def test_serpentine_32_from_a8() -> None:
    pm = build_pixel_map(32, "serpentine", "a8")
    # Rank 8 left to right (1-4), rank 7 right to left (8, 7, 6, 5), ...
    assert [pm.pixel_of(sq) for sq in (1, 2, 3, 4, 8, 7, 6, 5, 9)] == list(range(9))


def test_origin_a1_row_major_64() -> None:
    pm = build_pixel_map(64, "row-major", "a1")
    assert pm.pixel_of(29) == 0  # a1
    assert pm.pixel_of((7, 1)) == 1  # b1, light
    assert pm.pixel_of(30) == 2  # c1
    assert pm.pixel_of((6, 0)) == 8  # a2, light: next rank starts on the left again
    assert pm.pixel_of(4) == 63  # h8


def test_serpentine_64_from_h1() -> None:
    order = cell_order("serpentine", "h1")
    assert order[0] == (7, 7) and order[7] == (7, 0) and order[8] == (6, 0) and order[63] == (0, 7)
    pm = build_pixel_map(64, "serpentine", "h1")
    assert sorted(pm.index.values()) == list(range(64))


def test_explicit_maps() -> None:
    order = list(range(32, 0, -1))  # wired backwards
    pm = build_pixel_map(32, order)
    assert pm.pixel_of(32) == 0 and pm.pixel_of(1) == 31
    names = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"]  # a1, b1, ... h8
    pm64 = build_pixel_map(64, names)
    assert pm64.pixel_of(29) == 0 and pm64.pixel_of((7, 1)) == 1
    assert build_pixel_map(32, ["b8", 2, 3, 4] + list(range(5, 33))).pixel_of(1) == 0
    assert pm64.describe()[:3] == ["a1", "b1", "c1"]


@pytest.mark.parametrize(
    "pixels, layout, message",
    [
        (32, list(range(1, 32)), "exactly 32 entries"),
        (64, list(range(1, 33)), "exactly 64 entries"),
        (32, [1] * 32, "already has pixel"),
        (32, ["a8"] + list(range(2, 33)), "light square"),
        (32, [0] + list(range(2, 33)), "1-32"),
        (32, ["zz"] + list(range(2, 33)), "not a square"),
        (48, "row-major", "32 or 64"),
        (32, "zigzag", "layout"),
    ],
)
def test_bad_maps(pixels: int, layout: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_pixel_map(pixels, layout)  # type: ignore[arg-type]
