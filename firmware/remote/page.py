"""The board's page takes games far apart: an invitation made there (the settings of
``crownhead remote invite``), a code joined there, the game left there (docs/remote.md).

:class:`FarDesk` is what the page's server asks (``/api/far``: :mod:`crownhead.firmware.web.far`).
Every request is answered in the board's main loop (the desk is a source of the
application), which checks that the board may take a game now; the broker's part
(publishing the invitation and waiting for the other board, or fetching one and
accepting it) runs in a worker thread of its own, never in the main loop nor in the
server's. Once the two boards agree, the running board switches into the game far apart
as ``crownhead run --remote CODE`` starts it: the agreed game's settings
(:meth:`App.new_game_with <firmware.app.commands.Commands.new_game_with>`: names, rules,
start, clock; no live analysis), the game's :class:`~crownhead.firmware.remote.link.RemoteLink`
and :class:`~crownhead.firmware.remote.board.Absence` attached, and a note in the state directory
(``remote/playing.json``: :func:`~crownhead.firmware.remote.invite.playing`) so that the board
goes back to the game when it starts again. Leaving the game (once it is over, or before
its first move) lets the link go: the board plays on its own again.

The desk's :meth:`status` is what the page shows, replaced whole whenever it changes
(the server's thread reads it without a lock), with :attr:`changes` counting the changes.
The main loop and the worker both change it, each change whole under the desk's lock, in
an order that leaves the last word to what happened last: the page's request is shown
before its worker starts (a worker that fails at once is shown as failed), and an
agreement is handed to the main loop only once it is shown (the main loop's ``playing``
comes after the worker's ``agreed``).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from crownhead.firmware.app.modes import ModeSeats
from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.events import Event, Notice
from crownhead.firmware.hall.topics import BrokerUrl
from crownhead.firmware.link.board import SimHands
from crownhead.firmware.remote.board import Absence, remote_link, remote_settings
from crownhead.firmware.remote.invite import (
    AWAY_CLOCKS,
    Agreement,
    Invitation,
    accept,
    await_guest,
    fetch,
    publish,
    withdraw,
)
from crownhead.firmware.remote.invite import set_playing
from crownhead.firmware.remote.link import RemoteLink
from crownhead.firmware.remote.parts import FarBoard
from crownhead.firmware.remote.settings import RemoteConfig
from crownhead.firmware.remote.transport import RemoteTransport, check_broker, is_loopback
from crownhead.firmware.remote.wire import check_code, new_code, show_code
from crownhead.hal.clock import Clock
from crownhead.rules.ballots import ballot as acf_ballot
from crownhead.rules.ballots import deck
from crownhead.rules.settings import HOUSE_RULES, with_house_rules
from crownhead.rules.variants import rules_for

__all__ = ["FarDesk", "MAX_ASKED", "invitation_from"]

log = logging.getLogger(__name__)

#: Requests from the pages waiting for the main loop at most (more are refused).
MAX_ASKED = 8
#: The fields a page's invitation may have (anything else is refused, by name).
_FIELDS = frozenset({"plays", "black", "white", "variant", "rules", "clock", "ballot", "grace_s", "away", "guest"})


def invitation_from(options: Mapping[str, object], host: str) -> Invitation:
    """The invitation a page asks for (``options``: the fields of ``crownhead remote
    invite``; ``ballot`` a number, ``"draw"`` for one drawn from the deck, or None),
    offered by board ``host``; ValueError naming the field that is wrong.

    >>> inv = invitation_from({"plays": "white", "clock": "600+5", "rules": ["huffing"], "away": "run"}, "home-a")
    >>> inv.host_plays, inv.clock, inv.game_rules().huffing, inv.away, inv.grace_s
    ('white', '600+5', True, 'run', 300)
    >>> invitation_from({"plays": "red"}, "home-a")
    Traceback (most recent call last):
    ...
    ValueError: plays: black or white, not 'red'
    """
    unknown = sorted(set(options) - _FIELDS)
    if unknown:
        raise ValueError(f"{unknown[0]}: not a setting of an invitation ({', '.join(sorted(_FIELDS))})")

    def text(name: str) -> str | None:
        value = options.get(name)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise ValueError(f"{name}: text, not {type(value).__name__}")
        return value.strip() or None

    plays = text("plays") or "black"
    if plays not in ("black", "white"):
        raise ValueError(f"plays: black or white, not {plays!r}")
    names = options.get("rules") or []
    # The house rules a page's invitation may name, as ``crownhead run``'s options do.
    house = [rule.name for rule in HOUSE_RULES]
    if not isinstance(names, list) or not all(isinstance(n, str) and n in house for n in names):
        raise ValueError(f"rules: a list of house rules ({', '.join(house)})")
    rules = with_house_rules(rules_for(text("variant") or "english"), names)
    ballot = options.get("ballot")
    if ballot == "draw":
        ballot = _drawn()
    elif ballot in (None, ""):
        ballot = None
    elif type(ballot) is not int:
        raise ValueError("ballot: an ACF ballot's number, 'draw' for one drawn from the deck, or none")
    else:
        acf_ballot(ballot)
    grace = options.get("grace_s", 300)
    if type(grace) is not int:
        raise ValueError("grace_s: a number of seconds (10-86400)")
    away = text("away") or "stop"
    if away not in AWAY_CLOCKS:
        raise ValueError(f"away: the clock {' or '.join(AWAY_CLOCKS)}, not {away!r}")
    return Invitation(
        new_code(),
        host,
        plays,
        black=text("black"),
        white=text("white"),
        rules=rules.options(),
        clock=text("clock"),
        ballot=ballot,
        grace_s=grace,
        away=away,
        guest=text("guest"),
    )


def _drawn() -> int:
    """A ballot drawn from the ACF deck (as ``--ballot`` alone draws one)."""
    import secrets

    return secrets.choice(deck()).number


class FarDesk:
    """The board's games far apart, as its page takes them (see the module).

    ``app``: the board's application; ``clock``, ``state_dir`` and ``config`` (its
    ``[remote]`` section, with the board's account on the broker): as ``crownhead run``
    gives them to a game far apart. ``agreement`` and ``link``: the game far apart the
    board plays already (``--remote``), if any; ``cable``: the board has a link of
    another kind (``--link``), and takes no game far apart. ``page_address``: where this
    board's page is reached by name (its invitation's link is built on it). ``hands``:
    the simulated board's hands, given to each game's link (a page may move the pieces),
    None on real pieces.
    """

    def __init__(
        self,
        app: FarBoard,
        clock: Clock,
        state_dir: Path,
        config: RemoteConfig = RemoteConfig(),
        *,
        agreement: Agreement | None = None,
        link: RemoteLink | None = None,
        absence: Absence | None = None,
        cable: bool = False,
        page_address: Callable[[], str | None] = lambda: None,
        hands: SimHands | None = None,
    ) -> None:
        self.app = app
        self.hands = hands
        self.clock = clock
        self.state_dir = state_dir
        self.config = config
        self.cable = cable
        self.page_address = page_address
        self.agreement = agreement
        self.link = link
        self.absence = absence
        self._lock = threading.Lock()
        self._asked: deque[tuple[str, object, Future[dict[str, Any]]]] = deque()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        # An agreement the worker made, for the main loop to start.
        self._agreed: Agreement | None = None
        # The invitation a page looked up (its terms shown), until it joins or cancels.
        self._found: Invitation | None = None
        # The mode and seats the board had before the game far apart (the computer's side,
        # its level, the names): the next game after it is left is played so again.
        self._mode_before: ModeSeats | None = None
        #: How many times :meth:`status` changed.
        self.changes = 0
        self._status: dict[str, Any] = {}
        self._set("playing" if agreement is not None else "idle", self._playing_words() if agreement else "")

    # -- the server's thread ---------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What the page shows (see :meth:`_set`): replaced whole when it changes."""
        return self._status

    def ask(self, what: str, data: object = None) -> Future[dict[str, Any]] | None:
        """A page's request (``invite`` with its settings, ``look`` for the terms of the
        game of a code, ``join`` with a code, ``cancel``, ``leave``), answered by the main loop's next step with the desk's status, or with
        ``error``, ``message`` (why, in words) and the ``status``; None when too many are
        waiting."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if len(self._asked) >= MAX_ASKED:
                return None
            self._asked.append((what, data, future))
        self.app.wake()
        return future

    # -- the main loop ---------------------------------------------------------------------

    def attach(self, app: FarBoard) -> FarDesk:
        """Answer the page's requests in ``app``'s main loop (which they wake)."""
        self.app = app
        app.add_output(Poller(self.poll, wakes=True))
        return self

    def poll(self, now: int) -> list[Event]:
        events: list[Event] = []
        agreed = self._agreed
        if agreed is not None:
            events += self._begin(agreed, now)
        if not self._asked:
            return events
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        for what, data, future in asked:
            if not future.set_running_or_notify_cancel():
                continue
            try:
                events += self._answer(what, data, now)
            except ValueError as exc:
                future.set_result({"error": "refused", "message": str(exc), "status": self._status})
            except Exception as exc:  # noqa: BLE001 - a page's request must not stop the board
                log.exception("remote: the page's %s failed", what)
                future.set_result({"error": "internal", "message": f"{what} failed: {exc}", "status": self._status})
            else:
                future.set_result(self._status)
        return events

    def close(self) -> None:
        """Stop the worker's waiting (the invitation withdrawn) and refuse what waits."""
        self._stop.set()
        with self._lock:
            asked = list(self._asked)
            self._asked.clear()
        for _what, _data, future in asked:
            future.cancel()
        worker = self._worker
        if worker is not None:
            worker.join(timeout=5)

    def _answer(self, what: str, data: object, now: int) -> list[Event]:
        if what == "invite":
            if not isinstance(data, Mapping):
                raise ValueError("an invitation's settings, as an object")
            self._may_take()
            url = self._url()
            assert url.username is not None
            invitation = invitation_from(data, url.username)
            self._found = None
            self._set("inviting", f"offering game {show_code(invitation.code)} on the broker", invitation=invitation)
            self._start(f"offering game {show_code(invitation.code)}", self._inviting, url, invitation)
            return []
        if what in ("look", "join"):
            if not isinstance(data, str):
                raise ValueError("the game's code, as the other board shows it (k7q-m2x), or its link")
            code = check_code(data)
            self._may_take()
            url = self._url()
            self._found = None
            if what == "look":
                self._set("looking", f"looking for game {show_code(code)} on the broker")
                self._start(f"looking for game {show_code(code)}", self._looking, url, code)
            else:
                self._set("joining", f"looking for game {show_code(code)} on the broker")
                self._start(f"joining game {show_code(code)}", self._joining, url, code)
            return []
        if what == "cancel":
            found = self._found
            if found is not None and not self._busy():
                self._found = None  # (its terms shown, not taken: nothing to undo on the broker)
                self._set("idle", f"joining game {show_code(found.code)} given up")
                return []
            if not self._busy():
                raise ValueError("no invitation or join under way")
            self._stop.set()
            return []
        if what == "leave":
            return self._leave(now)
        raise ValueError(f"{what}: invite, look, join, cancel or leave")

    def _may_take(self) -> None:
        """ValueError unless the board may take a game far apart now."""
        if not self.config.broker:
            raise ValueError(
                "no broker for games far apart: set [remote] broker in the board's configuration "
                "(mqtts://BOARD:PASSWORD@host)"
            )
        if self.cable:
            raise ValueError("this board plays over its link (--link, link.port): it takes no game far apart")
        if self.agreement is not None:
            raise ValueError(
                f"this board plays game {show_code(self.agreement.invitation.code)} far apart: leave it first"
            )
        if self._busy() or self._agreed is not None:
            raise ValueError("an invitation or a join is under way: cancel it first")
        app = self.app
        game = app.game
        if app.resuming:
            raise ValueError("a saved game waits to be set up: start a New game on the board first")
        if game.ply and not game.is_over and app.setting_up is None:
            raise ValueError("a game is under way on the board: finish it (or start a New game) first")

    def _url(self) -> BrokerUrl:
        url = BrokerUrl.parse(self.config.broker)
        check_broker(url, insecure=self.config.insecure)
        return url

    def _busy(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _start(self, what: str, target: Callable[..., None], *args: object) -> None:
        """Run ``target`` in the worker; the status saying so is set first (see the module)."""
        self._stop = threading.Event()
        self._worker = threading.Thread(
            target=self._work, args=(what, target, *args), name="crownhead-far-page", daemon=True
        )
        try:
            self._worker.start()
        except RuntimeError as exc:  # no thread to be had
            self._worker = None
            self._set("failed", f"{what}: {exc}")
            raise

    # -- the worker thread ------------------------------------------------------------------

    def _work(self, what: str, target: Callable[..., None], *args: object) -> None:
        try:
            target(*args)
        except ModuleNotFoundError as exc:
            self._set(
                "failed",
                f"{what}: the MQTT client ({exc.name}) is not installed: install the board's 'hall' extra (docs/install.md)",
            )
        except (ConnectionError, ValueError, OSError) as exc:
            self._set("failed", f"{what}: {exc}")
        except Exception as exc:  # noqa: BLE001 - said on the page, logged
            log.exception("remote: %s failed", what)
            self._set("failed", f"{what}: {exc}")
        self.app.wake()

    def _inviting(self, url: BrokerUrl, invitation: Invitation) -> None:
        cafile = self.config.cafile or None
        shown = show_code(invitation.code)
        publish(url, invitation, cafile=cafile)
        self._set("waiting", f"game {shown}: waiting for the other board to join", invitation=invitation)
        guest = await_guest(url, invitation, cafile=cafile, timeout_s=self.config.wait_s, stop=self._stop)
        if guest is None:
            withdraw(url, invitation, cafile=cafile)
            if self._stop.is_set():
                self._set("idle", f"the invitation to game {shown} is withdrawn")
            else:
                self._set("failed", f"nobody joined game {shown} within {self.config.wait_s} s (withdrawn)")
            return
        assert url.username is not None
        agreement = Agreement(invitation, url.username, guest, self.config.broker, cafile, self.config.insecure)
        agreement.save(self.state_dir)
        self._set("agreed", f"{guest} joined game {shown}: it begins", invitation=invitation)
        self._agreed = agreement  # last: the main loop's "playing" follows this "agreed"

    def _looking(self, url: BrokerUrl, code: str) -> None:
        """The invitation of game ``code``, fetched and shown (its colours, clock, ballot,
        public or private) for the people to join or not: nothing is answered on the broker."""
        cafile = self.config.cafile or None
        given_up = f"joining game {show_code(code)} given up"
        try:
            invitation = fetch(url, code, cafile=cafile, timeout_s=min(self.config.wait_s, 60), stop=self._stop)
        except ValueError:
            if self._stop.is_set():
                self._set("idle", given_up)
                return
            raise
        if self._stop.is_set():
            self._set("idle", given_up)
            return
        mine = "white" if invitation.host_plays == "black" else "black"
        self._found = invitation
        self._set(
            "found",
            f"game {show_code(code)} of {invitation.host}: this board would play {mine.title()}; join it, or cancel",
            invitation=invitation,
        )

    def _joining(self, url: BrokerUrl, code: str) -> None:
        cafile = self.config.cafile or None
        given_up = f"joining game {show_code(code)} given up"
        try:
            invitation = fetch(url, code, cafile=cafile, timeout_s=min(self.config.wait_s, 60), stop=self._stop)
        except ValueError:
            if self._stop.is_set():  # cancelled: no invitation was waited for to the end
                self._set("idle", given_up)
                return
            raise
        if self._stop.is_set():
            self._set("idle", given_up)
            return
        accept(url, invitation, cafile=cafile)
        assert url.username is not None
        agreement = Agreement(
            invitation, url.username, invitation.host, self.config.broker, cafile, self.config.insecure
        )
        agreement.save(self.state_dir)
        self._set("agreed", f"joined game {show_code(code)} of {invitation.host}: it begins", invitation=invitation)
        self._agreed = agreement  # last, as above

    # -- switching into the game and out of it (the main loop) --------------------------------

    def _begin(self, agreement: Agreement, now: int) -> list[Event]:
        """The board plays the agreed game far apart from now on, as ``run --remote`` does;
        while a game is under way on the board it waits (said once)."""
        app = self.app
        before = app.mode_to_return_to()
        try:
            events = app.new_game_with(remote_settings(agreement, replace(app.settings, mode="play")), now)
        except ValueError as exc:
            words = f"the game far apart begins once the board may start it: {exc}"
            if self._status.get("message") != words:
                self._set("agreed", words, invitation=agreement.invitation)
            return []
        self._agreed = None
        self._mode_before = before
        link = remote_link(agreement, self.clock, self.state_dir, self.config)
        assert isinstance(link.transport, RemoteTransport)
        invitation = agreement.invitation
        self.absence = Absence(link.transport, invitation.grace_s, invitation.away, link)
        self.absence.attach(app)
        link.attach(app)
        link.hands = self.hands
        self.agreement, self.link = agreement, link
        set_playing(self.state_dir, invitation.code)
        words = self._playing_words()
        self._set("playing", words)
        log.warning("remote: %s", words)
        return [*events, Notice(now, words)]

    def _leave(self, now: int) -> list[Event]:
        link, agreement = self.link, self.agreement
        if link is None or agreement is None:
            raise ValueError("this board plays no game far apart")
        app = self.app
        game = app.game
        if game.ply and not game.is_over and app.setting_up is None and not app.resuming:
            raise ValueError("the game far apart is under way: finish it (resign, or agree a draw) first")
        link.detach()
        if self.absence is not None:
            self.absence.detach()
        app.settings = replace(app.settings, far_apart=False)
        if self._mode_before is not None:
            app.return_to(self._mode_before)  # at the next new game: the one far apart stays on the board
            self._mode_before = None
        set_playing(self.state_dir, None)
        self.agreement = self.link = self.absence = None
        words = f"the game far apart {show_code(agreement.invitation.code)} is left: the board plays on its own"
        self._set("idle", words)
        return [Notice(now, words)]

    # -- what the page shows ------------------------------------------------------------------

    def _playing_words(self) -> str:
        agreement = self.agreement
        if agreement is None:
            return ""
        far = "white" if agreement.plays == "black" else "black"
        return (
            f"playing game {show_code(agreement.invitation.code)} far apart: this board plays "
            f"{agreement.plays.title()}, {agreement.peer} plays {far.title()}"
        )

    def _set(self, state: str, message: str, *, invitation: Invitation | None = None) -> None:
        """The page's view of the desk, replaced whole: ``state`` (``idle``, ``inviting``,
        ``waiting``, ``looking``, ``found``, ``joining``, ``agreed``, ``playing``,
        ``failed``), ``message`` in words, the broker (its account and host, never the
        password), the invitation's code, link (``link_note``: why another home cannot
        open it, when it names this machine only) and settings while there is one, the
        game far apart being played."""
        if invitation is None and self.agreement is not None:
            invitation = self.agreement.invitation
        url = me = None
        if self.config.broker:
            try:
                parsed = BrokerUrl.parse(self.config.broker)
                url, me = f"{parsed.username} at {parsed.host}:{parsed.port}", parsed.username
            except ValueError:
                url = None
        # The link is to this board's invitation only (a game looked up or joined is the other's).
        own = invitation is not None and invitation.host == me
        link = self._link(invitation.code) if invitation is not None and own else None
        status: dict[str, Any] = {
            "state": state,
            "message": message,
            "broker": url,
            "code": invitation.code if invitation is not None else None,
            "shown": show_code(invitation.code) if invitation is not None else None,
            "link": link,
            "link_note": _loopback_note(link) if link is not None else None,
            "game": _described(invitation, self.agreement) if invitation is not None else None,
        }
        with self._lock:
            self._status = status
            self.changes += 1
        self.app.wake()

    def _link(self, code: str) -> str | None:
        """The invitation's link: this board's page by its name, its join filled in."""
        base = self.page_address()
        return f"{base.rstrip('/')}/#join={show_code(code)}" if base else None


def _loopback_note(link: str) -> str | None:
    """Why another home cannot open ``link``, when it names this machine only (the page is
    served on 127.0.0.1 or localhost); None when it names an address of the network.

    >>> _loopback_note("http://192.168.1.20:8080/#join=k7q-m2x") is None
    True
    >>> print(_loopback_note("http://127.0.0.1:8080/#join=k7q-m2x"))
    this board's page is served on this machine only (127.0.0.1): the other home cannot open this link; read them the code, or serve the page on the network (crownhead run --web 0.0.0.0:8080) for a link they can open
    """
    host = urlsplit(link).hostname or ""
    if not (is_loopback(host) or host == "0.0.0.0"):
        return None
    return (
        f"this board's page is served on this machine only ({host}): the other home cannot open this link; "
        "read them the code, or serve the page on the network (crownhead run --web 0.0.0.0:8080) for a link "
        "they can open"
    )


def _described(invitation: Invitation, agreement: Agreement | None) -> dict[str, Any]:
    """An invitation's settings as the page shows them."""
    return {
        "host": invitation.host,
        "host_plays": invitation.host_plays,
        "peer": agreement.peer if agreement is not None else invitation.guest,
        "black": invitation.black,
        "white": invitation.white,
        "rules": invitation.game_rules().describe(),
        "clock": invitation.clock,
        "ballot": invitation.ballot,
        "grace_s": invitation.grace_s,
        "away": invitation.away,
        "private": invitation.guest is not None,
    }
