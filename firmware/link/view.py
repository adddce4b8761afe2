"""The ``view``: what the board shows, presented from the step's snapshot.

:class:`ViewPresenter` is the part of a :class:`~crownhead.firmware.link.host.Link` that answers
``view`` and, while the other end watches, sends a ``view`` event whenever what the
board shows changes. It is a pure function of the step's
:class:`~crownhead.firmware.app.snapshot.Snapshot` (:func:`view_body`): the pieces as the
game knows them, the position being set up, the names on their colours, the cautions,
the roles the LEDs light in that step, the simulated hand, the clock, the settings a
page shows, and the screen's words from the board's view of that same snapshot. It
never reads the application, so a page cannot show a man where the board has a king,
nor one step's game with another step's lights; it is sent when the step is over
(:meth:`Link.stepped <crownhead.firmware.link.host.Link.stepped>`).

The view is drawn only when it may differ (:meth:`ViewPresenter.key`, cheap to tell)
and sent only when it does, its clocks compared to the second: a page ticks them itself.
"""

from __future__ import annotations

import logging
from typing import Any

from crownhead.firmware.app.snapshot import Snapshot, shown_tokens
from crownhead.firmware.app.view import board_view
from crownhead.firmware.events import ClockState
from crownhead.firmware.link.parts import LinkSide
from crownhead.firmware.link.protocol import encode_message
from crownhead.rules import BLACK, WHITE

__all__ = ["ViewPresenter", "clock_fields", "controls", "display_fields", "view_body"]

log = logging.getLogger(__name__)


