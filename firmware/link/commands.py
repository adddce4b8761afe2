"""The link's commands, one table: what each command does on the board and what it answers.

The wire side of a command (its word, its arguments' shape, its help line) is
:data:`crownhead.firmware.link.protocol.COMMANDS`; this module is the board's side: :data:`TABLE`
gives each command word its handler, a function of the link, the time and the parsed
arguments returning the reply's body (or raising :class:`~crownhead.firmware.link.protocol.LinkError`),
and says whether the command changes the game (refused on a read-only link:
:data:`CONTROL_COMMANDS`) or only what the board shows (:data:`DISPLAY_COMMANDS`). The
two tables name the same commands (checked when this module loads). A handler reaches
the board through the link's declared parts only: ``link.app`` (the
:class:`~crownhead.firmware.link.board.LinkedBoard`), ``link.requests``, ``link.peer``,
``link.presenter`` and the link's own public methods.

>>> sorted(DISPLAY_COMMANDS), "fen" in CONTROL_COMMANDS, "new" in CONTROL_COMMANDS
(['brightness'], False, True)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crownhead.firmware.events import GameOver
from crownhead.firmware.link.board import SimHands
from crownhead.firmware.link.parts import LinkSide
from crownhead.firmware.link.protocol import COMMANDS, MAX_LINE, LinkError, encode_message, fit_hello, fits
from crownhead.rules import BLACK, WHITE, Color, Game, Position
from crownhead.rules.ballots import ballot as acf_ballot
from crownhead.rules.pdn import explain_illegal, move_text
from crownhead.rules.position import parse_move_squares
from crownhead.rules.variants import numeric_fen

if TYPE_CHECKING:
    from crownhead.firmware.link.board import LinkedBoard

__all__ = ["CONTROL_COMMANDS", "DISPLAY_COMMANDS", "TABLE", "Handler", "display_reply", "help_page", "side_name"]

_FEN_CHARS = re.compile(r"[0-9A-Za-z:,.\-]{3,200}")


def side_name(color: Color) -> str:
    return "black" if color is BLACK else "white"


def _board(link: LinkSide) -> LinkedBoard:
    app = link.app
    assert app is not None  # a link answers lines only once attached
    return app


def _require_playing(link: LinkSide, name: str) -> Game:
    """The game, when moves may be asked for; LinkError ``not-now`` otherwise."""
    app = _board(link)
    if app.resuming:
        raise LinkError("not-now", "a saved game is being resumed: its pieces must be set up first", name)
    if app.setting_up is not None:
        raise LinkError("not-now", "a new game is being set up on the board", name)
    game = app.game
    if game.is_over:
        raise LinkError("not-now", f"the game is over ({game.result.score if game.result else ''})", name)
    return game


# -- queries ---------------------------------------------------------------------------


def _hello(link: LinkSide, now: int) -> dict[str, Any]:
    body = fit_hello({"t": now, "event": "reply", "cmd": "hello", "ok": True, **link.identity(), "state": link.state()})
    return {k: v for k, v in body.items() if k not in ("t", "event", "cmd", "ok")}


def _help(link: LinkSide, now: int, start: int = 0) -> dict[str, Any]:
    return help_page(start)


def _fen(link: LinkSide, now: int) -> dict[str, Any]:
    app = _board(link)
    game = app.game
    setup = app.setting_up
    return {
        "fen": game.position.fen(),
        "ply": game.ply,
        "turn": side_name(game.turn),
        "setup": setup.fen() if setup is not None else None,
    }


def _moves(link: LinkSide, now: int) -> dict[str, Any]:
    app = _board(link)
    game = app.game
    position = game.position
    moves: list[str] = []
    if not game.is_over and app.setting_up is None:
        moves = [move_text(position, m, game.rules, numbers=True) for m in game.legal_moves()]
    body: dict[str, Any] = {"turn": side_name(game.turn), "moves": moves, "complete": True}
    while moves and not fits({"t": now, "event": "reply", "cmd": "moves", "ok": True, **body}):
        moves.pop()
        body["complete"] = False
    return body


def _pdn(link: LinkSide, now: int, offset: int) -> dict[str, Any]:
    text = link.pdn_text()
    size = len(text)
    if offset > size:
        raise LinkError("bad-argument", f"offset {offset} is past the end of the PDN ({size} characters)", "pdn")
    head = {
        "t": now,
        "event": "reply",
        "cmd": "pdn",
        "ok": True,
        "ply": _board(link).game.ply,
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


def _history(link: LinkSide, now: int, start: int) -> dict[str, Any]:
    app = _board(link)
    game = app.game
    setup = app.setting_up
    if setup is not None:
        game = Game(setup, game.rules)
    if start > game.ply:
        raise LinkError("bad-argument", f"ply {start} is past the game's {game.ply} moves", "history")
    # The number of the game's first move: a game tried again from move 6 goes on from 6.
    first = app.first_number if setup is None else 1
    body: dict[str, Any] = {
        "start": game.start.fen(),
        "first": first,
        "from": start,
        "ply": game.ply,
        "moves": [],
        "next": None,
    }
    for index in range(start, game.ply):
        body["moves"].append(move_text(game.positions[index], game.moves[index], game.rules, numbers=True))
        if not fits({"t": now, "event": "reply", "cmd": "history", "ok": True, **body}):
            body["moves"].pop()
            body["next"] = index
            break
    return body


def _view(link: LinkSide, now: int) -> dict[str, Any]:
    return link.presenter.view(now)


def _watch(link: LinkSide, now: int, state: str) -> dict[str, Any]:
    if not link.policy.may_stop_watching:
        return {"watching": True}
    link.watching = state == "on"
    link.presenter.resend()
    return {"watching": link.watching}


# -- the board's buttons and the simulated hands ---------------------------------------


def _press(link: LinkSide, now: int, button: str, long: bool) -> dict[str, Any]:
    _board(link).press(button, now, long=long)
    return {"button": button, "long": long}


def _brightness(link: LinkSide, now: int, percent: int) -> dict[str, Any]:
    _board(link).set_brightness(percent / 100)
    return display_reply("brightness", (percent,))


def _sim(link: LinkSide, name: str) -> tuple[Mapping[int, str], Sequence[str]]:
    """The simulated board's pieces and hand; LinkError on real hardware."""
    sim = _board(link).simulated()
    if sim is None:
        raise LinkError("not-now", "this board is real hardware: there are no simulated hands", name)
    return sim


