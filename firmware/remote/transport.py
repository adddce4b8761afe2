"""A link's line carrier over a broker: the two boards of a game far apart.

:class:`RemoteTransport` is a :class:`~crownhead.firmware.link.transport.Transport`, so the board's
:class:`~crownhead.firmware.link.host.Link` follows the other board through it exactly as over a
serial cable (``link.plays``: the other side's moves are lit here like a computer's).
Only the lines the other board follows cross (``hello``, ``state``, ``move``,
``takeback``, ``game-over``, ``new-game``, and a game far apart's ``draw-offer`` and
``takeback-request``); each one is numbered, chained into the
stream's hash and kept on disk (:class:`~crownhead.firmware.remote.journal.Journal`) until the
other board acknowledges it, sent again after every reconnect and every ``resend_ms``
until then. Duplicates and late copies are dropped, lines beyond a gap wait for it.

Nothing here blocks the main loop on the network: the MQTT client and a worker thread
do all the waiting. A line is written to the journal as it is sent (one small atomic
write, before the board's step ends: a power cut after a move, a result or an offer
never loses its line), the lines taken by the worker; an acknowledgement is sent only
for what the board has taken and the journal has saved.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crownhead.firmware.files import parse_json
from crownhead.firmware.hall.topics import BrokerUrl, check_name
from crownhead.firmware.link.protocol import MAX_LINE
from crownhead.firmware.remote.journal import MAX_EARLY, Journal, Line
from crownhead.firmware.remote.wire import check_code, game_topic
from crownhead.hal.clock import Clock

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

__all__ = ["FOLLOWED", "RemoteTransport", "check_broker", "is_loopback"]

log = logging.getLogger(__name__)

#: The link's events the other board follows (:class:`~crownhead.firmware.link.peer.PeerFollower`),
#: and the offers a game far apart adds (:mod:`crownhead.firmware.remote.link`); the rest (lights,
#: notices, the view) stay on this board.
FOLLOWED = frozenset({"hello", "state", "move", "takeback", "game-over", "new-game", "draw-offer", "takeback-request"})
#: The largest message taken from the broker: a line and its numbers.
MAX_MESSAGE = MAX_LINE + 512


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine (where a broker may run without TLS).

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("broker.example")
    (True, True, True, False)
    """
    return host in ("localhost", "::1") or host.startswith("127.")


def check_broker(url: BrokerUrl, *, insecure: bool = False) -> None:
    """ValueError unless ``url`` names the board's account and password, and TLS where the
    broker is not on this machine (``insecure`` waives TLS, never the account).

    >>> check_broker(BrokerUrl.parse("mqtt://home-a:pw@broker.example"))
    Traceback (most recent call last):
    ...
    ValueError: broker mqtt://home-a:***@broker.example:1883: use mqtts:// (TLS) for a broker on another machine (or waive it with --insecure on a network you trust)
    """
    if url.username is None or url.password is None:
        raise ValueError(f"broker {url}: give the board's account and password (mqtt://BOARD:PASSWORD@host)")
    if not url.tls and not insecure and not is_loopback(url.host):
        raise ValueError(
            f"broker {url}: use mqtts:// (TLS) for a broker on another machine "
            "(or waive it with --insecure on a network you trust)"
        )


def _kind(line: str) -> str | None:
    """The ``event`` of a JSON line, or None (not JSON, nested too deep: never a RecursionError).

    >>> _kind('{"event": "move", "ply": 1}'), _kind("[" * 5000)
    ('move', None)
    """
    try:
        data = parse_json(line)
    except ValueError:
        return None
    kind = data.get("event") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


