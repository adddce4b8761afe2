"""The machine's seat: the computer's moves, its answer to a draw offer, and the hint.

The :class:`MachineSeat` runs the computer player of the side to move in its thinker
and shows its move on the board for the person to make, answers a draw offered to it,
takes back the person's own move with the machine's answer when the takeback button is
pressed, and says when the hint button's search makes sense (a person to move in a
game under way).
"""

from __future__ import annotations

from crownhead.firmware.app.players import Computer, Human, PlayerError, draw_answer
from crownhead.firmware.app.table import Table
from crownhead.firmware.events import ComputerMove, DrawDeclined, DrawOffer, Event, Notice, Side

__all__ = ["MachineSeat"]


class MachineSeat:
    """The machine's side of ``table`` (see the module)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def play(self, now: int, out: list[Event]) -> None:
        """Think for the machine's side to move and show its move when found (``out``
        gets the ``computer-move``); a machine that fails gives its side to a person."""
        table = self.table
        if not table.mode.computer:
            return
        tracker, thinker = table.tracker, table.thinker
        game = tracker.game
        if tracker.setting_up is not None or game.is_over or table.resuming:
            thinker.cancel()
            return
        player = table.players[game.turn]
        if player.is_human or not isinstance(player, Computer):
            if thinker.busy:
                thinker.cancel()
            return
        if tracker.expected is not None:
            return
        if not thinker.thinking_about(game):
            thinker.start(player, game)
        try:
            move = thinker.poll()
        except PlayerError as exc:
            out.append(Notice(now, f"{exc}; make a move for {player.name} by hand"))
            table.players[game.turn] = Human(player.name)
            return
        if move is None:
            return
        tracker.expect(move)
        out.append(
            ComputerMove(now, Side.of(game.turn), player.name, move.pdn(), tuple(move.path), tuple(move.captures))
        )

    def takes_back_two(self, pressed: bool) -> bool:
        """Whether a takeback (by the button: ``pressed``) goes on to the person's own move:
        the machine's answer alone would only be asked for again."""
        table = self.table
        tracker = table.tracker
        game = tracker.game
        return (
            pressed
            and table.mode.computer
            and bool(game.moves)
            and not table.players[game.turn].is_human
            and tracker.setting_up is None
        )

    def hint_allowed(self) -> bool:
        """Whether a person is to move in a game under way, so that a hint makes sense."""
        table = self.table
        tracker = table.tracker
        game = tracker.game
        player = table.players[game.turn]
        return not (
            table.mode.referee_lights
            or table.settings.far_apart  # no engine help between people apart
            or table.resuming
            or tracker.setting_up is not None
            or game.is_over
            or tracker.expected is not None
            or game.turn in tracker.held  # the machine's or the link's side: not a person's
            or not player.is_human
        )

    def answer_offer(self, offer: DrawOffer, now: int) -> list[Event]:
        """A draw offer: the machine answers one made to it; people are told how to accept."""
        table = self.table
        game = table.tracker.game
        if offer.side is None:
            # The shared button cannot tell who pressed it (docs/hardware.md).
            table.say(
                "Draw offered with the shared button, which cannot tell who pressed it: offer with"
                " your side's own draw button, and the other side accepts with theirs."
            )
            return []
        side = offer.side.color
        machine = table.players[side.opponent]
        if table.mode.computer and isinstance(machine, Computer) and not machine.is_human:
            accept, score = draw_answer(game, side.opponent)
            if accept:
                table.say(f"{machine.name} accepts the draw (level or worse for it).")
                return table.follower.offer_draw(side.opponent, now)
            message = f"{machine.name} declines the draw: {side.opponent} is better ({score / 100:+.2f})"
            table.say(message + ".")
            return [DrawDeclined(now, Side.of(side.opponent), message)]
        table.say(f"{side.name.title()} offers a draw: {side.opponent.name.title()} accepts with their draw button.")
        return []