def _hands_of(link: LinkSide, name: str) -> SimHands:
    _sim(link, name)
    if link.hands is None:
        raise LinkError("not-now", "no simulated hands are given to this link", name)
    return link.hands


def _touch(link: LinkSide, now: int, square: int) -> dict[str, Any]:
    from crownhead.sim.board import SimError

    hands = _hands_of(link, "touch")
    try:
        hands.toggle(square)
    except SimError as exc:
        raise LinkError("not-now", str(exc), "touch") from None
    pieces, hand = _sim(link, "touch")
    return {"square": square, "piece": pieces.get(square), "hand": "".join(t[:1] for t in hand)}


def _hands(link: LinkSide, now: int, text: str) -> dict[str, Any]:
    from crownhead.sim.board import SimError

    hands = _hands_of(link, "hands")
    try:
        hands.hand_move(text)
    except (SimError, ValueError) as exc:
        raise LinkError("not-now", str(exc), "hands") from None
    return {"move": text}


def _follow(link: LinkSide, now: int) -> dict[str, Any]:
    from crownhead.sim.board import SimError

    hands = _hands_of(link, "follow")
    try:
        hands.follow()
    except (SimError, ValueError) as exc:
        raise LinkError("not-now", str(exc), "follow") from None
    return {"said": _board(link).message}


