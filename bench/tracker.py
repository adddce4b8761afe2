"""Benchmark of the move tracker on every Tinsley game made by human-like hands.

Usage (from the repository root, on a quiet machine)::

    .venv/bin/python bench/tracker.py                 # all 723 games, one seed
    .venv/bin/python bench/tracker.py --games 100 --seed 2

Three passes over the same scripts (``crownhead.firmware.simulator.hands``: captured pieces off in any
order, touch-downs, slides, bounces, pauses, a few fast replies):

1. record: each script runs on the simulated board through the debouncer and the
   controller; every call that reaches the tracker (settled occupancy, timer tick) is
   recorded, and the moves are checked against the game;
2. time: the recorded calls are fed to a fresh tracker and each ``update`` is timed in
   CPU time (thread time), alone and with the LED roles read after it, beside peers
   timed in the same run: the debouncer on the raw events, ``Position.legal_moves`` and
   the tracker's per-turn table on every position of the games;
3. latency: from the last switch change of each move to its ``move`` event and to the
   LED picture that follows, in virtual time (what a player waits) and real time (the
   CPU the call that produced it took).

The target of issue 4: under 0.2 ms of CPU per sensor event on this machine (a
Raspberry Pi is 5-10x slower). The figures are medians; p95 and max beside them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crownhead.firmware.tracking.controller import Controller  # noqa: E402
from crownhead.firmware.events import Event, Lights, MoveMade  # noqa: E402
from crownhead.firmware.simulator.hands import HumanStyle, game_action_chunks  # noqa: E402
from crownhead.firmware.tracking.tracker import Tracker, TrackerSettings  # noqa: E402
from crownhead.firmware.tracking.table import TurnTable  # noqa: E402
from crownhead.hal.clock import VirtualClock  # noqa: E402
from crownhead.hal.debounce import DEFAULT_DEBOUNCE_MS, Debouncer  # noqa: E402
from crownhead.hal.sensors import SensorEvent  # noqa: E402
from crownhead.rules import WCDF, Game, Move, Position  # noqa: E402
from crownhead.rules.pdn import read_games  # noqa: E402
from crownhead.sim.board import SimBoard  # noqa: E402

TINSLEY = ROOT.parent / "shared" / "data" / "tinsley.pdn"
TARGET_MS = 0.2
cpu_ns = time.thread_time_ns
wall_ns = time.perf_counter_ns


class Recorder(Tracker):
    """A tracker that records every call the controller makes, in order."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls: list[tuple[str, int, int]] = []

    def update(self, occupancy: int, now_ms: int) -> list[Event]:
        self.calls.append(("update", occupancy, now_ms))
        return super().update(occupancy, now_ms)

    def tick(self, now_ms: int) -> list[Event]:
        self.calls.append(("tick", 0, now_ms))
        return super().tick(now_ms)