class RemoteTransport:
    """The lines of game ``code`` between this board (the account of ``url``) and ``peer``.

    ``journal``: the file of :class:`~crownhead.firmware.remote.journal.Journal` (in the state
    directory, one per game). ``insecure`` allows a broker off this machine without TLS
    (never the default). ``start=False`` builds it without connecting (:meth:`start`).
    ``private``: the game's two boards, the inviting one first (a private game's topics).
    """

    def __init__(
        self,
        url: BrokerUrl,
        code: str,
        peer: str,
        journal: Path | Journal,
        clock: Clock,
        *,
        cafile: str | None = None,
        insecure: bool = False,
        resend_ms: int = 3000,
        keepalive_s: int = 5,
        inbox_lines: int = 256,
        name: str = "remote",
        start: bool = True,
        private: tuple[str, str] | None = None,
    ) -> None:
        check_broker(url, insecure=insecure)
        self.url = url
        self.code = check_code(code)
        self.me = check_name(url.username or "", "board")
        self.peer = check_name(peer, "board")
        if self.peer == self.me:
            raise ValueError(f"the other board must have an account of its own, not {peer!r} too")
        self.clock = clock
        self.resend_ms = resend_ms
        self.keepalive_s = keepalive_s
        #: How long after a (re)connect the other board has to acknowledge a line sent
        #: since (the greeting) before it is taken to be away (:attr:`peer_silent`).
        self.proof_ms = 2 * keepalive_s * 1000 + resend_ms
        self.inbox_lines = inbox_lines
        self.name = name
        self.journal = journal if isinstance(journal, Journal) else Journal.load(journal)
        self._topic = {k: game_topic(self.code, self.me, k, private) for k in ("lines", "ack", "status")}
        self._peer_topic = {k: game_topic(self.code, self.peer, k, private) for k in ("lines", "ack", "status")}
        self._lock = threading.Condition()
        self._saving = threading.Lock()  # one journal write at a time, the latest last
        self._inbox: deque[Line] = deque()
        self._early: dict[int, tuple[Line, int]] = {}
        self._delivered = self.journal.taken  # the last of the other's lines put in the inbox
        self._delivered_stream = self.journal.peer_stream
        # The streams left behind, as journal.left, of the lines put in the inbox.
        self._left: deque[str] = deque(self.journal.left, maxlen=self.journal.left.maxlen)
        self._delivered_hash = self.journal.peer_hash
        self._sent_upto = 0  # lines of this stream published since the last (re)connect
        self._saved_seq = self.journal.seq
        self._saved_taken = self.journal.taken
        self._acked_sent = -1
        self._dirty = False
        self._resend_at = 0
        self._proof_due: int | None = None  # when the other board must have answered
        self._proof_seq = 0  # ...by acknowledging a line past this one
        self._connected = False
        self._fresh: str | None = None
        self._closed = False
        #: The other board's status as its broker says (``online``/``offline``) and when
        #: (this board's clock) it last changed; None: not heard yet.
        self.peer_status: str | None = None
        self.peer_since = clock.now_ms()
        #: Counters for status and tests.
        self.duplicates = 0
        self.refused = 0
        self.skipped = 0
        self.resends = 0
        self.connects = 0
        self.last_error: str | None = None
        import paho.mqtt.client as mqtt  # the hall extra

        # A persistent session: the broker keeps the other's lines while this board is away.
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.me, clean_session=False)
        client.username_pw_set(url.username, url.password)
        if url.tls:
            client.tls_set_context(ssl.create_default_context(cafile=cafile))
        client.will_set(self._topic["status"], b"offline", qos=1, retain=True)
        # Tried again at most a keep-alive apart: back within that of the line being mended.
        client.reconnect_delay_set(min_delay=1, max_delay=max(1, keepalive_s))
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        self._client = client
        self._thread = threading.Thread(target=self._run, name=f"crownhead-{name}", daemon=True)
        if start:
            self.start()

    # -- the link's side (the board's main loop) ----------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def peer_silent(self) -> bool:
        """Whether the other board has not answered since this board's last (re)connect
        within :attr:`proof_ms`: it acknowledges the greeting when it is there. Its status
        at the broker says nothing then: a board that died while the broker was down is
        ``online`` there for good (its last will never went out)."""
        due = self._proof_due
        return due is not None and self._connected and self.clock.now_ms() >= due

    def take_fresh(self) -> str | None:
        """``"connect"`` once after each (re)connect (the link greets: its hello and state),
        ``"overrun"`` after lines of the other board were lost for good."""
        with self._lock:
            fresh, self._fresh = self._fresh, None
            return fresh

    def resume(self, *first: bytes) -> None:
        """Send the greeting: nothing is cleared, the stream goes on after what is pending."""
        for line in first:
            self.send(line)

    def send(self, line: bytes) -> bool:
        """Number and keep ``line`` if the other board follows its kind (True), else drop it
        (False: a line for this board's host only)."""
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        if _kind(text) not in FOLLOWED:
            return False
        with self._saving:
            with self._lock:
                if self._closed:
                    return False
                self.journal.add(text)
                self._dirty = True
                snapshot = self.journal.to_bytes()
                seq, taken = self.journal.seq, self.journal.taken
            # On disk before the board's step ends: a board that loses its power after a
            # move, a result or an offer has its line, whatever it saved of its own.
            try:
                self.journal.save(snapshot)
                self._saved_seq, self._saved_taken = seq, taken
            except OSError as exc:  # (the worker tries again)
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error("remote: the journal could not be saved: %s", exc)
            with self._lock:
                self._lock.notify_all()
        return True

    def receive(self, limit: int) -> list[bytes]:
        """Up to ``limit`` of the other board's lines, in order; each counts as taken."""
        out: list[bytes] = []
        with self._lock:
            while self._inbox and len(out) < limit:
                line = self._inbox.popleft()
                self.journal.take(line)
                out.append(line.text.encode())
            if out:
                self._dirty = True
                self._lock.notify_all()
        return out

    def note_game(self, name: str) -> None:
        """Keep ``name``, the game in play, in the journal: a board switched on again
        resumes that game under the name both boards know it by."""
        with self._lock:
            if self.journal.game == name:
                return
            self.journal.game = name
            self._dirty = True
            self._lock.notify_all()

    @property
    def pending(self) -> int:
        """Lines of this board not yet acknowledged by the other."""
        with self._lock:
            return len(self.journal.pending)

    # -- the broker's side (the client's thread) -------------------------------------------

    def start(self) -> None:
        self._client.connect_async(self.url.host, self.url.port, keepalive=self.keepalive_s)
        self._client.loop_start()
        self._thread.start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.last_error = f"{self.url} refused the board: {reason}"
            log.warning("remote: %s", self.last_error)
            return
        client.publish(self._topic["status"], b"online", qos=1, retain=True)
        client.subscribe([(self._peer_topic[k], 1) for k in ("lines", "ack", "status")])

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: Any, codes: Any, properties: Any) -> None:
        if any(getattr(code, "is_failure", False) for code in codes):
            self.last_error = f"{self.url} refused the subscription to {self.peer}'s topics (see the ACL)"
            log.error("remote: %s", self.last_error)
            return
        with self._lock:
            self._connected = True
            self.connects += 1
            self._fresh = "connect"
            self._sent_upto = 0  # everything pending goes again: the broker may have lost it
            self._acked_sent = -1
            self._proof_seq, self._proof_due = self.journal.seq, self.clock.now_ms() + self.proof_ms
            self._lock.notify_all()
        log.info("remote: connected to %s for game %s with %s", self.url, self.code, self.peer)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        with self._lock:
            self._connected = False
        if not self._closed:
            log.warning("remote: lost %s (%s); the game's lines are kept until it is back", self.url, reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        payload = bytes(message.payload[: MAX_MESSAGE + 1])
        if len(payload) > MAX_MESSAGE:
            self.refused += 1
            return
        if message.topic == self._peer_topic["status"]:
            status = payload.decode("ascii", "replace")
            if status in ("online", "offline") and status != self.peer_status:
                self.peer_status, self.peer_since = status, self.clock.now_ms()
                if status == "online":
                    with self._lock:
                        # Back (or here for the first time: lines sent before its session
                        # existed were lost): everything pending again now, not at the resend.
                        self._sent_upto = 0
                        self._lock.notify_all()
            return
        try:
            # Bounded nesting: a RecursionError would end the client's network thread.
            data = parse_json(payload)
        except ValueError:
            self.refused += 1
            return
        with self._lock:
            if message.topic == self._peer_topic["ack"]:
                n, stream = (data.get("n"), data.get("s")) if isinstance(data, dict) else (None, None)
                if type(n) is int and stream == self.journal.stream and n > self._proof_seq:
                    self._proof_due = None  # it took a line sent since: it is there
                if type(n) is int and stream == self.journal.stream and self.journal.acked(n):
                    self._dirty = True
                    self._resend_at = self.clock.now_ms() + self.resend_ms
                    self._lock.notify_all()
            elif message.topic == self._peer_topic["lines"]:
                self._arrived(data)

    def _arrived(self, data: object) -> None:
        try:
            line, low = Line.from_json(data)
        except ValueError as exc:
            self.refused += 1
            log.warning("remote: a message from %s refused: %s", self.peer, exc)
            return
        if _kind(line.text) not in FOLLOWED:
            self.refused += 1
            return
        self._early[line.n] = (line, low)
        if len(self._early) > MAX_EARLY:
            del self._early[max(self._early)]  # the furthest: it comes again
        progress = True
        while progress:
            progress = False
            for n in sorted(self._early):
                item, low = self._early[n]
                verdict = self._verdict(item, low)
                if verdict == "early":
                    continue
                del self._early[n]
                if verdict == "duplicate":
                    self.duplicates += 1
                    self._acked_sent = -1  # say again what was taken: the other may not know
                    self._lock.notify_all()
                    continue
                if verdict == "skip":
                    self.skipped += 1
                    self._fresh = "overrun"  # the link sends its state: the other catches up
                    log.warning(
                        "remote: lines %d-%d of %s are gone: catching up from its state",
                        self._delivered + 1,
                        n - 1,
                        self.peer,
                    )
                if len(self._inbox) >= self.inbox_lines:
                    return  # not taken: sent again, as it was never acknowledged
                self._inbox.append(item)
                if self._delivered_stream is not None and item.stream != self._delivered_stream:
                    self._left.append(self._delivered_stream)
                self._delivered, self._delivered_stream, self._delivered_hash = item.n, item.stream, item.after
                progress = True
                break

    def _verdict(self, line: Line, low: int) -> str:
        """As :meth:`Journal.check`, against what was put in the inbox (not yet taken)."""
        view = Journal(None, stream="x")
        view.peer_stream, view.taken, view.peer_hash = self._delivered_stream, self._delivered, self._delivered_hash
        view.left = self._left
        return view.check(line, low)

    # -- the worker -----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._dirty and not self._closed and not self._work_due():
                    self._lock.wait(0.05)
                if self._closed and not self._dirty:
                    return
            try:
                self.work()
            except Exception as exc:  # the journal's disk full, say: the board goes on
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("remote: the worker failed")
                threading.Event().wait(0.5)

    def work(self) -> bool:
        """One turn of the worker: the journal saved if it changed, then what is due
        published (lines, the acknowledgement); True if there was anything to do.

        The worker thread calls it in a loop; it is public for a harness that runs the
        transport without its threads, one step at a time, and stops the world between
        any two of them (``tests/test_remote_sweep.py``: a fault at every instant).
        """
        with self._saving:  # (snapshots written in the order they were taken)
            with self._lock:
                busy = self._dirty or self._work_due()
                snapshot = self.journal.to_bytes() if self._dirty else None
                seq, taken = self.journal.seq, self.journal.taken
                self._dirty = False
            if snapshot is not None:
                self.journal.save(snapshot)
                self._saved_seq, self._saved_taken = seq, taken
        self._publish()
        return busy

    def _work_due(self) -> bool:
        if not self._connected:
            return False
        if self._acked_sent != self._saved_taken and self.journal.peer_stream is not None:
            return True
        ahead = [x for x in self.journal.pending if x.n > self._sent_upto and x.n <= self._saved_seq]
        return bool(ahead) or bool(self.journal.pending and self.clock.now_ms() >= self._resend_at)

    def _publish(self) -> None:
        with self._lock:
            if not self._connected:
                return
            now = self.clock.now_ms()
            if self.journal.pending and now >= self._resend_at and self._sent_upto >= self.journal.pending[0].n:
                self._sent_upto = 0  # not acknowledged in time: all of it again
                self.resends += 1
            low = self.journal.low
            out = [x for x in self.journal.pending if self._sent_upto < x.n <= self._saved_seq]
            ack = None
            if self._acked_sent != self._saved_taken and self.journal.peer_stream is not None:
                ack = {"s": self.journal.peer_stream, "n": self._saved_taken}
                self._acked_sent = self._saved_taken
            if out:
                self._sent_upto = out[-1].n
                self._resend_at = now + self.resend_ms
        for line in out:
            payload = json.dumps(line.to_json(low), separators=(",", ":"), ensure_ascii=False).encode()
            self._client.publish(self._topic["lines"], payload, qos=1)
        if ack is not None:
            self._client.publish(self._topic["ack"], json.dumps(ack).encode(), qos=1, retain=True)

    def flush(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` real seconds until the other board has every line."""
        import time

        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if not self.pending:
                return True
            time.sleep(0.02)
        return not self.pending

    def close(self, flush_s: float = 5.0) -> None:
        """Give the other board what is pending (up to ``flush_s`` real seconds, a connection
        still being made included), save the journal, say ``offline``, disconnect
        (idempotent). What is still pending then stays in the journal for the next start."""
        if self._closed:
            return
        if flush_s > 0 and self.pending:
            self.flush(flush_s)
        with self._lock:
            self._closed = True
            self._dirty = True
            self._lock.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if self._connected:
            self._client.publish(self._topic["status"], b"offline", qos=1, retain=True).wait_for_publish(1)
        self._client.disconnect()
        self._client.loop_stop()

    def __repr__(self) -> str:
        return f"RemoteTransport({self.url}, game {self.code}, {self.me} with {self.peer})"