# -- commands that change the game -----------------------------------------------------


def _new(link: LinkSide, now: int, fen: str | None) -> dict[str, Any]:
    app = _board(link)
    if fen is None:
        position = Position.start(app.game.rules)
    else:
        if not _FEN_CHARS.fullmatch(fen):
            raise LinkError("bad-argument", "not a FEN (like B:W21-32:B1-12)", "new")
        try:
            position = Position.from_fen(numeric_fen(fen))
        except ValueError as exc:
            raise LinkError("bad-argument", f"bad FEN: {exc}", "new") from None
    link.peer.stop_following()
    # A saved game being resumed is given up, as the board's new button does: it is
    # kept (as an unfinished game) when the new game begins.
    app.give_up_resume()
    link.emit(app.new_game(position, now))
    return {"fen": position.fen(), "ready": app.setting_up is None}


def _again(link: LinkSide, now: int, game: str, ply: int, opponent: str) -> dict[str, Any]:
    app = _board(link)
    if link.linked:
        raise LinkError("not-now", "a game with the other end of the link is not tried again here", "again")
    try:
        events = app.try_again(game, ply, opponent, now)
    except ValueError as exc:
        raise LinkError("bad-argument", str(exc), "again") from None
    link.peer.stop_following()
    link.emit(events)
    setting_up = app.setting_up
    return {"game": game, "ply": ply, "opponent": opponent, "fen": setting_up.fen() if setting_up else None}


def _problem(link: LinkSide, now: int, which: str) -> dict[str, Any]:
    """The problem mode (docs/coach.md): ``next`` the next problem at the player's
    level, an id that problem, ``off`` leave it; the reply is the mode's state."""
    app = _board(link)
    if link.linked:
        raise LinkError("not-now", "the other end of the link plays a side here: no problems", "problem")
    try:
        events = (
            app.leave_problems(now) if which == "off" else app.start_problem(None if which == "next" else which, now)
        )
    except KeyError as exc:
        raise LinkError("bad-argument", str(exc.args[0]), "problem") from None
    except ValueError as exc:
        raise LinkError("not-now", str(exc), "problem") from None
    link.peer.stop_following()
    link.emit(events)
    return app.problem_state()


def _problems(link: LinkSide, now: int) -> dict[str, Any]:
    return _board(link).problem_state()


def _play(link: LinkSide, now: int, text: str) -> dict[str, Any]:
    app = _board(link)
    game = _require_playing(link, "play")
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
    if link.remote is not None and turn is not link.remote:
        raise LinkError("wrong-side", f"{side_name(turn)} is played at this board (link.plays = {link.plays})", "play")
    player = app.players[turn]
    if not player.is_human:
        raise LinkError("wrong-side", f"{player.name} (the computer) plays {side_name(turn)} here", "play")
    ply = game.ply + 1
    other = link.peer.moves.get(ply) if link.linked else None
    if other is not None and other != move:
        raise LinkError("not-now", f"the other board has already played {other.pdn(full=True)}", "play")
    requests = link.requests
    ballot = app.ballot_move if app.referee_mode else requests.ballot_move(game)
    if ballot is not None and ballot != move:
        raise LinkError("illegal-move", f"the ballot's move {ply} is {ballot.pdn()}", "play")
    requests.host[ply] = move
    requests.sync(now)
    return {
        "ply": ply,
        "side": side_name(turn),
        "move": move_text(position, move, game.rules, numbers=True),
        "path": list(move.path),
        "captures": list(move.captures),
    }


def _hint(link: LinkSide, now: int, state: str) -> dict[str, Any]:
    policy = _board(link).policy
    policy.set_hints(state == "on")
    return {"hints": state == "on", "shown": policy.hints_shown}


