"""The board's games on PlayStrategy as the page and the board's buttons take them: a
seek, a challenge to a friend by name, a challenge received accepted or declined, the
game that starts played on the board, and the game under way joined again by itself
when the board starts (``crownhead run --online``, no game named: docs/online.md).

:class:`OnlineDesk` joins the application as a part that polls (a
:class:`~crownhead.firmware.app.outputs.Poller`: its :meth:`~OnlineDesk.poll` in the main
loop) and hears the board's buttons first (:meth:`~OnlineDesk.on_press`). Two threads
of its own do the network: one reads the account's event stream (challenges sent to
it, games that start), reconnecting with a growing wait; the other makes the requests asked (a seek
waits there until the server pairs it, or until it is cancelled). Every request is
answered in the main loop, which checks that the board may take a game now; a game
that starts is joined there (an :class:`~crownhead.firmware.online.game.OnlineGame`
attached to the application), and let go once it is over.

The page asks through :meth:`~OnlineDesk.ask` (``/api/online``:
:mod:`crownhead.firmware.web.online`) and shows :meth:`~OnlineDesk.status`, replaced whole
whenever it changes (:attr:`~OnlineDesk.changes` counts the changes): the state, the
challenges waiting, and the game's players, ratings, the server's clocks and chat.

The buttons, while no game runs on the board (none of the server's, none under way:
a game under way keeps its buttons): with a challenge waiting, ``draw`` accepts it and
``resign`` declines it (the oldest first); with none, ``claim`` (which claims nothing
before a game's first move or after its end) seeks a game with the desk's clock, and
pressed again cancels the seek.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.events import Alert, Event, Notice
from crownhead.firmware.files import atomic_write
from crownhead.firmware.online.client import Backoff, Client, ClientError, RateLimited, Refused
from crownhead.firmware.online.game import OnlineBoard, OnlineGame
from crownhead.firmware.online.notation import check_variant
from crownhead.rules import WCDF, Color, Position

__all__ = ["DeskBoard", "MAX_ASKED", "OnlineDesk", "REQUESTS", "keep_game", "kept_game", "parse_clock"]

log = logging.getLogger(__name__)

#: Requests from the pages waiting for the main loop at most (more are refused).
MAX_ASKED = 8
#: What a page may ask, by the key its body names.
REQUESTS = ("seek", "cancel", "challenge", "accept", "decline", "chat", "abort")
#: Chat lines kept for the page (the newest).
CHAT_KEPT = 20
#: The longest chat line sent (the server's own limit).
CHAT_MAX = 140


class _Press(Protocol):
    """A button press, as the board's outputs hear it first (``on_press``): its button's
    name and when it was pressed (read only, as the board's own presses are)."""

    @property
    def name(self) -> str: ...
    @property
    def t_ms(self) -> int: ...


class DeskBoard(OnlineBoard, Protocol):
    """What the desk needs of the board application beyond a game's (the application is
    one): a side let go when a game is over (it joins as a game does, by ``add_output``)."""

    def release(self, side: Color) -> None: ...


def parse_clock(text: object) -> tuple[int, int]:
    """A seek's or challenge's clock, ``MIN+INC`` (``10+5``); ValueError in words.

    >>> parse_clock("15+10"), parse_clock("30")
    ((15, 10), (30, 0))
    """
    if not isinstance(text, str):
        raise ValueError("clock: MIN+INC, as 10+5")
    minutes, plus, inc = text.strip().partition("+")
    if not (minutes.isdigit() and (inc.isdigit() or not plus)) or len(text) > 9:
        raise ValueError(f"clock: MIN+INC, as 10+5, not {text[:20]!r}")
    return int(minutes), int(inc or 0)


def _game_path(state_dir: Path) -> Path:
    return state_dir / "online" / "game.json"


def kept_game(state_dir: Path) -> str | None:
    """The id of the game the board played last on the server (None: none kept)."""
    try:
        gid = json.loads(_game_path(state_dir).read_text(encoding="utf-8"))["id"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return gid if isinstance(gid, str) else None


def keep_game(state_dir: Path, game_id: str, server: str) -> None:
    """Keep ``game_id`` as the game played last (the board goes back to it after a restart)."""
    state_dir.joinpath("online").mkdir(parents=True, exist_ok=True)
    atomic_write(_game_path(state_dir), json.dumps({"id": game_id, "server": server}))


def _cut(sock: socket.socket) -> None:
    """A stream cut from another thread, so that its reader stops at once."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _challenge_of(raw: dict[str, Any]) -> dict[str, Any] | None:
    """A challenge sent to the board's account as the page shows it, or None if unreadable."""
    cid = raw.get("id")
    if not isinstance(cid, str) or not cid:
        return None
    who, tc, variant = _obj(raw.get("challenger")), _obj(raw.get("timeControl")), _obj(raw.get("variant"))
    key = str(variant.get("key", "?"))
    try:
        check_variant(key)
        why = ""
    except ValueError as exc:
        why = str(exc)
    rating = who.get("rating")
    return {
        "id": cid[:64],
        "name": str(who.get("name") or who.get("id") or "?")[:40],
        "rating": rating if isinstance(rating, int) else None,
        "variant": key[:20],
        "clock": str(tc.get("show") or "")[:20],
        "rated": bool(raw.get("rated")),
        "refused": why,
    }


class OnlineDesk:
    """The board's games on the server of ``client``, for the account ``me`` (its id);
    see the module. ``state_dir``: where the game played last is kept; ``clock``: the
    seek's clock for the ``claim`` button (minutes, increment); ``backoff``: the waits
    between attempts (the games' too). Its threads start when it is attached."""

    def __init__(
        self,
        client: Client,
        me: str,
        state_dir: Path,
        *,
        clock: tuple[int, int] = (10, 5),
        backoff: Backoff | None = None,
    ) -> None:
        self.client = client
        self.me = me.lower()
        self.state_dir = state_dir
        self.clock = clock
        self._backoff = backoff or Backoff()
        self._game_backoff = Backoff(self._backoff.first_s, self._backoff.most_s)
        self.app: DeskBoard | None = None
        #: How it joined the board (an output that polls and hears the presses first), while attached.
        self._joined: Poller | None = None
        #: The game played on the board now (None between games).
        self.game: OnlineGame | None = None
        self._lock = threading.Lock()
        self._asked: deque[tuple[str, object, Future[dict[str, Any]]]] = deque()
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._jobs: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._seek_socket: socket.socket | None = None
        self._events_socket: socket.socket | None = None
        self._seek_cancelled = threading.Event()
        #: The challenges sent to the account, waiting for an answer (oldest first).
        self.challenges: dict[str, dict[str, Any]] = {}
        #: A game the server started that waits for the board to be free.
        self._starting: str | None = None
        #: Games ended in this run (never joined again).
        self._ended: set[str] = set()
        # The site and event of the board's own games (a game online's are the server's).
        self._own_site = "?"
        self._own_event: str | None = None
        self.state = "connecting"
        self.message = "looking for a game of yours under way on PlayStrategy"
        self._notes: list[str] = []
        self._wanted: str | None = kept_game(state_dir)
        #: Counts the changes of :meth:`status`.
        self.changes = 0
        self._status: dict[str, Any] = {}
        self._shown: tuple[Any, ...] = ()
        self._refresh()

    # -- the server's thread (the page) ------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What the page shows: ``state`` (``connecting``, ``idle``, ``seeking``,
        ``challenging``, ``playing``), ``message``, ``challenges`` and ``game`` (replaced
        whole: read from any thread)."""
        return self._status

    def ask(self, what: str, data: object = None) -> Future[dict[str, Any]] | None:
        """A page's request (one of :data:`REQUESTS`), answered by the main loop's next
        step with the desk's status, or with ``error``, ``message`` and the ``status``;
        None when too many are waiting."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if len(self._asked) >= MAX_ASKED:
                return None
            self._asked.append((what, data, future))
        app = self.app
        if app is not None:
            app.wake()
        return future

    # -- threads -------------------------------------------------------------------------------

    def _put(self, kind: str, data: Any) -> None:
        self._inbox.put((kind, data))
        app = self.app
        if app is not None:
            app.wake()

    def _listen(self) -> None:
        """The account's event stream, for as long as the desk runs."""
        while not self._stop.is_set():
            try:
                for event in self.client.events(opened=self._events_opened):
                    self._backoff.reset()
                    self._event(event)
                    if self._stop.is_set():
                        return
                wait = self._backoff.next()
            except Refused as exc:
                self._put("note", f"PlayStrategy refused the board's event stream: {exc.message}")
                return
            except RateLimited as exc:
                wait = exc.wait_s
            except ClientError:
                wait = self._backoff.next()
            self._stop.wait(wait)

    def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "gameStart":
            game = _obj(event.get("game"))
            gid = str(game.get("gameId") or game.get("id") or "")
            # The stream names every game under way when it opens, and a game that ended
            # may be named again: only one the server still plays is joined.
            if gid and gid in self.client.playing():
                self._put("start", gid)
        elif kind == "challenge":
            challenge = _challenge_of(_obj(event.get("challenge")))
            dest = _obj(_obj(event.get("challenge")).get("destUser"))
            if challenge is not None and str(dest.get("id", self.me)).lower() == self.me:
                self._put("challenge", challenge)
        elif kind in ("challengeCanceled", "challengeDeclined"):
            cid = _obj(event.get("challenge")).get("id")
            if isinstance(cid, str):
                self._put(kind, cid)

    def _work(self) -> None:
        """The requests, one after another (a seek waits here until paired or cancelled)."""
        while not self._stop.is_set():
            job = self._jobs.get()
            if job is None:
                return
            what, data = job
            try:
                words = self._do(what, data)
            except Refused as exc:
                self._put("failed", (what, f"PlayStrategy refused the {what}: {exc.message}"))
            except ClientError as exc:
                self._put("failed", (what, f"the {what} did not reach PlayStrategy: {exc}"))
            else:
                self._put("done", (what, words))

    def _do(self, what: str, data: Any) -> str:
        client = self.client
        if what == "seek":
            minutes, inc, rated = data
            self._seek_cancelled.clear()
            try:
                for _ in client.seek(minutes, inc, rated=rated, opened=self._seek_opened):
                    if self._seek_cancelled.is_set():
                        break
            except ClientError:
                if not self._seek_cancelled.is_set():
                    raise
            return "the seek was cancelled" if self._seek_cancelled.is_set() else "the seek ended"
        if what == "challenge":
            user, minutes, inc = data
            answer = client.challenge(user, minutes, inc)
            cid = _obj(answer.get("challenge")).get("id") or answer.get("id") or "?"
            return f"challenge {cid} sent to {user}: the game starts when it is accepted"
        if what == "accept":
            client.accept(data)
            return f"challenge {data} accepted: the game starts"
        if what == "decline":
            client.decline(data)
            return f"challenge {data} declined"
        if what == "playing":
            games = client.playing()
            if games:
                self._put("start", data if data in games else games[0])
            return ""
        raise ValueError(what)

    def _events_opened(self, sock: socket.socket) -> None:
        self._events_socket = sock
        if self._stop.is_set():
            _cut(sock)

    def _seek_opened(self, sock: socket.socket) -> None:
        self._seek_socket = sock
        if self._seek_cancelled.is_set():
            self._cut_seek()

    def _cut_seek(self) -> None:
        if self._seek_socket is not None:
            _cut(self._seek_socket)

    # -- the main loop -------------------------------------------------------------------------

    def attach(self, app: DeskBoard) -> OnlineDesk:
        """Take the page's requests and the buttons in ``app``'s main loop; the threads
        start, and the first job looks for a game of the account's under way."""
        self.app = app
        self._own_site, self._own_event = app.settings.site, app.settings.event
        self._joined = app.add_output(Poller(self.poll, on_press=self.on_press))
        self._jobs.put(("playing", self._wanted))
        for target, name in ((self._listen, "online-events"), (self._work, "online-requests")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def close(self) -> None:
        """Stop the threads (a seek cancelled), let the game go and refuse what waits."""
        self._stop.set()
        self._seek_cancelled.set()
        self._cut_seek()
        if self._events_socket is not None:
            _cut(self._events_socket)  # its reader stops at once, not at the next line
        self._jobs.put(None)
        for t in self._threads:
            t.join(timeout=5)
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        for _what, _data, future in asked:
            future.cancel()
        if self.game is not None:
            self.game.close()
            self.game = None
        app, self.app = self.app, None
        joined, self._joined = self._joined, None
        if app is not None and joined is not None:
            app.remove_output(joined)

    def poll(self, now: int) -> list[Event]:
        out: list[Event] = []
        while True:
            try:
                kind, data = self._inbox.get_nowait()
            except queue.Empty:
                break
            self._heard(kind, data, now, out)
        self._answer_pages(now, out)
        self._follow_game(now, out)
        if self._starting is not None and self.game is None:
            self._join(self._starting, now, out)
        for text in self._notes:
            out.append(Notice(now, text))
            if self.app is not None:
                self.app.say(text)
        self._notes.clear()
        self._refresh()
        return out

    def _note(self, text: str) -> None:
        self._notes.append(text)

    def _heard(self, kind: str, data: Any, now: int, out: list[Event]) -> None:
        if kind == "start":
            if data not in self._ended and (self.game is None or self.game.game_id != data):
                self._starting = data
        elif kind == "challenge":
            self.challenges[data["id"]] = data
            rating = f" ({data['rating']})" if data["rating"] is not None else ""
            how = (
                f"not playable here: {data['refused']}"
                if data["refused"]
                else "the draw button accepts it, resign declines it"
            )
            # An alert: on the message line, the display and the pages, and spoken.
            words = f"PlayStrategy: {data['name']}{rating} challenges you, {data['variant']} {data['clock']}; {how}"
            out.append(Alert(now, code="challenge", message=words))
        elif kind in ("challengeCanceled", "challengeDeclined"):
            gone = self.challenges.pop(data, None)
            if kind == "challengeDeclined" and self.state == "challenging":
                self._set("idle", "PlayStrategy: your challenge was declined")
            elif gone is not None:
                self._note(f"PlayStrategy: {gone['name']} took the challenge back")
        elif kind == "done":
            self._done(*data)
        elif kind == "failed":
            what, words = data
            self._set("idle" if self.game is None else "playing", words)
            self._note(words)
        elif kind == "note":
            self._note(str(data))

    def _done(self, what: str, words: str) -> None:
        """A request the server answered (a game it starts comes on the event stream)."""
        if what == "seek" and self.state == "seeking":
            self._set("idle", f"PlayStrategy: {words}")
        elif what in ("challenge", "accept") and self.state in ("challenging", "accepting"):
            self.message = f"PlayStrategy: {words}"
        elif what == "playing" and self.state == "connecting":
            self._set("idle", "no game of yours under way: seek one, or challenge a friend")
        elif words:
            self._note(f"PlayStrategy: {words}")

    def _answer_pages(self, now: int, out: list[Event]) -> None:
        if not self._asked:
            return
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        for what, data, future in asked:
            if not future.set_running_or_notify_cancel():
                continue
            try:
                self.request(what, data, now)
            except ValueError as exc:
                self._refresh()
                future.set_result({"error": "refused", "message": str(exc), "status": self._status})
            except Exception as exc:  # noqa: BLE001 - a page's request must not stop the board
                log.exception("online: the page's %s failed", what)
                self._refresh()
                future.set_result({"error": "internal", "message": f"{what} failed: {exc}", "status": self._status})
            else:
                self._refresh()
                future.set_result(self._status)

    def request(self, what: str, data: object, now: int) -> None:
        """Do what the page or a button asks (see :data:`REQUESTS`); ValueError in words
        when the board may not now."""
        if what == "seek":
            options = _obj(data)
            minutes, inc = parse_clock(options.get("clock", f"{self.clock[0]}+{self.clock[1]}"))
            check_variant(options.get("variant", "english"))
            self._may_take()
            rated = options.get("rated") is True
            self._set("seeking", f"seeking English {minutes}+{inc}{' rated' if rated else ''}: waiting for an opponent")
            self._jobs.put(("seek", (minutes, inc, rated)))
        elif what == "cancel":
            if self.state == "challenging":
                # The server's challenge stands until the friend answers or it expires; the
                # board no longer waits for it (a game it starts is joined all the same).
                self._set("idle", "the board no longer waits for the challenge")
                return
            if self.state != "seeking":
                raise ValueError("no seek or challenge under way")
            self._seek_cancelled.set()
            self._cut_seek()
            self._set("idle", "the seek is cancelled")
        elif what == "challenge":
            options = _obj(data)
            user = options.get("user")
            if not isinstance(user, str) or not user.strip():
                raise ValueError("challenge: the friend's name on PlayStrategy")
            name = user.strip()
            if len(name) > 30 or not all(c.isalnum() or c in "_-" for c in name):
                raise ValueError("challenge: a name on PlayStrategy is letters, digits, _ and -")
            minutes, inc = parse_clock(options.get("clock", f"{self.clock[0]}+{self.clock[1]}"))
            check_variant(options.get("variant", "english"))
            self._may_take()
            self._set("challenging", f"challenging {name} to English {minutes}+{inc}")
            self._jobs.put(("challenge", (name, minutes, inc)))
        elif what in ("accept", "decline"):
            self._answer_challenge(what, data)
        elif what == "chat":
            self._chat(data)
        elif what == "abort":
            self._abort()
        else:
            raise ValueError(f"{what}: one of {', '.join(REQUESTS)}")

    def _answer_challenge(self, what: str, data: object) -> None:
        if not isinstance(data, str) or data not in self.challenges:
            raise ValueError(f"{what}: no such challenge waiting")
        challenge = self.challenges[data]
        if what == "accept":
            if challenge["refused"]:
                raise ValueError(challenge["refused"])
            self._may_take()
            self._set("accepting", f"accepting {challenge['name']}'s challenge")
        del self.challenges[data]
        self._jobs.put((what, data))

    def _chat(self, data: object) -> None:
        if not isinstance(data, str) or not data.strip():
            raise ValueError("chat: a line of text")
        if len(data) > CHAT_MAX:
            raise ValueError(f"chat: {CHAT_MAX} characters at most")
        if self.game is None or self.game.finished.is_set():
            raise ValueError("chat: no game on PlayStrategy under way")
        self.game.send_chat(data.strip())

    def _abort(self) -> None:
        game = self.game
        if game is None or game.finished.is_set():
            raise ValueError("abort: no game on PlayStrategy under way")
        if len(game.server_moves) > 1:
            raise ValueError("abort: only before the game's second move (resign instead)")
        game.abort()
        self.message = f"aborting PlayStrategy game {game.game_id}"

    def _may_take(self) -> None:
        """ValueError unless the board may look for a game now."""
        if self.game is not None:
            raise ValueError(f"the board plays PlayStrategy game {self.game.game_id}: finish it first")
        if self.state in ("seeking", "challenging", "accepting"):
            raise ValueError(f"the board is {self.state} already: wait, or cancel the seek")
        app = self.app
        if app is None:
            raise ValueError("the board is not running")
        game = app.game
        if app.resuming:
            raise ValueError("a saved game waits to be set up: start a New game on the board first")
        if game.ply and not game.is_over and app.setting_up is None:
            raise ValueError("a game is under way on the board: finish it (or start a New game) first")

    def _free(self, gid: str) -> bool:
        """Whether the board may take game ``gid`` now: its game is that game (resumed
        after a restart, or being set up again: the server's state guides the board), or
        none is under way on it."""
        app = self.app
        if app is None:
            return False
        if app.record_tags().get("GameId") == gid:
            return True
        return not app.resuming and (app.game.ply == 0 or app.game.is_over)

    def _join(self, gid: str, now: int, out: list[Event]) -> None:
        app = self.app
        if app is None:
            return
        if not self._free(gid):
            if self.state != "waiting":
                self._set("waiting", f"PlayStrategy game {gid} started: finish the game on the board to play it")
            return
        self._starting = None
        if app.game.ply and app.record_tags().get("GameId") != gid:
            out += app.new_game(Position.start(WCDF), now)  # the last game's pieces make way
        game = OnlineGame(self.client, gid, self.me, backoff=Backoff(self._backoff.first_s, self._backoff.most_s))
        game.attach(app)
        self.game = game
        self._wanted = gid
        keep_game(self.state_dir, gid, self.client.server)
        self._set("playing", f"playing PlayStrategy game {gid}")

    def _follow_game(self, now: int, out: list[Event]) -> None:
        """Let the game go once it is over (declared on the board, or ended there)."""
        game, app = self.game, self.app
        if game is None or app is None or not game.finished.is_set():
            return
        if game.mine is not None and not app.game.is_over:
            return  # the server's end is declared on the board first (the game's own step)
        far = game.far
        game.close()
        if far is not None:
            app.release(far)
        # The games on the board alone are no longer the server's.
        app.settings = replace(app.settings, site=self._own_site, event=self._own_event)
        self._ended.add(game.game_id)
        self.game = None
        self._set("idle", f"PlayStrategy game {game.game_id} is over")

    def on_press(self, press: _Press) -> bool | None:
        """The buttons while no game of the server's runs and none is under way on the
        board (see the module: a game under way keeps its buttons); False keeps the press
        from the board."""
        app = self.app
        if self.game is not None or app is None or app.resuming:
            return None
        if app.game.ply and not app.game.is_over:
            return None
        name = press.name
        waiting = list(self.challenges.values())
        try:
            if waiting and name in ("draw", "black_draw", "white_draw"):
                self.request("accept", waiting[0]["id"], press.t_ms)
                return False
            if waiting and name in ("resign", "black_resign", "white_resign"):
                self.request("decline", waiting[0]["id"], press.t_ms)
                self._note(f"PlayStrategy: {waiting[0]['name']}'s challenge declined")
                return False
            if name == "claim":
                self.request("cancel" if self.state == "seeking" else "seek", {}, press.t_ms)
                return False
        except ValueError as exc:
            self._note(f"PlayStrategy: {exc}")
            return False
        return None

    # -- what the page shows ------------------------------------------------------------------

    def _set(self, state: str, message: str) -> None:
        self.state, self.message = state, message

    def _refresh(self) -> None:
        game = self.game
        shown = (
            self.state,
            self.message,
            tuple(self.challenges),
            None if game is None else game.shown_state(),
        )
        if shown == self._shown:
            return
        self._shown = shown
        self._status = {
            "state": self.state,
            "message": self.message,
            "server": self.client.server,
            "clock": f"{self.clock[0]}+{self.clock[1]}",
            "challenges": list(self.challenges.values()),
            "game": None if game is None else game.page_state(),
        }
        self.changes += 1
