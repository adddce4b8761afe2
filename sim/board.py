"""The simulated board: the same interfaces as the hardware, plus the physical truth.

:class:`SimBoard` knows what the real board cannot sense: which token stands on each
square (opaque labels such as ``'b'``, ``'w'``, ``'B'``, ``'W'``; the simulator never
interprets them). The controller sees only what the hardware would give it:

* ``board.sensors`` - raw switch events (not debounced; the consumer debounces, exactly
  as for real switches), affected by the injected faults;
* ``board.lights`` - records every frame it is sent, with its time;
* ``board.buttons`` - presses.

Everything happens on the injected clock. Actions that take time (a slide, a bouncing
contact, a knocked piece landing) schedule switch transitions in the future; they are
delivered when the clock reaches them. :meth:`SimBoard.next_event_ms` tells a driver
with a :class:`~crownhead.hal.clock.VirtualClock` where to jump next.
"""

from __future__ import annotations

import functools
import heapq
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple, TypeVar, cast

from crownhead.hal.buttons import BUTTON_NAMES, ButtonEvent, ButtonQueue
from crownhead.hal.clock import Clock
from crownhead.hal.device import Device
from crownhead.hal.lights import RGB, Frame, FrameKey, normalize_frame
from crownhead.hal.sensors import EventQueue, SensorEvent, diff_events, mask_of
from crownhead.squares import neighbours, square_name

__all__ = ["SimBoard", "SimError", "LitFrame", "SimSensors", "SimLights", "SimButtons"]


F = TypeVar("F", bound=Callable[..., object])


def _locked(method: F) -> F:
    """Serialize access: a UI thread and a serial emulator thread may share one board."""

    @functools.wraps(method)
    def wrapper(self: SimBoard, *args: object, **kwargs: object) -> object:
        with self._lock:
            return method(self, *args, **kwargs)

    return cast(F, wrapper)


class SimError(Exception):
    """An action the physical board does not allow (lifting from an empty square...)."""


class LitFrame(NamedTuple):
    """A frame as it reached the simulated strip, with the time it arrived."""

    t_ms: int
    frame: Frame


def _check_square(square: int) -> int:
    if isinstance(square, bool) or not isinstance(square, int) or not 1 <= square <= 32:
        raise SimError(f"square must be 1-32, got {square!r}")
    return square


