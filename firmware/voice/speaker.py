"""Speaking sentences without holding up the board: a worker thread, ALSA, WAV files.

:class:`Speaker` takes :class:`~crownhead.firmware.voice.catalogue.Sentence` values from the main
loop (:meth:`Speaker.say` queues and returns at once), and a thread of its own has the
engine write each as a WAV file and plays it with ``aplay`` (:class:`Aplay`, ALSA, the
Pi's audio; the buzzer stays for beeps). A warning queued while chatter is spoken stops
that playback (see :mod:`crownhead.firmware.voice.queue`). A failing engine or sound card is
reported once through :meth:`Speaker.poll` and the sentence is lost, never the game.

:class:`SentenceRecorder` writes every sentence as a WAV file and a line of
``sentences.jsonl`` instead, in the caller's thread: ``crownhead replay --speech-out``.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Protocol

from crownhead.firmware.voice.catalogue import Sentence, load_catalogue
from crownhead.firmware.voice.engine import Engine, SpeechUnavailable, VoiceSettings, open_engine
from crownhead.firmware.voice.queue import SpeechQueue

__all__ = ["Aplay", "Output", "Speaker", "SentenceRecorder", "open_speaker", "voice_name"]

log = logging.getLogger(__name__)


def voice_name(lang: str) -> str:
    """The eSpeak NG voice of a catalogue's language (``en`` -> ``en-us``)."""
    return load_catalogue(lang).voice


class Output(Protocol):
    def play(self, path: Path, stop: threading.Event) -> None:
        """Play the WAV file at ``path``, returning when it ends or soon after ``stop`` is set."""
        ...


class Aplay:
    """ALSA's ``aplay -q -D DEVICE FILE``, stopped when asked (a warning cuts chatter short)."""

    def __init__(self, device: str = "default", program: str = "aplay") -> None:
        found = shutil.which(program)
        if found is None:
            raise SpeechUnavailable(f"no {program} here: install alsa-utils to hear the board")
        self.program = found
        self.device = device

    def play(self, path: Path, stop: threading.Event) -> None:
        process = subprocess.Popen(
            [self.program, "-q", "-D", self.device, str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            while process.poll() is None:
                if stop.wait(0.02):
                    process.terminate()
                    break
            try:
                _out, err = process.communicate(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                _out, err = process.communicate()
        finally:
            if process.poll() is None:
                process.kill()
        if process.returncode not in (0, None) and not stop.is_set():
            text = (err or b"").decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(f"aplay -D {self.device} failed: {text[-1] if text else process.returncode}")


class Speaker:
    """Speaks :class:`Sentence` values off the main loop (see the module docstring).

    ``background=False`` speaks in the caller's thread when :meth:`pump` is called
    (tests); otherwise a daemon thread does it. ``on_spoken(sentence, wav)`` is told of
    each sentence once its file is written, before it is played.
    """

    def __init__(
        self,
        engine: Engine,
        output: Output | None,
        settings: VoiceSettings = VoiceSettings(),
        *,
        limit: int = 32,
        background: bool = True,
        on_spoken: Callable[[Sentence, Path], None] | None = None,
    ) -> None:
        self.engine = engine
        self.output = output
        self.settings = settings
        self.queue: SpeechQueue[Sentence] = SpeechQueue(limit)
        self.on_spoken = on_spoken
        #: Called (from the speaker's thread) when :meth:`poll` has news: the main loop's wake.
        self.notify: Callable[[], None] | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="crownhead-voice-")
        self._lock = threading.Lock()
        self._messages: list[str] = []
        self._failing: str | None = None
        #: The last sentences spoken, newest last (what a screen or a test reads).
        self.spoken: deque[Sentence] = deque(maxlen=100)
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._run, name="crownhead-voice", daemon=True)
            self._thread.start()

    def say(self, sentence: Sentence) -> None:
        """Queue ``sentence``; returns at once."""
        self.queue.put(sentence, sentence.kind)

    def poll(self) -> list[str]:
        """What to tell people about the voice since the last poll (it failed, it is back)."""
        with self._lock:
            out, self._messages = self._messages, []
        return out

    def pump(self) -> bool:
        """Speak one waiting sentence in this thread; False if none was waiting."""
        sentence = self.queue.get(0)
        if sentence is None:
            return False
        self._speak(sentence)
        return True

    def _run(self) -> None:
        while True:
            sentence = self.queue.get()
            if sentence is None:
                return
            self._speak(sentence)

    def _speak(self, sentence: Sentence) -> None:
        path = Path(self._dir.name) / "sentence.wav"
        try:
            self.engine.synthesize(sentence.spoken, voice_name(sentence.lang), self.settings, path)
            if self.on_spoken is not None:
                self.on_spoken(sentence, path)
            if self.output is not None:
                self.output.play(path, self.queue.interrupt)
            self.spoken.append(sentence)
            self._recovered()
        except (RuntimeError, OSError, ValueError) as exc:
            self._failed(str(exc))
        finally:
            self.queue.done()
            path.unlink(missing_ok=True)

    def _failed(self, message: str) -> None:
        with self._lock:
            if self._failing is None:
                log.warning("voice: %s", message)
                self._messages.append(f"The board cannot speak: {message}")
                self._notify()
            self._failing = message

    def _recovered(self) -> None:
        with self._lock:
            if self._failing is not None:
                self._messages.append("The board speaks again.")
                self._notify()
            self._failing = None

    def _notify(self) -> None:
        if self.notify is not None:
            self.notify()

    def close(self) -> None:
        self.queue.close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._dir.cleanup()


class SentenceRecorder:
    """Every sentence as ``DIR/NNNN-KIND.wav`` and a line of ``DIR/sentences.jsonl``
    (``{"t": ms, "text": ..., "lang": ..., "file": ..., "kind": ...}``), in this thread."""

    def __init__(self, engine: Engine, directory: Path, settings: VoiceSettings = VoiceSettings()) -> None:
        self.engine = engine
        self.directory = directory
        self.settings = settings
        directory.mkdir(parents=True, exist_ok=True)
        self._log: IO[str] = open(directory / "sentences.jsonl", "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self.count = 0

    def record(self, t: int, sentence: Sentence) -> dict[str, Any]:
        self.count += 1
        name = f"{self.count:04d}-{sentence.kind}.wav"
        self.engine.synthesize(sentence.spoken, voice_name(sentence.lang), self.settings, self.directory / name)
        line = {"t": t, "text": sentence.text, "lang": sentence.lang, "file": name, "kind": sentence.kind}
        self._log.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._log.flush()
        return line

    def close(self) -> None:
        self._log.close()

    def __enter__(self) -> SentenceRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_speaker(
    engine: str = "espeak",
    piper_voices: str = "",
    settings: VoiceSettings = VoiceSettings(),
    *,
    device: str = "default",
    limit: int = 32,
    background: bool = True,
    play: bool = True,
) -> tuple[Speaker | None, str]:
    """A speaker on the engine and ALSA device asked for, or (None, what to install):
    the board then plays on silently and says that once."""
    try:
        speech = open_engine(engine, piper_voices)
        output = Aplay(device) if play else None
    except SpeechUnavailable as exc:
        log.warning("voice: %s", exc)
        return None, str(exc)
    return Speaker(speech, output, settings, limit=limit, background=background), ""
