"""The speech options shared by ``crownhead run``, ``replay`` and ``say``."""

from __future__ import annotations

import argparse

from crownhead.firmware.config import Config
from crownhead.firmware.voice.engine import VoiceSettings
from crownhead.firmware.voice.settings import VoiceConfig

__all__ = ["add_speech_arguments", "voice_config", "voice_settings"]


def add_speech_arguments(parser: argparse.ArgumentParser, *, out: bool = False) -> None:
    group = parser.add_argument_group("speech (docs/voice.md; needs espeak-ng)")
    group.add_argument(
        "--speech",
        metavar="LANG",
        help="speak in LANG (en, de, fr, nl, es, ru): moves, warnings, rulings, the clock "
        "(default: [voice] language when [voice] enabled, else silent)",
    )
    if out:
        group.add_argument(
            "--speech-out",
            metavar="DIR",
            help="with --speech: write each sentence as DIR/NNNN-KIND.wav and a line of DIR/sentences.jsonl",
        )
    group.add_argument(
        "--speak",
        choices=("all", "moves", "warnings", "off"),
        help="what is spoken (default: [voice] speak, all)",
    )


def voice_config(config: Config, args: argparse.Namespace) -> VoiceConfig:
    """The ``[voice]`` section with ``--speech`` and ``--speak`` applied (ConfigError if bad)."""
    changes: dict[str, object] = {}
    if getattr(args, "speech", None):
        changes.update(enabled=True, language=args.speech)
    if getattr(args, "speak", None):
        changes["speak"] = args.speak
    if changes:
        config = config.replace("voice", **changes)
    return config.get(VoiceConfig)


def voice_settings(voice: VoiceConfig) -> VoiceSettings:
    return VoiceSettings(speed=voice.speed, volume=voice.volume, voice=voice.voice)