class SimBoard:
    """An in-memory board behind the hardware interfaces."""

    def __init__(
        self,
        clock: Clock,
        *,
        pieces: Mapping[int, str] | None = None,
        buttons: Iterable[str] = BUTTON_NAMES,
    ) -> None:
        self.clock = clock
        self._lock = threading.RLock()
        self.pieces: dict[int, str] = {}
        self.hand: list[str] = []  # tokens lifted and not yet put down, last on top
        self.button_names = tuple(buttons)
        self._contacts = 0  # the switches' physical contact state
        self._timeline: list[tuple[int, int, int, bool]] = []  # (t, seq, square, closed)
        self._seq = 0
        self._stuck: dict[int, bool] = {}
        self._wire: dict[int, int] = {}  # switch square -> the input it is wired to
        self.dead_leds: set[int] = set()
        self.link_up = True
        self._sensed = 0
        self._events = EventQueue(maxlen=1 << 16)
        self.sensors = SimSensors(self)
        self.lights = SimLights(self)
        self.buttons = SimButtons(self)
        if pieces:
            self.set_position(pieces)

    # -- what the controller can sense -----------------------------------------------
    def _sense(self, contacts: int) -> int:
        sensed = 0
        for sq in range(1, 33):
            closed = bool(contacts >> (sq - 1) & 1)
            closed = self._stuck.get(sq, closed)
            if closed:
                sensed |= 1 << (self._wire.get(sq, sq) - 1)
        return sensed

    def _resense(self, t: int) -> None:
        sensed = self._sense(self._contacts)
        if sensed != self._sensed:
            self._events.extend(diff_events(self._sensed, sensed, t))
            self._sensed = sensed

    @_locked
    def _advance(self) -> int:
        """Apply every scheduled transition up to now; return now."""
        now = self.clock.now_ms()
        while self._timeline and self._timeline[0][0] <= now:
            t, _seq, sq, closed = heapq.heappop(self._timeline)
            bit = 1 << (sq - 1)
            self._contacts = self._contacts | bit if closed else self._contacts & ~bit
            self._resense(t)
        return now

    def _schedule(self, t: int, square: int, closed: bool) -> None:
        self._seq += 1
        heapq.heappush(self._timeline, (t, self._seq, square, closed))

    @_locked
    def raw_occupancy(self) -> int:
        """What the switches read now (faults included): the board's raw occupancy."""
        self._advance()
        return self._sensed

    @_locked
    def next_event_ms(self) -> int | None:
        """Time of the next scheduled switch transition, or None."""
        return self._timeline[0][0] if self._timeline else None

    @property
    def truth(self) -> int:
        """Occupancy by the pieces actually standing (what a perfect board would read)."""
        return mask_of(self.pieces)

    # -- pieces ----------------------------------------------------------------------
    @_locked
    def set_position(self, pieces: Mapping[int, str]) -> None:
        """Put exactly these tokens on the board, now (pending transitions are dropped)."""
        for sq in pieces:
            _check_square(sq)
        now = self._advance()
        self._timeline.clear()
        self.pieces = dict(pieces)
        self._contacts = mask_of(self.pieces)
        self._resense(now)

    def clear(self) -> None:
        self.set_position({})

    @_locked
    def lift(self, square: int) -> str:
        """Pick up the token on ``square`` into the hand; returns it."""
        _check_square(square)
        now = self._advance()
        if square not in self.pieces:
            raise SimError(f"no piece on square {square} ({square_name(square)}) to lift")
        token = self.pieces.pop(square)
        self.hand.append(token)
        self._schedule(now, square, False)
        self._advance()
        return token

    @_locked
    def place(self, square: int, token: str | None = None) -> str:
        """Put a token on ``square``: the given one, or the last one lifted."""
        _check_square(square)
        now = self._advance()
        if square in self.pieces:
            raise SimError(f"square {square} ({square_name(square)}) is already occupied")
        if token is None:
            if not self.hand:
                raise SimError("nothing in hand to place; give a token")
            token = self.hand.pop()
        elif token in self.hand:
            self.hand.remove(token)
        self.pieces[square] = token
        self._schedule(now, square, True)
        self._advance()
        return token

    @_locked
    def slide(self, src: int, dst: int, overlap_ms: int = 15) -> str:
        """Slide a piece to another square without lifting it.

        The piece covers both switches for a moment: ``dst`` closes now and ``src``
        opens ``overlap_ms`` later.
        """
        _check_square(src)
        _check_square(dst)
        now = self._advance()
        if src not in self.pieces:
            raise SimError(f"no piece on square {src} to slide")
        if dst in self.pieces or dst == src:
            raise SimError(f"cannot slide onto occupied square {dst}")
        token = self.pieces.pop(src)
        self.pieces[dst] = token
        self._schedule(now, dst, True)
        self._schedule(now + max(0, overlap_ms), src, False)
        self._advance()
        return token

    @_locked
    def crown(self, square: int, token: str | None = None) -> str:
        """Crown the man on ``square``: a second piece is stacked on it.

        The stack stands on the same switch, which stays closed, so the sensors see
        nothing; only the physical truth changes. The token becomes ``token``, by
        default the upper-case form of the current one (the labels' convention: lower
        case a man, upper case a king). Returns the new token.

        >>> from crownhead.hal.clock import VirtualClock
        >>> board = SimBoard(VirtualClock(), pieces={30: "b"})
        >>> _ = board.sensors.poll()  # the piece being set down
        >>> board.crown(30)
        'B'
        >>> board.pieces, board.sensors.poll()
        ({30: 'B'}, [])
        """
        _check_square(square)
        self._advance()
        current = self.pieces.get(square)
        if current is None:
            raise SimError(f"no piece on square {square} ({square_name(square)}) to crown")
        new = current.upper() if token is None else token
        if not new:
            raise SimError("a token must be a non-empty label")
        if new == current:
            raise SimError(f"the piece on square {square} ({square_name(square)}) is already {current!r}")
        self.pieces[square] = new
        return new

    @_locked
    def bounce(self, square: int, times: int = 2, interval_ms: int = 3) -> None:
        """Make a switch chatter: ``times`` brief flips away from its state and back."""
        _check_square(square)
        now = self._advance()
        final = square in self.pieces
        for k in range(1, 2 * times + 1):
            self._schedule(now + k * interval_ms, square, final if k % 2 == 0 else not final)

    @_locked
    def knock(self, square: int, to: int, flight_ms: int = 40) -> str:
        """A piece is knocked off ``square`` onto the diagonal neighbour ``to``.

        Unlike a slide the piece leaves first: ``square`` opens now, ``to`` closes
        ``flight_ms`` later and chatters as the piece settles.
        """
        _check_square(square)
        _check_square(to)
        now = self._advance()
        if square not in self.pieces:
            raise SimError(f"no piece on square {square} to knock")
        if to not in neighbours(square):
            raise SimError(f"square {to} is not next to square {square}")
        if to in self.pieces:
            raise SimError(f"square {to} is occupied; the knocked piece cannot land there")
        token = self.pieces.pop(square)
        self.pieces[to] = token
        self._schedule(now, square, False)
        land = now + flight_ms
        for k, closed in enumerate((True, False, True, False, True)):
            self._schedule(land + 2 * k, to, closed)
        self._advance()
        return token

    # -- buttons -----------------------------------------------------------------
    @_locked
    def press(self, name: str, long: bool = False) -> None:
        """Press button ``name`` (``long``: held down past the hold time)."""
        if name not in self.button_names:
            raise SimError(f"this board has no button {name!r} (it has: {', '.join(self.button_names)})")
        now = self._advance()
        self.buttons._queue.press(name, now, long)

    # -- faults --------------------------------------------------------------------
    @_locked
    def stick(self, square: int, closed: bool | None) -> None:
        """A stuck switch: always closed (True), always open (False), or repaired (None)."""
        _check_square(square)
        now = self._advance()
        if closed is None:
            self._stuck.pop(square, None)
        else:
            self._stuck[square] = bool(closed)
        self._resense(now)

    @_locked
    def swap_wires(self, a: int, b: int) -> None:
        """Swap the wiring of two switches: each answers as the other square."""
        _check_square(a)
        _check_square(b)
        now = self._advance()
        wa, wb = self._wire.get(a, a), self._wire.get(b, b)
        self._wire[a], self._wire[b] = wb, wa
        self._resense(now)

    @_locked
    def kill_led(self, square: int) -> None:
        """A dead LED: frames no longer light ``square``."""
        self.dead_leds.add(_check_square(square))

    def unplug(self) -> None:
        """Pull the serial cable (seen by a :class:`~crownhead.sim.serial_board.BoardEmulator`)."""
        self.link_up = False

    def replug(self) -> None:
        self.link_up = True

    @property
    def faults(self) -> dict[str, object]:
        """The injected faults, for display."""
        return {
            "stuck": dict(self._stuck),
            "swapped": {a: b for a, b in self._wire.items() if a != b},
            "dead_leds": sorted(self.dead_leds),
            "link_up": self.link_up,
        }


