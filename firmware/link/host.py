"""The serial link to a host computer: live relay, remote control, a distant player.

A :class:`Link` sits beside the :class:`~firmware.app.application.App`: the app polls it once per
loop iteration (:meth:`Link.poll`, a *source*) and gives it every event (:meth:`Link.sink`).
On the wire (``docs/protocol.md``) it speaks lines of at most 1 KiB:

* board to host: every event the board reports, as the JSON objects ``crownhead replay``
  prints (move, warning, crown, takeback, game-over, ...), a ``hello`` whenever the link
  (re)starts, and one reply per command;
* host to board: short text commands (``fen``, ``play 11-15``, ``new``, ...), each
  answered by exactly one ``reply`` or ``error`` line, or, from a second board, that
  board's own event lines.

Two boards, one game
--------------------
With ``[link] plays = "black"`` the people at this board play Black; White is played at
the other end of the link: a host sending ``play MOVE``, or another board whose people
play White. Each board sends its events; each follows the other's
(:mod:`firmware.link.peer`): a move of the other side is shown on the LEDs (the
tracker's ``expect``) for the local player to make, and the board accepts no other move
for that side (the application holds it: :meth:`firmware.app.application.App.hold`), in every mode.

Bad input changes nothing: every rejected line gets one ``error`` reply (never a reply
to another board's event line, so two boards cannot ping-pong), at most
``lines_per_step`` lines are handled per loop iteration, and no command names a file or
runs anything: the only file the link causes to be written is the game record.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from firmware.events import Event, GameOver, MoveMade, NewGame, Notice, TakenBack
from firmware.link.board import LinkedBoard, SimHands
from firmware.link.protocol import (
    COMMANDS,
    button_names,
    MAX_LINE,
    PROTOCOL_VERSION,
    Command,
    LinkError,
    PeerMessage,
    encode_event,
    encode_message,
    fits,
    parse_line,
)
from firmware.link.peer import GameId, PeerFollower
from firmware.link.policy import LinkPolicy
from firmware.link.settings import LinkConfig
from firmware.link.transport import LineTransport, Transport
from hal.clock import Clock
from rules import BLACK, WHITE, Color, Game, Move, Position
from rules.ballots import ballot as acf_ballot
from rules.pdn import explain_illegal, move_text, write_game
from rules.position import parse_move_squares
from rules.variants import numeric_fen


__all__ = ["CONTROL_COMMANDS", "DISPLAY_COMMANDS", "Link", "GameId", "open_link", "help_page", "display_reply"]

log = logging.getLogger(__name__)

#: Who makes the held side's moves, as the board's warnings name it.
LINK_END = "the other end of the link"
#: Real time a loop iteration may spend on received lines (besides the line budget).
BUDGET_S = 0.02
_FEN_CHARS = re.compile(r"[0-9A-Za-z:,.\-]{3,200}")


@cache
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("crownhead")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "unknown"


def _side(color: Color) -> str:
    return "black" if color is BLACK else "white"


def _move_json(game: Game, ply: int) -> dict[str, Any]:
    """The ``move`` object of ply ``ply`` (1-based) of ``game``, as the tracker reports it."""
    move = game.moves[ply - 1]
    before = game.positions[ply - 1]
    return {
        "ply": ply,
        "side": _side(before.turn),
        "move": move_text(before, move, game.rules, numbers=True),
        "path": list(move.path),
        "captures": list(move.captures),
    }


def _fitted(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` (a hello) with the players' names shortened until it fits one line.

    Only extreme cases need it (40 four-byte characters per name and a position of 32
    kings); the names are whole in the game record.
    """
    while not fits(message) and (message.get("black") or message.get("white")):
        for side in ("black", "white"):
            message[side] = message[side][: max(len(message[side]) - 8, 0)]
    _fit_match(message, message.get("state"))
    return message


def _fit_match(message: dict[str, Any], state: Mapping[str, Any] | None) -> None:
    """The match players' names in ``state`` shortened until ``message`` fits one line
    (a long match id, four-byte characters and a position of 32 kings need it)."""
    match = state.get("match") if state is not None else None
    while match and not fits(message) and any(match["players"]):
        match["players"] = [name[: max(len(name) - 8, 0)] for name in match["players"]]


