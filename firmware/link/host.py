"""The serial link to a host computer: live relay, remote control, a distant player.

A :class:`Link` sits beside the :class:`~crownhead.firmware.app.application.App`: the app polls it once per
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
(:mod:`crownhead.firmware.link.peer`): a move of the other side is shown on the LEDs (the
tracker's ``expect``) for the local player to make, and the board accepts no other move
for that side (the application holds it: :meth:`crownhead.firmware.app.application.App.hold`), in every mode.

Bad input changes nothing: every rejected line gets one ``error`` reply (never a reply
to another board's event line, so two boards cannot ping-pong), at most
``lines_per_step`` lines are handled per loop iteration, and no command names a file or
runs anything: the only file the link causes to be written is the game record.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Any

from crownhead.firmware.app.snapshot import Snapshot
from crownhead.firmware.events import Event, MoveMade, NewGame, Notice, TakenBack
from crownhead.firmware.link.board import LinkedBoard, SimHands
from crownhead.firmware.link.commands import (
    CONTROL_COMMANDS,
    DISPLAY_COMMANDS,
    TABLE,
    display_reply,
    help_page,
    side_name,
)
from crownhead.firmware.link.parts import GameId
from crownhead.firmware.link.peer import PeerSync
from crownhead.firmware.link.policy import LinkPolicy
from crownhead.firmware.link.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Command,
    LinkError,
    PeerMessage,
    button_names,
    encode_event,
    encode_message,
    fit_hello,
    fit_match,
    parse_line,
)
from crownhead.firmware.link.requests import MoveRequests
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.link.transport import LineTransport, Transport
from crownhead.firmware.link.view import ViewPresenter
from crownhead.hal.clock import Clock
from crownhead.rules import BLACK, WHITE, Color, Game
from crownhead.rules.pdn import move_text, write_game

__all__ = [
    "CONTROL_COMMANDS",
    "DISPLAY_COMMANDS",
    "Link",
    "LinkOutput",
    "GameId",
    "open_link",
    "help_page",
    "display_reply",
]

log = logging.getLogger(__name__)

#: Who makes the held side's moves, as the board's warnings name it.
LINK_END = "the other end of the link"
#: Real time a loop iteration may spend on received lines (besides the line budget).
BUDGET_S = 0.02


@cache
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("crownhead")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "unknown"


def _move_json(game: Game, ply: int) -> dict[str, Any]:
    """The ``move`` object of ply ``ply`` (1-based) of ``game``, as the tracker reports it."""
    move = game.moves[ply - 1]
    before = game.positions[ply - 1]
    return {
        "ply": ply,
        "side": side_name(before.turn),
        "move": move_text(before, move, game.rules, numbers=True),
        "path": list(move.path),
        "captures": list(move.captures),
    }


class Link:
    """The board's end of the link, around a started :class:`~crownhead.firmware.link.transport.LineTransport`:
    a session with the other end, with a policy saying what that end may do
    (:class:`~crownhead.firmware.link.policy.LinkPolicy`). Its parts: the command table
    (:data:`crownhead.firmware.link.commands.TABLE`), the view (:attr:`presenter`, drawn from the
    step's snapshot), the other board's game (:attr:`peer`) and the moves asked of the
    board (:attr:`requests`).

    Give it to the app with :meth:`attach` before ``app.start()``; :meth:`close` after
    ``app.close()``.
    """

    def __init__(
        self, transport: Transport, settings: LinkConfig = LinkConfig(), policy: LinkPolicy | None = None
    ) -> None:
        self.transport = transport
        self.settings = settings
        #: What the other end may do and where the view goes (see :mod:`crownhead.firmware.link.policy`).
        self.policy = policy or LinkPolicy()
        self.plays = settings.plays
        self.control = settings.control
        self.lines_per_step = settings.lines_per_step
        self.app: LinkedBoard | None = None
        #: How the link hears the board (see :meth:`attach`), while attached.
        self._output: LinkOutput | None = None
        #: The last snapshot the board gave the link: what the view is drawn from.
        self.snapshot_seen: Snapshot | None = None
        #: The simulator's hands at the board, for ``touch``, ``hands`` and ``follow``
        #: (given by whoever opens the link on a simulated board; None: no hands).
        self.hands: SimHands | None = None
        #: The other board's game, as its lines tell it (see :mod:`crownhead.firmware.link.peer`).
        self.peer = PeerSync(self)
        #: The moves the link asks the board for (see :mod:`crownhead.firmware.link.requests`).
        self.requests = MoveRequests(self)
        #: The ``view`` (see :mod:`crownhead.firmware.link.view`).
        self.presenter = ViewPresenter(self)
        #: The game the link has seen begin (NewGame, resume); it acts on no other.
        self.seen_game: Game | None = None
        self._events: list[Event] = []
        self._said: set[str] = set()
        self._pdn_cache: tuple[object, str] | None = None
        self._greeting: str | None = None
        #: ``watch on``: a ``view`` event whenever what the board shows changes.
        self.watching = False
        # Bumped by every event and every command that may change the board: what it
        # shows may have changed (see ViewPresenter.key).
        self._stir = 0
        #: Counters, for status and tests.
        self.commands = 0
        self.errors = 0
        self.peer_lines = 0
        self.policy.join(self)

    # -- wiring ------------------------------------------------------------------------

    #: Whether the link wakes the board's loop itself when the other end sends a line (and
    #: says by :meth:`next_deadline` when it wants a step): the simulated board may sleep.
    wakes = False

    def next_deadline(self) -> int | None:
        """When the link wants the board's next step besides every poll (None: no time)."""
        return None

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

    @property
    def game_id(self) -> GameId:
        """The game this board plays, as two linked boards name it."""
        return self.peer.game_id

    def attach(self, app: LinkedBoard) -> None:
        """Join ``app``: become one of its outputs (polled every step for the other end's
        lines, every event, and the end of every step: the view of that step goes out in
        it)."""
        self.app = app
        self._output = app.add_output(LinkOutput(self))
        if self.remote is not None:
            # The other side's moves are made there: only those the link shows are
            # accepted here, whatever the mode (a referee takes no move back).
            app.hold(self.remote, LINK_END)
        if app.started and not app.resuming:
            self.seen_game = app.game
        self.policy.attached(app)

    def detach(self) -> None:
        """Let the board go (the end of :meth:`attach`): the side played over the link is
        made at the board again (:meth:`~crownhead.firmware.link.board.LinkedBoard.release`), and the
        link's output is taken off the board (a board that takes a link and lets
        it go again and again keeps none of them). The transport stays open: :meth:`close`."""
        app = self.app
        if app is None:
            return
        self.policy.detached(app)
        if self.remote is not None:
            app.release(self.remote)
        if self._output is not None:
            app.remove_output(self._output)
            self._output = None
        self.app = None

    def close(self) -> None:
        self.transport.close()

    # -- the app's hooks ---------------------------------------------------------------

    def poll(self, now: int) -> list[Event]:
        """One loop iteration: greet a fresh link, keep the game in step, handle a few lines."""
        if self.app is None:
            return []
        app = self.app
        self.policy.polling(now)
        fresh = self.transport.take_fresh() or self._greeting
        if (
            fresh is not None
            and self._greeting is None
            and self.seen_game is None
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
                    encode_message(
                        {
                            "t": now,
                            "event": "overrun",
                            "message": "the host did not read in time: lines were dropped; the state follows",
                        }
                    )
                )
            first.append(encode_message(self.hello(now, fresh)))
            self.transport.resume(*first)
        self.requests.sync(now)
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
            self.requests.sync(now)
        events, self._events = self._events, []
        return events + self.policy.polled(now)

    def stepped(self, now: int) -> None:
        """The board's step is over (its events sent, its LEDs lit): a watcher gets the
        view of that step now, if it changed (see :meth:`ViewPresenter.send
        <firmware.link.view.ViewPresenter.send>`)."""
        if self.app is not None and self.watching and self.transport.connected:
            self.presenter.send(now)

    def sink(self, event: Event) -> None:
        """Every event of the board: sent to the other end, and followed for the game's sake."""
        if self.app is None:
            return
        self.policy.heard(event)
        self._stir += 1
        if isinstance(event, MoveMade):
            # (No move of the side played over the link is made here unless it was asked
            # for: the board holds that side, see attach.)
            self.requests.made(event.ply)
        elif isinstance(event, TakenBack):
            self.requests.taken_back(event.ply)
        try:
            line = encode_event(event)
        except ValueError as exc:
            log.error("link: cannot send %s: %s", event.kind, exc)
        else:
            self.policy.send_event(self.transport, event, line)
        if isinstance(event, NewGame):
            self._on_new_game(event)
        elif event.kind == "game-start":
            self.seen_game = self.app.game  # a resumed game is the same game

    # -- what the link's parts and its policy use ---------------------------------------

    def send(self, obj: Mapping[str, Any]) -> None:
        """Send ``obj``, a message of the link's own (a reply, a state; never a board's
        event: :meth:`sink` sends those)."""
        try:
            line = encode_message(obj)
        except (TypeError, ValueError) as exc:
            log.error("link: cannot send %s: %s", obj.get("event"), exc)
            return
        self.transport.send(line)

    def notice(self, now: int, key: str, message: str) -> None:
        """Tell the people (and the host) once per situation ``key``."""
        if key in self._said:
            return
        self._said.add(key)
        log.warning("link: %s", message)
        self._events.append(Notice(now, message))

    def emit(self, events: Collection[Event]) -> None:
        """Hand ``events`` (caused here: a command's, the other board's) to the board at
        the end of this poll."""
        self._events += events

    # -- what the board says about itself ----------------------------------------------

    def state(self) -> dict[str, Any]:
        """The game's state as ``hello`` gives it."""
        assert self.app is not None
        app = self.app
        game = app.game
        setup = app.setting_up
        result = game.result
        expected = app.expected
        state: dict[str, Any] = {
            "game": str(self.game_id),
            "start": (setup or game.start).fen(),
            "fen": (setup or game.position).fen(),
            "ply": 0 if setup is not None else game.ply,
            "turn": side_name((setup or game.position).turn),
            "last": _move_json(game, game.ply) if game.ply and setup is None else None,
            "result": result.score if result is not None and setup is None else None,
            "reason": result.reason if result is not None and setup is None else None,
            "setup": setup is not None or app.resuming,
            "waiting": expected.pdn(full=True) if expected is not None else None,
            "match": app.matches.link_state(),
        }
        state = self.policy.stated(state)
        # Sent on its own too (a state event): it must fit one line without the hello.
        fit_match({"t": 10**12, "event": "state", "cause": "new-game", **state}, state)
        return state

    def identity(self) -> dict[str, Any]:
        """The board's identity as ``hello`` gives it (version, rules, names, buttons)."""
        assert self.app is not None
        app = self.app
        rules = app.game.rules
        # The names the board shows (the snapshot's seats: the referee's, a match's), one
        # source for the screen, the view and the state; the seats before the first step.
        seats: Mapping[Color, Any] = app.snapshot.seats if app.started else app.players
        return {
            "protocol": PROTOCOL_VERSION,
            "version": _version(),
            "plays": self.plays,
            "mode": app.mode.tracker_mode,
            "app": app.mode.name,
            "hints": app.policy.hints_on,
            "control": self.control,
            "variant": rules.variant,
            "rules": rules.describe(),
            "black": seats[BLACK].name,
            "white": seats[WHITE].name,
            "max_line": MAX_LINE,
            "buttons": list(button_names()),
        }

    def hello(self, now: int, cause: str) -> dict[str, Any]:
        """The ``hello`` event (``cause``: why it is sent), fitted to one line."""
        return fit_hello({"t": now, "event": "hello", "cause": cause, **self.identity(), "state": self.state()})

    def view(self, now: int) -> dict[str, Any]:
        """What the board shows now (see :meth:`ViewPresenter.view <firmware.link.view.ViewPresenter.view>`)."""
        return self.presenter.view(now)

    def pdn_text(self) -> str:
        """The game as PDN (kept while the game and its tags stay the same: a host reads
        a long game in several pieces)."""
        assert self.app is not None
        game = self.app.game
        tags = {k: v for k, v in self.app.record_tags().items() if k not in ("Result", "SetUp", "FEN")}
        key = (id(game), game.ply, game.moves[-1] if game.moves else None, game.result, tuple(tags.items()))
        if self._pdn_cache is None or self._pdn_cache[0] != key:
            self._pdn_cache = (key, write_game(game, tags))
        return self._pdn_cache[1]

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
                    self.notice(
                        now,
                        "peer-read-only",
                        "the other end sends a board's events, which this read-only link ignores (link.control = false)",
                    )
                    return
                try:
                    if not self.policy.peer_line(message.data, now):
                        self.peer.follow(message.data, now)
                        self.policy.peer_followed(message.data, now)
                except Exception:  # another board's odd line must never stop this one
                    log.exception("link: could not follow the other board's %s", message.kind)
                return
            self.commands += 1
            # Refused or not, the view is looked at again (cheap: see ViewPresenter.key).
            if message.name in DISPLAY_COMMANDS:
                self.presenter.display_changed()
            elif message.name in CONTROL_COMMANDS:
                self._stir += 1
            reply = self._command(message, now)
            line = encode_message(reply)
        except LinkError as exc:
            self.errors += 1
            self.send(exc.reply(now))
            return
        except Exception as exc:  # a bug must cost one reply, not the board
            log.exception("link: command failed")
            self.errors += 1
            self.send(LinkError("internal", f"the board could not handle this line ({type(exc).__name__})").reply(now))
            return
        self.transport.send(line)

    def _command(self, command: Command, now: int) -> dict[str, Any]:
        name = command.name
        refusal = self.policy.refuse(command)
        if refusal is not None:
            raise refusal
        try:
            handler = TABLE[name]
            if handler.control and not self.control:
                raise LinkError(
                    "read-only", f"{name} is not allowed: this link is read-only (link.control = false)", name
                )
            body = handler.run(self, now, *command.args)
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
        self.presenter.display_changed()
        return TABLE[command.name].run(self, now, *command.args)

    @property
    def idle(self) -> bool:
        """Whether the last poll left nothing for the link: no greeting, no event to
        hand over, no game to keep in step."""
        return not self._events and self._greeting is None and not self.requests.pending

    @property
    def greeting_due(self) -> bool:
        """Whether the next poll has a greeting or events to hand over."""
        return self._greeting is not None or bool(self._events)

    @property
    def changes(self) -> int:
        """A count of the events and commands that may have changed what the board shows."""
        return self._stir

    # -- a new game --------------------------------------------------------------------

    def _on_new_game(self, event: NewGame) -> None:
        assert self.app is not None
        self.seen_game = self.app.game
        self.peer.new_game(event.fen)
        self.requests.clear()
        self._said.clear()
        self.send({"t": event.t, "event": "state", "cause": "new-game", **self.state()})


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


class LinkOutput:
    """A :class:`Link` as one of the board's outputs
    (:class:`~crownhead.firmware.app.outputs.SteppedOutput`): it hears every event (sent to the
    other end) and the end of every step (the view of that step). Closing the board does
    not close the link's transport: whoever opened the link closes it."""

    def __init__(self, link: Link) -> None:
        self.link = link

    def events(self, events: Sequence[Event]) -> None:
        for event in events:
            self.link.sink(event)

    def snapshot(self, snapshot: Snapshot) -> None:
        self.link.snapshot_seen = snapshot  # the view is drawn from it when the step is over

    def stepped(self, now: int, snapshot: Snapshot) -> None:
        self.link.snapshot_seen = snapshot
        self.link.stepped(now)

    def poll(self, now: int) -> list[Event]:
        return self.link.poll(now)

    @property
    def wakes(self) -> bool:
        """Whether the link wakes the loop itself when a line comes (the pages' link)."""
        return self.link.wakes

    def deadline(self) -> int | None:
        return self.link.next_deadline()

    def close(self) -> None:
        pass
