"""Two boards, one game: following the board at the other end of the link.

:class:`PeerSync` is the part of a :class:`~crownhead.firmware.link.host.Link` that reads another
board's event lines (a line starting with ``{``) when ``link.plays`` gives one side to
the link: an object of its own the link holds (``link.peer``), not a base class. It never
answers those lines (two boards must not bounce lines back and forth); it keeps what it
learns for the link's requests (:class:`~crownhead.firmware.link.requests.MoveRequests`), which show
the other side's moves on this board's lights:

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
from collections.abc import Mapping
from typing import Any

from crownhead.firmware.link.parts import GameId, LinkSide
from crownhead.rules import Move, Position

__all__ = ["GameId", "PeerSync"]

_REASON = re.compile(r"[a-z][a-z0-9-]{0,31}")
_RESULTS = ("1-0", "0-1", "1/2-1/2")


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


class PeerSync:
    """What the other board's lines say, kept for the link (see the module).

    ``link`` is the link it belongs to: its board (``link.app``), its side
    (``link.plays``), its policy (which may refuse a result the other board sends), and
    the declared ways a part of the link speaks (``send``, ``notice``, ``emit``).
    """

    def __init__(self, link: LinkSide) -> None:
        self.link = link
        #: The game this board plays, as the two boards name it.
        self.game_id = GameId.new(0)
        self._serial_seen = 0
        # The other board's new game being set up here: (its id, its start).
        self._following: tuple[GameId, str] | None = None
        #: What is known of the other board's game, by ply: its moves (both sides').
        self.moves: dict[int, Move] = {}
        #: The ply the other board has reached.
        self.ply = 0
        #: The other board's result and the ply it came at, until this board reaches it.
        self.result: tuple[str, str, int] | None = None
        #: The side the other board says it plays.
        self.plays: str | None = None
        # The game the other board last said it plays: its moves count only when it is ours.
        self._game: GameId | None = None

    @property
    def same_game(self) -> bool:
        """Whether the other board has said it plays this board's game."""
        return self._game == self.game_id

    @property
    def pending(self) -> bool:
        """Whether anything of the other board's is still to be shown or applied here."""
        return bool(self.moves or self.result)

    def forget_from(self, ply: int) -> None:
        """The other board's moves from ``ply`` on no longer stand (taken back on both)."""
        for p in [p for p in self.moves if p >= ply]:
            del self.moves[p]
        self.ply = min(self.ply, ply - 1)

    def stop_following(self) -> None:
        """A game begun here (a host's ``new``, new rules): not the other board's."""
        self._following = None

    def begin_as(self, game_id: GameId, start: str) -> None:
        """The next game begun here from the FEN ``start`` is game ``game_id``: one both
        boards agreed elsewhere (a game far apart's invitation), named alike on both, so
        neither takes the other's for a newer game to join."""
        self._following = (game_id, start)

    def resume_as(self, game_id: GameId) -> None:
        """The game this board resumes is game ``game_id``, as both boards named it before
        this one went off: the other board's lines about it count at once (it played it)."""
        self.game_id = self._game = game_id
        self._serial_seen = max(self._serial_seen, game_id.serial)

    def new_game(self, fen: str) -> None:
        """A new game began on this board from ``fen``: the other board's, if it is the
        one being followed, else a new one with the serial after the greatest seen."""
        following, self._following = self._following, None
        if following is not None and following[1] == fen:
            self.game_id = following[0]
        else:
            self._serial_seen += 1
            self.game_id = GameId.new(self._serial_seen)
            self.moves.clear()
            self.result = None
            self.ply = 0
        self._serial_seen = max(self._serial_seen, self.game_id.serial)

    def follow(self, data: dict[str, Any], now: int) -> None:
        """Another board's event line: follow it when it concerns the game. Never answered."""
        if not self.link.linked:
            return
        kind = data["event"]
        if kind in ("move", "takeback", "game-over") and not self.same_game:
            return  # about a game this board does not play (yet): an echo from before a new game
        if kind == "hello":
            plays = data.get("plays")
            if isinstance(plays, str):
                self.plays = plays
                if plays == self.link.plays or plays == "both":
                    self.link.notice(
                        now,
                        f"plays-{plays}",
                        f"the other board plays {plays}, this one {self.link.plays}: "
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
                self._move(*parsed, now=now)
        elif kind == "takeback":
            ply = data.get("ply")
            if type(ply) is int and 1 <= ply <= 100_000:
                self._takeback(ply, now)
        elif kind == "game-over":
            score, reason = data.get("result"), data.get("reason")
            if score in _RESULTS and isinstance(reason, str) and _REASON.fullmatch(reason):
                self._take_result(score, reason, self.ply, now)

    def _take_result(self, score: str, reason: str, ply: int, now: int) -> None:
        """The other board's result, to apply here at ``ply``, unless the link's policy
        refuses it (a game far apart: this board's own resignation or flag)."""
        if self.link.policy.accepts_result(score, reason, now):
            self.result = (score, reason, ply)

    def _move(self, ply: int, side: str, move: Move, now: int) -> None:
        app = self.link.app
        assert app is not None
        game = app.game
        if ply <= game.ply and app.setting_up is None:
            if game.moves[ply - 1] != move:
                self.link.notice(
                    now,
                    f"conflict-{ply}",
                    f"the other board played {move.pdn(full=True)} as move {ply}, "
                    f"this one {game.moves[ply - 1].pdn(full=True)}: the boards are out of step",
                )
                return
        self.moves[ply] = move
        self.ply = ply

    def _takeback(self, ply: int, now: int) -> None:
        app = self.link.app
        assert app is not None
        for p in [p for p in self.moves if p >= ply]:
            del self.moves[p]
        self.ply = ply - 1
        game = app.game
        if app.setting_up is not None or app.resuming or game.ply != ply:
            return
        if game.positions[-2].turn is self.link.remote:
            # The other board took back its own move, which was made here too: undo it here.
            self.link.emit(app.take_back(now))

    def _own_view(self) -> tuple[str, int, list[Position]]:
        """This board's game for comparison: start FEN, ply, positions (a set-up: its start)."""
        app = self.link.app
        assert app is not None
        setup = app.setting_up
        if setup is not None:
            return setup.fen(), 0, [setup]
        game = app.game
        return game.start.fen(), game.ply, list(game.positions)

    def _consistent(self, start: str, ply: int, fen: str, last: Move | None) -> bool | None:
        """Whether the other board's state is this game (None: cannot tell, it is too far ahead)."""
        own_start, own_ply, positions = self._own_view()
        if start != own_start:
            return False
        if ply <= own_ply:
            return positions[ply].fen() == fen
        if ply == own_ply + 1 and last is not None:
            app = self.link.app
            assert app is not None
            rules = app.game.rules
            position = positions[-1]
            if last not in position.legal_moves(rules):
                return False
            return position.apply(last, rules).fen() == fen
        return None

    def _reconcile(self, state: object, now: int, answer: str | None) -> None:
        """Compare the other board's state with this game; follow, lead or catch up."""
        app = self.link.app
        assert app is not None
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
        self._game = peer_id
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
                    self.link.notice(
                        now,
                        f"behind-{peer_id}",
                        f"the other board plays another game ({ply} moves in, from {start}); "
                        "press new on one board to start a game together",
                    )
                same = False  # a different game: nothing of it applies here
        elif same is False:
            self.link.notice(
                now,
                f"diverged-{peer_id}-{ply}",
                f"the other board's game has gone another way (at move {ply}: {fen}): the boards are out of step",
            )
        if same is not False:
            self.ply = ply
            own_ply = self._own_view()[1]
            if last_move is not None:
                if ply > own_ply or app.game.moves[ply - 1] == last_move:
                    self.moves[ply] = last_move
            result, reason = state.get("result"), state.get("reason")
            if result in _RESULTS and isinstance(reason, str) and _REASON.fullmatch(reason):
                self._take_result(result, reason, ply, now)
        if answer is not None:
            own = self.link.state()
            if answer == "hello":
                self.link.send(self.link.hello(now, "answer"))
            elif own["game"] != state.get("game") or own["ply"] != ply or answer == "state":
                self.link.send({"t": now, "event": "state", "cause": "answer", **own})

    def _follow(self, peer_id: GameId, start: str, now: int) -> None:
        """Start the other board's new game here (its pieces are set up as usual)."""
        app = self.link.app
        assert app is not None
        if app.resuming:
            self.link.notice(now, f"follow-{peer_id}", "the other board started a new game: press new here to join it")
            return
        self._following = (peer_id, start)
        self.game_id = peer_id
        self.moves.clear()
        self.result = None
        self.link.requests.clear()
        self.link.emit(app.new_game(Position.from_fen(start), now))
