"""How colours look to colour-blind players, for the LED palette tests.

Simulates deuteranopia, protanopia and tritanopia with the Machado et al. (2009)
matrices (severity 1.0) on linear RGB.
"""

from __future__ import annotations

RGB = tuple[int, int, int]

MATRICES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
#: Two roles' colours closer than this (in simulated linear RGB) are hard to tell apart.
MIN_DISTANCE = 0.25


def _linear(c: int) -> float:
    v = c / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def seen(rgb: RGB, vision: str) -> tuple[float, ...]:
    """``rgb`` as a player with ``vision`` sees it, in linear RGB clamped to 0-1."""
    m = MATRICES[vision]
    x = [_linear(c) for c in rgb]
    return tuple(max(0.0, min(1.0, sum(m[i][j] * x[j] for j in range(3)))) for i in range(3))


def distance(a: RGB, b: RGB, vision: str) -> float:
    """How far apart two colours look to a player with ``vision``."""
    return sum((p - q) ** 2 for p, q in zip(seen(a, vision), seen(b, vision))) ** 0.5
