"""The live switch view: the raw occupancy as an 8x8 diagram, for checking the wiring.

Shows the *raw* switches (no debouncing) so a chattering or miswired switch is visible
as it is: :func:`render_occupancy` draws one reading, :func:`show_once` prints a
snapshot with the backend's status and faults, :func:`live` redraws on every change
(``crownhead sensors``).

>>> print(render_occupancy(0b1).splitlines()[-1])
occupied (1): 1
"""

from __future__ import annotations

import time
from typing import TextIO

from crownhead.firmware.app.hardware import Hardware
from crownhead.hal.sensors import SensorEvent, squares_of
from crownhead.squares import cell_to_square, square_name

__all__ = ["describe", "live", "render_occupancy", "show_once", "status_line", "wait_for_link"]

OCCUPIED, EMPTY, LIGHT = "O", ".", " "
LIT = (0, 255, 0)


def render_occupancy(mask: int) -> str:
    """The board with occupied squares marked, beside a key of square numbers."""
    files = "a b c d e f g h"
    lines = [f"    {files}        a  b  c  d  e  f  g  h"]
    for row in range(8):
        rank = 8 - row
        marks, numbers = [], []
        for col in range(8):
            sq = cell_to_square(row, col)
            if sq is None:
                marks.append(LIGHT)
                numbers.append("  ")
            else:
                marks.append(OCCUPIED if mask >> (sq - 1) & 1 else EMPTY)
                numbers.append(f"{sq:2d}")
        lines.append(f" {rank}  {' '.join(marks)}     {rank} {' '.join(numbers)}".rstrip())
    occupied = squares_of(mask)
    lines.append(f"occupied ({len(occupied)}): {' '.join(map(str, occupied)) or '-'}")
    return "\n".join(lines)


def status_line(hw: Hardware) -> str:
    parts = [f"backend: {hw.backend}"]
    rate = getattr(hw.sensors, "scan_rate", None)
    if rate is not None:
        parts.append(f"scans/s: {rate:.0f}")
    if hw.link is not None:
        parts.append("link: " + ("connected" if hw.link.connected else f"DOWN ({hw.link.last_error})"))
        if hw.link.firmware:
            parts.append(f"firmware: {hw.link.firmware}")
    return "   ".join(parts)


def describe(event: SensorEvent) -> str:
    what = "closed (occupied)" if event.occupied else "opened (empty)"
    return f"{event.t_ms / 1000:9.3f}s  square {event.square:2d} ({square_name(event.square)}) {what}"


def wait_for_link(hw: Hardware, seconds: float) -> None:
    """Wait up to ``seconds`` for a serial board to connect and answer."""
    link = hw.link
    assert link is not None, "a serial board"
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (link.connected and link.firmware):
        time.sleep(0.02)
    time.sleep(0.05)  # let the OCC answer that follows HELLO arrive


def show_once(hw: Hardware, out: TextIO, faults: list[str], wait_s: float) -> int:
    """Print one snapshot, the status line and the faults; 1 when there are faults."""
    # A scanning backend has taken its first scan when it started; a serial
    # board answers OCC? within a moment after connecting.
    if hw.link is not None:
        wait_for_link(hw, wait_s)
    print(render_occupancy(hw.sensors.snapshot()), file=out)
    print(status_line(hw), file=out)
    for fault in faults:
        print(f"FAULT: {fault}", file=out)
    return 1 if faults else 0


def live(
    hw: Hardware,
    out: TextIO,
    faults: list[str],
    *,
    seconds: float | None = None,
    interval_ms: int = 20,
    light: bool = False,
) -> int:
    """Redraw the diagram on every change (a terminal) or print each change, until
    ``seconds`` have passed (or for ever); 1 when there are faults."""
    tty = out.isatty()
    recent: list[str] = []
    shown: int | None = None
    shown_status = ""
    end = None if seconds is None else time.monotonic() + seconds
    last_status_at = 0.0
    hw.sensors.poll()  # changes from before the first drawing are in it already
    while end is None or time.monotonic() < end:
        for event in hw.sensors.poll():
            recent.append(describe(event))
            if not tty:
                print(recent[-1], file=out)
        del recent[:-8]
        occ = hw.sensors.snapshot()
        if light:
            hw.lights.show({sq: LIT for sq in squares_of(occ)})
        hw.lights.flush()
        now = time.monotonic()
        status = status_line(hw)
        if occ != shown or (tty and status != shown_status and now - last_status_at >= 1.0):
            if tty:
                out.write("\x1b[H\x1b[2J")
            print(render_occupancy(occ), file=out)
            print(status, file=out)
            for fault in faults:
                print(f"FAULT: {fault}", file=out)
            if tty:
                print("\n".join(recent), file=out)
                print("Ctrl-C to stop", file=out)
            out.flush()
            shown, shown_status, last_status_at = occ, status, now
        time.sleep(interval_ms / 1000)
    return 1 if faults else 0
