"""The voice's queue, engine and speaker: warnings first, no move dropped, real speech."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from crownhead.firmware.voice.catalogue import Sentence
from crownhead.firmware.voice.engine import INSTALL_HINT, Espeak, SpeechUnavailable, VoiceSettings, open_engine
from crownhead.firmware.voice.queue import MOVE_LIMIT, Priority, SpeechQueue
from crownhead.firmware.voice.speaker import Aplay, SentenceRecorder, Speaker
from tests.helpers.speech import needs_espeak, wav_stats


def test_a_warning_goes_first_and_interrupts_chatter_but_not_a_move() -> None:
    q: SpeechQueue[str] = SpeechQueue(limit=8)
    q.put("the whole position", "answer")
    assert q.get(0) == "the whole position"  # being spoken: chatter
    q.put("Black, 11 15.", "move")
    assert not q.interrupt.is_set()
    q.put("Touch move.", "warning")
    assert q.interrupt.is_set()
    q.done()
    assert q.get(0) == "Touch move."
    assert not q.interrupt.is_set()
    q.put("Caution for Black.", "ruling")  # a move is never cut short
    assert not q.interrupt.is_set()


def test_a_closed_queue_gives_out_nothing_more() -> None:
    # The board switching off: what waits is not spoken (the speaker's thread took every
    # waiting sentence, a second each on a slow sound card, and close waited for it).
    q: SpeechQueue[str] = SpeechQueue(limit=8)
    for ply in range(1, 4):
        q.put(f"move {ply}", "move")
    assert q.get(0) == "move 1"
    q.close()
    assert q.interrupt.is_set() and q.get(0) is None and q.get() is None
    q.put("move 4", "move")
    assert q.get(0) is None


def test_a_newer_warning_replaces_the_waiting_one() -> None:
    q: SpeechQueue[str] = SpeechQueue(limit=8)
    q.put("Put the piece back on 14.", "warning")
    q.put("Take the captured piece off 18.", "warning")
    assert [q.get(0), q.get(0)] == ["Take the captured piece off 18.", None]
    assert q.dropped[Priority.URGENT] == 1


def test_a_full_queue_drops_chatter_never_a_move() -> None:
    q: SpeechQueue[str] = SpeechQueue(limit=4)
    q.put("notice 1", "info")
    q.put("notice 2", "info")
    for ply in range(1, 41):
        q.put(f"move {ply}", "move")
    q.put("notice 3", "info")  # no room: moves fill it
    taken = []
    while (item := q.get(0)) is not None:
        taken.append(item)
    assert taken == [f"move {ply}" for ply in range(1, 41)]
    assert q.dropped[Priority.CHATTER] == 3 and q.dropped[Priority.MOVE] == 0


def test_moves_are_bounded_too_past_any_game() -> None:
    q: SpeechQueue[str] = SpeechQueue(limit=4)
    for ply in range(MOVE_LIMIT + 10):
        q.put(f"move {ply}", "move")
    assert len(q) == MOVE_LIMIT and q.get(0) == "move 10"


def test_without_espeak_ng_the_engine_says_what_to_install() -> None:
    with pytest.raises(SpeechUnavailable, match="apt-get install espeak-ng"):
        Espeak(program="espeak-ng-not-installed-here")
    assert "espeak-ng" in INSTALL_HINT


@needs_espeak
def test_espeak_writes_real_speech_of_a_plausible_length(tmp_path: Path) -> None:
    engine = open_engine("espeak")
    short, long = tmp_path / "short.wav", tmp_path / "long.wav"
    engine.synthesize("Black, 11 15.", "en-us", VoiceSettings(), short)
    engine.synthesize(
        "White jumps from 1 to 10, then 19, then 28, taking 6, 15 and 24.", "en-us", VoiceSettings(), long
    )
    seconds, rms = wav_stats(short)
    assert 0.8 < seconds < 4 and rms > 0.02
    long_seconds, _ = wav_stats(long)
    assert long_seconds > 2 * seconds
    fast = tmp_path / "fast.wav"
    engine.synthesize("Black, 11 15.", "en-us", VoiceSettings(speed=330), fast)
    assert wav_stats(fast)[0] < seconds * 0.8
    quiet = tmp_path / "quiet.wav"
    engine.synthesize("Black, 11 15.", "en-us", VoiceSettings(volume=20), quiet)
    assert wav_stats(quiet)[1] < rms / 2


@needs_espeak
def test_a_sentence_is_never_read_as_an_option(tmp_path: Path) -> None:
    path = tmp_path / "s.wav"
    Espeak().synthesize("-w /nonexistent/x.wav --version", "en-us", VoiceSettings(), path)
    assert wav_stats(path)[0] > 1 and not Path("/nonexistent/x.wav").exists()


@needs_espeak
def test_an_unknown_voice_is_a_failure_naming_it(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="espeak-ng \\(xx-nonesuch\\) failed"):
        Espeak().synthesize("hello", "xx-nonesuch", VoiceSettings(), tmp_path / "x.wav")


class _Held:
    """An output that plays for as long as it is let (or is stopped): what was cut short."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.played: list[tuple[float, bool]] = []

    def play(self, path: Path, stop: threading.Event) -> None:
        seconds = wav_stats(path)[0]
        while not (self.release.is_set() or stop.is_set()):
            time.sleep(0.005)
        self.played.append((seconds, stop.is_set()))