def _mode(link: LinkSide, now: int, name: str, side: str | None = None, level: int | None = None) -> dict[str, Any]:
    app = _board(link)
    requests = link.requests
    computer = None
    if name == "computer":
        if link.remote is not None:
            raise LinkError("not-now", f"the other side is played over the link (link.plays = {link.plays})", "mode")
        try:
            computer = (BLACK if side == "black" else WHITE, app.computer_player(level))
        except ValueError as exc:
            raise LinkError("not-now", str(exc), "mode") from None
    game = app.game
    # A ballot chosen and not begun goes on under the new mode: in referee mode the
    # referee plays it (and alone asks for its moves), otherwise the link does.
    carried: int | None = None
    if game.ply == 0 and app.setting_up is None:
        if name == "referee" and not app.referee_mode and requests.ballot_move(game) is not None:
            assert requests.ballot is not None
            carried = requests.ballot[0]
        elif name == "play" and app.referee_mode and app.ballot_move is not None:
            ballot = app.ballot
            carried = ballot.number if ballot is not None else None
    try:
        app.set_mode(name, now, computer)
    except ValueError as exc:
        raise LinkError("not-now", str(exc), "mode") from None
    if carried is not None:
        requests.ballot = None
        if app.referee_mode:
            try:
                link.emit(app.set_ballot(carried, now))
            except ValueError as exc:  # the mode has changed; say why the ballot did not follow
                link.notice(now, f"ballot-{carried}-{now}", f"ballot {carried} is not played under the referee: {exc}")
        else:
            requests.ballot = (carried, tuple(acf_ballot(carried).play_moves(game.rules)))
        requests.sync(now)
    body: dict[str, Any] = {"mode": name}
    if computer is not None:
        body.update({"computer": side, "level": level})
    return body


def _rules(link: LinkSide, now: int, variant: str, options: tuple[str, ...]) -> dict[str, Any]:
    from crownhead.rules.settings import with_house_rules
    from crownhead.rules.variants import rules_for

    app = _board(link)
    if link.linked:
        raise LinkError("not-now", "the rules of a game played over the link are the two boards' own", "rules")
    try:
        rules = with_house_rules(rules_for(variant), options)
        link.emit(app.set_rules(rules, now))
    except ValueError as exc:
        raise LinkError("not-now", str(exc), "rules") from None
    link.peer.stop_following()
    return {"variant": rules.variant, "rules": rules.describe(), "fen": Position.start(rules).fen()}


