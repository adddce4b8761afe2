"""Two boards, one game: following the board at the other end of the link.

:class:`PeerFollower` is the part of :class:`~firmware.link.host.Link` that reads another
board's event lines (a line starting with ``{``) when ``link.plays`` gives one side to
the link. It never answers them (two boards must not bounce lines back and forth); it
keeps what it learns for :meth:`Link._sync <firmware.link.host.Link>`, which shows the other
side's moves on this board's lights:

* ``move``: the other board's moves by ply, both sides' (its own, and its echo of this
  board's once its people made them there);
* ``takeback``: forget them from that ply on; undo here a move of the other side;
* ``game-over``: the same result here once this board has reached the same move;
* ``hello`` and ``state``: which game the other board plays (a :class:`GameId`) and
  where it stands. Boards on the same game catch up (a drop hides one move at most);
  a newer game hardly begun is joined; the same game under two ids (a board restarted
  and resumed it) takes the greater id; anything else is reported, never guessed at.

Move, takeback and result lines count only when the other board has said it plays this
board's game, so an echo from before a new game changes nothing.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from rules import Color, Game, Move, Position

if TYPE_CHECKING:
    from firmware.events import Event
    from firmware.link.board import LinkedBoard

__all__ = ["GameId", "PeerFollower"]

_REASON = re.compile(r"[a-z][a-z0-9-]{0,31}")
_RESULTS = ("1-0", "0-1", "1/2-1/2")


class GameId(NamedTuple):
    """Which game two linked boards play: a serial number, then a random tag.

    The greater id wins when the boards disagree; a new game takes the serial after the
    greatest seen, so the last ``new`` pressed is the game both follow.

    >>> GameId.parse("3-a1b2c3") > GameId(2, "ffffff")
    True
    >>> str(GameId(3, "a1b2c3"))
    '3-a1b2c3'
    """

    serial: int
    tag: str

    def __str__(self) -> str:
        return f"{self.serial}-{self.tag}"

    @classmethod
    def parse(cls, text: object) -> GameId:
        match = _GAME_ID.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"bad game id {text!r}")
        return cls(int(match[1]), match[2])

    @classmethod
    def new(cls, serial: int) -> GameId:
        return cls(serial, secrets.token_hex(3))


_GAME_ID = re.compile(r"(\d{1,9})-([0-9a-f]{1,16})")


def _as_move(data: object) -> tuple[int, str, Move] | None:
    """``(ply, side, move)`` from a peer's move object, or None if it is malformed."""
    if not isinstance(data, Mapping):
        return None
    ply, side, path, captures = data.get("ply"), data.get("side"), data.get("path"), data.get("captures")
    if type(ply) is not int or not 1 <= ply <= 100_000 or side not in ("black", "white"):
        return None
    if not isinstance(path, list) or not 2 <= len(path) <= 13 or not isinstance(captures, list) or len(captures) > 12:
        return None
    squares = path + captures
    if not all(type(s) is int and 1 <= s <= 32 for s in squares):
        return None
    return ply, side, Move(tuple(path), tuple(captures))


