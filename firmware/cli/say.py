"""``crownhead say``: speak one sentence with the board's voice, or write it as a WAV file."""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

from crownhead.firmware.cli._voice import voice_settings
from crownhead.firmware.config import ConfigError, load_config
from crownhead.firmware.voice.settings import VoiceConfig

__all__ = ["register", "run"]

PROG = "crownhead say"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "say",
        help="speak a sentence with the board's voice (eSpeak NG), or write it as a WAV file",
        description=(
            "Speak TEXT in the board's voice, as the [voice] section sets it (speed, volume, "
            "voice, engine, ALSA device), or write it as a WAV file with --out. Needs espeak-ng."
        ),
    )
    p.add_argument("text", metavar="TEXT", nargs="+", help="what to say")
    p.add_argument(
        "--lang", metavar="L", help="the language's voice: en, de, fr, nl, es, ru (default: [voice] language)"
    )
    p.add_argument("--out", metavar="FILE.wav", help="write the speech to this WAV file instead of playing it")
    p.add_argument(
        "--config", metavar="PATH", help="configuration file (default: $CROWNHEAD_CONFIG or /etc/crownhead/config.toml)"
    )
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from crownhead.firmware.voice.catalogue import language_of
    from crownhead.firmware.voice.engine import MAX_TEXT, SpeechUnavailable, open_engine
    from crownhead.firmware.voice.speaker import Aplay, voice_name

    try:
        config = load_config(args.config)
        if args.lang:
            config = config.replace("voice", language=args.lang)
        voice = config.get(VoiceConfig)
        lang = language_of(voice.language)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    text = " ".join(args.text).strip()
    if not text:
        return _fail("nothing to say")
    if len(text) > MAX_TEXT:
        return _fail(f"the text is {len(text)} characters, longer than {MAX_TEXT}")
    try:
        engine = open_engine(voice.engine, voice.piper_voices)
        output = None if args.out else Aplay(voice.device)
    except SpeechUnavailable as exc:
        return _fail(str(exc))
    settings = voice_settings(voice)
    try:
        if args.out:
            engine.synthesize(text, voice_name(lang), settings, Path(args.out))
            return 0
        with tempfile.TemporaryDirectory(prefix="crownhead-say-") as tmp:
            path = Path(tmp) / "say.wav"
            engine.synthesize(text, voice_name(lang), settings, path)
            assert output is not None
            output.play(path, threading.Event())
    except (RuntimeError, OSError) as exc:
        return _fail(str(exc))
    return 0
