"""The speech engines: eSpeak NG through its command line, Piper where its voice is present.

An engine writes one sentence as a WAV file (:meth:`Engine.synthesize`); the speaker
plays it. eSpeak NG (Debian's ``espeak-ng``, on every Pi, about a hundred languages) is
the engine; Piper (a neural voice, ``piper`` and a ``<language>.onnx`` voice file in
``[voice] piper_voices``) is used for a language it has a voice for. The text goes in on
standard input, never as an argument, so nothing in a sentence is read as an option.
Each run has a time limit: a stuck engine costs a sentence, never the worker.

:func:`open_engine` says why there is no engine (:class:`SpeechUnavailable`, with what
to install) instead of failing later.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "Engine",
    "Espeak",
    "Piper",
    "SpeechUnavailable",
    "TextTooLong",
    "VoiceSettings",
    "open_engine",
    "INSTALL_HINT",
    "MAX_TEXT",
]

#: What to install when there is no engine: said once, the board plays on silently.
INSTALL_HINT = "install eSpeak NG to hear the board (Debian, Raspberry Pi OS: sudo apt-get install espeak-ng)"
#: The longest sentence handed to an engine, in characters (the whole position is ~400).
MAX_TEXT = 2000
#: How long one sentence may take to synthesize, in seconds.
SYNTH_TIMEOUT_S = 20.0


class SpeechUnavailable(RuntimeError):
    """No speech engine can be run here; the message says what to install."""


class TextTooLong(ValueError):
    pass


@dataclass(frozen=True)
class VoiceSettings:
    """How to speak: words a minute, volume (0-200, 100 normal), and an eSpeak NG voice or
    variant overriding the language's ("": the catalogue's voice for the language)."""

    speed: int = 165
    volume: int = 100
    voice: str = ""


class Engine(Protocol):
    name: str

    def synthesize(self, text: str, voice: str, settings: VoiceSettings, path: Path) -> None:
        """Write ``text`` spoken in ``voice`` (an eSpeak NG voice name) as a WAV file at ``path``.

        Raises :class:`SpeechUnavailable` if the engine cannot run, ``RuntimeError``
        naming the problem if it failed on this sentence.
        """
        ...


def _check_text(text: str) -> bytes:
    if len(text) > MAX_TEXT:
        raise TextTooLong(f"a sentence of {len(text)} characters is longer than {MAX_TEXT}")
    return text.encode("utf-8")


def _run(command: list[str], text: bytes, what: str) -> None:
    try:
        done = subprocess.run(command, input=text, capture_output=True, timeout=SYNTH_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise SpeechUnavailable(f"{command[0]} is gone: {INSTALL_HINT}") from None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{what} took more than {SYNTH_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"{what} failed ({done.returncode}): {err[-1] if err else 'no message'}")


class Espeak:
    """eSpeak NG's command line: ``espeak-ng -v VOICE -s SPEED -a VOLUME -w FILE --stdin``."""

    name = "espeak-ng"

    def __init__(self, program: str = "espeak-ng") -> None:
        found = shutil.which(program)
        if found is None:
            raise SpeechUnavailable(f"no {program} here: {INSTALL_HINT}")
        self.program = found

    def synthesize(self, text: str, voice: str, settings: VoiceSettings, path: Path) -> None:
        data = _check_text(text)
        name = voice
        if settings.voice.startswith("+"):
            name = voice + settings.voice  # a variant of the language's voice: de+f3
        elif settings.voice:
            name = settings.voice
        command = [
            self.program,
            "-v",
            name,
            "-s",
            str(settings.speed),
            "-a",
            str(settings.volume),
            "-w",
            str(path),
            "--stdin",
        ]
        _run(command, data, f"espeak-ng ({name})")


class Piper:
    """Piper's command line with ``<language>.onnx`` voices in a directory; eSpeak NG
    (``fallback``) for a language Piper has no voice for, and for the speed it has no
    words-a-minute setting of (Piper's ``--length_scale`` is set from it)."""

    name = "piper"

    def __init__(self, voices: Path, fallback: Engine | None, program: str = "piper") -> None:
        found = shutil.which(program)
        if found is None:
            raise SpeechUnavailable(f"no {program} here (install Piper, or set [voice] engine = espeak)")
        if not voices.is_dir():
            raise SpeechUnavailable(f"no Piper voices in {voices} ([voice] piper_voices)")
        self.program = found
        self.voices = voices
        self.fallback = fallback

    def model(self, voice: str) -> Path | None:
        base = voice.split("+")[0].split("-")[0]
        path = self.voices / f"{base}.onnx"
        return path if path.is_file() else None

    def synthesize(self, text: str, voice: str, settings: VoiceSettings, path: Path) -> None:
        data = _check_text(text)
        model = self.model(voice)
        if model is None:
            if self.fallback is None:
                raise SpeechUnavailable(f"Piper has no voice for {voice} in {self.voices}")
            self.fallback.synthesize(text, voice, settings, path)
            return
        # eSpeak NG's 165 words a minute is about Piper's natural pace.
        scale = f"{max(0.3, min(3.0, 165 / settings.speed)):.2f}"
        command = [self.program, "--model", str(model), "--length_scale", scale, "--output_file", str(path)]
        _run(command, data, f"piper ({model.name})")


def open_engine(engine: str = "espeak", piper_voices: str = "") -> Engine:
    """The engine ``[voice] engine`` names (Piper falling back to eSpeak NG), or
    :class:`SpeechUnavailable` saying what to install."""
    if engine == "piper":
        try:
            fallback: Engine | None = Espeak()
        except SpeechUnavailable:
            fallback = None
        return Piper(Path(piper_voices), fallback)
    return Espeak()
