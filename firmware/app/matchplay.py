"""The board's match: who plays which colour in each new game, and the score after it.

The match under way lives in the state directory (:class:`~crownhead.firmware.storage.matches.MatchStore`,
written by ``crownhead match new`` or begun by the board when the ``[match]`` section
says it always plays matches). :class:`MatchPlay` is the application's side of it:

* when a new game begins it seats the players as the match says (colours swapped every
  game; against the computer the machine changes colour too; a referee gets the names
  and, with ballots, the pair's ballot: the second game of a pair plays the first's
  again), and tags the game's record with the match (``[Match "ID"]``, ``[Round "N"]``);
* when a game of the match ends, the result goes into the match file at once, so a
  power cut loses nothing (a game whose PDN was written just before one is found again
  at the next start);
* it reports both as a :class:`MatchScore` event (``"event": "match"``), which the link,
  the web page and the display show, and :meth:`MatchPlay.status` gives the same for a
  host's or a page's state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from crownhead.firmware.events import Event, MatchScore, Notice
from crownhead.firmware.app.players import Human, Player
from crownhead.firmware.app.settings import MatchConfig
from crownhead.firmware.app.snapshot import match_link_state
from crownhead.firmware.referee.arbiter import Referee
from crownhead.firmware.tracking.judge import Bench
from crownhead.firmware.storage.matches import MATCH_TAG, MatchStore, match_tags, new_match
from crownhead.firmware.storage.store import GameFile, GameRecord, StoreError
from crownhead.rules import BLACK, WHITE, Color
from crownhead.rules.match import Match

__all__ = ["MatchPlay", "Seating", "seat"]

log = logging.getLogger(__name__)


class Seating(NamedTuple):
    """How a new game begins in a match (see :meth:`MatchPlay.begin`)."""

    players: dict[Color, Player]
    #: Black's and White's names for the game's record (the machine plays under its
    #: match name); None without a match.
    names: tuple[str, str] | None
    tags: dict[str, str]
    events: list[Event]


def seat(players: Mapping[Color, Player], black: str, white: str, machine_name: str | None) -> dict[Color, Player]:
    """The players of a game whose Black is ``black`` and White ``white``: the machine
    (if any) at the colour of ``machine_name``, people renamed to their seat's name.

    >>> seated = seat({BLACK: Human("Ana"), WHITE: Human("Ben")}, "Ben", "Ana", None)
    >>> seated[BLACK].name, seated[WHITE].name
    ('Ben', 'Ana')
    """
    machines = [p for p in players.values() if not p.is_human]
    out: dict[Color, Player] = {}
    for color, name in ((BLACK, black), (WHITE, white)):
        if machines and name == machine_name:
            out[color] = machines[0]
        else:
            out[color] = Human(name)
    return out


class MatchPlay:
    """The application's match keeper (see the module docstring). ``store`` None: no
    state directory, no matches."""

    def __init__(
        self,
        store: MatchStore | None,
        config: MatchConfig = MatchConfig(),
        players: Mapping[Color, Player] | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.match: Match | None = None
        self._stamp: int | None = None
        # The match the game on the board belongs to (its id), None for a game outside
        # one: a match over is said only beside its last game, not in every game after.
        self._playing: str | None = None
        # The colour the machine was given at the start (computer mode): in a match whose
        # players' names are not the machine's, it is the player of that colour in game 1.
        self._machine_home: Color | None = None
        for color, player in (players or {}).items():
            if not player.is_human:
                self._machine_home = color

    # -- the file ----------------------------------------------------------------------

    def load(self, games: Callable[[], Iterable[GameFile]] = tuple) -> list[str]:
        """Read the match under way at start, with any result it missed (``games`` lists
        the kept games, read only when there is a match); problems to tell."""
        if self.store is None:
            return []
        problems: list[str] = []
        try:
            match = self.store.load()
        except StoreError as exc:
            self.match, self._stamp = None, None
            try:
                aside = self.store.set_aside()
            except StoreError as why:
                return [f"{exc}; no match is under way ({why})"]
            return [f"{exc}; the file was kept as {aside} and no match is under way"]
        if match is not None:
            try:
                caught_up = MatchStore.reconcile(match, games())
            except StoreError as exc:
                problems.append(f"the match's games could not all be read: {exc}")
                caught_up = match
            if caught_up != match:
                problems += self._save(caught_up)
                problems.append(
                    f"match {match.id}: {len(caught_up.played) - len(match.played)} finished game(s) "
                    "taken into the score after a restart"
                )
                match = caught_up
        self.match = match
        self._stamp = self.store.stamp()
        return problems

    def refresh(self) -> None:
        """Read the match file again if someone (``crownhead match``) changed it."""
        if self.store is None:
            return
        stamp = self.store.stamp()
        if stamp == self._stamp:
            return
        try:
            self.match = self.store.load()
        except StoreError as exc:
            log.error("%s", exc)  # kept as it was; the next start sets the file aside
            return
        self._stamp = stamp

    def _save(self, match: Match) -> list[str]:
        assert self.store is not None
        try:
            self.store.save(match)
        except StoreError as exc:
            log.error("%s", exc)
            return [f"the match could not be saved: {exc}"]
        self.match = match
        self._stamp = self.store.stamp()
        return []

    # -- games ---------------------------------------------------------------------------

    @property
    def active(self) -> Match | None:
        """The match the next game belongs to, None when none is under way."""
        self.refresh()
        match = self.match
        return match if match is not None and not match.over else None

    def _machine_name(self, match: Match, players: Mapping[Color, Player]) -> str | None:
        machines = [p for p in players.values() if not p.is_human]
        if not machines:
            return None
        if machines[0].name in (match.first, match.second):
            return machines[0].name
        people = [p.name for p in players.values() if p.is_human]
        if people and people[0] in (match.first, match.second):
            return match.second if people[0] == match.first else match.first
        home = self._machine_home if self._machine_home is not None else WHITE
        return match.colours(1)[0 if home is BLACK else 1]

    def begin(
        self,
        now: int,
        players: Mapping[Color, Player],
        referee: Referee | None = None,
        bench: Bench | None = None,
    ) -> Seating:
        """A new game begins: the players seated as the match says (unchanged without a
        match), the names its record takes, the tags naming the match, the events."""
        if self.store is None:
            return Seating(dict(players), None, {}, [])
        notes: list[str] = []
        match = self.active
        if match is None and self.config.always:
            match, notes = self._auto(players)
        self._playing = match.id if match is not None else None
        if match is None:
            return Seating(dict(players), None, {}, self._notices(now, notes))
        black, white = match.colours()
        seated = seat(players, black, white, self._machine_name(match, players))
        events: list[Event] = []
        if referee is not None and bench is not None:
            referee.set_names(black, white, bench)
            match, ballot_events = self._ballot(match, referee, now, bench)
            events += ballot_events
            # The referee's own record (live.pdn, game-*.pdn) names the match too.
            referee.tag({MATCH_TAG: match.id, "MatchGame": str(match.number)}, bench)
        notes += self._save(match)
        events.append(self._event(now, "game-start", match, match.number, black))
        return Seating(seated, (black, white), match_tags(match), self._notices(now, notes) + events)

    def coming(self, players: Mapping[Color, Player]) -> dict[Color, Player] | None:
        """The players of the match's next game as :meth:`begin` will seat them, without
        beginning it (what a board being set up for it shows); None without a match."""
        if self.store is None:
            return None
        match = self.active
        if match is None:
            return None
        black, white = match.colours()
        return seat(players, black, white, self._machine_name(match, players))

    def resumed(self, record: GameRecord, players: Mapping[Color, Player]) -> dict[Color, Player]:
        """The players of a game of the match resumed after a power cut, as its record
        has them (the machine where the match put it); other games keep ``players``."""
        match = self.match
        if (
            match is not None
            and record.extra.get(MATCH_TAG) == match.id
            and {record.black, record.white} == {match.first, match.second}
        ):
            self._playing = match.id
            return seat(players, record.black, record.white, self._machine_name(match, players))
        return dict(players)

    def _auto(self, players: Mapping[Color, Player]) -> tuple[Match | None, list[str]]:
        """The ``[match]`` section's match, begun now."""
        config = self.config
        black = config.black_name or players[BLACK].name
        white = config.white_name or players[WHITE].name
        if black in ("", "?") or white in ("", "?") or black == white:
            black, white = (
                black if black not in ("", "?") else "Player A",
                white if white not in ("", "?", black) else "Player B",
            )
        try:
            match = new_match(black, white, games=config.games or None, count_draws=config.count_draws)
        except ValueError as exc:
            return None, [f"no match begun: {exc}"]
        assert self.store is not None
        try:
            self.store.put_away()
        except (StoreError, OSError) as exc:
            return None, [f"no match begun: the last match could not be put away: {exc}"]
        return match, []

    def _ballot(self, match: Match, referee: Referee, now: int, bench: Bench) -> tuple[Match, list[Event]]:
        """The ballot of this game's pair: drawn by the pair's first game, the same again
        in its second with the colours reversed, whatever the referee's own count says."""
        events: list[Event] = []
        if not referee.box.active:
            return match, events
        number = match.number
        try:
            if match.needs_ballot(number):
                first_of_pair = match.pair(number)[1]
                if referee.ballot is None or not first_of_pair or referee.games % 2 == 0:
                    # The referee counted this game as a pair's second: a fresh card.
                    drawn = referee.box.draw()
                    if drawn is not None:
                        events += referee.set_ballot(drawn.number, now, bench)
                if referee.ballot is not None:
                    match = match.with_ballot(referee.ballot.number, number)
            else:
                wanted = match.ballot(number)
                if wanted is not None and (referee.ballot is None or referee.ballot.number != wanted):
                    events += referee.set_ballot(wanted, now, bench)
        except ValueError as exc:
            log.error("match ballot: %s", exc)
        return match, events

    def finished(self, record: GameRecord, now: int, ballot: int | None = None) -> list[Event]:
        """A game ended and was written: into the score if it is a game of the match."""
        if self.store is None or record.result not in ("1-0", "0-1", "1/2-1/2"):
            return []
        self.refresh()
        match = self.match
        if match is None or match.over or record.extra.get(MATCH_TAG) != match.id:
            return []
        if any(g.id == record.id for g in match.played):
            return []  # already counted (written again after a restart)
        try:
            match = match.with_result(
                record.result or "*", id=record.id, black=record.black, white=record.white, ballot=ballot
            )
        except ValueError as exc:
            return self._notices(now, [f"the game is not counted in the match: {exc}"])
        notes = self._save(match)
        game = match.played[-1]
        return self._notices(now, notes) + [self._event(now, "result", match, game.number, game.black)]

    # -- what is shown -----------------------------------------------------------------

    def _event(self, now: int, cause: str, match: Match, number: int, black: str) -> MatchScore:
        a, b = match.standings
        return MatchScore(
            now,
            cause,
            match.id,
            match.first,
            match.second,
            match.games or 0,
            len(match.counted),
            number,
            black,
            (match.marks(a), match.marks(b)),
            match.over,
            match.winner or "",
            match.count_draws,
        )

    def _notices(self, now: int, messages: list[str]) -> list[Event]:
        return [Notice(now, m) for m in messages]

    def counted(self, record: GameRecord | None) -> bool:
        """Whether the match under way has counted the game of ``record`` (its result is
        on the match's sheet: a resignation in it stands)."""
        match = self.match
        return match is not None and record is not None and any(g.id == record.id for g in match.played)

    def status(self) -> dict[str, Any] | None:
        """The match under way (or just over) in full, for a page or a display
        (:meth:`crownhead.rules.match.Match.status`); None without one."""
        self.refresh()
        return self.match.status() if self.match is not None else None

    def link_state(self) -> dict[str, Any] | None:
        """The match as the host link's state gives it (:func:`match_link_state`), read
        again if someone changed its file."""
        self.refresh()
        return match_link_state(self.match)

    def line(self) -> str:
        """One line for a screen: ``Match, game 2 of 4: Ana 1, Ben 0`` (the names are the
        players' beside it), or ``Match over: Ana takes the match, 2 games to 1`` beside the
        game that ended it (nothing in the games after, nor after a restart)."""
        self.refresh()
        match = self.match
        if match is None:
            return ""
        if match.over:
            return f"Match over: {match.verdict()}" if self._playing == match.id else ""
        of = f" of {match.games}" if match.games else ""
        return f"Match, game {match.number}{of}: {match.score_text()}"
