"""What the tests share: the application rig, random games, serial cables, scripted hands.

Test modules import from here (``from helpers.rig import Rig``), never from each other.
:mod:`helpers.rig` is the one harness for a whole board application (simulated board,
virtual clock, state directory, event log; optionally referee mode or a host link);
:mod:`helpers.games` makes random games; :mod:`helpers.cable` joins two serial ports like
a null-modem cable and plays the host computer at one end; :mod:`helpers.scriptgen`
turns real games into messy human hand actions; :mod:`helpers.colour_vision` simulates
colour-blind sight for the LED palette checks. ``conftest.py`` holds the fixtures, the
Hypothesis profile and the Blinka environment.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The read-only reference material lives in a `shared` folder beside the checkout.
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
