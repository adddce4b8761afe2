"""The ``[voice]`` configuration section: whether the board speaks, in which language, how.

Light on purpose: the configuration loader names this module (see
:data:`crownhead.firmware.config.BUILTIN_SECTIONS`), so it imports nothing of the voice itself.

>>> VoiceConfig(enabled=True, white_language="de").language_for("white")
'de'
>>> VoiceConfig(language="fr").language_for("black")
'fr'
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.firmware.config import FieldError, config_section
from crownhead.firmware.voice.utterance import SPEAK_CHOICES

__all__ = ["VoiceConfig", "ENGINES"]

#: The speech engines: eSpeak NG (Debian's ``espeak-ng``), or Piper where its voice
#: files are present (eSpeak NG for a language Piper has no voice for).
ENGINES = ("espeak", "piper")
_LANGUAGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")


@config_section("voice")
@dataclass(frozen=True)
class VoiceConfig:
    """The board's voice (``crownhead run --speech LANG`` switches it on for one run).

    ``enabled``: speak at all. ``language``: the sentences' language (``en``, ``de``,
    ``fr``, ``nl``, ``es``, ``ru``); ``black_language``/``white_language``: what is about
    one side (its moves, its warnings) in that side's language instead ("": the same).
    ``speed`` in words a minute (80-450), ``volume`` 0-200 (100 is eSpeak NG's normal),
    ``voice``: an eSpeak NG voice or variant (``en-gb``, ``de+f3``; "": the language's).
    ``speak``: ``all``, ``moves`` (moves and results), ``warnings`` (warnings, guidance,
    rulings, the clock) or ``off``; a request (repeat, the position) is answered always.
    ``engine``: ``espeak`` or ``piper`` (its ``<language>.onnx`` voices in
    ``piper_voices``). ``device``: the ALSA device ``aplay`` plays on. ``queue``: the
    sentences waiting at most (chatter is dropped first, a move never before 256).
    """

    enabled: bool = False
    language: str = "en"
    black_language: str = ""
    white_language: str = ""
    speed: int = 165
    volume: int = 100
    voice: str = ""
    speak: str = "all"
    engine: str = "espeak"
    piper_voices: str = ""
    device: str = "default"
    queue: int = 32

    def validate(self) -> None:
        for name in ("language", "black_language", "white_language"):
            value = getattr(self, name)
            if value and (len(value) > 16 or not set(value) <= _LANGUAGE_CHARS):
                raise FieldError(name, f"{value!r} is not a language code (e.g. en, de, fr-CA)")
        if not self.language:
            raise FieldError("language", "must name a language (e.g. en)")
        if not 80 <= self.speed <= 450:
            raise FieldError("speed", f"must be within 80-450 words a minute, got {self.speed}")
        if not 0 <= self.volume <= 200:
            raise FieldError("volume", f"must be within 0-200, got {self.volume}")
        if self.speak not in SPEAK_CHOICES:
            raise FieldError("speak", f"must be one of {', '.join(SPEAK_CHOICES)}, got {self.speak!r}")
        if self.engine not in ENGINES:
            raise FieldError("engine", f"must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if any(not (ch.isalnum() or ch in "+-_") for ch in self.voice) or len(self.voice) > 40:
            raise FieldError("voice", f"{self.voice!r} is not an eSpeak NG voice name (e.g. en-gb, de+f3)")
        if any(not (ch.isalnum() or ch in ":,._-=") for ch in self.device) or not self.device:
            raise FieldError("device", f"{self.device!r} is not an ALSA device name (e.g. default, plughw:1,0)")
        if any(ch in self.piper_voices for ch in "\n\r\0"):
            raise FieldError("piper_voices", "must be one line")
        if not 4 <= self.queue <= 256:
            raise FieldError("queue", f"must be within 4-256, got {self.queue}")

    def language_for(self, side: str) -> str:
        """The language of a sentence about ``side`` ("" or unknown: the board's)."""
        own = {"black": self.black_language, "white": self.white_language}.get(side, "")
        return own or self.language
