"""The voice on a running board: its events said, the speak button answered, and a blind
player's whole game against the computer with the buttons and the voice alone."""

from __future__ import annotations

import re
from pathlib import Path
import time
from collections.abc import Callable
from typing import Any

import pytest

from crownhead.firmware.app.players import Human, RandomMover
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.events import Notice
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.simulator.hands import Hands
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.engine import Espeak
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.firmware.voice.speaker import Speaker
from crownhead.rules import WCDF, BLACK, WHITE, Color, Move, Position
from tests.helpers.rig import Rig
from tests.helpers.speech import needs_espeak
from helpers.speech import position_heard

MakeRig = Callable[..., Rig]


def _voice(rig: Rig, lang: str = "en", speaker: Speaker | None = None, missing: str = "") -> BoardVoice:
    return BoardVoice(speaker, Phrasebook(lang), missing).attach(rig.app)


def _texts(voice: BoardVoice, since: int = 0) -> list[str]:
    return [s.text for s in voice.said_since(since)]


def test_moves_and_the_speak_button(make_rig: MakeRig) -> None:
    rig = make_rig(start=False)
    voice = _voice(rig)
    rig.app.start()
    rig.wait(100)
    rig.do("11-15")
    rig.do("23-19")
    assert _texts(voice)[-2:] == ["Black, 11 15.", "White, 23 19."]
    mark = voice.said_count
    rig.do("speak")
    assert _texts(voice, mark) == ["White, 23 19.", "Black to move."]
    rig.wait(2500)
    mark = voice.said_count
    rig.do("speak", wait=200)
    rig.do("speak")  # twice within 2 s: the last moves
    assert _texts(voice, mark)[-3:] == ["The last 2 moves:", "Black, 11 15.", "White, 23 19."]
    mark = voice.said_count
    rig.do("hold speak")
    assert _texts(voice, mark) == [
        "The position.",
        "Black men on 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12 and 15.",
        "White men on 19, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31 and 32.",
        "Black to move.",
    ]
    assert not [e for e in rig.events if e.kind == "warning"], "the speak button is no game button"


def test_a_knocked_piece_is_named_and_the_clock_warns_of_its_last_minute(make_rig: MakeRig) -> None:
    rig = make_rig(start=False, settings=AppSettings(clock=TimeControl.parse("70")))
    voice = _voice(rig)
    rig.app.start()
    rig.wait(100)
    rig.do("11-15")
    mark = voice.said_count
    rig.sim.lift(5)  # White to move: Black's man knocked off the board
    rig.wait(3000)
    assert "Put the piece back on 5." in _texts(voice, mark)
    rig.sim.place(5, "b")
    rig.wait(20_000)
    assert "White: one minute left." in _texts(voice, mark)
    rig.do("speak")
    last = _texts(voice)[-1]
    assert re.fullmatch(r"Black \d+ minutes? and \d+ seconds?, White \d+ seconds\.", last), last


def test_a_new_game_is_set_up_a_line_at_a_time(make_rig: MakeRig) -> None:
    rig = make_rig(start=False, settings=AppSettings(start=Position.from_fen("B:W18,K30:B9,K2")))
    rig.sim.set_position({})
    voice = _voice(rig)
    rig.app.start()
    rig.wait(100)
    assert _texts(voice)[:5] == [
        "Set up the position.",
        "Black men on 9.",
        "Black kings on 2.",
        "White men on 18.",
        "White kings on 30.",
    ]


def test_without_an_engine_the_board_says_once_what_to_install(make_rig: MakeRig) -> None:
    rig = make_rig(start=False)
    _voice(rig, missing="no espeak-ng here: install eSpeak NG (sudo apt-get install espeak-ng)")
    rig.app.start()
    rig.wait(100)
    rig.do("11-15")
    rig.do("23-19")
    notices = [e for e in rig.events if isinstance(e, Notice) and "cannot speak" in e.message]
    assert len(notices) == 1 and "apt-get install espeak-ng" in notices[0].message
    assert rig.moves() == ["11-15", "23-19"]


