"""Reading the speech the voice wrote: a WAV file's length and loudness, eSpeak NG found."""

from __future__ import annotations

import array
import math
import shutil
import sys
import wave
from pathlib import Path

import pytest

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