@needs_espeak
def test_the_speaker_never_makes_the_caller_wait_and_a_warning_cuts_chatter_short() -> None:
    output = _Held()
    speaker = Speaker(Espeak(), output)
    try:
        speaker.say(Sentence("The position.", "The position.", "en", "answer"))
        deadline = time.monotonic() + 10
        while len(speaker.queue) and time.monotonic() < deadline:
            time.sleep(0.005)  # the worker has taken the chatter
        started = time.perf_counter()
        for ply in range(20):
            speaker.say(Sentence(f"Black, {ply} 15.", f"Black, {ply} 15.", "en", "move"))
        assert time.perf_counter() - started < 0.05  # queued, not spoken, by the caller
        while not output.played and time.monotonic() < deadline:
            speaker.say(Sentence("Touch move.", "Touch move.", "en", "warning"))
            time.sleep(0.05)
        assert output.played and output.played[0][1], "the chatter was cut short by the warning"
        output.release.set()
        while len(speaker.spoken) < 22 and time.monotonic() < deadline:
            time.sleep(0.02)
        kinds = [s.kind for s in speaker.spoken]
        assert kinds[:2] == ["answer", "warning"] and kinds.count("move") == 20
    finally:
        speaker.close()


@needs_espeak
def test_a_failing_voice_is_said_once_and_the_next_sentence_speaks(tmp_path: Path) -> None:
    speaker = Speaker(Espeak(), None, VoiceSettings(voice="xx-nonesuch"), background=False)
    speaker.say(Sentence("one", "one", "en", "move"))
    speaker.say(Sentence("two", "two", "en", "move"))
    assert speaker.pump() and speaker.pump() and not speaker.pump()
    messages = speaker.poll()
    assert len(messages) == 1 and "cannot speak" in messages[0] and "xx-nonesuch" in messages[0]
    speaker.settings = VoiceSettings()
    speaker.say(Sentence("three", "three", "en", "move"))
    speaker.pump()
    assert speaker.poll() == ["The board speaks again."]
    speaker.close()


@needs_espeak
@pytest.mark.skipif(shutil.which("aplay") is None, reason="aplay is not installed (sudo apt-get install alsa-utils)")
def test_aplay_plays_on_alsa(tmp_path: Path) -> None:
    # ALSA's null device takes the samples as a sound card would, without one.
    played: list[Path] = []
    speaker = Speaker(Espeak(), Aplay("null"), background=False, on_spoken=lambda s, p: played.append(p))
    speaker.say(Sentence("Black, 11 15.", "Black, 11 15.", "en", "move"))
    assert speaker.pump() and speaker.poll() == [] and len(speaker.spoken) == 1
    speaker.close()
    bad = Speaker(Espeak(), Aplay("nonesuch_device"), background=False)
    bad.say(Sentence("Black, 11 15.", "Black, 11 15.", "en", "move"))
    bad.pump()
    assert "aplay -D nonesuch_device failed" in bad.poll()[0]
    bad.close()


@needs_espeak
def test_the_recorder_writes_a_wav_and_a_line_for_each_sentence(tmp_path: Path) -> None:
    import json

    with SentenceRecorder(Espeak(), tmp_path / "out") as recorder:
        recorder.record(1200, Sentence("Schwarz, 11 15.", "Schwarz, 11 15.", "de", "move"))
    lines = [json.loads(line) for line in (tmp_path / "out" / "sentences.jsonl").read_text().splitlines()]
    assert lines == [{"t": 1200, "text": "Schwarz, 11 15.", "lang": "de", "file": "0001-move.wav", "kind": "move"}]
    assert wav_stats(tmp_path / "out" / "0001-move.wav")[1] > 0.02


def test_piper_without_its_program_says_so(tmp_path: Path) -> None:
    with pytest.raises(SpeechUnavailable, match="no piper-not-installed here"):
        from crownhead.firmware.voice.engine import Piper

        Piper(tmp_path, None, program="piper-not-installed")


def test_without_espeak_ng_on_the_path_there_is_no_speaker_and_one_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from crownhead.firmware.voice.speaker import open_speaker

    monkeypatch.setenv("PATH", str(tmp_path))  # a machine where espeak-ng was never installed
    speaker, missing = open_speaker()
    assert speaker is None and "sudo apt-get install espeak-ng" in missing


@needs_espeak
def test_crownhead_say_writes_a_wav_and_refuses_an_unknown_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crownhead.firmware.cli import main

    out = tmp_path / "say.wav"
    assert main(["say", "--lang", "nl", "Zwart, 11 15.", "--out", str(out)]) == 0
    seconds, rms = wav_stats(out)
    assert 0.8 < seconds < 5 and rms > 0.02
    assert main(["say", "--lang", "xx", "hello", "--out", str(out)]) == 2
    assert "no catalogue for language 'xx'" in capsys.readouterr().err