def _referee(link: LinkSide, now: int, items: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    from crownhead.firmware.gameclock import ClockSpecError, TimeControl

    app = _board(link)
    game = app.game
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


def _names(link: LinkSide, now: int, black: str, white: str) -> dict[str, Any]:
    saved = _board(link).set_player_names(black, white, now)
    return {"black": black, "white": white, "saved": saved}


def _ballot(link: LinkSide, now: int, number: int) -> dict[str, Any]:
    app = _board(link)
    game = _require_playing(link, "ballot")
    try:
        chosen = acf_ballot(number)
    except ValueError as exc:
        raise LinkError("bad-argument", str(exc), "ballot") from None
    if not chosen.in_deck:
        raise LinkError("bad-argument", f"ballot {number} is barred (lost for one side): it is never played", "ballot")
    if game.ply != 0 or game.start != Position.start(game.rules):
        raise LinkError("not-now", "a ballot is played from the start position before the first move", "ballot")
    try:
        moves = tuple(chosen.play_moves(game.rules))
    except ValueError as exc:
        raise LinkError("not-now", f"ballot {number} does not fit these rules: {exc}", "ballot") from None
    if app.referee_mode:
        # The referee plays the ballot (and its pair's second game) and records it.
        try:
            link.emit(app.set_ballot(number, now))
        except ValueError as exc:
            raise LinkError("not-now", str(exc), "ballot") from None
    else:
        link.requests.ballot = (number, moves)
        link.requests.sync(now)
    return {"number": number, "name": chosen.name, "moves": list(chosen.moves)}


def _result(link: LinkSide, now: int, score: str, reason: str) -> dict[str, Any]:
    game = _require_playing(link, "result")
    link.requests.declare(now, score, reason)
    result = game.result
    if result is None or (result.score, result.reason) != (score, reason):
        # What was due first ended the game otherwise: a move made before the decision
        # (a referee accepts it first) that left no move, a flag that fell. That stands.
        how = f": {result.score} ({result.reason})" if result is not None else ""
        raise LinkError("not-now", f"the game had already ended{how}; {score} was not applied", "result")
    return {"result": score, "reason": reason}


def _speaks_for(link: LinkSide, side: str, name: str) -> Color:
    """The side a ``draw``/``resign`` command speaks for: any, or only the link's own."""
    color = BLACK if side == "black" else WHITE
    if link.remote is not None and color is not link.remote:
        raise LinkError("wrong-side", f"{side} is played at this board (link.plays = {link.plays})", name)
    return color


def _draw(link: LinkSide, now: int, side: str) -> dict[str, Any]:
    """``side`` offers a draw, or accepts the other side's standing offer (the same
    request as that side's own draw button; the web page sends it too)."""
    _require_playing(link, "draw")
    color = _speaks_for(link, side, "draw")
    events = _board(link).offer_draw(color, now)
    link.emit(events)
    agreed = any(isinstance(e, GameOver) for e in events)
    return {"side": side, "draw": "agreed" if agreed else "offered"}


def _resign(link: LinkSide, now: int, side: str) -> dict[str, Any]:
    """``side`` resigns at once: a command is deliberate, it needs no second press."""
    app = _board(link)
    _require_playing(link, "resign")
    color = _speaks_for(link, side, "resign")
    link.emit(app.resign(color, now, confirmed=True))
    result = app.game.result
    return {"side": side, "result": result.score if result is not None else "*"}


# -- the table -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Handler:
    """What a command does (``run(link, now, *args)``: the reply's body), whether it may
    change the game (``control``: refused on a read-only link) and whether it changes
    only what the board shows (``display``: its reply is known once it is parsed)."""

    run: Callable[..., dict[str, Any]]
    control: bool = False
    display: bool = False


#: Every command's handler, by command word.
TABLE: Mapping[str, Handler] = MappingProxyType(
    {
        "hello": Handler(_hello),
        "help": Handler(_help),
        "fen": Handler(_fen),
        "moves": Handler(_moves),
        "pdn": Handler(_pdn),
        "history": Handler(_history),
        "view": Handler(_view),
        "watch": Handler(_watch),
        "press": Handler(_press, control=True),
        "brightness": Handler(_brightness, control=True, display=True),
        "touch": Handler(_touch, control=True),
        "hands": Handler(_hands, control=True),
        "follow": Handler(_follow, control=True),
        "new": Handler(_new, control=True),
        "again": Handler(_again, control=True),
        "problem": Handler(_problem, control=True),
        "problems": Handler(_problems),
        "play": Handler(_play, control=True),
        "hint": Handler(_hint, control=True),
        "mode": Handler(_mode, control=True),
        "rules": Handler(_rules, control=True),
        "referee": Handler(_referee, control=True),
        "names": Handler(_names, control=True),
        "ballot": Handler(_ballot, control=True),
        "result": Handler(_result, control=True),
        "draw": Handler(_draw, control=True),
        "resign": Handler(_resign, control=True),
    }
)
if set(TABLE) != set(COMMANDS):  # the wire's commands and the board's are the same
    raise ImportError(f"the link's command table and the protocol differ: {sorted(set(TABLE) ^ set(COMMANDS))}")

#: Commands that change something; refused on a read-only link.
CONTROL_COMMANDS = frozenset(name for name, handler in TABLE.items() if handler.control)
#: Commands that change only what the board shows (its lights), never the game or who
#: plays it: a view after them is the last one with the fields they set.
DISPLAY_COMMANDS = frozenset(name for name, handler in TABLE.items() if handler.display)


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