class Run:
    """One game's script on the simulated board, recorded."""

    def __init__(
        self, number: int, start: Position, moves: Sequence[Move], seed: int, settings: TrackerSettings
    ) -> None:
        self.number = number
        self.start = start
        self.moves = list(moves)
        rng = random.Random(f"{number}/{seed}")
        flags = []
        pos = start
        for m in moves:
            after = pos.apply(m, WCDF)
            flags.append((m, not pos.kings & (1 << (m.start - 1)) and bool(after.kings & (1 << (m.end - 1)))))
            pos = after
        self.chunks = game_action_chunks(flags, rng, HumanStyle())
        self.settings = settings
        self.raw: list[SensorEvent] = []
        self.last_change: list[int] = []  # per move: time of its last switch change
        self.events: list[Event] = []

    def record(self) -> Recorder:
        clock = VirtualClock(0)
        board = SimBoard(clock, pieces={s: p.symbol for s, p in self.start.pieces().items()})
        tracker = Recorder(Game(self.start, WCDF), self.settings)
        debouncer = Debouncer(DEFAULT_DEBOUNCE_MS, initial=board.sensors.snapshot())
        sensors = board.sensors
        raw = self.raw

        class Tap:
            def poll(self) -> list[SensorEvent]:
                got = sensors.poll()
                raw.extend(got)
                return got

        ctl = Controller(Tap(), board.buttons, tracker, debouncer, clock, lights=True)

        def run_to(target: int) -> None:
            while True:
                due = [t for t in (ctl.next_deadline(), board.next_event_ms()) if t is not None]
                if not due or min(due) > target:
                    break
                clock.set(max(min(due), clock.now_ms()))
                self.events += ctl.step()
            clock.set(max(target, clock.now_ms()))
            self.events += ctl.step()

        self.events += ctl.step()
        for chunk in self.chunks:
            last = 0
            for action in chunk:
                if action.verb == "wait":
                    run_to(clock.now_ms() + int(action.arg))
                    continue
                if action.verb == "lift":
                    board.lift(int(action.arg))
                else:  # a slide puts the piece down before its square is emptied
                    board.place(int(action.arg), None if board.hand else "?")
                last = clock.now_ms()
                self.events += ctl.step()
            self.last_change.append(last)
        while True:
            due = [t for t in (ctl.next_deadline(), board.next_event_ms()) if t is not None]
            if not due:
                break
            run_to(min(due))
        made = [Move(e.path, e.captures) for e in self.events if isinstance(e, MoveMade)]
        if made != self.moves:
            raise SystemExit(
                f"game {self.number}: the tracker read {len(made)} moves, not the game's {len(self.moves)}"
            )
        return tracker


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered), p95, ordered[-1]