def test_a_voice_without_aplay_says_so_where_the_player_looks(make_rig: MakeRig) -> None:
    # Issue 54, item 4: `--speech en` without aplay was silent, with no word on the
    # terminal's message line or the page (the notice went to the log alone).
    rig = make_rig(start=False)
    _voice(rig, missing="no aplay here: install alsa-utils to hear the board")
    rig.app.start()
    rig.wait(100)
    said = "The board cannot speak: no aplay here: install alsa-utils to hear the board"
    assert rig.app.view().message == said  # the terminal's message line
    assert rig.app.message == said  # the pages' (their view's message)


def test_a_sound_card_that_fails_is_said_on_the_message_line(make_rig: MakeRig) -> None:
    class Broken:
        """An engine writing nothing and a sound card that is not there."""

        name = "broken"

        def synthesize(self, text: str, voice: str, settings: Any, path: Path) -> None:
            path.write_bytes(b"")

        def play(self, path: Any, stop: Any) -> None:
            raise RuntimeError("aplay -D default failed: audio open error: No such file or directory")

    broken = Broken()
    speaker = Speaker(broken, broken, background=False)
    rig = make_rig(start=False)
    _voice(rig, speaker=speaker)
    rig.app.start()
    try:
        rig.wait(100)
        rig.do("11-15")
        while speaker.pump():
            pass
        rig.wait(100)
        assert rig.app.message.startswith("The board cannot speak: aplay -D default failed"), rig.app.message
    finally:
        speaker.close()


def test_a_side_hears_its_own_moves_in_its_language(make_rig: MakeRig) -> None:
    rig = make_rig(start=False)
    voice = BoardVoice(None, Phrasebook("en", white_language="fr")).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    rig.do("11-15")
    rig.do("23-19")
    assert [(s.text, s.lang) for s in list(voice.said)[-2:]] == [("Black, 11 15.", "en"), ("Blanc, 23 19.", "fr")]


@needs_espeak
def test_speaking_never_holds_up_the_main_loop(make_rig: MakeRig) -> None:
    class Slow:
        """A sound card that takes a second a sentence."""

        def __init__(self) -> None:
            self.played = 0

        def play(self, path: Any, stop: Any) -> None:
            stop.wait(1.0)
            self.played += 1

    output = Slow()
    speaker = Speaker(Espeak(), output)
    rig = make_rig(start=False)
    voice = _voice(rig, speaker=speaker)
    rig.app.start()
    try:
        started = time.perf_counter()
        for move in ("11-15", "23-19", "8-11", "22-17"):
            rig.do(move)
        rig.do("hold speak")
        assert time.perf_counter() - started < 3, "the loop waited for the speech"
        assert voice.said_count >= 9 and output.played < voice.said_count
    finally:
        speaker.close()


# -- a blind player's game: the voice and the buttons alone --------------------------------

_MACHINE = re.compile(r"plays (\d+) (\d+) for White|jumps for White from (\d+) to ([\d, then]+), taking")


def _typed(move: Move) -> str:
    return "x".join(map(str, move.path)) if move.captures else f"{move.start}-{move.end}"


def test_a_blind_player_plays_a_whole_game_against_the_computer_by_ear(make_rig: MakeRig) -> None:
    start = Position.start()
    rig = make_rig(
        start=False,
        settings=AppSettings(mode="computer", start=start, machine_side=WHITE),
        players={BLACK: Human(), WHITE: RandomMover(7)},
        board=start,
    )
    voice = _voice(rig)
    rig.app.start()
    rig.wait(500)
    hands = Hands(rig.app)
    heard = 0
    for _turn in range(600):
        said = _texts(voice, heard)
        heard = voice.said_count
        if any(
            t.endswith(("wins as the other side cannot move.", "wins by resignation.")) or "drawn" in t for t in said
        ):
            break
        machine = [m for t in said if (m := _MACHINE.search(t))]
        if machine:
            m = machine[-1]
            if m.group(1):
                hands.act_text(f"{m.group(1)}-{m.group(2)}")
            else:
                hands.act_text("x".join([m.group(3), *re.findall(r"\d+", m.group(4))]))
            rig.wait(1500)
            continue
        hands.act_text("hold speak")  # where is everything?
        rig.wait(500)
        position = position_heard(_texts(voice, heard))
        heard = voice.said_count
        if position.turn is not Color.BLACK:
            rig.wait(1500)
            continue
        moves = position.legal_moves(WCDF)
        assert moves, f"the voice said Black is to move with no move: {_texts(voice)[-12:]}"
        move = max(moves, key=lambda mv: (len(mv.captures), mv.end >= 29, mv.end))
        hands.act_text(_typed(move))
        rig.wait(1500)
    else:
        pytest.fail(f"no result was said; the game stands at {rig.game.position.fen()}")
    assert rig.game.is_over and [e for e in rig.events if e.kind == "game-over"]
    assert not [e for e in rig.events if e.kind == "warning"], "every move made by ear was the board's"
    assert len(rig.moves()) >= 20, rig.moves()


