"""A board playing a game far apart: its link on the game's topics, the agreed game, and
the other board's absences shown to the people at this one.

:func:`remote_link` builds the :class:`~crownhead.firmware.link.host.Link` of an
:class:`~crownhead.firmware.remote.invite.Agreement` on a
:class:`~crownhead.firmware.remote.transport.RemoteTransport` (its journal in the state directory);
:func:`remote_settings` puts the agreed names, rules, start and clock into the
application's settings. :class:`Absence` watches the broker and the other board: when
either goes away it says so and counts down the grace period the invitation gave, on
every screen and page; as the invitation chose (``away``), it stops a running clock
(``stop``: nobody's time runs while a move cannot cross, and a board away past its grace
is reported, never forfeited: the game is kept and goes on when it is back) or lets it
run (``run``: the absent side's time runs, and once its board is away past the grace
period this board calls its flag).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.app.snapshot import Away
from crownhead.firmware.events import Event, Notice
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.settings import LinkConfig
from crownhead.firmware.remote.invite import AWAY_CLOCKS, Agreement
from crownhead.firmware.remote.settings import RemoteConfig
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.parts import FarBoard
from crownhead.firmware.remote.transport import RemoteTransport
from crownhead.firmware.storage.store import CURRENT
from crownhead.hal.clock import Clock

__all__ = ["Absence", "remote_link", "remote_settings"]


def remote_settings(agreement: Agreement, settings: AppSettings) -> AppSettings:
    """``settings`` with the game the two boards agreed: names, rules, start, clock; a
    game far apart (no live analysis on either board)."""
    inv = agreement.invitation
    return replace(
        settings,
        black_name=inv.black or settings.black_name,
        white_name=inv.white or settings.white_name,
        rules=inv.game_rules(),
        start=inv.start(),
        clock=inv.time_control(),
        far_apart=True,
    )


def remote_link(
    agreement: Agreement, clock: Clock, state_dir: Path, config: RemoteConfig = RemoteConfig(), *, start: bool = True
) -> RemoteLink:
    """The link of ``agreement``'s game (its offers, requests and times: :class:`RemoteLink`),
    the game named alike on both boards (:meth:`RemoteLink.begin_agreed`), its transport
    connecting (``start``); ``config``: this board's ``[remote]`` section (its
    keep-alive and resend time)."""
    transport = RemoteTransport(
        BrokerUrl.parse(agreement.broker),
        agreement.invitation.code,
        agreement.peer,
        agreement.journal(state_dir),
        clock,
        cafile=agreement.cafile,
        insecure=agreement.insecure,
        resend_ms=config.resend_ms,
        keepalive_s=config.keepalive_s,
        start=start,
        private=agreement.invitation.private,
    )
    link = RemoteLink(transport, LinkConfig(plays=agreement.plays), away=agreement.invitation.away)
    # The game is named from the invitation on both boards (the one in play, after a
    # restart: as the journal kept it), whichever board starts first or starts again.
    # (No game saved in progress while the journal names one: that game ended and was
    # filed away before the board went off.)
    saved = transport.journal.game
    over = saved is not None and not (state_dir / CURRENT).exists()
    link.begin_agreed(agreement.invitation.code, agreement.invitation.start(), saved, over=over)
    return link


class Absence:
    """Says when the broker or the other board goes and comes back, counts down the grace
    period on the board's screens and pages (the snapshot's ``away``), and holds or runs
    the clock as the invitation said (``away``: ``stop`` or ``run``).

    An application source (:meth:`attach`): each poll compares what the transport knows;
    a deadline each second while a board is away keeps the countdown going. ``link``:
    the game's :class:`RemoteLink`, told when this board is to call the far side's flag
    (``run``, the other board away past the grace period).
    """

    def __init__(
        self, transport: RemoteTransport, grace_s: int, away: str = "stop", link: RemoteLink | None = None
    ) -> None:
        if away not in AWAY_CLOCKS:
            raise ValueError(f"away: the clock stops or runs ({' or '.join(AWAY_CLOCKS)}), not {away!r}")
        self.transport = transport
        self.grace_ms = grace_s * 1000
        self.away = away
        self.link = link
        self.app: FarBoard | None = None
        #: How it joined the board (an output that polls), while it watches.
        self._joined: Poller | None = None
        self._away_since: int | None = None
        self._late_said = False
        self._held_clock = False
        #: What the people were last told: ``here``, or who is away.
        self.state = "here"

    def attach(self, app: FarBoard) -> None:
        self.app = app
        self._joined = app.add_output(Poller(self.poll, deadline=self.deadline))

    def detach(self) -> None:
        """The game far apart is left: nothing is watched or shown any more, and the board
        keeps nothing of this watch (a board that takes games and leaves them, again and
        again, has no more sources than before)."""
        app, self.app = self.app, None
        if app is not None:
            app.away = None
            if self._joined is not None:
                app.remove_output(self._joined)
                self._joined = None
        self._away_since = None
        self.state = "here"

    def _who_is_away(self) -> str | None:
        if not self.transport.connected:
            return "the broker"
        if self.transport.peer_status == "offline" or self.transport.peer_silent:
            return f"the other board ({self.transport.peer})"
        return None

    def poll(self, now: int) -> list[Event]:
        if self.app is None:
            return []
        away = self._who_is_away()
        events: list[Event] = []
        if away is not None and self.state == "here":
            self.state, self._away_since, self._late_said = away, now, False
            waits = "the clock stopped" if self.away == "stop" else "the clock runs"
            events.append(
                Notice(now, f"{away} is out of reach: the game waits ({waits}) for up to {self.grace_ms // 1000} s")
            )
            if self.away == "stop":
                events += self._hold_clock(now)
        elif away is not None and away != self.state:
            self.state = away
        elif away is None and self.state != "here":
            gone = (now - (self._away_since or now)) // 1000
            events.append(Notice(now, f"{self.state} is back after {gone} s: the game goes on"))
            self.state, self._away_since = "here", None
            events += self._release_clock(now)
        if self._away_since is not None and not self._late_said and now - self._away_since >= self.grace_ms:
            self._late_said = True
            events.append(Notice(now, self._late_words()))
        self._show(now)
        return events

    def deadline(self) -> int | None:
        """The next second of the grace period's countdown while a board is away."""
        since = self._away_since
        if since is None or self.app is None:
            return None
        now = self.app.clock.now_ms()
        if now - since >= self.grace_ms:
            return None
        return now + 1000 - (now - since) % 1000

    def _late_words(self) -> str:
        grace = self.grace_ms // 1000
        if self.away == "run" and self.state != "the broker":
            far = self.link.far.title() if self.link is not None else "the far side"
            return (
                f"{self.state} has been away longer than the grace period ({grace} s): the clock runs, and {far} "
                "loses on time here if its time runs out"
            )
        return (
            f"{self.state} has been away longer than the grace period ({grace} s): "
            "the game is kept and goes on when it is back (a result by agreement: resign or draw on the board)"
        )

    def _show(self, now: int) -> None:
        """The snapshot's ``away``: who, the grace's whole seconds left, the clock's rule;
        and whether this board calls the far side's flag."""
        app = self.app
        since = self._away_since
        shown = None
        if since is not None:
            left = max(0, self.grace_ms - (now - since))
            shown = Away(self.state, -(-left // 1000), self.away)
        if app is not None and app.away != shown:
            app.away = shown
        if self.link is not None:
            past = shown is not None and shown.grace_s == 0 and self.state != "the broker"
            self.link.calls_far_flag = self.away == "run" and past

    def _hold_clock(self, now: int) -> list[Event]:
        app = self.app
        keeper = app.board_clock if app is not None else None
        if app is None or keeper is None or keeper.waiting or keeper.clock.paused or keeper.clock.stopped:
            return []
        self._held_clock = True
        return list(keeper.press(app.game, now))

    def _release_clock(self, now: int) -> list[Event]:
        app = self.app
        keeper = app.board_clock if app is not None else None
        held, self._held_clock = self._held_clock, False
        if app is None or not held or keeper is None or not keeper.clock.paused:
            return []
        return list(keeper.press(app.game, now))
