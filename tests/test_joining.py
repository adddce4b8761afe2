"""Issue 50: one way to join the board. A part that polls, says when it wants a step or
hears the button presses first joins as an output (``add_output``, a ``Poller`` or an
output of its own with ``poll``, ``deadline``, ``on_press``, ``wakes``), never through
the public lists the application had for it (``sources``, ``waking_sources``,
``deadlines``, ``press_listeners``)."""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.outputs import Poller
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import Event, Notice
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.hal.buttons import ButtonEvent
from helpers.rig import Rig


def test_the_application_has_no_lists_to_join_by(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    try:
        for name in ("sources", "waking_sources", "deadlines", "press_listeners"):
            assert not hasattr(rig.app, name), name
    finally:
        rig.close()


def test_a_poller_is_polled_and_its_deadline_and_waking_are_the_loops(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    polled: list[int] = []
    due = [rig.clock.now_ms() + 3_000]

    def poll(now: int) -> list[Event]:
        polled.append(now)
        return [Notice(now, "polled")] if len(polled) == 1 else []

    try:
        assert rig.app.sleeps_until_due()
        part = rig.app.add_output(Poller(poll, deadline=lambda: due[0], wakes=True))
        events = rig.app.step()
        assert polled and [e for e in events if isinstance(e, Notice) and e.message == "polled"]
        assert rig.app.next_deadline() == due[0]  # nothing else is due on a board at rest
        assert rig.app.sleeps_until_due()  # it wakes the loop itself
        plain = rig.app.add_output(Poller(lambda now: []))
        assert not rig.app.sleeps_until_due()  # one that does not wake: the loop looks every poll
        rig.app.remove_output(plain)
        rig.app.remove_output(part)
        assert rig.app.sleeps_until_due() and rig.app.next_deadline() is None
    finally:
        rig.close()


def test_a_part_joined_by_anothers_poll_is_polled_in_the_same_step(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    polled: list[str] = []

    def later(now: int) -> list[Event]:
        polled.append("later")
        return []

    def first(now: int) -> list[Event]:
        polled.append("first")
        if polled.count("first") == 1:
            rig.app.add_output(Poller(later))  # as a link's command makes the problem mode
        return []

    try:
        rig.app.add_output(Poller(first))
        rig.app.step()
        assert polled == ["first", "later"]
    finally:
        rig.close()


def test_a_part_that_answers_a_press_keeps_it_from_the_board(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    heard: list[str] = []

    def on_press(press: ButtonEvent) -> bool | None:
        heard.append(press.name)
        return False if press.name == "takeback" else None

    try:
        rig.do("11-15")
        rig.app.add_output(Poller(on_press=on_press))
        rig.app.press("takeback")
        rig.wait(1000)
        assert heard == ["takeback"] and rig.app.game.ply == 1  # not taken back
    finally:
        rig.close()


def test_the_voices_deadline_is_the_one_the_loop_keeps(tmp_path: Path) -> None:
    # A timed game: the voice wants a step when the running side reaches its last minute.
    rig = Rig(tmp_path, settings=AppSettings(clock=TimeControl.parse("70")), start=False)
    voice = BoardVoice(None, Phrasebook("en")).attach(rig.app)
    try:
        rig.app.start()
        rig.do("11-15")  # White's clock runs
        due = voice.deadline()
        assert due is not None and due > rig.clock.now_ms()
        assert rig.app.next_deadline() == due  # the board at rest: the voice's is the next
        rig.app.remove_output(voice)
        assert rig.app.next_deadline() != due  # kept nowhere else (the flag's fall is next)
    finally:
        rig.close()
