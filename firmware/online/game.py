"""A game on PlayStrategy played on the board: the far side's moves come in on the game's
stream and are lit on the board as the computer's are; the moves made here, read from
the switches and checked by the rules, go to the server in its notation.

:class:`OnlineGame` is an application source (its poll, in the main loop) and sink (it
hears the board's moves, offers and resignation), as the link of a game far apart is.
Two threads of its own do the network: one reads the game's stream (its first message,
``gameFull``, is the server's whole game: after a drop, a restart or a power cut the
board is guided to it, move by move), reconnecting with a growing wait and keeping away
as long as a 429 asks; the other sends what the board did, in order, each request again
after a drop until the server took or refused it (a multi-jump one jump at a time, a jump
the server took never twice). A move the server refuses is said, and taken back on the
board (the lights guide the pieces back).

The server's clocks, the opponent's name and rating, and the chat are shown
(:attr:`OnlineGame.status_line`, the board's screen and pages); the game's tags (site,
game id, players, ratings, time control) go into its record with the game.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from crownhead.firmware.app.outputs import O, Output, Poller
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import (
    Alert,
    DrawLapsed,
    DrawOffer,
    Event,
    GameOver,
    MoveMade,
    Notice,
    Side,
    TakenBack,
)
from crownhead.firmware.gameclock import ClockSpecError, TimeControl
from crownhead.firmware.online.client import Backoff, Client, ClientError, Lost, RateLimited, Refused
from crownhead.firmware.online.notation import (
    NotationError,
    check_variant,
    color_of,
    player_of,
    split_server_moves,
    to_server,
)
from crownhead.rules import BLACK, WCDF, Color, Game, Move, Position, Rules

if TYPE_CHECKING:
    from crownhead.firmware.app.application import App
    from crownhead.firmware.tracking.timer import GameTimer

__all__ = ["OnlineBoard", "OnlineGame", "RESULTS", "game_tags", "online_settings", "player_names"]

#: Who the far side is, as the board's session names a held side.
BY = "PlayStrategy"
#: The statuses of a game under way; any other is its end.
_PLAYING = ("created", "started")
#: The server's end of a game, as the board's result reasons.
RESULTS = {
    "resign": "resign",
    "outoftime": "time",
    "timeout": "time",
    "draw": "agreement",
    "mate": "no moves",
    "stalemate": "no moves",
    "aborted": "aborted",
    "noStart": "aborted",
    "cheat": "forfeit",
    "variantEnd": "no moves",
}


class OnlineBoard(Protocol):
    """What a game on the server needs of the board application (the application is one)."""

    settings: AppSettings

    @property
    def game(self) -> Game: ...
    @property
    def resuming(self) -> bool: ...
    @property
    def setting_up(self) -> Position | None: ...
    @property
    def expected(self) -> Move | None: ...
    @property
    def board_clock(self) -> GameTimer | None: ...

    def add_sink(self, sink: Callable[[Event], None], *, first: bool = False) -> None: ...
    def add_output(self, output: O, *, first: bool = False) -> O: ...
    def remove_output(self, output: Output) -> None: ...
    def remove_sink(self, sink: Callable[[Event], None]) -> None: ...
    def wake(self) -> None: ...
    def say(self, message: str, *, until: int | None = None) -> None: ...
    def hold(self, side: Color, by: str) -> None: ...
    def show_move(self, move: Move | None) -> None: ...
    def take_back(self, now: int) -> list[Event]: ...
    def declare(self, score: str, reason: str, now: int) -> list[Event]: ...
    def offer_draw(self, side: Color | None, now: int | None = None) -> list[Event]: ...
    def set_player_names(self, black: str, white: str, now: int) -> bool: ...
    def new_game(self, position: Position, now: int, *, tags: Mapping[str, str] | None = None) -> list[Event]: ...
    def new_game_with(
        self, settings: AppSettings, now: int | None = None, *, tags: Mapping[str, str] | None = None
    ) -> list[Event]: ...
    def record_tags(self) -> dict[str, str]: ...


def game_tags(full: Mapping[str, Any]) -> dict[str, str]:
    """The PDN tags the record of the game ``full`` (a ``gameFull``) adds to its own (the
    site, event and players are the record's: :func:`online_settings` and the names):
    the server's game id, the ratings, the time control."""
    tags = {"GameId": str(full.get("id", ""))}
    for player, color in (("p1", "Black"), ("p2", "White")):
        p = full.get(player)
        if isinstance(p, dict) and isinstance(p.get("rating"), int):
            tags[f"{color}Elo"] = str(p["rating"])
    clock = full.get("clock")
    if isinstance(clock, dict) and isinstance(clock.get("initial"), int):
        tags["TimeControl"] = f"{clock['initial'] // 1000}+{int(clock.get('increment', 0)) // 1000}"
    return tags


def time_control(full: Mapping[str, Any]) -> TimeControl | None:
    """The game's time control as the board's clock keeps it (None: no clock there).

    >>> str(time_control({"clock": {"initial": 600_000, "increment": 5_000}}))
    '600+5'
    """
    clock = full.get("clock")
    if not isinstance(clock, dict) or not isinstance(clock.get("initial"), int):
        return None
    increment = clock.get("increment", 0)
    try:
        return TimeControl.parse(f"{clock['initial'] // 1000}+{int(increment) // 1000}")
    except (ClockSpecError, ValueError):
        return None


def player_names(full: Mapping[str, Any]) -> tuple[str, str]:
    """Black's and White's names on the server."""
    names = []
    for player in ("p1", "p2"):
        p = full.get(player)
        p = p if isinstance(p, dict) else {}
        names.append(str(p.get("name") or p.get("id") or "?")[:40])
    return names[0], names[1]


#: The record's event of a game on the server.
EVENT = "PlayStrategy game"


def online_settings(settings: AppSettings, server: str | None) -> AppSettings:
    """``settings`` for a game on ``server``: its records' site and event, and no engine
    help of any kind while it runs (a game far apart's: no hint, analysis or review).
    ``server`` None: a board whose games online come and go (the desk's): no engine help
    for the whole run, the site and event given to each game online's record alone."""
    if server is None:
        return replace(settings, far_apart=True)
    return replace(settings, far_apart=True, site=server, event=EVENT)


class OnlineGame:
    """Game ``game_id`` on the server of ``client``, played on the board by the account
    ``me`` (its id, as ``/api/account`` gives it); see the module. ``backoff``: the waits
    between attempts; ``start``: the threads run at once."""

    def __init__(
        self,
        client: Client,
        game_id: str,
        me: str,
        *,
        rules: Rules = WCDF,
        backoff: Backoff | None = None,
        start: bool = True,
    ) -> None:
        self.client = client
        self.game_id = game_id
        self.me = me.lower()
        self.rules = rules
        self._backoff = backoff or Backoff()
        self._send_backoff = Backoff(self._backoff.first_s, self._backoff.most_s)
        self.app: OnlineBoard | None = None
        #: How it joined the board (an output that polls the server's news), while attached.
        self._joined: Poller | None = None
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._outbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        #: The server's game: ``gameFull`` (players, clock, variant) and the moves it holds.
        self.full: dict[str, Any] | None = None
        self.server_moves: list[Move] = []
        #: The PDN squares of a capture of the board's the server holds half made (the
        #: jumps it took before refusing the next); empty when none.
        self.pending: list[int] = []
        self.status = "created"
        self.winner: str | None = None
        #: Each player's time left on the server's clock (ms), by ``p1``/``p2``.
        self.times: dict[str, int] = {}
        self._draw_flags: dict[str, bool] = {}
        #: The side played at this board (None until ``gameFull`` says).
        self.mine: Color | None = None
        self._sent_ply = 0
        self._shown: Move | None = None
        self._from_server = False
        self._offer_shown = False
        self._tagged = False
        self._timed = 0  # the server's moves whose time the board's clock took
        self._declared = False
        self.connected = False
        #: What was said, in order (the terminal prints it).
        self.said: list[str] = []
        #: The chat lines heard, in order: (who, text).
        self.chat: list[tuple[str, str]] = []
        self.finished = threading.Event()
        self._conn: socket.socket | None = None
        if start:
            self.start()

    # -- threads ------------------------------------------------------------------------

    def start(self) -> None:
        for target, name in ((self._read, "online-read"), (self._write, "online-write")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def _opened(self, sock: socket.socket) -> None:
        self._conn = sock
        if self._stop.is_set():
            self._cut()

    def _cut(self) -> None:
        """The game's stream cut, so that its reader stops at once (not at its timeout)."""
        sock = self._conn
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._stop.set()
        self._cut()
        self._outbox.put(("stop", None))
        for t in self._threads:
            t.join(timeout=5)
        app, self.app = self.app, None
        if app is not None:
            if self._joined is not None:
                app.remove_output(self._joined)
            app.remove_sink(self.hear)

    def _put(self, kind: str, data: Any) -> None:
        self._inbox.put((kind, data))
        app = self.app
        if app is not None:
            app.wake()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                first = True
                for obj in self.client.game_stream(self.game_id, opened=self._opened):
                    if first:
                        first = False
                        self._backoff.reset()
                        self._put("back", None)
                    self._put("data", obj)
                    state = obj.get("state") if obj.get("type") == "gameFull" else obj
                    if isinstance(state, dict) and state.get("status", "started") not in _PLAYING:
                        self.finished.set()  # the stream ends with the game: nothing to retry
                    if self._stop.is_set():
                        return
                if self.finished.is_set():
                    return
                self._put("lost", "the server closed the game's stream")
                wait = self._backoff.next()
            except Refused as exc:
                self._put("fatal", exc.message)
                return
            except RateLimited as exc:
                self._put("lost", str(exc))
                wait = exc.wait_s
            except (Lost, ClientError) as exc:
                self._put("lost", str(exc))
                wait = self._backoff.next()
            if self.finished.is_set():
                return
            self._stop.wait(wait)

    def _write(self) -> None:
        while not self._stop.is_set():
            kind, data = self._outbox.get()
            if kind == "stop":
                return
            if kind == "move":
                ply, ucis = data
                self._send_move(ply, ucis)
            else:
                self._send(
                    lambda: (
                        self.client.command(self.game_id, data)
                        if kind == "cmd"
                        else self.client.chat(self.game_id, data)
                    ),
                    data,
                )

    def _send_move(self, ply: int, ucis: list[str]) -> None:
        for jump, uci in enumerate(ucis):
            # A refusal names the jump: the server keeps the jumps it took before it.
            ok = self._send(lambda u=uci: self.client.move(self.game_id, u), (ply, jump))  # type: ignore[misc]
            if not ok:
                return

    def _send(self, act: Callable[[], Any], what: Any) -> bool:
        """Do ``act`` until the server takes or refuses it; whether it took it."""
        while not self._stop.is_set():
            try:
                act()
                self._send_backoff.reset()
                return True
            except Refused as exc:
                self._put("refused", (what, exc.message))
                return False
            except RateLimited as exc:
                self._put("note", f"PlayStrategy asks to wait {exc.wait_s:.0f} s before the next request")
                self._stop.wait(exc.wait_s)
            except ClientError:
                self._stop.wait(self._send_backoff.next())
        return False

    # -- the application's side ---------------------------------------------------------

    def attach(self, app: OnlineBoard) -> OnlineGame:
        self.app = app
        self._joined = app.add_output(Poller(self.poll))
        app.add_sink(self.hear)
        return self

    @property
    def far(self) -> Color | None:
        return None if self.mine is None else self.mine.opponent

    @property
    def status_line(self) -> str:
        """The opponent, the server's clocks, the status: as the terminal shows them."""
        if self.full is None:
            return f"PlayStrategy game {self.game_id}: connecting"
        parts = []
        for player, color in (("p1", "Black"), ("p2", "White")):
            p = self.full.get(player) or {}
            name = p.get("name") or p.get("id") or "?"
            rating = f" ({p['rating']})" if isinstance(p.get("rating"), int) else ""
            t = self.times.get(player)
            clock = f" {_mmss(t)}" if t is not None and t < 10**9 else ""
            parts.append(f"{color} {name}{rating}{clock}")
        state = "" if self.connected else " [reconnecting]"
        return f"{self.game_id}: " + ", ".join(parts) + f" [{self.status}]{state}"

    def _my_name(self) -> str | None:
        if self.full is None or self.mine is None:
            return None
        p = self.full.get(player_of(self.mine)) or {}
        return str(p.get("name") or p.get("id") or "")[:40]

    @property
    def running(self) -> Color | None:
        """The side whose time runs on the server: the side to move of a game under way,
        once each side made its first move (as on lichess, the clock starts then)."""
        if self.full is None or self.status != "started" or len(self.server_moves) < 2:
            return None
        return BLACK if len(self.server_moves) % 2 == 0 else BLACK.opponent

    def shown_state(self) -> tuple[Any, ...]:
        """What :meth:`page_state` shows, to tell when it changed."""
        times = tuple(sorted(self.times.items()))
        return (self.status, len(self.server_moves), times, len(self.chat), self.connected, self.mine)

    def page_state(self) -> dict[str, Any]:
        """The game as the page shows it: the players and ratings, the server's clocks as
        its last message gave them (``running``'s runs since), the status, the chat."""
        players: dict[str, Any] = {}
        for player, color in (("p1", "black"), ("p2", "white")):
            p = (self.full or {}).get(player) or {}
            rating = p.get("rating")
            players[color] = {
                "name": str(p.get("name") or p.get("id") or "?")[:40],
                "rating": rating if isinstance(rating, int) else None,
                "ms": self.times.get(player),
            }
        running = self.running
        return {
            "id": self.game_id,
            "mine": None if self.mine is None else self.mine.name.lower(),
            "black": players["black"],
            "white": players["white"],
            "running": None if running is None else running.name.lower(),
            "status": self.status,
            "connected": self.connected,
            "moves": len(self.server_moves),
            "chat": [{"user": who, "text": text} for who, text in self.chat[-20:]],
        }

    def _note(self, now: int, text: str, out: list[Event]) -> None:
        self.said.append(text)
        out.append(Notice(now, text))
        if self.app is not None:
            self.app.say(text)

    def poll(self, now: int) -> list[Event]:
        out: list[Event] = []
        while True:
            try:
                kind, data = self._inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "data":
                self._heard(now, data, out)
            elif kind == "back":
                if not self.connected and self.full is not None:
                    self._note(now, "PlayStrategy is back: the game goes on from the server's state", out)
                self.connected = True
            elif kind == "lost":
                if self.connected:
                    self._note(now, f"PlayStrategy out of reach ({data}): trying again", out)
                self.connected = False
            elif kind == "refused":
                self._refused(now, data, out)
            elif kind == "fatal":
                self._note(now, f"PlayStrategy: {data}", out)
                self.finished.set()
            elif kind == "note":
                self._note(now, str(data), out)
        self._sync(now, out)
        return out

    def _heard(self, now: int, data: Mapping[str, Any], out: list[Event]) -> None:
        kind = data.get("type")
        before = (len(self.server_moves), self.status)
        if kind == "gameFull":
            self._full(now, data, out)
            state = data.get("state")
            if isinstance(state, dict):
                self._state(now, state, out)
            self._note(now, self.status_line, out)  # the players, ratings and clocks
        elif kind == "gameState":
            self._state(now, data, out)
            if (len(self.server_moves), self.status) != before:
                self._note(now, self.status_line, out)  # the server's clocks after each move
        elif kind == "chatLine":
            who, text = str(data.get("username", "?"))[:40], str(data.get("text", ""))[:140]
            self.chat.append((who, text))
            line = f"chat {who}: {text}"
            self.said.append(line)
            if who == self._my_name():
                out.append(Notice(now, line))  # the board's own line, come back: not said again
            else:
                # An alert: on the message line, the display and the pages, and spoken.
                out.append(Alert(now, code="chat", message=line))
        elif kind == "opponentGone":
            if data.get("gone"):
                self._note(now, "the opponent has left the game (they may come back)", out)

    def _full(self, now: int, full: Mapping[str, Any], out: list[Event]) -> None:
        self.full = dict(full)
        variant = full.get("variant")
        key = variant.get("key") if isinstance(variant, dict) else variant
        try:
            check_variant(key)
        except ValueError as exc:
            self._note(now, f"PlayStrategy game {self.game_id}: {exc}", out)
            self.finished.set()
            return
        ids = {p: str((full.get(p) or {}).get("id", "")).lower() for p in ("p1", "p2")}
        player = "p1" if ids["p1"] == self.me else "p2" if ids["p2"] == self.me else None
        if player is None:
            self._note(now, f"PlayStrategy game {self.game_id} is not this account's", out)
            self.finished.set()
            return
        first = self.mine is None
        self.mine = color_of(player)
        app = self.app
        if app is None or not first:
            return
        far = self.mine.opponent
        # A game not begun (or a new one being set up, the last one's pieces making way).
        fresh = (app.game.ply == 0 or app.setting_up is not None) and not app.resuming
        if fresh:  # the record of the game about to begin is the server's game's
            app.settings = replace(app.settings, site=self.client.server, event=EVENT)
        tags = game_tags(full)
        # First: a new time control sets the new game up (and names its seats afresh),
        # its record tagged as the server's game.
        timed = fresh and self._clock_for(full, tags, now, out)
        app.hold(far, BY)
        black, white = player_names(full)
        app.set_player_names(black, white, now)
        if fresh and not timed:
            out += app.new_game(Position.start(self.rules), now, tags=tags)
        opp = full.get(player_of(far)) or {}
        rating = f" ({opp['rating']})" if isinstance(opp.get("rating"), int) else ""
        self._note(now, f"PlayStrategy: you play {self.mine.name.title()} against {opp.get('name', '?')}{rating}", out)

    def _clock_for(self, full: Mapping[str, Any], tags: Mapping[str, str], now: int, out: list[Event]) -> bool:
        """The board's game clock under the server's time control: the display, the
        page, the terminal and the voice show and say it as any game's clock. Whether a
        new game was set up for it (its record given ``tags``)."""
        app = self.app
        control = time_control(full)
        if app is None or control is None or str(app.settings.clock) == str(control):
            return False
        try:
            out += app.new_game_with(replace(app.settings, clock=control), now, tags=tags)
        except ValueError as exc:
            self._note(now, f"the board's clock cannot take the server's {control}: {exc}", out)
            return False
        return True

    def _time(self, before: Mapping[str, int]) -> None:
        """The server's clock on the board's: each side's time left after its move is the
        server's (told before the move is made here, or agreed once it was), and every
        flag is the server's to call (the board's falls for no one)."""
        app = self.app
        timer = app.board_clock if app is not None else None
        if app is None or timer is None or self.full is None:
            return
        timer.called_elsewhere = frozenset({BLACK, BLACK.opponent})
        ply = len(self.server_moves)
        if ply <= self._timed or self.pending:
            return
        self._timed = ply
        side = BLACK if ply % 2 else BLACK.opponent  # from the start: Black made ply 1
        left = self.times.get(player_of(side))
        if left is None:
            return
        clock = self.full.get("clock") or {}
        increment = int(clock.get("increment", 0)) if isinstance(clock, dict) else 0
        used = max(0, before.get(player_of(side), left) + increment - left)
        if ply > app.game.ply:
            timer.tell(side, ply, left, used)  # taken when the move is made here
        elif timer.clock.running is not side and not timer.clock.stopped:
            timer.clock.agree(side, left)

    def _state(self, now: int, state: Mapping[str, Any], out: list[Event]) -> None:
        moves = str(state.get("moves", "")).split()
        try:
            # A capture the board is sending jump by jump counts once it is whole.
            self.server_moves, self.pending = split_server_moves(moves, self.rules)
        except NotationError as exc:
            self._note(now, f"PlayStrategy sent a move the board cannot read: {exc}", out)
        self.status = str(state.get("status", self.status))
        winner = state.get("winner")
        self.winner = winner if winner in ("p1", "p2") else None
        before = dict(self.times)
        for key, player in (("wtime", "p1"), ("btime", "p2")):
            if isinstance(state.get(key), int):
                self.times[player] = state[key]
        self._time(before)
        for key, player in (("wdraw", "p1"), ("bdraw", "p2")):
            self._draw_flags[player] = bool(state.get(key))
        if self.status not in _PLAYING:
            self.finished.set()

    def _refused(self, now: int, data: tuple[Any, str], out: list[Event]) -> None:
        what, words = data
        app = self.app
        if isinstance(what, tuple) and app is not None:
            ply, jump = what
            self._sent_ply = min(self._sent_ply, ply - 1)
            moves = app.game.moves
            text = moves[ply - 1].pdn(full=True) if len(moves) >= ply else "the move"
            if jump:
                # The server keeps the jumps it took (it checks each as it comes): the
                # board goes back to the position before the capture, and the capture made
                # again sends only the jumps the server still needs (hear).
                taken = "its first jump" if jump == 1 else f"its first {jump} jumps"
                self._note(
                    now,
                    f"PlayStrategy took {taken} of {text} and refused the next: {words}; "
                    "put the pieces back as the lights show, then make the capture again",
                    out,
                )
            else:
                self._note(now, f"PlayStrategy refused {text}: {words}; put it back as the lights show", out)
            if app.game.ply == ply and not app.game.is_over:
                out += app.take_back(now)
        else:
            self._note(now, f"PlayStrategy refused {what}: {words}", out)

    def _sync(self, now: int, out: list[Event]) -> None:
        """Light the server's next move, take back what it does not hold, end the game
        as it ended there."""
        app = self.app
        if app is None or self.mine is None or app.resuming or app.setting_up is not None:
            return
        game = app.game
        ours, theirs = list(game.moves), self.server_moves
        same = 0
        while same < min(len(ours), len(theirs)) and ours[same] == theirs[same]:
            same += 1
        if same < len(ours) and same < len(theirs):
            if not game.is_over:
                self._note(now, f"the board differs from PlayStrategy's game at ply {same + 1}: taking back", out)
                out += app.take_back(now)
            return
        want = theirs[len(ours)] if len(theirs) > len(ours) and not game.is_over else None
        if want is not None and app.expected != want:
            try:
                app.show_move(want)
                self._shown = want
            except ValueError:
                self._note(now, f"PlayStrategy's move {want.pdn(full=True)} is not legal on the board here", out)
        elif want is None and self._shown is not None:
            if app.expected == self._shown:
                app.show_move(None)
            self._shown = None
        far = self.far
        assert far is not None
        offered = self._draw_flags.get(player_of(far), False)
        if offered and not self._offer_shown and not game.is_over and len(ours) == len(theirs):
            self._offer_shown = True
            self._from_server = True
            try:
                out += app.offer_draw(far, now)
            finally:
                self._from_server = False
        elif not offered:
            self._offer_shown = False
        if self.status not in _PLAYING and not game.is_over and len(ours) == len(theirs) and not self._declared:
            self._declared = True
            score = "1/2-1/2" if self.winner is None else ("1-0" if color_of(self.winner) is BLACK else "0-1")
            reason = RESULTS.get(self.status, self.status)
            self._from_server = True
            try:
                out += app.declare(score, reason, now)
            finally:
                self._from_server = False
            self._note(now, f"PlayStrategy: the game is over ({self.status}, {score})", out)

    def hear(self, event: Event) -> None:
        """The board's events: its moves, offers and resignation go to the server."""
        app = self.app
        mine = self.mine
        if app is None or mine is None or self._from_server:
            return
        if app.record_tags().get("GameId") != self.game_id:
            return  # the board's own game (one ending as this one is joined), not the server's
        side = Side.of(mine)
        if isinstance(event, MoveMade) and event.side == side:
            moves = app.game.moves
            if event.ply > len(self.server_moves) and event.ply > self._sent_ply and len(moves) >= event.ply:
                self._sent_ply = event.ply
                self._outbox.put(("move", (event.ply, self._still_to_send(moves[event.ply - 1]))))
        elif isinstance(event, TakenBack):
            if event.ply <= len(self.server_moves):
                self.said.append("PlayStrategy's Board API has no takeback: the lights put the move back")
        elif isinstance(event, DrawLapsed) and event.side is not None and event.side != side:
            if not self.finished.is_set():
                self._outbox.put(("cmd", "draw/no"))  # the opponent's offer declined by a move
        elif isinstance(event, DrawOffer) and event.side == side:
            self._outbox.put(("cmd", "draw/yes"))
        elif isinstance(event, GameOver) and not self.finished.is_set():
            if event.reason == "resign":
                self._outbox.put(("cmd", "resign"))
            elif event.reason == "agreement":
                self._outbox.put(("cmd", "draw/yes"))

    def _still_to_send(self, move: Move) -> list[str]:
        """``move``'s jumps the server has not taken yet: all of them, but those of a
        capture it holds half made along the same path (a later jump refused)."""
        ucis = to_server(move)
        held = self.pending
        if len(held) > 1 and list(move.path[: len(held)]) == held:
            return ucis[len(held) - 1 :]
        return ucis

    def send_chat(self, text: str) -> None:
        """A chat line typed here (none is ever sent otherwise)."""
        self._outbox.put(("chat", text))

    def abort(self) -> None:
        self._outbox.put(("cmd", "abort"))


def _mmss(ms: int) -> str:
    s = max(0, ms) // 1000
    return f"{s // 60}:{s % 60:02d}"


if TYPE_CHECKING:

    def _the_application_is_one(app: App) -> OnlineBoard:
        return app  # mypy: the application has everything a game on the server uses