class SimSensors(Device):
    """The simulated switches, as the controller sees them (raw, undebounced)."""

    def __init__(self, board: SimBoard) -> None:
        self._board = board

    def snapshot(self) -> int:
        return self._board.raw_occupancy()

    def poll(self) -> list[SensorEvent]:
        self._board._advance()
        return self._board._events.drain()

    def diagnose(self) -> list[str]:
        return []  # like a matrix, the simulator's wiring has no self-test of its own


class SimLights(Device):
    """The simulated LEDs: records the last frames, shows what is physically lit.

    ``frames`` keeps the newest :attr:`KEEP` frames (oldest first): a warning blinking
    through hours of virtual time must not grow the simulator without end.
    """

    #: Frames kept: minutes of blinking at the usual frame rates.
    KEEP = 10_000

    def __init__(self, board: SimBoard) -> None:
        self._board = board
        self.frames: deque[LitFrame] = deque(maxlen=self.KEEP)
        self._sent: Frame = {}

    def show(self, frame: Mapping[FrameKey, RGB]) -> None:
        norm = normalize_frame(frame)
        self.frames.append(LitFrame(self._board.clock.now_ms(), norm))
        self._sent = norm

    def off(self) -> None:
        self.show({})

    def _release(self) -> None:
        self.off()

    @property
    def sent(self) -> Frame:
        """The last frame received, as sent."""
        return dict(self._sent)

    @property
    def current(self) -> Frame:
        """What is lit now: the last frame less the dead LEDs."""
        dead = self._board.dead_leds
        return {k: v for k, v in self._sent.items() if k not in dead}

    def lit(self, key: FrameKey) -> RGB | None:
        return self.current.get(key)


class SimButtons(Device):
    def __init__(self, board: SimBoard) -> None:
        self._queue = ButtonQueue(board.clock)

    def poll(self) -> list[ButtonEvent]:
        return self._queue.poll()
