"""The moves a link asks its board for, and the one it shows now.

Three things may ask for the next move: a host's ``play`` (by ply), the ballot the link
plays (outside referee mode: the referee plays its own), and the other board of two
linked boards (:class:`~crownhead.firmware.link.peer.PeerSync`: its moves, and its result once
this board has reached it). :class:`MoveRequests` keeps the first two, and once per
step and after every line (:meth:`MoveRequests.sync`) shows the move due on the lights
(``LinkedBoard.show_move``: the board accepts no other for that side) or withdraws it,
and applies the other board's result when its ply is reached.
"""

from __future__ import annotations

from crownhead.firmware.events import Event
from crownhead.firmware.link.parts import LinkSide
from crownhead.rules import Game, Move

__all__ = ["MoveRequests"]


class MoveRequests:
    """What ``link`` asks its board to play (see the module)."""

    def __init__(self, link: LinkSide) -> None:
        self.link = link
        #: Moves a host asked for with ``play``, by ply.
        self.host: dict[int, Move] = {}
        #: The ballot the link plays (its number and moves), or None.
        self.ballot: tuple[int, tuple[Move, ...]] | None = None
        #: The move the link shows and waits for: (ply, move, who asked: host, peer, ballot).
        self.expect: tuple[int, Move, str] | None = None

    @property
    def pending(self) -> bool:
        """Whether anything is asked for or shown (else :meth:`sync` has nothing to do)."""
        return bool(self.host or self.ballot or self.expect or self.link.peer.pending)

    def clear(self) -> None:
        """A new game: nothing asked of the last one stands."""
        self.host.clear()
        self.ballot = None
        self.expect = None

    def made(self, ply: int) -> None:
        """A move was made on the board at ``ply``: what was asked up to it is done."""
        if self.expect is not None and self.expect[0] <= ply:
            self.expect = None

    def taken_back(self, ply: int) -> None:
        """Ply ``ply`` was taken back: a host's moves from there on no longer stand."""
        for p in [p for p in self.host if p >= ply]:
            del self.host[p]

    def ballot_move(self, game: Game) -> Move | None:
        """The link's ballot's move for the next ply, or None (no ballot, or it is played).

        Always None in referee mode: the referee plays the ballot and asks for its moves.
        """
        app = self.link.app
        if self.ballot is None or (app is not None and app.referee_mode):
            return None
        _number, moves = self.ballot
        if game.ply >= len(moves) or list(game.moves) != list(moves[: game.ply]):
            self.ballot = None
            return None
        return moves[game.ply]

    def declare(self, now: int, score: str, reason: str) -> list[Event]:
        """End the game with an arbiter's (or the other board's) result; the events it caused."""
        app = self.link.app
        assert app is not None
        if self.expect is not None and app.expected == self.expect[1]:
            app.show_move(None)
        self.expect = None
        events = app.declare(score, reason, now)  # the referee's, in referee mode
        self.link.emit(events)
        return events

    def sync(self, now: int) -> None:
        """Set or withdraw the move the board waits for, apply the other board's result."""
        link = self.link
        app = link.app
        assert app is not None
        if not self.pending:
            return  # nothing asked for, nothing to withdraw: spare the loop the game's checks
        if app.resuming or app.setting_up is not None:
            return
        game = app.game
        if game is not link.seen_game:
            return  # a game begun this very step: wait until its start has been followed
        if game.is_over:
            self.expect = None
            return
        peer = link.peer
        if peer.result is not None:
            score, reason, ply = peer.result
            if ply == game.ply:
                peer.result = None
                self.declare(now, score, reason)
                return
            if ply < game.ply:
                peer.result = None
        n = game.ply + 1
        want: tuple[Move, str] | None = None
        if link.linked and n in peer.moves and (game.turn is link.remote or peer.ply > n):
            # The other board's moves stand; so does a move of this side it has answered.
            want = (peer.moves[n], "peer")
        elif n in self.host:
            want = (self.host[n], "host")
        else:
            ballot = self.ballot_move(game)
            if ballot is not None and game.turn is not link.remote:
                want = (ballot, "ballot")
        if want is not None:
            move, source = want
            if app.expected != move:
                try:
                    app.show_move(move)
                except ValueError:
                    self._drop(n, source)
                    link.notice(
                        now,
                        f"unplayable-{n}-{move.pdn(full=True)}",
                        f"the {source}'s move {move.pdn(full=True)} is not legal here: the boards are out of step",
                    )
                    return
            self.expect = (n, move, source)
        elif self.expect is not None:
            # The same move may be the referee's balloted move: that request is the referee's.
            if app.expected == self.expect[1] and (not app.referee_mode or app.ballot_move != app.expected):
                app.show_move(None)
            self.expect = None

    def _drop(self, ply: int, source: str) -> None:
        if source == "peer":
            self.link.peer.moves.pop(ply, None)
        elif source == "host":
            self.host.pop(ply, None)
        else:
            self.ballot = None
        if self.expect is not None and self.expect[0] == ply:
            self.expect = None