def timed(fn: Callable[[], object], clock: Callable[[], int] = cpu_ns) -> tuple[float, object]:
    t0 = clock()
    out = fn()
    return (clock() - t0) / 1e6, out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=0, help="only the first N replayable games (default: all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the human-like hands")
    args = parser.parse_args(argv)
    if not TINSLEY.is_file():
        print(f"bench/tracker.py: {TINSLEY.name} not found in ../shared/data", file=sys.stderr)
        return 2
    games = [g for g in read_games(TINSLEY.read_bytes(), TINSLEY.name) if g.error is None]
    if args.games:
        games = games[: args.games]
    settings = TrackerSettings()

    # 1. record
    t0 = time.perf_counter()
    runs = []
    for g in games:
        run = Run(g.number, g.start, g.moves, args.seed, settings)
        recorder = run.record()
        runs.append((run, recorder.calls))
    record_s = time.perf_counter() - t0
    raw_events = sum(len(r.raw) for r, _ in runs)
    updates = sum(1 for _, calls in runs for c in calls if c[0] == "update")
    plies = sum(len(r.moves) for r, _ in runs)
    print(
        f"{len(runs)} games, {plies} moves, {raw_events} raw switch events, {updates} settled changes "
        f"(seed {args.seed}, settle {settings.settle_ms} ms, patience {settings.patience_ms} ms, "
        f"debounce {DEFAULT_DEBOUNCE_MS} ms)"
    )
    print(
        f"record pass (simulator + debouncer + controller + tracker): {record_s:.1f} s, "
        f"{record_s / raw_events * 1e3:.3f} ms per raw event overall"
    )

    # 2. time the tracker on the recorded calls, and its peers
    update_ms: list[float] = []
    update_roles_ms: list[float] = []
    tick_ms: list[float] = []
    move_real_ms: list[float] = []
    for run, calls in runs:
        for with_roles in (False, True):
            tracker = Tracker(Game(run.start, WCDF), settings)
            for kind, occupancy, t in calls:
                if kind == "update":
                    t0 = cpu_ns()
                    events = tracker.update(occupancy, t)
                    if with_roles:
                        tracker.roles
                    cost = (cpu_ns() - t0) / 1e6
                    (update_roles_ms if with_roles else update_ms).append(cost)
                else:
                    t0 = cpu_ns()
                    events = tracker.tick(t)
                    if with_roles:
                        tracker.roles
                    cost = (cpu_ns() - t0) / 1e6
                    if not with_roles:
                        tick_ms.append(cost)
                if with_roles and any(isinstance(e, MoveMade) for e in events):
                    move_real_ms.append(cost)
    debounce_ms: list[float] = []
    for run, _ in runs:
        deb = Debouncer(DEFAULT_DEBOUNCE_MS, initial=run.start.occupied)
        for ev in run.raw:
            t0 = cpu_ns()
            deb.feed(ev)
            deb.update(ev.t_ms + DEFAULT_DEBOUNCE_MS)
            debounce_ms.append((cpu_ns() - t0) / 1e6)
    legal_ms: list[float] = []
    table_ms: list[float] = []
    for run, _ in runs:
        pos = run.start
        for m in run.moves:
            legal_ms.append(timed(lambda: pos.legal_moves(WCDF))[0])
            table_ms.append(timed(lambda: TurnTable(pos, rules=WCDF))[0])
            pos = pos.apply(m, WCDF)

    def row(name: str, values: Sequence[float], peer: float | None = None) -> None:
        med, p95, top = percentiles(values)
        ratio = f"{med / peer:6.2f}x" if peer else "       "
        print(f"  {name:<46} {med * 1e3:8.1f} {p95 * 1e3:8.1f} {top * 1e3:9.1f}   {ratio}")

    legal_med = statistics.median(legal_ms)
    print()
    print("CPU per call, microseconds              median      p95       max   vs legal_moves")
    row("tracker.update (one settled change)", update_ms, legal_med)
    row("tracker.update + roles (what the LEDs read)", update_roles_ms, legal_med)
    row("tracker.tick (timers)", tick_ms, legal_med)
    row("debouncer feed + update (one raw event)", debounce_ms, legal_med)
    row("Position.legal_moves (peer)", legal_ms, legal_med)
    row("TurnTable (per-turn precompute)", table_ms, legal_med)
    med = statistics.median(update_roles_ms)
    print(
        f"  target: {TARGET_MS} ms per sensor event -> median {med:.4f} ms is {med / TARGET_MS:.1%} of it; "
        f"{'met' if med < TARGET_MS else 'NOT met'}"
    )

    # 3. latency
    virtual_move: list[float] = []
    virtual_settled: list[float] = []
    virtual_reply: list[float] = []
    virtual_taken: list[float] = []
    guidance: list[float] = []
    for run, _ in runs:
        moves = [e for e in run.events if isinstance(e, MoveMade)]
        for i, e in enumerate(moves):
            lat = e.t - run.last_change[i]
            virtual_move.append(lat)
            settled = DEFAULT_DEBOUNCE_MS + settings.settle_ms
            (virtual_settled if lat == settled else virtual_reply if lat < settled else virtual_taken).append(lat)
        raw_times = sorted({ev.t_ms for ev in run.raw})
        lights = [e.t for e in run.events if isinstance(e, Lights)]
        j = 0
        for t in lights:
            while j + 1 < len(raw_times) and raw_times[j + 1] <= t:
                j += 1
            if raw_times and raw_times[j] <= t:
                guidance.append(t - raw_times[j])
    print()
    print("Latency, from the last switch change            median      p95       max")

    def lat(name: str, values: Sequence[float], unit: str) -> None:
        if not values:
            return
        med, p95, top = percentiles(values)
        print(f"  {name:<44} {med:8.1f} {p95:8.1f} {top:9.1f}  {unit}")

    lat("move event, virtual (all moves)", virtual_move, "ms")
    lat(f"  settled ({len(virtual_settled)} moves: debounce + settle)", virtual_settled, "ms")
    lat(f"  the reply started first ({len(virtual_reply)} moves)", virtual_reply, "ms")
    # A reply that starts by taking off the man just moved looks like the mover lifting it
    # again; the move is read when the reply goes on (its jumper lifted or landed).
    lat(f"  the reply took the man just moved ({len(virtual_taken)})", virtual_taken, "ms")
    lat("LED picture after a switch change, virtual", guidance, "ms")
    lat("move event, real (CPU of the call, with roles)", [v * 1e3 for v in move_real_ms], "us")
    lat("LED picture, real (update + roles)", [v * 1e3 for v in update_roles_ms], "us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