def test_the_hint_is_said_by_its_squares(make_rig: MakeRig) -> None:
    rig = make_rig(
        start=False,
        board=Position.from_fen("B:W18:B14,1"),
        settings=AppSettings(start=Position.from_fen("B:W18:B14,1")),
    )
    voice = _voice(rig)
    rig.app.start()
    rig.wait(100)
    mark = voice.said_count
    rig.do("hint", wait=3000)
    assert "Hint: jump from 14 to 23." in _texts(voice, mark)


def test_a_warning_is_told_in_the_language_of_the_side_to_move(make_rig: MakeRig) -> None:
    rig = make_rig(start=False)
    voice = BoardVoice(None, Phrasebook("en", black_language="de")).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    rig.do("11-15")
    rig.do("22-18")
    mark = voice.said_count
    rig.sim.lift(9)  # Black must jump 15x22; the man on 9 cannot
    rig.wait(1000)
    sentence = voice.said_since(mark)[0]
    assert (sentence.text, sentence.lang) == ("Schlagzwang: der Stein auf 15 kann schlagen.", "de")


def test_crownhead_run_without_espeak_ng_plays_on_and_says_once_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crownhead.firmware.cli import main

    script = tmp_path / "game.txt"
    script.write_text(
        "lift 11\nwait 300\nplace 15\nwait 1000\nlift 22\nwait 300\nplace 18\nwait 1000\npress speak\nwait 500\n"
    )
    monkeypatch.setenv("PATH", str(tmp_path))  # no espeak-ng, no aplay
    code = main(["run", "--hal", "sim", "--script", str(script), "--speech", "en", "--state-dir", str(tmp_path / "s")])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("The board cannot speak") == 1 and "sudo apt-get install espeak-ng" in out
    assert "move 1: black 11-15" in out and "move 2: white 22-18" in out


def test_the_voice_speaks_of_the_game_under_the_rules_it_is_played_by(make_rig: MakeRig) -> None:
    """The voice reads the game from the board's snapshot: after the rules changed (a page's
    ``rules russian``), a man crowned in the middle of a jump that goes on as a king is a
    king when a square is asked for and when it is moved wrongly (the voice kept its own
    position under the rules it was attached with, and called it a man)."""
    from crownhead.rules import RUSSIAN

    rig = make_rig(start=False)
    voice = _voice(rig)
    rig.app.start()
    rig.wait(100)
    now = rig.clock.now_ms()
    rig.app.set_rules(RUSSIAN, now)
    rig.app.new_game(Position.from_fen("W:W10:B7,8,K29"), now)
    rig.follow()
    rig.do("10x3x12")
    assert rig.app.game.position.piece_at(12) is not None and rig.app.game.position.piece_at(12).king
    mark = voice.said_count
    voice.ask("square", 12)
    rig.wait(100)
    assert _texts(voice, mark) == ["On 12: a white king."]
    rig.do("29-25")
    mark = voice.said_count
    rig.script("lift 12\nwait 300\nplace 11\nwait 3000")  # no king's move
    assert _texts(voice, mark) == ["That move is not allowed. Put the king back on 12."]