class ViewPresenter:
    """The ``view`` of ``link``'s board (see the module)."""

    def __init__(self, link: LinkSide) -> None:
        self.link = link
        # What the last view sent showed (its clocks to the second): a view like it is not sent.
        self._shown: dict[str, Any] | None = None
        # The key the view was last looked at with (see key).
        self._seen: tuple[Any, ...] | None = None
        # The body of the last view drawn.
        self._drawn: dict[str, Any] | None = None
        # Bumped by every display command: only the fields they set may have changed.
        self._display_changes = 0

    def display_changed(self) -> None:
        """A display command (:data:`~crownhead.firmware.link.commands.DISPLAY_COMMANDS`) was carried out."""
        self._display_changes += 1

    def resend(self) -> None:
        """Send the next view even if it shows what the last one did (a new watcher)."""
        self._shown = None

    def view(self, now: int) -> dict[str, Any]:
        """What the board shows now (the ``view`` event and reply, without ``t``/``event``).

        ``board``: 32 characters, square 1 first, what stands on the board (``b``, ``w``,
        ``B``, ``W``, ``.`` for empty; ``?`` a piece the simulated hands put down that
        the game does not know); ``roles``: each lit LED role with its squares;
        ``target``: the position to set up (a new game, a resumed one), else null;
        ``clock``: each side's time left in ms and the side whose clock runs, or null.
        """
        return self.fit(now, self.body(now))[0]

    def body(self, now: int) -> dict[str, Any]:
        """The view's fields, before they are fitted to one line (:func:`view_body` of
        the last step's snapshot)."""
        return view_body(self._seen_snapshot())

    def display_fields(self) -> dict[str, Any]:
        """The view's fields that the display commands set."""
        return display_fields(self._seen_snapshot())

    def clock(self, now: int) -> dict[str, Any] | None:
        """The game clock as the last step left it (see :func:`clock_fields`)."""
        return clock_fields(self._seen_snapshot().clock)

    def _seen_snapshot(self) -> Snapshot:
        """The last snapshot the board gave the link (the board gives one before its first step)."""
        snap = self.link.snapshot_seen
        if snap is None:
            raise RuntimeError("no snapshot yet: the board has not started")
        return snap

    def fit(self, now: int, body: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
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

    def key(self, now: int) -> tuple[Any, ...]:
        """Changes whenever what the board shows may have changed: a display command,
        an event or a command that may change the board, the snapshot (the game, the
        set-up, the conditions, the roles lit, the message, the simulated board and hand,
        the machine thinking...); and once a second."""
        seen = self.link.snapshot_seen
        return (self._display_changes, self.link.changes, seen.revision if seen else None, now // 1000)

    def send(self, now: int) -> None:
        """Send the view if it has changed (through the link's policy)."""
        policy = self.link.policy
        if policy.view_resent():
            self._shown = None
        with policy.viewing():
            self._send_now(now)

    def _send_now(self, now: int) -> None:
        # Cheap to tell, dear to draw: the view is described only when it may differ.
        key = self.key(now)
        seen, self._seen = self._seen, key
        if key == seen and self._shown is not None:
            return
        try:
            last = self._drawn
            if last is not None and seen is not None and key[1:] == seen[1:]:
                # Only display commands since the last view (in the same second): it
                # stands but for what they set (and the clock, as it is now).
                body = {**last, **self.display_fields(), "clock": self.clock(now)}
            else:
                body = self.body(now)
            body, line = self.fit(now, body)
        except Exception:  # a view that cannot be drawn must not stop the loop
            log.exception("link: cannot describe the board")
            self._drawn = None
            return
        self._drawn = body
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
        if shown == self._shown:
            return
        self._shown = shown
        if line is None:
            log.error("link: cannot send the view: longer than a line may be")
            return
        self.link.policy.send_view(self.link.transport, now, body, line)


def view_body(snap: Snapshot) -> dict[str, Any]:
    """The ``view``'s fields for ``snap``, a pure function of it (see :meth:`ViewPresenter.view`).

    >>> from crownhead.rules import Position, WCDF
    >>> from crownhead.firmware.app.snapshot import Seat, Shown, standing
    >>> start = Position.start()
    >>> pieces, strays = standing(start, start.occupied)
    >>> snap = Snapshot(start, start.occupied, pieces, strays, 0, None, {}, (), None, None, None, None, None,
    ...                 WCDF, (), {BLACK: Seat("Ann"), WHITE: Seat("Bo")}, lit={9: "hint-from", 13: "hint-to"},
    ...                 shown=Shown(mode="Two players"))
    >>> body = view_body(snap)
    >>> body["board"], body["roles"], body["names"], body["status"]
    ('bbbbbbbbbbbb........wwwwwwwwwwww', {'hint-from': [9], 'hint-to': [13]}, ['Ann', 'Bo'], 'Black to move, move 1')
    """
    shown = snap.shown
    words = board_view(snap)  # the screen's words, drawn from the same snapshot
    tokens = shown_tokens(snap, shown.tokens)
    roles: dict[str, list[int]] = {}
    for square, role in sorted(snap.lit.items()):
        roles.setdefault(str(role), []).append(square)
    setup = snap.setup
    target = setup.position.fen() if setup is not None and setup.cause in ("resume", "new-game") else None
    seats = snap.seats
    simulated = shown.tokens is not None
    body: dict[str, Any] = {
        "board": "".join(tokens.get(square, ".")[:1] or "." for square in range(1, 33)),
        "roles": roles,
        "blink": sorted(words.blinking),
        "hand": "".join(t[:1] for t in shown.hand) if simulated else "",
        "ply": snap.ply,
        "target": target,
        "status": words.status,
        "prompt": words.prompt,
        "warning": words.warning,
        "message": words.message,
        "mode": words.mode_text,
        "names": [seats[BLACK].name, seats[WHITE].name],
        "clock": clock_fields(snap.clock),
        "cautions": {"black": seats[BLACK].cautions, "white": seats[WHITE].cautions} if shown.referee_mode else None,
        "match": words.match,
        "sim": simulated,
        "hints": shown.hints_on,
        "resuming": snap.resuming,
        # A game far apart waiting for the broker or the other board ("" if not).
        "away": words.away,
        **display_fields(snap),
    }
    body["controls"] = controls(snap, body["clock"] is not None)
    return body


def controls(snap: Snapshot, clock: bool) -> list[str]:
    """The board's buttons that do something in this game (a page shows those only):
    no hint or takeback under a referee, ``force`` only under huffing, ``clock`` only
    with a game clock."""
    wanted = {
        "hint": not snap.shown.referee_lights,
        "takeback": snap.shown.takeback,
        "adjust": True,
        "claim": True,
        "force": snap.rules.huffing,
        "clock": clock,
    }
    return [name for name, useful in wanted.items() if useful]


def display_fields(snap: Snapshot) -> dict[str, Any]:
    """The view's fields that the display commands set."""
    return {"brightness": snap.shown.brightness}


def clock_fields(state: ClockState | None) -> dict[str, Any] | None:
    """The game clock (the referee's or the board's, ``--clock``) as the view gives it:
    "running" is None while it waits for the first lift or is paused ("paused" says which)."""
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
