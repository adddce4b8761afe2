"""The table of what the application does for each event of a step.

Every event of a step, the board's and the commands', is handled in turn by one
function of :data:`HANDLERS` (by the event's class, the first of its classes found) or
:data:`KIND_HANDLERS` (by its kind): it keeps the game on disk, says something on the
message line, moves the machine on, and returns the events it causes, handled after it
(:func:`handle`).
"""

from __future__ import annotations

from collections.abc import Callable

from crownhead.firmware.app.commands import Commands
from crownhead.firmware.app.hardware import tidy_hand
from crownhead.firmware.events import (
    Crowned,
    DrawLapsed,
    DrawOffer,
    Event,
    ForcedJump,
    Forfeit,
    GameOver,
    Huffed,
    HuffTakenBack,
    MoveMade,
    NewGame,
    Reopened,
    ResignAsked,
    TakenBack,
)

__all__ = ["HANDLERS", "KIND_HANDLERS", "handle"]

#: A handler: the application, the event and the step's time; the events it causes.
Handler = Callable[[Commands, Event, int], list[Event]]

#: What the screen says when a result is taken back (:class:`Reopened`), by its reason.
_REOPENED_WORDS = {
    "resign": "The resignation is taken back: play on.",
    "agreement": "The draw agreed is taken back: play on.",
}


def handle(app: Commands, event: Event, now: int) -> list[Event]:
    """Keep the game for ``event``; return the events it causes (handled in turn): its
    handler from :data:`HANDLERS` (by its class) or :data:`KIND_HANDLERS` (by its kind)."""
    if isinstance(event, (MoveMade, TakenBack, GameOver, NewGame)):
        app.message_line.forget()
    if isinstance(event, (MoveMade, NewGame)) and app.sim is not None:
        tidy_hand(app.sim, event, app.tracker.game)
    for kind in type(event).__mro__:
        handler = HANDLERS.get(kind)
        if handler is not None:
            return handler(app, event, now)
    by_kind = KIND_HANDLERS.get(event.kind)
    return by_kind(app, event, now) if by_kind is not None else []


def _kept(app: Commands, now: int) -> list[Event]:
    """The game saved, unless it is over (saved with its result, at game-over)."""
    return [] if app.tracker.game.is_over else list(app.recorder.save(now))


def on_move(app: Commands, event: Event, now: int) -> list[Event]:
    app.policy.turn_changed()
    app.hints.forget()
    return _kept(app, now)  # a last move is saved with the result, at game-over


def on_takeback(app: Commands, event: Event, now: int) -> list[Event]:
    """A move taken back or a forced jump made for the side to move."""
    tracker = app.tracker
    app.policy.turn_changed()
    app.hints.forget()
    app.thinker.cancel()
    pressed, app.takeback_pressed = app.takeback_pressed, False
    if not isinstance(event, TakenBack):
        return list(app.recorder.save(now))
    # Said on the terminal and the pages, whether a button or the hands (a piece
    # moved back) took it back: the board alone shows no sign.
    app.message_line.say(app.scene.taken_back_words(event.ply))
    if app.machine.takes_back_two(pressed):
        # The person takes back their own move, not just the machine's answer
        # (which the machine would only ask for again): a second ply goes, and the
        # lights guide the board back to the position before the person's move.
        return app.follower.take_back(now) + app.follower.restore(tracker.board, now)
    return list(app.recorder.save(now))


def on_huff(app: Commands, event: Event, now: int) -> list[Event]:
    app.thinker.cancel()  # the position changed under the side to move
    app.hints.forget()
    return list(app.recorder.save(now))


def on_game_over(app: Commands, event: Event, now: int) -> list[Event]:
    out = app.recorder.finished(now)
    if app.tracker.expected is not None:
        app.tracker.expect(None)  # the machine's move shown is moot now
    return out


def on_draw_offer(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, DrawOffer)
    out = app.machine.answer_offer(event, now)
    if not app.tracker.game.is_over:
        out += app.recorder.save(now)  # an offer stands through a power cut
    return out


def on_lapsed(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, DrawLapsed)
    app.say(event.message)  # the other side's draw button offers now: say why
    return _kept(app, now)


def on_resign_asked(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, ResignAsked)
    app.say(f"{event.side.title()}: press resign again within 3 s to resign (or hold it down).", until=event.until)
    return []


def on_reopened(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, Reopened)
    app.say(_REOPENED_WORDS.get(event.reason, "The result is taken back: play on."))
    app.policy.turn_changed()
    return list(app.recorder.save(now, reopened=True))  # the game in progress again, its result unkept


def on_new_game(app: Commands, event: Event, now: int) -> list[Event]:
    """The set-up position stands on the board: the saved game resumed, or a new game began."""
    app.policy.turn_changed()
    app.hints.forget()
    app.thinker.cancel()
    return app.recorder.new_game(now)


def on_claim(app: Commands, event: Event, now: int) -> list[Event]:
    # A refused claim changes nothing on the board: the screen says why.
    app.say(str(getattr(event, "message", "")))
    if not app.tracker.game.is_over and app.referee is not None:
        return list(app.recorder.save(now))  # the referee's note, kept with the game
    return []


def on_forfeit(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, Forfeit)
    app.say(f"{event.side.title()} forfeits the game: a second illegal move ({event.message}), WCDF 1.25.")
    return []


def on_caution(app: Commands, event: Event, now: int) -> list[Event]:
    return _kept(app, now)  # a second caution after a restart still forfeits


def on_crowned(app: Commands, event: Event, now: int) -> list[Event]:
    assert isinstance(event, Crowned)
    sim = app.sim
    if app.settings.auto_crown and sim is not None:
        token = sim.pieces.get(event.square)
        if token is not None and token.islower():
            # Stacking a second piece keeps the switch closed: no sensor change.
            sim.crown(event.square)
    return []


#: What the application does for an event, by its class (the first of its classes found):
#: keep the game, say something, move the machine on; returns the events it causes.
HANDLERS: dict[type, Handler] = {
    MoveMade: on_move,
    TakenBack: on_takeback,
    ForcedJump: on_takeback,
    Huffed: on_huff,
    HuffTakenBack: on_huff,
    GameOver: on_game_over,
    DrawOffer: on_draw_offer,
    DrawLapsed: on_lapsed,
    ResignAsked: on_resign_asked,
    Reopened: on_reopened,
    NewGame: on_new_game,
    Forfeit: on_forfeit,
    Crowned: on_crowned,
}

#: The same, by an event's kind, for those without a handler by class.
KIND_HANDLERS: dict[str, Handler] = {
    "claim": on_claim,
    "caution": on_caution,
}
