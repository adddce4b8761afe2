"""Reading the speech the voice wrote: a WAV file's length and loudness, eSpeak NG found;
the position a listener knows from what the voice said."""

from __future__ import annotations

import array
import math
import re
import shutil
import sys
import wave
from pathlib import Path

import pytest

from crownhead.rules import Color, Position

__all__ = ["needs_espeak", "wav_stats"]

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="espeak-ng is not installed (sudo apt-get install espeak-ng): the voice's speech cannot be checked",
)


def wav_stats(path: Path) -> tuple[float, float]:
    """(seconds, RMS loudness 0-1) of a 16-bit mono WAV file, read sample by sample."""
    with wave.open(str(path), "rb") as wav:
        assert wav.getsampwidth() == 2 and wav.getnchannels() == 1, "16-bit mono expected"
        rate, frames = wav.getframerate(), wav.getnframes()
        samples = array.array("h", wav.readframes(frames))
    if sys.byteorder == "big":
        samples.byteswap()
    rms = math.sqrt(sum(s * s for s in samples) / len(samples)) / 32768 if samples else 0.0
    return frames / rate, rms


def position_heard(sentences: list[str]) -> Position:
    """The position as the voice read it out ("Black men on 1, 2 and 3.", "White to
    move."), and nothing else."""
    pieces: dict[int, str] = {}
    turn = Color.BLACK
    for text in sentences:
        m = re.fullmatch(r"(Black|White) (men|kings) on ([\d, and]+)\.", text)
        if m:
            symbol = ("b" if m.group(1) == "Black" else "w") if m.group(2) == "men" else m.group(1)[0]
            for square in re.findall(r"\d+", m.group(3)):
                pieces[int(square)] = symbol
        elif text.endswith(" to move."):
            turn = Color.BLACK if text.startswith("Black") else Color.WHITE
    return Position.from_pieces(pieces, turn)  # type: ignore[arg-type]
