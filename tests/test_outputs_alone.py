"""Each output alone (issue 50): the display, the buzzer, the link's view and the text
view drawn from a hand-built snapshot, with no application: what they show comes from
the snapshots and events they are handed, and of the board they ask only its port (the
time, the game clock at an instant, a wake-up, joining)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from crownhead.firmware.app.outputs import BoardPort, Output, Outputs
from crownhead.firmware.app.snapshot import Condition, Seat, Shown, Snapshot, standing
from crownhead.firmware.app.view import board_view
from crownhead.firmware.display.panel import BoardPanel, Painter, short_message
from crownhead.firmware.events import ClockState, ComputerMove, Event
from crownhead.firmware.link.view import view_body
from crownhead.firmware.sound.player import BoardSound, SoundPlayer
from crownhead.hal.clock import VirtualClock
from crownhead.rules import BLACK, WCDF, WHITE, Move, Position
from crownhead.sim.buzzer import SimBuzzer
from crownhead.sim.display import SimDisplay


class Port:
    """A board's port and nothing more: its clock, a game clock, the outputs added."""

    def __init__(self, clock: VirtualClock, times: ClockState | None = None) -> None:
        self.clock = clock
        self.times = times
        self.outputs = Outputs()
        self.woken = 0

    def clock_state(self, now: int) -> ClockState | None:
        return self.times

    def wake(self) -> None:
        self.woken += 1

    def add_output(self, output: Any, *, first: bool = False) -> Any:
        return self.outputs.add(output, first=first)

    def remove_output(self, output: Output) -> None:
        self.outputs.remove(output)


def made(position: Position | None = None, **fields: Any) -> Snapshot:
    """A snapshot made by hand: ``position`` on the board, Ann and Bo seated."""
    position = position or Position.start()
    pieces, strays = standing(position, position.occupied)
    base = Snapshot(
        position=position,
        board=position.occupied,
        pieces=pieces,
        strays=strays,
        ply=0,
        last_move=None,
        roles={},
        conditions=(),
        clock=None,
        offer=None,
        result=None,
        setup=None,
        expected=None,
        rules=WCDF,
        moves=(),
        seats={BLACK: Seat("Ann"), WHITE: Seat("Bo")},
        shown=Shown(mode="Two players"),
    )
    return replace(base, **fields)


def test_the_port_is_what_an_application_gives_its_outputs() -> None:
    port: BoardPort = Port(VirtualClock())  # type-checked: a port needs no application
    assert port.clock_state(0) is None


def test_the_display_draws_a_hand_built_snapshot() -> None:
    clock = VirtualClock()
    port = Port(clock)
    display = SimDisplay()
    panel = BoardPanel(Painter(display, clock, background=False)).attach(port)
    put_back = Condition("misplaced", (22,), "put the man back on 22", put_back=(22,))
    snap = made(conditions=(put_back,), shown=Shown(match="Match, game 2 of 4: Ann 1, Bo 0"))
    port.outputs.snapshot(snap)
    port.outputs.stepped(0, snap)
    screen = panel._screen
    assert screen is not None and screen.turn == "Black to move" and screen.message == "put back 22"
    assert screen.score.startswith("Match, game 2")
    assert any("put back 22" in line for line in display.lines)
    # The page's address before the first move, from the snapshot alone.
    snap = made(shown=Shown(page_urls=("http://192.168.1.20:8080/",), page_pin="482913"))
    assert short_message(snap) == "192.168.1.20:8080 PIN 482913"
    assert short_message(made(conditions=(Condition("forced-capture", (9,), "jump"),))) == "a capture is compulsory"
    referee = made(conditions=(Condition("forced-capture", (9,), "jump"),), shown=Shown(referee_mode=True))
    assert short_message(referee) == "caution: forced capture"
    panel.close()


def test_the_display_shows_the_game_clock_the_port_gives() -> None:
    clock = VirtualClock()
    port = Port(clock, ClockState(59_000, 60_000, "black", False, None))
    panel = BoardPanel(Painter(SimDisplay(), clock, background=False)).attach(port)
    snap = made()
    port.outputs.snapshot(snap)
    port.outputs.stepped(0, snap)
    screen = panel._screen
    assert screen is not None and screen.black_ms == 59_000 and screen.running == "black"
    panel.close()


def test_the_buzzer_hears_events_and_ticks_from_the_port_alone() -> None:
    clock = VirtualClock()
    buzzer = SimBuzzer(clock)
    port = Port(clock)
    sound = BoardSound(SoundPlayer(buzzer, clock)).attach(port)
    events: list[Event] = [ComputerMove(0, "white", "Computer", "22-18", (22, 18), ())]
    port.outputs.events(events)
    assert sound.player.played == ["machine"]
    port.times = ClockState(9_500, 60_000, "black", False, None)  # Black's flag about to fall
    assert port.outputs.poll(0) == []
    assert sound.player.played[-1] == "flag-near"
    assert port.outputs.all_wake  # it needs no step but its deadlines
    sound.close()


def test_the_text_view_and_the_links_view_are_functions_of_a_snapshot() -> None:
    after = Position.start().apply(Move((11, 15)), WCDF)
    lit = {11: "last-from", 15: "last-to"}
    snap = made(
        after,
        ply=1,
        last_move=Move((11, 15)),
        moves=(Move((11, 15)),),
        lit=lit,
        shown=Shown(mode="Two players", hints_shown=True, message="Hello", tokens={}, hand=("b",)),
    )
    view = board_view(snap)
    assert view.status == "White to move, move 1" and view.moves == ("11-15",)
    assert view.mode_text == "Two players, hints on" and view.message == "Hello"
    body = view_body(snap)
    assert body["ply"] == 1 and body["board"][14] == "b" and body["board"][10] == "."
    assert body["roles"] == {"last-from": [11], "last-to": [15]}
    assert body["status"] == view.status and body["sim"] and body["hand"] == "b"
    assert body["names"] == ["Ann", "Bo"] and body["cautions"] is None
    thinking = replace(snap, shown=replace(snap.shown, thinking="machine"))
    assert view_body(thinking)["prompt"] == "Bo is thinking..."
