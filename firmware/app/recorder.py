"""The board's recorder: each game's record kept on disk, from its first set-up to its end.

The :class:`Recorder` writes the game in progress with every change (through the
:class:`~crownhead.firmware.app.keeper.GameKeeper`, which never raises over the disk), puts
away the game a new one replaces, makes each new game's record (its players, mode,
rules and the tags given with its set-up), takes up an unfinished game at start and
brings it back as it was played (its mode, settings and players), keeps its clock on
disk, and counts a finished game in the match under way. It keeps the table's
:attr:`~crownhead.firmware.app.table.Table.record` and
:attr:`~crownhead.firmware.app.table.Table.kept_game`: what is on disk and the game it is of.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from crownhead.firmware.app.resume import comeback, offer_text
from crownhead.firmware.app.table import Table
from crownhead.firmware.events import Event, GameSaved, GameStarted, Notice
from crownhead.firmware.storage.store import GameRecord
from crownhead.firmware.app.players import Human
from crownhead.rules import BLACK, WHITE, Game, Position

__all__ = ["Recorder"]

log = logging.getLogger(__name__)

#: A saved game's mode in words (a game resumed in another mode says what it was).
_GAME_WORDS = {"play": "two-player game", "computer": "game against the computer", "referee": "refereed game"}


class Recorder:
    """Keeps the games of ``table`` on disk (see the module)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        #: Said when the saved game resumes in another mode than it was played in.
        self.resume_note = ""
        #: PDN tags for the record of the next game to begin, if it begins from that
        #: position (a game tried again names the game it came from): see ``new_game``.
        self.start_tags: tuple[Position, dict[str, str]] | None = None

    # -- a game resumes as it was played ------------------------------------------------------

    def take_up(self, record: GameRecord, game: Game, now: int) -> Position:
        """The saved game ``record`` (``game``) is the one to resume: its players seated,
        the simulated board set as saved if asked, what it is said; its position."""
        table = self.table
        table.record, table.kept_game = record, game
        self._come_back(record, now)
        # The people of a resumed game are those who were playing it (unless names
        # were given for this start).
        named = "names" in table.settings.given
        for color, name in ((BLACK, record.black), (WHITE, record.white)):
            player = table.players[color]
            if name not in ("", "?") and isinstance(player, Human) and (player.name in ("", "?") or not named):
                table.modes.seats.name(color, name)
        # A game of the match resumes with its players where the match put them, from
        # its set-up on: names given for this start are the match's, not this game's
        # colours.
        table.players.update(table.matches.resumed(record, table.players))
        start = game.position
        if table.settings.sim_keep_game and table.sim is not None:
            table.sim.set_position({s: p.symbol for s, p in start.pieces().items()})
        plies = f"{game.ply} {'ply' if game.ply == 1 else 'plies'}"
        how = ""
        mode = table.mode.name
        if mode != record.mode and "mode" in table.settings.given:
            saved = _GAME_WORDS.get(record.mode, f"{record.mode} game")
            how = f", a {saved}, in {mode} mode as asked (--mode)"
            # Said again once it resumes: the game was not the one asked for.
            self.resume_note = (
                f"This is the unfinished {saved} ({plies}), now in {mode} mode: press new for a new game instead."
            )
        table.say(
            f"Resuming the unfinished game ({plies}){how}. Put the pieces where the "
            "lights ask, or press new for a new game."
        )
        return start

    def _come_back(self, record: GameRecord, now: int) -> None:
        """The saved game's mode and its settings, as its record keeps them, before its
        set-up (see :func:`crownhead.firmware.app.resume.comeback`): the machine's side and level,
        the referee's settings (its state of the game goes to the referee when the game
        resumes), hints, the board clock, the rules of the games after it."""
        table = self.table
        assert table.store is not None
        plan = comeback(record, table.settings, table.mode.name, str(table.store.current_path))
        if plan is None:
            return  # an older record: the game resumes as configured
        for level, message in plan.said:
            log.log(level, "%s", message)
            table.pending.append(Notice(now, message))
        if plan.rules is not None:
            table.settings = replace(table.settings, rules=plan.rules, start=None)
        if plan.clock != table.settings.clock:
            table.settings = replace(table.settings, clock=plan.clock)
        table.pending += [Notice(now, message) for message in table.modes.resume(plan)]
        table.set_time_control()

    # -- a game begins ----------------------------------------------------------------------

    def new_game(self, now: int) -> list[Event]:
        """The set-up position stands on the board: the saved game resumed, or a new game
        began (the session says which: :meth:`GameSession.begin
        <firmware.tracking.session.GameSession.begin>`); the events."""
        table = self.table
        if table.session.resumed:
            return self._resumed(now)
        out: list[Event] = list(self._put_away(now))
        table.modes.referee_game = None  # the saved game was put away: its referee state with it
        game = table.kept_game = table.tracker.game
        referee = table.referee
        if referee is not None:
            # The referee's names for this game (colours are reversed every game).
            table.modes.seats.name_people(referee.names)
        seating = table.matches.begin(now, table.players, referee, table.follower)
        table.players.update(seating.players)
        out += seating.events
        record = self._new_record(game.start)
        if seating.names is not None:
            black, white = seating.names
            record = replace(record, black=black, white=white, extra={**record.extra, **seating.tags})
        table.record = record
        out += self.save(now)
        out.append(GameStarted(now, False, 0, game.position.fen(), record.id))
        return out

    def _resumed(self, now: int) -> list[Event]:
        """The saved game, with its history (repetitions, takeback, the last move lit
        dimly), is the session's: the referee goes on with it."""
        table = self.table
        record, game = table.record, table.kept_game
        assert record is not None and game is table.session.game
        table.follow(resumed=True)
        table.players.update(table.matches.resumed(record, table.players))
        table.say(self.resume_note)
        self.resume_note = ""
        out: list[Event] = [GameStarted(now, True, game.ply, game.position.fen(), record.id)]
        clock = table.session.clock
        if clock is not None:
            out.append(clock.report(now))  # the times as saved, paused
        return out

    def _new_record(self, start: Position) -> GameRecord:
        table = self.table
        s = table.settings
        record = GameRecord.new(
            black=table.players[BLACK].name,
            white=table.players[WHITE].name,
            event=s.event or table.mode.event,
            site=s.site,
            mode=table.mode.name,
            start=start,
            rules=table.session.game.rules,
        )
        tags = self.start_tags
        if tags is None or tags[0] != start:
            return record
        self.start_tags = None  # the tags given with that set-up: this game's alone
        return replace(record, extra=dict(tags[1]))

    # -- the game on disk ---------------------------------------------------------------------

    def save(self, now: int, *, reopened: bool = False) -> list[GameSaved]:
        """Save the game in progress, or write it as PDN when it is over (the keeper never
        raises over the disk: see :class:`~crownhead.firmware.app.keeper.GameKeeper`).
        ``reopened``: the game's result was just taken back, and its kept file goes."""
        table = self.table
        if table.store is None or table.record is None:
            return []
        game = table.tracker.game
        if game is not table.kept_game:
            return []  # a new game is being set up; the old one was handled
        # The offer standing is kept with the game: it survives a power cut.
        record = replace(table.record.with_game(game), offer=offer_text(table.session.draw_offer))
        if table.board_clock is not None:
            record = record.with_times(table.board_clock.times, table.board_clock.control)  # each move's clock
        referee = table.referee
        if not record.finished:
            clock = table.settings.clock if referee is None else None
            kept = table.modes.kept(game, table.policy.settings.hints, clock)
            table.record = record = replace(record, mode=table.mode.name, settings=kept)
            return table.keeper.reopen(record, now) if reopened else table.keeper.save(record, now)
        table.record = record
        if referee is None or not referee.judges(table.session):
            return table.keeper.finish(record, now)
        return table.keeper.finish(record, now, lambda: referee.pdn(table.session))

    def _put_away(self, now: int) -> list[GameSaved]:
        """The game before a new one: kept as PDN if it had moves and had not ended."""
        table = self.table
        record = table.record
        if table.store is None or record is None or table.kept_game is None:
            return []
        return table.keeper.put_away(record.with_game(table.kept_game), now)

    def finished(self, now: int) -> list[Event]:
        """The game is over: written as PDN, and counted in the match under way once,
        whether or not the disk took it."""
        table = self.table
        written = table.keeper.written
        out: list[Event] = list(self.save(now))
        record = table.record
        if record is not None and record.finished and table.keeper.written is not written:
            ballot = table.referee.ballot if table.referee is not None else None
            out += table.matches.finished(record, now, ballot.number if ballot is not None else None)
        return out

    def keep_clock(self, now: int) -> None:
        """The clock on disk with the game it times (none while a saved game is set up)."""
        table = self.table
        record = table.record
        if record is not None and not table.resuming and table.session.game is table.kept_game:
            table.clock_saver.keep(table.session.clock, record.id, table.session.game.ply, now)

    def save_now(self, now: int) -> bool:
        """Save the game in progress at once (say, after its names changed); whether it is on disk."""
        table = self.table
        if table.resuming or table.tracker.setting_up is not None or table.tracker.game.is_over:
            return False
        table.pending += self.save(now)
        return table.keeper.kept
