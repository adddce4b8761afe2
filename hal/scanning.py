"""Common machinery for sensor backends that scan the switches themselves.

A subclass implements :meth:`ScanningSensors.read_switches` (one full pass over the
switches, returning raw occupancy). This class turns successive passes into timestamped
events, measures the scan rate on the injected clock, and runs the passes in a
background thread. Tests call :meth:`ScanningSensors.scan_once` directly.
"""

from __future__ import annotations

import logging
import threading
import time

from crownhead.hal.clock import Clock
from crownhead.hal.device import Device
from crownhead.hal.sensors import EventQueue, SensorEvent, diff_events

__all__ = ["ScanningSensors", "busy_wait_us"]

log = logging.getLogger(__name__)


def busy_wait_us(us: int) -> None:
    """Wait a few microseconds for lines to settle; sleep() cannot do microseconds."""
    if us <= 0:
        return
    end = time.perf_counter_ns() + us * 1000
    while time.perf_counter_ns() < end:
        pass


class ScanningSensors(Device):
    """Base class: events from consecutive scans, a scan thread and a scan-rate meter."""

    #: Name used in thread names and log lines.
    kind = "scanner"

    def __init__(self, clock: Clock, *, scan_hz: float = 500.0) -> None:
        if scan_hz < 0:
            raise ValueError(f"scan_hz must be >= 0 (0 = as fast as possible), got {scan_hz}")
        self.clock = clock
        self.scan_hz = scan_hz
        self._occupancy = 0
        self._have_baseline = False
        self._queue = EventQueue()
        self._lock = threading.Lock()  # one pass on the pins at a time
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.scans = 0
        self.errors = 0
        self.last_error: str | None = None
        self._window_start: int | None = None
        self._window_scans = 0
        self._rate = 0.0

    # -- to implement -------------------------------------------------------------
    def read_switches(self) -> int:
        """One full pass over the switches; raw occupancy (bit s-1 = square s)."""
        raise NotImplementedError

    def _release_pins(self) -> None:
        """Release pins; called once from :meth:`close`, after the scan thread stopped."""

    def diagnose(self) -> list[str]:
        """Electrical faults this wiring can detect by itself (none by default)."""
        return []

    # -- Sensors interface -----------------------------------------------------------
    def snapshot(self) -> int:
        return self._occupancy

    def poll(self) -> list[SensorEvent]:
        return self._queue.drain()

    def _release(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        with self._lock:
            self._release_pins()

    # -- scanning ----------------------------------------------------------------
    def scan_once(self) -> int:
        """Scan once, queue the changes, and return the raw occupancy.

        The first pass only sets the baseline: pieces already standing when scanning
        starts are the initial state (see :meth:`snapshot`), not changes.
        """
        with self._lock:
            occ = self.read_switches()
        now = self.clock.now_ms()
        if self._have_baseline and occ != self._occupancy:
            self._queue.extend(diff_events(self._occupancy, occ, now))
        self._occupancy = occ
        self._have_baseline = True
        self._count_scan(now)
        return occ

    def _count_scan(self, now: int) -> None:
        self.scans += 1
        if self._window_start is None:
            self._window_start = now
            self._window_scans = 0
            return
        self._window_scans += 1
        elapsed = now - self._window_start
        if elapsed >= 1000:
            self._rate = self._window_scans * 1000.0 / elapsed
            self._window_start = now
            self._window_scans = 0

    @property
    def scan_rate(self) -> float:
        """Full scans per second over the last complete window of >= 1 s (0 before)."""
        return self._rate

    def start(self) -> None:
        """Take the baseline now and keep scanning in a daemon thread."""
        if self.closed:
            raise RuntimeError("sensors are closed")
        if self._thread is not None:
            return
        self.scan_once()
        self._thread = threading.Thread(target=self._run, name=f"crownhead-{self.kind}", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        period = 1.0 / self.scan_hz if self.scan_hz > 0 else 0.0
        next_at = time.perf_counter()
        while not self._stop.is_set():
            try:
                self.scan_once()
            except Exception as exc:  # a glitch on one pass must not kill the scanner
                self.errors += 1
                if self.last_error != str(exc):
                    log.warning("%s scan failed: %s", self.kind, exc)
                self.last_error = str(exc)
                self._stop.wait(0.1)
                next_at = time.perf_counter()
                continue
            if period:
                next_at += period
                delay = next_at - time.perf_counter()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    # Fell behind (slow Pi, busy CPU): do not try to catch up in a burst.
                    next_at = time.perf_counter()
