"""The board's side of a hall: every event and the retained state, published over MQTT.

:class:`BoardPublisher` joins the board as one of its outputs: it hears every event and
is handed each step's snapshot, whose state (:func:`board_state`, a pure function of the
snapshot) is the retained one; of the board it asks nothing but through its port.
Nothing it does blocks the main loop: events go into a
bounded queue that a background thread drains through the MQTT client, in order, each
one acknowledged (QoS 1) before the next; while the broker is away the queue keeps them
and they are sent when it is back. When the queue is full the oldest events that are no
move are dropped first (the retained state supersedes them); a move is never dropped
before ``max_queue`` moves are waiting. The state is one slot, always the newest.

A game's end is more than an event: its state then goes into the board's
:class:`~crownhead.firmware.hall.results.ResultRecord` (on disk) and onto the ``result`` topic,
right after the ``game-over`` event, and it is sent again at every connection and every
:data:`RESEND_S` until the hall acknowledges it on the board's ``ack`` topic, so no
finished game is lost to a broker that was away or a power cut.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from crownhead.firmware.app.snapshot import Sheet, Snapshot, match_link_state
from crownhead.firmware.app.view import board_view
from crownhead.firmware.events import Event, GameOver, MoveMade, TakenBack, event_line
from crownhead.firmware.files import parse_json
from crownhead.firmware.hall.results import ResultRecord
from crownhead.firmware.hall.settings import HallSettings
from crownhead.firmware.hall.topics import topic

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

    from crownhead.firmware.app.outputs import BoardPort

__all__ = ["BoardPublisher", "board_state", "replay_state"]

log = logging.getLogger(__name__)

#: The largest state sent (the brokers of docs/hall.md take packets of up to 64 KiB; a
#: long game's state is a few KiB).
MAX_STATE = 60 * 1024
#: Kinds of events kept over all others when the queue overflows (``result``: a finished
#: game, which is on disk too).
_KEEP = frozenset({"move", "takeback", "game-over", "new-game", "caution", "forfeit", "condoned", "crown", "result"})
#: Seconds between sending the results the hall has not acknowledged again, while connected.
RESEND_S = 30.0
#: The largest acknowledgement read (one is a few dozen bytes).
_MAX_ACK = 512


class StateSource(Protocol):
    """What the publisher asks for a state it is given by other means than the board's
    snapshots (a replay's end): the state as the link's ``state`` JSON."""

    def __call__(self) -> Mapping[str, Any]: ...


class BoardPublisher:
    """Publish a board's events and state to ``crownhead/<hall>/<board>/...``.

    The retained state is the board's last snapshot's (:func:`board_state`), handed over
    by the board's step once the publisher is attached (:meth:`attach`, :meth:`show`); or,
    with ``state``, what that returns (a replay's: called on the main loop's thread,
    after events and at a game's end). ``results``: the file of the board's
    :class:`~crownhead.firmware.hall.results.ResultRecord` (None: kept in memory only).
    :meth:`close` publishes ``offline`` and stops the thread; an unclean end leaves the
    last will, ``offline`` too. ``clock``: seconds, for resending what the hall has not
    acknowledged.
    """

    def __init__(
        self,
        settings: HallSettings,
        state: StateSource | None = None,
        *,
        connect: bool = True,
        results: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        url = settings.validate()
        if url is None:
            raise ValueError("no broker to report to: give the [mqtt] url")
        self.url = url
        if url.username is not None and url.username != settings.board:
            # The shipped ACL lets an account write only under its own name: the broker
            # would drop every message of this board without a word.
            log.warning(
                "mqtt: the board %r reports with the account %r: brokers set up as docs/hall.md says "
                "take a board's messages only from the account named as the board",
                settings.board,
                url.username,
            )
        self._state_source: StateSource = state if state is not None else self._shown_state
        #: The last snapshot handed over (None: none yet, or a ``state`` given).
        self._snapshot: Snapshot | None = None
        #: The last state put into the retained slot (a snapshot that changes nothing the
        #: state says, a lifted piece, sends nothing).
        self._last_state: bytes | None = None
        #: Put the state into the slot even if unchanged (the broker lost it).
        self._again = False
        self._topic = {k: topic(settings.hall, settings.board, k) for k in ("event", "state", "status", "result")}
        self._ack_topic = topic(settings.hall, settings.board, "ack")
        self.results = ResultRecord(results)
        self._clock = clock
        self._resend_at = 0.0
        self._lock = threading.Condition()
        #: What waits to be sent, in order: (kind, payload, the result's number or None).
        self._events: deque[tuple[str, bytes, int | None]] = deque()
        self._state: bytes | None = None
        self._dirty = True
        self._closed = False
        self._connected = False
        self.dropped = 0
        self.sent = 0
        #: Times the broker's connection went while the board meant to report.
        self.disconnects = 0
        #: What was sent cut already (logged once each).
        self._cut_logged: set[str] = set()
        #: Called (in the client's thread) with each message on the board's ``cmd``
        #: topic; None: the board takes no commands and does not subscribe.
        self.on_command: Callable[[bytes], None] | None = None
        self._cmd_topic = topic(settings.hall, settings.board, "cmd")
        #: Set when the broker has confirmed the ``cmd`` subscription (commands sent
        #: before that are not delivered); cleared when the connection goes.
        self.subscribed = threading.Event()
        import paho.mqtt.client as mqtt  # the hall extra: loaded by a board that reports

        # The client id is the account where there is one: brokers set up as docs/hall.md
        # says bind ids to accounts anyway (a board cannot take another's id).
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.url.username or f"crownhead-{settings.hall}-{settings.board}",
            clean_session=True,
        )
        if self.url.username is not None:
            client.username_pw_set(self.url.username, self.url.password)
        if self.url.tls:
            context = ssl.create_default_context(cafile=settings.cafile)
            client.tls_set_context(context)
        client.will_set(self._topic["status"], b"offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = lambda c, u, mid, codes, props: self.subscribed.set()
        self._client = client
        self._thread = threading.Thread(target=self._run, name="mqtt-board", daemon=True)
        if connect:
            self.start()

    # -- the application's side -----------------------------------------------------------

    def attach(self, port: BoardPort, *, events: bool = True) -> None:
        """Join the board (its port: an :class:`~crownhead.firmware.app.application.App`) as
        one of its outputs: handed each snapshot (the state), polled every step and, with
        ``events``, hearing every event (without: a hall link sends the events, see
        :mod:`crownhead.firmware.hall.commands`)."""
        port.add_output(_Reporting(self, events))

    def show(self, snapshot: Snapshot) -> None:
        """The board's step left ``snapshot`` (before its events go out): the retained
        state is its state from now on, refreshed at once (in the step the LEDs change)."""
        self._snapshot = snapshot
        self._refresh()

    def _shown_state(self) -> Mapping[str, Any]:
        """The state of the last snapshot handed over (empty before the first)."""
        return board_state(self._snapshot) if self._snapshot is not None else {}

    def sink(self, event: Event) -> None:
        """Queue one event, exactly as the link prints it; never blocks (a game's end
        writes its result to the board's record first)."""
        self.send_event(event, event_line(event, ascii=False).encode())

    def send_event(self, event: Event, payload: bytes) -> None:
        """Queue ``payload``, the line of ``event`` (as the link wrote it), for the ``event``
        topic: its kind is the event's, never read back from the bytes."""
        self._queue(event.kind, payload)
        if isinstance(event, GameOver):
            self._finished()

    def send_line(self, line: bytes) -> None:
        """Queue one line of the link that is no event of the board (a reply, a greeting,
        a view) for the ``event`` topic."""
        self._queue("reply", line)

    def _finished(self) -> None:
        """Keep the game that just ended (the board's state now) and queue it for the hall."""
        try:
            state = dict(self._state_source())
        except Exception:  # the board must go on whatever the state costs
            log.exception("mqtt: the board's state at the game's end could not be read")
            return
        if state.get("result") is None:
            return  # a game-over the state does not show (a replay's state is its end)
        result = self.results.add(state)
        self._queue("result", _cut(result.message(), "state", "a result", self._cut_logged), result.seq)

    def _queue(self, kind: str, payload: bytes, seq: int | None = None) -> None:
        with self._lock:
            self._events.append((kind, payload, seq))
            if len(self._events) > self.settings.max_queue:
                self._drop_one()
            self._dirty = True
            self._lock.notify()

    def _queue_results(self) -> None:
        """Queue again, before everything else, every result the hall has not acknowledged
        and that is not waiting already (called with the lock held)."""
        waiting = {seq for kind, _, seq in self._events if kind == "result"}
        again = [r for r in self.results.unacknowledged() if r.seq not in waiting]
        for result in reversed(again):
            self._events.appendleft(
                ("result", _cut(result.message(), "state", "a result", self._cut_logged), result.seq)
            )
        self._resend_at = self._clock() + RESEND_S
        if again:
            self._lock.notify()

    def poll(self, now: int) -> list[Event]:
        """Refresh the retained state after events (on the main thread, the step after;
        the board's snapshots refresh it in their own step: :meth:`show`)."""
        if self._dirty:
            self._refresh()
        return []

    def _refresh(self) -> None:
        """Put the state, if it changed, into the retained slot (on the main thread)."""
        self._dirty = False
        try:
            state = dict(self._state_source())
        except Exception:  # the board must go on whatever the state costs
            log.exception("mqtt: the board's state could not be read")
            return
        if not state:
            return  # no snapshot yet: nothing to tell
        payload = _cut(state, None, "the board's state", self._cut_logged)
        with self._lock:
            if payload == self._last_state and not self._again:
                return
            self._again = False
            self._last_state = payload
            self._state = payload
            self._lock.notify()

    def _drop_one(self) -> None:
        for i, (kind, _, _) in enumerate(self._events):
            if kind not in _KEEP:
                del self._events[i]
                self.dropped += 1
                return
        if len(self._events) > 2 * self.settings.max_queue:
            self._events.popleft()  # moves beyond twice the bound: the state still tells the game
            self.dropped += 1

    @property
    def retained(self) -> bytes | None:
        """The state last put for the retained ``state`` topic (sent or waiting), as sent."""
        with self._lock:
            return self._last_state

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._events) + (self._state is not None)

    @property
    def connected(self) -> bool:
        return self._connected

    # -- the client's side ----------------------------------------------------------------

    def start(self) -> None:
        self._client.connect_async(self.url.host, self.url.port, keepalive=30)
        self._client.loop_start()
        self._thread.start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("mqtt: %s refused the board: %s", self.url, reason)
            return
        client.publish(self._topic["status"], b"online", qos=1, retain=True)
        # The hall's acknowledgements of results, retained: the last one comes at once.
        client.subscribe(self._ack_topic, qos=1)
        if self.on_command is not None:
            client.subscribe(self._cmd_topic, qos=1)
        with self._lock:
            self._connected = True
            self._queue_results()
            if self._state is None:
                self._dirty = True  # a broker that restarted lost the retained state: send it again
                self._again = True
            self._lock.notify()
        log.info("mqtt: connected to %s", self.url)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == self._ack_topic:
            if len(message.payload) <= _MAX_ACK:
                try:
                    self.results.acknowledge(parse_json(bytes(message.payload)))
                except ValueError:
                    log.warning("mqtt: an acknowledgement on %s that is not JSON: ignored", self._ack_topic)
            return
        handler = self.on_command
        if handler is not None and message.topic == self._cmd_topic:
            handler(bytes(message.payload[:4096]))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.subscribed.clear()
        with self._lock:
            self._connected = False
            if not self._closed:
                self.disconnects += 1
        if not self._closed:
            log.warning("mqtt: lost %s (%s); events are kept until it is back", self.url, reason)

    def _next(self) -> tuple[str, bytes, bool] | None:
        """The next message to send (topic, payload, retained), waiting for one; None to stop."""
        with self._lock:
            while not self._closed and (not self._connected or (not self._events and self._state is None)):
                self._lock.wait(0.5)
                if self._connected and self._clock() >= self._resend_at:
                    self._queue_results()  # the hall has not acknowledged them: it may not have them
            if self._closed and not (self._connected and (self._events or self._state is not None)):
                return None
            if self._events:
                kind, payload, _ = self._events[0]
                return self._topic["result" if kind == "result" else "event"], payload, False
            assert self._state is not None
            return self._topic["state"], self._state, True

    def _run(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            name, payload, retain = item
            info = self._client.publish(name, payload, qos=1, retain=retain)
            try:
                info.wait_for_publish(timeout=5)
                ok = info.is_published()
            except (RuntimeError, ValueError):
                ok = False
            with self._lock:
                if not ok:
                    # Not acknowledged: sent again, in order, once the broker answers.
                    self._connected = self._client.is_connected()
                    if self._closed:
                        return
                    continue
                self.sent += 1
                if retain:
                    if self._state is payload:
                        self._state = None
                elif self._events and self._events[0][1] is payload:
                    self._events.popleft()

    def flush(self, timeout_s: float, clock: Callable[[], float] | None = None) -> bool:
        """Wait up to ``timeout_s`` for everything queued to be sent (for a clean stop)."""
        import time

        now = clock or time.monotonic
        end = now() + timeout_s
        while now() < end:
            if self.pending == 0:
                return True
            time.sleep(0.02)
        return self.pending == 0

    def close(self, flush_s: float = 2.0) -> None:
        """Send what is queued (up to ``flush_s``), say ``offline`` and disconnect."""
        if self._connected:
            self.flush(flush_s)
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        if self._connected:
            self._client.publish(self._topic["status"], b"offline", qos=1, retain=True).wait_for_publish(1)
        self._client.disconnect()
        self._client.loop_stop()

    def __enter__(self) -> BoardPublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut(message: dict[str, Any], inner: str | None, what: str, logged: set[str]) -> bytes:
    """``message`` as JSON within :data:`MAX_STATE`: brokers set up as docs/hall.md says
    refuse a larger packet (and would put the board off for it), so the game's text goes
    first (its ``pdn``, then its ``moves``: from ``message[inner]`` where the state is
    inside), the position stays. ``what`` is logged the first time, kept in ``logged``."""
    payload = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    if len(payload) <= MAX_STATE:
        return payload
    state = dict(message[inner]) if inner is not None else message
    whole = {**message, inner: state} if inner is not None else state
    for key in ("pdn", "moves"):
        state.pop(key, None)
        payload = json.dumps(whole, separators=(",", ":"), ensure_ascii=False).encode()
        if len(payload) <= MAX_STATE:
            break
    if what not in logged:
        logged.add(what)
        log.warning("mqtt: %s is over %d bytes: sent without the game's moves", what, MAX_STATE)
    return payload


class _Reporting:
    """A board's reporter as one of its outputs (``firmware.app.outputs.Output``): it hears
    every event (with ``events``), takes each snapshot it is handed (the retained state is
    the snapshot's, :func:`board_state`, so it changes in the step the LEDs do) and polls
    (a state the broker lost goes again). Closing the board leaves the reporter to whoever
    opened it."""

    def __init__(self, reporter: BoardPublisher, events: bool) -> None:
        self.reporter = reporter
        self.hears = events

    def events(self, events: Sequence[Event]) -> None:
        if self.hears:
            for event in events:
                self.reporter.sink(event)

    def snapshot(self, snapshot: Snapshot) -> None:
        self.reporter.show(snapshot)

    def poll(self, now: int) -> list[Event]:
        return self.reporter.poll(now)

    def deadline(self) -> int | None:
        return None

    def close(self) -> None:
        pass


def board_state(snapshot: Snapshot) -> dict[str, Any]:
    """The retained state of a board whose step left ``snapshot``: position, names,
    clocks, match, PDN so far (a pure function of the snapshot: the game is its
    :class:`~crownhead.firmware.app.snapshot.Sheet`; a snapshot without one, made by
    hand, is the position with no moves under its seats' names)."""
    from crownhead.rules import BLACK, WHITE

    sheet = snapshot.sheet
    if sheet is None:
        seats = snapshot.seats
        sheet = Sheet(
            snapshot.position,
            (),
            (snapshot.position,),
            frozenset(),
            snapshot.rules,
            snapshot.result,
            seats[BLACK].name if BLACK in seats else "Black",
            seats[WHITE].name if WHITE in seats else "White",
        )
    clock = snapshot.clock
    # Only a refereed game's clocks are reported (the tournament's; the game's one clock).
    clocks = None
    if snapshot.shown.referee_mode and clock is not None:
        clocks = {"black": clock.black_ms, "white": clock.white_ms}
    result = sheet.result
    moves, pdn = _texts(sheet)
    return {
        "event": sheet.event,
        "round": sheet.round,
        "game_id": sheet.game_id,
        "fen": sheet.position.fen(),
        "ply": sheet.ply,
        "turn": "black" if sheet.position.turn is BLACK else "white",
        "black": sheet.black,
        "white": sheet.white,
        "result": result.score if result is not None else None,
        "reason": result.reason if result is not None else None,
        "clocks": clocks,
        "match": match_link_state(snapshot.shown.match_state),
        "status": board_view(snapshot).status,
        "moves": list(moves),
        "start": sheet.start.fen(),
        "condoned": sorted(sheet.condoned),
        "pdn": pdn,
    }


@lru_cache(maxsize=4)
def _texts(sheet: Sheet) -> tuple[tuple[str, ...], str]:
    """The moves of ``sheet`` as the ``move`` events name them and its PDN (kept for the
    last few sheets: most snapshots of a step that changed something keep the game's)."""
    from crownhead.rules.pdn import move_text, write_game

    tags = {"Event": sheet.event or "Crownhead hall", "Black": sheet.black, "White": sheet.white}
    if sheet.round is not None:
        tags["Round"] = sheet.round
    result = sheet.result
    moves = tuple(
        move_text(before, move, sheet.rules, numbers=True) for before, move in zip(sheet.positions, sheet.moves)
    )
    return moves, write_game(sheet, tags, result=result.score if result is not None else "*")


def replay_state(
    events: list[Event],
    start_fen: str | None,
    rules: Any,
    black: str = "Black",
    white: str = "White",
    *,
    event: str | None = None,
    round: str | None = None,
    game_id: str | None = None,
) -> dict[str, Any]:
    """The state after a replay's ``events`` (for ``crownhead replay --mqtt``): ``event``
    and ``round`` as the referee's options gave them, ``game_id`` naming the game."""
    from crownhead.rules import Game, Move, Position
    from crownhead.rules.pdn import write_game

    start = Position.from_fen(start_fen) if start_fen else Position.start(rules)
    game = Game(start, rules)
    result: tuple[str, str] | None = None
    for happened in events:
        if isinstance(happened, MoveMade):
            game.play(Move(happened.path, happened.captures))
        elif isinstance(happened, TakenBack) and game.moves:
            game.undo()
        elif isinstance(happened, GameOver):
            result = (happened.result, happened.reason)
    tags = {"Event": event or "Crownhead hall", "Black": black, "White": white}
    if round is not None:
        tags["Round"] = round
    return {
        "event": event,
        "round": round,
        "game_id": game_id,
        "fen": game.position.fen(),
        "ply": game.ply,
        "turn": str(game.turn),
        "black": black,
        "white": white,
        "result": result[0] if result else None,
        "reason": result[1] if result else None,
        "clocks": None,
        "match": None,
        "status": "replayed",
        "moves": _move_texts(game),
        "start": game.start.fen(),
        "condoned": sorted(game.condoned),
        "pdn": write_game(game, tags, result=result[0] if result else "*"),
    }


def _move_texts(game: Any) -> list[str]:
    """The game's moves as the ``move`` events name them (full routes where they differ)."""
    from crownhead.rules.pdn import move_text

    return [move_text(before, move, game.rules, numbers=True) for before, move in zip(game.positions, game.moves)]