class Link(PeerFollower):
    """The board's end of the link, around a started :class:`~firmware.link.transport.LineTransport`.

    Give it to the app with :meth:`attach` before ``app.start()``; :meth:`close` after
    ``app.close()``.
    """

    def __init__(
        self, transport: Transport, settings: LinkConfig = LinkConfig(), policy: LinkPolicy | None = None
    ) -> None:
        self.transport = transport
        self.settings = settings
        #: What the other end may do and where the view goes (see :mod:`firmware.link.policy`).
        self.policy = policy or LinkPolicy()
        self.plays = settings.plays
        self.control = settings.control
        self.lines_per_step = settings.lines_per_step
        self.app: LinkedBoard | None = None
        #: The simulator's hands at the board, for ``touch``, ``hands`` and ``follow``
        #: (given by whoever opens the link on a simulated board; None: no hands).
        self.hands: SimHands | None = None
        self.game_id = GameId.new(0)
        self._serial_seen = 0
        self._following: tuple[GameId, str] | None = None
        # What is known of the other board's game, by ply: its moves (both sides').
        self._peer_moves: dict[int, Move] = {}
        self._peer_ply = 0
        self._peer_result: tuple[str, str, int] | None = None
        self._peer_plays: str | None = None
        # The game the other board last said it plays: its moves count only when it is ours.
        self._peer_game: GameId | None = None
        # The game the link has seen begin (NewGame, resume); it acts on no other.
        self._seen_game: Game | None = None
        # Moves a host asked for with `play`, by ply; the ballot being played.
        self._host_moves: dict[int, Move] = {}
        self._ballot: tuple[int, tuple[Move, ...]] | None = None
        # The expectation the link set on the tracker: (ply, move, source).
        self._expect: tuple[int, Move, str] | None = None
        self._events: list[Event] = []
        self._said: set[str] = set()
        self._pdn_cache: tuple[object, str] | None = None
        self._greeting: str | None = None
        #: ``watch on``: a ``view`` event whenever what the board shows changes.
        self.watching = False
        self._view_sent: dict[str, Any] | None = None
        self._view_seen: tuple[Any, ...] | None = None
        # Bumped by every event and every command that may change the board: what it
        # shows may have changed (see _view_key); by every display command (only the
        # fields they set may have changed: see _send_view).
        self._stir = 0
        self._display_stir = 0
        self._view_body_sent: dict[str, Any] | None = None
        #: Counters, for status and tests.
        self.commands = 0
        self.errors = 0
        self.peer_lines = 0

    # -- wiring ------------------------------------------------------------------------

    @property
    def remote(self) -> Color | None:
        """The side played over the link, or None when the people here play both."""
        if self.plays == "black":
            return WHITE
        if self.plays == "white":
            return BLACK
        return None

    @property
    def linked(self) -> bool:
        return self.remote is not None

    def attach(self, app: LinkedBoard) -> None:
        """Join ``app``: become one of its sources and one of its sinks."""
        self.app = app
        app.sources.append(self.poll)
        app.add_sink(self.sink)
        if self.remote is not None:
            # The other side's moves are made there: only those the link shows are
            # accepted here, whatever the mode (a referee takes no move back).
            app.hold(self.remote, LINK_END)
        if app.started and not app.resuming:
            self._seen_game = app.game

    def close(self) -> None:
        self.transport.close()

    # -- the app's hooks ---------------------------------------------------------------

    def poll(self, now: int) -> list[Event]:
        """One loop iteration: greet a fresh link, keep the game in step, handle a few lines."""
        if self.app is None:
            return []
        app = self.app
        fresh = self.transport.take_fresh() or self._greeting
        if (
            fresh is not None
            and self._greeting is None
            and self._seen_game is None
            and not app.resuming
            and app.setting_up is None
        ):
            # The first game begins in this very iteration: greet with it, one iteration on.
            self._greeting, fresh = fresh, None
        else:
            self._greeting = None
        if fresh is not None:
            first = []
            if fresh == "overrun":
                first.append(
                    self._encode(
                        {
                            "t": now,
                            "event": "overrun",
                            "message": "the host did not read in time: lines were dropped; the state follows",
                        }
                    )
                )
            first.append(self._encode(self._hello(now, fresh)))
            self.transport.resume(*first)
        self._sync(now)
        # At most lines_per_step lines, and no more than BUDGET_S of work, per iteration:
        # whatever a host sends, the board's loop (switches, timers, lights) goes on.
        started = time.perf_counter()
        for _ in range(self.lines_per_step):
            if time.perf_counter() - started > BUDGET_S:
                break
            items = self.transport.receive(1)
            if not items:
                break
            self._line(items[0], now)
            self._sync(now)
        if self.watching and self.transport.connected:
            self._send_view(now)
        events, self._events = self._events, []
        return events

    def sink(self, event: Event) -> None:
        """Every event of the board: sent to the other end, and followed for the game's sake."""
        if self.app is None:
            return
        self._stir += 1
        if isinstance(event, MoveMade):
            self._on_move(event)
        elif isinstance(event, TakenBack):
            for ply in [p for p in self._host_moves if p >= event.ply]:
                del self._host_moves[ply]
        try:
            line = encode_event(event)
        except ValueError as exc:
            log.error("link: cannot send %s: %s", event.kind, exc)
        else:
            self.policy.send_event(self.transport, event, line)
        if isinstance(event, NewGame):
            self._on_new_game(event)
        elif event.kind == "game-start":
            self._seen_game = self.app.game  # a resumed game is the same game

    # -- sending -----------------------------------------------------------------------

    def _encode(self, obj: Mapping[str, Any]) -> bytes:
        return encode_message(obj)

    def _send(self, obj: Mapping[str, Any]) -> None:
        try:
            line = encode_message(obj)
        except (TypeError, ValueError) as exc:
            log.error("link: cannot send %s: %s", obj.get("event"), exc)
            return
        self.transport.send(line)

    def _notice(self, now: int, key: str, message: str) -> None:
        """Tell the people (and the host) once per situation ``key``."""
        if key in self._said:
            return
        self._said.add(key)
        log.warning("link: %s", message)
        self._events.append(Notice(now, message))

    # -- what the board says about itself ----------------------------------------------

    def _game(self) -> Game:
        assert self.app is not None
        return self.app.game

    def _setting_up(self) -> Position | None:
        """The position of a new game being set up (not a resumed one), or None."""
        assert self.app is not None
        return self.app.setting_up

    def _state(self) -> dict[str, Any]:
        assert self.app is not None
        game = self._game()
        setup = self._setting_up()
        result = game.result
        expected = self.app.expected
        state: dict[str, Any] = {
            "game": str(self.game_id),
            "start": (setup or game.start).fen(),
            "fen": (setup or game.position).fen(),
            "ply": 0 if setup is not None else game.ply,
            "turn": _side((setup or game.position).turn),
            "last": _move_json(game, game.ply) if game.ply and setup is None else None,
            "result": result.score if result is not None and setup is None else None,
            "reason": result.reason if result is not None and setup is None else None,
            "setup": setup is not None or self.app.resuming,
            "waiting": expected.pdn(full=True) if expected is not None else None,
            "match": self.app.matches.link_state(),
        }
        # Sent on its own too (a state event): it must fit one line without the hello.
        _fit_match({"t": 10**12, "event": "state", "cause": "new-game", **state}, state)
        return state

    def _identity(self) -> dict[str, Any]:
        assert self.app is not None
        app = self.app
        rules = self._game().rules
        return {
            "protocol": PROTOCOL_VERSION,
            "version": _version(),
            "plays": self.plays,
            "mode": app.mode.tracker_mode,
            "app": app.mode.name,
            "hints": app.policy.settings.hints,
            "control": self.control,
            "variant": rules.variant,
            "rules": rules.describe(),
            "black": app.players[BLACK].name,
            "white": app.players[WHITE].name,
            "max_line": MAX_LINE,
            "buttons": list(button_names()),
        }

    def _hello(self, now: int, cause: str) -> dict[str, Any]:
        return _fitted({"t": now, "event": "hello", "cause": cause, **self._identity(), "state": self._state()})

    def view(self, now: int) -> dict[str, Any]:
        """What the board shows now (the ``view`` event and reply, without ``t``/``event``).

        ``board``: 32 characters, square 1 first, what stands on the board (``b``, ``w``,
        ``B``, ``W``, ``.`` for empty; ``?`` a piece the simulated hands put down that
        the game does not know); ``roles``: each lit LED role with its squares;
        ``target``: the position to set up (a new game, a resumed one), else null;
        ``clock``: each side's time left in ms and the side whose clock runs, or null.
        """
        return self._fit_view(now, self._view_body(now))[0]

    def _view_body(self, now: int) -> dict[str, Any]:
        """The view's fields, before they are fitted to one line."""
        assert self.app is not None
        app = self.app
        v = app.view()
        board = "".join(v.pieces.get(square, ".")[:1] or "." for square in range(1, 33))
        roles: dict[str, list[int]] = {}
        for square, role in sorted(app.lit_roles.items()):
            roles.setdefault(role, []).append(square)
        target: str | None = None
        if app.resuming:
            target = app.game.position.fen()
        elif app.setting_up is not None:
            target = app.setting_up.fen()
        body: dict[str, Any] = {
            "board": board,
            "roles": roles,
            "blink": sorted(v.blinking),
            "hand": "".join(t[:1] for t in v.hand),
            "ply": app.game.ply,
            "target": target,
            "status": v.status,
            "prompt": v.prompt,
            "warning": v.warning,
            "message": v.message,
            "mode": v.mode_text,
            "names": [app.players[BLACK].name, app.players[WHITE].name],
            "clock": self._clock_view(now),
            "cautions": app.cautions(),
            "match": v.match,
            "sim": app.simulated() is not None,
            "hints": app.policy.settings.hints,
            "resuming": app.resuming,
            # A game far apart waiting for the broker or the other board ("" if not).
            "away": v.away,
            **self._display_fields(),
        }
        body["controls"] = self._controls(body["clock"] is not None)
        return body

    def _controls(self, clock: bool) -> list[str]:
        """The board's buttons that do something in this game (a page shows those only):
        no hint or takeback under a referee, ``force`` only under huffing, ``clock`` only
        with a game clock."""
        assert self.app is not None
        app = self.app
        wanted = {
            "hint": not app.mode.referee_lights,
            "takeback": app.mode.takeback,
            "adjust": True,
            "claim": True,
            "force": app.game.rules.huffing,
            "clock": clock,
        }
        return [name for name, useful in wanted.items() if useful]

    def _display_fields(self) -> dict[str, Any]:
        """The view's fields that the :data:`DISPLAY_COMMANDS` set."""
        assert self.app is not None
        return {"brightness": round(self.app.policy.settings.brightness * 100)}

    def _clock_view(self, now: int) -> dict[str, Any] | None:
        """The game clock, the referee's or the board's (``--clock``): "running" is None
        while it waits for the first lift or is paused ("paused" says which)."""
        assert self.app is not None
        state = self.app.clock_state(now)
        if state is None:
            return None
        black, white, running, paused, _flag = state
        return {
            "black": black,
            "white": white,
            "running": running if running and not paused else None,
            "paused": paused,
            "side": running or None,
        }

    def _fit_view(self, now: int, body: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
        """``body`` with its texts shortened until the ``view`` event fits one line (they
        give way first in an extreme case), and that event's line, encoded once (None if
        it does not fit even so)."""
        for key in ("message", "prompt", "warning", "match", "status", None):
            try:
                return body, encode_message({"t": now, "event": "view", **body})
            except ValueError:
                if key is None:
                    return body, None
                body[key] = body[key][:60]
        return body, None

    def _view_key(self, now: int) -> tuple[Any, ...]:
        """Changes whenever what the board shows may have changed: the roles lit (compared
        by content: a frame that only changes the colours, as a new brightness does, lights
        the same roles), an event or a command that may change the board, the simulated
        board and hand, the message, the game, a warning, the machine thinking; and once a
        second (what others change: names, settings)."""
        assert self.app is not None
        app = self.app
        sim = app.simulated()
        game = app.game
        return (
            self._display_stir,
            app.lit_roles,
            self._stir,
            app.message,
            app.resuming,
            id(game),
            game.ply,
            app.warning,
            app.setting_up is not None,
            app.expected,
            (len(sim[0]), len(sim[1]), sim[1][-1] if sim[1] else None) if sim is not None else None,
            app.thinking,
            now // 1000,
        )

    def _send_view(self, now: int) -> None:
        if self.policy.view_resent():
            self._view_sent = None
        with self.policy.viewing():
            self._send_view_now(now)

    def _send_view_now(self, now: int) -> None:
        # Cheap to tell, dear to draw: the view is described only when it may differ.
        key = self._view_key(now)
        seen, self._view_seen = self._view_seen, key
        if key == seen and self._view_sent is not None:
            return
        try:
            last = self._view_body_sent
            if last is not None and seen is not None and key[1:] == seen[1:]:
                # Only display commands since the last view (in the same second): it
                # stands but for what they set (and the clock, as it is now).
                body = {**last, **self._display_fields(), "clock": self._clock_view(now)}
            else:
                body = self._view_body(now)
            body, line = self._fit_view(now, body)
        except Exception:  # a view that cannot be drawn must not stop the loop
            log.exception("link: cannot describe the board")
            self._view_body_sent = None
            return
        self._view_body_sent = body
        # The clocks tick on the page from a start time; a change of the running side or
        # a jump in time left resends, a mere tick does not.
        shown = dict(body)
        clock = shown.pop("clock")
        if clock is not None:
            shown["clock"] = (
                clock["running"],
                clock["black"] // 1000 if clock["running"] != "black" else None,
                clock["white"] // 1000 if clock["running"] != "white" else None,
            )
        if shown == self._view_sent:
            return
        self._view_sent = shown
        if line is None:
            log.error("link: cannot send the view: longer than a line may be")
            return
        self.policy.send_view(self.transport, now, body, line)

    # -- received lines ----------------------------------------------------------------

    def _line(self, item: bytes | LinkError | Command, now: int) -> None:
        try:
            self._take_line(item, now)
        finally:
            self.policy.line_done()

    def _take_line(self, item: bytes | LinkError | Command, now: int) -> None:
        try:
            if isinstance(item, LinkError):
                raise item
            # A transport may hand over a line already parsed (the web's, in its own thread).
            message = item if isinstance(item, Command) else parse_line(item)
            if message is None:
                return
            if isinstance(message, PeerMessage) and self.policy.peer_refusal is not None:
                raise LinkError("unknown-command", self.policy.peer_refusal)
            if isinstance(message, PeerMessage):
                self.peer_lines += 1
                if not self.control:
                    # Another board's lines change the game here (its moves, its result,
                    # its new game): a read-only link changes nothing, by any line.
                    self._notice(
                        now,
                        "peer-read-only",
                        "the other end sends a board's events, which this read-only link ignores (link.control = false)",
                    )
                    return
                try:
                    self._peer(message.data, now)
                except Exception:  # another board's odd line must never stop this one
                    log.exception("link: could not follow the other board's %s", message.kind)
                return
            self.commands += 1
            # Refused or not, the view is looked at again (cheap: see _send_view).
            if message.name in DISPLAY_COMMANDS:
                self._display_stir += 1
            elif message.name in CONTROL_COMMANDS:
                self._stir += 1
            reply = self._command(message, now)
            line = encode_message(reply)
        except LinkError as exc:
            self.errors += 1
            self._send(exc.reply(now))
            return
        except Exception as exc:  # a bug must cost one reply, not the board
            log.exception("link: command failed")
            self.errors += 1
            self._send(LinkError("internal", f"the board could not handle this line ({type(exc).__name__})").reply(now))
            return
        self.transport.send(line)

    def _command(self, command: Command, now: int) -> dict[str, Any]:
        name = command.name
        refusal = self.policy.refuse(command)
        if refusal is not None:
            raise refusal
        try:
            if name in CONTROL_COMMANDS and not self.control:
                raise LinkError(
                    "read-only", f"{name} is not allowed: this link is read-only (link.control = false)", name
                )
            body: dict[str, Any] = getattr(self, f"_cmd_{name}")(now, *command.args)
        except LinkError as exc:
            self.policy.answered(command, exc, now)
            raise
        except Exception:
            self.policy.answered(command, None, now)
            raise
        reply = {"t": now, "event": "reply", "cmd": name, "ok": True, **body}
        self.policy.answered(command, reply, now)
        return reply

    def carry_out(self, command: Command, now: int) -> dict[str, Any]:
        """Carry out a display command answered already elsewhere (the pages' server
        answers ``brightness`` in its own thread): as the link would, without a reply."""
        if command.name not in DISPLAY_COMMANDS:
            raise ValueError(f"{command.name} is not a display command")
        self._display_stir += 1
        body: dict[str, Any] = getattr(self, f"_cmd_{command.name}")(now, *command.args)
        return body

    @property
    def idle(self) -> bool:
        """Whether the last poll left nothing for the link: no greeting, no event to
        hand over, no game to keep in step."""
        return not self._events and self._greeting is None and not self._wants_sync()

    @property
    def greeting_due(self) -> bool:
        """Whether the next poll has a greeting or events to hand over."""
        return self._greeting is not None or bool(self._events)

    @property
    def changes(self) -> int:
        """A count of the events and commands that may have changed what the board shows."""
        return self._stir

    def identity(self) -> dict[str, Any]:
        """The board's identity as ``hello`` gives it (version, rules, names, buttons)."""
        return self._identity()

    def state(self) -> dict[str, Any]:
        """The game's state as ``hello`` gives it."""
        return self._state()

    def _wants_sync(self) -> bool:
        return bool(self._host_moves or self._peer_moves or self._ballot or self._expect or self._peer_result)

    # -- queries -----------------------------------------------------------------------

    def _cmd_hello(self, now: int) -> dict[str, Any]:
        body = _fitted(
            {"t": now, "event": "reply", "cmd": "hello", "ok": True, **self._identity(), "state": self._state()}
        )
        return {k: v for k, v in body.items() if k not in ("t", "event", "cmd", "ok")}

    def _cmd_help(self, now: int, start: int = 0) -> dict[str, Any]:
        return help_page(start)

    def _cmd_fen(self, now: int) -> dict[str, Any]:
        game = self._game()
        setup = self._setting_up()
        return {
            "fen": game.position.fen(),
            "ply": game.ply,
            "turn": _side(game.turn),
            "setup": setup.fen() if setup is not None else None,
        }

    def _cmd_moves(self, now: int) -> dict[str, Any]:
        game = self._game()
        position = game.position
        moves: list[str] = []
        if not game.is_over and self._setting_up() is None:
            moves = [move_text(position, m, game.rules, numbers=True) for m in game.legal_moves()]
        body: dict[str, Any] = {"turn": _side(game.turn), "moves": moves, "complete": True}
        while moves and not fits({"t": now, "event": "reply", "cmd": "moves", "ok": True, **body}):
            moves.pop()
            body["complete"] = False
        return body

    def _pdn_text(self) -> str:
        """The game as PDN (kept while the game and its tags stay the same: a host reads
        a long game in several pieces)."""
        assert self.app is not None
        game = self._game()
        tags = {k: v for k, v in self.app.record_tags().items() if k not in ("Result", "SetUp", "FEN")}
        key = (id(game), game.ply, game.moves[-1] if game.moves else None, game.result, tuple(tags.items()))
        if self._pdn_cache is None or self._pdn_cache[0] != key:
            self._pdn_cache = (key, write_game(game, tags))
        return self._pdn_cache[1]

    def _cmd_pdn(self, now: int, offset: int) -> dict[str, Any]:
        text = self._pdn_text()
        size = len(text)
        if offset > size:
            raise LinkError("bad-argument", f"offset {offset} is past the end of the PDN ({size} characters)", "pdn")
        head = {
            "t": now,
            "event": "reply",
            "cmd": "pdn",
            "ok": True,
            "ply": self._game().ply,
            "offset": offset,
            "size": size,
            "next": size,
        }

        def body(n: int) -> dict[str, Any]:
            end = offset + n
            return {**head, "next": end if end < size else None, "pdn": text[offset:end]}

        # The longest piece that fits one line: the room left beside the other fields
        # ("next" may grow from null to a number), searched for at its escaped size.
        room = MAX_LINE - len(encode_message({**head, "next": None, "pdn": ""})) - max(len(str(size)) - 4, 0)

        def escaped(n: int) -> int:
            return len(json.dumps(text[offset : offset + n], ensure_ascii=False).encode("utf-8")) - 2

        lo, hi = 0, min(size - offset, room)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if escaped(mid) <= room:
                lo = mid
            else:
                hi = mid - 1
        reply = body(lo)
        del reply["t"], reply["event"], reply["cmd"], reply["ok"]
        return reply

    def _cmd_history(self, now: int, start: int) -> dict[str, Any]:
        game = self._game()
        setup = self._setting_up()
        if setup is not None:
            game = Game(setup, game.rules)
        if start > game.ply:
            raise LinkError("bad-argument", f"ply {start} is past the game's {game.ply} moves", "history")
        body: dict[str, Any] = {"start": game.start.fen(), "from": start, "ply": game.ply, "moves": [], "next": None}
        for index in range(start, game.ply):
            body["moves"].append(move_text(game.positions[index], game.moves[index], game.rules, numbers=True))
            if not fits({"t": now, "event": "reply", "cmd": "history", "ok": True, **body}):
                body["moves"].pop()
                body["next"] = index
                break
        return body

    def _cmd_view(self, now: int) -> dict[str, Any]:
        return self.view(now)

    def _cmd_watch(self, now: int, state: str) -> dict[str, Any]:
        if not self.policy.may_stop_watching:
            return {"watching": True}
        self.watching = state == "on"
        self._view_sent = None
        return {"watching": self.watching}

    # -- the board's buttons and the simulated hands -----------------------------------

    def _cmd_press(self, now: int, button: str, long: bool) -> dict[str, Any]:
        assert self.app is not None
        self.app.press(button, now, long=long)
        return {"button": button, "long": long}

    def _cmd_brightness(self, now: int, percent: int) -> dict[str, Any]:
        assert self.app is not None
        self.app.set_brightness(percent / 100)
        return display_reply("brightness", (percent,))

    def _sim(self, name: str) -> tuple[Mapping[int, str], Sequence[str]]:
        """The simulated board's pieces and hand; LinkError on real hardware."""
        assert self.app is not None
        sim = self.app.simulated()
        if sim is None:
            raise LinkError("not-now", "this board is real hardware: there are no simulated hands", name)
        return sim

    def _hands(self, name: str) -> SimHands:
        self._sim(name)
        if self.hands is None:
            raise LinkError("not-now", "no simulated hands are given to this link", name)
        return self.hands

    def _cmd_touch(self, now: int, square: int) -> dict[str, Any]:
        from sim.board import SimError

        assert self.app is not None
        self._sim("touch")
        try:
            self._hands("touch").toggle(square)
        except SimError as exc:
            raise LinkError("not-now", str(exc), "touch") from None
        pieces, hand = self._sim("touch")
        return {"square": square, "piece": pieces.get(square), "hand": "".join(t[:1] for t in hand)}

    def _cmd_hands(self, now: int, text: str) -> dict[str, Any]:
        from sim.board import SimError

        assert self.app is not None
        hands = self._hands("hands")
        try:
            hands.hand_move(text)
        except (SimError, ValueError) as exc:
            raise LinkError("not-now", str(exc), "hands") from None
        return {"move": text}

    def _cmd_follow(self, now: int) -> dict[str, Any]:
        from sim.board import SimError

        assert self.app is not None
        hands = self._hands("follow")
        try:
            hands.follow()
        except (SimError, ValueError) as exc:
            raise LinkError("not-now", str(exc), "follow") from None
        return {"said": self.app.message}

    # -- commands that change the game -------------------------------------------------

    def _require_playing(self, name: str) -> Game:
        """The game, when moves may be asked for; LinkError ``not-now`` otherwise."""
        assert self.app is not None
        if self.app.resuming:
            raise LinkError("not-now", "a saved game is being resumed: its pieces must be set up first", name)
        if self.app.setting_up is not None:
            raise LinkError("not-now", "a new game is being set up on the board", name)
        game = self._game()
        if game.is_over:
            raise LinkError("not-now", f"the game is over ({game.result.score if game.result else ''})", name)
        return game

    def _cmd_new(self, now: int, fen: str | None) -> dict[str, Any]:
        assert self.app is not None
        rules = self._game().rules
        if fen is None:
            position = Position.start(rules)
        else:
            if not _FEN_CHARS.fullmatch(fen):
                raise LinkError("bad-argument", "not a FEN (like B:W21-32:B1-12)", "new")
            try:
                position = Position.from_fen(numeric_fen(fen))
            except ValueError as exc:
                raise LinkError("bad-argument", f"bad FEN: {exc}", "new") from None
        self._following = None
        # A saved game being resumed is given up, as the board's new button does: it is
        # kept (as an unfinished game) when the new game begins.
        self.app.give_up_resume()
        self._events += self.app.new_game(position, now)
        return {"fen": position.fen(), "ready": self.app.setting_up is None}

    def _cmd_again(self, now: int, game: str, ply: int, opponent: str) -> dict[str, Any]:
        assert self.app is not None
        if self.remote is not None or self.linked:
            raise LinkError("not-now", "a game with the other end of the link is not tried again here", "again")
        try:
            events = self.app.try_again(game, ply, opponent, now)
        except ValueError as exc:
            raise LinkError("bad-argument", str(exc), "again") from None
        self._following = None
        self._events += events
        setting_up = self.app.setting_up
        return {"game": game, "ply": ply, "opponent": opponent, "fen": setting_up.fen() if setting_up else None}

    def _cmd_play(self, now: int, text: str) -> dict[str, Any]:
        assert self.app is not None
        game = self._require_playing("play")
        position = game.position
        try:
            squares = parse_move_squares(text)
            matches = position.moves_matching(text, game.rules)
        except ValueError as exc:
            raise LinkError("bad-argument", str(exc), "play") from None
        if not matches:
            raise LinkError(
                "illegal-move", f"{text} is not legal here: {explain_illegal(position, squares, game.rules)}", "play"
            )
        if len(matches) > 1:
            routes = ", ".join(m.pdn(full=True) for m in matches)
            raise LinkError(
                "ambiguous-move", f"{text} fits several capture routes ({routes}): give every landing square", "play"
            )
        move = matches[0]
        turn = game.turn
        if self.remote is not None and turn is not self.remote:
            raise LinkError("wrong-side", f"{_side(turn)} is played at this board (link.plays = {self.plays})", "play")
        player = self.app.players[turn]
        if not player.is_human:
            raise LinkError("wrong-side", f"{player.name} (the computer) plays {_side(turn)} here", "play")
        ply = game.ply + 1
        other = self._peer_moves.get(ply) if self.linked else None
        if other is not None and other != move:
            raise LinkError("not-now", f"the other board has already played {other.pdn(full=True)}", "play")
        ballot = self.app.ballot_move if self.app.referee_mode else self._ballot_move(game)
        if ballot is not None and ballot != move:
            raise LinkError("illegal-move", f"the ballot's move {ply} is {ballot.pdn()}", "play")
        self._host_moves[ply] = move
        self._sync(now)
        return {
            "ply": ply,
            "side": _side(turn),
            "move": move_text(position, move, game.rules, numbers=True),
            "path": list(move.path),
            "captures": list(move.captures),
        }

    def _cmd_hint(self, now: int, state: str) -> dict[str, Any]:
        assert self.app is not None
        self.app.policy.set_hints(state == "on")
        return {"hints": state == "on", "shown": self.app.policy.hints_shown}

    def _cmd_mode(self, now: int, name: str, side: str | None = None, level: int | None = None) -> dict[str, Any]:
        assert self.app is not None
        app = self.app
        computer = None
        if name == "computer":
            if self.remote is not None:
                raise LinkError(
                    "not-now", f"the other side is played over the link (link.plays = {self.plays})", "mode"
                )
            try:
                computer = (BLACK if side == "black" else WHITE, app.computer_player(level))
            except ValueError as exc:
                raise LinkError("not-now", str(exc), "mode") from None
        game = self._game()
        # A ballot chosen and not begun goes on under the new mode: in referee mode the
        # referee plays it (and alone asks for its moves), otherwise the link does.
        carried: int | None = None
        if game.ply == 0 and app.setting_up is None:
            if name == "referee" and not app.referee_mode and self._ballot_move(game) is not None:
                assert self._ballot is not None
                carried = self._ballot[0]
            elif name == "play" and app.referee_mode and app.ballot_move is not None:
                ballot = app.ballot
                carried = ballot.number if ballot is not None else None
        try:
            app.set_mode(name, now, computer)
        except ValueError as exc:
            raise LinkError("not-now", str(exc), "mode") from None
        if carried is not None:
            self._ballot = None
            if app.referee_mode:
                try:
                    self._events += app.set_ballot(carried, now)
                except ValueError as exc:  # the mode has changed; say why the ballot did not follow
                    self._notice(
                        now, f"ballot-{carried}-{now}", f"ballot {carried} is not played under the referee: {exc}"
                    )
            else:
                self._ballot = (carried, tuple(acf_ballot(carried).play_moves(game.rules)))
            self._sync(now)
        body: dict[str, Any] = {"mode": name}
        if computer is not None:
            body.update({"computer": side, "level": level})
        return body

    def _cmd_rules(self, now: int, variant: str, options: tuple[str, ...]) -> dict[str, Any]:
        assert self.app is not None
        from rules.settings import Crowning
        from rules.variants import rules_for

        if self.linked:
            raise LinkError("not-now", "the rules of a game played over the link are the two boards' own", "rules")
        changes: dict[str, Any] = {}
        for option in options:
            if option == "men-capture-backward":
                changes["men_capture_backward"] = True
            elif option == "captures-optional":
                changes["captures_compulsory"] = False
            elif option == "keep-jumping-after-crowning":
                changes["crowning"] = Crowning.CONTINUES_AS_KING
            elif option == "kings-capture-first":
                changes["kings_capture_first"] = True
            elif option == "huffing":
                changes["huffing"] = True
        try:
            rules = rules_for(variant)
            rules = rules.with_options(**changes) if changes else rules
            self._events += self.app.set_rules(rules, now)
        except ValueError as exc:
            raise LinkError("not-now", str(exc), "rules") from None
        self._following = None
        return {"variant": rules.variant, "rules": rules.describe(), "fen": Position.start(rules).fen()}

    def _cmd_referee(self, now: int, items: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        assert self.app is not None
        from firmware.gameclock import ClockSpecError, TimeControl

        app = self.app
        game = self._game()
        if app.resuming or (game.ply and not game.is_over and app.setting_up is None):
            raise LinkError(
                "not-now", "the referee's settings change only before the first move or after the game", "referee"
            )
        changes: dict[str, Any] = {}
        for key, value in items:
            if key == "clock":
                try:
                    changes["clock"] = TimeControl.parse(value) if value and value != "none" else None
                except (ClockSpecError, ValueError) as exc:
                    raise LinkError("bad-argument", f"clock: {exc}", "referee") from None
            else:
                changes[key] = value or "?"
        try:
            settings = app.change_referee(**changes)
        except ValueError as exc:
            raise LinkError("bad-argument", str(exc), "referee") from None
        clock = settings.clock
        return {
            "style": settings.style,
            "clock": str(clock) if clock is not None else None,
            "tournament": settings.event,
            "site": settings.site,
            "round": settings.round,
        }

    def _cmd_names(self, now: int, black: str, white: str) -> dict[str, Any]:
        assert self.app is not None
        saved = self.app.set_player_names(black, white, now)
        return {"black": black, "white": white, "saved": saved}

    def _cmd_ballot(self, now: int, number: int) -> dict[str, Any]:
        game = self._require_playing("ballot")
        try:
            chosen = acf_ballot(number)
        except ValueError as exc:
            raise LinkError("bad-argument", str(exc), "ballot") from None
        if not chosen.in_deck:
            raise LinkError(
                "bad-argument", f"ballot {number} is barred (lost for one side): it is never played", "ballot"
            )
        if game.ply != 0 or game.start != Position.start(game.rules):
            raise LinkError("not-now", "a ballot is played from the start position before the first move", "ballot")
        try:
            moves = tuple(chosen.play_moves(game.rules))
        except ValueError as exc:
            raise LinkError("not-now", f"ballot {number} does not fit these rules: {exc}", "ballot") from None
        if self.app is not None and self.app.referee_mode:
            # The referee plays the ballot (and its pair's second game) and records it.
            try:
                self._events += self.app.set_ballot(number, now)
            except ValueError as exc:
                raise LinkError("not-now", str(exc), "ballot") from None
        else:
            self._ballot = (number, moves)
            self._sync(now)
        return {"number": number, "name": chosen.name, "moves": list(chosen.moves)}

    def _cmd_result(self, now: int, score: str, reason: str) -> dict[str, Any]:
        assert self.app is not None
        game = self._require_playing("result")
        self._declare(now, score, reason)
        result = game.result
        if result is None or (result.score, result.reason) != (score, reason):
            # What was due first ended the game otherwise: a move made before the decision
            # (a referee accepts it first) that left no move, a flag that fell. That stands.
            how = f": {result.score} ({result.reason})" if result is not None else ""
            raise LinkError("not-now", f"the game had already ended{how}; {score} was not applied", "result")
        return {"result": score, "reason": reason}

    def _speaks_for(self, side: str, name: str) -> Color:
        """The side a ``draw``/``resign`` command speaks for: any, or only the link's own."""
        color = BLACK if side == "black" else WHITE
        if self.remote is not None and color is not self.remote:
            raise LinkError("wrong-side", f"{side} is played at this board (link.plays = {self.plays})", name)
        return color

    def _cmd_draw(self, now: int, side: str) -> dict[str, Any]:
        """``side`` offers a draw, or accepts the other side's standing offer (the same
        request as that side's own draw button; the web page sends it too)."""
        assert self.app is not None
        self._require_playing("draw")
        color = self._speaks_for(side, "draw")
        events = self.app.offer_draw(color, now)
        self._events += events
        agreed = any(isinstance(e, GameOver) for e in events)
        return {"side": side, "draw": "agreed" if agreed else "offered"}

    def _cmd_resign(self, now: int, side: str) -> dict[str, Any]:
        """``side`` resigns at once: a command is deliberate, it needs no second press."""
        assert self.app is not None
        self._require_playing("resign")
        color = self._speaks_for(side, "resign")
        self._events += self.app.resign(color, now, confirmed=True)
        result = self._game().result
        return {"side": side, "result": result.score if result is not None else "*"}

    def _declare(self, now: int, score: str, reason: str) -> list[Event]:
        """End the game with an arbiter's (or the other board's) result; the events it caused."""
        assert self.app is not None
        app = self.app
        if self._expect is not None and app.expected == self._expect[1]:
            app.show_move(None)
        self._expect = None
        events = app.declare(score, reason, now)  # the referee's, in referee mode
        self._events += events
        return events

    # -- keeping the game in step ------------------------------------------------------

    def _ballot_move(self, game: Game) -> Move | None:
        """The link's ballot's move for the next ply, or None (no ballot, or it is played).

        Always None in referee mode: the referee plays the ballot and asks for its moves.
        """
        if self._ballot is None or (self.app is not None and self.app.referee_mode):
            return None
        number, moves = self._ballot
        if game.ply >= len(moves) or list(game.moves) != list(moves[: game.ply]):
            self._ballot = None
            return None
        return moves[game.ply]

    def _sync(self, now: int) -> None:
        """Set or withdraw the move the board waits for, undo moves made out of turn."""
        app = self.app
        assert app is not None
        if not (self._host_moves or self._peer_moves or self._ballot or self._expect or self._peer_result):
            return  # nothing asked for, nothing to withdraw: spare the loop the game's checks
        if app.resuming or app.setting_up is not None:
            return
        game = app.game
        if game is not self._seen_game:
            return  # a game begun this very step: wait until its start has been followed
        if game.is_over:
            self._expect = None
            return
        if self._peer_result is not None:
            score, reason, ply = self._peer_result
            if ply == game.ply:
                self._peer_result = None
                self._declare(now, score, reason)
                return
            if ply < game.ply:
                self._peer_result = None
        n = game.ply + 1
        want: tuple[Move, str] | None = None
        if self.linked and n in self._peer_moves and (game.turn is self.remote or self._peer_ply > n):
            # The other board's moves stand; so does a move of this side it has answered.
            want = (self._peer_moves[n], "peer")
        elif n in self._host_moves:
            want = (self._host_moves[n], "host")
        else:
            ballot = self._ballot_move(game)
            if ballot is not None and game.turn is not self.remote:
                want = (ballot, "ballot")
        if want is not None:
            move, source = want
            if app.expected != move:
                try:
                    app.show_move(move)
                except ValueError:
                    self._drop_wanted(n, source)
                    self._notice(
                        now,
                        f"unplayable-{n}-{move.pdn(full=True)}",
                        f"the {source}'s move {move.pdn(full=True)} is not legal here: the boards are out of step",
                    )
                    return
            self._expect = (n, move, source)
        elif self._expect is not None:
            # The same move may be the referee's balloted move: that request is the referee's.
            if app.expected == self._expect[1] and (not app.referee_mode or app.ballot_move != app.expected):
                app.show_move(None)
            self._expect = None

    def _drop_wanted(self, ply: int, source: str) -> None:
        if source == "peer":
            self._peer_moves.pop(ply, None)
        elif source == "host":
            self._host_moves.pop(ply, None)
        else:
            self._ballot = None
        if self._expect is not None and self._expect[0] == ply:
            self._expect = None

    def _on_move(self, event: MoveMade) -> None:
        """A move was made on this board: what the link asked for is done.

        (No move of the side played over the link is made here unless it was asked for:
        the board holds that side, see :meth:`attach`.)
        """
        if self._expect is not None and self._expect[0] <= event.ply:
            self._expect = None

    def _on_new_game(self, event: NewGame) -> None:
        assert self.app is not None
        self._seen_game = self.app.game
        following, self._following = self._following, None
        if following is not None and following[1] == event.fen:
            self.game_id = following[0]
        else:
            self._serial_seen += 1
            self.game_id = GameId.new(self._serial_seen)
            self._peer_moves.clear()
            self._peer_result = None
            self._peer_ply = 0
        self._serial_seen = max(self._serial_seen, self.game_id.serial)
        self._host_moves.clear()
        self._ballot = None
        self._expect = None
        self._said.clear()
        self._send({"t": event.t, "event": "state", "cause": "new-game", **self._state()})


def help_page(start: int = 0) -> dict[str, Any]:
    """The ``help`` reply's body from command ``start`` on (LinkError past the last one).

    >>> page = help_page()
    >>> page["commands"][0].split(":")[0], page["next"] is None or page["next"] > 0
    ('hello', True)
    """
    return dict(_help_page(start))


@cache
def _help_page(start: int) -> tuple[tuple[str, Any], ...]:
    """The ``help`` reply from command ``start`` on: as many lines as fit (the commands
    never change, so each page is worked out once)."""
    texts = [text for _parser, text in COMMANDS.values()]
    if start > len(texts):
        raise LinkError("bad-argument", f"there are {len(texts)} commands", "help")
    body: dict[str, Any] = {"commands": [], "next": None}
    for index in range(start, len(texts)):
        body["commands"].append(texts[index])
        # The longest reply time a board sends, so that a page fits at any time.
        if not fits({"t": 10**12, "event": "reply", "cmd": "help", "ok": True, **body}):
            body["commands"].pop()
            body["next"] = index
            break
    return tuple((key, list(value) if isinstance(value, list) else value) for key, value in body.items())


#: Commands that change something; refused on a read-only link.
CONTROL_COMMANDS = frozenset(
    {
        "new",
        "again",
        "play",
        "hint",
        "mode",
        "referee",
        "rules",
        "names",
        "ballot",
        "result",
        "press",
        "brightness",
        "touch",
        "hands",
        "follow",
        "draw",
        "resign",
    }
)
#: Commands that change only what the board shows (its lights), never the game or who
#: plays it: a view after them is the last one with the fields they set
#: (``Link._display_fields``).
DISPLAY_COMMANDS = frozenset({"brightness"})


def display_reply(name: str, args: tuple[Any, ...]) -> dict[str, Any]:
    """The reply's body to the :data:`DISPLAY_COMMANDS` command ``name`` (its arguments
    parsed), which is also what the ``view`` says of it from then on: known before the
    command is carried out, as it cannot fail once parsed.

    >>> display_reply("brightness", (40,))
    {'brightness': 40}
    """
    if name == "brightness":
        return {"brightness": args[0]}
    raise ValueError(f"{name} is not a display command")


def open_link(settings: LinkConfig, clock: Clock, *, start: bool = True) -> Link:
    """A :class:`Link` on ``settings.port`` with its I/O thread started (``start=False``: not)."""
    if not settings.port:
        raise ValueError("no link port configured (link.port or --link PORT)")
    transport = LineTransport(
        settings.port,
        clock,
        baudrate=settings.baudrate,
        reconnect_ms=settings.reconnect_ms,
        name="host link",
    )
    link = Link(transport, settings)
    if start:
        if "://" not in settings.port:
            # A device opens at once (or fails at once): then the greeting precedes every
            # event. A network URL may take seconds to fail, so the thread tries those.
            transport.connect_now()
        transport.start()
    return link