class PeerFollower:
    """Reads the other board's lines and keeps what they say (mixed into ``Link``).

    The state it keeps is initialised by ``Link.__init__``; the methods it uses from
    ``Link`` are named below for the type checker.
    """

    app: LinkedBoard | None
    plays: str
    game_id: GameId
    _serial_seen: int
    _following: tuple[GameId, str] | None
    _peer_moves: dict[int, Move]
    _peer_ply: int
    _peer_result: tuple[str, str, int] | None
    _peer_plays: str | None
    _peer_game: GameId | None
    _host_moves: dict[int, Move]
    _ballot: tuple[int, tuple[Move, ...]] | None
    _expect: tuple[int, Move, str] | None
    _events: list[Event]

    if TYPE_CHECKING:

        @property
        def remote(self) -> Color | None: ...
        @property
        def linked(self) -> bool: ...
        def _game(self) -> Game: ...
        def _setting_up(self) -> Position | None: ...
        def _state(self) -> dict[str, Any]: ...
        def _hello(self, now: int, cause: str) -> dict[str, Any]: ...
        def _send(self, obj: Mapping[str, Any]) -> None: ...
        def _notice(self, now: int, key: str, message: str) -> None: ...

    def _peer(self, data: dict[str, Any], now: int) -> None:
        """Another board's event line: follow it when it concerns the game. Never answered."""
        if not self.linked:
            return
        kind = data["event"]
        if kind in ("move", "takeback", "game-over") and self._peer_game != self.game_id:
            return  # about a game this board does not play (yet): an echo from before a new game
        if kind == "hello":
            plays = data.get("plays")
            if isinstance(plays, str):
                self._peer_plays = plays
                if plays == self.plays or plays == "both":
                    self._notice(
                        now,
                        f"plays-{plays}",
                        f"the other board plays {plays}, this one {self.plays}: "
                        "set link.plays to black on one board and white on the other",
                    )
            self._reconcile(data.get("state"), now, answer="hello" if data.get("cause") != "answer" else None)
        elif kind == "reply" and data.get("cmd") == "hello":
            self._reconcile(data.get("state"), now, answer=None)
        elif kind == "state":
            self._reconcile(data, now, answer="state" if data.get("cause") != "answer" else None)
        elif kind == "move":
            parsed = _as_move(data)
            if parsed is not None:
                self._peer_move(*parsed, now=now)
        elif kind == "takeback":
            ply = data.get("ply")
            if type(ply) is int and 1 <= ply <= 100_000:
                self._peer_takeback(ply, now)
        elif kind == "game-over":
            score, reason = data.get("result"), data.get("reason")
            if score in _RESULTS and isinstance(reason, str) and _REASON.fullmatch(reason):
                self._peer_result = (score, reason, self._peer_ply)

    def _peer_move(self, ply: int, side: str, move: Move, now: int) -> None:
        game = self._game()
        if ply <= game.ply and self._setting_up() is None:
            if game.moves[ply - 1] != move:
                self._notice(
                    now,
                    f"conflict-{ply}",
                    f"the other board played {move.pdn(full=True)} as move {ply}, "
                    f"this one {game.moves[ply - 1].pdn(full=True)}: the boards are out of step",
                )
                return
        self._peer_moves[ply] = move
        self._peer_ply = ply

    def _peer_takeback(self, ply: int, now: int) -> None:
        assert self.app is not None
        for p in [p for p in self._peer_moves if p >= ply]:
            del self._peer_moves[p]
        self._peer_ply = ply - 1
        game = self._game()
        if self._setting_up() is not None or self.app.resuming or game.ply != ply:
            return
        if game.positions[-2].turn is self.remote:
            # The other board took back its own move, which was made here too: undo it here.
            self._events += self.app.take_back(now)

    def _own_view(self) -> tuple[str, int, list[Position]]:
        """This board's game for comparison: start FEN, ply, positions (a set-up: its start)."""
        setup = self._setting_up()
        if setup is not None:
            return setup.fen(), 0, [setup]
        game = self._game()
        return game.start.fen(), game.ply, list(game.positions)

    def _consistent(self, start: str, ply: int, fen: str, last: Move | None) -> bool | None:
        """Whether the other board's state is this game (None: cannot tell, it is too far ahead)."""
        own_start, own_ply, positions = self._own_view()
        if start != own_start:
            return False
        if ply <= own_ply:
            return positions[ply].fen() == fen
        if ply == own_ply + 1 and last is not None:
            game = self._game()
            position = positions[-1]
            if last not in position.legal_moves(game.rules):
                return False
            return position.apply(last, game.rules).fen() == fen
        return None

    def _reconcile(self, state: object, now: int, answer: str | None) -> None:
        """Compare the other board's state with this game; follow, lead or catch up."""
        assert self.app is not None
        if not isinstance(state, Mapping):
            return
        try:
            peer_id = GameId.parse(state.get("game"))
            start = Position.from_fen(str(state.get("start"))).fen()
            fen = Position.from_fen(str(state.get("fen"))).fen()
        except ValueError:
            return
        ply = state.get("ply")
        if type(ply) is not int or not 0 <= ply <= 100_000:
            return
        last = _as_move(state.get("last")) if state.get("last") is not None else None
        last_move = last[2] if last is not None and last[0] == ply else None
        self._serial_seen = max(self._serial_seen, peer_id.serial)
        self._peer_game = peer_id
        own_ply = self._own_view()[1]
        same = self._consistent(start, ply, fen, last_move)
        if peer_id != self.game_id:
            if peer_id > self.game_id and ply <= 1:
                # A newer game, hardly begun: someone pressed new over there. Join it.
                self._follow(peer_id, start, now)
                answer = None  # the game being set up here is theirs: nothing to tell them
            elif same and abs(ply - own_ply) <= 1:
                # The same game under two names (a board restarted and resumed it).
                if peer_id > self.game_id:
                    self.game_id = peer_id
                    if answer is None:
                        answer = "state"  # tell them the name is taken: their moves count from now

            else:
                if peer_id > self.game_id:
                    self._notice(
                        now,
                        f"behind-{peer_id}",
                        f"the other board plays another game ({ply} moves in, from {start}); "
                        "press new on one board to start a game together",
                    )
                same = False  # a different game: nothing of it applies here
        elif same is False:
            self._notice(
                now,
                f"diverged-{peer_id}-{ply}",
                f"the other board's game has gone another way (at move {ply}: {fen}): the boards are out of step",
            )
        if same is not False:
            self._peer_ply = ply
            own_ply = self._own_view()[1]
            if last_move is not None:
                if ply > own_ply or self._game().moves[ply - 1] == last_move:
                    self._peer_moves[ply] = last_move
            result, reason = state.get("result"), state.get("reason")
            if result in _RESULTS and isinstance(reason, str) and _REASON.fullmatch(reason):
                self._peer_result = (result, reason, ply)
        if answer is not None:
            own = self._state()
            if answer == "hello":
                self._send(self._hello(now, "answer"))
            elif own["game"] != state.get("game") or own["ply"] != ply or answer == "state":
                self._send({"t": now, "event": "state", "cause": "answer", **own})

    def _follow(self, peer_id: GameId, start: str, now: int) -> None:
        """Start the other board's new game here (its pieces are set up as usual)."""
        assert self.app is not None
        if self.app.resuming:
            self._notice(now, f"follow-{peer_id}", "the other board started a new game: press new here to join it")
            return
        self._following = (peer_id, start)
        self.game_id = peer_id
        self._peer_moves.clear()
        self._peer_result = None
        self._host_moves.clear()
        self._ballot = None
        self._expect = None
        self._events += self.app.new_game(Position.from_fen(start), now)
